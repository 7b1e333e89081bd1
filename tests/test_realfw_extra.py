"""Real tt-llk kernels built outside the repository (tests/sources/* of tenstorrent/tt-llk for
Blackhole, one ELF per TRISC, built as ../shared/realfw/README.md says), run to their output.

``TDBG_REALFW_EXTRA`` names a folder with one folder per kernel: ``unpack.elf``, ``math.elf``,
``pack.elf``, ``params.bin``, ``A.bin``, ``B.bin``, ``expected.bin`` (the golden, in the output
format) and ``kernel.json``: ``out_addr``, ``out_size``, ``out_format`` (tt-llk's DataFormat
name), ``tiles_res``, ``tolerance`` ``[atol, rtol]`` (tt-llk's passed_test), and optionally
``ttsim`` (the file with the bytes Tenstorrent's simulator ttsim v1.10.0 wrote, which tdbg must
match bit for bit) or ``expect_stop`` (the event category both stop with).  Loaded and released
as a host does (``restore params.bin binary 0x20000`` etc., then ``run``); every TRISC must
write KERNEL_COMPLETE (0xFF) to its mailbox.  Without the variable the whole module skips,
saying so.

The golden comparison decodes L1 formats with the small decoder below (IEEE FP32 / FP16, BF16 =
the top half of FP32, BFP with one exponent per 16 datums: ``FloatBitPatterns.md``), not tdbg's.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session

ROOT = Path(os.environ["TDBG_REALFW_EXTRA"]) if os.environ.get("TDBG_REALFW_EXTRA") else None
KERNELS = sorted(p.parent.name for p in ROOT.glob("*/kernel.json")) if ROOT and ROOT.is_dir() else []

pytestmark = pytest.mark.skipif(
    not KERNELS, reason="TDBG_REALFW_EXTRA is not set or holds no kernel folders (tt-llk kernels built outside the repo)")

TILE_BYTES = {"Float32": 4096, "Float16": 2048, "Float16_b": 2048, "Bfp8_b": 1088, "Bfp4_b": 576}


def decode(raw: bytes, fmt: str, tiles: int) -> np.ndarray:
    """L1 tiles (tt-llk's layouts) as float64."""
    out = []
    for t in range(tiles):
        b = raw[t * TILE_BYTES[fmt]:(t + 1) * TILE_BYTES[fmt]]
        if fmt == "Float32":
            out.append(np.frombuffer(b, "<f4").astype(np.float64))
        elif fmt == "Float16":
            out.append(np.frombuffer(b, "<f2").astype(np.float64))
        elif fmt == "Float16_b":
            out.append((np.frombuffer(b, "<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64))
        else:  # Bfp8_b / Bfp4_b: 64 exponents, then sign-magnitude datums (low nibble first)
            mag_bits = 7 if fmt == "Bfp8_b" else 3
            d = np.frombuffer(b[64:], np.uint8).astype(np.int64)
            if fmt == "Bfp4_b":
                d = np.stack([d & 0xF, d >> 4], axis=1).reshape(-1)
            exp = np.repeat(np.frombuffer(b[:64], np.uint8).astype(np.int64), 16)
            mag = (d & ((1 << mag_bits) - 1)) * np.exp2(exp - 127.0 - (mag_bits - 1))
            out.append(np.where(d >> mag_bits & 1, -mag, mag))
    return np.concatenate(out)


@pytest.mark.parametrize("name", KERNELS)
def test_tt_llk_kernel(name: str) -> None:
    d = ROOT / name
    meta = json.loads((d / "kernel.json").read_text())
    s = Session({"T0": d / "unpack.elf", "T1": d / "math.elf", "T2": d / "pack.elf"})
    for file, address in (("params.bin", 0x20000), ("A.bin", 0x30000), ("B.bin", 0x40000)):
        s.load_binary(d / file, address)
    start = time.perf_counter()
    stop = s.cont()
    elapsed = time.perf_counter() - start
    if meta.get("expect_stop") == "deadlock":
        assert stop.kind is StopKind.DEADLOCK, stop
        return
    if "expect_stop" in meta:
        assert stop.kind is StopKind.EVENT and stop.event.category.value == meta["expect_stop"], stop
        return
    assert stop.kind is StopKind.EXITED, stop
    assert s.read_memory(0x1FFB8, 12) == b"\xff\0\0\0" * 3          # KERNEL_COMPLETE, T0..T2
    out = s.read_memory(meta["out_addr"], meta["out_size"])
    if meta.get("ttsim"):
        assert out == (d / meta["ttsim"]).read_bytes(), "differs from ttsim's bytes"
    if meta["tolerance"] is not None:
        got = decode(out, meta["out_format"], meta["tiles_res"])
        golden = decode((d / "expected.bin").read_bytes(), meta["out_format"], meta["tiles_res"])
        atol, rtol = meta["tolerance"]
        assert np.isclose(got, golden, rtol=rtol, atol=atol).all(), "outside tt-llk's tolerance of the golden"
    print(f"{name}: cont() {elapsed * 1e3:.1f} ms")
