"""The chips a host can be shown: the NoC grid of Tensix tiles, DRAM channels and the other
endpoints, as a soc descriptor describes them to tt-umd and tt-metal.

``full`` is the profile's own chip (its ``NocSpec``: Blackhole's 17 x 12 NoC, 140 Tensix tiles,
eight DRAM channels; tt-metal then takes its 140-core descriptor), with no coordinate translation:
as on ``1x2`` the host addresses it by NoC 0 coordinate and gives the kernels NoC 1's own
coordinates (measured with ttnn 0.81.1: its DRAM bank table for NoC 0 holds 0,11, 0,2, 0,9, ...,
and with the profile's translation the writer's NoC 1 writes of ``ttnn.add`` missed DRAM).
``1x2`` is that chip with two Tensix tiles, (1, 2) and (2, 2), described with a grid of ``y_size``
2: that makes tt-metal 0.81.1 take ``core_descriptors/blackhole_simulation_1x2_arch.yaml`` (two
compute cores, logical (0, 0)-(1, 0)) while every coordinate stays Blackhole's (measured with the
ttnn wheel's host, on Tenstorrent's simulator too: its firmware, built for that descriptor, runs
``ttnn.add``).  It has no Ethernet
tiles (tdbg models none; with them the host waits for their firmware), and no coordinate
translation either (measured: its DRAM writes go to 0,11, not to the translated 17,14).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from tdbg.arch.profile import Coord, NocSpec, Profile


#: Blackhole's DRAM views (tt-metal's ``soc_descriptors/blackhole_140_arch.yaml`` ``dram_views``):
#: per channel, the port a worker uses on NoC 0 and on NoC 1.
DRAM_WORKER_ENDPOINT = ((2, 1), (0, 1), (0, 1), (0, 1), (2, 1), (2, 1), (2, 1), (2, 1))


@dataclass(frozen=True)
class Chip:
    """A chip by name: its NoC (``NocSpec`` with ``tile`` the first worker), the workers in the
    descriptor's order, each DRAM channel's ports and the one a worker and Ethernet use."""

    name: str
    noc: NocSpec
    described_grid: Coord                # the descriptor's grid (x_size, y_size)
    workers: tuple[Coord, ...]
    dram_ports: tuple[tuple[Coord, ...], ...]
    dram_endpoint: tuple[tuple[int, int], ...]   # per channel: the port workers use on NoC 0, NoC 1

    def kind(self, where: Coord) -> str:
        """What is at ``where``: "Tensix", "DRAM", the profile's other kinds, or "nothing"."""
        if where in self.noc.tensix:
            return "Tensix"
        if where in self.noc.dram:
            return "DRAM"
        return self.noc.others.get(where, "nothing")

    def tile_profile(self, profile: Profile, where: Coord) -> Profile:
        """``profile`` for the Tensix tile at ``where`` of this chip (its NIUs' coordinate)."""
        if where not in self.noc.tensix:
            raise ValueError(f"no Tensix tile at {where[0]},{where[1]} on the {self.name} chip")
        if where == profile.noc.tile and self.noc == dataclasses.replace(profile.noc, tile=where):
            return profile
        return dataclasses.replace(profile, noc=dataclasses.replace(self.noc, tile=where))


def full(profile: Profile) -> Chip:
    """The profile's chip as it is (Blackhole: workers row by row, DRAM ports per channel in the
    NoC 0 order ``NocSpec.dram`` gives; the endpoints are tt-metal's descriptor's ``dram_views``)."""
    noc = profile.noc
    workers = tuple(sorted(noc.tensix, key=lambda c: (c[1], c[0])))
    channels = max(noc.dram.values()) + 1
    ports = tuple(tuple(c for c in noc.dram if noc.dram[c] == ch) for ch in range(channels))
    return Chip("full", dataclasses.replace(noc, tile=workers[0], translated={}), noc.size, workers, ports,
                DRAM_WORKER_ENDPOINT)


def small(profile: Profile) -> Chip:
    """The ``1x2`` chip (the module's docstring)."""
    chip = full(profile)
    workers = ((1, 2), (2, 2))
    others = {c: kind for c, kind in chip.noc.others.items() if kind != "Ethernet"}
    return dataclasses.replace(chip, name="1x2", noc=dataclasses.replace(chip.noc, tile=workers[0],
                                                                        noc1_grid=(chip.noc.size[0], 2),
                                                                        tensix=frozenset(workers), others=others),
                               described_grid=(chip.noc.size[0], 2), workers=workers)


CHIPS = {"1x2": small, "full": full}


def chip(name: str, profile: Profile) -> Chip:
    """The chip called ``name`` (``CHIPS``); ``ValueError`` naming the choices otherwise."""
    make = CHIPS.get(name.lower())
    if make is None:
        raise ValueError(f"no chip {name!r}: choose one of {', '.join(CHIPS)}")
    return make(profile)


def parse_coord(text: str) -> Coord:
    """``X,Y`` (tt-exalens' ``-l X,Y``) as a coordinate; ``ValueError`` otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"not a tile coordinate X,Y: {text!r}")
    return int(match[1]), int(match[2])
