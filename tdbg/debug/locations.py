"""Where things are in the current core's programs: GDB's locations (``tdbg.symbols.linespec``)
looked up in the firmware and in each symbol file beside it, and the names completion offers."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tdbg.debug.expressions import Expressions
from tdbg.debug.memory import check_range
from tdbg.debug.programs import Programs
from tdbg.symbols.symbol_file import SymbolFile
from tdbg.debug.target import Target
from tdbg.errors import SessionError
from tdbg.symbols.cxxnames import demangle

if TYPE_CHECKING:   # locations are parsed with the DWARF records, imported when first resolved
    from tdbg.symbols import linespec
    from tdbg.symbols.records import Site


class Locations:
    """Resolves locations in the current core's program and its symbol files."""

    def __init__(self, target: Target, programs: Programs, expressions: Expressions) -> None:
        self.t, self.programs, self.expressions = target, programs, expressions

    def resolve(self, location: str | int) -> int:
        """An address from a number, ``*EXPR`` (``*$pc+8``), ``FUNCTION`` (past its prologue when
        there is line information), ``FILE:LINE`` or ``LINE``, in the current core's program: its
        first location (``locate``)."""
        return self.locate(location)[0].address

    def locate(self, location: str | int, line: int | None = None) -> list[Site]:
        """Every location of ``location`` in the current core's program and its symbol files
        (``tdbg.symbols.linespec``; GDB looks in every objfile), by address; ``line`` replaces the line
        of a ``FILE:LINE``.  A ``FILE:LINE`` without code here goes to the next line with code,
        as GDB does in one program (``break_at`` decides that for the whole tile)."""
        resolved = self.resolved_in_files(self.t.current, location, line)
        if not resolved.sites and resolved.next_line is not None:
            resolved = self.resolved_in_files(self.t.current, location, resolved.next_line)
        if not resolved.sites:
            from tdbg.symbols import linespec

            spec = linespec.parse(str(location), None)
            raise SessionError(f'No line {spec.line} in file "{spec.file}".')
        return resolved.sites

    def _resolved(self, location: str | int, line: int | None = None) -> linespec.Resolved:
        from tdbg.symbols import linespec
        from tdbg.symbols.records import Site

        if isinstance(location, int):
            check_range(location, 1)
            return linespec.Resolved([Site(location, None)])
        if location.strip().startswith("*"):   # any expression, as GDB evaluates it: *$pc+8
            return linespec.Resolved([Site(self.expressions.address_of(location.strip()[1:]), None)])
        info = self.programs.debug
        spec = linespec.parse(location, info)
        if spec.line is not None and spec.file is None and info is None and location.strip().isdigit():
            spec = linespec.Spec(address=int(location))   # no line table: a number is an address
        if line is not None:
            spec = replace(spec, line=line)
        if spec.address is not None:
            check_range(spec.address, 1)
        current = None
        if spec.line is not None and spec.file is None and info is not None:
            here = info.line_for(self.t.core.pc)
            current = str(here.file) if here is not None else None
        try:
            return linespec.resolve(spec, info, self.programs.image, current)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def resolved_in_files(self, core: str, location: str | int, line: int | None = None) -> linespec.Resolved:
        """``_resolved`` in the firmware of ``core`` and in each of its symbol files (as GDB
        looks a location up in every objfile): every site, the nearest next line."""
        files: list[SymbolFile | None] = [None, *self.programs.symbol_files.get(core, ())]
        if self.t.tile.image(core) is None:   # a host's code only (a chip's tile): its symbol files
            files = files[1:]
        if len(files) == 1 and files[0] is None or isinstance(location, int):
            return self._resolved(location, line)
        sites: list[Site] = []
        later: list[int] = []
        error: SessionError | None = None
        for symbol_file in files:
            with self.programs.symbols_from(core, symbol_file):
                try:
                    resolved = self._resolved(location, line)
                except SessionError as exc:
                    error = error or exc
                    continue
            sites += resolved.sites
            if resolved.next_line is not None:
                later.append(resolved.next_line)
        if not sites and not later and error is not None:
            raise error
        from tdbg.symbols import linespec

        return linespec.Resolved(sites, min(later) if later else None)

    def symbol_names(self) -> set[str]:
        """The names completion offers for the current core (GDB's symbol completion): the ELF
        symbols of its firmware and of its symbol files (a kernel's) as GDB names them
        (demangled), their debug information's functions (C++: full names), variables and types,
        and the locals of the selected frame."""
        names: set[str] = set()
        for image, info in self.programs.programs_of(self.t.current):
            names |= {demangle(name) or name for name in image.symbols}
            names |= info.completion_names() if info is not None else set()
        try:
            frame = self.expressions.expression_context().frames.selected()
            info = self.programs.debug_info_at(self.t.current, frame.lookup_pc)
            names |= {v.name for v in info.locals_at(frame)} if info is not None else set()
        except Exception:  # noqa: BLE001  (completion never fails: corrupt DWARF, no frame)
            pass
        return names

    def location_names(self) -> tuple[set[str], set[str]]:
        """What a breakpoint location may name on any core (GDB completes a linespec over every
        program): (the symbols, the source files' names) of each core's firmware and symbol
        files (a tt-metal kernel, before it runs)."""
        symbols: set[str] = set()
        files: set[str] = set()
        for core in self.t.tile.programs:
            for symbol_file in (None, *self.programs.symbol_files.get(core, ())):
                with self.t.on_core(core), self.programs.symbols_from(core, symbol_file):
                    symbols |= self.symbol_names()
                    if symbol_file is not None:
                        symbols |= {demangle(name) or name for name in symbol_file.image.symbols}
                    info = self.programs.debug
                    if info is not None:
                        files |= {path.name for path in info.files()}
        return symbols, files
