"""What every part of a program's DWARF reading shares: the ELF, its compile units (read when an
address in them, or a question by name, first needs them), their line rows, functions and files."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.expr.ctype import CType, type_name
from tdbg.symbols.cxxnames import canonical_param, demangle, drop_return_type, remove_params
from tdbg.symbols.dies import (
    _cu_name, _die_ranges, _file_names, _high_pc, _is_cplus, _linkage_name, _name, _origin, _qualified,
    _sequence_rows, _subprograms,
)
from tdbg.symbols.records import Function, InlinedCall, RUNTIME_CU, Row, Variable
from tdbg.symbols.sourcepath import SourcePath

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE
    from elftools.dwarf.dwarf_expr import DWARFExprParser
    from elftools.dwarf.dwarfinfo import DWARFInfo
    from elftools.dwarf.locationlists import LocationParser
    from elftools.elf.elffile import ELFFile
    from tdbg.emu.elf import ElfImage


@dataclass
class _Unit:
    """One compile unit, its address ranges from its top DIE (None: not said, so it may hold any
    address) and, once read, its line-table rows and functions."""

    cu: object
    ranges: list[tuple[int, int]] | None
    rows: list[Row] | None = None
    functions: list[Function] | None = None

    def covers(self, low: int, high: int) -> bool:
        return self.ranges is None or any(lo < high and low < hi for lo, hi in self.ranges)


class DwarfReader:
    """Reads one ELF's DWARF when a question first needs it (the base of ``DebugInfo``'s parts)."""

    def __init__(self, image: ElfImage) -> None:
        self._image = image
        self._exec = image.exec_ranges
        self._rows: list[Row] = []            # of the units read so far, by address
        self._row_starts: list[int] = []
        self._functions: list[Function] = []
        self._function_starts: list[int] = []
        self._by_name: dict[str, Function] = {}
        self._types: dict[int, CType] = {}
        self._globals: dict[str, Variable] | None = None
        self._statics: dict[int, int] | None = None
        self._type_dies: dict[str, DIE] | None = None
        self._sources: dict[Path, list[str]] = {}
        self._inlined: dict[int, list[InlinedCall]] = {}
        self._files: dict[int, dict[int, Path]] = {}   # CU offset -> its line program's files
        self._sites: dict[int, dict[int, DIE]] = {}    # function -> its call sites by return address
        self._comp_dirs: dict[Path, str] = {}          # source file -> its unit's compilation directory
        self.source_path: SourcePath | None = None     # the session's (set substitute-path, directory)
        self.moved_by = 0                              # how far the code was moved from its link address

    @classmethod
    def load(cls, program: str | Path | ElfImage) -> DebugInfo | None:
        """The debug information of a loaded ELF (read from the bytes it was loaded from, when
        first needed) or of an ELF file; None when it has no DWARF ``.debug_info``."""
        from tdbg.emu.elf import ElfImage

        image = program if isinstance(program, ElfImage) else ElfImage.load(program)
        if image.section(".debug_info") is None:
            return None
        return cls(image)

    def open(self) -> None:
        """Read what every question needs: the DWARF section headers and each compile unit's top
        DIE (its name and address ranges).  Raises on DWARF too corrupt for that."""
        self._units  # noqa: B018  (cached)

    @cached_property
    def _dwarf(self) -> DWARFInfo:
        # An executable's DWARF holds its final addresses: the relocations a linker keeps
        # (--emit-relocs, as tt-metal's kernels are linked) are not applied again.
        from elftools.elf.elffile import ELFFile

        return ELFFile(io.BytesIO(self._image.raw)).get_dwarf_info(relocate_dwarf_sections=False)

    @cached_property
    def _expr(self) -> DWARFExprParser:
        from elftools.dwarf.dwarf_expr import DWARFExprParser

        return DWARFExprParser(self._dwarf.structs)

    @cached_property
    def _locations(self) -> LocationParser:
        from elftools.dwarf.locationlists import LocationParser

        return LocationParser(self._dwarf.location_lists())

    @cached_property
    def _units(self) -> list[_Unit]:
        units = []
        for cu in self._dwarf.iter_CUs():
            if _cu_name(cu) == RUNTIME_CU:
                continue
            top = cu.get_top_DIE()
            attrs = top.attributes
            known = "DW_AT_ranges" in attrs or ("DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs)
            units.append(_Unit(cu, _die_ranges(top) if known else None))
        return units

    @property
    def _cus(self) -> list:
        return [unit.cu for unit in self._units]

    def _read(self, units: Iterable[_Unit]) -> None:
        """Read the line tables and functions of ``units`` not read yet."""
        new = [unit for unit in units if unit.rows is None]
        if not new:
            return
        failed: Exception | None = None
        for unit in new:
            try:
                unit.rows, unit.functions = self._unit_rows(unit.cu), self._unit_functions(unit.cu)
            except Exception as exc:  # noqa: BLE001  (corrupt DWARF: said once, the unit then has nothing)
                unit.rows, unit.functions, failed = [], [], failed or exc
            self._rows.extend(unit.rows)
            self._functions.extend(unit.functions)
        self._rows.sort(key=lambda r: r.addr)
        self._row_starts = [r.addr for r in self._rows]
        self._functions.sort(key=lambda f: f.low)
        self._function_starts = [f.low for f in self._functions]
        self._by_name = {f.name: f for f in reversed(self._functions)}
        if failed is not None:
            raise failed

    def _read_at(self, low: int, high: int | None = None) -> None:
        """Read the units that may hold code in ``[low, high)`` (default: the byte at ``low``)."""
        high = low + 1 if high is None else high
        self._read(unit for unit in self._units if unit.covers(low, high))

    def _read_all(self) -> None:
        self._read(self._units)

    def _executable(self, addr: int) -> bool:
        return any(lo <= addr < hi for lo, hi in self._exec)

    def _unit_rows(self, cu) -> list[Row]:
        rows: list[Row] = []
        program = self._dwarf.line_program_for_CU(cu)
        if program is None:
            return rows
        files = self._file_names(cu)
        sequence: list = []
        for entry in program.get_entries():
            state = entry.state
            if state is None:
                continue
            sequence.append(state)
            if state.end_sequence:
                if self._executable(sequence[0].address):
                    rows.extend(_sequence_rows(sequence, files))
                sequence = []
        return rows

    def _unit_functions(self, cu) -> list[Function]:
        functions = []
        for die in _subprograms(cu.get_top_DIE()):
            low = die.attributes["DW_AT_low_pc"].value
            high = _high_pc(die, low)
            if _name(die) and self._executable(low):
                file, line = self._decl(die)
                physname = self._physname(die)
                functions.append(Function(remove_params(physname), low, high, file, line, die, physname))
        return functions

    def _physname(self, die: DIE) -> str:
        """GDB's full name of a subprogram DIE (``dwarf2_physname``): in C, its name; in C++, its
        linkage name demangled without a template's return type (``DMGL_RET_DROP``), else its
        qualified name with the parameter types."""
        name = _name(die) or "??"
        if not _is_cplus(die.cu):
            return name
        linkage = _linkage_name(die)
        demangled = demangle(linkage) if linkage else None
        if demangled is not None:
            return drop_return_type(demangled)
        params = self._params(_origin(die, "DW_AT_name") or die) or ()
        return f"{_qualified(die)}({', '.join(canonical_param(type_name(t)) for t in params)})"

    def _file_names(self, cu) -> dict[int, Path]:
        """The file names of ``cu``'s line program (cached)."""
        files = self._files.get(cu.cu_offset)
        if files is None:
            program = self._dwarf.line_program_for_CU(cu)
            files = self._files[cu.cu_offset] = _file_names(cu, program) if program is not None else {}
            top = cu.get_top_DIE().attributes
            if "DW_AT_comp_dir" in top:
                for path in files.values():
                    self._comp_dirs.setdefault(path, top["DW_AT_comp_dir"].value.decode(errors="replace"))
        return files

    def _decl(self, die: DIE) -> tuple[Path | None, int | None]:
        attrs = die.attributes
        if "DW_AT_decl_file" not in attrs:
            return None, None
        files = self._file_names(die.cu)
        index = attrs["DW_AT_decl_file"].value
        return files.get(index), attrs["DW_AT_decl_line"].value if "DW_AT_decl_line" in attrs else None
