"""A tile end to end on three cores: the kit's eltwise firmware (unpack a BF16 and a BFP8 tile
from L1, MOVA2D and ELWADD, pack as FP32 and BFP8, semaphores between the threads).  tt-llk's own
kernels are in test_ttllk_kernels.py.

Expected values are computed here, one datum at a time: BFP8ToBF16 (UNPACR_Regular.md); the
ELWADD sum as the hardware's datapath forms it into a 16-bit BF16 Dst (measured on ttsim, the
rule restated from tdbg.tensix.fpu_datapath: the smaller operand's 11-bit significand aligned to
the larger exponent rounding half up, added, rounded to 8 significant bits half up); BF16 widened
to FP32 (Packers/FormatConversion.md); BFP8 blocks per seed 002 (shared exponent = the largest,
magnitudes rounded to nearest with ties away from zero, clamped at 127).
"""

from __future__ import annotations

import numpy as np

import unpack_reference as ref
from tdbg.commands import Interpreter
from tdbg.emu.stops import StopKind
from tdbg.session import Session
from examples import EXAMPLES


def inputs(seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = (rng.integers(0, 2, 1024) << 15) | (rng.integers(120, 135, 1024) << 7) | rng.integers(0, 128, 1024)
    exps = rng.integers(118, 133, 64)
    data = rng.integers(0, 256, 1024)
    data = np.where(data & 0x7F == 0, 0, data)   # no sign-and-zero datum: that reads as -inf
    return a, exps, data


def elwadd_bf16(a: int, b: int) -> int:
    """IEEE BF16 a + b as the measured datapath adds (module docstring)."""
    def parts(x: int) -> tuple[int, int, int]:
        e = (x >> 7) & 0xFF
        return x >> 15, e, (0x400 | (x & 0x7F) << 3) if e else 0
    (sa, ea, ma), (sb, eb, mb) = parts(a), parts(b)
    if (eb, mb) > (ea, ma):
        (sa, ea, ma), (sb, eb, mb) = (sb, eb, mb), (sa, ea, ma)
    d = ea - eb
    mb = 0 if d >= 12 else (mb + (1 << d >> 1)) >> d
    total = ma + mb if sa == sb else ma - mb
    if total == 0 or ea == 0:
        return 0
    n = total.bit_length()
    sig = (total + (1 << (n - 8) >> 1)) >> (n - 8) if n > 8 else total << (8 - n)
    if sig >> 8:
        sig, n = sig >> 1, n + 1
    exp = ea - 11 + n
    return 0 if exp <= 0 else (sa << 15) | (0x7F80 if exp >= 255 else exp << 7 | sig & 0x7F)


def bfp8_blocks(bits: np.ndarray) -> tuple[list[int], list[int]]:
    """BF16 datums (no zero exponents) as BFP8: (exponents, sign-magnitude bytes)."""
    exps, out = [], []
    for block in bits.reshape(-1, 16):
        e = (block >> 7) & 0xFF
        shared = int(e.max())
        exps.append(shared)
        for b, ex in zip(block, e):
            sig = 0x80 | (int(b) & 0x7F)
            shift = shared - int(ex) + 1
            mag = min((sig + (1 << shift >> 1)) >> shift, 127)
            out.append(((int(b) >> 15) << 7 if mag else 0) | mag)
    return exps, out


def test_eltwise_tile_through_unpackers_math_and_packer() -> None:
    a, exps, data = inputs()
    s = Session({f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)})
    s.write_memory(0x30000, a.astype("<u2").tobytes())
    s.write_memory(0x40000, np.concatenate([exps, data]).astype(np.uint8).tobytes())
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop
    assert s.tile.exit_codes == {"T0": 0, "T1": 0, "T2": 0}

    b = np.array([ref.bfp8_to_bf16(int(d), int(exps[i // 16])) for i, d in enumerate(data)])
    expected_sum = np.array([elwadd_bf16(int(x), int(y)) for x, y in zip(a, b)]) << 16
    got_sum = np.frombuffer(s.read_memory(0x50000, 4096), dtype="<u4")
    assert (got_sum == expected_sum).all()

    want_exps, want_data = bfp8_blocks(a)
    copy = s.read_memory(0x52000, 64 + 1024)
    assert list(copy[:64]) == want_exps
    assert list(copy[64:]) == want_data


def test_pacr_hits_an_l1_watchpoint_and_names_itself() -> None:
    a, exps, data = inputs()
    s = Session({f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)})
    s.write_memory(0x30000, a.astype("<u2").tobytes())
    s.write_memory(0x40000, np.concatenate([exps, data]).astype(np.uint8).tobytes())
    out: list[str] = []
    interp = Interpreter(s, write=out.append)
    assert interp.execute("watch *(unsigned int *)0x50100")
    assert interp.execute("run")
    text = "".join(out)
    assert "PACR" in text and "wrote L1 0x50" in text, text
    assert s.tile.l1_log.writer(0x50100).word >> 24 == 0x41   # the PACR opcode


def test_reverse_stepi_puts_back_the_l1_a_pacr_wrote() -> None:
    a, exps, data = inputs()
    s = Session({f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)})
    s.write_memory(0x30000, a.astype("<u2").tobytes())
    s.write_memory(0x40000, np.concatenate([exps, data]).astype(np.uint8).tobytes())
    s.break_at("pack_tile", thread="T2")
    assert s.cont().kind is StopKind.BREAKPOINT      # the FP32 tile
    assert s.cont().kind is StopKind.BREAKPOINT      # the BFP8 tile: its PACRs run as pushed
    s.select_core("T2")
    before = s.read_memory(0x52000, 1088)
    for _ in range(200):                      # into pack_tile, until a PACR has written L1
        s.stepi()
        if s.read_memory(0x52000, 1088) != before:
            break
    written = s.read_memory(0x52000, 1088)
    assert written != before
    s.reverse_stepi()
    assert s.read_memory(0x52000, 1088) == before
    s.stepi()
    assert s.read_memory(0x52000, 1088) == written


def test_bench_unpack_pack_mix_moves_faces_every_trip() -> None:
    # scripts/bench.py figure (d)'s UNPACR/PACR mix on T0 alone: each of 3 trips unpacks the
    # firmware's BF16 faces A[i] = 0x3F80 + i (to SrcA) and B[i] = 0xBF80 + i (to SrcB) and packs
    # Dst rows 0..15 as BF16 to 0x31000; the Last PACR restarts the stream, so nothing lands past
    # the face (the bytes after it keep the 0xAA written here).
    s = Session(EXAMPLES / "bench_unpack_pack.c")
    s.write_value(s.symbol("iterations").addr, 4, 3)
    values = (np.arange(256, dtype=np.float32) - 100) * 0.5          # exact in BF16
    bits = values.view(np.uint32)
    assert not (bits & 0xFFFF).any()
    s.set_dst(slice(0, 16), values.reshape(16, 16), view="bf16")
    s.write_memory(0x31000, b"\xaa" * 544)
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert s.read_u32(s.symbol("results").addr) == 3
    names = [s.tile.coprocessor.mnemonic(p.word) for p in s.pushes]
    assert names.count("UNPACR") == 2 * 3 and names.count("PACR") == 4 * 3
    assert names[-6:] == ["UNPACR", "UNPACR", "PACR", "PACR", "PACR", "PACR"]
    assert s.read_memory(0x31000, 544) == (bits >> 16).astype("<u2").tobytes() + b"\xaa" * 32
    i = np.arange(256, dtype=np.uint32)
    for reg, pattern in (("srca", 0x3F80), ("srcb", 0xBF80)):
        want = ((pattern + i) << 16).view(np.float32).reshape(16, 16)
        assert np.array_equal(s.src(reg, 0, slice(0, 16), view="bf16"), want), reg
