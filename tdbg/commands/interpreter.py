"""The command interpreter shared by the REPL, scripts, ``execute`` and ``monitor``.

It parses a line (GDB's ``cmd/FMT args`` shape, abbreviations, comments), runs the command,
turns every failure into one line of output, and keeps the state GDB keeps between commands:
the last repeatable command, ``x``'s sticky format and next address, displays, user-defined
commands.  Nothing a failed command touched is lost.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tdbg.commands.exalens import with_exalens_hint
from tdbg.commands.registry import INIT_HOOKS, ROOT, Command, CommandError
from tdbg.commands.state import ShellState
from tdbg.debug import Stop
from tdbg.debug.hostfiles import BadLine
from tdbg.errors import SessionError
from tdbg.session import Session
from tdbg.tensix.events import TensixEvent

BLOCK_OPENERS = ("define", "document", "commands", "while", "if")  # commands whose block ends at "end"
PYTHON_OPENERS = ("python", "py", "python-interactive", "pi")       # alone on a line: Python up to "end"
_WORD = re.compile(r"\s*([A-Za-z_][\w-]*|[^\w\s/])\s*(/\S*)?\s*(.*)$", re.S)


@dataclass
class ExamineState:
    """``x``'s sticky defaults and where a bare ``x`` continues."""

    fmt: str = "x"
    size: str = "w"
    next: object | None = None  # an address, or a Dst/Src location


@dataclass
class UserCommand:
    name: str
    body: list[str] = field(default_factory=list)
    doc: str = ""  # from ``document NAME``


class Interpreter:
    """Runs tdbg commands against one ``Session``."""

    def __init__(self, session: Session, write: Callable[[str], None] | None = None) -> None:
        self.session = session
        self._chunks: list[str] = []
        self.write = write or self._chunks.append
        self.examine = ExamineState()
        self.user_commands: dict[str, UserCommand] = {}
        self.last_line: str | None = None
        self.read_line: Callable[[str], str | None] = lambda prompt: None
        self.failed = False
        self.from_tty = False  # GDB's from_tty: the command was typed (some messages only then)
        self.state = ShellState()  # what the shell keeps between commands (displays, ...)
        self._hooks_running: set[str] = set()
        self._sourcing = 0   # command files being read (source, -x): queries answer themselves
        session.stop_listeners.append(self._on_stop)
        for hook in INIT_HOOKS:
            hook(self)

    # -- output --------------------------------------------------------------------------------
    def _on_stop(self, stop: Stop) -> None:
        """The session announced a stop: this shell's stop hooks (displays, panels, traces)."""
        for hook in self.state.stop_hooks:
            hook(self, stop)

    def out(self, text: str = "") -> None:
        """Write one line (or several) of output."""
        self.write(text + "\n")

    def capture(self, line: str) -> str:
        """Run ``line`` and return what it printed."""
        return self.output_of(lambda: self.execute(line))

    def output_of(self, action: Callable[[], object]) -> str:
        """Run ``action`` and return what it printed instead of printing it."""
        saved, chunks = self.write, []
        self.write = chunks.append
        try:
            action()
        finally:
            self.write = saved
        return "".join(chunks)

    # -- execution -------------------------------------------------------------------------------
    def execute(self, line: str, *, interactive: bool = False, from_tty: bool | None = None) -> bool:
        """Run one command line; False if it failed (the error was printed).  ``from_tty``
        (default: ``interactive``) is GDB's: typed by the user, not read from a script."""
        text = line.strip()
        if not text and interactive and self.last_line:
            return self.execute(self.repeat_line(), from_tty=True)
        saved, self.from_tty = self.from_tty, interactive if from_tty is None else from_tty
        try:
            self.run(text, interactive=interactive)
            return True
        except ScriptAborted:  # reported where it happened
            self.failed = True
        except Exception as exc:  # noqa: BLE001  (every failure is one line; the session goes on)
            self.error(error_message(exc))
        finally:
            self.from_tty = saved
        return False

    def run(self, line: str, *, interactive: bool = False) -> None:
        """Run one command line; a failure propagates (``execute`` reports it)."""
        text = line.strip()
        if not text or text.startswith("#"):
            return
        cmd, args = self.resolve(text)
        self._remember(cmd, text, interactive)
        name = text.split()[0] if cmd.name == "__user__" else cmd.name
        self.run_hook(f"hook-{name}")
        self._run(cmd, args)
        self.run_hook(f"hookpost-{name}")

    def run_hook(self, name: str) -> None:
        """Run the user-defined command ``name`` if there is one (GDB's hooks: ``hook-CMD``
        before CMD, ``hookpost-CMD`` after it, ``hook-stop`` at each stop), never from inside
        itself (GDB's ``hook_in``)."""
        hook = self.user_commands.get(name)
        if hook is None or name in self._hooks_running:
            return
        self._hooks_running.add(name)
        try:
            self.run_block(hook.body)
        finally:
            self._hooks_running.discard(name)

    def query(self, question: str) -> bool:
        """GDB's ``query``: True when the user says yes to ``question`` (the text up to ``(y or
        n)``).  With ``set confirm off`` (also ``-batch``) it is yes, unasked; when the input is not
        a terminal GDB prints the question and answers yes itself."""
        if not self.state.confirm:
            return True
        if not self.state.terminal or self._sourcing:   # GDB: input not from the user directly
            self.out(f"{question}(y or n) [answered Y; input not from terminal]")
            return True
        *lines, last = question.split("\n")
        for line in lines:
            self.out(line)
        while True:
            answer = self.read_line(f"{last}(y or n) ")
            if answer is None:
                self.out("EOF [answered Y; input not from terminal]")
                return True
            if answer.strip().lower() in ("y", "yes"):
                return True
            if answer.strip().lower() in ("n", "no"):
                return False
            self.out("Please answer y or n.")

    def error(self, message: str) -> None:
        self.failed = True
        self.out(message)

    def resolve(self, text: str) -> tuple[Command, str]:
        """Split ``text`` into its command and argument text (``x/4xw addr`` -> x, ``/4xw addr``)."""
        m = _WORD.match(text)
        if not m:
            raise CommandError(f'Undefined command: "{text}".  Try "help".')
        word, slash, rest = m.group(1), m.group(2) or "", m.group(3)
        if word in self.user_commands:
            return ROOT.commands["__user__"], text
        try:
            cmd = ROOT.lookup(word)
        except CommandError as exc:
            raise CommandError(with_exalens_hint(word, str(exc))) from None
        return cmd, (slash + (" " if slash and rest else "") + rest).strip()

    def _run(self, cmd: Command, args: str) -> None:
        cmd.handler(self, args)

    def _remember(self, cmd: Command, text: str, interactive: bool) -> None:
        if interactive:
            self.last_line = text if cmd.repeatable else None

    def repeat_line(self) -> str:
        """The line Enter repeats: the same command, except ``x`` and ``list`` continue."""
        assert self.last_line is not None
        cmd, _ = self.resolve(self.last_line)
        return cmd.name if cmd.name in ("x", "list") else self.last_line

    # -- multi-line input (define, commands, document) ---------------------------------------------
    def read_block(self, prompt: str = ">", raw: bool = False) -> list[str]:
        """Lines up to the ``end`` of this block (nested blocks included; ``define``,
        ``document``, ``commands``, ``if``, ``while``, and ``python`` whose lines are taken as
        they are up to its ``end``).  ``raw``: this block is Python (no nesting, indentation
        kept)."""
        body: list[str] = []
        depth = 0
        python = raw
        while True:
            line = self.read_line(prompt)
            if line is None:
                raise CommandError("End of input inside a block; expected \"end\".")
            stripped = line.strip()
            if stripped == "end":
                if depth == 0:
                    return body
                depth -= 1
                python = False
            elif python:
                body.append(line.rstrip("\n"))
                continue
            elif stripped.split(" ", 1)[0] in BLOCK_OPENERS:
                depth += 1
            elif stripped in PYTHON_OPENERS:
                depth += 1
                python = True
            body.append(stripped)

    def run_block(self, lines: Iterable[str], until: Callable[[], bool] | None = None) -> None:
        """Run lines as a script body (a user command, a breakpoint's commands, an ``if`` or
        ``while`` branch): in order, lines after a block opener feeding that block; the first
        failure ends it and propagates, and so does ``until()`` turning true after a line."""
        source = iter(lines)
        saved, tty = self.read_line, self.from_tty
        self.read_line, self.from_tty = (lambda prompt: next(source, None)), False
        try:
            for line in source:
                self.run(line)
                if until is not None and until():
                    break
        finally:
            self.read_line, self.from_tty = saved, tty

    def source_lines(self, lines: Iterable[str], name: str) -> None:
        """Run a command file as GDB's ``source`` does: the first failing command ends it,
        reported as ``NAME:LINE: Error in sourced command file:`` and its message."""
        numbered = enumerate(lines, 1)
        number = 0

        def read(prompt: str) -> str | None:
            nonlocal number
            number, line = next(numbered, (number, None))
            return line

        saved, tty = self.read_line, self.from_tty
        self.read_line, self.from_tty = read, False
        self._sourcing += 1
        try:
            for number, line in numbered:
                try:
                    if isinstance(line, BadLine):
                        raise CommandError(str(line))
                    self.run(line)
                except ScriptAborted:
                    raise
                except Exception as exc:  # noqa: BLE001  (reported here, then the script ends)
                    self.error(f"{name}:{number}: Error in sourced command file:\n{error_message(exc)}")
                    raise ScriptAborted from None
        finally:
            self._sourcing -= 1
            self.read_line, self.from_tty = saved, tty


class ScriptAborted(Exception):
    """A command file ended at a failing command, whose error was already printed."""


class LoopBreak(Exception):
    """``loop_break``: leave the innermost ``while``."""


class LoopContinue(Exception):
    """``loop_continue``: go on with the next iteration of the innermost ``while``."""


def error_message(exc: BaseException) -> str:
    """The one line a failure shows (GDB's wording where tdbg reuses GDB's errors)."""
    if isinstance(exc, (LoopBreak, LoopContinue)):
        return f"{'loop_break' if isinstance(exc, LoopBreak) else 'loop_continue'} outside of a while loop."
    if isinstance(exc, RecursionError):
        return "Max user call depth exceeded -- command aborted."
    if isinstance(exc, KeyError):
        return str(exc.args[0]) if exc.args else "KeyError"
    if isinstance(exc, (CommandError, SessionError, TensixEvent, ValueError)):
        return str(exc)
    frame = traceback.extract_tb(exc.__traceback__)[-1].name if exc.__traceback__ else "?"
    return f"internal error: {exc!r} ({frame})"  # a bug in tdbg: one line, the session goes on


def execute(session: Session, line: str, check: bool = True) -> str:
    """Run one shell command on ``session`` and return what the shell would print, in the
    session's own shell (``session.shell``: made on first use, it keeps GDB's state between
    commands).  A command that fails raises ``SessionError`` with that text; with
    ``check=False`` it is returned.  An interrupt still pending from an earlier command is
    dropped first."""
    session.clear_interrupt()
    if session.shell is None:
        session.shell = Interpreter(session)
    interp = session.shell
    failed, interp.failed = interp.failed, False
    text = interp.capture(line)
    if check and interp.failed:
        interp.failed = True
        raise SessionError(text.strip())
    interp.failed = failed or interp.failed
    return text
