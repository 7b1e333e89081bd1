"""Vector Unit predication against Tenstorrent's simulator (``data/sfpu_predication_ttsim.json``).

300 random sequences of SFPPUSHC, SFPPOPC, SFPSETCC, SFPENCC, SFPCOMPC, SFPGT/SFPLE and the other
flag-setting instructions, with loads, stores and every other mode ttsim v1.10.0 implements under
them, ran on ttsim through libttsim.so (``scripts/sfpu_predication_fixture.py``); each case's
output is L1 (``sfpu_predication.py``: the LRegs, the Dst data area the body loads and stores, and
the lane-enable mask at the end and at each flag-stack entry), kept as its sha256 and its masks.
These bits are an independent reference: ttsim's SFPU was written by Tenstorrent, not from tdbg.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sfpu_predication as prog

DATA = json.loads((Path(__file__).parent / "data" / "sfpu_predication_ttsim.json").read_text())


def run(case: dict, start: str) -> bytes:
    return prog.run_tdbg(prog.program(prog.unpack(case["seed"]), prog.unpack(case["body"]), start))


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: f"{c['start']}: {prog.describe(prog.unpack(c['body']))}")
def test_sequence_matches_ttsim(case: dict) -> None:
    out = run(case, case["start"])
    marks = [prog.enabled(out, k) for k in range(len(case["marks"]))]
    assert marks == case["marks"], "lane-enable masks (end of body, then after each SFPPOPC)"
    assert hashlib.sha256(out).hexdigest() == case["sha256"], "LRegs or the Dst data area differ from ttsim's"


def test_power_on_flags_follow_the_page() -> None:
    # BlackholeA0 VectorUnit.md: UseLaneFlagsForLaneEnable and LaneFlags are initially false, so
    # an SFPGT that sets LaneFlags enables or disables nothing until an SFPENCC turns them on.
    # ttsim v1.10.0 powers on with them in use and all true (tensix.cpp tensix_init: cc_en,
    # cc = 0xFFFFFFFF): each of its bare runs (on a ttsim just initialised) is tdbg's run after
    # SFPENCC Mod1=10 Imm2=3, and tdbg's own bare run of the first, where the SFPLOAD writes
    # every lane, differs; the page rules (DESIGN.md).
    for case in DATA["power_on"]:
        assert hashlib.sha256(run(case, "enabled")).hexdigest() == case["sha256"], prog.describe(prog.unpack(case["body"]))
    first = DATA["power_on"][0]
    bare = run(first, "bare")
    assert prog.enabled(bare, 0) == 0xFFFFFFFF
    assert hashlib.sha256(bare).hexdigest() != first["sha256"]


def test_fixture_reproduces_on_ttsim(tmp_path: Path) -> None:
    # the recorded bits are ttsim's: its first cases again, when TTSIM_LIB names the library
    lib = os.environ.get("TTSIM_LIB")
    if not lib or not Path(lib).is_file():
        pytest.skip("TTSIM_LIB does not name a libttsim.so built for Blackhole")
    out = tmp_path / "again.json"
    script = Path(__file__).resolve().parents[1] / "scripts" / "sfpu_predication_fixture.py"
    subprocess.run([sys.executable, str(script), str(out), "--cases", "6"], check=True, capture_output=True)
    again = json.loads(out.read_text())
    assert again["power_on"] == DATA["power_on"]
    assert again["cases"] == DATA["cases"][:6]
