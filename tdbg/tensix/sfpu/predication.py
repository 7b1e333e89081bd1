"""Lane predication: ``SFPSETCC``, ``SFPENCC``, ``SFPPUSHC``, ``SFPPOPC``, ``SFPCOMPC``, ``SFPLE``,
``SFPGT``.

Implements the BlackholeA0 pages of those names over ``LaneFlags``, ``UseLaneFlagsForLaneEnable``
and the per-lane ``FlagStack`` of eight entries (VectorUnit.md).  Blackhole's ``SFPPUSHC`` also
rewrites the stack top (``Mod1 != 0``), and its ``SFPPOPC`` no longer has Wormhole's full-stack bug.
``SFPENCC``, ``SFPPUSHC``, ``SFPPOPC`` and ``SFPCOMPC`` act on every lane, enabled or not; a push
onto a full stack, a pop of an empty one and a top rewrite of an empty one are undefined behaviour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import UndefinedBehavior
from tdbg.tensix.sfpu.numerics import sign_mag_is_smaller
from tdbg.tensix.sfpu.vector_unit import ALL, LANE, STACK_DEPTH, VectorUnit, instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor


def boolean_op(mod1: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``BooleanOp`` of SFPPOPC.md / SFPPUSHC.md, ``Mod1`` 1..12."""
    return {
        1: lambda: b, 2: lambda: ~b, 3: lambda: a & b, 4: lambda: a | b, 5: lambda: a & ~b,
        6: lambda: a | ~b, 7: lambda: ~a & b, 8: lambda: ~a | b, 9: lambda: ~a & ~b, 10: lambda: ~a | ~b,
        11: lambda: a != b, 12: lambda: a == b,
    }[mod1]()


def _lanes(active: np.ndarray | None) -> np.ndarray:
    return ALL if active is None else active


#: SFPSETCC's comparison of ``VC`` (two's complement) with zero, by ``Mod1``
_SETCC_TESTS = {0: np.less, 2: np.not_equal, 4: np.greater_equal, 6: np.equal}


@instruction("SFPSETCC", "SFPSETCC.md", ("Mod1", "VC", "Imm1"))
def sfpsetcc(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSETCC`` (SFPSETCC.md): in enabled lanes, ``LaneFlags`` from ``VC < 0`` / ``!= 0`` /
    ``>= 0`` / ``== 0`` (two's complement), from ``Imm1``, or false; always false where
    ``UseLaneFlagsForLaneEnable`` is false."""
    vu, mod1 = cop.vector, f["Mod1"]
    lanes = vu.lanes(active)
    use = vu.use_lane_flags
    if mod1 & 8:
        flags = np.zeros(32, dtype=bool)
    elif mod1 & 1:
        flags = np.full(32, f["Imm1"] != 0)
    else:
        c = vu.read(f["VC"], lanes & use, "SFPSETCC.md").view(np.int32)
        flags = _SETCC_TESTS[mod1](c, 0)
    np.copyto(vu.lane_flags, flags & use, where=lanes)


EC, EI, RI = 1, 2, 8


@instruction("SFPENCC", "SFPENCC.md", ("Mod1", "Imm2"))
def sfpencc(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPENCC`` (SFPENCC.md): set or invert ``UseLaneFlagsForLaneEnable``, and set
    ``LaneFlags`` (to ``Imm2`` bit 1 with ``SFPENCC_MOD1_RI``, else true), in every lane."""
    vu, mod1, imm = cop.vector, f["Mod1"], f["Imm2"]
    lanes = _lanes(active)
    if mod1 & EI:
        np.copyto(vu.use_lane_flags, bool(imm & 1), where=lanes)
    elif mod1 & EC:
        np.copyto(vu.use_lane_flags, ~vu.use_lane_flags, where=lanes)
    np.copyto(vu.lane_flags, bool(imm & 2) if mod1 & RI else True, where=lanes)


@instruction("SFPPUSHC", "SFPPUSHC.md", ("Mod1",))
def sfppushc(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPPUSHC`` (BlackholeA0 SFPPUSHC.md): push ``{LaneFlags, UseLaneFlagsForLaneEnable}``
    (``Mod1`` 0), or rewrite the stack top from the current state (1..15)."""
    vu, mod1 = cop.vector, f["Mod1"]
    lanes = _lanes(active)
    if mod1 == 0:
        if (lanes & (vu.stack_size >= STACK_DEPTH)).any():
            raise UndefinedBehavior("SFPPUSHC.md: push onto a full flag stack (8 entries)")
        where = vu.stack_size.astype(np.intp)[lanes]
        vu.stack[where, 0, LANE[lanes]] = vu.lane_flags[lanes]
        vu.stack[where, 1, LANE[lanes]] = vu.use_lane_flags[lanes]
        vu.stack_size[lanes] += 1
        return
    top_flags, top_use, nonempty = vu.top()
    if (lanes & ~nonempty).any():
        raise UndefinedBehavior(f"SFPPUSHC.md: Mod1 {mod1} rewrites the top of an empty flag stack")
    if mod1 <= 12:
        top_use, top_flags = vu.use_lane_flags, boolean_op(mod1, top_flags, vu.lane_flags)
    elif mod1 == 13:
        np.copyto(vu.lane_flags, ~vu.lane_flags, where=lanes)
        top_use, top_flags = vu.use_lane_flags, vu.lane_flags
    else:
        top_use, top_flags = ALL, np.full(32, mod1 == 14)
    vu.set_top(top_flags, top_use, lanes)


@instruction("SFPPOPC", "SFPPOPC.md", ("Mod1",))
def sfppopc(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPPOPC`` (BlackholeA0 SFPPOPC.md): pop ``{LaneFlags, UseLaneFlagsForLaneEnable}``
    (``Mod1`` 0), or combine the current state with the stack top (1..15, an empty stack's top
    being false / false)."""
    vu, mod1 = cop.vector, f["Mod1"]
    lanes = _lanes(active)
    top_flags, top_use, nonempty = vu.top()
    top_flags, top_use = top_flags & nonempty, top_use & nonempty
    if mod1 == 0:
        if (lanes & ~nonempty).any():
            raise UndefinedBehavior("SFPPOPC.md: pop of an empty flag stack")
        vu.stack_size[lanes] -= 1
        use, flags = top_use, top_flags
    elif mod1 <= 12:
        use, flags = top_use, boolean_op(mod1, vu.lane_flags, top_flags)
    elif mod1 == 13:
        use, flags = vu.use_lane_flags, ~vu.lane_flags
    else:
        use, flags = ALL, np.full(32, mod1 == 14)
    np.copyto(vu.use_lane_flags, use, where=lanes)
    np.copyto(vu.lane_flags, flags, where=lanes)


@instruction("SFPCOMPC", "SFPCOMPC.md", ())
def sfpcompc(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPCOMPC`` (SFPCOMPC.md): ``else`` of SIMT ``if``: ``LaneFlags = Top.LaneFlags &&
    !LaneFlags`` where both ``UseLaneFlagsForLaneEnable`` are set (an empty stack's top being
    true / true), else false."""
    vu = cop.vector
    top_flags, top_use, nonempty = vu.top()
    top_flags, top_use = top_flags | ~nonempty, top_use | ~nonempty
    flags = np.where(top_use & vu.use_lane_flags, top_flags & ~vu.lane_flags, False)
    np.copyto(vu.lane_flags, flags, where=_lanes(active))


SET_CC, MUTATE_STACK, MUTATE_OR, SET_VD = 1, 2, 4, 8


def _compare(vu: VectorUnit, f: dict[str, int], active: np.ndarray | None, greater: bool, page: str) -> None:
    """The functional model shared by SFPGT.md (``VD > VC``) and SFPLE.md (``VD <= VC``)."""
    mod1, vd = f["Mod1"], f["VD"]
    scope = _lanes(active)
    enabled = vu.lanes(active)
    _, _, nonempty = vu.top()
    needed = (enabled if mod1 & (SET_CC | SET_VD) else ~ALL) | (scope & nonempty if mod1 & MUTATE_STACK else ~ALL)
    c, d = vu.read(f["VC"], needed, page), vu.read(vd, needed, page)
    smaller = sign_mag_is_smaller(c, d)
    result = smaller if greater else ~smaller
    if mod1 & SET_VD and vu.writable(vd):
        vu.write(vd, np.where(result, 0xFFFFFFFF, 0), enabled)
    if mod1 & SET_CC:
        np.copyto(vu.lane_flags, result, where=enabled)
    if mod1 & MUTATE_STACK:
        top_flags, top_use, nonempty = vu.top()
        top_flags = top_flags | result if mod1 & MUTATE_OR else top_flags & result
        vu.set_top(top_flags, top_use, scope & nonempty)


@instruction("SFPGT", "SFPGT.md", ("Mod1", "VC"))
def sfpgt(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPGT`` (BlackholeA0 SFPGT.md): ``VD > VC`` as sign-magnitude integers (FP32 total order),
    into ``VD`` (-1 / 0), ``LaneFlags`` and/or the stack top's ``LaneFlags`` (and / or)."""
    _compare(cop.vector, f, active, True, "SFPGT.md")


@instruction("SFPLE", "SFPLE.md", ("Mod1", "VC"))
def sfple(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLE`` (BlackholeA0 SFPLE.md): ``VD <= VC``, otherwise as ``SFPGT``."""
    _compare(cop.vector, f, active, False, "SFPLE.md")
