"""Undo records for ``reverse-stepi``: each single step keeps only what it can change.

Before a core executes one instruction, the instruction is classified:

* anything that only writes registers: the core's CPU context (under 1 KiB);
* a store (or AMO) to plain memory: also the bytes it will overwrite;
* an access to a device or a pushed Tensix instruction: also the coprocessor's state (Dst,
  SrcA/SrcB, config, RWCs, queues, semaphores, tile registers, the push count) and the L1 bytes
  the coprocessor overwrites during the step (packer, Scalar Unit: its ``l1_journal``, which
  also holds the local RAM words a ``STOREREG`` overwrites);
* a step of a core that waits while the others run (``scheduler-locking off``: ``widen``, when
  the wait begins), or a store to the tile registers (``SOFT_RESET_0`` holds and releases other
  cores): the whole tile.

Records are kept newest last within a memory budget (``History.budget`` bytes); the oldest are
dropped first.  Undoing a record puts back exactly what it saved.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tdbg.emu.code import PatchKind

if TYPE_CHECKING:
    from tdbg.emu.core import Core, CoreState
    from tdbg.emu.overlay import Snapshot as OverlaySnapshot
    from tdbg.emu.regions import Wait
    from tdbg.emu.tile import Checkpoint, Tile

_STORE, _LOAD, _AMO = 0x23, 0x03, 0x2F
_CORE_BYTES = 1200          # a CPU context and the core's bookkeeping, roughly


@dataclass(frozen=True)
class _Coprocessor:
    tensix: dict[str, object]
    coprocessor: dict[str, object]
    registers: dict[int, int]
    clock: int
    pushes: tuple[int, list[int]]
    exit_codes: dict[str, int]
    nius: list[tuple]                       # the NIUs' registers and counters
    noc_log: int
    overlay: OverlaySnapshot
    noc_writes: list[tuple[object, int, bytes]]   # (memory, address, bytes) NoC writes beyond the tile overwrote


@dataclass(frozen=True)
class StepRecord:
    """What one single step of ``core`` may change, as it was before the step."""

    core: str
    context: object
    completed_pc: int | None
    last_stop: object
    state: CoreState
    wait: Wait | None
    csrs: tuple[dict[int, int], int]
    clock: int                                  # the tile clock (a counter CSR read moves it)
    ram: tuple[int, bytes] | None = None        # (address, bytes a store overwrites)
    devices: _Coprocessor | None = None
    l1: list[tuple[int, bytes]] | None = None   # (address, bytes) the coprocessor overwrote, in order
    tile: Checkpoint | None = None              # the other cores ran too
    size: int = _CORE_BYTES


class History:
    """Undo records of single steps, within a memory budget."""

    DEFAULT_BUDGET = 64 << 20

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self._records: deque[StepRecord] = deque()
        self.bytes = 0
        self._journaling: Tile | None = None     # the tile whose coprocessor and NoC keep the step's journals

    def __len__(self) -> int:
        return len(self._records)

    def clear(self) -> None:
        self._records.clear()
        self.bytes = 0

    def record(self, tile: Tile, core: Core) -> StepRecord:
        """What the next instruction of ``core`` may change (``widen`` adds the whole tile when
        the other cores run during the step)."""
        base = dict(core=core.name, context=core.uc.context_save(), completed_pc=core.completed_pc,
                    last_stop=core.last_stop, state=core.state, wait=core.wait, csrs=core.csrs.snapshot(),
                    clock=tile.registers.clock)
        access = _access(tile, core)
        if access == "tile":
            cp = tile.checkpoint()
            return StepRecord(**base, tile=cp, size=len(cp.l1) + _coprocessor_bytes(tile))
        if access == "device":
            noc_writes: list[tuple[object, int, bytes]] = []
            snap = _Coprocessor(tile.tensix.snapshot(), tile.coprocessor.snapshot(), dict(tile.registers.values),
                                tile.registers.clock, (tile.pushes.total, list(tile.pushes.per_thread)),
                                dict(tile.exit_codes), [n.snapshot() for n in tile.noc.nius], len(tile.noc.log),
                                tile.overlay.snapshot(), noc_writes)
            journal: list[tuple[int, bytes]] = []
            tile.coprocessor.l1_journal = journal
            tile.noc.journal = noc_writes
            self._journaling = tile
            return StepRecord(**base, devices=snap, l1=journal, size=_CORE_BYTES + _coprocessor_bytes(tile))
        if access is not None:
            address, size = access
            try:
                old = bytes(core.uc.mem_read(address, size))
            except Exception:  # unmapped: the step will stop on it, nothing is written
                return StepRecord(**base)
            return StepRecord(**base, ram=(address, old), size=_CORE_BYTES + size)
        return StepRecord(**base)

    def widen(self, record: StepRecord, tile: Tile) -> StepRecord:
        """``record`` plus the whole tile as it is now: the stepped core began to wait (nothing
        of its instruction has happened) and the other cores are about to run in the step."""
        if record.tile is not None:
            return record
        cp = tile.checkpoint()
        return replace(record, tile=cp, size=record.size + len(cp.l1) + _coprocessor_bytes(tile))

    def push(self, record: StepRecord) -> None:
        if self._journaling is not None:  # the step is over: stop journaling its L1 writes
            self._journaling.coprocessor.l1_journal = None  # type: ignore[attr-defined]
            self._journaling.noc.journal = None  # type: ignore[attr-defined]
            self._journaling = None
        self._records.append(record)
        self.bytes += record.size
        while self.bytes > self.budget and len(self._records) > 1:
            self.bytes -= self._records.popleft().size

    def undo(self, tile: Tile) -> StepRecord:
        """Put the tile back as it was before the newest recorded step; returns that record."""
        record = self._records.pop()
        self.bytes -= record.size
        if record.tile is not None:
            tile.restore(record.tile)
        core = tile.cores[record.core]
        core.uc.context_restore(record.context)
        core.completed_pc, core.last_stop = record.completed_pc, record.last_stop
        core.state, core.wait = record.state, record.wait
        core.csrs.restore(record.csrs)
        tile.registers.clock = record.clock
        if record.ram is not None:
            address, old = record.ram
            core.uc.mem_write(address, old)
            if address < tile.profile.l1_size:
                for other in tile.cores.values():
                    other.uc.ctl_remove_cache(address, address + len(old))
        if record.devices is not None:
            d = record.devices
            tile.tensix.restore(d.tensix)
            tile.coprocessor.restore(d.coprocessor)
            tile.registers.values, tile.registers.clock = dict(d.registers), d.clock
            tile.pushes.truncate(*d.pushes)
            tile.exit_codes = dict(d.exit_codes)
            for niu, saved in zip(tile.noc.nius, d.nius):
                niu.restore(saved)
            del tile.noc.log[d.noc_log:]
            tile.overlay.restore(d.overlay)
            for memory, address, old in reversed(d.noc_writes):
                memory.write(address, old)  # type: ignore[attr-defined]
            for address, old in reversed(record.l1 or []):
                if address >= tile.profile.l1_size:  # a local RAM the coprocessor wrote (STOREREG)
                    core.uc.mem_write(address, old)
                    continue
                tile.tensix.l1[address:address + len(old)] = memoryview(old)
                for other in tile.cores.values():
                    other.uc.ctl_remove_cache(address, address + len(old))
        core.uc.ctl_remove_cache(core.pc, core.pc + 4)
        return record


def _coprocessor_bytes(tile: Tile) -> int:
    """Roughly what a copy of the coprocessor's arrays takes."""
    t = tile.tensix
    return sum(a.nbytes for a in (t.dst.bits, t.srca.data, t.srcb.data, t.config.config, t.config.thread_config)) + 4096


def _access(tile: Tile, core: Core) -> str | tuple[int, int] | None:
    """What memory the instruction at ``core.pc`` touches: "device" (a device access or a
    pushed Tensix instruction), "tile" (a store to the tile registers), (address, size) for a
    store to plain memory, or None."""
    pc = core.pc
    patch = tile.code.at.get(pc)
    if patch is not None and patch.kind is PatchKind.TTINSN:
        return "device"
    try:
        word = int.from_bytes(bytes(core.uc.mem_read(pc, 4)), "little")
    except Exception:
        return None
    opcode = word & 0x7F
    if opcode not in (_STORE, _LOAD, _AMO):
        return None
    base = core.reg((word >> 15) & 0x1F)
    if opcode == _STORE:
        offset = ((word >> 25) << 5) | ((word >> 7) & 0x1F)
    elif opcode == _LOAD:
        offset = word >> 20
    else:
        offset = 0
    offset -= (offset & 0x800) << 1          # sign-extend the 12-bit immediate
    address = (base + offset) & 0xFFFF_FFFF
    size = 4 if opcode == _AMO else 1 << ((word >> 12) & 3)
    region = core.region_at(address)
    if region is not None:
        return "tile" if opcode != _LOAD and region.load == tile.registers.load else "device"
    low = address & -size   # a misaligned store may write the aligned word too (rounded down)
    return (low, address + size - low) if opcode != _LOAD else None
