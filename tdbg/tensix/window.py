"""The RISC-V view of ``Dst`` at ``0xFFBD8000`` (Blackhole), per core T0 / T1 / T2.

Implements BlackholeA0 ``TensixCoprocessor/Dst.md`` "RISCV access to Dst": ``Load32``,
``Load16``, ``Load8``, ``Store32``, ``Store16``, ``Store8`` under the issuing core's
``RISC_DEST_ACCESS_CTRL_SEC{n}_fmt / _no_swizzle / _unsigned_int`` (read from the Config bank
that ``ThreadConfig[n].CFG_STATE_ID_StateID`` selects), quirks included.  Every path the page
leaves undefined raises ``UndefinedBehavior`` instead of producing a value.

T0 and T1 access one element per load/store: the access width picks the function (``lw``/``sw``
→ 32, ``lh``/``sh`` → 16, ``lb``/``sb`` → 8).  T2 may access several aligned elements at once;
its access is split into the elements ``fmt`` defines.  What each ``fmt`` value is (its element
size and the number view it converts to) is the profile's table (``WindowSpec``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tdbg.arch.profile import WindowFormat, WindowSpec
from tdbg.tensix.config import TensixConfig
from tdbg.tensix.dst import Dst
from tdbg.tensix.events import UndefinedBehavior


@dataclass(frozen=True, slots=True)
class AccessCtrl:
    """``RISC_DEST_ACCESS_CTRL_SEC[core]`` as the window sees it: ``fmt``, and what it means
    (``element``: bytes per element, 0 for a reserved value; ``view``: "" for a reserved value)."""

    fmt: int
    no_swizzle: bool
    unsigned_int: bool
    element: int
    view: str
    name: str


def _ub(function: str, ctrl: AccessCtrl) -> UndefinedBehavior:
    return UndefinedBehavior(f"Dst.md {function}: fmt {ctrl.fmt} ({ctrl.name}) leaves this access undefined")


class DstWindow:
    """Load/Store functions of the window, for each core T0 (0), T1 (1), T2 (2)."""

    def __init__(self, dst: Dst, config: TensixConfig, spec: WindowSpec, threads: int) -> None:
        self.dst = dst
        self.config = config
        self.spec = spec
        self._formats = {f.code: f for f in spec.formats}
        self._ctrl: list[AccessCtrl | None] = [None] * threads
        config.on_change(self._invalidate, [f"RISC_DEST_ACCESS_CTRL_SEC{core}_{name}" for core in range(threads)
                                            for name in ("fmt", "no_swizzle", "unsigned_int")])

    def _invalidate(self) -> None:
        self._ctrl = [None] * len(self._ctrl)

    def format(self, fmt: int) -> WindowFormat | None:
        """What ``fmt`` means (None: a reserved value)."""
        return self._formats.get(fmt)

    def ctrl(self, core: int) -> AccessCtrl:
        """The core's ``RISC_DEST_ACCESS_CTRL_SEC`` fields in its current Config bank."""
        ctrl = self._ctrl[core]
        if ctrl is None:
            get = self.config.get
            sec = f"RISC_DEST_ACCESS_CTRL_SEC{core}_"
            fmt = get(sec + "fmt", thread=core)
            spec = self._formats.get(fmt)
            ctrl = AccessCtrl(
                fmt=fmt,
                no_swizzle=bool(get(sec + "no_swizzle", thread=core)),
                unsigned_int=bool(get(sec + "unsigned_int", thread=core)),
                element=spec.element_size if spec else 0,
                view=spec.view if spec else "",
                name=spec.name if spec else "reserved",
            )
            self._ctrl[core] = ctrl
        return ctrl

    # -- entry points: one access as the core's load/store instruction makes it ----------------
    def load(self, core: int, offset: int, size: int) -> int:
        """The bits a ``size``-byte load at ``0xFFBD8000 + offset`` by ``core`` returns."""
        ctrl = self._ctrl[core] or self.ctrl(core)
        if core == 2 and size > (ctrl.element or size):
            return self._load_t2(ctrl, offset, size)
        if size == 4:
            return self.load32(ctrl, offset)
        if size == 2:
            return self.load16(ctrl, offset)
        return self.load8(ctrl, offset)

    def store(self, core: int, offset: int, size: int, value: int) -> None:
        """Apply a ``size``-byte store of ``value`` at ``0xFFBD8000 + offset`` by ``core``."""
        ctrl = self._ctrl[core] or self.ctrl(core)
        if core == 2 and size > (ctrl.element or size):
            self._store_t2(ctrl, offset, size, value)
        elif size == 4:
            self.store32(ctrl, offset, value)
        elif size == 2:
            self.store16(ctrl, offset, value)
        else:
            self.store8(ctrl, offset, value)

    def rows_touched(self, core: int, offset: int, size: int) -> set[int]:
        """The ``DstBits`` rows an access by ``core`` at ``offset`` would touch (none if the
        access is undefined)."""
        ctrl = self._ctrl[core] or self.ctrl(core)
        elem = ctrl.element
        if not elem or (size != elem and not (core == 2 and size > elem)):
            return set()
        dst = self.dst
        rows: set[int] = set()
        for i in range(max(size // elem, 1)):
            index = (offset + i * elem) // elem
            if elem == 4:
                high = int(dst.row32[(index >> 4) & 0x3FF])
                rows |= {high, high + 8}
            else:
                rows.add(int(dst.row16[(index >> 4) & 0x3FF]))
        return rows

    # T2 splits a wider aligned access into the elements fmt defines.
    def _load_t2(self, ctrl: AccessCtrl, offset: int, size: int) -> int:
        elem = self._t2_elements(ctrl, offset, size)
        value = 0
        for i in range(size // elem):
            value |= self.load(2, offset + i * elem, elem) << (8 * elem * i)
        return value

    def _store_t2(self, ctrl: AccessCtrl, offset: int, size: int, value: int) -> None:
        elem = self._t2_elements(ctrl, offset, size)
        mask = (1 << (8 * elem)) - 1
        for i in range(size // elem):
            self.store(2, offset + i * elem, elem, (value >> (8 * elem * i)) & mask)

    @staticmethod
    def _t2_elements(ctrl: AccessCtrl, offset: int, size: int) -> int:
        if offset % size:
            raise UndefinedBehavior(f"Dst.md: RISCV T2 multi-element access of {size} bytes at offset {offset:#x} is not aligned")
        return ctrl.element

    # -- the six functions of Dst.md ---------------------------------------------------------
    def load32(self, ctrl: AccessCtrl, offset: int) -> int:
        """``Load32``."""
        if ctrl.element != 4:
            raise _ub("Load32", ctrl)
        i = offset >> 2
        value = self.dst.get32(i >> 4, i & 15)
        if not ctrl.no_swizzle:  # Dst32b bit layout -> CPU bit layout
            value = (value & 0x8000FFFF) | ((value & 0x7F000000) >> 8) | ((value & 0x00FF0000) << 7)
        if ctrl.view == "int32" and not ctrl.no_swizzle and value >= 0x80000000:
            value = -(value & 0x7FFFFFFF) & 0xFFFFFFFF  # sign-magnitude -> two's complement; -0 -> +0
        return value

    def load16(self, ctrl: AccessCtrl, offset: int) -> int:
        """``Load16``."""
        view = ctrl.view
        if ctrl.element != 2:
            raise _ub("Load16", ctrl)
        i = offset >> 1
        value = self.dst.get16(i >> 4, i & 15)
        if view == "fp16":
            if not ctrl.no_swizzle:  # Dst16b FP16 layout -> CPU layout
                value = (value & 0x8000) | ((value & 0x7FE0) >> 5) | ((value & 0x001F) << 10)
        elif view == "bf16":
            if not ctrl.no_swizzle:  # Dst16b BF16 layout -> CPU layout
                value = (value & 0x8000) | ((value & 0x7F00) >> 8) | ((value & 0x00FF) << 7)
        elif not (ctrl.no_swizzle or ctrl.unsigned_int) and value >= 0x8000:
            value = -(value & 0x7FFF) & 0xFFFF  # sign-magnitude -> two's complement; -0 -> +0
        return value

    def load8(self, ctrl: AccessCtrl, offset: int) -> int:
        """``Load8``."""
        if ctrl.element != 1:
            raise _ub("Load8", ctrl)
        if offset >= self.spec.int8_span:
            raise UndefinedBehavior(f"Dst.md Load8: offset {offset:#x} is past the 16 KiB int8 view")
        value16 = self.dst.get16(offset >> 4, offset & 15)
        if ctrl.no_swizzle or ctrl.unsigned_int:
            return (value16 >> 5) & 0xFF  # low eight bits of the Integer "8" magnitude
        mag = (value16 >> 5) & 0x7F
        return -mag & 0xFF if value16 & 0x8000 else mag

    def store32(self, ctrl: AccessCtrl, offset: int, value: int) -> None:
        """``Store32``."""
        if ctrl.element != 4:
            raise _ub("Store32", ctrl)
        if ctrl.view == "int32" and not ctrl.no_swizzle and value >= 0x80000000:
            # two's complement -> sign-magnitude, clamping -2**31 to -(2**31 - 1)
            value = 0x80000000 | (-(value + (value == 0x80000000)) & 0xFFFFFFFF)
        if not ctrl.no_swizzle:  # CPU bit layout -> Dst32b bit layout
            value = (value & 0x8000FFFF) | ((value & 0x7F800000) >> 7) | ((value & 0x007F0000) << 8)
        i = offset >> 2
        self.dst.set32(i >> 4, i & 15, value)

    def store16(self, ctrl: AccessCtrl, offset: int, value: int) -> None:
        """``Store16``."""
        view = ctrl.view
        if ctrl.element != 2:
            raise _ub("Store16", ctrl)
        if view == "fp16":
            if not ctrl.no_swizzle:  # CPU layout -> Dst16b FP16 layout
                value = (value & 0x8000) | ((value & 0x7C00) >> 10) | ((value & 0x03FF) << 5)
        elif view == "bf16":
            if not ctrl.no_swizzle:  # CPU layout -> Dst16b BF16 layout
                value = (value & 0x8000) | ((value & 0x7F80) >> 7) | ((value & 0x007F) << 8)
        elif not (ctrl.no_swizzle or ctrl.unsigned_int) and value >= 0x8000:
            # two's complement -> sign-magnitude, clamping -2**15 to -(2**15 - 1)
            value = 0x8000 | (-(value + (value == 0x8000)) & 0xFFFF)
        i = offset >> 1
        self.dst.set16(i >> 4, i & 15, value)

    def store8(self, ctrl: AccessCtrl, offset: int, value: int) -> None:
        """``Store8``, including the signed path that Dst.md notes is not a true conversion."""
        if ctrl.element != 1:
            raise _ub("Store8", ctrl)
        if offset >= self.spec.int8_span:
            raise UndefinedBehavior(f"Dst.md Store8: offset {offset:#x} is past the 16 KiB int8 view")
        if ctrl.no_swizzle or ctrl.unsigned_int or value < 0x80:
            value16 = (value << 5) | (16 if value else 0)
        else:
            mag = (0x180 - value - (value == 0x80)) & 0xFF  # uint8_t arithmetic, as written
            value16 = 0x8000 | (mag << 5) | 16
        self.dst.set16(offset >> 4, offset & 15, value16)
