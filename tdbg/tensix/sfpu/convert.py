"""Conversions and approximations: ``SFPCAST``, ``SFP_STOCH_RND`` (``SFPSTOCHRND``), ``SFPARECIP``.

Implements BlackholeA0 ``SFPCAST_IntFloat.md``, ``SFPCAST_IntInt.md``, ``SFPCAST_IntAbs.md``,
``SFPSTOCHRND_FloatFloat.md``, ``SFPSTOCHRND_FloatInt.md``, ``SFPSTOCHRND_IntInt.md`` and
``SFPARECIP.md``.  ``SFPCAST`` with ``Mod1 > 3`` is ``NonContractualBehavior`` (silicon ignores the
high bits, the page does not promise it).

Stochastic rounding (``SFPCAST_MOD1_SM32_TO_FP32_RNS``, ``SFPSTOCHRND`` with ``RoundingMode`` 1 or
3) reads the Vector Unit's PRNG (VectorUnit.md ``AdvancePRNG``), whose state after power-on no
page gives and whose seeding by ``PRNG_SEED_Seed_Val`` (BackendConfiguration.md) no page
describes: ``UnsupportedFunctionality``.  The deterministic modes also advance the PRNG; as tdbg
keeps no PRNG state, that has no visible effect here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import NonContractualBehavior, UnsupportedFunctionality
from tdbg.tensix.sfpu.numerics import approx_exp, approx_recip
from tdbg.tensix.sfpu.vector_unit import instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

U32 = np.uint32
SIGN = np.int64(0x80000000)
SM32_TO_FP32_RNE, SM32_TO_FP32_RNS, INT32_ABS, INT32_SM32 = 0, 1, 2, 3


def sign_mag_to_fp32(c: np.ndarray) -> np.ndarray:
    """SFPCAST_IntFloat.md with round to nearest, ties to even: a sign-magnitude integer to FP32."""
    c = c.astype(np.int64)
    sign, mag = c & SIGN, c & 0x7FFFFFFF
    lz = np.where(mag != 0, 32 - np.frexp(mag.astype(np.float64))[1], 157)
    norm = (mag << (lz & 31)) & 0xFFFFFFFF
    d = sign + ((157 - lz) << 23) + (norm >> 8)
    d = d + (((norm & 0x80) != 0) & ((norm & 0x17F) != 0))
    return (d & 0xFFFFFFFF).astype(U32)


@instruction("SFPCAST", "SFPCAST.md", ("Mod1", "VC"))
def sfpcast(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPCAST`` (BlackholeA0 SFPCAST.md): sign-magnitude integer to FP32 (``Mod1`` 0), two's
    complement ``abs`` (2, a hardware bug documented as such), or the involution between
    sign-magnitude and two's complement (3: ``Sign | (Sign ? -c : c)``)."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if mod1 > 3:
        raise NonContractualBehavior(f"SFPCAST.md: Mod1 {mod1} is reserved")
    if mod1 == SM32_TO_FP32_RNS:
        raise UnsupportedFunctionality("SFPCAST_IntFloat.md: stochastic rounding reads the PRNG, which tdbg does not model")
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPCAST.md")
    if mod1 == SM32_TO_FP32_RNE:
        d = sign_mag_to_fp32(c)
    else:
        wide = c.astype(np.int64)
        negated = (-wide) & 0xFFFFFFFF
        negative = (wide & SIGN) != 0
        d = np.where(negative, negated if mod1 == INT32_ABS else (wide & SIGN) | negated, wide)
    vu.write(vd, d, lanes)


FP16A, FP16B, UINT8, INT8, INT32_TO_UINT8, INT32_TO_INT8, UINT16, INT16 = range(8)
NEAREST, STOCHASTIC, ZERO = 0, 1, 2
_CLAMP = {INT8: (True, 127), UINT8: (False, 255), INT16: (True, 32767), UINT16: (False, 65535)}


@instruction("SFP_STOCH_RND", "SFPSTOCHRND.md", ("Mod1", "UseImm5", "VC", "VB", "Imm5", "RoundingMode"))
def sfpstochrnd(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSTOCHRND`` (BlackholeA0 SFPSTOCHRND_*.md) with ``RoundingMode`` 0 (nearest, ties away
    from zero on the magnitude) or 2 (toward zero, with the documented bug: the comparison is
    ``>=``, so an all-ones discarded part rounds away)."""
    vu, vd, mod1, mode = cop.vector, f["VD"], f["Mod1"], f["RoundingMode"]
    if mode not in (NEAREST, ZERO):
        raise UnsupportedFunctionality(f"SFPSTOCHRND.md: RoundingMode {mode} rounds with the PRNG, which tdbg does not model")
    if not vu.writable(vd):
        return
    prng = np.int64(0x400000 if mode == NEAREST else 0x7FFFFF)
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPSTOCHRND.md").astype(np.int64)
    if mod1 in (FP16A, FP16B):  # SFPSTOCHRND_FloatFloat.md
        exp = (c >> 23) & 0xFF
        keep = 0x1FFF if mod1 == FP16A else 0xFFFF
        discarded = c & keep
        rounded = (c - discarded) + np.where(discarded >= (prng >> (10 if mod1 == FP16A else 7)), keep + 1, 0)
        d = np.where(exp == 0, 0, np.where(exp == 255, c & 0xFF800000, rounded))
    elif mod1 in _CLAMP:  # SFPSTOCHRND_FloatInt.md
        keep_sign, top = _CLAMP[mod1]
        sign = c & SIGN if keep_sign else np.zeros_like(c)
        exp = ((c >> 23) & 0xFF) - 127
        mag = 0x800000 | (c & 0x7FFFFF)
        mag = np.where(exp >= 0, mag << np.clip(exp, 0, 15), mag >> np.clip(-exp, 0, 1))
        mag = np.minimum((mag >> 23) + ((mag & 0x7FFFFF) >= prng), top)
        mag = np.where(exp < -1, 0, np.where(exp >= 16, top, mag))
        d = np.where(mag == 0, 0, sign) + mag
    else:  # SFPSTOCHRND_IntInt.md
        if f["UseImm5"]:
            shift = np.full(32, f["Imm5"], dtype=np.int64)
        else:
            shift = vu.read(f["VB"], lanes, "SFPSTOCHRND.md").astype(np.int64) & 31
        mag = ((c & 0x7FFFFFFF) << 23) >> shift
        mag = (mag >> 23) + ((mag & 0x7FFFFF) >= prng)
        if mod1 == INT32_TO_UINT8:
            d = np.minimum(mag, 255)
        else:
            mag = np.minimum(mag, 127)
            d = np.where(mag == 0, 0, c & SIGN) + mag
    vu.write(vd, d & 0xFFFFFFFF, lanes)


RECIP, COND_RECIP = 0, 1


@instruction("SFPARECIP", "SFPARECIP.md", ("Mod1", "VC", "VB"))
def sfparecip(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPARECIP`` (BlackholeA0 SFPARECIP.md): ``ApproxRecip`` of ``|VC|`` with its sign back
    (``Mod1`` 0), without it and only where ``VB < 0`` (1), or ``ApproxExp`` of ``|VC|`` with its sign
    back (2 and above)."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    x = vu.read(f["VC"], lanes, "SFPARECIP.md")
    sign, mag = x & U32(0x80000000), x & U32(0x7FFFFFFF)
    if mod1 == RECIP:
        d = sign | approx_recip(mag)
    elif mod1 == COND_RECIP:
        b = vu.read(f["VB"], lanes, "SFPARECIP.md")
        d = np.where(b.view(np.int32) < 0, approx_recip(mag), x)
    else:
        d = sign | approx_exp(mag)
    vu.write(vd, d, lanes)
