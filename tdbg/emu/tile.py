"""The emulated Tensix tile: shared L1, every core with its own firmware, the coprocessor state,
pushes, policies, and the run model.

Firmware (one ``ElfImage`` per core) is placed in L1 as a host does (``tdbg.emu.loader``); the
words of its code that Unicorn must not run as they are (``tdbg.emu.code``) are replaced in
emulated memory: a ``.ttinsn`` is pushed to the coprocessor when a core reaches it, as a store to
``INSTRN_BUF_BASE`` is (BabyRISCV ``PushTensixInstruction.md``), a CSR instruction runs on the
core's CSRs, a Zba/Zbb/xttzbkb instruction jumps to its RV32IM trampoline.  Debugger reads of
that memory show the loaded word; a debugger write there replaces the loaded word.

Run model (DESIGN.md, "The whole tile"): all-stop and deterministic.  ``run`` gives the runnable
cores turns in the profile's order; a core keeps its turn until it stops, blocks (a ``Wait``:
also a core found spinning on memory that nothing else changes, ``tdbg.emu.idle``), parks
(reaches ``j .``) or exits (tdbg's crt0 end); a core that computes keeps its turn for up to
``idle.PATIENCE`` slices of host time (``tdbg.emu.preempt``), so where turns end, and which core
a stop is reported on, does not depend on host speed.
Any stop stops every core and names its core.  With no runnable core left the run ends: a
``DEADLOCK`` stop naming every wait when a core is blocked, else ``EXITED`` (every core with
firmware has exited or parked).

Releasing cores follows ``SOFT_RESET_0``: loading writes what a host writes (each TRISC's reset
PC = its ELF's entry, the override on; ``shared/realfw/README.md``); with a B firmware only B is
released and it releases the TRISCs, otherwise every loaded core starts at once.
"""

from __future__ import annotations

import ctypes
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from tdbg.emu import idle, loader
from tdbg.emu.code import CodePatches
from tdbg.emu.core import Core, CoreState, Watch
from tdbg.emu.elf import JUMP_TO_SELF, ElfImage, ElfLoadError, Segment
from tdbg.emu.noc import LocalTile, Noc, Transfer
from tdbg.emu.overlay import Overlay
from tdbg.emu.overlay import Snapshot as OverlaySnapshot
from tdbg.emu.pushlog import DstProvenance, DstWriter, L1Access, L1Log, PushLog, WindowAccess, WindowTrace
from tdbg.emu.regions import Stall, TensixMmio, TileRegisters, Wait, core_regions
from tdbg.emu.stops import Access, CoreWait, Stop, StopKind
from tdbg.tensix.coprocessor import Coprocessor, QueueFull
from tdbg.tensix.events import Category, TensixEvent
from tdbg.emu.translation import Trampolines
from tdbg.tensix.isa import IsaError
from tdbg.tensix.profile import BLACKHOLE, Profile
from tdbg.tensix.tile import TensixState
from tdbg.tensix.window import ELEMENT_SIZE, FMT_NAMES

EXIT_SYMBOL, EXIT_CODE_SYMBOL = "_tdbg_exit", "tdbg_exit_code"   # tdbg's crt0
NOC_WRITES_KEPT = 10_000     # NoC writes into L1 remembered for hang reports


class Policy(str, Enum):
    """What ``handle CATEGORY`` does with an event."""

    STOP = "stop"
    WARN = "warn"
    IGNORE = "ignore"


@dataclass(frozen=True)
class Program:
    """One core's firmware, where its bytes go, and the replaced code words and ``j .`` parks
    among them that the core can fetch (``loader.code_words``)."""

    image: ElfImage
    segments: list[Segment]
    replaced: dict[int, int]
    parks: set[int]

    @property
    def exit_pc(self) -> int | None:
        sym = self.image.symbols.get(EXIT_SYMBOL)
        return sym.addr if sym else None


@dataclass(frozen=True)
class CoreSnapshot:
    context: object
    local_ram: bytes
    pc: int
    completed_pc: int | None
    last_stop: object
    state: CoreState
    wait: Wait | None
    csrs: tuple[dict[int, int], int]


@dataclass(frozen=True)
class Checkpoint:
    """A saved tile (``Tile.checkpoint``); ``l1`` is zlib-compressed when ``compressed``."""

    l1: bytes
    cores: dict[str, CoreSnapshot]
    tensix: dict[str, object]
    coprocessor: dict[str, object]
    pushes: tuple[int, list[int]]
    registers: dict[int, int]
    clock: int
    exit_codes: dict[str, int]
    code: dict[int, object]        # the tile's replaced code words then (``CodePatches.at``)
    noc: dict[str, object]
    overlay: OverlaySnapshot
    compressed: bool = False
    last_turn: str | None = None

    @property
    def dst_bits(self) -> object:
        return self.tensix["dst_bits"]

    def l1_bytes(self) -> bytes:
        return zlib.decompress(self.l1) if self.compressed else self.l1

    @property
    def nbytes(self) -> int:
        """Roughly the memory the checkpoint holds: L1 as kept, the local RAMs, the arrays."""
        arrays = [v for part in (self.tensix, self.coprocessor) for v in part.values() if isinstance(v, np.ndarray)]
        return (len(self.l1) + sum(len(c.local_ram) + _CONTEXT_BYTES for c in self.cores.values())
                + sum(a.nbytes for a in arrays) + _SNAPSHOT_OVERHEAD)


_CONTEXT_BYTES = 1024          # a Unicorn CPU context and a core's bookkeeping, roughly
_SNAPSHOT_OVERHEAD = 16 << 10  # queues, registers, dictionaries, roughly


def _copy_into(buffer: ctypes.Array, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` of ``buffer``; bytes that would not fit are a bug in the
    loader's checks, raised here rather than written past the buffer."""
    if not 0 <= offset <= offset + len(data) <= len(buffer):
        raise ElfLoadError(f"{len(data)} bytes at offset {offset:#x} do not fit a {len(buffer)}-byte memory")
    ctypes.memmove(ctypes.addressof(buffer) + offset, data, len(data))


class Unreadable(Exception):
    """A debugger read that the core's load could not make; the message is for the user."""


@dataclass(frozen=True)
class Warning_:
    event: TensixEvent
    core: str
    pc: int
    access: Access | None


class Tile:
    """One Tensix tile: L1, the cores of the profile, the coprocessor model, the run model."""

    def __init__(self, profile: Profile = BLACKHOLE) -> None:
        self.profile = profile
        self.tensix = TensixState(profile)
        self.coprocessor = Coprocessor(self.tensix, on_dst_write=self._dst_written, on_l1_access=self._l1_accessed)
        self.l1 = ctypes.create_string_buffer(profile.l1_size)
        self.tensix.l1 = np.frombuffer(self.l1, dtype=np.uint8)  # the coprocessor's view of L1
        self.l1_log = L1Log()                                    # L1 traffic of Tensix instructions
        self._l1_written: list[L1Access] | None = None            # during the current push (when watched)
        self._code: list[tuple[int, int]] = []                    # L1 ranges of loaded firmware
        self._executable: list[tuple[int, int]] = []              # ... of its executable bytes
        self._host_code: list[tuple[int, int]] = []               # code a host put in L1 since the reset
        self._host_parks: set[int] = set()                        # ... and the j . words in it
        self.registers = TileRegisters(self)
        self.programs: dict[str, Program] = {}
        self.trampolines = Trampolines(profile.trampoline_spaces)
        self.code = CodePatches(self.trampolines)                 # replaced words of loaded code
        self.noc = Noc(profile.noc, profile.l1_size, LocalTile(
            lambda address, n: bytes(self.l1[address:address + n]), self._noc_wrote_l1,
            lambda address: self.coprocessor.mmio.load(0, address),
            lambda address, value: self.coprocessor.mmio.store(0, address, value)))
        self.overlay = Overlay(profile.overlay)
        self.noc_l1_writes: list[tuple[int, int, Transfer]] = []   # NoC requests' writes into L1, newest last
        self.namers: list[Callable[[int], str | None]] = []   # a host's names for addresses (describe_address)
        self.pushes = PushLog()
        self.provenance = DstProvenance()
        self._rows_written: set[int] | None = None  # DstBits rows the current push wrote (when watched)
        self.seq = 0                           # orders pushes and recorded window accesses
        self.record_window_writers = False             # costs a PC read per window access
        self.window_trace: WindowTrace | None = None
        self.window_observer: Callable[[Core, int, int, int, bool], None] | None = None
        self.policy: dict[Category, Policy] = {c: Policy.STOP for c in Category}
        self.warnings: list[Warning_] = []
        self.watches: list[Watch] = []
        self.exit_codes: dict[str, int] = {}
        self.alignment_check = False           # misaligned L1 / local-RAM accesses are caught
        self._interrupt = False
        self._active: Core | None = None
        self._last_turn: str | None = None     # the core whose turn ended last (``_next_turn``)
        local_rams = {c.name: ctypes.create_string_buffer(c.local_ram_size) for c in profile.cores}
        self.cores: dict[str, Core] = {}
        for spec in profile.cores:
            self.cores[spec.name] = Core(self, spec, core_regions(self, spec), local_rams)
        self.coprocessor.mmio = TensixMmio(self)

    def set_alignment_check(self, on: bool) -> None:
        """Catch misaligned loads and stores to L1 and local RAM on every core (``Core.check_alignment``)."""
        self.alignment_check = on
        for core in self.cores.values():
            core.check_alignment(on)

    def core_named(self, name: str) -> Core:
        """The core called ``name`` (any case)."""
        try:
            return self.cores[self.profile.core(name).name]
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None

    # -- loading ----------------------------------------------------------------------------------
    def load(self, name: str, image: ElfImage | None, local_init: int | None = None) -> None:
        """Give core ``name`` its firmware (None: take it away), then reset the tile;
        ``local_init``: where in L1 its private-memory bytes go (``loader.placements``)."""
        spec = self.core_named(name).spec
        if image is None:
            self.programs.pop(spec.name, None)
        else:
            segments = loader.placements(image, self.profile, spec, local_init)
            in_l1 = [s for s in segments if s.vaddr < self.profile.l1_size]
            for other, program in self.programs.items():
                if other == spec.name:
                    continue
                clash = loader.overlap(in_l1, [s for s in program.segments if s.vaddr < self.profile.l1_size])
                if clash:
                    raise ElfLoadError(f"{image.path}: L1 {clash[0]:#x}..{clash[1]:#x} is also {other}'s "
                                       f"firmware ({program.image.path.name}), with other bytes")
            self.programs[spec.name] = Program(image, segments, *loader.code_words(image, segments, self.profile))
        self.code.at = {address: self.code.classify(address, word)
                        for program in self.programs.values() for address, word in program.replaced.items()}
        self._code = [(s.vaddr, s.vaddr + s.memsz) for p in self.programs.values() for s in p.segments
                      if s.vaddr < self.profile.l1_size]
        self._executable = [(s.vaddr, s.vaddr + len(s.data)) for p in self.programs.values() for s in p.segments
                            if s.executable and s.vaddr < self.profile.l1_size]
        parks = {a for p in self.programs.values() for a in p.parks if a < self.profile.l1_size}
        for core in self.cores.values():
            program = self.programs.get(core.name)
            # a j . in L1 parks whichever core reaches it (one may jump into another's code)
            core.set_parks((program.parks | parks) if program else set())
            core.hook_code(self.code.at)
        self.reset()

    def image(self, name: str) -> ElfImage | None:
        program = self.programs.get(name)
        return program.image if program else None

    def reset(self) -> None:
        """Back to the loaded state: memory, coprocessor, registers, cores released as a host
        releases them; breakpoints and watchpoints stay."""
        self._drop_host_code()
        ctypes.memset(self.l1, 0, len(self.l1))
        self.tensix.reset()
        self.coprocessor.reset()
        self.registers.reset()
        self.noc.reset()
        self.overlay.reset()
        self.noc_l1_writes.clear()
        self.pushes.clear()
        self.l1_log.clear()
        self.warnings.clear()
        self.provenance.clear()
        self.exit_codes.clear()
        self._last_turn = None
        if self.window_trace is not None:
            self.window_trace.clear()
        for core in self.cores.values():
            core.reset(0, CoreState.IDLE)
            # Measured on Unicorn 2.1: tb_flush reuses the code buffer; ctl_remove_cache over all
            # of L1 left every run's translations in it (RSS +44 KB a run, without a plateau).
            core.uc.ctl_flush_tb()
        for name, program in self.programs.items():
            core = self.cores[name]
            for seg in program.segments:
                if seg.vaddr < self.profile.l1_size:
                    _copy_into(self.l1, seg.vaddr, seg.data)
                else:
                    _copy_into(core.local_ram, seg.vaddr - self.profile.local_ram_base, seg.data)
        for address, patch in self.code.at.items():
            _copy_into(self.l1, address, patch.placed.to_bytes(4, "little"))
        soft_reset = self.registers.value("SOFT_RESET_0")
        host_releases = ["B"] if "B" in self.programs else list(self.programs)
        for name, program in self.programs.items():
            spec = self.cores[name].spec
            if spec.reset_pc_reg is not None and spec.reset_pc_override is not None:
                self.registers.values[spec.reset_pc_reg] = program.image.entry
                register, bit = spec.reset_pc_override
                self.registers.values[register] |= 1 << bit
        for name in self.programs:
            spec = self.cores[name].spec
            if name in host_releases:
                soft_reset &= ~(1 << spec.soft_reset_bit)
                self.cores[name].reset(self.programs[name].image.entry, CoreState.RUNNABLE)
            else:
                self.cores[name].reset(self.programs[name].image.entry, CoreState.RESET)
        self.registers.values[self.profile.register("SOFT_RESET_0").offset] = soft_reset

    def soft_reset_changed(self, old: int, new: int) -> None:
        """``SOFT_RESET_0`` was written: hold the cores whose bit became 1, start the ones whose
        bit became 0 at their reset PC (SoftReset.md: the override's PC, else the table's; B's
        is always 0)."""
        for core in self.cores.values():
            bit = 1 << core.spec.soft_reset_bit
            if new & bit and not old & bit:
                core.state, core.wait = CoreState.RESET, None
                if core.running:
                    core.uc.emu_stop()
            elif old & bit and not new & bit:
                program = self.programs.get(core.name)
                if program is None:
                    continue  # released with no firmware: tdbg has nothing for it to run
                pc = self.registers.reset_pc(core.spec)
                core.reset(core.spec.reset_pc if pc is None else pc, CoreState.RUNNABLE)
                core.uc.ctl_flush_tb()

    # -- checkpoints ------------------------------------------------------------------------------
    def checkpoint(self, compress: bool = False) -> Checkpoint:
        """Everything needed to come back here: every core's context, state and local RAM, L1,
        Dst, SrcA/SrcB, config, RWCs and the rest of the coprocessor, tile registers, the push
        log position.  ``compress``: keep L1 zlib-compressed (measured: 2 ms for a mostly empty
        L1, 70 ms for random bytes; the user's checkpoints, not the history's)."""
        cores = {
            name: CoreSnapshot(core.uc.context_save(), bytes(core.local_ram), core.pc, core.completed_pc,
                               core.last_stop, core.state, core.wait, core.csrs.snapshot())
            for name, core in self.cores.items()
        }
        l1 = zlib.compress(bytes(self.l1), 1) if compress else bytes(self.l1)
        return Checkpoint(l1, cores, self.tensix.snapshot(), self.coprocessor.snapshot(),
                          (self.pushes.total, list(self.pushes.per_thread)), dict(self.registers.values),
                          self.registers.clock, dict(self.exit_codes), self.code.at, self.noc.snapshot(),
                          self.overlay.snapshot(), compress, self._last_turn)

    def restore(self, cp: Checkpoint) -> None:
        """Return to ``cp``."""
        l1 = cp.l1_bytes()
        ctypes.memmove(self.l1, l1, len(l1))
        for name, snap in cp.cores.items():
            core = self.cores[name]
            core.uc.context_restore(snap.context)
            ctypes.memmove(core.local_ram, snap.local_ram, len(snap.local_ram))
            core.pc = snap.pc
            core.completed_pc = snap.completed_pc
            core.last_stop = snap.last_stop
            core.state, core.wait = snap.state, snap.wait
            core.csrs.restore(snap.csrs)
            core.uc.ctl_flush_tb()
        self.tensix.restore(cp.tensix)
        self.coprocessor.restore(cp.coprocessor)
        self.pushes.truncate(*cp.pushes)
        last = self.pushes.last()
        self.l1_log.truncate(last[0].seq if last else 0)
        self.registers.values = dict(cp.registers)
        self.registers.clock = cp.clock
        self.exit_codes = dict(cp.exit_codes)
        self._last_turn = cp.last_turn
        self.noc.restore(cp.noc)
        self.overlay.restore(cp.overlay)
        if self.code.at is not cp.code:
            self.code.at = cp.code
            for core in self.cores.values():
                core.hook_code(self.code.at)

    # -- running ------------------------------------------------------------------------------------
    def run_others_until_ready(self, name: str) -> Stop | None:
        """Give the cores other than ``name`` turns until ``name``'s wait is over (None), or
        return what stopped them (a stop, an interrupt, or a deadlock naming every wait)."""
        waiting = self.cores[name]
        others = [n for n in self.cores if n != name]
        while True:
            self._runnable([name])
            if waiting.state is not CoreState.BLOCKED:
                return None
            runnable = self._runnable(others)
            if self._interrupt:
                return self._interrupted(waiting)
            if not runnable:
                return self._idle_stop([name, *others], None)
            stop = self._turn(self.cores[self._next_turn(runnable)], None, True)
            if stop is not None and stop.kind is not StopKind.PREEMPTED:
                return self._interrupted(waiting, stop) if stop.kind is StopKind.INTERRUPTED else stop

    def run(self, only: str | None = None, limit: int | None = None) -> Stop:
        """Run the runnable cores (every one, or just ``only``) until something stops them.
        ``limit``: at most that many instructions per turn of a core.  An interrupt asked
        before the run (between two runs of one request) stops it at once."""
        names = [only] if only else list(self.cores)
        while True:
            runnable = self._runnable(names)
            if self._interrupt:
                return self._interrupted(self.cores[runnable[0] if runnable else names[0]])
            if not runnable:
                return self._idle_stop(names, only)
            stop = self._turn(self.cores[self._next_turn(runnable)], limit, True)
            if stop is not None and stop.kind is not StopKind.PREEMPTED:
                return self._interrupted(self.cores[stop.core], stop) if stop.kind is StopKind.INTERRUPTED else stop

    def _interrupted(self, core: Core, stop: Stop | None = None) -> Stop:
        """The interrupt is taken: no core or tile keeps it pending; ``stop`` (or one at
        ``core``'s PC) reports it."""
        self.clear_interrupt()
        return stop or Stop(StopKind.INTERRUPTED, core.name, core.pc)

    def _next_turn(self, runnable: Sequence[str]) -> str:
        """Whose turn it is: the first of ``runnable`` after the core whose turn ended last, in
        the profile's order (deterministic: where turns end, never when)."""
        order = list(self.cores)
        after = order.index(self._last_turn) + 1 if self._last_turn in self.cores else 0
        return next(n for n in order[after:] + order[:after] if n in runnable)

    def _turn(self, core: Core, limit: int | None, shared: bool) -> Stop | None:
        """Run ``core`` for one turn (``shared``: others could run, so it may be preempted).
        None when it blocked, parked, exited or went into reset; else its stop."""
        self._active, self._last_turn = core, core.name
        try:
            stop = core.resume(limit, preemptible=shared)
            slices = 1
            while stop.kind is StopKind.PREEMPTED:
                # a slice of host time is over: a core spinning on memory waits; a core that
                # computes keeps its turn (host time decides when it is looked at, never what
                # runs next), unless it has run PATIENCE slices or the run gives turns a limit
                found = idle.spinning(core, self.describe_address)
                if isinstance(found, Wait):
                    core.state, core.wait = CoreState.BLOCKED, found
                    return None
                if found is not None:
                    stop = found
                elif limit is None and slices < idle.PATIENCE:
                    stop = core.resume(None, preemptible=shared)
                    slices += 1
                else:
                    break
        finally:
            self._active = None
        if stop.kind is StopKind.BLOCKED or core.state is not CoreState.RUNNABLE:
            return None
        if stop.kind is StopKind.PARKED:
            core.state = CoreState.PARKED
            return None
        if stop.kind is StopKind.EBREAK and stop.pc == self._exit_pc(core):
            self._exit(core)
            return None
        return stop

    def finished(self) -> bool:
        """True when every core with firmware has exited or parked."""
        return all(self.cores[n].state in (CoreState.EXITED, CoreState.PARKED) for n in self.programs)

    def classify_step(self, core: Core, stop: Stop) -> Stop:
        """A single step of ``core`` that reached its firmware's end: the core has exited (an
        ``EXITED`` stop, for the whole tile once no core is left)."""
        if stop.kind is StopKind.EBREAK and stop.pc == self._exit_pc(core):
            self._exit(core)
            names = list(self.programs)
            return Stop(StopKind.EXITED, core.name, stop.pc,
                        detail=self.describe_finish(names if self.finished() else [core.name]))
        return stop

    def _runnable(self, names: Sequence[str]) -> list[str]:
        """Wake blocked cores whose wait is over; the cores that can run now."""
        for name in names:
            core = self.cores[name]
            if core.state is CoreState.BLOCKED and core.wait is not None and core.wait.ready():
                core.state, core.wait = CoreState.RUNNABLE, None
        return [n for n in names if self.cores[n].state is CoreState.RUNNABLE]

    def _exit_pc(self, core: Core) -> int | None:
        program = self.programs.get(core.name)
        return program.exit_pc if program else None

    def _exit(self, core: Core) -> None:
        core.state = CoreState.EXITED
        sym = self.programs[core.name].image.symbols.get(EXIT_CODE_SYMBOL)
        code = self.peek(core, sym.addr, 4) if sym else 0
        self.exit_codes[core.name] = code or 0

    def _idle_stop(self, names: Sequence[str], only: str | None) -> Stop:
        """No core can run: a deadlock if one waits, else the end of the run."""
        cores = [self.cores[n] for n in names]
        blocked = [c for c in cores if c.state is CoreState.BLOCKED]
        focus = blocked[0] if blocked else next((c for c in cores if c.state in (CoreState.EXITED, CoreState.PARKED)), cores[0])
        if blocked:
            waits = tuple(CoreWait(c.name, c.pc, c.wait.reason if c.wait else "blocked", c.wait) for c in blocked)
            return Stop(StopKind.DEADLOCK if only is None else StopKind.BLOCKED, focus.name, focus.pc,
                        detail="; ".join(f"{w.core}: {w.reason} (pc {w.pc:#010x})" for w in waits), waits=waits)
        return Stop(StopKind.EXITED, focus.name, focus.pc, detail=self.describe_finish(names))

    def describe_address(self, address: int, value: int | None = None) -> str:
        """An address as a wait names it: L1 (or local RAM), its name (a host's ``namers``
        first, else the symbol there if a loaded ELF has one), the value it holds, and for L1
        the NoC request that last wrote it."""
        where = "L1" if address < self.profile.l1_size else "local RAM" if address >= self.profile.local_ram_base else "memory"
        text = f"{where} {address:#x}"
        named = next((n for n in (namer(address) for namer in self.namers) if n), None)
        if named:
            text += f" <{named}>"
        for program in self.programs.values() if not named else ():
            hit = program.image.symbol_at(address)
            if hit is not None:
                text += f" <{hit[0].name}+{hit[1]}>" if hit[1] else f" <{hit[0].name}>"
                break
        if value is not None:
            text += f" (= {value:#x})"
        if where == "L1":
            last = next((t for lo, hi, t in reversed(self.noc_l1_writes) if lo <= address < hi), None)
            text += f" [last written by {last.describe()}]" if last else " [no NoC request has written it]"
        return text

    def describe_finish(self, names: Sequence[str]) -> str:
        parts = []
        for name in names:
            core = self.cores[name]
            if core.state is CoreState.EXITED:
                parts.append(f"{name} exited with code {self.exit_codes.get(name, 0)}")
            elif core.state is CoreState.PARKED:
                parts.append(f"{name} parked at {core.pc:#010x}")
            elif core.state is CoreState.RESET and name in self.programs:
                parts.append(f"{name} held in reset")
        return ", ".join(parts)

    def interrupt(self) -> None:
        """Stop a running ``run`` from another thread (Ctrl-C); it stays pending until a run
        takes it (an ``INTERRUPTED`` stop) or ``clear_interrupt``."""
        self._interrupt = True
        active = self._active
        if active is not None:
            active.interrupt()

    def clear_interrupt(self) -> None:
        """Drop a pending interrupt (a new request starts)."""
        self._interrupt = False
        for core in self.cores.values():
            core._interrupt = False

    # -- Tensix instruction pushes -------------------------------------------------------------
    def store_push(self, core_name: str, thread: int, word: int) -> None:
        """A store to an instruction-push address (``tdbg.emu.regions``)."""
        core = self.cores[core_name]
        self.push(core, thread, core.pc, word, "store")

    def push(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        """A core pushes one Tensix instruction to ``thread``; the coprocessor runs it now.

        A push into a full queue stalls the core (``Stall``).  An event it raises, or a write
        to a watched Dst row, stops the core after the push (the push itself has happened).  A
        push the debugger makes while the core is stopped (a store to ``INSTRN_BUF_BASE`` typed
        by the user) raises the event instead.  This is the path of every pushed instruction:
        it logs a tuple and calls the coprocessor, nothing more unless a Dst row is watched.
        A debugger push into a full queue is a ``Stall`` too: the write cannot complete."""
        if not core.running:
            try:
                self.execute(core, thread, pc, word, "debugger")
            except QueueFull:
                raise Stall(self._fifo_wait(thread)) from None
            return
        if self.watches:
            self._push_watched(core, thread, pc, word, via)
            return
        try:
            self.execute(core, thread, pc, word, via)
        except QueueFull:
            raise Stall(self._fifo_wait(thread)) from None
        except TensixEvent as event:
            core.push_event(event)

    def _push_watched(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        """``push`` while watches exist: a push that writes a watched Dst row, or (by a Tensix
        instruction: packer, Scalar Unit) a watched L1 range, stops the core."""
        watches = [w for w in self.watches if w.dst_rows and w.kind != "read"]
        l1_watches = [w for w in self.watches if not w.dst_rows and w.kind != "read" and w.core is None
                      and w.address + w.length <= self.profile.l1_size]
        before = [self.tensix.dst.bits[w.bits_rows].copy() for w in watches]
        l1_before = [bytes(self.l1[w.address:w.address + w.length]) for w in l1_watches]
        self._rows_written, self._l1_written = set(), []
        try:
            self.execute(core, thread, pc, word, via)
        except QueueFull:
            raise Stall(self._fifo_wait(thread)) from None
        except TensixEvent as event:
            core.push_event(event)
            return
        finally:
            written_rows, self._rows_written = self._rows_written, None
            l1_written, self._l1_written = self._l1_written, None
        for l1_watch, old_bytes in zip(l1_watches, l1_before):
            hit = next((a for a in l1_written if a.start < l1_watch.address + l1_watch.length and l1_watch.address < a.end), None)
            if hit is not None:
                new = int.from_bytes(bytes(self.l1[l1_watch.address:l1_watch.address + l1_watch.length]), "little")
                detail = f"T{hit.thread} {self.describe_word(hit.word)} wrote L1 {hit.start:#x}..{hit.end:#x}"
                core.push_watch(l1_watch, int.from_bytes(old_bytes, "little"), new, detail)
                return
        for watch, old in zip(watches, before):
            written = sorted(watch.dst_rows & written_rows)
            if written:
                i = watch.bits_rows.index(written[0])
                now = self.tensix.dst.bits[written[0]]
                changed = np.flatnonzero(now != old[i])
                col = int(changed[0]) if len(changed) else 0
                detail = f"{self.coprocessor.mnemonic(word) or hex(word)} wrote DstBits row {written[0]}"
                core.push_watch(watch, int(old[i, col]), int(now[col]), detail)
                return

    def execute(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        """Log and run one pushed instruction on ``thread``; events (and ``QueueFull``)
        propagate.  A push from B enters after the MOP expander (PushTensixInstruction.md)."""
        self.seq += 1
        self.pushes.append(self.seq, pc, core.name, thread, word, via)
        try:
            self.coprocessor.push(thread, word, core.thread is not None)
        except QueueFull:
            self.pushes.pop()
            self.seq -= 1
            raise

    def describe_word(self, word: int) -> str:
        """A pushed word as text (``MOVD2B SrcRow=0 ...``), or its hex if no encoding matches."""
        try:
            return self.profile.isa.decode(word).text()
        except IsaError:
            return f"{word:#010x}"

    def _noc_wrote_l1(self, address: int, data: bytes, transfer: Transfer) -> None:
        """A NoC request writes this tile's L1, as any L1 write: journalled for reverse-stepi,
        code it overwrites replaced again, and a watchpoint on it stops the core that issued the
        request (after its store), naming the transfer."""
        end = address + len(data)
        if transfer.seq:
            self.noc_l1_writes.append((address, end, transfer))
            del self.noc_l1_writes[:-NOC_WRITES_KEPT]
        journal = self.coprocessor.l1_journal
        if journal is not None:
            journal.append((address, bytes(self.l1[address:end])))
        watched = [(w, bytes(self.l1[w.address:w.address + w.length])) for w in self.watches
                   if not w.dst_rows and w.kind != "read" and w.core is None and w.address < end
                   and address < w.address + w.length and w.address + w.length <= self.profile.l1_size]
        _copy_into(self.l1, address, data)
        if any(address < hi and lo < end for lo, hi in self._code):
            self._code_overwritten(address, end)
        else:
            for core in self.cores.values():
                core.uc.ctl_remove_cache(address, end)
        core = self.cores.get(transfer.core)
        for watch, old in watched:
            new = bytes(self.l1[watch.address:watch.address + watch.length])
            if core is not None and core.running:
                core.push_watch(watch, int.from_bytes(old, "little"), int.from_bytes(new, "little"), transfer.describe())
                break

    def _l1_accessed(self, thread: int, word: int, ranges: list[tuple[int, int, bool]]) -> None:
        """A Tensix instruction read or wrote L1: log it (under the current push's sequence
        number), and drop Unicorn's translations of any firmware code it overwrote."""
        for start, end, write in ranges:
            access = L1Access(self.seq, thread, word, start, end, write)
            self.l1_log.append(access)
            if write:
                if self._l1_written is not None:
                    self._l1_written.append(access)
                if any(start < hi and lo < end for lo, hi in self._code):
                    self._code_overwritten(start, end)

    def _code_overwritten(self, start: int, end: int) -> None:
        """A Tensix unit wrote L1 over loaded code: each replaced word it changed is now what
        it wrote; drop Unicorn's translations of the range."""
        for at in range(start & ~3, end, 4):
            patch = self.code.at.get(at)
            held = int.from_bytes(bytes(self.l1[at:at + 4]), "little")
            if (patch is not None and held != patch.placed) or (patch is None and self._in_code(at)):
                self._replace(at, held)
        for core in self.cores.values():
            core.uc.ctl_remove_cache(start, end)

    def dst_writer(self, row: int) -> DstWriter | None:
        """The last writer of ``DstBits`` row ``row``, if known."""
        return self.provenance.writer(row, self.pushes, self.describe_word)

    def coprocessor_progressed(self) -> None:
        """A RISC-V store changed coprocessor state that held instructions may wait on."""

    def ttsync_wait(self, core_name: str) -> Wait:
        """What a TTSync load by ``core_name`` waits for: its thread's queue to drain."""
        thread = self.cores[core_name].thread
        assert thread is not None
        cop = self.coprocessor
        pc = self.cores[core_name].pc
        return Wait(f"TTSync load at {pc:#010x} waits for the coprocessor",
                    lambda: not cop.queued(thread), lambda: cop.waiting(thread), thread=thread)

    def _fifo_wait(self, thread: int) -> Wait:
        cop, capacity = self.coprocessor, self.profile.wait_gate_capacity
        return Wait(f"push stalls: thread T{thread} has {capacity} instructions waiting at the Wait Gate",
                    lambda: cop.queued(thread) < capacity, lambda: cop.waiting(thread), thread=thread)

    # -- provenance and tracing of window accesses ------------------------------------------
    def observe_window(self, trace: bool | None = None, writers: bool | None = None) -> None:
        """Turn window-access tracing and window-store provenance on or off (each costs a PC
        read per window access, so both are off by default)."""
        if trace is not None:
            self.window_trace = WindowTrace() if trace else None
        if writers is not None:
            self.record_window_writers = writers
        on = self.window_trace is not None or self.record_window_writers
        self.window_observer = self._observe if on else None

    def _observe(self, core: Core, address: int, size: int, value: int, write: bool) -> None:
        self.seq += 1
        pc = core.pc
        window = self.tensix.window
        assert core.thread is not None
        fmt = window.ctrl(core.thread).fmt
        if self.window_trace is not None:
            index = (address - (self.profile.dst_window_base or 0)) // ELEMENT_SIZE.get(fmt, size)
            view = FMT_NAMES.get(fmt, f"reserved fmt {fmt}")
            self.window_trace.append(WindowAccess(self.seq, pc, core.name, index // 16, index % 16, size, value, view, write))
        if write and self.record_window_writers:
            writer = DstWriter(pc, core.name, f"window store ({size} bytes, fmt {fmt})", self.seq)
            self.provenance.record_window(self.seq, writer, sorted(self.window_rows(core, address, size)))

    def window_rows(self, core: Core, address: int, size: int) -> set[int]:
        """``DstBits`` rows a window access by ``core`` would touch."""
        base = self.profile.dst_window_base
        if base is None or core.thread is None or not base <= address < base + self.profile.dst_window_size:
            return set()
        return self.tensix.window.rows_touched(core.thread, address - base, size)

    def _dst_written(self, rows: np.ndarray) -> None:
        self.provenance.seq[rows] = self.seq
        if self._rows_written is not None:
            self._rows_written.update(rows.tolist())

    # -- events ---------------------------------------------------------------------------------
    def report(self, event: TensixEvent, core: str, pc: int, access: Access | None) -> bool:
        """Apply the policy for ``event``: True to stop, else record a warning (or not)."""
        policy = self.policy[event.category]
        if policy is Policy.WARN:
            self.warnings.append(Warning_(event, core, pc, access))
        return policy is Policy.STOP

    # -- the debugger's view of memory ------------------------------------------------------------
    def peek(self, core: Core, address: int, size: int) -> int | None:
        """What a ``size``-byte load by ``core`` at ``address`` would return, or None where that
        load would be undefined or unmapped; ``.ttinsn`` words read as themselves."""
        try:
            return int.from_bytes(self.read(core, address, size), "little")
        except Unreadable:
            return None

    def read(self, core: Core, address: int, size: int) -> bytes:
        """Bytes as ``core`` would load them: devices a naturally aligned element at a time;
        ``Unreadable`` (saying why, for a device) where such a load is undefined or unmapped."""
        region = core.region_at(address)
        if region is not None:
            out = bytearray()
            try:
                while len(out) < size:
                    at, left = address + len(out), size - len(out)
                    if not region.base <= at < region.base + region.size:
                        return bytes(out + self.read(core, at, left))
                    n = next(w for w in (4, 2, 1) if at % w == 0 and left >= w)
                    out += region.load(core.thread, at - region.base, n).to_bytes(n, "little")
            except (TensixEvent, Stall) as exc:
                raise Unreadable(f"Cannot access memory at address {address + len(out):#x}: {exc}") from None
            return bytes(out)
        try:
            if self.trampolines.overlaps(address, size):
                raise ValueError("unmapped")
            data = bytearray(core.uc.mem_read(address, size))
        except Exception:
            raise Unreadable(f"Cannot access memory at address {address:#x}") from None
        if address < self.profile.l1_size and self.code.at:
            start = address & ~3
            held = bytes(self.l1[start:(address + size + 3) & ~3])
            for at in range(start, start + len(held), 4):
                patch = self.code.at.get(at)
                if patch is not None and int.from_bytes(held[at - start:at - start + 4], "little") == patch.placed:
                    raw = patch.word.to_bytes(4, "little")
                    for i in range(4):
                        if address <= at + i < address + size:
                            data[at + i - address] = raw[i]
        return bytes(data)

    # -- code the debugger or a Tensix unit rewrites ------------------------------------------
    def write_l1(self, address: int, data: bytes) -> None:
        """The debugger writes ``data`` into L1 at ``address``: a word of loaded code it
        changes is the new loaded word (replaced again if it must be, ``tdbg.emu.code``)."""
        end = address + len(data)
        words = {at: bytearray(self.code.original(at, int.from_bytes(bytes(self.l1[at:at + 4]), "little")).to_bytes(4, "little"))
                 for at in range(address & ~3, end, 4) if self._in_code(at)}
        _copy_into(self.l1, address, data)
        for at, word in words.items():
            for i in range(4):
                if address <= at + i < end:
                    word[i] = data[at + i - address]
            self._replace(at, int.from_bytes(word, "little"))
        for core in self.cores.values():
            core.uc.ctl_remove_cache(address, end)

    def load_code(self, address: int, data: bytes) -> None:
        """A host puts code in L1 (a kernel the firmware jumps to): written as the debugger
        writes, and its words classified as loaded code's are (``tdbg.emu.code``), until the
        tile is reset."""
        end = address + len(data)
        self._host_code.append((address, end))
        self._code.append((address, end))
        self._executable.append((address, end))
        self.write_l1(address, data)
        parks = {address + i for i in range((-address) & 3, len(data) - 3, 4)
                 if int.from_bytes(data[i:i + 4], "little") == JUMP_TO_SELF}
        if parks:   # a j . in it parks whichever core reaches it, as in loaded firmware
            self._host_parks |= parks
            for core in self.cores.values():
                core.set_parks(core.parks | parks)

    def _drop_host_code(self) -> None:
        """Forget the code hosts put in L1 (the reset clears L1)."""
        if not self._host_code:
            return
        hosted = self._host_code
        self.code.at = {a: p for a, p in self.code.at.items() if not any(lo <= a < hi for lo, hi in hosted)}
        self._code = [r for r in self._code if r not in hosted]
        self._executable = [r for r in self._executable if r not in hosted]
        self._host_code = []
        for core in self.cores.values():
            core.hook_code(self.code.at)
            core.set_parks(core.parks - self._host_parks)
        self._host_parks = set()

    def _in_code(self, address: int) -> bool:
        return any(lo <= address and address + 4 <= hi for lo, hi in self._executable)

    def _replace(self, address: int, word: int) -> None:
        """``word`` is now the loaded word at ``address`` (in loaded code)."""
        patch = self.code.classify(address, word)
        self.code.set(address, patch)
        if patch is not None:
            _copy_into(self.l1, address, patch.placed.to_bytes(4, "little"))
        for core in self.cores.values():
            core.set_code_hook(address, patch)

    def classify_trapped(self, address: int, word: int) -> bool:
        """A core trapped on ``word`` at ``address`` (code nobody classified: the firmware
        wrote it): replace it now if it is a word tdbg runs (True)."""
        patch = self.code.classify(address, word)
        if patch is None or address >= self.profile.l1_size:
            return False
        self.code.set(address, patch)
        _copy_into(self.l1, address, patch.placed.to_bytes(4, "little"))
        for core in self.cores.values():
            core.set_code_hook(address, patch)
            core.uc.ctl_remove_cache(address, address + 4)
        return True
