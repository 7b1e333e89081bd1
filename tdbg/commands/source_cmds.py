"""Source-level commands from DWARF: ``step``, ``next``, ``finish``, ``until``, ``advance``,
``backtrace``, ``info frame``, ``info line``, ``list``, ``info locals``, ``info args``."""

from __future__ import annotations

from pathlib import Path

from tdbg import stepping
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import SourcePosition, frame_header, need_debug, qualify_line, source_position, variable_value
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.running import count_arg, require_running, run_and_report
from tdbg.commands.values import evaluate_address, evaluate_int


def _stepping(interp: Interpreter, args: str, fn) -> None:
    require_running(interp)
    info = need_debug(interp)
    n = count_arg(interp, args)

    def action():
        stop = None
        for _ in range(n):
            stop = fn(interp.session, info)
            if stop.kind.value != "step":
                break
        return stop

    interp.context["plain_step"] = True
    run_and_report(interp, action)


@command("step", aliases=("s",), usage="step [N]", help="Run to the next source line, entering functions that have line information (N times).", example="step", repeatable=True)
def step_cmd(interp: Interpreter, args: str) -> None:
    _stepping(interp, args, stepping.step)


@command("next", aliases=("n",), usage="next [N]", help="Run to the next source line in this function, stepping over calls (N times).", example="next 3", repeatable=True)
def next_cmd(interp: Interpreter, args: str) -> None:
    _stepping(interp, args, stepping.next)


@command("finish", aliases=("fin",), usage="finish", help="Run until the current function returns; print the value it returned (a0).", example="finish")
def finish_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    info = need_debug(interp)
    frames = interp.session.frames()
    interp.out(f"Run till exit from #0  {frame_header(interp, frames[0], with_pc=True)}")
    result: list[int | None] = []

    def action():
        stop, value = stepping.finish(interp.session, info)
        result.append(value)
        return stop

    stop = run_and_report(interp, action)
    if result and result[0] is not None and stop.kind.value == "step":
        fn = info.function(frames[0].function) if frames[0].function else None
        if fn is None or info.return_type(fn) is not None:
            value = result[0]
            interp.out(f"Value returned is {value - (1 << 32) if value >> 31 else value}")


@command("until", aliases=("u",), usage="until [LOCATION]", help="Like next, but never stops at a line above the current one (runs loops to their end); with LOCATION, run until it is reached in this frame or the frame returns.", example="until 45", repeatable=True)
def until_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    info = need_debug(interp)
    interp.context["plain_step"] = not args.strip()
    run_and_report(interp, lambda: stepping.until(interp.session, info, qualify_line(interp, args) if args.strip() else None))


@command("advance", usage="advance LOCATION", help="Run until LOCATION is reached (in any frame) or the current frame returns.", example="advance fill_row")
def advance_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    if not args.strip():
        raise CommandError("Argument required (a location).")
    info = need_debug(interp)
    run_and_report(interp, lambda: stepping.advance(interp.session, info, qualify_line(interp, args)))


@command("backtrace", aliases=("bt", "where"), usage="backtrace [N]", help="Show the call stack of the current core (innermost first).", example="bt")
def backtrace_cmd(interp: Interpreter, args: str) -> None:
    frames = interp.session.frames()
    limit = evaluate_int(interp, args) if args.strip() else len(frames)
    for f in frames[:limit]:
        interp.out(f"#{f.level:<2} {frame_header(interp, f, with_pc=f.level > 0)}")


@info_command("frame", aliases=("f",), usage="info frame", help="Describe the current frame: pc, function, caller, frame address (CFA), saved registers.", example="info frame")
def info_frame(interp: Interpreter, args: str) -> None:
    frames = interp.session.frames()
    f = frames[0]
    interp.out(f"Stack level 0, frame at {f.cfa:#x}:")
    where = f" ({f.file}:{f.line})" if f.file else ""
    caller = f"; saved pc = {frames[1].pc:#x}" if len(frames) > 1 else ""
    interp.out(f" pc = {f.pc:#x} in {f.function or '??'}{where}{caller}")
    if len(frames) > 1:
        interp.out(f" called by frame at {frames[1].cfa:#x}")
    interp.out(f" sp = {f.sp:#x}" + (f", s0 = {f.fp:#x}" if f.fp is not None else ""))


@info_command("line", usage="info line [LOCATION]", help="Where the code of a source line starts and ends (default: the current line).", example="info line fill_row")
def info_line(interp: Interpreter, args: str) -> None:
    s = interp.session
    info = need_debug(interp)
    address = s.resolve(qualify_line(interp, args)) if args.strip() else s.core.pc
    row = info.row_at(address)
    if row is None:
        interp.out(f"No line number information available for address {address:#x} {s.symbolize(address)}")
        return
    interp.out(f'Line {row.line} of "{row.file}" starts at address {row.addr:#x} {s.symbolize(row.addr)} and ends at {row.end:#x} {s.symbolize(row.end)}.')


@command("list", aliases=("l",), usage="list [LINE | FUNCTION | FILE:LINE | FIRST,LAST | FIRST, | ,LAST | + | -]", help="Show source lines: ten around a location, the range FIRST,LAST (each a location), or, with no argument or +, the ten after the last lines shown (the first time: around the current line, or main before the program runs); - shows the ten before them.  A bare LINE is in the current source file.", example="list fill_row", repeatable=True)
def list_cmd(interp: Interpreter, args: str) -> None:
    info = need_debug(interp)
    position = source_position(interp)
    text = args.strip()
    if text in ("", "+"):
        if position.file is None:
            raise CommandError("No line number information available.")
        file = position.file
        first = max(position.line - 5, 1) if position.first == 0 else position.line
        last = first + 9
    elif text == "-":
        if position.file is None:
            raise CommandError("No line number information available.")
        file = position.file
        if position.first <= 1:
            raise CommandError(f"Already at the start of {file}.")
        first, last = max(position.first - 10, 1), position.first - 1
    elif "," in text:
        start, _, end = (part.strip() for part in text.partition(","))
        if start:
            file, first = _list_location(interp, info, start)
            last = _list_location(interp, info, end, file)[1] if end else first + 9
        else:
            file, last = _list_location(interp, info, end)
            first = max(last - 9, 1)
    else:
        file, center = _list_location(interp, info, text)
        first = max(center - 5, 1)
        last = first + 9
    lines = info.source_lines(str(file))
    if first > len(lines):
        raise CommandError(f"Line number {first} out of range; {file} has {len(lines)} lines.")
    last = min(last, len(lines))
    for n in range(first, last + 1):
        interp.out(f"{n}\t{lines[n - 1].rstrip()}")
    interp.context["source"] = SourcePosition(file, last + 1, first, last)


def _list_location(interp: Interpreter, info, text: str, file: Path | None = None) -> tuple[Path, int]:
    """(file, line) of a ``list`` location: ``LINE`` (in ``file``, default the current source
    file), ``FILE:LINE``, ``FUNCTION`` / ``FILE:FUNCTION`` (the line of its entry, which GDB
    centres on) or ``*ADDRESS``."""
    if text.isdigit():
        file = file or source_position(interp).file
        if file is None:
            raise CommandError("No line number information available.")
        return file, int(text)
    name, _, rest = text.rpartition(":")
    if name and rest.strip().isdigit():
        files = info.find_files(name.strip())
        if not files:
            raise CommandError(f"No source file named {name.strip()}.")
        return files[0], int(rest)
    if text.startswith("*"):
        address = evaluate_address(interp, text[1:])
    else:
        try:
            address = info.function(rest.strip() if name else text).low
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from None
    li = info.line_for(address)
    if li is None:
        raise CommandError(f"No line number information available for address {address:#x}")
    return li.file, li.line


def _variables(interp: Interpreter, params: bool) -> None:
    info = need_debug(interp)
    frame = interp.session.frames()[0]
    shown = [v for v in info.locals_at(frame) if v.param == params]
    if not shown:
        interp.out("No arguments." if params else "No locals.")
    for v in shown:
        interp.out(f"{v.name} = {variable_value(interp, frame, v)}")


@info_command("locals", usage="info locals", help="Local variables of the current function and their values.", example="info locals")
def info_locals(interp: Interpreter, args: str) -> None:
    _variables(interp, params=False)


@info_command("args", usage="info args", help="Arguments of the current function and their values.", example="info args")
def info_args(interp: Interpreter, args: str) -> None:
    _variables(interp, params=True)
