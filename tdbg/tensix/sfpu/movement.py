"""Data movement and configuration: ``SFPMOV``, ``SFPSWAP``, ``SFPTRANSP``, ``SFPSHFT2``,
``SFPCONFIG``, ``SFPNOP``.

Implements the BlackholeA0 pages of those names (``SFPMOV``, ``SFPTRANSP`` and ``SFPNOP`` are shared
with Wormhole; Blackhole's ``SFPSHFT2_MOD1_SUBVEC_SHFLSHR1`` fills with zero, its ``SFPSWAP`` has
mode 9, its ``SFPCONFIG`` default for ``LReg[12]`` is 1/512).  The cross-lane moves follow the
``lane_transform`` functions of ``Diagrams/Src/CrossLane.lua`` (the pages' pseudo-code).  Moves
carry the defined flags of what they move (see ``state``).  ``SFPMOV`` from the PRNG
(``SFPMOV_MOD1_FROM_SPECIAL``, ``VC == 9``) raises ``UnsupportedFunctionality``: no page gives the
PRNG's state (see ``convert``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import (
    MissingSpecification,
    NonContractualBehavior,
    UndefinedBehavior,
    UnpredictableValueUsed,
    UnsupportedFunctionality,
)
from tdbg.tensix.sfpu.numerics import sign_mag_is_smaller
from tdbg.tensix.sfpu.vector_unit import (
    ALL,
    DISABLE_BACKDOOR_LOAD,
    ENABLE_DEST_INDEX,
    EXCHANGE_SRCB_SRCC,
    FULL,
    LANE,
    VectorUnit,
    instruction,
)

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

U32 = np.uint32
NEGATE, ALL_LANES_ENABLED, FROM_SPECIAL = 1, 2, 8


def _copy(vu: VectorUnit, dst: int, src: int, lanes: np.ndarray, values: np.ndarray | None = None) -> None:
    """``LReg[dst] = LReg[src]`` (or ``values`` with ``LReg[src]``'s defined flags) in ``lanes``."""
    vu.write(dst, vu.lreg[src].copy() if values is None else values, lanes, vu.defined[src].copy())


def _special(vu: VectorUnit, vc: int, lanes: np.ndarray) -> np.ndarray:
    """The configuration ``SFPMOV_MOD1_FROM_SPECIAL`` reads (SFPMOV.md)."""
    if vc == 9:
        raise UnsupportedFunctionality("SFPMOV.md: reading the PRNG (VC=9), whose state tdbg does not model")
    if vc == 15:
        return vu.lane_config.copy()
    if vc > 8:
        return np.zeros(32, dtype=U32)
    if (lanes & ~vu.macro_defined[vc]).any():
        raise UnpredictableValueUsed(f"SFPMOV.md: LoadMacroConfig {_MACRO_NAMES[vc]} was never written")
    return (vu.template[vc] if vc < 4 else vu.sequence[vc - 4] if vc < 8 else vu.misc).copy()


_MACRO_NAMES = [f"InstructionTemplate[{i}]" for i in range(4)] + [f"Sequence[{i}]" for i in range(4)] + ["Misc"]


@instruction("SFPMOV", "SFPMOV.md", ("Mod1", "VC"))
def sfpmov(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPMOV`` (SFPMOV.md): ``VD = VC`` (sign inverted with ``SFPMOV_MOD1_NEGATE``; in every lane
    with ``Mod1 == SFPMOV_MOD1_ALL_LANES_ENABLED``), or ``VD`` = a configuration register."""
    vu, vd, vc, mod1 = cop.vector, f["VD"], f["VC"], f["Mod1"]
    if mod1 & 4:
        raise NonContractualBehavior("SFPMOV.md: Mod1 bit 2 is reserved")
    lanes = (ALL if active is None else active) if mod1 == ALL_LANES_ENABLED else vu.lanes(active)
    if mod1 & FROM_SPECIAL:
        value = _special(vu, vc, lanes)
        if vu.writable(vd):
            vu.write(vd, value, lanes)
    elif vu.writable(vd):
        _copy(vu, vd, vc, lanes, vu.lreg[vc] ^ U32(0x80000000) if mod1 & NEGATE else None)


# VDGetsMin per SFPSWAP Mod1 (SFPSWAP.md); 0 is the unconditional swap.
_VD_GETS_MIN = {1: 0xFFFFFFFF, 2: 0x0000FFFF, 3: 0x00FF00FF, 4: 0xFF0000FF, 5: 0x000000FF, 6: 0x0000FF00,
                7: 0x00FF0000, 8: 0xFF000000, 9: 0x00000000}


@instruction("SFPSWAP", "SFPSWAP.md", ("Mod1", "VC"), affected=False)
def sfpswap(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSWAP`` (BlackholeA0 SFPSWAP.md): swap ``VC`` and ``VD``, or order them (min / max by the
    sign-magnitude / FP32 total order, per lane group as ``Mod1`` says), carrying ``LReg[4..7]``
    along with ``ENABLE_DEST_INDEX`` (argmin / argmax)."""
    vu, vc, vd, mod1 = cop.vector, f["VC"], f["VD"], f["Mod1"]
    if mod1 > 9:
        raise NonContractualBehavior(f"SFPSWAP.md: Mod1 {mod1} has no contract (silicon: as Mod1 9)")
    lanes = vu.lanes(active)
    if mod1:
        c, d = vu.read(vc, lanes, "SFPSWAP.md"), vu.read(vd, lanes, "SFPSWAP.md")
        vd_gets_min = (_VD_GETS_MIN[mod1] >> LANE) & 1 != 0
        smaller = sign_mag_is_smaller(c, d)
        swap = np.where(vd_gets_min, smaller, ~smaller) ^ vu.config_bit(EXCHANGE_SRCB_SRCC)
        lanes = lanes & swap
    if not lanes.any():
        return
    index = vu.config_bit(ENABLE_DEST_INDEX)
    c_val, c_def = vu.lreg[vc].copy(), vu.defined[vc].copy()
    d_val, d_def = vu.lreg[vd].copy(), vu.defined[vd].copy()
    for part, limit in ((lanes & ~index, 8), (lanes & index, 4)):
        if not part.any():
            continue
        if vc < limit:
            vu.write(vc, d_val, part, d_def)
        if vd < limit:
            vu.write(vd, c_val, part, c_def)
        if limit == 4:  # argmin / argmax: swap the index registers as well
            ca, da = 4 + (vc & 3), 4 + (vd & 3)
            ca_val, ca_def = vu.lreg[ca].copy(), vu.defined[ca].copy()
            _copy(vu, ca, da, part)
            vu.write(da, ca_val, part, ca_def)


@instruction("SFPTRANSP", "SFPTRANSP.md", (), affected=False)
def sfptransp(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPTRANSP`` (SFPTRANSP.md): viewing ``LReg[0..3]`` (and ``LReg[4..7]``) as 4 registers x 4
    lane rows x 8 columns, swap register and lane row in every column; a lane that is not enabled
    keeps its value."""
    vu = cop.vector
    lanes = vu.lanes(active).reshape(4, 8)
    for base in (0, 4):
        regs = slice(base, base + 4)
        for array in (vu.lreg, vu.defined):
            block = array[regs].reshape(4, 4, 8)
            array[regs] = np.where(lanes, block.transpose(1, 0, 2), block).reshape(4, 32)
        for r in range(base, base + 4):
            vu.full[r] = bool((vu.defined[r] == FULL).all())


COPY4, CHAINED_COPY4, SHFLROR1_AND_COPY4, SHFLROR1, SHFLSHR1, SHFT_LREG, SHFT_IMM = range(7)
_ROR1 = np.where(LANE & 7, LANE - 1, LANE + 7)   # each lane's source when rotating right by one


@instruction("SFPSHFT2", "SFPSHFT2.md", ("Mod1", "VC", "Imm12"))
def sfpshft2(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSHFT2`` (BlackholeA0 SFPSHFT2.md): ``LReg[0..3]`` moved down one register (``Mod1`` 0-2,
    ``LReg[3]`` taking zero, ``LReg[0]`` eight lanes on, or ``VC`` rotated one lane right in each
    group of eight), ``VC`` rotated or shifted (zero fill) one lane right into ``VD`` (3, 4), or
    ``VB = Imm12 & 15`` shifted by ``VC`` or by ``Imm12`` (5, 6)."""
    vu, vd, vc, mod1, imm = cop.vector, f["VD"], f["VC"], f["Mod1"], f["Imm12"]
    page = "SFPSHFT2.md"
    if mod1 > SHFT_IMM:
        raise UndefinedBehavior(f"{page}: Mod1 {mod1} is not a SFPSHFT2_MOD1_* value")
    if mod1 == SHFT_LREG and imm >> 4:
        raise MissingSpecification(f"{page}: SFPSHFT2_MOD1_SHFT_LREG with bits 23:16 = {(imm >> 4) & 0xFF:#x} (only VB, bits 15:12, is defined)")
    lanes = vu.lanes(active)
    if mod1 <= SHFLROR1_AND_COPY4:
        values, defined = vu.lreg[:4].copy(), vu.defined[:4].copy()
        if mod1 == COPY4:
            last, last_defined = np.zeros(32, dtype=U32), np.full(32, FULL, dtype=np.uint8)
        elif mod1 == CHAINED_COPY4:
            below = np.minimum(LANE + 8, 31)
            last = np.where(LANE < 24, values[0][below], 0)
            last_defined = np.where(LANE < 24, defined[0][below], FULL)
        else:
            last, last_defined = vu.lreg[vc][_ROR1], vu.defined[vc][_ROR1]
        for r in range(3):
            vu.write(r, values[r + 1], lanes, defined[r + 1])
        vu.write(3, last, lanes, last_defined)
    elif not vu.writable(vd):
        return
    elif mod1 == SHFLROR1:
        vu.write(vd, vu.lreg[vc][_ROR1], lanes, vu.defined[vc][_ROR1])
    elif mod1 == SHFLSHR1:
        src = np.maximum(LANE - 1, 0)
        edge = (LANE & 7) == 0
        vu.write(vd, np.where(edge, 0, vu.lreg[vc][src]), lanes, np.where(edge, FULL, vu.defined[vc][src]))
    else:
        vb = imm & 15
        amount = (vu.read(vc, lanes, page).view(np.int32).astype(np.int64) if mod1 == SHFT_LREG
                  else np.full(32, imm, dtype=np.int64))
        b = vu.read(vb, lanes, page).astype(np.uint64)
        left = (b << (amount & 31).astype(np.uint64)) & np.uint64(0xFFFFFFFF)
        right = b >> ((-amount) & 31).astype(np.uint64)
        vu.write(vd, np.where(amount >= 0, left, right), lanes)


IMM16_IS_VALUE, IMM16_IS_LANE_MASK = 1, 8
#: SFPCONFIG's defaults for LReg[11..14] with MOD1_IMM16_IS_VALUE (BlackholeA0 SFPCONFIG.md).
DEFAULTS = {11: np.float32(-1.0), 12: np.float32(1 / 512), 13: np.float32(-0.67487759), 14: np.float32(-0.34484843)}


def _combine(old: np.ndarray, value: np.ndarray, op: int) -> np.ndarray:
    """``Mod1 & 6``: 0 set, 2 or, 4 and, 6 xor."""
    return {0: value, 2: old | value, 4: old & value, 6: old ^ value}[op]


@instruction("SFPCONFIG", "SFPCONFIG.md", ("Mod1", "Imm16", "VD"), vd=None, affected=False)
def sfpconfig(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPCONFIG`` (BlackholeA0 SFPCONFIG.md): write ``LoadMacroConfig`` (``VD`` 0-8), ``LReg[11..14]``
    or ``LaneConfig`` (15) from ``LReg[0]`` lanes 0-7 (broadcast to the four lane rows) or
    ``Imm16``, in the lanes ``MOD1_IMM16_IS_LANE_MASK`` and column 0-7 lane flags allow."""
    vu, vd, mod1, imm = cop.vector, f["VD"], f["Mod1"], f["Imm16"]
    if vd in (9, 10):
        raise NonContractualBehavior(f"SFPCONFIG.md: VD {vd} has no contract (silicon: no effect)")
    column = LANE & 7
    lanes = ~(vu.use_lane_flags[column] & ~vu.lane_flags[column])
    if mod1 & IMM16_IS_LANE_MASK:
        lanes &= (imm >> (column * 2)) & 1 != 0
    if vd < 4 or not mod1 & IMM16_IS_VALUE:
        used = np.zeros(32, dtype=bool)
        used[np.unique(column[lanes])] = True   # lanes 0-7 of LReg[0] feed every lane row
        value = vu.read(0, used, "SFPCONFIG.md")[column]
    else:
        value = np.full(32, imm, dtype=U32)
    if vd < 4:
        vu.template[vd][lanes] = value[lanes]
        vu.macro_defined[vd][lanes] = True
    elif vd < 8:
        vu.sequence[vd - 4][lanes] = value[lanes]
        vu.macro_defined[vd][lanes] = True
    elif vd == 8:
        if mod1 & 6 and (lanes & ~vu.macro_defined[8]).any():
            raise UnpredictableValueUsed("SFPCONFIG.md: combining with LoadMacroConfig Misc, which was never written")
        vu.misc[lanes] = _combine(vu.misc, value & 0xFFF, mod1 & 6)[lanes]
        vu.macro_defined[8][lanes] = True
    elif vd < 15:
        if mod1 & IMM16_IS_VALUE:
            value = np.full(32, DEFAULTS[vd].view(U32), dtype=U32)
        vu.write(vd, value, lanes)
    else:
        before = vu.lane_config.copy()
        config = _combine(before, value & 0x3FFFF, mod1 & 6)
        if mod1 & IMM16_IS_VALUE:
            config |= before & ~U32(0xFFFF)
        vu.lane_config[lanes] = config[lanes]
        vu.backdoor_changed = bool(((before ^ vu.lane_config) & DISABLE_BACKDOOR_LOAD).any())


@instruction("SFPNOP", "SFPNOP.md", (), vd=None, affected=False)
def sfpnop(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPNOP`` (SFPNOP.md): no effect."""
