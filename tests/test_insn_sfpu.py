"""SFPLOAD, SFPSTORE and SFPLOADI (BlackholeA0 SFPLOAD.md, SFPSTORE.md; SFPLOADI.md), Blackhole
encodings, every MOD0_FMT_* format and address mode, worked by hand from the pages.

Lane l reads / writes Dst row (Addr & ~3) + l // 8, column (l & 7) * 2 (+1 when Addr & 2).
Dst32 layout: sign 31, mantissa-high 30:24, exponent 23:16, mantissa-low 15:0 (so IEEE 3.0,
0x40400000, is held as 0x40800000); Dst16 BF16: sign 15, mantissa 14:8, exponent 7:0; Dst16 FP16:
sign 15, mantissa 14:5, exponent 4:0.
"""

from __future__ import annotations

import numpy as np
import pytest
from sfpu_reference import LANES, encode, lreg, run, set_lreg

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UndefinedBehavior, UnpredictableValueUsed
from tdbg.tensix.state import TensixState

(SRCB, FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM, INT8_COMP,
 LO16_ONLY, HI16_ONLY) = range(16)


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def fill16(cop: Coprocessor, rows: range, value: int) -> None:
    for r in rows:
        cop.state.dst.write16(r, np.full(16, value))


def fill32(cop: Coprocessor, rows: range, value: int | np.ndarray) -> None:
    for r in rows:
        cop.state.dst.write32(r, np.broadcast_to(value, 16))


def cfg(cop: Coprocessor, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=0)


# -- SFPLOAD -------------------------------------------------------------------------------------

def test_load_fp32_lane_layout_then_store_to_odd_columns(cop: Coprocessor) -> None:
    for r in range(4):
        cop.state.dst.write32(r, 0x40800000 | (r * 16 + np.arange(16)))
    run(cop, "SFPLOAD", VD=1, Mod0=FP32, Imm10=0)
    low = (LANES // 8) * 16 + (LANES & 7) * 2
    assert (lreg(cop, 1) == (0x40400000 | low)).all()
    run(cop, "SFPSTORE", VD=1, Mod0=FP32, Imm10=2)          # Addr & 2: odd columns
    for r in range(4):
        row = cop.state.dst.read32(r)
        assert (row[1::2] == row[0::2]).all() and (row[0::2] == 0x40800000 | (r * 16 + np.arange(0, 16, 2))).all()


def test_load_fp16_infinity_option(cop: Coprocessor) -> None:
    # 0x7FFF: sign 0, mantissa 0x3FF, exponent 31.  Plain: exponent 31 + 112 = 143 ->
    # (143 << 23) | (0x3FF << 13) = 0x47FFE000.  ENABLE_FP16A_INF (lane 0): 0x7F800000.
    fill16(cop, range(4), 0x7FFF)
    cop.vector.lane_config[0] = 1
    run(cop, "SFPLOAD", VD=0, Mod0=FP16)
    assert lreg(cop, 0)[0] == 0x7F800000 and (lreg(cop, 0)[1:] == 0x47FFE000).all()


def test_load_fp16_denormal_keeps_bits(cop: Coprocessor) -> None:
    # exponent 0: no rebias; mantissa 0x155 << 13 -> 0x002AA000 (a denormal FP32)
    fill16(cop, range(4), 0x155 << 5)
    run(cop, "SFPLOAD", VD=0, Mod0=FP16)
    assert (lreg(cop, 0) == 0x002AA000).all()


@pytest.mark.parametrize(("mod0", "dst16", "expected"), [
    (BF16, 0x007F, 0x3F800000),          # DstDecodeBF16(0x007F) = 0x3F80, << 16
    (INT8, 0x9910, 0x800000C8),          # SignMag9: sign 1, (0x9910 >> 5) & 0xff = 200
    (INT8_COMP, 0x8C90, 0x80000064),     # SignMag11, no two's complement on Blackhole: 100
    (UINT16, 0xBEEF, 0x0000BEEF),
    (HI16, 0xBEEF, 0xBEEF0000),
    (INT16, 0x8005, 0x80000005),         # sign, 15-bit magnitude
    (LO16, 0xBEEF, 0x0000BEEF),
])
def test_load_16bit_modes(cop: Coprocessor, mod0: int, dst16: int, expected: int) -> None:
    fill16(cop, range(4), dst16)
    run(cop, "SFPLOAD", VD=2, Mod0=mod0)
    assert (lreg(cop, 2) == expected).all()


@pytest.mark.parametrize("mod0", [FP32, INT32, INT32_SM])
def test_load_32bit_modes_decode_only(cop: Coprocessor, mod0: int) -> None:
    # Dst32 0x3F00_8000 (sign 0, mantissa-high 0x3F, exponent 0x00, low 0x8000) -> 0x003F8000;
    # Blackhole's INT32_SM converts nothing.
    fill32(cop, range(4), 0x3F008000)
    run(cop, "SFPLOAD", VD=3, Mod0=mod0)
    assert (lreg(cop, 3) == 0x003F8000).all()


def test_load_zero_reads_nothing(cop: Coprocessor) -> None:
    run(cop, "SFPLOAD", VD=3, Mod0=ZERO)             # Dst rows never written: no read happens
    assert (lreg(cop, 3) == 0).all()


def test_load_lo16_only_and_hi16_only_merge(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0x1234)
    run(cop, "SFPLOAD", VD=4, Mod0=HI16)             # 0x12340000
    fill16(cop, range(4), 0xABCD)
    run(cop, "SFPLOAD", VD=4, Mod0=LO16_ONLY)        # keep 0x1234 high, low 0xABCD
    assert (lreg(cop, 4) == 0x1234ABCD).all()
    run(cop, "SFPLOAD", VD=4, Mod0=HI16_ONLY)
    assert (lreg(cop, 4) == 0xABCDABCD).all()


def test_half_load_into_undefined_lreg_leaves_half_undefined(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0x1234)
    run(cop, "SFPLOAD", VD=5, Mod0=LO16_ONLY)
    run(cop, "SFPSTORE", VD=5, Mod0=UINT16, Imm10=0)  # reads the low half only: fine
    with pytest.raises(UnpredictableValueUsed, match=r"LReg\[5\]"):
        run(cop, "SFPSTORE", VD=5, Mod0=HI16_ONLY, Imm10=0)


def test_load_uses_dst_rwc_offsets_and_partial_addr_mod(cop: Coprocessor) -> None:
    # Addr = Imm10 4 + MATH_Offset 8 + RWCs.Dst 8 + DEST_REGW_BASE 4 = 24 -> rows 24..27;
    # AddrMod 1 adds 4 to RWCs.Dst and leaves FidelityPhase alone.
    cfg(cop, ADDR_MOD_DST_SEC1_DestIncr=4, ADDR_MOD_DST_SEC1_FidelityIncr=1, DEST_REGW_BASE_Base=4,
        DEST_TARGET_REG_CFG_MATH_Offset=8)
    cop.rwc(0).Dst = 8
    fill16(cop, range(24, 28), 0x007F)
    run(cop, "SFPLOAD", VD=0, Mod0=BF16, Imm10=4, AddrMod=1)
    assert (lreg(cop, 0) == 0x3F800000).all()
    assert (cop.rwc(0).Dst, cop.rwc(0).FidelityPhase) == (12, 0)


@pytest.mark.parametrize("addr_mod", [4, 5, 6, 7])
def test_blackhole_addr_mods_4_to_7(cop: Coprocessor, addr_mod: int) -> None:
    # Blackhole's 3-bit AddrMod selects ADDR_MOD_*_SEC4..7 (every LLK SFPU kernel uses 7).
    cfg(cop, **{f"ADDR_MOD_DST_SEC{addr_mod}_DestIncr": addr_mod, f"ADDR_MOD_DST_SEC{addr_mod}_FidelityIncr": 1})
    fill16(cop, range(4), 0)
    run(cop, "SFPLOAD", VD=0, Mod0=BF16, AddrMod=addr_mod)
    set_lreg(cop, 1, 0)
    run(cop, "SFPSTORE", VD=1, Mod0=BF16, AddrMod=addr_mod, Imm10=(-addr_mod) & 0x3FF)
    assert (cop.rwc(0).Dst, cop.rwc(0).FidelityPhase) == (2 * addr_mod, 0)


def test_srcb_mode_resolution(cop: Coprocessor) -> None:
    # MOD0_FMT_SRCB: SrcB FP16 (1) -> FP16 (Dst16 1.0 = 0x000F: exponent 15 + 112 = 127);
    # Blackhole's SFPU_DEST_FMT_Enable replaces SrcBFmt (Base 5 = BF16: DstDecodeBF16(0x000F));
    # SFPU_Fp32_enabled -> FP32.
    cfg(cop, ALU_FORMAT_SPEC_REG1_SrcB=1)
    fill16(cop, range(4), 0x000F)
    run(cop, "SFPLOAD", VD=0, Mod0=SRCB)
    assert (lreg(cop, 0) == 0x3F800000).all()
    cfg(cop, SFPU_DEST_FMT_Enable=1, SFPU_DEST_FMT_Base=5)
    run(cop, "SFPLOAD", VD=0, Mod0=SRCB)
    assert (lreg(cop, 0) == 0x07800000).all()
    cfg(cop, ALU_ACC_CTRL_SFPU_Fp32_enabled=1)
    fill32(cop, range(4), 0x40800000)
    run(cop, "SFPLOAD", VD=0, Mod0=SRCB)
    assert (lreg(cop, 0) == 0x40400000).all()


def test_column_exchange_block_and_dest_index(cop: Coprocessor) -> None:
    # LaneConfig[3].DEST_RD_COL_EXCHANGE: lanes 3, 11, 19, 27 read column 7; LaneConfig[5]
    # .BLOCK_SFPU_RD_FROM_DEST: lane 5 keeps its value; ENABLE_DEST_INDEX|CAPTURE on lane 0:
    # LReg[VD + 4] = (Row << 4) | Column.
    for r in range(8, 12):
        cop.state.dst.write16(r, (r << 8) + np.arange(16))
    set_lreg(cop, 1, 0xDEAD)
    cop.vector.lane_config[3] = 64
    cop.vector.lane_config[5] = 32
    cop.vector.lane_config[0] = 4 | 8
    run(cop, "SFPLOAD", VD=1, Mod0=UINT16, Imm10=8)
    got = lreg(cop, 1)
    assert got[3] == (8 << 8) + 7 and got[27] == (11 << 8) + 7 and got[4] == (8 << 8) + 8
    assert got[5] == 0xDEAD and got[13] == (9 << 8) + 10
    assert lreg(cop, 5)[0] == (8 << 4) | 0 and cop.vector.defined[5][1] == 0


def test_int32_all_stack_ignores_lane_enable(cop: Coprocessor) -> None:
    # SFPSTORE MOD0_FMT_INT32_ALL stores at Sp + DEST_SP_BASE (+ RWCs.Dst & 3) then adds
    # SFPU_STACK_Incr to Sp; SFPLOAD subtracts it first: a stack, last in first out.
    cfg(cop, SFPU_STACK_Incr=16, DEST_SP_BASE_Base=32)
    fill32(cop, range(32, 64), 0)
    cop.vector.use_lane_flags[:] = True                  # every lane disabled ...
    for value in (0x1111, 0x2222):                        # high half 0: Dst32 holds the same bits
        set_lreg(cop, 0, value)
        run(cop, "SFPSTORE", VD=0, Mod0=INT32_ALL)       # ... but INT32_ALL ignores that
    assert cop.rwc(0).Sp == 32
    assert (cop.state.dst.read32(32)[0::2] == 0x1111).all() and (cop.state.dst.read32(48)[0::2] == 0x2222).all()
    cop.vector.use_lane_flags[:] = False
    run(cop, "SFPLOAD", VD=2, Mod0=INT32_ALL)
    assert (lreg(cop, 2) == 0x2222).all() and cop.rwc(0).Sp == 16


def test_stack_pointer_low_bits_offset_other_modes(cop: Coprocessor) -> None:
    # Addr += DstOffset + (SpOffset & 3): Sp + base = 2 selects the odd columns.
    cfg(cop, DEST_SP_BASE_Base=2)
    fill16(cop, range(4), 0)
    cop.state.dst.write16(0, np.arange(16))
    run(cop, "SFPLOAD", VD=0, Mod0=UINT16)
    assert (lreg(cop, 0)[:8] == np.arange(1, 16, 2)).all()


def test_undefined_rows(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0)
    run(cop, "ZEROACC", Mode=0, Imm10=2)
    with pytest.raises(UndefinedBehavior, match="row 2 is undefined"):
        run(cop, "SFPLOAD", VD=0, Mod0=FP16)


def test_store_into_undefined_rows_leaves_the_other_columns_unknown(cop: Coprocessor) -> None:
    set_lreg(cop, 0, 0x1234)
    run(cop, "SFPSTORE", VD=0, Mod0=UINT16, Imm10=8)        # even columns of rows 8..11
    run(cop, "SFPLOAD", VD=1, Mod0=UINT16, Imm10=8)
    assert (lreg(cop, 1) == 0x1234).all()
    with pytest.raises(UnpredictableValueUsed, match="no defined value"):
        run(cop, "SFPLOAD", VD=1, Mod0=UINT16, Imm10=10)     # odd columns: never written
    run(cop, "SFPSTORE", VD=0, Mod0=UINT16, Imm10=10)
    run(cop, "SFPLOAD", VD=1, Mod0=UINT16, Imm10=10)
    assert not cop.state.dst.unpredictable[8:12].any()


# -- SFPSTORE ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mod0", "value", "dst16"), [
    (FP16, 0x3F800000, 0x000F),          # ToFP16: exp 127 - 112 = 15 -> 0x3C00 -> DstEncodeFP16 0x000F
    (FP16, 0x4F000000, 0x7FFF),          # exp 158 - 112 > 31: saturate to exp 31, mantissa 0x3FF
    (FP16, 0xB8000000, 0x8000),          # exp 112 - 112 = 0: flushed to a zero of its sign
    (BF16, 0x3F812345, 0x017F),          # ToBF16 truncates -> 0x3F81 -> DstEncodeBF16
    (BF16, 0x3F80FFFF, 0x007F),          # truncation, not rounding (ttsim: 0x3F80FFFF -> 0x3F80)
    (BF16, 0x807FFFFF, 0x8000),          # denormal -> -0
    (INT8, 0x800000C8, 0x9910),          # SignMag11ToFP16 = 0xC0C8 -> DstEncodeFP16
    (INT8_COMP, 0x80000064, 0x8C90),     # no conversion on Blackhole: as INT8
    (INT16, 0x80001234, 0x9234),
    (UINT16, 0x5678ABCD, 0xABCD),
    (LO16_ONLY, 0x5678ABCD, 0xABCD),
    (HI16_ONLY, 0x5678ABCD, 0x5678),
    (ZERO, 0x5678ABCD, 0x0000),
])
def test_store_16bit_modes(cop: Coprocessor, mod0: int, value: int, dst16: int) -> None:
    fill16(cop, range(4), 0xFFFF)
    set_lreg(cop, 5, value)
    run(cop, "SFPSTORE", VD=5, Mod0=mod0)
    for r in range(4):
        row = cop.state.dst.read16(r)
        assert (row[0::2] == dst16).all() and (row[1::2] == 0xFFFF).all()


@pytest.mark.parametrize(("mod0", "value", "dst32"), [
    (FP32, 0x40400000, 0x40800000),      # DstEncodeFP32
    (FP32, 0x80400000, 0x80000000),      # Blackhole flushes a denormal to a zero of its sign
    (INT32, 0x80400000, 0xC0000000),     # ... INT32 keeps every bit (mantissa-high 0x40 at 30:24)
    (INT32_SM, 0xFFFFFFFB, 0xFFFFFFFB),  # no conversion on Blackhole (an all-ones high half encodes as itself)
    (LO16, 0x12345678, 0x56781234),      # rotated by 16
    (HI16, 0x12345678, 0x12345678),
])
def test_store_32bit_modes(cop: Coprocessor, mod0: int, value: int, dst32: int) -> None:
    fill32(cop, range(4), 0)
    set_lreg(cop, 6, value)
    run(cop, "SFPSTORE", VD=6, Mod0=mod0)
    assert (cop.state.dst.read32(0)[0::2] == dst32).all()


def test_store_reports_rows() -> None:
    seen: list[list[int]] = []
    c = Coprocessor(TensixState(), on_dst_write=lambda rows: seen.append(rows.tolist()))
    fill16(c, range(4), 0)
    set_lreg(c, 0, 0)
    c.push(0, encode("SFPSTORE", VD=0, Mod0=FP16))
    assert seen == [[0, 1, 2, 3]]


def test_store_masked_lanes_and_blocks(cop: Coprocessor) -> None:
    # LaneFlags on lanes 0-15 only; LaneConfig[2].DEST_WR_COL_EXCHANGE: lanes 2 and 10 store to
    # column 5; LaneConfig[7].BLOCK_DEST_WR_FROM_SFPU: lane 7 stores nothing.
    fill16(cop, range(4), 0xFFFF)
    set_lreg(cop, 0, LANES)
    cop.vector.use_lane_flags[:] = True
    cop.vector.lane_flags[:16] = True
    cop.vector.lane_config[2] = 128
    cop.vector.lane_config[7] = 16
    run(cop, "SFPSTORE", VD=0, Mod0=UINT16)
    row0, row1, row2 = (cop.state.dst.read16(r) for r in range(3))
    assert row0[0] == 0 and row0[4] == 0xFFFF and row0[5] == 2 and row0[14] == 0xFFFF
    assert row1[5] == 10 and row1[12] == 14 and (row2 == 0xFFFF).all()


def test_never_written_lreg(cop: Coprocessor) -> None:
    fill16(cop, range(4), 0)
    with pytest.raises(UnpredictableValueUsed, match=r"LReg\[7\]"):
        run(cop, "SFPSTORE", VD=7, Mod0=FP16)
    run(cop, "SFPSTORE", VD=9, Mod0=FP16)               # LReg[9] is the constant 0
    assert (cop.state.dst.read16(0) == 0).all()


def test_row_mask_disables_lanes(cop: Coprocessor) -> None:
    # LaneConfig[0].ROW_MASK bit 1 disables lane 8 (row 1 of the 4x8 grid, column 0).
    fill16(cop, range(4), 0x007F)
    cop.vector.lane_config[0] = 1 << (12 + 1)
    run(cop, "SFPLOAD", VD=0, Mod0=BF16)
    assert cop.vector.lreg[0, 8] == 0 and cop.vector.lreg[0, 0] == 0x3F800000
    assert cop.vector.defined[0, 8] == 0


def test_backdoor_store_writes_instruction_template(cop: Coprocessor) -> None:
    # DISABLE_BACKDOOR_LOAD false (the default): VD >= 12 writes the instruction word to
    # LoadMacroConfig.InstructionTemplate[VD - 12] and stores nothing.
    word = encode("SFPSTORE", VD=13, Mod0=FP32)
    cop.push(0, word)
    assert (cop.vector.template[1] == word).all() and cop.vector.macro_defined[1].all()


# -- SFPLOADI ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mod0", "imm", "expected"), [
    (0, 0x3F80, 0x3F800000),             # BF16 -> FP32
    (1, 0x3C00, 0x3F800000),             # FP16 (exp 15 + 112) -> FP32
    (1, 0x7C01, 0x47802000),             # no Inf/NaN handling: exp 31 + 112 = 143
    (2, 0xFFFE, 0x0000FFFE),             # zero-extend
    (4, 0xFFFE, 0xFFFFFFFE),             # sign-extend
])
def test_loadi_conversions(cop: Coprocessor, mod0: int, imm: int, expected: int) -> None:
    run(cop, "SFPLOADI", VD=3, Mod0=mod0, Imm16=imm)
    assert (lreg(cop, 3) == expected).all()


def test_loadi_halves_and_predication(cop: Coprocessor) -> None:
    run(cop, "SFPLOADI", VD=1, Mod0=8, Imm16=0x1234)     # UPPER: high half, low half kept
    run(cop, "SFPLOADI", VD=1, Mod0=10, Imm16=0x5678)    # LOWER
    assert (lreg(cop, 1) == 0x12345678).all() and cop.vector.full[1]
    cop.vector.use_lane_flags[:] = True
    cop.vector.lane_flags[::2] = True                    # even lanes enabled
    run(cop, "SFPLOADI", VD=1, Mod0=2, Imm16=7)
    assert (lreg(cop, 1)[::2] == 7).all() and (lreg(cop, 1)[1::2] == 0x12345678).all()


def test_loadi_bad_mode_and_high_vd(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="Mod0 3"):
        run(cop, "SFPLOADI", VD=0, Mod0=3)
    run(cop, "SFPLOADI", VD=10, Mod0=0, Imm16=0)         # VD 8-11: nothing
    assert cop.vector.lreg[10][0] == 0x3F800000


# -- SFPLOADMACRO ----------------------------------------------------------------------------------

def test_loadmacro_without_schedule_is_a_load(cop: Coprocessor) -> None:
    # VD = VDHi << 2 | VDLo = 6, Imm10 = Imm9 << 1 | VDHi = 5: rows 4-7, even columns (bit 1 clear)
    for r in range(4, 8):
        cop.state.dst.write32(r, 0x40800000 | (r * 16 + np.arange(16)))
    run(cop, "SFPCONFIG", VD=4 + 2, Imm16=0, Mod1=1)       # Sequence[2] = 0: schedule nothing
    run(cop, "SFPLOADMACRO", MacroIndex=2, VDLo=2, VDHi=1, Imm9=2, Mod0=FP32, AddrMod=0)
    low = (4 + LANES // 8) * 16 + (LANES & 7) * 2
    assert (lreg(cop, 6) == (0x40400000 | low)).all()


def test_loadmacro_schedule_stops_after_the_load(cop: Coprocessor) -> None:
    from tdbg.tensix.events import UnsupportedFunctionality

    fill32(cop, range(4), 0x007F0000)                       # 1.0 in the Dst32 layout
    with pytest.raises(UnpredictableValueUsed, match=r"Sequence\[0\].*never written"):
        run(cop, "SFPLOADMACRO", MacroIndex=0, VDLo=1, Mod0=FP32)
    assert (lreg(cop, 1) == 0x3F800000).all()                # the load part ran
    run(cop, "SFPCONFIG", VD=4, Imm16=0x0B04, Mod1=1)       # Simple: template 0; MAD: SFPSTORE, delay 1
    with pytest.raises(UnsupportedFunctionality, match="InstructionTemplate.0. on Simple, SFPSTORE on MAD"):
        run(cop, "SFPLOADMACRO", MacroIndex=0, VDLo=2, Mod0=FP32)
    assert (lreg(cop, 2) == 0x3F800000).all()
    run(cop, "SFPCONFIG", VD=5, Imm16=0x0001, Mod1=1)       # case 1 on Simple
    with pytest.raises(UndefinedBehavior, match="case 1 on the Simple"):
        run(cop, "SFPLOADMACRO", MacroIndex=1, VDLo=3, Mod0=FP32)
