"""The NoC, functionally: NIU registers, reads, writes, atomics and counters on both NoCs, the
endpoints they reach, and NCRISC as a core of the tile.

Expected values: what Tenstorrent's simulator measured for the same firmware
(``tests/data/noc_ttsim.json``: ttsim v1.10.0 Blackhole, ``tests/firmware/noc_probe.c`` on BRISC);
the NoC pages (WormholeB0 ``NoC/MemoryMap.md``, ``Counters.md``, ``Atomics.md``) worked by hand.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build
from tdbg.session import Session
from tdbg.tensix.events import Category
from tdbg.commands import execute

HERE = Path(__file__).parent
TTSIM = json.loads((HERE / "data" / "noc_ttsim.json").read_text())
COUNTERS = ["NIU_MST_ATOMIC_RESP_RECEIVED", "NIU_MST_WR_ACK_RECEIVED", "NIU_MST_RD_RESP_RECEIVED",
            "NIU_MST_POSTED_ATOMIC_SENT", "NIU_MST_NONPOSTED_WR_REQ_SENT", "NIU_MST_POSTED_WR_REQ_SENT"]
L1 = {"noc0_write": (0x21000, 64), "noc0_read": (0x22000, 64), "noc0_posted": (0x28000, 32),
      "noc1_write": (0x25000, 64), "noc1_read": (0x26000, 64), "noc1_posted": (0x2C000, 32),
      "atomic_counter": (0x23000, 4), "noc0_atomic_ret": (0x23100, 4), "noc1_atomic_ret": (0x27100, 4)}


def probe(core: str) -> Session:
    s = Session({core: build(HERE / "firmware" / "noc_probe.c", core=core)})
    s.write_memory(0x20000, b"".join(struct.pack("<I", 0xA500_0000 + i) for i in range(16)))
    s.write_value(0x23000, 4, 100)
    assert s.cont().kind is StopKind.EXITED
    return s


@pytest.mark.parametrize("core", ["B", "NC"])
def test_noc_probe_matches_ttsim(core: str) -> None:
    s = probe(core)
    log = struct.unpack("<116I", s.read_memory(0x2FFF0, 0x1D0))
    assert (hex(log[0]), hex(log[2]), hex(log[1])) == (TTSIM["NOC_ID_LOGICAL"], TTSIM["NOC_NODE_ID"]["noc0"],
                                                       TTSIM["NOC_NODE_ID"]["noc1"])
    assert log[3] == len(TTSIM["counters"])
    for i, expected in enumerate(TTSIM["counters"]):
        words = log[4 + 12 * i: 4 + 12 * (i + 1)]
        measured = {"noc0": dict(zip(COUNTERS, words[:6])), "noc1": dict(zip(COUNTERS, words[6:]))}
        assert measured == {"noc0": expected["noc0"], "noc1": expected["noc1"]}, expected["after"]
    for name, (address, n) in L1.items():
        assert [hex(w) for w in struct.unpack(f"<{n // 4}I", s.read_memory(address, n))] == TTSIM["l1"][name], name


def test_counters_the_pages_give() -> None:
    """Counters.md for a non-posted 64-byte write, a 64-byte read and an atomic on NoC 0 (ttsim
    keeps only six counters; the others are the page's): CMD_ACCEPTED 3, RD_REQ_SENT 1,
    RD_DATA_WORD_RECEIVED 1 (one 64-byte flit), NONPOSTED_WR_DATA_WORD_SENT 1, the transaction
    counters back at 0."""
    s = probe("B")
    status = lambda index: s.read_value(0xFFB2_0200 + 4 * index, 4)   # noqa: E731
    assert (status(0x4), status(0x5), status(0x3), status(0x8), status(0xE)) == (4, 1, 1, 1, 1)
    assert all(status(0x10 + i) == 0 for i in range(16))
    assert s.read_value(0xFFB2_0040, 4) == 0                         # NOC_CMD_CTRL: done


def test_nc_is_thread_five_and_has_no_mailboxes() -> None:
    s = probe("NC")
    assert "Thread 5 (NC)" in execute(s, "info threads")
    assert s.core_by_thread("ncrisc") == "NC" and s.core_by_thread("brisc") == "B"
    with pytest.raises(Exception, match="Cannot access memory"):
        s.read_memory(0xFFEC_0000, 4)                               # the mailboxes are unmapped for NC


def test_a_request_to_nowhere_is_a_named_stop(tmp_path: Path) -> None:
    source = tmp_path / "nowhere.c"
    source.write_text("""
#include <stdint.h>
#define REG(a) (*(volatile uint32_t *)(a))
int main(void) {
    REG(0xFFB20000) = 0x20000; REG(0xFFB20008) = 1 | (2u << 6);   /* source: this tile */
    REG(0xFFB2000C) = 0x1000;  REG(0xFFB20014) = 8 | (3u << 6);   /* destination: a router-only tile */
    REG(0xFFB2001C) = 0x12;    REG(0xFFB20020) = 64;
    REG(0xFFB20040) = 1;
    return 0;
}
""")
    s = Session({"B": build(source, core="B")})
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is Category.UndefinedBehavior
    assert "no endpoint at NoC 0 coordinate 8,3" in stop.describe()


DRAM_TTSIM = json.loads((HERE / "data" / "noc_dram_ttsim.json").read_text())
TILE = bytes(__import__("random").Random(21).getrandbits(8) for _ in range(2048))


def dram_trip(broken: bool = False) -> tuple[Session, object]:
    fw = HERE / "firmware"
    s = Session({"B": build(fw / "noc_dram_b.c", core="B"),
                 "NC": build(fw / "noc_dram_nc.c", ["-DBROKEN"] if broken else [], core="NC"),
                 "T0": build(fw / "noc_dram_t0.c", core="T0")})
    s.write_memory(0x30000, TILE)
    return s, s.cont()


def test_a_tile_through_dram_over_both_nocs_matches_ttsim() -> None:
    """BRISC writes the tile to DRAM over NoC 0 and increments NCRISC's semaphore; NCRISC reads it
    back over NoC 1 and increments TRISC0's; TRISC0 copies it and sums it (issue 21 done-when)."""
    s, stop = dram_trip()
    assert stop.kind is StopKind.EXITED and "T0 exited" in stop.describe() and "NC exited" in stop.describe()
    assert s.read_memory(0x40000, 2048) == TILE
    assert s.read_noc(17, 14, 0x10000, 2048) == TILE                 # DRAM channel 4, as ttsim has it
    assert s.tile.noc.dram.keys() == {DRAM_TTSIM["dram_channel"]}
    words = {hex(a): hex(s.read_value(a, 4)) for a in range(0x2F000, 0x2F120, 4) if s.read_value(a, 4)}
    assert words == DRAM_TTSIM["l1_words"]
    for noc, expected in DRAM_TTSIM["counters"].items():
        counters = s.tile.noc.nius[int(noc[-1])].counters
        names = {name: i for i, name in s.profile.noc.counters.items()}
        assert {n: counters[names[n]] for n in expected} == expected, noc
    text = execute(s, "info noc requests")
    assert "NoC 0 write of 2048 bytes by B" in text and "DRAM channel 4 0x10000" in text
    assert "NoC 1 atomic of 4 bytes by NC" in text


def test_a_missing_semaphore_increment_is_a_hang_naming_the_wait() -> None:
    s, stop = dram_trip(broken=True)
    assert stop.kind is StopKind.DEADLOCK and stop.core == "T0"
    text = stop.describe()
    assert "T0: spins at" in text and "L1 0x2f010 (= 0x0)" in text and "no NoC request has written it" in text
    assert s.core_state("NC") == "exited" and s.core_state("B") == "exited"


def test_a_watchpoint_on_l1_names_the_noc_request() -> None:
    fw = HERE / "firmware"
    s = Session({"B": build(fw / "noc_dram_b.c", core="B"), "NC": build(fw / "noc_dram_nc.c", core="NC"),
                 "T0": build(fw / "noc_dram_t0.c", core="T0")})
    s.write_memory(0x30000, TILE)
    s.watch(0x38100, 4)
    stop = s.cont()
    assert stop.kind is StopKind.WATCHPOINT and stop.core == "NC"
    assert "NoC 1 read of 2048 bytes by NC" in stop.describe() and "DRAM channel 4 0x10000" in stop.describe()
    assert stop.new == int.from_bytes(TILE[0x100:0x104], "little")
    assert s.cont().kind is StopKind.EXITED


def test_l1_writes_names_the_newest_request_that_wrote_an_address():
    """The newest of the requests kept wins; one dropped for the bound, or an address none wrote
    (inside the span of those kept or outside it), has no writer."""
    from tdbg.emu.noc import L1Writes, Transfer

    def request(seq: int) -> Transfer:
        return Transfer(seq, 0, "B", 0x100, "write", "1,2 L1", "2,2 L1", 16)

    writes = L1Writes(3)
    writes.add(0x1000, 0x1010, request(1), 0)
    writes.add(0x2000, 0x2010, request(2), 4)
    writes.add(0x1008, 0x1018, request(3), 7)
    assert writes.last(0x1004) == (request(1), 0)
    assert writes.last(0x100C) == (request(3), 7)        # newest first
    assert writes.last(0x1018) is None and writes.last(0x1800) is None and writes.last(0x40) is None
    writes.add(0x3000, 0x3004, request(4), 9)             # request 1 is no longer kept
    assert writes.last(0x1004) is None and writes.last(0x3000) == (request(4), 9)
