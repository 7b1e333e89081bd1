"""The turn order of a multi-core run (issue 26 item 1): a breakpoint hit that does not stop the
run (a false condition, an ignore count, ``until``'s internal breakpoint, an unchanged write
watchpoint) ends the core's turn like any stop; the next turn is the next core's, also across
the session's resumptions, so a core spinning past such a breakpoint cannot starve the core it
waits for.  Runs stay deterministic: the order depends on where the cores stop, never on time."""

from __future__ import annotations

import struct
import threading
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.commands import execute

FLAG = 0x100000        # an L1 word outside both cores' firmware

SPIN = """#include "tensix.h"
volatile uint32_t results[1];
int main(void)
{
    while (*(volatile uint32_t *)0x100000u == 0)
        results[0]++;                           /* SPIN */
    return 0;
}
"""
SET = """#include "tensix.h"
int main(void)
{
    *(volatile uint32_t *)0x100000u = 1;
    return 0;
}
"""


@pytest.fixture
def pair(tmp_path: Path) -> Session:
    (tmp_path / "spin_t0.c").write_text(SPIN)
    (tmp_path / "set_t1.c").write_text(SET)
    return Session({"T0": tmp_path / "spin_t0.c", "T1": tmp_path / "set_t1.c"})


def _cont_within(s: Session, seconds: float = 30.0):
    """``cont`` in a worker; a run that has not ended after ``seconds`` is interrupted and the
    test fails (before the fix it never ended)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(s.cont()), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        s.interrupt()
        worker.join(10)
        pytest.fail(f"the run did not end within {seconds} s")
    return out[0]


def _spin_line(path: Path) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if "SPIN" in line)


def test_a_false_condition_in_a_spin_loop_lets_the_other_core_run(pair: Session, tmp_path: Path) -> None:
    bp = pair.break_at(f"spin_t0.c:{_spin_line(tmp_path / 'spin_t0.c')}", thread="T0")
    bp.condition = "0"
    stop = _cont_within(pair)
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert pair.tile.exit_codes == {"T0": 0, "T1": 0}


def test_an_ignore_count_in_a_spin_loop_lets_the_other_core_run(pair: Session, tmp_path: Path) -> None:
    bp = pair.break_at(f"spin_t0.c:{_spin_line(tmp_path / 'spin_t0.c')}", thread="T0")
    bp.ignore_count = 10**9
    assert _cont_within(pair).kind is StopKind.EXITED
    with pair.on_core("T0"):
        spins = struct.unpack("<I", pair.read_memory(pair.symbol("results").addr, 4))[0]
    assert bp.hits == spins + 1 or bp.hits == spins, (bp.hits, spins)


def test_until_out_of_a_spin_loop_lets_the_other_core_run(pair: Session, tmp_path: Path) -> None:
    # until (no argument) in the loop: its internal breakpoints on the loop's lines are hit with
    # a false condition (a line not past the current one) until T1 has set the flag.
    line = _spin_line(tmp_path / "spin_t0.c")
    execute(pair, f"break spin_t0.c:{line} thread 1")
    assert "SPIN" in execute(pair, "continue")
    execute(pair, "delete")
    out: list[str] = []
    worker = threading.Thread(target=lambda: out.append(execute(pair, "until")), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():
        pair.interrupt()
        worker.join(10)
        pytest.fail("until did not return within 30 s")
    assert pair.tile.cores["T1"].state.name == "EXITED"
    assert execute(pair, "p $pc") and pair.tile.read(pair.tile.cores["T0"], FLAG, 4) == b"\x01\0\0\0"


def test_the_order_is_the_same_every_time(pair: Session, tmp_path: Path) -> None:
    def hits() -> int:
        s = Session({"T0": tmp_path / "spin_t0.c", "T1": tmp_path / "set_t1.c"})
        bp = s.break_at(f"spin_t0.c:{_spin_line(tmp_path / 'spin_t0.c')}", thread="T0")
        bp.condition = "0"
        assert _cont_within(s).kind is StopKind.EXITED
        return bp.hits

    assert len({hits() for _ in range(3)}) == 1


def test_two_sessions_in_two_threads_both_finish(tmp_path: Path) -> None:
    # Issue 26 item 13: the preemption watcher followed one turn for the whole process, so a
    # second session's turn made it forget the first's; a spinning T0 that needs preemption then
    # never yielded.  Each session here needs it (T0 spins until T1 sets the flag).
    (tmp_path / "spin_t0.c").write_text(SPIN)
    (tmp_path / "set_t1.c").write_text(SET)
    programs = {"T0": tmp_path / "spin_t0.c", "T1": tmp_path / "set_t1.c"}
    sessions = [Session(programs), Session(programs)]
    stops: dict[int, object] = {}
    workers = [threading.Thread(target=lambda i=i: stops.__setitem__(i, sessions[i].cont()), daemon=True)
               for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    hung = [i for i, w in enumerate(workers) if w.is_alive()]
    for i in hung:
        sessions[i].interrupt()
    for worker in workers:
        worker.join(10)
    assert not hung, f"session(s) {hung} did not finish"
    assert all(stop.kind is StopKind.EXITED for stop in stops.values())
