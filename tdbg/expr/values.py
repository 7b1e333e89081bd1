"""Values, lvalues and the context the evaluator reads the debugged program through."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from tdbg.expr.ctype import CODE_POINTER, DATA_POINTER, CType, Kind
from tdbg.riscv.registers import ABI_NAMES, NUMBERS


@dataclass
class PrintSettings:
    """GDB's ``set print`` settings that change how values and addresses are shown: ``pretty``
    (a struct's members one per line), ``demangle`` (C++ names in values, frames and ``info
    symbol``) and ``asm_demangle`` (C++ names in ``x/i``, ``disassemble``, ``info line``; off in
    GDB 13, which keeps the linkage name there)."""

    pretty: bool = False
    demangle: bool = True
    asm_demangle: bool = False
    elements: int = 200   # GDB's print elements (0: unlimited)
    repeats: int = 10     # GDB's print repeats (0: unlimited)


class ExprError(Exception):
    """A bad expression or a failed evaluation; the message is one line, GDB's where it has one."""


class Lval(StrEnum):
    """Where an assignable value lives; ``Value.location`` says where exactly."""

    MEMORY = "memory"            # Value.address
    REGISTER = "register"        # (ABI name,)
    CONVENIENCE = "convenience"  # (name,)
    TENSIX = "tensix"            # (array, *indices): ("dst32", row, col), ("srca", bank, row, col)
    CFG = "cfg"                  # (field name,)


@dataclass(frozen=True)
class Value:
    """A typed value.  ``raw``: an int (integers, bools, pointers, function addresses), a float,
    or the bytes of an array or struct.  It is ``None`` only for memory not read yet, inside the
    evaluator; :func:`evaluate` never returns such a value.  ``unavailable``: the byte ranges
    ``[lo, hi)`` of the object the debug information does not give (an empty ``DW_OP_piece``:
    GDB's optimized-out parts, printed ``<optimized out>``)."""

    ctype: CType
    raw: int | float | bytes | None
    address: int | None = None
    lval: Lval | None = None
    location: tuple[str | int, ...] = ()
    unavailable: tuple[tuple[int, int], ...] = ()


def unavailable_within(ranges: Sequence[tuple[int, int]], offset: int, size: int) -> tuple[tuple[int, int], ...]:
    """The parts of ``ranges`` inside ``[offset, offset + size)``, relative to ``offset``."""
    return tuple((max(lo, offset) - offset, min(hi, offset + size) - offset)
                 for lo, hi in ranges if lo < offset + size and hi > offset)


@dataclass(frozen=True)
class SymbolInfo:
    """A firmware symbol: its address, whether it is code, and its type if debug info has one.
    A variable the compiler keeps in a register names it (ABI name) in ``register`` instead;
    one whose value the debug information computes (a constant, an entry value) has ``value``:
    an integer, or the object's bytes (a composite location, an implicit value) with the byte
    ranges it does not give in ``unavailable``."""

    address: int
    is_function: bool = False
    ctype: CType | None = None
    register: str | None = None
    value: int | bytes | None = None
    unavailable: tuple[tuple[int, int], ...] = ()


class EvalContext(Protocol):
    """What the evaluator needs from a debugging session.

    Registers are named by their ABI name as ``tdbg.riscv.registers.ABI_NAMES`` spells it (``x8`` is
    ``fp``) or ``pc``; ``$s0`` and ``$xN`` are mapped to those.  ``register`` is also asked about any
    other ``$NAME`` first (a session may offer CSRs); ``KeyError`` makes it a convenience
    variable.  Memory accessors raise any exception for an address they cannot access.
    ``tensix_type`` is the element type of a Tensix array (``TENSIX_INDICES``): ``float`` or
    ``int`` for data read in its format in force, ``uint16_t``/``uint32_t`` for raw bits;
    ``tensix``/``set_tensix`` read and write one element in that type.  They raise
    ``IndexError`` or ``ValueError`` with a one-line message for bad indices, an undefined
    element or a value the format cannot hold; ``cfg``/``set_cfg`` raise ``KeyError`` for an
    unknown field.
    """

    def register(self, name: str) -> int: ...
    def set_register(self, name: str, value: int) -> None: ...
    def symbol(self, name: str) -> SymbolInfo: ...  # KeyError if unknown; may raise ExprError
    def symbolize(self, address: int) -> str | None: ...  # "main+4", or None
    def lookup_type(self, name: str) -> CType | None: ...  # debug-info types: "pt_t", "struct pt"
    def read_memory(self, address: int, size: int) -> bytes: ...
    def write_memory(self, address: int, data: bytes) -> None: ...
    def tensix_type(self, array: str) -> CType: ...
    def tensix(self, array: str, indices: tuple[int, ...]) -> int | float: ...
    def set_tensix(self, array: str, indices: tuple[int, ...], value: int | float) -> None: ...
    def cfg(self, name: str) -> int: ...
    def set_cfg(self, name: str, value: int) -> None: ...
    def history(self) -> Sequence[Value]: ...  # the value history, $1 first
    def convenience(self, name: str) -> Value | None: ...  # None if never set
    def set_convenience(self, name: str, value: Value) -> None: ...


REGISTERS: dict[str, str] = {name: ABI_NAMES[n] for name, n in NUMBERS.items()} | {"pc": "pc"}
REGISTER_TYPES = {"pc": CODE_POINTER, "ra": CODE_POINTER, "sp": DATA_POINTER, "gp": DATA_POINTER,
                   "tp": DATA_POINTER, "fp": DATA_POINTER}
ROW_WIDTH = 16  # elements in a Dst / SrcA / SrcB row
#: Tensix arrays -> the indices of one element: data in its format in force, and raw bits.
TENSIX_INDICES = {"dst": 2, "dst32": 2, "srca": 3, "srcb": 3,
                  "dstbits": 2, "dst32bits": 2, "srcabits": 3, "srcbbits": 3, "lreg": 2, "lregbits": 2}
#: Elements in a row (the last index) where it is not ``ROW_WIDTH``: an LReg's 32 lanes.
TENSIX_ROW_WIDTH = {"lreg": 32, "lregbits": 32}
MAX_VALUE_SIZE = 65536  # GDB's max-value-size
MASK32 = 0xFFFFFFFF
def value_as_address(value: Value) -> int:
    """The address a value designates, as GDB's ``x`` takes it: an array's or function's own
    address, a pointer's or integer's value."""
    t = value.ctype
    if value.unavailable and t.kind is not Kind.ARRAY:
        raise ExprError("value has been optimized out")
    if t.kind is Kind.ARRAY:
        if value.address is None:
            raise ExprError("Attempt to take address of value not located in memory.")
        return value.address
    if t.kind in (Kind.FUNC, Kind.POINTER, Kind.INT, Kind.BOOL) and isinstance(value.raw, int):
        return value.raw & MASK32
    raise ExprError("Invalid cast.")
