"""Simple sub-unit integer, bitwise and FP32 field instructions: ``SFPABS``, ``SFPAND``,
``SFPOR``, ``SFPXOR``, ``SFPNOT``, ``SFPLZ``, ``SFPIADD``, ``SFPSHFT``, ``SFPDIVP2``,
``SFPEXEXP``, ``SFPEXMAN``, ``SFPSETEXP``, ``SFPSETMAN``, ``SFPSETSGN``.

Implements the BlackholeA0 pages of those names (``SFPAND``, ``SFPOR`` and ``SFPSHFT`` have
Blackhole-only modifiers; the others are shared with Wormhole).  Every one writes ``LReg[VD]`` only
for ``VD < 8`` and only in enabled lanes; the ``LaneFlags`` an instruction sets are set in the same
lanes.  Modifier bits a functional model does not read have no effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import MissingSpecification, NonContractualBehavior
from tdbg.tensix.sfpu.vector_unit import VectorUnit, instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

U32 = np.uint32
SIGN = U32(0x80000000)
SIMPLE = ("Mod1", "VC")


def _set_flags(vu: VectorUnit, vd: int, flags: np.ndarray, lanes: np.ndarray) -> None:
    """``LaneFlags = flags`` in ``lanes`` (the pages do it only when ``VD < 8``)."""
    if vd < 8:
        np.copyto(vu.lane_flags, flags, where=lanes)


@instruction("SFPABS", "SFPABS.md", SIMPLE)
def sfpabs(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPABS`` (BlackholeA0 SFPABS.md): two's complement ``abs`` (``-2**31`` stays), or FP32
    ``abs`` with ``SFPABS_MOD1_FLOAT`` that leaves -NaN alone."""
    vu, vd = cop.vector, f["VD"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    x = vu.read(f["VC"], lanes, "SFPABS.md")
    negative = x >= SIGN
    if f["Mod1"] & 1:
        result = np.where(negative & (x <= 0xFF800000), x & ~SIGN, x)
    else:
        result = np.where(negative, (-x.astype(np.int64)) & 0xFFFFFFFF, x)
    vu.write(vd, result, lanes)


def _bitwise(cop: Coprocessor, f: dict[str, int], active: np.ndarray | None, vb: int, op: str, page: str) -> None:
    vu, vd = cop.vector, f["VD"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    b, c = vu.read(vb, lanes, page), vu.read(f["VC"], lanes, page)
    vu.write(vd, {"and": b & c, "or": b | c, "xor": b ^ c}[op], lanes)


@instruction("SFPAND", "SFPAND.md", ("Mod1", "VC", "VB"))
def sfpand(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPAND`` (BlackholeA0 SFPAND.md): ``VD = VB & VC``, ``VB`` being ``VD`` unless
    ``SFPAND_MOD1_USE_VB``."""
    _bitwise(cop, f, active, f["VB"] if f["Mod1"] & 1 else f["VD"], "and", "SFPAND.md")


@instruction("SFPOR", "SFPOR.md", ("Mod1", "VC", "VB"))
def sfpor(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPOR`` (BlackholeA0 SFPOR.md): ``VD = VB | VC``, ``VB`` being ``VD`` unless
    ``SFPOR_MOD1_USE_VB``."""
    _bitwise(cop, f, active, f["VB"] if f["Mod1"] & 1 else f["VD"], "or", "SFPOR.md")


@instruction("SFPXOR", "SFPXOR.md", ("VC",))
def sfpxor(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPXOR`` (SFPXOR.md): ``VD ^= VC``."""
    _bitwise(cop, f, active, f["VD"], "xor", "SFPXOR.md")


@instruction("SFPNOT", "SFPNOT.md", ("VC",))
def sfpnot(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPNOT`` (SFPNOT.md): ``VD = ~VC``."""
    vu, vd = cop.vector, f["VD"]
    if vu.writable(vd):
        lanes = vu.lanes(active)
        vu.write(vd, ~vu.read(f["VC"], lanes, "SFPNOT.md"), lanes)


@instruction("SFPLZ", "SFPLZ.md", SIMPLE)
def sfplz(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLZ`` (SFPLZ.md): count leading zeros (32 for zero), optionally of the magnitude only;
    ``LaneFlags`` from ``VC != 0`` and/or inverted."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPLZ.md")
    if mod1 & 4:  # SFPLZ_MOD1_NOSGN_MASK
        c = c & ~SIGN
    vu.write(vd, 32 - np.frexp(c.astype(np.float64))[1], lanes)
    flags = vu.lane_flags.copy()
    if mod1 & 2:  # SFPLZ_MOD1_CC_NE0
        flags = c != 0
    if mod1 & 8:  # SFPLZ_MOD1_CC_COMP
        flags = ~flags
    if mod1 & 10:
        _set_flags(vu, vd, flags, lanes)


@instruction("SFPIADD", "SFPIADD.md", ("Mod1", "VC", "Imm12"))
def sfpiadd(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPIADD`` (SFPIADD.md): ``VD = VC + VD``, ``VC - VD`` or ``VC + SignExtend(Imm12)``,
    wrapping; ``LaneFlags`` from the sign of the result unless ``SFPIADD_MOD1_CC_NONE``."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPIADD.md").astype(np.int64)
    if mod1 & 1:
        result = c + f["Imm12"]
    else:
        b = vu.read(vd, lanes, "SFPIADD.md").astype(np.int64)
        result = c - b if mod1 & 2 else c + b
    result = (result & 0xFFFFFFFF).astype(U32)
    vu.write(vd, result, lanes)
    flags = vu.lane_flags.copy() if mod1 & 4 else result >= SIGN
    if mod1 & 8:
        flags = ~flags
    if mod1 & 12 != 4:
        _set_flags(vu, vd, flags, lanes)


@instruction("SFPSHFT", "SFPSHFT.md", ("Mod1", "VC", "Imm12"))
def sfpshft(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSHFT`` (BlackholeA0 SFPSHFT.md): ``VD`` (or ``VC`` with ``SFPSHFT_MOD1_ARG_IMM_USE_VC``)
    shifted left, or right logically or arithmetically, by ``VC`` or ``Imm12``."""
    vu, vd, mod1, page = cop.vector, f["VD"], f["Mod1"], "SFPSHFT.md"
    if mod1 > 7 or mod1 in (4, 6):
        raise NonContractualBehavior(f"{page}: Mod1 {mod1} is reserved")
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    if mod1 & 1:
        x = vu.read(f["VC"] if mod1 & 4 else vd, lanes, page)
        amount = np.full(32, f["Imm12"], dtype=np.int64)
    else:
        x = vu.read(vd, lanes, page)
        amount = vu.read(f["VC"], lanes, page).view(np.int32).astype(np.int64)
    left = (x.astype(np.uint64) << (amount & 31).astype(np.uint64)) & 0xFFFFFFFF
    right = (-amount) & 31
    if mod1 & 2:
        down = (x.view(np.int32).astype(np.int64) >> right) & 0xFFFFFFFF
    else:
        down = x.astype(np.int64) >> right
    vu.write(vd, np.where(amount >= 0, left.astype(np.int64), down), lanes)


@instruction("SFPDIVP2", "SFPDIVP2.md", ("Mod1", "VC", "Imm8", "_reserved"))
def sfpdivp2(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPDIVP2`` (SFPDIVP2.md): replace the FP32 exponent by ``Imm8``, or add ``Imm8`` to it
    (wrapping, leaving Inf/NaN) with ``SFPDIVP2_MOD1_ADD``.  Bits 23:20 may only repeat the sign of
    ``Imm8`` (``Imm8`` as the low byte of a signed 12-bit immediate: ttsim v1.10.0
    tensix.cpp:3657)."""
    vu, vd = cop.vector, f["VD"]
    high, imm = f.get("_reserved", 0) >> 20, f["Imm8"]
    if high and not (high == 0xF and imm & 0x80):
        raise MissingSpecification(f"SFPDIVP2.md: bits 23:20 = {high:#x} with Imm8 {imm:#x}; only a sign extension is known")
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPDIVP2.md")
    exp = (c >> 23) & 0xFF
    if f["Mod1"] & 1:
        exp = np.where(exp == 255, exp, (exp + imm) & 0xFF)
    else:
        exp = np.full(32, imm, dtype=U32)
    vu.write(vd, (c & 0x807FFFFF) | (exp.astype(U32) << 23), lanes)


@instruction("SFPEXEXP", "SFPEXEXP.md", SIMPLE)
def sfpexexp(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPEXEXP`` (SFPEXEXP.md): the FP32 exponent, minus 127 unless
    ``SFPEXEXP_MOD1_NODEBIAS``; ``LaneFlags`` from its sign and/or inverted."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    exp = ((vu.read(f["VC"], lanes, "SFPEXEXP.md") >> 23) & 0xFF).astype(np.int64) - (0 if mod1 & 1 else 127)
    vu.write(vd, exp & 0xFFFFFFFF, lanes)
    flags = vu.lane_flags.copy()
    if mod1 & 2:
        flags = exp < 0
    if mod1 & 8:
        flags = ~flags
    if mod1 & 10:
        _set_flags(vu, vd, flags, lanes)


@instruction("SFPEXMAN", "SFPEXMAN.md", SIMPLE)
def sfpexman(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPEXMAN`` (SFPEXMAN.md): the FP32 mantissa with the hidden bit (0 with
    ``SFPEXMAN_MOD1_PAD9``)."""
    vu, vd = cop.vector, f["VD"]
    if vu.writable(vd):
        lanes = vu.lanes(active)
        man = vu.read(f["VC"], lanes, "SFPEXMAN.md") & 0x7FFFFF
        vu.write(vd, man if f["Mod1"] & 1 else man | 0x800000, lanes)


@instruction("SFPSETEXP", "SFPSETEXP.md", ("Mod1", "VC", "Imm8"))
def sfpsetexp(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSETEXP`` (SFPSETEXP.md): ``VC``'s sign and mantissa with the exponent from ``Imm8``,
    ``VD``'s exponent, or ``VD``'s low 8 bits."""
    vu, vd, mod1 = cop.vector, f["VD"], f["Mod1"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPSETEXP.md")
    if mod1 & 1:
        exp = np.full(32, f["Imm8"], dtype=U32)
    else:
        b = vu.read(vd, lanes, "SFPSETEXP.md")
        exp = (b >> 23) & 0xFF if mod1 & 2 else b & 0xFF
    vu.write(vd, (c & 0x807FFFFF) | (exp << 23), lanes)


@instruction("SFPSETMAN", "SFPSETMAN.md", ("Mod1", "VC", "Imm12"))
def sfpsetman(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSETMAN`` (SFPSETMAN.md): ``VC``'s sign and exponent with the mantissa ``Imm12 << 11``
    or ``VD``'s low 23 bits."""
    vu, vd = cop.vector, f["VD"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPSETMAN.md")
    if f["Mod1"] & 1:
        man = np.full(32, f["Imm12"] << 11, dtype=U32)
    else:
        man = vu.read(vd, lanes, "SFPSETMAN.md") & 0x7FFFFF
    vu.write(vd, (c & 0xFF800000) | man, lanes)


@instruction("SFPSETSGN", "SFPSETSGN.md", ("Mod1", "VC", "Imm1"))
def sfpsetsgn(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSETSGN`` (SFPSETSGN.md): ``VC``'s exponent and mantissa with the sign ``Imm1`` or
    ``VD``'s sign."""
    vu, vd = cop.vector, f["VD"]
    if not vu.writable(vd):
        return
    lanes = vu.lanes(active)
    c = vu.read(f["VC"], lanes, "SFPSETSGN.md")
    if f["Mod1"] & 1:
        sign = U32(f["Imm1"] << 31)
    else:
        sign = vu.read(vd, lanes, "SFPSETSGN.md") & SIGN
    vu.write(vd, (c & ~SIGN) | sign, lanes)
