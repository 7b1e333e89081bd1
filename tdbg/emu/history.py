"""Undo records for ``reverse-stepi``: each single step keeps only what it can change.

Before a core executes one instruction, the instruction is classified:

* anything that only writes registers: the core's state (``Core.STATE``: its CPU context, under
  1 KiB, and what the run knows of it) and the tile registers (the clock a counter read moves);
* a store (or AMO) to plain memory: also the bytes it will overwrite;
* an access to a device or a pushed Tensix instruction: also the tile's state but for L1, its
  code words and the other cores (``Tile.STATE`` for steps: the coprocessor, the devices, the
  NoC's log, the push log, the run model), the L1 bytes the coprocessor overwrites during the
  step (packer, Scalar Unit: its ``l1_journal``, which also holds the local RAM words a
  ``STOREREG`` overwrites) and the memory beyond the tile the NoC overwrites (its ``journal``);
* a step of a core that waits while the others run (``scheduler-locking off``: ``widen``, when
  the wait begins), or a store to the tile registers (``SOFT_RESET_0`` holds and releases other
  cores): the whole tile.

Records are kept newest last within a memory budget (``History.budget`` bytes); the oldest are
dropped first.  Undoing a record puts back exactly what it saved.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tdbg.tensix import state_description as state
from tdbg.emu.code_patches import PatchKind

if TYPE_CHECKING:
    from tdbg.arch.profile import Coord
    from tdbg.emu.core import Core
    from tdbg.emu.tile import Checkpoint, Tile

_STORE, _LOAD, _AMO = 0x23, 0x03, 0x2F


@dataclass(frozen=True)
class StepRecord:
    """What one single step of ``core`` may change, as it was before the step: the core
    (``Core.STATE`` for steps) and the tile registers (a counter CSR read moves the tile clock),
    and as the step's kind needs, the bytes a store overwrites, the devices and the coprocessor
    (``Tile.STATE`` for steps) with the journals of what the step writes to L1 and beyond the
    tile, or the whole tile."""

    core: str
    saved_core: dict[str, Any]
    registers: dict[str, Any]
    size: int
    ram: tuple[int, bytes] | None = None        # (address, bytes a store overwrites)
    devices: dict[str, Any] | None = None
    l1: list[tuple[int, bytes]] | None = None   # (address, bytes) the coprocessor overwrote, in order
    noc_writes: list[tuple[Coord, int, bytes]] | None = None   # (endpoint, address, bytes) NoC writes overwrote
    tile: Checkpoint | None = None              # the other cores ran too


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
        saved_core, registers = core.STATE.save(core, True), tile.registers.STATE.save(tile.registers, True)
        size = saved_core.nbytes + registers.nbytes
        base = dict(core=core.name, saved_core=saved_core, registers=registers)
        access = _access(tile, core)
        if access == "tile":
            cp = tile.checkpoint()
            return StepRecord(**base, tile=cp, size=size + cp.nbytes)
        if access == "device":
            devices = state.save(tile, steps=True)
            journal: list[tuple[int, bytes]] = []
            noc_writes: list[tuple[Coord, int, bytes]] = []
            tile.coprocessor.l1_journal = journal
            tile.noc.journal = noc_writes
            self._journaling = tile
            return StepRecord(**base, devices=devices, l1=journal, noc_writes=noc_writes,
                              size=size + devices.nbytes)
        if access is not None:
            address, length = access
            try:
                old = bytes(core.uc.mem_read(address, length))
            except Exception:  # unmapped: the step will stop on it, nothing is written
                return StepRecord(**base, size=size)
            return StepRecord(**base, ram=(address, old), size=size + length)
        return StepRecord(**base, size=size)

    def widen(self, record: StepRecord, tile: Tile) -> StepRecord:
        """``record`` plus the whole tile as it is now: the stepped core began to wait (nothing
        of its instruction has happened) and the other cores are about to run in the step."""
        if record.tile is not None:
            return record
        cp = tile.checkpoint()
        return replace(record, tile=cp, size=record.size + cp.nbytes)

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
        state.load(core, record.saved_core)
        state.load(tile.registers, record.registers)
        if record.ram is not None:
            address, old = record.ram
            core.uc.mem_write(address, old)
            if address < tile.profile.l1_size:
                for other in tile.cores.values():
                    if other.built:
                        other.uc.ctl_remove_cache(address, address + len(old))
        if record.devices is not None:
            state.load(tile, record.devices)
            for where, address, old in reversed(record.noc_writes or []):
                tile.noc.put_back(where, address, old)
            for address, old in reversed(record.l1 or []):
                if address >= tile.profile.l1_size:  # a local RAM the coprocessor wrote (STOREREG)
                    core.uc.mem_write(address, old)
                    continue
                tile.tensix.l1[address:address + len(old)] = memoryview(old)
                for other in tile.cores.values():
                    if other.built:
                        other.uc.ctl_remove_cache(address, address + len(old))
        core.uc.ctl_remove_cache(core.pc, core.pc + 4)
        return record


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
        return "tile" if opcode != _LOAD and region.device is tile.registers else "device"
    low = address & -size   # a misaligned store may write the aligned word too (rounded down)
    return (low, address + size - low) if opcode != _LOAD else None
