"""PCBuf, TTSync and the Sync Unit's semaphores as a core sees them (``PC_BUF_BASE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import Stall, WordRegisters, unmodelled
from tdbg.tensix.events import UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.push_path import Pushes
    from tdbg.tensix.coprocessor import Coprocessor


class PcBuf(WordRegisters):
    """TTSync.md: a load from ``CoprocessorDoneCheck`` waits while the core's thread has any
    instruction in flight (tdbg runs every instruction that passes the Wait Gate to completion,
    so "in flight" is "queued at the Wait Gate"); ``MOPExpanderDoneCheck`` waits while a MOP is
    being expanded (tdbg expands at push time: never).  The value is undefined; tdbg gives 0
    (ttsim: 0).  Stores to them are discarded.  SyncUnit.md: ``SemaphoreAccess[i]`` reads a
    semaphore's value, a store gets (odd) or posts (even).  The PCBuf itself, and RISCV B's view
    of the device, are not modelled."""

    pollable = True

    def __init__(self, coprocessor: Coprocessor, pushes: Pushes, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.coprocessor, self.pushes = coprocessor, pushes
        regs = spec.registers
        self.done, self.mop_done = regs["CoprocessorDoneCheck"], regs["MOPExpanderDoneCheck"]
        first = regs["SemaphoreAccess"]
        self.semaphores = range(first, first + 4 * len(coprocessor.semaphores))

    def word(self, core: Core, offset: int) -> int:
        if core.thread is None:
            raise unmodelled(self.name, offset)
        if offset == self.done:
            if self.coprocessor.pending(core.thread):
                raise Stall(self.pushes.ttsync_wait(core))
            return 0
        if offset == self.mop_done:
            return 0
        if offset in self.semaphores:
            return self.coprocessor.riscv_semaphore_read((offset - self.semaphores.start) >> 2)
        raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if core.thread is None:
            raise unmodelled(self.name, offset)
        if offset & ~3 in self.semaphores:
            self.coprocessor.riscv_semaphore_write((offset - self.semaphores.start) >> 2, value)
        elif offset & ~3 not in (self.done, self.mop_done):
            raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")
