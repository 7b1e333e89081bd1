"""The address map as one table of typed regions: what is at an address, for each viewer.

A viewer is a core, by the map's name (``B``, ``T0`` ...), or ``TENSIX``: the Tensix coprocessor
and the NoC, the "NoC" column of BlackholeA0 ``BabyRISCV/README.md`` "Memory map" (what is "made
available to the NoC (and to the Tensix coprocessor)").  As pyOCD's ``MemoryMap`` does for a
target, ``MemoryMap.region_at(viewer, address)`` answers "what is here" with a ``Region`` that
says what kind of thing it is (L1, the viewer's own local RAM, a core's local RAM through its
slow-access window, a device) and, for a device, which one (``DeviceSpec``); an address no
region holds is unmapped for that viewer.  The profile builds its map from its facts
(``Profile.map``); the emulator maps each core's address space from it and the debugger asks it
what an address is.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.arch.profile import CoreSpec

#: The Tensix coprocessor (and the NoC) as a viewer of the map: LOADREG, STOREREG, PACR_SETREG,
#: NoC requests to this tile.
TENSIX = "Tensix"


@dataclass(frozen=True)
class DeviceSpec:
    """A device in the map: ``size`` bytes from ``base`` (a multiple of 4 KiB) that the
    ``viewers`` see (elsewhere it is unmapped).  ``model`` names the class that gives it its
    behaviour (``tdbg.emu.devices``; None: tdbg does not model it), ``unit`` which of several
    alike (an NIU's number, the Tensix thread an instruction push reaches from RISCV B), and
    ``registers`` the offsets of its registers by name."""

    name: str
    base: int
    size: int
    viewers: tuple[str, ...]
    model: str | None = None
    unit: int = 0
    registers: Mapping[str, int] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.name, self.base))


class RegionKind(str, Enum):
    L1 = "L1"                              # shared memory: code and data
    LOCAL_RAM = "local RAM"                # the viewer's own data RAM: loads and stores only
    SLOW_PATH = "local RAM slow path"      # a core's local RAM through its slow-access window
    DEVICE = "device"


@dataclass(frozen=True)
class Region:
    """One range of a viewer's map.  ``owner`` and ``ram_size``: whose local RAM a LOCAL_RAM or
    SLOW_PATH region shows, and its size (a slow-access window repeats it)."""

    name: str
    base: int
    size: int
    kind: RegionKind
    device: DeviceSpec | None = None
    owner: str | None = None
    ram_size: int = 0

    @property
    def end(self) -> int:
        """The first address past the region."""
        return self.base + self.size

    def contains(self, address: int) -> bool:
        return self.base <= address < self.base + self.size

    @property
    def memory(self) -> bool:
        """Loads and stores reach memory (a device has behaviour of its own)."""
        return self.kind is not RegionKind.DEVICE

    @property
    def executable(self) -> bool:
        """Instructions are fetched from here (BabyRISCV/README.md "Frontend": L1 only)."""
        return self.kind is RegionKind.L1


class MemoryMap:
    """Every viewer's regions, sorted by address and never overlapping."""

    def __init__(self, views: Mapping[str, Iterable[Region]]) -> None:
        self._views: dict[str, tuple[Region, ...]] = {}
        self._bases: dict[str, list[int]] = {}
        for viewer, regions in views.items():
            ordered = tuple(sorted(regions, key=lambda r: r.base))
            for a, b in zip(ordered, ordered[1:]):
                if b.base < a.end:
                    raise ValueError(f"{viewer}'s map: {a.name} and {b.name} overlap at {b.base:#x}")
            self._views[viewer] = ordered
            self._bases[viewer] = [r.base for r in ordered]

    @classmethod
    def build(cls, l1_size: int, local_ram_base: int, slow_path_span: int, cores: Sequence[CoreSpec],
              devices: Sequence[DeviceSpec]) -> MemoryMap:
        """The map BabyRISCV/README.md draws: L1 at 0 for everyone; each core's own local RAM at
        ``local_ram_base``; every core's local RAM through its slow-access window
        (``slow_path_span`` bytes at ``local_ram_alias``, the RAM repeated) for every viewer;
        the devices for the viewers each lists."""
        slow = [Region(f"{c.name} local RAM (slow path)", c.local_ram_alias, slow_path_span, RegionKind.SLOW_PATH,
                       owner=c.name, ram_size=c.local_ram_size) for c in cores]
        views: dict[str, list[Region]] = {}
        for viewer, own in [(c.name, c) for c in cores] + [(TENSIX, None)]:
            regions = [Region("L1", 0, l1_size, RegionKind.L1), *slow]
            if own is not None:
                regions.append(Region("local RAM", local_ram_base, own.local_ram_size, RegionKind.LOCAL_RAM,
                                      owner=own.name, ram_size=own.local_ram_size))
            regions += [Region(d.name, d.base, d.size, RegionKind.DEVICE, device=d) for d in devices if viewer in d.viewers]
            views[viewer] = regions
        return cls(views)

    @property
    def viewers(self) -> tuple[str, ...]:
        return tuple(self._views)

    def regions(self, viewer: str) -> tuple[Region, ...]:
        """``viewer``'s regions, lowest first."""
        return self._views[viewer]

    def region_at(self, viewer: str, address: int) -> Region | None:
        """What ``viewer`` has at ``address`` (None: unmapped)."""
        i = bisect.bisect_right(self._bases[viewer], address) - 1
        if i >= 0:
            region = self._views[viewer][i]
            if address < region.base + region.size:
                return region
        return None
