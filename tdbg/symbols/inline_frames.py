"""Inlined calls (``DW_TAG_inlined_subroutine``) around an address, and the inline frames a stop
hides (GDB's ``skip_inline_frames``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tdbg.symbols.cxxnames import remove_params
from tdbg.symbols.dies import _die_ranges
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import Function, InlinedCall

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE


class InlineFrames(DwarfReader):
    """Inlined calls and the inline frames a stop hides (``DebugInfo``'s part)."""

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
