"""NoC requests BRISC makes from a table (``tests/firmware/noc_requests.c``), issue 30: reads
into every page of L1 (N1: a read into L1 0x20000 over NoC 0, or 0x30000 over NoC 1, killed the
process inside Unicorn: the L1 page whose TLB index is the issuing NIU's register page's),
reverse-stepi over DRAM writes (R1), the host memory and the stops of large transfers (N2, T3), a
read over the running code, and reads of memory nothing wrote (issue 33 item 6).  Expected
values: the bytes the host put at the source, the states the same steps had going forward."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.toolchain.zig import build
from tdbg.commands import execute

HERE = Path(__file__).parent
PAGE = 0x1000
READ, WRITE = 0, 0x2          # NOC_CTRL: a read; a posted write (MemoryMap.md NOC_CTRL)


def noc_requests() -> Path:
    return build(HERE / "firmware" / "noc_requests.c", core="B")


def requests(entries: list[tuple[int, ...]], table: int, source: bytes, at: int) -> Session:
    """A session whose BRISC will make ``entries`` (``tests/firmware/noc_requests.c``) from a table
    at ``table``, with ``source`` at ``at``."""
    s = Session({"B": noc_requests()})
    s.write_memory(s.address_of("&table_at"), struct.pack("<I", table))
    s.write_memory(table, struct.pack("<I", len(entries)) + b"".join(struct.pack("<7I", *e) for e in entries))
    s.write_memory(at, source)
    return s


def niu_pages(s: Session) -> dict[int, int]:
    """Each NIU's register page number."""
    return {d.unit: d.base // PAGE for d in s.profile.devices_of("niu")}


@pytest.mark.parametrize("noc", [0, 1])
@pytest.mark.parametrize("table", [0x100000, 0x5000])
def test_noc_requests_into_every_l1_page(noc: int, table: int) -> None:
    """A 64-byte read into the first bytes of every 4 KiB page of L1 but the firmware's and the
    table's (the other ``table`` covers these), and a write into every page whose number
    equals the NIU's register page modulo 64 (the smallest TLB Unicorn's can shrink to)."""
    source_at = table + 0x3000
    source = random.Random(noc * 7 + table).randbytes(PAGE)
    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    register_page = niu_pages(s0)[noc]
    skip = {1} | set(range(table // PAGE, table // PAGE + 4))
    pages = [p for p in range(s0.profile.l1_size // PAGE) if p not in skip]
    entries, expected = [], {}
    for p in pages:
        offset = (p * 64) % PAGE
        entries.append((noc, source_at + offset, me, p * PAGE, me, READ, 64))
        expected[p * PAGE] = source[offset:offset + 64]
        if p % 64 == register_page % 64:
            entries.append((noc, source_at + offset, me, p * PAGE + 0x800, me, WRITE, 48))
            expected[p * PAGE + 0x800] = source[offset:offset + 48]
    s = requests(entries, table, source, source_at)
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    wrong = [hex(a) for a, data in expected.items() if s.read_memory(a, len(data)) != data]
    assert not wrong
    assert len(s.tile.noc.log) == len(entries)


SOFT_RESET_0 = 0xFFB121B0


def dram_of(s: Session) -> dict[int, dict[int, bytes]]:
    return {c: m.snapshot() for c, m in s.tile.noc.dram.items() if any(any(p) for p in m.pages.values())}


def test_reverse_stepi_over_noc_writes_to_dram_gives_back_each_state() -> None:
    """Issue 30 R1: BRISC writes DRAM over both NoCs, with stores to SOFT_RESET_0 (steps the
    history records whole) between them; every reverse-stepi gives back the DRAM the same
    step had going forward."""
    source = random.Random(30).randbytes(256)
    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    held = s0.read_value(SOFT_RESET_0, 4)
    dram = 17 | 14 << 6                             # DRAM channel 4 (translated), as tests/test_noc.py
    entries = [(0, 0x6000, me, 0x10000, dram, WRITE, 64), (2, SOFT_RESET_0, 0, 0, 0, held, 0),
               (1, 0x6040, me, 0x10020, dram, WRITE, 128), (2, SOFT_RESET_0, 0, 0, 0, held, 0),
               (0, 0x60C0, me, 0x10000, dram, WRITE | 0x10, 64)]
    s = requests(entries, 0x5000, source, 0x6000)
    states = [dram_of(s)]
    while s.core_state("B") not in ("exited", "parked"):
        s.stepi()
        states.append(dram_of(s))
    assert len({str(sorted(st.items())) for st in states}) == 4      # before and after each write
    for expected in reversed(states[:-1]):
        s.reverse_stepi()
        assert dram_of(s) == expected


DRAM_XY = 17 | 14 << 6                             # DRAM channel 4 (translated), as tests/test_noc.py


def test_many_small_dram_writes_cost_what_they_write() -> None:
    """Issue 30 N2: 8000 posted 64-byte writes at 64 KiB strides cost a small page each (a
    64 KiB page each was +504 MB); each reads back."""
    source = random.Random(8).randbytes(64)
    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    entries = [(i & 1, 0x6000, me, i << 16, DRAM_XY, WRITE, 64) for i in range(8000)]
    s = requests(entries, 0x100000, source, 0x6000)
    assert s.cont().kind is StopKind.EXITED
    assert sum(m.nbytes for m in s.tile.noc.dram.values()) <= 8000 * 1024
    assert all(s.read_noc(17, 14, i << 16, 64) == source for i in range(0, 8000, 997))
    text = execute(s, "info noc requests")
    assert text.count("\n") <= 2 * 10_000 + 2 and "posted write of 64 bytes by B" in text


@pytest.mark.parametrize("noc", [0, 1])
def test_a_read_past_l1s_end_stops_before_moving_data(noc: int) -> None:
    """Issue 30 N2: a 1 GiB DRAM read into L1 is refused before anything is gathered, and the
    stop says the destination runs past L1's end (it said "an MMIO address")."""
    import tracemalloc

    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    s = requests([(noc, 0, DRAM_XY, 0x40000, me, READ, 1 << 30)], 0x5000, b"", 0x6000)
    tracemalloc.start()
    stop = s.cont()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20
    assert stop.kind is StopKind.EVENT, stop.describe()
    assert "a 1073741824-byte read's destination at L1 0x40000 runs past L1's end (0x180000)" in stop.describe()


@pytest.mark.parametrize("core", ["B", "NC"])
def test_a_noc_read_over_the_running_code_stops_at_the_next_word(core: str) -> None:
    """Issue 30: a NoC read of zeros over the running firmware's code stopped after 117 s (the
    core trapped on each zero word of L1 in turn, run as a nop).  The core runs the new word
    after its store to NOC_CMD_CTRL: a .ttinsn, a sw to INSTRN_BUF_BASE
    (PushTensixInstruction.md): RISCV B pushes Tensix word 0 to T0, which no Blackhole
    instruction encodes; RISCV NC cannot push (the address is unmapped for it)."""
    import threading

    s = Session({core: build(HERE / "firmware" / "noc_requests.c", core=core)})
    me = s.profile.noc.tile[0] | s.profile.noc.tile[1] << 6
    code = min(seg.vaddr for seg in s.tile.programs[core].segments)
    s.write_memory(s.address_of("&table_at"), struct.pack("<I", 0x5000))
    s.write_memory(0x5000, struct.pack("<I7I", 1, 0, 0x100000, me, code, me, READ, 0x400))
    guard = threading.Timer(60, s.interrupt)
    guard.start()
    try:
        stop = s.cont()
    finally:
        guard.cancel()
    assert stop.kind is StopKind.EVENT, stop.describe()
    assert stop.pc == s.tile.noc.log[-1].pc + 4
    assert s.read_memory(code, 0x400) == bytes(0x400)
    if core == "B":
        assert "MissingSpecification" in stop.describe() and "encodes 0x00000000" in stop.describe()
    else:
        assert "UndefinedBehavior" in stop.describe()
        assert "INSTRN_BUF_BASE (0xffe40000), which NC has unmapped" in stop.describe()


def test_a_read_of_dram_nothing_wrote_warns_or_stops_as_handle_says() -> None:
    """Issue 33 item 6: a NoC read of DRAM nothing wrote is named ("never written"); by default
    a warning and the run goes on (the read done), with ``handle NeverWritten stop`` a stop
    after the request (going on does not make it again)."""
    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    entries = [(1, 0x3000_0000, DRAM_XY, 0x40000, me, READ, 0x800), (0, 0x10000, DRAM_XY, 0x41000, me, READ, 64)]
    s = requests(entries, 0x5000, b"", 0x6000)
    s.write_noc(17, 14, 0x10000, bytes(range(64)))
    assert s.cont().kind is StopKind.EXITED
    warned = [f"{w.event}" for w in s.take_warnings()]
    assert warned == ["NeverWritten: B read DRAM channel 4 0x30000000..0x30000800: never written"]
    assert s.read_memory(0x41000, 64) == bytes(range(64))
    s = requests(entries, 0x5000, b"", 0x6000)
    s.write_noc(17, 14, 0x10000, bytes(range(64)))
    execute(s, "handle NeverWritten stop")
    stop = s.cont()
    assert stop.kind is StopKind.EVENT
    assert "B read DRAM channel 4 0x30000000..0x30000800: never written" in stop.describe()
    assert s.cont().kind is StopKind.EXITED
    assert len(s.tile.noc.log) == 2 and s.read_memory(0x41000, 64) == bytes(range(64))


def test_a_run_of_large_transfers_stops_on_an_interrupt() -> None:
    """Issue 30 T3 (the run's half): every request moves at most L1's size, checked before any
    byte moves, so an interrupt during a long run of 256 KiB DRAM reads stops it (and a 1 GiB
    one is refused at once, above)."""
    import threading

    s0 = Session({"B": noc_requests()})
    me = s0.profile.noc.tile[0] | s0.profile.noc.tile[1] << 6
    s = requests([(i & 1, 0, DRAM_XY, 0x140000, me, READ, 1 << 18) for i in range(20_000)], 0x5000, b"", 0x6000)
    s.write_noc(17, 14, 0, bytes(1 << 18))
    timer = threading.Timer(1.0, s.interrupt)
    timer.start()
    try:
        stop = s.cont()
    finally:
        timer.cancel()
    assert stop.kind is StopKind.INTERRUPTED, stop.describe()
    assert 0 < len(s.tile.noc.log) < 20_000
