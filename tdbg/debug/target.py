"""What every engine service works on (pyOCD's ``Target``): the selected tile, the selected core
and its registers, whether the program has started, and who listens to stops and warnings.

The session's one tile is built when something first asks for it (``Target.view``): a shell
that only quits, asks for help or changes a setting never builds one, nor imports the model.

On a chip (``Session.on_chip``) each tile has its own breakpoints, checkpoints, history and
symbols (a ``TileView``); ``select_tile`` swaps the whole view, so a service that reads
``target.tile`` or ``target.points`` always sees the selected tile's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tdbg.arch import chips
from tdbg.arch.profile import Coord
from tdbg.debug.breakpoints import Book, BreakpointManager
from tdbg.debug.checkpoints import Checkpoints
from tdbg.errors import SessionError
from tdbg.riscv.registers import NUMBERS as REGISTERS

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.elf import ElfImage
    from tdbg.emu.history import History
    from tdbg.emu.tile import Tile
    from tdbg.emu.grid import Grid
    from tdbg.emu.stops import Stop
    from tdbg.symbols.debuginfo import DebugInfo
    from tdbg.symbols.symbol_file import SymbolFile


@dataclass
class TileView:
    """One tile and what the debugger keeps of it: breakpoints and watchpoints, checkpoints,
    the undo records of single steps, and each core's debug information and symbol files."""

    tile: Tile
    points: BreakpointManager
    checkpoints: Checkpoints
    history: History
    debug_infos: dict[str, DebugInfo | None] = field(default_factory=dict)
    #: Firmware whose ``DebugInfo`` is made when the debug information is first asked for
    #: (``Programs.debug_infos``): a run that asks no source question never imports the DWARF modules.
    unread: dict[str, ElfImage] = field(default_factory=dict)
    files: dict[str, list[SymbolFile]] = field(default_factory=dict)   # code beyond the firmware
    opened_cores: set[str] = field(default_factory=set)   # cores whose debug information was opened
    #: Adds the symbol files of code loaded since they were last read (a host's kernels: their
    #: DWARF is moved to the load address only when something asks for the tile's symbols).
    pending: Callable[[], object] | None = None

    @property
    def symbol_files(self) -> dict[str, list[SymbolFile]]:
        """Each core's code beyond its firmware, by core name (``pending`` added first)."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending()
        return self.files

    @classmethod
    def of(cls, tile: Tile, book: Book, where: Coord | None = None) -> TileView:
        """A view of ``tile`` (at ``where`` on a chip) whose breakpoints are in ``book``."""
        from tdbg.emu.history import History

        return cls(tile, BreakpointManager(tile, where, book), Checkpoints(tile), History())


class Target:
    """The selected tile (``view``) and core (``current``), over which the services work.

    ``make_tile`` builds the session's one tile, and ``ready`` (the session's firmware load)
    runs right after, when ``view`` is first read; a chip's tiles come from its grid instead."""

    def __init__(self, make_tile: Callable[[], Tile], ready: Callable[[], object] | None = None) -> None:
        self.book = Book()             # the breakpoints, over every tile of a chip
        self._make_tile, self._ready = make_tile, ready
        self._when_built: list[Callable[[], object]] = []
        self.current = "T0"
        self.started = False          # the tile has run since it was loaded or reset
        self.grid: Grid | None = None  # a chip's tiles (``Session.on_chip``); else the one tile
        self.selections = 0           # counts ``select_tile`` calls (what is per selection resets)
        self._views: dict[Coord, TileView] = {}
        self.stop_listeners: list[Callable[[Stop], None]] = []   # told of every stop a user sees
        self.load_warnings: list[str] = []  # said once by whoever shows the session to a user
        self.warning_listeners: list[Callable[[str], None]] = []   # told of each warning as it comes
        self.code_listeners: list[Callable[[Coord], None]] = []   # told of a tile whose code a host loaded

    # -- the selected tile ---------------------------------------------------------------------------
    def __getattr__(self, name: str) -> object:
        """``view`` read before anything set it: the session's one tile, built now (then
        ``ready``), so every later read is a plain attribute's."""
        if name != "view":
            raise AttributeError(name)
        self.view = TileView.of(self._make_tile(), self.book)
        ready, self._ready = self._ready, None
        if ready is not None:
            ready()
        callbacks, self._when_built = self._when_built, []
        for callback in callbacks:
            callback()
        return self.view

    @property
    def built(self) -> bool:
        """Whether a tile is selected yet (reading ``tile`` builds the session's one)."""
        return "view" in self.__dict__

    def when_built(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the tile exists and holds its firmware: now, or right after it
        is built (a shell's snapshots of the loaded state, taken before anything changes it)."""
        if self.built:
            callback()
        else:
            self._when_built.append(callback)

    @property
    def tile(self) -> Tile:
        return self.view.tile

    @property
    def points(self) -> BreakpointManager:
        return self.view.points

    @property
    def checkpoints(self) -> Checkpoints:
        return self.view.checkpoints

    @property
    def history(self) -> History:
        return self.view.history

    @property
    def tile_coord(self) -> Coord | None:
        """The selected tile's NoC coordinate on a chip (None: the session's one tile)."""
        return self.tile.profile.noc.tile if self.grid is not None else None

    def select_tile(self, where: Coord) -> None:
        """Make the chip's tile at ``where`` the one the session's commands see (its cores,
        breakpoints, checkpoints and history are its own); the tile is modelled from now on."""
        if self.grid is None:
            raise SessionError("this session has one tile: start tdbg as a simulator (tdbg simulator) for a grid")
        if where not in self.grid.chip.noc.tensix:
            raise SessionError(f"no Tensix tile at {where[0]},{where[1]} on the {self.grid.chip.name} chip")
        if self._views:   # the selected tile is one of the grid's
            self._views[self.tile.profile.noc.tile] = self.view
        view = self._views.get(where)
        if view is None:
            view = self._views[where] = TileView.of(self.grid.wake(where), self.book, where)
        self.view = view
        self.selections += 1

    def view_of(self, where: Coord) -> TileView:
        """The view of the chip's tile at ``where``, the selection left as it is."""
        if where == self.tile_coord:
            return self.view
        view = self._views.get(where)
        if view is None:
            with self.on_tile(where):
                view = self.view
        return view

    def modelled_tiles(self) -> list[Coord]:
        """The chip's tiles a view was made of (selected, or woken by the host), in NoC order."""
        if self._views:
            self._views[self.tile.profile.noc.tile] = self.view
        return sorted(self._views, key=lambda c: (c[1], c[0]))

    @contextmanager
    def on_tile(self, where: Coord) -> Iterator[Coord]:
        """Select tile ``where`` for a while; yields it."""
        saved = self.tile_coord
        self.select_tile(where)
        try:
            yield where
        finally:
            if saved is not None:
                self.select_tile(saved)

    # -- the selected core ---------------------------------------------------------------------------
    @property
    def core(self) -> Core:
        return self.tile.cores[self.current]

    @property
    def pc(self) -> int:
        """The current core's pc."""
        return self.core.pc

    @property
    def tensix_thread(self) -> int | None:
        """The current core's Tensix thread (T0-T2: 0-2; None for B and NC)."""
        return self.core.thread

    @property
    def last_stop(self) -> Stop | None:
        """The current core's last stop (None before it first stopped)."""
        return self.core.last_stop

    def select_core(self, name: str) -> str:
        """Make ``name`` (a core's name, tt-exalens' too) the current core; its name."""
        try:
            self.current = self.tile.core_named(name).name
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        return self.current

    @contextmanager
    def on_core(self, name: str) -> Iterator[str]:
        """Make ``name`` the current core for a while (e.g. to describe each core's frame);
        yields its name."""
        saved = self.current
        self.select_core(name)
        try:
            yield self.current
        finally:
            self.current = saved

    def thread_id(self, name: str) -> int:
        """GDB's thread number of a core (its place in the profile's core table, from 1)."""
        return list(self.tile.cores).index(name) + 1

    def core_by_thread(self, text: str) -> str:
        """A core from a GDB thread number or a core name; on a chip ``X,Y:CORE`` selects tile
        X,Y first."""
        tile, sep, rest = text.partition(":")
        if sep and "," in tile:
            try:
                self.select_tile(chips.parse_coord(tile))
            except ValueError as exc:
                raise SessionError(str(exc)) from None
            text = rest
        names = list(self.tile.cores)
        if text.isdigit():
            if not 1 <= int(text) <= len(names):
                raise SessionError(f"Invalid thread ID: {text}")
            return names[int(text) - 1]
        try:
            return self.tile.core_named(text).name
        except ValueError as exc:
            raise SessionError(str(exc)) from None

    # -- registers -----------------------------------------------------------------------------------
    def register(self, name: str) -> int:
        """``pc`` or an integer register by ABI name or ``xN``."""
        if name == "pc":
            return self.core.pc
        try:
            return self.core.reg(REGISTERS[name])
        except KeyError:
            raise SessionError(f"Invalid register `{name}'") from None

    def registers(self) -> list[int]:
        """The current core's integer registers x0..x31."""
        return self.core.regs()

    def set_register(self, name: str, value: int) -> None:
        """Write ``pc`` or an integer register (by ABI name or ``xN``) of the current core."""
        if name == "pc":
            self.core.pc = value
        elif name in REGISTERS:
            self.core.set_reg(REGISTERS[name], value)
        else:
            raise SessionError(f"Invalid register `{name}'")

    # -- listeners -----------------------------------------------------------------------------------
    def warn(self, text: str) -> None:
        """A warning for the user (one line): kept in ``load_warnings`` and passed to each of
        ``warning_listeners`` (the command line prints it on stderr, as GDB's warnings go)."""
        self.load_warnings.append(text)
        for listener in list(self.warning_listeners):
            listener(text)

    def announce(self, stop: Stop) -> Stop:
        """A front end's run-control request ended with ``stop``: tell the listeners (the shell's
        displays, context panel and traces; as ``bdb`` calls its ``user_*`` hooks).  Inner
        steps of a source-level step are not announced, only the stop the user sees."""
        for listener in list(self.stop_listeners):
            listener(stop)
        return stop
