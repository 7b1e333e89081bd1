"""The ADCs (address counters of the unpackers and packers) and the instructions that set them.

Implements WormholeB0 ``TensixCoprocessor/ADCs.md`` (``ADCs[3]``: per thread, ``Unpacker[0]``,
``Unpacker[1]`` and ``Packers``, each with ``Channel[2]`` of ``X`` (18 bits), ``Y`` (13),
``Z`` (8), ``W`` (8) and their ``_Cr`` copies; assignments wrap at those widths) and
``SETADC.md``, ``SETADCXY.md``, ``SETADCZW.md``, ``SETADCXX.md``, ``INCADCXY.md``,
``INCADCZW.md``, ``ADDRCRXY.md``, ``ADDRCRZW.md``, ``REG2FLOP_ADC.md``.

Blackhole: tt-llk's assembly.yaml gives ``SETADCXY`` / ``SETADCZW`` / ``INCADC*`` / ``ADDRCR*``
no ``ThreadOverride`` field (bits 19:18 unnamed), so they act on the current thread's ADCs, as
ttsim v1.10.0 does (``addr_ctrl[pipe]``, tensix.cpp:3147-3383); ``SETADC`` keeps the
page's override in ``NewValue`` bits 17:16 (ttsim refuses it).  The ``ZW`` forms use the same
bits as the ``XY`` forms (``Z0Val`` where ``X0Val`` is, ...: the page layouts and ttsim agree).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import UndefinedBehavior

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

Executor = Callable[["Coprocessor", int, dict[str, int]], None]

X, Y, Z, W = range(4)
_DIM = {"X": X, "Y": Y, "Z": Z, "W": W}
UNPACKER0, UNPACKER1, PACKERS = range(3)
UNIT_NAMES = ("Unpacker[0]", "Unpacker[1]", "Packers")
MASKS = ((1 << 18) - 1, (1 << 13) - 1, 0xFF, 0xFF)


def _index(thread: int, unit: int, channel: int, dim: int) -> int:
    return ((thread * 3 + unit) * 2 + channel) * 4 + dim


class Adcs:
    """``ADCs[thread][unit].Channel[ch]``: the counters and their ``_Cr`` copies, kept in
    ``array('q')`` (each instruction reads and writes a few: indexing gives Python ints, which cost
    less than numpy scalars; the native push path, ``tdbg/native/unpack_pack.c``, writes them
    in place); ``value`` and ``cr`` show them as ``[thread, unit, ch, xyzw]`` arrays."""

    def __init__(self, threads: int) -> None:
        self.shape = (threads, len(UNIT_NAMES), 2, 4)  # thread, unit, channel, X/Y/Z/W
        self._value = array("q", bytes(8 * threads * 24))
        self._cr = array("q", bytes(8 * threads * 24))

    @property
    def value(self) -> np.ndarray:
        return np.array(self._value, dtype=np.int64).reshape(self.shape)

    @property
    def cr(self) -> np.ndarray:
        return np.array(self._cr, dtype=np.int64).reshape(self.shape)

    def reset(self) -> None:
        self._value[:] = self._cr[:] = array("q", bytes(8 * len(self._value)))

    def get(self, thread: int, unit: int, channel: int, dim: int) -> int:
        return self._value[((thread * 3 + unit) * 2 + channel) * 4 + dim]

    def channels(self, thread: int, unit: int) -> array:
        """``Channel[0]`` X, Y, Z, W, then ``Channel[1]`` X, Y, Z, W of one unit."""
        i = (thread * 3 + unit) * 8
        return self._value[i:i + 8]

    def step_yz(self, thread: int, unit: int, sides: tuple[tuple[int, int, int, int, int], ...]) -> None:
        """One ``AddrMod`` update of each channel, ``sides[ch]`` = (Y clear, Y CR, Y incr, Z clear,
        Z incr): ``Y = 0`` (and ``Y_Cr``), else ``Y_Cr += incr, Y = Y_Cr`` with CR, else ``Y +=
        incr``; ``Z = 0`` (and ``Z_Cr``), else ``Z += incr``."""
        v, cr = self._value, self._cr
        for ch, (y_clear, y_cr, y_incr, z_clear, z_incr) in enumerate(sides):
            i = (thread * 3 + unit) * 8 + ch * 4 + Y
            if y_clear:
                v[i] = cr[i] = 0
            elif y_cr:
                cr[i] = v[i] = (cr[i] + y_incr) & MASKS[Y]
            elif y_incr:
                v[i] = (v[i] + y_incr) & MASKS[Y]
            i += Z - Y
            if z_clear:
                v[i] = cr[i] = 0
            elif z_incr:
                v[i] = (v[i] + z_incr) & MASKS[Z]

    def set(self, thread: int, unit: int, channel: int, dim: int, value: int, cr: bool = True) -> None:
        """``Ch.D = value`` and (``cr``) ``Ch.D_Cr = value``, wrapped to the counter's width."""
        i, v = _index(thread, unit, channel, dim), value & MASKS[dim]
        self._value[i] = v
        if cr:
            self._cr[i] = v

    def add(self, thread: int, unit: int, channel: int, dim: int, inc: int) -> None:
        """``Ch.D += inc``."""
        if inc:
            i = ((thread * 3 + unit) * 2 + channel) * 4 + dim
            self._value[i] = (self._value[i] + inc) & MASKS[dim]

    def add_cr(self, thread: int, unit: int, channel: int, dim: int, inc: int) -> None:
        """``Ch.D_Cr += inc, Ch.D = Ch.D_Cr``."""
        i = _index(thread, unit, channel, dim)
        self._cr[i] = self._value[i] = (self._cr[i] + inc) & MASKS[dim]

    def clear(self, thread: int, unit: int, channel: int, dim: int) -> None:
        i = _index(thread, unit, channel, dim)
        self._value[i] = self._cr[i] = 0


def _units(f: dict[str, int]) -> list[int]:
    return [u for u, name in enumerate(("U0", "U1", "PK")) if f[name]]


def setadc(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SETADC`` (SETADC.md): one counter and its ``_Cr``; ``NewValue >> 16`` overrides the thread."""
    override = f["NewValue"] >> 16
    which = thread if override == 0 else override - 1
    if which >= cop.threads:
        raise UndefinedBehavior(f"SETADC.md: ThreadOverride {override} names no thread")
    for u in _units(f):
        cop.state.adcs.set(which, u, f["Channel"], f["XYZW"], f["NewValue"])


def _counters(f: dict[str, int], dims: str) -> Iterator[tuple[int, int, int, str]]:
    """(unit, channel, dim, field) for each counter an XY / ZW instruction addresses: the units
    ``f`` selects, both channels, the two ``dims``; ``field`` is the dim's name with the channel
    (``X0``), the prefix of its fields (``X0Val``, ``X0Inc``)."""
    for u in _units(f):
        for ch in (0, 1):
            for name in dims:
                yield u, ch, _DIM[name], f"{name}{ch}"


# The XY / ZW instructions: which counters an update writes (all, or those ``f`` selects), the
# field that gives the amount, and the ``Adcs`` method that applies it.
_UPDATES = {
    "set": (True, "Val", "set"),         # SETADCXY.md / SETADCZW.md: the counter and its _Cr = Val
    "add": (False, "Inc", "add"),        # INCADCXY.md / INCADCZW.md: D += Inc (not D_Cr)
    "add_cr": (True, "Inc", "add_cr"),   # ADDRCRXY.md / ADDRCRZW.md: D_Cr += Inc, D = D_Cr
}


def counter_update(update: str, dims: str) -> Executor:
    """The executor of ``SETADC``/``INCADC``/``ADDRCR`` ``XY`` or ``ZW`` (``_UPDATES``): for the
    counters of ``dims`` in both channels of the units ``f`` selects."""
    only_selected, amount, method = _UPDATES[update]

    def run(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
        apply = getattr(cop.state.adcs, method)
        for u, ch, dim, field in _counters(f, dims):
            if not only_selected or f[field]:
                apply(thread, u, ch, dim, f[field + amount])
    return run


def setadcxx(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SETADCXX`` (SETADCXX.md): ``Channel[0].X`` and ``Channel[1].X`` with their ``_Cr``."""
    adcs = cop.state.adcs
    for u in _units(f):
        adcs.set(thread, u, 0, X, f["X0Val"])
        adcs.set(thread, u, 1, X, f["X1Val"])
