"""The RISC-V ``Dst`` window (Blackhole, ``0xFFBD8000``) as a T core sees it."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import Device, Port
from tdbg.tensix.window import DstWindow

if TYPE_CHECKING:
    from tdbg.emu.core import Core


class DstWindowDevice(Device):
    """Dst.md "RISCV access to Dst": the conversions of ``tdbg.tensix.window`` under the
    accessing core's ``RISC_DEST_ACCESS_CTRL_SEC``.  Its accesses are ``observed`` (tracing
    and provenance of window stores, ``Tile.observe_window``)."""

    observed = True

    def __init__(self, window: DstWindow, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.window = window

    def load(self, core: Core, offset: int, size: int) -> int:
        return self.window.load(core.thread, offset, size)  # type: ignore[arg-type]

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        self.window.store(core.thread, offset, size, value)  # type: ignore[arg-type]

    def port(self, core: Core) -> Port:
        """The window's own functions, bound to the core's thread (the hottest device path)."""
        return Port(self, partial(self.window.load, core.thread), partial(self.window.store, core.thread))
