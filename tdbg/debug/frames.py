"""The frames of the current core as GDB presents them between two stops: inlined calls that
start at the stop's pc are hidden until ``step`` enters them (GDB's ``skip_inline_frames``), the
backtrace ends at ``main`` (GDB's ``backtrace past-main off``), and one frame is *selected*
(``frame N``, ``up``, ``down``) for expressions, ``info locals``, ``info frame`` and ``finish``.

This state belongs to one stop of one core: it is keyed by the core, its pc and stack pointer
and the identity of its last stop, and resets when any of them changes (the core ran).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tdbg.debug.memory import Memory
from tdbg.debug.programs import Programs
from tdbg.debug.target import Target
from tdbg.emu.stops import StopKind
from tdbg.symbols.cxxnames import demangle

if TYPE_CHECKING:   # the DWARF records are imported when a backtrace is first asked for
    from tdbg.symbols.records import Frame

ENTRY_FUNCTION = "main"  # the backtrace stops here, as GDB's does with "backtrace past-main off"


@dataclass
class _State:
    key: tuple[object, ...]
    stop: object              # the core's last stop, compared by identity (kept alive here)
    hidden: int | None = None  # inline frames hidden at the innermost pc (None: GDB's default)
    selected: int = 0


class Backtrace:
    """The current core's stack, unwound within the memory its frames may live in."""

    def __init__(self, target: Target, programs: Programs, memory: Memory) -> None:
        self.t, self.programs, self.memory = target, programs, memory

    def stack_ranges(self) -> tuple[tuple[int, int], ...]:
        """Where the current core's stack frames may live (``DebugInfo.frames`` stops at a frame
        outside them): L1, and its own local data RAM, whose size its core spec gives (4 KiB on
        a TRISC, 8 KiB on B and NC: BlackholeA0 BabyRISCV/README.md "Local Data RAM")."""
        profile = self.t.tile.profile
        return ((0, profile.l1_size), (profile.local_ram_base, profile.local_ram_base + self.t.core.spec.local_ram_size))

    def frames(self) -> list[Frame]:
        """The current core's backtrace (innermost first); one frame without debug info."""
        from tdbg.symbols.records import Frame

        core = self.t.core
        info = self.programs.debug_info_at(self.t.current, core.pc)
        if info is not None:
            try:
                return info.frames(core.pc, core.regs(), self.memory.read_u32, self.stack_ranges())
            except Exception:  # noqa: BLE001  (corrupt DWARF read lazily: the frame the symbols give)
                pass
        hit = self.programs.image.symbol_at(core.pc) if self.t.tile.image(self.t.current) else None
        name = (demangle(hit[0].name) or hit[0].name) if hit else None
        return [Frame(0, core.pc, name, None, None, core.reg(2), core.reg(2), core.reg(8), {})]


class FrameView:
    """The visible frames of the current core and the selected one."""

    def __init__(self, target: Target, programs: Programs, backtrace: Backtrace) -> None:
        self.t, self.programs, self.backtrace = target, programs, backtrace
        self._state: _State | None = None

    def state(self) -> _State:
        t = self.t
        key, stop = (t.current, t.pc, t.register("sp")), t.last_stop
        if self._state is None or self._state.key != key or self._state.stop is not stop:
            self._state = _State(key, stop)
        return self._state

    def hidden(self) -> int:
        """How many inline frames are hidden at the innermost pc."""
        state = self.state()
        if state.hidden is None:
            info = self.programs.debug
            pc = self.t.pc
            stop = state.stop
            stopped_for = [loc.function for bp in self.t.points.last_hits for loc in bp.locations
                           if loc.core == self.t.current and loc.address == pc] \
                if getattr(stop, "kind", None) is StopKind.BREAKPOINT else []
            state.hidden = info.hidden_inline_frames(pc, stopped_for) if info is not None else 0
        return state.hidden

    def all(self) -> list[Frame]:
        """Every visible frame, innermost first, numbered from 0."""
        frames = self._across_programs(self.backtrace.frames())
        hidden = min(self.hidden(), len(frames) - 1)
        out = []
        for level, frame in enumerate(frames[hidden:]):
            out.append(replace(frame, level=level))
            if frame.function == ENTRY_FUNCTION and frame.block is None:
                break
        return out

    def _across_programs(self, frames: list[Frame]) -> list[Frame]:
        """The backtrace, each frame described by the debug information of the code it is in:
        from the first frame in other code (a kernel's caller in the firmware), the rest is
        unwound with that code's CFI and named from its DWARF (GDB: each frame's objfile)."""
        programs, current, unwind = self.programs, self.t.current, self.backtrace
        first = programs.debug_info_at(current, frames[0].lookup_pc) if frames else None
        for i, frame in enumerate(frames[1:], 1):
            other = programs.debug_info_at(current, frame.lookup_pc)
            if other is None or other is first:
                continue
            try:
                rest = other.frames(frame.pc, frame.regs, unwind.memory.read_u32, unwind.stack_ranges(), caller=True)
            except Exception:  # noqa: BLE001  (corrupt DWARF read lazily: the frames found so far stand)
                return frames
            return frames[:i] + [replace(f, level=i + j) for j, f in enumerate(rest)]
        return frames

    def caller(self, frame: Frame) -> Frame | None:
        """The frame that called ``frame`` (its call site knows entry values), or None."""
        frames = self.all()
        return frames[frame.level + 1] if frame.level + 1 < len(frames) else None

    def selected(self) -> Frame:
        frames = self.all()
        return frames[min(self.state().selected, len(frames) - 1)]

    def select(self, level: int) -> Frame:
        frames = self.all()
        if not 0 <= level < len(frames):
            raise IndexError(level)
        self.state().selected = level
        return frames[level]

    def step_into_inline(self) -> bool:
        """``step`` at a stop with hidden inline frames: show the next one, running nothing
        (GDB's ``step_into_inline_frame``); False when none is hidden."""
        if self.hidden() == 0:
            return False
        state = self.state()
        state.hidden = self.hidden() - 1
        state.selected = 0
        return True

    def set_hidden(self, count: int) -> None:
        """After a stop made by stepping: ``count`` inline frames hidden (GDB's choice while
        stepping, which may show one more than a plain stop would)."""
        self.state().hidden = count
