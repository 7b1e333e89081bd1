"""Source-level commands from DWARF: ``step``, ``next``, ``finish``, ``until``, ``advance``,
``info line``, ``list`` (frames are ``frame_cmds``)."""

from __future__ import annotations

from pathlib import Path

from tdbg.debug import stepping
from tdbg.commands import settings
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import SourcePosition, frame_header, frame_view, need_debug, qualify_line, source_position
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.running import count_arg, require_running, run_and_report
from tdbg.commands.values import evaluate_address
from tdbg.debug import Stop, StopKind
from tdbg import expr
from tdbg.expr import CType, Value, decode, type_name


def _stepping(interp: Interpreter, args: str, fn) -> None:
    require_running(interp)
    info = need_debug(interp)
    n = count_arg(interp, args)
    s = interp.session

    def action():
        stop = None
        for _ in range(n):
            if fn is stepping.step and frame_view(interp).step_into_inline():
                stop = Stop(StopKind.STEP, s.current, s.pc)  # GDB: into the inlined call, running nothing
                continue
            stop = fn(s, info)
            if stop.kind.value != "step":
                break
        return stop

    interp.state.plain_step = True
    run_and_report(interp, action)


@command("step", aliases=("s",), usage="step [N]", help="Run to the next source line, entering functions that have line information (N times).", example="step", repeatable=True)
def step_cmd(interp: Interpreter, args: str) -> None:
    _stepping(interp, args, stepping.step)


@command("next", aliases=("n",), usage="next [N]", help="Run to the next source line in this function, stepping over calls (N times); the start of an inlined call made on another line is a line too (clang writes no line row for it; GDB runs past).", example="next 3", repeatable=True)
def next_cmd(interp: Interpreter, args: str) -> None:
    _stepping(interp, args, stepping.next)


@command("finish", aliases=("fin",), usage="finish", help="Run until the selected frame returns (frame 0 unless up/down/frame chose another) and print the value it returned as $N (a0, a1); out of an inline frame, run until its code is left.", example="finish")
def finish_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    info = need_debug(interp)
    view = frame_view(interp)
    frames = view.all()
    frame = view.selected()
    if frame.level == len(frames) - 1:
        raise CommandError('"finish" not meaningful in the outermost frame.')
    if interp.from_tty:
        interp.out(f"Run till exit from #{frame.level:<2} {frame_header(interp, frame)}")
    if frame.block is not None:
        run_and_report(interp, lambda: stepping.finish_inline(interp.session, info, frame.block))
        return
    real = sum(1 for f in frames[:frame.level] if f.block is None)  # real frames below it
    result: list[int | None] = []

    def action():
        stop, value = stepping.finish(interp.session, info, real)
        result.append(value)
        return stop

    stop = run_and_report(interp, action)
    if result and result[0] is not None and stop.kind.value == "step":
        try:
            fn = info.function(frame.function) if frame.function else None
        except KeyError:
            fn = None
        returns = info.return_type(fn) if fn is not None else None
        if returns is not None:
            report_returned(interp, returns)


def report_returned(interp: Interpreter, returns: CType) -> None:
    """GDB's ``Value returned is $N = V``: the value in ``a0`` (``a1`` for its high half), in
    the function's return type (RISC-V ILP32 calling convention, soft-float), kept in the value
    history; a larger object goes through memory, whose address GDB cannot know either."""
    s = interp.session
    if returns.size > 8:
        interp.out(f"Value returned has type: {type_name(returns)}. Cannot determine contents")
        return
    bits = s.register("a0") | s.register("a1") << 32
    value = Value(returns, decode(bits.to_bytes(8, "little")[:returns.size], returns))
    ctx = s.expression_context()
    shown = expr.format_value(value, None, ctx)
    interp.out(f"Value returned is ${ctx.record(value)} = {shown}")


@command("until", aliases=("u",), usage="until [LOCATION]", help="Like next, but never stops at a line above the current one (runs loops to their end); as next, it stops where an inlined call made on another line starts (clang writes no line row there; GDB runs past); with LOCATION, run until it is reached in this frame or the frame returns.", example="until 45", repeatable=True)
def until_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    info = need_debug(interp)
    interp.state.plain_step = not args.strip()
    run_and_report(interp, lambda: stepping.until(interp.session, info, qualify_line(interp, args) if args.strip() else None))


@command("advance", usage="advance LOCATION", help="Run until LOCATION is reached (in any frame) or the current frame returns.", example="advance fill_row")
def advance_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    if not args.strip():
        raise CommandError("Argument required (a location).")
    info = need_debug(interp)
    run_and_report(interp, lambda: stepping.advance(interp.session, info, qualify_line(interp, args)))


@info_command("line", usage="info line [LOCATION]", help="Where the code of a source line starts and ends (default: the current line; for a FUNCTION, the line of its first instruction, before the prologue, as GDB).", example="info line fill_row")
def info_line(interp: Interpreter, args: str) -> None:
    from tdbg.symbols import linespec

    s = interp.session
    info = need_debug(interp)
    address = s.resolve(qualify_line(interp, args)) if args.strip() else s.pc
    info = s.debug_info_at(s.current, address) or info   # the code's own (a kernel's, the firmware's)
    if args.strip() and not args.strip().startswith("*") and linespec.parse(args, info).function is not None:
        # GDB: a function's own first line (not for a *ADDRESS)
        function = info.function_at(address)
        if function is not None:
            address = function.low
    row = info.row_at(address)

    def at(addr: int) -> str:   # GDB's print_address: the symbol only where there is one
        name = s.symbolize(addr)
        return f"{addr:#x} {name}" if name else f"{addr:#x}"

    if row is None:
        interp.out(f"No line number information available for address {at(address)}")
        return
    interp.out(f'Line {row.line} of "{row.file}" starts at address {at(row.addr)} and ends at {at(row.end)}.')


@command("list", aliases=("l",), usage="list [LINE | FUNCTION | FILE:LINE | FIRST,LAST | FIRST, | ,LAST | + | -]", help="Show source lines: ten around a location, the range FIRST,LAST (each a location), or, with no argument or +, the ten after the last lines shown (the first time: around the current line, or main before the program runs); - shows the ten before them.  A bare LINE is in the current source file.", example="list fill_row", repeatable=True)
def list_cmd(interp: Interpreter, args: str) -> None:
    info = need_debug(interp)
    position = source_position(interp)
    text = args.strip()
    size = interp.state.listsize or 1 << 30          # set listsize (unlimited: the whole file)
    half = size // 2 if interp.state.listsize else 1 << 30
    if text in ("", "+"):
        if position.file is None:
            raise CommandError("No line number information available.")
        file = position.file
        first = max(position.line - half, 1) if position.first == 0 else position.line
        last = first + size - 1
    elif text == "-":
        if position.file is None:
            raise CommandError("No line number information available.")
        file = position.file
        if position.first <= 1:
            raise CommandError(f"Already at the start of {file}.")
        first, last = max(position.first - size, 1), position.first - 1
    elif "," in text:
        start, _, end = (part.strip() for part in text.partition(","))
        if start:
            file, first = _list_location(interp, info, start)
            last = _list_location(interp, info, end, file)[1] if end else first + size - 1
        else:
            file, last = _list_location(interp, info, end)
            first = max(last - size + 1, 1)
    else:
        file, center = _list_location(interp, info, text)
        first = max(center - half, 1)
        last = first + size - 1
    try:
        lines = info.source_lines(str(file))
    except OSError as exc:   # the line table names a file this host does not have (or a folder)
        raise CommandError(str(exc)) from None
    if first > len(lines):
        raise CommandError(f"Line number {first} out of range; {file} has {len(lines)} lines.")
    last = min(last, len(lines))
    for n in range(first, last + 1):
        interp.out(f"{n}\t{lines[n - 1].rstrip()}")
    interp.state.source = SourcePosition(file, last + 1, first, last)


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


# -- where sources are found (tdbg.symbols.sourcepath) ------------------------------------------------------

@command("directory", aliases=("dir",), usage="directory [DIR...]", help="Add DIRs to the front of the source path, where list, stop lines and the LLK_ASSERT decoder look for source files recorded elsewhere (a file is looked for below each directory by its path, then its base name); without DIR, put the source path back to $cdir:$cwd ($cdir: the compilation directory, $cwd: the current one).  'show directories' shows it.", example="directory ~/tt-llk")
def directory_cmd(interp: Interpreter, args: str) -> None:
    path = interp.session.source_path
    if not args.strip():
        if interp.query("Reinitialize source path to empty? "):
            path.set_directories("")
    else:
        path.add_directories(args.split())
    if interp.from_tty:
        interp.out(path.directories_text())


def _set_directories(interp: Interpreter, text: str) -> None:
    interp.session.source_path.set_directories(text.strip())


def _show_substitutions(interp: Interpreter) -> str:
    rules = interp.session.source_path.substitutions
    return "\n".join(["List of all source path substitution rules:", *(f"  `{old}' -> `{new}'." for old, new in rules)])


def _set_substitution(interp: Interpreter, text: str) -> None:
    words = text.split()
    if len(words) != 2:
        raise CommandError("Incorrect usage, too many arguments in command" if len(words) > 2 else
                           "Incorrect usage, too few arguments in command")
    interp.session.source_path.substitute(*words)


settings.setting("directories", help="The source path, colon-separated ($cdir and $cwd are added when missing); 'directory DIR' adds to its front.",
                 show=lambda interp: interp.session.source_path.directories_text(), set=_set_directories)
settings.setting("substitute-path", help="'set substitute-path FROM TO': read a source recorded under directory FROM from directory TO instead (the first rule that matches whole leading directories applies); 'unset substitute-path [FROM]' removes rules.",
                 show=_show_substitutions, set=_set_substitution)


@command("unset", usage="unset substitute-path [FROM]", help="Remove the source path substitution rule for FROM, or all of them.", example="unset substitute-path /build")
def unset_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if words[:1] != ["substitute-path"]:
        raise CommandError('"unset" must be followed by "substitute-path" (tdbg has no environment to unset).')
    path = interp.session.source_path
    if len(words) == 1:
        if interp.query("Delete all source path substitution rules? "):
            path.substitutions.clear()
        return
    old = words[1].rstrip("/") or "/"
    if not any(o == old for o, _ in path.substitutions):
        raise CommandError(f"No substitution rule defined for `{words[1]}'")
    path.substitutions = [(o, n) for o, n in path.substitutions if o != old]


@info_command("source", usage="info source", help="Describe the current source file (the last one listed or stopped in): its name, compilation directory, where it was found on this machine, its length, language, producer and DWARF version.", example="info source")
def info_source(interp: Interpreter, args: str) -> None:
    position = interp.state.source
    info = interp.session.debug
    if position is None or position.file is None or info is None:
        interp.out("No current source file.")
        return
    unit = info.source_info(position.file)
    if unit is None:
        interp.out("No current source file.")
        return
    interp.out(f"Current source file is {unit['name']}")
    if unit["comp_dir"]:
        interp.out(f"Compilation directory is {unit['comp_dir']}")
    located = info.source_file(position.file)
    try:
        count = len(info.source_lines(str(position.file)))
    except OSError:
        count = None
    if count is not None:
        interp.out(f"Located in {located}")
        interp.out(f"Contains {count} lines.")
    interp.out(f"Source language is {unit['language']}.")
    if unit["producer"]:
        interp.out(f"Producer is {unit['producer']}.")
    interp.out(f"Compiled with DWARF {unit['version']} debugging format.")
    interp.out("Includes preprocessor macro info." if unit["macros"] else "Does not include preprocessor macro info.")
