"""tt-metal's circular buffers as a debugger sees them (issue 22 item 4): ``info cb``, hang reports
that name the CB, the waiting core and the producer's state, ``tile cb N [page P]``, ``watch cb N``.

The programs: ``tests/firmware/ttmetal/reader_two.cpp`` (our reader: ``NEVER_PUSH`` reads but never
pushes; ``PAGES_PER_PUSH`` reserves and pushes that many pages at a time) with ttnn's eltwise add
compute kernel and writer.  Expected values come from the program's own facts: the CBs it declares
(2 pages of 2048 bytes each, at the addresses tt-metal 0.81.1 gave them on ttsim:
``tests/data/ttmetal_programs_ttsim.json``), the tiles it writes (small integers, so bfloat16 holds
them exactly: a datum's bits are its float32 bits' upper half) and numpy's sum.  Needs the ttnn wheel
and tdbg.ttmetal.kit (skips, saying so, without them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.ttmetal import boot, cbs
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import prepare
from tdbg.commands import execute
from ttmetal_programs import TTSIM, exact_inputs, operations, reader_two_add

CB_ADDRESS = {int(i): int(a, 16) for i, a in TTSIM["add"]["cb_addresses"].items()}   # 2-page CBs, measured


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


def started(tiles: int = 4, cb_pages: int = 2, **defines: str) -> Session:
    ops, fw = operations(), firmware()
    s = Session({})
    prepare(s, reader_two_add(ops, tiles, cb_pages, **defines), fw)
    return s


def bf16_bits(tile: np.ndarray) -> np.ndarray:
    """The bfloat16 bits of values bfloat16 holds exactly."""
    return (tile.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def shown_tile(text: str) -> np.ndarray:
    """The 32x32 datums ``tile/x`` printed (``set width unlimited``: a face row a line)."""
    out = np.full((32, 32), -1, np.int64)
    c0 = None
    for line in text.splitlines():
        face = re.match(r"Face \d \(tile rows \d+-\d+, columns (\d+)-\d+\):", line)
        if face:
            c0 = int(face.group(1))
            continue
        row = re.match(r"\s*(\d+): (.*)", line)
        if row and c0 is not None:
            words = [int(w, 16) for w in row.group(2).split()]
            out[int(row.group(1)), c0:c0 + len(words)] = words
    assert (out >= 0).all(), text
    return out


def test_a_reader_that_never_pushes_hangs_naming_the_cb_the_waiter_and_the_producer() -> None:
    s = started(NEVER_PUSH="1")
    seen: list = []
    s.stop_listeners.append(seen.append)
    shown = execute(s, "continue")
    stop = seen[-1]
    assert stop.kind is StopKind.DEADLOCK
    report = list(stop.report)
    t0 = next(i for i, line in enumerate(report) if line.startswith("  T0 "))
    assert report[t0].startswith("  T0 waits in cb_wait_front for 1 page on CB 0 (2 pages): 0 pages received, 0 acknowledged, "
                                 "0 in the CB; at ")
    assert "eltwise_binary_kernel.cpp:" in report[t0]
    assert report[t0 + 1].startswith("    no core has pushed into CB 0, and none waits in cb_reserve_back on it; "
                                     "kernels that have returned: NC; NC filled the page it waits for (read at 0x")
    assert report[t0 + 1].endswith(") and did not push it")
    assert "  idle in their firmware: NC (kernel returned)" in report
    assert any(line.startswith("  B waits in cb_wait_front for 1 page on CB 2 (2 pages): 0 pages received") for line in report)
    assert "Program stopped: deadlock: no core can run." in shown and report[t0][:60] in shown   # the shell says it too

    info = execute(s, "info cb").splitlines()
    for index in (0, 1, 2):
        assert (f"CB {index}: 2 pages of 2048 bytes at {CB_ADDRESS[index]:#x} (Float16_b): 0 pages received, "
                f"0 acknowledged, 0 in the CB") in info
    only = execute(s, "info cb 0")
    assert "T0 waits in cb_wait_front for pages, at " in only and "CB 1:" not in only
    assert execute(s, "info cb 5", check=False).strip() == "The program has no CB 5 (its CBs: 0, 1, 2)."
    assert execute(s, "info cb x", check=False).strip() == "A CB number, not 'x'."


def test_a_cb_too_small_for_the_pages_pushed_at_once_hangs_saying_so() -> None:
    s = started(PAGES_PER_PUSH="4")                 # 4 pages reserved at a time in CBs of 2
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK
    report = list(stop.report)
    nc = next(i for i, line in enumerate(report) if line.startswith("  NC "))
    assert report[nc].startswith("  NC waits in cb_reserve_back for 4 pages of space on CB 0 (2 pages): 0 in use "
                                 "(0 received, 0 acknowledged); it asks for more than the CB's 2 pages: "
                                 "the CB is too small; at ")
    assert "reader_two.cpp:" in report[nc]
    assert report[nc + 1] == "    T0, the consumer, has not popped from CB 0 yet: it waits in cb_wait_front for pages on it"
    t0 = next(i for i, line in enumerate(report) if line.startswith("  T0 "))
    assert report[t0 + 1] == ("    NC, the producer, has not pushed into CB 0 yet: it waits in cb_reserve_back "
                              "for space on it")


def test_the_same_reader_with_cbs_that_hold_its_pages_adds() -> None:
    """The control of the test above: CBs of 4 pages, and the program runs to numpy's sum."""
    s = started(cb_pages=4, PAGES_PER_PUSH="4")
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done")
    a, b = exact_inputs(4)
    assert np.array_equal(s.host.result.tensor("c", a.shape), a + b)


def test_watch_cb_fires_on_each_push_and_tile_cb_shows_its_pages() -> None:
    s = started()
    a, b = exact_inputs(4)
    execute(s, "set width unlimited")
    assert execute(s, "watch cb 0").strip() == "Hardware watchpoint 1: cb 0 pages received"
    for pushed in (1, 2):
        out = execute(s, "continue")
        assert "hit Hardware watchpoint 1: cb 0 pages received" in out and "Thread 5 (NC)" in out
        assert f"Old value = {pushed - 1}\nNew value = {pushed}" in out
        state = cbs.states(s, s.host, 0)[0]
        assert state.received == pushed
        for page in range(pushed - state.acked):           # the pages in the CB: tiles acked.. of A
            tile = state.acked + page
            shown = execute(s, f"tile/x cb 0 page {page}")
            assert shown.startswith(f"Tile at {CB_ADDRESS[0] + (tile % 2) * 2048:#x} as bf16")
            assert np.array_equal(shown_tile(shown), bf16_bits(a[:, 32 * tile:32 * tile + 32]))
    assert np.array_equal(shown_tile(execute(s, "tile/x cb 1")), bf16_bits(b[:, 0:32]))   # B's first tile
    execute(s, "delete 1")
    stop = s.cont()
    assert stop.kind is StopKind.HOST
    assert np.array_equal(s.host.result.tensor("c", a.shape), a + b)


def test_cb_commands_say_what_is_wrong_in_one_line() -> None:
    s = Session({})
    assert execute(s, "info cb", check=False).strip() == "No tt-metal program is loaded ('tt-metal program FILE')."
    assert execute(s, "tile cb 0", check=False).strip() == "No tt-metal program is loaded ('tt-metal program FILE')."
    assert execute(s, "watch cb 99", check=False).strip() == "There is no CB 99."
