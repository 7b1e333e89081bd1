"""MOVD2B (seed 001), MOVD2A, MOVA2D, MOVDBGA2D, MOVB2D, MOVB2A, worked by hand from their pages.

Layouts used below: Src TF32/BF16 = sign 18, mantissa 17:8, exponent 7:0; Src FP16 = sign 18,
mantissa 17:8, zeros 7:5, exponent 4:0; Dst16 BF16 = sign 15, mantissa 14:8, exponent 7:0;
Dst16 FP16 = sign 15, mantissa 14:5, exponent 4:0.  With the default (identity) row mapping,
Dst32b[r] (r < 8) is DstBits[r] << 16 | DstBits[r + 8].
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UndefinedBehavior
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)

FP32, FP16, TF32, BF16 = 0, 1, 4, 5
V = 0x12345678


@pytest.fixture
def cop() -> Coprocessor:
    """A coprocessor whose thread 0 takes SrcAFmt from the config, as the pages do (Blackhole's
    implied bank formats are tested in test_unpack.py)."""
    c = Coprocessor(TensixState())
    c.state.config.set("DISABLE_IMPLIED_SRCA_FMT_Base", 1, thread=0)
    return c


def run(cop: Coprocessor, mnemonic: str, **fields: int) -> None:
    cop.push(0, encode(mnemonic, **fields))


def cfg(cop: Coprocessor, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=0)


def fill16(cop: Coprocessor, row: int, value: int) -> None:
    cop.state.dst.write16(row, np.full(16, value))


def fill32(cop: Coprocessor, row: int, value: int) -> None:
    cop.state.dst.write32(row, np.full(16, value))


def grant(cop: Coprocessor) -> None:
    """Give both banks of SrcA and SrcB to the Matrix Unit."""
    cop.state.srca.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    cop.state.srcb.allowed_client[:] = [SrcClient.MatrixUnit] * 2


# -- MOVD2B -------------------------------------------------------------------------------------

def test_movd2b_16bit_bf16_style(cop: Coprocessor) -> None:
    # SrcAFmt FP32 (default 0) -> SrcBStyle BF16; Fp32_enabled off -> Dst16b.
    # ShuffleBF16(0xAB7F) = (0xAB00 << 3) | 0x7F = 0x5587F.
    fill16(cop, 5, 0xAB7F)
    run(cop, "MOVD2B", DstRow=5, SrcRow=9)
    assert (cop.state.srcb.data[0, 9] == 0x5587F).all()
    assert (cop.state.srcb.data[0, 8] == 0).all() and (cop.state.srcb.data[0, 10] == 0).all()


def test_movd2b_16bit_fp16_style(cop: Coprocessor) -> None:
    # SrcAFmt FP16 -> SrcBStyle FP16.  ShuffleFP16(0xABCD) = (0xABC0 << 3) | 0x0D = 0x55E0D.
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=FP16)
    fill16(cop, 0, 0xABCD)
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x55E0D).all()


def test_movd2b_srca_override_picks_the_style(cop: Coprocessor) -> None:
    # REG0_SrcA says BF16 but the override says FP16: FP16 style (0x55E0D as above).
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=BF16, ALU_FORMAT_SPEC_REG_SrcA_override=1, ALU_FORMAT_SPEC_REG_SrcA_val=FP16)
    fill16(cop, 0, 0xABCD)
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x55E0D).all()


def test_movd2b_16bit_tf32_style_is_undefined(cop: Coprocessor) -> None:
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=TF32)
    with pytest.raises(UndefinedBehavior, match="TF32"):
        run(cop, "MOVD2B", DstRow=0, SrcRow=0)


def test_movd2b_16bit_use_dst32b_lo_is_undefined(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="UseDst32bLo"):
        run(cop, "MOVD2B", DstRow=0, SrcRow=0, UseDst32bLo=1)


@pytest.mark.parametrize(("fmt", "lo", "expected"), [
    # BF16: ShuffleBF16(V >> 16 = 0x1234) = (0x1200 << 3) | 0x34 = 0x9034.
    (BF16, 0, 0x9034),
    # FP16: ShuffleFP16(0x1234) = (0x1220 << 3) | 0x14 = 0x9114.
    (FP16, 0, 0x9114),
    # TF32: x = V >> 13 = 0x91A2 = Sign,HiMan(7b),Exp(8b),LoMan(3b).  ShuffleTF32 keeps sign and
    # high mantissa in place (x & 0x7f800 = 0x9000, as the seed's comment, the Src TF32 layout
    # and formats.shuffle_tf32 have it; the seed's listing masks 0x3fc000, giving 0x8000),
    # (x & 7) << 8 = 0x200, (x & 0x7f8) >> 3 = 0x34 -> 0x9234.
    (TF32, 0, 0x9234),
    # UseDst32bLo: DstVal = V << 16 | V & 0xffff = 0x56785678.
    # BF16: ShuffleBF16(0x5678) = (0x5600 << 3) | 0x78 = 0x2B078.
    (BF16, 1, 0x2B078),
    # TF32: DstVal & 0x1fff = 0x1678.
    (TF32, 1, 0x1678),
])
def test_movd2b_32bit_branches(cop: Coprocessor, fmt: int, lo: int, expected: int) -> None:
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=fmt, ALU_ACC_CTRL_Fp32_enabled=1)
    fill32(cop, 3, V)
    run(cop, "MOVD2B", DstRow=3, SrcRow=1, UseDst32bLo=lo)
    assert (cop.state.srcb.data[0, 1] == expected).all()


def test_movd2b_int8_math_reads_32bit(cop: Coprocessor) -> None:
    # INT8_math_enabled also selects Dst32b; SrcAFmt FP32 -> BF16 -> 0x9034 as above.
    cfg(cop, ALU_ACC_CTRL_INT8_math_enabled=1)
    fill32(cop, 0, V)
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x9034).all()


def test_movd2b_fp16a_force_overrides_32bit(cop: Coprocessor) -> None:
    # FP16A_FORCE_Enable: Dst16b with FP16 style even though Fp32_enabled and SrcAFmt TF32.
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=TF32, ALU_ACC_CTRL_Fp32_enabled=1, FP16A_FORCE_Enable=1)
    fill16(cop, 2, 0xABCD)
    run(cop, "MOVD2B", DstRow=2, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x55E0D).all()


def test_movd2b_move4rows_aligns_both_rows(cop: Coprocessor) -> None:
    # DstRow 6 -> 6 & 0x3fc = 4 (rows 4..7); SrcRow 7 -> 7 & 0x3c = 4 (rows 4..7).
    for r in range(16):
        fill16(cop, r, 0x0100 * r + 0x10)   # ShuffleBF16: ((r << 8) << 3) | 0x10
    run(cop, "MOVD2B", DstRow=6, SrcRow=7, Move4Rows=1)
    for i in range(4):
        assert (cop.state.srcb.data[0, 4 + i] == (((4 + i) << 11) | 0x10)).all()
    assert (cop.state.srcb.data[0, 8] == 0).all() and (cop.state.srcb.data[0, 3] == 0).all()


def test_movd2b_row_offsets_and_addr_mod(cop: Coprocessor) -> None:
    # DstRow 1 + MATH_Offset 16 + RWCs.Dst 3 + DEST_REGW_BASE 100 = 120;
    # SrcRow 2 + RWCs.SrcB 5 = 7.
    cfg(cop, DEST_TARGET_REG_CFG_MATH_Offset=16, DEST_REGW_BASE_Base=100,
        ADDR_MOD_AB_SEC1_SrcBIncr=4, ADDR_MOD_DST_SEC1_DestIncr=8)
    cop.rwc(0).Dst, cop.rwc(0).SrcB = 3, 5
    fill16(cop, 120, 0x0042)
    run(cop, "MOVD2B", DstRow=1, SrcRow=2, AddrMod=1)
    assert (cop.state.srcb.data[0, 7] == 0x42).all()
    assert (cop.rwc(0).Dst, cop.rwc(0).SrcB) == (11, 9)


def test_movd2b_dst_row_wraps_at_10_bits(cop: Coprocessor) -> None:
    # 1000 + 30 = 1030 -> 1030 & 0x3ff = 6.
    cfg(cop, DEST_REGW_BASE_Base=30)
    fill16(cop, 6, 0x0033)
    run(cop, "MOVD2B", DstRow=1000, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x33).all()


def test_movd2b_writes_srcb_bank_of_srca_bank_bit(cop: Coprocessor) -> None:
    # Seed 001 writes SrcB[MatrixUnit.SrcABank]: SrcABank 1, SrcBBank 0 -> SrcB bank 1.
    cop.state.src_banks.matrix_unit_srca = 1
    fill16(cop, 0, 0x0077)
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[1, 0] == 0x77).all() and (cop.state.srcb.data[0, 0] == 0).all()


def test_movd2b_ignores_block_dest_mov(cop: Coprocessor) -> None:
    # Seed 001 has no LaneConfig check, so every column moves.
    cop.vector.lane_config[:] = 3 << 9
    fill16(cop, 0, 0x0011)
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0x11).all()


def test_movd2b_reads_undefined_rows_as_zero(cop: Coprocessor) -> None:
    fill16(cop, 0, 0x0011)
    run(cop, "ZEROACC", Mode=0, Imm10=0)
    cop.state.srcb.data[0, 0] = 5
    run(cop, "MOVD2B", DstRow=0, SrcRow=0)
    assert (cop.state.srcb.data[0, 0] == 0).all()


# -- MOVD2A ---------------------------------------------------------------------------------------

def test_movd2a_uses_srca_rwc_and_block_dest_mov(cop: Coprocessor) -> None:
    # LaneConfig[1].BLOCK_DEST_MOV = 0b10 blocks column 3; LaneConfig[4] = 0b01 blocks column 8.
    cop.vector.lane_config[1] = 2 << 9
    cop.vector.lane_config[4] = 1 << 9
    cop.rwc(0).SrcA = 10
    cop.state.srca.data[0, 12] = 7
    fill16(cop, 0, 0xAB7F)
    run(cop, "MOVD2A", DstRow=0, SrcRow=2)
    row = cop.state.srca.data[0, 12]
    expect = np.full(16, 0x5587F)
    expect[[3, 8]] = 7
    assert (row == expect).all()


# -- MOVA2D / MOVB2D ---------------------------------------------------------------------------

def test_mova2d_bf16_to_dst16(cop: Coprocessor) -> None:
    # RemoveLowMantissa(0x5587F): sign (bit 18) >> 3 = 0x8000, ManHi (0x5587F & 0x3f800) >> 3
    # = 0x2B00, exp 0x7F -> 0xAB7F (the inverse of MOVD2B's ShuffleBF16).
    grant(cop)
    cop.state.srca.data[0, 3] = 0x5587F
    run(cop, "MOVA2D", DstRow=9, SrcRow=3)
    assert (cop.state.dst.read16(9) == 0xAB7F).all()


def test_mova2d_fp16_style_and_denormal_flush(cop: Coprocessor) -> None:
    # SrcAFmt FP16: RemoveHighExponent(0x55E0D) = (0x55E00 >> 3) | 0x0D = 0xABCD.
    # Column 1 holds exponent 0 -> flushed to 0 (Zero_Flag_disabled_src clear).
    grant(cop)
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=FP16)
    cop.state.srca.data[0, 0] = 0x55E0D
    cop.state.srca.data[0, 0, 1] = 0x7FF00
    run(cop, "MOVA2D", DstRow=0, SrcRow=0)
    row = cop.state.dst.read16(0)
    assert row[0] == 0xABCD and row[1] == 0
    # With the flush disabled the datum survives: sign 0x8000 | (0x3FF00 >> 3 = 0x7FE0) = 0xFFE0.
    cfg(cop, ALU_ACC_CTRL_Zero_Flag_disabled_src=1)
    run(cop, "MOVA2D", DstRow=0, SrcRow=0)
    assert cop.state.dst.read16(0)[1] == 0xFFE0


def test_mova2d_tf32_writes_dst32(cop: Coprocessor) -> None:
    # TF32 0x2FF80 (sign 0, mantissa 0x2FF, exponent 0x80):
    # RemoveLowMantissa: (0x2FF80 & 0x3f800) >> 3 = 0x5F00 | 0x80 = 0x5F80;
    # LowMantissa = ((0x2FF80 >> 8) & 7) << 13 = 7 << 13 = 0xE000 -> Dst32b = 0x5F80E000.
    grant(cop)
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=TF32)
    cop.state.srca.data[0, 0] = 0x2FF80
    run(cop, "MOVA2D", DstRow=0, SrcRow=0)
    assert (cop.state.dst.read32(0) == 0x5F80E000).all()
    # UseDst32bLo with TF32: LowMantissa |= Val16b -> 0xE000 | 0x5F80 = 0xFF80.
    run(cop, "MOVA2D", DstRow=1, SrcRow=0, UseDst32bLo=1)
    assert (cop.state.dst.read32(1) == 0x5F80FF80).all()


def test_mova2d_use_dst32b_lo_keeps_high_half(cop: Coprocessor) -> None:
    grant(cop)
    fill32(cop, 2, 0xAAAA5555)
    cop.state.srca.data[0, 0] = 0x5587F            # -> Val16b 0xAB7F
    run(cop, "MOVA2D", DstRow=2, SrcRow=0, UseDst32bLo=1)
    assert (cop.state.dst.read32(2) == 0xAAAAAB7F).all()


def test_mova2d_move8rows_and_bank(cop: Coprocessor) -> None:
    # DstRow 13 -> 8 (rows 8..15); SrcRow 13 + RWCs.SrcA 0 -> 8 (rows 8..15), bank 1.
    grant(cop)
    cop.state.src_banks.matrix_unit_srca = 1
    for i in range(16):
        cop.state.srca.data[1, i] = 0x01 + i               # exponent only: Dst16 = 0x01 + i
    run(cop, "MOVA2D", DstRow=13, SrcRow=13, Move8Rows=1)
    for i in range(8):
        assert (cop.state.dst.read16(8 + i) == 0x09 + i).all()
    assert not cop.state.dst.ever_written[7] and not cop.state.dst.ever_written[16]


def test_movdbga2d_is_mova2d_without_the_wait(cop: Coprocessor) -> None:
    # MOVDBGA2D.md: identical to MOVA2D but for the Wait Gate's SrcA check; the bank still
    # belongs to the unpackers (power-on), and the move happens: BF16 0x5587F -> Dst16 0xAB7F.
    cop.state.srca.data[0, 3] = 0x5587F
    run(cop, "MOVDBGA2D", DstRow=9, SrcRow=3)
    assert cop.waiting(0) is None
    assert (cop.state.dst.read16(9) == 0xAB7F).all()


def test_mova2d_waits_for_matrix_unit_bank(cop: Coprocessor) -> None:
    cop.state.srca.data[0, 0] = 0x7F
    run(cop, "MOVA2D", DstRow=0, SrcRow=0)
    assert "SrcA[0].AllowedClient == MatrixUnit" in cop.waiting(0)
    assert not cop.state.dst.ever_written.any()
    run(cop, "SETDVALID", FlipSrcA=1)       # queued behind the held MOVA2D
    assert len(cop.pending(0)) == 2
    cop.push(1, encode("SETDVALID", FlipSrcA=1))   # another thread gives the bank over
    assert cop.waiting(0) is None and cop.pending(0) == []
    assert (cop.state.dst.read16(0) == 0x7F).all()


def test_movb2d_broadcasts(cop: Coprocessor) -> None:
    # Broadcast1RowTo8: DstRow 3 -> 0 (rows 0..7), all from SrcB row 5 (+RWCs.SrcB 0);
    # BroadcastCol0: every column gets column 0.
    grant(cop)
    cop.state.srcb.data[0, 5] = np.arange(16) + 0x10
    run(cop, "MOVB2D", DstRow=3, SrcRow=5, Broadcast1RowTo8=1, BroadcastCol0=1)
    for r in range(8):
        assert (cop.state.dst.read16(r) == 0x10).all()


def test_movb2d_move4rows(cop: Coprocessor) -> None:
    grant(cop)
    for i in range(8):
        cop.state.srcb.data[0, i] = 0x20 + i
    run(cop, "MOVB2D", DstRow=7, SrcRow=6, Move4Rows=1)   # Dst rows 4..7 <- SrcB rows 4..7
    assert [int(cop.state.dst.read16(4 + i)[0]) for i in range(4)] == [0x24, 0x25, 0x26, 0x27]


# -- MOVB2A ---------------------------------------------------------------------------------------

def test_movb2a_copies_with_flush(cop: Coprocessor) -> None:
    # Rows: SrcA 1 + RWCs.SrcA 2 = 3; SrcB 9 + RWCs.SrcB 0 = 9.  Exponent-0 datums flush.
    grant(cop)
    cop.rwc(0).SrcA = 2
    cop.state.srcb.data[0, 9] = 0x12345
    cop.state.srcb.data[0, 9, 0] = 0x12300
    run(cop, "MOVB2A", SrcARow=1, SrcBRow=9)
    row = cop.state.srca.data[0, 3]
    assert row[0] == 0 and (row[1:] == 0x12345).all()
