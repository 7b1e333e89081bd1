"""The MOP expander's configuration as a T core writes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import Device
from tdbg.tensix.events import UndefinedBehavior

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.tensix.state import TensixState


class MopConfig(Device):
    """MOPExpander.md "Configuration": the core's thread's ``MopCfg[9]``, write-only, 32-bit."""

    def __init__(self, state: TensixState, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.mop_cfg = state.mop_cfg

    def load(self, core: Core, offset: int, size: int) -> int:
        raise UndefinedBehavior("MOPExpander.md: MOP expander configuration is write-only")

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if offset >= self.mop_cfg.shape[1] * 4 or size != 4:
            raise UndefinedBehavior(f"MOPExpander.md: {size}-byte store at MopCfg offset {offset:#x}")
        self.mop_cfg[core.thread, offset >> 2] = value
