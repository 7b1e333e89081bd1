"""Matrix Unit (FPU) number handling for ``ELWADD`` / ``ELWSUB`` / ``ELWMUL`` / ``MVMUL``.

Implements the helpers those pages use (WormholeB0 ``TensixCoprocessor/ELWMUL.md``: the
fidelity-bit functions and ``ReadSrcInt8``; the rest by the type layouts of ``SrcASrcB.md``,
``Dst.md`` and the Matrix Unit column of ``FloatBitPatterns.md``).  What is modelled:

* Operands are read exactly: exponent 0 is a zero of that sign (denormals flush); an 8-bit
  exponent of 255 means a finite value of at least 2**128, which the pages' ``float`` cannot
  hold, so it raises ``MissingSpecification``.  FP16's exponent 31 is finite.  A Src BF16 datum
  ignores the three low TF32 mantissa bits its layout does not have.
* Arithmetic is the pages' C ``float`` code: float32, round-to-nearest-even, in the pages'
  order, with results below 2**-126 flushed to zero ("Denormals will be flushed to zero").  The
  pages add that hardware may fuse, reorder or change precision; that is not modelled.
* Outputs: the Matrix Unit never writes -0 or a denormal, so those become +0; a magnitude too
  large for FP32 / BF16 becomes exponent 255 with mantissa 0, for FP16 exponent 31 with
  mantissa 1023 (FloatBitPatterns.md).  A NaN (``inf - inf``), whose handling the pages leave
  open, raises ``MissingSpecification``.
* ``RoundToBF16`` / ``RoundToFP16`` (named by ELWADD.md, ELWMUL.md, MVMUL.md; defined by no page)
  round the float32 result's magnitude to nearest with ties away from zero: add half a unit of
  the last kept place, truncate.  Measured with ttsim v1.10.0 (FACTS.md section 9, probes
  ``elwadd_one.c`` / ``elwadd_bf16_fw.c``): SrcA 1.0 + SrcB BF16 0x3B81 stores BF16 0x3F81
  (DstBits 0x017F); ttsim's 16-bit paths round this way (tensix.cpp:1102-1204, 1250-1299).
  Where ttsim's datapath differs from the pages before that final rounding (it aligns the
  operands' mantissas to the largest exponent, rounding each, and drops 13 low bits of each term
  when the Dst is 16-bit), tdbg follows it only where that was measured: ``ELWADD`` / ``ELWSUB``
  of BF16-style operands into a 16-bit Dst without accumulation (``elw_add_bf16``: ttsim and the
  pages' float32 sum differed in 13 of 1024 datums of tdbg's eltwise firmware, e.g. SrcA BF16
  0x3E71 + SrcB BFP8 giving 0xC0D9 where float32-then-round gives 0xC0D8); everywhere else
  tdbg stays with the pages' float32 arithmetic ("a rough guide").
* Integers: ``ReadSrcInt8``, sign-magnitude Integer "32" in ``Dst`` and a saturating add that
  clamps at +-(2**31 - 1).
"""

from __future__ import annotations

import numpy as np

from tdbg.tensix import formats
from tdbg.tensix.events import MissingSpecification

F32 = np.float32
INT32_LIMIT = 2**31 - 1
_TINY = np.float32(2.0**-126)


def ftz(x: np.ndarray) -> np.ndarray:
    """Flush float32 denormals to a zero of the same sign."""
    return np.where(np.abs(x) < _TINY, np.copysign(F32(0), x), x).astype(F32)


def _value(sign: np.ndarray, exp: np.ndarray, man: np.ndarray, man_bits: int, bias: int) -> np.ndarray:
    mag = np.ldexp(1.0 + man / float(1 << man_bits), exp.astype(np.int64) - bias)
    mag = np.where(exp == 0, 0.0, mag)
    return np.where(sign != 0, -mag, mag).astype(F32)


def read_src_float(v: np.ndarray, style: str, page: str) -> np.ndarray:
    """``ReadBF16`` / ``ReadTF32`` / ``ReadFP16`` of 19-bit Src data."""
    v = np.asarray(v, dtype=np.uint32)
    sign, man = v >> 18 & 1, (v >> 8) & 0x3FF
    if style == "FP16":
        return _value(sign, v & 0x1F, man, 10, 15)
    exp = v & 0xFF
    if np.any(exp == 255):
        raise MissingSpecification(f"{page}: a {style} Src operand has exponent 255 (a finite value >= 2**128 "
                                   "per FloatBitPatterns.md, which the page's float cannot hold)")
    if style == "BF16":
        man = man & 0x3F8
    return _value(sign, exp, man, 10, 127)


def _from_ieee32(bits: np.ndarray, page: str, what: str) -> np.ndarray:
    exp = (bits >> 23) & 0xFF
    if np.any(exp == 255):
        raise MissingSpecification(f"{page}: {what} in Dst has exponent 255 (a finite value >= 2**128 per "
                                   "FloatBitPatterns.md, which the page's float cannot hold)")
    bits = np.where(exp == 0, bits & np.uint32(0x80000000), bits).astype(np.uint32)
    return bits.view(F32)


def read_dst_fp32(bits32: np.ndarray, page: str) -> np.ndarray:
    """``ReadDstFP32``: a Dst32b FP32 word as float32."""
    return _from_ieee32(formats.dst32_to_ieee(bits32), page, "an FP32 datum")


def read_dst_bf16(bits16: np.ndarray, page: str) -> np.ndarray:
    """``ReadDstBF16``: a Dst16b BF16 word as float32."""
    return _from_ieee32(formats.dst16_bf16_to_ieee(bits16).astype(np.uint32) << 16, page, "a BF16 datum")


def read_dst_fp16(bits16: np.ndarray) -> np.ndarray:
    """``ReadDstFP16``: a Dst16b FP16 word (sign 15, mantissa 14:5, exponent 4:0) as float32."""
    b = np.asarray(bits16, dtype=np.uint32)
    return _value(b >> 15, b & 0x1F, (b >> 5) & 0x3FF, 10, 15)


def _check_nan(x: np.ndarray, page: str) -> None:
    if np.any(np.isnan(x)):
        raise MissingSpecification(
            f"{page}: the result is NaN (inf - inf); the Matrix Unit's NaN handling is not specified")


def write_dst_fp32(x: np.ndarray, page: str) -> np.ndarray:
    """``WriteDstFP32``: float32 to Dst32b bits (zeros as +0; overflow is IEEE inf's pattern)."""
    x = ftz(np.asarray(x, dtype=F32))
    _check_nan(x, page)
    bits = np.where(x == 0, np.uint32(0), x.view(np.uint32)).astype(np.uint32)
    return formats.ieee_to_dst32(bits)


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """``RoundToBF16`` (module docstring): IEEE BF16 bits of float32 ``x`` rounded to nearest,
    ties away from zero; a carry out of the top exponent gives infinity; zeros are +0."""
    u = ftz(np.asarray(x, dtype=F32)).view(np.uint32).astype(np.int64)
    mag = ((u & 0x7FFFFFFF) + 0x8000) >> 16
    mag = np.minimum(mag, 0x7F80)
    return np.where(mag == 0, 0, ((u >> 31) << 15) | mag).astype(np.uint16)


def write_dst_bf16(x: np.ndarray, page: str) -> np.ndarray:
    """``WriteDstBF16(RoundToBF16(x))``: Dst16b bits."""
    x = ftz(np.asarray(x, dtype=F32))
    _check_nan(x, page)
    return formats.ieee_to_dst16_bf16(round_to_bf16(x))


def write_dst_fp16(x: np.ndarray, page: str) -> np.ndarray:
    """``WriteDstFP16(RoundToFP16(x))``: Dst16b FP16 bits (sign 15, mantissa 14:5, exponent 4:0).

    The magnitude rounds to 11 significant bits, ties away from zero (module docstring); a
    result below 2**-14 after rounding (an FP16 denormal) flushes to +0, one above the largest
    finite FP16 (exponent 31 is finite in Dst) saturates to exponent 31, mantissa 1023."""
    x = np.asarray(x, dtype=F32)
    _check_nan(x, page)
    a = np.abs(x.astype(np.float64))
    frac, e = np.frexp(np.where(a > 0, a, 1.0))  # a = frac * 2**e, frac in [0.5, 1)
    sig = np.floor(frac * 2048 + 0.5)           # 11 significant bits, ties away from zero
    e = e.astype(np.int64) - 1 + (sig == 2048)
    sig = np.where(sig == 2048, 1024, sig)
    exp5 = e + 15
    zero = (a == 0) | (exp5 <= 0)
    big = np.isinf(a) | (exp5 > 31)
    sign = (np.signbit(x) & ~zero).astype(np.uint32)
    exp_out = np.where(big, 31, np.where(zero, 0, exp5)).astype(np.uint32)
    man_out = np.where(big, 1023, np.where(zero, 0, sig - 1024)).astype(np.uint32)
    return ((sign << 15) | (man_out << 5) | exp_out).astype(np.uint16)


def srca_fidelity_bits(x: np.ndarray, phase: int) -> np.ndarray:
    """``SrcAFidelityBits`` (ELWMUL.md): the SrcA mantissa bits the phase consumes."""
    u = np.asarray(x, dtype=F32).view(np.uint32)
    if phase & 1 == 0:
        return (u & np.uint32(0xFFF80000)).view(F32)
    return (x - (u & np.uint32(0xFFF83FFF)).view(F32)).astype(F32)


def srcb_fidelity_bits(x: np.ndarray, phase: int) -> np.ndarray:
    """``SrcBFidelityBits`` (ELWMUL.md): the SrcB mantissa bits the phase consumes."""
    u = np.asarray(x, dtype=F32).view(np.uint32)
    if phase & 2 == 0:
        return (u & np.uint32(0xFFFE0000)).view(F32)
    return (x - (u & np.uint32(0xFFFE1FFF)).view(F32)).astype(F32)


def read_src_int8(v: np.ndarray) -> np.ndarray:
    """``ReadSrcInt8`` (ELWMUL.md): sign bit 18, magnitude bits 17:8."""
    v = np.asarray(v, dtype=np.uint32)
    mag = ((v >> 8) & 0x3FF).astype(np.int64)
    return np.where(v >> 18 & 1, -mag, mag)


def saturate_add_int32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``SaturateAddInt32``: ``a + b`` clamped to +-(2**31 - 1)."""
    return np.clip(np.asarray(a, dtype=np.int64) + b, -INT32_LIMIT, INT32_LIMIT)


def read_dst_int32(bits32: np.ndarray) -> np.ndarray:
    """``ReadDstInt32``: Dst32b Integer "32" (sign-magnitude) as int64."""
    return formats.dst32_int32_decode(bits32)


def write_dst_int32(v: np.ndarray) -> np.ndarray:
    """``WriteDstInt32``: an int in +-(2**31 - 1) to Dst32b Integer "32" bits."""
    return formats.dst32_int32_encode(v)


def elw_add_bf16(a: np.ndarray, b: np.ndarray, subtract: bool, page: str) -> np.ndarray:
    """``ELWADD`` / ``ELWSUB`` of BF16-style Src data into a 16-bit BF16 Dst, as the hardware's
    datapath adds (measured on ttsim v1.10.0, module docstring; IEEE BF16 bits out):

    each operand is a sign, an 8-bit exponent and an 11-bit significand (the implicit one and the
    7 BF16 mantissa bits, then zeros); exponent 0 is zero.  The operand of smaller magnitude is
    aligned to the larger one's exponent by a right shift that rounds half up (half of the
    shifted-out weight is added first; shifted by 12 or more it is 0); the significands are added
    (or subtracted, for unlike signs), and the sum is rounded to 8 significant bits, half up,
    with the larger operand's sign.  A result below the normal range is +0, above it infinity.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    read_src_float(a, "BF16", page)            # exponent 255 is not specified
    read_src_float(b, "BF16", page)
    sa, ea, ma = a >> 18 & 1, a & 0xFF, ((a >> 8) & 0x3F8) | 0x400
    sb, eb, mb = (b >> 18 & 1) ^ int(subtract), b & 0xFF, ((b >> 8) & 0x3F8) | 0x400
    ma, mb = np.where(ea == 0, 0, ma), np.where(eb == 0, 0, mb)
    swap = (eb > ea) | ((eb == ea) & (mb > ma))
    sa, sb = np.where(swap, sb, sa), np.where(swap, sa, sb)
    ea, eb = np.where(swap, eb, ea), np.where(swap, ea, eb)
    ma, mb = np.where(swap, mb, ma), np.where(swap, ma, mb)
    d = ea - eb
    half = np.where(d > 0, np.left_shift(1, np.maximum(d - 1, 0)), 0)
    mb = np.where(d >= 12, 0, (mb + half) >> np.minimum(d, 11))
    total = np.where(sa == sb, ma + mb, ma - mb)
    length = np.floor(np.log2(np.maximum(total, 1))).astype(np.int64) + 1   # significant bits
    shift = np.maximum(length - 8, 0)
    sig = np.where(shift > 0, (total + (np.left_shift(1, np.maximum(shift - 1, 0)))) >> shift, total << (8 - length))
    length = length + (sig >> 8)
    sig = np.where(sig >> 8, sig >> 1, sig)
    exp = ea - 11 + length
    out = (sa << 15) | (np.minimum(exp, 255) << 7) | np.where(exp >= 255, 0, sig & 0x7F)
    return np.where((total == 0) | (exp <= 0) | (ea == 0), 0, out).astype(np.uint16)
