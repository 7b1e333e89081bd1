"""The Vector Unit against bits measured on Tenstorrent's simulator (``data/sfpu_ttsim.json``).

ttsim v1.10.0 ran each program with the ttsim-run harness (a probe that pushes the words one by one,
``--state`` dumps the LRegs): random LReg contents (normal, denormal, infinite, NaN and integer
patterns), then one to six random instructions among the modes ttsim implements (the FMA family,
integer and field instructions, conversions, compares, swaps, lane shifts, LUTs, the flag stack).
SFPNOP has no effect, so pushing one after each word compares the same values.
``scripts/sfpu_ttsim_fixture.py`` regenerates the file (byte for byte, from its seeds).
These bits are an independent reference: ttsim's SFPU was written by Tenstorrent, not from tdbg.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from sfpu_reference import encode, set_lreg

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.sfpu.numerics import fma
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

DATA = json.loads((Path(__file__).parent / "data" / "sfpu_ttsim.json").read_text())
TTSIM_POWER_ON = {11: 0xBF800000, 12: 0x3B000000, 13: 0xBF2CC4C7, 14: 0xBEB08FF9}  # LReg[11..14]


def words(text: str, shape: tuple[int, ...]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<u4").reshape(shape)


def test_fma_matches_ttsim(datapath: str) -> None:
    cases = words(DATA["fma"], (-1, 4, 32))
    x, y, z, expected = (cases[:, i].ravel() for i in range(4))
    got = np.concatenate([fma(x[i:i + 32], y[i:i + 32], z[i:i + 32]) for i in range(0, len(x), 32)])  # 32 lanes at a time
    assert len(got) == 768
    assert (got == expected).all(), [(hex(a), hex(b), hex(c), hex(e), hex(g))
                                     for a, b, c, e, g in zip(x, y, z, expected, got) if e != g][:5]


@pytest.mark.parametrize("case", DATA["programs"], ids=lambda c: " ; ".join(isa_of(BLACKHOLE).decode(w).mnemonic for w in c["ops"]))
def test_program_matches_ttsim(case: dict, datapath: str) -> None:
    cop = Coprocessor(TensixState())
    for reg, value in enumerate(words(case["init"], (8, 32))):
        set_lreg(cop, reg, value)
    for reg, value in TTSIM_POWER_ON.items():
        set_lreg(cop, reg, value)
    cop.push(0, encode("SFPENCC", Mod1=10, Imm2=3))
    for word in case["ops"]:
        cop.push(0, word)
        # ttsim has no pipeline: an SFPNOP after each word keeps tdbg's MAD-result hazard
        # (SFPMAD.md "Instruction scheduling") out of a comparison of values
        cop.push(0, encode("SFPNOP"))
    assert (cop.vector.lreg[:8] == words(case["lregs"], (8, 32))).all()
    flags = (case["flags"] >> np.arange(32)) & 1 != 0
    assert cop.vector.use_lane_flags.all() == bool(case["use_flags"])
    assert (cop.vector.lane_flags == flags).all()
