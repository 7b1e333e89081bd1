"""The device tt-metal 0.81.1's host describes to a worker's firmware: ttsim's Blackhole, as
tt-metal opens it (unharvested, 140 workers), and the tile tdbg models, its first worker.

The grid, the Tensix coordinates and the coordinate translation are the profile's
(``tdbg.arch.blackhole.BLACKHOLE.noc``); what is tt-metal's own comes from the wheel's
descriptors (``tt_metal/soc_descriptors/blackhole_140_arch.yaml``: DRAM views and their
endpoints, ``dram_view_size``; ``tt_metal/core_descriptors/blackhole_140_arch.yaml``: the last
worker column kept for dispatch), from UMD's Blackhole translated coordinates, and, where tt-metal
takes an order from a hash set or a shuffle, from what it wrote on ttsim (``L1_BANK_ORDER``,
``VIRTUAL_NON_WORKER_ORDER``: the sets are derived here, only their order is measured).
"""

from __future__ import annotations

from tdbg.arch import profile_for
from tdbg.arch.chips import DRAM_WORKER_ENDPOINT
from tdbg.arch.profile import Coord, Profile

NUM_DRAM_BANKS = 8                       # one per DRAM view (soc descriptor dram_views)
DRAM_BANK_SIZE = 4_278_190_080           # soc descriptor dram_view_size
#: The NoC address range of PCIe that tt-metal gives the firmware (core_info; measured).
PCIE_ADDR_RANGE = (0, 0x13FF_FFFF_FFFF_FFFF)
PCIE_VIRTUAL = (19, 24)                  # UMD's translated PCIe coordinate (ttsim tile.cpp:1262)
ETH_VIRTUAL = tuple((20 + i, 25) for i in range(12))   # translated Ethernet (ttsim tile.cpp:1231)
DISPATCH_COLUMNS = 1                     # core descriptor: dispatch_cores [[-1, 0] .. [-1, 9]]
#: tt-metal's L1 bank order (its allocator shuffles the storage cores; written as measured).
L1_BANK_ORDER: tuple[Coord, ...] = (
    (10, 4), (10, 8), (11, 11), (7, 10), (15, 8), (6, 4), (11, 8), (7, 7), (13, 9), (14, 4), (7, 3), (6, 11), (2, 4),
    (5, 10), (13, 2), (15, 4), (10, 7), (2, 6), (12, 11), (3, 3), (11, 2), (1, 8), (14, 2), (4, 9), (15, 3), (3, 8),
    (11, 4), (7, 9), (14, 6), (5, 4), (4, 3), (11, 7), (10, 6), (6, 2), (5, 8), (12, 2), (2, 3), (2, 11), (3, 2),
    (12, 9), (10, 11), (1, 6), (15, 10), (15, 5), (2, 8), (2, 10), (10, 9), (11, 6), (14, 8), (12, 7), (6, 9), (7, 5),
    (5, 9), (12, 8), (15, 11), (12, 10), (6, 7), (2, 9), (3, 5), (12, 3), (3, 9), (7, 4), (12, 5), (2, 2), (4, 11),
    (14, 11), (4, 2), (15, 2), (14, 5), (13, 7), (13, 3), (13, 10), (6, 8), (1, 3), (1, 9), (4, 6), (14, 7), (1, 10),
    (3, 4), (4, 7), (11, 9), (1, 2), (4, 8), (10, 5), (12, 6), (13, 4), (1, 7), (11, 5), (6, 6), (13, 8), (7, 11),
    (5, 11), (7, 6), (5, 7), (7, 8), (5, 2), (14, 10), (4, 10), (5, 5), (10, 3), (15, 7), (4, 5), (13, 5), (11, 3),
    (3, 11), (14, 9), (4, 4), (1, 11), (1, 5), (5, 3), (6, 3), (11, 10), (3, 6), (10, 10), (15, 9), (1, 4), (3, 10),
    (6, 5), (10, 2), (14, 3), (6, 10), (5, 6), (13, 6), (7, 2), (15, 6), (3, 7), (2, 5), (2, 7), (13, 11), (12, 4))
#: The order of core_info.virtual_non_worker_cores (an unordered set's, measured): Ethernet,
#: PCIe, then the DRAM endpoints of both NoCs.
VIRTUAL_NON_WORKER_ORDER: tuple[Coord, ...] = (
    *ETH_VIRTUAL, PCIE_VIRTUAL,
    (18, 22), (18, 23), (18, 19), (17, 14), (17, 15), (17, 18), (17, 16), (17, 19), (17, 21), (17, 22), (17, 13),
    (18, 16), (18, 14), (18, 13), (18, 20), (18, 17))


def dram_virtual(channel: int, port: int) -> Coord:
    """UMD's Blackhole translated coordinate of DRAM channel ``channel``'s port ``port``: the
    channels' three ports from (17, 12) down column 17 (channels 0-3), then column 18."""
    return 17 + channel // 4, 12 + 3 * (channel % 4) + port


def dram_bank_xy(noc: int) -> list[Coord]:
    """``dram_bank_to_noc_xy[noc]``: bank b is DRAM view b, reached at its worker endpoint."""
    return [dram_virtual(bank, DRAM_WORKER_ENDPOINT[bank][noc]) for bank in range(NUM_DRAM_BANKS)]


def worker_columns(profile: Profile | None = None) -> list[int]:
    """The worker grid's columns by logical x (translated = NoC 0 for Blackhole Tensix tiles)."""
    profile = profile or profile_for()
    return sorted({x for x, _ in profile.noc.tensix})


def worker_rows(profile: Profile | None = None) -> list[int]:
    profile = profile or profile_for()
    return sorted({y for _, y in profile.noc.tensix})


def l1_banks(profile: Profile | None = None) -> list[Coord]:
    """The storage cores, one L1 bank each: the worker grid less the dispatch column, in
    tt-metal's order."""
    profile = profile or profile_for()
    columns = worker_columns(profile)[:-DISPATCH_COLUMNS]
    cores = {(x, y) for x in columns for y in worker_rows(profile)}
    if set(L1_BANK_ORDER) != cores:
        raise ValueError("the measured L1 bank order is not this grid's storage cores")
    return list(L1_BANK_ORDER)


def virtual_non_worker_cores() -> list[Coord]:
    """core_info's virtual non-worker cores: Ethernet, PCIe, every DRAM endpoint a bank uses."""
    wanted = {*ETH_VIRTUAL, PCIE_VIRTUAL, *(xy for noc in (0, 1) for xy in dram_bank_xy(noc))}
    if set(VIRTUAL_NON_WORKER_ORDER) != wanted or len(VIRTUAL_NON_WORKER_ORDER) != len(wanted):
        raise ValueError("the measured order of the virtual non-worker cores is not this device's set")
    return list(VIRTUAL_NON_WORKER_ORDER)


def logical(tile: Coord, profile: Profile | None = None) -> Coord:
    """A worker's logical coordinate (its place in the worker grid)."""
    profile = profile or profile_for()
    return worker_columns(profile).index(tile[0]), worker_rows(profile).index(tile[1])
