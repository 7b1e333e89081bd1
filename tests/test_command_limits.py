"""Issue 15 at the command level: breakpoint number lists as GDB takes them (item 12), file
commands on weird files (item 16), sizes checked before work with the limit named and long
commands stopped by Ctrl-C (item 9), memory shown where it is bounded (item 18).

Expected texts follow GDB (``breakpoint.c``'s number_or_range_parser messages, measured with
gdb 13 in batch mode: "No breakpoint number 99.", "Inverted breakpoint range at '5-3'", "Bad
breakpoint number 'foo'", "Negative breakpoint number '-1'"; no argument means every
breakpoint and watchpoint; a missing number is reported and the rest of the list still done)."""

from __future__ import annotations

import re

import pytest

from tdbg.emu.toolchain import firmware_dir
from tdbg.session import Session

FW = firmware_dir()


def run(s: Session, line: str) -> str:
    return s.execute(line, check=False)


def enb(s: Session) -> dict[int, str]:
    """Number -> the Enb column of ``info breakpoints``."""
    rows = [re.match(r"(\d+)\s+(?:breakpoint|hw watchpoint|read watchpoint|acc watchpoint)\s+\S+\s+([yn])\s", line)
            for line in run(s, "info breakpoints").splitlines()]
    return {int(m.group(1)): m.group(2) for m in rows if m}


@pytest.fixture
def demo() -> Session:
    s = Session(FW / "demo.c")
    s.execute("break main")           # 1
    s.execute("watch results[2]")     # 2: demo.c stores 4 there
    s.execute("tbreak fill_row")      # 3
    return s


def test_disable_and_enable_without_arguments_take_watchpoints_too(demo: Session) -> None:
    assert run(demo, "disable") == ""
    assert enb(demo) == {1: "n", 2: "n", 3: "n"}
    assert "exited normally" in run(demo, "run")          # nothing fires, the watchpoint neither
    assert run(demo, "enable") == ""
    assert enb(demo) == {1: "y", 2: "y", 3: "y"}


def test_a_watchpoint_is_disabled_by_number_and_ranges_work(demo: Session) -> None:
    run(demo, "disable 1 3")
    assert enb(demo) == {1: "n", 2: "y", 3: "n"}
    assert "Hardware watchpoint 2: results[2]" in run(demo, "run")
    run(demo, "disable 2-3")
    run(demo, "enable 1-1")
    assert enb(demo) == {1: "y", 2: "n", 3: "n"}
    assert "Breakpoint 1," in run(demo, "run")
    assert "exited normally" in run(demo, "continue")      # the disabled watchpoint stays quiet


def test_missing_numbers_are_reported_and_the_rest_is_done(demo: Session) -> None:
    out = run(demo, "delete 7 2 1-1000000000")    # 2 is gone when the range comes
    assert out.splitlines() == ["No breakpoint number 7.", "No breakpoint number 2.", "No breakpoint numbers 4-1000000000."]
    assert enb(demo) == {}
    assert run(demo, "disable 5") == "No breakpoint number 5.\n"


@pytest.mark.parametrize("args, error", [("5-3", "Inverted breakpoint range at '5-3'"), ("foo", "Bad breakpoint number 'foo'"),
                                         ("0", "Bad breakpoint number '0'"), ("-1", "Negative breakpoint number '-1'"),
                                         ("1 x", "Bad breakpoint number 'x'"), ("99999999999", "Bad breakpoint number '99999999999'")])
def test_a_bad_number_list_is_one_error_and_changes_nothing(demo: Session, args: str, error: str) -> None:
    for cmd in ("disable", "enable", "delete"):
        with pytest.raises(Exception, match=re.escape(error)):
            demo.execute(f"{cmd} {args}")
    assert enb(demo) == {1: "y", 2: "y", 3: "y"}


def test_bpnum_names_the_last_breakpoint(demo: Session) -> None:
    run(demo, "disable $bpnum")
    assert enb(demo) == {1: "y", 2: "y", 3: "n"}
