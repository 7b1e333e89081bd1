"""80 columns: ``dst tile``, ``tile``, ``info pushes``, ``info lregs`` and ``help`` fit the line
(GDB's ``set width``, 80 by default) and say the same thing as the wide layout, which ``set
width unlimited`` asks for.  ``show width`` / ``set width`` texts are gdb-multiarch 13.1's
(measured: ``show width`` with stdout not a terminal, ``set width``, ``set width -1``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdbg.session import Session
from examples import EXAMPLES
from tests.captured import Shell, run, shell


@pytest.fixture(scope="module")
def tile_run() -> Shell:
    """The eltwise kernel run to its end: pushes, tiles in L1 (A at 0x30000 BF16, B at 0x40000
    BFP8 1.0 everywhere)."""
    rng = np.random.default_rng(5)
    s = Session({f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)})
    a = (rng.integers(100, 150, 1024) << 7) | rng.integers(0, 128, 1024) | (rng.integers(0, 2, 1024) << 15)
    s.write_memory(0x30000, a.astype("<u2").tobytes())
    s.write_memory(0x40000, bytes([127] * 64) + bytes([0x40] * 1024))
    sh = shell(s)
    run(sh, "run")
    return sh


def narrow(text: str) -> str:
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)
    return text


def test_width_is_gdbs_setting_80_by_default(tile_run: Shell) -> None:
    sh = shell(tile_run[0].session)
    assert run(sh, "show width") == "Number of characters gdb thinks are in a line is 80.\n"
    assert run(sh, "set width unlimited", "show width") == "Number of characters gdb thinks are in a line is unlimited.\n"
    assert run(sh, "set width 100", "show width") == "Number of characters gdb thinks are in a line is 100.\n"
    assert run(sh, "set width 0", "show width") == "Number of characters gdb thinks are in a line is unlimited.\n"
    assert run(sh, "set width") == 'Argument required (integer to set it to, or "unlimited").\n'
    assert run(sh, "set width -1") == "integer -1 out of range\n"


def test_dst_tile_a_face_per_screen(tile_run: Shell) -> None:
    """Each element of tile 1 holds 100 * matrix row + matrix column as Integer "16" (positive:
    the bits are the value), placed by the documented layout (face f: tile rows 16f..16f+15,
    [[f0, f1], [f2, f3]]); the 80-column layout is read back face by face."""
    sh = shell(tile_run[0].session)
    dst = sh[0].session.tile.tensix.dst
    rows = np.zeros((64, 16), dtype=np.uint16)
    for r in range(64):
        face, i = divmod(r, 16)
        rows[r] = [100 * (16 * (face // 2) + i) + 16 * (face % 2) + c for c in range(16)]
    saved = dst.bits.copy(), dst.ever_written.copy()
    try:
        dst.write16(np.arange(64, 128), rows)
        note, _, text = narrow(run(sh, "dst tile 1 --view int16")).partition("\n")
        assert note == "Note: the math configuration says bf16 (Fp32_enabled 0, Dstacc BF16), not int16."  # eltwise's
        matrix = np.full((32, 32), -1)
        face = -1
        columns: list[int] = []
        for line in text.splitlines():
            title = re.fullmatch(r"Tile 1 face (\d) \(Dst16b rows (\d+)-(\d+) as int16\):", line)
            if title:
                face = int(title[1])
                assert (int(title[2]), int(title[3])) == (64 + 16 * face, 79 + 16 * face)
                continue
            words = line.split()
            if int(words[0]) < 16:                           # a block's column numbers (rows are 64..127)
                columns = [int(w) for w in words]
                continue
            dst_row = int(words[0])
            assert 64 + 16 * face <= dst_row < 80 + 16 * face
            for c, w in zip(columns, words[1:], strict=True):
                matrix[dst_row - 64 - 16 * face + 16 * (face // 2), c + 16 * (face % 2)] = int(w)
        assert (matrix == 100 * np.arange(32)[:, None] + np.arange(32)).all()
        wide = run(sh, "set width unlimited", "dst tile 1 --view int16").splitlines()
        assert wide[1] == "Tile 1 (Dst16b rows 64-127 as int16), faces [[0, 1], [2, 3]]:" and len(wide) == 36
    finally:
        dst.bits[:], dst.ever_written[:] = saved


def _bf16(bits: int) -> float:
    """BF16 in L1: the top half of an IEEE FP32 (FloatBitPatterns.md)."""
    return float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0])


def test_tile_in_l1_fewer_digits_then_blocks(tile_run: Shell) -> None:
    sh = shell(tile_run[0].session)
    text = narrow(run(sh, "tile 0x30000 as bf16"))
    bits = np.frombuffer(sh[0].session.read_memory(0x30000, 2048), "<u2")
    seen = np.zeros(1024, dtype=bool)
    for face, r0, c0, c1, body in re.findall(r"Face (\d) \(tile rows (\d+)-\d+, columns (\d+)-(\d+)\):\n((?:  .*\n)+)", text):
        face, c0, c1 = int(face), int(c0), int(c1)
        for line in body.splitlines():
            row, _, values = line.partition(":")
            row = int(row)
            for col, word in zip(range(c0, c1 + 1), values.split(), strict=True):
                i = face * 256 + (row - 16 * (face // 2)) * 16 + col - 16 * (face % 2)
                assert float(word) == pytest.approx(_bf16(int(bits[i])), rel=5e-4), (row, col)   # 4 digits
                seen[i] = True
    assert seen.all()
    assert narrow(run(sh, "tile 0x40000 as bfp8")).count("Face ") == 4      # 1.0 everywhere: one line a row
    assert run(sh, "set width unlimited", "tile 0x30000 as bf16").count("Face ") == 4


def test_info_pushes_wraps_the_instruction(tile_run: Shell) -> None:
    sh = shell(tile_run[0].session)
    text = narrow(run(sh, "info pushes 40"))
    wide = run(sh, "set width unlimited", "info pushes 40")
    assert max(len(line) for line in wide.splitlines()) > 80
    assert text.split() == wide.split()                        # the same words, filled to 80 columns
    pacr = next(i for i, line in enumerate(text.splitlines()) if " PACR " in line)
    assert text.splitlines()[pacr + 1].startswith(" " * 9) and "Last=" in text.splitlines()[pacr + 2]


def test_info_lregs_half_rows(tile_run: Shell) -> None:
    sh = shell(tile_run[0].session)
    run(sh, "thread 2", "set var lreg[3][5] = 1.5")
    text = narrow(run(sh, "info lregs /f 3"))
    lines = text.splitlines()
    assert lines[0] == "LReg[3]:"
    assert [re.search(r"lanes +(\d+)-(\d+)", line).groups() for line in lines[1:]] == \
        [(str(a), str(a + 3)) for a in range(0, 32, 4)]
    assert lines[2].split()[-3].rstrip("*") == "1.5"              # lanes 4-7: lane 5
    wide = run(sh, "set width unlimited", "info lregs /f 3").splitlines()
    assert [re.search(r"lanes +(\d+)-(\d+)", line).groups() for line in wide[1:]] == \
        [(str(a), str(a + 7)) for a in range(0, 32, 8)]       # LReg.md's rows of 8 lanes


@pytest.mark.parametrize("command", ["help", "help info", "help dst", "help set", "help x", "help break"])
def test_help_fits_80_columns(tile_run: Shell, command: str) -> None:
    sh = shell(tile_run[0].session)
    text = narrow(run(sh, command))
    wide = run(sh, "set width unlimited", command)
    if command == "help":   # GDB's "NAME -- DOC" form once the two columns do not fit
        assert "  advance LOCATION -- Run until LOCATION is reached" in text
        assert [w for w in text.split() if w != "--"] == [w for w in wide.split() if w != "--"]
    else:
        assert text.split() == wide.split()
