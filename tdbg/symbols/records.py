"""What the debug information answers with: line rows, sites, functions, inlined calls, variables
and their pieces, frames, symbol-table entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.expr.ctype import CType
from tdbg.riscv.registers import SP

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE


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
