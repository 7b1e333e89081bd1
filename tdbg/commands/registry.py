"""The command table: each command is declared once, with its name, aliases, usage, help,
example and completion, and that declaration is its documentation (``help CMD``).

Prefix commands (``info``, ``show``) hold a registry of their own subcommands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter

Handler = Callable[["Interpreter", str], None]
Completer = Callable[["Interpreter", str], Iterable[str]]  # (interp, current word) -> candidates


class CommandError(Exception):
    """A command failed; the message is the one line the user sees."""


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    example: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    complete: Completer | None = None
    repeatable: bool = False  # Enter on an empty line runs it again (GDB's rule)

    def help_text(self) -> str:
        lines = [f"Usage: {self.usage}", self.help]
        if self.aliases:
            lines.append(f"Aliases: {', '.join(self.aliases)}.")
        lines.append(f"Example: {self.example}")
        return "\n".join(lines)


class Registry:
    """Commands by name, alias or unique prefix."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.commands: dict[str, Command] = {}
        self.aliases: dict[str, str] = {}

    def command(
        self,
        name: str,
        *,
        usage: str,
        help: str,
        example: str,
        aliases: tuple[str, ...] = (),
        complete: Completer | None = None,
        repeatable: bool = False,
    ) -> Callable[[Handler], Handler]:
        """Declare a command; the decorated function runs it with the argument text."""

        def register(handler: Handler) -> Handler:
            self.commands[name] = Command(name, usage, help, example, handler, aliases, complete, repeatable)
            for alias in aliases:
                self.aliases[alias] = name
            return handler

        return register

    def lookup(self, word: str) -> Command:
        """GDB's rule: an exact name or alias, else a unique prefix."""
        if word in self.commands:
            return self.commands[word]
        if word in self.aliases:
            return self.commands[self.aliases[word]]
        matches = sorted(n for n in self.commands if n.startswith(word))
        if len(matches) == 1:
            return self.commands[matches[0]]
        where = f'"{self.prefix} ' if self.prefix else '"'
        if matches:
            raise CommandError(f'Ambiguous command {where}{word}": {", ".join(matches)}.')
        if self.prefix:
            raise CommandError(f'Undefined {self.prefix} command: "{word}".  Try "help {self.prefix}".')
        raise CommandError(f'Undefined command: "{word}".  Try "help".')

    def names(self) -> list[str]:
        return sorted([*self.commands, *self.aliases])


#: Called with every new ``Interpreter`` (command families that keep state across stops).
INIT_HOOKS: list[Callable[["Interpreter"], None]] = []

ROOT = Registry()
INFO = Registry("info")
command = ROOT.command
info_command = INFO.command
