"""A symbol file: more code on a core than its firmware (GDB's ``add-symbol-file``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.symbols.debuginfo import DebugInfo


@dataclass
class SymbolFile:
    """An ELF whose code a host put on a core at another address than it was linked at (GDB's
    ``add-symbol-file``): its symbols and DWARF moved to where the code runs (``tdbg.emu.moved``),
    the DWARF opened when first needed."""

    image: ElfImage
    info: DebugInfo | None
    opened: bool = False

    def holds(self, address: int) -> bool:
        return any(lo <= address < hi for lo, hi in self.image.exec_ranges)
