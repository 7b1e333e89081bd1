"""Breakpoints and watchpoints of a session, kept apart from the tile (as pyOCD's
``BreakpointManager`` is apart from its target): their numbers (GDB's: one sequence for both),
their locations, which of them stopped the program, hit counts and dispositions, and which
exits and watches each core has armed.

The session resolves locations (it has the debug information) and evaluates conditions (it
has the expressions); this manager keeps what was set and arms it on the tile's cores.
On a chip the tiles' managers share one ``Book``: one number sequence and one set of
breakpoints, each location on its tile (GDB's locations over its inferiors), armed by that
tile's manager.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tdbg.emu.states import Disposition
from tdbg.emu.stops import Stop, StopKind

if TYPE_CHECKING:
    from tdbg.arch.profile import Coord
    from tdbg.emu.core import Watch
    from tdbg.emu.tile import Tile
    from tdbg.symbols.records import LineInfo


class NoSuchBreakpoint(KeyError):
    """No breakpoint or watchpoint has that number."""


@dataclass(frozen=True)
class Location:
    """One location of a breakpoint: a core and an address there, with the full name of the
    function it is in and the line GDB reports for it (``debuginfo.Site``)."""

    core: str
    address: int
    function: str | None = None
    line: LineInfo | None = None
    tile: Coord | None = None   # on a chip, the tile (None: the session's one tile)


@dataclass
class Breakpoint:
    """A breakpoint and its locations (GDB's): any number per core, in the order GDB lists them
    (by core, then address)."""

    number: int
    locations: list[Location]
    enabled: bool = True
    disposition: Disposition = Disposition.KEEP
    enable_count: int = 0       # stops left before DISABLE disables it (GDB's enable_count)
    hits: int = 0
    ignore_count: int = 0
    condition: str | None = None
    commands: list[str] = field(default_factory=list)
    location: str = ""          # what the user typed, for ``info breakpoints``
    thread: str | None = None   # ``break LOC thread N``: only that core
    line: int | None = None     # a FILE:LINE breakpoint: the line whose code it is on
    spec: str | int | None = None   # the location resolved, again on a tile whose code loads later
    all_tiles: bool = False     # on a chip: set on every tile (no tile named), woken ones too

    @property
    def temporary(self) -> bool:
        """Deleted when it next stops the program (``tbreak``, ``enable delete``)."""
        return self.disposition is Disposition.DELETE

    @property
    def address(self) -> int:
        """The address of its first location."""
        return self.locations[0].address

    @property
    def cores(self) -> list[str]:
        """The cores it has a location on, in order."""
        return list(dict.fromkeys(loc.core for loc in self.locations))

    def at(self, core: str, pc: int) -> bool:
        return any(loc.core == core and loc.address == pc for loc in self.locations)


@dataclass(frozen=True)
class WatchScope:
    """Where the frame whose local a watchpoint watches ends: its core reaches ``return_pc``
    with ``sp`` at or above ``cfa`` (GDB's watchpoint scope)."""

    core: str
    return_pc: int
    cfa: int


@dataclass
class Book:
    """What the tiles of a chip share: the numbers given out, the breakpoints (by number) and
    each tile's manager (by NoC coordinate; None: the session's one tile)."""

    breakpoints: dict[int, Breakpoint] = field(default_factory=dict)
    managers: dict[Coord | None, BreakpointManager] = field(default_factory=dict)
    issued: int = 0


class BreakpointManager:
    """The breakpoints and watchpoints of one tile, by number, armed on its cores (a breakpoint
    of the ``Book`` may have locations on other tiles too: their managers arm those)."""

    def __init__(self, tile: Tile, where: Coord | None = None, book: Book | None = None) -> None:
        self.tile, self.where = tile, where
        self.book = book or Book()
        self.book.managers[where] = self
        self.breakpoints = self.book.breakpoints
        self.watchpoints: dict[int, Watch] = {}
        self.scopes: dict[int, WatchScope] = {}            # watchpoint number -> its frame's end
        self.last_hits: list[Breakpoint] = []              # the breakpoints that made the last stop
        self._at: dict[tuple[str, int], set[int]] = {}     # (core, address) -> breakpoints there

    def take_number(self) -> int:
        """The next breakpoint or watchpoint number (GDB's one sequence for both)."""
        self.book.issued += 1
        return self.book.issued

    @property
    def issued(self) -> int:
        """How many numbers were given out."""
        return self.book.issued

    # -- adding -------------------------------------------------------------------------------
    def add_breakpoint(self, locations: list[Location], disposition: Disposition, thread: str | None,
                       line: int | None) -> Breakpoint:
        bp = Breakpoint(self.take_number(), [], disposition=disposition, thread=thread, line=line)
        self.breakpoints[bp.number] = bp
        self.add_locations(bp, locations)
        return bp

    def add_locations(self, bp: Breakpoint, locations: list[Location]) -> None:
        """More locations of ``bp`` (a tile whose code loaded), each armed on its tile."""
        bp.locations = sorted([*bp.locations, *locations],   # by tile (NoC order), each as resolved
                              key=lambda loc: (loc.tile[1], loc.tile[0]) if loc.tile is not None else (0, 0))
        for loc in locations:
            manager = self.book.managers[loc.tile]
            manager._at.setdefault((loc.core, loc.address), set()).add(bp.number)
            manager._arm(loc.core, loc.address)

    def drop_locations(self, bp: Breakpoint, where: Coord | None) -> None:
        """``bp``'s locations on tile ``where`` taken off (its code changed)."""
        gone = [loc for loc in bp.locations if loc.tile == where]
        bp.locations = [loc for loc in bp.locations if loc.tile != where]
        for loc in gone:
            self.book.managers[loc.tile]._unplace(bp.number, loc)

    def _unplace(self, number: int, loc: Location) -> None:
        numbers = self._at.get((loc.core, loc.address), set())
        numbers.discard(number)
        if not numbers:
            self._at.pop((loc.core, loc.address), None)
        self._arm(loc.core, loc.address)

    def add_watch(self, watch: Watch, scope: WatchScope | None = None) -> Watch:
        """Arm ``watch`` (numbered with ``take_number``); with ``scope``, it is deleted when
        that frame returns (``scope_exit``)."""
        self.watchpoints[watch.number] = watch
        self._arm_watch(watch)
        if scope is not None:
            self.scopes[watch.number] = scope
            self.sync()
        return watch

    def _arm_watch(self, watch: Watch) -> None:
        self.tile.watches.append(watch)
        for core in self.tile.cores.values():
            if watch.core in (None, core.name):
                core.add_watch(watch)

    def _disarm_watch(self, watch: Watch) -> None:
        self.tile.watches[:] = [w for w in self.tile.watches if w is not watch]
        for core in self.tile.cores.values():
            core.remove_watch(watch.number)

    # -- changing -------------------------------------------------------------------------------
    def item(self, number: int) -> Breakpoint | Watch:
        found: Breakpoint | Watch | None = self.watchpoints.get(number) or self.breakpoints.get(number)
        if found is None:
            raise NoSuchBreakpoint(number)
        return found

    def delete(self, number: int) -> None:
        """Delete breakpoint or watchpoint ``number`` on every core."""
        if number in self.breakpoints:
            bp = self.breakpoints.pop(number)
            for loc in bp.locations:
                self.book.managers[loc.tile]._unplace(number, loc)
        elif number in self.watchpoints:
            if self.scopes.pop(number, None):
                self.sync()
            self._disarm_watch(self.watchpoints.pop(number))
        else:
            raise NoSuchBreakpoint(number)

    def enable(self, number: int, enabled: bool = True, disposition: Disposition | None = None, count: int = 0) -> None:
        """Enable or disable breakpoint or watchpoint ``number`` (it stays listed); a disabled
        watchpoint is taken off every core and the tile, so it costs nothing.  Enabling sets
        its disposition (None: keeps the one it has) and ``enable_count`` to ``count``, as
        GDB's ``enable_breakpoint_disp`` does (``enable``: the disposition kept, count 0;
        ``enable once``: DISABLE, 1; ``enable count C``: DISABLE, C; ``enable delete``:
        DELETE, 1); disabling changes neither."""
        item = self.item(number)
        if enabled:
            item.disposition = disposition or item.disposition
            item.enable_count = count
        if isinstance(item, Breakpoint):
            item.enabled = enabled
            for loc in item.locations:
                self.book.managers[loc.tile]._arm(loc.core, loc.address)
        elif item.enabled != enabled:
            item.enabled = enabled
            self._disarm_watch(item)
            if enabled:
                self._arm_watch(item)

    def reset_hits(self) -> None:
        """Every hit count back to zero (a new run, GDB's run_command_1)."""
        for item in [*self.breakpoints.values(), *self.watchpoints.values()]:
            item.hits = 0

    # -- arming -------------------------------------------------------------------------------
    def sync(self) -> None:
        """Each core's exits: its enabled breakpoint locations and the return addresses where
        a watched local's frame ends (after a core's firmware changed, or direct changes to
        ``Breakpoint.enabled``; ``enable`` and ``delete`` do one breakpoint)."""
        armed: dict[str, set[int]] = {name: set() for name in self.tile.cores}
        for (core, address), numbers in self._at.items():
            if any(self.breakpoints[n].enabled for n in numbers):
                armed[core].add(address)
        for scope in self.scopes.values():
            armed[scope.core].add(scope.return_pc)
        for name, core in self.tile.cores.items():
            core.set_breakpoints(armed[name])

    def _arm(self, core: str, address: int) -> None:
        """Arm or disarm one exit of ``core``: armed while an enabled breakpoint or a watched
        local's frame end is there."""
        if (any(self.breakpoints[n].enabled for n in self._at.get((core, address), ()))
                or any(s.core == core and s.return_pc == address for s in self.scopes.values())):
            self.tile.cores[core].add_breakpoint(address)
        else:
            self.tile.cores[core].remove_breakpoint(address)

    # -- stops --------------------------------------------------------------------------------
    def hit(self, core: str, pc: int, condition_true: Callable[[Breakpoint], bool]) -> bool:
        """Count a hit on the breakpoints at ``pc`` of ``core``; True if one of them stops the
        run (those are kept in ``last_hits`` for the stop report).  ``condition_true`` says
        whether a breakpoint's condition holds (in that core's context)."""
        stops = False
        self.last_hits = []
        for number in sorted(self._at.get((core, pc), ())):
            bp = self.breakpoints.get(number)
            if bp is None or not bp.enabled:   # a temporary one deleted by an earlier hit
                continue
            if bp.condition is not None and not condition_true(bp):
                continue
            bp.hits += 1
            if bp.ignore_count > 0:
                bp.ignore_count -= 1
                continue
            stops = True
            self.last_hits.append(bp)
            self.spend(bp)
        return stops

    def watch_hit(self, stop: Stop) -> None:
        """A watchpoint stopped the program: count the hit and apply its disposition."""
        if stop.watch.number in self.watchpoints:
            stop.watch.hits += 1
            self.spend(stop.watch)

    def spend(self, item: Breakpoint | Watch) -> None:
        """A breakpoint or watchpoint stopped the program: apply its disposition, as GDB's
        ``bpstat_stop_status`` does (DISABLE: one of its ``enable_count`` stops is used, and at
        0 it is disabled; DELETE: it is deleted)."""
        if item.disposition is Disposition.DISABLE:
            item.enable_count -= 1
            if item.enable_count <= 0:
                self.enable(item.number, False)
        elif item.disposition is Disposition.DELETE:
            self.delete(item.number)

    def scope_exit(self, stop: Stop) -> Stop:
        """A core that reached the return address of a frame whose local a watchpoint watches,
        with that frame gone: the watchpoint is deleted and the run stops (GDB's "left the
        block in which its expression is valid")."""
        for number, scope in list(self.scopes.items()):
            if stop.core == scope.core and stop.pc == scope.return_pc and self.tile.cores[scope.core].reg(2) >= scope.cfa:
                watch = self.watchpoints[number]
                self.delete(number)
                return Stop(StopKind.SCOPE, scope.core, stop.pc, watch=watch)
        return stop
