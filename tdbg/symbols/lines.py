"""Line tables and functions: the row at an address, the addresses of ``FILE:LINE``, the function
around an address and where its prologue ends (GDB's ``skip_prologue_sal``), the source files."""

from __future__ import annotations

import bisect
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.symbols.cxxnames import name_matches
from tdbg.symbols.dies import _containing, _cu_name, _die_covers, _is_cplus, _linkage_name
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import Function, InlinedCall, LineInfo, Row, Site

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE


class Lines(DwarfReader):
    """Line tables, functions and source files (``DebugInfo``'s part)."""

    def row_at(self, addr: int) -> Row | None:
        """The line-table row covering ``addr`` (line 0 included)."""
        self._read_at(addr)
        i = bisect.bisect_right(self._row_starts, addr) - 1
        if i >= 0 and addr < self._rows[i].end:
            return self._rows[i]
        return None

    def rows_in(self, low: int, high: int) -> list[Row]:
        """Rows starting in ``[low, high)``, by address."""
        self._read_at(low, high)
        return self._rows[bisect.bisect_left(self._row_starts, low):bisect.bisect_left(self._row_starts, high)]

    def line_for(self, addr: int) -> LineInfo | None:
        """The source line of ``addr``; None where there is none (or line 0)."""
        row = self.row_at(addr)
        if row is None or row.line == 0:
            return None
        return LineInfo(row.file, row.line, row.addr)

    def files(self) -> list[Path]:
        """Every source file the line table names."""
        self._read_all()
        return sorted({r.file for r in self._rows})

    def find_files(self, name: str) -> list[Path]:
        """Source files whose path ends with ``name`` (a basename or a path suffix)."""
        wanted = Path(name)
        if wanted.is_absolute():
            return [f for f in self.files() if f == Path(os.path.normpath(wanted))]
        parts = Path(os.path.normpath(wanted)).parts
        return [f for f in self.files() if f.parts[-len(parts):] == parts]

    def line_locations(self, file: str, line: int) -> tuple[list[Site], int | None]:
        """The breakpoint locations of exactly ``FILE:LINE`` and the next line after it that has
        code (None: none), as GDB's ``decode_digits_ordinary`` finds them: every statement
        row of the line, the first one of each innermost block (an inlined call of a function
        twice in one function is two locations), moved past the prologue when it is a
        function's entry (``skip_prologue_sal``).  Each location names the innermost function
        around it (an inlined callee's full name).

        Beyond GDB: every inlined call made on that line (``DW_AT_call_file`` /
        ``DW_AT_call_line``) is a location too, at the call's entry, naming the caller: clang
        writes no line-table row for the call line of an inlined call, so a kernel line made
        only of inlined calls (``tile_regs_acquire();``) has no row, and GDB moves such a
        breakpoint to the next line that has one (often the function's closing brace)."""
        files = set(self.find_files(file))
        if not files:
            raise KeyError(f"No source file named {file}.")
        rows = [r for r in self._rows if r.file in files and r.is_stmt]
        calls = self._inlined_calls_from(files)
        later = min([r.line for r in rows if r.line > line] + [c.call_line for c, _ in calls if c.call_line > line],
                    default=None)
        seen: set[int | None] = set()
        sites: list[Site] = []
        for row in rows:
            if row.line != line:
                continue
            block = self.block_at(row.addr)
            key = block.offset if block is not None else None
            if key in seen:
                continue
            seen.add(key)
            function = self.function_at(row.addr)
            addr = self._prologue_end(function) if function and row.addr == function.low else row.addr
            chain = self.inline_chain(addr)
            name = chain[0].physname if chain else function.full_name if function else None
            sites.append(Site(addr, name, self.line_for(addr)))
        taken = {site.address for site in sites}
        for call, caller in calls:
            if call.call_line == line and call.entry not in taken:
                taken.add(call.entry)
                assert call.call_file is not None
                sites.append(Site(call.entry, caller, LineInfo(call.call_file, line, call.entry)))
        return sorted(sites, key=lambda site: site.address), later

    def _inlined_calls_from(self, files: set[Path]) -> list[tuple[InlinedCall, str | None]]:
        """The inlined calls whose call site is in one of ``files``, each with the full name of
        its caller (the function, or the inlined call it is made in)."""
        found = []
        for function in self.functions():
            calls = self.inlined_calls(function)
            for call in calls:
                if call.call_file in files and call.call_line:
                    outer = [c for c in calls if c.depth < call.depth and c.covers(call.entry)]
                    caller = max(outer, key=lambda c: c.depth).physname if outer else function.full_name
                    found.append((call, caller))
        return found

    def addresses_for(self, file: str, line: int) -> list[int]:
        """Breakpoint addresses of ``FILE:LINE``, or of the next line with code when it has none."""
        sites, later = self.line_locations(file, line)
        if not sites and later is not None:
            sites, _ = self.line_locations(file, later)
        if not sites:
            raise KeyError(f'No line {line} in file "{file}".')
        return [site.address for site in sites]

    def block_at(self, pc: int) -> DIE | None:
        """The innermost block DIE around ``pc``: a lexical block, an inlined call or the
        function (GDB's ``block_for_pc``)."""
        function = self.function_at(pc)
        if function is None or function.die is None:
            return None
        block = function.die
        while True:
            inner = next((c for c in block.iter_children()
                          if c.tag in ("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine")
                          and ("DW_AT_low_pc" in c.attributes or "DW_AT_ranges" in c.attributes) and _die_covers(c, pc)), None)
            if inner is None:
                return block
            block = inner

    def function_sites(self, wanted: str) -> list[Site]:
        """The breakpoint locations of ``break FUNCTION``: every function with code whose full
        name ``wanted`` names (``tdbg.symbols.cxxnames.name_matches``: scopes, template arguments and
        parameters may be left out), past its prologue, and every inlined call of one, at its
        entry, as GDB places them."""
        self._read_all()
        sites = [Site(self._prologue_end(f), f.full_name, self.breakpoint_line(self._prologue_end(f)))
                 for f in self._functions if name_matches(wanted, f.full_name)]
        for function in self._functions:
            for call in self.inlined_calls(function):
                if name_matches(wanted, call.physname):
                    sites.append(Site(call.entry, call.physname, self.line_for(call.entry)))
        return sorted(set(sites), key=lambda site: site.address)

    def source_lines(self, file: str | Path) -> list[str]:
        """The lines of a source file (cached); a relative ``file`` is first looked up as the
        suffix of a file the line table names.  The file is found on this machine through
        ``source_path`` (``set substitute-path``, ``directory``) when one is set."""
        path = self.source_file(file)
        path = path.resolve() if path.exists() else path
        if path not in self._sources:
            try:
                self._sources[path] = path.read_text(errors="replace").splitlines()
            except OSError as exc:
                raise FileNotFoundError(f"{file}: {exc.strerror or 'cannot read'}.") from None
        return self._sources[path]

    def source_file(self, file: str | Path) -> Path:
        """Where the source ``file`` (as the line table names it) is on this machine: found
        through ``source_path``, else the recorded path."""
        path = Path(file)
        if not path.is_absolute():
            path = next(iter(self.find_files(str(file))), path)
        if self.source_path is not None:
            found = self.source_path.find(path, self._comp_dirs.get(path))
            if found is not None:
                return found
        return path

    def source_info(self, file: Path) -> dict[str, str | int | bool] | None:
        """What GDB's ``info source`` says of a source file's unit: its name as recorded, the
        compilation directory, the producer, the DWARF version, the language and whether it
        has macro information; None for a file no unit names."""
        for cu in self._cus:
            if file not in self._file_names(cu).values():
                continue
            top = cu.get_top_DIE().attributes
            text = {a: top[a].value.decode(errors="replace") for a in ("DW_AT_comp_dir", "DW_AT_producer")
                    if a in top and isinstance(top[a].value, bytes)}
            return {"name": self.file_label(file, cu), "comp_dir": text.get("DW_AT_comp_dir", ""),
                    "producer": text.get("DW_AT_producer", ""), "version": cu.header.version,
                    "language": "c++" if _is_cplus(cu) else "asm" if _cu_name(cu).endswith((".S", ".s")) else "c",
                    "macros": any(a in top for a in ("DW_AT_macros", "DW_AT_GNU_macros", "DW_AT_macro_info"))}
        return None

    def function_at(self, addr: int) -> Function | None:
        """The DWARF function containing ``addr``."""
        self._read_at(addr)
        return _containing(self._functions, self._function_starts, addr)

    def label_at(self, addr: int, demangled: bool) -> tuple[str, int] | None:
        """The name and entry of the function containing ``addr`` as GDB's ``<NAME+OFFSET>``
        names it (``build_address_symbolic``, from the function's symbol): its linkage name,
        or with ``demangled`` its full name; a C++ function without one (``main``) by its full
        name with the parameter types (``main(int, char**)``), a C function by its name."""
        function = self.function_at(addr)
        if function is None or function.die is None:
            return None
        linkage = _linkage_name(function.die) if not demangled else None
        return linkage or function.full_name, function.low

    def symbol_function_at(self, addr: int) -> Function | None:
        """The DWARF function containing ``addr``, else the ELF code symbol there (a function or
        a label, ``ElfImage.symbol_at``; for a frame's name, its extent is not kept)."""
        function = self.function_at(addr)
        if function is not None:
            return function
        hit = self._image.symbol_at(addr)
        if hit is None or hit[0].kind == "object":
            return None
        sym = hit[0]
        return Function(sym.name, sym.addr, sym.addr + max(sym.size, 1), None, None)

    def function(self, name: str) -> Function:
        self._read_all()
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f'Function "{name}" not defined.') from None

    def function_named(self, name: str) -> Function | None:
        """The function whose search name or full name is exactly ``name`` (an expression's
        ``combine`` or ``'combine(unsigned int, unsigned int)'``)."""
        self._read_all()
        return self._by_name.get(name) or next((f for f in self._functions if f.full_name == name), None)

    def language_at(self, pc: int) -> str:
        """The source language GDB names for the code at ``pc``: that of its function's unit
        (``c``, ``c++``), ``asm`` elsewhere."""
        function = self.function_at(pc)
        if function is None or function.die is None:
            return "asm"
        return "c++" if _is_cplus(function.die.cu) else "c"

    def functions(self) -> list[Function]:
        self._read_all()
        return list(self._functions)

    def breakpoint_address(self, name: str) -> int:
        """Where ``break NAME`` stops: past the prologue (``_prologue_end``)."""
        return self._prologue_end(self.function(name))

    def breakpoint_line(self, address: int) -> LineInfo | None:
        """The file and line GDB names for a breakpoint at ``address`` (``skip_prologue_sal``):
        inside inlined calls, the call site of the outermost one (the function's own line);
        else the line of ``address``."""
        line = self.line_for(address)
        chain = self.inline_chain(address)
        if chain and chain[-1].call_line:
            return LineInfo(chain[-1].call_file or (line.file if line else Path("??")), chain[-1].call_line,
                            line.addr if line else address)
        return line

    def _prologue_end(self, function: Function) -> int:
        """GDB's ``skip_prologue_sal`` for a function: the first ``prologue_end`` entry of the
        function's file, else the end of its first line-table row, taken past rows of lower
        lines in the same file that are not inlined code (``skip_prologue_using_sal``); no
        prologue when the first address has two entries; a pc in the middle of a row moves to
        the next row."""
        first = self.row_at(function.low)
        if first is None or first.line == 0:
            return function.low
        rows = self.rows_in(function.low, function.high)
        marked = next((r.addr for r in rows if r.prologue_end and r.file == first.file), None)
        if marked is not None:
            return marked
        if first.repeated:
            return function.low
        if first.end >= function.high:
            return function.low
        sal = first
        while sal.end < function.high:
            following = self.row_at(sal.end)
            if following is None or following.line == 0 or following.line >= sal.line:
                break
            if following.file != sal.file or self.inline_chain(sal.end):
                break
            sal = following
        pc = sal.end if sal.end < function.high else sal.addr
        start = self.row_at(pc)
        if start is not None and start.addr != pc and start.end < function.high:
            pc = start.end
        return max(pc, function.low)
