"""Source-level run control (GDB's ``step``, ``next``, ``finish``, ``until``, ``advance``) on
the engine's run control: single instructions within a line, temporary breakpoints for everything longer.

Each operation returns the ``Stop`` that ended it.  When the operation itself completed, that is
a ``StopKind.STEP`` stop at the final PC.  Anything else that stopped the core first (a user
breakpoint, also one a single step lands on; a watchpoint; an event; ``ebreak``) ends the operation
and is returned as it came.  The temporary breakpoints are gone in every case.

Frames are told apart by their CFA (``DebugInfo.cfa``): a call made from this frame returns
with ``sp`` equal to the ``sp`` it was made with, and a frame has returned when the CFA grows.
Inlined calls are frames too (GDB's ``process_event_stop_test``): reaching the first instruction
of an inlined call, ``step`` stops, showing the call site, or, when the call is on the line
being stepped, inside the callee; ``next`` steps over it unless its call site is another line;
an inlined call entered elsewhere than its start is stepped through by ``next`` and stops
``step``; leaving the inlined call being stepped is a return.  Which inline frames a stop hides
is kept in the session's ``tdbg.debug.frames.FrameView``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError

if TYPE_CHECKING:
    from tdbg.expr import EvalContext
    from tdbg.symbols.debuginfo import DebugInfo, Function, InlinedCall, Site

#: Instructions single-stepped within one line before switching to temporary breakpoints (a
#: line that loops on itself, e.g. ``while (!ready) ;``).
STEP_BUDGET = 2000

Condition = Callable[[], bool]
Line = tuple[Path, int] | None     # (file, line) of the line being stepped


class Session(Protocol):
    """What source-level stepping uses of a session (``tdbg.Session`` is one)."""

    @property
    def pc(self) -> int: ...
    def register(self, name: str) -> int: ...
    def registers(self) -> list[int]: ...
    def read_u32(self, address: int) -> int: ...
    def stack_ranges(self) -> tuple[tuple[int, int], ...]: ...
    def stepi(self, count: int = 1, record: bool = True) -> Stop: ...
    def run_until(self, targets: dict[int, Condition]) -> tuple[Stop, bool]: ...
    def landed_on_breakpoint(self, stop: Stop) -> Stop: ...
    def locate(self, location: str | int, line: int | None = None) -> list[Site]: ...
    def address_of(self, expression: str) -> int: ...
    def expression_context(self) -> EvalContext: ...


# -- public operations ---------------------------------------------------------------------------
def step(session: Session, info: DebugInfo) -> Stop:
    """Run to the next source line, entering calls to functions with line information."""
    return _step(session, info, into=True)


def next(session: Session, info: DebugInfo) -> Stop:  # noqa: A001 - GDB's name
    """Run to the next source line of this frame, stepping over calls."""
    return _step(session, info, into=False)


def finish(session: Session, info: DebugInfo, level: int = 0) -> tuple[Stop, int | None]:
    """Run until function call ``level`` (0: the innermost, 1: its caller, ...) returns; the
    stop and ``a0`` (None if something else stopped the core first)."""
    frames = _frames(session, info)
    if len(frames) < level + 2:
        raise SessionError('"finish" not meaningful in the outermost frame.')
    cfa = frames[level].cfa
    stop, own = _run(session, {frames[level + 1].pc: lambda: _sp(session) >= cfa})
    return stop, session.register("a0") if own else None


def finish_inline(session: Session, info: DebugInfo, call: InlinedCall) -> Stop:
    """``finish`` in an inline frame (GDB: step in the calling frame over everything it calls):
    run until the pc has left ``call``, then to the start of a statement."""
    cfa = _cfa(session, info)
    current: Line = None
    while True:
        prev, sp = session.pc, _sp(session)
        stop = session.stepi(record=False)
        if stop.kind is not StopKind.STEP:
            return stop
        if (hit := session.landed_on_breakpoint(stop)) is not stop:
            return hit
        if _ra(session) == (prev + 4) & 0xFFFFFFFF and stop.pc != prev + 4:   # a call: over it
            stop, own = _run(session, {prev + 4: lambda: _sp(session) >= sp})
            if not own:
                return stop
        pc = session.pc
        if call.covers(pc) and _cfa(session, info) == cfa:
            continue
        row = info.row_at(pc)
        if row is None or (pc == row.addr and row.is_stmt and (row.file, row.line) != current):
            return stop
        if pc != row.addr:
            current = (row.file, row.line)


def until(session: Session, info: DebugInfo, location: str | int | None = None) -> Stop:
    """``until``: like ``next``, but never stops at code below the current line (a loop's backward
    jump runs the loop to its end).  ``until LOCATION``: run to LOCATION in this frame (any frame,
    if LOCATION is in another function) or until this frame returns."""
    if location is not None:
        return _run_to_location(session, info, location, anywhere=False)
    pc = session.pc
    frame = session.expression_context().frames.all()[0]   # at an inlined call's entry: its call site
    row, function = info.row_at(pc), info.function_at(pc)
    if row is None or row.line == 0 or function is None or frame.file is None or frame.line is None:
        return next(session, info)
    current = (frame.file, frame.line)
    end = row.end if (row.file, row.line) == current else pc + 1
    for later in info.rows_in(end, function.high):       # the rest of the line's code
        if later.addr != end or later.line not in (0, row.line):
            break
        end = later.end
    cfa = _cfa(session, info)
    same_frame = _same_frame(session, info, cfa)
    targets = _line_starts(info, function, frame.block, current, same_frame)
    return _run_or_return(session, info, {a: c for a, c in targets.items() if a >= end}, cfa)


def advance(session: Session, info: DebugInfo, location: str | int) -> Stop:
    """Run to LOCATION (in any frame) or until the current frame returns."""
    return _run_to_location(session, info, location, anywhere=True)


def resolve_location(session: Session, info: DebugInfo, location: str | int) -> list[int]:
    """Addresses of a GDB location: an address (int, ``*EXPR``, ``0x...``), ``LINE`` (in the
    current file), ``FILE:LINE``, ``FUNCTION`` (past its prologue; C++ names as ``break`` takes
    them, every inlined call too) or ``FILE:FUNCTION`` (``Session.locate``)."""
    if isinstance(location, int):
        return [location]
    text = location.strip()
    if text.startswith("*"):
        return [session.address_of(text[1:])]
    return [site.address for site in session.locate(text)]


# -- stepping by lines -------------------------------------------------------------------------
def _step(session: Session, info: DebugInfo, into: bool) -> Stop:
    row = info.row_at(session.pc)
    if row is None or row.line == 0 and info.function_at(session.pc) is None:
        # No line information here: run out to the caller, then finish its line (GDB's
        # "Single stepping until exit from function ..., which has no line number information").
        frames = _frames(session, info)
        if len(frames) < 2:
            return session.stepi(record=False)
        cfa = frames[0].cfa
        stop, own = _run(session, {frames[1].pc: lambda: _sp(session) >= cfa})
        return _finish_line(session, info, into, stop) if own else stop
    frame = session.expression_context().frames.all()[0]  # its line is a call site while inline frames hide
    return _lines(session, info, into, (frame.file, frame.line) if row.line and frame.line else None)


def _finish_line(session: Session, info: DebugInfo, into: bool, stop: Stop) -> Stop:
    """After returning into a caller: stop at the start of a statement, else step to the next."""
    row = info.row_at(stop.pc)
    if row is None or row.line and row.addr == stop.pc and row.is_stmt:
        return stop
    return _lines(session, info, into, (row.file, row.line) if row.line else None)


def _lines(session: Session, info: DebugInfo, into: bool, current: Line) -> Stop:
    """Single-step until the PC is at the start of a statement of another line in this frame
    (or the frame it returns to); calls are stepped over by a breakpoint at the return address,
    or, for ``step``, entered when the callee has line information; inlined calls as the
    module docstring says."""
    view = session.expression_context().frames
    block = view.all()[0].block     # the inlined call being stepped (None: the function's own code)
    cfa = _cfa(session, info)
    budget = STEP_BUDGET
    while True:
        prev = session.pc
        sp = _sp(session)
        stop = session.stepi(record=False)
        if stop.kind is not StopKind.STEP:
            return stop
        if (hit := session.landed_on_breakpoint(stop)) is not stop:
            return hit
        pc = stop.pc
        if _ra(session) == (prev + 4) & 0xFFFFFFFF and pc != prev + 4:      # a call
            targets: dict[int, Condition] = {prev + 4: lambda: _sp(session) >= sp}
            if into and info.line_for(pc) is not None:
                callee = info.function_at(pc)
                entry = info.breakpoint_address(callee.name) if callee is not None else pc
                if entry == pc:
                    return stop
                targets[entry] = _called_from(session, info, sp)   # (or it returns before)
            stop, own = _run(session, targets)
            if not own or stop.pc != prev + 4:
                return stop
            pc = stop.pc
        here = _cfa(session, info)
        chain = info.inline_chain(pc)                    # innermost first
        changed = False
        if here > cfa:                                   # returned to the caller
            cfa, current, block, changed = here, None, (chain[0] if chain else None), True
        elif block is not None and block not in chain:   # left the inlined call: a return
            block = ([c for c in chain if c.depth < block.depth] or [None])[0]  # (next() is GDB's here)
            current, changed = None, True
        deeper = chain[:chain.index(block)] if block in chain else chain if block is None else []
        if deeper:                                       # in an inlined call made from here
            call = deeper[-1]
            at_start = info.starts_at(call, pc)
            same_line = (call.call_file, call.call_line) == current
            if at_start and into:                        # GDB: stop at the call site, or in it
                if same_line:
                    view.set_hidden(max(info.hidden_inline_frames(pc) - 1, 0))
                return stop
            if at_start and not same_line:               # next: stop at a call on another line
                return stop
            if into and not at_start:                    # step: stepped into its middle
                return stop
            continue                                     # next: step over the inlined call
        row = info.row_at(pc)
        if row is None:
            return stop
        if row.line == 0:
            continue
        if pc == row.addr and row.is_stmt and (row.file, row.line) != current:
            return stop
        if pc != row.addr and not changed:
            current = (row.file, row.line)               # entered a line in its middle
        budget -= 1
        if budget == 0:
            return _lines_by_breakpoints(session, info, into, current, cfa)


def _lines_by_breakpoints(session: Session, info: DebugInfo, into: bool, current: Line, cfa: int) -> Stop:
    """``_lines`` for a line that keeps running: breakpoints at every other statement of the
    function, at the return address and (``step``) past the prologue of every function."""
    function = info.function_at(session.pc)
    if function is None:
        raise SessionError("Cannot step: no function information at the current location.")
    same_frame = _same_frame(session, info, cfa)
    block = session.expression_context().frames.all()[0].block
    targets = _line_starts(info, function, block, current, same_frame)
    if into:
        callee = _called_from_frame(session, info, cfa)
        for other in info.functions():
            _add(targets, info.breakpoint_address(other.name), callee)
    return _run_or_return(session, info, targets, cfa, into)


def _line_starts(info: DebugInfo, function: Function, block: InlinedCall | None, current: Line,
                 condition: Condition) -> dict[int, Condition]:
    """Where another line of ``block``'s code (None: the function's own) starts: its statement
    rows outside the inlined calls it makes, and where each part of the code of an inlined call
    it makes on another line starts (clang writes no row for an inlined call's line, and
    schedules parts of one call among another's; GDB does not stop there)."""
    targets = {r.addr: condition for r in info.rows_in(function.low, function.high)
               if r.is_stmt and r.line and (r.file, r.line) != current
               and (info.inline_chain(r.addr) or [None])[0] == block}
    for call in info.calls_made_in(function, block):
        if (call.call_file, call.call_line) != current:
            for low, _ in call.ranges:
                targets.setdefault(low, condition)
    return targets


def _run_or_return(session: Session, info: DebugInfo, targets: dict[int, Condition], cfa: int,
                   into: bool = False) -> Stop:
    """Run to one of ``targets`` or to the return from the frame with ``cfa``; after a return,
    finish the caller's line as ``next`` would."""
    frames = _frames(session, info)
    if len(frames) > 1:
        _add(targets, frames[1].pc, lambda: _sp(session) >= cfa)
    stop, own = _run(session, targets)
    return _finish_line(session, info, into, stop) if own and _cfa(session, info) > cfa else stop


def _run_to_location(session: Session, info: DebugInfo, location: str | int, anywhere: bool) -> Stop:
    addresses = resolve_location(session, info, location)
    frames = _frames(session, info)
    cfa = frames[0].cfa
    current = info.function_at(session.pc)
    targets: dict[int, Condition] = {}
    for addr in addresses:
        here = current is not None and current.low <= addr < current.high
        _add(targets, addr, _same_frame(session, info, cfa) if here and not anywhere else _always)
    if len(frames) > 1:
        _add(targets, frames[1].pc, lambda: _sp(session) >= cfa)
    return _run(session, targets)[0]


# -- running to internal breakpoints -------------------------------------------------------------
def _run(session: Session, targets: dict[int, Condition]) -> tuple[Stop, bool]:
    """Continue until the pc reaches one of ``targets`` with its condition true: (that stop as a
    STEP stop, True); or any other stop: (it, False)."""
    return session.run_until(targets)


def _add(targets: dict[int, Condition], addr: int, condition: Condition) -> None:
    previous = targets.get(addr)
    targets[addr] = condition if previous is None else (lambda: previous() or condition())


def _always() -> bool:
    return True


# -- frames ------------------------------------------------------------------------------------
def _frames(session: Session, info: DebugInfo):
    """The real (not inlined) frames of the current core, within its own stack ranges."""
    return info.frames(session.pc, session.registers(), session.read_u32, session.stack_ranges(), inline=False)


def _cfa(session: Session, info: DebugInfo) -> int:
    return info.cfa(session.pc, session.registers(), session.read_u32, session.stack_ranges())


def _sp(session: Session) -> int:
    return session.register("sp")


def _ra(session: Session) -> int:
    return session.register("ra")


def _same_frame(session: Session, info: DebugInfo, cfa: int) -> Condition:
    return lambda: _cfa(session, info) == cfa


def _called_from(session: Session, info: DebugInfo, sp: int) -> Condition:
    """Past a callee's prologue: is it the call made with ``sp``?"""
    return lambda: _cfa(session, info) == sp


def _called_from_frame(session: Session, info: DebugInfo, cfa: int) -> Condition:
    """Past a callee's prologue: was it called by the frame with ``cfa``?"""
    def check() -> bool:
        frames = _frames(session, info)
        return len(frames) > 1 and frames[1].cfa == cfa
    return check

