"""The address map.  First the profile's typed region table against BlackholeA0
``BabyRISCV/README.md`` "Memory map" (the page's rows, written out here by hand), then the
emulator against the profile at every edge of every region of every viewer's map: the last byte
in and the first byte out, mapped or unmapped, memory (which memory) or device (which device),
for each core and for the coprocessor / NoC column."""

from __future__ import annotations

import pytest
from unicorn import UC_PROT_EXEC, UC_PROT_READ

from tdbg.arch.blackhole import BLACKHOLE
from tdbg.arch.memory_map import TENSIX, Region, RegionKind
from tdbg.emu.core import Core
from tdbg.emu.devices.slow_path import SlowPath
from tdbg.emu.tile import Tile, Unreadable
from tdbg.tensix.events import UndefinedBehavior

B, T0, T1, T2, NC, NOC = "B", "T0", "T1", "T2", "NC", TENSIX
CORES = (B, T0, T1, T2, NC)

# The page's table: (first, last, {viewer: what}); what is "L1", "local RAM", "X slow path" or a
# device's name; a viewer not listed has the range unmapped.  (The PIC and its pc snapshot span
# 0xFFB1_3000..0xFFB1_314B; tdbg maps the PIC's whole 4 KiB page.)
PAGE = [
    (0x0000_0000, 0x0017_FFFF, dict.fromkeys((*CORES, NOC), "L1")),
    (0xFFB0_0000, 0xFFB0_0FFF, dict.fromkeys(CORES, "local RAM")),
    (0xFFB0_1000, 0xFFB0_1FFF, dict.fromkeys((B, NC), "local RAM")),
    (0xFFB1_1000, 0xFFB1_1FFF, dict.fromkeys((B, T0, T1, T2), "TDMA-RISC registers")),
    (0xFFB1_2000, 0xFFB1_2FFF, dict.fromkeys((*CORES, NOC), "debug registers")),
    (0xFFB1_3000, 0xFFB1_314B, dict.fromkeys((*CORES, NOC), "PIC registers")),
    (0xFFB1_4000, 0xFFB1_5FFF, dict.fromkeys((*CORES, NOC), "B slow path")),
    (0xFFB1_6000, 0xFFB1_7FFF, dict.fromkeys((*CORES, NOC), "NC slow path")),
    (0xFFB1_8000, 0xFFB1_9FFF, dict.fromkeys((*CORES, NOC), "T0 slow path")),
    (0xFFB1_A000, 0xFFB1_BFFF, dict.fromkeys((*CORES, NOC), "T1 slow path")),
    (0xFFB1_C000, 0xFFB1_DFFF, dict.fromkeys((*CORES, NOC), "T2 slow path")),
    (0xFFB2_0000, 0xFFB2_FFFF, dict.fromkeys((*CORES, NOC), "NoC 0 registers")),
    (0xFFB3_0000, 0xFFB3_FFFF, dict.fromkeys((*CORES, NOC), "NoC 1 registers")),
    (0xFFB4_0000, 0xFFB7_FFFF, dict.fromkeys((*CORES, NOC), "NoC overlay")),
    (0xFFB8_0000, 0xFFB8_0023, dict.fromkeys((T0, T1, T2), "MOP expander config")),
    (0xFFBD_8000, 0xFFBD_FFFF, dict.fromkeys((T0, T1, T2), "Dst window")),
    (0xFFE0_0000, 0xFFE0_0FFF, dict.fromkeys((B, T0, T1, T2), "Tensix GPRs")),
    (0xFFE4_0000, 0xFFE4_FFFF, dict.fromkeys((B, T0, T1, T2), "Tensix instruction push")),
    (0xFFE5_0000, 0xFFE5_FFFF, {B: "Tensix instruction push 1"}),
    (0xFFE6_0000, 0xFFE6_FFFF, {B: "Tensix instruction push 2"}),
    (0xFFE8_0000, 0xFFE8_FFFF, dict.fromkeys((B, T0, T1, T2), "PCBuf / TTSync / semaphores")),
    (0xFFE9_0000, 0xFFE9_FFFF, {B: "PCBuf 1"}),
    (0xFFEA_0000, 0xFFEA_FFFF, {B: "PCBuf 2"}),
    (0xFFEC_0000, 0xFFEC_3FFF, dict.fromkeys((B, T0, T1, T2), "mailboxes")),
    (0xFFEF_0000, 0xFFEF_FFFF, dict.fromkeys((B, T0, T1, T2), "Tensix backend configuration")),
]
# The page's "Local Data RAM": 8 KiB for B and NC, 4 KiB for T0-T2.
LOCAL_RAM = {B: 0x2000, NC: 0x2000, T0: 0x1000, T1: 0x1000, T2: 0x1000}


def _what(region: Region | None) -> str | None:
    if region is None:
        return None
    if region.kind is RegionKind.SLOW_PATH:
        return f"{region.owner} slow path"
    return region.name


@pytest.mark.parametrize("first, last, seen", PAGE, ids=[f"{row[0]:#x}" for row in PAGE])
def test_the_profile_draws_the_pages_map(first: int, last: int, seen: dict[str, str]) -> None:
    for viewer in (*CORES, NOC):
        for address in (first, last):
            assert _what(BLACKHOLE.map.region_at(viewer, address)) == seen.get(viewer), (viewer, hex(address))


def test_local_rams_are_the_pages_sizes() -> None:
    for core, size in LOCAL_RAM.items():
        own = BLACKHOLE.map.region_at(core, BLACKHOLE.local_ram_base)
        assert own is not None and own.size == size == BLACKHOLE.core(core).local_ram_size
        assert BLACKHOLE.map.region_at(core, BLACKHOLE.local_ram_base + size) is None
    assert BLACKHOLE.map.region_at(T0, 0x0018_0000) is None           # L1 ends at 1536 KiB


# -- the emulator against the profile, edge by edge ------------------------------------------------

@pytest.fixture(scope="module")
def tile() -> Tile:
    return Tile()


def _edges(region: Region, step: int) -> list[int]:
    """The first and last ``step``-aligned units in the region, and the ones just outside."""
    return [a for a in (region.base, region.end - step, region.base - step, region.end) if 0 <= a < 1 << 32]


def _memory_of(tile: Tile, core: Core, region: Region, address: int) -> tuple[object, int]:
    """The buffer and offset a plain-memory address of ``region`` is, as the profile says."""
    if region.kind is RegionKind.L1:
        return memoryview(tile.l1).cast("B"), address
    owner = tile.cores[region.owner].local_ram  # type: ignore[index]
    return memoryview(owner).cast("B"), (address - region.base) % region.ram_size


def _check_core(tile: Tile, core: Core, address: int) -> None:
    expected = BLACKHOLE.map.region_at(core.name, address)
    port = core.region_at(address)
    prot = next((p for lo, hi, p in core.uc.mem_regions() if lo <= address <= hi), 0)
    where = f"{core.name} {address:#010x}"
    if expected is None:
        assert port is None and not prot & UC_PROT_READ, where
        with pytest.raises(Unreadable):
            tile.read(core, address, 1)
    elif expected.kind is RegionKind.DEVICE:
        assert port is not None and port.name == expected.name, where
        assert port.device is tile.devices[expected.name], where
    else:
        if expected.kind is RegionKind.SLOW_PATH:   # mapped when first reached (Core.reach)
            memory, offset = _memory_of(tile, core, expected, address)
            assert tile.read(core, address, 1) == bytes([memory[offset]]), where
            prot = next((p for lo, hi, p in core.uc.mem_regions() if lo <= address <= hi), 0)
        assert port is None and prot & UC_PROT_READ, where
        assert bool(prot & UC_PROT_EXEC) == expected.executable, where
        memory, offset = _memory_of(tile, core, expected, address)
        old = memory[offset]
        core.uc.mem_write(address, bytes([old ^ 0xA5]))     # a store at the address lands there
        try:
            assert memory[offset] == old ^ 0xA5, where
        finally:
            memory[offset] = old


@pytest.mark.parametrize("viewer", CORES)
def test_every_region_edge_of_every_core(tile: Tile, viewer: str) -> None:
    core = tile.cores[viewer]
    for region in BLACKHOLE.map.regions(viewer):
        for address in _edges(region, 1):
            _check_core(tile, core, address)


def test_every_region_edge_of_the_coprocessor(tile: Tile) -> None:
    """The NoC column: what a NoC request (or LOADREG, STOREREG, PACR_SETREG) at this tile
    reaches, a 4-byte register at a time."""
    port = tile.coprocessor.mmio
    for region in BLACKHOLE.map.regions(NOC):
        for address in _edges(region, 4):
            expected = BLACKHOLE.map.region_at(NOC, address)
            where = f"{address:#010x}"
            if expected is not None and expected.kind is RegionKind.L1:
                memoryview(tile.l1).cast("B")[address] = 0x5A
                assert tile.noc.read(BLACKHOLE.noc.tile, address, 1) == b"\x5a", where
                continue
            if expected is None:
                if address >= BLACKHOLE.l1_size:
                    with pytest.raises(UndefinedBehavior, match="not made available"):
                        port.load(0, address)
                continue
            target, offset = port._target(address)
            assert offset == address - expected.base, where
            if expected.kind is RegionKind.DEVICE:
                assert target is tile.devices[expected.name], where
            else:
                assert isinstance(target, SlowPath) and target.region == expected, where
                ram = memoryview(tile.cores[expected.owner].local_ram).cast("B")  # type: ignore[index]
                ram[offset % expected.ram_size] = 0x3C
                assert port.load(0, address) & 0xFF == 0x3C, where


def test_a_slow_access_window_is_mapped_when_a_core_first_reaches_it() -> None:
    """BRISC loads a word of T0's local RAM through T0's slow-access window (0xFFB18000), stores
    it to L1 and to two more words of T0's RAM through the window: the window is unmapped until
    the load (Core.reach), and the words are T0's RAM's."""
    import struct
    from tdbg.session import Session

    port = Session.on_chip("1x2").host_port
    tile = port.grid.tiles[(1, 2)]
    b, t0 = tile.cores["B"], tile.cores["T0"]
    memoryview(t0.local_ram).cast("B")[0x10:0x14] = struct.pack("<I", 0xCAFE_F00D)
    words = (0xFFB182B7,    # lui  t0, 0xffb18
             0x0102A303,    # lw   t1, 0x10(t0)
             0x10602023,    # sw   t1, 0x100(zero)
             0x0262A023,    # sw   t1, 0x20(t0)
             0x7E62A023,    # sw   t1, 0x7e0(t0)
             0x0000006F)    # j    .
    port.write((1, 2), 0, struct.pack(f"<{len(words)}I", *words))
    assert not any(lo <= 0xFFB18010 <= hi for lo, hi, _ in b.uc.mem_regions())
    port.write((1, 2), 0xFFB121B0, struct.pack("<I", 0x47800 & ~(1 << 11)))     # BRISC released
    assert port.read((1, 2), 0x100, 4) == struct.pack("<I", 0xCAFE_F00D)
    ram = bytes(t0.local_ram)
    assert ram[0x20:0x24] == ram[0x7E0:0x7E4] == struct.pack("<I", 0xCAFE_F00D)
    assert any(lo <= 0xFFB18010 <= hi for lo, hi, _ in b.uc.mem_regions())
