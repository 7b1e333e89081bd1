"""LOADREG, STOREREG and PACR_SETREG: Tensix instructions that reach the tile's MMIO devices
(LOADREG.md, STOREREG.md, PACR_SETREG.md, TDMA-RISC.md, the BlackholeA0 BabyRISCV/README.md
memory map).  Expected values are worked by hand from those pages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg.emu.stops import StopKind
from tdbg.emu.tile import Tile
from tdbg.session import Session
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior, UnimplementedFunctionality
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode


def reg_addr(address: int) -> int:
    """LOADREG.md / STOREREG.md: Addr = 0xFFB00000 + (AddrLo << 2)."""
    return (address - 0xFFB0_0000) >> 2


@pytest.fixture
def tile() -> Tile:
    return Tile()


def loadreg(tile: Tile, thread: int, gpr: int, address: int) -> None:
    tile.coprocessor.push(thread, encode("LOADREG", TdmaDataRegIndex=gpr, RegAddr=reg_addr(address)))


def storereg(tile: Tile, thread: int, gpr: int, address: int) -> None:
    tile.coprocessor.push(thread, encode("STOREREG", TdmaDataRegIndex=gpr, RegAddr=reg_addr(address)))


def test_storereg_then_loadreg_round_trip_a_tile_register(tile: Tile) -> None:
    tile.tensix.gprs[1, 5] = 0x0001_2340
    storereg(tile, 1, 5, 0xFFB1_2228)               # TRISC0_RESET_PC (rw)
    assert tile.registers.value("TRISC0_RESET_PC") == 0x0001_2340
    loadreg(tile, 2, 9, 0xFFB1_2228)
    assert int(tile.tensix.gprs[2, 9]) == 0x0001_2340
    assert int(tile.tensix.gprs[1, 9]) == 0                    # the issuing thread's GPRs only


def test_storereg_has_the_riscv_stores_effect(tile: Tile) -> None:
    tile.tensix.gprs[0, 0] = 1 << 11
    storereg(tile, 0, 0, 0xFFB1_2068)               # DBG_FEATURE_DISABLE: bit 11 (Dst.md)
    assert tile.tensix.dst.feature_disable == 1 << 11


def test_loadreg_reads_the_wall_clock_as_a_core_does(tile: Tile) -> None:
    # TileRegisters: a WALL_CLOCK_0 read costs one microsecond at 1.35 GHz = 1350 ticks.
    loadreg(tile, 0, 3, 0xFFB1_21F0)
    loadreg(tile, 0, 4, 0xFFB1_21F0)
    assert (int(tile.tensix.gprs[0, 3]), int(tile.tensix.gprs[0, 4])) == (1350, 2700)


def test_wall_clock_high_half_latched_by_the_low_read(tile: Tile) -> None:
    # DebugTimestamper.md: a WALL_CLOCK_L read latches counter_high_at, which WALL_CLOCK_H
    # (0x1F8, Blackhole's WALL_CLOCK_1_AT) returns; 0x1F4 is the live high half.
    tile.registers.clock = 0xFFFF_FF00
    loadreg(tile, 0, 3, 0xFFB1_21F0)                # 0xFFFF_FF00 + 1350 = 0x1_0000_0446
    assert int(tile.tensix.gprs[0, 3]) == 0x446
    tile.registers.clock = 2 << 32
    loadreg(tile, 0, 4, 0xFFB1_21F8)
    loadreg(tile, 0, 5, 0xFFB1_21F4)
    assert (int(tile.tensix.gprs[0, 4]), int(tile.tensix.gprs[0, 5])) == (1, 2)


def test_local_ram_slow_path_is_the_cores_ram(tile: Tile) -> None:
    tile.tensix.gprs[2, 7] = 0xCAFE_F00D
    storereg(tile, 2, 7, 0xFFB1_8010)               # T0's local data RAM + 0x10 (slow access path)
    t0 = tile.cores["T0"]
    assert bytes(t0.uc.mem_read(0xFFB0_0010, 4)) == (0xCAFE_F00D).to_bytes(4, "little")
    loadreg(tile, 1, 8, 0xFFB1_9010)                # the same 4 KiB seen again at +0x1000
    assert int(tile.tensix.gprs[1, 8]) == 0xCAFE_F00D


def test_below_0xffb11000_is_undefined(tile: Tile) -> None:
    with pytest.raises(UndefinedBehavior, match="below 0xFFB11000"):
        loadreg(tile, 0, 0, 0xFFB1_0FFC)
    with pytest.raises(UndefinedBehavior, match="below 0xFFB11000"):
        storereg(tile, 0, 0, 0xFFB0_0000)


def test_devices_the_coprocessor_does_not_see_are_undefined(tile: Tile) -> None:
    # BlackholeA0 memory map, "NoC" column: TDMA-RISC, MOP config and Dst window are Unmapped.
    for address, name in ((0xFFB1_1038, "TDMA-RISC"), (0xFFB8_0000, "MOP expander"), (0xFFBD_8000, "Dst window")):
        with pytest.raises(UndefinedBehavior, match=name):
            loadreg(tile, 0, 0, address)
    with pytest.raises(UndefinedBehavior, match="not made available"):
        storereg(tile, 0, 0, 0xFFBE_0000)


def test_unmodelled_device_is_a_named_stop(tile: Tile) -> None:
    with pytest.raises(UnimplementedFunctionality, match="stream 0 register 0 is not modelled"):
        storereg(tile, 0, 0, 0xFFB4_0000)
    with pytest.raises(UnimplementedFunctionality, match="PIC registers"):
        loadreg(tile, 0, 0, 0xFFB1_3000)


def test_a_coprocessor_alone_reaches_no_device() -> None:
    cop = Coprocessor(TensixState())
    with pytest.raises(UnimplementedFunctionality, match="no tile devices"):
        cop.push(0, encode("LOADREG", TdmaDataRegIndex=0, RegAddr=reg_addr(0xFFB1_2228)))


# -- TDMA-RISC (RISC-V side) and PACR_SETREG ---------------------------------------------------

def tdma_store(tile: Tile, offset: int, value: int) -> None:
    """A RISC-V sw to RISCV_TDMA_REGS_START_ADDR + offset, through T2's handler."""
    region = tile.cores["T2"].region_at(0xFFB1_1000 + offset)
    assert region is not None and region.name == "TDMA-RISC registers"
    region.store(offset, 4, value)


def tdma_load(tile: Tile, offset: int) -> int:
    region = tile.cores["T2"].region_at(0xFFB1_1000 + offset)
    assert region is not None
    return region.load(offset, 4)


# SetPackRegAddr: mid0 = 0x8A, hi0 = 0 -> SetRegBase[0] = 0x228;
# mid1 = 0x3FF, hi1 = 3 -> SetRegBase[1] = (3 << 18) + (0x3FF << 2) = 0xC0FFC.
PACK_REG_ADDR = 0x8A | 0x3FF << 10 | 0 << 20 | 3 << 22
# SetScaler(0, v): Scaler[0..2] = 3, 0x1FF, 0x100; SetScaler(3, v): Scaler[3] = v >> 16 = 7.
SCALER_0 = 3 | 0x1FF << 9 | 0x100 << 18
HYST = 7 << 16 | 0x1234


def configure(tile: Tile) -> None:
    tdma_store(tile, 0x038, PACK_REG_ADDR)
    tdma_store(tile, 0x03C, SCALER_0)
    tdma_store(tile, 0x028, HYST)


def test_tdma_risc_registers_set_the_packer_state(tile: Tile) -> None:
    configure(tile)
    p = tile.tensix.packer
    assert p.set_reg_base == [0x228, 0xC0FFC]
    assert p.set_reg_hi_scaler == [3, 0x1FF, 0x100, 7]
    assert tdma_load(tile, 0x028) == 0x0007_0034            # Scaler2Raw = v & 0x01ff007f
    assert tdma_load(tile, 0x03C) == SCALER_0 == tdma_load(tile, 0x13C)
    tdma_store(tile, 0x024, 0xFFFF_FFFF)                     # CLK_GATE_EN, as Blackhole firmware boots
    assert tdma_load(tile, 0x024) == 0xFFFF_FF7F             # UnpackRegAddrRaw = v & 0xffffff7f
    assert p.set_reg_base == [0x228, 0xC0FFC]                # the packer's registers untouched
    with pytest.raises(UnimplementedFunctionality, match="TDMA-RISC"):
        tdma_load(tile, 0x038)                               # MetadataFIFOStatus
    with pytest.raises(UnimplementedFunctionality, match="TDMA-RISC"):
        tdma_store(tile, 0x010, 0x40)                        # the mover's command queue


def setreg(tile: Tile, thread: int = 2, **fields: int) -> None:
    f = dict(Push=1, Flush=1, AddrSel=0, StreamId=0x12) | fields
    tile.coprocessor.push(thread, encode("PACR_SETREG", **f))


# Value10 = 0x3FF: ValueHi = 1023 * Scaler[fmt & 3]; Value32 = 0x3FF + ((ValueHi & 0x1FFFF) << 12)
#   0: 1023 * 3     = 0x00BFD   -> 0x00BFD3FF
#   1: 1023 * 511   = 0x7FA01   -> & 0x1FFFF = 0x1FA01 -> 0x1FA013FF
#   2: 1023 * 256   = 0x3FF00   -> & 0x1FFFF = 0x1FF00 -> 0x1FF003FF
#   3: 1023 * 7     = 0x01BF9   -> 0x01BF93FF
@pytest.mark.parametrize("out_fmt, value", [(0x0, 0x00BF_D3FF), (0x5, 0x1FA0_13FF), (0xA, 0x1FF0_03FF), (0xF, 0x01BF_93FF)])
def test_pacr_setreg_address_and_value(tile: Tile, out_fmt: int, value: int) -> None:
    configure(tile)
    tile.tensix.config.set("THCON_SEC0_REG1_Out_data_format", out_fmt, thread=2)
    # Addr = 0xFFB00000 + SetRegBase[0] (0x228) + (0x12 << 12) = 0xFFB12228: TRISC0_RESET_PC
    setreg(tile, Unused=0x3FF)
    assert tile.registers.value("TRISC0_RESET_PC") == value


def test_pacr_setreg_drops_writes_at_0xffb80000_and_up(tile: Tile) -> None:
    configure(tile)
    before = dict(tile.registers.values)
    setreg(tile, AddrSel=1, StreamId=0, Unused=5)      # 0xFFB00000 + 0xC0FFC = 0xFFBC0FFC: dropped
    assert tile.registers.values == before


def test_pacr_setreg_below_0xffb11000_is_undefined(tile: Tile) -> None:
    configure(tile)
    with pytest.raises(UndefinedBehavior, match="below 0xFFB11000"):
        setreg(tile, StreamId=0)                         # 0xFFB00228


def test_pacr_setreg_blackhole_forms_without_a_page(tile: Tile) -> None:
    configure(tile)
    for fields in ({"ModeSel": 1}, {"AddrSel": 2}, {"Push": 0}, {"Flush": 0}):
        with pytest.raises(MissingSpecification):
            setreg(tile, **fields)


def test_firmware_drives_them_through_its_own_local_ram() -> None:
    s = Session(Path(__file__).parent / "firmware" / "mmioreg.c")
    assert s.cont().kind is StopKind.EXITED
    got = np.frombuffer(s.read_memory(s.symbol("result").addr, 12), dtype="<u4").tolist()
    # STOREREG's GPR; LOADREG of the word the core wrote; PACR_SETREG with Out_data_format 0:
    # 0x155 + (((0x155 * 2) & 0x1FFFF) << 12) = 0x155 + 0x2AA000
    assert got == [0xCAFE_F00D, 0x1234_5678, 0x002A_A155]


def test_reverse_stepi_undoes_a_storereg_into_local_ram() -> None:
    s = Session(Path(__file__).parent / "firmware" / "mmioreg.c")
    s.break_at(min(s.image.ttinsn))                # the STOREREG push
    assert s.cont().kind is StopKind.BREAKPOINT
    s.stepi()
    assert s.read_memory(0xFFB1_8100, 4) == (0xCAFE_F00D).to_bytes(4, "little")
    s.reverse_stepi()
    assert s.read_memory(0xFFB1_8100, 4) == bytes(4)
