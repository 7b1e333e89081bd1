"""The program's symbol tables as GDB lists them: ``info functions``, ``info variables``,
``info types`` (each with an optional regular expression), ``rbreak REGEX``, and where symbols
are: ``info scope``, ``info address``.

GDB matches a POSIX basic regular expression against each symbol's search name (a C++
function's full name with its parameters, ``combine(unsigned int, unsigned int)``; a variable's
qualified name); debug symbols are listed by file, then the symbols of the ELF with no debug
information ("Non-debugging symbols", by address).  The toolchain's runtime (zig's compiler_rt)
is code without debug information, as everywhere in tdbg.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import frame_view, need_debug, qualify_line
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_address
from tdbg.symbols.cxxnames import demangle

if TYPE_CHECKING:
    from tdbg.symbols.records import SymbolEntry

_BRE_SPECIAL = {"|", "+", "?", "(", ")", "{", "}"}


def gdb_regex(text: str) -> re.Pattern[str]:
    """A POSIX basic regular expression (GDB's ``regcomp`` without ``REG_EXTENDED``) as a Python
    pattern: ``| + ? ( ) { }`` are literal characters, ``\\|`` ``\\+`` ``\\?`` ``\\(`` ``\\)``
    ``\\{`` ``\\}`` their operators (GNU's extensions)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(nxt if nxt in _BRE_SPECIAL else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in _BRE_SPECIAL else c)
        i += 1
    try:
        return re.compile("".join(out))
    except re.error as exc:
        raise CommandError(f"Invalid regexp({exc}): {text}") from None


def _entries(interp: Interpreter, kind: str, pattern: re.Pattern[str] | None) -> list[SymbolEntry]:
    info = interp.session.debug
    entries = info.symbol_entries(kind) if info is not None else []
    return [e for e in entries if pattern is None or pattern.search(e.name)]


def _minimal(interp: Interpreter, kind: str, pattern: re.Pattern[str] | None) -> list[tuple[int, str]]:
    """The ELF symbols GDB lists as non-debugging: code outside every compile unit (functions),
    or data no debug variable defines (variables); (address, name shown) by address."""
    s = interp.session
    image = s.image
    info = s.debug
    ranges = info.unit_ranges if info is not None else []
    defined = info.linkage_names() if info is not None and kind == "variables" else set()
    out = []
    for sym in image.symbols.values():
        code = sym.code
        if sym.absolute or code != (kind == "functions"):
            continue
        if code and any(lo <= sym.addr < hi for lo, hi in ranges):
            continue
        if not code and sym.name in defined:
            continue
        name = demangle(sym.name) or sym.name
        if pattern is None or pattern.search(name):
            out.append((sym.addr, sym.name, name))
    return [(addr, name) for addr, _, name in sorted(out)]


def _listing(interp: Interpreter, kind: str, args: str) -> None:
    words = args.split()
    non_debugging = True
    while words and words[0] in ("-q", "-n"):
        non_debugging = non_debugging and words.pop(0) != "-n"
    regex = " ".join(words)
    pattern = gdb_regex(regex) if regex else None
    noun = {"functions": "functions", "variables": "variables", "types": "types"}[kind]
    interp.out(f'All {noun} matching regular expression "{regex}":' if regex else f"All defined {noun}:")
    last = None
    for entry in _entries(interp, kind, pattern):
        if entry.file != last:
            interp.out("")
            interp.out(f"File {entry.file}:")
            last = entry.file
        prefix = f"{entry.line}:\t" if entry.line else "\t"
        interp.out(f"{prefix}{entry.text}{';' if entry.line or kind != 'types' else ''}")
    minimal = _minimal(interp, kind, pattern) if non_debugging and kind != "types" else []
    if minimal:
        interp.out("")
        interp.out("Non-debugging symbols:")
        for address, name in minimal:
            interp.out(f"{address:#010x}  {name}")


@info_command("functions", usage="info functions [-n] [REGEXP]", help="List the functions with code (C++: by full name with parameters, as 'break' takes them), by file with their declarations, then the code symbols without debug information; REGEXP (a POSIX basic regular expression, as GDB's) keeps those whose name it matches; -n leaves out the non-debugging symbols.  Inlined-only functions are not listed (GDB lists functions that have a body of their own).", example="info functions comb")
def info_functions(interp: Interpreter, args: str) -> None:
    _listing(interp, "functions", args)


@info_command("variables", usage="info variables [-n] [REGEXP]", help="List the variables defined at file or namespace scope (C++: qualified names), by file with their declarations, then the data symbols without debug information; REGEXP keeps those whose name it matches; -n leaves out the non-debugging symbols.", example="info variables ckernel")
def info_variables(interp: Interpreter, args: str) -> None:
    _listing(interp, "variables", args)


@info_command("types", usage="info types [REGEXP]", help="List the types the program defines (structs, classes, enums, typedefs, base types; C++ namespaces too), by file; REGEXP keeps those whose name it matches.", example="info types Counter")
def info_types(interp: Interpreter, args: str) -> None:
    _listing(interp, "types", args)


@command("rbreak", usage="rbreak REGEXP", help="Set a breakpoint on every function whose name REGEXP matches (a POSIX basic regular expression, matched against the full name with parameters, as GDB does), then on every code symbol without debug information it matches; each is reported, followed by the function's declaration.", example="rbreak ^comb")
def rbreak_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.commands.breakpoints import break_and_report

    regex = args.strip()
    pattern = gdb_regex(regex)
    for entry in _entries(interp, "functions", pattern):
        break_and_report(interp, f"'{entry.name}'")
        interp.out(f"{entry.text};")
    for _, name in _minimal(interp, "functions", pattern):
        break_and_report(interp, f"'{name}'")
        interp.out(f"<function, no debug info> {name};")


def _complete_symbols(interp: Interpreter, word: str) -> list[str]:
    return [n for n in interp.session.symbol_names() if n.startswith(word)]


@info_command("scope", usage="info scope LOCATION", help="The local variables and arguments visible at LOCATION (FUNCTION, FILE:LINE, *ADDRESS) and where each is (a register, a frame offset, a constant, one place per range of addresses), as GDB's info scope.", example="info scope fill_row", complete=_complete_symbols)
def info_scope(interp: Interpreter, args: str) -> None:
    s = interp.session
    text = args.strip()
    if not text:
        raise CommandError("requires an argument (function, line or *addr) to define a scope")
    info = need_debug(interp)
    if text.startswith("*"):
        pc = evaluate_address(interp, text[1:])
    else:
        sites = s.locate(qualify_line(interp, text))
        if not sites:
            raise CommandError(f'No line {text} in the current file.')
        pc = sites[0].address
    symbols = (s.debug_info_at(s.current, pc) or info).scope_symbols(pc)
    if not symbols:
        interp.out(f"Scope for {text}:\ncontains no locals or arguments.")
        return
    interp.out(f"Scope for {text}:")
    for name, where, size in symbols:
        interp.out(f"Symbol {name} is {where}." if size is None else f"Symbol {name} is {where}, length {size}.")


@info_command("address", usage="info address SYMBOL", help="Where SYMBOL is (a local of the selected frame, a global, a function): a register, a frame offset, static storage, a constant, or one place per range of addresses, as GDB's info address.", example="info address results", complete=_complete_symbols)
def info_address(interp: Interpreter, args: str) -> None:
    s = interp.session
    name = args.strip()
    if not name:
        raise CommandError("Argument required.")
    info = s.debug
    if info is not None:
        frame = frame_view(interp).selected()
        for local, where, _ in info.scope_symbols(frame.lookup_pc, scope=False):
            if local == name:
                interp.out(f'Symbol "{name}" is {where}.')
                return
        try:
            var = info.global_variable(name)
        except KeyError:
            var = None
        if var is not None and var.addr is not None:
            interp.out(f'Symbol "{name}" is static storage at address {var.addr:#x}.')
            return
        fn = info.function_named(name)
        if fn is not None:
            interp.out(f'Symbol "{fn.full_name}" is a function at address {fn.low:#x}.')
            return
    sym = s.image.symbols.get(name) if s.image is not None else None
    if sym is None:
        raise CommandError(f'No symbol "{name}" in current context.')
    interp.out(f'Symbol "{name}" is at {sym.addr:#x} in a file compiled without debugging.')
