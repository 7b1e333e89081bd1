"""The interactive shell: a prompt_toolkit prompt with persistent history, Tab completion and
pygments highlighting; each command runs interruptibly (Ctrl-C stops a running core)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.shortcuts import CompleteStyle

from tdbg.cli.completion import TdbgCompleter
from tdbg.cli.lexer import TdbgLexer, highlight_asm
from tdbg.cli.pager import Pager
from tdbg.commands import Interpreter

PROMPT = "(tdbg) "


def history_path() -> Path:
    """``$TDBG_HISTORY``, else ``~/.tdbg_history``."""
    return Path(os.environ.get("TDBG_HISTORY") or "~/.tdbg_history").expanduser()


class SafeFileHistory(FileHistory):
    """prompt_toolkit's history file, read from its last ``MAX_READ`` bytes and written while
    it can be: a write that fails (a full disk, ``/dev/full``) is said once and the session
    goes on with its history in memory."""

    MAX_READ = 4 << 20

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path
        self.saving = True

    def load_history_strings(self) -> Iterable[str]:
        try:
            with self.path.open("rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(size - self.MAX_READ, 0))
                data = fh.read(self.MAX_READ)
        except OSError:
            return []
        if size > self.MAX_READ:
            data = data[data.find(b"\n") + 1:]   # from the first whole line
        strings: list[str] = []
        lines: list[str] = []
        for raw in data.decode("utf-8", errors="replace").splitlines():
            if raw.startswith("+"):
                lines.append(raw[1:])
            elif lines:
                strings.append("\n".join(lines))
                lines = []
        if lines:
            strings.append("\n".join(lines))
        return reversed(strings)

    def store_string(self, string: str) -> None:
        if not self.saving:
            return
        try:
            super().store_string(string)
        except OSError as exc:
            self.saving = False
            print(f"warning: history not saved ({self.path}: {exc.strerror or exc}); kept in memory for this session.",
                  file=sys.stderr)


def open_history(path: Path) -> History:
    """The history file at ``path`` (its directory created), or an in-memory history when it
    cannot be written or is not a regular file (``/dev/full`` would never end when read)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not stat.S_ISREG(path.stat().st_mode):
            print(f"warning: history not saved ({path}: not a regular file).", file=sys.stderr)
            return InMemoryHistory()
        with path.open("a"):
            pass
    except OSError as exc:
        print(f"warning: history not saved ({path}: {exc.strerror}).", file=sys.stderr)
        return InMemoryHistory()
    return SafeFileHistory(path)


def _answer_reader(terminal: TextIO) -> Callable[[], str | None]:
    """The answer to the pager's prompt: a line from the terminal (None at its end)."""
    def read() -> str | None:
        try:
            line = terminal.readline()
        except (OSError, ValueError):
            return None
        return line or None

    return read


def repl(interp: Interpreter, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """Read and run commands until ``quit`` (raised to the caller) or end of input (Ctrl-D).

    Enter on an empty line repeats the last repeatable command (``Interpreter.execute``);
    Ctrl-C at the prompt discards the line; Ctrl-C while a command runs interrupts it.
    ``stdin``, ``stdout``: a terminal to use instead of ``sys``'s (the user's, opened).
    """
    streams = {}
    if stdin is not None and stdout is not None:
        from prompt_toolkit.input import create_input
        from prompt_toolkit.output import create_output

        streams = {"input": create_input(stdin), "output": create_output(stdout)}
    prompt = PromptSession(
        history=open_history(history_path()),
        completer=TdbgCompleter(interp),
        complete_while_typing=False,
        complete_style=CompleteStyle.READLINE_LIKE,
        lexer=PygmentsLexer(TdbgLexer),
        **streams,
    )

    def read_line(message: str) -> str | None:
        """One line of a ``define`` / ``commands`` block; None ends it (Ctrl-D, Ctrl-C)."""
        try:
            return prompt.prompt(message)
        except (EOFError, KeyboardInterrupt):
            return None

    interp.read_line = read_line
    if (stdout or sys.stdout).isatty():
        interp.state.highlight_asm = highlight_asm
    write = interp.write
    pager = Pager(write, _answer_reader(stdin or sys.stdin), interp.state)   # GDB's --Type <RET> for more--
    interp.write = pager.write
    try:
        while True:
            pager.reset()
            try:
                line = prompt.prompt(PROMPT)
            except KeyboardInterrupt:
                continue
            except EOFError:
                interp.write("quit\n")
                return
            interp.session.run_breakable(lambda: interp.execute(line, interactive=True))
    finally:
        interp.write = write
