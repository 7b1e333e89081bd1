"""ELWADD / ELWSUB / ELWMUL, MVMUL / DOTPV / GAPOOL, GMPOOL and TRNSPSRCB, worked by hand.

Src TF32/BF16 layout: sign 18, mantissa 17:8 (10 bits), exponent 7:0; so 1.0 = 0x0007F,
1.5 = 0x2007F (mantissa 0x200), 2.25 = 0x08080 (2 * 1.125: mantissa 0x080, exponent 128),
3.0 = 0x20080.  Src integer "8": sign 18, magnitude 17:8, exponent field 16.
Dst32 FP32 layout: sign 31, mantissa-high 30:24, exponent 23:16, mantissa-low 15:0.
Dst16 BF16 layout: sign 15, mantissa 14:8, exponent 7:0.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)

ONE, ONE_HALF, TWO_QUARTER, THREE = 0x0007F, 0x2007F, 0x08080, 0x20080
TF32 = 4


def src_int8(v: int) -> int:
    return (1 << 18 if v < 0 else 0) | (abs(v) << 8) | 16


@pytest.fixture
def cop(datapath: str) -> Coprocessor:
    """A coprocessor, once with the native datapath and once with the numpy model."""
    c = Coprocessor(TensixState())
    c.state.srca.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    c.state.srcb.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    c.state.config.set("DISABLE_IMPLIED_SRCA_FMT_Base", 1, thread=0)  # SrcAFmt from the config, as the pages
    return c


def run(cop: Coprocessor, mnemonic: str, **fields: int) -> None:
    cop.push(0, encode(mnemonic, **fields))


def cfg(cop: Coprocessor, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=0)


# -- ELW* -------------------------------------------------------------------------------------------

def test_elwadd_fp32_dst(cop: Coprocessor) -> None:
    # 1.5 + 2.25 = 3.75 = 2 * 1.875: IEEE 0x40700000 -> Dst32 (0x70 << 24) | (0x80 << 16).
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srca.data[0, 0:8] = ONE_HALF
    cop.state.srcb.data[0, 0:8] = TWO_QUARTER
    run(cop, "ELWADD", DstRow=5)                       # DstRow 5 & 0x3f8 -> rows 0..7
    for r in range(8):
        assert (cop.state.dst.read32(r) == 0x70800000).all()


def test_elwadd_add_dst_bf16_and_banks(cop: Coprocessor) -> None:
    # Dst16b holds BF16 1.0 (0x007F); 3.75 + 1 = 4.75 = 4 * 1.1875: exponent 0x81, mantissa
    # 0.1875 * 128 = 0x18 -> 0x1881.  SrcA rows from RWCs.SrcA 11 & 0x38 = 8; bank 1.
    cop.state.src_banks.matrix_unit_srca = 1
    cop.rwc(0).SrcA = 11
    cop.state.srca.data[1, 8:16] = ONE_HALF
    cop.state.srcb.data[0, 0:8] = TWO_QUARTER
    for r in range(8, 16):
        cop.state.dst.write16(r, np.full(16, 0x007F))
    run(cop, "ELWADD", DstRow=8, AddDst=1, FlipSrcA=1)
    assert all((cop.state.dst.read16(r) == 0x1881).all() for r in range(8, 16))
    assert cop.state.src_banks.matrix_unit_srca == 0
    assert cop.state.srca.allowed_client[1] == SrcClient.Unpackers


def test_elwsub_with_broadcasts(cop: Coprocessor) -> None:
    # SrcB row 3 broadcast to all rows and column 0 to all columns: 1.5 - 2.25 = -0.75
    # = -(0.5 * 1.5): IEEE 0xBF400000 -> Dst32 0x80000000 | (0x40 << 24) | (0x7E << 16).
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.rwc(0).SrcB = 3
    cop.state.srca.data[0, 0:8] = ONE_HALF
    cop.state.srcb.data[0, 3, 0] = TWO_QUARTER
    run(cop, "ELWSUB", BroadcastSrcBRow=1, BroadcastSrcBCol0=1)
    assert all((cop.state.dst.read32(r) == 0xC07E0000).all() for r in range(8))


def test_elwadd_fidelity_divide(cop: Coprocessor) -> None:
    # FidelityPhase 1 (via FIDELITY_BASE_Phase): 3.75 / 32 = 0.1171875, exponent 128 - 5 = 0x7B.
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1, FIDELITY_BASE_Phase=1)
    cop.state.srca.data[0, 0:8] = ONE_HALF
    cop.state.srcb.data[0, 0:8] = TWO_QUARTER
    run(cop, "ELWADD")
    assert (cop.state.dst.read32(0) == 0x707B0000).all()


@pytest.mark.parametrize("srcb, dst_bits", [
    (0x0877, 0x017F),   # BF16 0x3B81: ttsim v1.10.0 stores DstBits 0x017F (FACTS.md section 9)
    (0x0077, 0x017F),   # 2**-8 exactly: the tie rounds away from zero, 1 + 2**-7
    (0x0076, 0x007F),   # 2**-9: below half an ulp, 1.0
])
def test_elwadd_rounds_to_bf16_ties_away(cop: Coprocessor, srcb: int, dst_bits: int) -> None:
    # SrcA 1.0 + SrcB into a 16-bit BF16 Dst: RoundToBF16 adds half an ulp and truncates
    # (Src BF16: sign 18, mantissa 17:11, exponent 7:0; Dst16 BF16: mantissa 14:8, exponent 7:0).
    cop.state.srca.data[0, 0:8] = ONE
    cop.state.srcb.data[0, 0:8] = srcb
    run(cop, "ELWADD")
    assert (cop.state.dst.read16(np.arange(8)) == dst_bits).all()


def test_elwadd_bf16_aligns_the_smaller_operand_as_measured(cop: Coprocessor) -> None:
    # BF16 0x3E71 (0.2353515625) + 0xC0E0 (-7.0), measured on ttsim: 0xC0D9 (-6.78125), where the
    # float32 sum rounded (-6.7646484375 -> 0xC0D8) differs.  By hand: -7.0 has the larger
    # exponent (129), significand 0x700; 0x3E71's (0x788, exponent 124) shifts right by 5 rounding
    # half up: (0x788 + 16) >> 5 = 60; 0x700 - 60 = 1732 = 0b11011000100; 8 significant bits,
    # half up: (1732 + 4) >> 3 = 0b11011001: mantissa 0x59, exponent 129.
    # Src BF16: sign 18, mantissa 17:11, exponent 7:0; Dst16b BF16: sign 15, mantissa 14:8, exponent 7:0.
    cop.state.srca.data[0, 0:8] = (0x71 << 11) | 0x7C
    cop.state.srcb.data[0, 0:8] = (1 << 18) | (0x60 << 11) | 0x81
    run(cop, "ELWADD")
    assert (cop.state.dst.read16(np.arange(8)) == 0x8000 | (0x59 << 8) | 0x81).all()


def test_elwadd_rounds_to_fp16_ties_away(cop: Coprocessor) -> None:
    # FP16 style: 1.0 + 2**-11 is half an FP16 ulp: ties away gives 1 + 2**-10
    # (Src FP16: mantissa 17:8, exponent 4:0; Dst16 FP16: mantissa 14:5, exponent 4:0).
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=1)
    cop.state.srca.data[0, 0:8] = 15                  # 1.0: exponent 15, mantissa 0
    cop.state.srcb.data[0, 0:8] = 4                   # 2**-11: exponent 4
    run(cop, "ELWADD")
    assert (cop.state.dst.read16(np.arange(8)) == (1 << 5) | 15).all()


def test_elwadd_exponent_255_is_a_number(cop: Coprocessor) -> None:
    # The datapath treats exponent 255 as an ordinary exponent (FloatBitPatterns.md: a finite
    # value >= 2**128); a result exponent >= 255 is stored as exponent 255, mantissa 0.
    # Measured on ttsim v1.10.0 (probes/fpu_cases.py elwadd_exponent_255): SrcA 1.5 * 2**128 +
    # SrcB 1.0 stores DstBits 0x00FF.
    cop.state.srca.data[0, 0:8] = 0x200FF
    cop.state.srcb.data[0, 0:8] = ONE
    run(cop, "ELWADD")
    assert (cop.state.dst.read16(np.arange(8)) == 0x00FF).all()


def test_elwmul_two_fidelity_phases(cop: Coprocessor) -> None:
    # SrcA = 1 + 2**-5 (mantissa bit 5 of 10: 0x020 << 8 = 0x2000), SrcB = 3.0.
    # Phase 0 takes SrcA's top four mantissa bits: 1.0 * 3 = 3.  The ADDR_MOD raises the phase
    # to 1, which takes the next five: 2**-5 * 3 = 0.09375.  Sum 3.09375 = 2 * 1.546875:
    # mantissa 0b1000110 -> IEEE 0x40460000 -> Dst32 0x46800000.
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1, ADDR_MOD_DST_SEC0_FidelityIncr=1)
    cop.state.srca.data[0, 0:8] = 0x207F
    cop.state.srcb.data[0, 0:8] = THREE
    run(cop, "ELWMUL")
    assert (cop.state.dst.read32(0) == 0x40800000).all()      # 3.0
    run(cop, "ELWMUL")
    assert (cop.state.dst.read32(0) == 0x46800000).all()
    assert cop.rwc(0).FidelityPhase == 2


def test_elwmul_reads_undefined_rows_as_zero(cop: Coprocessor) -> None:
    # 1.5 * 2.25 = 3.375 = 2 * 1.6875 (mantissa 0b1011) -> Dst32 0x58800000, whatever the
    # undefined row held.
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    for r in range(8):
        cop.state.dst.write32(r, np.full(16, 0x3F800000))
    run(cop, "ZEROACC", Mode=1, Imm10=0, UseDst32b=1)
    cop.state.srca.data[0, 0:8] = ONE_HALF
    cop.state.srcb.data[0, 0:8] = TWO_QUARTER
    run(cop, "ELWMUL")
    assert (cop.state.dst.read32(0) == 0x58800000).all()


def test_elwmul_int8_all_phases(cop: Coprocessor) -> None:
    # -3 * 100 over phases 0..3: SrcA bits 7:5 / 4:0 and SrcB bits 9:4 / 3:0:
    # 0*96 + (-3)*96 + 0*4 + (-3)*4 = -300 -> sign-magnitude 0x8000012C (low bits unshuffled).
    cfg(cop, ALU_ACC_CTRL_INT8_math_enabled=1)
    cop.state.srca.data[0, 0:8] = src_int8(-3)
    cop.state.srcb.data[0, 0:8] = src_int8(100)
    for phase in range(4):
        cfg(cop, FIDELITY_BASE_Phase=phase)
        run(cop, "ELWMUL")
    assert (cop.state.dst.read32(0) == 0x8000012C).all()


def test_elwadd_int8_saturates(cop: Coprocessor) -> None:
    # Dst 2**31 - 16 + 100 + 50 clamps at 2**31 - 1 (Dst32 0x7FFFFFFF).
    cfg(cop, ALU_ACC_CTRL_INT8_math_enabled=1)
    for r in range(8):
        cop.state.dst.write32(r, np.full(16, 0x7FFFFFF0 & 0xFFFF | (0xFF << 16) | (0x7F << 24)))
    cop.state.srca.data[0, 0:8] = src_int8(100)
    cop.state.srcb.data[0, 0:8] = src_int8(50)
    run(cop, "ELWADD", AddDst=1)
    assert (cop.state.dst.read32(0) == 0x7FFFFFFF).all()


def test_elw_waits_for_both_banks() -> None:
    c = Coprocessor(TensixState())
    c.state.srca.allowed_client[0] = SrcClient.MatrixUnit
    c.push(0, encode("ELWADD"))
    assert "SrcB[0]" in c.waiting(0)


# -- MVMUL / DOTPV / GAPOOL ---------------------------------------------------------------------

def test_mvmul_identity_times_two(cop: Coprocessor) -> None:
    # SrcA = 2 * I (2.0 = exponent 128, 0x80); SrcB[i][k] = k + 1 for k < 4 (exact).
    # (SrcB @ SrcA)[i][j] = 2 * SrcB[i][j]: 2, 4, 6, 8 -> Dst32 exponents 128, 129, 129+mant, 130.
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srca.data[0, :16] = 0
    cop.state.srca.data[0, np.arange(16), np.arange(16)] = 0x80
    vals = {1: 0x7F, 2: 0x80, 3: 0x20080, 4: 0x81}
    for k, v in vals.items():
        cop.state.srcb.data[0, 0:8, k - 1] = v
    run(cop, "MVMUL", DstRow=2)                      # & 0x3f8 -> rows 0..7
    expect = [0x00800000, 0x00810000, 0x40810000, 0x00820000]   # 2, 4, 6, 8
    for r in range(8):
        row = cop.state.dst.read32(r)
        assert list(row[:4]) == expect and (row[4:] == 0).all()


def test_mvmul_broadcast_row_quirk(cop: Coprocessor) -> None:
    # BroadcastSrcBRow: 7 rows, DstRow & 0x3f9, only rows 0, 2, 4, 6 written.
    # DstRow 9 -> 9 & 0x3f9 = 9: rows 9, 11, 13, 15.  SrcB row 5 (RWCs.SrcB 5 & 0x3f).
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srca.data[0, np.arange(16), np.arange(16)] = 0x7F       # identity
    cop.state.srcb.data[0, 5] = 0x80                                   # 2.0 everywhere
    cop.rwc(0).SrcB = 5
    seen: list[list[int]] = []
    cop.on_dst_write = lambda rows: seen.append(rows.tolist())
    run(cop, "MVMUL", DstRow=9, BroadcastSrcBRow=1)
    assert [r for r in range(8, 16) if cop.state.dst.ever_written[cop.state.dst.row32[r]]] == [9, 11, 13, 15]
    assert (cop.state.dst.read32(11) == 0x00800000).all()
    assert len(seen) == 1 and len(seen[0]) == 8                         # 4 rows x 2 halves


def test_mvmul_int8_phase3(cop: Coprocessor) -> None:
    # |SrcA| <= 31 and |SrcB| <= 15 need just phase 3.  SrcA = I, SrcB[i][j] = -(j % 16).
    cfg(cop, ALU_ACC_CTRL_INT8_math_enabled=1, FIDELITY_BASE_Phase=3)
    cop.state.srca.data[0, :16] = src_int8(0) & ~0xFF
    cop.state.srca.data[0, np.arange(16), np.arange(16)] = src_int8(1)
    cop.state.srcb.data[0, 0:8] = [src_int8(-j) for j in range(16)]
    run(cop, "MVMUL")
    assert list(cop.state.dst.read32(0)[:3]) == [0x00000000, 0x80000001, 0x80000002]


def test_mvmul_srca_rows_past_63(cop: Coprocessor) -> None:
    cop.rwc(0).SrcA = 56
    with pytest.raises(UndefinedBehavior, match="past row 63"):
        run(cop, "MVMUL")


def test_gapool_four_rows(cop: Coprocessor) -> None:
    # DstRow 6 & 0x3fc = 4: rows 4..7 only; SrcB rows 0..3.
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srca.data[0, np.arange(16), np.arange(16)] = 0x7F
    cop.state.srcb.data[0, 0:8] = 0x80
    run(cop, "GAPOOL", DstRow=6, instr_mod19=1)  # p_gpool::DIM_16X16
    written = [r for r in range(16) if cop.state.dst.ever_written[cop.state.dst.row32[r]]]
    assert written == [4, 5, 6, 7] and (cop.state.dst.read32(4) == 0x00800000).all()


def test_dotpv_is_mvmul(cop: Coprocessor) -> None:
    cfg(cop, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srca.data[0, np.arange(16), np.arange(16)] = 0x7F
    cop.state.srcb.data[0, 0:8] = 0x80
    run(cop, "DOTPV")
    assert all((cop.state.dst.read32(r) == 0x00800000).all() for r in range(8))


# -- GMPOOL -------------------------------------------------------------------------------------------

def test_gmpool_bf16_max(cop: Coprocessor) -> None:
    # SrcB row 0 all 1.0 (no scaling).  Dst16b row 0 (BF16): column 0 = 0, column 1 = -8.0
    # (0x8082), column 2 = 5.0 (0x2081), columns 3.. = -1.9921875 (0xFF7F).
    # Column 0: SrcA 1.0 except row 5 = 3.0 -> 3.0 = Dst16 0x4080.
    # Column 1: SrcA -2.0 (0x40080) except row 2 = -1.0 (0x4007F) -> -1.0 = 0x807F.
    # Column 2: SrcA 1.0 < 5.0 -> stays 0x2081.  Columns 3..: SrcA zero (exponent 0) -> 0.
    # Rows 1..3 of the aligned block become zero.
    cop.state.srcb.data[0, 0] = ONE
    a = cop.state.srca.data[0]
    a[:16, 0], a[5, 0] = ONE, THREE
    a[:16, 1], a[2, 1] = 0x40080, 0x4007F
    a[:16, 2] = ONE
    row0 = np.full(16, 0xFF7F, dtype=np.uint16)
    row0[:3] = [0, 0x8082, 0x2081]
    cop.state.dst.write16(0, row0)
    for r in (1, 2, 3):
        cop.state.dst.write16(r, np.full(16, 0x1234))
    run(cop, "GMPOOL", DstRow=2, instr_mod19=1)                    # & 0x3fc -> 0
    out = cop.state.dst.read16(0)
    assert list(out[:3]) == [0x4080, 0x807F, 0x2081] and (out[3:] == 0).all()
    assert all((cop.state.dst.read16(r) == 0).all() for r in (1, 2, 3))


def test_gmpool_tf32_argmax_index(cop: Coprocessor) -> None:
    # TF32 + ArgMax: Dst gets IndexPhase | MaxIndex only.  Undefined Dst reads all ones:
    # IndexPhase = (0xFFFFFFFF + 0x100) & 0xf00 = 0.  Column 0: max at row 6 -> T[6] = 2.
    # Column 1: all zero datums tie; the last row < 8 visited (order 4..7, 0..3) is 3 -> T[3] = 1.
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=TF32, ALU_ACC_CTRL_Fp32_enabled=1)
    cop.state.srcb.data[0, 0] = ONE
    cop.state.srca.data[0, :16, 0] = ONE
    cop.state.srca.data[0, 6, 0] = 0x80
    run(cop, "GMPOOL", ArgMax=1, instr_mod19=1)
    out = cop.state.dst.read32(0)
    assert (out[0], out[1]) == (2, 1)
    assert all((cop.state.dst.read32(r) == 0).all() for r in (1, 2, 3))


def test_gmpool_srcb_zero_exponent_gives_minus_infinity(cop: Coprocessor) -> None:
    # SrcB datum i with exponent 0 turns SrcA row i into minus infinity; with every SrcB zero
    # the defined Dst row (+0.0) stays the max -> 0.
    cop.state.srca.data[0, :16] = THREE
    cop.state.dst.write16(0, np.zeros(16))
    run(cop, "GMPOOL", instr_mod19=1)
    assert (cop.state.dst.read16(0) == 0).all()


def test_blackhole_pooling_fields_no_page_describes(cop: Coprocessor) -> None:
    # instr_mod19 0 is 1x16 pooling (tt-llk p_gpool::DIM_1X16); DOTPV's instr_mod19 has no page.
    for mnemonic, fields in (("GMPOOL", {}), ("GAPOOL", {}), ("DOTPV", {"instr_mod19": 1})):
        with pytest.raises(MissingSpecification, match="instr_mod19"):
            run(cop, mnemonic, **fields)


# -- TRNSPSRCB ------------------------------------------------------------------------------------------

def test_trnspsrcb(cop: Coprocessor) -> None:
    block = np.arange(256).reshape(16, 16)
    cop.state.srcb.data[0, 16:32] = block
    cop.state.srcb.data[0, 0] = 7
    run(cop, "TRNSPSRCB")
    assert (cop.state.srcb.data[0, 16:32] == block.T).all() and (cop.state.srcb.data[0, 0] == 7).all()
