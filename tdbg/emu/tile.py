"""The emulated Tensix tile: shared L1, the cores, the coprocessor state, pushes and policies.

Firmware (an ``ElfImage``) is loaded into L1; each ``.ttinsn`` word is replaced by a NOP in
emulated memory (Unicorn would decode it as compressed instructions) and pushed to the
coprocessor when the core reaches it, as a store to ``INSTRN_BUF_BASE`` is
(BabyRISCV ``PushTensixInstruction.md``).  Debugger reads of that memory show the original word.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from tdbg.emu.core import NOP, Core
from tdbg.emu.elf import ElfImage, ElfLoadError
from tdbg.emu.regions import DebugRegisters, t_core_regions
from tdbg.emu.stops import Access
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import Category, TensixEvent
from tdbg.tensix.isa import ttinsn_to_word
from tdbg.tensix.profile import BLACKHOLE, Profile
from tdbg.tensix.tile import TensixState
from tdbg.tensix.window import ELEMENT_SIZE, FMT_NAMES

T_CORES = ("T0", "T1", "T2")


class Policy(str, Enum):
    """What ``handle CATEGORY`` does with an event."""

    STOP = "stop"
    WARN = "warn"
    IGNORE = "ignore"


@dataclass(frozen=True)
class PushRecord:
    """One Tensix instruction pushed by a core."""

    pc: int
    core: str
    thread: int
    word: int
    via: str                 # "ttinsn" or "store"
    mnemonic: str | None     # None: no encoding matches the word


@dataclass(frozen=True)
class DstWriter:
    """Who last wrote a ``DstBits`` row (``seq`` orders pushes and recorded window accesses)."""

    pc: int
    core: str
    what: str   # "MOVD2B ..." or "window store (4 bytes, fmt 0)"
    seq: int


@dataclass(frozen=True)
class WindowAccess:
    """One traced Dst-window access."""

    seq: int
    pc: int
    core: str
    row: int       # Dst16b or Dst32b row, per the view
    col: int
    size: int
    value: int
    view: str      # the window format's name
    write: bool


@dataclass(frozen=True)
class CoreState:
    context: object
    local_ram: bytes
    pc: int
    completed_pc: int | None
    last_stop: object


@dataclass(frozen=True)
class Checkpoint:
    """A saved tile (``Tile.checkpoint``)."""

    l1: bytes
    cores: dict[str, CoreState]
    tensix: dict[str, object]
    coprocessor: dict[str, object]
    pushes: int
    cfgreg_rd_cntl: int

    @property
    def dst_bits(self) -> object:
        return self.tensix["dst_bits"]


@dataclass(frozen=True)
class Warning_:
    event: TensixEvent
    core: str
    pc: int
    access: Access | None


class Tile:
    """One Tensix tile: L1, T cores, the coprocessor model."""

    def __init__(self, profile: Profile = BLACKHOLE) -> None:
        self.profile = profile
        self.tensix = TensixState(profile)
        self.coprocessor = Coprocessor(self.tensix, on_dst_write=self._dst_written)
        self.dst_write_listeners: list[Callable[[np.ndarray], None]] = []
        self.l1 = ctypes.create_string_buffer(profile.l1_size)
        self.debug_registers = DebugRegisters(self.tensix)
        self.image: ElfImage | None = None
        self.cores: dict[str, Core] = {}
        self.pushes: list[PushRecord] = []
        self._rows_written: set[int] = set()  # DstBits rows the current push wrote
        self.dst_writers: dict[int, DstWriter] = {}   # DstBits row -> its last writer
        self.seq = 0
        self.record_window_writers = False             # costs a PC read per window access
        self.window_trace: list[WindowAccess] | None = None
        self.window_observer: Callable[[Core, int, int, int, bool], None] | None = None
        self._push: tuple[int, str, str] = (0, "", "")
        self.policy: dict[Category, Policy] = {c: Policy.STOP for c in Category}
        self.warnings: list[Warning_] = []
        self.add_core("T0")

    def add_core(self, name: str) -> Core:
        """Create T0, T1 or T2 (the window and config views depend on the issuing core)."""
        if name not in T_CORES:
            raise ValueError(f"unknown core {name!r}: tdbg models {', '.join(T_CORES)}")
        thread = T_CORES.index(name)

        def push(thread: int, word: int) -> None:
            core = self.cores[name]
            self.push(core, core.pc, word, "store")

        regions = t_core_regions(self.tensix, self.coprocessor, self.debug_registers, push)
        core = Core(self, name, thread, regions, self.profile.trisc_local_ram_size)
        self.cores[name] = core
        if self.image is not None:
            self._start_core(core)
        return core

    # -- loading ----------------------------------------------------------------------------------
    def load(self, image: ElfImage) -> None:
        """Load firmware and put every core at its entry point."""
        for seg in image.segments:
            if seg.vaddr + seg.memsz > self.profile.l1_size:
                raise ElfLoadError(f"{image.path}: segment at {seg.vaddr:#x} is not in L1 (0..{self.profile.l1_size:#x})")
        self.image = image
        self.reset()

    def reset(self) -> None:
        """Back to the loaded state: memory, coprocessor, registers; breakpoints stay."""
        ctypes.memset(self.l1, 0, len(self.l1))
        if self.image is None:
            return
        for seg in self.image.segments:
            ctypes.memmove(ctypes.addressof(self.l1) + seg.vaddr, seg.data, len(seg.data))
        nop = NOP.to_bytes(4, "little")
        for address in self.image.ttinsn:
            ctypes.memmove(ctypes.addressof(self.l1) + address, nop, 4)
        self.tensix.reset()
        self.coprocessor.reset()
        self.debug_registers.reset()
        self.pushes.clear()
        self.warnings.clear()
        self.dst_writers.clear()
        if self.window_trace is not None:
            self.window_trace.clear()
        for core in self.cores.values():
            ctypes.memset(core.local_ram, 0, len(core.local_ram))
            self._start_core(core)

    def checkpoint(self) -> Checkpoint:
        """Everything needed to come back here: CPU contexts, L1, local RAMs, Dst, SrcA/SrcB,
        config, RWCs and the rest of the coprocessor, the push log position."""
        cores = {
            name: CoreState(core.uc.context_save(), bytes(core.local_ram), core.pc, core.completed_pc, core.last_stop)
            for name, core in self.cores.items()
        }
        return Checkpoint(bytes(self.l1), cores, self.tensix.snapshot(), self.coprocessor.snapshot(),
                          len(self.pushes), self.debug_registers.cfgreg_rd_cntl)

    def restore(self, cp: Checkpoint) -> None:
        """Return to ``cp`` (cores created after it are left where they are)."""
        ctypes.memmove(self.l1, cp.l1, len(cp.l1))
        for name, state in cp.cores.items():
            core = self.cores[name]
            core.uc.context_restore(state.context)
            ctypes.memmove(core.local_ram, state.local_ram, len(state.local_ram))
            core.pc = state.pc
            core.completed_pc = state.completed_pc
            core.last_stop = state.last_stop
            core.uc.ctl_remove_cache(0, self.profile.l1_size)
        self.tensix.restore(cp.tensix)
        self.coprocessor.restore(cp.coprocessor)
        del self.pushes[cp.pushes:]
        self.debug_registers.cfgreg_rd_cntl = cp.cfgreg_rd_cntl

    def _start_core(self, core: Core) -> None:
        assert self.image is not None
        core.hook_ttinsn(sorted(self.image.ttinsn), self._push_ttinsn)
        core.uc.ctl_remove_cache(0, self.profile.l1_size)
        core.reset_registers(self.image.entry)

    # -- Tensix instruction pushes -------------------------------------------------------------
    def _push_ttinsn(self, core: Core, address: int, riscv_word: int) -> None:
        self.push(core, address, ttinsn_to_word(riscv_word), "ttinsn")

    def push(self, core: Core, pc: int, word: int, via: str) -> None:
        """A core pushes one Tensix instruction to its thread; the coprocessor runs it now.

        An event it raises, or a write to a watched Dst row, stops the core after the push
        (the push itself has happened).  A push the debugger makes while the core is stopped
        (a store to ``INSTRN_BUF_BASE`` typed by the user) raises the event instead."""
        if not core.running:
            self.execute(core, pc, word, "debugger")
            return
        watches = [w for w, _ in core.watches.values() if w.dst_rows and w.kind != "read"]
        before = [self.tensix.dst.bits[w.bits_rows].copy() for w in watches]
        try:
            mnemonic = self.execute(core, pc, word, via)
        except TensixEvent as event:
            core.push_event(event)
            return
        for watch, old in zip(watches, before):
            written = sorted(watch.dst_rows & self._rows_written)
            if written:
                i = watch.bits_rows.index(written[0])
                now = self.tensix.dst.bits[written[0]]
                changed = np.flatnonzero(now != old[i])
                col = int(changed[0]) if len(changed) else 0
                detail = f"{mnemonic or hex(word)} wrote DstBits row {written[0]}"
                core.push_watch(watch, int(old[i, col]), int(now[col]), detail)
                return

    def execute(self, core: Core, pc: int, word: int, via: str) -> str | None:
        """Log and run one pushed instruction on ``core``'s thread; events propagate.
        Returns the mnemonic (None if no encoding matches)."""
        mnemonic = self.coprocessor.mnemonic(word)
        self.pushes.append(PushRecord(pc, core.name, core.thread, word, via, mnemonic))
        self._rows_written = set()
        self.seq += 1
        self._push = (pc, core.name, mnemonic or f"{word:#010x}")
        self.coprocessor.push(core.thread, word)
        return mnemonic

    # -- provenance and tracing of window accesses ------------------------------------------
    def observe_window(self, trace: bool | None = None, writers: bool | None = None) -> None:
        """Turn window-access tracing and window-store provenance on or off (each costs a PC
        read per window access, so both are off by default)."""
        if trace is not None:
            self.window_trace = [] if trace else None
        if writers is not None:
            self.record_window_writers = writers
        on = self.window_trace is not None or self.record_window_writers
        self.window_observer = self._observe if on else None

    def _observe(self, core: Core, address: int, size: int, value: int, write: bool) -> None:
        self.seq += 1
        pc = core.pc
        window = self.tensix.window
        fmt = window.ctrl(core.thread).fmt
        if self.window_trace is not None:
            index = (address - (self.profile.dst_window_base or 0)) // ELEMENT_SIZE.get(fmt, size)
            view = FMT_NAMES.get(fmt, f"reserved fmt {fmt}")
            self.window_trace.append(WindowAccess(self.seq, pc, core.name, index // 16, index % 16, size, value, view, write))
        if write and self.record_window_writers:
            writer = DstWriter(pc, core.name, f"window store ({size} bytes, fmt {fmt})", self.seq)
            for row in self.window_rows(core, address, size):
                self.dst_writers[row] = writer

    def window_rows(self, core: Core, address: int, size: int) -> set[int]:
        """``DstBits`` rows a window access by ``core`` would touch."""
        base = self.profile.dst_window_base
        if base is None or not base <= address < base + self.profile.dst_window_size:
            return set()
        return self.tensix.window.rows_touched(core.thread, address - base, size)

    def _dst_written(self, rows: np.ndarray) -> None:
        pc, core, what = self._push
        writer = DstWriter(pc, core, what, self.seq)
        for r in rows:
            self._rows_written.add(int(r))
            self.dst_writers[int(r)] = writer
        for listener in self.dst_write_listeners:
            listener(rows)

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
        data = self.read(core, address, size)
        return None if data is None else int.from_bytes(data, "little")

    def read(self, core: Core, address: int, size: int) -> bytes | None:
        region = core.region_at(address)
        if region is not None:
            try:
                return region.load(core.thread, address - region.base, size).to_bytes(size, "little")
            except TensixEvent:
                return None
        try:
            data = bytearray(core.uc.mem_read(address, size))
        except Exception:
            return None
        if self.image is not None:
            for word_address in range(address & ~3, address + size, 4):
                word = self.image.ttinsn.get(word_address)
                if word is not None:
                    raw = word.to_bytes(4, "little")
                    for i in range(4):
                        if address <= word_address + i < address + size:
                            data[word_address + i - address] = raw[i]
        return bytes(data)
