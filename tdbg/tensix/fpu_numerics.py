"""Matrix Unit (FPU) number handling on the pages' terms, for what ``fpu_datapath`` (the
measured bit-exact datapath of ELWADD / ELWSUB / ELWMUL / MVMUL) does not cover: ``ELWADD`` /
``ELWSUB`` in a fidelity phase other than 0 (the page's ``float`` code with its divisions) and
the integer paths.

Implements the helpers the WormholeB0 pages use (``TensixCoprocessor/ELWMUL.md``:
``ReadSrcInt8`` and the rest by the type layouts of ``SrcASrcB.md``, ``Dst.md`` and the Matrix
Unit column of ``FloatBitPatterns.md``):

* Operands are read exactly: exponent 0 is a zero of that sign (denormals flush); an 8-bit
  exponent of 255 means a finite value of at least 2**128, which the pages' ``float`` cannot
  hold, so it raises ``MissingSpecification``.  FP16's exponent 31 is finite.  A Src BF16 datum
  ignores the three low TF32 mantissa bits its layout does not have.
* Arithmetic is the pages' C ``float`` code: float32, round-to-nearest-even, with results below
  2**-126 flushed to zero.
* Outputs: the Matrix Unit never writes -0 or a denormal, so those become +0; a magnitude too
  large for FP32 / BF16 becomes exponent 255 with mantissa 0, for FP16 exponent 31 with
  mantissa 1023 (FloatBitPatterns.md).  A NaN (``inf - inf``), whose handling the pages leave
  open, raises ``MissingSpecification``.
* ``RoundToBF16`` / ``RoundToFP16`` (named by the pages, defined by none) round the magnitude to
  nearest with ties away from zero, as the measured datapath's final rounding does
  (``fpu_datapath``; FACTS.md section 9: SrcA 1.0 + SrcB BF16 0x3B81 stores BF16 0x3F81).
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
