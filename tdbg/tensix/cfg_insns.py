"""Configuration Unit instructions: ``SETC16``, ``WRCFG``, ``RDCFG``, ``RMWCIB0``-``RMWCIB3``,
``CFGSHIFTMASK``.

Implements WormholeB0 ``TensixCoprocessor/SETC16.md``, ``WRCFG.md``, ``RMWCIB.md`` and the newer
``RDCFG.md``, on the Blackhole config (``BackendConfiguration.md``): the bank is the thread's
``CFG_STATE_ID_StateID``; word writes keep ``TensixConfig.write_word``'s rules (global words
land in both banks; a write to ``STATE_RESET_EN`` clears the bank, except by RMWCIB).
``CFGSHIFTMASK`` (Blackhole only, no page) is the pseudocode of tt-llk's ``assembly.yaml``.
"""

from __future__ import annotations

import numpy as np

from tdbg.tensix.events import MissingSpecification, UndefinedBehavior
from tdbg.tensix.state import TensixState


def setc16(state: TensixState, thread: int, f: dict[str, int]) -> None:
    """``ThreadConfig[thread][CfgIndex].Value = NewValue`` (SETC16.md)."""
    cfg = state.config
    if f["CfgIndex"] >= cfg.table.thd_state_size:
        raise UndefinedBehavior(f"SETC16.md: CfgIndex {f['CfgIndex']} >= THD_STATE_SIZE ({cfg.table.thd_state_size})")
    cfg.write_thread_word(thread, f["CfgIndex"], f["NewValue"])


def _check_index(state: TensixState, page: str, index: int) -> None:
    if index >= state.config.words_per_bank:
        raise UndefinedBehavior(f"{page}: CfgIndex {index} >= CFG_STATE_SIZE*4 ({state.config.words_per_bank})")


def wrcfg(state: TensixState, thread: int, f: dict[str, int]) -> None:
    """``WRCFG``: one GPR, or four aligned GPRs, to ``Config[StateID]`` (WRCFG.md)."""
    _check_index(state, "WRCFG.md", f["CfgIndex"])
    cfg = state.config
    bank = cfg.state_id(thread)
    if f["Is128Bit"]:
        base, reg = f["CfgIndex"] & ~3, f["InputReg"] & ~3
        for i in range(4):
            cfg.write_word(bank, base + i, int(state.gprs[thread, reg + i]))
    else:
        cfg.write_word(bank, f["CfgIndex"], int(state.gprs[thread, f["InputReg"]]))


def rdcfg(state: TensixState, thread: int, f: dict[str, int]) -> None:
    """``GPRs[thread][ResultReg] = Config[StateID][CfgIndex]`` (RDCFG.md)."""
    _check_index(state, "RDCFG.md", f["CfgIndex"])
    cfg = state.config
    state.gprs[thread, f["ResultReg"]] = np.uint32(cfg.config[cfg.state_id(thread), f["CfgIndex"]])


def rmwcib(state: TensixState, thread: int, index1: int, f: dict[str, int]) -> None:
    """``RMWCIB<index1>``: masked write of byte ``index1`` of ``Config[StateID][Index4]`` (RMWCIB.md)."""
    _check_index(state, "RMWCIB.md", f["Index4"])
    cfg = state.config
    bank = cfg.state_id(thread)
    old = int(cfg.config[bank, f["Index4"]])
    shift = 8 * index1
    byte = (f["NewValue"] & f["Mask"]) | ((old >> shift) & ~f["Mask"] & 0xFF)
    cfg.write_word(bank, f["Index4"], (old & ~(0xFF << shift)) | (byte << shift), via_rmwcib=True)


_M32 = 0xFFFFFFFF


def _rotr(value: int, amount: int) -> int:
    return ((value >> amount) | (value << (32 - amount))) & _M32 if amount else value


def cfgshiftmask(state: TensixState, thread: int, f: dict[str, int]) -> None:
    """``CFGSHIFTMASK`` (tt-llk ``tt_llk_blackhole/instructions/assembly.yaml``, its pseudocode):
    with ``mask`` = ``mask_width + 1`` low ones and ``scratch`` = ``SCRATCH_SEC<scratch_sel>_val``
    (``scratch_sel`` 3: the thread's own), both rotated right by ``right_cshift_amt``,
    ``Config[StateID][CfgReg]`` becomes ``old op (scratch & mask)`` with op OR, AND, XOR or ADD
    (``operation`` 0-3), ``old`` masked by ``~mask`` unless ``disable_mask_on_old_val``.  ttsim
    v1.10.0 (tensix.cpp:4841) runs only the form tt-llk's pack-untilize pushes (ADD, full mask, no
    shift, old unmasked), which this agrees with.  ``operation`` 4-7 (the field's description says
    "old OR ~scratch" and "old - scratch"; the pseudocode stops at 3) is ``MissingSpecification``."""
    op = f["operation"]
    if op > 3:
        raise MissingSpecification(f"CFGSHIFTMASK (assembly.yaml): operation {op} is named but not in the pseudocode")
    _check_index(state, "CFGSHIFTMASK (assembly.yaml)", f["CfgReg"])
    cfg = state.config
    bank = cfg.state_id(thread)
    which = thread if f["scratch_sel"] == 3 else f["scratch_sel"]
    amount = f["right_cshift_amt"]
    mask = _rotr((1 << (f["mask_width"] + 1)) - 1, amount)
    operand = _rotr(cfg.get(f"SCRATCH_SEC{which}_val", bank=bank), amount) & mask
    old = int(cfg.config[bank, f["CfgReg"]])
    if not f["disable_mask_on_old_val"]:
        old &= ~mask & _M32
    new = (old | operand, old & operand, old ^ operand, old + operand)[op]
    cfg.write_word(bank, f["CfgReg"], new & _M32)
