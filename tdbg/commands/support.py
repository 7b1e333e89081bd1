"""Support commands: ``help``, ``echo``, ``printf``, ``source``, ``define``, ``handle``,
``thread``, ``info threads``, ``info``, the user-command runner."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tdbg.commands.interpreter import Interpreter, UserCommand
from tdbg.commands.registry import INFO, ROOT, CommandError, command, info_command
from tdbg.commands.values import evaluate
from tdbg.emu.core import Core, CoreState
from tdbg.emu.tile import Policy
from tdbg.tensix.events import Category

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "a": "\a", "e": "\x1b", "r": "\r", " ": " "}


def first_sentence(text: str) -> str:
    """The help text up to its first full stop (not the dots of ``cfg.NAME`` or ``1..3``)."""
    return re.split(r"(?<=\.)\s", text.strip(), maxsplit=1)[0]


def unescape(text: str) -> str:
    """GDB's backslash escapes (``\\n``, ``\\t``, ``\\033`` ...)."""
    def sub(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] in "01234567":
            return chr(int(esc, 8))
        return _ESCAPES.get(esc, esc)

    return re.sub(r"\\([0-7]{1,3}|.)", sub, text)


@command("help", aliases=("h",), usage="help [COMMAND]", help="List the commands, or show one command's usage, description and an example.", example="help x")
def help_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if not words:
        interp.out("tdbg commands (help COMMAND for details):")
        for name in sorted(ROOT.commands):
            if name.startswith("__"):
                continue
            cmd = ROOT.commands[name]
            interp.out(f"  {cmd.usage:<40} {first_sentence(cmd.help)}")
        return
    if words[0] in ("info", "i") and len(words) > 1:
        interp.out(INFO.lookup(words[1]).help_text())
    elif words[0] in interp.user_commands:
        interp.out(f"User-defined command {words[0]}:\n  " + "\n  ".join(interp.user_commands[words[0]].body))
    else:
        interp.out(ROOT.lookup(words[0]).help_text())


@command("echo", usage="echo TEXT", help="Print TEXT; GDB's backslash escapes apply (\\n for a newline, a trailing \\ for none).", example="echo done\\n")
def echo_cmd(interp: Interpreter, args: str) -> None:
    interp.write(unescape(args))


@command("printf", usage='printf "FORMAT", ARG...', help="Print ARGs with a C format string (%d %u %x %o %c %s %f %%).", example='printf "pc=%#x\\n", $pc')
def printf_cmd(interp: Interpreter, args: str) -> None:
    m = re.match(r'\s*"((?:[^"\\]|\\.)*)"\s*(?:,(.*))?$', args, re.S)
    if not m:
        raise CommandError("Bad format string")
    fmt = unescape(m.group(1))
    values = [v.strip() for v in split_args(m.group(2) or "")]
    out, vi = [], 0
    for piece in re.split(r"(%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%])", fmt):
        if not piece.startswith("%") or piece == "%":
            out.append(piece)
            continue
        if piece == "%%":
            out.append("%")
            continue
        if vi >= len(values):
            raise CommandError(f"Missing argument {vi} in format string")
        value = evaluate(interp, values[vi]).raw
        vi += 1
        conv = piece[-1]
        spec = piece.replace("l", "").replace("z", "")
        if conv in "sc" and isinstance(value, int) and conv == "c":
            out.append(spec % chr(value & 0xFF))
        elif conv in "di":
            out.append(spec % (value if isinstance(value, int) else int(value)))
        elif conv in "uxXo":
            out.append(spec % ((value if isinstance(value, int) else int(value)) & 0xFFFFFFFF))
        elif conv in "feEgG":
            out.append(spec % float(value))
        else:
            out.append(spec % value)
    interp.write("".join(out))


def split_args(text: str) -> list[str]:
    """Split on commas that are not inside brackets or quotes."""
    parts, depth, current, quote = [], 0, [], ""
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


@command("source", usage="source FILE", help="Run the commands in FILE as if typed, printing what they print; a failing command does not stop the script.", example="source checks.gdb")
def source_cmd(interp: Interpreter, args: str) -> None:
    path = Path(args.strip()).expanduser()
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise CommandError(f"{args.strip()}: {exc.strerror}.") from None
    interp.run_lines(iter(lines))


@command("define", usage="define NAME ... end", help="Define a new command NAME that runs COMMANDS; $arg0..$argN and $argc are its arguments.", example="define showdst")
def define_cmd(interp: Interpreter, args: str) -> None:
    name = args.strip()
    if not re.fullmatch(r"[A-Za-z_][\w-]*", name):
        raise CommandError(f'Invalid command name "{name}".')
    if name in ROOT.commands:
        raise CommandError(f'"{name}" is a built-in command and cannot be redefined.')
    interp.user_commands[name] = UserCommand(name, interp.read_block())


@command("__user__", usage="NAME [ARGS...]", help="Run a user-defined command.", example="showdst 3")
def run_user_command(interp: Interpreter, text: str) -> None:
    name, _, rest = text.partition(" ")
    body = interp.user_commands[name].body
    argv = shlex.split(rest) if rest.strip() else []
    depth = interp.context.get("user_depth", 0)
    if depth > 64:  # type: ignore[operator]
        raise RecursionError
    interp.context["user_depth"] = depth + 1  # type: ignore[operator]
    try:
        for line in body:
            line = line.replace("$argc", str(len(argv)))
            for i, arg in enumerate(argv):
                line = line.replace(f"$arg{i}", arg)
            if not interp.execute(line):
                break
    finally:
        interp.context["user_depth"] = depth


@command("handle", usage="handle CATEGORY stop|warn|ignore", help="Choose what an event of CATEGORY does: stop the run (default), print a warning and go on, or go on silently.  Categories: " + ", ".join(c.value for c in Category) + ".", example="handle UnimplementedFunctionality warn")
def handle_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    policies = interp.session.tile.policy
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
        policies[category] = policy
        interp.out(f"{category.value:<28} {policy.value}")


@command("thread", usage="thread [N|CORE]", help="Select the core the other commands act on, by GDB thread number (1 T0, 2 T1, 3 T2, 4 B) or name; without an argument, name the current one.", example="thread T1")
def thread_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    arg = args.strip()
    if arg:
        s.select_core(s.core_by_thread(arg))
        interp.context["plain_step"] = False
    core = s.core
    interp.out(f"[Current thread is {s.thread_id(core.name)} ({core.name})]")
    if arg and core.state is not CoreState.IDLE:
        from tdbg.commands.location import describe_location

        interp.out(describe_location(interp, core.pc).splitlines()[0])


def core_state(core: Core) -> str:
    """A core's state for ``info threads``: running, blocked on what, parked, ..."""
    if core.state is CoreState.BLOCKED and core.wait is not None:
        return f"blocked: {core.wait.reason}"
    return core.state.value


@info_command("threads", usage="info threads", help="List the cores (GDB threads) with their state (running, blocked and on what, parked, exited, held in reset, no firmware) and their own frame; * marks the current one.", example="info threads")
def info_threads(interp: Interpreter, args: str) -> None:
    from tdbg.commands.location import describe_location

    s = interp.session
    interp.out("  Id   Target Id                    Frame")
    last = interp.context.get("last_function")
    for name, core in s.tile.cores.items():
        mark = "*" if name == s.current else " "
        target = f"Thread {s.thread_id(name)} ({name}) [{core_state(core)}]"
        if core.state is CoreState.IDLE:
            where = ""
        else:
            with s.on_core(name):
                where = describe_location(interp, core.pc).splitlines()[0]
        interp.out(f"{mark} {s.thread_id(name):<4} {target:<28} {where}".rstrip())
    interp.context["last_function"] = last


@command("show", usage="show scheduler-locking | show history-memory", help="Show a setting: scheduler-locking (which cores run during continue and steps), history-memory (what reverse-stepi keeps, and its budget); 'help set' explains them.", example="show scheduler-locking")
def show_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    what = args.strip()
    if what == "scheduler-locking":
        interp.out(f'Mode for locking scheduler during execution is "{s.scheduler_locking}".')
    elif what == "history-memory":
        h = s.history
        interp.out(f"{len(h)} steps recorded for reverse-stepi in {h.bytes} bytes; the budget is {h.budget} bytes.")
    else:
        raise CommandError(f'Undefined show command: "{what}".  Try "help show".')


@command("info", aliases=("i", "inf"), usage="info SUBCOMMAND", help="Show things about the program and the tile; 'help info' lists the subcommands.", example="info registers pc")
def info_cmd(interp: Interpreter, args: str) -> None:
    word, _, rest = args.strip().partition(" ")
    if not word:
        interp.out('"info" must be followed by the name of an info command.')
        for name in sorted(INFO.commands):
            interp.out(f"  info {INFO.commands[name].usage[5:]:<34} {first_sentence(INFO.commands[name].help)}")
        return
    INFO.lookup(word).handler(interp, rest.strip())
