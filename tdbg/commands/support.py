"""Support commands: ``help``, ``apropos``, ``handle``, ``thread``, ``info threads``, ``info``
(scripting is ``scripting``)."""

from __future__ import annotations

import re
from pathlib import Path

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import fits, line_width, wrap, wrap_lines
from tdbg.commands.registry import INFO, REGISTRIES, ROOT, CommandError, command, first_sentence, info_command
from tdbg.session import RunStatus
from tdbg.tensix.events import DEFAULT_POLICY_WARNS, Category


@command("help", aliases=("h",), usage="help [COMMAND]", help="List the commands, or show one command's usage, description and an example, filled to the line (set width).", example="help x")
def help_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    width = line_width(interp)

    def out(text: str) -> None:
        for line in wrap_lines(text, width):
            interp.out(line)

    if not words:
        interp.out("tdbg commands (help COMMAND for details):")
        listed = [(cmd.usage, first_sentence(cmd.help)) for name, cmd in sorted(ROOT.commands.items()) if not name.startswith("__")]
        columns = [f"  {usage:<40} {sentence}" for usage, sentence in listed]
        if not fits(columns, width):  # GDB's "NAME -- DOC" lines, filled to the line
            columns = [line for usage, sentence in listed for line in wrap(f"{usage} -- {sentence}", width, "  ", "      ")]
        for line in columns:
            interp.out(line)
        return
    if words[0] == "user-defined":
        interp.out("User-defined commands.\nThe commands in this class are those defined by the user.\n"
                   "Use the \"define\" command to define a command.\n\nList of commands:\n")
        for name, user in sorted(interp.user_commands.items()):
            out(f"{name} -- {(user.doc or 'User-defined.').splitlines()[0]}")
        return
    if words[0] in ("info", "i", "inf") and len(words) > 1:
        out(INFO.lookup(words[1]).help_text())
    elif words[0] in ("info", "i", "inf"):
        out(ROOT.lookup("info").help_text())
        interp.out("\nList of info subcommands:\n")
        for name in sorted(INFO.commands):
            cmd = INFO.commands[name]
            names = ", ".join(f"info {n}" for n in (name, *cmd.aliases))
            for line in wrap(first_sentence(cmd.help), width, f"{names} -- ", "  "):
                interp.out(line)
        interp.out('\nType "help info" followed by info subcommand name for full documentation.')
    elif words[0] in interp.user_commands:
        out(interp.user_commands[words[0]].doc or "User-defined.")
    else:
        out(ROOT.lookup(words[0]).help_text())


@command("handle", usage="handle CATEGORY stop|warn|ignore", help="Choose what an event of CATEGORY does: stop the run, print a warning and go on, or go on silently; every category stops by default but " + ", ".join(c.value for c in DEFAULT_POLICY_WARNS) + ", which warns.  Categories: " + ", ".join(c.value for c in Category) + " (NeverWritten: a read of memory nothing wrote since the reset: a NoC read of DRAM or another tile's L1, e.g. 'NC read DRAM channel 4 0x30000000..0x30000800: no buffer there, never written', the buffer named when a tt-metal program's host knows it; and of this tile's L1 by a NoC request or a Tensix unit, e.g. 'B read this tile 0x40000..0x40800 for a NoC write to DRAM channel 4 0x0: never written', 'T0's UNPACR read this tile 0x30000..0x30200: never written'.  L1 counts as written, by 16-byte granule, once the loader placed firmware there (its zeroed .bss too), a host or the debugger wrote it (restore, set, a tt-metal host's mailboxes, arguments and kernels), a core stored to it, a NoC request or a Tensix unit wrote it; a read is named when none of its granules was.  A core's own loads are not checked (firmware polls and copies words nothing wrote as a matter of course), nor is anything in L1 without the native library (TDBG_NATIVE=0), which sees a core's stores).", example="handle UnimplementedFunctionality warn")
def handle_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.session import Policy

    words = args.split()
    policies = interp.session.policy
    if not words:
        for category, policy in policies.items():
            interp.out(f"{category.value:<28} {policy.value}")
        return
    if len(words) != 2:
        raise CommandError("Usage: handle CATEGORY stop|warn|ignore")
    matches = [c for c in Category if c.value.lower().startswith(words[0].lower())] if words[0] != "all" else list(Category)
    if not matches:
        raise CommandError(f"Unknown category \"{words[0]}\"; one of {', '.join(c.value for c in Category)}.")
    try:
        policy = Policy(words[1].lower())
    except ValueError:
        raise CommandError(f"Unknown action \"{words[1]}\"; one of stop, warn, ignore.") from None
    for category in matches:
        interp.session.set_policy(category, policy)
        interp.out(f"{category.value:<28} {policy.value}")


@command("thread", usage="thread [N|CORE] | thread apply all|ID... [-ascending] [-q] [-c] [-s] COMMAND", help="Select the core the other commands act on, by GDB thread number (1 T0, 2 T1, 3 T2, 4 B) or name; without an argument, name the current one.  'thread apply' runs COMMAND on each core ('all': every core with firmware, the last thread first as GDB, or first with -ascending; or the thread numbers or core names given, in that order), each after a line 'Thread N (CORE):'; -q leaves that line out, -c goes on after a failing COMMAND showing its error, -s goes on silently; the current core is put back afterwards.", example="thread apply all bt")
def thread_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    arg = args.strip()
    if arg.split(" ", 1)[0] == "apply":
        from tdbg.commands.escapes import thread_apply

        thread_apply(interp, arg[len("apply"):])
        return
    if arg:
        s.select_core(s.core_by_thread(arg))
        interp.state.plain_step = False
    core = s.current
    interp.out(f"[Current thread is {s.thread_id(core)} ({s.core_label(core)})]")
    if arg and s.has_firmware(core):
        from tdbg.commands.location import describe_location

        interp.out(describe_location(interp, s.pc).splitlines()[0])


@command("select-tile", usage="select-tile [X,Y]", help="On a chip (tdbg as tt-metal's simulator): select the Tensix tile at NoC coordinate X,Y, whose cores the other commands then act on (a core is also named X,Y:CORE, as in 'thread 2,2:NC'); without an argument, name the current one.", example="select-tile 2,2")
def select_tile_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.arch.chips import parse_coord
    from tdbg.errors import SessionError

    s = interp.session
    if s.tile_coord is None:
        raise CommandError("This session has one tile (start tdbg as a simulator for a chip: tdbg simulator --help).")
    if args.strip():
        try:
            s.select_tile(parse_coord(args))
        except (ValueError, SessionError) as exc:
            raise CommandError(str(exc)) from None
    x, y = s.tile_coord
    interp.out(f"[Current tile is {x},{y}]")


@info_command("tiles", usage="info tiles", help="On a chip: each Tensix tile by NoC coordinate, dormant (nothing released yet: it costs its written bytes) or modelled with its cores' states; * marks the current one.", example="info tiles")
def info_tiles(interp: Interpreter, args: str) -> None:
    s = interp.session
    if s.tile_coord is None:
        raise CommandError("This session has one tile.")
    for where, state in s.tiles():
        interp.out(f"{'*' if where == s.tile_coord else ' '} {where[0]},{where[1]}  {state}")


@info_command("threads", usage="info threads",
              help="List the cores (GDB threads), one line each: the core, its state (stopped: it would run; blocked "
                   "and on what; parked; exited; held in reset; no firmware) and its own frame; * marks the current "
                   "one.  Where 'set width' is too narrow for a line, the wait's text, the file's folders, then "
                   "the frame's arguments (as '...') are left out, as far as needed.", example="info threads")
def info_threads(interp: Interpreter, args: str) -> None:
    from tdbg.commands.layout import first_fitting, line_width
    from tdbg.commands.location import frame_args, frame_view, shows_address

    s = interp.session
    rows = []   # (core, its frame or None, the frame's arguments, whether GDB shows its pc)
    for name in s.core_names:
        if not s.has_firmware(name):
            rows.append((name, None, "", False))
            continue
        with s.on_core(name):
            frame = frame_view(interp).all()[0]
            rows.append((name, frame, frame_args(interp, frame), shows_address(interp, frame)))

    width = line_width(interp)

    def layout(full_wait: bool, base: bool) -> list[str]:
        """GDB's table, the Target Id column as wide as its widest entry (a line still too
        wide without the folders: without the arguments)."""
        states = [s.core_status(name) for name, *_ in rows]
        targets = [f"Thread {s.thread_id(name)} ({s.core_label(name)}) [{s.core_state(name) if full_wait and state == 'blocked' else state}]"
                   for (name, *_), state in zip(rows, states)]
        column = max(len("Target Id"), *map(len, targets))
        lines = [f"  Id   {'Target Id':<{column}} Frame"]
        for (name, frame, args_text, with_pc), target in zip(rows, targets):
            head = f"{'*' if name == s.current else ' '} {s.thread_id(name):<4} {target:<{column}} "
            if frame is None:
                lines.append(head.rstrip())
                continue
            pc = f"{frame.pc:#010x} in " if with_pc or frame.line is None else ""
            where = ""
            if frame.file is not None and frame.line is not None:
                where = f" at {Path(frame.file).name if base else frame.file}:{frame.line}"
            line = f"{head}{pc}{frame.function or '??'} ({args_text}){where}"
            if base and width is not None and len(line) > width:
                line = f"{head}{pc}{frame.function or '??'} (...){where}"
            lines.append(line)
        return lines

    for line in first_fitting(width, [lambda: layout(True, False), lambda: layout(False, False), lambda: layout(False, True)]):
        interp.out(line)


@command("info", aliases=("i", "inf"), usage="info SUBCOMMAND", help="Show things about the program and the tile; 'help info' lists the subcommands.", example="info registers pc")
def info_cmd(interp: Interpreter, args: str) -> None:
    INFO.dispatch(interp, args)


@command("apropos", usage="apropos REGEXP", help="List the commands whose name or help matches REGEXP (case-insensitive), each as 'NAME -- the first sentence of its help', as GDB's apropos.", example="apropos breakpoint")
def apropos_cmd(interp: Interpreter, args: str) -> None:
    if not args.strip():
        raise CommandError("REGEXP string is empty")
    try:
        pattern = re.compile(args.strip(), re.IGNORECASE)
    except re.error as exc:
        raise CommandError(f"Invalid regexp: {exc}") from None
    width = line_width(interp)
    found = sorted((f"{r.prefix} {name}".strip(), cmd) for r in REGISTRIES for name, cmd in r.commands.items()
                   if not name.startswith("__") and (pattern.search(f"{r.prefix} {name}") or pattern.search(cmd.help)))
    for name, cmd in found:
        for line in wrap_lines(f"{name} -- {first_sentence(cmd.help)}", width):
            interp.out(line)


@info_command("inferiors", usage="info inferiors", help="GDB's table of inferiors: the tile is one (its cores are its threads, 'info threads'), 'process 1' once the program runs, with the current core's firmware as its executable.", example="info inferiors")
def info_inferiors(interp: Interpreter, args: str) -> None:
    s = interp.session
    running = s.status is RunStatus.STOPPED
    image = s.programs.get(s.current)
    rows = [("*", "1", "process 1" if running else "<null>", "1 (tdbg)" if running else "",
             str(image.path) if image is not None else "")]
    width = max(20, *(len(r[3]) for r in rows))   # GDB: columns of 1, 4, 17, at least 20 and 17
    interp.out(f"  {'Num':<4} {'Description':<17} {'Connection':<{width}} {'Executable':<17} ")
    for current, num, description, connection, executable in rows:
        interp.out(f"{current} {num:<4} {description:<17} {connection:<{width}} {executable:<17} ")
