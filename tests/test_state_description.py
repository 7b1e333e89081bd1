"""State declared once (``tdbg.tensix.state_description``): one declaration per component resets it,
saves and restores it, sizes a save and reports what changed.  A component whose state is used
and then reset must be indistinguishable from a new one, attribute by attribute (so no state is
left out of its declaration), and a save must come back exactly."""

from __future__ import annotations

from collections import deque
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from tdbg.tensix import state_description as state
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.emu.tile import Tile
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode

# What a component holds that is not state: tables, caches derived from state, wiring.
NOT_STATE = {"isa", "_bound", "_frontend_ops", "profile", "config", "table", "window", "dst_port", "mmio", "l1_write",
             "on_dst_write", "on_l1_access", "_l1_access", "l1_journal", "_written", "_others", "l1", "_flat",
             "row16", "row32", "_row16_base", "_row32_base", "_key", "one_row", "four_rows", "mop_cfg_view"}


def _same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` hold the same state (numpy arrays by value, objects attribute by attribute)."""
    if isinstance(a, np.ndarray):
        assert np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list | tuple | deque):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif is_dataclass(a) and not isinstance(a, type):
        for f in fields(a):
            if f.name not in NOT_STATE:
                _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif hasattr(a, "__dict__") and type(a).__module__.startswith("tdbg"):
        for name, value in vars(a).items():
            if name not in NOT_STATE:
                _same(value, vars(b)[name], f"{where}.{name}")
    else:
        assert a == b, (where, a, b)


def _used() -> Coprocessor:
    """A coprocessor after instructions that move most of its state."""
    cop = Coprocessor(TensixState())
    g = cop.state.gprs
    g[0, 10], g[0, 11] = 0x100, 0xCAFEF00D
    cop.state.config.set("SRCA_SET_Base", 3, thread=0)         # SETDVALID's Unpackers[0].SrcRow
    for thread, mnemonic, f in [
        (0, "SEMINIT", dict(SemaphoreMask=3, NewValue=2, NewMax=9)),
        (0, "SEMPOST", dict(SemaphoreMask=1)),
        (1, "INCRWC", dict(DstInc=5, SrcAInc=3, SrcBCr=1, SrcBInc=2)),
        (0, "SETDVALID", dict(FlipSrcA=1, FlipSrcB=1)),
        (2, "SETADCXY", dict(U0=1, X0=1, X0Val=7, Y1=1, Y1Val=3)),
        (0, "ATGETM", dict(Index=3)),
        (0, "STOREIND", dict(MemHierSel=1, RegSizeSel=1, AddrRegIndex=10, DataRegIndex=11, OffsetIndex=40, AutoIncSpec=3)),
        (1, "SFPLOADI", dict(VD=2, Mod0=1, Imm16=0x3F80)),
        (2, "ZEROACC", dict(Mode=3)),
        (0, "MOP_CFG", dict(MaskHi=0x1234)),
        (1, "REPLAY", dict(Index=2, Count=2, Load=1)),
        (1, "NOP", {}),
        (0, "SEMWAIT", dict(SemaphoreMask=4, ConditionMask=1)),      # latches: semaphore 2 is 0
        (0, "INCRWC", dict(DstInc=1)),                                # a Matrix Unit instruction: held
    ]:
        cop.push(thread, encode(mnemonic, **f))
    cop.state.config.set("ALU_ACC_CTRL_Fp32_enabled", 1, thread=0)
    cop.state.dst.feature_disable = 1 << 11
    cop.state.mop_cfg[1, 3] = 0x55
    return cop


def test_a_used_coprocessor_reset_is_a_new_one() -> None:
    cop, new = _used(), Coprocessor(TensixState())
    assert cop.queued(0) and cop.wait_gate[0] is not None            # the sequence did what it says
    state.reset(cop)
    _same(cop, new)
    _same(cop.state, new.state)
    _same(cop.state.dst, new.state.dst)


def test_a_save_comes_back_exactly() -> None:
    cop = _used()
    saved = state.save(cop)
    used_bits = cop.state.dst.bits.copy()
    state.reset(cop)
    state.load(cop, saved)
    _same(state.save(cop), saved)
    assert np.array_equal(cop.state.dst.bits, used_bits) and cop.state.dst.alias16
    assert cop.queued(0) == 1 and cop.waiting(0)                    # the latch and the held INCRWC are back


def test_the_tensix_report_names_each_change() -> None:
    cop = Coprocessor(TensixState())
    before = state.save(cop)
    cop.push(0, encode("INCRWC", DstInc=4, SrcAInc=1))
    cop.push(1, encode("SEMINIT", SemaphoreMask=4, NewValue=1, NewMax=2))
    cop.push(0, encode("SETDVALID", FlipSrcA=1))
    cop.state.dst.bits[7, 3] = 1
    cop.state.config.config[1, 5] = 0x10
    assert state.changes(cop, before, state.save(cop)) == [
        "DstBits rows changed: 7",
        "Config[1][5]: 0x0 -> 0x10",
        "AllowedClient: SrcA ['MatrixUnit', 'Unpackers'], SrcB ['Unpackers', 'Unpackers']",
        "RWC T0: Dst 0 -> 4, SrcA 0 -> 1",
        "Semaphore 2: Value 0 -> 1, Max 0 -> 2",
    ]


def test_a_tile_checkpoint_sizes_what_it_holds() -> None:
    tile = Tile()
    cp = tile.checkpoint()
    arrays = (BLACKHOLE.l1_size + sum(c.local_ram_size for c in BLACKHOLE.cores)
              + tile.tensix.dst.bits.nbytes + tile.tensix.srca.data.nbytes + tile.tensix.config.config.nbytes)
    assert arrays < cp.nbytes < 2 * arrays
    assert tile.checkpoint(compress=True).nbytes < cp.nbytes - BLACKHOLE.l1_size // 2    # L1 is zero: it compresses
