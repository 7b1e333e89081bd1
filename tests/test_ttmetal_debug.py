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
from tdbg.ttmetal.program import from_spec, prepare
from ttmetal_programs import READER_TWO, operations, printing_program, reader_two_add

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


def test_dprint_lines_show_as_the_print_server_shows_them_and_a_full_buffer_is_drained() -> None:
    """reader_two.cpp prints a line with its arguments, 8 lines of five types a page (64 lines of
    20 bytes: more than the 1000-byte buffer, so the kernel waits for the host to drain it), and
    a last line; they come out in order, formatted as {fmt} formats them (here by Python's
    format, whose rules match for these types: computed independently below)."""
    ops, fw = operations(), firmware()
    assert from_spec({"dprint": True}, Path(".")).dprint
    program = reader_two_add(ops, tiles=8, PRINT_EACH="8")
    program.dprint = True
    s = Session({})
    host = prepare(s, program, fw)
    a, b = (program.buffers[n].address for n in "ab")
    expected = [f"reader: 8 tiles from {a:#x} and {b:#x}"]
    expected += [f"page {t} line {i}: {'true' if i % 2 == 0 else 'false'} {t * 256 + i:#06x} {-i:>4}"
                 for t in range(8) for i in range(8)]
    expected.append("reader: done")
    assert 64 * 20 > host.mailboxes.field("dprint_buf.buffer.data").size
    out = s.execute("run")
    assert "tt-metal program done" in out
    assert [line for line in out.splitlines() if line.startswith("0:(x=0,y=0):")] == \
        [f"0:(x=0,y=0):NC: {line}" for line in expected]
    assert [(p.core, p.text) for p in host.drain_prints(s)] == [("NC", line) for line in expected]


def test_dprint_from_every_trisc_and_ncrisc() -> None:
    """compute_print.cpp prints on each TRISC (DPRINT_UNPACK/_MATH/_PACK) and on all three; each
    core's lines come out with its RISC name, in its order."""
    ops, fw = operations(), firmware()
    s = Session({})
    program = printing_program(ops, tiles=2)
    prepare(s, program, fw)
    out = s.execute("run")
    assert "tt-metal program done" in out
    shown = [line for line in out.splitlines() if line.startswith("0:(x=0,y=0):")]
    by_core: dict[str, list[str]] = {}
    for line in shown:
        risc, _, text = line.removeprefix("0:(x=0,y=0):").partition(": ")
        by_core.setdefault(risc, []).append(text)
    a, b = (program.buffers[n].address for n in "ab")
    assert by_core == {"NC": [f"reader: 2 tiles from {a:#x} and {b:#x}", "reader: done"],
                       "TR0": ["unpack: 2 tiles", "all: false"], "TR1": [f"math: {2 + 250:x} tiles", "all: false"],
                       "TR2": [f"pack: {-2:>5}", "all: false"]}
