"""A core spinning on memory nothing changes waits (``tdbg.emu.idle``); a core that computes over
constant memory for longer than a turn does not."""

from __future__ import annotations

import struct

from tdbg.emu.stops import StopKind
from tdbg.arch import profile_for
from tdbg.toolchain.zig import build
from tdbg.session import Session
from examples import EXAMPLES


def test_a_long_loop_over_constant_memory_is_not_a_spin() -> None:
    """bench_zb.c reads two constant tables for a million trips (several turns' worth) and
    stores nothing: it counts, it does not wait."""
    s = Session(build(EXAMPLES / "bench_zb.c", [f"-mcpu={profile_for().llvm_cpu}"]))
    n = 1_500_000
    s.write_memory(s.symbol("iterations").addr, struct.pack("<I", n))
    assert s.cont().kind is StopKind.EXITED
    table = [(i * 2654435761) & 0xFFFF_FFFF for i in range(256)]
    halves = [(i * 40503) & 0xFFFF for i in range(256)]
    total, hi, lo = 0, 0, 0xFFFF_FFFF
    for i in range(n):
        k = i & 255
        v = (table[k] + halves[(k * 7) & 255]) & 0xFFFF_FFFF
        hi, lo = max(hi, v), min(lo, v)
        total = (total + ((total ^ v) & 0xFFFF) + v) & 0xFFFF_FFFF
    assert struct.unpack("<3I", s.read_memory(s.symbol("results").addr, 12)) == (total, hi, lo)


def test_a_loop_that_pushes_is_busy() -> None:
    """tt-llk's tensix_sync_mop_drain_test shape: a countdown that reads a GPR and pushes every
    trip, for several turns: a push is an effect, so the loop is not a spin (it was taken for one)."""
    from pathlib import Path
    s = Session(build(Path(__file__).parent / "firmware" / "push_loop.c"))
    assert s.cont().kind is StopKind.EXITED
    assert s.read_value(s.symbol("done").addr, 4) == (1 + 40000 * 40000) & 0xFFFF_FFFF
    assert s.tile.pushes.total >= 40000


_WAITS = """#include "tensix.h"
volatile uint32_t seen;
int main(void)
{
    for (volatile uint32_t i = 0; i < 3000; i++)      /* some work first, then the wait */
        ;
    while (*(volatile uint32_t *)0x100000u == 0)
        ;
    seen = *(volatile uint32_t *)0x100000u;
    return 0;
}
"""
_SETS = """#include "tensix.h"
int main(void)
{
    *(volatile uint32_t *)0x100000u = 5;
    return 0;
}
"""


def test_a_wait_on_l1_is_found_without_host_time(tmp_path, monkeypatch) -> None:
    """On a tile a host drives, a core that works, then spins on an L1 word another core sets,
    waits at a look counted in instructions (``idle.FIRST_LOOK``...): with host time slices of an
    hour the other core still gets its turn, and the waiting one ends with the value it set."""
    from test_run_fairness import _cont_within

    from tdbg.emu.preempt import PREEMPTOR

    monkeypatch.setattr(PREEMPTOR, "slice_s", 3600.0)
    (tmp_path / "waits.c").write_text(_WAITS)
    (tmp_path / "sets.c").write_text(_SETS)
    s = Session({"T0": tmp_path / "waits.c", "T1": tmp_path / "sets.c"})
    s.tile.scheduler.looks_early = True            # as on a tile a host drives (Tile.hosted)
    assert _cont_within(s, 60.0).kind is StopKind.EXITED
    with s.on_core("T0"):
        assert s.read_value(s.symbol("seen").addr, 4) == 5
    alone = Session({"T0": tmp_path / "waits.c"})
    alone.tile.scheduler.looks_early = True
    stop = _cont_within(alone, 60.0)
    assert stop.kind is StopKind.DEADLOCK and "reading L1 0x100000 (= 0x0)" in stop.detail, stop.detail


def test_a_spinning_core_wakes_exactly_when_its_word_is_written(tmp_path, monkeypatch) -> None:
    """The wait of a core that spins on an L1 word nothing changes: not over while its
    neighbour is written, or the word is written with the value it holds; over once the word
    changes, and then the core reads what was written.  Its test reads views of the memory
    (``Core.memory_view``), never Unicorn's ``mem_read``."""
    (tmp_path / "waits.c").write_text(_WAITS)
    s = Session({"T0": tmp_path / "waits.c"})
    s.tile.scheduler.looks_early = True
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK, stop.detail
    core = s.tile.cores["T0"]
    wait = core.wait
    assert wait is not None and wait.reads == {0x100000: 0}

    def no_mem_read(*args: object) -> bytes:
        raise AssertionError("the wait read memory through mem_read")

    monkeypatch.setattr(core.uc, "mem_read", no_mem_read)
    assert not wait.ready()
    s.write_memory(0x100004, struct.pack("<I", 9))          # the word beside it
    s.write_memory(0x100000, struct.pack("<I", 0))          # the same value again
    assert not wait.ready()
    s.write_memory(0x100000, struct.pack("<I", 7))
    assert wait.ready()
    monkeypatch.undo()
    assert s.cont().kind is StopKind.EXITED
    assert s.read_value(s.symbol("seen").addr, 4) == 7


def test_memory_view_holds_what_the_core_loads() -> None:
    """``Core.memory_view`` of L1, of the core's local RAM (and where the map repeats it) reads
    what Unicorn's ``mem_read`` reads there, after stores through Unicorn; a device is None."""
    import random

    from tdbg.arch.memory_map import RegionKind

    s = Session(build(EXAMPLES / "bench_loop.c"))
    core = s.tile.cores["T0"]
    rng = random.Random(34)
    plain = [r for r in s.profile.map.regions("T0") if r.kind is not RegionKind.DEVICE]
    assert {r.kind for r in plain} >= {RegionKind.L1, RegionKind.LOCAL_RAM}
    for region in plain:
        for _ in range(20):
            address = region.base + rng.randrange(0, region.size - 4) & ~3
            core.reach(address, 4)      # a slow-access window is mapped when first reached
            core.uc.mem_write(address, rng.randbytes(4))
            view = core.memory_view(address, 4)
            assert view is not None and bytes(view) == bytes(core.uc.mem_read(address, 4)), hex(address)
    device = next(r for r in s.profile.map.regions("T0") if r.kind is RegionKind.DEVICE)
    assert core.memory_view(device.base, 4) is None
