"""Unwinding: the ``.eh_frame`` call-frame information the toolchain emits for every function,
decoded per FDE when its code is unwound; code without it is unwound along the ``s0``
frame-pointer chain (``ra`` at ``s0-4``, the caller's ``s0`` at ``s0-8``)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from tdbg.riscv.registers import FP, RA, SP
from tdbg.symbols.dies import _apply, _containing, _inside
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import CALLEE_SAVED, Frame, MAX_FRAMES

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.callframe import FDE, RegisterRule


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


class Unwinding(DwarfReader):
    """Backtraces: CFI unwinding, the frame-pointer chain otherwise (``DebugInfo``'s part)."""

    @cached_property
    def _fdes(self) -> list[_Fde]:
        from elftools.dwarf.callframe import FDE

        fdes = []
        if self._dwarf.has_EH_CFI():
            fdes = [_Fde(entry) for entry in self._dwarf.EH_CFI_entries() if isinstance(entry, FDE)]
        fdes.sort(key=lambda f: f.low)
        return fdes

    @cached_property
    def _fde_starts(self) -> list[int]:
        return [f.low for f in self._fdes]

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
