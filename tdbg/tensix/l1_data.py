"""Data formats in L1, decoded for the debugger: datums to numbers, and the layout of a tile.

The formats are the unpackers' (newer ``Unpackers/FormatConversion.md``), by the names of
``tdbg.arch.data_formats.L1_FORMATS``; each datum decodes to the number it stands for:

* ``fp32`` / ``tf32``: IEEE FP32 (TF32 is FP32 with 13 low mantissa bits zero); ``bf16``: the
  high half of FP32; ``fp16``: FloatBitPatterns.md's FP16 (exponent 31 is finite: no inf or NaN);
  ``fp8``: e5m2, the high byte of that FP16 (UNPACR_Regular.md ``DatumBits <<= 8``).
* ``bfp8`` / ``bfp4`` / ``bfp2``: ``BFP8ToBF16`` of UNPACR_Regular.md with the shared exponent
  (sign with magnitude 0 is -inf there); ``bfp8a`` / ``bfp4a`` / ``bfp2a``: sign * magnitude *
  2**(exponent - 15 - 6), the value FloatBitPatterns.md gives a BFP datum (``BFP8aToFP16``
  would be undefined for some exponents, a display should still show them).
* ``int8`` / ``int16`` / ``int32``: sign-magnitude; ``uint8``: unsigned.

A 32x32 tile (tt-llk's layout, which the unpackers' face addressing follows) is four 16x16 faces
one after the other, each row-major: face ``f`` holds tile rows ``16 * (f // 2) ..`` and columns
``16 * (f % 2) ..``.  A BFP tile starts with its exponent section (one exponent per 16 datums,
rounded up to a multiple of 16 bytes, UNPACR_Regular.md), then the datums.
"""

from __future__ import annotations

import numpy as np

from tdbg.arch.data_formats import L1_FORMATS
from tdbg.tensix import unpackers as u

FORMATS = {name: f.format for name, f in L1_FORMATS.items()}
TILE_DATUMS = 1024


def format_code(name: str) -> int:
    try:
        return FORMATS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown L1 format {name!r}; valid: {', '.join(FORMATS)}") from None


def is_bfp(name: str) -> bool:
    return format_code(name) in u.BFP_FORMATS


def datum_bits(name: str) -> int:
    return u.DATUM_BITS[format_code(name)]


def exponent_section(name: str, count: int) -> int:
    """Bytes before the datums of ``count`` datums in format ``name`` (BFP: their exponents)."""
    if not is_bfp(name):
        return 0
    exponents = -(-count // 16)
    return -(-exponents // 16) * 16


def size(name: str, count: int) -> int:
    """Bytes ``count`` datums of ``name`` take, exponents included."""
    return exponent_section(name, count) + -(-count * u.DATUM_BITS[format_code(name)] // 8)


def raw_datums(data: bytes, name: str, count: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The datums' bits (after any exponent section) and, for BFP, each datum's exponent."""
    code = format_code(name)
    width = u.DATUM_BITS[code]
    buf = np.frombuffer(data, dtype=np.uint8)
    start = exponent_section(name, count)
    bits = u.read_datums(buf, start * 8 + np.arange(count, dtype=np.int64) * width, width)
    exps = buf[np.arange(count) // 16].astype(np.int64) if code in u.BFP_FORMATS else None
    return bits, exps


def _fp16_value(bits: np.ndarray) -> np.ndarray:
    sign = np.where(bits & 0x8000, -1.0, 1.0)
    e, m = (bits >> 10) & 0x1F, bits & 0x3FF
    return sign * np.where(e == 0, m * 2.0**-24, np.ldexp(1 + m / 1024.0, e - 15))


def _f32_values(bits: np.ndarray) -> np.ndarray:
    """FP32 bit patterns as float64 numbers.  Widening a signalling NaN quiets it (numpy then
    warns ``invalid value``); a NaN is shown as ``nan`` either way, so the warning is silenced."""
    with np.errstate(invalid="ignore"):
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def values(data: bytes, name: str, count: int) -> np.ndarray:
    """The numbers ``count`` datums of ``name`` stand for (float64, or int64 for integers)."""
    code = format_code(name)
    bits, exps = raw_datums(data, name, count)
    if code in (u.FP32, u.TF32):
        return _f32_values(bits)
    if code == u.BF16:
        return _f32_values(bits.astype(np.uint32) << 16)
    if code == u.FP16:
        return _fp16_value(bits)
    if code == u.FP8:
        return _fp16_value(bits << 8)
    if code in (u.BFP8, u.BFP4, u.BFP2):
        assert exps is not None
        bf16 = u.bfp8_to_bf16(bits << (8 - u.DATUM_BITS[code]), exps)
        return _f32_values(bf16.astype(np.uint32) << 16)
    if code in (u.BFP8A, u.BFP4A, u.BFP2A):
        assert exps is not None
        width = u.DATUM_BITS[code]
        mag = (bits << (8 - width)) & 0x7F
        sign = np.where((bits >> (width - 1)) & 1, -1.0, 1.0)
        return sign * mag * np.exp2(exps - 15 - 6.0)
    if name.strip().lower() == "uint8":
        return bits
    width = u.DATUM_BITS[code]
    mag = bits & ((1 << (width - 1)) - 1)
    return np.where(bits >> (width - 1), -mag, mag)


def tile_rows(flat: np.ndarray) -> np.ndarray:
    """1024 datums in face order as the 32x32 tile they make."""
    faces = np.asarray(flat).reshape(2, 2, 16, 16)      # face row, face column, row, column
    return faces.transpose(0, 2, 1, 3).reshape(32, 32)
