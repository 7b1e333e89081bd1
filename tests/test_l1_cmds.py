"""Seeing tiles: ``info unpack``, ``info pack``, ``info pushes`` with L1 traffic, ``info
l1-writer``, ``tile`` and ``x ... as FORMAT`` over L1, and the L1 format decoding behind them
(tdbg.tensix.l1_data).

Expected numbers are worked by hand from the pages named in each test."""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.commands import Interpreter
from tdbg.session import Session
from tdbg.tensix import l1_data
from examples import EXAMPLES


def test_l1_formats_by_hand() -> None:
    # bf16 0x3FC0 = 1.5; fp16 0x7C00: exponent 31 is finite in FloatBitPatterns.md's FP16: 2**16;
    # fp8 0x3C = FP16 0x3C00 = 1.0; int8 0x85 = -5 (sign-magnitude); int32 0x80000007 = -7.
    assert l1_data.values(np.array([0x3FC0], "<u2").tobytes(), "bf16", 1)[0] == 1.5
    assert l1_data.values(np.array([0x7C00], "<u2").tobytes(), "fp16", 1)[0] == 65536.0
    assert l1_data.values(bytes([0x3C]), "fp8", 1)[0] == 1.0
    assert l1_data.values(bytes([0x85, 0x05]), "int8", 2).tolist() == [-5, 5]
    assert l1_data.values(bytes([0x85]), "uint8", 1)[0] == 0x85
    assert l1_data.values(np.array([0x80000007], "<u4").tobytes(), "int32", 1)[0] == -7
    # BFP8: 16 bytes of section (one exponent, 127), then datums: 0x40 -> 1.0, 0xA0 -> -0.5,
    # 0x80 -> -inf (BFP8ToBF16: sign with magnitude 0)
    block = bytes([127] + [0] * 15) + bytes([0x40, 0xA0, 0x80] + [0] * 13)
    assert l1_data.values(block, "bfp8", 16)[:3].tolist() == [1.0, -0.5, -np.inf]
    # BFP4: two datums per byte, the earlier in the low nibble: 0x4 -> mag 0x40 -> 1.0, 0xC -> -1.0
    block4 = bytes([127] + [0] * 15) + bytes([0xC4] + [0] * 7)
    assert l1_data.values(block4, "bfp4", 16)[:2].tolist() == [1.0, -1.0]
    # BFP8a: sign * mag * 2**(exp - 15 - 6): exponent 15, mag 64 -> 1.0
    assert l1_data.values(bytes([15] + [0] * 15) + bytes([0x40] + [0] * 15), "bfp8a", 16)[0] == 1.0
    assert l1_data.size("bfp8", 1024) == 64 + 1024 and l1_data.size("bfp2", 1024) == 64 + 256


def test_tile_rows_reassemble_faces() -> None:
    flat = np.arange(1024)
    tile = l1_data.tile_rows(flat)
    assert tile[0, 16] == 256 and tile[16, 0] == 512 and tile[31, 31] == 1023 and tile[1, 0] == 16


@pytest.fixture(scope="module")
def shell() -> tuple[Interpreter, list[str]]:
    rng = np.random.default_rng(3)
    s = Session({f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)})
    a = (rng.integers(120, 135, 1024) << 7) | rng.integers(0, 128, 1024)
    s.write_memory(0x30000, a.astype("<u2").tobytes())
    s.write_memory(0x40000, bytes([127] * 64) + bytes([0x40] * 1024))   # B = 1.0 everywhere
    out: list[str] = []
    interp = Interpreter(s, write=out.append)
    assert interp.execute("run"), "".join(out)
    return interp, out


def run(shell: tuple[Interpreter, list[str]], line: str) -> str:
    interp, out = shell
    out.clear()
    assert interp.execute(line), "".join(out)
    return "".join(out)


def test_info_unpack_and_pack_decode_the_configuration(shell) -> None:
    text = run(shell, "thread 1") + run(shell, "info unpack")
    assert "InDataFormat BF16 -> OutDataFormat BF16" in text          # unpacker 0 (eltwise_t0.c)
    assert "InDataFormat BFP8 -> OutDataFormat BFP8" in text          # unpacker 1
    assert "InAddr 0x30000" in text and "InAddr 0x40000" in text
    assert "Z=4" in text                                               # four faces unpacked
    text = run(shell, "thread 3") + run(shell, "info pack")
    assert "BF16 -> bfp8" in text and "DEST_TARGET_REG_CFG_PACK_SEC0_Offset 64" in text
    assert "ADC T2 Channel[1]  X=15" in text


def test_info_pushes_show_the_l1_each_instruction_touched(shell) -> None:
    text = run(shell, "info pushes 200")
    assert "L1 read  0x30000..0x30200 (512 bytes)" in text           # an UNPACR's first face
    assert "L1 write 0x50000..0x50100 (256 bytes)" in text            # a PACR: 64 FP32 datums
    assert "L1 read  0x40000..0x40010" in text                        # BFP8 exponents of face 0


def test_tile_and_x_as_format_and_l1_writer(shell) -> None:
    run(shell, "set width unlimited")    # one line per face row
    text = run(shell, "tile 0x50000 as fp32")
    assert text.count("Face ") == 4
    text = run(shell, "tile 0x52000 as bfp8")
    assert "64 bytes of exponents first" in text and "e=" in text
    text = run(shell, "info l1-writer 0x52040")
    assert "T2 PACR" in text and "wrote 0x52040" in text
    interp, out = shell
    out.clear()
    assert not interp.execute("tile 0x50000 as nope")
    assert "Unknown L1 format" in "".join(out)


def test_x_decodes_l1_in_a_format(shell) -> None:
    # A at 0x30000 is BF16 (the fixture): the first datum's bits, read as x/1hx, decoded by hand.
    bits = int(run(shell, "x/1hx 0x30000").split()[1], 16)
    sign, exp, man = bits >> 15, (bits >> 7) & 0xFF, bits & 0x7F
    value = (-1) ** sign * (1 + man / 128) * 2.0 ** (exp - 127)
    assert run(shell, "x/1h 0x30000 as bf16") == f"0x30000:\t{value:.9g}\n"
    # B: a BFP8 tile (1024 datums: 64 exponents, all 127, then datums 0x40: 1.0 each)
    text = run(shell, "x/1024b 0x40000 as bfp8")
    assert text.startswith("0x40040:\t1\t1\t1") and text.count("\n") == 128
    interp, out = shell
    out.clear()
    assert not interp.execute("x/4w 0x30000 as bf16")
    assert "units of h" in "".join(out)
