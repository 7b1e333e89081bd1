"""GDB's settings: ``set NAME VALUE`` and ``show [NAME]``, each declared once with GDB's words.

Every setting tdbg accepts does what GDB's does; a GDB setting tdbg does not have is refused
with one line saying so (``UNSUPPORTED``), never accepted and ignored.  ``set`` of anything else
is an assignment (``set var``, ``data``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command

Getter = Callable[[Interpreter], str]
Setter = Callable[[Interpreter, str], None]


@dataclass(frozen=True)
class Setting:
    name: str          # "print pretty", "listsize"
    show: Getter       # the line 'show NAME' prints
    set: Setter | None  # None: shown only
    help: str
    listed: bool = True  # False: an alias 'show' lists under its own name
    host_files: bool = False   # setting it opens (or names) a file on the host


SETTINGS: dict[str, Setting] = {}

#: GDB settings tdbg does not have, and why (``set`` and ``show`` say so).
UNSUPPORTED = {
    "verbose": "tdbg has no informational messages to add",
    "style": "tdbg's colours are the REPL's syntax highlighting, not GDB's styles",
    "breakpoint": "a breakpoint location that does not resolve is refused (no pending breakpoints)",
    "disassembly-flavor": "RISC-V has one assembler syntax",
    "remotetimeout": "tdbg is the target, not a remote client",
    "non-stop": "the tile runs all-stop (every core stops at any stop)",
    "auto-load": "tdbg loads no scripts from the program's directory",
    "python": "tdbg's python runs in its own process; its errors are shown in full",
    "charset": "tdbg prints target characters as GDB's default host charset does",
    "print": "",   # the other 'print' settings: GDB's defaults are tdbg's only values
}


def setting(name: str, *, help: str, show: Getter, set: Setter | None = None, listed: bool = True,
            host_files: bool = False) -> None:
    """Declare a setting (``name`` may have two words: ``print pretty``)."""
    SETTINGS[name] = Setting(name, show, set, help, listed, host_files)


def parse_bool(text: str) -> bool:
    """GDB's ``parse_cli_boolean_value``: on/off, 1/0, yes/no, enable/disable; nothing is on."""
    word = text.strip().lower()
    if word in ("", "on", "1", "yes", "enable"):
        return True
    if word in ("off", "0", "no", "disable"):
        return False
    raise CommandError('"on" or "off" expected.')


def on_off(value: bool) -> str:
    return "on" if value else "off"


def parse_limit(text: str) -> int:
    """A count or ``unlimited`` (0 also means unlimited, as in GDB): 0 for unlimited."""
    word = text.strip()
    if word == "unlimited":
        return 0
    if not word:
        raise CommandError("Argument required (integer to set it to, or \"unlimited\").")
    try:
        value = int(word, 0)
    except ValueError:
        raise CommandError(f'No symbol "{word}" in current context.') from None
    if value < 0:
        raise CommandError(f"integer {value} out of range")
    return value


def limit_text(value: int) -> str:
    return "unlimited" if value == 0 else str(value)


def find(words: list[str]) -> tuple[Setting | None, list[str]]:
    """The setting the first one or two ``words`` name, and the words after it."""
    for n in (2, 1):
        name = " ".join(words[:n])
        if len(words) >= n and name in SETTINGS:
            return SETTINGS[name], words[n:]
    return None, words


def touches_host_files(args: str) -> bool:
    """Whether ``set ARGS`` sets a setting declared with ``host_files``."""
    found, _ = find(args.split())
    return found is not None and found.host_files


def unsupported(words: list[str]) -> str | None:
    """The one line for a GDB setting tdbg does not have, or None."""
    if not words or words[0] not in UNSUPPORTED:
        return None
    name = " ".join(words[:2]) if words[0] == "print" and len(words) > 1 else words[0]
    reason = UNSUPPORTED[words[0]] or "tdbg prints values as GDB's defaults do there"
    return f'"set {name}" is not supported by tdbg: {reason}.'


def apply(interp: Interpreter, text: str) -> bool:
    """``set`` of a setting (True), or False when ``text`` names none (an assignment)."""
    words = text.split()
    found, rest = find(words)
    if found is None:
        message = unsupported(words)
        if message is not None:
            raise CommandError(message)
        return False
    if found.set is None:
        raise CommandError(f'"{found.name}" is shown only; it cannot be set.')
    found.set(interp, text.split(None, len(found.name.split()))[-1] if rest else "")
    return True


@command("show", usage="show [SETTING]", help="Show a setting, or all of them.  tdbg's settings are GDB's where GDB has them (print pretty, print demangle, print asm-demangle, print elements, print repeats, listsize, confirm, pagination, height, width, logging, substitute-path, directories, scheduler-locking) and its own (history-memory, dst-provenance); 'set NAME VALUE' changes one.  A GDB setting tdbg does not have is refused with a line saying so.", example="show print pretty")
def show_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if not words:
        for name in sorted(n for n in SETTINGS if SETTINGS[n].listed):
            interp.out(f"{name}:  {SETTINGS[name].show(interp)}")
        return
    found, rest = find(words)
    if found is None and words[0] in ("logging",):
        for name in sorted(n for n in SETTINGS if n.startswith("logging ") and SETTINGS[n].listed):
            interp.out(f"{name}:  {SETTINGS[name].show(interp)}")
        return
    if found is None:
        message = unsupported(words)
        raise CommandError(message.replace('"set ', '"show ') if message else f'Undefined show command: "{args.strip()}".  Try "help show".')
    interp.out(found.show(interp))


# -- settings of the shell and of value printing -------------------------------------------------

def _print_flag(attr: str, text: str) -> tuple[Getter, Setter]:
    def show(interp: Interpreter) -> str:
        return text.format(on_off(getattr(interp.session.print_settings, attr)))

    def set_(interp: Interpreter, value: str) -> None:
        setattr(interp.session.print_settings, attr, parse_bool(value))

    return show, set_


for _attr, _name, _text, _help in (
    ("pretty", "print pretty", "Pretty formatting of structures is {}.", "Print a struct or class one member per line, indented (off: on one line)."),
    ("demangle", "print demangle", "Demangling of encoded C++/ObjC names when displaying symbols is {}.", "Show C++ names demangled in values, frames and info symbol (on)."),
    ("asm_demangle", "print asm-demangle", "Demangling of C++/ObjC names in disassembly listings is {}.", "Show C++ names demangled in x/i, disassemble and info line (off, as GDB: their linkage names)."),
):
    _show, _set = _print_flag(_attr, _text)
    setting(_name, help=_help, show=_show, set=_set)


def limit_setting(name: str, help: str, attr: str, text: str, owner: Callable[[Interpreter], object]) -> None:
    """A count setting (``unlimited`` or 0: no limit) kept in ``owner(interp).attr``."""
    def show(interp: Interpreter) -> str:
        return text.format(limit_text(getattr(owner(interp), attr)))

    def set_(interp: Interpreter, value: str) -> None:
        setattr(owner(interp), attr, parse_limit(value))

    setting(name, help=help, show=show, set=set_)


limit_setting("print elements", "The most characters of a string or elements of an array a value shows (unlimited or 0: all).",
              "elements", "Limit on string chars or array elements to print is {}.", lambda i: i.session.print_settings)
limit_setting("print repeats", "Runs of more than this many equal elements print as <repeats N times> (unlimited or 0: never).",
              "repeats", "Threshold for repeated print elements is {}.", lambda i: i.session.print_settings)
limit_setting("listsize", "How many lines 'list' shows (unlimited or 0: the whole file).",
              "listsize", "Number of source lines gdb will list by default is {}.", lambda i: i.state)


def _set_confirm(interp: Interpreter, value: str) -> None:
    interp.state.confirm = parse_bool(value)


setting("confirm", help="Ask before a dangerous operation such as 'run' on a started program (only when the input is a terminal; scripts and -batch take yes, as GDB).",
        show=lambda interp: f"Whether to confirm potentially dangerous operations is {on_off(interp.state.confirm)}.",
        set=_set_confirm)


def _set_pagination(interp: Interpreter, value: str) -> None:
    interp.state.pagination = parse_bool(value)


setting("pagination", help="Stop after each page of a command's output ('set height' lines) with GDB's prompt: "
                           "Enter shows one more page, c the rest, q ends the command.  On in the shell on a terminal; "
                           "-batch, scripts and output that is not a terminal are never paged (height unlimited).",
        show=lambda interp: f"State of pagination is {on_off(interp.state.pagination)}.",
        set=_set_pagination)
limit_setting("height", "The lines in a page (unlimited or 0: no paging; default: the terminal's rows when the shell runs on "
              "a terminal, else unlimited).", "height", "Number of lines gdb thinks are in a page is {}.", lambda i: i.state)
limit_setting("width", "The characters in a line (unlimited or 0: no limit; default 80, or the terminal's width): dst tile, "
              "tile, info pushes, info lregs and help fit it (tdbg.commands.layout).",
              "width", "Number of characters gdb thinks are in a line is {}.", lambda i: i.state)
