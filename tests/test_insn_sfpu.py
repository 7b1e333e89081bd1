"""SFPLOAD and SFPSTORE (SFPLOAD.md, SFPSTORE.md, LReg.md), Blackhole encodings.

Lane l reads / writes Dst row (Addr & ~3) + l // 8, column (l & 7) * 2 (+1 when Addr & 2).
Dst32 layout: sign 31, mantissa-high 30:24, exponent 23:16, mantissa-low 15:0; so IEEE 3.0
(0x40400000) is held as 0x40800000.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import (
    UndefinedBehavior,
    UnimplementedFunctionality,
    UnpredictableValueUsed,
)
from tdbg.tensix.profile import BLACKHOLE
from tdbg.tensix.tile import TensixState

encode = BLACKHOLE.isa.encode  # the words Blackhole firmware pushes (bh_encodings.json)

FP16, BF16, FP32, INT32, INT8, LO16, INT32_SM, INT8_COMP, LO16_ONLY, HI16_ONLY = 1, 2, 3, 4, 5, 9, 12, 13, 14, 15
LANES = np.arange(32)


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def load(cop: Coprocessor, **f: int) -> None:
    cop.push(0, encode("SFPLOAD", **f))


def store(cop: Coprocessor, **f: int) -> None:
    cop.push(0, encode("SFPSTORE", **f))


def fill16(cop: Coprocessor, rows: range, value: int) -> None:
    for r in rows:
        cop.state.dst.write16(r, np.full(16, value))


def test_load_fp32_lane_layout_then_store_to_odd_columns(cop: Coprocessor) -> None:
    for r in range(4):
        cop.state.dst.write32(r, 0x40800000 | (r * 16 + np.arange(16)))
    load(cop, VD=1, Mod0=FP32, Imm10=0)
    low = (LANES // 8) * 16 + (LANES & 7) * 2
    assert (cop.vector.lreg[1] == (0x40400000 | low)).all()
    store(cop, VD=1, Mod0=FP32, Imm10=2)          # Addr & 2: odd columns
    for r in range(4):
        row = cop.state.dst.read32(r)
        assert (row[1::2] == row[0::2]).all() and (row[0::2] == 0x40800000 | (r * 16 + np.arange(0, 16, 2))).all()


def test_load_fp16_infinity_option(cop: Coprocessor) -> None:
    # 0x7FFF: sign 0, mantissa 0x3FF, exponent 31.  Plain: exponent 31 + 112 = 143 ->
    # (143 << 23) | (0x3FF << 13) = 0x47FFE000.  ENABLE_FP16A_INF (lane 0): 0x7F800000.
    fill16(cop, range(4), 0x7FFF)
    cop.vector.lane_config[0] = 1
    load(cop, VD=0, Mod0=FP16)
    assert cop.vector.lreg[0, 0] == 0x7F800000 and (cop.vector.lreg[0, 1:] == 0x47FFE000).all()


@pytest.mark.parametrize(("mod0", "dst16", "expected"), [
    (BF16, 0x007F, 0x3F800000),          # UnshuffleBF16(0x007F) = 0x3F80, << 16
    (INT8, 0x8C90, 0x80000064),          # sign 1, (0x8C90 >> 5) & 0x7f = 100
    (INT8_COMP, 0x8C90, 0xFFFFFF9C),     # -(100) in two's complement
    (6, 0xBEEF, 0x0000BEEF),             # MOD0_FMT_UINT16
    (7, 0xBEEF, 0xBEEF0000),             # MOD0_FMT_HI16
    (8, 0x8005, 0x80000005),             # MOD0_FMT_INT16: sign, 15-bit magnitude
])
def test_load_16bit_modes(cop: Coprocessor, mod0: int, dst16: int, expected: int) -> None:
    fill16(cop, range(4), dst16)
    load(cop, VD=2, Mod0=mod0)
    assert (cop.vector.lreg[2] == expected).all()


def test_load_int32_sign_magnitude(cop: Coprocessor) -> None:
    # Dst32 Integer "32" -5 is 0x80000005 (small magnitudes sit in the low 16 bits).
    for r in range(4):
        cop.state.dst.write32(r, np.full(16, 0x80000005))
    load(cop, VD=3, Mod0=INT32_SM)
    assert (cop.vector.lreg[3] == 0xFFFFFFFB).all()


def test_load_lo16_only_and_hi16_only_merge(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0x1234)
    load(cop, VD=4, Mod0=7)                  # HI16: 0x12340000
    fill16(cop, range(4), 0xABCD)
    load(cop, VD=4, Mod0=LO16_ONLY)          # keep 0x1234 high, low 0xABCD
    assert (cop.vector.lreg[4] == 0x1234ABCD).all()
    load(cop, VD=4, Mod0=HI16_ONLY)
    assert (cop.vector.lreg[4] == 0xABCDABCD).all()


def test_load_uses_dst_rwc_and_partial_addr_mod(cop: Coprocessor) -> None:
    # Addr = Imm10 4 + RWCs.Dst 8 = 12 -> rows 12..15; AddrMod keeps FidelityPhase.
    cfg = cop.state.config
    cfg.set("ADDR_MOD_DST_SEC1_DestIncr", 4, thread=0)
    cfg.set("ADDR_MOD_DST_SEC1_FidelityIncr", 1, thread=0)
    cop.rwc(0).Dst = 8
    fill16(cop, range(12, 16), 0x007F)
    load(cop, VD=0, Mod0=BF16, Imm10=4, AddrMod=1)
    assert (cop.vector.lreg[0] == 0x3F800000).all()
    assert (cop.rwc(0).Dst, cop.rwc(0).FidelityPhase) == (12, 0)


def test_load_srcb_mode_resolution(cop: Coprocessor) -> None:
    # MOD0_FMT_SRCB with SrcB format FP16 (1) -> MOD0_FMT_FP16; 0x3C00 style Dst16 1.0 = 0x000F.
    cop.state.config.set("ALU_FORMAT_SPEC_REG1_SrcB", 1, thread=0)
    fill16(cop, range(4), 0x000F)
    load(cop, VD=0, Mod0=0)
    assert (cop.vector.lreg[0] == 0x3F800000).all()      # exponent 15 + 112 = 127


@pytest.mark.parametrize(("mod0", "lreg", "dst16"), [
    (FP16, 0x3F800000, 0x000F),          # ToFP16: exp 127 - 112 = 15 -> 0x3C00 -> shuffled 0x000F
    (FP16, 0x4F000000, 0x7FFF),          # exp 158 - 112 > 31: saturate to exp 31, mantissa 0x3FF
    (FP16, 0x38000000, 0x0000),          # exp 112 - 112 = 0: flushed
    (BF16, 0x3F812345, 0x017F),          # ToBF16 -> 0x3F81 -> BF16Shuffle: 0x01 << 8 | 0x7F
    (INT8, 0x80000064, 0x8C90),          # SignMag11ToFP16 = 0xC064 -> FP16Shuffle
    (INT8_COMP, 0xFFFFFF9C, 0x8C90),     # -100 -> sign-magnitude, as above
])
def test_store_16bit_modes(cop: Coprocessor, mod0: int, lreg: int, dst16: int) -> None:
    fill16(cop, range(4), 0xFFFF)
    cop.vector.lreg[5] = lreg
    cop.vector.defined[5] = True
    store(cop, VD=5, Mod0=mod0)
    for r in range(4):
        row = cop.state.dst.read16(r)
        assert (row[0::2] == dst16).all() and (row[1::2] == 0xFFFF).all()


def test_store_lo16_writes_rotated_dst32(cop: Coprocessor) -> None:
    for r in range(4):
        cop.state.dst.write32(r, np.zeros(16))
    cop.vector.lreg[6] = 0x12345678
    cop.vector.defined[6] = True
    store(cop, VD=6, Mod0=LO16)
    assert (cop.state.dst.read32(0)[0::2] == 0x56781234).all()


def test_store_reports_rows() -> None:
    seen: list[list[int]] = []
    c = Coprocessor(TensixState(), on_dst_write=lambda rows: seen.append(rows.tolist()))
    fill16(c, range(4), 0)
    c.vector.lreg[0] = 0
    c.vector.defined[0] = True
    c.push(0, encode("SFPSTORE", VD=0, Mod0=FP16))
    assert seen == [[0, 1, 2, 3]]


def test_undefined_rows(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0)
    cop.push(0, encode("ZEROACC", Mode=0, Imm10=2))
    with pytest.raises(UndefinedBehavior, match="row 2 is undefined"):
        load(cop, VD=0, Mod0=FP16)
    cop.vector.lreg[0] = 0
    cop.vector.defined[0] = True
    with pytest.raises(UndefinedBehavior, match="partial write"):
        store(cop, VD=0, Mod0=FP16)


def test_never_written_lreg(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0)
    with pytest.raises(UnpredictableValueUsed, match="LReg\\[7\\]"):
        store(cop, VD=7, Mod0=FP16)
    store(cop, VD=9, Mod0=FP16)             # LReg[9] is the constant 0
    assert (cop.state.dst.read16(0) == 0).all()


def test_row_mask_disables_lanes(cop: Coprocessor) -> None:
    # LaneConfig[0].ROW_MASK bit 1 disables lane 8 (row 1 of the 4x8 grid, column 0).
    fill16(cop, range(4), 0x007F)
    cop.vector.lane_config[0] = 1 << (12 + 1)
    load(cop, VD=0, Mod0=BF16)
    assert cop.vector.lreg[0, 8] == 0 and cop.vector.lreg[0, 0] == 0x3F800000
    assert not cop.vector.defined[0, 8].any()


def test_backdoor_load_is_not_modelled(cop: Coprocessor) -> None:
    with pytest.raises(UnimplementedFunctionality, match="LoadMacroConfig"):
        store(cop, VD=12, Mod0=FP32)


def test_blackhole_wide_addr_mod(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0)
    with pytest.raises(UnimplementedFunctionality, match="AddrMod 5"):
        load(cop, VD=0, Mod0=FP16, AddrMod=5)
