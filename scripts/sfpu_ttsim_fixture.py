#!/usr/bin/env python3
"""Measure Vector Unit programs on Tenstorrent's simulator and write the fixture that
``tests/test_sfpu_ttsim.py`` checks tdbg against (``tests/data/sfpu_ttsim.json``).

Needs ttsim built with the side-by-side harness (``ttsim-run``, which loads an ELF, writes
memory and ``Dst``, runs, and dumps the LRegs and lane flags with ``--state``).  Each program:
``SFPENCC Mod1=10 Imm2=3``, ``LReg[0..7]`` loaded from ``Dst`` (``SFPLOAD`` INT32) with random
patterns (normal, denormal, infinite, NaN, small sign-magnitude integers), then one to six
random instructions among the modes ttsim implements and the flag stack.  The FMA part: 24 x 32
random ``SFPMAD`` lanes.  The probe (``ttsim_probes/sfpu_prog.c``) pushes the words one by one.

    python scripts/sfpu_ttsim_fixture.py tests/data/sfpu_ttsim.json --ttsim-run PATH
"""

from __future__ import annotations

import argparse
import base64
import json
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from tdbg.toolchain.zig import build
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.isa import isa_of

ENC = isa_of(BLACKHOLE).encode
PROBE = Path(__file__).parent / "ttsim_probes" / "sfpu_prog.c"
LANE = np.arange(32)


def ttsim(run: str, probe: Path, words: list[int], dst32: np.ndarray) -> dict:
    """ttsim's state after the probe pushed ``words`` with ``Dst`` (FP32 view) seeded."""
    with tempfile.TemporaryDirectory() as d:
        prog, dst, state = Path(d, "prog.bin"), Path(d, "dst.bin"), Path(d, "state.json")
        prog.write_bytes(struct.pack(f"<{len(words) + 1}I", len(words), *words))
        np.asarray(dst32, dtype="<u4").tofile(dst)
        r = subprocess.run([run, f"T0={probe}", "--write", f"0x3FFFC={prog}", "--dst-fp32", f"0={dst}",
                            "--state", str(state), "--quiet"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stdout + r.stderr)
        return json.loads(state.read_text())


def rand_lreg(rng: np.random.Generator, n: int = 32) -> np.ndarray:
    kind = rng.integers(0, 12, n)
    v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    exp = rng.integers(110, 145, n).astype(np.uint32)
    out = np.where(kind < 5, (v & 0x807FFFFF) | (exp << 23), v)
    out = np.where(kind == 5, v & 0x807FFFFF, out)                     # denormal / zero
    out = np.where(kind == 6, (v & 0x80000000) | 0x7F800000, out)      # infinity
    out = np.where(kind == 7, v & 0x800000FF, out)                     # small sign-magnitude ints
    out = np.where(kind == 8, v | 0x7F800000, out)                     # NaN
    out = np.where(kind == 9, v & 0xFF, out)
    out = np.where(kind == 10, (v & 0x80000000) | 0x3F800000, out)     # +-1.0
    return out.astype(np.uint32)


def rand_fp32(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = rng.integers(0, 10, n)
    v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    exp = rng.integers(100, 155, n).astype(np.uint32)
    out = np.where(kind < 5, (v & 0x807FFFFF) | (exp << 23), v)
    out = np.where(kind == 5, v & 0x807FFFFF, out)
    out = np.where(kind == 6, (v & 0x80000000) | 0x7F800000, out)
    out = np.where(kind == 7, (v & 0x80000000) | (rng.integers(1, 255, n).astype(np.uint32) << 23), out)
    out = np.where(kind == 8, v | 0x7F800000, out)
    return out.astype(np.uint32)


def random_op(rng: np.random.Generator) -> int:
    """One instruction in a mode ttsim v1.10.0 implements."""
    def r(n: int) -> int:
        return int(rng.integers(0, n))

    def vd() -> int:   # drawn where the field is, so a seed gives the same programs
        return r(8)

    op = r(27)
    if op == 0:
        return ENC("SFPMAD", VA=r(11), VB=r(11), VC=r(11), VD=vd(), Mod1=r(4))
    if op == 1:
        return ENC("SFPADD", VA=10, VB=r(11), VC=r(11), VD=vd(), Mod1=r(4))
    if op == 2:
        return ENC("SFPMUL", VA=r(11), VB=r(11), VC=9, VD=vd(), Mod1=r(2))
    if op in (3, 4):
        return ENC("SFPADDI" if op == 3 else "SFPMULI", Imm16=r(65536), VD=vd(), Mod1=0)
    if op == 5:
        imm = r(0x80) if r(2) else 0xF80 + r(0x80)
        return ENC("SFPDIVP2", Mod1=r(2), VD=vd(), VC=r(11), Imm8=imm & 0xFF, _reserved=(imm >> 8) << 20)
    if op == 6:
        return ENC("SFPEXEXP", Mod1=[0, 1, 2, 10][r(4)], VD=vd(), VC=r(11))
    if op == 7:
        return ENC("SFPEXMAN", Mod1=r(2), VD=vd(), VC=r(11))
    if op == 8:
        return ENC("SFPIADD", Mod1=[0, 1, 2, 4, 5, 6, 8, 9, 10][r(9)], VD=vd(), VC=r(11), Imm12=r(4096))
    if op == 9:
        mod1 = [0, 1, 2, 3, 5, 7][r(6)]
        return ENC("SFPSHFT", Mod1=mod1, VD=vd(), VC=r(11), Imm12=r(4096) if mod1 & 1 else 0)
    if op == 10:
        return ENC("SFPSETCC", Mod1=[0, 2, 4, 6][r(4)], VD=0, VC=r(11))
    if op == 11:
        return ENC("SFPMOV", Mod1=r(3), VD=vd(), VC=r(11))
    if op == 12:
        return ENC("SFPABS", Mod1=r(2), VD=vd(), VC=r(11))
    if op == 13:
        mod1 = r(2)
        return ENC(["SFPAND", "SFPOR"][r(2)], Mod1=mod1, VD=vd(), VC=r(11), VB=r(11) if mod1 else 0)
    if op == 14:
        return ENC(["SFPXOR", "SFPNOT"][r(2)], VD=vd(), VC=r(11))
    if op == 15:
        return ENC("SFPLZ", Mod1=[0, 2, 4][r(3)], VD=vd(), VC=r(11))
    if op == 16:
        mod1 = r(3)
        return ENC("SFPSETEXP", Mod1=mod1, VD=vd(), VC=r(11), Imm8=r(256) if mod1 == 1 else 0)
    if op == 17:
        return ENC("SFPSETMAN", Mod1=r(2), VD=vd(), VC=r(11))
    if op == 18:
        mod1 = r(2)
        return ENC("SFPSETSGN", Mod1=mod1, VD=vd(), VC=r(11), Imm1=r(2) if mod1 else 0)
    if op == 19:
        return ENC("SFPCAST", Mod1=[0, 3][r(2)], VD=vd(), VC=r(11))
    if op == 20:
        return ENC("SFP_STOCH_RND", Mod1=[1, 2, 3, 6, 7][r(5)], VD=vd(), VC=r(11))
    if op == 21:
        return ENC("SFPSWAP", Mod1=[0, 1, 2, 3, 9][r(5)], VD=vd(), VC=r(8))
    if op == 22:
        mod1 = [3, 4, 5][r(3)]
        return ENC("SFPSHFT2", Mod1=mod1, VD=vd(), VC=r(11), Imm12=r(11) if mod1 == 5 else 0)
    if op == 23:
        return ENC("SFPLUT", Mod0=4, VD=vd()) if r(2) else ENC("SFPLUTFP32", Mod1=2, VD=vd())
    if op == 24:
        return ENC(["SFPLE", "SFPGT"][r(2)], Mod1=[1, 8][r(2)], VD=vd(), VC=r(11))
    if op == 25:
        return ENC("SFPMUL24", Mod1=r(2), VA=r(11), VB=r(11), VC=9, VD=vd())
    return ENC("SFPARECIP", Mod1=0, VD=vd(), VC=r(11)) if r(2) else ENC("SFPTRANSP")


def run_case(run: str, probe: Path, init: list[np.ndarray], ops: list[int]) -> dict:
    dst = np.zeros((512, 16), dtype=np.uint32)
    words = [ENC("SFPENCC", Mod1=10, Imm2=3)]
    for j in range(8):
        dst[4 * j + LANE // 8, (LANE & 7) * 2] = init[j]
        words.append(ENC("SFPLOAD", VD=j, Mod0=4, Imm10=4 * j))
    return ttsim(run, probe, words + ops, dst.reshape(-1))


def b64(a: np.ndarray) -> str:
    return base64.b64encode(np.asarray(a, dtype="<u4").tobytes()).decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--ttsim-run", required=True, help="the ttsim harness that runs a probe")
    args = parser.parse_args()
    probe = build(PROBE)
    rng, fma_rng = np.random.default_rng(20240611), np.random.default_rng(1)
    cases = []
    while len(cases) < 32:
        init = [rand_lreg(rng) for _ in range(8)]
        ops = []
        if rng.integers(0, 2):
            ops.append(ENC("SFPSETCC", Mod1=int(rng.choice([0, 2, 4, 6])), VD=0, VC=int(rng.integers(0, 8))))
        depth = 0
        for _ in range(1 + int(rng.integers(0, 5))):
            k = int(rng.integers(0, 8))
            if k == 0 and depth < 8:
                ops.append(ENC("SFPPUSHC", Mod1=0))
                depth += 1
            elif k == 1 and depth:
                ops.append(ENC("SFPPOPC", Mod1=0))
                depth -= 1
            elif k == 2:
                ops.append(ENC("SFPCOMPC"))
            else:
                ops.append(random_op(rng))
        st = run_case(args.ttsim_run, probe, init, ops)
        cases.append({"init": b64(np.array(init)), "ops": [int(w) for w in ops],
                      "lregs": b64(np.array(st["lregs"][:8])), "flags": st["cc"], "use_flags": st["cc_en"]})
    fma = []
    for _ in range(24):
        a, b, c = (rand_fp32(fma_rng, 32) for _ in range(3))
        init = [a, b, c] + [np.zeros(32, dtype=np.uint32)] * 5
        st = run_case(args.ttsim_run, probe, init, [ENC("SFPMAD", VA=0, VB=1, VC=2, VD=3, Mod1=0)])
        fma.append(np.array([a, b, c, st["lregs"][3]]))
    args.out.write_text(json.dumps(
        {"source": "ttsim v1.10.0 (tenstorrent/ttsim 56694c8), measured with the ttsim-run harness: "
                   "SFPENCC Mod1=10 Imm2=3, LReg[0..7] loaded from Dst (SFPLOAD INT32), then ops; "
                   "LReg[11..14] hold ttsim's power-on values",
         "encoding": "arrays are base64 of little-endian uint32, row-major: init / lregs [8][32], "
                     "fma [n][4][32] (x, y, z, x*y+z per lane)",
         "programs": cases, "fma": b64(np.array(fma))}, separators=(",", ":")))
    print(f"{len(cases)} programs, {len(fma) * 32} FMAs -> {args.out}")


if __name__ == "__main__":
    main()
