"""The Tensix GPRs as RISC-V cores see them (``REGFILE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import WordRegisters
from tdbg.tensix.events import UndefinedBehavior

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.tensix.state import TensixState


class Gprs(WordRegisters):
    """ScalarUnit.md "RISCV access to GPRs": a T core sees its own thread's ``GPRs[64]``; B sees
    T0's, T1's and T2's one after another (BabyRISCV/README.md memory map)."""

    pollable = True

    def __init__(self, state: TensixState, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.gprs = state.gprs
        self.count = state.profile.tensix.gprs

    def _index(self, core: Core, offset: int) -> tuple[int, int]:
        n = self.count
        if core.thread is None:
            if offset >= len(self.gprs) * n * 4:
                raise UndefinedBehavior(f"BabyRISCV/README.md: REGFILE offset {offset:#x} is past GPRs[{len(self.gprs)}][{n}]")
            return offset // (n * 4), (offset % (n * 4)) >> 2
        if offset >= n * 4:
            raise UndefinedBehavior(f"BabyRISCV/README.md: REGFILE offset {offset:#x} is past GPRs[{n}]")
        return core.thread, offset >> 2

    def word(self, core: Core, offset: int) -> int:
        return int(self.gprs[self._index(core, offset)])

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        index = self._index(core, offset)
        shift = 8 * (offset & 3)
        mask = ((1 << (8 * size)) - 1) << shift
        self.gprs[index] = (int(self.gprs[index]) & ~mask) | ((value << shift) & mask)
