"""Pushing Tensix instructions by a store (``INSTRN_BUF_BASE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import Device
from tdbg.tensix.events import UndefinedBehavior

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.push_path import Pushes


class InstructionPush(Device):
    """PushTensixInstruction.md: a ``sw`` pushes one instruction.  A T core pushes to its own
    thread, before its MOP expander; B pushes to T0's, T1's or T2's (``INSTRN``, ``INSTRN1``,
    ``INSTRN2``: the device's ``unit``), after the MOP expander (``tdbg.emu.push_path``)."""

    native_stores = True

    def __init__(self, pushes: Pushes, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.pushes = pushes

    def load(self, core: Core, offset: int, size: int) -> int:
        raise UndefinedBehavior("PushTensixInstruction.md: INSTRN_BUF_BASE is for stores only")

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UndefinedBehavior(f"PushTensixInstruction.md: a Tensix instruction is pushed with sw, not a {size}-byte store")
        native = core._native
        if native is not None and core.thread is not None and core.running and native.push_word(core.pc, value):
            return   # pushed in C (tdbg.emu.native_push), as the Python path would
        self.pushes.push(core, core.thread if core.thread is not None else self.spec.unit, core.pc, value, "store")
