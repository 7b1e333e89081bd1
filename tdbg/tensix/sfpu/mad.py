"""The MAD sub-unit: ``SFPMAD``, ``SFPADD``, ``SFPMUL``, ``SFPADDI``, ``SFPMULI``, ``SFPLUT``,
``SFPLUTFP32``, ``SFPMUL24``.

Implements the BlackholeA0 pages of those names; every ``a * b + c`` is ``numerics.fma`` (the
Blackhole FMA model the pages refer to).  Modifier bits a functional model does not read have no
effect, as the model says.  ``SFPADD`` is for ``VA == 10`` and ``SFPMUL`` for ``VC == 9`` only
(``NonContractualBehavior`` otherwise); tdbg also accepts ``SFPADD`` with ``VB == 10``, which
tt-llk's Blackhole kernels use (``TTI_SFPADD(p_sfpu::LREG4, p_sfpu::LCONST_1, ...)``): the
product is symmetric in the FMA model, and ttsim v1.10.0 tensix.cpp:4029-4033 accepts it too.
``SFPMUL24`` with a nonzero ``VC`` lane raises ``NonContractualBehavior`` (the page's
``Mul24ShiftAdd`` is current silicon, not a contract).
"""

from __future__ import annotations

from collections.abc import Callable

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import NonContractualBehavior
from tdbg.tensix.sfpu.numerics import fma, lut8_to_fp32, lut16_to_fp32
from tdbg.tensix.sfpu.vector_unit import LANES, VectorUnit, instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

U32 = np.uint32
SIGN = U32(0x80000000)
NEGATE_VA, NEGATE_VC, INDIRECT_VA, INDIRECT_VD = 1, 2, 4, 8
ONE = np.full(LANES, 0x3F800000, dtype=U32)
ZERO = np.zeros(LANES, dtype=U32)


def _result(vu: VectorUnit, vd: int, indirect: bool, d: np.ndarray, lanes: np.ndarray, page: str) -> None:
    """Write ``d`` to ``LReg[vd]``, or to ``LReg[LReg[7] & 15]`` per lane with ``INDIRECT_VD``."""
    if indirect and vd != 16:
        vu.scatter(vu.indirect(lanes, page), d, lanes)
    elif vu.writable(vd):
        vu.write(vd, d, lanes)


def _operands(vu: VectorUnit, f: dict[str, int], lanes: np.ndarray, page: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``VA`` (or the LReg each lane's indirect index names, with ``Mod1``'s INDIRECT_VA),
    ``VB`` and ``VC`` on ``lanes``."""
    if f["Mod1"] & INDIRECT_VA:
        a = vu.gather(vu.indirect(lanes, page), lanes, page)
    else:
        a = vu.read(f["VA"], lanes, page)
    return a, vu.read(f["VB"], lanes, page), vu.read(f["VC"], lanes, page)


def _mad(cop: Coprocessor, f: dict[str, int], active: np.ndarray | None, page: str) -> None:
    """The functional model of BlackholeA0 SFPMAD.md."""
    vu, mod1 = cop.vector, f["Mod1"]
    lanes = vu.lanes(active)
    if not np.count_nonzero(lanes):
        return
    a, b, c = _operands(vu, f, lanes, page)
    if mod1 & NEGATE_VA:
        a = a ^ SIGN
    if mod1 & NEGATE_VC:
        c = c ^ SIGN
    _result(vu, f["VD"], bool(mod1 & INDIRECT_VD), fma(a, b, c), lanes, page)


MAD_FIELDS = ("Mod1", "VA", "VB", "VC")


@instruction("SFPMAD", "SFPMAD.md", MAD_FIELDS)
def sfpmad(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPMAD`` (BlackholeA0 SFPMAD.md): ``VD = ±VA * VB ± VC`` with the Blackhole FMA."""
    _mad(cop, f, active, "SFPMAD.md")


@instruction("SFPADD", "SFPADD.md", MAD_FIELDS)
def sfpadd(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPADD`` (BlackholeA0 SFPADD.md): ``SFPMAD`` with ``VA == 10`` (1.0)."""
    if f["VA"] != 10 and f["VB"] != 10:
        raise NonContractualBehavior(f"SFPADD.md: VA={f['VA']} and VB={f['VB']}; SFPADD is for VA == 10 (1.0)")
    _mad(cop, f, active, "SFPADD.md")


@instruction("SFPMUL", "SFPMUL.md", MAD_FIELDS)
def sfpmul(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPMUL`` (BlackholeA0 SFPMUL.md): ``SFPMAD`` with ``VC == 9`` (0)."""
    if f["VC"] != 9:
        raise NonContractualBehavior(f"SFPMUL.md: VC={f['VC']}; SFPMUL is for VC == 9 (0)")
    _mad(cop, f, active, "SFPMUL.md")


@instruction("SFPADDI", "SFPADDI.md", ("Mod1", "Imm16"))
def sfpaddi(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPADDI`` (BlackholeA0 SFPADDI.md): ``VD = BF16ToFP32(Imm16) * 1.0 ± VD``."""
    _imm16_fma(cop, f, active, "SFPADDI.md", lambda imm, vd: fma(imm, ONE, vd))


@instruction("SFPMULI", "SFPMULI.md", ("Mod1", "Imm16"))
def sfpmuli(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPMULI`` (BlackholeA0 SFPMULI.md): ``VD = BF16ToFP32(Imm16) * ±VD + 0``."""
    _imm16_fma(cop, f, active, "SFPMULI.md", lambda imm, vd: fma(imm, vd, ZERO))


def _imm16_fma(cop: Coprocessor, f: dict[str, int], active: np.ndarray | None, page: str,
               op: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    """What SFPADDI and SFPMULI share: ``VD`` (negated by ``Mod1``'s NEGATE_VC) and the BF16
    immediate into one FMA, the result back to ``VD`` on the enabled lanes."""
    vu, mod1 = cop.vector, f["Mod1"]
    lanes = vu.lanes(active)
    if not np.count_nonzero(lanes):
        return
    vd = vu.read(f["VD"], lanes, page)
    if mod1 & NEGATE_VC:
        vd = vd ^ SIGN
    d = op(np.full(LANES, f["Imm16"] << 16, dtype=U32), vd)
    _result(vu, f["VD"], bool(mod1 & INDIRECT_VD), d, lanes, page)


def _by_magnitude(vu: VectorUnit, b: np.ndarray, lanes: np.ndarray, page: str) -> np.ndarray:
    """``LReg[i]`` per lane with ``i`` 0, 1, 2 for ``|LReg[3]|`` below 1.0, below 2.0, above."""
    i = np.where(b < 0x3F800000, 0, np.where(b < 0x40000000, 1, 2))
    return vu.gather(i, lanes, page)


SGN_RETAIN = 4


@instruction("SFPLUT", "SFPLUT.md", ("Mod0",))
def sfplut(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLUT`` (BlackholeA0 SFPLUT.md): ``Lut8ToFp32(coeffs >> 8) * |LReg[3]| + Lut8ToFp32(coeffs)``,
    coefficients from ``LReg[0..2]`` by the magnitude of ``LReg[3]``."""
    vu, mod0 = cop.vector, f["Mod0"]
    lanes = vu.lanes(active)
    if not np.count_nonzero(lanes):
        return
    l3 = vu.read(3, lanes, "SFPLUT.md")
    b = l3 & ~SIGN
    coeffs = _by_magnitude(vu, b, lanes, "SFPLUT.md")
    d = fma(lut8_to_fp32(coeffs >> 8), b, lut8_to_fp32(coeffs))
    if mod0 & SGN_RETAIN:
        d = (d & ~SIGN) | (l3 & SIGN)
    _result(vu, f["VD"], bool(mod0 & INDIRECT_VD), d, lanes, "SFPLUT.md")


FP16_6ENTRY_TABLE1, FP16_6ENTRY_TABLE2, FP16_3ENTRY_TABLE = 2, 3, 10


@instruction("SFPLUTFP32", "SFPLUTFP32.md", ("Mod1", "Mod1Mirror"))
def sfplutfp32(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLUTFP32`` (BlackholeA0 SFPLUTFP32.md): ``a * |LReg[3]| + c`` with ``a`` and ``c`` FP32
    from ``LReg[0..2]`` / ``LReg[4..6]`` or FP16-ish halves of them, by the magnitude of
    ``LReg[3]``.  ``Mod1Mirror`` only steers the automatic stalling, which tdbg has no need of."""
    vu, mod1, page = cop.vector, f["Mod1"], "SFPLUTFP32.md"
    lanes = vu.lanes(active)
    if not np.count_nonzero(lanes):
        return
    l3 = vu.read(3, lanes, page)
    b = l3 & ~SIGN
    i = np.where(b < 0x3F800000, 0, np.where(b < 0x40000000, 1, 2))
    if mod1 & FP16_6ENTRY_TABLE1:
        if mod1 & FP16_3ENTRY_TABLE == FP16_3ENTRY_TABLE:
            coeffs = vu.gather(i, lanes, page)
            a, c = lut16_to_fp32(coeffs >> 16), lut16_to_fp32(coeffs)
        else:
            cut = 0x40800000 if mod1 & FP16_6ENTRY_TABLE2 == FP16_6ENTRY_TABLE2 else 0x40400000
            high = ((0x3F000000 <= b) & (b < 0x3F800000)) | ((0x3FC00000 <= b) & (b < 0x40000000)) | (b >= cut)
            j = np.where(high, 16, 0).astype(U32)
            a = lut16_to_fp32(vu.gather(i, lanes, page) >> j)
            c = lut16_to_fp32(vu.gather(i + 4, lanes, page) >> j)
    else:
        a, c = vu.gather(i, lanes, page), vu.gather(i + 4, lanes, page)
    d = fma(a, b, c)
    if mod1 & SGN_RETAIN:
        d = (d & ~SIGN) | (l3 & SIGN)
    _result(vu, f["VD"], bool(mod1 & INDIRECT_VD), d, lanes, page)


UPPER = 1


@instruction("SFPMUL24", "SFPMUL24.md", MAD_FIELDS)
def sfpmul24(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPMUL24`` (BlackholeA0 SFPMUL24.md): the low or high 23 bits of a 23 x 23-bit product."""
    vu, mod1, page = cop.vector, f["Mod1"], "SFPMUL24.md"
    lanes = vu.lanes(active)
    if not np.count_nonzero(lanes):
        return
    a, b, c = _operands(vu, f, lanes, page)
    if (lanes & (c != 0)).any():
        raise NonContractualBehavior(f"SFPMUL24.md: LReg[VC={f['VC']}] is not zero; keep VC == 9")
    a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
    if mod1 & UPPER:
        d = ((a64 & 0x7FFFFF) * (b64 & 0x7FFFFF)) >> np.uint64(23)
    else:
        d = (a64 * b64) & np.uint64(0x7FFFFF)
    _result(vu, f["VD"], bool(mod1 & INDIRECT_VD), d.astype(U32), lanes, page)
