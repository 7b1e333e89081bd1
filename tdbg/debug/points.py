"""Breakpoints and watchpoints as the user sets them: locations resolved on every core's
programs (GDB's rule over its program spaces), watches on memory or on ``Dst`` rows; kept by
the tiles' ``Book`` (``tdbg.debug.breakpoints``): on a chip a breakpoint is set on every tile
unless one is named."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.profile import Coord
from tdbg.debug.breakpoints import Breakpoint, Location, NoSuchBreakpoint, WatchScope
from tdbg.debug.frames import Backtrace
from tdbg.debug.locations import Locations
from tdbg.debug.memory import check_range
from tdbg.debug.target import Target
from tdbg.emu.states import Disposition
from tdbg.errors import SessionError

if TYPE_CHECKING:
    from tdbg.symbols import linespec
    from tdbg.emu.core import Watch


class Points:
    """Sets, enables and deletes the selected tile's breakpoints and watchpoints."""

    def __init__(self, target: Target, locations: Locations, backtrace: Backtrace) -> None:
        self.t, self.locations, self.backtrace = target, locations, backtrace
        target.code_listeners.append(self.code_loaded)

    def break_at(self, location: str | int, temporary: bool = False, thread: str | None = None,
                 all_tiles: bool = True) -> Breakpoint:
        """A breakpoint at every location of ``location`` in every core's program (the current
        core's first), or only on core ``thread``; an address is set on every core with
        firmware.  A ``FILE:LINE`` gets the cores that have code for exactly that line; only
        when none has, every core's code for the next line that has code in one of them
        (GDB's rule over its program spaces); ``Breakpoint.line`` says which line that was.
        On a chip, with ``all_tiles`` (no tile named), on every tile modelled (the selected
        one first) and on each tile whose code loads later (``code_loaded``), as GDB sets a
        breakpoint on every inferior; else on the selected tile only."""
        t = self.t
        tiles = [None] if t.grid is None or not all_tiles else \
            [t.tile_coord] + [w for w in t.modelled_tiles() if w != t.tile_coord]
        locations: list[Location] = []
        line: int | None = None
        error: SessionError | None = None
        for where in tiles:
            try:
                if where is None:
                    found, line = self._resolve(location, thread, None)
                else:
                    with t.on_tile(where):
                        found, line = self._resolve(location, thread, line)
                locations += found
            except SessionError as exc:
                error = error or exc
        if not locations:
            raise error or SessionError("No firmware to set a breakpoint in.")
        disposition = Disposition.DELETE if temporary else Disposition.KEEP
        bp = t.points.add_breakpoint(locations, disposition, thread, line)
        bp.spec, bp.all_tiles = location, t.grid is not None and all_tiles
        return bp

    def _resolve(self, location: str | int, thread: str | None, line: int | None) -> tuple[list[Location], int | None]:
        """``break_at``'s locations on the selected tile, and the line they are on (``line``: the
        one an earlier tile's locations are on)."""
        from tdbg.symbols import linespec   # the DWARF records: imported when first needed

        t, tile = self.t, self.t.tile
        symbol_files = t.view.symbol_files
        with_code = [n for n in tile.cores if tile.image(n) is not None or symbol_files.get(n)]
        cores = [thread] if thread else [t.current] + [n for n in with_code if n != t.current]
        if thread and thread not in tile.cores:
            raise SessionError(f"Unknown thread {thread}.")
        cores = [n for n in cores if n in with_code or isinstance(location, int)]
        found: dict[str, linespec.Resolved] = {}
        error: SessionError | None = None
        for name in cores:
            with t.on_core(name):
                try:
                    found[name] = self.locations.resolved_in_files(name, location, line)
                except SessionError as exc:
                    error = error or exc
        spec = linespec.parse(location, None) if isinstance(location, str) else None
        line = line or (spec.line if spec is not None else None)
        if found and not any(r.sites for r in found.values()):   # FILE:LINE that no core has
            later = [r.next_line for r in found.values() if r.next_line is not None]
            if later:
                line = min(later)
                for name in found:
                    with t.on_core(name):
                        found[name] = self.locations.resolved_in_files(name, location, line)
        locations = [Location(name, site.address, site.function, site.line, t.tile_coord)
                     for name, resolved in found.items() for site in resolved.sites]
        if not locations:
            if error is None and spec is not None and spec.line is not None:
                error = SessionError(f'No line {spec.line} in file "{spec.file}".')
            raise error or SessionError("No firmware to set a breakpoint in.")
        return locations, line

    def code_loaded(self, where: Coord) -> None:
        """Tile ``where``'s code changed (the host loaded a binary): each breakpoint set on every
        tile is placed again there (its locations on that tile resolved anew; none if absent)."""
        t = self.t
        for bp in [bp for bp in t.points.breakpoints.values() if bp.all_tiles and bp.spec is not None]:
            t.points.drop_locations(bp, where)
            with t.on_tile(where):
                try:
                    found, _ = self._resolve(bp.spec, bp.thread, bp.line)
                except SessionError:
                    continue
                t.points.add_locations(bp, found)

    def watch(self, address: int, length: int, kind: str = "write") -> Watch:
        """Stop on an access to ``[address, address+length)`` by any core (a watch on private
        memory: by the current core, whose memory it is)."""
        from tdbg.emu.core import Watch

        if kind not in ("write", "read", "access"):
            raise SessionError(f"watch kind must be write, read or access, not {kind!r}")
        if length <= 0:
            raise SessionError("Cannot watch zero bytes.")
        check_range(address, length)
        t = self.t
        owner = t.current if t.core.owns_private(address) else None
        frames = self.backtrace.frames() if t.tile.image(t.current) else []
        scope = None
        if len(frames) > 1 and frames[0].sp <= address < frames[0].cfa:  # a local of this frame
            scope = WatchScope(t.current, frames[1].pc, frames[0].cfa)
        return t.points.add_watch(Watch(t.points.take_number(), address, length, kind, core=owner), scope)

    def watch_dst_row(self, row: int, kind: str = "write") -> Watch:
        """Watch ``Dst`` row ``row`` in the view the current core's window uses (Dst32b for
        fmt 0/1, else Dst16b): window accesses by any T core and Tensix instructions that write
        it stop."""
        from tdbg.emu.core import Watch

        if kind not in ("write", "access"):
            raise SessionError("Dst rows can be watched for writes (watch) or any access (awatch)")
        t = self.t
        rows = t.tile.profile.tensix.dst_rows
        if not 0 <= row < rows:
            raise SessionError(f"Dst row {row} out of range 0..{rows - 1}")
        tensix = t.tile.tensix
        thread = t.core.thread if t.core.thread is not None else 0
        if tensix.window.ctrl(thread).fmt <= 1:
            high = int(tensix.dst.row32[row])
            rows, view = frozenset({high, high + 8}), "Dst32b"
        else:
            rows, view = frozenset({int(tensix.dst.row16[row])}), "Dst16b"
        profile = t.tile.profile
        assert profile.dst_window_base is not None
        watch = Watch(t.points.take_number(), profile.dst_window_base, profile.dst_window_size, kind, rows, view)
        return t.points.add_watch(watch)

    def delete(self, number: int) -> None:
        """Delete breakpoint or watchpoint ``number`` on every core (whichever is current)."""
        try:
            self.t.points.delete(number)
        except NoSuchBreakpoint:
            raise SessionError(f"No breakpoint number {number}.") from None

    def enable(self, number: int, enabled: bool = True, disposition: Disposition | None = None, count: int = 0) -> None:
        """Enable or disable breakpoint or watchpoint ``number`` (``BreakpointManager.enable``:
        GDB's ``enable``, ``enable once``, ``enable count C``, ``enable delete``, ``disable``)."""
        try:
            self.t.points.enable(number, enabled, disposition, count)
        except NoSuchBreakpoint:
            raise SessionError(f"No breakpoint number {number}.") from None

    @property
    def breakpoints(self) -> dict[int, Breakpoint]:
        """The breakpoints by number (change them through ``enable`` and ``delete``)."""
        return self.t.points.breakpoints

    @property
    def watchpoints(self) -> dict[int, Watch]:
        """The watchpoints by number."""
        return self.t.points.watchpoints

    @property
    def last_hits(self) -> list[Breakpoint]:
        """The breakpoints that made the last breakpoint stop."""
        return self.t.points.last_hits
