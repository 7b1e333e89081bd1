"""The Matrix Unit's floating-point datapath on Blackhole: how ``ELWADD`` / ``ELWSUB`` /
``ELWMUL`` / ``MVMUL`` (and ``DOTPV``, ``GAPOOL``) round, bit for bit.

The pages (WormholeB0 ``ELWADD.md``, ``ELWMUL.md``, ``MVMUL.md``) give C ``float`` code and call
it "a rough guide": hardware may reorder, fuse and change precision.  Which it does was measured
on Tenstorrent's simulator ttsim v1.10.0 (the datapath is ``tensix.cpp:1102-1375``; the
measurement seeded SrcA/SrcB/Dst and config, ran one instruction in ttsim and in tdbg and
compared ``DstBits``; tt-llk's eltwise and matmul kernels
agree byte for byte after this model, not before).  Described in tdbg's terms:

* An operand is a sign, an exponent field (8 bits; FP16 style: the 5 bits of its own layout)
  and an 11-bit significand (the implicit one, then the 10 mantissa bits of the Src layout;
  BF16 style keeps only the top 7 of those, as ``ReadBF16``).  Exponent 0 is zero whatever the
  mantissa (``ELW*``: for ``SrcB`` only while ``ALU_ACC_CTRL_Zero_Flag_disabled_src`` is 0);
  exponent 255 is an ordinary (huge) exponent.
* A product takes 5 significand bits of ``SrcA`` (phase bit 0 clear: bits 10..6, set: bits
  5..1, so bit 0 is never used, as MVMUL.md's footnote says) times 7 of ``SrcB`` (phase bit 1
  clear: bits 10..4, set: bits 3..0 then three zeros), an exact 12-bit product; its exponent is
  ``ExpA + ExpB`` rebiased to the sum's domain and lowered by 5 (phase bit 0) and 7 (phase bit 1)
  for the lower slices.  Sum domain: biased 127 for 8-bit exponents and for any ``Dst32b``
  result; FP16 into a 16-bit Dst stays biased 15.  ``ELWMUL`` zeroes a product whose exponent
  is not positive.
* ``MVMUL`` forms each output from 16 products in two groups of 8 (``k`` 0..7, 8..15); within a
  group every product is aligned to the group's largest exponent, rounding half up in
  magnitude, before the signed sum.  A zero product counts with the exponent
  ``max(rebias, 0)``.
* ``ELWADD`` / ``ELWSUB`` (``SrcB``'s sign flipped) order the operands by magnitude and align
  the smaller significand to the larger one's exponent, rounding half up; the significands add.
* Accumulation: the terms and the ``Dst`` value (zero if not accumulating; a 16-bit ``Dst`` is
  widened to a 24-bit significand) are aligned to the largest exponent of all: a term by
  adding half the shifted-out weight, less one when it is negative, ``Dst`` by adding half.
  With a 16-bit ``Dst`` every aligned value is then rounded to a multiple of ``2**13`` the same
  way.  The signed sum takes ``Dst``'s sign (flipped if negative); zero is +0.  It is
  normalised and rounded half up in magnitude to 24 significant bits (``Dst32b``), 8 (BF16 Dst)
  or 11 (FP16 Dst); a carry moves the exponent.  Exponent <= 0 gives +0; exponent >= 255 (8-bit)
  gives exponent 255 with mantissa 0; an FP16 exponent >= 32 gives exponent 31, mantissa 1023.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tdbg.tensix import formats

I64 = np.int64


class Term(NamedTuple):
    """A signed value: ``(-1)**sign * man * 2**(exp - bias - 23)`` (``man`` has its leading one
    at bit 23 when normalised)."""
    sign: np.ndarray
    exp: np.ndarray
    man: np.ndarray


class Operand(NamedTuple):
    sign: np.ndarray
    exp: np.ndarray
    man: np.ndarray     # 11-bit significand, implicit one at bit 10
    zero: np.ndarray


def operand(v: np.ndarray, style: str, flush: bool = True) -> Operand:
    """A 19-bit Src datum (SrcASrcB.md: sign 18, mantissa 17:8, exponent 7:0) as the datapath
    reads it in ``style`` (``BF16`` / ``TF32`` / ``FP16``); ``flush``: exponent 0 is zero."""
    v = np.asarray(v, dtype=I64)
    exp = v & (0x1F if style == "FP16" else 0xFF)
    man = (v >> 8) & (0x3F8 if style == "BF16" else 0x3FF)
    zero = (exp == 0) if flush else np.zeros(v.shape, dtype=bool)
    return Operand(v >> 18 & 1, exp, man | 0x400, zero)


def rebias(exp8: bool, use32: bool, phase: int) -> int:
    """What a product's exponent ``ExpA + ExpB`` gains to land in the sum's domain."""
    adj = -127 if exp8 else (127 - 30 if use32 else -15)
    return adj - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)


def products(a: Operand, b: Operand, phase: int, exp8: bool, use32: bool) -> tuple[Term, np.ndarray]:
    """The fidelity phase's products (``man`` unscaled, 12 bits) and which are zero."""
    sa = (a.man >> 1) & 31 if phase & 1 else a.man >> 6
    sb = (b.man & 15) << 3 if phase & 2 else b.man >> 4
    exp = a.exp + b.exp + rebias(exp8, use32, phase)
    return Term(a.sign ^ b.sign, exp, sa * sb), a.zero | b.zero


def _shr_round(m: np.ndarray, d: np.ndarray, sign: np.ndarray | int = 0, limit: int = 31) -> np.ndarray:
    """``m >> d`` rounding half up (``- sign``: half down for negative terms); 0 from ``limit`` on."""
    d = np.asarray(d, dtype=I64)
    dd = np.clip(d, 1, 62)
    shifted = (m + (I64(1) << (dd - 1)) - sign) >> dd
    return np.where(d <= 0, m, np.where(d < limit, shifted, 0))


def accumulate(terms: list[Term], dst: Term, use32: bool, exp8: bool) -> np.ndarray:
    """Add ``terms`` to ``dst`` (module docstring); the result as FP32-style bits (sign 31,
    exponent 30:23, mantissa 22:0; an FP16 result keeps its 5-bit exponent in that field)."""
    top = dst.exp
    for t in terms:
        top = np.maximum(top, t.exp)
    total = np.zeros(np.shape(top), dtype=I64)
    for t in terms:
        m = _shr_round(t.man, top - t.exp, t.sign)
        if not use32:
            m = (m + (1 << 12) - t.sign) & ~I64(0x1FFF)
        total += np.where(t.sign == dst.sign, m, -m)
    m = _shr_round(dst.man, top - dst.exp)
    if not use32:
        m = (m + (1 << 12)) & ~I64(0x1FFF)
    total += m
    sign = dst.sign ^ (total < 0)
    mag = np.abs(total)
    lead = np.frexp(np.maximum(mag, 1).astype(np.float64))[1].astype(I64) - 1   # exact below 2**53
    keep = 24 if use32 else 8 if exp8 else 11
    exp = top - (23 - lead)
    s = keep - 1 - lead
    man = np.where(s < 0, (mag + (I64(1) << np.maximum(-s - 1, 0))) >> np.maximum(-s, 0), mag << np.maximum(s, 0))
    man = man << (24 - keep)
    exp = exp + (man >> 24)
    man = man & 0x7FFFFF
    if use32 or exp8:
        out = np.where(exp >= 255, (sign << 31) | (255 << 23), (sign << 31) | (exp << 23) | man)
    else:
        out = np.where(exp >= 32, (sign << 31) | (31 << 23) | (0x3FF << 13), (sign << 31) | (exp << 23) | man)
    return np.where((top <= 0) | (mag == 0) | (exp <= 0), 0, out).astype(np.uint32)


def dst_term(bits: np.ndarray, use32: bool, exp8: bool) -> Term:
    """A ``Dst32b`` word (``use32``) or a ``Dst16b`` BF16 / FP16 word as an accumulator term."""
    if use32:
        ieee = formats.dst32_to_ieee(bits).astype(I64)
    elif exp8:
        ieee = formats.dst16_bf16_to_ieee(bits).astype(I64) << 16
    else:
        h = formats.dst16_fp16_to_ieee(bits).astype(I64)
        ieee = ((h >> 15) << 31) | (((h >> 10) & 0x1F) << 23) | ((h & 0x3FF) << 13)
    exp = (ieee >> 23) & 0xFF
    return Term(ieee >> 31 & 1, exp, np.where(exp == 0, 0, (ieee & 0x7FFFFF) | 0x800000))


def to_dst(result: np.ndarray, use32: bool, exp8: bool) -> np.ndarray:
    """``accumulate``'s result in the ``Dst32b`` or ``Dst16b`` (BF16 / FP16) layout."""
    r = np.asarray(result, dtype=np.uint32)
    if use32:
        return formats.ieee_to_dst32(r)
    if exp8:
        return formats.ieee_to_dst16_bf16(r >> 16)
    fp16 = ((r >> 31) << 15) | (((r >> 23) & 0x1F) << 10) | ((r >> 13) & 0x3FF)
    return formats.ieee_to_dst16_fp16(fp16)


def elwmul(a: Operand, b: Operand, dst: Term, phase: int, exp8: bool, use32: bool) -> np.ndarray:
    """``Dst + SrcA * SrcB`` for one fidelity phase."""
    p, zero = products(a, b, phase, exp8, use32)
    zero = zero | (p.exp <= 0)
    z = I64(max(rebias(exp8, use32, phase), 0))
    term = Term(np.where(zero, 0, p.sign), np.where(zero, z, p.exp), np.where(zero, 0, p.man << 13))
    return accumulate([term], dst, use32, exp8)


def elwadd(a: Operand, b: Operand, dst: Term, exp8: bool, use32: bool) -> np.ndarray:
    """``Dst + SrcA + SrcB`` (``b``'s sign already flipped for ``ELWSUB``)."""
    ea, eb = np.where(a.zero, 0, a.exp), np.where(b.zero, 0, b.exp)
    ma, mb = np.where(a.zero, 0, a.man), np.where(b.zero, 0, b.man)
    sa, sb = np.where(a.zero, 0, a.sign), np.where(b.zero, 0, b.sign)
    swap = (eb > ea) | ((eb == ea) & (mb > ma))
    sa, sb = np.where(swap, sb, sa), np.where(swap, sa, sb)
    ea, eb = np.where(swap, eb, ea), np.where(swap, ea, eb)
    ma, mb = np.where(swap, mb, ma), np.where(swap, ma, mb)
    mb = _shr_round(mb, ea - eb, limit=12)
    man = np.where(sa == sb, ma + mb, ma - mb) << 13
    if use32 and not exp8:
        ea = np.where(ea != 0, ea + 127 - 15, 127 - 30)
    return accumulate([Term(sa, ea, man)], dst, use32, exp8)


def mvmul(a: Operand, b: Operand, dst: Term, phase: int, exp8: bool, use32: bool) -> np.ndarray:
    """``Dst + SrcB @ SrcA`` for one fidelity phase: ``a`` is ``(16, 16)`` (k, column), ``b``
    ``(rows, 16)`` (row, k), ``dst`` ``(rows, 16)``."""
    p, zero = products(Operand(*(x[None, :, :] for x in a)), Operand(*(x[:, :, None] for x in b)), phase, exp8, use32)
    z = I64(max(rebias(exp8, use32, phase), 0))
    sign, exp, man = (np.where(zero, 0, p.sign), np.where(zero, z, p.exp), np.where(zero, 0, p.man))  # (rows, k, col)
    groups = []
    for k in (slice(0, 8), slice(8, 16)):
        top = exp[:, k].max(axis=1)
        aligned = _shr_round(man[:, k], top[:, None] - exp[:, k], limit=31)
        total = np.where(sign[:, k] == 1, -aligned, aligned).sum(axis=1)
        live = top > 0
        groups.append(Term(np.where(live, total < 0, 0).astype(I64), np.where(live, top, 0),
                           np.where(live, np.abs(total) << 13, 0)))
    return accumulate(groups, dst, use32, exp8)
