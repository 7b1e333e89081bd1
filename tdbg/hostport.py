"""The chip as a host reaches it (the simulator server's service): writes, reads and resets by
NoC coordinate, over the session's grid of tiles (``tdbg.emu.grid``), with the tiles run between
the host's requests.

Time: the tiles run when the host reads (``read`` settles the grid first), so what the host reads
is what its writes led to once every core waits or is done.  A stop on a tile (a breakpoint, an
event) selects that tile and goes to ``on_stop`` (the front end shows it; by default the
session's ``announce``).
A hang: the host keeps reading while no core can run and nothing it reads changes; after
``HANG_READS`` such reads ``read`` raises ``Hang`` with the waits (``Session.explain_waits``
explains them) and the front end answers the host so that it fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.arch.profile import Coord
from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError
from tdbg.tensix.events import TensixEvent

if TYPE_CHECKING:
    from tdbg.emu.grid import Grid
    from tdbg.session import Session

#: Reads of a quiet grid, with no write between them, after which the host is polling for
#: something no core can produce (a poll loop reads a few words per round: this is many rounds).
HANG_READS = 2000


class Hang(SessionError):
    """The host polls a grid where no core can run: ``stops``, each waiting tile's deadlock."""

    def __init__(self, stops: dict[Coord, Stop]) -> None:
        super().__init__("the host waits for the device, and no core can run: " + "; ".join(
            f"tile {x},{y}: {stop.detail}" for (x, y), stop in stops.items()))
        self.stops = stops


class HostPort:
    """tt-umd's reads, writes and resets, on ``session``'s grid."""

    def __init__(self, session: Session, grid: Grid) -> None:
        self.session, self.grid = session, grid
        self.requests = 0
        self.quiet_reads = 0
        self.waits: dict[Coord, Stop] = {}    # each tile's deadlock in the last round that ran
        self.on_stop: Callable[[Stop], object] = session.announce

    def _checked(self, where: Coord) -> Coord:
        if self.grid.chip.kind(where) == "nothing":
            raise SessionError(f"no endpoint at NoC coordinate {where[0]},{where[1]} on the {self.grid.chip.name} chip")
        return where

    def write(self, where: Coord, address: int, data: bytes) -> None:
        self.requests += 1
        self.quiet_reads = 0
        try:
            self.grid.write(self._checked(where), address, data)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None

    def read(self, where: Coord, address: int, n: int) -> bytes:
        """What the host reads once the tiles have run (``Hang`` when it can never change)."""
        self.requests += 1
        ran = self.settle()
        try:
            data = self.grid.read(self._checked(where), address, n)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None
        if ran or not self.waits:
            self.quiet_reads = 0
        else:
            self.quiet_reads += 1
            if self.quiet_reads >= HANG_READS:
                self.quiet_reads = 0
                raise Hang(self.waits)
        return data

    def hold(self, where: Coord, held: bool) -> None:
        self.requests += 1
        self.quiet_reads = 0
        self.grid.hold(self._checked(where), held)

    def settle(self) -> bool:
        """Run the tiles until every core waits or is done; True if any ran.  A stop on a tile
        selects it and is announced (the session's ``stop_listeners``)."""
        ran = False
        while True:
            active = self.grid.runnable()
            if not active:
                return ran
            ran = True
            for where in active:
                stop = self.grid.tiles[where].run()
                self.waits.pop(where, None)
                if stop.kind is StopKind.DEADLOCK:
                    self.waits[where] = stop
                elif stop.kind is not StopKind.EXITED:
                    self.session.select_tile(where)
                    self.on_stop(stop)
                    return True
