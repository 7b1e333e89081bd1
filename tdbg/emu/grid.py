"""A chip's grid of Tensix tiles (``tdbg.arch.chips.Chip``), each modelled whole when it runs.

A tile costs next to nothing until a host releases one of its cores from reset: until then it is
``Dormant``, its L1 memory that costs what is written (``SparseMemory``) and the words stored to
its devices kept in order.  Released, it becomes a ``Tile`` (about 20 MB and 20 ms, measured
here): the L1 bytes copied in, the device stores replayed, its cores running L1 as the host wrote
it (``Tile.hosted``).  Every tile's NoC reaches the others through the grid (``Noc.fabric``) and
shares one set of DRAM channels; what the host writes to an endpoint tdbg does not model (PCIe,
ARC, Ethernet, a router) is kept as memory and read back as written (``kept``).

Run model: the tiles that can run (``runnable``) each run until all their cores wait or are done,
round after round, until none can (``tdbg.debug.hostport``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tdbg.arch.chips import Chip
from tdbg.arch.profile import Coord, Profile
from tdbg.emu.noc import LocalTile, SparseMemory
from tdbg.emu.stops import Stop, StopKind
from tdbg.emu.tile import Tile
from tdbg.tensix.events import UndefinedBehavior

_MAP = "NoC/MemoryMap.md"


@dataclass
class Dormant:
    """A tile no host has released: its L1 and its device stores (address, value), in order."""

    l1: SparseMemory
    stores: list[tuple[int, int]] = field(default_factory=list)

    def local(self) -> LocalTile:
        def load(address: int) -> int:
            return next((v for a, v in reversed(self.stores) if a == address), 0)

        return LocalTile(self.l1.read, lambda address, data, transfer: self.l1.write(address, data), load,
                         lambda address, value: self.stores.append((address, value)))


class Grid:
    """Every Tensix tile of ``chip``, the DRAM channels and the endpoints kept as memory."""

    def __init__(self, profile: Profile, chip: Chip) -> None:
        self.profile, self.chip = profile, chip
        self.tiles: dict[Coord, Tile] = {}
        self.dormant: dict[Coord, Dormant] = {}
        self.dram: dict[int, SparseMemory] = {}
        self.kept: dict[Coord, SparseMemory] = {}
        self.soft_reset = profile.register("SOFT_RESET_0")
        self.soft_reset_address = profile.devices_of("tile registers")[0].base + self.soft_reset.offset
        self.all_cores = sum(1 << c.soft_reset_bit for c in profile.cores)

    # -- endpoints --------------------------------------------------------------------------------
    def local(self, where: Coord) -> LocalTile:
        """The Tensix tile at ``where`` as the NoC reaches it."""
        tile = self.tiles.get(where)
        if tile is not None:
            return tile.local
        return self.dormant.setdefault(where, Dormant(SparseMemory(self.profile.l1_size))).local()

    def _memory(self, where: Coord, address: int, n: int) -> SparseMemory:
        """DRAM, or the memory kept for an endpoint tdbg does not model."""
        channel = self.chip.noc.dram.get(where)
        if channel is not None:
            memory = self.dram.setdefault(channel, SparseMemory(self.chip.noc.dram_channel_size))
        else:
            memory = self.kept.setdefault(where, SparseMemory(1 << 64))
        if address + n > memory.size:
            raise UndefinedBehavior(f"{_MAP}: {n} bytes at {address:#x} are past the endpoint at "
                                    f"{where[0]},{where[1]} ({memory.size:#x} bytes)")
        return memory

    def write(self, where: Coord, address: int, data: bytes) -> None:
        """The host writes ``data`` at ``where``: a tile's L1 or devices as a NoC write would
        (a store to ``SOFT_RESET_0`` that releases a core wakes the tile first), DRAM, or kept."""
        if where not in self.chip.noc.tensix:
            self._memory(where, address, len(data)).write(address, data)
            return
        if (address == self.soft_reset_address and len(data) == 4 and where not in self.tiles
                and ~int.from_bytes(data, "little") & self.all_cores):
            self.wake(where)
        tile = self.tiles.get(where)
        if tile is not None:
            if address < self.profile.l1_size:
                tile.host_overwrites(address, address + len(data))
            tile.noc.write(where, address, data, tile.noc.host_transfer(len(data)))
            if address < self.profile.l1_size:
                tile.host_wrote(address, data)
            return
        self._dormant_write(where, address, data)

    def write_code(self, where: Coord, address: int, data: bytes, text: int, core: str | None = None) -> None:
        """The host writes a binary at ``where``: its first ``text`` bytes code (the tile is
        modelled from now on: code needs the tile's classification of its words), the rest data;
        ``core``: the core it is for (``Tile.load_code``)."""
        tile = self.wake(where)
        tile.load_code(address, data[:text], core)
        if len(data) > text:
            self.write(where, address + text, data[text:])

    def _dormant_write(self, where: Coord, address: int, data: bytes) -> None:
        local = self.local(where)
        if address + len(data) <= self.profile.l1_size:
            local.write_l1(address, data, None)   # type: ignore[arg-type]
        elif len(data) % 4 == 0 and not address & 3:
            for i in range(0, len(data), 4):
                local.store_mmio(address + i, int.from_bytes(data[i:i + 4], "little"))
        else:
            raise UndefinedBehavior(f"{_MAP}: only 4-byte aligned words reach a device "
                                    f"({len(data)} bytes at {address:#x} in tile {where[0]},{where[1]})")

    def read(self, where: Coord, address: int, n: int) -> bytes:
        if where not in self.chip.noc.tensix:
            return self._memory(where, address, n).read(address, n)
        tile = self.tiles.get(where)
        if tile is not None:
            if address + n <= self.profile.l1_size or n <= 4:
                return tile.noc.read(where, address, n)
            return b"".join(tile.noc.read(where, address + i, 4) for i in range(0, n, 4))[:n]
        local = self.local(where)
        if address + n <= self.profile.l1_size:
            return local.read_l1(address, n)
        return b"".join(local.load_mmio(address + i).to_bytes(4, "little") for i in range(0, n, 4))[:n]

    # -- reset ------------------------------------------------------------------------------------
    def hold(self, where: Coord, held: bool) -> None:
        """tt-umd's ALL_TENSIX_RESET_ASSERT (every core held) / _DEASSERT (BRISC released, the
        others as they were: ``tdbg.simulator.server`` says why), as ``SOFT_RESET_0`` stores."""
        brisc = 1 << self.profile.core("B").soft_reset_bit
        value = self.soft_reset.reset if held else int.from_bytes(self.read(where, self.soft_reset_address, 4), "little") & ~brisc
        self.write(where, self.soft_reset_address, value.to_bytes(4, "little"))

    def wake(self, where: Coord) -> Tile:
        """The tile at ``where`` modelled whole from now on (``Dormant`` copied in)."""
        tile = self.tiles.get(where)
        if tile is not None:
            return tile
        tile = Tile(self.chip.tile_profile(self.profile, where), hosted=True)
        tile.reset()
        tile.noc.fabric = self.local
        tile.noc.dram = self.dram
        self.tiles[where] = tile
        dormant = self.dormant.pop(where, None)
        if dormant is not None:
            for page, data in dormant.l1.pages.items():
                end = min(len(data), self.profile.l1_size - page * SparseMemory.PAGE)
                tile.write(page * SparseMemory.PAGE, bytes(data[:end]))
                tile.host_wrote(page * SparseMemory.PAGE, bytes(data[:end]))
            for address, value in dormant.stores:
                tile.noc.write(where, address, value.to_bytes(4, "little"), tile.noc.host_transfer(4))
        return tile

    # -- running ----------------------------------------------------------------------------------
    def runnable(self) -> list[Coord]:
        """The tiles with a core that can run now, in NoC order (row by row)."""
        return [w for w in sorted(self.tiles, key=lambda c: (c[1], c[0])) if self.tiles[w].runnable()]
