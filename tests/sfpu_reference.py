"""Helpers for the Vector Unit tests, and an independent scalar reference of the Blackhole FMA.

``fma_reference`` is written from the bit-perfect model ``fma_model_bh`` of tt-isa-documentation
``Miscellaneous/FMA`` (which BlackholeA0 ``SFPMAD.md`` names), one lane at a time with Python
integers, so that it shares nothing with the vectorized ``tdbg.tensix.sfpu.numerics.fma``.
"""

from __future__ import annotations

import struct

import numpy as np

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode
LANES = np.arange(32)


def f32(x: float) -> int:
    """FP32 bits of ``x``."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def val(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def run(cop: Coprocessor, mnemonic: str, **fields: int) -> None:
    cop.push(0, encode(mnemonic, **fields))


def set_lreg(cop: Coprocessor, reg: int, values: int | np.ndarray) -> None:
    """Give ``LReg[reg]`` defined values (every lane)."""
    vu = cop.vector
    vu.lreg[reg] = np.asarray(values, dtype=np.int64) & 0xFFFFFFFF
    vu.defined[reg] = 3
    vu.full[reg] = True


def lreg(cop: Coprocessor, reg: int) -> np.ndarray:
    return cop.vector.lreg[reg].copy()


def fma_reference(x: int, y: int, z: int) -> int:
    """``x * y + z`` on FP32 bits, one lane, after ``fma_model_bh``."""
    def unpack(v: int) -> tuple[int, int]:
        e = (v >> 23) & 255
        return e, (0 if e == 0 else (v & 0x7FFFFF) | 0x800000)

    (xe, xm), (ye, ym), (ze, zm) = unpack(x), unpack(y), unpack(z)
    zs, ps = z & 0x80000000, (x ^ y) & 0x80000000
    pm, pe = (xm * ym) << 3, xe + ye - 150
    zm <<= 3
    pm = (pm >> 23) | (1 if pm & 0x7FFFFF else 0)
    pe += 23
    if xe == 255 or ye == 255 or pe >= 255 or ze == 255:
        if ((xe == 255 and (xm != 0x800000 or ym == 0)) or (ye == 255 and (ym != 0x800000 or xm == 0))
                or (ze == 255 and zm != 0x4000000) or (ze == 255 and (xe == 255 or ye == 255) and zs != ps)):
            return 0x7FC00000
        return z if ze == 255 else ps | 0x7F800000
    if pm == 0 or pe < 0:
        return z if zm else zs & ps

    def shift(m: int, s: int, width: int) -> int:
        if s >= width:
            return 0
        out = m >> s
        return out | (1 if out and (out << s) != m else 0)

    re = max(pe, ze)
    if pe < re:
        pm = shift(pm, re - pe, 64)
    if ze < re:
        zm = shift(zm, re - ze, 32)
    rs = ps if pm >= zm else zs
    rm = abs(pm - zm) if ps != zs else pm + zm
    if rm == 0:
        return zs & ps
    n = rm.bit_length() - 27
    re += n
    if re >= 255:
        return rs | 0x7F800000
    if re <= 0:
        n, re = n + 1, 0
    rm = rm << -n if n <= 0 else (rm >> n) | (1 if rm & (n | 1) else 0)
    r = (re << 23) + ((rm >> 3) & 0x7FFFFF)
    r += 1 if (rm & 7) + (r & 1) > 4 else 0
    if r >> 23 == 0:
        r = 0
    return rs | r
