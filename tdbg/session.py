"""The public Python API of tdbg: load firmware, run it, stop it, look at the tile.

The shell, the GDB stub and the expression bridge are thin layers over ``Session``, the only
door to the tile: they ask its typed queries and give it their writes, which go through the
device model as a core's would.  Its parts live in modules named for what they hold: the
Tensix side (``tdbg.tensix_access``, whose typed copies are ``tdbg.snapshots``), breakpoints
and watchpoints (``tdbg.breakpoints``), checkpoints (``tdbg.checkpoints``).  Example::

    s = Session("kernel.c")               # a .c file is built with the bundled toolchain
    s.break_at("main")
    stop = s.cont()
    s.read_u32(s.symbol("results").addr)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

import tdbg
from tdbg import linespec
from tdbg.breakpoints import Breakpoint, BreakpointManager, Location, NoSuchBreakpoint, WatchScope
from tdbg.checkpoints import CheckpointError, Checkpoints
from tdbg.cxxnames import demangle
from tdbg.debuginfo import DebugInfo, Frame, Site
from tdbg.emu.core import Core, CoreState, Disposition, Watch
from tdbg.emu.elf import ElfImage, ElfLoadError, one_line
from tdbg.emu.history import History
from tdbg.expr.values import PrintSettings
from tdbg.emu.devices.device import Stall, Wait
from tdbg.emu.stops import Stop, StopKind
from tdbg.emu.pushlog import PushLog
from tdbg.emu.tile import Policy, Tile, Unreadable
from tdbg.toolchain.zig import SOURCE_SUFFIXES, ToolchainError, build, demo_source
from tdbg.hang import WaitReport, explain
from tdbg.sourcepath import SourcePath
from tdbg.hostfiles import MAX_RESTORE_BYTES, HostFileError, host_path, read_host_file, write_host_file
from tdbg.riscv import NUMBERS as REGISTERS
from tdbg.riscv_ext import arch_extensions
from tdbg.errors import SessionError
from tdbg.snapshots import DstContents
from tdbg.tensix import l1_data
from tdbg.tensix_access import TensixAccess
from tdbg.tensix.events import Category, TensixEvent
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.arch import chips
from tdbg.arch.profile import Coord, Profile

if TYPE_CHECKING:
    from tdbg.emu.grid import Grid
    from tdbg.hostport import HostPort
    from tdbg.disasm import Disassembler
    from tdbg.emu.noc import Transfer

Programs = Mapping[str, "str | Path | None"]   # core name -> ELF or C file



class Shell(Protocol):
    """A command shell over a session (``tdbg.commands.Interpreter``): ``execute`` runs its
    lines there.  The session knows only this protocol; ``tdbg.default_shell`` makes one."""

    failed: bool   # a command since the flag was last cleared failed

    def capture(self, line: str) -> str:
        """Run one command line and return what it printed."""
        ...


class Host(Protocol):
    """Whoever plays the host around the tile's runs (``Session.host``; tt-metal's, in
    ``tdbg.ttmetal``): told when the tile is put back in its loaded state, and given the word
    whenever every core waits, as a real host acts while the firmware waits for it."""

    def restarted(self, session: Session) -> None:
        """The tile is back in its loaded state, its set-up written again."""

    def saved(self) -> object:
        """What the host knows of the run so far (a checkpoint keeps it with the tile)."""

    def resumed(self, saved: object) -> None:
        """The tile is back in a checkpoint: the host knows again what ``saved`` says."""

    def idle(self, session: Session, stop: Stop) -> Stop | None:
        """No core can run (``stop`` names every wait): act and return None to run on, or
        return the stop to report (``StopKind.HOST`` when the host's work is done)."""


class RunStatus(str, Enum):
    """Whether the program is being run, in GDB's sense."""

    LOADED = "not started"     # at its entry (memory written since then is kept by ``run``)
    STOPPED = "stopped"        # started, and stopped somewhere
    EXITED = "exited"          # every core with firmware has exited or parked


@dataclass(frozen=True)
class SetupWrite:
    """Memory written while the program was not started (a ``restore``, ``set var``, a GDB
    client's ``M`` packet): the host's set-up, written again after each restart."""

    core: str
    address: int
    data: bytes


@dataclass
class SymbolFile:
    """An ELF whose code a host put on a core at another address than it was linked at (GDB's
    ``add-symbol-file``): its symbols and DWARF moved to where the code runs (``tdbg.emu.moved``),
    the DWARF opened when first needed."""

    image: ElfImage
    info: DebugInfo | None
    opened: bool = False

    def holds(self, address: int) -> bool:
        return any(lo <= address < hi for lo, hi in self.image.exec_ranges)


#: The most bytes one read or write of memory moves (L1 is 1.5 MiB; a bigger request is a mistake
#: that would allocate the whole size first).
MAX_TRANSFER = 16 << 20

T = TypeVar("T")


def _check_range(address: int, size: int) -> None:
    """``[address, address + size)`` must lie in the 32-bit address space and be at most
    ``MAX_TRANSFER`` bytes: checked before any work starts."""
    if size > MAX_TRANSFER:
        raise SessionError(f"Cannot access {size} bytes at once (at most {MAX_TRANSFER >> 20} MiB).")
    if address < 0 or size < 0 or address + size > 1 << 32:
        raise SessionError(f"Cannot access memory at address {address:#x}: outside the 32-bit address space.")


class _CheckedDebugInfo:
    """A ``DebugInfo`` whose methods turn what corrupt DWARF makes pyelftools raise into one
    ``SessionError`` line (its own ``KeyError``/``FileNotFoundError`` messages pass through)."""

    def __init__(self, info: DebugInfo, path: Path) -> None:
        self._info, self._path = info, path

    def __getattr__(self, name: str) -> object:
        value = getattr(self._info, name)
        if not callable(value):
            return value

        def checked(*args: object, **kwargs: object) -> object:
            try:
                return value(*args, **kwargs)
            except (SessionError, KeyError, OSError):
                raise
            except Exception as exc:  # noqa: BLE001  (corrupt DWARF read lazily)
                raise SessionError(one_line(f"{self._path}: unusable debug information "
                                            f"({type(exc).__name__}: {exc})")) from None

        return checked


def load_program(path: str | Path, core: str = "T0") -> ElfImage:
    """An ELF, or a C or C++ file built with the bundled toolchain first (as ``core``'s firmware)."""
    path = Path(path)
    if path.suffix in SOURCE_SUFFIXES:
        path = build(path, core=core)
    return ElfImage.load(path)


class Session(TensixAccess):
    """One debugging session over one tile: its cores, their firmware and debug information,
    the run model (the tile's, with GDB's ``scheduler-locking``), memory and registers as the
    current core sees them; breakpoints and watchpoints (``points``, a ``BreakpointManager``)
    and ``checkpoints`` through their facades here; the coprocessor through ``TensixAccess``."""

    LOCKING = ("off", "on", "step")

    def __init__(self, program: str | Path | Programs | None = None, profile: Profile = BLACKHOLE) -> None:
        self.tile = Tile(profile)
        self.current = "T0"
        self.points = BreakpointManager(self.tile)   # breakpoints and watchpoints
        self.checkpoints = Checkpoints(self.tile)
        self.debug_infos: dict[str, DebugInfo | None] = {}
        self.symbol_files: dict[str, list[SymbolFile]] = {}   # a core's code beyond its firmware
        #: Symbol files read (and moved) once: (path, its mtime, text address) -> image, DWARF.
        self._symbol_images: dict[tuple, tuple[ElfImage, DebugInfo | None]] = {}
        self._in_file: tuple[str, SymbolFile | None] | None = None   # (core, file) symbols come from
        self.scheduler_locking = "off"
        self.started = False          # the tile has run since it was loaded or reset
        self.written_after_exit = False  # memory written since every core finished (run drops it)
        self.watch_after = True       # report a watchpoint after its access (GDB's view); the
                                      # stub turns it off: gdb steps over the access itself
        self.shell_factory: Callable[[Session], Shell] = tdbg.default_shell   # what ``execute`` runs lines in
        self.shell: Shell | None = None
        self._interrupted = False
        self._expr_context = None
        self.history = History()     # undo records of single steps (reverse_stepi)
        self.print_settings = PrintSettings()   # GDB's set print pretty / demangle / asm-demangle
        self.source_path = SourcePath()         # GDB's set substitute-path and directory
        self.stop_listeners: list[Callable[[Stop], None]] = []   # told of every stop a user sees
        self.load_warnings: list[str] = []  # said once by whoever shows the session to a user
        self.warning_listeners: list[Callable[[str], None]] = []   # told of each warning as it comes
        self._opened_cores: set[str] = set()   # cores whose debug information has been opened
        self.setup: list[SetupWrite] = []   # memory written while the program was not started
        self.replay_setup = True            # restart (run, kill) writes the set-up again
        self._replaying = False
        self.host: Host | None = None      # plays the host around the runs (Host)
        programs = program if isinstance(program, Mapping) else {"T0": demo_source() if program is None else program}
        for name, path in programs.items():
            if path is not None:
                self.load(name, path, reset=False)
        self.current = next(iter(self.tile.programs), "T0")
        self.tile.reset()
        self.grid: Grid | None = None       # a chip's tiles (``on_chip``); else the one tile
        self.host_port: HostPort | None = None
        self._views: dict[Coord, tuple] = {}   # each tile's own: tile, points, checkpoints, history, symbols

    # -- a chip's grid of tiles (``tdbg.emu.grid``) --------------------------------------------------
    @classmethod
    def on_chip(cls, chip: str, profile: Profile = BLACKHOLE) -> Session:
        """A session over chip ``chip``'s grid (``tdbg.arch.chips``: "1x2", "full"), as the
        simulator server presents it to a host; its first worker selected, every core held."""
        from tdbg.emu.grid import Grid
        from tdbg.hostport import HostPort

        try:
            layout = chips.chip(chip, profile)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        session = cls({}, profile)
        session.grid = Grid(profile, layout)
        session.host_port = HostPort(session, session.grid)
        session.select_tile(layout.workers[0])
        return session

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
            self._views[self.tile.profile.noc.tile] = (self.tile, self.points, self.checkpoints, self.history,
                                                        self.debug_infos, self.symbol_files, self._opened_cores)
        view = self._views.get(where)
        if view is None:
            tile = self.grid.wake(where)
            view = (tile, BreakpointManager(tile), Checkpoints(tile), History(), {}, {}, set())
            self._views[where] = view
        (self.tile, self.points, self.checkpoints, self.history, self.debug_infos, self.symbol_files,
         self._opened_cores) = view
        self._expr_context = None

    # -- programs -----------------------------------------------------------------------------------
    def load(self, core: str, program: str | Path | None, reset: bool = True, local_init: int | None = None) -> None:
        """Give ``core`` its firmware (an ELF, or C built with the bundled toolchain; None takes
        it away), then put the tile back in its loaded state.  ``local_init``: the L1 address
        where a host puts the bytes the ELF has in the core's private memory (tt-metal's
        ``MEM_*_INIT_LOCAL_L1_BASE_SCRATCH``; ``tdbg.emu.loader``)."""
        try:
            name = self.tile.core_named(core).name
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        try:
            image = None if program is None else load_program(host_path(program), name)
            self.tile.load(name, image, local_init, reset)
            self.started = False
        except (ElfLoadError, ToolchainError, OSError, HostFileError) as exc:
            raise SessionError(str(exc)) from None
        self.debug_infos[name] = None if image is None else self._debug_info(image)
        self._opened_cores.discard(name)
        self.symbol_files.pop(name, None)
        self.points.sync()
        self.history.clear()

    def add_symbol_file(self, core: str, program: str | Path, text_address: int | None = None) -> SymbolFile:
        """Symbols and DWARF of more code on ``core`` (GDB's ``add-symbol-file FILE ADDR``):
        the ELF ``program``, its code moved to run at ``text_address`` (None: where it is
        linked).  The debugger names, lists and breaks in that code as in the firmware's."""
        from tdbg.emu.moved import move_code

        try:
            name = self.tile.core_named(core).name
            path = host_path(program)
            key = (path, path.stat().st_mtime_ns, text_address)
            known = self._symbol_images.get(key)
            if known is None:
                image = ElfImage.load(path)
                if text_address is not None and image.exec_ranges:
                    bias = text_address - min(lo for lo, _ in image.exec_ranges)
                    image = ElfImage.parse(move_code(image.raw, bias), path)
                known = self._symbol_images[key] = (image, self._debug_info(image))
        except (ElfLoadError, OSError, HostFileError, ValueError) as exc:
            raise SessionError(str(exc)) from None
        added = SymbolFile(*known)
        self.symbol_files.setdefault(name, []).append(added)
        return added

    def remove_symbol_files(self, core: str) -> None:
        """Forget the symbol files added to ``core`` (GDB's ``remove-symbol-file``)."""
        self.symbol_files.pop(self.tile.core_named(core).name, None)

    def _symbol_file(self, core: str, address: int | None = None) -> SymbolFile | None:
        """The symbol file of ``core`` whose code holds ``address`` (default: the core's PC),
        or the one a lookup is confined to; None: the firmware's."""
        if self._in_file is not None and self._in_file[0] == core:
            return self._in_file[1]
        at = self.tile.cores[core].pc if address is None else address
        return next((f for f in self.symbol_files.get(core, ()) if f.holds(at)), None)

    @contextmanager
    def symbols_from(self, core: str, symbol_file: SymbolFile | None = None) -> Iterator[None]:
        """Look ``core``'s symbols up in ``symbol_file`` (None: its firmware) for a while,
        wherever its PC is (e.g. a firmware global while the core runs a kernel)."""
        saved, self._in_file = self._in_file, (core, symbol_file)
        try:
            yield
        finally:
            self._in_file = saved

    def _opened_file(self, symbol_file: SymbolFile) -> DebugInfo | None:
        """A symbol file's debug information, opened on first use (as ``_opened``)."""
        if symbol_file.info is not None and not symbol_file.opened:
            try:
                symbol_file.info.open()
            except Exception as exc:  # noqa: BLE001
                symbol_file.info = None
                self.warn(one_line(f"warning: {symbol_file.image.path}: its debug information is unusable "
                                   f"({type(exc).__name__}: {exc})"))
            symbol_file.opened = True
        return symbol_file.info

    def describe_pc(self, core: str, pc: int) -> str:
        """``0x0000b05c in main at deadlock_t1.c:9``; in an inlined call ``... in
        cb_wait_front at dataflow_api.h:489, inlined in kernel_main at reader.cpp:40``
        (files by name, from the debug information of the code at ``pc``)."""
        info = self.debug_info_at(core, pc)
        where = f"{pc:#010x}"
        function = info.function_at(pc) if info is not None else None
        if info is None or function is None:
            with self.on_core(core):
                name = self.symbolize(pc)
            return f"{where} {name}" if name else where
        chain = info.inline_chain(pc)
        line = info.line_for(pc)
        where += f" in {chain[0].name if chain else function.name}"
        if line is not None:
            where += f" at {line.file.name}:{line.line}"
        if chain and chain[-1].call_file is not None:
            where += f", inlined in {function.name} at {chain[-1].call_file.name}:{chain[-1].call_line}"
        return where

    def stream_writer(self, address: int) -> tuple[str, int] | None:
        """The core and pc of the last store to the NoC overlay stream register at ``address``
        (None: no store since the reset)."""
        base = self.tile.overlay.spec.base
        try:
            stream, name, _ = self.tile.overlay.register(address - base)
        except TensixEvent as exc:
            raise SessionError(f"{address:#x}: {exc}") from None
        return self.tile.overlay.writers.get((stream, name))

    def debug_info_at(self, core: str, pc: int) -> DebugInfo | None:
        """The debug information that describes ``core``'s code at ``pc`` (a symbol file's, or
        the firmware's)."""
        found = self._symbol_file(core, pc)
        return self._opened_file(found) if found is not None else self._opened(core)

    def _debug_info(self, image: ElfImage) -> DebugInfo | None:
        """The DWARF of ``image``, read when a source-level question first needs it
        (``_opened``); its sources are found through the session's ``source_path``."""
        info = DebugInfo.load(image)
        if info is not None:
            info.source_path = self.source_path
        return info

    def _opened(self, core: str) -> DebugInfo | None:
        """``core``'s debug information, opened on first use: DWARF too corrupt to open leaves
        the program without source-level debugging, with a warning (``warn``) the first time,
        never without the program."""
        info = self.debug_infos.get(core)
        if info is None or core in self._opened_cores:
            return info
        try:
            info.open()
        except Exception as exc:  # noqa: BLE001  (pyelftools raises many kinds on corrupt DWARF)
            self.debug_infos[core] = None
            self.warn(one_line(f"warning: {self.tile.image(core).path}: its debug information is unusable "
                               f"({type(exc).__name__}: {exc}); symbols and machine-level debugging still work"))
            return None
        self._opened_cores.add(core)
        return info

    def warn(self, text: str) -> None:
        """A warning for the user (one line): kept in ``load_warnings`` and passed to each of
        ``warning_listeners`` (the command line prints it on stderr, as GDB's warnings go)."""
        self.load_warnings.append(text)
        for listener in list(self.warning_listeners):
            listener(text)

    @property
    def status(self) -> RunStatus:
        if not self.started:
            return RunStatus.LOADED
        return RunStatus.EXITED if self.tile.finished() else RunStatus.STOPPED

    @property
    def image(self) -> ElfImage:
        """The current core's program: the symbol file its PC is in, else its firmware."""
        found = self._symbol_file(self.current) if self.symbol_files else None
        if found is not None:
            return found.image
        image = self.tile.image(self.current)
        if image is None:
            raise SessionError(f"No symbol table is loaded for {self.current}.  Use the \"file {self.current} FILE\" command.")
        return image

    @property
    def debug(self) -> DebugInfo | None:
        """The current core's debug information (None without firmware or DWARF).  Its parts
        that are read only when asked (types, variables, frames) may turn out corrupt: such a
        failure is a ``SessionError`` line naming the file, never an internal error."""
        found = self._symbol_file(self.current) if self.symbol_files else None
        if found is not None:
            info = self._opened_file(found)
            return None if info is None else _CheckedDebugInfo(info, found.image.path)  # type: ignore[return-value]
        info = self._opened(self.current)
        return None if info is None else _CheckedDebugInfo(info, self.tile.image(self.current).path)  # type: ignore[return-value]

    @property
    def _core(self) -> Core:
        return self.tile.cores[self.current]

    @property
    def pc(self) -> int:
        """The current core's pc."""
        return self._core.pc

    @property
    def tensix_thread(self) -> int | None:
        """The current core's Tensix thread (T0-T2: 0-2; None for B and NC)."""
        return self._core.thread

    @property
    def last_stop(self) -> Stop | None:
        """The current core's last stop (None before it first stopped)."""
        return self._core.last_stop

    def restart(self, checkpoint: int | None = None) -> None:
        """Back to the loaded state with the set-up written again (``setup``; unless
        ``replay_setup`` is off), or to checkpoint N; breakpoints and watchpoints stay."""
        self.history.clear()
        if checkpoint is None:
            self.tile.reset()
            self.started = False
            if self.replay_setup:
                self._replaying = True
                try:
                    for write in self.setup:
                        with self.on_core(write.core):
                            self.write_memory(write.address, write.data)
                finally:
                    self._replaying = False
            if self.host is not None:
                self.host.restarted(self)
            return
        try:
            host = self.checkpoints.restore(checkpoint)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None
        if self.host is not None and host is not None:
            self.host.resumed(host)
        self.started = True

    def start_over(self) -> None:
        """What GDB's ``run``, ``start`` and ``starti`` do first: the tile back to its loaded
        state if it has run, with the set-up written before the first run written again
        (``setup``: the host's inputs, e.g. what ``restore`` put in L1), and every
        breakpoint's and watchpoint's hit count back to zero (GDB's run_command_1; measured
        with gdb-multiarch 13: a second ``run`` reports "already hit 1 time")."""
        if self.started:
            self.restart()
        self.written_after_exit = False
        self.points.reset_hits()

    def starti(self) -> Stop:
        """GDB's ``starti``: the program from its loaded state, stopped before its first
        instruction (a breakpoint there is not counted)."""
        self.start_over()
        self.started = True
        return Stop(StopKind.STEP, self.current, self._core.pc, detail="entry")

    # -- checkpoints (``tdbg.checkpoints``) ----------------------------------------------------------
    def checkpoint(self) -> int:
        """Save the whole tile (L1 compressed); returns the checkpoint's number.  Refused when
        the checkpoints would hold more than ``checkpoint_budget`` bytes."""
        try:
            return self.checkpoints.save(self.host.saved() if self.host is not None else None)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    @property
    def checkpoint_budget(self) -> int:
        """Bytes all checkpoints may hold."""
        return self.checkpoints.budget

    @checkpoint_budget.setter
    def checkpoint_budget(self, nbytes: int) -> None:
        self.checkpoints.budget = nbytes

    def checkpoint_memory(self, number: int | None = None) -> int:
        """Bytes held by checkpoint ``number``, or by all of them (``info checkpoints``)."""
        try:
            return self.checkpoints.memory(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def checkpoint_pc(self, number: int, core: str | None = None) -> int | None:
        """Where ``core`` (default: the current one) was in checkpoint ``number``; None when
        the core had not been created then."""
        try:
            return self.checkpoints.pc(number, core or self.current)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def delete_checkpoint(self, number: int) -> None:
        try:
            self.checkpoints.delete(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def checkpoint_dst(self, number: int) -> DstContents:
        """``Dst`` as checkpoint ``number`` holds it, through today's row mapping."""
        try:
            bits, written = self.checkpoints.dst_storage(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None
        return self.dst_contents().with_storage(bits, written)

    def reverse_stepi(self, count: int = 1) -> Stop:
        """Undo the last ``count`` single steps (tdbg records single steps, not ``continue``)."""
        if count > len(self.history):
            raise SessionError(f"Cannot go back {count} instruction{'s' if count > 1 else ''}: "
                               f"{len(self.history)} recorded (single steps since the last continue)")
        for _ in range(count):
            self.current = self.history.undo(self.tile).core
        return Stop(StopKind.STEP, self.current, self._core.pc, detail="reverse")

    # -- run control -------------------------------------------------------------------------------
    def cont(self, limit: int | None = None) -> Stop:
        """Run the tile until something stops it (``limit``: at most that many instructions per
        turn of a core); with ``scheduler-locking on`` only the current core runs.

        A breakpoint whose ignore count is not used up, or whose condition is false, does not
        stop the run.  The core that stopped becomes the current core, as in GDB."""
        self.history.clear()
        self.started = True
        only = self.current if self.scheduler_locking == "on" else None
        while True:
            stop = self._focus(self._scope_exit(self.tile.run(only, limit)))
            if stop.kind is StopKind.DEADLOCK and self.host is not None:
                answer = self.host.idle(self, stop)
                if answer is None:
                    continue
                stop = self._focus(answer)
            if self._unchanged_write(stop):
                continue
            if stop.kind is not StopKind.BREAKPOINT or self._breakpoint_stops(stop.core, stop.pc):
                return stop

    def announce(self, stop: Stop) -> Stop:
        """A front end's run-control request ended with ``stop``: tell the listeners (the shell's
        displays, context panel and traces; as ``bdb`` calls its ``user_*`` hooks).  Inner
        steps of a source-level step are not announced, only the stop the user sees."""
        for listener in list(self.stop_listeners):
            listener(stop)
        return stop

    def _unchanged_write(self, stop: Stop) -> bool:
        """GDB reports a write watchpoint only when the value changed: a store of the same value
        (seen after the access) does not stop the run; for a ``Dst`` row, a store that left the
        watched rows' bits as they were."""
        return (stop.kind is StopKind.WATCHPOINT and self.watch_after and stop.access is not None
                and stop.access.write and (stop.unchanged if stop.watch.dst_rows else stop.old == stop.new))

    def _scope_exit(self, stop: Stop) -> Stop:
        """A watched local's frame returned: its watchpoint is deleted and the run stops
        (``BreakpointManager.scope_exit``)."""
        return self.points.scope_exit(stop)

    def _focus(self, stop: Stop) -> Stop:
        """The core that stopped becomes the current one; a memory watchpoint's access is
        completed first when the session reports watchpoints after the access, and a
        watchpoint that stops the program counts the hit and has its disposition applied (a
        store of an unchanged value neither stops nor counts, as in GDB)."""
        if stop.core in self.tile.cores:
            self.current = stop.core
            if stop.kind is StopKind.WATCHPOINT and stop.access is not None and self.watch_after:
                stop = self._core.complete_access(stop)
        if stop.kind is StopKind.WATCHPOINT and not self._unchanged_write(stop):
            self.points.watch_hit(stop)
        return stop

    def _steppable(self) -> Core:
        core = self._core
        if core.state is CoreState.IDLE:
            raise SessionError(f"{core.name} has no firmware (load one with \"file {core.name} FILE\").")
        if core.state is CoreState.RESET:
            raise SessionError(f"{core.name} is held in reset (SOFT_RESET_0 bit {core.spec.soft_reset_bit}).")
        return core

    def _step_core(self, others_run: Callable[[], None] = lambda: None) -> Stop:
        """One instruction of the current core.  If it must wait and ``scheduler-locking`` is
        off, the other cores run until the wait is over (``others_run`` is called first), then
        the instruction executes."""
        core = self._steppable()
        self.started = True
        if core.state in (CoreState.PARKED, CoreState.EXITED):
            core.state = CoreState.RUNNABLE   # stepping a finished core executes its j . / ebreak
        while True:
            if core.state is CoreState.BLOCKED and self.scheduler_locking == "off":
                others_run()
                stop = self.tile.run_others_until_ready(core.name)
                if stop is not None:
                    return self._focus(stop)
            stop = self._focus(self._scope_exit(self.tile.classify_step(core, core.step())))
            if stop.kind is not StopKind.BLOCKED or self.scheduler_locking != "off":
                return stop

    def stepi(self, count: int = 1, record: bool = True) -> Stop:
        """Execute ``count`` instructions of the current core, recording each for
        ``reverse_stepi``; with ``record=False`` (the steps inside source-level stepping)
        nothing is copied and the recorded history ends here.  A step during which the other
        cores run (the core waits, ``scheduler-locking off``) records the whole tile, also when
        the wait began in the step."""
        stop = None
        if not record:
            self.history.clear()
        for _ in range(count):
            undo = None
            if record:
                undo = self.history.record(self.tile, self._steppable())

            def others_run() -> None:
                nonlocal undo
                if undo is not None:
                    undo = self.history.widen(undo, self.tile)

            stop = self._step_core(others_run)
            if undo is not None:
                self.history.push(undo)
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def nexti(self, count: int = 1) -> Stop:
        """Like ``stepi``, but a call (``jal``/``jalr`` linking ``ra``) runs until it returns."""
        stop = None
        for _ in range(count):
            pc = self._core.pc
            word = int.from_bytes(self.read_memory(pc, 4), "little")
            if word & 0x7F in (0x6F, 0x67) and (word >> 7) & 0x1F == 1:
                sp = self.register("sp")
                stop, _ = self.run_until({pc + 4: lambda: self.register("sp") >= sp})
            else:
                stop = self.stepi()
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def run_until(self, targets: dict[int, Callable[[], bool]]) -> tuple[Stop, bool]:
        """Continue until the current core's pc reaches one of ``targets`` with its condition
        true, using internal breakpoints (no numbers) on that core: returns (a STEP stop there,
        True); any other stop (a user breakpoint, watchpoint, event, ...) comes back as (it,
        False).  The other cores run unless ``scheduler-locking`` is on or step."""
        self.history.clear()
        core = self._steppable()
        self.started = True
        name = core.name
        only = None if self.scheduler_locking == "off" else name
        user = core.breakpoints
        core.set_breakpoints(user | set(targets))
        try:
            while True:
                stop = self._scope_exit(self.tile.run(only))
                if stop.kind is not StopKind.BREAKPOINT:
                    stop = self._focus(stop)
                    if self._unchanged_write(stop):
                        continue
                    return stop, False
                if stop.core != name or stop.pc in user:
                    if self._breakpoint_stops(stop.core, stop.pc):
                        return self._focus(stop), False
                    if stop.core != name:
                        continue
                condition = targets.get(stop.pc)
                if condition is not None and condition():
                    return Stop(StopKind.STEP, stop.core, stop.pc), True
        finally:
            core.set_breakpoints(user)

    def landed_on_breakpoint(self, stop: Stop) -> Stop:
        """A step that lands on an enabled breakpoint reports it (and counts the hit), as GDB's
        source-level stepping does."""
        if stop.kind is StopKind.STEP and stop.pc in self._core.breakpoints and self._breakpoint_stops(stop.core, stop.pc):
            return Stop(StopKind.BREAKPOINT, stop.core, stop.pc)
        return stop

    def interrupt(self) -> None:
        """Stop a running ``cont`` (safe to call from another thread); ``interrupted`` stays
        True until ``clear_interrupt`` (whoever starts a command clears it)."""
        self._interrupted = True
        self.tile.interrupt()

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    def clear_interrupt(self) -> None:
        """Drop a pending interrupt, the session's and the tile's (a new command starts)."""
        self._interrupted = False
        self.tile.clear_interrupt()

    def check_interrupt(self) -> None:
        """For long work outside the emulator (formatting, packing): stop at a Ctrl-C."""
        if self._interrupted:
            raise SessionError("Quit")

    def run_breakable(self, action: Callable[[], T], wants_stop: Callable[[], bool] = lambda: False,
                      keyboard: bool = True) -> T:
        """Run ``action`` in a worker thread while this thread passes on interrupts, so a
        running core can be stopped without losing any state: every 50 ms, ``interrupt`` again
        while one is pending or ``wants_stop()`` (a request that comes between two emulator
        runs is lost otherwise); with ``keyboard``, a ``KeyboardInterrupt`` here (SIGINT's
        default handler) is one too.  A pending interrupt is dropped first.  What ``action``
        raises is raised here.

        This thread waits on an event, not ``Thread.join``: on Python 3.11 a join interrupted
        by Ctrl-C marks the still-running worker as finished."""
        self.clear_interrupt()
        result: list[T | BaseException] = []
        done = threading.Event()

        def work() -> None:
            try:
                result.append(action())
            except BaseException as exc:  # noqa: BLE001  (re-raised in the calling thread)
                result.append(exc)
            finally:
                done.set()

        threading.Thread(target=work, name="tdbg-run", daemon=True).start()
        while True:
            try:
                if done.wait(0.05):
                    break
                if self._interrupted or wants_stop():
                    self.interrupt()
            except KeyboardInterrupt:
                if not keyboard:
                    raise
                self.interrupt()
        if isinstance(result[0], BaseException):
            raise result[0]
        return result[0]

    def _breakpoint_stops(self, core: str, pc: int) -> bool:
        """Count a hit on the breakpoints at ``pc`` of ``core``; True if one of them stops the
        run (``last_hits``).  Conditions are evaluated in that core's context."""
        saved, self.current = self.current, core
        try:
            return self.points.hit(core, pc, self.condition_true)
        finally:
            self.current = saved

    def condition_true(self, bp: Breakpoint) -> bool:
        """Evaluate a breakpoint condition (an error counts as true, so the user sees it)."""
        from tdbg.expr import ExprError, evaluate

        try:
            return bool(evaluate(bp.condition, self.expression_context()).raw)
        except (ExprError, SessionError):
            return True

    def expression_context(self):
        """The context ``tdbg.expr`` evaluates in (one per session: it keeps the history)."""
        if self._expr_context is None:
            from tdbg.expr_context import SessionContext

            self._expr_context = SessionContext(self)
        return self._expr_context

    def evaluate(self, text: str):
        """Evaluate a C expression (``tdbg.expr``) in the current core's innermost frame."""
        from tdbg.expr import evaluate

        return evaluate(text, self.expression_context())

    # -- breakpoints and watchpoints ----------------------------------------------------------
    def resolve(self, location: str | int) -> int:
        """An address from a number, ``*EXPR`` (``*$pc+8``), ``FUNCTION`` (past its prologue when
        there is line information), ``FILE:LINE`` or ``LINE``, in the current core's program: its
        first location (``locate``)."""
        return self.locate(location)[0].address

    def locate(self, location: str | int, line: int | None = None) -> list[Site]:
        """Every location of ``location`` in the current core's program and its symbol files
        (``tdbg.linespec``; GDB looks in every objfile), by address; ``line`` replaces the line
        of a ``FILE:LINE``.  A ``FILE:LINE`` without code here goes to the next line with code,
        as GDB does in one program (``break_at`` decides that for the whole tile)."""
        resolved = self._resolved_in_files(self.current, location, line)
        if not resolved.sites and resolved.next_line is not None:
            resolved = self._resolved_in_files(self.current, location, resolved.next_line)
        if not resolved.sites:
            spec = linespec.parse(str(location), None)
            raise SessionError(f'No line {spec.line} in file "{spec.file}".')
        return resolved.sites

    def _resolved(self, location: str | int, line: int | None = None) -> linespec.Resolved:
        if isinstance(location, int):
            _check_range(location, 1)
            return linespec.Resolved([Site(location, None)])
        if location.strip().startswith("*"):   # any expression, as GDB evaluates it: *$pc+8
            return linespec.Resolved([Site(self.address_of(location.strip()[1:]), None)])
        info = self.debug
        spec = linespec.parse(location, info)
        if spec.line is not None and spec.file is None and info is None and location.strip().isdigit():
            spec = linespec.Spec(address=int(location))   # no line table: a number is an address
        if line is not None:
            spec = replace(spec, line=line)
        if spec.address is not None:
            _check_range(spec.address, 1)
        current = None
        if spec.line is not None and spec.file is None and info is not None:
            here = info.line_for(self._core.pc)
            current = str(here.file) if here is not None else None
        try:
            return linespec.resolve(spec, info, self.image, current)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def address_of(self, expression: str) -> int:
        """The address an expression designates, as GDB's ``*EXPR`` location and ``x`` take
        it (an array's or function's own address, a pointer's or integer's value)."""
        from tdbg.expr import ExprError
        from tdbg.expr.values import value_as_address

        try:
            address = value_as_address(self.evaluate(expression))
        except ExprError as exc:
            raise SessionError(str(exc)) from None
        _check_range(address, 1)
        return address

    def stack_ranges(self) -> tuple[tuple[int, int], ...]:
        """Where the current core's stack frames may live (``DebugInfo.frames`` stops at a frame
        outside them): L1, and its own local data RAM, whose size its core spec gives (4 KiB on
        a TRISC, 8 KiB on B and NC: BlackholeA0 BabyRISCV/README.md "Local Data RAM")."""
        profile = self.tile.profile
        return ((0, profile.l1_size), (profile.local_ram_base, profile.local_ram_base + self._core.spec.local_ram_size))

    def frames(self) -> list[Frame]:
        """The current core's backtrace (innermost first); one frame without debug info."""
        core = self._core
        info = self.debug_info_at(self.current, core.pc)
        if info is not None:
            try:
                return info.frames(core.pc, core.regs(), self.read_u32, self.stack_ranges())
            except Exception:  # noqa: BLE001  (corrupt DWARF read lazily: the frame the symbols give)
                pass
        hit = self.image.symbol_at(core.pc) if self.tile.image(self.current) else None
        name = (demangle(hit[0].name) or hit[0].name) if hit else None
        return [Frame(0, core.pc, name, None, None, core.reg(2), core.reg(2), core.reg(8), {})]

    def break_at(self, location: str | int, temporary: bool = False, thread: str | None = None) -> Breakpoint:
        """A breakpoint at every location of ``location`` in every core's program (the current
        core's first), or only on core ``thread``; an address is set on every core with
        firmware.  A ``FILE:LINE`` gets the cores that have code for exactly that line; only
        when none has, every core's code for the next line that has code in one of them
        (GDB's rule over its program spaces); ``Breakpoint.line`` says which line that was."""
        with_code = [n for n in self.tile.cores if self.tile.image(n) is not None or self.symbol_files.get(n)]
        cores = [thread] if thread else [self.current] + [n for n in with_code if n != self.current]
        if thread and thread not in self.tile.cores:
            raise SessionError(f"Unknown thread {thread}.")
        cores = [n for n in cores if n in with_code or isinstance(location, int)]
        found: dict[str, linespec.Resolved] = {}
        error: SessionError | None = None
        for name in cores:
            with self.on_core(name):
                try:
                    found[name] = self._resolved_in_files(name, location)
                except SessionError as exc:
                    error = error or exc
        spec = linespec.parse(location, None) if isinstance(location, str) else None
        line = spec.line if spec is not None else None
        if found and not any(r.sites for r in found.values()):   # FILE:LINE that no core has
            later = [r.next_line for r in found.values() if r.next_line is not None]
            if later:
                line = min(later)
                for name in found:
                    with self.on_core(name):
                        found[name] = self._resolved_in_files(name, location, line)
        locations = [Location(name, site.address, site.function, site.line)
                     for name, resolved in found.items() for site in resolved.sites]
        if not locations:
            if error is None and spec is not None and spec.line is not None:
                error = SessionError(f'No line {spec.line} in file "{spec.file}".')
            raise error or SessionError("No firmware to set a breakpoint in.")
        disposition = Disposition.DELETE if temporary else Disposition.KEEP
        return self.points.add_breakpoint(locations, disposition, thread, line)

    def _resolved_in_files(self, core: str, location: str | int, line: int | None = None) -> linespec.Resolved:
        """``_resolved`` in the firmware of ``core`` and in each of its symbol files (as GDB
        looks a location up in every objfile): every site, the nearest next line."""
        files: list[SymbolFile | None] = [None, *self.symbol_files.get(core, ())]
        if self.tile.image(core) is None:   # a host's code only (a chip's tile): its symbol files
            files = files[1:]
        if len(files) == 1 and files[0] is None or isinstance(location, int):
            return self._resolved(location, line)
        sites: list[Site] = []
        later: list[int] = []
        error: SessionError | None = None
        for symbol_file in files:
            with self.symbols_from(core, symbol_file):
                try:
                    resolved = self._resolved(location, line)
                except SessionError as exc:
                    error = error or exc
                    continue
            sites += resolved.sites
            if resolved.next_line is not None:
                later.append(resolved.next_line)
        if not sites and not later and error is not None:
            raise error
        return linespec.Resolved(sites, min(later) if later else None)

    def watch(self, address: int, length: int, kind: str = "write") -> Watch:
        """Stop on an access to ``[address, address+length)`` by any core (a watch on private
        memory: by the current core, whose memory it is)."""
        if kind not in ("write", "read", "access"):
            raise SessionError(f"watch kind must be write, read or access, not {kind!r}")
        if length <= 0:
            raise SessionError("Cannot watch zero bytes.")
        _check_range(address, length)
        owner = self.current if self._core.owns_private(address) else None
        frames = self.frames() if self.tile.image(self.current) else []
        scope = None
        if len(frames) > 1 and frames[0].sp <= address < frames[0].cfa:  # a local of this frame
            scope = WatchScope(self.current, frames[1].pc, frames[0].cfa)
        return self.points.add_watch(Watch(self.points.take_number(), address, length, kind, core=owner), scope)

    def watch_dst_row(self, row: int, kind: str = "write") -> Watch:
        """Watch ``Dst`` row ``row`` in the view the current core's window uses (Dst32b for
        fmt 0/1, else Dst16b): window accesses by any T core and Tensix instructions that write
        it stop."""
        if kind not in ("write", "access"):
            raise SessionError("Dst rows can be watched for writes (watch) or any access (awatch)")
        if not 0 <= row < 1024:
            raise SessionError(f"Dst row {row} out of range 0..1023")
        tensix = self.tile.tensix
        thread = self._core.thread if self._core.thread is not None else 0
        if tensix.window.ctrl(thread).fmt <= 1:
            high = int(tensix.dst.row32[row])
            rows, view = frozenset({high, high + 8}), "Dst32b"
        else:
            rows, view = frozenset({int(tensix.dst.row16[row])}), "Dst16b"
        profile = self.tile.profile
        assert profile.dst_window_base is not None
        watch = Watch(self.points.take_number(), profile.dst_window_base, profile.dst_window_size, kind, rows, view)
        return self.points.add_watch(watch)

    def delete(self, number: int) -> None:
        """Delete breakpoint or watchpoint ``number`` on every core (whichever is current)."""
        try:
            self.points.delete(number)
        except NoSuchBreakpoint:
            raise SessionError(f"No breakpoint number {number}.") from None

    def enable(self, number: int, enabled: bool = True, disposition: Disposition | None = None, count: int = 0) -> None:
        """Enable or disable breakpoint or watchpoint ``number`` (``BreakpointManager.enable``:
        GDB's ``enable``, ``enable once``, ``enable count C``, ``enable delete``, ``disable``)."""
        try:
            self.points.enable(number, enabled, disposition, count)
        except NoSuchBreakpoint:
            raise SessionError(f"No breakpoint number {number}.") from None

    @property
    def breakpoints(self) -> dict[int, Breakpoint]:
        """The breakpoints by number (change them through ``enable`` and ``delete``)."""
        return self.points.breakpoints

    @property
    def watchpoints(self) -> dict[int, Watch]:
        """The watchpoints by number."""
        return self.points.watchpoints

    @property
    def last_hits(self) -> list[Breakpoint]:
        """The breakpoints that made the last breakpoint stop."""
        return self.points.last_hits

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

    def select_core(self, name: str) -> str:
        """Make ``name`` (a core's name, tt-exalens' too) the current core; its name."""
        try:
            self.current = self.tile.core_named(name).name
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        return self.current

    # -- registers --------------------------------------------------------------------------------
    def register(self, name: str) -> int:
        """``pc`` or an integer register by ABI name or ``xN``."""
        if name == "pc":
            return self._core.pc
        try:
            return self._core.reg(REGISTERS[name])
        except KeyError:
            raise SessionError(f"Invalid register `{name}'") from None

    def registers(self) -> list[int]:
        """The current core's integer registers x0..x31."""
        return self._core.regs()

    def set_register(self, name: str, value: int) -> None:
        """Write ``pc`` or an integer register (by ABI name or ``xN``) of the current core."""
        if name == "pc":
            self._core.pc = value
        elif name in REGISTERS:
            self._core.set_reg(REGISTERS[name], value)
        else:
            raise SessionError(f"Invalid register `{name}'")

    # -- memory as the current core sees it ---------------------------------------------------
    def set_alignment_check(self, on: bool) -> None:
        """Catch misaligned L1 / local-RAM loads and stores (``NonContractualBehavior``: stop, or
        round down as silicon does).  Off by default: Unicorn then completes such an access byte
        by byte, and only device accesses are caught; on, each plain-memory access costs a
        Python call."""
        self.tile.set_alignment_check(on)

    def read_memory(self, address: int, size: int) -> bytes:
        """Bytes as the debugger sees them (devices read element by element as ``load``); at
        most ``MAX_TRANSFER`` at once."""
        _check_range(address, size)
        try:
            return self.tile.read(self._core, address, size)
        except Unreadable as exc:
            raise SessionError(str(exc)) from None

    def read_u32(self, address: int) -> int:
        return int.from_bytes(self.read_memory(address, 4), "little")

    def read_value(self, address: int, size: int) -> int:
        """What a ``size``-byte load by the current core at ``address`` returns."""
        region = self._core.region_at(address)
        if region is None:
            return int.from_bytes(self.read_memory(address, size), "little")
        try:
            return region.load(address - region.base, size)
        except (TensixEvent, Stall) as exc:
            raise SessionError(f"Cannot access memory at address {address:#x}: {exc}") from None

    def write_value(self, address: int, size: int, value: int) -> None:
        """Store as the current core's ``sb``/``sh``/``sw`` at ``address`` would."""
        self.write_memory(address, (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))

    def write_memory(self, address: int, data: bytes) -> None:
        """Write bytes as the current core's stores would: plain memory (L1, local RAM) as is,
        device addresses through the device model, a naturally aligned element at a time."""
        _check_range(address, len(data))
        core = self._core
        self._store(core, address, data)
        if not self.started and not self._replaying and self.tile.programs:
            end = address + len(data)   # a memory write that covers an earlier one replaces it; a device
            if not any(r.base < end and address < r.base + r.size for r in core.regions):   # write acts,
                self.setup = [w for w in self.setup if not (w.core == core.name and address <= w.address  # so each
                                                             and w.address + len(w.data) <= end)]         # is kept
            self.setup.append(SetupWrite(core.name, address, bytes(data)))
        if self.started and self.tile.finished():
            self.written_after_exit = True

    def _store(self, core: Core, address: int, data: bytes) -> None:
        """``write_memory``'s stores (the set-up keeps only writes that completed)."""
        pos = 0
        while pos < len(data):
            at = address + pos
            region = core.region_at(at)
            if region is None:
                n = len(data) - pos
                for r in core.regions:  # plain memory up to the next device
                    if at < r.base < at + n:
                        n = r.base - at
                if at + n <= self.tile.profile.l1_size:
                    self.tile.write(at, bytes(data[pos:pos + n]))
                else:
                    try:
                        if self.tile.trampolines.overlaps(at, n):
                            raise ValueError("unmapped")
                        core.uc.mem_write(at, bytes(data[pos:pos + n]))
                    except Exception:
                        raise SessionError(f"Cannot access memory at address {at:#x}") from None
            else:
                left = len(data) - pos
                n = next(w for w in (4, 2, 1) if at % w == 0 and left >= w)
                try:
                    region.store(at - region.base, n, int.from_bytes(data[pos:pos + n], "little"))
                except (TensixEvent, Stall) as exc:
                    raise SessionError(f"Cannot write memory at address {at:#x}: {exc}") from None
            pos += n

    def l1_values(self, address: int, count: int, fmt: str) -> np.ndarray:
        """``count`` datums of L1 data format ``fmt`` at ``address`` (BFP: the exponent section
        first), decoded (``tdbg.tensix.l1_data``)."""
        try:
            size = l1_data.size(fmt, count)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        return l1_data.values(self.read_memory(address, size), fmt, count)

    def load_code(self, address: int, data: bytes) -> None:
        """A host writes code into L1 (a kernel its firmware jumps to): the bytes, known as
        code as a loaded ELF's text is (a ``.ttinsn``, CSR or Zba/Zbb word runs as the core
        would run it), until the tile is next reset."""
        _check_range(address, len(data))
        if address + len(data) > self.tile.profile.l1_size:
            raise SessionError(f"Cannot load code at {address:#x}: {len(data)} bytes do not fit L1.")
        self.tile.load_code(address, bytes(data))

    def load_binary(self, path: str | Path, address: int) -> int:
        """GDB's ``restore FILE binary ADDR``: write a file's bytes at ``address``; their count."""
        try:
            data = read_host_file(path, MAX_RESTORE_BYTES, "binary file to restore")
        except HostFileError as exc:
            raise SessionError(str(exc)) from None
        self.write_memory(address, data)
        return len(data)

    def save_binary(self, path: str | Path, start: int, end: int) -> None:
        """GDB's ``dump binary memory FILE START END``."""
        if end < start:
            raise SessionError("Invalid memory address range (start > end).")
        data = self.read_memory(start, end - start)
        try:
            write_host_file(path, data)
        except HostFileError as exc:
            raise SessionError(str(exc)) from None

    def symbol_names(self) -> set[str]:
        """The names completion offers for the current core (GDB's symbol completion): the ELF
        symbols of its firmware and of its symbol files (a kernel's) as GDB names them
        (demangled), their debug information's functions (C++: full names), variables and types,
        and the locals of the selected frame."""
        names: set[str] = set()
        for image, info in self._programs_of(self.current):
            names |= {demangle(name) or name for name in image.symbols}
            names |= info.completion_names() if info is not None else set()
        try:
            frame = self.expression_context().frames.selected()
            info = self.debug_info_at(self.current, frame.lookup_pc)
            names |= {v.name for v in info.locals_at(frame)} if info is not None else set()
        except Exception:  # noqa: BLE001  (completion never fails: corrupt DWARF, no frame)
            pass
        return names

    def _programs_of(self, core: str) -> list[tuple[ElfImage, DebugInfo | None]]:
        """The firmware of ``core`` and each of its symbol files, with their (opened) DWARF."""
        image = self.tile.image(core)
        found = [(image, self._opened(core))] if image is not None else []
        return found + [(f.image, self._opened_file(f)) for f in self.symbol_files.get(core, ())]

    def location_names(self) -> tuple[set[str], set[str]]:
        """What a breakpoint location may name on any core (GDB completes a linespec over every
        program): (the symbols, the source files' names) of each core's firmware and symbol
        files (a tt-metal kernel, before it runs)."""
        symbols: set[str] = set()
        files: set[str] = set()
        for core in self.tile.programs:
            for symbol_file in (None, *self.symbol_files.get(core, ())):
                with self.on_core(core), self.symbols_from(core, symbol_file):
                    symbols |= self.symbol_names()
                    if symbol_file is not None:
                        symbols |= {demangle(name) or name for name in symbol_file.image.symbols}
                    info = self.debug
                    if info is not None:
                        files |= {path.name for path in info.files()}
        return symbols, files

    def symbolize(self, address: int, demangled: bool | None = None) -> str:
        """``<main+4>`` for an address inside a known function or object, else ``""``.  A C++
        name is shown demangled when ``demangled`` (default: ``print_settings.asm_demangle``, as
        GDB's ``print_address`` in disassembly; values use ``print_settings.demangle``)."""
        found = self._symbol_file(self.current, address) if self.symbol_files else None
        image = found.image if found is not None else self.tile.image(self.current)
        hit = image.symbol_at(address) if image else None
        if hit is None:
            return ""
        sym, offset = hit
        name = sym.name
        if self.print_settings.asm_demangle if demangled is None else demangled:
            name = demangle(name) or name
        return f"<{name}+{offset}>" if offset else f"<{name}>"

    # -- the tile as front ends see it (read these; change the tile through the methods) ------------
    @property
    def profile(self) -> Profile:
        return self.tile.profile

    @property
    def programs(self) -> dict[str, ElfImage]:
        """Each core's firmware, by core name."""
        return {name: program.image for name, program in self.tile.programs.items()}

    @property
    def core_names(self) -> list[str]:
        """Every core, in thread order."""
        return list(self.tile.cores)

    def core_state(self, name: str) -> str:
        """A core's state in words: running, blocked and on what, parked, exited, held in
        reset, no firmware."""
        core = self.tile.cores[name]
        if core.state is CoreState.BLOCKED and core.wait is not None:
            return f"blocked: {core.wait.reason}"
        return core.state.value

    def core_status(self, name: str) -> str:
        """A core's state in a word or two, for a list of threads: ``stopped`` for a core that
        would run (all-stop: nothing runs while a front end asks), else blocked, parked, exited,
        held in reset, no firmware (``core_state`` says on what a blocked core waits)."""
        state = self.tile.cores[name].state
        return "stopped" if state is CoreState.RUNNABLE else state.value

    def wait(self, name: str) -> Wait | None:
        """What core ``name`` waits for while blocked (None when it is not): the reason, and for
        a core polling memory or a device the addresses it reads and its loop's instructions."""
        core = self.tile.core_named(name)
        return core.wait if core.state is CoreState.BLOCKED else None

    def name_memory(self, namer: Callable[[int], str | None]) -> None:
        """Let ``namer`` name addresses where waits and hang reports name memory (a host knows
        what it put where, e.g. tt-metal's mailbox fields); ELF symbols name the rest."""
        self.tile.namers.append(namer)

    def name_noc(self, namer: Callable[[tuple[int, int], int, int], str | None] | None) -> None:
        """Let ``namer`` say what a host put at a NoC endpoint, for the ``NeverWritten`` event:
        (the endpoint, as ``noc_endpoint`` gives it; address; length) -> a name ("buffer a",
        "no buffer there"), None where the host knows nothing; None: no host names them."""
        self.tile.noc.namer = namer

    def noc_endpoint(self, x: int, y: int) -> tuple[int, int]:
        """The endpoint a NoC request to (x, y), as software writes it, reaches."""
        return self.tile.noc.physical(x | y << 6)

    def has_firmware(self, name: str) -> bool:
        """The core has code to run: loaded firmware, or (a chip's tile) it has been released."""
        if self.tile.hosted:
            return self.tile.core_named(name).state is not CoreState.IDLE
        return name in self.tile.programs

    def core_label(self, name: str) -> str:
        """A core as the user names it: ``X,Y:NAME`` on a chip (tt-exalens' ``-l X,Y``), else NAME."""
        where = self.tile_coord
        return name if where is None else f"{where[0]},{where[1]}:{name}"

    def tiles(self) -> list[tuple[Coord, str]]:
        """A chip's Tensix tiles and what each is: modelled (with its cores' states) or dormant."""
        if self.grid is None:
            return []
        out = []
        for where in self.grid.chip.workers:
            tile = self.grid.tiles.get(where)
            out.append((where, "dormant (no core released)" if tile is None else
                        ", ".join(f"{n} {c.state.value}" for n, c in tile.cores.items())))
        return out

    @property
    def pushes(self) -> PushLog:
        """The pushed Tensix instructions (the newest ones kept, every one counted)."""
        return self.tile.pushes

    @property
    def policy(self) -> Mapping[Category, Policy]:
        """What each event category does (``handle``): stop, warn or ignore (read-only: change
        it with ``set_policy``)."""
        return MappingProxyType(self.tile.policy)

    def set_policy(self, category: Category, policy: Policy) -> None:
        """What an event of ``category`` does from now on (GDB's ``handle``)."""
        self.tile.policy[category] = policy

    def take_warnings(self) -> list:
        """The events a ``warn`` policy let pass since the last call."""
        warnings, self.tile.warnings = list(self.tile.warnings), []
        return warnings

    @property
    def exit_codes(self) -> dict[str, int]:
        return self.tile.exit_codes

    def finish_summary(self) -> str:
        """How each core with firmware ended (``T0 parked at ...``)."""
        return self.tile.describe_finish(list(self.tile.programs))

    def describe_word(self, word: int) -> str:
        """A pushed word as text, or its hex if no encoding matches."""
        return self.tile.describe_word(word)

    def noc_status(self) -> dict[str, list[str]]:
        """What ``info noc`` shows: each NIU's registers and counters, and the NoC requests of
        the run (newest last)."""
        noc = self.tile.noc
        dropped = noc.log[0].seq - 1 if noc.log else 0
        earlier = [f"... {dropped} earlier requests not kept"] if dropped else []
        return {**{f"NoC {niu.index}": niu.status() for niu in noc.nius},
                "requests": earlier + [t.describe() for t in noc.log]}

    def read_noc(self, x: int, y: int, address: int, size: int) -> bytes:
        """Bytes at a NoC endpoint (DRAM, another tile's L1, or this tile), as a NoC read
        would see them; (x, y) as software writes it (translated coordinates too)."""
        _check_range(address, size)
        noc = self.tile.noc
        try:
            return noc.read(noc.physical(x | y << 6), address, size)
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None

    def noc_l1_writer(self, address: int) -> tuple[Transfer, int] | None:
        """The newest NoC request (still in the log) that wrote this tile's L1 ``address``, and
        how many Tensix instructions had been pushed before it (an ``L1Access`` of a later push
        wrote after it); None when none did."""
        return next(((t, pushes) for lo, hi, t, pushes in reversed(self.tile.noc_l1_writes) if lo <= address < hi), None)

    def write_noc(self, x: int, y: int, address: int, data: bytes) -> None:
        """Write bytes at a NoC endpoint, as the host writes a DRAM buffer."""
        _check_range(address, len(data))
        noc = self.tile.noc
        try:
            noc.write(noc.physical(x | y << 6), address, data, noc.host_transfer(len(data)))
        except TensixEvent as exc:
            raise SessionError(str(exc)) from None

    def disassembler(self) -> Disassembler:
        """A fresh disassembler for the current core's code: ``.ttinsn`` words by the profile's
        encodings, RISC-V as GDB decodes it for the architecture its ELF names."""
        from tdbg.disasm import Disassembler   # capstone: loaded when first needed
        image = self.tile.image(self._core.name)
        return Disassembler(self.profile.isa, arch_extensions(image.arch if image else None))

    def explain_waits(self, stop: Stop) -> list[WaitReport]:
        """For each core a hang stop (``DEADLOCK``, or ``BLOCKED`` under scheduler-locking)
        names: what holds it and what would release it (``tdbg.hang``), searching the
        firmware and the code of the symbol files added beside it (a host's kernels)."""
        kernels = {core: [f.image for f in files] for core, files in self.symbol_files.items()}
        return explain(self.tile, stop.waits, kernels)

    def execute(self, line: str, check: bool = True) -> str:
        """Run one shell command and return what the shell would print.  A command that
        fails raises ``SessionError`` with that text; with ``check=False`` it is returned.
        An interrupt still pending from an earlier command is dropped first."""
        self.clear_interrupt()
        if self.shell is None:
            self.shell = self.shell_factory(self)
        interp = self.shell
        failed, interp.failed = interp.failed, False
        text = interp.capture(line)
        if check and interp.failed:
            interp.failed = True
            raise SessionError(text.strip())
        interp.failed = failed or interp.failed
        return text

    def symbol(self, name: str):
        try:
            return self.image.symbol(name)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None
