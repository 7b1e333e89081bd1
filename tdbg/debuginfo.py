"""Source-level debug information of a firmware ELF, read with pyelftools.

``DebugInfo`` answers what GDB's symbol tables answer: the line-table row at an address, the
addresses of ``FILE:LINE``, the function around an address and where its prologue ends (GDB's
``skip_prologue_sal``), the inlined calls (``DW_TAG_inlined_subroutine``) around an address,
global and local variables with their C types (the evaluator's ``tdbg.expr.CType``), and a
backtrace in which an inlined call is a frame of its own, as GDB shows it.  Unwinding uses the ``.eh_frame`` call-frame
information the toolchain emits for every function; code without it is unwound along the
``s0`` frame-pointer chain (``ra`` at ``s0-4``, the caller's ``s0`` at ``s0-8``).

The compile unit of the toolchain's runtime (zig's ``compiler_rt``) is left out: its functions
count as code without line information, so ``step`` steps over them.  Line-table sequences that
do not start in an executable section (garbage-collected code left at address 0) are dropped.
"""

from __future__ import annotations

import bisect
import io
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from typing import TYPE_CHECKING

from tdbg.cxxnames import demangle, drop_return_type, name_matches, remove_params
from tdbg.emu.elf import ElfImage
from tdbg.expr.ctype import (
    VOID, CField, CType, Details, Kind, Method, array_of, declaration, function_type, pointer_to, qualified,
    reference_to, type_name, typedef,
)
from tdbg.riscv import FP, RA, SP
from tdbg.sourcepath import SourcePath

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.callframe import FDE, RegisterRule
    from elftools.dwarf.die import DIE
    from elftools.dwarf.dwarf_expr import DWARFExprParser
    from elftools.dwarf.dwarfinfo import DWARFInfo
    from elftools.dwarf.locationlists import LocationParser

RUNTIME_CU = "compiler_rt"
MAX_FRAMES = 64
CALLEE_SAVED = (SP, 8, 9, *range(18, 28))   # sp, s0-s11 (RISC-V psABI)


@dataclass(frozen=True)
class LineInfo:
    file: Path
    line: int
    addr: int     # start of the line-table row


@dataclass(frozen=True)
class Site:
    """One breakpoint location: its ``address``, the full name of the function it is in (GDB's
    ``sal.symbol``: the function named, or the innermost one, an inlined callee included), and
    the line GDB reports for it."""

    address: int
    function: str | None
    line: LineInfo | None = None


@dataclass(frozen=True)
class SymbolEntry:
    """One line of ``info functions`` / ``variables`` / ``types``: the name a regular expression
    is matched against (GDB's search name), the file and line it is listed under, its
    declaration as printed, and GDB's block (0 global, 1 static) for the order."""

    name: str
    file: str
    line: int | None
    text: str
    block: int


@dataclass(frozen=True)
class Row:
    """One line-table row and the addresses it covers, ``[addr, end)``."""

    addr: int
    end: int
    file: Path
    line: int     # 0: code the compiler attributes to no line
    is_stmt: bool
    prologue_end: bool = False   # a line-table entry at addr marks the end of a prologue
    repeated: bool = False       # two entries of this file with a line at addr (GDB: no prologue)


@dataclass(frozen=True)
class Function:
    """A function with code of its own.  ``name`` is GDB's search name: the qualified name
    without parameters (``ckernel::math::set_dst_write_addr``, ``main``); ``physname`` GDB's
    full name (``ckernel::math::set_dst_write_addr(unsigned int)``, the C name in C)."""

    name: str
    low: int
    high: int                 # one past the last byte
    file: Path | None         # where it is declared
    line: int | None
    die: DIE | None = field(default=None, compare=False, repr=False)
    physname: str = ""

    @property
    def full_name(self) -> str:
        return self.physname or self.name


@dataclass(frozen=True)
class InlinedCall:
    """One inlined call (``DW_TAG_inlined_subroutine``): the callee's ``name``, the address
    ``ranges`` of its code, where GDB says it starts (``entry``: ``DW_AT_entry_pc``, else the
    first range), the call site, and how deeply it is nested in its function (0: called by the
    function's own code)."""

    name: str
    ranges: tuple[tuple[int, int], ...]
    entry: int
    call_file: Path | None
    call_line: int | None
    depth: int
    die: DIE = field(compare=False, repr=False)
    physname: str = ""        # the callee's full name (``Function.physname``)

    def covers(self, pc: int) -> bool:
        return any(lo <= pc < hi for lo, hi in self.ranges)


@dataclass(frozen=True)
class Piece:
    """One part of a composite location (DWARF 5 section 2.6.1.2, ``DW_OP_piece`` /
    ``DW_OP_bit_piece``): ``bits`` of the object, taken from bit ``offset`` of memory at ``addr``,
    of register ``register``, or of ``value`` (a stack value's integer, an implicit value's
    bytes); all three None: the part is optimized out (an empty piece)."""

    bits: int
    offset: int = 0
    addr: int | None = None
    register: int | None = None
    value: int | bytes | None = None


@dataclass(frozen=True)
class Variable:
    """Where a variable lives: ``addr`` (memory), ``register`` (x<n>), ``value`` (a constant, a
    DWARF stack value, an implicit value's bytes) or ``pieces`` (a composite location); all
    None means optimized out."""

    name: str
    addr: int | None
    type: CType
    register: int | None = None
    value: int | bytes | None = None
    param: bool = False
    entry: int | None = None   # a parameter's value at the function's entry, when the caller's call site says
    pieces: tuple[Piece, ...] = ()


@dataclass(frozen=True)
class Frame:
    level: int
    pc: int
    function: str | None
    file: Path | None
    line: int | None
    cfa: int                   # sp before the call that made this frame (= sp after it returns)
    sp: int
    fp: int | None             # s0
    regs: dict[int, int] = field(default_factory=dict, compare=False, repr=False)  # registers known here
    caller: bool = False       # pc is a return address (a frame that called another)
    block: InlinedCall | None = None  # the inlined call this frame runs (None: the function itself)
    calls_inline: bool = False  # its file:line is the call site of an inlined callee

    @property
    def lookup_pc(self) -> int:
        """The address that names the frame's line: a caller's return address may already be
        on the next line, so callers are looked up one byte before it (as GDB does)."""
        return self.pc - 1 if self.caller else self.pc


class _Fde:
    """One FDE of ``.eh_frame``: its range, and its CFI table, decoded when first asked for."""

    def __init__(self, entry: FDE) -> None:
        self.low = entry["initial_location"]
        self.high = self.low + entry["address_range"]
        self._entry = entry
        self._table: tuple[list[int], list[dict]] | None = None

    def row(self, pc: int) -> dict:
        """The CFI row in effect at ``pc``."""
        if self._table is None:
            rows = self._entry.get_decoded().table
            self._table = [r["pc"] for r in rows], rows
        pcs, rows = self._table
        return rows[bisect.bisect_right(pcs, pc) - 1]


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


class DebugInfo:
    """Line table, functions, variables and unwind tables of one ELF, read when a question first
    needs them: nothing when the program is loaded; a compile unit's line table and functions
    when an address in it is asked about (the units' address ranges, from their top DIEs, are
    the index), every unit for questions by name or file; ``.eh_frame`` at the first unwind and
    each FDE's table when its code is unwound; variables and types when first looked up.  A
    corrupt part raises when it is read (the session turns that into one line)."""

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

    @classmethod
    def load(cls, program: str | Path | ElfImage) -> DebugInfo | None:
        """The debug information of a loaded ELF (read from the bytes it was loaded from, when
        first needed) or of an ELF file; None when it has no DWARF ``.debug_info``."""
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
        for unit in new:
            unit.rows = self._unit_rows(unit.cu)
            unit.functions = self._unit_functions(unit.cu)
            self._rows.extend(unit.rows)
            self._functions.extend(unit.functions)
        self._rows.sort(key=lambda r: r.addr)
        self._row_starts = [r.addr for r in self._rows]
        self._functions.sort(key=lambda f: f.low)
        self._function_starts = [f.low for f in self._functions]
        self._by_name = {f.name: f for f in reversed(self._functions)}

    def _read_at(self, low: int, high: int | None = None) -> None:
        """Read the units that may hold code in ``[low, high)`` (default: the byte at ``low``)."""
        high = low + 1 if high is None else high
        self._read(unit for unit in self._units if unit.covers(low, high))

    def _read_all(self) -> None:
        self._read(self._units)

    @cached_property
    def _fdes(self) -> list[_Fde]:
        fdes = []
        if self._dwarf.has_EH_CFI():
            from elftools.dwarf.callframe import FDE

            fdes = [_Fde(entry) for entry in self._dwarf.EH_CFI_entries() if isinstance(entry, FDE)]
        fdes.sort(key=lambda f: f.low)
        return fdes

    @cached_property
    def _fde_starts(self) -> list[int]:
        return [f.low for f in self._fdes]

    # -- reading ------------------------------------------------------------------------------
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
        return f"{_qualified(die)}({', '.join(type_name(t) for t in params)})"

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

    # -- lines ------------------------------------------------------------------------------------
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
        name ``wanted`` names (``tdbg.cxxnames.name_matches``: scopes, template arguments and
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

    # -- functions --------------------------------------------------------------------------------
    def function_at(self, addr: int) -> Function | None:
        """The DWARF function containing ``addr``."""
        self._read_at(addr)
        return _containing(self._functions, self._function_starts, addr)

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

    # -- inlined calls --------------------------------------------------------------------------
    def inlined_calls(self, function: Function) -> list[InlinedCall]:
        """Every inlined call in ``function`` (nested ones too), outermost first."""
        calls = self._inlined.get(function.low)
        if calls is None:
            calls = []
            if function.die is not None:
                self._collect_inlined(function.die, 0, calls)
            self._inlined[function.low] = calls
        return calls

    def _collect_inlined(self, die: DIE, depth: int, out: list[InlinedCall]) -> None:
        for child in die.iter_children():
            if child.tag == "DW_TAG_inlined_subroutine":
                ranges = _die_ranges(child)
                if ranges:
                    attrs = child.attributes
                    entry = attrs["DW_AT_entry_pc"].value if "DW_AT_entry_pc" in attrs and attrs["DW_AT_entry_pc"].form == "DW_FORM_addr" else ranges[0][0]
                    call_file = None
                    if "DW_AT_call_file" in attrs:
                        call_file = self._file_names(child.cu).get(attrs["DW_AT_call_file"].value)
                    call_line = attrs["DW_AT_call_line"].value if "DW_AT_call_line" in attrs else None
                    physname = self._physname(child)
                    out.append(InlinedCall(remove_params(physname), tuple(ranges), entry, call_file, call_line, depth, child,
                                           physname))
                self._collect_inlined(child, depth + 1, out)
            elif child.tag == "DW_TAG_lexical_block":
                self._collect_inlined(child, depth, out)

    def calls_made_in(self, function: Function, block: InlinedCall | None) -> list[InlinedCall]:
        """The inlined calls made directly by ``block``'s code (None: the function's own)."""
        depth = 0 if block is None else block.depth + 1
        return [c for c in self.inlined_calls(function)
                if c.depth == depth and (block is None or block.covers(c.entry))]

    def inline_chain(self, pc: int) -> list[InlinedCall]:
        """The inlined calls whose code ``pc`` is in, innermost first."""
        function = self.function_at(pc)
        if function is None:
            return []
        return sorted((c for c in self.inlined_calls(function) if c.covers(pc)), key=lambda c: -c.depth)

    def hidden_inline_frames(self, pc: int, stopped_for: Sequence[str | None] = ()) -> int:
        """GDB's ``skip_inline_frames`` at a stop: how many inlined calls, innermost first, start
        at ``pc``; their frames are not shown until ``step`` enters them (the stop shows the
        caller at the call site).  ``stopped_for``: the functions of the breakpoint locations
        that made the stop (``Site.function``); as GDB's ``stopped_by_user_bp_inline_frame``,
        an inlined call of one of them is shown, and so is every call when a location names
        no function (``break *ADDRESS``)."""
        count = 0
        for call in self.inline_chain(pc):
            if not self.starts_at(call, pc) or None in stopped_for or call.physname in stopped_for:
                break
            count += 1
        return count

    def starts_at(self, call: InlinedCall, pc: int) -> bool:
        """Is ``pc`` where ``call`` is entered: its entry, or an address whose preceding
        instruction is not in it (GDB's ``block_starting_point_at``)?"""
        return call.covers(pc) and (pc == call.entry or call not in self.inline_chain(pc - 1))

    # -- where symbols are (GDB's info scope, info address) -----------------------------------------
    def scope_symbols(self, pc: int, scope: bool = True) -> list[tuple[str, str, int]]:
        """The variables of the block around ``pc`` and of each block around it up to its
        function (GDB's ``info scope``): (name, where it is as GDB's ``describe_location`` says
        it, size in bytes); ``scope``: a constant in ``info scope``'s words."""
        found: list[tuple[str, str, int]] = []
        chain: list[DIE] = []
        block = self.block_at(pc)
        while block is not None:
            chain.append(block)
            if block.tag == "DW_TAG_subprogram":
                break
            block = block.get_parent()
        for die in chain:
            for child in die.iter_children():
                if child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") and _name(child):
                    declared = _origin(child, "DW_AT_type")
                    size = self._type(declared.get_DIE_from_attribute("DW_AT_type")).size if declared is not None else 0
                    found.append((_name(child) or "", self.describe_location(child, scope), size))
        return found

    def describe_location(self, die: DIE, scope: bool = False) -> str:
        """Where a variable is, in GDB 13's words (``info address``; ``scope``: ``info scope``'s
        for a constant): ``a variable in $a0``, ``a variable at frame base reg $fp offset
        0+-20``, ``static storage at address 0x...``, ``multi-location:`` and its ranges, ...
        (GDB's ``locexpr_describe_location_1`` and ``loclist_describe_location``)."""
        from elftools.dwarf.locationlists import BaseAddressEntry

        attrs = die.attributes
        if "DW_AT_const_value" in attrs:
            value = _const_value(attrs["DW_AT_const_value"])
            if not isinstance(value, int):
                return "constant bytes"
            return f"a constant with value {value} ({value:#x})" if scope else "constant"
        if "DW_AT_location" not in attrs:
            return "optimized out"
        frame_base = None
        parent = die.get_parent()
        while parent is not None and parent.tag != "DW_TAG_subprogram":
            parent = parent.get_parent()
        if parent is not None and "DW_AT_frame_base" in parent.attributes:
            frame_base = self._expr.parse_expr(parent.attributes["DW_AT_frame_base"].value)
        parsed = self._locations.parse_from_attribute(attrs["DW_AT_location"], die.cu.header.version, die)
        if hasattr(parsed, "loc_expr"):
            return self._describe_expr(self._expr.parse_expr(parsed.loc_expr), frame_base)
        base = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base_addr = base.value if base is not None else 0
        text = "multi-location:\n"
        for entry in parsed:
            if isinstance(entry, BaseAddressEntry):   # GDB says it (of code moved by -o: before the move)
                base_addr = entry.base_address
                text += f"  Base address {base_addr:#x}"
                continue
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base_addr + entry.begin_offset, base_addr + entry.end_offset)
            text += f"  Range {lo:#x}-{hi:#x}: {self._describe_expr(self._expr.parse_expr(entry.loc_expr), frame_base)}\n"
        return text

    def _describe_expr(self, ops: list, frame_base: list | None) -> str:
        """One location expression as GDB describes it, piece by piece."""
        if not any(op.op_name == "DW_OP_piece" for op in ops):
            return _describe_simple(ops, frame_base)
        parts, part = [], []
        for op in ops:
            if op.op_name != "DW_OP_piece":
                part.append(op)
                continue
            size = op.args[0]
            if not part:
                parts.append(f"an empty {size}-byte piece")
            else:
                text = _describe_simple(part, frame_base)
                parts.append(f"{text}{'    ' if text.endswith(chr(10)) else ' '}[{size}-byte piece]")
            part = []
        return ", and ".join(parts)

    def function_type(self, function: Function) -> CType | None:
        """The C type of ``function`` (``void (int, float, float)``); None without DWARF."""
        if function.die is None:
            return None
        return function_type(self.return_type(function) or VOID, self._params(function.die))

    def _params(self, die: DIE) -> tuple[CType, ...] | None:
        """Parameter types of a subprogram or subroutine type; None when unprototyped."""
        types = tuple(self._type(c.get_DIE_from_attribute("DW_AT_type")) for c in die.iter_children()
                      if c.tag == "DW_TAG_formal_parameter" and "DW_AT_type" in c.attributes)
        prototyped = "DW_AT_prototyped" in die.attributes or (
            "DW_AT_specification" in die.attributes and "DW_AT_prototyped" in die.get_DIE_from_attribute("DW_AT_specification").attributes)
        return types if types or prototyped else None

    def return_type(self, function: Function) -> CType | None:
        """What ``function`` returns; None for void (or without DWARF)."""
        if function.die is None or "DW_AT_type" not in function.die.attributes:
            return None
        return self._type(function.die.get_DIE_from_attribute("DW_AT_type"))

    # -- variables ------------------------------------------------------------------------------------
    def global_variable(self, name: str) -> Variable:
        """A variable defined at file or namespace scope, by its (qualified, in C++) name."""
        if self._globals is None:
            self._globals = {}
            for die in self._global_dies("DW_TAG_variable"):
                if "DW_AT_type" in die.attributes or "DW_AT_specification" in die.attributes:
                    var = self._variable(die, 0, {}, None)
                    if var is not None and (var.addr is not None or var.value is not None):
                        self._globals.setdefault(_scoped_name(die), replace(var, name=_scoped_name(die)))
        try:
            return self._globals[name]
        except KeyError:
            raise KeyError(f'No symbol "{name}" in current context.') from None

    def locals_at(self, frame: Frame, caller: Frame | None = None) -> list[Variable]:
        """Parameters (``param``) and locals in scope at ``frame`` (of its inlined call, for an
        inline frame), innermost block first; their addresses use the frame's registers and
        CFA.  With the ``caller`` frame, values the compiler left only as entry values
        (``DW_OP_entry_value``) are resolved through the caller's call site, and each parameter
        of a real frame gets its value at entry (``Variable.entry``) where the call site gives
        it, as GDB does."""
        pc = frame.lookup_pc
        function = self.function_at(pc)
        if function is None or function.die is None:
            return []
        scope = frame.block.die if frame.block is not None else function.die
        scopes: list[list[Variable]] = []
        entry = (lambda reg: self._entry_value(reg, caller)) if caller is not None and frame.block is None else None

        def visit(die: DIE) -> None:
            here: list[Variable] = []
            concrete: set[int] = set()
            for child in die.iter_children():
                if child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") and _name(child):
                    var = self._variable(child, pc, frame.regs, frame.cfa, function.die, entry)
                    if var is not None:
                        here.append(var)
                    if "DW_AT_abstract_origin" in child.attributes:
                        concrete.add(child.get_DIE_from_attribute("DW_AT_abstract_origin").offset)
                elif child.tag == "DW_TAG_lexical_block" and _die_covers(child, pc):
                    visit(child)
            if "DW_AT_abstract_origin" in die.attributes:   # GDB's inherit_abstract_dies: the rest of
                for child in die.get_DIE_from_attribute("DW_AT_abstract_origin").iter_children():   # the origin's
                    if (child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") and _name(child)
                            and child.offset not in concrete and "DW_AT_artificial" not in child.attributes):
                        var = self._variable(child, pc, frame.regs, frame.cfa, function.die)
                        if var is not None:
                            here.append(replace(var, addr=None, register=None, value=None, entry=None, pieces=()))
            scopes.append(here)

        visit(scope)
        return [v for block in scopes for v in block]

    def _variable(self, die: DIE, pc: int, regs: Mapping[int, int], cfa: int | None,
                  function: DIE | None = None, entry: Callable[[int], int | None] | None = None) -> Variable | None:
        attrs = die.attributes
        declared = _origin(die, "DW_AT_type")  # an inlined copy names its type through its origin
        if declared is None:
            return None
        ctype = self._type(declared.get_DIE_from_attribute("DW_AT_type"))
        param = die.tag == "DW_TAG_formal_parameter"
        name = _name(die) or ""
        if "DW_AT_const_value" in attrs:
            return Variable(name, None, ctype, value=_const_value(attrs["DW_AT_const_value"]), param=param)
        if "DW_AT_location" not in attrs:
            return Variable(name, None, ctype, param=param)
        expr = self._location_expr(attrs["DW_AT_location"], die, pc)
        at_entry = None
        if param and entry is not None and function is not None and "DW_AT_low_pc" in function.attributes:
            first = self._location_expr(attrs["DW_AT_location"], die, function.attributes["DW_AT_low_pc"].value)
            reg = _register_location(self._expr.parse_expr(first)) if first is not None else None
            at_entry = entry(reg) if reg is not None else None
        if expr is not None and (reg := _entry_value_register(self._expr.parse_expr(expr))) is not None:
            value = entry(reg) if entry is not None else None       # DW_OP_entry_value(DW_OP_regN)
            return Variable(name, None, ctype, value=value, param=param, entry=value if param else None)
        where = self._locate(self._expr.parse_expr(expr), regs, cfa, function) if expr is not None else None
        if where is None or (len(where) == 1 and where[0].bits == 0):   # not a composite: the whole object
            found = where[0] if where else Piece(0)
            return Variable(name, found.addr, ctype, register=found.register, value=found.value, param=param,
                            entry=at_entry)
        return Variable(name, None, ctype, param=param, entry=at_entry, pieces=where)

    def _entry_value(self, reg: int, caller: Frame) -> int | None:
        """The value register ``reg`` had when the function of a frame was entered, from the
        call site its caller made (``DW_TAG_call_site`` at the return address ``caller.pc``,
        its ``DW_TAG_call_site_parameter`` for ``reg``, evaluated in the caller's frame); None
        when the call site does not say."""
        site = self._call_sites(caller.pc - 1).get(caller.pc)
        if site is None:
            return None
        for param in site.iter_children():
            if param.tag not in ("DW_TAG_call_site_parameter", "DW_TAG_GNU_call_site_parameter"):
                continue
            location = param.attributes.get("DW_AT_location")
            value = param.attributes.get("DW_AT_call_value") or param.attributes.get("DW_AT_GNU_call_site_value")
            if location is None or value is None or _register_location(self._expr.parse_expr(location.value)) != reg:
                continue
            return _value_expression(self._expr.parse_expr(value.value), caller.regs, caller.cfa)
        return None

    def _call_sites(self, pc: int) -> dict[int, DIE]:
        """The call sites in the function around ``pc``, by return address."""
        function = self.function_at(pc)
        if function is None or function.die is None:
            return {}
        sites = self._sites.get(function.low)
        if sites is None:
            sites = self._sites[function.low] = {}
            pending = [function.die]
            while pending:
                for child in pending.pop().iter_children():
                    if child.tag in ("DW_TAG_call_site", "DW_TAG_GNU_call_site"):
                        pc_attr = child.attributes.get("DW_AT_call_return_pc") or child.attributes.get("DW_AT_low_pc")
                        if pc_attr is not None:
                            sites[pc_attr.value] = child
                    elif child.has_children:
                        pending.append(child)
        return sites

    def _location_expr(self, attr, die: DIE, pc: int) -> list[int] | None:
        """The location expression in effect at ``pc`` (location lists pick one entry)."""
        from elftools.dwarf.locationlists import BaseAddressEntry

        parsed = self._locations.parse_from_attribute(attr, die.cu.header.version, die)
        if hasattr(parsed, "loc_expr"):
            return parsed.loc_expr
        base = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base_addr = base.value if base is not None else 0
        for entry in parsed:
            if isinstance(entry, BaseAddressEntry):
                base_addr = entry.base_address
                continue
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base_addr + entry.begin_offset, base_addr + entry.end_offset)
            if lo <= pc < hi:
                return entry.loc_expr
        return None

    def _locate(self, ops: list, regs: Mapping[int, int], cfa: int | None,
                function: DIE | None) -> tuple[Piece, ...] | None:
        """The pieces of a location description (DWARF 5 section 2.6): one ``Piece`` of 0 bits for
        a location that is not composite, one per ``DW_OP_piece`` / ``DW_OP_bit_piece`` for one
        that is; None when it cannot be computed here."""
        pieces: list[Piece] = []
        part: list = []
        for op in ops:
            if op.op_name not in ("DW_OP_piece", "DW_OP_bit_piece"):
                part.append(op)
                continue
            bits, offset = (8 * op.args[0], 0) if op.op_name == "DW_OP_piece" else (op.args[0], op.args[1])
            found = self._simple_location(part, regs, cfa, function)
            pieces.append(replace(found, bits=bits, offset=offset) if found is not None else Piece(bits))
            part = []
        if pieces:
            return tuple(pieces) if not part else None
        found = self._simple_location(part, regs, cfa, function)
        return (found,) if found is not None else None

    def _simple_location(self, ops: list, regs: Mapping[int, int], cfa: int | None,
                         function: DIE | None) -> Piece | None:
        """A location that is not composite (DWARF 5 section 2.6.1.1): empty (optimized out),
        a register (``DW_OP_regN``), an implicit value (``DW_OP_implicit_value``, a DWARF
        expression ending in ``DW_OP_stack_value``) or a memory address (``DW_OP_addr``,
        ``DW_OP_fbreg``, ``DW_OP_bregN``, arithmetic); None when it needs what is not known here."""
        if not ops:
            return Piece(0)
        if (reg := _register_location(ops)) is not None:
            return Piece(0, register=reg)
        if len(ops) == 1 and ops[0].op_name == "DW_OP_implicit_value":
            return Piece(0, value=bytes(ops[0].args[-1]))
        if ops[-1].op_name == "DW_OP_stack_value":
            value = _value_expression(ops[:-1], regs, cfa)
            return Piece(0, value=value) if value is not None else None
        start = None
        if ops[0].op_name == "DW_OP_fbreg":
            if function is None or "DW_AT_frame_base" not in function.attributes:
                return None
            base = self._frame_base(function.attributes["DW_AT_frame_base"].value, regs, cfa)
            if base is None:
                return None
            start, ops = base + ops[0].args[0], ops[1:]
        addr = _value_expression(ops, regs, cfa, start)
        return Piece(0, addr=addr & 0xFFFFFFFF) if addr is not None else None

    def _frame_base(self, expr: list[int], regs: Mapping[int, int], cfa: int | None) -> int | None:
        ops = self._expr.parse_expr(expr)
        if len(ops) != 1:
            return None
        op = ops[0]
        if op.op_name == "DW_OP_call_frame_cfa":
            return cfa
        if op.op_name.startswith(("DW_OP_reg", "DW_OP_breg")):
            reg = _reg_number(op)
            offset = op.args[-1] if op.op_name.startswith("DW_OP_breg") else 0
            return regs[reg] + offset if reg in regs else None
        return None

    # -- the symbol tables (GDB's info functions / variables / types) ------------------------------
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

    # -- types -----------------------------------------------------------------------------------
    def lookup_type(self, name: str) -> CType | None:
        """The file-scope type spelled ``name`` (``"uint32_t"``, ``"struct node"``, ``"enum mode"``),
        from its definition rather than a declaration; None if the program has none."""
        if self._type_dies is None:
            self._type_dies = {}
            for die in self._global_dies(*_TYPE_TAGS):
                spelled = _type_spelling(die)
                if spelled is not None and "DW_AT_declaration" not in die.attributes:
                    self._type_dies.setdefault(spelled, die)
        die = self._type_dies.get(name)
        return self._type(die) if die is not None else None

    def _type(self, die: DIE) -> CType:
        """The type of a DWARF type DIE, qualifiers dropped; enums are integers.  A struct
        reached again while its members are read (``struct node { struct node *next; }``) is
        its incomplete shell, which the evaluator completes through ``lookup_type``."""
        cached = self._types.get(die.offset)
        if cached is not None:
            return cached
        attrs = die.attributes
        tag = die.tag
        inner = self._type(die.get_DIE_from_attribute("DW_AT_type")) if "DW_AT_type" in attrs else None
        if tag in ("DW_TAG_const_type", "DW_TAG_volatile_type"):
            return self._remember(die, qualified(inner or VOID, "const" if tag == "DW_TAG_const_type" else "volatile"))
        if tag in ("DW_TAG_restrict_type", "DW_TAG_atomic_type"):
            return self._remember(die, inner or VOID)
        if tag == "DW_TAG_typedef":
            return self._remember(die, typedef(_name(die) or "?", inner or VOID))
        if tag == "DW_TAG_pointer_type":
            return self._remember(die, pointer_to(inner or VOID))
        if tag in ("DW_TAG_reference_type", "DW_TAG_rvalue_reference_type"):
            return self._remember(die, reference_to(inner or VOID))
        if tag == "DW_TAG_array_type":
            counts = [_subrange_count(c) for c in die.iter_children() if c.tag == "DW_TAG_subrange_type"] or [None]
            element = inner or VOID
            for count in reversed(counts):
                element = array_of(element, count or 0)
            return self._remember(die, element)
        if tag in ("DW_TAG_structure_type", "DW_TAG_union_type", "DW_TAG_class_type"):
            shell = CType(_type_spelling(die) or f"{_TAGS[tag]} {{...}}", _size(die), Kind.STRUCT)
            self._types[die.offset] = shell  # while the members are read
            fields = tuple(self._field(c) for c in die.iter_children()
                           if c.tag in _FIELD_TAGS and "DW_AT_type" in c.attributes)
            self._types[die.offset] = ctype = replace(shell, fields=fields, details=self._class_details(die))
            return ctype
        if tag == "DW_TAG_enumeration_type":
            scope = f"{_qualified(die)}::" if "DW_AT_enum_class" in attrs else ""
            enumerators = tuple((scope + (_name(c) or "?"),
                                 c.attributes["DW_AT_const_value"].value)
                                for c in die.iter_children() if c.tag == "DW_TAG_enumerator" and "DW_AT_const_value" in c.attributes)
            details = Details("enum", enumerators=enumerators, scoped="DW_AT_enum_class" in attrs, underlying=inner,
                              cplus=_is_cplus(die.cu))
            return self._remember(die, CType(_type_spelling(die) or "enum {...}", _size(die), Kind.INT,
                                             signed=inner is not None and inner.signed, details=details))
        if tag == "DW_TAG_base_type":
            encoding = attrs["DW_AT_encoding"].value if "DW_AT_encoding" in attrs else 0
            kind = {_DW_ATE_BOOLEAN: Kind.BOOL, _DW_ATE_FLOAT: Kind.FLOAT}.get(encoding, Kind.INT)
            return self._remember(die, CType(_name(die) or "?", _size(die), kind, signed=encoding in _SIGNED))
        if tag == "DW_TAG_subroutine_type":
            return self._remember(die, function_type(inner or VOID, self._params(die)))
        return self._remember(die, CType(_name(die) or "?", _size(die)))

    def _field(self, die: DIE) -> CField:
        """A member of a struct, union or class: a data member, a base class
        (``DW_TAG_inheritance``) or a static member (a ``DW_TAG_member`` declaration in DWARF 4,
        a ``DW_TAG_variable`` in DWARF 5), whose value is its ``DW_AT_const_value`` or the object
        its definition (a variable whose ``DW_AT_specification`` is the member) is at."""
        ctype = self._type(die.get_DIE_from_attribute("DW_AT_type"))
        if die.tag == "DW_TAG_inheritance":
            return CField(type_name(ctype), _member_offset(die), ctype, _access(die), role="base")
        if die.tag == "DW_TAG_variable" or "DW_AT_declaration" in die.attributes:
            const = die.attributes.get("DW_AT_const_value")
            return CField(_name(die) or "", 0, ctype, _access(die), role="static",
                          value=_const_value(const) if const is not None else None,
                          address=self._static_definitions().get(die.offset))
        return CField(_name(die) or "", _member_offset(die), ctype, _access(die))

    def _static_definitions(self) -> dict[int, int]:
        """The addresses of static members' definitions, by the offset of their declaration."""
        if self._statics is None:
            self._statics = {}
            for die in self._global_dies("DW_TAG_variable"):
                if "DW_AT_specification" in die.attributes and "DW_AT_location" in die.attributes:
                    expr = self._location_expr(die.attributes["DW_AT_location"], die, 0)
                    where = self._locate(self._expr.parse_expr(expr), {}, None, None) if expr is not None else None
                    if where is not None and len(where) == 1 and where[0].addr is not None:
                        self._statics[die.get_DIE_from_attribute("DW_AT_specification").offset] = where[0].addr
        return self._statics

    def _class_details(self, die: DIE) -> Details:
        """A struct's, union's or class's C++ side: its class key, member functions (not the
        compiler's), type template parameters."""
        keyword = {"DW_TAG_class_type": "class", "DW_TAG_union_type": "union"}.get(die.tag, "struct")
        if not _is_cplus(die.cu):
            return Details(keyword)
        methods, template, typedefs = [], [], []
        for child in die.iter_children():
            if child.tag == "DW_TAG_typedef" and "DW_AT_type" in child.attributes:
                typedefs.append((_name(child) or "?", self._type(child.get_DIE_from_attribute("DW_AT_type")), _access(child)))
            if child.tag == "DW_TAG_subprogram" and _name(child) and "DW_AT_artificial" not in child.attributes:
                params = [c for c in child.iter_children() if c.tag == "DW_TAG_formal_parameter" and "DW_AT_type" in c.attributes]
                this = next((p for p in params if "DW_AT_artificial" in p.attributes), None)
                const = this is not None and "const" in type_name(self._type(this.get_DIE_from_attribute("DW_AT_type")))
                returns = self._type(child.get_DIE_from_attribute("DW_AT_type")) if "DW_AT_type" in child.attributes else VOID
                methods.append(Method(_name(child) or "", returns,
                                      tuple(self._type(p.get_DIE_from_attribute("DW_AT_type")) for p in params if p is not this),
                                      _access(child), const, static=this is None))
            elif child.tag == "DW_TAG_template_type_param" and "DW_AT_type" in child.attributes:
                template.append((_name(child) or "?", self._type(child.get_DIE_from_attribute("DW_AT_type"))))
        return Details(keyword, tuple(methods), tuple(template), cplus=True, typedefs=tuple(typedefs))

    def _remember(self, die: DIE, ctype: CType) -> CType:
        """Cache ``ctype`` unless it is an incomplete struct: a typedef or qualifier of a struct
        whose members are being read is complete when looked up later."""
        if ctype.kind is not Kind.STRUCT or ctype.fields:
            self._types[die.offset] = ctype
        return ctype

    # -- unwinding ---------------------------------------------------------------------------------
    def frames(self, pc: int, regs: Sequence[int] | Mapping[int, int],
               read_u32: Callable[[int], int],
               stack_ranges: Iterable[tuple[int, int]], inline: bool = True, caller: bool = False) -> list[Frame]:
        """The backtrace from ``pc`` with registers ``regs`` (x0..x31): CFI where ``.eh_frame``
        covers the code, else the ``s0`` chain.  Stops at an undefined or zero return address,
        a frame outside ``stack_ranges``, a stack that does not grow, a saved value that cannot
        be read (GDB's "Backtrace stopped"), or 64 frames.  With ``inline``, each inlined call
        around a frame's pc is a frame of its own before it (same pc and registers; its caller's
        file:line is the call site), as GDB shows them.  ``caller``: ``pc`` is a return address
        (the backtrace goes on from another program's frame)."""
        ranges = list(stack_ranges)
        known = dict(enumerate(regs)) if isinstance(regs, Sequence) else dict(regs)
        out: list[Frame] = []
        level = 0
        while level < MAX_FRAMES:
            try:
                step = self._unwind(pc, known, read_u32, level, ranges)
            except Exception:  # noqa: BLE001  (read_u32 failed: the frames found so far stand)
                step = None
            returned = level > 0 or caller
            lookup = pc - 1 if returned else pc
            function = self.symbol_function_at(lookup)
            line = self.line_for(lookup)
            cfa = step[0] if step else known.get(SP, 0)
            file, number = (line.file, line.line) if line else (None, None)
            for call in self.inline_chain(lookup) if inline else []:  # innermost first
                out.append(Frame(len(out), pc, call.name, file, number, cfa, known.get(SP, 0), known.get(FP), known,
                                 returned, call, calls_inline=file != (line.file if line else None) or number != (line.line if line else None)))
                file, number = call.call_file, call.call_line
            out.append(Frame(len(out), pc, function.name if function else None, file, number, cfa, known.get(SP, 0),
                             known.get(FP), known, returned, None, calls_inline=bool(inline and self.inline_chain(lookup))))
            if step is None:
                break
            cfa, ra, caller = step
            frame = out[-1]
            if not ra or not _inside(cfa, ranges) or cfa < frame.sp or (cfa, ra) == (frame.sp, pc):
                break
            pc, known = ra, caller
            level += 1
        return out

    def saved_registers(self, frame: Frame) -> dict[int, int]:
        """Where the code of ``frame`` saved its caller's registers (register -> address), from
        its CFI row, else the ``s0`` chain (``ra`` at ``s0-4``, ``s0`` at ``s0-8``)."""
        from elftools.dwarf.callframe import RegisterRule

        fde = _containing(self._fdes, self._fde_starts, frame.lookup_pc)
        if fde is None:
            fp = frame.regs.get(FP)
            return {RA: fp - 4, FP: fp - 8} if fp else {}
        row = fde.row(frame.lookup_pc)
        return {reg: (frame.cfa + rule.arg) & 0xFFFFFFFF for reg, rule in sorted(row.items(), key=lambda item: str(item[0]))
                if isinstance(reg, int) and rule.type == RegisterRule.OFFSET}

    def cfa(self, pc: int, regs: Sequence[int], read_u32: Callable[[int], int],
            stack_ranges: Iterable[tuple[int, int]]) -> int:
        """The canonical frame address of the innermost frame (its sp before the call);
        ``stack_ranges`` as ``frames`` takes them (the core's own)."""
        step = self._unwind(pc, dict(enumerate(regs)), read_u32, 0, list(stack_ranges))
        return step[0] if step else regs[SP]

    def _unwind(self, pc: int, regs: dict[int, int], read_u32: Callable[[int], int], level: int,
                ranges: list[tuple[int, int]]) -> tuple[int, int | None, dict[int, int]] | None:
        """(CFA, return address, the caller's registers) of the frame at ``pc``."""
        lookup = pc if level == 0 else pc - 1
        fde = _containing(self._fdes, self._fde_starts, lookup)
        if fde is None:
            return self._unwind_fp(pc, regs, read_u32, level, ranges)
        row = fde.row(lookup)
        rule = row["cfa"]
        if rule.expr is not None or rule.reg not in regs:
            return None
        cfa = (regs[rule.reg] + rule.offset) & 0xFFFFFFFF
        caller = {r: v for r, v in regs.items() if r in CALLEE_SAVED}
        caller[SP] = cfa
        ra: int | None = regs.get(RA)
        for reg, reg_rule in row.items():
            if not isinstance(reg, int):
                continue
            value = _apply(reg, reg_rule, cfa, regs, read_u32, ranges)
            if reg == RA:
                ra = value
            elif value is None:
                caller.pop(reg, None)
            else:
                caller[reg] = value
        return cfa, ra, caller

    def _unwind_fp(self, pc: int, regs: dict[int, int], read_u32: Callable[[int], int], level: int,
                   ranges: list[tuple[int, int]]) -> tuple[int, int | None, dict[int, int]] | None:
        """The ``s0`` chain.  Before the prologue end of the innermost frame, ``ra`` is still in
        its register; ``s0`` is this frame's own once the prologue saved ``ra`` at ``s0-4``."""
        fp = regs.get(FP)
        function = self.function_at(pc)
        if level == 0 and function is not None and pc < self._prologue_end(function) and RA in regs:
            ra = regs[RA]
            if fp and _inside(fp - 8, ranges) and read_u32(fp - 4) == ra:
                return fp, ra, {SP: fp, FP: read_u32(fp - 8)}
            return regs[SP], ra, {SP: regs[SP], FP: fp} if fp is not None else {SP: regs[SP]}
        if not fp or not _inside(fp - 8, ranges):
            return None
        return fp, read_u32(fp - 4), {SP: fp, FP: read_u32(fp - 8)}


# -- helpers ------------------------------------------------------------------------------------
_DW_ATE_BOOLEAN = 0x02
_DW_ATE_FLOAT = 0x04
_SIGNED = {0x04, 0x05, 0x06, 0x0D}     # DW_ATE_float (as tdbg.expr's), signed, signed_char, signed_fixed
_TAGS = {"DW_TAG_structure_type": "struct", "DW_TAG_class_type": "struct", "DW_TAG_union_type": "union",
         "DW_TAG_enumeration_type": "enum"}
_TYPE_TAGS = (*_TAGS, "DW_TAG_typedef")
_FIELD_TAGS = ("DW_TAG_member", "DW_TAG_inheritance", "DW_TAG_variable")


def _scoped_name(die: DIE) -> str:
    """A variable's or label's name as GDB's symbol tables have it: qualified in C++."""
    return _qualified(die) if _is_cplus(die.cu) else (_name(die) or "")


def _cu_name(cu) -> str:
    attr = cu.get_top_DIE().attributes.get("DW_AT_name")
    return attr.value.decode(errors="replace") if attr is not None else ""


_CPLUS_LANGUAGES = {0x04, 0x19, 0x1A, 0x21}   # DW_LANG_C_plus_plus, _03, _11, _14
_SCOPES = ("DW_TAG_namespace", "DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type")


_ACCESS = {1: "public", 2: "protected", 3: "private"}


def _access(die: DIE) -> str:
    """A member's C++ access (DW_AT_accessibility; by default private in a class, else public,
    as DWARF 3 and later say)."""
    attr = die.attributes.get("DW_AT_accessibility")
    if attr is not None:
        return _ACCESS.get(attr.value, "public")
    parent = die.get_parent()
    return "private" if parent is not None and parent.tag == "DW_TAG_class_type" else "public"


def _is_cplus(cu) -> bool:
    """Is ``cu`` C++ (DW_AT_language)?"""
    attr = cu.get_top_DIE().attributes.get("DW_AT_language")
    return attr is not None and attr.value in _CPLUS_LANGUAGES


def _subprograms(die: DIE):
    """The subprogram DIEs with code under ``die``, also inside namespaces and classes."""
    for child in die.iter_children():
        if child.tag == "DW_TAG_subprogram":
            if "DW_AT_low_pc" in child.attributes:
                yield child
        elif child.tag in _SCOPES:
            yield from _subprograms(child)


def _linkage_name(die: DIE) -> str | None:
    """The linkage (mangled) name of ``die`` or of the declaration it completes or stands for."""
    for attr in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
        if attr in die.attributes and isinstance(die.attributes[attr].value, bytes):
            return die.attributes[attr].value.decode(errors="replace")
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _linkage_name(die.get_DIE_from_attribute(ref))
    return None


def _qualified(die: DIE) -> str:
    """``ns::Class::name`` of a DIE: its name after the names of the namespaces and classes
    around its declaration (an anonymous namespace is GDB's ``(anonymous namespace)``)."""
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _qualified(die.get_DIE_from_attribute(ref))
    parts = [_name(die) or "??"]
    parent = die.get_parent()
    while parent is not None and parent.tag in _SCOPES:
        parts.append(_name(parent) or ("(anonymous namespace)" if parent.tag == "DW_TAG_namespace" else "{...}"))
        parent = parent.get_parent()
    return "::".join(reversed(parts))


def _name(die: DIE) -> str | None:
    attr = die.attributes.get("DW_AT_name")
    if attr is not None:
        return attr.value.decode(errors="replace") if isinstance(attr.value, bytes) else None
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _name(die.get_DIE_from_attribute(ref))
    return None


def _origin(die: DIE, attribute: str) -> DIE | None:
    """``die``, or the DIE it stands for (``DW_AT_abstract_origin``), that has ``attribute``."""
    while attribute not in die.attributes:
        if "DW_AT_abstract_origin" not in die.attributes:
            return None
        die = die.get_DIE_from_attribute("DW_AT_abstract_origin")
    return die


def _type_spelling(die: DIE) -> str | None:
    """How the program's language names a type DIE: in C ``uint32_t``, ``struct node``,
    ``enum mode``; in C++ the qualified name without a keyword (``ckernel::Counter``); None if
    anonymous or not a named type."""
    name = _name(die)
    if name is None or (die.tag != "DW_TAG_typedef" and die.tag not in _TAGS):
        return None
    if _is_cplus(die.cu):
        return _qualified(die)
    return name if die.tag == "DW_TAG_typedef" else f"{_TAGS[die.tag]} {name}"


def _member_offset(die: DIE) -> int:
    loc = die.attributes.get("DW_AT_data_member_location")
    return loc.value if loc is not None and isinstance(loc.value, int) else 0


def _size(die: DIE) -> int:
    attr = die.attributes.get("DW_AT_byte_size")
    return attr.value if attr is not None else 0


def _subrange_count(die: DIE) -> int | None:
    attrs = die.attributes
    if "DW_AT_count" in attrs and isinstance(attrs["DW_AT_count"].value, int):
        return attrs["DW_AT_count"].value
    if "DW_AT_upper_bound" in attrs and isinstance(attrs["DW_AT_upper_bound"].value, int):
        return attrs["DW_AT_upper_bound"].value + 1
    return None


def _high_pc(die: DIE, low: int) -> int:
    attr = die.attributes.get("DW_AT_high_pc")
    if attr is None:
        return low + 1
    return attr.value if attr.form == "DW_FORM_addr" else low + attr.value


def _die_ranges(die: DIE) -> list[tuple[int, int]]:
    """The address ranges of a DIE (DW_AT_ranges, else DW_AT_low_pc/high_pc), in DWARF's order.
    A unit with DW_AT_ranges may also have DW_AT_low_pc: its lists' base address (DWARF 5
    section 2.17.3), often 0, not a range."""
    attrs = die.attributes
    if "DW_AT_ranges" not in attrs:
        if "DW_AT_low_pc" not in attrs:
            return []
        low = attrs["DW_AT_low_pc"].value
        return [(low, _high_pc(die, low))]
    dwarf = die.dwarfinfo
    entries = dwarf.range_lists().get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=die.cu)
    base_attr = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
    base = base_attr.value if base_attr is not None else 0
    out = []
    for entry in entries:
        if hasattr(entry, "base_address"):
            base = entry.base_address
        elif entry.begin_offset != entry.end_offset:
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base + entry.begin_offset, base + entry.end_offset)
            out.append((lo, hi))
    return out


def _die_covers(die: DIE, pc: int) -> bool:
    """Does a lexical block cover ``pc`` (one without addresses covers everything)?"""
    attrs = die.attributes
    if "DW_AT_low_pc" not in attrs and "DW_AT_ranges" not in attrs:
        return True
    return any(lo <= pc < hi for lo, hi in _die_ranges(die))


def _describe_simple(ops: list, frame_base: list | None) -> str:
    """A location that is not composite in GDB 13's words (``locexpr_describe_location_1``),
    else its disassembly (``disassemble_dwarf_expression``)."""
    from tdbg.riscv import ABI_NAMES

    if (reg := _register_location(ops)) is not None:
        return f"a variable in ${ABI_NAMES[reg]}"
    if len(ops) == 1 and ops[0].op_name == "DW_OP_addr":
        return f"static storage at address {ops[0].args[0]:#x}"
    if len(ops) == 1 and ops[0].op_name == "DW_OP_fbreg" and frame_base and len(frame_base) == 1 \
            and frame_base[0].op_name.startswith(("DW_OP_reg", "DW_OP_breg")):
        base = frame_base[0]
        offset = base.args[-1] if base.op_name.startswith("DW_OP_breg") else 0
        return f"a variable at frame base reg ${ABI_NAMES[_reg_number(base)]} offset {offset}+{ops[0].args[0]}"
    if len(ops) == 1 and ops[0].op_name.startswith("DW_OP_breg"):
        return f"a variable at offset {ops[0].args[-1]} from base reg ${ABI_NAMES[_reg_number(ops[0])]}"
    if len(ops) == 2 and ops[0].op_name.startswith("DW_OP_lit") and ops[1].op_name == "DW_OP_stack_value":
        return f"the constant {ops[0].op_name.removeprefix('DW_OP_lit')}"
    lines = []
    for op in ops:
        name = op.op_name
        if name.startswith("DW_OP_reg") and name != "DW_OP_regx":
            arg = f" [${ABI_NAMES[_reg_number(op)]}]"
        elif name.startswith("DW_OP_breg") and name != "DW_OP_bregx":
            arg = f" {op.args[-1]} [${ABI_NAMES[_reg_number(op)]}]"
        elif op.args and all(isinstance(a, int) for a in op.args):
            arg = "".join(f" {a}" for a in op.args)
        else:
            arg = ""
        lines.append(f"{op.offset - ops[0].offset:>6}: {name}{arg}\n")   # from the piece's start
    return "a complex DWARF expression:\n" + "".join(lines)


def _register_location(ops: list) -> int | None:
    """N of a location that is register N alone (``DW_OP_regN``), else None."""
    if len(ops) == 1 and ops[0].op_name.startswith("DW_OP_reg"):
        return _reg_number(ops[0])
    return None


def _entry_value_register(ops: list) -> int | None:
    """N of ``DW_OP_entry_value(DW_OP_regN) DW_OP_stack_value`` (the value register N had at the
    function's entry), else None."""
    if (len(ops) == 2 and ops[0].op_name in ("DW_OP_entry_value", "DW_OP_GNU_entry_value")
            and ops[1].op_name == "DW_OP_stack_value" and isinstance(ops[0].args[0], list)):
        return _register_location(ops[0].args[0])
    return None


_BINARY_OPS: dict[str, Callable[[int, int], int]] = {
    "DW_OP_plus": lambda a, b: a + b, "DW_OP_minus": lambda a, b: a - b, "DW_OP_mul": lambda a, b: a * b,
    "DW_OP_and": lambda a, b: a & b, "DW_OP_or": lambda a, b: a | b, "DW_OP_xor": lambda a, b: a ^ b,
    "DW_OP_shl": lambda a, b: a << b, "DW_OP_shr": lambda a, b: (a & 0xFFFFFFFF) >> b}


def _value_expression(ops: list, regs: Mapping[int, int], cfa: int | None, start: int | None = None) -> int | None:
    """The value a DWARF expression computes (a call site's ``DW_AT_call_value``, a stack
    value, an address) in a frame with registers ``regs`` (``x0`` is 0), on a stack holding
    ``start`` if given: literals, constants, registers (``DW_OP_regN``: its value,
    ``DW_OP_bregN``: value plus offset), ``DW_OP_call_frame_cfa``, ``plus_uconst`` and the
    arithmetic operators; None for anything that needs memory or is unknown here."""
    stack: list[int] = [] if start is None else [start]
    for op in ops:
        name = op.op_name
        if name.startswith("DW_OP_lit"):
            stack.append(int(name.removeprefix("DW_OP_lit")))
        elif name.startswith("DW_OP_const") or name == "DW_OP_addr":
            stack.append(op.args[0])
        elif name.startswith(("DW_OP_reg", "DW_OP_breg")):
            reg = _reg_number(op)
            if reg != 0 and reg not in regs:
                return None
            value = 0 if reg == 0 else regs[reg]
            stack.append(value + (op.args[-1] if name.startswith("DW_OP_breg") else 0))
        elif name == "DW_OP_call_frame_cfa" and cfa is not None:
            stack.append(cfa)
        elif name == "DW_OP_plus_uconst" and stack:
            stack.append(stack.pop() + op.args[0])
        elif name in _BINARY_OPS and len(stack) >= 2:
            b, a = stack.pop(), stack.pop()
            stack.append(_BINARY_OPS[name](a, b))
        elif name == "DW_OP_stack_value":
            break
        else:
            return None
    return stack[-1] & 0xFFFFFFFF if stack else None


def _const_value(attr) -> int | bytes:
    """``DW_AT_const_value``: an integer (its ``DW_FORM_data``/``sdata`` value) or the bytes of
    a block form (DWARF 5 section 2.19)."""
    value = attr.value
    return value if isinstance(value, int) else value.encode() if isinstance(value, str) else bytes(value)


def _reg_number(op) -> int:
    """N of DW_OP_regN / DW_OP_bregN (or their ...x forms)."""
    name = op.op_name
    if name in ("DW_OP_regx", "DW_OP_bregx"):
        return op.args[0]
    return int(name.removeprefix("DW_OP_breg").removeprefix("DW_OP_reg"))


def _apply(reg: int, rule: RegisterRule, cfa: int, regs: Mapping[int, int], read_u32: Callable[[int], int],
           ranges: list[tuple[int, int]]) -> int | None:
    """A caller's register value from its CFI rule; None when unknown."""
    from elftools.dwarf.callframe import RegisterRule

    if rule.type == RegisterRule.OFFSET:
        addr = (cfa + rule.arg) & 0xFFFFFFFF
        return read_u32(addr) if _inside(addr, ranges) else None
    if rule.type == RegisterRule.VAL_OFFSET:
        return (cfa + rule.arg) & 0xFFFFFFFF
    if rule.type == RegisterRule.REGISTER:
        return regs.get(rule.arg)
    if rule.type == RegisterRule.SAME_VALUE:
        return regs.get(reg)
    return None


def _inside(cfa: int, ranges: list[tuple[int, int]]) -> bool:
    """True when a frame with this CFA has its save area (the words below it) in a range."""
    return any(lo < cfa <= hi for lo, hi in ranges)


def _containing(items: list, starts: list[int], addr: int):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < items[i].high:
        return items[i]
    return None


def _file_names(cu, program) -> dict[int, Path]:
    """Line-program file index -> absolute path (DWARF 4 indexes from 1, DWARF 5 from 0)."""
    top = cu.get_top_DIE().attributes
    comp_dir = top["DW_AT_comp_dir"].value.decode(errors="replace") if "DW_AT_comp_dir" in top else ""
    header = program.header
    dirs = [d.decode(errors="replace") if isinstance(d, bytes) else d.DW_LNCT_path.decode(errors="replace")
            for d in header["include_directory"]]
    version5 = header["version"] >= 5
    out: dict[int, Path] = {}
    for i, entry in enumerate(header["file_entry"]):
        name = entry.name.decode(errors="replace")
        dir_index = entry.dir_index
        if version5:
            directory = dirs[dir_index] if dir_index < len(dirs) else comp_dir
        else:
            directory = dirs[dir_index - 1] if 0 < dir_index <= len(dirs) else comp_dir
        path = os.path.join(comp_dir, directory, name)
        out[i if version5 else i + 1] = Path(os.path.normpath(path))
    return out


def _recorded_names(cu, program) -> dict[Path, str]:
    """Each file of a line program (its absolute path) -> its name as recorded: the entry's
    name, after its directory entry when it names one (GDB's ``file_file_name``)."""
    header = program.header
    dirs = [d.decode(errors="replace") if isinstance(d, bytes) else d.DW_LNCT_path.decode(errors="replace")
            for d in header["include_directory"]]
    version5 = header["version"] >= 5
    absolute = _file_names(cu, program)
    out: dict[Path, str] = {}
    for i, entry in enumerate(header["file_entry"]):
        name = entry.name.decode(errors="replace")
        index = entry.dir_index if version5 else entry.dir_index - 1
        if not os.path.isabs(name) and 0 <= index < len(dirs):
            name = f"{dirs[index]}/{name}"
        path = absolute.get(i if version5 else i + 1)
        if path is not None:
            out.setdefault(path, name)
    return out


def _sequence_rows(states: list, files: dict[int, Path]) -> list[Row]:
    """The rows of one line-table sequence as GDB records them (``lnp_state_machine::
    record_line``): an entry with line 0 is dropped, and so is one that only switches file at
    the address of the previous entry without being a statement; each row ends where the next
    one starts.  Of several entries at one address the last one describes it; a
    ``prologue_end`` on any of them counts, and two entries with a line in the same file make
    the row ``repeated``."""
    kept: list = []
    for state in states[:-1]:
        last = kept[-1] if kept else None
        if state.line == 0:
            continue
        if last is not None and state.file != last.file and state.address == last.address and not state.is_stmt:
            continue
        kept.append(state)
    rows: list[Row] = []
    same: list = []
    for state, following in zip(kept, [*kept[1:], states[-1]]):
        same.append(state)
        if following.address == state.address and following is not states[-1]:
            continue
        file = files.get(state.file)
        if file is not None and following.address > state.address:
            marked = any(s.prologue_end for s in same)
            repeated = sum(1 for s in same if s.file == state.file) > 1
            rows.append(Row(state.address, following.address, file, state.line, bool(state.is_stmt), marked, repeated))
        same = []
    return rows
