"""The command interpreter shared by the REPL, scripts, ``Session.execute`` and ``monitor``.

It parses a line (GDB's ``cmd/FMT args`` shape, abbreviations, comments), runs the command,
turns every failure into one line of output, and keeps the state GDB keeps between commands:
the last repeatable command, ``x``'s sticky format and next address, displays, user-defined
commands.  Nothing a failed command touched is lost.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tdbg.commands.registry import INIT_HOOKS, ROOT, Command, CommandError
from tdbg.session import Session, SessionError
from tdbg.tensix.events import TensixEvent

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
        self.context: dict[str, object] = {}  # per-command-family state (displays, ...)
        for hook in INIT_HOOKS:
            hook(self)

    # -- output --------------------------------------------------------------------------------
    def out(self, text: str = "") -> None:
        """Write one line (or several) of output."""
        self.write(text + "\n")

    def capture(self, line: str) -> str:
        """Run ``line`` and return what it printed."""
        saved, chunks = self.write, []
        self.write = chunks.append
        try:
            self.execute(line)
        finally:
            self.write = saved
        return "".join(chunks)

    # -- execution -------------------------------------------------------------------------------
    def execute(self, line: str, *, interactive: bool = False) -> bool:
        """Run one command line; False if it failed (the error was printed)."""
        text = line.strip()
        if not text:
            if interactive and self.last_line:
                return self.execute(self.repeat_line(), interactive=False)
            return True
        if text.startswith("#"):
            return True
        try:
            cmd, args = self.resolve(text)
            self._remember(cmd, text, interactive)
            self._run(cmd, args)
            return True
        except (CommandError, SessionError, TensixEvent, KeyError, ValueError) as exc:
            self.error(exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc))
        except RecursionError:
            self.error("Max user call depth exceeded -- command aborted.")
        except Exception as exc:  # a bug in tdbg: say so in one line, keep the session
            self.error(f"internal error: {exc!r} ({traceback.extract_tb(exc.__traceback__)[-1].name})")
        return False

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
        cmd = ROOT.lookup(word)
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
    def read_block(self, prompt: str = ">") -> list[str]:
        """Lines up to a line ``end`` (for ``define`` and ``commands``)."""
        body: list[str] = []
        depth = 0
        while True:
            line = self.read_line(prompt)
            if line is None:
                raise CommandError("End of input inside a block; expected \"end\".")
            stripped = line.strip()
            if stripped == "end":
                if depth == 0:
                    return body
                depth -= 1
            elif stripped.split(" ", 1)[0] in ("define", "commands", "while", "if", "document"):
                depth += 1
            body.append(stripped)

    def run_lines(self, lines: Iterator[str]) -> bool:
        """Run a script: every line in order; lines after a block opener feed that block."""
        saved = self.read_line
        self.read_line = lambda prompt: next(lines, None)
        ok = True
        try:
            for line in lines:
                ok = self.execute(line) and ok
        finally:
            self.read_line = saved
        return ok
