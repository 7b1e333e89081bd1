"""The command table: each command is declared once, with its name, aliases, usage, help,
example, completion and whether it opens files on the host, and that declaration is its
documentation (``help CMD``).

Prefix commands (``info``, ``dst``, ``dump``, ``append``, ``restore``) hold a registry of their
own subcommands and run them with ``Registry.dispatch``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.arch import profile_for

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter

Handler = Callable[["Interpreter", str], None]
Completer = Callable[["Interpreter", str], Iterable[str]]  # (interp, current word) -> candidates
HostFiles = bool | Callable[[str], bool]   # opens files on the host: always, or for these arguments


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
    host_files: HostFiles = False   # reads or writes files on the host (``monitor`` refuses it)

    def touches_host_files(self, args: str) -> bool:
        """True when running it with ``args`` would open a file on the host running tdbg."""
        return self.host_files(args) if callable(self.host_files) else self.host_files

    def help_text(self) -> str:
        lines = [f"Usage: {self.usage}", self.help]
        if self.aliases:
            lines.append(f"Aliases: {', '.join(self.aliases)}.")
        lines.append(f"Example: {self.example}")
        return "\n".join(lines)


def first_sentence(text: str) -> str:
    """The help text up to its first full stop (not the dots of ``cfg.NAME`` or ``1..3``)."""
    return re.split(r"(?<=\.)\s", text.strip(), maxsplit=1)[0]


#: Every registry (the top level and each prefix command's), for ``apropos``.
REGISTRIES: list[Registry] = []


class Registry:
    """Commands by name, alias or unique prefix; a prefix command's subcommands (``prefix``:
    its name), listed by ``listing`` when it is given none."""

    def __init__(self, prefix: str = "", listing: Callable[[Registry], list[str]] | None = None) -> None:
        self.prefix = prefix
        self.commands: dict[str, Command] = {}
        self.aliases: dict[str, str] = {}
        self.listing = listing or _usages
        REGISTRIES.append(self)

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
        host_files: HostFiles = False,
    ) -> Callable[[Handler], Handler]:
        """Declare a command; the decorated function runs it with the argument text."""

        def register(handler: Handler) -> Handler:
            taken = [n for n in (name, *aliases) if n in self.commands or n in self.aliases]
            if taken:   # a second declaration would silently replace the first
                raise ValueError(f"command {self.prefix + ' ' if self.prefix else ''}{taken[0]!r} is declared twice")
            self.commands[name] = Command(name, usage, help, example, handler, aliases, complete, repeatable, host_files)
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

    def complete_subcommand(self, interp: Interpreter, word: str) -> list[str]:
        """A completer for the command this registry serves: its subcommands' names as the first
        argument (GDB offers a prefix command's subcommands, not symbols)."""
        line = interp.state.completion_line
        words = line.split() + ([""] if line[-1:].isspace() else [])
        return [n for n in self.names() if n.startswith(word)] if len(words) == 2 else []

    def dispatch(self, interp: Interpreter, args: str) -> None:
        """Run the subcommand the first word of ``args`` names with the rest of them; with no
        word, print ``listing`` (GDB's "must be followed by" and the subcommands)."""
        word, _, rest = args.strip().partition(" ")
        if not word:
            for line in self.listing(self):
                interp.out(line)
            return
        self.lookup(word).handler(interp, rest.strip())

    def touches_host_files(self, args: str) -> bool:
        """Whether the subcommand ``args`` names opens host files with its arguments (a word
        that names none runs nothing)."""
        word, _, rest = args.strip().partition(" ")
        try:
            return bool(word) and self.lookup(word).touches_host_files(rest.strip())
        except CommandError:
            return False


def _usages(registry: Registry) -> list[str]:
    return [f'"{registry.prefix}" must be followed by a subcommand:', *(f"  {cmd.usage}" for cmd in registry.commands.values())]


def _info_listing(registry: Registry) -> list[str]:
    return ['"info" must be followed by the name of an info command.',
            *(f"  info {registry.commands[name].usage[5:]:<34} {first_sentence(registry.commands[name].help)}"
              for name in sorted(registry.commands))]


#: Called with every new ``Interpreter`` (command families that keep state across stops).
INIT_HOOKS: list[Callable[["Interpreter"], None]] = []

ROOT = Registry()
#: the cores help texts name (the default profile's, ``tdbg.arch``)
CORE_NAMES = ", ".join(core.name for core in profile_for().cores)
INFO = Registry("info", _info_listing)
command = ROOT.command
info_command = INFO.command
