"""tt-metal's own debug channels in the debugger (issue 22 item 5): the watcher's waypoints (per core
in ``info waypoints`` and in hang reports) and a device ``ASSERT`` as a named stop with its file and
line.

The kernel: ``tests/firmware/ttmetal/reader_two.cpp`` built with the watcher (``WATCHER_ENABLED``;
``WATCHER_DISABLE_STACK_USAGE``, since the wheel's firmware is built without the watcher: its
stack-usage painting needs the watcher firmware's ``__stack_base``).  Expected values come from the
sources: the waypoint ``cb_reserve_back`` writes while it waits (``WAYPOINT("CRBW")`` in the wheel's
``api/dataflow/dataflow_api.h``), the one ``ncrisck.cc`` writes when its kernel is done
(``WAYPOINT("NKFD")``), 'X' where the host's boot left it (the watcher's reset value), and the line
of reader_two.cpp's ``ASSERT``.  Needs the ttnn wheel and tdbg.ttmetal.kit (skips without them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import prepare
from ttmetal_programs import READER_TWO, operations, reader_two_add

WATCHER = {"WATCHER_ENABLED": "1", "WATCHER_DISABLE_STACK_USAGE": "1"}


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


def started(**defines: str) -> Session:
    ops, fw = operations(), firmware()
    s = Session({})
    prepare(s, reader_two_add(ops, **WATCHER, **defines), fw)
    return s


def waypoint_source(header: str, function: str) -> list[str]:
    """The WAYPOINTs ``function`` of the wheel's ``header`` writes, in order."""
    from tdbg.toolchain import ttnn

    text = (ttnn.tree().tt_metal / "hw/inc" / header).read_text()
    body = text[text.index(f"void {function}("):]
    body = body[:body.index("\n}\n")]
    return re.findall(r'WAYPOINT\("([^"]+)"\)', body)


def test_waypoints_in_a_hang_report_and_in_info_waypoints() -> None:
    s = started(PAGES_PER_PUSH="4")            # CBs of 2 pages: NC waits in cb_reserve_back forever
    waiting = waypoint_source("api/dataflow/dataflow_api.h", "cb_reserve_back")[0]
    assert waiting == "CRBW"
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK
    assert stop.report[-1] == f"  waypoints: B 'X', NC '{waiting}', T0 'X', T1 'X', T2 'X'"
    lines = {line.split()[0]: line for line in s.execute("info waypoints").splitlines()}
    assert re.match(rf"NC\s+'{waiting}'\s+blocked: polls NoC overlay", lines["NC"])
    assert "reader_two.cpp:" in lines["NC"]
    assert re.match(r"T1\s+'X'\s", lines["T1"])


def test_a_kernel_that_returned_left_ncriscks_last_waypoint() -> None:
    s = started()
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done")
    from tdbg.toolchain import ttnn

    ncrisck = ttnn.tree().tt_metal / "hw/firmware/src/tt-1xx/ncrisck.cc"
    assert re.findall(r'WAYPOINT\("([^"]+)"\)', ncrisck.read_text())[-1] == "NKFD"
    assert re.match(r"NC\s+'NKFD'\s", s.execute("info waypoints").splitlines()[1])


def test_a_device_assert_is_a_named_stop_with_its_file_and_line() -> None:
    line = next(i for i, text in enumerate(READER_TWO.read_text().splitlines(), 1) if "ASSERT(num_tiles < MAX_TILES)" in text)
    s = started(MAX_TILES="3")                 # 4 tiles: the ASSERT trips
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.core == "NC"
    assert stop.detail == f"tt-metal device assert: NC tripped ASSERT at reader_two.cpp:{line} (DebugAssertTripped)"
    shown = s.execute("info waypoints")
    assert re.match(r"NC\s+'K'\s", shown.splitlines()[1])      # ncrisck's waypoint before kernel_main
    assert stop.report == (f"  NC hangs in assert_and_hang, at {s.describe_pc('NC', stop.pc)}",)
