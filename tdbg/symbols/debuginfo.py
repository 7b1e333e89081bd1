"""Source-level debug information of a firmware ELF, read with pyelftools.

``DebugInfo`` answers what GDB's symbol tables answer: the line-table row at an address, the
addresses of ``FILE:LINE``, the function around an address and where its prologue ends (GDB's
``skip_prologue_sal``), the inlined calls (``DW_TAG_inlined_subroutine``) around an address,
global and local variables with their C types (the evaluator's ``tdbg.expr.CType``), and a
backtrace in which an inlined call is a frame of its own, as GDB shows it.  Unwinding uses the ``.eh_frame``
call-frame information the toolchain emits for every function; code without it is unwound along the
``s0`` frame-pointer chain (``ra`` at ``s0-4``, the caller's ``s0`` at ``s0-8``).

The compile unit of the toolchain's runtime (zig's ``compiler_rt``) is left out: its functions
count as code without line information, so ``step`` steps over them.  Line-table sequences that
do not start in an executable section (garbage-collected code left at address 0) are dropped.

Its parts, one module each: ``lines``, ``inline_frames``, ``locations`` (variables), ``type_info``,
``symbol_tables``, ``cfi`` (unwinding), over ``dwarf_reader``; what they answer with is in ``records``.
"""

from __future__ import annotations

from tdbg.symbols.cfi import Unwinding
from tdbg.symbols.inline_frames import InlineFrames
from tdbg.symbols.lines import Lines
from tdbg.symbols.locations import VariableLocations
from tdbg.symbols.records import (
    CALLEE_SAVED, MAX_FRAMES, RUNTIME_CU, Frame, Function, InlinedCall, LineInfo, Piece, Row, Site,
    SymbolEntry,     Variable,
)
from tdbg.symbols.symbol_tables import SymbolTables
from tdbg.symbols.type_info import Types

__all__ = [
    "CALLEE_SAVED", "MAX_FRAMES", "RUNTIME_CU", "DebugInfo", "Frame", "Function", "InlinedCall", "LineInfo", "Piece",
    "Row", "Site", "SymbolEntry", "Variable",
]


class DebugInfo(Lines, InlineFrames, VariableLocations, Types, SymbolTables, Unwinding):
    """Line table, functions, variables and unwind tables of one ELF, read when a question first
    needs them: nothing when the program is loaded; a compile unit's line table and functions
    when an address in it is asked about (the units' address ranges, from their top DIEs, are
    the index), every unit for questions by name or file; ``.eh_frame`` at the first unwind and
    each FDE's table when its code is unwound; variables and types when first looked up.  A
    corrupt part raises when it is read (the session turns that into one line)."""
