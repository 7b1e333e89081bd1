"""Firmware from ``firmware/`` run on the emulated tile; expected values worked by hand from
Dst.md's Load/Store functions (seed 000) and the instruction encodings."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tdbg.session import Session
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import demo_source
from examples import EXAMPLES


def run(name: str) -> Session:
    s = Session(demo_source() if name == "demo" else EXAMPLES / f"{name}.c")
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert s.read_u32(s.symbol("tdbg_exit_code").addr) == 0
    return s


def words(s: Session, name: str, count: int, fmt: str = "I") -> list[int]:
    sym = s.symbol(name)
    size = struct.calcsize(fmt)
    return list(struct.unpack(f"<{count}{fmt}", s.read_memory(sym.addr, count * size)))


def fp32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_dst_fill_fp32_then_bf16() -> None:
    s = run("dst_fill")
    want = [fp32(r * 0.5 + c - 3.0) for r in range(64) for c in range(16)]
    assert words(s, "results", 1024) == want
    # Dst32b[r][c] is DstBits[Adj32(r)][c] << 16 | DstBits[Adj32(r)+8][c]; with no remap,
    # Adj32(r) = ((r & 0x1f8) << 1) | (r & 7).  A BF16 load of Dst16b[R][c] = DstBits[R][c]
    # shows the high half (as CPU BF16 = fp32 bits >> 16) when R & 8 == 0, else the low half (0).
    bf16 = words(s, "results_bf16", 128 * 16, "H")
    for R in range(128):
        r = ((R & 0x70) >> 1) | (R & 7)
        for c in range(16):
            expect = 0 if R & 8 else fp32(r * 0.5 + c - 3.0) >> 16
            assert bf16[R * 16 + c] == expect, (R, c)
    # the model holds the same: Dst32b rows read back through the model's FP32 layout
    hi = s.tile.tensix.dst.read32(slice(0, 64))
    ieee = (hi & 0x8000FFFF) | ((hi & 0x7F000000) >> 8) | ((hi & 0x00FF0000) << 7)
    assert ieee.reshape(-1).tolist() == want


# (stored value, value loaded back, raw Dst bits), per case of dst_formats.c, worked by hand.
DST_FORMATS = [
    (0x3F800000, 0x3F800000, 0x007F0000), (0xC0490FDB, 0xC0490FDB, 0xC9800FDB),
    (0x12345678, 0x12345678, 0x12345678), (0xFFFFFFFB, 0xFFFFFFFB, 0x80000005),
    (0x80000000, 0x80000001, 0xFFFFFFFF), (100000, 0x000186A0, 0x010086A0),
    (0xFFFFFFFB, 0xFFFFFFFB, 0xFFFFFFFB), (0x80000000, 0, 0x80000000),
    (0x3C00, 0x3C00, 0x000F), (0xC248, 0xC248, 0xC910), (0x3F80, 0x3F80, 0x007F),
    (0xC049, 0xC049, 0xC980), (0xC049, 0xC049, 0xC049), (0xFFFE, 0xFFFE, 0x8002),
    (0x8000, 0x8001, 0xFFFF), (0x1234, 0x1234, 0x1234), (0xFFFE, 0xFFFE, 0xFFFE),
    (0x8003, 0xFFFD, 0x8003), (0xFFFE, 0xFFFE, 0xFFFE), (0xFF, 0xFF, 0x9030),
    (0x80, 0x81, 0x9FF0), (200, 0xC8, 0x9710), (5, 0x05, 0x00B0), (0, 0, 0x0000),
    (200, 0xC8, 0x1910), (200, 0x48, 0x1910), (0xFF, 0xFF, 0x1FF0),
]


def test_dst_formats_every_fmt() -> None:
    s = run("dst_formats")
    n = words(s, "ncases", 1)[0]
    assert n == len(DST_FORMATS)
    got = words(s, "results", 2 * n)
    for k, (_, loaded, raw) in enumerate(DST_FORMATS):
        assert (got[2 * k], got[2 * k + 1]) == (loaded, raw), k


def test_movd2b_pushes_as_ttinsn_and_store() -> None:
    s = run("movd2b")
    pushes = s.tile.pushes
    assert [(p.word, p.via, s.tile.coprocessor.mnemonic(p.word)) for p in pushes] == [
        (0x3700000F, "ttinsn", "SETRWC"),
        (0x0A000000, "ttinsn", "MOVD2B"),
        (0x0A020001, "store", "MOVD2B"),
        (0x0A040002, "store", "MOVD2B"),
        (0x0A060003, "store", "MOVD2B"),
        (0x0A082004, "ttinsn", "MOVD2B"),
    ]
    assert all(p.core == "T0" and p.thread == 0 for p in pushes)
    ttinsn_pcs = sorted(s.image.ttinsn)
    assert [p.pc for p in pushes if p.via == "ttinsn"] == ttinsn_pcs
    # the debugger reads the original .ttinsn word, not the NOP that runs in its place
    assert s.read_u32(ttinsn_pcs[0]) == s.image.ttinsn[ttinsn_pcs[0]] == 0xDC00003C


def test_movd2b_moves_dst_rows_to_srcb() -> None:
    s = run("movd2b")
    # Dst32b[r][c] = float(r*16 + c + 1), r < 8.  ALU_ACC_CTRL_Fp32_enabled = 1 and SrcA format
    # FP32 select the BF16 style: SrcB = ShuffleBF16(Dst32b >> 16) = sign << 18 | the high seven
    # mantissa bits << 11 | exponent (seed 001).  MOVD2B rows 0..3 one by one, 4..7 as a block.
    want = np.zeros((8, 16), dtype=np.uint32)
    for r in range(8):
        for c in range(16):
            bits = fp32(float(r * 16 + c + 1))
            want[r, c] = ((bits >> 31) << 18) | (((bits >> 16) & 0x7F) << 11) | ((bits >> 23) & 0xFF)
    assert (s.tile.tensix.srcb.data[0, :8] == want).all()
    assert want[0, 0] == 0x0007F and want[0, 2] == 0x20080  # 1.0 and 3.0, by hand


def test_demo_runs() -> None:
    s = run("demo")
    assert words(s, "results", 4) == [0x3FC00000, 0x3E80, 4, 30]


@pytest.mark.parametrize("name", ["bench_window", "bench_l1"])
def test_bench_firmware_checksums(name: str) -> None:
    s = Session(EXAMPLES / f"{name}.c")
    iterations = s.symbol("iterations").addr
    s.tile.cores["T0"].uc.mem_write(iterations, struct.pack("<I", 1000))
    assert s.cont().kind is StopKind.EXITED
    assert np.uint32(words(s, "results", 2)[1]) == 1000
