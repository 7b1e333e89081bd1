"""The chip as a host reaches it (the simulator server's service): writes, reads and resets by
NoC coordinate, over the session's grid of tiles (``tdbg.emu.grid``), with the tiles run between
the host's requests.

Time: the tiles run when the host reads (``read`` settles the grid first), so what the host reads
is what its writes led to once every core waits or is done.  A stop on a tile (a breakpoint, an
event) selects that tile and goes to ``on_stop`` (the front end shows it; by default the
session's ``announce``).
A hang: the host keeps reading while no core can run and nothing it reads changes; after
``HANG_READS`` such reads ``read`` raises ``Hang`` with the waits (``Session.explain_waits``
explains them) and the front end answers the host so that it fails.  The reads of the host's
own servers (``background``: tt-metal's print server) count for nothing: they poll whatever the
host does, and while it builds kernels, for seconds on a cold cache, they are all it reads.  A stop the front end does
not resume halts the device: every read after it raises ``Halted``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tdbg.arch.profile import Coord
from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError
from tdbg.tensix.events import TensixEvent

if TYPE_CHECKING:
    from tdbg.debug.programs import Programs
    from tdbg.debug.run_control import RunControl
    from tdbg.debug.target import Target
    from tdbg.emu.grid import Grid

#: Reads of a quiet grid, with no write between them, after which the host is polling for
#: something no core can produce (a poll loop reads a few words per round: this is many rounds).
HANG_READS = 2000
#: Requests a stop's report waits at most for ``HostPort.defer_stop`` (the host's print server
#: polls a few words per round and drains a buffer in a few requests), and the seconds it waits
#: after that for the host to show what it read (measured: tt-metal's print server moves its read
#: position before it prints; a report sent at once came before the line in one run of four).
DEFER_REQUESTS = 5000
DEFER_GRACE = 0.05
#: Digests of writes known to be no build kept at most (then forgotten: they are read for again).
NO_BUILD_KEPT = 4096


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class Binary(Protocol):
    """A binary the host built (tt-metal's: ``tdbg.ttmetal.jit_output.Binary``)."""

    name: str
    core: str              # the core it runs on
    elf: Path
    text: bytes            # what the host writes

    @property
    def kind(self) -> str: ...   # "firmware" or "kernel"


class Builds(Protocol):
    """The host's builds, which know a binary by the bytes the host writes (``key_bytes`` of
    them at least), reading what the host built since when ``refresh``-ed."""

    key_bytes: int

    @property
    def folder(self) -> str: ...   # where they are read from (for messages)

    def match(self, data: bytes, scan: bool = True) -> Binary | None: ...

    def refresh(self) -> None: ...


class Hang(SessionError):
    """The host polls a grid where no core can run: ``stops``, each waiting tile's deadlock;
    ``polled``, what the host read meanwhile (endpoint, address), first read first."""

    def __init__(self, stops: dict[Coord, Stop], polled: list[tuple[Coord, int, str]] = ()) -> None:
        super().__init__(f"the host waits for the device{_polls(polled)}, and no core can run: " + "; ".join(
            f"tile{'s' if len(tiles) > 1 else ''} {', '.join(f'{x},{y}' for x, y in tiles)}: {detail}"
            for detail, tiles in self.alike(stops).items()))
        self.stops, self.polled = stops, list(polled)

    @staticmethod
    def alike(stops: dict[Coord, Stop]) -> dict[str, list[Coord]]:
        """The tiles of ``stops`` by their deadlock's words (a chip's tiles booted alike wait alike)."""
        out: dict[str, list[Coord]] = {}
        for where, stop in stops.items():
            out.setdefault(stop.detail, []).append(where)
        return out


def _polls(polled: list[tuple[Coord, int, str]], shown: int = 4) -> str:
    """" (it reads 1,1 at 0x590, ...; tdbg does not model Ethernet ...)" for ``polled``, each
    (endpoint, address, its kind)."""
    if not polled:
        return ""
    words = ", ".join(f"{x},{y} at {address:#x}" for (x, y), address, _ in polled[:shown])
    more = f" and {len(polled) - shown} more" if len(polled) > shown else ""
    kept = sorted({kind for _, _, kind in polled if kind not in ("Tensix", "DRAM")})
    why = (f"; tdbg does not model {' or '.join(kept)} endpoints: they hold what the host wrote" if kept else "")
    return f" (it reads {words}{more}{why})"


class Halted(SessionError):
    """A core stopped and the front end did not resume it: the device answers no more reads."""

    def __init__(self, where: Coord, stop: Stop) -> None:
        super().__init__(f"the device stopped: tile {where[0]},{where[1]}: {stop.describe()}")
        self.where, self.stop = where, stop


class HostPort:
    """tt-umd's reads, writes and resets, on the target's grid."""

    def __init__(self, target: Target, programs: Programs, run: RunControl, grid: Grid) -> None:
        self.target, self.programs, self.run, self.grid = target, programs, run, grid
        self.requests = 0
        self.runs: list[float] = []     # the seconds of each read's run of the tiles (one that ran)
        self.quiet_reads = 0
        self._polled: dict[tuple[Coord, int], None] = {}   # what the quiet reads read, in order
        self.waits: dict[Coord, Stop] = {}    # each tile's deadlock in the last round that ran
        #: Told of a stop on a tile (selected): True resumes the run, False halts the device.
        self.on_stop: Callable[[Stop], bool] = lambda stop: bool(target.announce(stop)) and False
        self.halted: Halted | None = None
        self.before_kernels: Callable[[], object] | None = None
        #: Called before a run that follows the load of a binary (a debugger announces its code).
        self.on_code: Callable[[], object] | None = None
        self._new_code = False
        self.jit: Builds | None = None      # the host's builds, to know its binaries by
        self._loaded: dict[tuple[Coord, str], dict[int, Binary]] = {}   # (tile, core) -> address -> binary
        self._unknown: list[tuple[Coord, int, bytes]] = []   # writes no build known was: maybe one since
        self._no_build: set[bytes] = set()   # digests of writes no build was, the builds read after them
        self.unsymbolled: dict[Coord, set[str]] = {}   # tile -> cores whose symbol files are not added yet
        self.symbol_moves = 0     # times a tile's symbol files were added (``add_symbols``)
        self._unknown_firmware: set[Coord] = set()   # tiles warned of (``hold``)
        self.write_listeners: list[Callable[[Coord, int, bytes], None]] = []   # told of each host write, after it
        self.launches: object | None = None    # what the host launched where (tdbg.ttmetal.launches)
        #: True while a stop on a tile should wait for the host (its print server to drain the tile)
        self.defer_stop: Callable[[Coord], bool] = lambda where: False
        self.deferred: tuple[Coord, Stop] | None = None
        #: A stop a tile whose cores all wait or are done has come to (the host's: a tripped ASSERT)
        self.tripped: Callable[[Coord], Stop | None] = lambda where: None
        #: A tile's deadlock as the hang report shows it (the host's terms; by default as it is),
        #: None for a tile that is done, waiting for the host (left out of the report)
        self.explain_hang: Callable[[Coord, Stop], Stop | None] = lambda where, stop: stop
        #: True for a read (endpoint, address, bytes) the host's own servers make, waiting or not
        self.background: Callable[[Coord, int, int], bool] = lambda where, address, n: False
        self.deferred_requests = 0
        self.drained_at: float | None = None

    def _checked(self, where: Coord) -> Coord:
        if self.grid.chip.kind(where) == "nothing":
            raise SessionError(f"no endpoint at NoC coordinate {where[0]},{where[1]} on the {self.grid.chip.name} chip")
        return where

    @property
    def loaded(self) -> dict[tuple[Coord, str], dict[int, Binary]]:
        """(tile, core) -> address -> the binary the host loaded there."""
        self._identify()
        return self._loaded

    def write(self, where: Coord, address: int, data: bytes) -> None:
        """A host write; a firmware or kernel binary the host built (``jit``) is loaded as code,
        with its symbols on its core of that tile.  A write the builds read so far do not know
        is kept to be told again once they are read again (``_identify``), unless the same bytes
        were no build after such a read already (a host writes its runtime arguments and CB
        configurations again at each launch, and a build is whole before the host writes it)."""
        self.requests += 1
        self.quiet_reads = 0
        try:
            binary = None
            if self.jit is not None and where in self.grid.chip.noc.tensix and address < self.grid.profile.l1_size:
                binary = self.jit.match(data, scan=False)
                if binary is None and len(data) >= self.jit.key_bytes and _digest(data) not in self._no_build:
                    self._unknown.append((where, address, data))
            if binary is None:
                self.grid.write(self._checked(where), address, data)
            else:
                self.grid.write_code(where, address, data, len(binary.text), binary.core)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None
        if binary is not None:
            self._symbols(where, address, binary)
        for listener in self.write_listeners:
            listener(where, address, data)

    def _identify(self) -> None:
        """The writes no build was known for, told again after one read of the host's builds
        (before the tiles run, or when something asks what is loaded; a read of the folder took
        10-18 ms on a tt-metal cache, measured, so not at each write): those that are a binary
        the host built, and whose text is still in L1, are loaded as its code."""
        if not self._unknown or self.jit is None:
            return
        unknown, self._unknown = self._unknown, []
        self.jit.refresh()
        if len(self._no_build) > NO_BUILD_KEPT:
            self._no_build.clear()
        for where, address, data in unknown:
            binary = self.jit.match(data, scan=False)
            if binary is None:
                self._no_build.add(_digest(data))
                continue
            try:
                if self.grid.read(where, address, len(binary.text)) != binary.text:
                    continue     # overwritten since
                self.grid.write_code(where, address, binary.text, len(binary.text), binary.core)
            except TensixEvent as exc:
                raise SessionError(str(exc)) from None
            self._symbols(where, address, binary)

    def _symbols(self, where: Coord, address: int, binary: Binary) -> None:
        """``binary`` now at ``address`` on its core of tile ``where``: the core's symbol files
        are its firmware and the kernels loaded since, less those this one overwrote.  They are
        added when the tile's symbols are next read (``TileView.pending``): moving a kernel's
        DWARF to its load address costs more than running it, and a run without breakpoints,
        stops or a debugger's questions never reads them."""
        on_core = self._loaded.setdefault((where, binary.core), {})
        end = address + len(binary.text)
        for at in [a for a, b in on_core.items() if a < end and address < a + len(b.text)]:
            del on_core[at]
        on_core[address] = binary
        self._new_code = True
        self.unsymbolled.setdefault(where, set()).add(binary.core)
        self.target.view_of(where).pending = lambda: self.add_symbols(where)
        for listener in self.target.code_listeners:   # breakpoints set on every tile (they read the symbols)
            listener(where)

    def add_symbols(self, where: Coord) -> None:
        """Add the symbol files of the code the host loaded on tile ``where`` since they were
        last added (each such core's firmware and kernels, as ``loaded`` has them)."""
        cores = self.unsymbolled.pop(where, set())
        if not cores:
            return
        self.symbol_moves += 1
        with self.target.on_tile(where):
            for core in sorted(cores):
                binary = None
                try:
                    self.programs.remove_symbol_files(core)
                    for at, binary in sorted(self._loaded.get((where, core), {}).items()):
                        self.programs.add_symbol_file(core, binary.elf, None if binary.kind == "firmware" else at)
                except SessionError as exc:
                    name = binary.name if binary is not None else "code"
                    self.target.warn(f"no symbols for {name} on {where[0]},{where[1]}:{core}: {exc}")

    def add_all_symbols(self) -> None:
        """Add the symbol files of every tile's code loaded since (``add_symbols``)."""
        for where in list(self.unsymbolled):
            self.add_symbols(where)

    def read(self, where: Coord, address: int, n: int) -> bytes:
        """What the host reads once the tiles have run (``Hang`` when it can never change)."""
        self.requests += 1
        if self.halted is not None:
            raise self.halted
        started = time.perf_counter()
        ran = self.settle()
        if ran:
            self.runs.append(time.perf_counter() - started)
        try:
            data = self.grid.read(self._checked(where), address, n)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None
        if ran or not self.waits:
            self.quiet_reads = 0
        elif not self.background(where, address, n):
            if not self.quiet_reads:
                self._polled.clear()
            self.quiet_reads += 1
            self._polled[where, address] = None
            if self.quiet_reads >= HANG_READS:   # reported once: the device answers no more reads
                kind = self.grid.chip.kind
                hang = Hang(self._explained(), [(w, a, kind(w)) for w, a in self._polled])
                where, stop = next(iter(hang.stops.items()))
                self.halted = Halted(where, stop)
                raise hang
        return data

    def _explained(self) -> dict[Coord, Stop]:
        """Each waiting tile's deadlock as ``explain_hang`` reports it (its tile selected), less
        the tiles it calls done (all of them, if it calls every tile done)."""
        out = {}
        for where, stop in self.waits.items():
            with self.target.on_tile(where):
                explained = self.explain_hang(where, stop)
            if explained is not None:
                out[where] = explained
        return out or dict(self.waits)

    def halt(self, stop: Stop) -> None:
        """A front end ends the device's run at ``stop`` (the selected tile's): the host's
        reads raise ``Halted`` from now on."""
        where = self.target.tile_coord
        assert where is not None
        self.halted = Halted(where, stop)

    def hold(self, where: Coord, held: bool) -> None:
        """The host holds tile ``where``'s cores in reset, or releases them; a release of a tile
        with no firmware the builds know is warned of (once a tile: its builds are elsewhere)."""
        self.requests += 1
        self.quiet_reads = 0
        self.grid.hold(self._checked(where), held)
        if not held and self.jit is not None and where not in self._unknown_firmware and not any(
                b.kind == "firmware" for (w, _), on_core in self.loaded.items() if w == where for b in on_core.values()):
            self._unknown_firmware.add(where)
            self.target.warn(f"tile {where[0]},{where[1]}: the host released it with no firmware build tdbg found in "
                             f"{self.jit.folder}: tdbg does not know the code it runs, which may not run as on the "
                             "device, nor its symbols (tdbg reads the builds where the host makes them, on this machine)")

    def settle(self) -> bool:
        """Run the tiles until every core waits or is done; True if any ran.  Each tile runs as
        the session's ``cont`` runs it (breakpoint conditions and ignore counts hold); a stop
        selects its tile and goes to ``on_stop``, once ``defer_stop`` no longer holds it back
        (the host's requests are answered meanwhile, the tiles not run: its print server drains
        what the kernels printed before the stop, so that their lines come before its report;
        at most ``DEFER_REQUESTS`` of them).  The first run after the host wrote a kernel
        first calls ``before_kernels`` (the front end's commands: breakpoints in kernels); one
        after a binary was loaded, ``on_code``."""
        self._identify()
        if self.before_kernels is not None and any(b.kind == "kernel" for d in self._loaded.values() for b in d.values()):
            before, self.before_kernels = self.before_kernels, None
            self.add_all_symbols()      # its breakpoints find the kernels on every tile
            before()
        if self._new_code and self.on_code is not None:
            self._new_code = False
            self.on_code()
        if self.deferred is not None:
            where, stop = self.deferred
            self.deferred_requests += 1
            if self.deferred_requests < DEFER_REQUESTS:
                if self.defer_stop(where):
                    return True
                self.drained_at = self.drained_at or time.monotonic()
                if time.monotonic() - self.drained_at < DEFER_GRACE:
                    return True
            self.deferred, self.drained_at = None, None
            self._stopped(where, stop)
        ran = False
        selected = self.target.tile_coord
        try:
            while True:
                active = self.grid.runnable()
                if not active:
                    return ran
                ran = True
                for where in active:
                    self.target.select_tile(where)
                    stop = self.run.cont()
                    self.waits.pop(where, None)
                    if stop.kind in (StopKind.DEADLOCK, StopKind.EXITED):
                        stop = self.tripped(where) or stop
                    if stop.kind is StopKind.DEADLOCK:
                        self.waits[where] = stop
                    elif stop.kind is not StopKind.EXITED:
                        selected = where
                        if self.defer_stop(where):
                            self.deferred, self.deferred_requests = (where, stop), 0
                            return True
                        self._stopped(where, stop)
        finally:
            if selected is not None:
                self.target.select_tile(selected)

    def _stopped(self, where: Coord, stop: Stop) -> None:
        """Tell the front end of ``stop`` on tile ``where``; it resumes the run or halts the device."""
        self.target.select_tile(where)
        if not self.on_stop(stop):
            self.halted = Halted(where, stop)
            raise self.halted
