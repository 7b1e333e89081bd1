"""Where the core is, as GDB says it: ``fill_row (row=0) at demo.c:27`` and the source line,
breakpoint locations, frame headers and argument values (from DWARF when the ELF has it); and
GDB's *current source file and line*, which ``list`` continues from and a bare ``LINE``
location (``break 42``) refers to."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError
from tdbg.debug.frames import FrameView
from tdbg.session import Location
from tdbg import expr
from tdbg.expr import UINT, ExprError, Kind, expand_typedefs

if TYPE_CHECKING:
    from tdbg.symbols.debuginfo import DebugInfo, Frame, Variable


@dataclass
class SourcePosition:
    """GDB's current source position: ``file``; ``line``, where a plain ``list`` goes on from;
    ``first`` and ``last``, the lines printed last (``first`` 0: nothing listed yet, so the
    first ``list`` centres on ``line``)."""

    file: Path | None
    line: int = 1
    first: int = 0
    last: int = 0


def source_position(interp: Interpreter) -> SourcePosition:
    """The current source position.  Until a stop or ``list`` sets it, it is ``main``'s file
    with the line GDB starts from: 9 lines above where ``break main`` stops."""
    position = interp.state.source
    if position is None:
        position = SourcePosition(None)
        info = interp.session.debug
        try:
            main = info.line_for(info.breakpoint_address("main")) if info is not None else None
        except KeyError:
            main = None
        if main is not None:
            position = SourcePosition(main.file, max(main.line - 9, 1))
        interp.state.source = position
    return position  # type: ignore[return-value]


def show_source_line(interp: Interpreter, file: Path, line: int) -> None:
    """A stop (or frame selection) printed ``line`` of ``file``: GDB makes it the current
    position, a plain ``list`` then shows the ten lines around it."""
    interp.state.source = SourcePosition(file, max(line - 5, 1), line, line)


def qualify_line(interp: Interpreter, location: str) -> str:
    """A bare ``LINE`` location as ``FILE:LINE`` in the current source file (GDB's default
    source file); any other location as it is."""
    text = location.strip()
    if text.isdigit():
        file = source_position(interp).file
        if file is not None:
            return f"{file}:{text}"
    return location


def need_debug(interp: Interpreter) -> DebugInfo:
    info = interp.session.debug
    if info is None:
        raise CommandError("No symbol table is loaded: the firmware has no debug information (build with -g).")
    return info


def frame_debug(interp: Interpreter, frame: Frame) -> DebugInfo | None:
    """The debug information of the code a frame is in (a kernel's, or the firmware's below it)."""
    s = interp.session
    return s.debug_info_at(s.current, frame.lookup_pc) if frame.level else s.debug


def source_text(interp: Interpreter, file: Path, line: int) -> str:
    """``LINE<tab>TEXT`` as a stop shows it; for a file that cannot be read GDB says so the first
    time (``FILE: No such file or directory.``), then shows ``in FILE``."""
    text = source_line(need_debug(interp), file, line)
    if text is not None:
        return f"{line}\t{text}"
    missing = interp.state.missing_sources
    if file in missing:
        return f"{line}\tin {file}"
    missing.add(file)
    return f"{line}\t{file}: No such file or directory."


def source_line(info: DebugInfo, file, line: int) -> str | None:
    try:
        lines = info.source_lines(str(file))
    except (OSError, KeyError):
        return None
    return lines[line - 1].rstrip("\n") if 0 < line <= len(lines) else None


def frame_args(interp: Interpreter, frame: Frame) -> str:
    """A frame's arguments as GDB's frame lines show them (``print frame-arguments scalars``,
    ``print entry-values default``): a struct, array or reference to one as ``...``; a value
    that equals the one the caller passed, where its call site says, as ``b=b@entry=5``."""
    info = frame_debug(interp, frame)
    if info is None:
        return ""
    try:
        params = [v for v in info.locals_at(frame, frame_view(interp).caller(frame)) if v.param]
    except Exception:
        return ""
    shown = []
    for v in params:
        base = v.type.target if v.type.kind is Kind.REFERENCE and v.type.target is not None else v.type
        if expand_typedefs(base).kind in (Kind.STRUCT, Kind.ARRAY):
            shown.append(f"{v.name}=...")
            continue
        value = variable_value(interp, frame, v)
        if v.entry is not None and value == variable_value(interp, frame, replace(v, addr=None, register=None, value=v.entry, pieces=())):
            value = f"{v.name}@entry={value}"
        shown.append(f"{v.name}={value}")
    return ", ".join(shown)


def variable_value(interp: Interpreter, frame: Frame, v: Variable) -> str:
    """A variable's value as GDB shows it in ``info locals`` and frame lines (a pointer without
    its ``(type *)``), ``<optimized out>`` or ``<error: ...>``."""
    ctx = interp.session.expression_context()
    try:
        if v.addr is not None:
            value = expr.evaluate(expr.MemAt(v.type, expr.Literal(UINT, v.addr)), ctx)
        else:
            value = ctx.variable_value(v, frame)
        return expr.format_value(value, None, ctx, typed=False)
    except ExprError as exc:
        return f"<error: {exc}>"


def frame_view(interp: Interpreter) -> FrameView:
    """The current core's frames as GDB presents them (hidden inline frames, the selection)."""
    return interp.session.expression_context().frames


def shows_address(interp: Interpreter, frame: Frame) -> bool:
    """GDB's ``frame_show_address``: a frame whose line is the call site of an inlined callee
    shows no pc; a caller's frame shows its pc (a return address); the innermost one only when
    the pc is not where a line-table row starts."""
    if frame.calls_inline:
        return False
    if frame.caller:
        return True
    info = interp.session.debug
    row = info.row_at(frame.pc) if info is not None else None
    return row is None or row.addr != frame.pc or frame.line is None


def frame_header(interp: Interpreter, frame: Frame, with_pc: bool | None = None) -> str:
    """``fill_row (row=0, ...) at demo.c:27``, with ``0x... in`` before it when ``with_pc``
    (default: GDB's rule, ``shows_address``)."""
    name = frame.function or "??"
    where = f" at {frame.file}:{frame.line}" if frame.file and frame.line else ""
    if with_pc is None:
        with_pc = shows_address(interp, frame)
    pc = f"{frame.pc:#010x} in " if with_pc else ""
    return f"{pc}{name} ({frame_args(interp, frame)}){where}"


def describe_location(interp: Interpreter, pc: int) -> str:
    """What GDB prints at a stop: ``fill_row (row=0) at demo.c:27`` then ``27\\t<source>``; the
    function line only when the function changed or the stop is not a plain step."""
    s = interp.session
    info = s.debug
    frame = frame_view(interp).all()[0]
    if info is None or frame.line is None or frame.file is None:
        return f"{pc:#010x} in {frame.function or '??'} ()"
    mid_line = shows_address(interp, frame)
    src = source_text(interp, frame.file, frame.line)
    show_source_line(interp, frame.file, frame.line)
    previous = interp.state.last_function
    here = (frame.function, frame.cfa, frame.block.die.offset if frame.block else None)
    interp.state.last_function = here
    stepping_in_place = interp.state.plain_step and previous == here
    interp.state.plain_step = False
    lines = [] if stepping_in_place else [frame_header(interp, frame, with_pc=mid_line)]
    lines.append(f"{pc:#010x}\t{src}" if mid_line and stepping_in_place else src)
    return "\n".join(lines)


def breakpoint_what(interp: Interpreter, loc: Location) -> str:
    """``in main at demo.c:12`` for a breakpoint location (the full name of its function, as
    GDB's ``info breakpoints`` shows it: ``in ckernel::math::f(unsigned int) at k.cpp:33``)."""
    s = interp.session
    with s.on_core(loc.core):
        info = s.debug
        fn = info.function_at(loc.address) if info else None
        li = loc.line or (info.line_for(loc.address) if info else None)
        name = loc.function or (fn.full_name if fn else None)
        if name and li:
            return f"in {name} at {li.file}:{li.line}"
        return s.symbolize(loc.address)
