"""The TDMA-RISC registers that configure ``PACR_SETREG`` (``Packers.SetRegBase`` /
``SetRegHiScaler``, kept in the packers' state), as a RISC-V core reads and writes them.

Implements WormholeB0 ``TensixTile/TDMA-RISC.md`` "Addresses primarily related to
``PACR_SETREG`` and ``UNPACR_NOP`` configuration" (``SetScaler``, ``ScalarsAndStatus``,
``SetPackRegAddr``); offsets (the profile's, by name) are from ``RISCV_TDMA_REGS_START_ADDR``:

* ``0x024`` ``RISCV_TDMA_REG_CLK_GATE_EN``: write ``UnpackRegAddrRaw = v & 0xffffff7f``; read
  it.  The page's ``SetUnpackRegAddr`` configures only ``UNPACR_NOP``'s register-write form,
  which tdbg does not model (so nothing observes it); on Blackhole the register is clock-gating
  enable (tt-metal's blackhole ``tensix.h``), which Tenstorrent's firmware writes at boot and
  ttsim v1.10.0 accepts with no effect (tile.cpp:945);
* ``0x028`` ``RISCV_TDMA_REG_CLK_GATE_HYST``: write ``Scaler2Raw = v & 0x01ff007f``,
  ``SetScaler(3, v)``; read ``Scaler2Raw``;
* ``0x03C`` and ``0x13C``: write ``SetScaler(0, v)`` (both, as the page's table says); read
  ``ScalarsAndStatus(0)`` / ``(1)``: ``SetRegHiScaler[0..2]`` in bits 26:0; the packer-busy bits
  27-30 are clear (a ``PACR`` finishes when it executes); bit 31 is ``SetRegAcc`` bit 16, which
  stays zero (its only writer, ``UNPACR_NOP``'s register-write form, is not modelled);
* ``0x038`` ``RISCV_TDMA_REG_FIFO_PACKED_TILE_STATUS``: write ``SetPackRegAddr(v)``.

Blackhole: ttsim v1.10.0 models none of these (its Blackhole ``tile_regs.json`` names offsets
``0x28`` ``clk_gate_hyst`` and ``0x38`` ``fifo_packed_tile_status`` as on Wormhole, marks them
unsupported, and lists no ``0x3C``); tdbg follows the Wormhole page.  Every other offset
(the mover command queue, packed tile sizes, the metadata FIFOs, ``0x038``'s read) raises
``UnimplementedFunctionality``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.device import WordRegisters
from tdbg.tensix.events import UnimplementedFunctionality
from tdbg.tensix.packers import PackerState

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.tensix.state import TensixState


def _unmodelled(offset: int, what: str) -> UnimplementedFunctionality:
    return UnimplementedFunctionality(f"TDMA-RISC registers: {what} at offset {offset:#x} is not modelled by tdbg")


def set_scaler(p: PackerState, starting_index: int, values: int) -> None:
    """``SetScaler`` (TDMA-RISC.md)."""
    if starting_index == 3:
        values >>= 16
    for i in range(min(3, 4 - starting_index)):
        p.set_reg_hi_scaler[starting_index + i] = values & 0x1FF
        values >>= 9


def set_pack_reg_addr(p: PackerState, value: int) -> None:
    """``SetPackRegAddr`` (TDMA-RISC.md): ``SetRegBase[i] = (hi << 18) + (mid << 2)``."""
    for i in range(2):
        mid, hi = (value >> (10 * i)) & 0x3FF, (value >> (20 + 2 * i)) & 3
        p.set_reg_base[i] = (hi << 18) + (mid << 2)


class TdmaRisc(WordRegisters):
    """The registers above, on the tile's packer state (module docstring)."""

    pollable = True

    def __init__(self, state: TensixState, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.state = state
        regs = spec.registers
        self.clk_gate_hyst, self.fifo_packed_tile_status = regs["CLK_GATE_HYST"], regs["FIFO_PACKED_TILE_STATUS"]
        self.clk_gate_en = regs["CLK_GATE_EN"]
        self.scalers = (regs["SCALER_0"], regs["SCALER_1"])

    def word(self, core: Core, offset: int) -> int:
        p = self.state.packer
        if offset == self.clk_gate_en:
            return p.unpack_reg_addr_raw
        if offset == self.clk_gate_hyst:
            return p.scaler2_raw
        if offset in self.scalers:
            return sum(p.set_reg_hi_scaler[i] << (9 * i) for i in range(3))
        raise _unmodelled(offset, "the read")

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UnimplementedFunctionality(f"{size}-byte store to TDMA-RISC register {offset:#x} is not modelled by tdbg")
        p = self.state.packer
        if offset == self.clk_gate_en:
            p.unpack_reg_addr_raw = value & 0xFFFFFF7F
        elif offset == self.clk_gate_hyst:
            p.scaler2_raw = value & 0x01FF007F
            set_scaler(p, 3, value)
        elif offset in self.scalers:
            set_scaler(p, 0, value)
        elif offset == self.fifo_packed_tile_status:
            set_pack_reg_addr(p, value)
        else:
            raise _unmodelled(offset, "the write")
