"""Tensix number formats: values <-> the bit layouts held in ``Dst``, ``SrcA`` and ``SrcB``.

Bit positions are the ``non_instruction_layouts`` of ``encodings.json`` (``Dst16_*``,
``Dst32_*``, ``Src_*``), the diagrams of BlackholeA0 ``TensixCoprocessor/Dst.md`` and WormholeB0
``TensixCoprocessor/SrcASrcB.md`` ("Data type bit layout"); value meanings follow WormholeB0
``TensixCoprocessor/FloatBitPatterns.md``.  Every function is vectorized: array-likes in, numpy
arrays out (0-d for scalars).  Src data are 19-bit values held in ``uint32``.

Choices where the pages leave room:

* Float encoders first make the values float32 (numpy rounds wider inputs to nearest), then
  narrow the way the packers' late conversion does (WormholeB0 ``Packers/FormatConversion.md``):
  surplus mantissa bits are truncated (round toward zero).  8-bit-exponent types (FP32, TF32,
  BF16) keep the truncated bits of Inf, NaN and denormals, so a NaN whose payload lies only in
  the dropped bits becomes an Inf.  5-bit-exponent types (FP16, FP8) saturate magnitudes of
  2**17 and up, infinities and NaNs to exponent 31 with an all-ones mantissa (sign kept), and
  turn magnitudes below 2**-14 (FP32 denormals included) into a zero of the same sign.
* Decoders of 8-bit-exponent types return the IEEE 754 value of the pattern: float32 cannot
  hold the Matrix Unit's finite reading of exponent 255.  ``View.is_nan`` / ``is_inf`` /
  ``is_denormal`` flag the patterns the Matrix Unit reads differently.
* Decoders of 5-bit-exponent types follow the Matrix Unit: exponent 0 is a zero of that sign,
  exponent 31 is finite (largest FP16 magnitude 131008); there is no NaN and no Inf.
* FP8 is e5m2 (one byte: sign, 5 exponent bits, 2 mantissa bits) held as FP16 whose low eight
  mantissa bits are zero, per ``Packers/FormatConversion.md`` and ``UNPACR_Regular.md`` (the
  "3 bit mantissa" of Dst.md / SrcASrcB.md would need nine bits).
* Integer decoders return int64 and read sign-magnitude -0 as 0; integer encoders reject values
  outside the type's range.  Decoders ignore the bits a layout fixes (Src "0" fields, the
  Integer "8" "16 or 0" field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

U32 = NDArray[np.uint32]
F32 = NDArray[np.float32]
I64 = NDArray[np.int64]

_FP8_MAN_BITS = 2
_FP8_SHIFT = 10 - _FP8_MAN_BITS  # FP8 mantissa position inside the FP16 mantissa


# -- input checking ----------------------------------------------------------------------------

def _bits(bits: ArrayLike, width: int) -> U32:
    """Bit patterns as uint32; refuses non-integers and values wider than ``width`` bits."""
    a = np.asarray(bits)
    if a.dtype.kind not in "iu":
        raise TypeError(f"bit patterns must be integers, not {a.dtype}")
    if a.dtype.kind == "i" or a.dtype.itemsize * 8 > width:
        wide = a.astype(np.int64)
        if np.any((wide < 0) | (wide >> width != 0)):
            raise ValueError(f"bit pattern does not fit in {width} bits")
    return a.astype(np.uint32)


def _ints(values: ArrayLike, lo: int, hi: int) -> I64:
    """Integral values as int64, refusing non-integers and anything outside ``lo..hi``."""
    a = np.asarray(values)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a) & (a == np.round(a))):
            raise ValueError("value is not an integer")
    elif a.dtype.kind not in "iu":
        raise TypeError(f"integer values expected, not {a.dtype}")
    v = a.astype(np.int64)
    if np.any((v < lo) | (v > hi)):
        raise ValueError(f"value out of range {lo}..{hi}")
    return v


# -- bit layouts -------------------------------------------------------------------------------

class _Layout:
    """Named bit fields, ``name=(lsb, width)``, of a ``width``-bit word."""

    def __init__(self, width: int, **fields: tuple[int, int]) -> None:
        self.fields = fields
        self.dtype = np.uint16 if width <= 16 else np.uint32

    def unpack(self, bits: U32, *names: str) -> tuple[U32, ...]:
        return tuple((bits >> self.fields[n][0]) & ((1 << self.fields[n][1]) - 1) for n in names)

    def pack(self, **values: ArrayLike) -> NDArray:
        out = np.uint32(0)
        for name, v in values.items():
            lsb, width = self.fields[name]
            out = out | ((np.asarray(v).astype(np.uint32) & ((1 << width) - 1)) << lsb)
        return np.asarray(out).astype(self.dtype)

    def repack(self, bits: U32, to: _Layout) -> NDArray:
        """Move every field of ``bits`` to where ``to`` keeps it."""
        return to.pack(**dict(zip(self.fields, self.unpack(bits, *self.fields))))


# Conventional (CPU / IEEE 754) layouts, which the RISC-V Dst window converts to and from.
_IEEE_FP32 = _Layout(32, sign=(31, 1), exp=(23, 8), man_hi=(16, 7), man_lo=(0, 16))
_IEEE_BF16 = _Layout(16, sign=(15, 1), exp=(7, 8), man=(0, 7))
_IEEE_FP16 = _Layout(16, sign=(15, 1), exp=(10, 5), man=(0, 10))
# encodings.json non_instruction_layouts.  Dst32_INT32 has the same fields as Dst32_FP32 (its
# 8-bit "high" magnitude field is where FP32 keeps the exponent); Dst16_INT16 is a plain 16-bit
# sign-magnitude word (``twos_to_sign_mag``).
_DST32 = _Layout(32, sign=(31, 1), man_hi=(24, 7), exp=(16, 8), man_lo=(0, 16))
_DST16_BF16 = _Layout(16, sign=(15, 1), man=(8, 7), exp=(0, 8))
_DST16_FP16 = _Layout(16, sign=(15, 1), man=(5, 10), exp=(0, 5))
_DST16_INT8 = _Layout(16, sign=(15, 1), mag=(5, 10), tag=(0, 5))
_SRC_TF32 = _Layout(19, sign=(18, 1), man=(8, 10), exp=(0, 8))
_SRC_BF16 = _Layout(19, sign=(18, 1), man=(11, 7), exp=(0, 8))
_SRC_FP16 = _Layout(19, sign=(18, 1), man=(8, 10), exp=(0, 5))
_SRC_INT8 = _Layout(19, sign=(18, 1), mag=(8, 10), tag=(0, 5))
_SRC_INT16 = _Layout(19, sign=(18, 1), mag_hi=(11, 7), mag_lo=(0, 8))


# -- float narrowing / widening ----------------------------------------------------------------

def _f32_bits(values: ArrayLike) -> U32:
    """IEEE bits of the values made float32 (too large for float32: +-Inf, silently)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float32).view(np.uint32)


def _f32_fields(values: ArrayLike) -> tuple[U32, U32, U32]:
    """Sign, biased exponent and 23-bit mantissa of the values made float32."""
    u = _f32_bits(values)
    return u >> 31, (u >> 23) & 0xFF, u & 0x7FFFFF


def _f32(sign: ArrayLike, exp: ArrayLike, man23: ArrayLike) -> F32:
    u = (np.asarray(sign).astype(np.uint32) << 31) | (np.asarray(exp).astype(np.uint32) << 23)
    return np.asarray(u | np.asarray(man23).astype(np.uint32)).view(np.float32)


def _narrow8(values: ArrayLike, man_bits: int) -> tuple[U32, U32, U32]:
    """FP32 -> 8-bit exponent, ``man_bits`` mantissa: truncate the mantissa."""
    sign, exp, man = _f32_fields(values)
    return sign, exp, man >> (23 - man_bits)


def _widen8(sign: U32, exp: U32, man: U32, man_bits: int) -> F32:
    return _f32(sign, exp, man << (23 - man_bits))


def _narrow5(values: ArrayLike, man_bits: int) -> tuple[U32, I64, I64]:
    """FP32 -> 5-bit exponent, ``man_bits`` mantissa: saturate, truncate, flush below 2**-14."""
    sign, exp8, man = _f32_fields(values)
    exp = exp8.astype(np.int64) - (127 - 15)
    sat = exp > 31          # includes Inf and NaN (exponent 255)
    zero = exp < 1
    top = (1 << man_bits) - 1
    man5 = np.where(sat, top, np.where(zero, 0, man >> (23 - man_bits)))
    return sign, np.where(sat, 31, np.where(zero, 0, exp)), man5


def _widen5(sign: U32, exp: U32, man: U32, man_bits: int) -> F32:
    """Matrix Unit reading: exponent 0 is a signed zero, exponent 31 finite."""
    zero = exp == 0
    exp8 = np.where(zero, 0, exp.astype(np.int64) + (127 - 15))
    return _f32(sign, exp8, np.where(zero, 0, man.astype(np.int64) << (23 - man_bits)))


# -- sign-magnitude ----------------------------------------------------------------------------

def sign_mag_to_twos(bits: ArrayLike, width: int) -> I64:
    """Sign-magnitude ``width``-bit patterns (2..32) as int64; -0 reads as 0 (Dst.md ``Load16``)."""
    b = _bits(bits, width).astype(np.int64)
    top = 1 << (width - 1)
    mag = b & (top - 1)
    return np.where(b & top, -mag, mag)


def twos_to_sign_mag(value: ArrayLike, width: int) -> NDArray:
    """Signed integers to ``width``-bit (2..32) sign-magnitude patterns (Dst.md ``Store16``).

    Accepts ``-2**(width-1) .. 2**(width-1)-1``; like the window's stores, ``-2**(width-1)``
    becomes ``-(2**(width-1)-1)``.  Returns uint16 for ``width <= 16``, else uint32.
    """
    top = 1 << (width - 1)
    v = np.maximum(_ints(value, -top, top - 1), 1 - top)
    out = np.where(v < 0, top | -v, v)
    return out.astype(np.uint16 if width <= 16 else np.uint32)


# -- raw bit shuffles --------------------------------------------------------------------------

def ieee_to_dst32(bits: ArrayLike) -> U32:
    """IEEE FP32 (or conventional int32) bits -> Dst32 layout (Dst.md ``Store32``, Dst32_FP32)."""
    return _IEEE_FP32.repack(_bits(bits, 32), _DST32)


def dst32_to_ieee(bits: ArrayLike) -> U32:
    """Dst32 layout -> IEEE FP32 (or conventional int32) bits (Dst.md ``Load32``)."""
    return _DST32.repack(_bits(bits, 32), _IEEE_FP32)


def ieee_to_dst16_bf16(bits: ArrayLike) -> NDArray[np.uint16]:
    """IEEE BF16 (top half of FP32) bits -> Dst16 BF16 layout (Dst.md ``Store16``, fmt 3)."""
    return _IEEE_BF16.repack(_bits(bits, 16), _DST16_BF16)


def dst16_bf16_to_ieee(bits: ArrayLike) -> NDArray[np.uint16]:
    """Dst16 BF16 layout -> IEEE BF16 bits (Dst.md ``Load16``, fmt 3)."""
    return _DST16_BF16.repack(_bits(bits, 16), _IEEE_BF16)


def ieee_to_dst16_fp16(bits: ArrayLike) -> NDArray[np.uint16]:
    """IEEE FP16 bits -> Dst16 FP16 layout (Dst.md ``Store16``, fmt 2)."""
    return _IEEE_FP16.repack(_bits(bits, 16), _DST16_FP16)


def dst16_fp16_to_ieee(bits: ArrayLike) -> NDArray[np.uint16]:
    """Dst16 FP16 layout -> IEEE FP16 bits (Dst.md ``Load16``, fmt 2)."""
    return _DST16_FP16.repack(_bits(bits, 16), _IEEE_FP16)


def shuffle_bf16(x: ArrayLike) -> U32:
    """``ShuffleBF16`` of MOVD2B.md: a Dst16 BF16 (or Integer "16") word to the Src BF16 layout:
    sign 15 and mantissa 14:8 move up 3 bits (to 18 and 17:11), the exponent 7:0 stays."""
    x = _bits(x, 16)
    return ((x & 0xFF00) << 3) | (x & 0xFF)


def shuffle_fp16(x: ArrayLike) -> U32:
    """``ShuffleFP16`` of MOVD2B.md: a Dst16 FP16 (or Integer "8") word to the Src FP16 layout:
    sign 15 and mantissa 14:5 move up 3 bits (to 18 and 17:8), the exponent 4:0 stays."""
    x = _bits(x, 16)
    return ((x & 0xFFE0) << 3) | (x & 0x1F)


def shuffle_tf32(x: ArrayLike) -> U32:
    """``ShuffleTF32`` of MOVD2B.md (seed 001) on 19-bit ``x``: Sign,HiMan(7),Exp(8),LoMan(3)
    (Dst32 bits 31:13) -> Src TF32 Sign,Man(10),Exp(8).

    The seed's listing masks the sign and high mantissa with ``0x3fc000``, which on a 19-bit
    input keeps only bits 18:14 and drops TF32 mantissa bits 6:4; its own comment, the Src_TF32
    layout (encodings.json) and the later upstream MOVD2B page all keep bits 18:11
    (``0x7f800``).  tdbg follows the layout; the listing's mask is taken as a typo.
    """
    x = _bits(x, 19)
    return (x & 0x7F800) | ((x & 0x7) << 8) | ((x & 0x7F8) >> 3)


# -- Dst16 -------------------------------------------------------------------------------------

def dst16_bf16_encode(values: ArrayLike) -> NDArray[np.uint16]:
    """Values -> Dst16 BF16 (Dst.md): float32, mantissa truncated to 7 bits (round toward zero)."""
    sign, exp, man = _narrow8(values, 7)
    return _DST16_BF16.pack(sign=sign, exp=exp, man=man)


def dst16_bf16_decode(bits: ArrayLike) -> F32:
    """Dst16 BF16 -> float32, IEEE reading (Dst.md, FloatBitPatterns.md "BF16")."""
    return _widen8(*_DST16_BF16.unpack(_bits(bits, 16), "sign", "exp", "man"), 7)


def dst16_fp16_encode(values: ArrayLike) -> NDArray[np.uint16]:
    """Values -> Dst16 FP16 (Dst.md): truncate to 10 mantissa bits, saturate at +-131008,
    magnitudes below 2**-14 to signed zero; NaN and Inf saturate."""
    sign, exp, man = _narrow5(values, 10)
    return _DST16_FP16.pack(sign=sign, exp=exp, man=man)


def dst16_fp16_decode(bits: ArrayLike) -> F32:
    """Dst16 FP16 -> float32, Matrix Unit reading (FloatBitPatterns.md "FP16")."""
    return _widen5(*_DST16_FP16.unpack(_bits(bits, 16), "sign", "exp", "man"), 10)


def dst16_fp8_encode(values: ArrayLike) -> NDArray[np.uint16]:
    """Values -> FP8 (e5m2) held as Dst16 FP16: like FP16 with 2 mantissa bits, max +-114688."""
    sign, exp, man = _narrow5(values, _FP8_MAN_BITS)
    return _DST16_FP16.pack(sign=sign, exp=exp, man=man << _FP8_SHIFT)


def dst16_fp8_decode(bits: ArrayLike) -> F32:
    """Dst16 FP16 word read as FP8 (e5m2): the low 8 mantissa bits are ignored."""
    sign, exp, man = _DST16_FP16.unpack(_bits(bits, 16), "sign", "exp", "man")
    return _widen5(sign, exp, man >> _FP8_SHIFT, _FP8_MAN_BITS)


def dst16_int8_encode(values: ArrayLike) -> NDArray[np.uint16]:
    """-1023..1023 -> Dst16 Integer "8" (Dst.md): sign, magnitude, low 5 bits 16 (0 for zero)."""
    v = _ints(values, -1023, 1023)
    mag = np.abs(v)
    return _DST16_INT8.pack(sign=v < 0, mag=mag, tag=np.where(mag != 0, 16, 0))


def dst16_int8_decode(bits: ArrayLike) -> I64:
    """Dst16 Integer "8" -> int64 (the low 5 bits are ignored)."""
    sign, mag = _DST16_INT8.unpack(_bits(bits, 16), "sign", "mag")
    return np.where(sign != 0, -mag.astype(np.int64), mag.astype(np.int64))


def dst16_int16_encode(values: ArrayLike) -> NDArray[np.uint16]:
    """-32767..32767 -> Dst16 Integer "16" (Dst.md): sign, 15-bit magnitude."""
    return twos_to_sign_mag(_ints(values, -32767, 32767), 16)


def dst16_int16_decode(bits: ArrayLike) -> I64:
    """Dst16 Integer "16" -> int64."""
    return sign_mag_to_twos(bits, 16)


# -- Dst32 -------------------------------------------------------------------------------------

def dst32_fp32_encode(values: ArrayLike) -> U32:
    """Values (made float32) -> Dst32 FP32 (Dst.md): the IEEE bits, shuffled."""
    return ieee_to_dst32(_f32_bits(values))


def dst32_fp32_decode(bits: ArrayLike) -> F32:
    """Dst32 FP32 -> float32, IEEE reading (FloatBitPatterns.md "FP32")."""
    return dst32_to_ieee(bits).view(np.float32)


def dst32_tf32_encode(values: ArrayLike) -> U32:
    """Values -> TF32 held as Dst32 FP32: the low 13 mantissa bits dropped (SrcASrcB.md)."""
    sign, exp, man = _narrow8(values, 10)
    return ieee_to_dst32(_widen8(sign, exp, man, 10).view(np.uint32))


def dst32_tf32_decode(bits: ArrayLike) -> F32:
    """Dst32 FP32 word read as TF32: the low 13 mantissa bits are ignored."""
    return (dst32_to_ieee(bits) & ~np.uint32(0x1FFF)).view(np.float32)


def dst32_int32_encode(values: ArrayLike) -> U32:
    """-(2**31-1)..2**31-1 -> Dst32 Integer "32" (Dst.md): sign-magnitude, FP32's shuffle."""
    return ieee_to_dst32(twos_to_sign_mag(_ints(values, 1 - 2**31, 2**31 - 1), 32))


def dst32_int32_decode(bits: ArrayLike) -> I64:
    """Dst32 Integer "32" -> int64."""
    return sign_mag_to_twos(dst32_to_ieee(bits), 32)


# -- Src (19-bit) ------------------------------------------------------------------------------

def src_tf32_encode(values: ArrayLike) -> U32:
    """Values -> Src TF32 (SrcASrcB.md): float32 with the low 13 mantissa bits dropped."""
    sign, exp, man = _narrow8(values, 10)
    return _SRC_TF32.pack(sign=sign, exp=exp, man=man)


def src_tf32_decode(bits: ArrayLike) -> F32:
    """Src TF32 -> float32, IEEE reading (FloatBitPatterns.md "TF32")."""
    return _widen8(*_SRC_TF32.unpack(_bits(bits, 19), "sign", "exp", "man"), 10)


def src_bf16_encode(values: ArrayLike) -> U32:
    """Values -> Src BF16 (SrcASrcB.md): truncated to 7 mantissa bits, bits 10:8 zero."""
    sign, exp, man = _narrow8(values, 7)
    return _SRC_BF16.pack(sign=sign, exp=exp, man=man)


def src_bf16_decode(bits: ArrayLike) -> F32:
    """Src BF16 -> float32, IEEE reading; bits 10:8 are ignored."""
    return _widen8(*_SRC_BF16.unpack(_bits(bits, 19), "sign", "exp", "man"), 7)


def src_fp16_encode(values: ArrayLike) -> U32:
    """Values -> Src FP16 (SrcASrcB.md), converted as ``dst16_fp16_encode``; bits 7:5 zero."""
    sign, exp, man = _narrow5(values, 10)
    return _SRC_FP16.pack(sign=sign, exp=exp, man=man)


def src_fp16_decode(bits: ArrayLike) -> F32:
    """Src FP16 -> float32, Matrix Unit reading; bits 7:5 are ignored."""
    return _widen5(*_SRC_FP16.unpack(_bits(bits, 19), "sign", "exp", "man"), 10)


def src_fp8_encode(values: ArrayLike) -> U32:
    """Values -> FP8 (e5m2) held as Src FP16, converted as ``dst16_fp8_encode``."""
    sign, exp, man = _narrow5(values, _FP8_MAN_BITS)
    return _SRC_FP16.pack(sign=sign, exp=exp, man=man << _FP8_SHIFT)


def src_fp8_decode(bits: ArrayLike) -> F32:
    """Src FP16 value read as FP8 (e5m2): the low 8 mantissa bits and bits 7:5 are ignored."""
    sign, exp, man = _SRC_FP16.unpack(_bits(bits, 19), "sign", "exp", "man")
    return _widen5(sign, exp, man >> _FP8_SHIFT, _FP8_MAN_BITS)


def src_int8_encode(values: ArrayLike) -> U32:
    """-1023..1023 -> Src Integer "8" (SrcASrcB.md): low 5 bits 16 (0 for zero), bits 7:5 zero."""
    v = _ints(values, -1023, 1023)
    mag = np.abs(v)
    return _SRC_INT8.pack(sign=v < 0, mag=mag, tag=np.where(mag != 0, 16, 0))


def src_int8_decode(bits: ArrayLike) -> I64:
    """Src Integer "8" -> int64 (bits 7:0 are ignored)."""
    sign, mag = _SRC_INT8.unpack(_bits(bits, 19), "sign", "mag")
    return np.where(sign != 0, -mag.astype(np.int64), mag.astype(np.int64))


def src_int16_encode(values: ArrayLike) -> U32:
    """-32767..32767 -> Src Integer "16" (SrcASrcB.md): magnitude split 17:11 / 7:0."""
    sm = twos_to_sign_mag(_ints(values, -32767, 32767), 16).astype(np.uint32)
    return _SRC_INT16.pack(sign=sm >> 15, mag_hi=sm >> 8, mag_lo=sm)


def src_int16_decode(bits: ArrayLike) -> I64:
    """Src Integer "16" -> int64 (bits 10:8 are ignored)."""
    sign, hi, lo = _SRC_INT16.unpack(_bits(bits, 19), "sign", "mag_hi", "mag_lo")
    return sign_mag_to_twos((sign << 15) | (hi << 8) | lo, 16)


# -- named views -------------------------------------------------------------------------------

STORAGE_WIDTH = {"dst16": 16, "dst32": 32, "src": 19}


@dataclass(frozen=True)
class View:
    """A named reading of the data in one storage: ``dst16``, ``dst32`` or ``src`` (19-bit)."""

    name: str
    storage: str
    description: str
    decode: Callable[[ArrayLike], np.ndarray]
    encode: Callable[[ArrayLike], np.ndarray]
    exp_man: Callable[[U32], tuple[U32, U32]] | None = None  # fields decode reads (float views)
    exp_bits: int = 0

    @property
    def width(self) -> int:
        return STORAGE_WIDTH[self.storage]

    def _flags(self, bits: ArrayLike, exp_top: bool, man_nonzero: bool) -> NDArray[np.bool_]:
        b = _bits(bits, self.width)
        if self.exp_man is None or (exp_top and self.exp_bits != 8):
            return np.zeros(b.shape, dtype=bool)
        exp, man = self.exp_man(b)
        want = (1 << self.exp_bits) - 1 if exp_top else 0
        return (exp == want) & ((man != 0) == man_nonzero)

    def is_nan(self, bits: ArrayLike) -> NDArray[np.bool_]:
        """IEEE NaN patterns (exponent 255, mantissa non-zero), finite on the Matrix Unit.
        Always False for FP16 / FP8 (no NaN, FloatBitPatterns.md) and integer views."""
        return self._flags(bits, True, True)

    def is_inf(self, bits: ArrayLike) -> NDArray[np.bool_]:
        """IEEE Inf patterns (exponent 255, mantissa 0), finite on the Matrix Unit.
        Always False for FP16 / FP8 and integer views."""
        return self._flags(bits, True, False)

    def is_denormal(self, bits: ArrayLike) -> NDArray[np.bool_]:
        """Exponent 0 with a non-zero mantissa: the Matrix Unit reads these as signed zero."""
        return self._flags(bits, False, True)


def _raw(width: int) -> tuple[Callable[[ArrayLike], np.ndarray], Callable[[ArrayLike], np.ndarray]]:
    dtype = np.uint16 if width <= 16 else np.uint32

    def raw(bits: ArrayLike) -> np.ndarray:
        return _bits(bits, width).astype(dtype)

    return raw, raw


def _fields(layout: _Layout, man_shift: int = 0) -> Callable[[U32], tuple[U32, U32]]:
    def exp_man(bits: U32) -> tuple[U32, U32]:
        exp, man = layout.unpack(bits, "exp", "man")
        return exp, man >> man_shift

    return exp_man


def _dst32_fields(man_shift: int) -> Callable[[U32], tuple[U32, U32]]:
    def exp_man(bits: U32) -> tuple[U32, U32]:
        ieee = dst32_to_ieee(bits)
        return (ieee >> 23) & 0xFF, (ieee & 0x7FFFFF) >> man_shift

    return exp_man


VIEWS: dict[str, View] = {
    f"{v.storage}.{v.name}": v
    for v in (
        View("bf16", "dst16", "BF16 (s1 e8 m7), IEEE reading", dst16_bf16_decode,
             dst16_bf16_encode, _fields(_DST16_BF16), 8),
        View("fp16", "dst16", "FP16 (s1 e5 m10), Matrix Unit reading", dst16_fp16_decode,
             dst16_fp16_encode, _fields(_DST16_FP16), 5),
        View("fp8", "dst16", "FP8 (s1 e5 m2) held as FP16", dst16_fp8_decode,
             dst16_fp8_encode, _fields(_DST16_FP16, _FP8_SHIFT), 5),
        View("int8", "dst16", 'Integer "8": sign, 10-bit magnitude', dst16_int8_decode,
             dst16_int8_encode),
        View("int16", "dst16", 'Integer "16": sign, 15-bit magnitude', dst16_int16_decode,
             dst16_int16_encode),
        View("raw", "dst16", "the 16 stored bits", *_raw(16)),
        View("fp32", "dst32", "FP32 (s1 e8 m23), IEEE reading", dst32_fp32_decode,
             dst32_fp32_encode, _dst32_fields(0), 8),
        View("tf32", "dst32", "TF32 (s1 e8 m10) held as FP32", dst32_tf32_decode,
             dst32_tf32_encode, _dst32_fields(13), 8),
        View("int32", "dst32", 'Integer "32": sign, 31-bit magnitude', dst32_int32_decode,
             dst32_int32_encode),
        View("raw", "dst32", "the 32 stored bits", *_raw(32)),
        View("tf32", "src", "TF32 (s1 e8 m10), IEEE reading", src_tf32_decode,
             src_tf32_encode, _fields(_SRC_TF32), 8),
        View("bf16", "src", "BF16 (s1 e8 m7), IEEE reading", src_bf16_decode,
             src_bf16_encode, _fields(_SRC_BF16), 8),
        View("fp16", "src", "FP16 (s1 e5 m10), Matrix Unit reading", src_fp16_decode,
             src_fp16_encode, _fields(_SRC_FP16), 5),
        View("fp8", "src", "FP8 (s1 e5 m2) held as FP16", src_fp8_decode,
             src_fp8_encode, _fields(_SRC_FP16, _FP8_SHIFT), 5),
        View("int8", "src", 'Integer "8": sign, 10-bit magnitude', src_int8_decode,
             src_int8_encode),
        View("int16", "src", 'Integer "16": sign, 15-bit magnitude', src_int16_decode,
             src_int16_encode),
        View("raw", "src", "the 19 stored bits", *_raw(19)),
    )
}


def get_view(storage: str, name: str) -> View:
    """The view ``name`` of ``storage`` (``dst16``, ``dst32``, ``src``); KeyError lists choices."""
    try:
        return VIEWS[f"{storage}.{name}"]
    except KeyError:
        names = ", ".join(v.name for v in VIEWS.values() if v.storage == storage)
        raise KeyError(f"no view {name!r} for {storage}; choose from: {names}") from None
