"""The coprocessor's port to the tile's memory-mapped devices, for the instructions that write
or read them (``LOADREG``, ``STOREREG``, ``PACR_SETREG``).

The tile installs a port (``Coprocessor.mmio``) that reaches its devices as a RISC-V load or
store does (``tdbg.emu.devices.coprocessor_port``); a coprocessor standing alone has
``DETACHED``, which reaches nothing.  The address rule every one of these pages shares is
``register_address``, with the window the profile gives (``TensixSpec.register_window*``).
"""

from __future__ import annotations

from typing import Protocol

from tdbg.arch.profile import TensixSpec
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality


class MmioPort(Protocol):
    def load(self, thread: int, address: int) -> int:
        """The 32-bit word at ``address`` as Tensix thread ``thread`` reads it."""

    def store(self, thread: int, address: int, value: int) -> None:
        """Write a 32-bit word at ``address`` for Tensix thread ``thread``."""


class Detached:
    """No devices: every access is ``UnimplementedFunctionality``."""

    def load(self, thread: int, address: int) -> int:
        raise UnimplementedFunctionality(f"{address:#010x}: no tile devices are attached to this coprocessor")

    def store(self, thread: int, address: int, value: int) -> None:
        raise UnimplementedFunctionality(f"{address:#010x}: no tile devices are attached to this coprocessor")


DETACHED = Detached()


def register_address(spec: TensixSpec, offset: int, page: str) -> int:
    """The device address ``offset`` into the register window names (LOADREG.md, STOREREG.md,
    PACR_SETREG.md: ``0xFFB00000 + offset`` on Wormhole and Blackhole), or ``UndefinedBehavior``
    when it is below the window's lowest register (``0xFFB11000``)."""
    address = spec.register_window + offset
    if address < spec.register_window_lowest:
        raise UndefinedBehavior(f"{page}: address {address:#010x} is below 0x{spec.register_window_lowest:08X}")
    return address
