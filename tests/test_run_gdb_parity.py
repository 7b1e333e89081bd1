"""Run control as GDB does it on an embedded target: early stops (``starti``, a breakpoint on the
entry point, ``stepi``/``continue`` before ``run``) and watchpoints reported after the access,
deleted when the frame of the local they watch returns, listed by ``info watchpoints``."""

from __future__ import annotations

from pathlib import Path

from tdbg.toolchain.zig import firmware_dir
from captured import run, shell

DEMO = firmware_dir() / "demo.c"
SCOPE = Path(__file__).parent / "firmware" / "scope.c"


def test_starti_stops_before_the_first_instruction() -> None:
    sh = shell(DEMO)
    text = run(sh, "starti")
    assert text.startswith("\nProgram stopped.\n") and "_start" in text
    assert sh[0].session.pc == 0x6000


def test_a_breakpoint_on_the_entry_point_fires() -> None:
    for location in ("_start", "*0x6000"):
        sh = shell(DEMO)
        run(sh, f"break {location}")
        assert "Breakpoint 1, " in run(sh, "run") and sh[0].session.pc == 0x6000


def test_stepi_and_continue_start_a_tile_that_has_not_run() -> None:
    sh = shell(DEMO)
    assert "not being run" not in run(sh, "stepi")
    assert sh[0].session.pc == 0x6004
    assert "exited normally" in run(sh, "continue")
    assert run(sh, "continue") == "The program is not being run.\n"
    assert run(sh, "stepi") == "The program is not being run.\n"


def test_the_shell_reports_a_watchpoint_after_the_store() -> None:
    sh = shell(DEMO)
    run(sh, "break main")
    run(sh, "run")
    run(sh, "watch results[2]")
    text = run(sh, "continue")
    assert "Old value = 0\nNew value = 4\n" in text            # demo.c: results[2] = rows (4)
    assert run(sh, "print results[2]").endswith("= 4\n")       # memory holds what was reported


def test_a_watch_on_a_local_ends_with_its_frame() -> None:
    sh = shell(SCOPE)
    run(sh, "break accumulate")
    run(sh, "run")
    assert run(sh, "watch total").startswith("Hardware watchpoint 2: total")
    listing = run(sh, "info watchpoints").splitlines()
    assert listing[1].split()[:3] == ["2", "hw", "watchpoint"] and len(listing) == 2   # not breakpoint 1
    texts = [run(sh, "continue") for _ in range(8)]
    gone = next(t for t in texts if "deleted" in t)
    assert "Watchpoint 2 deleted because the program has left the block in\nwhich its expression is valid." in gone
    assert "main ()" in gone or "main" in gone
    assert run(sh, "info watchpoints") == "No watchpoints.\n"
    # total += i for i < 4: the stores of 0 leave it unchanged, and GDB reports a write
    # watchpoint only when the value changes: 1, 3, 6
    news = [int(t.split("New value = ")[1].split()[0]) for t in texts if "New value = " in t]
    assert news == [1, 3, 6]
