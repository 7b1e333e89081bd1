"""tdbg.tensix.pack_conversion against Packers/FormatConversion.md (seed 002), cell by cell.

Expected values are worked by hand from the page (the working is in the comments), or come from
the scalar reference below: one datum at a time, on exact values (``fractions.Fraction``) where
the page talks about rounding / truncation / saturation, on bits only where it talks about bits
(identity, bitcast, "low bits").  The reference shares no code with the module; Dst words are
built with the ``Store32`` / ``Store16`` formulas of BlackholeA0 Dst.md.
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from fractions import Fraction as Q

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdbg.tensix.events import MissingSpecification, UndefinedBehavior, UnsupportedFunctionality
from tdbg.tensix.pack_conversion import (
    DST_FORMATS,
    FORMATS,
    Fmt,
    PackerConfig,
    format_by_name,
    pack,
)

# ============================================================================================
# Dst words (Dst.md Store32 / Store16 shuffles, CPU layout -> Dst layout)
# ============================================================================================


def d32(v: int) -> int:
    """Conventional FP32 / sign-magnitude INT32 bits -> Dst32b word."""
    return (v & 0x8000FFFF) | ((v & 0x7F800000) >> 7) | ((v & 0x007F0000) << 8)


def d_bf16(v: int) -> int:
    """IEEE BF16 bits -> Dst16b BF16 word (sign 15, mantissa 14:8, exponent 7:0)."""
    return (v & 0x8000) | ((v & 0x7F80) >> 7) | ((v & 0x007F) << 8)


def d_fp16(v: int) -> int:
    """IEEE-order FP16 bits -> Dst16b FP16 word (sign 15, mantissa 14:5, exponent 4:0)."""
    return (v & 0x8000) | ((v & 0x7C00) >> 10) | ((v & 0x03FF) << 5)


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf(x: float) -> int:
    """BF16 bits of a float exactly representable in BF16."""
    u = f32(x)
    assert u & 0xFFFF == 0
    return u >> 16


# ============================================================================================
# Scalar reference, written from the page
# ============================================================================================


class RefUB(Exception):
    """The page calls the case undefined / mishandled."""


class RefMissing(Exception):
    """The page leaves the value unspecified (INT_DESCALE_Mode=1)."""


@dataclass(frozen=True)
class D:
    """One float datum: sign, exponent field, mantissa field of an eE mM type."""

    s: int
    e: int
    m: int
    E: int
    M: int

    @property
    def bias(self) -> int:
        return (1 << (self.E - 1)) - 1

    @property
    def kind(self) -> str:
        if self.E == 8 and self.e == 255:
            return "special"  # Inf / NaN
        if self.e == 0:
            return "zero" if self.m == 0 else "denormal"
        return "normal"

    def mag(self) -> Q:
        """|value| of a normal datum (FloatBitPatterns.md; exponent 31 of 5-bit types finite)."""
        return (1 + Q(self.m, 1 << self.M)) * Q(2) ** (self.e - self.bias)


def log2_floor(x: Q) -> int:
    k = x.numerator.bit_length() - x.denominator.bit_length()
    while Q(2) ** k > x:
        k -= 1
    while Q(2) ** (k + 1) <= x:
        k += 1
    return k


def encode(s: int, x: Q, E: int, M: int, mode: str) -> D:
    """Positive |x| to an eE mM normal: ``away`` = nearest, ties away from zero; ``trunc`` =
    toward zero; ``exact`` = must be representable.  No range handling."""
    k = log2_floor(x)
    q = x / Q(2) ** k * (1 << M)  # in [2**M, 2**(M+1))
    if mode == "away":
        n = int(q + Q(1, 2))  # floor of a positive number
    elif mode == "trunc":
        n = int(q)
    else:
        assert q.denominator == 1
        n = int(q)
    if n == 1 << (M + 1):
        k, n = k + 1, 1 << M
    return D(s, k + (1 << (E - 1)) - 1, n - (1 << M), E, M)


def ref_round(d: D, E: int, M: int) -> D:
    """Early "Rounding": nearest / ties away, denormals and -0 to +0, 8-bit NaN to Inf."""
    if d.kind == "special":
        return D(d.s, 255, 0, E, M)
    if d.kind != "normal":
        return D(0, 0, 0, E, M)
    r = encode(d.s, d.mag(), E, M, "away")
    if E == 8 and r.e >= 255:
        return D(d.s, 255, 0, E, M)  # carry into the top exponent: infinity (module's choice)
    if E == 5 and r.e > 31:
        return D(d.s, 31, (1 << M) - 1, E, M)  # 5-bit types have no infinity: saturate
    return r


def ref_trunc(d: D, E: int, M: int) -> D:
    """Early "Truncation": drop low mantissa bits (bits only; same exponent width)."""
    if d.kind == "normal":
        return encode(d.s, d.mag(), E, M, "trunc")
    return D(d.s, d.e, d.m >> (d.M - M), E, M)


def ref_late(d: D, E: int, M: int) -> D:
    """Late float conversion, with the page's denormal and NaN tables."""
    sat = D(d.s, (1 << E) - 1, (1 << M) - 1, E, M)
    zero = D(d.s, 0, 0, E, M)
    if d.E == E:
        if d.kind == "normal":
            return encode(d.s, d.mag(), E, M, "trunc" if M < d.M else "exact")
        if d.kind == "zero" or (d.kind == "denormal" and M < d.M):
            return zero
        m = d.m >> (d.M - M) if M < d.M else d.m << (M - d.M)  # denormals, NaN: bits
        return D(d.s, d.e, m, E, M)
    if d.E == 5:  # exponent widens
        if d.kind == "zero":
            return zero
        if d.kind == "denormal":
            if M < d.M:
                return zero
            raise RefUB("denormal mishandled")
        return encode(d.s, d.mag(), E, M, "trunc" if M < d.M else "exact")
    # exponent narrows 8 -> 5: saturate, then truncate
    if d.kind == "special":
        return sat
    if d.kind != "normal":
        return zero
    x = d.mag()
    if x <= Q(2) ** -15:
        return zero
    if x < Q(2) ** -14:
        raise RefUB("2**-15 < |x| < 2**-14 mishandled")
    if x >= Q(2) ** 17:
        return sat
    return encode(d.s, x, E, M, "trunc")


def ref_bfp(block: list[D], mag_bits: int) -> tuple[list[int], int]:
    """BF16 / E5M7 datums -> BFP8(a), then truncated to ``mag_bits``; Mag/64 * 2**(Exp-bias)."""
    exps = [d.e for d in block if d.e != 0]
    shared = max(exps, default=0)
    out = []
    for d in block:
        if d.e == 0:
            mag = 0
        else:
            unit = Q(2) ** (shared - d.bias) / 64
            mag = min(int(d.mag() / unit + Q(1, 2)), 127)
        mag >>= 7 - mag_bits
        out.append(((d.s if mag else 0) << mag_bits) | mag)
    return out, shared


# -- Dst reading (Dst.md layouts) --------------------------------------------------------------


def load32(w: int) -> int:
    """Dst.md Load32: Dst32b word -> conventional bits."""
    return (w & 0x8000FFFF) | ((w & 0x7F000000) >> 8) | ((w & 0x00FF0000) << 7)


def fp32_of(w: int) -> D:
    u = load32(w)
    return D(u >> 31, (u >> 23) & 0xFF, u & 0x7FFFFF, 8, 23)


def bf16_of(w: int) -> D:
    return D(w >> 15, w & 0xFF, (w >> 8) & 0x7F, 8, 7)


def fp16_of(w: int) -> D:
    return D(w >> 15, w & 0x1F, (w >> 5) & 0x3FF, 5, 10)


# -- the config section, transcribed as a rule list ------------------------------------------

F = Fmt
TYPES = {"FP32": (8, 23), "TF32": (8, 10), "BF16": (8, 7), "E8M6": (8, 6), "FP16": (5, 10),
         "E5M7": (5, 7), "E5M6": (5, 6), "FP8": (5, 2)}


def shift_round_sat(w: int, shift: int, unsigned: bool) -> int:
    u = load32(w)
    neg, x = u >> 31, Q(u & 0x7FFFFFFF, 1 << (shift & 31))
    n = int(x + Q(1, 2))
    if unsigned:
        return 0 if neg else min(n, 255)
    n = min(n, 127)
    return (neg << 7 | n) if n else 0


def bh_fp16(d: D) -> D:
    """Blackhole's FP32 -> FP16 cell (not on the Wormhole page; ttsim v1.10.0
    tensix.cpp:2309-2316, 2418-2429): "Rounding" to TF32, then the exponent rebiased 127 -> 15:
    below 0 a signed zero, above 31 exponent 31 / mantissa 1023, exponent 0 keeps the mantissa."""
    t = ref_round(d, 8, 10)
    if t.e == 0:
        return D(0, 0, 0, 5, 10)
    e = t.e - 112
    if e < 0:
        return D(t.s, 0, 0, 5, 10)
    if e > 31:
        return D(t.s, 31, 1023, 5, 10)
    return D(t.s, e, t.m, 5, 10)


def ref_early(c: PackerConfig) -> tuple[str, object]:
    """(intermediate type, per-datum function of the Dst word), from "Configuring the
    conversions"; RefUB when no bullet of the page configures it."""
    r32, IF, raw, r10, uns = c.read_32b_data, c.intermediate_format, c.read_raw, \
        c.round_10b_mant, c.read_unsigned
    to_fp16 = c.late_to_format == F.FP16
    tf32_via_bf16 = r10 and not raw and to_fp16 and c.late_from_format == F.TF32
    bf16_plain = not (r10 and to_fp16)
    src = fp32_of if r32 else bf16_of

    def rnd(t: str):
        return t, lambda w: ref_round(src(w), *TYPES[t])

    def trn(t: str, of=src):
        return t, lambda w: ref_trunc(of(w), *TYPES[t])

    if r32:
        rules = [
            (IF == F.INT32, lambda: ("INT32", load32)),
            (IF == F.FP32 and (not r10 or raw), lambda: ("FP32", fp32_of)),
            (IF == F.TF32 and raw, lambda: ("FP32", fp32_of)),
            (IF == F.TF32 and not raw, lambda: rnd("TF32")),
            (IF == F.FP32 and r10 and not raw, lambda: rnd("TF32")),
            (IF == F.BF16 and tf32_via_bf16, lambda: rnd("TF32")),
            (IF == F.BF16 and not raw and bf16_plain, lambda: rnd("BF16")),
            (IF == F.BF16 and raw and bf16_plain, lambda: trn("BF16")),
            (IF == F.BFP8 and raw, lambda: trn("BF16")),
            (IF == F.BFP8 and not raw, lambda: rnd("E8M6")),
            (IF == F.INT8 and not uns and raw,
             lambda: ("INT8", lambda w: (load32(w) >> 31) << 7 | load32(w) & 0x7F)),
            (IF == F.INT8 and uns and raw, lambda: ("UINT8", lambda w: load32(w) & 0xFF)),
            (IF == F.INT8 and not raw, lambda: int8_shift()),
            (IF == F.FP16 and r10 and not raw, lambda: ("FP16", lambda w: bh_fp16(fp32_of(w)))),
        ]
    else:
        rules = [
            (IF == F.TF32 and not raw, lambda: rnd("TF32")),
            (IF == F.FP32 and r10 and not raw, lambda: rnd("TF32")),
            (IF == F.BF16 and tf32_via_bf16, lambda: rnd("TF32")),
            (IF == F.BF16 and not raw and bf16_plain, lambda: rnd("BF16")),
            (IF == F.BF16 and raw and bf16_plain, lambda: ("BF16", bf16_of)),
            (IF == F.BFP8 and raw, lambda: ("BF16", bf16_of)),
            (IF == F.BFP8 and not raw, lambda: rnd("E8M6")),
            (IF == F.INT8 and not uns and raw, lambda: ("INT8", lambda w: (w >> 15) << 7)),
            (IF == F.FP16 and raw, lambda: ("FP16", fp16_of)),
            (IF == F.FP16 and not raw,
             lambda: ("FP16", lambda w: ref_round(fp16_of(w), 5, 10))),
            (IF == F.BFP8A and raw, lambda: trn("E5M7", fp16_of)),
            (IF == F.BFP8A and not raw,
             lambda: ("E5M6", lambda w: ref_round(fp16_of(w), 5, 6))),
            (IF == F.FP8 and raw, lambda: trn("FP8", fp16_of)),
            (IF == F.INT16, lambda: ("INT16", lambda w: w)),
        ]

    def int8_shift():
        if c.shift_amount is None:
            raise RefMissing
        name = "UINT8" if uns else "INT8"
        return name, lambda w: shift_round_sat(w, c.shift_amount, uns)

    for ok, make in rules:
        if ok:
            return make()
    raise RefUB("no configuration bullet")


LATE_FROM = {F.FP32: {"FP32"}, F.TF32: {"TF32"}, F.BF16: {"BF16"}, F.BFP8: {"E8M6", "BF16"},
             F.FP16: {"FP16"}, F.BFP8A: {"E5M6", "E5M7"}, F.FP8: {"FP8"}, F.INT32: {"INT32"},
             F.INT16: {"INT16"}, F.INT8: {"INT8", "UINT8"}}
FLOAT_OUT = {F.FP32: "FP32", F.TF32: "TF32", F.BF16: "BF16", F.FP16: "FP16", F.FP8: "FP8"}
BFP_OUT = {F.BFP8: (8, 7), F.BFP4: (8, 3), F.BFP2: (8, 1),
           F.BFP8A: (5, 7), F.BFP4A: (5, 3), F.BFP2A: (5, 1)}
INT_OUT = {"INT32": F.INT32, "INT16": F.INT16, "INT8": F.INT8, "UINT8": F.INT8}


def ref_late_check(c: PackerConfig, mid: str) -> None:
    """The late table and LateFromFormat agreement; RefUB where the page says No."""
    lf, lt = c.late_from_format, c.late_to_format
    if lf not in LATE_FROM or mid not in LATE_FROM[lf]:
        raise RefUB("LateFromFormat")
    if mid in INT_OUT:
        if INT_OUT[mid] != lt:
            raise RefUB("late No")
    elif lt not in FLOAT_OUT and lt not in BFP_OUT:
        raise RefUB("late No")
    elif lt == F.TF32 and mid == "FP32":
        raise RefUB("late No")


def ref_pack(words: list[int], c: PackerConfig) -> tuple[bytes, bytes]:
    """The whole conversion, datum by datum (BFP block by block)."""
    mid, early = ref_early(c)
    ref_late_check(c, mid)
    vals = [early(w) for w in words]
    lt = c.late_to_format
    if mid in INT_OUT:
        width = {"INT32": 4, "INT16": 2}.get(mid, 1)
        return b"".join(v.to_bytes(width, "little") for v in vals), b""
    if lt in FLOAT_OUT:
        E, M = TYPES[FLOAT_OUT[lt]]
        out = [ref_late(v, E, M) for v in vals]
        bits = [(d.s << (E + M)) | (d.e << M) | d.m for d in out]
        if lt == F.TF32:
            return b"".join((b << 13).to_bytes(4, "little") for b in bits), b""
        width = (1 + E + M) // 8
        return b"".join(b.to_bytes(width, "little") for b in bits), b""
    E, mag_bits = BFP_OUT[lt]
    conv = [ref_late(v, E, 7) for v in vals]
    datums, exps = [], []
    for i in range(0, len(conv), 16):
        d, e = ref_bfp(conv[i:i + 16], mag_bits)
        datums += d
        exps.append(e)
    per = 8 // (mag_bits + 1)
    data = bytes(
        sum(v << ((mag_bits + 1) * j) for j, v in enumerate(datums[i:i + per]))
        for i in range(0, len(datums), per)
    )
    return data, bytes(exps)


# ============================================================================================
# Helpers
# ============================================================================================


def cfg(IF: int, LF: int | None = None, LT: int | None = None, *, r32: bool = True,
        raw: bool = False, r10: bool = False, uns: bool = False, shift: int | None = 0,
        stochastic: bool = False) -> PackerConfig:
    LF = IF if LF is None else LF
    return PackerConfig(read_32b_data=r32, read_raw=raw, read_unsigned=uns, round_10b_mant=r10,
                        intermediate_format=IF, late_from_format=LF,
                        late_to_format=LF if LT is None else LT, shift_amount=shift,
                        stochastic=stochastic)


def words(data: bytes, width: int) -> list[int]:
    return [int.from_bytes(data[i:i + width], "little") for i in range(0, len(data), width)]


def run32(c: PackerConfig, ieee: list[int], width: int) -> list[int]:
    """Pack FP32 / INT32 (conventional bits) from Dst32b; the L1 datums as ints."""
    return words(pack(np.array([d32(u) for u in ieee], np.uint32), c).data, width)


def run16(c: PackerConfig, dst: list[int], width: int) -> list[int]:
    return words(pack(np.array(dst, np.uint16), c).data, width)


# ============================================================================================
# Early conversion, from FP32 / INT32 (Read_32b_data = 1)
# ============================================================================================


@pytest.mark.parametrize("c", [
    cfg(F.FP32),                       # IntermediateFormat FP32, Round_10b_mant = 0
    cfg(F.FP32, r10=True, raw=True),   # FP32 and Read_raw
    cfg(F.TF32, F.FP32, raw=True),     # TF32 and Read_raw
])
def test_fp32_to_fp32_identity_keeps_denormals_nan_minus_zero(c):
    # Identity: "Denormals preserved. NaN preserved."; the late FP32 -> FP32 is identity too.
    vals = [0x3FC00000, 0x00000001, 0x807FFFFF, 0x7FC00001, 0xFF800000, 0x80000000]
    assert run32(c, vals, 4) == vals


def test_int32_bitcast_to_fp32():
    # INT32 -5 is sign-magnitude 0x80000005; bitcast to FP32 keeps the bits (a -denormal).
    assert run32(cfg(F.FP32), [0x80000005], 4) == [0x80000005]


@pytest.mark.parametrize("c", [cfg(F.TF32), cfg(F.FP32, F.TF32, r10=True)])
def test_fp32_to_tf32_rounding(c):
    cases = {
        0x3F801000: 0x3F802000,  # 1 + 2**-11: exactly half a TF32 ulp (2**-10) -> away: 1 + 2**-10
        0x3F800FFF: 0x3F800000,  # just under half -> down
        0xBF801000: 0xBF802000,  # -(1 + 2**-11): tie, away from zero -> -(1 + 2**-10)
        0x3F801001: 0x3F802000,  # over half -> up
        0x3FFFF000: 0x40000000,  # 1.1111111111|1 -> carry into the exponent: 2.0
        0x7F7FF000: 0x7F800000,  # largest exponent, carry out -> infinity (choice)
        0x00400000: 0x00000000,  # denormal -> flushed
        0x80400000: 0x00000000,  # negative denormal -> +0
        0x80000000: 0x00000000,  # -0 -> +0
        0x7FC00000: 0x7F800000,  # NaN -> infinity (8-bit exponent)
        0xFF800001: 0xFF800000,  # -NaN -> -infinity
        0x7F800000: 0x7F800000,  # infinity stays
    }
    assert run32(c, list(cases), 4) == list(cases.values())


def test_blackhole_fp32_to_fp16_rounds_via_tf32():
    # Blackhole's FP32-Dst-to-FP16 cell (IntermediateFormat FP16 with Round_10b_mant, which the
    # Wormhole page calls No): round to TF32 (half away from zero), then rebias 127 -> 15.
    # The first three were measured: ttsim v1.10.0 packing tt-llk's Float16_b -> Float16
    # datacopy (32-bit Dst) wrote these FP16 words for BF16 inputs 0x3F1D, 0x3F86, 0x3E7A.
    cases = {
        0x3F1D0000: 0x38E8,   # 0.61328125
        0x3F860000: 0x3C30,   # 1.046875
        0x3E7A0000: 0x33D0,   # 0.244140625
        0x3F801000: 0x3C01,   # 1 + 2**-11: half a TF32 ulp -> away: 1 + 2**-10
        0xBF800FFF: 0xBC00,   # -(1 + just under 2**-11) -> -1.0
        0x477FF000: 0x7C00,   # 65535.0 rounds to 65536 = 2**16: FP16 exponent 31 (finite in Dst/L1)
        0x47800000: 0x7C00,   # 2**16 -> exponent 31, mantissa 0
        0x48000000: 0x7FFF,   # 2**17: above FP16's exponents -> exponent 31, mantissa 1023
        0xC8000000: 0xFFFF,   # -2**17: the same, sign kept
        0x38000000: 0x0000,   # 2**-15: exponent 112 -> FP16 exponent 0, mantissa 0
        0x38400000: 0x0200,   # 1.5 * 2**-15: exponent 0, the mantissa kept (not flushed)
        0xB7800000: 0x8000,   # -2**-16: below the range -> -0 (sign kept)
        0x80000000: 0x0000,   # -0: the TF32 rounding gives +0
    }
    assert run32(cfg(F.FP16, r10=True), list(cases), 2) == list(cases.values())


def test_int32_bitcast_then_round_to_tf32():
    # INT32 0x00001000 read as FP32 is a denormal: rounding flushes it to +0.
    # INT32 0x12341000 (exponent field 0x24, mantissa 0x341000): bit 12 is the TF32 half -> up.
    assert run32(cfg(F.TF32), [0x00001000, 0x12341000], 4) == [0, 0x12342000]


def test_fp32_to_bf16_rounding():
    cases = {
        0x3F808000: 0x3F81,  # 1 + 2**-8 = half a BF16 ulp -> away: 1 + 2**-7
        0x3F807FFF: 0x3F80,  # under half -> down
        0xBF808000: 0xBF81,  # negative tie -> away from zero
        0x3FFF8000: 0x4000,  # 1.1111111|1 -> 2.0
        0x7F800001: 0x7F80,  # NaN -> infinity
        0x807FFFFF: 0x0000,  # -denormal -> +0
    }
    assert run32(cfg(F.BF16), list(cases), 2) == list(cases.values())


def test_fp32_to_bf16_truncation():
    cases = {
        0x3F80FFFF: 0x3F80,  # low 16 bits dropped
        0xBF81FFFF: 0xBF81,
        0x7F800001: 0x7F80,  # NaN whose payload is all in the dropped bits becomes infinity
        0x7FC00000: 0x7FC0,  # NaN stays NaN
        0x00010000: 0x0001,  # denormal survives truncation
        0x0000FFFF: 0x0000,  # denormal truncated to zero
        0x80000000: 0x8000,  # -0 kept (no rounding)
    }
    for IF in (F.BF16, F.BFP8):  # BF16 or BFP8 with Read_raw
        c = cfg(IF, F.BFP8 if IF == F.BFP8 else F.BF16, F.BF16, raw=True)
        assert run32(c, list(cases), 2) == list(cases.values())


def test_int32_to_bf16_is_top_16_bits():
    # "Bitcast of top 16 bits": INT32 0x12345678 -> 0x1234; -0x7FFF0001 = 0xFFFF0001 -> 0xFFFF.
    assert run32(cfg(F.BF16, raw=True), [0x12345678, 0xFFFF0001], 2) == [0x1234, 0xFFFF]


def test_fp32_to_e8m6_rounding():
    # IntermediateFormat BFP8, Read_raw 0 -> E8M6; late E8M6 -> BF16 widens exactly.
    c = cfg(F.BFP8, F.BFP8, F.BF16)
    cases = {
        0x3F810000: 0x3F82,  # 1 + 2**-7 = half an E8M6 ulp (2**-6) -> away: 1 + 2**-6
        0x3F80FFFF: 0x3F80,  # under half
        0x3F830000: 0x3F84,  # 1 + 3 * 2**-7 = 1.5 ulps -> 2 ulps
        0xBF7F0000: 0xBF80,  # -(2 - 2**-7) * 2**-1: mantissa 1111111 rounds up, carries
    }
    assert run32(c, list(cases), 2) == list(cases.values())


def test_int32_identity_and_fp32_bitcast_to_int32():
    # INT32 -> INT32 identity; FP32 -> INT32 bitcast: the conventional bits, little-endian.
    vals = [0x80000007, 0x7FFFFFFF, 0x3F800000, 0]
    assert run32(cfg(F.INT32), vals, 4) == vals


def test_int8_sign_and_low_7_bits():
    # FP32: sign and the low 7 mantissa bits; INT32: sign and the low 7 magnitude bits.
    c = cfg(F.INT8, raw=True)
    assert run32(c, [0xBF8000FF, 0x3F800085, 0x80000105, 0x00000080], 1) == [
        0xFF, 0x05, 0x85, 0x00]


def test_uint8_low_8_bits():
    c = cfg(F.INT8, raw=True, uns=True)
    assert run32(c, [0x3F8001AB, 0x80000005, 0x00000100], 1) == [0xAB, 0x05, 0x00]


def sm(v: int) -> int:
    """Sign-magnitude INT32 bits of v."""
    return (0x80000000 | -v) if v < 0 else v


@pytest.mark.parametrize("shift, cases", [
    (3, {20: 3,            # 20 / 8 = 2.5, tie -> away: 3
         -20: 0x83,        # -2.5 -> -3: sign bit kept
         19: 2,            # 2.375 -> 2
         1000: 125,        # exact
         1020: 127,        # 127.5 -> 128 -> saturates to 127
         -2000: 0xFF,      # -250 -> -127
         3: 0,             # 0.375 -> 0
         -3: 0,            # -> magnitude 0: +0 (choice)
         }),
    (0, {127: 127, 128: 127, -128: 0xFF, 0: 0}),
    (35, {20: 3}),         # only the low five bits of ShiftAmount count: 35 & 31 = 3
    (31, {0x7FFFFFFF: 1,   # (2**31 - 1) / 2**31 rounds to 1
          0x40000000: 1,   # 2**30 / 2**31 = 0.5 -> away: 1
          0x3FFFFFFF: 0}),
])
def test_int8_shift_round_saturate(shift, cases):
    c = cfg(F.INT8, shift=shift)
    assert run32(c, [sm(v) for v in cases], 1) == list(cases.values())


def test_uint8_shift_round_saturate():
    c0, c1 = cfg(F.INT8, uns=True, shift=0), cfg(F.INT8, uns=True, shift=1)
    assert run32(c0, [sm(v) for v in (300, 255, -7, 0)], 1) == [255, 255, 0, 0]
    # 510 / 2 = 255; 511 / 2 = 255.5 -> 256 -> 255; 5 / 2 = 2.5 -> 3; -1 / 2 -> 0
    assert run32(c1, [sm(v) for v in (510, 511, 5, -1)], 1) == [255, 255, 3, 0]


# ============================================================================================
# Early conversion, from BF16 / FP16 / INT16 (Read_32b_data = 0)
# ============================================================================================


@pytest.mark.parametrize("c", [
    cfg(F.TF32, r32=False),
    cfg(F.FP32, F.TF32, r32=False, r10=True),
])
def test_bf16_to_tf32_rounding(c):
    cases = {
        bf(1.0078125): 0x3F810000,  # 1 + 2**-7 needs no rounding
        0x0001: 0x00000000,         # denormal -> +0
        0x8000: 0x00000000,         # -0 -> +0
        0x7FC1: 0x7F800000,         # NaN -> infinity
        0xFF81: 0xFF800000,         # -NaN -> -infinity
    }
    assert run16(c, [d_bf16(v) for v in cases], 4) == list(cases.values())


def test_bf16_round_10b_mant_gives_tf32_for_late_tf32_to_fp16():
    # IntermediateFormat BF16 + Round_10b_mant: TF32; late TF32 -> FP16. 1.5 -> FP16 0x3E00;
    # the BF16 denormal is flushed by the rounding, so the late conversion sees +0.
    for r32, dst in ((False, [d_bf16(0x3FC0), d_bf16(0x0001)]),
                     (True, [d32(0x3FC00000), d32(0x00010000)])):
        c = cfg(F.BF16, F.TF32, F.FP16, r32=r32, r10=True)
        assert words(pack(np.array(dst), c).data, 2) == [0x3E00, 0x0000]


def test_bf16_rounding_versus_identity():
    vals = [0x0001, 0x8000, 0x7FC1, 0xBF81, 0x7F80]
    rounded = [0x0000, 0x0000, 0x7F80, 0xBF81, 0x7F80]  # flush, -0 -> +0, NaN -> Inf
    dst = [d_bf16(v) for v in vals]
    assert run16(cfg(F.BF16, r32=False), dst, 2) == rounded
    assert run16(cfg(F.BF16, r32=False, raw=True), dst, 2) == vals
    assert run16(cfg(F.BFP8, F.BFP8, F.BF16, r32=False, raw=True), dst, 2) == vals


def test_bf16_to_e8m6_rounding():
    c = cfg(F.BFP8, F.BFP8, F.BF16, r32=False)
    cases = {
        0x3F81: 0x3F82,  # mantissa 0000001: drop 1 bit, a tie -> away: 0000010
        0x3F83: 0x3F84,  # 0000011 -> 0000100
        0x3F7F: 0x3F80,  # 0.99609375: 1111111 -> carry -> 1.0
        0x7F7F: 0x7F80,  # carry out of exponent 254 -> infinity (choice)
        0x0040: 0x0000,  # denormal -> +0
    }
    assert run16(c, [d_bf16(v) for v in cases], 2) == list(cases.values())


def test_int8_sign_only_from_16_bit():
    # From BF16 / FP16: "Sign bit only, other bits zero".
    c = cfg(F.INT8, r32=False, raw=True)
    assert run16(c, [d_bf16(0xBF80), d_bf16(0x3F80), d_fp16(0xBC00)], 1) == [0x80, 0, 0x80]


def test_fp16_rounding_versus_identity():
    vals = [0x0001, 0x8000, 0x7FFF, 0xBC00, 0x83FF]
    rounded = [0x0000, 0x0000, 0x7FFF, 0xBC00, 0x0000]  # 5-bit exponent: no NaN to convert
    dst = [d_fp16(v) for v in vals]
    assert run16(cfg(F.FP16, r32=False), dst, 2) == rounded
    assert run16(cfg(F.FP16, r32=False, raw=True), dst, 2) == vals


def test_fp16_to_e5m7_truncation():
    # FP16 mantissa 10 -> 7 bits by truncation; late E5M7 -> FP16 widens back with zeros.
    c = cfg(F.BFP8A, F.BFP8A, F.FP16, r32=False, raw=True)
    cases = {0x3C07: 0x3C00, 0x3C0F: 0x3C08, 0xBFFF: 0xBFF8, 0x0007: 0x0000, 0x0008: 0x0008}
    assert run16(c, [d_fp16(v) for v in cases], 2) == list(cases.values())


def test_fp16_to_e5m6_rounding():
    c = cfg(F.BFP8A, F.BFP8A, F.FP16, r32=False)
    cases = {
        0x3C08: 0x3C10,  # mantissa 0000001000: drop 4 bits, a tie -> away: 000001(0000)
        0x3C07: 0x3C00,  # under half
        0x3BF8: 0x3C00,  # exponent 14, mantissa 1111111000 -> carry -> 1.0
        0x7FF8: 0x7FF0,  # exponent 31 carries out: saturate to 31 / 111111 (choice)
        0x0010: 0x0000,  # denormal -> +0
    }
    assert run16(c, [d_fp16(v) for v in cases], 2) == list(cases.values())


def test_fp16_to_fp8_truncation():
    # FP16 0x3DFF: exponent 15, mantissa 0111111111 -> 01: FP8 0|01111|01 = 0x3D.
    # FP16 -2.0 = 0xC000 -> 1|10000|00 = 0xC0.  FP16 0x7FFF -> 0|11111|11 = 0x7F.
    c = cfg(F.FP8, r32=False, raw=True)
    assert run16(c, [d_fp16(v) for v in (0x3DFF, 0xC000, 0x7FFF)], 1) == [0x3D, 0xC0, 0x7F]


def test_int16_identity():
    c = cfg(F.INT16, r32=False)
    assert run16(c, [0x8001, 0x7FFF, 0x0000], 2) == [0x8001, 0x7FFF, 0x0000]


@pytest.mark.parametrize("c", [
    *(cfg(IF, r32=True) for IF in (F.FP16, F.BFP8A, F.FP8, F.INT16)),  # "No" from FP32
    cfg(F.FP32, r32=False),                      # BF16 -> FP32: No
    cfg(F.TF32, r32=False, raw=True),            # TF32 needs Read_raw = 0
    cfg(F.INT32, r32=False),                     # 16-bit -> INT32: No
    cfg(F.INT8, r32=False, raw=True, uns=True),  # BF16 / FP16 -> UINT8: No
    cfg(F.INT8, r32=False),                      # no shift-round-saturate from 16-bit
    cfg(F.FP8, r32=False),                       # FP8 only by truncation
    *(cfg(IF, F.BFP8, F.BFP8) for IF in (F.BFP4, F.BFP2, F.BFP4A, F.BFP2A, 12, 13)),
    cfg(F.BF16, F.BF16, F.FP16, r10=True),       # BF16 -> FP16 needs Round_10b_mant = 0
    cfg(F.BF16, F.TF32, F.FP16, r10=True, raw=True),
])
def test_early_no_cells_are_undefined(c):
    with pytest.raises(UndefinedBehavior):
        pack(np.zeros(16, np.uint32), c)


# ============================================================================================
# Late conversion
# ============================================================================================


def test_late_fp32_to_bf16_truncates_and_flushes():
    c = cfg(F.FP32, F.FP32, F.BF16)
    cases = {
        0x3F80FFFF: 0x3F80,  # truncated
        0x00400000: 0x0000,  # denormal flushed (mantissa narrows)
        0x80400000: 0x8000,  # ... keeping its sign (choice)
        0x7F800001: 0x7F80,  # NaN can become infinity by truncation
        0x7FC00000: 0x7FC0,
    }
    assert run32(c, list(cases), 2) == list(cases.values())


def test_late_bf16_to_fp32_and_tf32_preserve():
    # Exponent same, mantissa widens: denormals and NaN preserved.
    dst = [d_bf16(v) for v in (0x3F81, 0x0001, 0x7FC1, 0x8000)]
    want = [0x3F810000, 0x00010000, 0x7FC10000, 0x80000000]
    for LT in (F.FP32, F.TF32):
        assert run16(cfg(F.BF16, F.BF16, LT, r32=False, raw=True), dst, 4) == want


def test_late_fp16_widening():
    # FP16 -> FP32: 1.0 (e15) -> e127; 0x7FFF (e31, m1023: 131008, finite) -> e143 = 0x47FFE000.
    c = cfg(F.FP16, F.FP16, F.FP32, r32=False, raw=True)
    assert run16(c, [d_fp16(v) for v in (0x3C00, 0x7FFF, 0x8000)], 4) == [
        0x3F800000, 0x47FFE000, 0x80000000]
    # FP16 -> TF32: 1 + 2**-10 -> 0x3F802000.
    c = cfg(F.FP16, F.FP16, F.TF32, r32=False, raw=True)
    assert run16(c, [d_fp16(0x3C01)], 4) == [0x3F802000]
    # FP16 -> BF16: 1 + 1023/1024 truncates to 1 + 127/128; a denormal is flushed (narrows).
    c = cfg(F.FP16, F.FP16, F.BF16, r32=False, raw=True)
    assert run16(c, [d_fp16(v) for v in (0x3FFF, 0x83FF)], 2) == [0x3FFF, 0x8000]


@pytest.mark.parametrize("LT", [F.FP32, F.TF32])
def test_late_fp16_denormal_widening_is_undefined(LT):
    c = cfg(F.FP16, F.FP16, LT, r32=False, raw=True)
    with pytest.raises(UndefinedBehavior, match="mishandled"):
        pack(np.array([d_fp16(0x0001)]), c)


def test_late_fp32_to_tf32_is_undefined():
    with pytest.raises(UndefinedBehavior, match="early"):
        pack(np.zeros(1, np.uint32), cfg(F.FP32, F.FP32, F.TF32))


def test_late_narrowing_to_fp16():
    c = cfg(F.FP32, F.FP32, F.FP16)
    cases = {
        0x3F800000: 0x3C00,  # 1.0
        0x3F803000: 0x3C01,  # 1 + 2**-10 + 2**-11 truncates to 1 + 2**-10
        0x47800000: 0x7C00,  # 2**16: exponent 31, finite on Tensix
        0x47FFFFFF: 0x7FFF,  # just under 2**17: exponent 31, mantissa truncated to all ones
        0x48000000: 0x7FFF,  # 2**17: saturates
        0xFF800000: 0xFFFF,  # -infinity saturates, sign kept
        0x7FC00000: 0x7FFF,  # NaN becomes the infinity-like pattern
        0x38800000: 0x0400,  # 2**-14: smallest normal
        0x38000000: 0x0000,  # 2**-15: flushed
        0xB8000000: 0x8000,  # -2**-15: flushed, sign kept (choice)
        0x37800000: 0x0000,  # 2**-16
        0x00000001: 0x0000,  # FP32 denormal
    }
    assert run32(c, list(cases), 2) == list(cases.values())


@pytest.mark.parametrize("LT", [F.FP16, F.FP8, F.BFP8A])
def test_late_narrowing_mishandled_range_is_undefined(LT):
    # 1.5 * 2**-15 lies in 2**-15 < |x| < 2**-14.
    with pytest.raises(UndefinedBehavior, match="2\\*\\*-15"):
        pack(np.array([d32(0x38400000)] * 16, np.uint32), cfg(F.FP32, F.FP32, LT))


def test_late_to_fp8():
    # FP32 -> FP8: 2**17 saturates: 0|11111|11; 1.75 = 1.11b -> 0|01111|11; 1.9 truncates to it.
    c = cfg(F.FP32, F.FP32, F.FP8)
    assert run32(c, [0x48000000, 0x3FE00000, f32(1.9), 0xC0000000], 1) == [
        0x7F, 0x3F, 0x3F, 0xC0]
    # FP16 -> FP8: a denormal is flushed (mantissa narrows), sign kept.
    c = cfg(F.FP16, F.FP16, F.FP8, r32=False, raw=True)
    assert run16(c, [d_fp16(0x83FF), d_fp16(0x3DFF)], 1) == [0x80, 0x3D]


def test_late_fp8_widening():
    # Early FP16 -> FP8 truncation, late FP8 -> FP16 / FP32 widens: 0x3DFF -> 0x3D00 -> 1.25.
    c = cfg(F.FP8, F.FP8, F.FP16, r32=False, raw=True)
    assert run16(c, [d_fp16(0x3DFF)], 2) == [0x3D00]
    c = cfg(F.FP8, F.FP8, F.FP32, r32=False, raw=True)
    assert run16(c, [d_fp16(0x3DFF)], 4) == [f32(1.25)]
    with pytest.raises(UndefinedBehavior):  # FP8 denormal, exponent widens, mantissa widens
        pack(np.array([d_fp16(0x0100)]), c)


@pytest.mark.parametrize("c", [
    cfg(F.INT32, F.INT32, F.FP32),
    cfg(F.FP32, F.FP32, F.INT32),
    cfg(F.INT16, F.INT16, F.INT8, r32=False),
    cfg(F.INT8, F.INT8, F.INT16, raw=True),
    cfg(F.FP32, F.BF16, F.BF16),     # LateFromFormat does not describe the intermediate
    cfg(F.FP32, F.BFP4, F.BFP4),     # BFP4 only valid in LateToFormat
    cfg(F.FP32, 13, F.FP32),
    cfg(F.FP32, F.FP32, 12),
    cfg(F.TF32, F.FP32, F.FP16),     # TF32 intermediate labelled FP32
])
def test_late_no_cells_are_undefined(c):
    with pytest.raises(UndefinedBehavior):
        pack(np.zeros(16, np.uint32 if c.read_32b_data else np.uint16), c)


# ============================================================================================
# BFP
# ============================================================================================

BLOCK = [4.0, 2.0, 1.0, 0.5, 3.0, -7.0, 1.0078125, 1.03125,
         7.9375, 2.0 ** -10, -(2.0 ** -10), -0.0, 0.0, -4.0, 6.0, -1.0]
# Shared exponent: 4.0 .. 7.9375 have the largest BF16 exponent, 129.  Each magnitude is the
# 8-bit significand 1mmmmmmm shifted right by 1 + (129 - e), rounded, ties away from zero:
BFP8_BLOCK = [
    0x40,         # 4.0: 10000000 >> 1 = 64
    0x20,         # 2.0: >> 2 = 32
    0x10,         # 1.0: >> 3 = 16
    0x08,         # 0.5: >> 4 = 8
    0x30,         # 3.0 = 1.1b * 2: 11000000 >> 2 = 48
    0xF0,         # -7.0 = -1.11b * 4: 11100000 >> 1 = 112, sign
    0x10,         # 1 + 2**-7: 10000001 >> 3 = 16.125 -> 16
    0x11,         # 1 + 2**-5: 10000100 >> 3 = 16.5 -> tie, away -> 17
    0x7F,         # 7.9375 = 1.1111111b * 4: 11111111 >> 1 = 127.5 -> 128 -> clamped 127
    0x00,         # 2**-10: >> 13 -> 0
    0x00,         # -2**-10: magnitude 0 -> sign cleared (choice)
    0x00, 0x00,   # -0, +0
    0xC0,         # -4.0
    0x60,         # 6.0 = 1.1b * 4: 11000000 >> 1 = 96
    0x90,         # -1.0: 16, sign
]


def bf16_block() -> np.ndarray:
    return np.array([d_bf16(bf(x)) for x in BLOCK], np.uint16)


def test_bfp8_block_max_rounding_and_signs():
    out = pack(bf16_block(), cfg(F.BFP8, r32=False, raw=True))
    assert list(out.data) == BFP8_BLOCK
    assert out.exponents == bytes([129])
    assert out.fmt.name == "bfp8"


def test_bfp4_bfp2_truncate_bfp8_and_pack_low_first():
    # BFP8 magnitudes above: 64 32 16 8 | 48 -112 16 17 | 127 0 0 0 | 0 -64 96 -16.
    # BFP4 keeps magnitude >> 4 (3 bits) under the sign bit, two datums a byte, the earlier in
    # the low nibble (choice): 4 2 1 0 | 3 -7 1 1 | 7 0 0 0 | 0 -4 6 -1, nibbles
    # 4 2 | 1 0 | 3 F | 1 1 | 7 0 | 0 0 | 0 C | 6 9.
    bfp4 = pack(bf16_block(), cfg(F.BFP8, F.BFP8, F.BFP4, r32=False, raw=True))
    assert list(bfp4.data) == [0x24, 0x01, 0xF3, 0x11, 0x07, 0x00, 0xC0, 0x96]
    assert bfp4.exponents == b"\x81"
    # BFP2 keeps magnitude >> 6 (1 bit), four datums a byte, earliest in bits 1:0:
    # 01 00 00 00 | 00 11 00 00 | 01 00 00 00 | 00 11 01 00 (-16 >> 6 = 0: sign cleared).
    bfp2 = pack(bf16_block(), cfg(F.BFP8, F.BFP8, F.BFP2, r32=False, raw=True))
    assert list(bfp2.data) == [0b00000001, 0b00001100, 0b00000001, 0b00011100]
    assert bfp2.exponents == b"\x81"


def test_bfp_all_zero_block_and_several_blocks():
    zeros = np.array([0x0000, 0x8000] * 8, np.uint16)  # +0 and -0
    out = pack(np.concatenate([zeros, bf16_block()]), cfg(F.BFP8, r32=False, raw=True))
    assert out.data == bytes(16) + bytes(BFP8_BLOCK)
    assert out.exponents == bytes([0, 129])  # one exponent per 16 datums, in order


def test_bfp8_from_fp32_truncates_to_bf16_first():
    # 1 + 2**-7 + 2**-9 (0x3F810000 | 0x4000): BF16 truncation drops the 2**-9 -> 1 + 2**-7,
    # alone in its block: shared exponent 127, magnitude 10000001 >> 1 = 64.5 -> 65.
    c = cfg(F.FP32, F.FP32, F.BFP8)
    out = pack(np.array([d32(0x3F814000)] + [0] * 15, np.uint32), c)
    assert out.data[0] == 65 and out.exponents == b"\x7f"


def test_bfp8_from_fp16():
    # FP16 -> BF16 (first row: truncate 10 -> 7 bits, denormals flushed), then BFP8.
    # 1 + 1023/1024 -> BF16 1.1111111b: 11111111 >> 1 = 127.5 -> clamped 127; exponent 127.
    c = cfg(F.FP16, F.FP16, F.BFP8, r32=False, raw=True)
    out = pack(np.array([d_fp16(0x3FFF), d_fp16(0x83FF)] + [0] * 14, np.uint16), c)
    assert list(out.data[:2]) == [127, 0] and out.exponents == b"\x7f"


def test_bfp8a_from_fp16_and_fp32():
    # FP16 -> E5M7 (IntermediateFormat BFP8a, Read_raw) -> BFP8a: 1.0 and 0.5, exponent 15.
    c = cfg(F.BFP8A, r32=False, raw=True)
    out = pack(np.array([d_fp16(0x3C00), d_fp16(0xB800)] + [0] * 14, np.uint16), c)
    assert list(out.data[:2]) == [64, 0x80 | 32] and out.exponents == b"\x0f"
    # FP32 2**20 -> E5M7 saturates to exponent 31, mantissa 1111111 -> 127.5 -> 127;
    # the 5-bit exponent 31 is stored zero-extended in a byte.
    c = cfg(F.FP32, F.FP32, F.BFP8A)
    out = pack(np.array([d32(0x49800000)] + [0] * 15, np.uint32), c)
    assert out.data[0] == 127 and out.exponents == b"\x1f"


def test_bfp_needs_whole_blocks():
    with pytest.raises(ValueError, match="16"):
        pack(np.zeros(8, np.uint16), cfg(F.BFP8, r32=False, raw=True))


def test_empty_input():
    out = pack(np.zeros(0, np.uint16), cfg(F.BFP8, r32=False, raw=True))
    assert out.data == b"" and out.exponents == b""


# ============================================================================================
# Stochastic rounding, INT_DESCALE mode 1, input checks
# ============================================================================================


@pytest.mark.parametrize("c", [
    cfg(F.TF32, stochastic=True),                                # early rounding
    cfg(F.INT8, stochastic=True),                                # shift-round-saturate
    cfg(F.BFP8, r32=False, raw=True, stochastic=True),           # BFP rounding
])
def test_stochastic_rounding_is_unsupported(c):
    with pytest.raises(UnsupportedFunctionality, match="stochastic"):
        pack(np.zeros(16, np.uint32), c)


def test_stochastic_flag_without_rounding_is_fine():
    c = cfg(F.FP32, F.FP32, F.BF16, stochastic=True)  # identity then truncation
    assert run32(c, [0x3F80FFFF], 2) == [0x3F80]


def test_int_descale_mode_1_is_missing_specification():
    with pytest.raises(MissingSpecification, match="z"):
        pack(np.zeros(1, np.uint32), cfg(F.INT8, shift=None))
    assert run32(cfg(F.INT8, raw=True, shift=None), [5], 1) == [5]  # not used: fine


def test_input_checks():
    with pytest.raises(ValueError, match="16 bits"):
        pack(np.array([0x10000]), cfg(F.INT16, r32=False))
    with pytest.raises(TypeError):
        pack(np.array([1.0]), cfg(F.INT16, r32=False))


# ============================================================================================
# Configuration
# ============================================================================================


def test_from_config_reads_the_named_fields(tensix):
    c = tensix.config
    c.set("PCK_DEST_RD_CTRL_Read_32b_data", 1)
    c.set("PCK_DEST_RD_CTRL_Read_int8", 1)
    c.set("PCK_DEST_RD_CTRL_Round_10b_mant", 1)
    c.set("ALU_FORMAT_SPEC_REG2_Dstacc", F.BF16)
    for i, sec in enumerate(("THCON_SEC0_REG1", "THCON_SEC0_REG8",
                             "THCON_SEC1_REG1", "THCON_SEC1_REG8")):
        c.set(f"{sec}_In_data_format", i)
        c.set(f"{sec}_Out_data_format", 15 - i)
    for i in range(4):
        p = PackerConfig.from_config(c, packer=i)
        assert (p.late_from_format, p.late_to_format) == (i, 15 - i)
    p = PackerConfig.from_config(c)
    assert p == PackerConfig(read_32b_data=True, read_raw=True, read_unsigned=False,
                             round_10b_mant=True, intermediate_format=F.BF16,
                             late_from_format=0, late_to_format=15)
    c.set("ALU_FORMAT_SPEC_REG_Dstacc_val", F.INT8)   # the override wins when enabled
    assert PackerConfig.from_config(c).intermediate_format == F.BF16
    c.set("ALU_FORMAT_SPEC_REG_Dstacc_override", 1)
    c.set("PCK_DEST_RD_CTRL_Read_unsigned", 1)
    c.set("ALU_ROUNDING_MODE_Packer_srnd_en", 1)
    p = PackerConfig.from_config(c)
    assert p.intermediate_format == F.INT8 and p.read_unsigned and p.stochastic


def test_from_config_shift_amount(tensix):
    c = tensix.config
    c.set("INT_DESCALE_VALUES_SEC0_Value", 0x23)
    assert PackerConfig.from_config(c).shift_amount == 0       # INT_DESCALE disabled
    c.set("INT_DESCALE_Enable", 1)
    assert PackerConfig.from_config(c).shift_amount == 0x23    # mode 0: SEC0 (low 5 bits used)
    c.set("INT_DESCALE_Mode", 1)
    assert PackerConfig.from_config(c).shift_amount is None    # mode 1: depends on z


def test_from_config_uses_the_threads_state_bank(tensix):
    c = tensix.config
    c.set("THCON_SEC0_REG1_Out_data_format", F.BFP8, bank=1)
    c.set("CFG_STATE_ID_StateID", 1, thread=2)
    assert PackerConfig.from_config(c, thread=0).late_to_format == 0
    assert PackerConfig.from_config(c, thread=2).late_to_format == F.BFP8
    with pytest.raises(ValueError):
        PackerConfig.from_config(c, packer=4)


def test_format_registry():
    assert list(FORMATS) == ["fp32", "tf32", "bf16", "fp16", "fp8", "bfp8", "bfp4", "bfp2",
                             "bfp8a", "bfp4a", "bfp2a", "int32", "int16", "int8", "uint8"]
    assert format_by_name(" BFP4a ").code == F.BFP4A
    assert format_by_name("uint8").unsigned and format_by_name("uint8").code == F.INT8
    with pytest.raises(ValueError, match="valid: fp32, tf32, .*uint8"):
        format_by_name("fp64")


def test_for_output_and_describe():
    c = PackerConfig.for_output("fp16", "fp32")
    assert c.describe() == "FP32/INT32 -> TF32 (rounding); TF32 -> fp16"
    c = PackerConfig.for_output("bfp4", "bf16")
    assert c.describe() == "BF16 -> BF16 (identity); BF16 -> bfp4"
    c = PackerConfig.for_output("uint8", "int32", shift_amount=3)
    assert c.describe() == "FP32/INT32 -> UINT8 (shift, round, saturate); UINT8 -> uint8"
    assert c.output_format.name == "uint8"
    with pytest.raises(ValueError, match="Dst formats that pack to int16: int16"):
        PackerConfig.for_output("int16", "bf16")
    with pytest.raises(ValueError, match="valid"):
        PackerConfig.for_output("nope", "bf16")


@pytest.mark.parametrize("out", list(FORMATS))
@pytest.mark.parametrize("dst", DST_FORMATS)
@pytest.mark.parametrize("rounding", [False, True])
def test_for_output_configs_are_documented(out, dst, rounding):
    """Every path ``for_output`` offers is a configuration the reference accepts."""
    try:
        c = PackerConfig.for_output(out, dst, rounding=rounding)
    except ValueError:
        return
    mid, _ = ref_early(c)
    ref_late_check(c, mid)
    assert c.output_format.name == out


# ============================================================================================
# Cross-check against the scalar reference
# ============================================================================================


def outcome(fn):
    try:
        return fn()
    except (UndefinedBehavior, RefUB):
        return "UB"
    except (MissingSpecification, RefMissing):
        return "missing"


def all_configs():
    codes = range(16)
    for r32, raw, uns, r10, IF in itertools.product((0, 1), (0, 1), (0, 1), (0, 1), codes):
        for LF, LT in itertools.product(codes, codes):
            yield cfg(IF, LF, LT, r32=bool(r32), raw=bool(raw), uns=bool(uns), r10=bool(r10),
                      shift=5)


def test_every_config_is_accepted_or_refused_as_the_reference_says():
    """All 2**4 * 16**3 settings of the variables: same verdict (undefined or not), and the
    same output format, on no data."""
    valid = 0
    for c in all_configs():
        mine = outcome(lambda: pack(np.zeros(0, np.uint32), c).fmt.code)
        ref = outcome(lambda: (ref_late_check(c, ref_early(c)[0]), c.late_to_format)[1])
        assert mine == ref, c
        valid += mine != "UB"
    assert valid > 300


def valid_configs() -> list[PackerConfig]:
    """One config per distinct computation: source width, Read_raw, intermediate, late target."""
    seen, out = set(), []
    for c in all_configs():
        try:
            mid, _ = ref_early(c)
            ref_late_check(c, mid)
        except (RefUB, RefMissing):
            continue
        key = (c.read_32b_data, c.read_raw, mid, c.late_to_format)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


VALID = valid_configs()

# Exponents that reach every case: zero / denormal, the 2**-15 .. 2**-14 edge, normal FP16
# range, the FP16 top, beyond it, the top of FP32.
EXP8 = [0, 1, 100, 111, 112, 113, 120, 126, 127, 128, 135, 142, 143, 144, 200, 254, 255]


@st.composite
def fp32_words(draw, n: int) -> list[int]:
    base = draw(st.sampled_from(EXP8))
    out = []
    for _ in range(n):
        e = draw(st.one_of(st.just(base), st.sampled_from(EXP8),
                           st.integers(max(base - 3, 0), min(base + 3, 255))))
        m = draw(st.one_of(st.integers(0, 2 ** 23 - 1),
                           st.sampled_from([0, 1, 0x1000, 0x8000, 0x7FFFFF, 0x7FF000, 0x10000])))
        out.append(d32(draw(st.integers(0, 1)) << 31 | e << 23 | m))
    return out


@st.composite
def dst16_words(draw, n: int) -> list[int]:
    return draw(st.lists(st.one_of(
        st.integers(0, 0xFFFF),
        st.builds(lambda s, e, m: s << 15 | m << 8 | e, st.integers(0, 1),
                  st.sampled_from(EXP8), st.integers(0, 127)),       # BF16-shaped
        st.builds(lambda s, e, m: s << 15 | m << 5 | e, st.integers(0, 1),
                  st.integers(0, 31), st.integers(0, 1023)),         # FP16-shaped
    ), min_size=n, max_size=n))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_vectorized_matches_reference(data):
    """Hypothesis: a valid configuration, then 32 Dst words shaped to reach the edge cases."""
    c = data.draw(st.sampled_from(VALID), label="config")
    ws = data.draw(fp32_words(32) if c.read_32b_data else dst16_words(32), label="words")
    dt = np.uint32 if c.read_32b_data else np.uint16
    mine = outcome(lambda: (lambda p: (p.data, p.exponents))(pack(np.array(ws, dt), c)))
    assert mine == outcome(lambda: ref_pack(ws, c)), c_id(c)


def c_id(c: PackerConfig) -> str:
    def name(x: int) -> str:
        return Fmt(x).name if x in {f.value for f in Fmt} else str(x)
    return (f"{'32' if c.read_32b_data else '16'}-{name(c.intermediate_format)}"
            f"{'-raw' if c.read_raw else ''}{'-u' if c.read_unsigned else ''}"
            f"{'-r10' if c.round_10b_mant else ''}-{name(c.late_from_format)}"
            f"-{name(c.late_to_format)}")


def test_vectorized_matches_reference_on_random_rows():
    """Seeded bulk check: 64 rows of uniformly random Dst bits through every valid config."""
    rng = np.random.default_rng(2)
    for c in VALID:
        width = 32 if c.read_32b_data else 16
        for _ in range(4):
            ws = [int(x) for x in rng.integers(0, 1 << width, 16, dtype=np.int64)]
            dt = np.uint32 if width == 32 else np.uint16
            mine = outcome(lambda: (lambda p: (p.data, p.exponents))(pack(np.array(ws, dt), c)))
            assert mine == outcome(lambda: ref_pack(ws, c)), (c_id(c), ws)
