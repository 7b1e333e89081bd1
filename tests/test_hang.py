"""Hang reports that close the loop: each blocked core's wait (one entry, whatever its words),
where the held Tensix instruction and the wait latched before it were pushed, the semaphores and
mutexes by the names the ELF's DWARF gives them (tt-llk's ``ckernel::semaphore`` /
``ckernel::mutex``), which core's firmware would post or release them and that core's state,
then every core's backtrace as ``thread apply all bt`` prints them.

Expected lines and addresses come from the firmware sources (tests/firmware/hang_t*.cpp,
llk_sync.h: the marker comments name each line) and SyncUnit.md (semaphore i at PC_BUF_BASE
0xFFE80000 + 0x20 + 4i); the backtraces are ``thread apply all bt``'s (gdb-multiarch 13.1's
layout: a blank line, ``Thread N (...):``, the frames, highest thread first).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build, firmware_dir
from tdbg.session import Session
from examples import EXAMPLES
from tests.captured import run, shell

TESTS_FW = Path(__file__).parent / "firmware"
GDB = shutil.which("gdb-multiarch")


def line_of(name: str, marker: str) -> int:
    """The line of ``name`` (in tests/firmware) that holds ``marker``."""
    lines = (TESTS_FW / name).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


def hang_elfs() -> dict[str, Path]:
    return {f"T{i}": build(TESTS_FW / f"hang_t{i}.cpp", core=f"T{i}") for i in range(3)}


def test_a_wait_whose_words_hold_a_semicolon_is_one_entry() -> None:
    """A STALLWAIT on two conditions: its wait text joins them with '; '.  The stop carries the
    waits as a list; before, the shell split its joined text again and printed T0's wait as two."""
    sh = shell(Session({"T0": TESTS_FW / "stall_two.c"}))
    stop = sh[0].session.cont()
    assert stop.kind is StopKind.DEADLOCK and [w.core for w in stop.waits] == ["T0"]
    assert "; C8: " in stop.waits[0].reason
    sh[0].session.restart()
    text = run(sh, "set width unlimited", "run")
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("  T")] == [next(line for line in lines if line.startswith("  T0: "))]
    assert not any(line.lstrip().startswith("C8:") for line in lines)
    assert "    MOVD2B was pushed by T0 at 0x" in text and f"stall_two.c:{line_of('stall_two.c', 'TT_OP_MOVD2B')}" in text
    assert "    the STALLWAIT holding it was pushed by T0 at 0x" in text and \
        f"stall_two.c:{line_of('stall_two.c', 'TT_OP_STALLWAIT')}\n" in text


def test_the_three_core_hang_closes_the_loop() -> None:
    s = Session(hang_elfs())
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK and [w.core for w in stop.waits] == ["T0", "T1", "T2"]
    s.restart()
    text = run(shell(s), "set width unlimited", "run")
    t1, t2 = "hang_t1.cpp", "hang_t2.cpp"
    pc = r"0x[0-9a-f]{8}"
    expected = [
        # T0 polls semaphore 7 (MATH_DONE): 0xFFE80000 + 0x20 + 4 * 7
        rf"  T0: polls semaphore 7 \(MATH_DONE\) at 0xffe8003c \(reads 0x0\), which nothing has changed "
        rf"\({pc} in main at hang_t0.cpp:{line_of('hang_t0.cpp', 'T0 waits')}\)",
        r"    it needs a post of semaphore 7 \(MATH_DONE\), made by:",
        rf"      T1 \(blocked\): SEMPOST at {pc} in main at {t1}:{line_of(t1, 'T1 posts MATH_DONE')}",
        # T1: its MOVD2B is held by its SEMWAIT on MATH_PACK, which T2 would post
        rf"  T1: TTSync load at {pc} waits for the coprocessor: MOVD2B held by the latched SEMWAIT .*"
        rf"inlined in main at {t1}:{line_of(t1, 'tdbg_wait_coprocessor_done')}\)",
        rf"    MOVD2B was pushed by T1 at {pc} in main at {t1}:{line_of(t1, 'T1 pushes the MOVD2B')}",
        rf"    the SEMWAIT holding it was pushed by T1 at {pc} in main at {t1}:{line_of(t1, 'T1 latches the wait')}",
        r"    it needs a post of semaphore 1 \(MATH_PACK\), made by:",
        rf"      T2 \(blocked\): a store to semaphore 1 \(MATH_PACK\) at {pc} in tdbg_semaphore_post at tensix.h:\d+, "
        rf"inlined in main at {t2}:{line_of(t2, 'T2 posts MATH_PACK')}",
        # T2 asks for mutex 0 (REG_RMW), which T1 holds and would release after its own wait
        rf"  T2: TTSync load at {pc} waits for the coprocessor: ATGETM 0 waits for mutex 0, held by T1 .*",
        rf"    ATGETM was pushed by T2 at {pc} in (ckernel::)?t6_mutex_acquire at llk_sync.h:\d+, "
        rf"inlined in main at {t2}:{line_of(t2, 'T2 asks for the mutex')}",
        r"    it needs mutex 0 \(REG_RMW\) released by T1's thread \(ATRELM\), made by:",
        rf"      T1 \(blocked\): ATRELM 0 \(stored to INSTRN_BUF_BASE\) at {pc} in (ckernel::)?t6_mutex_release at llk_sync.h:\d+, "
        rf"inlined in main at {t1}:{line_of(t1, 'T1 releases the mutex')}",
    ]
    lines = text.splitlines()
    start = lines.index("Program stopped: deadlock: no core can run.") + 1
    for pattern, line in zip(expected, lines[start:start + len(expected)], strict=True):
        assert re.fullmatch(pattern, line), (pattern, line)
    # thread apply all bt, highest thread first
    heads = [i for i, line in enumerate(lines) if re.fullmatch(r"Thread \d \(T\d\):", line)]
    assert [lines[i] for i in heads] == ["Thread 3 (T2):", "Thread 2 (T1):", "Thread 1 (T0):"]
    assert all(lines[i - 1] == "" and lines[i + 1].startswith("#0  ") for i in heads)
    assert lines[heads[2] + 1].startswith("#0  main () at ") and lines[heads[2] + 1].endswith(f"hang_t0.cpp:{line_of('hang_t0.cpp', 'T0 waits')}")
    assert lines[heads[1] + 3].startswith("#2  main () at ") and lines[heads[1] + 3].endswith(f"{t1}:{line_of(t1, 'tdbg_wait_coprocessor_done')}")


def test_the_deadlock_trio_names_who_would_post() -> None:
    """tdbg's C example: T0 and T2 each poll the semaphore the other posts after its loop."""
    fw = firmware_dir()
    text = run(shell(Session({f"T{i}": EXAMPLES / f"deadlock_t{i}.c" for i in range(3)})), "set width unlimited", "run")
    assert "    it needs a post of semaphore 2, made by:\n      T2 (blocked): a store to semaphore 2 at 0x" in text
    assert "    it needs a post of semaphore 0, made by:\n      T0 (blocked): a store to semaphore 0 at 0x" in text
    assert "    it needs a post of semaphore 1: no core's firmware makes one\n" in text   # T1's SEMWAIT


def test_at_80_columns_the_report_wraps_and_says_the_same() -> None:
    """``set width 80`` (the default): no line of the hang report, backtraces and stop line is
    longer; a wrapped line's continuations are indented four more, and the words are the
    unlimited layout's."""
    s = Session(hang_elfs())
    sh = shell(s)
    wide = run(sh, "set width unlimited", "run")
    s.restart()
    narrow = run(sh, "set width 80", "run")
    assert max(len(line) for line in wide.splitlines()) > 80
    assert all(len(line) <= 80 for line in narrow.splitlines())
    assert "".join(narrow.split()) == "".join(wide.split())
    lines = narrow.splitlines()
    t0 = next(i for i, line in enumerate(lines) if line.startswith("  T0: polls semaphore 7 (MATH_DONE) at 0xffe8003c"))
    assert lines[t0 + 1].startswith("      ") and not lines[t0 + 1].startswith("       ")   # four more than its line


@pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")
def test_the_stub_reports_each_wait_on_its_own_line() -> None:
    elfs = hang_elfs()
    programs = " ".join(f"{core}={path}" for core, path in elfs.items())
    args = [GDB, "-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set remotetimeout 60",
            "-ex", f"target remote | {sys.executable} -m tdbg --rsp-stdio {programs}",
            "-ex", "set schedule-multiple on", "-ex", "continue"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=180)
    out = done.stdout + done.stderr
    assert "Program stopped: deadlock: no core can run.\n  T0: polls semaphore 7 (MATH_DONE)" in out
    assert "\n  T1: TTSync load" in out and "\n  T2: TTSync load" in out
    assert "    it needs mutex 0 (REG_RMW) released by T1's thread (ATRELM), made by:" in out
