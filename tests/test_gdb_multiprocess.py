"""The stub keeps one symbol file per core: GDB's multiprocess extensions make each core a process
with its own exec file (as tt-exalens' GDB server does), so gdb-multiarch finds a function of any
core's ELF and shows every core's frames with no ``file``; watchpoint hits made by a Tensix unit
reach GDB as ``watch:ADDR``; and the thread a stop is reported on never depends on host time.

Expected texts are gdb-multiarch 13.1's; values come from the firmware sources (eltwise: A's
first datum BF16 1.0 plus B's 0 packed as FP32 1.0 = 0x3F800000 at 0x50000, FloatBitPatterns.md)
and from the run model (README: a core keeps its turn until it stops, waits, parks or exits).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build
from tdbg.session import Session
from examples import EXAMPLES
from tests.captured import run, shell
from tests.rsp_client import served

TESTS_FW = Path(__file__).parent / "firmware"
GDB = shutil.which("gdb-multiarch")
needs_gdb = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")


def programs(elfs: dict[str, Path]) -> str:
    return " ".join(f"{core}={path}" for core, path in elfs.items())


def trio(stem: str) -> dict[str, Path]:
    return {f"T{i}": build(EXAMPLES / f"{stem}_t{i}.c", core=f"T{i}") for i in range(3)}


def spin_pair(*flags: str) -> dict[str, Path]:
    return {"T0": build(TESTS_FW / "spin_t0.c", list(flags), core="T0"), "T1": build(TESTS_FW / "spin_t1.c", core="T1")}


def gdb(elfs: dict[str, Path], *commands: str, multiprocess: bool = True) -> str:
    args = [GDB, "-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set remotetimeout 120"]
    if not multiprocess:
        args += ["-ex", "set remote multiprocess-feature-packet off"]
    args += ["-ex", f"target remote | {sys.executable} -m tdbg --rsp-stdio {programs(elfs)}"]
    for c in commands:
        args += ["-ex", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_each_core_is_a_process_with_its_exec_file() -> None:
    elfs = trio("pipeline")
    with served(Session(elfs)) as c:
        assert b"multiprocess+" in c.ask(b"qSupported:multiprocess+;swbreak+")
        assert c.ask(b"qfThreadInfo") == b"mp1.1,p2.1,p3.1"
        assert c.ask(b"qC") == b"QCp1.1"
        assert c.ask(b"qXfer:exec-file:read:2:0,fff") == b"l" + str(elfs["T1"]).encode()
        assert c.ask(b"qXfer:exec-file:read:3:0,fff") == b"l" + str(elfs["T2"]).encode()
        assert c.ask(b"Hgp2.1") == b"OK" and c.ask(b"p20") == (0xB000).to_bytes(4, "little").hex().encode()
        assert c.ask(b"Z0,b000,4") == b"OK"             # a breakpoint in process 2 (T1) only
        assert c.ask(b"vCont;c:p2.1").startswith(b"T05thread:p2.1;")


@needs_gdb
def test_break_on_another_cores_function_and_its_frames_without_file() -> None:
    """packer_formats is in eltwise_t2.c only: GDB reads T2's ELF for process 3."""
    out = gdb(trio("eltwise"), "info threads", "break packer_formats", "set schedule-multiple on", "continue", "bt",
              "thread 2.1", "frame")
    assert "[New inferior 2]" in out and "[New inferior 3]" in out
    assert "* 1.1  Thread 1.1 (T0 stopped) _start () at " in out and "  3.1  Thread 3.1 (T2 stopped) _start () at " in out
    assert "Breakpoint 1 at 0x" in out and ": packer_formats. (2 locations)" in out   # both in T2's ELF
    assert "Thread 3.1 hit Breakpoint 1.1, packer_formats (out_fmt=0, out_addr=327680, exp_sections=0) at " in out
    assert "#1  main () at " in out and "eltwise_t2.c:" in out   # T2's own frames
    assert "[Switching to thread 2.1 (Thread 2.1)]" in out


@needs_gdb
@pytest.mark.parametrize("multiprocess", [True, False])
def test_a_tensix_unit_write_hits_a_gdb_watchpoint(multiprocess: bool) -> None:
    """The PACR of T2 writes the sum tile at 0x50000 (before: the stop reply had no watch:ADDR
    and GDB said SIGTRAP)."""
    out = gdb(trio("eltwise"), "set schedule-multiple on", "set {int}0x30000 = 0x3f803f80", "watch *(int*)0x50000",
              "continue", "p/x *(int*)0x50000", multiprocess=multiprocess)
    assert "Hardware watchpoint 1: *(int*)0x50000\n\nOld value = 0\nNew value = 1065353216\n" in out
    assert "SIGTRAP" not in out and "$1 = 0x3f800000" in out
    assert "T2 PACR " in out and "wrote L1 0x50000..0x50100" in out


def test_the_stop_core_does_not_depend_on_host_time() -> None:
    """T0 computes for far longer than a slice of host time before marker(); T1 calls marker()
    at once.  T0 runs first and never waits, so it keeps its turn: T0 stops first, every run
    (before, T0 was cut after a tenth of a second and T1's stop came first)."""
    s = Session(spin_pair())
    s.break_at("marker")
    assert [(st.kind, st.core) for st in (s.cont(), s.cont())] == [(StopKind.BREAKPOINT, "T0"), (StopKind.BREAKPOINT, "T1")]


def test_a_core_spinning_on_l1_waits_for_it() -> None:
    """With -DSPIN T0 spins on an L1 word only T1 writes: it waits for that word (tdbg.emu.idle;
    its registers repeat, unlike the counting loop above), T1 runs, hits marker, sets the word,
    and T0 goes on."""
    sh = shell(Session(spin_pair("-DSPIN")))
    run(sh, "break marker")
    assert "Thread 2 (T1) hit Breakpoint 1.2, marker ()" in run(sh, "run")
    threads = run(sh, "set width unlimited", "info threads")
    assert "Thread 1 (T0) [blocked: spins at 0x" in threads and "reading L1 0x38000 (= 0x0)" in threads
    assert "Thread 1 (T0) hit Breakpoint 1.1, marker ()" in run(sh, "continue")


@needs_gdb
def test_gdb_reports_the_same_thread_every_run() -> None:
    out = gdb(spin_pair(), "set schedule-multiple on", "break marker", "continue", "continue")
    assert "Breakpoint 1 at 0x" in out and "(2 locations)" in out
    first, second = out.index("Thread 1.1 hit Breakpoint 1.1, marker ()"), out.index("Thread 2.1 hit Breakpoint 1.2, marker ()")
    assert first < second
