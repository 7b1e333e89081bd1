"""The tile control / debug / status registers (``RISCV_DEBUG_REGS_START_ADDR``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.arch.profile import CoreSpec
from tdbg.emu.devices.device import WordRegisters
from tdbg.tensix.state_description import StateDescription, obj, value
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.tile import Tile


class TileRegisters(WordRegisters):
    """The registers the profile lists (TileControlDebugStatus.md; offsets and reset values from
    bh_cfg_fields.json ``tile_regs``).

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

    pollable = True

    def __init__(self, tile: Tile, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.tile = tile
        profile = tile.profile
        self._by_offset = {r.offset: r for r in profile.tile_registers}
        self._offset = {r.name: r.offset for r in profile.tile_registers}
        self.values: dict[int, int] = {}
        self.clock = 0
        TileRegisters.STATE.reset(self)

    #: The registers' values (the table's reset values, else 0) and the tile clock.
    STATE = StateDescription("tile registers", (
        obj("values", reset=lambda r: {reg.offset: reg.reset or 0 for reg in r.tile.profile.tile_registers}, copy=dict),
        value("clock", reset=0),
    ))

    def value(self, name: str) -> int:
        return self.values[self._offset[name]]

    def set(self, name: str, value: int) -> None:
        """Write a register as the host or the debugger does (no core is running)."""
        self._write(self._offset[name], value)

    def word(self, core: Core, offset: int) -> int:
        reg = self._by_offset.get(offset)
        if reg is None:
            raise UnimplementedFunctionality(f"tile register at offset {offset:#x} is not modelled by tdbg")
        tensix = self.tile.tensix
        if reg.name == "DBG_FEATURE_DISABLE":
            return tensix.dst.feature_disable
        if reg.name == "CFGREG_RDDATA":
            return tensix.config.riscv_load((self.value("CFGREG_RD_CNTL") & 0x7FF) * 4, 4)
        if reg.name == "WALL_CLOCK_0":
            clock = self.cycles(True)
            self.values[self._offset["WALL_CLOCK_1_AT"]] = clock >> 32
            return clock & 0xFFFF_FFFF
        if reg.name == "WALL_CLOCK_1":
            return self.cycles(False) >> 32
        if reg.name == "INSTRN_BUF_STATUS":
            cop, capacity = self.tile.coprocessor, self.tile.profile.tensix.wait_gate_capacity
            queued = [cop.queued(t) for t in range(self.tile.profile.tensix.threads)]
            return (sum((q < capacity) << t for t, q in enumerate(queued))
                    | sum((not q) << (4 + t) for t, q in enumerate(queued)))
        if reg.access == "wo":
            raise UndefinedBehavior(f"TileControlDebugStatus.md: {reg.name} is write-only")
        return self.values[offset]

    def cycles(self, advance: bool) -> int:
        """The tile clock, in RISC-V cycles; ``advance``: a read of a low counter half, which
        costs a microsecond of tile time."""
        if advance:
            self.clock += self.tile.profile.clock_hz // 1_000_000
        return self.clock

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UnimplementedFunctionality(f"{size}-byte store to tile register {offset:#x} is not modelled by tdbg")
        reg = self._by_offset.get(offset)
        if reg is None:
            raise UnimplementedFunctionality(f"tile register at offset {offset:#x} is not modelled by tdbg")
        if reg.access == "ro":
            raise UndefinedBehavior(f"TileControlDebugStatus.md: {reg.name} is read-only")
        self._write(offset, value)

    def _write(self, offset: int, value: int) -> None:
        if offset == self._offset["DBG_FEATURE_DISABLE"]:
            self.tile.tensix.dst.feature_disable = value
        old = self.values.get(offset, 0)
        self.values[offset] = value
        if offset == self._offset["SOFT_RESET_0"]:
            self.tile.soft_reset_changed(old, value)

    def reset_pc(self, spec: CoreSpec) -> int | None:
        """The PC a T core or NC starts at when released, if its override bit gives one."""
        if spec.reset_pc_reg is None or spec.reset_pc_override is None:
            return None
        register, bit = spec.reset_pc_override
        if not self.values[register] >> bit & 1:
            return None
        return self.values[spec.reset_pc_reg]
