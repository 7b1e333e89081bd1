"""Tab completion for the REPL: command words, ``info`` subcommands, then each command's own
completer (``Command.complete``), else registers after ``$``, symbols, and config field names
after ``info cfg`` / ``set cfg``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from tdbg.commands import CommandError, Interpreter
from tdbg.commands.registry import INFO, ROOT, Command, Registry
from tdbg.session import REGISTERS

_WORD_BREAKS = re.compile(r"[\s,()+\-*/&|^~<>!{}]")


def _current_word(text: str) -> str:
    """The partial word before the cursor (``$s`` in ``x/4x $s``, ``fill_`` in ``b fill_``)."""
    breaks = list(_WORD_BREAKS.finditer(text))
    return text[breaks[-1].end():] if breaks else text


def _lookup(registry: Registry, word: str) -> Command | None:
    try:
        return registry.lookup(word)
    except CommandError:
        return None


class TdbgCompleter(Completer):
    """Completes a tdbg command line for one interpreter."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        words = text.split()
        if text[-1:].isspace():
            words.append("")
        if len(words) <= 1:
            yield from _completions(words[0] if words else "", self.command_names(), suffix=" ")
        elif words[0] in self.interp.user_commands:
            word = _current_word(text)
            yield from _completions(word, self.default_candidates(words, word))
        else:
            cmd = _lookup(ROOT, words[0].split("/")[0])
            if cmd is not None and cmd.name == "help" and len(words) == 2:
                yield from _completions(words[1], self.command_names())
            elif cmd is not None and cmd.name == "info" and len(words) == 2:
                yield from _completions(words[1], INFO.names(), suffix=" ")
            else:
                if cmd is not None and cmd.name == "info":
                    cmd = _lookup(INFO, words[1])
                word = _current_word(text)
                yield from _completions(word, self.candidates(cmd, text, words, word))

    def command_names(self) -> list[str]:
        """Built-in commands and aliases, then the user's ``define``d commands."""
        return [n for n in ROOT.names() if not n.startswith("__")] + list(self.interp.user_commands)

    def candidates(self, cmd: Command | None, text: str, words: list[str], word: str) -> Iterable[str]:
        """The command's own completions of ``word`` when it has a completer, else the default."""
        if cmd is None or cmd.complete is None:
            return self.default_candidates(words, word)
        self.interp.state.completion_line = text
        try:
            return list(cmd.complete(self.interp, word))
        except Exception:  # noqa: BLE001  (a broken completer must not end the REPL)
            return []

    def default_candidates(self, words: list[str], word: str) -> Iterable[str]:
        """Registers after ``$``, cfg fields after ``info cfg`` / ``set cfg``, else symbols."""
        session = self.interp.session
        if word.startswith("$"):
            return [f"${n}" for n in {*REGISTERS, "pc"}]
        if words[1:2] == ["cfg"] and len(words) == 3 and words[0] in ("set", "info", "i", "inf"):
            return session.cfg_names()
        return session.symbol_names()


def _completions(word: str, candidates: Iterable[str], suffix: str = "") -> Iterator[Completion]:
    """``candidates`` that extend ``word``; a completer that dropped a leading ``$`` gets it back."""
    for name in sorted(set(candidates)):
        if word.startswith("$") and not name.startswith("$"):
            name = "$" + name
        if name.startswith(word):
            yield Completion(name + suffix, start_position=-len(word), display=name)
