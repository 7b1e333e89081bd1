"""The coprocessor's port to the tile's memory-mapped devices, for the instructions that write
or read the ``0xFFB0_0000`` window (``LOADREG``, ``STOREREG``, ``PACR_SETREG``).

The tile installs a port (``Coprocessor.mmio``) that reaches its devices through the same
devices a RISC-V load or store reaches (``tdbg.emu.devices.coprocessor_port``); a coprocessor standing
alone has ``DETACHED``, which reaches nothing.  The address rules every one of these pages shares
are here.
"""

from __future__ import annotations

from typing import Protocol

from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

BASE = 0xFFB0_0000
LOWEST = 0xFFB1_1000   # LOADREG.md, STOREREG.md, PACR_SETREG.md: below it, UndefinedBehaviour


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


def check(address: int, page: str) -> int:
    """``address``, or ``UndefinedBehavior`` when it is below ``0xFFB1_1000``."""
    if address < LOWEST:
        raise UndefinedBehavior(f"{page}: address {address:#010x} is below 0xFFB11000")
    return address
