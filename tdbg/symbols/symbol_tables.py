"""The symbol tables GDB's ``info functions``, ``info variables`` and ``info types`` list, and the
names completion offers."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.expr.ctype import declaration, function_type, VOID
from tdbg.symbols.dies import (
    _TAGS, _TYPE_TAGS, _cu_name, _is_cplus, _linkage_name, _name, _origin, _qualified, _recorded_names,
    _scoped_name, _type_spelling,
)
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import SymbolEntry

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE


class SymbolTables(DwarfReader):
    """The symbol tables GDB's ``info`` commands list (``DebugInfo``'s part)."""

    def _global_dies(self, *tags: str):
        """The DIEs with one of ``tags`` at file scope or inside namespaces (and, for types,
        classes), in every unit."""
        def walk(die: DIE):
            for child in die.iter_children():
                if child.tag in tags:
                    yield child
                if child.tag == "DW_TAG_namespace" or (child.tag in _TAGS and tags != ("DW_TAG_variable",)):
                    yield from walk(child)
        for cu in self._cus:
            yield from walk(cu.get_top_DIE())

    def file_label(self, path: Path | None, cu=None) -> str:
        """A source file as GDB's symbol tables name it: its line-table entry as recorded (a
        directory joined to it only when the entry names one), not made absolute."""
        if path is None:
            return _cu_name(cu) if cu is not None else "??"
        return self._labels.get(path, str(path))

    @cached_property
    def _labels(self) -> dict[Path, str]:
        labels: dict[Path, str] = {}
        for cu in self._cus:   # a unit's own file is named as the unit names it
            top = cu.get_top_DIE().attributes
            comp_dir = top["DW_AT_comp_dir"].value.decode(errors="replace") if "DW_AT_comp_dir" in top else ""
            labels.setdefault(Path(os.path.normpath(os.path.join(comp_dir, _cu_name(cu)))), _cu_name(cu))
        for cu in self._cus:
            program = self._dwarf.line_program_for_CU(cu)
            if program is None:
                continue
            for path, recorded in _recorded_names(cu, program).items():
                labels.setdefault(path, recorded)
        return labels

    def _symtab(self, die: DIE) -> tuple[str, int | None]:
        """(file label, line) of a declaration: its decl file, else its unit's file."""
        file, line = self._decl(die)
        return self.file_label(file, die.cu) if file is not None else _cu_name(die.cu), line

    def completion_names(self) -> set[str]:
        """The names GDB's completion offers from the debug information: each function's full
        name (and its plain name), the variables and, in C++, the types and namespaces, qualified."""
        self._read_all()
        names = {f.full_name for f in self._functions} | {f.name for f in self._functions if not f.physname.startswith(f.name + "(")}
        names |= {_scoped_name(d) for d in self._global_dies("DW_TAG_variable") if _name(d)}
        names |= {_qualified(d) for d in self._global_dies(*_TYPE_TAGS, "DW_TAG_namespace") if _name(d) and _is_cplus(d.cu)}
        return names

    @property
    def unit_ranges(self) -> list[tuple[int, int]]:
        """The address ranges of the compile units (GDB lists a code symbol as a non-debugging
        one only outside them; the toolchain's runtime is code without debug information)."""
        return [r for unit in self._units for r in unit.ranges or ()]

    def linkage_names(self) -> set[str]:
        """The linkage names of the variables the debug information defines (an ELF symbol with
        one of them is not a non-debugging symbol)."""
        return {_linkage_name(die) or _name(die) or "" for die in self._global_dies("DW_TAG_variable")}

    def symbol_entries(self, kind: str) -> list[SymbolEntry]:
        """What GDB's ``info functions`` (``kind`` "functions"), ``info variables`` or ``info types``
        lists from the debug information, in its order: by file, the global block before the
        static one (C++ classes, enums and namespaces are global), then by name."""
        entries = {"functions": self._function_entries, "variables": self._variable_entries,
                   "types": self._type_entries}[kind]()
        return sorted(set(entries), key=lambda e: (e.file, e.block, e.name))

    def _function_entries(self) -> list[SymbolEntry]:
        self._read_all()
        out = []
        for f in self._functions:
            die = f.die
            assert die is not None
            external = "DW_AT_external" in die.attributes or (
                "DW_AT_specification" in die.attributes and "DW_AT_external" in die.get_DIE_from_attribute("DW_AT_specification").attributes)
            returns = self.return_type(f) or VOID
            if _is_cplus(die.cu):
                text = declaration(returns, f.full_name)
            else:
                text = declaration(function_type(returns, self._params(die)), f.name)
            file, line = self._symtab(die)
            out.append(SymbolEntry(f.full_name, file, line, ("" if external else "static ") + text, 0 if external else 1))
        return out

    def _variable_entries(self) -> list[SymbolEntry]:
        out = []
        for die in self._global_dies("DW_TAG_variable", "DW_TAG_label"):
            if "DW_AT_declaration" in die.attributes or _name(die) is None:
                continue
            file, line = self._symtab(die)
            name = _scoped_name(die)
            if die.tag == "DW_TAG_label":
                out.append(SymbolEntry(name, file, line, f"static __CORE_ADDR {name}", 1))
                continue
            declared = _origin(die, "DW_AT_type") or (die.get_DIE_from_attribute("DW_AT_specification")
                                                    if "DW_AT_specification" in die.attributes else None)
            if declared is None or "DW_AT_type" not in declared.attributes or "DW_AT_location" not in die.attributes:
                continue
            external = "DW_AT_external" in die.attributes or "DW_AT_external" in declared.attributes
            text = declaration(self._type(declared.get_DIE_from_attribute("DW_AT_type")), name)
            out.append(SymbolEntry(name, file, line, ("" if external else "static ") + text, 0 if external else 1))
        return out

    def _type_entries(self) -> list[SymbolEntry]:
        out = []
        for die in self._global_dies(*_TYPE_TAGS, "DW_TAG_base_type", "DW_TAG_namespace"):
            if _name(die) is None or "DW_AT_declaration" in die.attributes:
                continue
            cplus = _is_cplus(die.cu)
            if die.tag in ("DW_TAG_base_type", "DW_TAG_namespace"):
                name = _qualified(die) if cplus else _name(die) or ""
                out.append(SymbolEntry(name, _cu_name(die.cu), None, name, 1 if die.tag == "DW_TAG_base_type" else 0))
                continue
            file, line = self._symtab(die)
            name = _type_spelling(die) or ""
            if die.tag == "DW_TAG_typedef":
                target = self._type(die.get_DIE_from_attribute("DW_AT_type")) if "DW_AT_type" in die.attributes else VOID
                text = f"typedef {declaration(target, name)}"
            else:
                text = name
            out.append(SymbolEntry(name, file, line, text, 0 if cplus and die.tag != "DW_TAG_typedef" else 1))
        return out
