"""tdbg.tensix.formats against hand-worked bit patterns and an independent scalar reference.

The reference below is written from the bit-layout tables (encodings.json
``non_instruction_layouts``) and the FloatBitPatterns.md value tables with plain Python ints,
``struct`` for IEEE FP32 / FP16 and ``math`` for values; it shares no code with the module.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdbg.tensix import formats as F

INF = math.inf
FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]

# ============================================================================================
# Scalar reference
# ============================================================================================

# field -> (lsb, width), transcribed from encodings.json non_instruction_layouts
# ("Mantissa (high)" spelled Mantissa_high).
LAYOUTS: dict[str, dict[str, tuple[int, int]]] = {
    "Dst16_BF16": {"Sign": (15, 1), "Mantissa": (8, 7), "Exponent": (0, 8)},
    "Dst16_FP16": {"Sign": (15, 1), "Mantissa": (5, 10), "Exponent": (0, 5)},
    "Dst16_INT8": {"Sign": (15, 1), "Magnitude": (5, 10), "16 or 0": (0, 5)},
    "Dst16_INT16": {"Sign": (15, 1), "Magnitude": (0, 15)},
    "Dst32_FP32": {"Sign": (31, 1), "Mantissa_high": (24, 7), "Exponent": (16, 8),
                   "Mantissa_low": (0, 16)},
    "Dst32_INT32": {"Sign": (31, 1), "Magnitude_middle": (24, 7), "Magnitude_high": (16, 8),
                    "Magnitude_low": (0, 16)},
    "Src_TF32": {"Sign": (18, 1), "Mantissa": (8, 10), "Exponent": (0, 8)},
    "Src_BF16": {"Sign": (18, 1), "Mantissa": (11, 7), "Exponent": (0, 8)},
    "Src_FP16": {"Sign": (18, 1), "Mantissa": (8, 10), "Exponent": (0, 5)},
    "Src_INT8": {"Sign": (18, 1), "Magnitude": (8, 10), "16 or 0": (0, 5)},
    "Src_INT16": {"Sign": (18, 1), "Magnitude_high": (11, 7), "Magnitude_low": (0, 8)},
}


def put(layout: str, **fields: int) -> int:
    word = 0
    for name, value in fields.items():
        lsb, width = LAYOUTS[layout][name]
        assert 0 <= value < (1 << width)
        word |= value << lsb
    return word


def get(layout: str, word: int, name: str) -> int:
    lsb, width = LAYOUTS[layout][name]
    return (word >> lsb) & ((1 << width) - 1)


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(u: int) -> float:
    return float(np.array([u], np.uint32).view(np.float32)[0])  # keeps NaN payloads


def fp32_parts(u: int) -> tuple[int, int, int]:
    return u >> 31, (u >> 23) & 0xFF, u & 0x7FFFFF


def ref_e8(u: int, man_bits: int) -> tuple[int, int, int]:
    """FP32 bits -> 8-bit exponent: truncated mantissa."""
    s, e, m = fp32_parts(u)
    return s, e, m >> (23 - man_bits)


def ref_e5(u: int, man_bits: int) -> tuple[int, int, int]:
    """FP32 bits -> 5-bit exponent by arithmetic on the value: truncate, saturate, flush."""
    x = struct.unpack("<f", struct.pack("<I", u))[0]
    s = u >> 31
    a = abs(x)
    if math.isnan(a) or a >= 2.0 ** 17:
        return s, 31, (1 << man_bits) - 1
    if a < 2.0 ** -14:
        return s, 0, 0
    e = math.frexp(a)[1] - 1              # a = 1.f * 2**e
    man = math.floor((a / 2.0 ** e - 1) * (1 << man_bits))
    return s, e + 15, man


def ref_e5_value(s: int, e: int, man: int, man_bits: int) -> float:
    """FloatBitPatterns.md FP16, Matrix Unit column."""
    v = 0.0 if e == 0 else math.ldexp(1 + man / (1 << man_bits), e - 15)
    return -v if s else v


def ref_e8_value(s: int, e: int, man: int, man_bits: int) -> float:
    """IEEE reading of an 8-bit exponent float, via the FP32 bits."""
    return bits_f32((s << 31) | (e << 23) | (man << (23 - man_bits)))


def ref_sm(v: int) -> tuple[int, int]:
    return (1 if v < 0 else 0), abs(v)


def ref_float(layout: str, parts: tuple[int, int, int]) -> int:
    s, e, m = parts
    return put(layout, Sign=s, Exponent=e, Mantissa=m)


def ref_dst32_fp32(u: int) -> int:
    s, e, m = fp32_parts(u)
    return put("Dst32_FP32", Sign=s, Exponent=e, Mantissa_high=m >> 16, Mantissa_low=m & 0xFFFF)


REF_ENCODE = {  # FP32 bits -> layout word
    "dst16_bf16": lambda u: ref_float("Dst16_BF16", ref_e8(u, 7)),
    "dst16_fp16": lambda u: ref_float("Dst16_FP16", ref_e5(u, 10)),
    "dst32_fp32": ref_dst32_fp32,
    "src_tf32": lambda u: ref_float("Src_TF32", ref_e8(u, 10)),
    "src_bf16": lambda u: ref_float("Src_BF16", ref_e8(u, 7)),
    "src_fp16": lambda u: ref_float("Src_FP16", ref_e5(u, 10)),
}


def ref_decode(fmt: str, w: int) -> float | int:
    if fmt == "dst16_bf16":
        return ref_e8_value(get("Dst16_BF16", w, "Sign"), get("Dst16_BF16", w, "Exponent"),
                            get("Dst16_BF16", w, "Mantissa"), 7)
    if fmt == "dst16_fp16":
        return ref_e5_value(get("Dst16_FP16", w, "Sign"), get("Dst16_FP16", w, "Exponent"),
                            get("Dst16_FP16", w, "Mantissa"), 10)
    if fmt == "dst32_fp32":
        m = (get("Dst32_FP32", w, "Mantissa_high") << 16) | get("Dst32_FP32", w, "Mantissa_low")
        return ref_e8_value(get("Dst32_FP32", w, "Sign"), get("Dst32_FP32", w, "Exponent"), m, 23)
    if fmt == "src_tf32":
        return ref_e8_value(get("Src_TF32", w, "Sign"), get("Src_TF32", w, "Exponent"),
                            get("Src_TF32", w, "Mantissa"), 10)
    if fmt == "src_bf16":
        return ref_e8_value(get("Src_BF16", w, "Sign"), get("Src_BF16", w, "Exponent"),
                            get("Src_BF16", w, "Mantissa"), 7)
    if fmt == "src_fp16":
        return ref_e5_value(get("Src_FP16", w, "Sign"), get("Src_FP16", w, "Exponent"),
                            get("Src_FP16", w, "Mantissa"), 10)
    if fmt == "dst16_int8":
        mag = get("Dst16_INT8", w, "Magnitude")
        return -mag if get("Dst16_INT8", w, "Sign") else mag
    if fmt == "dst16_int16":
        mag = get("Dst16_INT16", w, "Magnitude")
        return -mag if get("Dst16_INT16", w, "Sign") else mag
    if fmt == "src_int8":
        mag = get("Src_INT8", w, "Magnitude")
        return -mag if get("Src_INT8", w, "Sign") else mag
    if fmt == "src_int16":
        mag = (get("Src_INT16", w, "Magnitude_high") << 8) | get("Src_INT16", w, "Magnitude_low")
        return -mag if get("Src_INT16", w, "Sign") else mag
    assert fmt == "dst32_int32"
    mag = ((get("Dst32_INT32", w, "Magnitude_high") << 23)
           | (get("Dst32_INT32", w, "Magnitude_middle") << 16)
           | get("Dst32_INT32", w, "Magnitude_low"))
    return -mag if get("Dst32_INT32", w, "Sign") else mag


def ref_int_encode(fmt: str, v: int) -> int:
    s, mag = ref_sm(v)
    if fmt == "dst16_int8":
        return put("Dst16_INT8", Sign=s, Magnitude=mag, **{"16 or 0": 16 if mag else 0})
    if fmt == "dst16_int16":
        return put("Dst16_INT16", Sign=s, Magnitude=mag)
    if fmt == "src_int8":
        return put("Src_INT8", Sign=s, Magnitude=mag, **{"16 or 0": 16 if mag else 0})
    if fmt == "src_int16":
        return put("Src_INT16", Sign=s, Magnitude_high=mag >> 8, Magnitude_low=mag & 0xFF)
    assert fmt == "dst32_int32"
    return put("Dst32_INT32", Sign=s, Magnitude_high=mag >> 23, Magnitude_middle=(mag >> 16) & 0x7F,
               Magnitude_low=mag & 0xFFFF)


def same_float(a: float, b: float) -> bool:
    """Equal, with matching sign of zero; any NaN equals any NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def fn(name: str):
    return getattr(F, name)


# ============================================================================================
# Hand-worked values
# ============================================================================================

FLOAT_CASES = {
    # IEEE FP32 bits -> Dst32: sign 31, mantissa 22:16 -> 30:24, exponent -> 23:16, low 16 stay.
    "dst32_fp32": [
        (1.0, 0x007F0000),            # 0x3F800000: e=0x7F
        (-2.5, 0xA0800000),           # 0xC0200000: s=1 e=0x80 m=0x200000 -> mhi 0x20 at 30:24
        (FLT_MAX, 0x7FFEFFFF),        # 0x7F7FFFFF: mhi 0x7F, e=0xFE, mlo 0xFFFF
        (2.0 ** -126, 0x00010000),    # smallest normal 0x00800000: e=1
        (2.0 ** -149, 0x00000001),    # smallest denormal 0x00000001
        (2.0 ** -127, 0x40000000),    # denormal 0x00400000: mhi 0x40
        (INF, 0x00FF0000),            # 0x7F800000
        (-INF, 0x80FF0000),           # 0xFF800000
        (0.0, 0x00000000),
        (-0.0, 0x80000000),
    ],
    # BF16 = top half of FP32; Dst16: sign 15, mantissa 14:8, exponent 7:0.
    "dst16_bf16": [
        (1.0, 0x007F),                # 0x3F80: e=0x7F
        (-2.5, 0xA080),               # 0xC020: 0x8000 | 0x20<<8 | 0x80
        ((2 - 2 ** -7) * 2.0 ** 127, 0x7FFE),  # largest normal 0x7F7F: m=0x7F e=0xFE
        (2.0 ** -126, 0x0001),        # smallest normal 0x0080
        (2.0 ** -133, 0x0100),        # denormal 0x0001: m=1 at 14:8
        (INF, 0x00FF),
        (-INF, 0x80FF),
        (0.0, 0x0000),
        (-0.0, 0x8000),
    ],
    # FP16: Dst16 sign 15, mantissa 14:5, exponent 4:0; Matrix Unit reading.
    "dst16_fp16": [
        (1.0, 0x000F),                # IEEE 0x3C00: e=15
        (-2.5, 0xA010),               # IEEE 0xC100: 0x8000 | 0x100<<5 | 16
        (65504.0, 0x7FFE),            # IEEE max 0x7BFF: 0x3FF<<5 | 30
        (131008.0, 0x7FFF),           # e=31 m=0x3FF: largest on the Matrix Unit (IEEE NaN)
        (65536.0, 0x001F),            # e=31 m=0: finite 2**16 (IEEE +Inf pattern)
        (-65536.0, 0x801F),
        (2.0 ** -14, 0x0001),         # smallest normal
        (0.0, 0x0000),
        (-0.0, 0x8000),
    ],
    # FP8 e5m2 held as FP16: mantissa bits 14:13 only.
    "dst16_fp8": [
        (1.0, 0x000F),
        (1.25, 0x200F),               # m2=01 -> FP16 m=0x100 -> 0x100<<5
        (-1.75, 0xE00F),              # m2=11 -> 0x300<<5 | sign
        (114688.0, 0x601F),           # e=31 m2=3: 1.75 * 2**16
        (2.0 ** -14, 0x0001),
        (-0.0, 0x8000),
    ],
    # TF32 held in Dst32 FP32: low 13 mantissa bits (Dst32 bits 12:0) zero.
    "dst32_tf32": [
        (1.0, 0x007F0000),
        (-2.5, 0xA0800000),
        (1 + 2.0 ** -10, 0x007F2000),  # 0x3F802000: mlo 0x2000
        ((2 - 2 ** -10) * 2.0 ** 127, 0x7FFEE000),
        (INF, 0x00FF0000),
        (-0.0, 0x80000000),
    ],
    # Src TF32: sign 18, mantissa 17:8, exponent 7:0.
    "src_tf32": [
        (1.0, 0x0007F),
        (-2.5, 0x50080),              # 0x40000 | 0x100<<8 | 0x80
        ((2 - 2 ** -10) * 2.0 ** 127, 0x3FFFE),
        (2.0 ** -126, 0x00001),
        (2.0 ** -136, 0x00100),       # denormal m=1: 2**-10 * 2**-126
        (INF, 0x000FF),
        (-INF, 0x400FF),
        (0.0, 0x00000),
        (-0.0, 0x40000),
    ],
    # Src BF16: sign 18, mantissa 17:11, zero 10:8, exponent 7:0.
    "src_bf16": [
        (1.0, 0x0007F),
        (-2.5, 0x50080),              # m=0x20<<11 = 0x10000
        ((2 - 2 ** -7) * 2.0 ** 127, 0x3F8FE),
        (2.0 ** -126, 0x00001),
        (2.0 ** -133, 0x00800),       # denormal m=1 at bit 11
        (INF, 0x000FF),
        (-INF, 0x400FF),
        (0.0, 0x00000),
        (-0.0, 0x40000),
    ],
    # Src FP16: sign 18, mantissa 17:8, zero 7:5, exponent 4:0.
    "src_fp16": [
        (1.0, 0x0000F),
        (-2.5, 0x50010),
        (65504.0, 0x3FF1E),
        (131008.0, 0x3FF1F),
        (65536.0, 0x0001F),
        (2.0 ** -14, 0x00001),
        (0.0, 0x00000),
        (-0.0, 0x40000),
    ],
    "src_fp8": [
        (1.0, 0x0000F),
        (-1.75, 0x7000F),             # 0x40000 | 0x300<<8 | 15
        (114688.0, 0x3001F),
    ],
}

FLOAT_ENCODE_ONLY = {
    "dst32_fp32": [(math.nan, 0x40FF0000)],              # 0x7FC00000: mhi 0x40
    "dst16_bf16": [
        (FLT_MAX, 0x7FFE),                               # 0x7F7FFFFF truncates to 0x7F7F
        (1 + 2.0 ** -8, 0x007F),                         # truncated, not rounded up
        (bits_f32(0xBFFFFFFF), 0xFF7F),                  # -1.99999988 -> 0xBFFF
        (math.nan, 0x40FF),                              # 0x7FC00000 -> 0x7FC0
    ],
    "dst16_fp16": [
        (INF, 0x7FFF), (-INF, 0xFFFF), (math.nan, 0x7FFF),  # saturate
        (1e6, 0x7FFF), (131071.0, 0x7FFF),               # saturate / truncate to 131008
        (1 + 2.0 ** -11, 0x000F), (-(1 + 2.0 ** -11), 0x800F),
        (2.0 ** -15, 0x0000), (-(2.0 ** -24), 0x8000),   # below the smallest normal
        (2.0 ** -140, 0x0000),                           # FP32 denormal
    ],
    "dst16_fp8": [(1.125, 0x000F), (INF, 0x601F), (-1e9, 0xE01F), (2.0 ** -15, 0x0000)],
    "dst32_tf32": [(1 + 2.0 ** -11, 0x007F0000), (FLT_MAX, 0x7FFEE000)],
    "src_tf32": [(FLT_MAX, 0x3FFFE), (1 + 2.0 ** -11, 0x0007F), (1 + 2.0 ** -10, 0x0017F)],
    "src_bf16": [(1 + 2.0 ** -8, 0x0007F)],
    "src_fp16": [(INF, 0x3FF1F), (-INF, 0x7FF1F), (2.0 ** -15, 0x00000)],
    "src_fp8": [(1.125, 0x0000F), (-INF, 0x7001F)],
}

FLOAT_DECODE_ONLY = {
    "dst16_fp16": [(0x0020, 0.0), (0x8020, -0.0), (0xFFFF, -131008.0), (0x7FE0, 0.0)],
    "dst16_fp8": [(0x002F, 1.0), (0x1FEF, 1.0)],         # FP16 mantissa bits below FP8's ignored
    "dst16_bf16": [(0x01FF, math.nan), (0x8100, -(2.0 ** -133))],
    "dst32_tf32": [(0x007F1FFF, 1.0)],
    "src_bf16": [(0x0047F, 1.0)],                        # bits 10:8 ignored
    "src_fp16": [(0x00100, 0.0), (0x000EF, 1.0)],        # exp 0 -> 0; bits 7:5 ignored
    "src_tf32": [(0x001FF, math.nan)],
}

INT_CASES = {
    "dst16_int8": [  # sign 15, magnitude 14:5, low five bits 16 (0 when the magnitude is 0)
        (1, 0x0030), (-1, 0x8030), (-2, 0x8050), (127, 0x0FF0),
        (1023, 0x7FF0), (-1023, 0xFFF0), (0, 0x0000),
    ],
    "dst16_int16": [(1, 0x0001), (-1, 0x8001), (32767, 0x7FFF), (-32767, 0xFFFF),
                    (-0x1234, 0x9234), (0, 0x0000)],
    "src_int8": [(1, 0x00110), (-1, 0x40110), (1023, 0x3FF10), (-1023, 0x7FF10), (0, 0)],
    "src_int16": [  # sign 18, magnitude bits 14:8 at 17:11, bits 7:0 at 7:0
        (1, 0x00001), (-1, 0x40001), (0x1234, 0x09034), (32767, 0x3F8FF),
        (-32767, 0x7F8FF), (0, 0),
    ],
    "dst32_int32": [  # magnitude 30:23 -> 23:16, 22:16 -> 30:24
        (1, 0x00000001), (-1, 0x80000001),
        (1 << 16, 0x01000000), (1 << 23, 0x00010000), (1 << 30, 0x00800000),
        (2 ** 31 - 1, 0x7FFFFFFF), (-(2 ** 31 - 1), 0xFFFFFFFF),
        (-100000, 0x810086A0),        # 0x186A0: bit 16 -> bit 24, 0x86A0 stays
        (0, 0),
    ],
}

INT_DECODE_ONLY = {
    "dst16_int8": [(0x8000, 0), (0x0020, 1), (0x0010, 0)],
    "dst16_int16": [(0x8000, 0)],
    "src_int8": [(0x001FF, 1), (0x40000, 0)],
    "src_int16": [(0x00700, 0)],
    "dst32_int32": [(0x80000000, 0)],
}

INT_RANGE = {"dst16_int8": 1023, "src_int8": 1023, "dst16_int16": 32767, "src_int16": 32767,
             "dst32_int32": 2 ** 31 - 1}


def _params(table):
    return [pytest.param(fmt, a, b, id=f"{fmt}-{a!r}")
            for fmt, rows in table.items() for a, b in rows]


@pytest.mark.parametrize("fmt,value,bits", _params(FLOAT_CASES))
def test_float_hand_values(fmt, value, bits):
    assert int(fn(f"{fmt}_encode")(value)) == bits
    assert same_float(float(fn(f"{fmt}_decode")(bits)), value)


@pytest.mark.parametrize("fmt,value,bits", _params(FLOAT_ENCODE_ONLY))
def test_float_hand_encodings(fmt, value, bits):
    assert int(fn(f"{fmt}_encode")(value)) == bits


@pytest.mark.parametrize("fmt,bits,value", _params(FLOAT_DECODE_ONLY))
def test_float_hand_decodings(fmt, bits, value):
    assert same_float(float(fn(f"{fmt}_decode")(bits)), value)


def test_nan_payload_in_dropped_bits_becomes_inf():
    quiet_low = np.array([0x7F800001, 0xFF801000], np.uint32).view(np.float32)
    assert F.dst16_bf16_encode(quiet_low).tolist() == [0x00FF, 0x80FF]
    assert F.src_tf32_encode(quiet_low).tolist() == [0x000FF, 0x400FF]


@pytest.mark.filterwarnings("error")
def test_beyond_float32_is_infinite_without_warnings():
    assert F.dst32_fp32_encode([1e39, -1e300]).tolist() == [0x00FF0000, 0x80FF0000]
    assert F.dst16_bf16_encode(1e39) == 0x00FF
    assert F.dst16_fp16_encode(-1e39) == 0xFFFF


@pytest.mark.parametrize("fmt,value,bits", _params(INT_CASES))
def test_int_hand_values(fmt, value, bits):
    assert int(fn(f"{fmt}_encode")(value)) == bits
    assert int(fn(f"{fmt}_decode")(bits)) == value


@pytest.mark.parametrize("fmt,bits,value", _params(INT_DECODE_ONLY))
def test_int_hand_decodings(fmt, bits, value):
    assert int(fn(f"{fmt}_decode")(bits)) == value


@pytest.mark.parametrize("fmt", sorted(INT_RANGE))
def test_int_range_checked(fmt):
    top = INT_RANGE[fmt]
    enc = fn(f"{fmt}_encode")
    assert fn(f"{fmt}_decode")(enc([top, -top])).tolist() == [top, -top]
    for bad in (top + 1, -top - 1):
        with pytest.raises(ValueError):
            enc(bad)
    with pytest.raises(ValueError):
        enc(1.5)
    assert int(enc(3.0)) == int(enc(3))


def test_bit_patterns_checked():
    with pytest.raises(ValueError):
        F.dst16_bf16_decode(0x10000)
    with pytest.raises(ValueError):
        F.src_tf32_decode(1 << 19)
    with pytest.raises(ValueError):
        F.dst32_fp32_decode(-1)
    with pytest.raises(TypeError):
        F.dst16_fp16_decode(1.0)


def test_shapes_and_dtypes():
    a = np.array([[1.0, -2.5], [0.0, 3.0]])
    assert F.dst16_bf16_encode(a).dtype == np.uint16 and F.dst16_bf16_encode(a).shape == (2, 2)
    assert F.dst32_fp32_encode(a).dtype == np.uint32
    assert F.src_tf32_encode(a).dtype == np.uint32
    assert F.dst16_fp16_decode(np.uint16(0x000F)).dtype == np.float32
    assert F.dst32_int32_decode(0x80000001).dtype == np.int64


# ============================================================================================
# Raw shuffles
# ============================================================================================

def test_raw_shuffles_hand_values():
    assert int(F.ieee_to_dst32(0x3F800000)) == 0x007F0000
    assert int(F.dst32_to_ieee(0xA0800000)) == 0xC0200000
    assert int(F.ieee_to_dst16_bf16(0xC020)) == 0xA080
    assert int(F.dst16_bf16_to_ieee(0x7FFE)) == 0x7F7F
    assert int(F.ieee_to_dst16_fp16(0x3C00)) == 0x000F
    assert int(F.dst16_fp16_to_ieee(0xA010)) == 0xC100


def test_raw_shuffles_exhaustive_16():
    every = np.arange(1 << 16, dtype=np.uint32)
    for to, back in ((F.ieee_to_dst16_bf16, F.dst16_bf16_to_ieee),
                     (F.ieee_to_dst16_fp16, F.dst16_fp16_to_ieee)):
        d = to(every)
        assert d.dtype == np.uint16
        assert np.array_equal(back(d), every)
        assert len(np.unique(d)) == 1 << 16


def test_raw_shuffles_match_reference():
    rng = np.random.default_rng(1)
    for u in rng.integers(0, 1 << 32, 2000, dtype=np.uint64).tolist():
        s, e, m = u >> 31, (u >> 23) & 0xFF, u & 0x7FFFFF
        want = put("Dst32_FP32", Sign=s, Exponent=e, Mantissa_high=m >> 16, Mantissa_low=m & 0xFFFF)
        assert int(F.ieee_to_dst32(u)) == want
        assert int(F.dst32_to_ieee(want)) == u
    for h in range(0, 1 << 16, 7):
        want = put("Dst16_FP16", Sign=h >> 15, Exponent=(h >> 10) & 0x1F, Mantissa=h & 0x3FF)
        assert int(F.ieee_to_dst16_fp16(h)) == want
        want = put("Dst16_BF16", Sign=h >> 15, Exponent=(h >> 7) & 0xFF, Mantissa=h & 0x7F)
        assert int(F.ieee_to_dst16_bf16(h)) == want


def test_fp16_encode_agrees_with_ieee_half_for_normals():
    """For IEEE-normal FP16 values, Dst16 FP16 is IEEE FP16 (struct 'e') rearranged."""
    rng = np.random.default_rng(2)
    vals = rng.choice([-1, 1], 3000) * np.exp2(rng.uniform(-14, 15.99, 3000))
    vals = vals.astype(np.float16).astype(np.float64)  # exactly representable
    ieee = [struct.unpack("<H", struct.pack("<e", v))[0] for v in vals.tolist()]
    assert np.array_equal(F.dst16_fp16_to_ieee(F.dst16_fp16_encode(vals)), ieee)


# ============================================================================================
# Seed 001 shuffles
# ============================================================================================

def test_shuffle_hand_values():
    assert int(F.shuffle_bf16(0xA080)) == 0x50080     # Dst16 BF16 -2.5 -> Src BF16 -2.5
    assert int(F.shuffle_fp16(0xA010)) == 0x50010     # Dst16 FP16 -2.5 -> Src FP16 -2.5
    assert int(F.shuffle_fp16(0x8030)) == 0x40110     # Integer "8" -1 passes through
    assert int(F.shuffle_tf32(0xA0800000 >> 13)) == 0x50080   # Dst32 -2.5 -> Src TF32 -2.5
    assert int(F.shuffle_tf32(0x007F2000 >> 13)) == 0x0017F   # 1 + 2**-10
    # 1 + 2**-7: Dst32 0x017F0000 >> 13 = 0xBF8: HiMan 0x01 at bits 17:11 stays put, exponent
    # 0x7F moves to 7:0 -> Src_TF32 mantissa 0x008 (bits 17:8), i.e. 0x0087F.  (The seed's
    # listing mask 0x3fc000 would drop bit 11 and give 0x0007F; see shuffle_tf32.)
    assert int(F.shuffle_tf32(0x017F0000 >> 13)) == 0x0087F
    assert int(F.shuffle_tf32(0x7FFFF)) == 0x7FFFF


def test_shuffles_agree_with_layouts_exhaustive():
    every = np.arange(1 << 16, dtype=np.uint32)
    sb, sf = F.shuffle_bf16(every), F.shuffle_fp16(every)
    assert sb.dtype == np.uint32 and sb.max() < 1 << 19 and sf.max() < 1 << 19
    # Dst16 BF16 / FP16 fields land where the Src layouts keep them.
    for w in range(0, 1 << 16, 13):
        assert int(sb[w]) == ref_float("Src_BF16", (w >> 15, w & 0xFF, (w >> 8) & 0x7F))
        assert int(sf[w]) == ref_float("Src_FP16", (w >> 15, w & 0x1F, (w >> 5) & 0x3FF))
    # Consequently the Src encoders are the Dst16 encoders followed by the shuffles.
    vals = np.random.default_rng(3).standard_normal(2000) * 1000
    ints = np.arange(-1023, 1024)
    assert np.array_equal(F.shuffle_bf16(F.dst16_bf16_encode(vals)), F.src_bf16_encode(vals))
    assert np.array_equal(F.shuffle_fp16(F.dst16_fp16_encode(vals)), F.src_fp16_encode(vals))
    assert np.array_equal(F.shuffle_fp16(F.dst16_int8_encode(ints)), F.src_int8_encode(ints))
    ints16 = np.arange(-32767, 32768)
    assert np.array_equal(F.shuffle_bf16(F.dst16_int16_encode(ints16)), F.src_int16_encode(ints16))


def test_shuffle_tf32_matches_layout_where_seed_mask_keeps_all_bits():
    rng = np.random.default_rng(4)
    vals = rng.integers(0, 1 << 32, 5000, dtype=np.uint64).astype(np.uint32) & ~np.uint32(0x70000)
    vals = vals.view(np.float32)  # IEEE mantissa bits 18:16 zero: the seed mask loses nothing
    dst = F.dst32_fp32_encode(vals)
    assert np.array_equal(F.shuffle_tf32(dst >> 13), F.src_tf32_encode(vals))


# ============================================================================================
# Vectorized vs scalar reference on random inputs
# ============================================================================================

def _random_floats(n: int, seed: int) -> np.ndarray:
    """All-over-the-place float32 values: random bit patterns, plus magnitudes near FP16 range."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = (rng.choice([-1, 1], n) * np.exp2(rng.uniform(-16, 18, n))).astype(np.float32)
    return np.concatenate([raw, near])


@pytest.mark.parametrize("fmt", sorted(REF_ENCODE))
def test_float_encode_matches_reference(fmt):
    vals = _random_floats(1500, sorted(REF_ENCODE).index(fmt))
    got = fn(f"{fmt}_encode")(vals).tolist()
    want = [REF_ENCODE[fmt](u) for u in vals.view(np.uint32).tolist()]
    assert got == want


FLOAT_WIDTH = {"dst16_bf16": 16, "dst16_fp16": 16, "dst32_fp32": 32, "src_tf32": 19,
               "src_bf16": 19, "src_fp16": 19}
INT_WIDTH = {"dst16_int8": 16, "dst16_int16": 16, "src_int8": 19, "src_int16": 19,
             "dst32_int32": 32}


@pytest.mark.parametrize("fmt", sorted(FLOAT_WIDTH) + sorted(INT_WIDTH))
def test_decode_matches_reference(fmt):
    width = {**FLOAT_WIDTH, **INT_WIDTH}[fmt]
    bits = np.random.default_rng(5).integers(0, 1 << width, 3000, dtype=np.uint64)
    got = fn(f"{fmt}_decode")(bits).tolist()
    want = [ref_decode(fmt, b) for b in bits.tolist()]
    if fmt in INT_WIDTH:
        assert got == want
    else:
        assert all(same_float(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("fmt", sorted(INT_WIDTH))
def test_int_encode_matches_reference(fmt):
    top = INT_RANGE[fmt]
    vals = np.random.default_rng(6).integers(-top, top + 1, 3000)
    assert fn(f"{fmt}_encode")(vals).tolist() == [ref_int_encode(fmt, v) for v in vals.tolist()]


# ============================================================================================
# Property tests
# ============================================================================================

def _canonical(fmt: str, b: np.ndarray) -> np.ndarray:
    """Patterns that a decode -> encode round trip must reproduce."""
    if fmt == "dst16_fp16":
        return ((b & 0x1F) != 0) | ((b & 0x7FE0) == 0)
    if fmt == "src_fp16":
        return ((b & 0xE0) == 0) & (((b & 0x1F) != 0) | ((b & 0x3FF00) == 0))
    if fmt == "dst16_fp8":
        return ((b & 0x1FE0) == 0) & (((b & 0x1F) != 0) | ((b & 0x7FE0) == 0))
    if fmt == "src_bf16":
        return (b & 0x700) == 0
    if fmt in ("dst16_int8", "src_int8"):
        sh = 5 if fmt == "dst16_int8" else 8
        sign = 1 << (15 if fmt == "dst16_int8" else 18)
        mag = (b >> sh) & 0x3FF
        tag_ok = (b & 0x1F) == np.where(mag != 0, 16, 0)
        gap_ok = (b & 0xE0) == 0 if fmt == "src_int8" else True
        return tag_ok & gap_ok & ~((mag == 0) & ((b & sign) != 0))
    if fmt == "dst16_int16":
        return b != 0x8000
    if fmt == "src_int16":
        return ((b & 0x700) == 0) & (b != 0x40000)
    return np.ones(b.shape, bool)  # dst16_bf16, src_tf32: every pattern


@pytest.mark.parametrize("fmt,width", [
    ("dst16_bf16", 16), ("dst16_fp16", 16), ("dst16_fp8", 16), ("dst16_int8", 16),
    ("dst16_int16", 16), ("src_tf32", 19), ("src_bf16", 19), ("src_fp16", 19),
    ("src_int8", 19), ("src_int16", 19),
])
def test_exhaustive_round_trip(fmt, width):
    """encode(decode(b)) == b for every canonical pattern; canonicalization is idempotent."""
    every = np.arange(1 << width, dtype=np.uint32)
    enc, dec = fn(f"{fmt}_encode"), fn(f"{fmt}_decode")
    again = enc(dec(every)).astype(np.uint32)
    keep = _canonical(fmt, every)
    assert np.array_equal(again[keep], every[keep])
    assert np.array_equal(enc(dec(again)), again)
    expected = {"dst16_bf16": 1 << 16, "src_tf32": 1 << 19, "src_bf16": 1 << 16,
                "dst16_int16": (1 << 16) - 1, "src_int16": (1 << 16) - 1,
                "dst16_int8": 2047, "src_int8": 2047,
                "dst16_fp16": (1 << 16) - 2 * 1023, "src_fp16": (1 << 16) - 2 * 1023,
                "dst16_fp8": 2 * (31 * 4 + 1)}
    assert int(keep.sum()) == expected[fmt]


@settings(max_examples=300)
@given(st.integers(0, 2 ** 32 - 1))
def test_dst32_fp32_bijection(u):
    assert int(F.dst32_fp32_encode(F.dst32_fp32_decode(u))) == u
    assert int(F.ieee_to_dst32(F.dst32_to_ieee(u))) == u


@settings(max_examples=300)
@given(st.integers(0, 2 ** 32 - 1).filter(lambda u: u != 0x80000000))
def test_dst32_int32_bijection(u):
    assert int(F.dst32_int32_encode(F.dst32_int32_decode(u))) == u


@given(st.integers(0, 2 ** 19 - 1))
def test_dst32_tf32_round_trip(hi):
    u = hi << 13
    assert int(F.dst32_tf32_encode(F.dst32_tf32_decode(u))) == u


@given(st.floats(width=32))
def test_8bit_exponent_round_trips_values(x):
    """Truncated values are representable, decode back exactly, and encode like x."""
    u = f32_bits(x)
    for fmt, drop in (("dst16_bf16", 16), ("src_bf16", 16), ("src_tf32", 13), ("dst32_tf32", 13)):
        t = bits_f32(u & ~((1 << drop) - 1) & 0xFFFFFFFF)
        enc, dec = fn(f"{fmt}_encode"), fn(f"{fmt}_decode")
        assert int(enc(t)) == int(enc(x))
        if not math.isnan(t):
            assert same_float(float(dec(enc(t))), t)
    if not math.isnan(x):
        assert same_float(float(F.dst32_fp32_decode(F.dst32_fp32_encode(x))), x)


@given(st.integers(0, 1), st.integers(1, 31), st.integers(0, 1023))
def test_fp16_representable_round_trip(s, e, m):
    v = ref_e5_value(s, e, m, 10)
    for fmt in ("dst16_fp16", "src_fp16"):
        assert float(fn(f"{fmt}_decode")(fn(f"{fmt}_encode")(v))) == v
    v8 = ref_e5_value(s, e, m >> 8, 2)
    for fmt in ("dst16_fp8", "src_fp8"):
        assert float(fn(f"{fmt}_decode")(fn(f"{fmt}_encode")(v8))) == v8


@given(st.floats(min_value=2.0 ** -14, max_value=2.0 ** 17, exclude_max=True, width=32))
def test_fp16_truncates_toward_zero(x):
    got = float(F.dst16_fp16_decode(F.dst16_fp16_encode(-x)))
    ulp = 2.0 ** (math.frexp(x)[1] - 1 - 10)
    assert -x <= got < -x + ulp


@given(st.integers(-1023, 1023))
def test_int8_round_trip(v):
    assert int(F.dst16_int8_decode(F.dst16_int8_encode(v))) == v
    assert int(F.src_int8_decode(F.src_int8_encode(v))) == v


@given(st.integers(-32767, 32767))
def test_int16_round_trip(v):
    assert int(F.dst16_int16_decode(F.dst16_int16_encode(v))) == v
    assert int(F.src_int16_decode(F.src_int16_encode(v))) == v


@given(st.integers(1 - 2 ** 31, 2 ** 31 - 1))
def test_int32_round_trip(v):
    assert int(F.dst32_int32_decode(F.dst32_int32_encode(v))) == v


# ============================================================================================
# Sign-magnitude helpers
# ============================================================================================

def test_sign_mag_hand_values():
    assert int(F.sign_mag_to_twos(0x8005, 16)) == -5
    assert int(F.sign_mag_to_twos(0x8000, 16)) == 0          # -0
    assert int(F.twos_to_sign_mag(-5, 16)) == 0x8005
    assert int(F.twos_to_sign_mag(-32768, 16)) == 0xFFFF     # clamped, as Store16 does
    assert int(F.twos_to_sign_mag(-(2 ** 31), 32)) == 0xFFFFFFFF
    assert int(F.twos_to_sign_mag(-3, 4)) == 0b1011
    with pytest.raises(ValueError):
        F.twos_to_sign_mag(32768, 16)
    with pytest.raises(ValueError):
        F.sign_mag_to_twos(0x10000, 16)


@given(st.integers(2, 32).flatmap(lambda w: st.tuples(st.just(w), st.integers(0, 2 ** w - 1))))
def test_sign_mag_round_trip(wb):
    w, b = wb
    v = int(F.sign_mag_to_twos(b, w))
    if b == 1 << (w - 1):
        assert v == 0
    else:
        assert int(F.twos_to_sign_mag(v, w)) == b
        s, mag = b >> (w - 1), b & ((1 << (w - 1)) - 1)
        assert v == (-mag if s else mag)


# ============================================================================================
# Views
# ============================================================================================

def test_view_registry():
    names = {}
    for key, v in F.VIEWS.items():
        assert key == f"{v.storage}.{v.name}" and v.description
        names.setdefault(v.storage, set()).add(v.name)
        assert v.width == {"dst16": 16, "dst32": 32, "src": 19}[v.storage]
    assert names == {"dst16": {"bf16", "fp16", "fp8", "int8", "int16", "raw"},
                     "dst32": {"fp32", "tf32", "int32", "raw"},
                     "src": {"tf32", "bf16", "fp16", "fp8", "int8", "int16", "raw"}}
    assert F.get_view("dst16", "bf16") is F.VIEWS["dst16.bf16"]
    with pytest.raises(KeyError, match="choose from"):
        F.get_view("dst32", "fp16")


@pytest.mark.parametrize("key", sorted(F.VIEWS))
def test_view_round_trip_is_stable(key):
    v = F.VIEWS[key]
    if v.width <= 19:
        bits = np.arange(1 << v.width, dtype=np.uint32)
    else:
        bits = np.random.default_rng(7).integers(0, 1 << 32, 1 << 16, dtype=np.uint64)
    once = v.encode(v.decode(bits))
    assert np.array_equal(v.encode(v.decode(once)), once)
    assert np.asarray(once).max() < 1 << v.width


def test_raw_views_are_identity():
    for storage, width in (("dst16", 16), ("dst32", 32), ("src", 19)):
        raw = F.get_view(storage, "raw")
        assert int(raw.decode((1 << width) - 1)) == (1 << width) - 1
        assert int(raw.encode(5)) == 5
        with pytest.raises(ValueError):
            raw.encode(1 << width)


def test_classification():
    bf16 = F.get_view("dst16", "bf16")
    pats = [0x00FF, 0x80FF, 0x01FF, 0x0100, 0x0001, 0x0000]   # +Inf -Inf NaN denormal normal 0
    assert bf16.is_inf(pats).tolist() == [True, True, False, False, False, False]
    assert bf16.is_nan(pats).tolist() == [False, False, True, False, False, False]
    assert bf16.is_denormal(pats).tolist() == [False, False, False, True, False, False]
    fp32 = F.get_view("dst32", "fp32")
    pats = [0x00FF0000, 0x40FF0000, 0x00FF0001, 0x00000001, 0x40000000, 0x007F0000]
    assert fp32.is_inf(pats).tolist() == [True, False, False, False, False, False]
    assert fp32.is_nan(pats).tolist() == [False, True, True, False, False, False]
    assert fp32.is_denormal(pats).tolist() == [False, False, False, True, True, False]
    # TF32 reads only the top 10 mantissa bits: a NaN whose payload is below them reads as Inf.
    tf32 = F.get_view("dst32", "tf32")
    assert tf32.is_inf([0x00FF0001]).tolist() == [True]
    src_tf32 = F.get_view("src", "tf32")
    assert src_tf32.is_nan([0x001FF, 0x000FF]).tolist() == [True, False]
    # FP16: no NaN or Inf on the Matrix Unit; exponent 0 with a mantissa reads as zero.
    fp16 = F.get_view("dst16", "fp16")
    pats = [0x001F, 0x7FFF, 0x0020, 0x000F]
    assert not fp16.is_nan(pats).any() and not fp16.is_inf(pats).any()
    assert fp16.is_denormal(pats).tolist() == [False, False, True, False]
    assert F.get_view("dst16", "fp8").is_denormal([0x0020, 0x2000]).tolist() == [False, True]
    for key in ("dst16.int8", "dst32.int32", "src.raw"):
        assert not F.VIEWS[key].is_nan([0, 1]).any()
