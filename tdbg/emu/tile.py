"""The emulated Tensix tile: shared L1, every core with its own firmware, the coprocessor state,
the devices, policies; the run model is ``tdbg.emu.scheduler``'s and the path of pushed
instructions ``tdbg.emu.push_path``'s.

Firmware (one ``ElfImage`` per core) is placed in L1 as a host does (``tdbg.emu.loader``); the
words of its code that Unicorn must not run as they are (``tdbg.emu.code_patches``) are replaced in
emulated memory: a ``.ttinsn`` is pushed to the coprocessor when a core reaches it, as a store to
``INSTRN_BUF_BASE`` is (BabyRISCV ``PushTensixInstruction.md``), a CSR instruction runs on the
core's CSRs, a Zba/Zbb/xttzbkb instruction jumps to its RV32IM trampoline.  Debugger reads of
that memory show the loaded word; a debugger write there replaces the loaded word.

Releasing cores follows ``SOFT_RESET_0``: loading writes what a host writes (each TRISC's reset
PC = its ELF's entry, the override on; ``shared/kernels/README.md``); with a B firmware only B is
released and it releases the TRISCs, otherwise every loaded core starts at once.  A *hosted*
tile (a grid's, ``tdbg.emu.grid``) runs what a host wrote: a core released with no firmware
starts at its reset PC in the L1 the host filled.
"""

from __future__ import annotations

import ctypes
import zlib
from bisect import bisect_right
from functools import partial
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

import numpy as np

from tdbg.arch import profile_for
from tdbg.arch.profile import Profile
from tdbg.emu import devices, loader
from tdbg.emu.code_patches import CodePatches, Patch, maybe_replaced
from tdbg.emu.core import Core, CoreState, Watch
from tdbg.emu.devices.coprocessor_port import CoprocessorPort
from tdbg.emu.devices.device import Stall
from tdbg.emu.devices.mailboxes import Mailboxes
from tdbg.emu.devices.overlay import Overlay
from tdbg.emu.devices.tile_registers import TileRegisters
from tdbg.emu.host_memory import zeroed
from tdbg.emu.elf import JUMP_TO_SELF, ElfImage, ElfLoadError, Segment
from tdbg.emu.l1_written import L1Written
from tdbg.emu.noc import L1Writes, LocalTile, Noc, Transfer
from tdbg.emu.push_path import PushPath
from tdbg.emu.pushlog import DstWriter, L1Log, PushLog, WindowTrace
from tdbg.emu.scheduler import Scheduler
from tdbg.emu.stops import Access, Stop
from tdbg.emu.translation import Trampolines
from tdbg.tensix.state_description import StateDescription, obj, part, parts, value
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import DEFAULT_POLICY_WARNS, Category, TensixEvent
from tdbg.tensix.state import TensixState

NOC_WRITES_KEPT = 10_000     # NoC writes into L1 remembered for hang reports
#: Who writes L1 through ``Tile.write`` (a NoC request is its ``Transfer``).
DEBUGGER, TENSIX = "debugger", "tensix"


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


class SavedCore(NamedTuple):
    pc: int
    state: CoreState


@dataclass(frozen=True)
class Checkpoint:
    """A saved tile (``Tile.checkpoint``): ``Tile.STATE``'s save, L1 in it zlib-compressed when
    ``compressed``; ``nbytes``, roughly the memory it holds."""

    saved: dict[str, Any]
    nbytes: int
    compressed: bool = False

    @property
    def tensix(self) -> dict[str, Any]:
        return self.saved["coprocessor"]["tensix"]  # type: ignore[no-any-return]

    @property
    def dst_bits(self) -> object:
        return self.tensix["dst_bits"]

    @property
    def cores(self) -> dict[str, SavedCore]:
        """Each core as the checkpoint saw it."""
        return {name: SavedCore(core["pc"], core["state"]) for name, core in self.saved["cores"].items()}

    def l1_bytes(self) -> bytes:
        l1: bytes = self.saved["l1"]
        return zlib.decompress(l1) if self.compressed else l1


def _copy_into(buffer: ctypes.Array, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` of ``buffer``; bytes that would not fit are a bug in the
    loader's checks, raised here rather than written past the buffer."""
    if not 0 <= offset <= offset + len(data) <= len(buffer):
        raise ElfLoadError(f"{len(data)} bytes at offset {offset:#x} do not fit a {len(buffer)}-byte memory")
    ctypes.memmove(ctypes.addressof(buffer) + offset, data, len(data))


_JUMP_TO_SELF_BYTES = JUMP_TO_SELF.to_bytes(4, "little")


def _minus(lo: int, hi: int, holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``lo .. hi`` (word aligned) without the words any of ``holes`` touches."""
    parts = [(lo, hi)]
    for a, b in holes:
        a, b = a & ~3, (b + 3) & ~3
        parts = [piece for x, y in parts for piece in ((x, min(y, a)), (max(x, b), y)) if piece[0] < piece[1]]
    return parts


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

    def __init__(self, profile: Profile | None = None, hosted: bool = False) -> None:
        profile = profile or profile_for()
        self.profile = profile
        self.hosted = hosted
        self.tensix = TensixState(profile)
        self.coprocessor = Coprocessor(self.tensix)
        self.l1 = zeroed(profile.l1_size)
        #: L1 and ``l1_written`` are known to be all zero: nothing wrote L1 since it was made or
        #: last reset to zeros, so a reset need not zero them (a fresh 1.5 MiB L1 has no pages
        #: yet: zeroing it faulted in every one, 1.6 ms measured here).  Every write to L1 clears
        #: it: ``write`` (the debugger's, a host's, a NoC request's, a Tensix unit's), a restore,
        #: the replaced words' stand-ins, and any run of a core (``Core._emulate_once``).
        self.l1_zero = True
        self.tensix.l1 = np.frombuffer(self.l1, dtype=np.uint8)  # the coprocessor's view of L1
        self._l1_words = np.frombuffer(self.l1, dtype="<u4")       # ... and the code's, by word
        self._code: list[tuple[int, int]] = []                    # L1 ranges of loaded firmware
        self._code_index: tuple[list[int], list[int]] | None = None   # ... merged: starts, ends (``_over_code``)
        self._executable: list[tuple[int, int]] = []              # ... of its executable bytes
        self._host_code: list[tuple[int, int]] = []               # code a host put in L1 since the reset
        self._host_owner: dict[tuple[int, int], str] = {}         # ... the core whose binary each range is
        self._host_parks: set[int] = set()                        # ... and the j . words in it
        self.programs: dict[str, Program] = {}
        self.hooks_stale = False     # loaded code the cores have not hooked yet (``load``): a reset hooks it
        self.trampolines = Trampolines(profile.trampoline_spaces)
        self.code = CodePatches(self.trampolines)                 # replaced words of loaded code
        self.l1_written = L1Written(profile.l1_size)   # for NeverWritten on L1 (tdbg.emu.l1_written)
        self.local = LocalTile(          # this tile as the NoC reaches it
            lambda address, n: bytes(self.l1[address:address + n]), self.write,
            lambda address: self.coprocessor.mmio.load(0, address),
            lambda address, value: self.coprocessor.mmio.store(0, address, value), self.l1_written.never_written)
        self.noc = Noc(profile.noc, profile.l1_size, self.local)
        #: NoC requests' writes into L1, newest last: (start, end, request, pushes made before it)
        self.noc_l1_writes = L1Writes(NOC_WRITES_KEPT)
        self.namers: list[Callable[[int], str | None]] = []   # a host's names for addresses (describe_address)
        self.window_observer: Callable[[Core, int, int, int, bool], None] | None = None
        self.policy: dict[Category, Policy] = {c: Policy.WARN if c in DEFAULT_POLICY_WARNS else Policy.STOP
                                               for c in Category}
        self.warnings: list[Warning_] = []
        self.watches: list[Watch] = []
        self.alignment_check = False           # misaligned L1 / local-RAM accesses are caught
        self.push_path = PushPath(self)
        self.devices = devices.build(self)
        self.registers: TileRegisters = self._device("tile registers")  # type: ignore[assignment]
        self.overlay: Overlay = self._device("overlay")  # type: ignore[assignment]
        self.mailboxes: Mailboxes = self._device("mailboxes")  # type: ignore[assignment]
        local_rams = {c.name: ctypes.create_string_buffer(c.local_ram_size) for c in profile.cores}
        self.cores: dict[str, Core] = {spec.name: Core(self, spec, local_rams) for spec in profile.cores}
        self.scheduler = Scheduler(self)
        self.coprocessor.mmio = CoprocessorPort(self)
        self.coprocessor.l1_write = partial(self.write, by=TENSIX)

    def _put_l1(self, data: bytes) -> None:
        """L1 holds ``data`` from its start and zeros after it (a reset puts no bytes)."""
        if data or not self.l1_zero:
            ctypes.memmove(self.l1, data, len(data))
            ctypes.memset(ctypes.addressof(self.l1) + len(data), 0, len(self.l1) - len(data))
        if data:
            self.l1_zero = False

    def _put_l1_written(self, data: bytes) -> None:
        if data or not self.l1_zero:
            self.l1_written.put(data)

    def _put_code(self, at: dict[int, Patch]) -> None:
        """The replaced words of another moment: the cores' code hooks follow them."""
        if self.code.at is not at:
            self.code.at = at
            for core in self.cores.values():
                core.hook_code(at)
        self.code.shared()      # the saved state still holds it

    #: The whole tile: L1 and the replaced code words in it (a reverse-stepi record leaves both to
    #: the step's journal), the coprocessor (with its architectural state), the devices, the NoC,
    #: the push log, the run model, every core.  A reset also clears the warnings and the NoC's
    #: writes into L1.
    STATE = StateDescription("tile", (
        value("l1", get=lambda t: bytes(t.l1), put=_put_l1, reset=b"", in_steps=False),
        value("code", get=lambda t: t.code.shared(), put=_put_code, in_steps=False),
        value("l1_written", get=lambda t: t.l1_written.saved(), put=_put_l1_written, reset=b"", in_steps=False),
        part("coprocessor"),
        parts("devices"),
        part("noc"),
        part("pushes", "push_path"),
        part("scheduler"),
        parts("cores", in_steps=False),
        obj("warnings", reset=lambda t: [], saved=False),
        obj("noc_l1_writes", reset=lambda t: L1Writes(NOC_WRITES_KEPT), saved=False),
    ))

    def _device(self, model: str) -> devices.Device:
        return self.devices[self.profile.devices_of(model)[0].name]

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
    def load(self, name: str, image: ElfImage | None, local_init: int | None = None, reset: bool = True) -> None:
        """Give core ``name`` its firmware (None: take it away), then reset the tile (``reset``
        False: the caller resets it once after loading every core, and the cores hook the
        loaded code then); ``local_init``: where in L1 its private-memory bytes go
        (``loader.placements``)."""
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
        held = self.code.at    # a word classified before is classified alike (``classify`` is pure)
        self.code.at = {address: patch if (patch := held.get(address)) is not None and patch.word == word
                        else self.code.classify(address, word)
                        for program in self.programs.values() for address, word in program.replaced.items()}
        self._code = [(s.vaddr, s.vaddr + s.memsz) for p in self.programs.values() for s in p.segments
                      if s.vaddr < self.profile.l1_size]
        self._code_index = None
        self._executable = [(s.vaddr, s.vaddr + len(s.data)) for p in self.programs.values() for s in p.segments
                            if s.executable and s.vaddr < self.profile.l1_size]
        parks = {a for p in self.programs.values() for a in p.parks if a < self.profile.l1_size}
        self.hooks_stale = True    # the reset (now, or the caller's) hooks every core once
        if image is not None:   # built when it first gets firmware (or is first addressed)
            self.cores[spec.name].build()
        for core in self.cores.values():
            program = self.programs.get(core.name)
            # a j . in L1 parks whichever core reaches it (one may jump into another's code)
            core.set_parks((program.parks | parks) if program else set())
        if reset:
            self.reset()

    def others_code(self, name: str) -> list[tuple[int, int]]:
        """The aligned words of executable L1 code that only other cores' firmware or binaries
        hold: the first and last word address of each stretch (not ``name``'s own code, nor code
        a host put in L1 without naming its core, which every core may run)."""
        own = [(s.vaddr, s.vaddr + len(s.data)) for s in self.programs[name].segments
               if s.executable] if name in self.programs else []
        owner = self._host_owner
        own += [r for r in self._host_code if owner.get(r, name) == name]
        spans = []
        for other, program in self.programs.items():
            if other == name:
                continue
            for s in program.segments:
                if s.executable and s.vaddr + len(s.data) <= self.profile.l1_size:
                    spans += _minus((s.vaddr + 3) & ~3, (s.vaddr + len(s.data)) & ~3, own)
        for lo, hi in self._host_code:
            if owner.get((lo, hi), name) != name and hi <= self.profile.l1_size:
                spans += _minus((lo + 3) & ~3, hi & ~3, own)
        merged: list[tuple[int, int]] = []
        for lo, hi in sorted(spans):
            if merged and lo <= merged[-1][1] + 4:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi - 4))
            elif lo < hi:
                merged.append((lo, hi - 4))
        return merged

    def image(self, name: str) -> ElfImage | None:
        program = self.programs.get(name)
        return program.image if program else None

    def reset(self) -> None:
        """Back to the loaded state: power-on (``STATE``), then the firmware written and the
        cores released as a host does; breakpoints and watchpoints stay."""
        self._drop_host_code()
        if self.hooks_stale:    # loads since the last reset: each core hooks the code once
            self.hooks_stale = False
            for core in self.cores.values():
                core.hook_code(self.code.at)
        Tile.STATE.reset(self)
        for core in self.cores.values():
            # Measured on Unicorn 2.1: tb_flush reuses the code buffer; ctl_remove_cache over all
            # of L1 left every run's translations in it (RSS +44 KB a run, without a plateau).
            core.flush_translations()
        for name, program in self.programs.items():
            core = self.cores[name]
            for seg in program.segments:
                if seg.vaddr < self.profile.l1_size:
                    _copy_into(self.l1, seg.vaddr, seg.data)
                    self.l1_written.mark(seg.vaddr, seg.vaddr + seg.memsz)
                else:
                    _copy_into(core.local_ram, seg.vaddr - self.profile.local_ram_base, seg.data)
        self._place_patches()
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
        self.l1_zero = not self.programs and not self.code.at

    def _place_patches(self) -> None:
        """L1 holds each replaced word's stand-in (one numpy store where every word is aligned)."""
        at = np.fromiter(self.code.at, dtype=np.int64, count=len(self.code.at))
        if at.size and not (at & 3).any() and 0 <= at.min() and at.max() + 4 <= self.profile.l1_size:
            self._l1_words[at >> 2] = np.fromiter((p.placed for p in self.code.at.values()), dtype=np.uint32,
                                                  count=at.size)
            return
        for address, patch in self.code.at.items():
            _copy_into(self.l1, address, patch.placed.to_bytes(4, "little"))

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
                if program is None and not self.hosted:
                    continue  # released with no firmware: tdbg has nothing for it to run
                pc = self.registers.reset_pc(core.spec)
                core.reset(core.spec.reset_pc if pc is None else pc, CoreState.RUNNABLE)
                core.build()
                core.flush_translations()

    # -- checkpoints ------------------------------------------------------------------------------
    def checkpoint(self, compress: bool = False) -> Checkpoint:
        """Everything needed to come back here (``STATE``).  ``compress``: keep L1
        zlib-compressed (measured: 2 ms for a mostly empty L1, 70 ms for random bytes; the
        user's checkpoints, not the history's)."""
        saved = Tile.STATE.save(self)
        nbytes = saved.nbytes
        if compress:
            l1 = saved["l1"]
            saved["l1"] = zlib.compress(l1, 1)
            nbytes += len(saved["l1"]) - len(l1)
        return Checkpoint(saved, nbytes, compress)

    def restore(self, cp: Checkpoint) -> None:
        """Return to ``cp``."""
        Tile.STATE.load(self, {**cp.saved, "l1": cp.l1_bytes()})
        for core in self.cores.values():
            core.flush_translations()

    # -- running (tdbg.emu.scheduler) ------------------------------------------------------------
    def run(self, only: str | None = None, limit: int | None = None) -> Stop:
        return self.scheduler.run(only, limit)

    def run_others_until_ready(self, name: str) -> Stop | None:
        return self.scheduler.run_others_until_ready(name)

    def finished(self) -> bool:
        return self.scheduler.finished()

    def runnable(self) -> list[str]:
        """The cores that can run now (blocked ones whose wait is over woken)."""
        return self.scheduler.runnable()

    def classify_step(self, core: Core, stop: Stop) -> Stop:
        return self.scheduler.classify_step(core, stop)

    def describe_finish(self, names: Sequence[str]) -> str:
        return self.scheduler.describe_finish(names)

    def interrupt(self) -> None:
        self.scheduler.interrupt()

    def clear_interrupt(self) -> None:
        self.scheduler.clear_interrupt()

    @property
    def exit_codes(self) -> dict[str, int]:
        return self.scheduler.exit_codes

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
            last = self.noc_l1_writes.last(address)
            text += f" [last written by {last[0].describe()}]" if last else " [no NoC request has written it]"
        return text

    # -- pushes (tdbg.emu.push_path) -----------------------------------------------------------------
    @property
    def pushes(self) -> PushLog:
        return self.push_path.log

    @property
    def l1_log(self) -> L1Log:
        return self.push_path.l1_log

    def execute(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        self.push_path.execute(core, thread, pc, word, via)

    def describe_word(self, word: int) -> str:
        return self.push_path.describe_word(word)

    def dst_writer(self, row: int) -> DstWriter | None:
        return self.push_path.dst_writer(row)

    def observe_window(self, trace: bool | None = None, writers: bool | None = None) -> None:
        self.push_path.observe_window(trace, writers)

    @property
    def window_trace(self) -> WindowTrace | None:
        return self.push_path.window_trace

    @property
    def record_window_writers(self) -> bool:
        return self.push_path.record_window_writers

    def window_rows(self, core: Core, address: int, size: int) -> set[int]:
        return self.push_path.window_rows(core, address, size)

    def write(self, address: int, data: bytes | np.ndarray, by: Transfer | str = DEBUGGER) -> None:
        """Every write into L1, as QEMU's ``address_space_write``: the debugger's (``DEBUGGER``:
        a word of loaded code it changes is the new loaded word), a NoC request's (its
        ``Transfer``) and a Tensix unit's (``TENSIX``: packer, Scalar Unit).  Once, here, for
        a request or a unit: the reverse-stepi journal, the watchpoints on L1 (a request's
        write stops the core that issued it, after its store, naming the transfer; a unit's,
        the pushing core after the push, ``PushPath``), the replaced code words it overwrites
        (found by interval) and Unicorn's translations of the range (a unit's only over code)."""
        end = address + len(data)
        self.l1_zero = False
        if by is DEBUGGER:
            self._debugger_write(address, data)
            self.l1_written.mark(address, end)
            return
        if not 0 <= address <= end <= len(self.l1):
            raise ValueError(f"{len(data)} bytes at {address:#x} are outside L1")
        noc = by if isinstance(by, Transfer) else None
        if noc is not None and noc.seq:
            self.noc_l1_writes.add(address, end, noc, self.push_path.seq)
        journal = self.coprocessor.l1_journal
        if journal is not None:
            journal.append((address, bytes(self.l1[address:end])))
        watched = [(w, bytes(self.l1[w.address:w.address + w.length])) for w in self.watches
                   if not w.dst_rows and w.kind != "read" and w.core is None and w.address < end
                   and address < w.address + w.length and w.address + w.length <= self.profile.l1_size] if self.watches else ()
        self.tensix.l1[address:end] = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
        self.l1_written.mark(address, end)
        if address < end and self._over_code(address, end):   # (an empty write, a Flush PACR's, changes no code)
            self._code_overwritten(address, end)
        elif noc is not None:
            self._drop_translations(address, end)
        if noc is None:
            for watch, old in watched:
                self.push_path.l1_watched(watch, old)
            return
        core = self.cores.get(noc.core)
        for watch, old in watched:
            if core is not None and core.running:
                new = bytes(self.l1[watch.address:watch.address + watch.length])
                core.push_watch(watch, int.from_bytes(old, "little"), int.from_bytes(new, "little"), noc.describe())
                break

    def _code_overwritten(self, start: int, end: int) -> None:
        """A Tensix unit wrote L1 over loaded code: each replaced word it changed is now what
        it wrote; drop Unicorn's translations of the range.  Only words that are replaced, or
        that a sift says may need to be (``code_patches.maybe_replaced``), are looked at."""
        words = self._l1_words
        ats = self._code_words(start, end)
        candidates = set(ats[maybe_replaced(words[ats >> 2])].tolist()) if ats.size else set()
        candidates.update(self._patched_in(start, end))
        for at in sorted(candidates):
            patch = self.code.at.get(at)
            held = int(words[at >> 2])
            if patch is None or held != patch.placed:
                self._replace(at, held)
        self._drop_translations(start, end, code=True)

    def code_ranges(self) -> tuple[list[int], list[int]]:
        """The loaded code's segments merged: their starts and ends, ascending (the same object
        until the code changes)."""
        if self._code_index is None:
            starts: list[int] = []
            ends: list[int] = []
            for lo, hi in sorted(r for r in self._code if r[0] < r[1]):
                if ends and lo <= ends[-1]:
                    ends[-1] = max(ends[-1], hi)
                else:
                    starts.append(lo)
                    ends.append(hi)
            self._code_index = (starts, ends)
        return self._code_index

    def _over_code(self, start: int, end: int) -> bool:
        """True when ``start .. end`` overlaps loaded code (any of its segments): one search
        in the segments merged."""
        starts, ends = self.code_ranges()
        i = bisect_right(starts, start) - 1      # the last range starting at or before start
        if i >= 0 and start < ends[i]:
            return True
        return i + 1 < len(starts) and starts[i + 1] < end

    def _code_words(self, start: int, end: int) -> np.ndarray:
        """The addresses of the aligned words of executable loaded code (``_in_code``) that
        ``start .. end`` touches, ascending."""
        parts = []
        for lo, hi in self._executable:
            first, stop = max(start & ~3, (lo + 3) & ~3), min(end, hi - 3)
            if first < stop:
                parts.append(np.arange(first, stop, 4, dtype=np.int64))
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))

    def _patched_in(self, start: int, end: int) -> list[int]:
        """The replaced words (``code.at``) that ``start .. end`` touches."""
        first = start & ~3
        return [a for a in self.code.at if first <= a < end]

    def _drop_translations(self, start: int, end: int, code: bool = False) -> None:
        """L1 ``start .. end`` changed under the cores: every core drops its translations of it
        (``Core.drop_translations``: a running core's once its hook has returned)."""
        for core in self.cores.values():
            core.drop_translations(start, end, code)

    def write_dst(self, storage: str, row: int, col: int, value: int) -> None:
        """The debugger's store of one ``Dst`` datum: ``Dst16b`` (``storage`` "dst16") and
        ``Dst32b`` ("dst32") through the model's element stores (as a window store), ``DstBits``
        ("bits") as stored.  ZEROACC.md makes data undefined per datum, the model keeps it per
        ``DstBits`` row: one datum cannot define the rest of its row, so a store into an
        undefined row is refused (``ValueError``)."""
        dst = self.tensix.dst
        rows = {"dst16": [dst.row16[row]], "dst32": [dst.row32[row], dst.row32[row] + 8], "bits": [row]}[storage]
        if not all(dst.ever_written[r] for r in rows):
            raise ValueError("undefined")
        if storage == "bits":
            dst.bits[row, col] = value
            dst.unpredictable[row, col] = False
        else:
            (dst.set16 if storage == "dst16" else dst.set32)(row, col, value)

    def write_dst_bits(self, rows: np.ndarray, values: np.ndarray) -> None:
        """The debugger's store of whole ``DstBits`` rows as stored (no ``Adj16``): each row is
        written whole, so it holds data."""
        dst = self.tensix.dst
        dst.bits[rows] = values
        dst.ever_written[rows] = True
        dst.unpredictable[rows] = False

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
                    out += region.load(at - region.base, n).to_bytes(n, "little")
            except (TensixEvent, Stall) as exc:
                raise Unreadable(f"Cannot access memory at address {address + len(out):#x}: {exc}") from None
            return bytes(out)
        try:
            if self.trampolines.overlaps(address, size):
                raise ValueError("unmapped")
            core.reach(address, size)
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
    def _debugger_write(self, address: int, data: bytes) -> None:
        """``write`` by the debugger: a word of loaded code it changes is the new loaded word
        (replaced again if it must be, ``tdbg.emu.code_patches``).  One range check for data;
        over code, only the words that are or may become replaced words are classified."""
        end = address + len(data)
        ats = self._code_words(address, end)
        if not ats.size:
            _copy_into(self.l1, address, data)
            self._drop_translations(address, end)
            return
        words = self._l1_words
        loaded = words[ats >> 2].copy()
        for at in self._patched_in(address, end):   # the loaded word where L1 holds its stand-in
            patch = self.code.at[at]
            i = int(np.searchsorted(ats, at))
            if i < ats.size and ats[i] == at and loaded[i] == patch.placed:
                loaded[i] = patch.word
        _copy_into(self.l1, address, data)
        # each word: the written bytes over the loaded word's others (a partial first or last word)
        low = np.clip(address - ats, 0, 4).astype(np.uint64) * np.uint64(8)
        high = np.clip(end - ats, 0, 4).astype(np.uint64) * np.uint64(8)
        mask = (((np.uint64(1) << high) - np.uint64(1)) ^ ((np.uint64(1) << low) - np.uint64(1))).astype(np.uint32)
        new = (loaded & ~mask) | (words[ats >> 2] & mask)
        was = set(self._patched_in(address, end))
        for i in np.flatnonzero(maybe_replaced(new) | np.isin(ats, list(was))).tolist():
            self._replace(int(ats[i]), int(new[i]))
        self._drop_translations(address, end)

    def load_code(self, address: int, data: bytes, core: str | None = None) -> None:
        """A host puts code in L1 (a kernel the firmware jumps to): written as the debugger
        writes, and its words classified as loaded code's are (``tdbg.emu.code_patches``), until
        the tile is reset.  The same code at the same place again (a host loads its kernels at
        each launch) is left as it is: classified already.  ``core``: the core whose binary it
        is (None: any core may run it); the other cores hook it by stretch, not word by word
        (``Core.respan``)."""
        end = address + len(data)
        if (address, end) in self._host_code and self._holds_code(address, data):
            self.l1_written.mark(address, end)
            if self._host_owner.get((address, end)) != core:
                self._own((address, end), core)
                self._respan()
            return
        self.host_overwrites(address, end)
        self._host_code.append((address, end))
        self._own((address, end), core)
        self._code.append((address, end))
        self._code_index = None
        self._executable.append((address, end))
        self.write(address, data)
        self._respan()
        parks = {address + i for i in range((-address) & 3, len(data) - 3, 4)
                 if int.from_bytes(data[i:i + 4], "little") == JUMP_TO_SELF}
        if parks:   # a j . in it parks whichever core reaches it, as in loaded firmware
            self._host_parks |= parks
            for core in self.cores.values():
                core.set_parks(core.parks | parks)

    def _own(self, code: tuple[int, int], core: str | None) -> None:
        if core is None:
            self._host_owner.pop(code, None)
        else:
            self._host_owner[code] = core

    def _respan(self) -> None:
        """Each core's hooks after the cores' code changed (``others_code``)."""
        for core in self.cores.values():
            core.respan()

    def _holds_code(self, address: int, data: bytes) -> bool:
        """True when L1 at ``address`` holds ``data`` as loaded code: each word that differs is
        a replaced one (``code.at``) standing for ``data``'s word."""
        if address & 3 or len(data) & 3 or address + len(data) > len(self.l1):
            return False
        new = np.frombuffer(data, dtype="<u4")
        held = self._l1_words[address >> 2:(address >> 2) + len(new)]
        code = self.code.at
        return all((patch := code.get(address + 4 * int(i))) is not None and patch.word == int(new[i])
                   and patch.placed == int(held[i]) for i in np.flatnonzero(held != new))

    def host_wrote(self, address: int, data: bytes) -> None:
        """A host wrote ``data`` into this hosted tile's L1 (firmware and kernels arrive so):
        each aligned ``j .`` word in it parks the core that reaches it, as in loaded firmware
        (a data word that equals one is never fetched, so it costs nothing).  Bytes that hold
        no ``j .`` anywhere are passed by one search (most host writes are a few words of
        arguments or mailboxes: 3.3 -> 0.3 us a 4-byte write, measured)."""
        if _JUMP_TO_SELF_BYTES not in data:
            return
        words = np.frombuffer(data[(-address) & 3:][:(len(data) - ((-address) & 3)) & ~3], dtype="<u4")
        found = np.flatnonzero(words == JUMP_TO_SELF)
        if found.size:
            parks = {address + ((-address) & 3) + 4 * int(i) for i in found}
            self._host_parks |= parks
            for core in self.cores.values():
                core.set_parks(core.parks | parks)

    def host_overwrites(self, start: int, end: int) -> None:
        """A host is about to write L1 ``start .. end``: the code it put there before (an
        earlier program's kernel) is code no more, so the new bytes are not classified as code.
        Measured with ttnn 0.81.1's host: untilize's TRISC0 kernel data (the ``regfile`` and
        config pointers) lands where tilize's TRISC1 text was; classified, its words read as
        NOPs (0x13), its stores through them hit the launch message and TRISC2 jumped to
        0x8001a080.  After add, tilize's TRISC0 data read as NOPs too, its unpacker stalled and
        TRISC1's MOVA2D waited for SrcA forever.  The host's writes replace what it loaded, as
        memory does; loaded firmware stays code.  Likewise a ``j .`` it wrote there parks no core
        any more (``host_wrote`` adds the new bytes' own)."""
        self.l1_zero = False
        parks = {a for a in self._host_parks if start - 3 <= a < end}
        if parks:
            self._host_parks -= parks
            parks -= {a for p in self.programs.values() for a in p.parks}
            for core in self.cores.values():
                core.set_parks(core.parks - parks)
        stale = [r for r in self._host_code if r[0] < end and start < r[1]]
        if not stale:
            return
        for lo, hi in stale:
            owner = self._host_owner.pop((lo, hi), None)
            parts = [part for part in ((lo, min(hi, start)), (max(lo, end), hi)) if part[0] < part[1]]
            for ranges in (self._host_code, self._code, self._executable):
                ranges.remove((lo, hi))
                ranges.extend(parts)
            for part in parts:
                self._own(part, owner)
        self._code_index = None
        for at in [a for a in self.code.at if start - 3 <= a < end and not self._in_code(a)]:
            patch = self.code.at[at]
            if patch.placed == int.from_bytes(bytes(self.l1[at:at + 4]), "little"):
                _copy_into(self.l1, at, patch.word.to_bytes(4, "little"))
            self.code.set(at, None)
            for core in self.cores.values():
                core.set_code_hook(at, None)
        self._drop_translations(start, end, code=True)

    def _drop_host_code(self) -> None:
        """Forget the code hosts put in L1 (the reset clears L1)."""
        if not self._host_code:
            return
        hosted = self._host_code
        self.code.at = {a: p for a, p in self.code.at.items() if not any(lo <= a < hi for lo, hi in hosted)}
        self._code = [r for r in self._code if r not in hosted]
        self._code_index = None
        self._executable = [r for r in self._executable if r not in hosted]
        self._host_code = []
        self._host_owner = {}
        for core in self.cores.values():
            core.hook_code(self.code.at)
            core.set_parks(core.parks - self._host_parks)
        self._host_parks = set()

    def _in_code(self, address: int) -> bool:
        return any(lo <= address and address + 4 <= hi for lo, hi in self._executable)

    def _replace(self, address: int, word: int) -> None:
        """``word`` is now the loaded word at ``address`` (in loaded code)."""
        self.l1_zero = False
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
        self.l1_zero = False
        self.code.set(address, patch)
        _copy_into(self.l1, address, patch.placed.to_bytes(4, "little"))
        for core in self.cores.values():
            core.set_code_hook(address, patch)
        self._drop_translations(address, address + 4)
        return True
