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

from tdbg.symbols.debuginfo import Frame
from tdbg.emu.stops import StopKind

if TYPE_CHECKING:
    from tdbg.session import Session

ENTRY_FUNCTION = "main"  # the backtrace stops here, as GDB's does with "backtrace past-main off"


@dataclass
class _State:
    key: tuple[object, ...]
    stop: object              # the core's last stop, compared by identity (kept alive here)
    hidden: int | None = None  # inline frames hidden at the innermost pc (None: GDB's default)
    selected: int = 0


class FrameView:
    """The visible frames of a session's current core and the selected one."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self._state: _State | None = None

    def state(self) -> _State:
        s = self.s
        key, stop = (s.current, s.pc, s.register("sp")), s.last_stop
        if self._state is None or self._state.key != key or self._state.stop is not stop:
            self._state = _State(key, stop)
        return self._state

    def hidden(self) -> int:
        """How many inline frames are hidden at the innermost pc."""
        state = self.state()
        if state.hidden is None:
            info = self.s.debug
            pc = self.s.pc
            stop = state.stop
            stopped_for = [loc.function for bp in self.s.last_hits for loc in bp.locations
                           if loc.core == self.s.current and loc.address == pc] \
                if getattr(stop, "kind", None) is StopKind.BREAKPOINT else []
            state.hidden = info.hidden_inline_frames(pc, stopped_for) if info is not None else 0
        return state.hidden

    def all(self) -> list[Frame]:
        """Every visible frame, innermost first, numbered from 0."""
        frames = self._across_programs(self.s.frames())
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
        s = self.s
        first = s.debug_info_at(s.current, frames[0].lookup_pc) if frames else None
        for i, frame in enumerate(frames[1:], 1):
            other = s.debug_info_at(s.current, frame.lookup_pc)
            if other is None or other is first:
                continue
            try:
                rest = other.frames(frame.pc, frame.regs, s.read_u32, s.stack_ranges(), caller=True)
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
