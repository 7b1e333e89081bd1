#!/usr/bin/env python3
"""Run random Vector Unit predication sequences on Tenstorrent's simulator and write the fixture
``tests/test_sfpu_predication.py`` checks tdbg against (``tests/data/sfpu_predication_ttsim.json``).

Each case: ``LReg[0..7]`` seeded with per-lane values, then a random sequence of SFPPUSHC,
SFPPOPC, SFPSETCC, SFPENCC, SFPCOMPC, SFPGT/SFPLE, SFPIADD, SFPEXEXP, SFPLZ (which set lane flags)
with SFPLOADI, SFPLOAD, SFPSTORE, SFPMOV, SFPMAD, SFPXOR and any other instruction of
``sfpu_ttsim_fixture.random_op`` under them, in the modes ttsim v1.10.0 implements and in states it
accepts (SFPSETCC and SFPCOMPC only while lane flags are in use, no stack overflow or underflow);
two in three start with every lane enabled through the flags, one in three in VectorUnit.md's
power-on state (``sfpu_predication.START``).  ``tests/sfpu_predication.py`` wraps a case into one
word stream whose output is L1: the probe ``ttsim_probes/sfpu_push.c`` (built with the kit) pushes
it on TRISC0 of ttsim's tile (1, 2), driven through ``libttsim.so``'s public API
(``ttsim_lib.py``), and the 3 328 bytes at ``OUT`` are recorded (their sha256 and the lane-enable
marks).  24 more run bare, each on a ttsim of its own (a child process), to record ttsim's
power-on predication state.

    TTSIM_LIB=/path/to/libttsim.so python scripts/sfpu_predication_fixture.py [OUT.json] [--compare] [--cases N]

``--compare`` also runs every case on tdbg and prints how many agree (the figure the issue asks).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import sfpu_predication as prog                           # noqa: E402  (the suite's program builder)
from sfpu_ttsim_fixture import random_op                  # noqa: E402  (every mode ttsim implements)
from ttsim_lib import Ttsim, library                      # noqa: E402

from tdbg.arch.blackhole import BLACKHOLE                 # noqa: E402
from tdbg.toolchain.zig import build                      # noqa: E402
from tdbg.tensix.isa import isa_of

ENC = prog.ENC
PROBE = Path(__file__).parent / "ttsim_probes" / "sfpu_push.c"
PROG = 0x40000                       # the probe's word list; its count at PROG-4, done at PROG-8
CASES, SEED, POWER_ON_CASES = 300, 30, 24
# VectorUnit.md's power-on (UseLaneFlagsForLaneEnable false) against ttsim's (flags in use, all
# true): SFPGT sets the flags of lanes 0-10 and 11-31 apart, the SFPLOAD under it shows which
# lanes are enabled.  The first of the POWER_ON_CASES run bare (no SFPENCC first), each on a
# ttsim of its own right after power-on; the others are random.
POWER_ON_SEED = [ENC("SFPIADD", VD=j, VC=15, Mod1=5, Imm12=(-2 * (3 * j + 5)) & 0xFFF) for j in range(8)]
POWER_ON_BODY = [ENC("SFPPUSHC"), ENC("SFPLOADI", VD=3, Imm16=59030), ENC("SFPGT", Mod1=1, VD=5, VC=9),
                 ENC("SFPLOAD", Imm10=prog.DATA[3], VD=5)]


def bf16(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2)) << 15 | int(rng.integers(120, 136)) << 7 | int(rng.integers(0, 128))


def random_seed(rng: np.random.Generator) -> list[int]:
    """Words giving LReg[0..7] per-lane values: linear in the lane (FP32 or integer, crossing zero
    at a lane), constants, then a few mixes of one register into another."""
    words = []
    for j in range(8):
        kind = int(rng.integers(0, 3))
        if kind == 0:
            words += [ENC("SFPCAST", VD=j, VC=15, Mod1=0), ENC("SFPMULI", VD=j, Imm16=bf16(rng)),
                      ENC("SFPADDI", VD=j, Imm16=bf16(rng))]
        elif kind == 1:
            words.append(ENC("SFPIADD", VD=j, VC=15, Mod1=5, Imm12=(-2 * int(rng.integers(0, 32))) & 0xFFF))
            if rng.integers(0, 2):
                words.append(ENC("SFPSHFT", VD=j, Mod1=1, Imm12=int(rng.integers(0, 31))))
        else:
            words += [ENC("SFPLOADI", VD=j, Mod0=8, Imm16=int(rng.integers(0, 65536))),
                      ENC("SFPLOADI", VD=j, Mod0=10, Imm16=int(rng.integers(0, 65536)))]
    for _ in range(3):
        a, b = (int(x) for x in rng.choice(8, 2, replace=False))
        words.append(ENC("SFPXOR", VD=a, VC=b) if rng.integers(0, 2) else ENC("SFPIADD", VD=a, VC=b, Mod1=4))
    return words


def random_body(rng: np.random.Generator, use: bool) -> list[int]:
    """3..12 instructions, tracking what ttsim requires: the stack depth and whether lane flags
    are in use (UseLaneFlagsForLaneEnable, one value for every lane here) now and in each entry."""
    def r(n: int) -> int:
        return int(rng.integers(0, n))

    def vc() -> int:
        return [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 15][r(11)]

    stack, body = [], []
    for _ in range(3 + r(10)):
        while True:
            k = r(20)
            if k in (0, 1) and len(stack) < 8:
                body.append(ENC("SFPPUSHC"))
                stack.append(use)
            elif k == 2 and stack:
                body.append(ENC("SFPPOPC"))
                use = stack.pop()
            elif k == 3 and use:
                body.append(ENC("SFPSETCC", Mod1=[0, 2, 4, 6][r(4)], VC=vc()))
            elif k == 4 and r(3):
                imm = r(4)
                body.append(ENC("SFPENCC", Mod1=10, Imm2=imm))
                use = bool(imm & 1)
            elif k == 4:
                body.append(ENC("SFPENCC", Mod1=0, Imm2=0))
            elif k == 5 and use and (not stack or stack[-1]):
                body.append(ENC("SFPCOMPC"))
            elif k in (6, 7):
                body.append(ENC(["SFPGT", "SFPLE"][r(2)], Mod1=[1, 8][r(2)], VD=r(8), VC=vc()))
            elif k == 8:
                body.append(ENC("SFPIADD", Mod1=[0, 1, 2, 4, 5, 6, 8, 9, 10][r(9)], VD=r(8), VC=vc(), Imm12=r(4096)))
            elif k == 9:
                body.append(ENC("SFPEXEXP", Mod1=[0, 1, 2, 10][r(4)], VD=r(8), VC=vc()) if r(2)
                            else ENC("SFPLZ", Mod1=[0, 2, 4][r(3)], VD=r(8), VC=vc()))
            elif k == 10:
                body.append(ENC("SFPLOADI", VD=r(8), Mod0=[0, 2, 4, 8, 10][r(5)], Imm16=r(65536)))
            elif k == 11:
                body.append(ENC("SFPLOAD", VD=r(8), Mod0=[0, 3, 4, 12][r(4)], Imm10=prog.DATA[r(8)]))
            elif k == 12:
                body.append(ENC("SFPSTORE", VD=[0, 1, 2, 3, 4, 5, 6, 7, 9, 10][r(10)], Mod0=[0, 3, 4, 12][r(4)], Imm10=prog.DATA[r(8)]))
            elif k == 13:
                body.append(ENC("SFPMOV", Mod1=0, VD=r(8), VC=vc()))
            elif k == 14:
                body.append(ENC("SFPMAD", VA=vc(), VB=vc(), VC=vc(), VD=r(8), Mod1=0))
            elif k == 15:
                body.append(ENC("SFPXOR", VD=r(8), VC=vc()))
            elif k >= 16:
                word = random_op(rng)
                if not use and isa_of(BLACKHOLE).decode(word).mnemonic == "SFPSETCC":
                    continue
                body.append(word)
            else:
                continue
            break
    return body


class TtsimRunner:
    """The probe on TRISC0 of one initialised ttsim, rerun for each program."""

    def __init__(self, lib: Path) -> None:
        self.sim = Ttsim(lib)
        self.entry = self.sim.load_elf(build(PROBE))

    def run(self, words: list[int]) -> bytes:
        self.sim.hold_triscs([0])
        self.sim.write(PROG - 8, struct.pack(f"<{len(words) + 2}I", 0, len(words), *words))
        self.sim.release_triscs({0: self.entry})
        self.sim.run_until(PROG - 8, 1)
        return self.sim.read(prog.OUT, prog.ROWS * 64)


def b64(words: list[int]) -> str:
    return base64.b64encode(struct.pack(f"<{len(words)}I", *words)).decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--compare", action="store_true", help="run every case on tdbg too")
    parser.add_argument("--cases", type=int, default=CASES, help=f"the first N cases only (default {CASES})")
    parser.add_argument("--power-on", nargs=2, help=argparse.SUPPRESS)  # the child's part: SEED BODY (base64)
    args = parser.parse_args()
    lib = library()
    if lib is None:
        sys.exit("TTSIM_LIB must name a libttsim.so built for Blackhole")
    if args.power_on:
        seed, body = (prog.unpack(text) for text in args.power_on)
        print(hashlib.sha256(TtsimRunner(lib).run(prog.program(seed, body, "bare", ttsim=True))).hexdigest())
        return
    rng = np.random.default_rng(SEED + 1)
    power_on = []
    for i in range(POWER_ON_CASES):   # each on a ttsim of its own, right after power-on
        # lane flags in use for the generator: ttsim's power-on, where its SFPSETCC is legal
        seed, body = (POWER_ON_SEED, POWER_ON_BODY) if i == 0 else (random_seed(rng), random_body(rng, True))
        child = subprocess.run([sys.executable, __file__, "--power-on", b64(seed), b64(body)],
                               capture_output=True, text=True, check=True)
        power_on.append({"seed": b64(seed), "body": b64(body), "sha256": child.stdout.strip()})
    runner = TtsimRunner(lib)
    rng = np.random.default_rng(SEED)
    cases, agree = [], 0
    for i in range(args.cases):
        start = "page" if i % 3 == 2 else "enabled"
        seed, body = random_seed(rng), random_body(rng, start == "enabled")
        out = runner.run(prog.program(seed, body, start, ttsim=True))
        if i == 0:
            first = out
        case = {"start": start, "seed": b64(seed), "body": b64(body), "sha256": hashlib.sha256(out).hexdigest(),
                "marks": [prog.enabled(out, k) for k in range(prog.depth(body) + 1)]}
        cases.append(case)
        if args.compare:
            got = prog.run_tdbg(prog.program(seed, body, start))
            agree += got == out
            if got != out:
                print(f"case {i}: {prog.describe(body)}: {prog.difference(got, out)}")
    if runner.run(prog.program(*(prog.unpack(cases[0][k]) for k in ("seed", "body")), cases[0]["start"], ttsim=True)) != first:
        sys.exit("ttsim gave case 0 another output when run again after the others")
    if args.compare:
        print(f"{agree} of {args.cases} cases agree")
        def digest(case: dict, start: str) -> str:
            words = prog.program(prog.unpack(case["seed"]), prog.unpack(case["body"]), start)
            return hashlib.sha256(prog.run_tdbg(words)).hexdigest()
        bare = sum(digest(c, "bare") == c["sha256"] for c in power_on)
        enabled = sum(digest(c, "enabled") == c["sha256"] for c in power_on)
        print(f"from power-on, {len(power_on)} cases: tdbg's power-on agrees with ttsim's on {bare}; "
              f"tdbg after SFPENCC Mod1=10 Imm2=3 agrees on {enabled}")
    if args.out:
        args.out.write_text(json.dumps(
            {"source": f"ttsim v1.10.0 (tenstorrent/ttsim 56694c8, libttsim.so built for Blackhole), driven by "
                       f"scripts/sfpu_predication_fixture.py (numpy seed {SEED}): the probe pushes "
                       "tests/sfpu_predication.py's word stream on TRISC0 of tile (1, 2)",
             "encoding": "seed, body: base64 of little-endian uint32 words; sha256: of the 3328 bytes at OUT; "
                         "marks: lane-enable masks at the body's end, then after each SFPPOPC; power_on: "
                         "run bare, each on a ttsim just initialised",
             "power_on": power_on, "cases": cases}, indent=0, separators=(",", ":")) + "\n")
        print(f"{len(cases)} cases -> {args.out}")


if __name__ == "__main__":
    main()
