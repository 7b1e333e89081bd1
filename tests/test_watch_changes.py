"""``watch dst[N]`` reports changes only, as GDB's ``watch`` does (issue 33 item 9): a store
through the window of the value the row already holds, or a Tensix instruction that leaves the
row as it was, does not stop the run.  The firmware (tests/firmware/watch_same.c) writes Dst32b
row 1 with new values and with the same ones; the expected stops are its changing writes, found
by the comments that mark them (a window store is reported after it, on the next line, as GDB
reports a watchpoint after the access; a push at its ``.ttinsn`` word)."""

from __future__ import annotations

from pathlib import Path

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.commands import execute

FIRMWARE = Path(__file__).parent / "firmware" / "watch_same.c"


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(FIRMWARE.read_text().splitlines(), 1) if marker in text)


def test_watch_dst_stops_on_changes_only() -> None:
    s = Session({"T0": FIRMWARE})
    execute(s, "watch dst[1]")
    stops = []
    while True:
        out = execute(s, "continue")
        if s.last_stop.kind is not StopKind.WATCHPOINT:
            break
        stops.append(int(out.rsplit("watch_same.c:", 1)[1].split()[0]))
    assert stops == [line_of("changes Dst32b[1][0]") + 1,      # 0 -> 1.0, after the store
                     line_of("changes it") + 1,                 # 1.0 -> 2.0 (the store of 1.0 again: none)
                     line_of("clears Dst32b[1]")]               # ZEROACC; the second one clears nothing
    assert "exited normally" in out
