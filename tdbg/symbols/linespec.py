"""GDB's locations (linespecs) in one core's program: ``*ADDRESS``, ``LINE``, ``FILE:LINE``,
``FUNCTION``, ``FILE:FUNCTION``, and quoted C++ names (``'run_kernel(RuntimeParams const&)'``,
``'f<(MathFidelity)4, 0>'``), resolved to breakpoint locations (``debuginfo.Site``) as GDB's
``linespec.c`` does.

A ``FILE:LINE`` is resolved in two steps so that several programs (one per core) share one
rule: ``resolve`` gives the exact-line locations and the next line with code; the caller takes
the next line only when no program has the line itself (GDB's ``best_entry`` over every
program space).  A function name matches as GDB's wild matching does (``tdbg.symbols.cxxnames``); with
no function in the debug information it falls back to the ELF's symbols (GDB's minimal symbols).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.symbols.cxxnames import demangle, name_matches
from tdbg.symbols.records import Site

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.symbols.debuginfo import DebugInfo

_FILE_LINE = re.compile(r"^(?P<file>.*[^:]):(?P<line>\d+)$")


@dataclass(frozen=True)
class Spec:
    """A parsed location: ``address``, or ``line`` (with ``file``; None: the current file), or
    ``function`` (with ``file`` when given as ``FILE:FUNCTION``)."""

    address: int | None = None
    file: str | None = None
    line: int | None = None
    function: str | None = None


@dataclass(frozen=True)
class Resolved:
    """The locations of a spec in one program; for ``FILE:LINE`` also the next line after it
    that has code there (to be used when no program has the line itself)."""

    sites: list[Site]
    next_line: int | None = None


def parse(text: str, info: DebugInfo | None) -> Spec:
    """Parse a location (a ``*`` address is the caller's business: it needs the evaluator)."""
    text = text.strip()
    if text[:1] in "'\"" and text.endswith(text[0]) and len(text) > 1:
        return Spec(function=text[1:-1])
    if text.isdigit():
        return Spec(line=int(text))
    try:
        return Spec(address=int(text, 0))
    except ValueError:
        pass
    if m := _FILE_LINE.match(text):
        return Spec(file=m["file"].strip(), line=int(m["line"]))
    head, colon, rest = _split_file(text)
    if colon and info is not None and info.find_files(head):
        function = rest.strip()
        if function[:1] in "'\"" and function.endswith(function[0]):
            function = function[1:-1]
        return Spec(file=head, function=function)
    return Spec(function=text)


def _split_file(text: str) -> tuple[str, str, str]:
    """``FILE:REST`` split at its first ``:`` that is not part of a ``::``."""
    for i, c in enumerate(text):
        if c == ":" and text[i + 1:i + 2] != ":" and text[i - 1:i] != ":":
            return text[:i], ":", text[i + 1:]
    return text, "", ""


def resolve(spec: Spec, info: DebugInfo | None, image: ElfImage, current_file: str | None = None) -> Resolved:
    """The locations of ``spec`` in one program (its debug information and ELF).  ``KeyError``
    with GDB's message when there is none."""
    if spec.address is not None:
        return Resolved([Site(spec.address, None, info.line_for(spec.address) if info is not None else None)])
    if spec.line is not None:
        file = spec.file or current_file
        if info is None:
            raise KeyError("No symbol table is loaded.  Use the \"file\" command.")
        if file is None:
            raise KeyError("No line number information available for the current location.")
        sites, later = info.line_locations(file, spec.line)
        return Resolved(sites, later)
    assert spec.function is not None
    sites = info.function_sites(spec.function) if info is not None else []
    if spec.file is not None and info is not None:
        files = set(info.find_files(spec.file))
        sites = [s for s in sites if s.line is not None and s.line.file in files]
    if not sites:
        sites = [Site(symbol.addr, demangle(symbol.name) or symbol.name, info.line_for(symbol.addr) if info else None)
                 for symbol in image.symbols.values()
                 if symbol.kind in ("func", "notype") and name_matches(spec.function, demangle(symbol.name) or symbol.name)]
    if not sites:
        raise KeyError(f'Function "{spec.function}" not defined.')
    return Resolved(sites)
