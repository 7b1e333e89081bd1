"""GDB's ways out of the command language: ``thread apply``, ``shell`` / ``!``, ``pipe`` / ``|``,
``set logging``, and ``python`` / ``python-interactive`` over this process's ``tdbg.Session``.

Output a shell command or Python prints goes through the shell's own output (so ``set logging``
and ``pipe`` see it).  Through ``monitor`` these run only with ``--allow-host-files`` (they reach
the host).
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass

from tdbg.commands import settings
from tdbg.commands.interpreter import Interpreter, ScriptAborted, error_message
from tdbg.commands.registry import CommandError, command
from tdbg.expr import INT, Value

SHELL_TIMEOUT = 3600   # seconds a shell command may run


def _set_exit_code(interp: Interpreter, code_: int) -> None:
    """GDB's ``$_shell_exitcode`` (and ``$_shell_exitsignal`` is not kept)."""
    interp.session.expression_context().set_convenience("_shell_exitcode", Value(INT, code_))


def _shell(interp: Interpreter, command_line: str, stdin: str | None = None) -> None:
    import subprocess   # noqa: S404  (shell and pipe run the user's commands)

    try:
        done = subprocess.run(command_line, shell=True, input=stdin, capture_output=True, text=True,
                              timeout=SHELL_TIMEOUT, errors="replace")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CommandError(f"Cannot execute {command_line}: {exc}") from None
    interp.write(done.stdout + done.stderr)
    _set_exit_code(interp, done.returncode)


# -- thread apply -----------------------------------------------------------------------------------

def thread_apply(interp: Interpreter, args: str) -> None:
    """GDB's ``thread apply all|ID... [-ascending] [-q] [-c] [-s] COMMAND`` (``help thread``)."""
    s = interp.session
    words = args.split()
    if not words:
        raise CommandError('Please specify a thread ID list')
    if words[0] == "all":
        words = words[1:]
        ascending = False
        flags = set()
        while words and words[0].startswith("-") and words[0] in ("-ascending", "-q", "-c", "-s"):
            flag = words.pop(0)
            ascending = ascending or flag == "-ascending"
            flags.add(flag)
        cores = [c for c in s.core_names if s.has_firmware(c)]
        if not ascending:
            cores.reverse()
    else:
        cores = []
        while words and not words[0].startswith("-") and _is_thread(interp, words[0]):
            cores.append(s.core_by_thread(words.pop(0)))
        flags = set()
        while words and words[0] in ("-q", "-c", "-s"):
            flags.add(words.pop(0))
        if not cores:
            raise CommandError(f"Invalid thread ID: {' '.join(words)}")
    command_line = " ".join(words)
    if not command_line:
        raise CommandError("Please specify a command following the thread ID list")
    saved = s.current
    try:
        for core in cores:
            s.select_core(core)
            if "-q" not in flags:
                interp.out("")
                interp.out(f"Thread {s.thread_id(core)} ({core}):")
            try:
                interp.run(command_line)
            except Exception as exc:  # noqa: BLE001  (-c shows it and goes on, -s goes on)
                if "-s" in flags:
                    continue
                if "-c" in flags:
                    interp.out(error_message(exc))
                    continue
                raise
    finally:
        s.select_core(saved)


def _is_thread(interp: Interpreter, word: str) -> bool:
    try:
        interp.session.core_by_thread(word)
    except Exception:  # noqa: BLE001
        return False
    return True


# -- shell and pipe ---------------------------------------------------------------------------------

@command("shell", aliases=("!",), usage="shell COMMAND | !COMMAND", help="Run COMMAND in the host's shell and show what it prints; its exit status is $_shell_exitcode.", example="shell ls *.bin", host_files=True)
def shell_cmd(interp: Interpreter, args: str) -> None:
    if not args.strip():
        raise CommandError("Argument required (a shell command; tdbg starts no interactive shell).")
    _shell(interp, args.strip())


@command("pipe", aliases=("|",), usage="pipe [COMMAND] | SHELL_COMMAND | pipe -d DELIM COMMAND DELIM SHELL_COMMAND", help="Send what a tdbg COMMAND prints to SHELL_COMMAND's input and show what that prints (without COMMAND: the last command run); -d DELIM uses DELIM instead of | between them.  The shell command's exit status is $_shell_exitcode.", example="pipe info functions | grep matmul", host_files=True)
def pipe_cmd(interp: Interpreter, args: str) -> None:
    text = args.strip()
    delim = "|"
    if text.startswith("-d"):
        parts = text[2:].split(None, 1)
        if len(parts) != 2:
            raise CommandError("Missing delimiter DELIM after -d")
        delim, text = parts
    if delim not in text:
        raise CommandError("Missing delimiter before SHELL_COMMAND")
    tdbg_command, _, shell_command = text.partition(delim)
    tdbg_command = tdbg_command.strip() or (interp.last_line or "")
    if not tdbg_command:
        raise CommandError("No previous command to relaunch")
    if not shell_command.strip():
        raise CommandError("Missing SHELL_COMMAND")
    _shell(interp, shell_command.strip(), interp.output_of(lambda: interp.run(tdbg_command)))


# -- set logging ------------------------------------------------------------------------------------

@dataclass
class Logging:
    """GDB's ``set logging``: the file, whether it is overwritten, whether output goes only to
    it, and the open file while logging is on (with the output function it wraps)."""

    file: str = "gdb.txt"
    overwrite: bool = False
    redirect: bool = False
    stream: io.TextIOBase | None = None
    saved_write: object = None


def _logging(interp: Interpreter) -> Logging:
    if interp.state.logging is None:
        interp.state.logging = Logging()
    return interp.state.logging  # type: ignore[return-value]


def _set_logging_enabled(interp: Interpreter, text: str) -> None:
    log = _logging(interp)
    on = settings.parse_bool(text)
    if on and log.stream is None:
        try:
            log.stream = open(log.file, "w" if log.overwrite else "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"{log.file}: {exc.strerror}.") from None
        if interp.from_tty:
            interp.out(f"{'Redirecting' if log.redirect else 'Copying'} output to {log.file}.")
            interp.out(f"{'Redirecting' if log.redirect else 'Copying'} debug output to {log.file}.")
        original = log.saved_write = interp.write
        stream = log.stream

        def tee(chunk: str) -> None:
            stream.write(chunk)
            stream.flush()
            if not log.redirect:
                original(chunk)  # type: ignore[operator]

        interp.write = tee
    elif not on and log.stream is not None:
        interp.write = log.saved_write  # type: ignore[assignment]
        log.stream.close()
        log.stream = None
        if interp.from_tty:
            interp.out(f"Done logging to {log.file}.")


def _set_logging_deprecated(interp: Interpreter, text: str, on: bool) -> None:
    interp.out(f"Warning: 'set logging {'on' if on else 'off'}', an alias for the command 'set logging enabled', is deprecated.")
    interp.out(f"Use 'set logging enabled {'on' if on else 'off'}'.")
    interp.out("")
    if on and text.strip():
        _logging(interp).file = text.strip()
    _set_logging_enabled(interp, "on" if on else "off")


def _set_logging_file(interp: Interpreter, text: str) -> None:
    if not text.strip():
        raise CommandError('Argument required (filename to set it to.).')
    _logging(interp).file = text.strip()


def _flag(attr: str) -> settings.Setter:
    def set_(interp: Interpreter, text: str) -> None:
        setattr(_logging(interp), attr, settings.parse_bool(text))
    return set_


settings.setting("logging enabled", help="Copy (or with redirect, send) everything tdbg prints to the logging file.",
                 show=lambda interp: f"{settings.on_off(_logging(interp).stream is not None)}: Logging is {'enabled' if _logging(interp).stream is not None else 'disabled'}.",
                 set=_set_logging_enabled, host_files=True)
settings.setting("logging file", help="The logging file (default gdb.txt, as GDB).",
                 show=lambda interp: f'The current logfile is "{_logging(interp).file}".', set=_set_logging_file, host_files=True)
settings.setting("logging overwrite", help="on: 'set logging enabled on' empties the file first; off: appends.",
                 show=lambda interp: f"{settings.on_off(_logging(interp).overwrite)}: Logging {'overwrites' if _logging(interp).overwrite else 'appends to'} the log file.",
                 set=_flag("overwrite"), host_files=True)
settings.setting("logging redirect", help="on: output goes only to the logging file; off: to the screen too.",
                 show=lambda interp: f"{settings.on_off(_logging(interp).redirect)}: Output will go to {'the log file only' if _logging(interp).redirect else 'both the screen and the log file'}.",
                 set=_flag("redirect"), host_files=True)
settings.setting("logging debugredirect", help="tdbg has no separate debug output: shown as GDB's default (off).",
                 show=lambda interp: "off: Debug output will go to both the screen and the log file.")
settings.setting("logging on", help="Deprecated alias of 'set logging enabled on' [FILE], as GDB 13.",
                 show=lambda interp: settings.SETTINGS["logging enabled"].show(interp),
                 set=lambda interp, text: _set_logging_deprecated(interp, text, True), listed=False, host_files=True)
settings.setting("logging off", help="Deprecated alias of 'set logging enabled off', as GDB 13.",
                 show=lambda interp: settings.SETTINGS["logging enabled"].show(interp),
                 set=lambda interp, text: _set_logging_deprecated(interp, text, False), listed=False, host_files=True)


# -- python -----------------------------------------------------------------------------------------

def python_namespace(interp: Interpreter) -> dict[str, object]:
    """The namespace Python code runs in, kept for the session: ``session`` (this process's
    ``tdbg.Session``: the tile, breakpoints, ``execute(line)``, ``dst(rows, view)`` ...),
    ``tdbg`` (the package) and ``execute`` (``session.execute``: a tdbg command, its output
    returned)."""
    if interp.state.python is None:
        import tdbg

        interp.state.python = {"__name__": "__tdbg__", "tdbg": tdbg, "session": interp.session,
                               "execute": lambda line, check=True: _execute(interp, line, check)}
    return interp.state.python


def _execute(interp: Interpreter, line: str, check: bool) -> str:
    """A tdbg command from Python, in this shell (its settings and displays), its output returned."""
    failed, interp.failed = interp.failed, False
    text = interp.capture(line)
    if check and interp.failed:
        raise CommandError(text.strip())
    interp.failed = failed or interp.failed
    return text


def _run_python(interp: Interpreter, source: str, mode: str = "exec") -> None:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            compiled = compile(source, "<string>", mode)
            result = eval(compiled, python_namespace(interp))  # noqa: S307  (the user's own code)
            if mode == "single" and result is not None:
                print(repr(result))
    except (ScriptAborted, SystemExit):
        interp.write(out.getvalue())
        raise
    except BaseException as exc:  # noqa: BLE001  (GDB's two lines; the session goes on)
        interp.write(out.getvalue())
        raise CommandError(f"Python Exception {type(exc)}: {exc}\nError while executing Python code.") from None
    interp.write(out.getvalue())


@command("python", aliases=("py",), usage="python [CODE] | python ... end", help="Run Python CODE (or the lines up to 'end') in this process, with 'session' (this tdbg.Session: run control, breakpoints, memory, Dst, config; see README 'Python API'), 'tdbg' and 'execute(LINE)' (a tdbg command, its output returned as text; check=False to get a failure's text instead of an exception); names you define stay for the next python command.  An exception is shown as GDB shows it.", example="python print(session.dst(0, 'bf16'))", host_files=True)
def python_cmd(interp: Interpreter, args: str) -> None:
    source = args.strip() if args.strip() else "\n".join(interp.read_block(raw=True))
    _run_python(interp, source)


@command("python-interactive", aliases=("pi",), usage="python-interactive [EXPR]", help="With EXPR: evaluate it in the python namespace and print its value.  Without: an interactive Python prompt over the same namespace (end it with Ctrl-D), when the input is a terminal.", example="pi session.current", host_files=True)
def python_interactive_cmd(interp: Interpreter, args: str) -> None:
    if args.strip():
        _run_python(interp, args.strip(), "single")
        return
    if not interp.state.terminal:
        raise CommandError("python-interactive without an expression needs a terminal.")
    import code

    code.interact(banner="", local=python_namespace(interp), exitmsg="")
