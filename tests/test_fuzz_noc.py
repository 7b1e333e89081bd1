"""Fuzz the NoC from firmware (issue 30's done-when): random tables of requests that BRISC makes
(``tests/firmware/noc_requests.c``) between this tile's L1, DRAM and another tile's L1 over both NIUs,

* checked against a reference written here from ``NoC/MemoryMap.md`` (a request copies
  ``NOC_AT_LEN_BE`` bytes from its source to its destination, in the order made);
* stepped one instruction at a time, then undone with reverse-stepi: each undo gives back the
  state the same step had going forward (L1, DRAM, the other tile, every core's PC);
* run from a checkpoint restarted many times: the same end each time.

Short by default (seconds); ``TDBG_FUZZ_LONG=1`` runs many more examples."""

from __future__ import annotations

import hashlib
import struct

from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from tdbg.emu.stops import StopKind
from tdbg.session import Session
from test_noc_requests import READ, SOFT_RESET_0, WRITE, noc_requests

TABLE = 0x5000
ZONE = (0x8000, 0x40000)            # this tile's L1 the requests use (not the firmware's, not the table)
FAR = (0x10000, 0x20000)            # DRAM's and the other tile's bytes they use
DRAM = (17, 14)                     # DRAM channel 4, translated (the same endpoint on both NoCs)
RESPONSE = 0x10                     # NOC_CTRL: NOC_CMD_RESP_MARKED
COLLIDING = (0x20000, 0x30000)      # the L1 pages whose TLB index is an NIU's register page's (issue 30 N1)


def endpoints(s: Session) -> dict[str, tuple[int, int]]:
    """The endpoints by name, as software writes their coordinates: this tile, DRAM, and another
    Tensix tile (NoC 0's coordinates only: NoC 1 numbers tiles the other way)."""
    here = s.profile.noc.tile
    other = next(c for c in sorted(s.profile.noc.tensix) if c != here)
    return {"here": here, "dram": DRAM, "other": other}


@st.composite
def request(draw: st.DrawFn) -> tuple[str, int, str, int, int, int, bool]:
    """(kind, NoC, far endpoint, L1 address, far address, length, marked); a read copies far ->
    L1, a write L1 -> far.  Addresses keep the offset the NoC keeps (64 bytes for DRAM, 16
    otherwise: ttsim v1.10.0 tile.cpp:1664)."""
    kind = draw(st.sampled_from(["read", "write"]))
    far = draw(st.sampled_from(["here", "dram", "other"]))
    noc = 0 if far == "other" else draw(st.integers(0, 1))
    n = draw(st.integers(1, 2048))
    modulo = 64 if far == "dram" else 16
    offset = draw(st.integers(0, modulo - 1))
    local = draw(st.one_of(st.integers(ZONE[0] // modulo, (ZONE[1] - n) // modulo - 1).map(lambda w: w * modulo),
                           st.sampled_from(COLLIDING))) + offset
    span = ZONE if far == "here" else FAR
    remote = draw(st.integers(span[0] // modulo, (span[1] - n) // modulo - 1)) * modulo + offset
    return kind, noc, far, local, remote, n, draw(st.booleans())


programs = st.lists(st.one_of(request(), st.just(("reset",) * 7)), min_size=1, max_size=6)


def session(reqs: list[tuple]) -> tuple[Session, dict[str, tuple[int, int]]]:
    s = Session({"B": noc_requests()})
    where = endpoints(s)
    xy = {name: x | y << 6 for name, (x, y) in where.items()}
    held = s.read_value(SOFT_RESET_0, 4)
    entries = []
    for kind, noc, far, local, remote, n, marked in reqs:
        if kind == "reset":                     # a store the history records whole
            entries.append((2, SOFT_RESET_0, 0, 0, 0, held, 0))
        elif kind == "read":
            entries.append((noc, remote, xy[far], local, xy["here"], READ, n))
        else:
            entries.append((noc, local, xy["here"], remote, xy[far], WRITE | (RESPONSE if marked else 0), n))
    s.write_memory(TABLE, struct.pack("<I", len(entries)) + b"".join(struct.pack("<7I", *e) for e in entries))
    s.write_memory(ZONE[0], bytes((i * 7 + 3) & 0xFF for i in range(ZONE[1] - ZONE[0])))
    s.write_noc(*where["dram"], FAR[0], bytes((i * 13 + 1) & 0xFF for i in range(0x4000)))
    return s, where


def reference(s: Session, where: dict[str, tuple[int, int]], reqs: list[tuple]) -> dict[str, bytes]:
    """What the requests leave, worked out here: each copies its bytes in turn."""
    mem = {"here": bytearray(s.read_memory(0, ZONE[1]))}      # (only the zone is compared)
    for name in ("dram", "other"):
        mem[name] = bytearray(s.read_noc(*where[name], 0, FAR[1]))
    for kind, _, far, local, remote, n, _ in reqs:
        if kind == "read":
            mem["here"][local:local + n] = mem[far][remote:remote + n]
        elif kind == "write":
            mem[far][remote:remote + n] = mem["here"][local:local + n]
    return {"here": bytes(mem["here"][ZONE[0]:]), **{name: bytes(mem[name]) for name in ("dram", "other")}}


def contents(s: Session, where: dict[str, tuple[int, int]]) -> dict[str, bytes]:
    """What the requests reach: the zone of this tile's L1, DRAM's and the other tile's bytes."""
    return {"here": s.read_memory(ZONE[0], ZONE[1] - ZONE[0]),
            **{n: s.read_noc(*where[n], 0, FAR[1]) for n in ("dram", "other")}}


def digest(s: Session, where: dict[str, tuple[int, int]]) -> tuple:
    """The state a step leaves, short: every core's PC and state, and what the requests reach."""
    sums = {n: hashlib.sha1(b).hexdigest() for n, b in contents(s, where).items()}
    return tuple((c, s.tile.cores[c].pc, s.core_state(c)) for c in sorted(s.tile.cores)), tuple(sorted(sums.items()))


@fuzz_settings(short=6, long=400)
@given(reqs=programs)
def test_requests_from_firmware_move_what_the_reference_moves(reqs: list[tuple]) -> None:
    s, where = session(reqs)
    expected = reference(s, where, reqs)
    with bounded(120):
        stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert contents(s, where) == expected
    assert len(s.tile.noc.log) == sum(r[0] != "reset" for r in reqs)


@fuzz_settings(short=2, long=60)
@given(reqs=st.lists(st.one_of(request(), st.just(("reset",) * 7)), min_size=1, max_size=3))
def test_reverse_stepi_gives_back_every_state_across_noc_and_dram(reqs: list[tuple]) -> None:
    s, where = session(reqs)
    states = [digest(s, where)]
    with bounded(300):
        while s.core_state("B") not in ("exited", "parked"):
            s.stepi()
            states.append(digest(s, where))
        end = contents(s, where)
        for expected in reversed(states[:-1]):
            s.reverse_stepi()
            assert digest(s, where) == expected
        assert s.cont().kind is StopKind.EXITED
    assert contents(s, where) == end == reference(*session(reqs), reqs)


@fuzz_settings(short=3, long=150)
@given(reqs=programs, at=st.integers(0, 400), restarts=st.integers(2, 6))
def test_a_checkpoint_restarted_many_times_ends_the_same(reqs: list[tuple], at: int, restarts: int) -> None:
    s, where = session(reqs)
    with bounded(300):
        s.stepi(at) if at else None
        number = s.checkpoint()
        ends = []
        for _ in range(restarts):
            stop = s.cont()
            assert stop.kind is StopKind.EXITED, stop.describe()
            ends.append(digest(s, where))
            s.restart(number)
    assert len(set(ends)) == 1
