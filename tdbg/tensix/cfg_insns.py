"""Configuration Unit instructions: ``SETC16``, ``WRCFG``, ``RDCFG``, ``RMWCIB0``-``RMWCIB3``.

Implements WormholeB0 ``TensixCoprocessor/SETC16.md``, ``WRCFG.md``, ``RMWCIB.md`` and the newer
``RDCFG.md``, on the Blackhole config (``BackendConfiguration.md``): the bank is the thread's
``CFG_STATE_ID_StateID``; word writes keep ``TensixConfig.write_word``'s rules (global words
land in both banks; a write to ``STATE_RESET_EN`` clears the bank, except by RMWCIB).
"""

from __future__ import annotations

import numpy as np

from tdbg.tensix.events import UndefinedBehavior
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
