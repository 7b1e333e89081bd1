"""Breakpoints and watchpoints: ``break``, ``tbreak``, ``delete``, ``disable``, ``enable``,
``condition``, ``ignore``, ``commands``, ``watch``/``rwatch``/``awatch``, ``info breakpoints``."""

from __future__ import annotations

import re
from collections.abc import Callable

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import breakpoint_what, frame_view, qualify_line
from tdbg.commands.registry import CORE_NAMES, CommandError, Registry, command, info_command
from tdbg.commands.ttmetal_cmds import cb_register
from tdbg.commands.values import evaluate_address, evaluate_int, lvalue
from tdbg.expr import INT, Value
from tdbg.debug.hostfiles import HostFileError, write_host_file
from tdbg.session import Breakpoint, Disposition, Location, Session, SessionError

_DST_ROW = re.compile(r"^dst\[(.+)\]$")


_THREAD = re.compile(r"\s+thread\s+(\S+)\s*$")


def _break(interp: Interpreter, args: str, temporary: bool) -> None:
    """``break [LOCATION] [thread N] [if COND]``."""
    from tdbg.symbols import linespec   # the DWARF records: imported when first needed

    s = interp.session
    location, _, condition = args.partition(" if ")
    location = location.strip()
    thread = None
    all_tiles = True   # on a chip: every tile, unless 'thread X,Y:CORE' names one
    if m := _THREAD.search(" " + location):
        thread = s.core_by_thread(m.group(1))
        all_tiles = ":" not in m.group(1)
        location = (" " + location)[: m.start()].strip()
    if not location:
        where: str | int = s.pc
        thread, all_tiles = thread or s.current, False
    elif location.startswith("*"):
        where = evaluate_address(interp, location[1:].strip())
        if where % 4:
            interp.out(f"warning: {where:#x} is not 4-byte aligned: no instruction starts there (the baby RISC-V "
                       "has no compressed instructions), so this breakpoint is never hit.")
    else:
        where = qualify_line(interp, location)
    bp = s.break_at(where, temporary=temporary, thread=thread, all_tiles=all_tiles)
    bp.location = location
    if condition.strip():
        bp.condition = condition.strip()
    kind = "Temporary breakpoint" if temporary else "Breakpoint"
    set_bpnum(interp, bp.number)
    spec = linespec.parse(str(where), None) if isinstance(where, str) else None
    moved = spec is not None and spec.line is not None and bp.line != spec.line
    if len(bp.locations) > 1:
        shown = f"{spec.file}:{bp.line}" if moved and spec is not None else location
        interp.out(f"{kind} {bp.number} at {bp.address:#x}: {shown}. ({len(bp.locations)} locations)")
    else:
        loc = bp.locations[0]
        li = loc.line
        if isinstance(where, int) or (spec is not None and spec.address is not None):
            with s.on_core(loc.core):
                li = s.debug.line_for(loc.address) if s.debug else None
        place = f": file {li.file}, line {li.line}." if li else ""
        interp.out(f"{kind} {bp.number} at {loc.address:#x}{place}")
    loaded = [name for name in s.core_names if s.has_firmware(name)]
    missing = [name for name in loaded if name not in bp.cores]
    if missing and len(loaded) > 1 and bp.thread is None:
        what = f"{spec.file}:{bp.line}" if spec is not None and spec.line is not None and spec.file else location
        interp.out(f"Locations on {', '.join(bp.cores)}; none on {', '.join(missing)} (no code for {what} there).")


def break_and_report(interp: Interpreter, location: str) -> None:
    """``break LOCATION`` as typed (``rbreak`` sets its breakpoints so)."""
    _break(interp, location, temporary=False)


def set_bpnum(interp: Interpreter, number: int) -> None:
    """GDB's ``$bpnum``: the number of the last breakpoint set."""
    interp.session.expression_context().set_convenience("bpnum", Value(INT, number))


def _complete_locations(interp: Interpreter, word: str) -> list[str]:
    """Functions and variables of every core's programs (kernels too, before they run), and
    source files as ``FILE:`` (GDB's linespec completion)."""
    symbols, files = interp.session.location_names()
    return [n for n in symbols if n.startswith(word)] + [f"{n}:" for n in files if n.startswith(word)]


@command("break", aliases=("b", "br"), usage="break [LOCATION] [thread N] [if COND]", help="Set a breakpoint at LOCATION: *ADDRESS, FUNCTION, FILE:LINE or LINE (default: the current pc), in every core whose firmware has it (one location per core), or with 'thread N' only on that core (N: thread number or " + CORE_NAMES + ").  On a chip (tdbg simulator) it is set on every tile, tiles whose code the host loads later too (GDB's breakpoint over every inferior: locations 1.1, 1.2, ... one a tile, 'info breakpoints' names each one's tile); 'thread X,Y:CORE' sets it on that tile's core only.  FILE:LINE also places a location on every inlined call made on that line (its entry; the stop shows the caller at that line): clang writes no line-table row for an inlined call's line, where GDB moves such a breakpoint to the next line that has one.  It costs nothing until hit.", example="break main", complete=_complete_locations)
def break_cmd(interp: Interpreter, args: str) -> None:
    _break(interp, args, temporary=False)


@command("tbreak", usage="tbreak [LOCATION] [thread N] [if COND]", help="Set a temporary breakpoint: deleted when first hit.", example="tbreak fill_row", complete=_complete_locations)
def tbreak_cmd(interp: Interpreter, args: str) -> None:
    _break(interp, args, temporary=True)


_MAX_NUMBER = 2**31 - 1  # GDB's breakpoint numbers are C ints


def _number(interp: Interpreter, token: str, text: str) -> int:
    """One breakpoint number of a list: a decimal or a ``$`` variable, as GDB's
    ``number_or_range_parser`` takes it (its error texts)."""
    if token.startswith("$"):
        value = interp.session.expression_context().convenience(token[1:])
        if value is None or not isinstance(value.raw, int):
            raise CommandError(f"Convenience variable must have integer value.\nBad breakpoint number '{text}'")
        n = value.raw
    elif token.lstrip("-").isdigit():
        n = int(token)
    else:
        raise CommandError(f"Bad breakpoint number '{text}'")
    if n < 0:
        raise CommandError(f"Negative breakpoint number '{text}'")
    if n == 0 or n > _MAX_NUMBER:
        raise CommandError(f"Bad breakpoint number '{text}'")
    return n


def _for_each_number(interp: Interpreter, args: str, action: Callable[[int], None]) -> None:
    """GDB's breakpoint number list (``N``, ``A-B``, ``$VAR``; none: every breakpoint and
    watchpoint): ``action`` on each existing number in the order given, and for numbers nobody
    holds the line GDB prints ("No breakpoint number N."; a run of them in a range is one
    line, so a huge range costs nothing).  The whole list is checked before anything is done."""
    s = interp.session
    if not args.strip():
        spans = [(1, _MAX_NUMBER)]
    else:
        spans = []
        for part in args.split():
            negative = part.startswith("-")
            lo_text, dash, hi_text = part[negative:].partition("-")
            lo = _number(interp, "-" * negative + lo_text, part)
            hi = _number(interp, hi_text, part) if dash else lo
            if hi < lo:
                raise CommandError(f"Inverted breakpoint range at '{part}'")
            spans.append((lo, hi))
    for lo, hi in spans:
        expect = lo
        for n in [n for n in sorted([*s.breakpoints, *s.watchpoints]) if lo <= n <= hi] + [hi + 1]:
            if n > expect and args.strip():
                last = n - 1
                interp.out(f"No breakpoint number {expect}." if last == expect else f"No breakpoint numbers {expect}-{last}.")
            if n <= hi:
                action(n)
            expect = n + 1


@command("delete", aliases=("d",), usage="delete [N|A-B|$VAR ...] | delete checkpoint N | delete setup", help="Delete breakpoints and watchpoints N (all when none given); A-B is a range.  A number nobody holds is reported and the others are still deleted, as GDB does.  'delete checkpoint N' deletes checkpoint N and frees its memory; 'delete setup' forgets the set-up run writes again ('info setup').", example="delete 2")
def delete_cmd(interp: Interpreter, args: str) -> None:
    word, _, rest = args.strip().partition(" ")
    if word == "setup":
        interp.session.setup.clear()
        return
    if word == "checkpoint":
        if not rest.strip():
            raise CommandError("Argument required (checkpoint id).")
        interp.session.delete_checkpoint(evaluate_int(interp, rest))
        return
    _for_each_number(interp, args, interp.session.delete)


def _set_enabled(interp: Interpreter, args: str, enabled: bool) -> None:
    _for_each_number(interp, args, lambda n: interp.session.enable(n, enabled))


@command("disable", usage="disable [N|A-B|$VAR ...]", help="Disable breakpoints and watchpoints N (all when none given; A-B is a range): they stay listed (Enb n) and do not stop the program; a disabled watchpoint costs nothing.", example="disable 1")
def disable_cmd(interp: Interpreter, args: str) -> None:
    _set_enabled(interp, args, False)


def _hit_count(interp: Interpreter, token: str) -> int:
    """The COUNT of ``enable count``, as GDB's ``get_number`` reads it: a decimal or a ``$``
    variable; any other word counts 0 (GDB says nothing), which disables after the next stop."""
    if token.startswith("$"):
        value = interp.session.expression_context().convenience(token[1:])
        if value is None or not isinstance(value.raw, int):
            raise CommandError("Convenience variable must have integer value.")
        return value.raw
    return int(token) if token.lstrip("-").isdigit() else 0


@command("enable", usage="enable [N|A-B|$VAR ...] | enable once N... | enable count COUNT N... | enable delete N...", help="Enable breakpoints and watchpoints N (all when none given; A-B is a range); each keeps its disposition (the Disp column of 'info breakpoints').  'enable once N...': enabled for one stop, then disabled (Disp dis).  'enable count COUNT N...': enabled for COUNT stops, then disabled (Disp dis; 'info breakpoints' says how many are left; hits passed by an ignore count do not count).  'enable delete N...': enabled for one stop, then deleted, like a tbreak (Disp del).  'breakpoints' may come first (enable breakpoints once 2).", example="enable count 3 1")
def enable_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if words[:1] == ["breakpoints"]:
        words = words[1:]
    mode = words[0] if words and words[0] in ("once", "count", "delete") else None
    if mode is None:
        _set_enabled(interp, " ".join(words), True)
        return
    count = 1
    words = words[1:]
    if mode == "count":
        if not words:
            raise CommandError("Argument required (hit count).")
        count = _hit_count(interp, words.pop(0))
    if not words:
        raise CommandError("Argument required (one or more breakpoint numbers).")
    disposition = Disposition.DELETE if mode == "delete" else Disposition.DISABLE
    _for_each_number(interp, " ".join(words), lambda n: interp.session.enable(n, True, disposition, count))


def _breakpoint(interp: Interpreter, text: str) -> Breakpoint:
    try:
        n = int(text)
    except ValueError:
        raise CommandError(f'Bad breakpoint argument: \'{text}\'') from None
    bp = interp.session.breakpoints.get(n)
    if bp is None:
        raise CommandError(f"No breakpoint number {n}.")
    return bp


@command("condition", usage="condition N [EXPR]", help="Stop at breakpoint N only when EXPR is non-zero; without EXPR, always.", example="condition 1 $a0 == 3")
def condition_cmd(interp: Interpreter, args: str) -> None:
    number, _, expr = args.strip().partition(" ")
    bp = _breakpoint(interp, number)
    bp.condition = expr.strip() or None
    if bp.condition is None:
        interp.out(f"Breakpoint {bp.number} now unconditional.")


@command("ignore", usage="ignore N COUNT", help="Do not stop at breakpoint N for its next COUNT hits.", example="ignore 1 3")
def ignore_cmd(interp: Interpreter, args: str) -> None:
    parts = args.split()
    if len(parts) != 2:
        raise CommandError("Argument required (a breakpoint number and a count).")
    bp = _breakpoint(interp, parts[0])
    bp.ignore_count = int(parts[1], 0)
    interp.out(f"Will ignore next {bp.ignore_count} crossings of breakpoint {bp.number}.")


@command("commands", usage="commands [N] ... end", help="Give breakpoint N (default: the last one set) commands to run each time it stops the program.", example="commands 1")
def commands_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    if args.strip():
        bp = _breakpoint(interp, args.strip())
    elif s.breakpoints:
        bp = s.breakpoints[max(s.breakpoints)]
    else:
        raise CommandError("No breakpoints specified.")
    interp.out("Type commands for breakpoint(s) %d, one per line.\nEnd with a line saying just \"end\"." % bp.number) if interp.state.interactive else None
    bp.commands = interp.read_block()


def _watch(interp: Interpreter, args: str, kind: str) -> None:
    expr = args.strip()
    if not expr:
        raise CommandError("Argument required (expression to compute).")
    s = interp.session
    m = _DST_ROW.match(expr.replace(" ", ""))
    cb = cb_register(interp, expr)
    if m:
        watch = s.watch_dst_row(evaluate_int(interp, m.group(1)), kind)
        what = f"{expr} ({watch.view}, DstBits rows {', '.join(map(str, watch.bits_rows))})"
    elif cb is not None:
        watch = s.watch(cb[0], 4, kind)
        what = cb[1]
    else:
        address, size = lvalue(interp, expr)
        watch = s.watch(address, size, kind)
        what = expr
    interp.state.watch_expr[watch.number] = what
    set_bpnum(interp, watch.number)
    title = {"write": "Hardware watchpoint", "read": "Hardware read watchpoint", "access": "Hardware access (read/write) watchpoint"}[kind]
    interp.out(f"{title} {watch.number}: {what}")


@command("watch", usage="watch EXPR | watch dst[ROW] | watch cb N", help="Stop before any store to the memory EXPR designates (a variable, *ADDRESS or {TYPE}ADDRESS), printing Old and New values; watch dst[ROW] stops on any write to that Dst row, by a window store or a Tensix instruction; watch cb N on any change of tt-metal's CB N's pages received (its overlay stream register: a push).", example="watch dst[12]")
def watch_cmd(interp: Interpreter, args: str) -> None:
    _watch(interp, args, "write")


@command("rwatch", usage="rwatch EXPR", help="Stop before any load from the memory EXPR designates.", example="rwatch results[0]")
def rwatch_cmd(interp: Interpreter, args: str) -> None:
    _watch(interp, args, "read")


@command("awatch", usage="awatch EXPR", help="Stop before any load from or store to the memory EXPR designates.", example="awatch *0x6310")
def awatch_cmd(interp: Interpreter, args: str) -> None:
    _watch(interp, args, "access")


@info_command("breakpoints", aliases=("b", "break"), usage="info breakpoints [N|A-B ...]", help="List breakpoints and watchpoints with their hit counts, conditions and commands.  With N or A-B, only those; each location is named by its function (C++: its full name) and, on a tile, its core.", example="info breakpoints")
def info_breakpoints(interp: Interpreter, args: str) -> None:
    s = interp.session
    items = [*s.breakpoints.values(), *s.watchpoints.values()]
    if args.strip():
        wanted: list[int] = []
        _for_each_number(interp, args, wanted.append)
        items = [item for item in items if item.number in wanted]
        if not items:
            interp.out(f"No breakpoint or watchpoint matching '{args.strip()}'.")
            return
    _listing(interp, items, "No breakpoints or watchpoints.")


@info_command("watchpoints", usage="info watchpoints", help="List the watchpoints only, as 'info breakpoints' shows them.", example="info watchpoints")
def info_watchpoints(interp: Interpreter, args: str) -> None:
    _listing(interp, list(interp.session.watchpoints.values()), "No watchpoints.")


def _what(interp: Interpreter, loc: Location) -> str:
    """``breakpoint_what`` in the symbols of the location's tile (on a chip)."""
    if loc.tile is None or loc.tile == interp.session.tile_coord:
        return breakpoint_what(interp, loc)
    with interp.session.on_tile(loc.tile):
        return breakpoint_what(interp, loc)


def _listing(interp: Interpreter, items: list, empty: str) -> None:
    s = interp.session
    rows = sorted(items, key=lambda b: b.number)
    if not rows:
        interp.out(empty)
        return
    interp.out("Num     Type           Disp Enb Address    What")
    exprs = interp.state.watch_expr
    for item in rows:
        disp = f"{item.disposition.value:<4}"
        enabled = "y" if item.enabled else "n"
        if isinstance(item, Breakpoint):
            if len(item.locations) == 1:
                loc = item.locations[0]
                thread = f" thread {s.thread_id(loc.core)}" if item.thread else ""   # GDB 13 says it here too
                interp.out(f"{item.number:<7} {'breakpoint':<14} {disp} {enabled}   {loc.address:#010x} {_what(interp, loc)}{thread}")
            else:
                interp.out(f"{item.number:<7} {'breakpoint':<14} {disp} {enabled}   <MULTIPLE> ")
                several = len(item.cores) > 1 or len(s.programs) > 1
                for i, loc in enumerate(item.locations, 1):
                    core = f" ({loc.core})" if several else ""
                    if loc.tile is not None:   # on a chip: the tile it is on (GDB's inferior)
                        core = f" ({loc.tile[0]},{loc.tile[1]}:{loc.core})"
                    interp.out(f"{f'{item.number}.{i}':<7} {'':<14} {'':<4} {enabled}   {loc.address:#010x} {_what(interp, loc)}{core}")
            if item.condition:
                interp.out(f"\tstop only if {item.condition}")
            if item.thread:   # GDB's print_one_breakpoint_location: after the condition
                interp.out(f"\tstop only in thread {s.thread_id(item.thread)}")
        else:
            kind = {"write": "hw watchpoint", "read": "read watchpoint", "access": "acc watchpoint"}[item.kind]
            interp.out(f"{item.number:<7} {kind:<14} {disp} {enabled}              {exprs.get(item.number, hex(item.address))}")
        if item.hits:
            interp.out(f"\tbreakpoint already hit {item.hits} time{'s' if item.hits != 1 else ''}")
        ignore = item.ignore_count if isinstance(item, Breakpoint) else 0
        if ignore:
            interp.out(f"\tignore next {ignore} hits")
        if item.enable_count > 1:  # GDB: a count of 1 (enable once) is said by Disp and Enb alone
            interp.out(f"\tdisable after {'additional' if ignore else 'next'} {item.enable_count} hits")
        for line in item.commands if isinstance(item, Breakpoint) else ():
            interp.out(f"        {line}")


@command("clear", usage="clear [LOCATION]", help="Delete every breakpoint at LOCATION (FUNCTION, FILE:LINE, LINE or *ADDRESS; default: the line of the selected frame), on every core, as GDB's clear.", example="clear fill_row", complete=_complete_locations)
def clear_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    text = args.strip()
    if text.startswith("*"):
        addresses = {evaluate_address(interp, text[1:])}
    else:
        if not text:
            frame = frame_view(interp).selected()
            if frame.file is None or frame.line is None:
                raise CommandError("No source file specified.")
            where: str | int = f"{frame.file}:{frame.line}"
        else:
            where = qualify_line(interp, text)
        addresses = set()
        for core in s.core_names:
            if s.has_firmware(core):
                with s.on_core(core):
                    try:
                        addresses |= {site.address for site in s.locate(where)}
                    except SessionError:
                        pass
    found = sorted(n for n, bp in s.breakpoints.items() if any(loc.address in addresses for loc in bp.locations))
    if not found:
        raise CommandError(f"No breakpoint at {text}." if text else "No breakpoint at this line.")
    for number in found:
        s.delete(number)
    if interp.from_tty:
        interp.out(f"Deleted breakpoint{'s' if len(found) > 1 else ''} {' '.join(map(str, found))} ")


SAVE = Registry("save")


def _thread_named(s: Session, bp: Breakpoint) -> str:
    """How ``break … thread`` names ``bp``'s core again: GDB's thread number, or on a chip, for a
    breakpoint on one tile, ``X,Y:CORE`` (a number alone sets it on every tile)."""
    tile = bp.locations[0].tile if bp.locations else None
    if bp.all_tiles or tile is None:
        return str(s.thread_id(bp.thread))
    return f"{tile[0]},{tile[1]}:{bp.thread}"


@command("save", usage="save breakpoints FILE", help="Save the breakpoints and watchpoints to FILE as the commands that set them again, with their conditions, ignore counts, commands and disabled state (GDB's save breakpoints; read them back with 'source FILE').", example="save breakpoints bps.gdb", host_files=True)
def save_cmd(interp: Interpreter, args: str) -> None:
    SAVE.dispatch(interp, args)


@SAVE.command("breakpoints", usage="save breakpoints FILE", help="Save the breakpoints and watchpoints to FILE as the commands that set them again (GDB's text).", example="save breakpoints bps.gdb", host_files=True)
def save_breakpoints(interp: Interpreter, args: str) -> None:
    s = interp.session
    path = args.strip()
    if not path:
        raise CommandError("Argument required (file name in which to save)")
    points = sorted([*s.breakpoints.values(), *s.watchpoints.values()], key=lambda p: p.number)
    if not points:
        raise CommandError("Nothing to save.")
    lines: list[str] = []
    for p in points:
        if isinstance(p, Breakpoint):
            thread = f" thread {_thread_named(s, p)}" if p.thread else ""
            lines.append(f"{'tbreak' if p.temporary else 'break'} {p.location or f'*{p.address:#x}'}{thread}")
        else:
            verb = {"write": "watch", "read": "rwatch", "access": "awatch"}[p.kind]
            lines.append(f"{verb} {interp.state.watch_expr.get(p.number, f'*{p.address:#x}')}")
        if getattr(p, "condition", None):
            lines.append(f"  condition $bpnum {p.condition}")
        if getattr(p, "ignore_count", 0):
            lines.append(f"  ignore $bpnum {p.ignore_count}")
        if getattr(p, "commands", None):
            lines += ["  commands", *(f"    {c}" for c in p.commands), "  end"]
        if not p.enabled:
            lines.append("disable $bpnum")
    try:
        write_host_file(path, ("\n".join(lines) + "\n").encode())
    except HostFileError as exc:
        raise CommandError(str(exc)) from None
    if interp.from_tty:
        interp.out(f"Saved to file '{path}'.")
