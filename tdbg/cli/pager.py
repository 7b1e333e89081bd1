"""GDB's pager for the shell on a terminal: after ``set height`` lines of one command's output
(``set pagination on``; the terminal's rows by default), GDB's prompt
``--Type <RET> for more, q to quit, c to continue without paging--`` waits for a line: Enter
shows one more page, ``c`` the rest, ``q`` ends the command ("Quit").  Off in ``-batch`` and
when the output is not a terminal (height 0: unlimited)."""

from __future__ import annotations

from collections.abc import Callable

from tdbg.commands.registry import CommandError
from tdbg.commands.state import ShellState

PROMPT = "--Type <RET> for more, q to quit, c to continue without paging--"


class PagerQuit(CommandError):
    """``q`` at the pager's prompt: the command ends, "Quit" said."""

    def __init__(self) -> None:
        super().__init__("Quit")


class Pager:
    """Writes a command's output through ``write``, stopping each page for ``read_line``'s
    answer; ``reset`` before each command (GDB counts lines from the prompt)."""

    def __init__(self, write: Callable[[str], None], read_line: Callable[[], str | None], state: ShellState) -> None:
        self._write, self._read_line, self.state = write, read_line, state
        self.reset()

    def reset(self) -> None:
        self._rows = 0
        self._paging = True

    def write(self, text: str) -> None:
        height, width = self.state.height, self.state.width
        lines = text.splitlines(keepends=True)
        for n, line in enumerate(lines):
            if not (self.state.pagination and height > 0 and self._paging):
                self._write("".join(lines[n:]))
                return
            self._write(line)
            if line.endswith("\n"):   # a line wider than the terminal takes several rows
                self._rows += max(1, -(-len(line.rstrip("\n")) // width)) if width else 1
                if self._rows >= height - 1:
                    self._ask()

    def _ask(self) -> None:
        self._write(PROMPT)
        answer = self._read_line()
        self._rows = 0
        if answer is None or answer.strip().lower().startswith("c"):
            self._paging = False
        elif answer.strip().lower().startswith("q"):
            self._paging = False
            raise PagerQuit()
