"""Vector Unit arithmetic on 32 lanes at once (numpy, uint32 bit patterns in and out).

* ``fma``: the Blackhole FMA of ``SFPMAD`` and its family (``fma_model``; ``tdbg/native/sfpu.c``
  computes the same in C), as the bit-perfect model
  ``fma_model_bh`` of tt-isa-documentation ``Miscellaneous/FMA`` (which BlackholeA0
  ``SFPMAD.md`` names as the exact hardware behaviour; ttsim v1.10.0 fma.cpp:102-190 is the same
  model): denormal inputs count as zero; the product keeps 3 guard bits below and one bit above
  FP32 precision, with a sticky bit for what falls below; a product that overflows on its own
  gives infinity, one that underflows on its own leaves ``z`` unchanged; one rounding to nearest
  even; a result that is denormal after rounding becomes a zero of its sign; NaN is always
  ``0x7FC00000``.
* ``lut8_to_fp32`` (SFPLUT.md), ``lut16_to_fp32`` (SFPLUTFP32.md), ``sign_mag_is_smaller``
  (SFPSWAP.md, SFPGT.md), ``approx_recip`` / ``approx_exp`` (BlackholeA0 SFPARECIP.md, whose
  lookup tables are copied here as numbers).
"""

from __future__ import annotations

import numpy as np

from tdbg import native
from tdbg.native import address

U32 = np.uint32
SIGN = np.int64(0x80000000)
_MAN = np.int64(0x7FFFFF)


def _bit_length(x: np.ndarray) -> np.ndarray:
    """Bits needed for each non-negative integer below 2**53 (0 for 0)."""
    return np.frexp(x.astype(np.float64))[1].astype(np.int64)


def _shift_out(m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``fma_model_bh``'s semi-sticky right shift: ``m >> s``, with bit 0 set when bits were lost
    and something remains (values here are below 2**30, so shifts past 40 leave nothing)."""
    s = np.minimum(s, 40)
    out = m >> s
    return out | ((out != 0) & ((out << s) != m))


_LANES = 32
_scratch = np.zeros((4, _LANES), dtype=U32)   # x, y, z and the result, for the native FMA


def fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns, bit for bit as the Blackhole Vector Unit computes it
    (see the module docstring): ``tdbg_fma`` of ``tdbg/native/sfpu.c`` for 32 lanes when the
    native library is there, else ``fma_model``."""
    lib = native.library()
    if lib is None or np.shape(x) != (_LANES,):
        return fma_model(x, y, z)
    s = _scratch
    s[0], s[1], s[2] = x, y, z
    base = address(s)
    lib.tdbg_fma(base, base + 4 * _LANES, base + 8 * _LANES, base + 12 * _LANES, _LANES)
    return s[3].copy()


def fma_model(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``fma`` in numpy, the reference (module docstring).  Special cases (infinities, NaN; a
    product too small to count) override the ordinary path's result only in the lanes that have
    them."""
    x, y, z = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64), np.asarray(z, dtype=np.int64)
    xe, ye, ze = (x >> 23) & 255, (y >> 23) & 255, (z >> 23) & 255
    xm = ((x & _MAN) | 0x800000) * (xe != 0)
    ym = ((y & _MAN) | 0x800000) * (ye != 0)
    zm = (((z & _MAN) | 0x800000) * (ze != 0)) << 3
    zs, ps = z & SIGN, (x ^ y) & SIGN
    pm = xm * ym                      # 48 bits; keep 3 guard bits and a sticky bit below 24
    pm = (pm >> 20) | ((pm & 0xFFFFF) != 0)
    pe = xe + ye - 127
    x_inf, y_inf, z_inf = xe == 255, ye == 255, ze == 255
    special = x_inf | y_inf | z_inf | (pe >= 255)
    tiny = (pm == 0) | (pe < 0)
    z_zero = zm == 0
    z_nan = z_inf & (zm != 0x4000000)
    re = np.maximum(pe, ze)
    pm = _shift_out(pm, re - pe)
    zm = _shift_out(zm, re - ze)
    rs = np.where(pm >= zm, ps, zs)
    rm = np.where(ps != zs, np.abs(pm - zm), pm + zm)
    n = _bit_length(rm) - 27          # normalise to one leading bit at 26
    re = re + n
    low = re <= 0
    n = n + low
    re = re * ~low
    up = np.maximum(n, 0)
    rm = np.where(n <= 0, rm << np.maximum(-n, 0), (rm >> up) | ((rm & (up | 1)) != 0))
    r = (re << 23) + ((rm >> 3) & _MAN)
    r = r + (((rm & 7) + (r & 1)) > 4)
    r = r * (r >> 23 != 0)
    result = np.where(re >= 255, rs | 0x7F800000, rs | r)
    result = np.where(rm == 0, zs & ps, result)
    if tiny.any():
        result = np.where(tiny, np.where(z_zero, zs & ps, z), result)
    if special.any():
        nan = ((x_inf & ((xm != 0x800000) | (ym == 0))) | (y_inf & ((ym != 0x800000) | (xm == 0)))
               | z_nan | (z_inf & (x_inf | y_inf) & (zs != ps)))
        result = np.where(special, np.where(nan, 0x7FC00000, np.where(z_inf, z, ps | 0x7F800000)), result)
    return result.astype(U32)


def lut8_to_fp32(x: np.ndarray) -> np.ndarray:
    """``Lut8ToFp32`` (SFPLUT.md): sign, 3-bit negated exponent, 4-bit mantissa; 0xFF is 0."""
    x = np.asarray(x, dtype=U32) & U32(0xFF)
    out = ((x >> 7) << 31) | ((127 - ((x >> 4) & 7)) << 23) | ((x & 15) << 19)
    return np.where(x == 0xFF, 0, out).astype(U32)


def lut16_to_fp32(x: np.ndarray) -> np.ndarray:
    """``Lut16ToFp32`` (SFPLUTFP32.md): FP16 fields with exponent 31 read as 0 and no denormals."""
    x = np.asarray(x, dtype=U32) & U32(0xFFFF)
    exp = (x >> 10) & 31
    return (((x >> 15) << 31) | (np.where(exp == 31, 0, 112 + exp) << 23) | ((x & 0x3FF) << 13)).astype(U32)


def sign_mag_is_smaller(c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``SignMagIsSmaller(C, D)`` (SFPSWAP.md): ``C < D`` for sign-magnitude integers, or for FP32
    in the total order -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN."""
    def order(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=U32)
        flip = ((v.view(np.int32) >> 30).view(U32)) >> U32(1)
        return (v ^ flip).view(np.int32)
    return order(c) < order(d)


# BlackholeA0 SFPARECIP.md: ApproxRecip's 128-entry and ApproxExp's 896-entry lookup tables.
RECIP_LUT = np.array([
    127, 125, 123, 121, 119, 117, 116, 114, 112, 110, 109, 107, 105, 104, 102, 100, 99,
    97, 96, 94, 93, 91, 90, 88, 87, 85, 84, 83, 81, 80, 79, 77, 76, 75, 74, 72, 71, 70,
    69, 68, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48,
    47, 46, 45, 44, 43, 42, 41, 40, 40, 39, 38, 37, 36, 35, 35, 34, 33, 32, 31, 31, 30,
    29, 28, 28, 27, 26, 25, 25, 24, 23, 23, 22, 21, 21, 20, 19, 19, 18, 17, 17, 16, 15,
    15, 14, 14, 13, 12, 12, 11, 11, 10, 9, 9, 8, 8, 7, 7, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1,
    1, 0], dtype=U32)
EXP_LUT = np.array([
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6,
    6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7,
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8,
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
    9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11,
    11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17,
    17, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 19, 19, 20,
    20, 20, 20, 20, 20, 20, 21, 21, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 23,
    23, 23, 23, 23, 23, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 26, 26,
    26, 26, 26, 26, 27, 27, 27, 27, 27, 27, 27, 28, 28, 28, 28, 28, 28, 28, 29, 29, 29,
    29, 29, 29, 30, 30, 30, 30, 30, 30, 30, 31, 31, 31, 31, 31, 31, 32, 32, 32, 32, 32,
    32, 33, 33, 33, 33, 33, 33, 33, 34, 34, 34, 34, 34, 34, 35, 35, 35, 35, 35, 35, 36,
    36, 36, 36, 36, 37, 37, 37, 38, 38, 38, 39, 39, 39, 40, 40, 40, 41, 41, 41, 42, 42,
    42, 43, 43, 43, 44, 44, 44, 45, 45, 45, 46, 46, 46, 47, 47, 47, 48, 48, 49, 49, 49,
    50, 50, 50, 51, 51, 51, 52, 52, 52, 53, 53, 53, 54, 54, 54, 55, 55, 56, 56, 56, 57,
    57, 57, 58, 58, 58, 59, 59, 60, 60, 60, 61, 61, 61, 62, 62, 63, 63, 63, 64, 64, 64,
    65, 65, 66, 66, 66, 67, 67, 67, 68, 68, 69, 69, 69, 70, 70, 71, 71, 71, 72, 72, 72,
    73, 73, 74, 74, 74, 75, 75, 76, 76, 76, 77, 77, 78, 78, 78, 79, 79, 80, 80, 80, 81,
    81, 82, 82, 83, 83, 84, 85, 86, 87, 88, 88, 89, 90, 91, 92, 93, 94, 94, 95, 96, 97,
    98, 99, 100, 101, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113,
    113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,
    0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
    13, 13, 14, 15, 15, 16, 16, 17, 17, 18, 19, 19, 20, 20, 21, 21, 22, 23, 23, 24, 24,
    25, 26, 26, 27, 27, 28, 29, 29, 30, 31, 31, 32, 32, 33, 34, 34, 35, 36, 36, 37, 38,
    38, 39, 39, 40, 41, 41, 42, 43, 43, 44, 45, 45, 47, 48, 50, 51, 52, 54, 55, 57, 58,
    60, 61, 63, 64, 66, 67, 69, 70, 72, 73, 75, 76, 78, 80, 81, 83, 85, 86, 88, 90, 91,
    93, 95, 97, 98, 100, 102, 104, 106, 107, 109, 111, 113, 115, 117, 119, 121, 123,
    125, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 139, 140, 141, 142,
    143, 144, 145, 146, 147, 149, 150, 151, 152, 153, 155, 156, 157, 158, 159, 161,
    162, 163, 165, 166, 167, 168, 170, 171, 172, 174, 175, 177, 178, 179, 181, 182,
    184, 185, 187, 188, 189, 191, 192, 194, 196, 197, 199, 200, 202, 203, 205, 207,
    208, 210, 211, 213, 215, 216, 218, 220, 222, 223, 225, 227, 229, 230, 232, 234], dtype=U32)
assert len(EXP_LUT) == 896 and len(RECIP_LUT) == 128


def approx_recip(x: np.ndarray) -> np.ndarray:
    """``ApproxRecip`` (BlackholeA0 SFPARECIP.md) of non-negative FP32 bit patterns."""
    x = np.asarray(x, dtype=U32)
    mid = ((U32(253) - (x >> 23)) << 23) | (RECIP_LUT[(x >> 16) & 0x7F] << 16)
    return np.select([x < 0x00800000, x < 0x7E800000], [U32(0x7F800000), mid], U32(0)).astype(U32)


def approx_exp(x: np.ndarray) -> np.ndarray:
    """``ApproxExp`` (BlackholeA0 SFPARECIP.md) of non-negative FP32 bit patterns."""
    x = np.asarray(x, dtype=U32)
    low = x & 0xFFFF
    index = np.clip((x >> 16).astype(np.int64) - 0x3C80, 0, len(EXP_LUT) - 1)
    table = EXP_LUT[index] << 16
    return np.select(
        [x < 0x00800000, x < 0x3C800000, x < 0x3F320000, x < 0x40000000],
        [U32(0x3F800000), 0x3F810000 | low, 0x3F800000 | table | low, 0x40000000 | table | low],
        0x40800000 | low).astype(U32)
