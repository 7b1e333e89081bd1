"""The NoC as the debugger sees it from the selected tile: its NIUs and requests, reads and
writes at any endpoint (DRAM, another tile's L1), who wrote what, and the overlay's streams."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.debug.memory import check_range
from tdbg.debug.target import Target
from tdbg.errors import SessionError
from tdbg.tensix.events import TensixEvent

if TYPE_CHECKING:
    from tdbg.emu.noc import Transfer


class NocAccess:
    """Reads, writes and records of the selected tile's NoC."""

    def __init__(self, target: Target) -> None:
        self.t = target

    def noc_status(self) -> dict[str, list[str]]:
        """What ``info noc`` shows: each NIU's registers and counters, and the NoC requests of
        the run (newest last)."""
        noc = self.t.tile.noc
        dropped = noc.log[0].seq - 1 if noc.log else 0
        earlier = [f"... {dropped} earlier requests not kept"] if dropped else []
        return {**{f"NoC {niu.index}": niu.status() for niu in noc.nius},
                "requests": earlier + [t.describe() for t in noc.log]}

    def noc_endpoint(self, x: int, y: int) -> tuple[int, int]:
        """The endpoint a NoC request to (x, y), as software writes it, reaches."""
        return self.t.tile.noc.physical(x | y << 6)

    def name_noc(self, namer: Callable[[tuple[int, int], int, int], str | None] | None) -> None:
        """Let ``namer`` say what a host put at a NoC endpoint, for the ``NeverWritten`` event:
        (the endpoint, as ``noc_endpoint`` gives it; address; length) -> a name ("buffer a",
        "no buffer there"), None where the host knows nothing; None: no host names them."""
        self.t.tile.noc.namer = namer

    def read_noc(self, x: int, y: int, address: int, size: int) -> bytes:
        """Bytes at a NoC endpoint (DRAM, another tile's L1, or this tile), as a NoC read
        would see them; (x, y) as software writes it (translated coordinates too)."""
        check_range(address, size)
        noc = self.t.tile.noc
        try:
            return noc.read(noc.physical(x | y << 6), address, size)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None

    def write_noc(self, x: int, y: int, address: int, data: bytes) -> None:
        """Write bytes at a NoC endpoint, as the host writes a DRAM buffer."""
        check_range(address, len(data))
        noc = self.t.tile.noc
        try:
            noc.write(noc.physical(x | y << 6), address, data, noc.host_transfer(len(data)))
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None

    def noc_l1_writer(self, address: int) -> tuple[Transfer, int] | None:
        """The newest NoC request (still in the log) that wrote this tile's L1 ``address``, and
        how many Tensix instructions had been pushed before it (an ``L1Access`` of a later push
        wrote after it); None when none did."""
        return self.t.tile.noc_l1_writes.last(address)

    def stream_writer(self, address: int) -> tuple[str, int] | None:
        """The core and pc of the last store to the NoC overlay stream register at ``address``
        (None: no store since the reset)."""
        overlay = self.t.tile.overlay
        try:
            stream, name, _ = overlay.register(address - overlay.spec.base)
        except TensixEvent as exc:
            raise SessionError(f"{address:#x}: {exc}") from None
        return overlay.writers.get((stream, name))
