"""The interactive shell: a prompt_toolkit prompt with persistent history, Tab completion and
pygments highlighting; each command runs interruptibly (Ctrl-C stops a running core)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.shortcuts import CompleteStyle

from tdbg.cli.completion import TdbgCompleter
from tdbg.cli.lexer import TdbgLexer, highlight_asm
from tdbg.cli.main import run_interruptibly
from tdbg.commands import Interpreter

PROMPT = "(tdbg) "


def history_path() -> Path:
    """``$TDBG_HISTORY``, else ``~/.tdbg_history``."""
    return Path(os.environ.get("TDBG_HISTORY") or "~/.tdbg_history").expanduser()


def open_history(path: Path) -> History:
    """The history file at ``path`` (its directory created), or an in-memory history when it
    cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a"):
            pass
    except OSError as exc:
        print(f"warning: history not saved ({path}: {exc.strerror}).", file=sys.stderr)
        return InMemoryHistory()
    return FileHistory(str(path))


def repl(interp: Interpreter) -> None:
    """Read and run commands until ``quit`` (raised to the caller) or end of input (Ctrl-D).

    Enter on an empty line repeats the last repeatable command (``Interpreter.execute``);
    Ctrl-C at the prompt discards the line; Ctrl-C while a command runs interrupts it.
    """
    prompt = PromptSession(
        history=open_history(history_path()),
        completer=TdbgCompleter(interp),
        complete_while_typing=False,
        complete_style=CompleteStyle.READLINE_LIKE,
        lexer=PygmentsLexer(TdbgLexer),
    )

    def read_line(message: str) -> str | None:
        """One line of a ``define`` / ``commands`` block; None ends it (Ctrl-D, Ctrl-C)."""
        try:
            return prompt.prompt(message)
        except (EOFError, KeyboardInterrupt):
            return None

    interp.read_line = read_line
    if sys.stdout.isatty():
        interp.state.highlight_asm = highlight_asm
    while True:
        try:
            line = prompt.prompt(PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            interp.write("quit\n")
            return
        run_interruptibly(interp.session, lambda: interp.execute(line, interactive=True))
