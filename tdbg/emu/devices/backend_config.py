"""The Tensix backend configuration as RISC-V cores see it (``TENSIX_CFG_BASE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import Device
from tdbg.tensix.config import TensixConfig

if TYPE_CHECKING:
    from tdbg.emu.core import Core


class BackendConfig(Device):
    """BackendConfiguration.md's RISC-V view (``TensixConfig.riscv_load`` / ``riscv_store``)."""

    pollable = True

    def __init__(self, config: TensixConfig, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.config = config

    def load(self, core: Core, offset: int, size: int) -> int:
        return self.config.riscv_load(offset, size)

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        self.config.riscv_store(offset, size, value)
