"""One baby RISC-V core on Unicorn, with run control.

Design (measured facts in DESIGN.md): breakpoints are Unicorn exits, so ``continue`` runs with no
Python on the path until something happens; devices and watchpoints are memory hooks, which see
the exact PC and stop the core before the access commits (``emu_stop`` inside a memory hook
leaves the PC on the accessing instruction with nothing committed); the words Unicorn must not
run as they are (``tdbg.emu.code_patches``) are replaced at load time: ``.ttinsn``, CSR and ``lr``/``sc``
words by a NOP with a code hook on their single address, Zba/Zbb/xttzbkb words by a jump to an
RV32IM trampoline (``tdbg.emu.translation``), which the core always finishes before it reports a
stop, so an instruction is never seen half done.

Where Unicorn and the baby RISC-V differ (``tdbg.emu.faults``): an instruction Unicorn cannot
execute, and ``wfi``, stop at their own PC with their rule, and run as a nop when the ``handle``
policy lets the run go on; only L1 is mapped executable; a misaligned device access is rounded
down, as is a misaligned L1 or local-RAM access once ``check_alignment`` is on (off by default:
it costs a Python call per access, and Unicorn completes such an access byte by byte).

A core is in one of the ``CoreState`` states.  A device access that must wait (a TTSync load
while the thread has instructions in flight, a push into a full Wait Gate queue, a polling loop
whose reads cannot change until another agent acts) raises ``Stall`` in the device model: the
core stops before the access, records what it waits for (``Wait``) and is ``BLOCKED`` until the
tile sees the wait satisfied; then the access is executed again.
"""

from __future__ import annotations

import ctypes
import struct
from time import sleep
from collections.abc import Callable
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from unicorn import (
    UC_ARCH_RISCV,
    UC_ERR_INSN_INVALID,
    UC_HOOK_MEM_FETCH_PROT,
    UC_HOOK_MEM_FETCH_UNMAPPED,
    UC_HOOK_MEM_READ,
    UC_HOOK_MEM_READ_PROT,
    UC_HOOK_MEM_READ_UNMAPPED,
    UC_HOOK_MEM_WRITE,
    UC_HOOK_MEM_WRITE_PROT,
    UC_HOOK_MEM_WRITE_UNMAPPED,
    UC_MEM_FETCH_PROT,
    UC_MEM_FETCH_UNMAPPED,
    UC_MEM_READ_UNMAPPED,
    UC_MEM_WRITE,
    UC_MEM_WRITE_PROT,
    UC_MEM_WRITE_UNMAPPED,
    UC_MODE_RISCV32,
    UC_PROT_ALL,
    UC_PROT_EXEC,
    UC_PROT_READ,
    UC_PROT_WRITE,
    Uc,
    UcError,
)
from unicorn.riscv_const import UC_RISCV_REG_PC, UC_RISCV_REG_X0

from tdbg.emu import faults
from tdbg.emu.code_patches import Patch, PatchKind
from tdbg.emu.csrs import CsrFile
from tdbg.emu.host_memory import zeroed
from tdbg.emu.fasthook import (Register, RegisterFile, add_code_hook_fptr, add_interrupt_hook, add_mem_hook,
                               add_unmapped_hook, code_hook_fptr, remove_cache)
from tdbg.emu.preempt import PREEMPTOR
from tdbg.emu.devices.device import Port, Stall, Wait
from tdbg.emu.states import CoreState, Disposition
from tdbg.emu.stops import Access, Stop, StopKind
from tdbg.riscv.extensions import CsrInsn
from tdbg.tensix.state_description import StateDescription, array, part, value
from tdbg.tensix.events import TensixEvent, UndefinedBehavior, UnsupportedFunctionality
from tdbg.arch.profile import CoreSpec, Region, RegionKind

if TYPE_CHECKING:
    from tdbg.emu.native_push import NativeCore
    from tdbg.emu.tile import Tile

EBREAK = 0x00100073
_PACK = (None, struct.Struct("<B").pack_into, struct.Struct("<H").pack_into, None, struct.Struct("<I").pack_into)
_MASK = (0, 0xFF, 0xFFFF, 0, 0xFFFFFFFF)
#: Identical device reads from one PC with identical registers before a loop counts as polling.
POLL_REPEATS = 3
#: Local RAM and devices: loads and stores, never instruction fetches (BabyRISCV/README.md "Frontend").
DATA_ONLY = UC_PROT_READ | UC_PROT_WRITE
#: A stop from another thread waits until no hook has run for this long (``Core._hooks``).
QUIET_S = 0.02
#: Unicorn's translation buffer: its default size (1 GiB) less a page.  Measured on Unicorn 2.1.4,
#: Linux 6.18 with transparent huge pages on ``madvise``: a buffer of a whole number of 2 MiB
#: is mapped 2 MiB-aligned and Unicorn advises huge pages for it, so writing its prologue
#: clears a whole huge page: building an instance took 500 us and closing it 170 us, against
#: 160 us and 100 us at this size; a run's translations fit as before.
TCG_BUFFER = (1 << 30) - 4096
#: An instruction count no run reaches (``Core._run_to``: a run counted only to keep Unicorn's
#: counting hook, and the translations it traced).
NEVER_REACHED = 1 << 62


@dataclass(eq=False)
class Watch:
    """A watched address range; ``kind`` is ``write``, ``read`` or ``access`` (GDB's watch,
    rwatch, awatch).  A Dst row watch covers the whole window and names the ``DstBits`` rows
    it guards; Tensix instructions that write those rows hit it too.  ``core`` limits a watch
    on private memory to the core that owns it (None: every core)."""

    number: int
    address: int
    length: int
    kind: str
    dst_rows: frozenset[int] = frozenset()
    view: str = ""
    hits: int = 0           # stops it made (counted by the session, which reports them)
    core: str | None = None
    enabled: bool = True    # a disabled watch stays listed and has no hooks (``Session.enable``)
    disposition: Disposition = Disposition.KEEP
    enable_count: int = 0   # stops left before DISABLE disables it (GDB's enable_count)

    @property
    def bits_rows(self) -> list[int]:
        return sorted(self.dst_rows)

    def covers(self, address: int, size: int, write: bool) -> bool:
        if address >= self.address + self.length or address + size <= self.address:
            return False
        return self.kind == "access" or (self.kind == "write") == write


class Core:
    """A baby RISC-V core: registers, its address space, breakpoints, watchpoints, stepping."""

    def __init__(self, tile: Tile, spec: CoreSpec, local_rams: dict[str, ctypes.Array]) -> None:
        self.tile = tile
        self.spec = spec
        self.name = spec.name
        self.thread = spec.thread
        # An emu_stop from another thread (Ctrl-C, preemption) that lands while a hook runs, or
        # just after it, stops the core before the hook's instruction completes, so the
        # instruction runs again on resume with its side effect (measured: a .ttinsn pushed
        # twice in most runs with 0.5 ms turns).  So a stop from another thread is only asked
        # for (``_stop_asked``): a hook that finds it asked stops the core itself before its
        # effect (safe), and the asking thread calls emu_stop only when no hook has entered or
        # left for ``QUIET_S`` (``_hooks`` counts entries and exits, odd inside a hook; the
        # asker waits ``QUIET_S`` and looks again).  Without a lock: the hook bumps ``_hooks``
        # then reads ``_stop_asked``, the asker writes ``_stop_asked`` then reads ``_hooks``;
        # under the GIL one of them sees the other's write, so either the hook skips its effect
        # or the asker leaves the stop to it.  A hook costs two increments, no clock read
        # (``_hook`` writes that protocol once, around every hook).
        self._stop_asked = False
        self._hooks = 0
        self._runs = 0   # emu_start calls: an ask that spans two runs stops neither
        self._interrupt = False
        self._preempt = False
        profile = tile.profile
        self._map = profile.map
        self.local_ram = local_rams[spec.name]
        self.local_ram_data = np.frombuffer(self.local_ram, dtype=np.uint8)   # the same bytes, as an array
        self._plain: list[tuple[int, int]] = []   # plain memory: what ``check_alignment`` watches
        #: Slow-access windows not mapped yet: (base, end, the RAM they repeat); ``reach`` maps one
        self._windows: list[tuple[int, int, ctypes.Array]] = []
        self._ports: dict[str, Port] | None = None   # the devices it sees, by region (``_device_ports``)
        self._regions: list[Port] = []
        self._region_buffers: list[ctypes.Array] = []
        self._mmio_watches: list[Watch] = []
        self._local_rams = local_rams
        self._device_regions: list[tuple[Region, Port]] = []
        self._idle_pc = 0                      # the PC of a core not built yet (``uc``)
        self.built = False
        self._translated = False               # emu_start ran since the last flush (``flush_translations``)
        self.uc: Uc = _Unbuilt(self)  # type: ignore[assignment]
        self.state = CoreState.IDLE
        self.wait: Wait | None = None          # what a BLOCKED core waits for
        self.breakpoints: set[int] = set()
        self._exits_stale = False              # breakpoints changed since Unicorn's exits were set
        self._exit_set: set[int] = set()       # the exits Unicorn has (``_set_exits``)
        self.parks: set[int] = set()           # ``j .`` addresses: reaching one parks the core
        self.watches: dict[int, tuple[Watch, list[int]]] = {}
        self.csrs = CsrFile(profile, spec.name, tile.registers.cycles)
        self._code_hooks: dict[int, Patch] = {}   # hooked address -> its patch
        self._code_runs = _Runs(self)             # ... what the hook runs there
        self._hook_ranges: dict[int, tuple[int, int]] = {}   # first address -> (last, its Unicorn hook)
        self._range_of: dict[int, int] = {}       # every hooked address -> the first of its hook
        self._spans: dict[int, tuple[int, int]] = {}   # first -> (last, its hook): others' code (``_respan``)
        self._unhook_later: set[int] = set()      # unhooked in a run: hooks dropped once it returns
        self._push_thread: int | None = None     # the thread a .ttinsn of this core pushes to
        self._native: NativeCore | None = None   # the native push path of its .ttinsn words (tdbg.emu.native_push)
        #: the Python hook (handle, first, last address) of its INSTRN_BUF_BASE region while its
        #: stores are not yet the native path's (a T core's; NativeCore.hook_stores)
        self._instrn_hook: tuple[int, int, int] | None = None
        self._native_tried = False
        self._native_hooks: dict[int, tuple[int, int]] = {}   # address -> (its C hook, the word it holds)
        self._retry = False                      # a trap classified new code: run again from _resume_at
        self._stop: Stop | None = None
        self._undo: tuple[int, bytes] | None = None  # RAM bytes a stopped store overwrote
        self._rounded: tuple[int, bytes] | None = None  # bytes to put back after a rounded-down access
        self._alignment_hooks: list[int] = []
        self._resume_at: int | None = None   # the PC a stopping hook leaves the core on
        self._muted = False          # watchpoints muted (stepping over a watched access)
        self._stepping_over = False  # executing the instruction we last stopped at
        self._before_access = False  # the last stop came before its instruction's access
        self.completed_pc: int | None = None  # its effect already happened (a push): skip it
        self.running = False  # inside emu_start: device side effects belong to the firmware
        self._count = 0               # the instruction count of the emu_start running
        #: True while every translation Unicorn holds for this core calls the code hooks at each
        #: of its instructions, so a hook added now sees every instruction without a flush.  Read
        #: in Unicorn 2.1.4's source: a translation calls the hook helper at an instruction when a
        #: code hook covering it exists as it is translated (``riscv_tr_translate_insn``), and
        #: the helper runs the hooks that cover it when it runs (``helper_uc_tracecode``); a
        #: counted ``emu_start`` keeps an all-address code hook, which an uncounted one drops
        #: (flushing), translating untraced code from then on.  Set by a flush (``tdbg.emu.idle``).
        self.traced = False
        self._counted = False    # the last emu_start had an instruction count (Unicorn's count hook is in)
        self._count_exact = True      # ... which a stop to drop stale code may not run over
        self._stale: list[tuple[int, int]] = []   # L1 ranges to drop translations of once it returns
        self._run_on: int | None = None   # the PC of a completed store stopped at only to drop them
        self.last_stop: Stop | None = None
        self._poll: tuple[int, int, int, int] | None = None  # (pc, address, value, native pushes) of the last device read
        self._poll_count = 0
        self._poll_regs: list[int] | None = None

    # -- the Unicorn instance, built when first needed ------------------------------------------
    def build(self) -> None:
        """Give the core its Unicorn instance now (the tile does when it gets firmware)."""
        if not self.built:
            self._build()

    def _build(self) -> None:
        """Make ``uc`` (``_Unbuilt``): a core that never gets firmware and is never addressed
        costs no Unicorn instance, no mappings and no hooks.  Until then it is a power-on core
        (registers zero) holding what was set on it (its PC, parks, breakpoints, watches, the
        alignment check), which this applies.  The five slow-access windows (eight mappings)
        are mapped when first reached (``reach``): few cores ever use one, and each mapping
        costs 10-25 us, more the more there are (measured on Unicorn 2.1: 20 mappings 414 us,
        12 mappings 226 us)."""
        uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
        uc.ctl_set_tcg_buffer_size(TCG_BUFFER)
        tile, name = self.tile, self.name
        self.uc = uc
        for region in self._map.regions(name):
            if region.kind is RegionKind.DEVICE:
                continue
            memory = tile.l1 if region.kind is RegionKind.L1 else self._local_rams[region.owner]  # type: ignore[index]
            if region.kind is RegionKind.SLOW_PATH:
                self._windows.append((region.base, region.end, memory))
            else:
                self._map_ram(region.base, region.end, region.executable, memory)
        tile.l1_written.track_stores(uc)
        for space in tile.trampolines.spaces:   # execute-only: a load or store there is unmapped
            uc.mem_map_ptr(space.base, space.size, UC_PROT_EXEC, space.buffer)
        add_unmapped_hook(uc, UC_HOOK_MEM_READ_UNMAPPED | UC_HOOK_MEM_WRITE_UNMAPPED | UC_HOOK_MEM_FETCH_UNMAPPED
                          | UC_HOOK_MEM_FETCH_PROT | UC_HOOK_MEM_READ_PROT | UC_HOOK_MEM_WRITE_PROT,
                          lambda handle, access, address, size, value, user: self._on_unmapped(uc, access, address, size, value, None))
        add_interrupt_hook(uc, lambda handle, intno, user: self._on_interrupt(uc, intno, None))
        uc.ctl_exits_enabled(True)
        self.built = True
        self._registers = RegisterFile(uc, UC_RISCV_REG_X0, 32)
        self._writable = RegisterFile(uc, UC_RISCV_REG_X0 + 1, 31)   # x1..x31 (x0 is zero)
        self._pc = Register(uc, UC_RISCV_REG_PC)
        self._code_fptr = self._code_hook()
        group: list[tuple[Region, Port]] = []
        self._device_ports()
        for region, port in self._device_regions:
            if group and group[-1][0].end != region.base:
                self._map_devices(group)
                group = []
            group.append((region, port))
        if group:
            self._map_devices(group)
        uc.reg_write(UC_RISCV_REG_PC, self._idle_pc)
        if not tile.hooks_stale:     # else the tile's reset hooks the loaded code, once
            self.hook_code(tile.code.at)
        for watch, _ in list(self.watches.values()):
            self.add_watch(watch)
        if tile.alignment_check:
            self.check_alignment(True)
        self._exits_stale = True     # set when it first runs (``_emulate_once``)

    # -- registers ------------------------------------------------------------------------------
    @property
    def pc(self) -> int:
        return self._pc.read() if self.built else self._idle_pc

    @pc.setter
    def pc(self, value: int) -> None:
        if self.built:
            self.uc.reg_write(UC_RISCV_REG_PC, value & 0xFFFFFFFF)
        else:
            self._idle_pc = value & 0xFFFFFFFF
        self.completed_pc = None

    def reg(self, index: int) -> int:
        """``x<index>``."""
        return self.uc.reg_read(UC_RISCV_REG_X0 + index)

    def set_reg(self, index: int, value: int) -> None:
        if index:
            self.uc.reg_write(UC_RISCV_REG_X0 + index, value & 0xFFFFFFFF)

    def regs(self) -> list[int]:
        """x0..x31."""
        return self._registers.read() if self.built else [0] * 32

    def _set_regs(self, values: tuple[int, ...]) -> None:
        if not self.built and not any(values):
            return   # a core not built yet has power-on registers
        self._writable.write(values[1:])

    def _save_context(self) -> object:
        return self.uc.context_save() if self.built else None

    def _restore_context(self, context: object) -> None:
        """Back to a saved CPU context (None: a core not built yet when it was saved, whose
        registers were power-on)."""
        if context is not None:
            self.uc.context_restore(context)
        elif self.built:
            self._set_regs((0,) * 32)

    #: The CPU (a Unicorn context: its registers and PC), the local data RAM (which a
    #: reverse-stepi record leaves to the step's RAM record), what the run knows of the core, its
    #: CSRs.  Power-on: registers zero, nothing pending, the local data RAM zero as when the core
    #: comes out of reset (BlackholeA0 BabyRISCV/README.md "Local Data RAM").
    STATE = StateDescription("core", (
        value("context", get=_save_context, put=_restore_context, size=1024),
        value("registers", get=lambda c: tuple(c.regs()), put=_set_regs, reset=(0,) * 32, saved=False),
        value("pc", reset=0, in_steps=False),    # the context has it; a checkpoint names it
        array("local_ram", "local_ram_data", in_steps=False),
        value("completed_pc", reset=None),      # after pc, whose setter clears it
        value("last_stop", reset=None),
        value("state", reset=CoreState.IDLE),
        value("wait", reset=None),
        part("csrs"),
        value("stop", "_stop", reset=None, saved=False),
        value("poll", "_poll", reset=None, saved=False),
    ))

    def reset(self, pc: int, state: CoreState) -> None:
        """Power-on (``STATE``), then ``pc`` and ``state``."""
        Core.STATE.reset(self)
        self.pc, self.state = pc, state

    # -- hooks ------------------------------------------------------------------------------------
    def _hook(self, body: Callable[[int, int, int, int], None]) -> Callable[..., None]:
        """``body`` as a raw Unicorn hook (``tdbg.emu.fasthook``) keeping the stop protocol of
        ``_stop_asked``: a stop asked from another thread stops the core before the hook's
        effect; a device that must wait blocks the core (``Stall``); a bug in tdbg is a stop
        that says so, never a lost error.  ``body`` gets a memory hook's ``(access, address,
        size, value)``, a code hook's ``(address, size, user, 0)``."""
        uc = self.uc

        def hook(handle: int, a: int, b: int, c: int, d: int = 0, _: int = 0) -> None:
            self._hooks += 1
            if self._stop_asked:
                self._hooks += 1
                uc.emu_stop()
                return
            try:
                body(a, b, c, d)
            except Stall as stall:
                self._block(stall.wait)
            except BaseException as exc:
                self._internal_error(exc)
            finally:
                self._hooks += 1

        return hook

    # -- devices -----------------------------------------------------------------------------------
    def _map_devices(self, group: list[tuple[Region, Port]]) -> None:
        """Map device regions that follow each other as one RAM mapping (measured on Unicorn
        2.1: 10-30 us a mapping, more the more there are), each region with its own hooks."""
        base, end = group[0][0].base, group[-1][0].end
        buf = zeroed(end - base)
        self._region_buffers.append(buf)
        self.uc.mem_map_ptr(base, end - base, DATA_ONLY, buf)
        for region, port in group:
            self._map_device(region, port, buf, region.base - base)

    def _map_device(self, region: Region, port: Port, buf: ctypes.Array, start: int) -> None:
        """Hook a device region, mapped as RAM at offset ``start`` of ``buf``, that only its hook
        touches: a load's hook writes the device's value where the load reads it; a store's hook
        gives the value to the device.  Each is a raw hook with ``_hook``'s protocol inline; the Dst
        window (an ``observed`` device) has one each way, every other device one for both, which
        passes each access on (a core's build one hook add less a region).  Measured on figure (a):
        the window's accesses are 3-5 % slower through ``_hook``'s generic hook, and about 10 %
        slower through one hook for both, whether it calls these or holds both inline (0.79-0.85
        against 0.86-0.88 M accesses/s, ``--quick``, interleaved)."""
        raw = memoryview(buf).cast("B")[start:start + region.size]
        views = (None, raw, raw.cast("H"), None, raw.cast("I"))  # aligned element stores
        base, load, store = region.base, port.load, port.store
        skew = start - base   # a region address -> its offset in ``buf``
        device = port.device
        watches = self._mmio_watches
        tile = self.tile
        observed, pollable = device.observed, device.pollable
        uc = self.uc

        def on_read(handle: int, access: int, address: int, size: int, value: int, _: int) -> None:
            self._hooks += 1
            if self._stop_asked:
                self._hooks += 1
                uc.emu_stop()
                return
            try:
                at = address  # where the load reads the backing RAM
                if address & (size - 1):
                    if self._event(faults.misaligned(address, size, False), Access(address, size, False)):
                        return
                    address &= -size
                if watches and self._watch_hit(address, size, False, None):
                    return
                offset = address - base
                try:
                    value = load(offset, size)
                except TensixEvent as event:
                    if self._event(event, Access(address, size, False)):
                        return
                    value = 0
                if pollable and self._polling(self._pc.read(), address, value):
                    self._block(Wait(f"polls {region.name} at {address:#010x} (reads {value:#x}), which nothing has changed",
                                     lambda: _reads_other(load, offset, size, value), address=address,
                                     loop=frozenset({self._poll[0]} if self._poll else ())))
                    return
                if at != address:
                    _PACK[size](buf, at + skew, value)
                else:
                    views[size][offset // size] = value
                if observed and tile.window_observer is not None:
                    tile.window_observer(self, address, size, value, False)
            except Stall as stall:
                self._block(stall.wait)
            except BaseException as exc:
                self._internal_error(exc)
            finally:
                self._hooks += 1

        def on_write(handle: int, access: int, address: int, size: int, value: int, _: int) -> None:
            self._hooks += 1
            if self._stop_asked:
                self._hooks += 1
                uc.emu_stop()
                return
            try:
                value &= _MASK[size]
                if address & (size - 1):
                    if self._event(faults.misaligned(address, size, True), Access(address, size, True, value)):
                        return
                    address &= -size
                if watches and self._watch_hit(address, size, True, value):
                    return
                self._poll = None
                if observed and tile.window_observer is not None:
                    tile.window_observer(self, address, size, value, True)
                try:
                    store(address - base, size, value)
                except TensixEvent as event:
                    self._event(event, Access(address, size, True, value), completed=event.after_access)
            except Stall as stall:
                self._block(stall.wait)
            except BaseException as exc:
                self._internal_error(exc)
            finally:
                self._hooks += 1

        last = region.base + region.size - 1
        if observed:     # the Dst window: the hottest device path, a hook each way (no dispatch frame)
            add_mem_hook(uc, UC_HOOK_MEM_READ, on_read, region.base, last)
            add_mem_hook(uc, UC_HOOK_MEM_WRITE, on_write, region.base, last)
            return
        handle = add_mem_hook(uc, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE,
                              lambda handle, access, address, size, value, _: (on_write if access == UC_MEM_WRITE else on_read)(
                                  handle, access, address, size, value, _), region.base, last)
        if device.native_stores and self.thread is not None:
            self._instrn_hook = (handle, region.base, region.base + region.size - 1)

    def _polling(self, pc: int, address: int, value: int) -> bool:
        """True once the same load has returned the same value ``POLL_REPEATS`` times with the
        registers the same each time round: the loop can only end when another agent changes
        that value, so the core waits for that instead of spinning."""
        key = (pc, address, value, self._native.pushes if self._native is not None else 0)   # a push breaks a poll
        if key != self._poll:
            self._poll, self._poll_count, self._poll_regs = key, 1, None
            return False
        self._poll_count += 1
        if self._poll_count < POLL_REPEATS - 1:
            return False
        regs = self.regs()
        if regs == self._poll_regs:
            return True
        self._poll_regs = regs
        return False

    def _internal_error(self, exc: BaseException) -> None:
        self._halt(Stop(StopKind.FAULT, self.name, self.pc, detail=f"internal error in tdbg: {exc!r}"))

    def region_at(self, address: int) -> Port | None:
        """The device this core sees at ``address`` (None: memory, or nothing)."""
        region = self._map.region_at(self.name, address)
        return (self._ports or self._device_ports()).get(region.name) if region is not None else None

    @property
    def regions(self) -> list[Port]:
        """The devices this core sees, lowest first."""
        self._device_ports()
        return self._regions

    def _device_ports(self) -> dict[str, Port]:
        """The devices of the core's map, as the profile draws it, as this core sees them: made
        when first needed (a core nothing addresses never needs its 13)."""
        if self._ports is None:
            self._ports = {}
            for region in sorted(self._map.regions(self.name), key=lambda r: r.base):
                if region.kind is RegionKind.DEVICE:
                    port = self._ports[region.name] = self.tile.devices[region.name].port(self)
                    self._device_regions.append((region, port))
            self._regions = [port for _, port in self._device_regions]
        return self._ports

    def memory_view(self, address: int, size: int) -> memoryview | None:
        """The ``size`` bytes this core's loads read at ``address`` as a view of the memory
        behind them (L1, a local RAM, through a window that repeats it, as ``_build`` maps them),
        None for a device or unmapped (a read of the view costs 0.2 us against ``mem_read``'s
        2.5 us, measured)."""
        region = self._map.region_at(self.name, address)
        if region is None or region.kind is RegionKind.DEVICE:
            return None
        step = region.ram_size or region.size
        offset = (address - region.base) % step
        if offset + size > step or address + size > region.end:
            return None
        memory = self.tile.l1 if region.kind is RegionKind.L1 else self._local_rams[region.owner]  # type: ignore[index]
        return memoryview(memory).cast("B")[offset:offset + size]

    def owns_private(self, address: int) -> bool:
        """True for an address in this core's private data RAM (``MEM_LOCAL_BASE``)."""
        base = self.tile.profile.local_ram_base
        return base <= address < base + self.spec.local_ram_size

    # -- stops raised from hooks ------------------------------------------------------------------
    def _halt(self, stop: Stop) -> None:
        self._stop = stop
        self.uc.emu_stop()

    def _block(self, wait: Wait) -> None:
        """Stop before the access that must wait; the tile resumes the core when ``wait`` is
        satisfied and the access runs again."""
        self._poll = None
        self._halt(Stop(StopKind.BLOCKED, self.name, self.pc, detail=wait.reason))
        self.state, self.wait = CoreState.BLOCKED, wait

    def _event(self, event: TensixEvent, access: Access | None, *, completed: bool = False) -> bool:
        """Apply the ``handle`` policy to an event; True if the core is stopping."""
        if not self.tile.report(event, self.name, self.pc, access):
            return False
        if completed:
            self.completed_pc = self.pc
        self._halt(Stop(StopKind.EVENT, self.name, self.pc, access=access, event=event))
        return True

    def _map_ram(self, base: int, end: int, executable: bool, memory: ctypes.Array) -> None:
        """Map ``[base, end)`` as plain memory over ``memory``, repeated (a slow-access window
        repeats its RAM)."""
        step = min(end - base, len(memory))
        for at in range(base, end, step):
            self.uc.mem_map_ptr(at, step, UC_PROT_ALL if executable else DATA_ONLY, memory)
            self._plain.append((at, at + step))

    def reach(self, address: int, size: int = 1) -> bool:
        """Map the slow-access windows ``[address, address + size)`` overlaps that are not mapped
        yet: True when one was (an access there may be made again)."""
        if not self.built:
            self._build()
        reached = [w for w in self._windows if w[0] < address + size and address < w[1]]
        for window in reached:
            self._windows.remove(window)
            base, end, memory = window
            self._map_ram(base, end, False, memory)
        if reached and self.tile.alignment_check:
            self.check_alignment(True)
        return bool(reached)

    def _on_unmapped(self, uc: Uc, access: int, address: int, size: int, value: int, _: object) -> bool:
        try:
            if access in (UC_MEM_READ_UNMAPPED, UC_MEM_WRITE_UNMAPPED) and self._windows and self.reach(address, size):
                return True     # Unicorn makes the access again, now mapped
            self._unmapped(access, address, size, value)
        except BaseException as exc:
            self._internal_error(exc)
        return False

    def _unmapped(self, access: int, address: int, size: int, value: int) -> None:
        write = access in (UC_MEM_WRITE_UNMAPPED, UC_MEM_WRITE_PROT)
        if access == UC_MEM_FETCH_PROT:
            event = faults.fetch_outside_l1(self.name, address)
        else:
            kind = "fetch" if access == UC_MEM_FETCH_UNMAPPED else ("store" if write else "load")
            event = UndefinedBehavior(f"BabyRISCV/README.md: {kind} from an address {self.name} has unmapped (the core would hang)")
        pc = address if access in (UC_MEM_FETCH_UNMAPPED, UC_MEM_FETCH_PROT) else self.pc
        self._stop = Stop(StopKind.EVENT, self.name, pc, access=Access(address, size, write, value if write else None), event=event)

    def _on_interrupt(self, uc: Uc, intno: int, _: object) -> None:
        pc = (self.pc - 4) & 0xFFFF_FFFF  # measured: Unicorn reports every exception 4 past its instruction
        try:
            if intno == 8:  # ecall
                self._halt(Stop(StopKind.ECALL, self.name, pc, detail=f"a7={self.reg(17)} a0={self.reg(10)}"))
            elif intno == faults.ILLEGAL_INSTRUCTION:
                word = self._word(pc)
                if word is not None and self.tile.classify_trapped(pc, word):
                    self._resume_at, self._retry = pc, True   # now translated or hooked: run it
                    uc.emu_stop()
                else:
                    self._bad_instruction(pc, faults.illegal_instruction(word))
            elif intno in faults.MISALIGNED:
                self._resume_at = pc
                self._halt(Stop(StopKind.EVENT, self.name, pc, event=faults.misaligned_atomic(faults.MISALIGNED[intno])))
            else:
                self._resume_at = pc
                self._halt(Stop(StopKind.FAULT, self.name, pc, detail=f"RISC-V exception {intno}, which the baby RISC-V cannot raise"))
        except BaseException as exc:
            self._internal_error(exc)

    def _bad_instruction(self, pc: int, event: TensixEvent) -> bool:
        """The instruction at ``pc`` is one the core cannot execute as Unicorn does: stop on it
        (True), or, as the policy lets the run go on, leave it executed as a nop."""
        if not self.tile.report(event, self.name, pc, None):
            return False
        self._resume_at = pc
        self._halt(Stop(StopKind.EVENT, self.name, pc, event=event))
        return True

    def _word(self, address: int) -> int | None:
        """The instruction word at ``address`` as fetched (None where nothing is mapped): an
        aligned word of L1 straight from the tile's L1 (the memory the core maps there)."""
        address &= 0xFFFF_FFFF
        if not address & 3 and address < self.tile.profile.l1_size:
            return int(self.tile._l1_words[address >> 2])
        try:
            return int.from_bytes(self.uc.mem_read(address & 0xFFFF_FFFF, 4), "little")
        except UcError:
            return None

    # -- misaligned plain-memory accesses ----------------------------------------------------
    def check_alignment(self, on: bool) -> None:
        """Catch misaligned loads and stores in L1 and the local RAMs (devices always are): the
        ``NonContractualBehavior`` policy stops before the access, or the access is rounded down
        as on silicon.  Costs a Python call per plain-memory access while on."""
        if not self.built:
            return   # the build reads the tile's setting
        for h in self._alignment_hooks:
            self.uc.hook_del(h)
        self._alignment_hooks = []
        if on:
            hook = self._hook(self._align)
            for lo, hi in self._plain:
                self._alignment_hooks.append(add_mem_hook(self.uc, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, hook, lo, hi - 1))

    def _align(self, access: int, address: int, size: int, value: int) -> None:
        self._put_back_rounded()
        if not address & (size - 1):
            return
        write = access == UC_MEM_WRITE
        value &= _MASK[size]
        if self._event(faults.misaligned(address, size, write), Access(address, size, write, value if write else None)):
            if write:  # the store still lands (measured): put the bytes back once stopped
                self._undo = (address, bytes(self.uc.mem_read(address, size)))
            return
        aligned = address & -size
        if write:
            self.uc.mem_write(aligned, value.to_bytes(size, "little"))
            self._rounded = (address, bytes(self.uc.mem_read(address, size)))  # what the spill overwrites
        else:  # the load reads [address, +size): show it the aligned bytes until the next access
            self._rounded = (address, bytes(self.uc.mem_read(address, size)))
            self.uc.mem_write(address, bytes(self.uc.mem_read(aligned, size)))

    def _put_back_rounded(self) -> None:
        """Undo the byte-wise part of the last rounded-down access (before the next access of
        this core, and when it stops)."""
        if self._rounded is not None:
            self.uc.mem_write(*self._rounded)
            self._rounded = None

    # -- replaced code words (tdbg.emu.code_patches) ---------------------------------------------------
    def hook_code(self, patches: dict[int, Patch]) -> None:
        """Hook every replaced word this core executes by a code hook (a ``.ttinsn`` on a T
        core, a CSR or ``lr``/``sc`` word on any core); drop the other hooks.  Only addresses
        whose patch changed are touched (a load of one more ELF hooks that ELF's words).  A core
        not built yet is hooked when it is built."""
        if not self.built:
            return
        hooked, touched = self._code_hooks, set()
        get = patches.get
        for address in [a for a, patch in hooked.items() if (p := get(a)) is not patch and p != patch]:
            patch = patches.get(address)
            self._code_runs.pop(address, None)
            if patch is not None and patch.hooked:
                hooked[address] = patch        # still hooked: only what the hook runs changes
                if address in self._native_hooks:
                    touched.add(address)       # ... but a C hook holds its word
            else:
                del hooked[address]
                touched.add(address)
        for address, patch in patches.items():
            if patch.hooked and address not in hooked:
                hooked[address] = patch
                touched.add(address)
        if self.running:
            for address in touched:
                self._hook_in_run(address)
            return
        touched |= self._respan()
        if touched:
            self._rehook(touched)

    def _respan(self) -> set[int]:
        """One code hook over each stretch of the other cores' code that holds hooked words
        (``Tile.others_code``): a core runs its own code, so hooking theirs word by word costs
        hook adds (about 2 of 3 of them) for nothing, and a hook that also covers their plain
        words runs nothing there (``_Runs``) if the core ever does run that code.  The hooked
        addresses whose hook must change (``_rehook`` hooks them)."""
        hooked = sorted(self._code_hooks)
        wanted = [(lo, hi) for lo, hi in self.tile.others_code(self.name)
                  if bisect_left(hooked, lo) < bisect_right(hooked, hi)]
        touched: set[int] = set()
        for first in [f for f, (last, _) in self._spans.items() if (f, last) not in wanted]:
            last, handle = self._spans.pop(first)
            self.uc.hook_del(handle)
            touched.update(a for a in hooked[bisect_left(hooked, first):bisect_right(hooked, last)])
        for first, last in wanted:
            if first not in self._spans:
                self._spans[first] = (last, add_code_hook_fptr(self.uc, self._code_fptr, first, last))
                touched.update(hooked[bisect_left(hooked, first):bisect_right(hooked, last)])
        return touched

    def respan(self) -> None:
        """The span hooks after the other cores' code changed (``_respan``; a core not built yet
        hooks its code when it is built; a running one keeps its hooks, which run every word
        right, until its next ``hook_code``: no hook is deleted in a run)."""
        if not self.built or self.running:
            return
        touched = self._respan()
        if touched:
            self._rehook(touched)

    def _span_at(self, address: int) -> int | None:
        """The first address of the span hook over ``address`` (``_respan``), if one is."""
        for first, (last, _) in self._spans.items():
            if first <= address <= last:
                return first
        return None

    def set_code_hook(self, address: int, patch: Patch | None) -> None:
        """Hook ``address`` for ``patch`` (None: unhook it).  Every hooked address of the core
        shares one Unicorn callback, which runs the address's entry of ``_code_runs``."""
        if not self.built:
            return
        self._code_runs.pop(address, None)
        if patch is not None and patch.hooked:
            if self._code_hooks.get(address) == patch:
                return
            was = address in self._code_hooks
            self._code_hooks[address] = patch
            if was and address not in self._native_hooks:
                return     # hooked already: only what the hook runs changes (a C hook holds its word)
        elif self._code_hooks.pop(address, None) is None:
            return
        if self.running:
            self._hook_in_run(address)
        else:
            self._rehook({address})

    def _rehook(self, touched: set[int]) -> None:
        """The Unicorn hooks after the hooked addresses ``touched`` changed: each run of
        consecutive hooked words is one code hook over the run (measured on Unicorn 2.1: 1.7 us
        an added hook; its range is checked for every instruction translated, never per
        instruction run); the runs next to a touched address are made again."""
        ranges, range_of = self._hook_ranges, self._range_of
        firsts = {range_of[a] for t in touched for a in (t - 4, t, t + 4) if range_of.get(a) in ranges} if ranges else ()
        addresses = set(touched)
        for first in firsts:
            last, handle = ranges.pop(first)
            self.uc.hook_del(handle)
            for a in range(first, last + 4, 4):
                addresses.add(a)
                del range_of[a]
        precise = []
        for a in addresses:
            span = self._span_at(a)
            if a not in self._code_hooks or span is not None:
                self._drop_native(a)
            if span is None:
                if a in self._code_hooks:
                    if not self._natively(a):
                        precise.append(a)
                else:
                    range_of.pop(a, None)
            elif a in self._code_hooks:
                range_of[a] = span
            else:
                range_of.pop(a, None)
        first = last = None
        for a in sorted(precise):
            if last is not None and a == last + 4:
                last = a
                continue
            if first is not None:
                self._add_range(first, last)
            first = last = a
        if first is not None:
            self._add_range(first, last)

    def _add_range(self, first: int, last: int) -> None:
        self._hook_ranges[first] = (last, add_code_hook_fptr(self.uc, self._code_fptr, first, last))
        for a in range(first, last + 4, 4):
            self._range_of[a] = first

    def _hook_in_run(self, address: int) -> None:
        """``address`` was hooked or unhooked from one of this core's hooks, inside ``emu_start``:
        a new hook is added over it alone; a hook over an unhooked word stays until the run
        returns (``_drop_stale``), running nothing there, so no range's hook is deleted in a run
        (a word's own C hook is: ``_drop_native``)."""
        span = self._span_at(address)
        if address in self._code_hooks:
            self._unhook_later.discard(address)
            if span is not None:
                self._range_of[address] = span
            elif address not in self._range_of and not self._natively(address):
                self._add_range(address, address)
            return
        self._drop_native(address)
        if span is not None:
            self._range_of.pop(address, None)
        elif address in self._range_of:
            self._unhook_later.add(address)

    def _runner(self, patch: Patch) -> Callable[[int, int, int], None]:
        """What the code hook runs at a word replaced by ``patch``."""
        if patch.kind is PatchKind.TTINSN:
            return self._ttinsn(patch)
        if patch.kind is PatchKind.CSR:
            insn = patch.insn

            def run(address: int, size: int, user: int) -> None:
                self._csr(insn)
            return run
        event = faults.illegal_instruction(patch.word)

        def illegal(address: int, size: int, user: int) -> None:
            self._event(event, None)
        return illegal

    def _natively(self, address: int) -> bool:
        """Give hooked ``address`` the native push path's C hook if it is a ``.ttinsn`` of this
        core's own code (one Unicorn hook per address: its entry holds the word,
        ``tdbg.emu.native_push``); True when it has one now, so no Python hook covers it."""
        patch = self._code_hooks.get(address)
        held = self._native_hooks.get(address)
        if held is not None and (patch is None or held[1] != patch.insn):
            self._drop_native(address)
            held = None
        if held is not None:
            return True
        if patch is None or patch.kind is not PatchKind.TTINSN or self._span_at(address) is not None:
            return False
        if self._native is None and not self._native_tried:
            self._native_tried = True
            from tdbg.emu import native_push   # (the C push path: imported with the first .ttinsn)
            self._native = native_push.for_core(self)
        if self._native is None:
            return False
        self._native_hooks[address] = (self._native.add(address, patch.insn), patch.insn)
        return True

    def _drop_native(self, address: int) -> None:
        """Delete ``address``'s C hook (in a run too: Unicorn runs a deleted hook no more and
        frees it when the run returns)."""
        held = self._native_hooks.pop(address, None)
        if held is not None:
            self.uc.hook_del(held[0])
            assert self._native is not None
            self._native.remove(address)

    def _code_hook(self) -> object:
        """The one raw code hook of the core's replaced words (``_hook``'s protocol, with the
        address's runner looked up inline: a push costs no extra frame)."""
        uc, runs = self.uc, self._code_runs

        def hook(handle: int, address: int, size: int, user: int) -> None:
            self._hooks += 1
            if self._stop_asked:
                self._hooks += 1
                uc.emu_stop()
                return
            try:
                runs[address](address, size, user)
            except Stall as stall:
                self._block(stall.wait)
            except BaseException as exc:
                self._internal_error(exc)
            finally:
                self._hooks += 1

        self._code_py = hook   # what the native hook's ``learn`` calls
        return code_hook_fptr(hook)

    def _ttinsn(self, patch: Patch) -> Callable[[int, int, int], None]:
        """What a ``.ttinsn`` does on this core: exactly a ``sw`` of its word to
        ``INSTRN_BUF_BASE`` (PushTensixInstruction.md): a push to the core's own thread, or for
        RISCV B to the thread that address reaches (T0); RISCV NC cannot push (the address is
        unmapped for it: the store would hang the core)."""
        word, push = patch.insn, self.tile.push_path.push
        thread = self._push_thread
        if thread is None:
            base = self.tile.profile.instrn_buf_base
            port = self.region_at(base)
            if port is None:
                event = UndefinedBehavior(f"PushTensixInstruction.md: a .ttinsn is a sw to INSTRN_BUF_BASE ({base:#x}), "
                                          f"which {self.name} has unmapped (the core would hang)")

                def refused(address: int, size: int, user: int) -> None:
                    self._event(event, None)
                return refused
            thread = self._push_thread = self.thread if self.thread is not None else port.device.spec.unit

        def run(address: int, size: int, user: int) -> None:
            self._poll = None
            push(self, thread, address, word, "ttinsn")
        return run

    def _csr(self, insn: CsrInsn) -> None:
        """A CSR instruction (the word is a NOP): run it on this core's CSRs, or stop before it;
        as a nop when the ``handle`` policy lets an undefined one go on, and with the write kept
        when it is one tdbg does not model."""
        source = insn.source if insn.immediate else self.reg(insn.source)
        try:
            value = self.csrs.execute(insn, source)
        except UnsupportedFunctionality as event:
            if self._event(event, None):
                return
            value = self.csrs.execute(insn, source, check=False)
        except TensixEvent as event:
            self._event(event, None)
            return
        if value is not None:
            self.set_reg(insn.rd, value)

    def flush_translations(self) -> None:
        """Drop every translation (``ctl_flush_tb``); a core that has not run since its build or
        its last flush has none (Unicorn translates only inside ``emu_start``), so nothing is
        asked of Unicorn (measured: 50 us a core, three at each session's first reset)."""
        if self._translated:
            self.uc.ctl_flush_tb()
            self._translated = False

    def drop_translations(self, start: int, end: int, code: bool = False) -> None:
        """Unicorn's translations of L1 ``start .. end`` are stale (something other than this
        core's stores changed those bytes): drop them.  Inside ``emu_start`` (from one of this
        core's hooks) that waits until it returns: ``ctl_remove_cache`` refills the TLB entry of
        the range's first page for a code fetch (Unicorn's ``uc_invalidate_tb`` calls
        ``get_page_addr_code``), and a store hook's access goes on through the TLB entry it
        started with (``store_helper``); when both are the same entry (page numbers equal modulo
        the TLB's size: L1 0x20000 and NoC 0's registers at 0xFFB20000) the store went to a wrong
        host address, SIGSEGV (issue 30 N1).  ``code``: the range holds loaded code, so a run
        with no instruction count stops after the accessing instruction (its effect done), drops
        them and runs on, never running the old code; a counted run (a step) runs the rest of its
        count first."""
        if not self.built:
            return
        if not self.running:
            remove_cache(self.uc, start, end)
            return
        self._stale.append((start, end))
        if code and (self._count == 0 or not self._count_exact) and self._run_on is None:
            self._run_on = self.pc
            self.uc.emu_stop()

    def _drop_stale(self) -> None:
        for start, end in self._stale:
            remove_cache(self.uc, start, end)
        self._stale.clear()
        if self._unhook_later:
            unhooked = {a for a in self._unhook_later if a not in self._code_hooks}
            self._unhook_later.clear()
            self._rehook(unhooked)

    def push_event(self, event: TensixEvent) -> bool:
        """A pushed instruction raised ``event``; the push itself has happened.  True if the
        core is stopping."""
        return self._event(event, None, completed=True)

    def push_watch(self, watch: Watch, old: int, new: int, detail: str) -> None:
        """A pushed instruction wrote a watched Dst row: stop after the push."""
        self.completed_pc = self.pc
        self._halt(Stop(StopKind.WATCHPOINT, self.name, self.pc, detail=detail, watch=watch, old=old, new=new))

    # -- breakpoints and watchpoints ------------------------------------------------------------
    def set_breakpoints(self, addresses: set[int]) -> None:
        self.breakpoints = set(addresses)
        self._set_exits()

    def add_breakpoint(self, address: int) -> None:
        """Arm one breakpoint; Unicorn's exits are set once, when the core next runs (setting
        them costs O(N log N), so adding N breakpoints one by one stays linear)."""
        self.breakpoints.add(address)
        self._exits_stale = True

    def remove_breakpoint(self, address: int) -> None:
        self.breakpoints.discard(address)
        self._exits_stale = True

    def set_parks(self, addresses: set[int]) -> None:
        """Park at ``addresses``; Unicorn's exits are set when the core next runs (each load
        sets every core's parks), at once inside its run."""
        self.parks = set(addresses)
        if self.running:
            self._set_exits()
        else:
            self._exits_stale = True

    def _set_exits(self, skip: int | None = None) -> None:
        if not self.built:
            return   # set when it is built
        exits = (self.breakpoints | self.parks) - {skip}
        self.uc.ctl_set_exits(sorted(exits))
        self._exits_stale = False
        # Unicorn 2.1.4 reads the exits as it translates (``translator_loop``): the code cached
        # over an exit added or dropped is dropped, so that it stops there, or no longer does
        for address in exits ^ self._exit_set:
            remove_cache(self.uc, address, address + 4)
        self._exit_set = exits

    def add_watch(self, watch: Watch) -> None:
        """Stop before any access the watch covers (memory or device)."""
        hooks: list[int] = []
        if self.region_at(watch.address) is not None:
            if all(w is not watch for w in self._mmio_watches):
                self._mmio_watches.append(watch)
        elif not self.built:
            pass   # hooked when the core is built
        else:
            end = watch.address + watch.length - 1
            if watch.kind in ("write", "access"):
                hooks.append(self.uc.hook_add(UC_HOOK_MEM_WRITE, self._ram_watch_hook(True), begin=watch.address, end=end))
            if watch.kind in ("read", "access"):
                hooks.append(self.uc.hook_add(UC_HOOK_MEM_READ, self._ram_watch_hook(False), begin=watch.address, end=end))
        self.watches[watch.number] = (watch, hooks)

    def _ram_watch_hook(self, write: bool) -> Callable[..., None]:
        # A load stopped from its hook never reaches its register, but a store still lands in
        # RAM (measured): keep the old bytes and put them back once the core has stopped.
        def hook(uc: Uc, access: int, address: int, size: int, value: int, _: object) -> None:
            old = bytes(uc.mem_read(address, size)) if write else b""
            if self._watch_hit(address, size, write, value if write else None) and write:
                self._undo = (address, old)
        return hook

    def remove_watch(self, number: int) -> None:
        if number not in self.watches:
            return
        watch, hooks = self.watches.pop(number)
        for h in hooks:
            self.uc.hook_del(h)
        if any(w is watch for w in self._mmio_watches):
            self._mmio_watches.remove(watch)

    def _watch_hit(self, address: int, size: int, write: bool, value: int | None) -> bool:
        if self._muted:
            return False
        self._put_back_rounded()
        for watch, _ in self.watches.values():
            if not watch.covers(address, size, write):
                continue
            if watch.dst_rows and not watch.dst_rows & self.tile.window_rows(self, address, size):
                continue
            old = self.tile.peek(self, address, size)
            new = value & ((1 << (8 * size)) - 1) if value is not None else None
            access = Access(address, size, write, new)
            self._halt(Stop(StopKind.WATCHPOINT, self.name, self.pc, access=access, watch=watch, old=old, new=new))
            return True
        return False

    # -- running ----------------------------------------------------------------------------------
    def interrupt(self) -> None:
        """Stop a running ``resume`` from another thread (Ctrl-C; ask again until it stops)."""
        self._interrupt = True
        self._ask_stop()

    def clear_interrupt(self) -> None:
        """Drop an interrupt asked before a run began."""
        self._interrupt = False

    def _ask_stop(self) -> bool:
        """Ask the core to stop (see ``_stop_asked``); True if emu_stop was called, False when
        the core's next hook is left to stop it."""
        self._stop_asked = True
        hooks, runs = self._hooks, self._runs
        native = self._native.ask_stop() if self._native is not None else 0
        if (hooks | native) & 1:
            return False
        sleep(QUIET_S)
        if self._hooks != hooks or self._runs != runs or (self._native is not None and self._native.hooks != native):
            return False   # a hook has seen the request since
        self.uc.emu_stop()
        return True

    def step(self, count: int = 1) -> Stop:
        """Execute ``count`` instructions (fewer if something stops the core first); the first
        one even if a breakpoint is set on it, as GDB's ``stepi`` does."""
        pc = self.pc
        if self.completed_pc == pc:
            stop = self._go_on_with_push()
            if stop is not None:
                return stop
            self.pc = pc + 4
        else:
            stop = self._step_muted(watches=self._before_access)
            if stop is not None:
                return self._record(stop)
        count -= 1
        if count <= 0:
            return self._record(Stop(StopKind.STEP, self.name, self.pc))
        if not self.tile.trampolines.placed:
            return self._record(self._emulate(count, StopKind.STEP))
        for _ in range(count):    # one at a time: a trampoline is several instructions for one
            stop = self._emulate(1, StopKind.STEP)
            if stop.kind is not StopKind.STEP:
                break
        return self._record(stop)

    def resume(self, limit: int | None = None, preemptible: bool = False, exact: bool = True) -> Stop:
        """Run until a breakpoint, watchpoint, event, ebreak/ecall, a wait, a ``j .`` (parked),
        an interrupt or ``limit`` instructions; ``preemptible``: the turn may be cut after a
        slice of host time (``tdbg.emu.preempt``: a ``PREEMPTED`` stop; ``Tile._turn`` decides
        what follows from what the core does); not ``exact``: a limit the run may go past (a
        store over loaded code then stops the run and it runs on, as an unlimited one does)."""
        if self._nothing_to_mute():
            count = limit or 0    # the run executes the stop's instruction itself: no step first
        else:
            stop = self._step_past_last_stop()
            if stop is not None:
                return stop
            pc = self.pc
            if pc in self.breakpoints:
                return self._record(Stop(StopKind.BREAKPOINT, self.name, pc))
            if pc in self.parks:
                return self._record(Stop(StopKind.PARKED, self.name, pc))
            if limit == 1:
                return self._record(Stop(StopKind.LIMIT, self.name, pc))
            count = limit - 1 if limit else 0
        if not preemptible:
            self._count_exact = exact
            try:
                return self._record(self._emulate(count, StopKind.LIMIT))
            finally:
                self._count_exact = True
        PREEMPTOR.begin(self)
        try:
            return self._record(self._emulate(count, StopKind.LIMIT))
        finally:
            PREEMPTOR.end(self)

    def _nothing_to_mute(self) -> bool:
        """True when the core stopped at its PC (``last_stop``) and stepping past that stop
        mutes nothing: no breakpoint or park there (an exit would stop the run before the
        instruction), not stopped before a watched access, no push there already done.  The
        run then executes that instruction itself, as the step would have, without the step's
        own ``emu_start`` (measured on bench (m): 164 such steps an add, 70 us each)."""
        pc = self.pc
        return (self.last_stop is not None and self.completed_pc != pc and not self._before_access
                and pc not in self.breakpoints and pc not in self.parks)

    def run_observed(self, count: int) -> Stop | None:
        """Run ``count`` more instructions of this turn (``tdbg.emu.idle`` watches them); the
        stop if something stopped the core first."""
        stop = self._record(self._emulate(count, StopKind.LIMIT))
        return None if stop.kind is StopKind.LIMIT else stop

    def run_to_loop_head(self, head: int) -> None:
        """Take a core that spins (``tdbg.emu.idle``: its loop changes nothing) round its loop to
        ``head``, so where it waits does not depend on where host time cut its turn."""
        self._run_to(head, self.pc)
        self.last_stop = replace(self.last_stop, pc=head) if self.last_stop is not None else None

    def complete_access(self, stop: Stop) -> Stop:
        """A watchpoint stopped the core before its access: execute the accessing instruction
        (watches muted) and report the stop after it, with the value memory holds now, as GDB
        reports a watchpoint.  A stop the instruction causes itself (an event) wins."""
        assert stop.access is not None
        rows = getattr(stop.watch, "bits_rows", None) if getattr(stop.watch, "dst_rows", None) else None
        dst = self.tile.tensix.dst
        before = (dst.bits[rows].copy(), dst.rows_state(rows)) if rows else None
        after = self._step_muted(watches=True)
        if after is not None:
            return self._record(after)
        access = stop.access
        value = self.tile.peek(self, access.address, access.size)
        unchanged = before is not None and bool(np.array_equal(before[0], dst.bits[rows])
                                                and np.array_equal(before[1], dst.rows_state(rows)))
        stop = self._record(replace(stop, pc=self.pc, unchanged=unchanged, **{"new" if access.write else "old": value}))
        self._before_access = False
        return stop

    def _step_past_last_stop(self) -> Stop | None:
        """Execute the instruction at the PC with this PC's breakpoint and watchpoints muted (or
        skip it, if its effect already happened) when the core stopped there; a stop it causes
        is returned.  A core that has not stopped yet (just reset) starts with the instruction,
        so a breakpoint at its entry is hit."""
        pc = self.pc
        if self.completed_pc == pc:
            stop = self._go_on_with_push()
            if stop is None:
                self.pc = pc + 4
            return stop
        if self.last_stop is None:
            return None
        stop = self._step_muted(watches=self._before_access)
        return None if stop is None else self._record(stop)

    def _go_on_with_push(self) -> Stop | None:
        """The push at the PC, which stopped the core, goes on (``PushPath.go_on``): the stop of
        an event or watch it then hits, the core still at the push."""
        self._stop = None
        self.tile.push_path.go_on(self)
        stop, self._stop = self._stop, None
        return None if stop is None else self._record(stop)

    def _step_muted(self, watches: bool) -> Stop | None:
        """One instruction with this PC's exit (breakpoint, park) muted, and the watchpoints too
        when ``watches`` (the core stopped before this instruction's access); its stop if it
        made one."""
        pc = self.pc
        self._muted, self._stepping_over = watches, True
        exits = pc in self.breakpoints or pc in self.parks
        if exits:
            self._set_exits(skip=pc)
        try:
            stop = self._emulate(1, StopKind.STEP)
        finally:
            self._muted = self._stepping_over = False
            if exits:
                self._set_exits()
        return None if stop.kind is StopKind.STEP else stop

    def _record(self, stop: Stop) -> Stop:
        self.last_stop = stop
        self._before_access = stop.access is not None and stop.kind in (StopKind.WATCHPOINT, StopKind.EVENT)
        return stop

    def preempt(self) -> bool:
        """End the current turn from another thread (``tdbg.emu.preempt``); False when the
        stop is left to the core's next hook (ask again soon)."""
        self._preempt = True
        return self._ask_stop()

    def _emulate(self, count: int, done: StopKind) -> Stop:
        """Run up to ``count`` instructions (0: no limit); ``done`` is the stop when they ran.
        A ``wfi`` the policy lets through (a nop) runs on, as far as ``count`` allows."""
        while True:
            stop = self._emulate_once(count, done)
            if stop is not None:
                return stop

    def _emulate_once(self, count: int, done: StopKind) -> Stop | None:
        self._stop = None
        start = self.pc
        if self._interrupt:  # asked before this run started: emu_stop had nothing to stop
            self._interrupt = False
            return Stop(StopKind.INTERRUPTED, self.name, start)
        error: UcError | None = None
        if self._exits_stale:
            self._set_exits()
        self._preempt = self._stop_asked = False
        if self._native is not None:
            self._native.begin_run()
        self._runs += 1
        self.tile.l1_zero = False    # the core may store to L1
        self.running, self._count, self._translated = True, count, True
        self.traced &= count > 0
        self._counted = count > 0
        try:
            self.uc.emu_start(start, 0, count=count)
        except UcError as exc:
            error = exc
        finally:
            self.running = False
            if self._native is not None:
                self._native.end_run()
            self._drop_stale()
        self._put_back_rounded()
        if self._undo is not None:
            self.uc.mem_write(*self._undo)
            self._undo = None
        if self._resume_at is not None:
            self.uc.reg_write(UC_RISCV_REG_PC, self._resume_at)
            self._resume_at = None
        pc = self.pc
        # Measured on Unicorn 2.1: after emu_stop (from a hook in the middle of a translated
        # block, or from another thread) restarting at the stop PC can run a stale block or
        # hang; dropping the block at the PC avoids both and costs about a microsecond.
        remove_cache(self.uc, pc, pc + 4)
        if self._run_on is not None:
            at, self._run_on = self._run_on, None
            if self._stop is None and error is None and pc == at:
                self.pc = pc + 4     # the store is done (drop_translations); another stop wins
                return None
        if self._retry:
            self._retry = False
            return None
        if self._stop is None and self.tile.trampolines.contains(pc):
            pc = self._finish_trampoline(pc)
        if self._stop is not None:
            return self._stop
        if error is not None:
            return self._error_stop(error, pc, count, done)
        if self._interrupt:
            self._interrupt = False
            return Stop(StopKind.INTERRUPTED, self.name, pc)
        if self._word(pc - 4) == faults.WFI:  # measured: wfi ends emu_start past it, silently
            event = faults.wfi()
            if self.tile.report(event, self.name, pc - 4, None):
                self.pc = pc - 4
                return Stop(StopKind.EVENT, self.name, pc - 4, event=event)
            if count == 0:
                return None  # executed as a nop: run on
        if not self._stepping_over:
            if pc in self.breakpoints:
                return Stop(StopKind.BREAKPOINT, self.name, pc)
            if pc in self.parks:
                return Stop(StopKind.PARKED, self.name, pc)
        if self._preempt:
            return Stop(StopKind.PREEMPTED, self.name, pc)
        return Stop(done, self.name, pc)

    def _finish_trampoline(self, pc: int) -> int:
        """Run the rest of the trampoline the core stopped in (an interrupt, a turn's end or an
        instruction count landed there), so the instruction it stands for is done; the PC after
        it.  Nothing in a trampoline stops the core."""
        return self._run_to(self.tile.trampolines.return_address(pc), pc)

    def _run_to(self, address: int, pc: int) -> int:
        """Run from ``pc`` until the PC is ``address``, an exit of its own with the block cached
        there dropped: measured on Unicorn 2.1, neither ``emu_start(count=1)`` nor a new exit
        stops the core in code translated before the run, so from a trampoline's last word (the
        ``jal`` back) a core preempted in a polling loop went round it for ever
        (tests/firmware/spin_zb.c).  After a counted run it is counted too, to a count it never
        reaches: Unicorn 2.1.4's ``uc_emu_start`` without a count drops its counting hook and
        flushes every translation (and the next counted run would add the hook again)."""
        self.uc.ctl_set_exits([address])
        self._exit_set, self._exits_stale = {address}, True
        self._translated = True
        self.tile.l1_zero = False
        self.uc.ctl_remove_cache(address, address + 4)
        while pc != address:   # another emu_stop from the preemptor may land meanwhile: go on
            self._stop_asked = False   # the stop is taken already: only the run's end is left
            if self._native is not None:
                self._native.begin_run()
            self.uc.emu_start(pc, 0, count=NEVER_REACHED if self._counted else 0)
            pc = self.pc
        if self._native is not None:
            self._native.end_run()
        self.uc.ctl_remove_cache(pc, pc + 4)
        return pc

    def _error_stop(self, error: UcError, pc: int, count: int, done: StopKind) -> Stop | None:
        """``emu_start`` failed at ``pc``: ``ebreak`` (measured: ``UC_ERR_INSN_INVALID`` with the
        PC on it), another instruction Unicorn refuses the same way, or a Unicorn error."""
        if error.errno == UC_ERR_INSN_INVALID:
            word = self._word(pc)
            if word == EBREAK:
                return Stop(StopKind.EBREAK, self.name, pc)
            event = faults.illegal_instruction(word)
            if self.tile.report(event, self.name, pc, None):
                return Stop(StopKind.EVENT, self.name, pc, event=event)
            self.pc = pc + 4  # executed as a nop
            return None if count == 0 else Stop(done, self.name, pc + 4)
        return Stop(StopKind.FAULT, self.name, pc, detail=f"Unicorn: {error}")


class _Runs(dict[int, Callable[[int, int, int], None]]):
    """A core's ``_code_runs``: each hooked word's runner, made when the word first runs (a core
    rarely runs the other cores' code it hooks).  An address a hook covers without a replaced
    word there (a word unhooked during a run, the middle of a word) runs nothing."""

    def __init__(self, core: Core) -> None:
        super().__init__()
        self._core = core

    def __missing__(self, address: int) -> Callable[[int, int, int], None]:
        patch = self._core._code_hooks.get(address)
        if patch is None:
            return _nothing
        run = self[address] = self._core._runner(patch)
        return run


def _nothing(address: int, size: int, user: int) -> None:
    pass


class _Unbuilt:
    """A core's ``uc`` until it is first used: the first attribute asked of it builds the core
    (``Core._build``), which replaces it with the Unicorn instance."""

    __slots__ = ("_core",)

    def __init__(self, core: Core) -> None:
        self._core = core

    def __getattr__(self, name: str) -> object:
        self._core._build()
        return getattr(self._core.uc, name)


def _reads_other(load: Callable[[int, int], int], offset: int, size: int, value: int) -> bool:
    """True when a device load would now return something other than ``value`` (or raise)."""
    try:
        return load(offset, size) != value
    except (TensixEvent, Stall):
        return True
