"""The memory-mapped devices a baby RISC-V core sees, as load/store handlers.

Each ``Region`` is mapped into the core's Unicorn address space as RAM that only the region's
hooks touch: a read hook computes the value and writes it where the load will read it, a write
hook applies the store.  Both hooks see the exact PC and can stop the core before the access
commits.  Which devices a core sees, and where, is the profile's table (BlackholeA0
``BabyRISCV/README.md`` "Memory map"); this module gives each device its behaviour.

A handler that must wait raises ``Stall`` with a ``Wait``: the core stops before the access and
runs it again once ``Wait.ready()`` holds (``tdbg.emu.core``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tdbg.tensix import tdma_risc
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.mailboxes import CORES as mailbox_cores
from tdbg.tensix.mailboxes import DEPTH as mailbox_depth
from tdbg.tensix.profile import TENSIX, CoreSpec

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.tile import Tile

Load = Callable[[int | None, int, int], int]          # (thread, offset, size) -> value
Store = Callable[[int | None, int, int, int], None]   # (thread, offset, size, value)


@dataclass(frozen=True)
class Wait:
    """What a blocked core waits for: what it is doing, the test that ends the wait, and
    (when the cause can change while it waits) a function saying what holds it now; for a
    report, the device ``address`` a polling loop reads and the Tensix ``thread`` whose queue
    a TTSync load or a push waits on; a core spinning on memory also says which addresses it
    reads (``reads``: address -> the value it keeps reading), and a polling or spinning core the
    instructions of its loop (``loop``)."""

    what: str
    ready: Callable[[], bool] = field(compare=False)
    why: Callable[[], str | None] | None = field(default=None, compare=False)
    address: int | None = None
    thread: int | None = None
    reads: dict[int, int] = field(default_factory=dict, compare=False)
    loop: frozenset[int] = field(default=frozenset(), compare=False)

    @property
    def reason(self) -> str:
        cause = self.why() if self.why is not None else None
        return f"{self.what}: {cause}" if cause else self.what


class Stall(Exception):
    """Raised by a device handler: the access cannot complete yet."""

    def __init__(self, wait: Wait) -> None:
        super().__init__(wait.reason)
        self.wait = wait


@dataclass(frozen=True)
class Region:
    name: str
    base: int
    size: int          # mapped bytes (a multiple of 4 KiB)
    load: Load
    store: Store
    observed: bool = False  # accesses go to ``Tile.window_observer`` when one is set
    pollable: bool = False  # loads may be polled: repeated identical reads block the core


def unimplemented(name: str) -> tuple[Load, Store]:
    def load(thread: int | None, offset: int, size: int) -> int:
        raise UnimplementedFunctionality(f"{name} (offset {offset:#x}) is not modelled by tdbg")

    def store(thread: int | None, offset: int, size: int, value: int) -> None:
        raise UnimplementedFunctionality(f"{name} (offset {offset:#x}) is not modelled by tdbg")

    return load, store


def word_loads(value_of: Callable[[int | None, int], int]) -> Load:
    """A device read a word at a time: ``value_of(thread, word_offset)``; narrower loads take
    their bytes out of that word."""

    def load(thread: int | None, offset: int, size: int) -> int:
        return (value_of(thread, offset & ~3) >> (8 * (offset & 3))) & ((1 << (8 * size)) - 1)

    return load


class TileRegisters:
    """Tile control / debug / status registers (``RISCV_DEBUG_REGS_START_ADDR``): the ones the
    profile lists (TileControlDebugStatus.md; offsets and reset values from bh_cfg_fields.json
    ``tile_regs``).

    Effects: ``DBG_FEATURE_DISABLE`` bit 11 changes ``Dst16b`` (Dst.md); ``CFGREG_RD_CNTL`` /
    ``CFGREG_RDDATA`` read config (BackendConfiguration.md); ``SOFT_RESET_0`` holds and releases
    cores (SoftReset.md: a set bit holds the core in reset, clearing it starts the core at its
    reset PC); ``TRISCn_RESET_PC`` with ``TRISC_RESET_PC_OVERRIDE`` bit n (``NCRISC_RESET_PC``
    with ``NCRISC_RESET_PC_OVERRIDE`` bit 0) give that PC;
    ``WALL_CLOCK_0/1`` read a clock that advances at each read of ``WALL_CLOCK_0`` (tdbg counts
    no cycles: a read costs one microsecond of tile time, so waits built on the clock end), and
    a read of ``WALL_CLOCK_0`` latches the high half that ``WALL_CLOCK_1_AT`` returns
    (DebugTimestamper.md: ``counter_high_at``; its ``WALL_CLOCK_H``); ``INSTRN_BUF_STATUS``
    reports the Wait Gate queues as the FIFO state (PushTensixInstruction.md).  Other listed
    registers keep what is written (``DEST_CG_CTRL``: clock gating, no architectural effect).
    A write-only register reads as ``UndefinedBehavior``; an offset the table does not list is
    ``UnimplementedFunctionality``."""

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        profile = tile.profile
        self._by_offset = {r.offset: r for r in profile.tile_registers}
        self._soft_reset = profile.register("SOFT_RESET_0").offset
        self.values: dict[int, int] = {}
        self.clock = 0
        self.reset()

    def reset(self) -> None:
        self.values = {r.offset: r.reset or 0 for r in self.tile.profile.tile_registers}
        self.clock = 0

    def value(self, name: str) -> int:
        return self.values[self.tile.profile.register(name).offset]

    def set(self, name: str, value: int) -> None:
        """Write a register as the host or the debugger does (no core is running)."""
        self._write(self.tile.profile.register(name).offset, value)

    def _word(self, thread: int | None, word: int) -> int:
        reg = self._by_offset.get(word)
        if reg is None:
            raise UnimplementedFunctionality(f"tile register at offset {word:#x} is not modelled by tdbg")
        tensix = self.tile.tensix
        if reg.name == "DBG_FEATURE_DISABLE":
            return tensix.dst.feature_disable
        if reg.name == "CFGREG_RDDATA":
            return tensix.config.riscv_load((self.values[self._offset("CFGREG_RD_CNTL")] & 0x7FF) * 4, 4)
        if reg.name == "WALL_CLOCK_0":
            clock = self.cycles(True)
            self.values[self._offset("WALL_CLOCK_1_AT")] = clock >> 32
            return clock & 0xFFFF_FFFF
        if reg.name == "WALL_CLOCK_1":
            return self.cycles(False) >> 32
        if reg.name == "INSTRN_BUF_STATUS":
            queued = [self.tile.coprocessor.pending(t) for t in range(3)]
            full = [len(q) >= self.tile.profile.wait_gate_capacity for q in queued]
            return sum((not f) << t for t, f in enumerate(full)) | sum((not q) << (4 + t) for t, q in enumerate(queued))
        if reg.access == "wo":
            raise UndefinedBehavior(f"TileControlDebugStatus.md: {reg.name} is write-only")
        return self.values[word]

    def cycles(self, advance: bool) -> int:
        """The tile clock, in RISC-V cycles; ``advance``: a read of a low counter half, which
        costs a microsecond of tile time."""
        if advance:
            self.clock += self.tile.profile.clock_hz // 1_000_000
        return self.clock

    def _offset(self, name: str) -> int:
        return self.tile.profile.register(name).offset

    def load(self, thread: int | None, offset: int, size: int) -> int:
        return word_loads(self._word)(thread, offset, size)

    def store(self, thread: int | None, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UnimplementedFunctionality(f"{size}-byte store to tile register {offset:#x} is not modelled by tdbg")
        reg = self._by_offset.get(offset)
        if reg is None:
            raise UnimplementedFunctionality(f"tile register at offset {offset:#x} is not modelled by tdbg")
        if reg.access == "ro":
            raise UndefinedBehavior(f"TileControlDebugStatus.md: {reg.name} is read-only")
        self._write(offset, value)

    def _write(self, offset: int, value: int) -> None:
        if offset == self._offset("DBG_FEATURE_DISABLE"):
            self.tile.tensix.dst.feature_disable = value
        old = self.values.get(offset, 0)
        self.values[offset] = value
        if offset == self._soft_reset:
            self.tile.soft_reset_changed(old, value)

    def reset_pc(self, spec: CoreSpec) -> int | None:
        """The PC a T core or NC starts at when released, if its override bit gives one."""
        if spec.reset_pc_reg is None or spec.reset_pc_override is None:
            return None
        register, bit = spec.reset_pc_override
        if not self.values[register] >> bit & 1:
            return None
        return self.values[spec.reset_pc_reg]


def core_regions(tile: Tile, spec: CoreSpec) -> list[Region]:
    """The devices core ``spec`` sees, beyond L1 and the local data RAMs."""
    profile = tile.profile
    handlers = _handlers(tile, spec)
    regions = []
    for device in profile.devices:
        if spec.name not in device.cores:
            continue
        load, store, flags = handlers.get(device.name, (*unimplemented(device.name), {}))
        regions.append(Region(device.name, device.base, device.size, load, store, **flags))
    return regions


def _handlers(tile: Tile, spec: CoreSpec) -> dict[str, tuple[Load, Store, dict[str, bool]]]:
    """Load/store handlers by device name, as core ``spec`` sees each device."""
    tensix, coprocessor = tile.tensix, tile.coprocessor
    own = spec.thread
    poll = {"pollable": True}

    # ScalarUnit.md "RISCV access to GPRs": a T core sees its own thread's GPRs[64]; B sees
    # T0's, T1's and T2's one after another (BabyRISCV/README.md memory map).
    def gpr_index(thread: int | None, offset: int) -> tuple[int, int]:
        if own is None:
            if offset >= 3 * 64 * 4:
                raise UndefinedBehavior(f"BabyRISCV/README.md: REGFILE offset {offset:#x} is past GPRs[3][64]")
            return offset // 256, (offset % 256) >> 2
        if offset >= 64 * 4:
            raise UndefinedBehavior(f"BabyRISCV/README.md: REGFILE offset {offset:#x} is past GPRs[64]")
        return own, offset >> 2

    def gpr_value(thread: int | None, offset: int) -> int:
        return int(tensix.gprs[gpr_index(thread, offset)])

    def gpr_store(thread: int | None, offset: int, size: int, value: int) -> None:
        index = gpr_index(thread, offset)
        shift = 8 * (offset & 3)
        mask = ((1 << (8 * size)) - 1) << shift
        tensix.gprs[index] = (int(tensix.gprs[index]) & ~mask) | ((value << shift) & mask)

    # MOPExpander.md "Configuration": MopCfg[9], write-only.
    def mop_load(thread: int | None, offset: int, size: int) -> int:
        raise UndefinedBehavior("MOPExpander.md: MOP expander configuration is write-only")

    def mop_store(thread: int | None, offset: int, size: int, value: int) -> None:
        if offset >= 9 * 4 or size != 4:
            raise UndefinedBehavior(f"MOPExpander.md: {size}-byte store at MopCfg offset {offset:#x}")
        tensix.mop_cfg[own, offset >> 2] = value

    # PushTensixInstruction.md: a store to INSTRN_BUF_BASE pushes one instruction; T cores push
    # to their own thread before its MOP expander, B to T0/T1/T2 (INSTRN/INSTRN1/INSTRN2)
    # after the MOP expander.
    def instrn_load(thread: int | None, offset: int, size: int) -> int:
        raise UndefinedBehavior("PushTensixInstruction.md: INSTRN_BUF_BASE is for stores only")

    def instrn_store_to(target: int) -> Store:
        def store(thread: int | None, offset: int, size: int, value: int) -> None:
            if size != 4:
                raise UndefinedBehavior(f"PushTensixInstruction.md: a Tensix instruction is pushed with sw, not a {size}-byte store")
            tile.store_push(spec.name, target, value)
        return store

    # TTSync.md: a load from CoprocessorDoneCheck waits while the thread has any instruction in
    # flight (tdbg runs every instruction that passes the Wait Gate to completion, so "in flight"
    # is "queued at the Wait Gate"); MOPExpanderDoneCheck waits while a MOP is being expanded
    # (tdbg expands at push time: never).  The value is undefined; tdbg gives 0 (ttsim: 0).
    # Stores are discarded.  SyncUnit.md: the eight semaphores from offset 0x20.
    coprocessor_done, mop_done = 0x4, 0x8
    first = tile.profile.semaphore_offset
    semaphores = range(first, first + 8 * 4)

    def pcbuf_value(thread: int | None, offset: int) -> int:
        if offset == coprocessor_done:
            if coprocessor.pending(own):
                raise Stall(tile.ttsync_wait(spec.name))
            return 0
        if offset == mop_done:
            return 0
        if offset in semaphores:
            return coprocessor.riscv_semaphore_read((offset - first) >> 2)
        raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")

    def pcbuf_store(thread: int | None, offset: int, size: int, value: int) -> None:
        if offset & ~3 in semaphores:
            coprocessor.riscv_semaphore_write((offset - first) >> 2, value)
            tile.coprocessor_progressed()
        elif offset & ~3 not in (coprocessor_done, mop_done):
            raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")

    # Mailboxes.md: region i = TENSIX_MAILBOX{i}_BASE; this core writes to i, reads from i.
    mailboxes = tensix.mailboxes
    me = mailbox_cores.index(spec.name) if spec.name in mailbox_cores else -1   # NC has no mailboxes

    def mailbox_load(thread: int | None, offset: int, size: int) -> int:
        other = offset >> 12
        if size != 4:
            raise UndefinedBehavior(f"Mailboxes.md: a mailbox holds 32-bit values (a {size}-byte load)")
        if offset & 4:
            return int(mailboxes.holds(other, me))
        if not mailboxes.holds(other, me):
            raise Stall(Wait(f"mailbox read at {tile.cores[spec.name].pc:#010x} waits for a value from "
                             f"{mailbox_cores[other]}", lambda: mailboxes.holds(other, me)))
        return mailboxes.pop(other, me)

    def mailbox_store(thread: int | None, offset: int, size: int, value: int) -> None:
        other = offset >> 12
        if size != 4:
            raise UndefinedBehavior(f"Mailboxes.md: a mailbox holds 32-bit values (a {size}-byte store)")
        if not mailboxes.can_write(me, other):
            raise Stall(Wait(f"mailbox write at {tile.cores[spec.name].pc:#010x} waits: {spec.name}'s mailboxes "
                             f"hold {mailbox_depth} values", lambda: mailboxes.can_write(me, other)))
        mailboxes.write(me, other, value)

    cfg = tensix.config

    def cfg_load(thread: int | None, offset: int, size: int) -> int:
        return cfg.riscv_load(offset, size)

    def cfg_store(thread: int | None, offset: int, size: int, value: int) -> None:
        cfg.riscv_store(offset, size, value)

    window = tensix.window
    handlers: dict[str, tuple[Load, Store, dict[str, bool]]] = {
        "debug registers": (tile.registers.load, tile.registers.store, poll),
        "Tensix GPRs": (word_loads(gpr_value), gpr_store, poll),
        "Tensix backend configuration": (cfg_load, cfg_store, poll),
        "mailboxes": (mailbox_load, mailbox_store, {}),   # a pop is no poll: each read takes a value
    }
    packer = tensix.packer

    # TDMA-RISC.md: the registers that configure PACR_SETREG (tdbg.tensix.tdma_risc).
    def tdma_store(thread: int | None, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UnimplementedFunctionality(f"{size}-byte store to TDMA-RISC register {offset:#x} is not modelled by tdbg")
        tdma_risc.store(packer, offset, value)

    handlers["TDMA-RISC registers"] = (word_loads(lambda thread, offset: tdma_risc.load(packer, offset)), tdma_store, poll)

    # The NIUs (tdbg.emu.noc) and the overlay's stream registers (tdbg.emu.overlay): 32-bit
    # registers; a store to NOC_CMD_CTRL runs the request, named after the core that made it.
    def register_load(load: Callable[[int], int]) -> Load:
        def access(thread: int | None, offset: int, size: int) -> int:
            if size != 4:
                raise UndefinedBehavior(f"NoC/MemoryMap.md: a {size}-byte load of a 32-bit register (offset {offset:#x})")
            return load(offset)
        return access

    def register_store(store: Callable[[int, int], None]) -> Store:
        def access(thread: int | None, offset: int, size: int, value: int) -> None:
            if size != 4:
                raise UndefinedBehavior(f"NoC/MemoryMap.md: a {size}-byte store to a 32-bit register (offset {offset:#x})")
            tile.noc.issuer = (spec.name, tile.cores[spec.name].pc)
            store(offset, value)
        return access

    for niu, device in zip(tile.noc.nius, ("NoC 0 registers", "NoC 1 registers")):
        handlers[device] = (register_load(niu.load), register_store(niu.store), poll)
    handlers["NoC overlay"] = (register_load(tile.overlay.load),
                               register_store(lambda offset, value: tile.overlay.store(offset, value, tile.noc.issuer)),
                               poll)
    if own is not None:
        handlers |= {
            "MOP expander config": (mop_load, mop_store, {}),
            "Tensix instruction push": (instrn_load, instrn_store_to(own), {}),
            "PCBuf / TTSync / semaphores": (word_loads(pcbuf_value), pcbuf_store, poll),
            "Dst window": (window.load, window.store, {"observed": True}),
        }
    else:
        handlers |= {
            "Tensix instruction push": (instrn_load, instrn_store_to(0), {}),
            "Tensix instruction push 1": (instrn_load, instrn_store_to(1), {}),
            "Tensix instruction push 2": (instrn_load, instrn_store_to(2), {}),
        }
    return handlers



class TensixMmio:
    """The tile's devices as a Tensix instruction reaches them (``Coprocessor.mmio``, for
    ``LOADREG``, ``STOREREG`` and ``PACR_SETREG``): what BlackholeA0 ``BabyRISCV/README.md``'s
    memory map makes "available to the NoC (and to the Tensix coprocessor)", i.e. the
    profile's devices marked ``TENSIX`` and the local RAMs' slow-access windows.  An access goes
    through the handler (or memory) a load or store of the thread's T core at that address uses,
    so it has the same effect; every device the coprocessor reaches is shared by the cores.
    Another address is "Unmapped" for the coprocessor: ``UndefinedBehavior`` (the TDMA-RISC
    registers, the MOP expander config and the Dst window among them).  A device handler that
    would wait (``Stall``) raises ``UnimplementedFunctionality``: none of the reachable ones does."""

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        self._core = {spec.thread: spec.name for spec in tile.profile.cores if spec.thread is not None}

    def _target(self, thread: int, address: int) -> tuple[Core, Region | None]:
        profile, core = self.tile.profile, self.tile.cores[self._core[thread]]
        if any(c.local_ram_alias <= address < c.local_ram_alias + c.alias_span for c in profile.cores):
            return core, None
        device = profile.device_at(address)
        if device is None or TENSIX not in device.cores:
            what = f" ({device.name})" if device is not None else ""
            raise UndefinedBehavior(f"BabyRISCV/README.md memory map: {address:#010x}{what} is not made available "
                                    "to the Tensix coprocessor")
        region = core.region_at(address)
        assert region is not None, device.name
        return core, region

    def load(self, thread: int, address: int) -> int:
        core, region = self._target(thread, address)
        if region is None:
            return int.from_bytes(bytes(core.uc.mem_read(address, 4)), "little")
        return self._device(lambda: region.load(thread, address - region.base, 4))

    def store(self, thread: int, address: int, value: int) -> None:
        core, region = self._target(thread, address)
        if region is None:
            journal = self.tile.coprocessor.l1_journal
            if journal is not None:
                journal.append((address, bytes(core.uc.mem_read(address, 4))))
            core.uc.mem_write(address, value.to_bytes(4, "little"))
            return
        self._device(lambda: region.store(thread, address - region.base, 4, value))

    @staticmethod
    def _device(access: Callable[[], object]) -> int:
        try:
            return access()  # type: ignore[return-value]
        except Stall as stall:
            raise UnimplementedFunctionality(f"a Tensix access that waits ({stall}) is not modelled by tdbg") from None
