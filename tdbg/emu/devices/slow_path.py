"""A core's local data RAM through its slow-access window, as the coprocessor reaches it."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import Region

if TYPE_CHECKING:
    from tdbg.emu.core import Core


class SlowPath:
    """BabyRISCV/README.md "Memory map": every core's local RAM is also at its slow-access window
    (``region``: a window of ``region.size`` bytes repeating the ``region.ram_size``-byte RAM),
    for every core and for the coprocessor.  The cores map it as memory; ``LOADREG`` /
    ``STOREREG`` reach it through here, with a device's ``load`` / ``store`` (whoever accesses
    it sees the same bytes).  ``journal()`` gives the list a step being recorded for
    reverse-stepi keeps overwritten bytes in (by RISC-V address), or None."""

    def __init__(self, region: Region, ram: ctypes.Array, journal: Callable[[], list[tuple[int, bytes]] | None]) -> None:
        self.region, self.ram, self.journal = region, ram, journal
        self.name = region.name

    def load(self, core: Core | None, offset: int, size: int) -> int:
        at = offset % self.region.ram_size
        return int.from_bytes(self.ram[at:at + size], "little")

    def store(self, core: Core | None, offset: int, size: int, value: int) -> None:
        at = offset % self.region.ram_size
        journal = self.journal()
        if journal is not None:
            journal.append((self.region.base + offset, bytes(self.ram[at:at + size])))
        self.ram[at:at + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
