"""Vector Unit arithmetic, integer, field and conversion instructions, worked from the BlackholeA0
pages (expected values by hand, or from an independent reference written from the page), with
hypothesis properties where a page gives an algorithm."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sfpu_reference import LANES, f32, fma_reference, lreg, run, set_lreg, val

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, NonContractualBehavior, UnpredictableValueUsed, UnsupportedFunctionality
from tdbg.tensix.sfpu.numerics import approx_exp, approx_recip, fma, lut8_to_fp32, lut16_to_fp32, sign_mag_is_smaller
from tdbg.tensix.state import TensixState

bits32 = st.integers(0, 0xFFFFFFFF)
NAN = 0x7FC00000


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def one(cop: Coprocessor, mnemonic: str, c: int | None, d: int | None = None, **fields: int) -> int:
    """Run ``mnemonic`` with LReg[1] = c (VC, None: no VC field) and LReg[2] = d (VD) in every
    lane; lane 0 of VD."""
    if c is not None:
        set_lreg(cop, 1, c)
        fields["VC"] = 1
    if d is not None:
        set_lreg(cop, 2, d)
    run(cop, mnemonic, VD=2, **fields)
    return int(lreg(cop, 2)[0])


# -- the FMA (SFPMAD.md IEEE754 section, Miscellaneous/FMA fma_model_bh) -------------------------

@pytest.mark.parametrize(("a", "b", "c", "d"), [
    (f32(1.5), f32(2.0), f32(0.25), f32(3.25)),
    (f32(1.0), f32(2.0 ** -126), f32(-(2.0 ** -126)), 0),              # exact zero: +0
    (f32(-1.0), f32(0.0), 0x80000000, 0x80000000),                     # -0 + -0 = -0 (Blackhole keeps the sign)
    (0x00400000, f32(1.0), f32(1.0), f32(1.0)),                        # denormal input is zero
    (f32(2.0 ** -64), f32(2.0 ** -64), f32(3.0), f32(3.0)),            # product underflows alone: z unchanged
    (f32(2.0 ** 100), f32(2.0 ** 100), f32(-(2.0 ** 127)), 0x7F800000),  # product overflows alone: Inf
    (0x7F800000, f32(0.0), f32(1.0), NAN),                             # Inf * 0: canonical NaN
    (0x7F800000, f32(1.0), 0xFF800000, NAN),
    (0x7F800001, f32(1.0), f32(1.0), NAN),
    (f32(1.0), f32(1.0), 0xFF800000, 0xFF800000),
    (f32(2.0 ** -63), f32(2.0 ** -63), f32(0.0), 0),                   # 2**-126 exactly ... normal
    (f32(1.5 * 2.0 ** -64), f32(2.0 ** -63), f32(0.0), 0),             # result denormal: flushed to +0
    (f32(-1.5 * 2.0 ** -64), f32(2.0 ** -63), f32(0.0), 0x80000000),   # ... to a zero of its sign
])
def test_fma_cases(a: int, b: int, c: int, d: int) -> None:
    if a == f32(2.0 ** -63):
        d = f32(2.0 ** -126)
    assert int(fma(np.array([a]), np.array([b]), np.array([c]))[0]) == d == fma_reference(a, b, c)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(bits32, bits32, bits32), min_size=1, max_size=32))
def test_fma_vectorized_matches_scalar_reference(triples: list[tuple[int, int, int]]) -> None:
    a, b, c = (np.array(t, dtype=np.uint32) for t in zip(*triples))
    assert [int(v) for v in fma(a, b, c)] == [fma_reference(*t) for t in triples]


@settings(max_examples=300, deadline=None)
@given(st.floats(2.0 ** -60, 2.0 ** 60, width=32), st.floats(2.0 ** -60, 2.0 ** 60, width=32),
       st.floats(-(2.0 ** 60), 2.0 ** 60, width=32))
def test_fma_is_one_rounding_of_nearly_exact_sums(x: float, y: float, z: float) -> None:
    # SFPMAD.md: multiplying by one or adding zero is a correctly rounded add / multiply.
    assert int(fma(np.array([f32(x)]), np.array([f32(1.0)]), np.array([f32(z)]))[0]) == f32(np.float32(x) + np.float32(z))
    assert int(fma(np.array([f32(x)]), np.array([f32(y)]), np.array([f32(0.0)]))[0]) == f32(np.float32(x) * np.float32(y))


def test_sfpmad_modifiers(cop: Coprocessor) -> None:
    # SFPMAD_MOD1_NEGATE_VA (1) and NEGATE_VC (2): -(2 * 3) - 1 = -7
    set_lreg(cop, 1, f32(2.0)), set_lreg(cop, 2, f32(3.0)), set_lreg(cop, 3, f32(1.0))
    run(cop, "SFPMAD", VA=1, VB=2, VC=3, VD=4, Mod1=3)
    assert (lreg(cop, 4) == f32(-7.0)).all()
    # INDIRECT_VA (4) / INDIRECT_VD (8): VA and VD per lane from LReg[7] & 15
    set_lreg(cop, 7, np.where(LANES < 16, 1, 10))       # lanes 0-15: LReg[1] (2.0), others LReg[10] (1.0)
    set_lreg(cop, 5, 0), set_lreg(cop, 6, 0)
    run(cop, "SFPMAD", VA=0, VB=2, VC=3, VD=0, Mod1=4)  # VD 0 in every lane
    assert (lreg(cop, 0)[:16] == f32(7.0)).all() and (lreg(cop, 0)[16:] == f32(4.0)).all()
    set_lreg(cop, 7, np.where(LANES < 16, 5, 6))
    run(cop, "SFPMAD", VA=1, VB=2, VC=9, VD=0, Mod1=8)
    assert (lreg(cop, 5)[:16] == f32(6.0)).all() and (lreg(cop, 5)[16:] == 0).all()
    assert (lreg(cop, 6)[16:] == f32(6.0)).all() and (lreg(cop, 6)[:16] == 0).all()


def test_sfpadd_sfpmul_contracts(cop: Coprocessor) -> None:
    set_lreg(cop, 1, f32(2.5)), set_lreg(cop, 2, f32(0.5))
    run(cop, "SFPADD", VA=10, VB=1, VC=2, VD=3)                     # 1.0 * 2.5 + 0.5
    run(cop, "SFPADD", VA=1, VB=10, VC=2, VD=4, Mod1=2)             # tt-llk's VB == 10 form: 2.5 - 0.5
    run(cop, "SFPMUL", VA=1, VB=2, VC=9, VD=5, Mod1=2)              # 2.5 * 0.5 - 0 (NEGATE_VC: -0)
    assert (lreg(cop, 3) == f32(3.0)).all() and (lreg(cop, 4) == f32(2.0)).all() and (lreg(cop, 5) == f32(1.25)).all()
    with pytest.raises(NonContractualBehavior, match="VA == 10"):
        run(cop, "SFPADD", VA=1, VB=2, VC=2, VD=3)
    with pytest.raises(NonContractualBehavior, match="VC == 9"):
        run(cop, "SFPMUL", VA=1, VB=2, VC=2, VD=3)


def test_sfpaddi_sfpmuli(cop: Coprocessor) -> None:
    assert one(cop, "SFPADDI", None, f32(1.5), Imm16=0x4000) == f32(3.5)             # 2.0 + 1.5
    assert one(cop, "SFPADDI", None, f32(1.5), Imm16=0x4000, Mod1=2) == f32(0.5)     # 2.0 - 1.5
    assert one(cop, "SFPMULI", None, f32(1.5), Imm16=0xC000) == f32(-3.0)
    assert one(cop, "SFPMULI", None, 0x80000000, Imm16=0x3F80) == 0                  # -0 * 1 + 0 = +0


def test_sfplut(cop: Coprocessor) -> None:
    # |LReg[3]| = 1.5 selects LReg[1]: a = Lut8ToFp32(0x10) = 0.5, c = Lut8ToFp32(0x88) = -1.5;
    # 0.5 * 1.5 - 1.5 = -0.75; SGN_RETAIN copies LReg[3]'s sign.
    set_lreg(cop, 0, 0xFFFF), set_lreg(cop, 2, 0xFFFF), set_lreg(cop, 1, 0x1088)
    set_lreg(cop, 3, f32(-1.5))
    run(cop, "SFPLUT", VD=4, Mod0=0)
    assert (lreg(cop, 4) == f32(-0.75)).all()
    run(cop, "SFPLUT", VD=4, Mod0=4)
    assert (lreg(cop, 4) == f32(-0.75)).all()
    set_lreg(cop, 3, f32(1.5))
    run(cop, "SFPLUT", VD=4, Mod0=4)
    assert (lreg(cop, 4) == f32(0.75)).all()


@given(st.integers(0, 255))
def test_lut8_values(x: int) -> None:
    # SFPLUT.md's table: (-1)**sign * (1 + man/16) * 2**-exp; 0xFF is 0
    expected = 0.0 if x == 0xFF else (-1) ** (x >> 7) * (1 + (x & 15) / 16) * 2.0 ** -((x >> 4) & 7)
    assert val(int(lut8_to_fp32(np.array([x]))[0])) == expected


@given(st.integers(0, 0xFFFF))
def test_lut16_values(x: int) -> None:
    # SFPLUTFP32.md's table: FP16 without denormals; exponent 31 reads as a signed zero (an FP32
    # with exponent field 0, which the FMA takes as zero)
    sign, exp, man = x >> 15, (x >> 10) & 31, x & 0x3FF
    got = int(lut16_to_fp32(np.array([x]))[0])
    if exp == 31:
        assert got & 0x7F800000 == 0 and got >> 31 == sign
        return
    expected = (1 + man / 1024) * 2.0 ** (exp - 15)
    assert val(got) == (-expected if sign else expected)


def test_sfplutfp32_tables(cop: Coprocessor) -> None:
    # FP32_3ENTRY_TABLE: |x| = 3 -> LReg[2] * 3 + LReg[6] = 2 * 3 + 1 = 7
    for r, v in ((0, 0.0), (1, 0.0), (2, 2.0), (4, 0.0), (5, 0.0), (6, 1.0)):
        set_lreg(cop, r, f32(v))
    set_lreg(cop, 3, f32(-3.0))
    run(cop, "SFPLUTFP32", VD=7, Mod1=0)
    assert (lreg(cop, 7) == f32(7.0)).all()
    run(cop, "SFPLUTFP32", VD=7, Mod1=4)                          # SGN_RETAIN
    assert (lreg(cop, 7) == f32(-7.0)).all()
    # FP16_6ENTRY_TABLE1 (2): |x| = 3 >= 3.0 -> high halves: a = 0x4000 (2.0), c = 0x3C00 (1.0) -> 7;
    # TABLE2 (3): 3 < 4.0 -> low halves: a = 0x3800 (0.5), c = 0x4400 (4.0) -> 5.5
    set_lreg(cop, 2, (0x4000 << 16) | 0x3800), set_lreg(cop, 6, (0x3C00 << 16) | 0x4400)
    run(cop, "SFPLUTFP32", VD=7, Mod1=2)
    assert (lreg(cop, 7) == f32(7.0)).all()
    run(cop, "SFPLUTFP32", VD=7, Mod1=3)
    assert (lreg(cop, 7) == f32(5.5)).all()
    # FP16_3ENTRY_TABLE (10) writes LReg[LReg[7] & 15] (the hardware bug the page describes)
    set_lreg(cop, 7, 5)
    run(cop, "SFPLUTFP32", VD=0, Mod1=10)                         # LReg[2]: a = 2.0, c = 0.5 -> 6.5
    assert (lreg(cop, 5) == f32(6.5)).all()


def test_sfpmul24(cop: Coprocessor) -> None:
    set_lreg(cop, 1, 0x00400003), set_lreg(cop, 2, 0x80000005)
    run(cop, "SFPMUL24", VA=1, VB=2, VC=9, VD=3, Mod1=0)          # (a * b) & 0x7fffff
    run(cop, "SFPMUL24", VA=1, VB=2, VC=9, VD=4, Mod1=1)          # ((a & 0x7fffff) * (b & 0x7fffff)) >> 23
    assert (lreg(cop, 3) == (0x00400003 * 0x80000005) & 0x7FFFFF).all()
    assert (lreg(cop, 4) == (0x00400003 * 5) >> 23).all()
    with pytest.raises(NonContractualBehavior, match="VC == 9"):
        run(cop, "SFPMUL24", VA=1, VB=2, VC=1, VD=3)


# -- integer, bitwise and field instructions ------------------------------------------------------

@pytest.mark.parametrize(("mod1", "c", "expected"), [
    (0, 0xFFFFFFFB, 5), (0, 0x80000000, 0x80000000), (0, 7, 7),
    (1, f32(-2.5), f32(2.5)), (1, 0xFF800000, 0x7F800000), (1, 0xFFC00000, 0xFFC00000),
])
def test_sfpabs(cop: Coprocessor, mod1: int, c: int, expected: int) -> None:
    assert one(cop, "SFPABS", c, Mod1=mod1) == expected


def test_bitwise(cop: Coprocessor) -> None:
    assert one(cop, "SFPAND", 0xF0F0F0F0, 0xFF00FF00) == 0xF000F000
    assert one(cop, "SFPOR", 0xF0F0F0F0, 0xFF00FF00) == 0xFFF0FFF0
    assert one(cop, "SFPXOR", 0xF0F0F0F0, 0xFF00FF00) == 0x0FF00FF0
    assert one(cop, "SFPNOT", 0xF0F0F0F0, 0) == 0x0F0F0F0F
    set_lreg(cop, 5, 0x0000FFFF)                                   # SFPAND_MOD1_USE_VB: VD = VB & VC
    assert one(cop, "SFPAND", 0x12345678, 0, Mod1=1, VB=5) == 0x5678
    assert one(cop, "SFPOR", 0x12340000, 0, Mod1=1, VB=5) == 0x1234FFFF


@given(bits32, st.sampled_from([0, 2, 4, 6, 8, 10, 12, 14]))
def test_sfplz(c: int, mod1: int) -> None:
    cop = Coprocessor(TensixState())
    cop.vector.lane_flags[:] = True
    masked = c & 0x7FFFFFFF if mod1 & 4 else c
    assert one(cop, "SFPLZ", c, 0, Mod1=mod1) == 32 - masked.bit_length()
    flags = (masked != 0) if mod1 & 2 else True
    assert bool(cop.vector.lane_flags[0]) == (not flags if mod1 & 8 else flags)


@given(bits32, bits32, st.integers(0, 0xFFF), st.sampled_from([0, 1, 2, 4, 5, 6, 8, 9, 10, 12]))
def test_sfpiadd(c: int, d: int, imm: int, mod1: int) -> None:
    cop = Coprocessor(TensixState())
    simm = imm - 4096 if imm & 0x800 else imm
    got = one(cop, "SFPIADD", c, d, Imm12=imm, Mod1=mod1)
    expected = (c + simm if mod1 & 1 else c - d if mod1 & 2 else c + d) & 0xFFFFFFFF
    assert got == expected
    flag = bool(cop.vector.lane_flags[0])
    if not mod1 & 4:
        assert flag == ((expected >> 31 == 1) != bool(mod1 & 8))
    elif mod1 & 8:
        assert flag is True                                         # CC_NONE | CC_GTE0: the old false, inverted


@given(bits32, bits32, st.integers(0, 0xFFF), st.sampled_from([0, 1, 2, 3, 5, 7]))
def test_sfpshft(x: int, amount: int, imm: int, mod1: int) -> None:
    cop = Coprocessor(TensixState())
    got = one(cop, "SFPSHFT", amount, x, Imm12=imm, Mod1=mod1)
    shift = (imm - 4096 if imm & 0x800 else imm) if mod1 & 1 else (amount - (1 << 32) if amount >> 31 else amount)
    source = amount if mod1 & 5 == 5 else x
    if shift >= 0:
        expected = (source << (shift & 31)) & 0xFFFFFFFF
    elif mod1 & 2:
        signed = source - (1 << 32) if source >> 31 else source
        expected = (signed >> (-shift & 31)) & 0xFFFFFFFF
    else:
        expected = source >> (-shift & 31)
    assert got == expected


def test_sfpshft_reserved(cop: Coprocessor) -> None:
    with pytest.raises(NonContractualBehavior, match="Mod1 4"):
        one(cop, "SFPSHFT", 0, 0, Mod1=4)


def test_exponent_and_mantissa(cop: Coprocessor) -> None:
    x = f32(-6.0)                                                   # 1.5 * 2**2: exponent 129
    assert one(cop, "SFPEXEXP", x, 0) == 2
    assert one(cop, "SFPEXEXP", f32(0.25), 0, Mod1=2) == (-2) & 0xFFFFFFFF
    assert cop.vector.lane_flags.all()                             # SET_CC_SGN_EXP: negative
    assert one(cop, "SFPEXEXP", x, 0, Mod1=1) == 129
    assert one(cop, "SFPEXMAN", x, 0) == 0xC00000 and one(cop, "SFPEXMAN", x, 0, Mod1=1) == 0x400000
    assert one(cop, "SFPDIVP2", x, 0, Imm8=0xFE, Mod1=1) == f32(-1.5)         # exponent + (-2), wrapping
    assert one(cop, "SFPDIVP2", 0xFF800000, 0, Imm8=1, Mod1=1) == 0xFF800000  # Inf left alone
    assert one(cop, "SFPDIVP2", x, 0, Imm8=127) == f32(-1.5)                 # exponent replaced
    assert one(cop, "SFPSETEXP", x, 0, Imm8=128, Mod1=1) == f32(-3.0)
    assert one(cop, "SFPSETEXP", x, f32(0.5), Mod1=2) == f32(-0.75)          # exponent of VD
    assert one(cop, "SFPSETEXP", x, 126, Mod1=0) == f32(-0.75)               # low 8 bits of VD
    assert one(cop, "SFPSETMAN", x, 0, Imm12=0x800, Mod1=1) == f32(-6.0)     # 0x800 << 11 = 0.5
    assert one(cop, "SFPSETMAN", x, 0x200000, Mod1=0) == f32(-5.0)           # mantissa of VD: 0.25
    assert one(cop, "SFPSETSGN", x, 0, Imm1=0, Mod1=1) == f32(6.0)
    assert one(cop, "SFPSETSGN", f32(6.0), 0x80000000, Mod1=0) == x


def test_sfpdivp2_sign_extended_immediate(cop: Coprocessor) -> None:
    # Imm8 0xFE written as the 12-bit -2 (bits 23:20 set): ttsim's accepted form
    assert one(cop, "SFPDIVP2", f32(8.0), 0, Imm8=0xFE, _reserved=0xF << 20, Mod1=1) == f32(2.0)
    with pytest.raises(MissingSpecification, match="23:20"):
        one(cop, "SFPDIVP2", f32(8.0), 0, Imm8=0x02, _reserved=0x1 << 20, Mod1=1)


# -- conversions ----------------------------------------------------------------------------------

@given(bits32)
def test_sfpcast_int_to_float_rounds_to_nearest_even(c: int) -> None:
    cop = Coprocessor(TensixState())
    mag = c & 0x7FFFFFFF
    expected = f32(float(np.float32(-mag if c >> 31 else mag)))     # numpy rounds to nearest even
    if mag == 0:
        expected = c & 0x80000000
    assert one(cop, "SFPCAST", c, Mod1=0) == expected


@pytest.mark.parametrize(("mod1", "c", "expected"), [
    (3, 0x80000005, 0xFFFFFFFB), (3, 0xFFFFFFFB, 0x80000005), (3, 0x80000000, 0x80000000), (3, 7, 7),
    (2, 0xFFFFFFFB, 5), (2, 0x80000000, 0x80000000),
])
def test_sfpcast_integer_modes(cop: Coprocessor, mod1: int, c: int, expected: int) -> None:
    assert one(cop, "SFPCAST", c, Mod1=mod1) == expected


def test_sfpcast_stochastic_and_reserved(cop: Coprocessor) -> None:
    with pytest.raises(UnsupportedFunctionality, match="PRNG"):
        one(cop, "SFPCAST", 1, Mod1=1)
    with pytest.raises(NonContractualBehavior):
        one(cop, "SFPCAST", 1, Mod1=4)


def stochrnd(cop: Coprocessor, c: int, mod1: int, mode: int = 0, **fields: int) -> int:
    return one(cop, "SFP_STOCH_RND", c, Mod1=mod1, RoundingMode=mode, **fields)


@pytest.mark.parametrize(("mod1", "mode", "c", "expected"), [
    (1, 0, 0x3F818000, 0x3F820000),          # FP16B: discarded 0x8000 >= 0x400000 >> 7: up
    (1, 0, 0x3F817FFF, 0x3F810000),
    (1, 2, 0x3F81FFFF, 0x3F820000),          # RND_ZERO's bug: 0xFFFF >= 0x7FFFFF >> 7 rounds away
    (1, 2, 0x3F81FFFE, 0x3F810000),
    (0, 0, 0x3F801000, 0x3F802000),          # FP16A: 13 bits discarded
    (0, 0, 0x807FFFFF, 0),                   # denormal -> +0
    (1, 0, 0xFFC00001, 0xFF800000),          # -NaN -> -Inf
    (2, 0, f32(-2.5), 3), (3, 0, f32(-2.5), 0x80000003), (3, 0, f32(-300.0), 0x8000007F),
    (2, 0, f32(0.49), 0), (3, 0, f32(-0.5), 0x80000001), (6, 0, f32(1e9), 65535), (7, 0, f32(-40000.0), 0x80007FFF),
    (7, 2, f32(2.75), 2), (7, 0, 0x7FC00000, 32767),
])
def test_sfpstochrnd_float_modes(cop: Coprocessor, mod1: int, mode: int, c: int, expected: int) -> None:
    assert stochrnd(cop, c, mod1, mode) == expected


def test_sfpstochrnd_int_modes(cop: Coprocessor) -> None:
    # INT32_TO_INT8 (5): sign-magnitude -300 >> 2 = -75 (rounding -75.0); >> 1 = -150 -> -127
    assert stochrnd(cop, 0x8000012C, 5, UseImm5=1, Imm5=2) == 0x8000004B
    assert stochrnd(cop, 0x8000012C, 5, UseImm5=1, Imm5=1) == 0x8000007F
    assert stochrnd(cop, 0x80000006, 4, UseImm5=1, Imm5=2) == 2       # UINT8: 1.5 rounds to 2, sign dropped
    set_lreg(cop, 3, 3)                                                # shift by LReg[VB] & 31
    assert stochrnd(cop, 0x0000001C, 5, VB=3) == 4                     # 28 / 8 = 3.5 -> 4
    with pytest.raises(UnsupportedFunctionality, match="PRNG"):
        stochrnd(cop, 1, 5, mode=1)


@settings(max_examples=200, deadline=None)
@given(st.floats(-70000.0, 70000.0, width=32), st.sampled_from([2, 3, 6, 7]))
def test_sfpstochrnd_float_to_int_nearest(x: float, mod1: int) -> None:
    # round half away from zero on the magnitude, then clamp (|x| < 0.5 is zero)
    cop = Coprocessor(TensixState())
    keep_sign, top = {2: (False, 255), 3: (True, 127), 6: (False, 65535), 7: (True, 32767)}[mod1]
    mag = min(math.floor(abs(Fraction(x)) + Fraction(1, 2)), top)
    sign = 0x80000000 if keep_sign and x < 0 and mag else 0
    assert stochrnd(cop, f32(x), mod1) == sign + mag


def test_sfparecip(cop: Coprocessor) -> None:
    assert one(cop, "SFPARECIP", f32(1.0), 0, Mod1=0) == f32(0.99609375)     # the page's example
    assert one(cop, "SFPARECIP", f32(-1.0), 0, Mod1=0) == f32(-0.99609375)
    assert one(cop, "SFPARECIP", f32(1.0), 0, Mod1=2) == f32(2.703125)
    assert one(cop, "SFPARECIP", 0, 0, Mod1=0) == 0x7F800000                 # below 2**-126: Inf
    assert one(cop, "SFPARECIP", f32(2.0 ** 127), 0, Mod1=0) == 0
    set_lreg(cop, 5, np.where(LANES < 16, -1, 1))                           # COND_RECIP: where VB < 0
    set_lreg(cop, 1, f32(-4.0))
    run(cop, "SFPARECIP", VC=1, VD=2, VB=5, Mod1=1)
    assert lreg(cop, 2)[0] == 0x3E7F0000 and lreg(cop, 2)[31] == f32(-4.0)   # 0.249..., no sign


@settings(max_examples=300, deadline=None)
@given(st.integers(0x00800000, 0x7E7FFFFF))
def test_approx_recip_accuracy(x: int) -> None:
    # SFPARECIP.md: 0.9944 / x < ApproxRecip(x) < 1.0054 / x for 2**-126 <= x < 2**126
    got = val(int(approx_recip(np.array([x], dtype=np.uint32))[0]))
    assert 0.9944 < got * val(x) < 1.0054


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 2.0, exclude_max=True, width=32))
def test_approx_exp_accuracy(x: float) -> None:
    # SFPARECIP.md: 0.9922 * e**x < ApproxExp(x) < 1.016 * e**x for 0 <= x < 2
    got = val(int(approx_exp(np.array([f32(x)], dtype=np.uint32))[0]))
    assert 0.9922 * math.exp(x) < got < 1.016 * math.exp(x) or (x < 2.0 ** -126 and got == 1.0)


@given(st.floats(allow_nan=False, width=32), st.floats(allow_nan=False, width=32))
def test_sign_mag_is_smaller_is_float_order(c: float, d: float) -> None:
    # SignMagIsSmaller on FP32: the total order -Inf < ... < -0 < +0 < ... < +Inf
    key = lambda v: (v, math.copysign(1.0, v))  # noqa: E731
    assert bool(sign_mag_is_smaller(np.array([f32(c)]), np.array([f32(d)]))[0]) == (key(c) < key(d))


def test_undefined_operand_is_an_event(cop: Coprocessor) -> None:
    set_lreg(cop, 1, 0)
    with pytest.raises(UnpredictableValueUsed, match=r"SFPMAD.md / LReg.md: LReg\[2\] lane 0"):
        run(cop, "SFPMAD", VA=1, VB=2, VC=1, VD=3)


def test_reserved_bits_are_missing_specification(cop: Coprocessor) -> None:
    set_lreg(cop, 1, 0)
    with pytest.raises(MissingSpecification, match="imm12_math"):
        run(cop, "SFPEXMAN", VC=1, VD=2, imm12_math=1)
