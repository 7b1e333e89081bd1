"""The ``dst`` command family, ``dump dst`` and ``restore dst``.

Bit patterns are worked by hand from the Dst16 / Dst32 layouts of Dst.md (encodings.json
``Dst16_BF16``: sign 15, mantissa 14:8, exponent 7:0; ``Dst32_FP32``: sign 31, mantissa-high
30:24, exponent 23:16, mantissa-low 15:0); the tile layout is the one the commands document.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tdbg.commands import Interpreter
from tdbg.session import Session

# Dst16 BF16 patterns: sign << 15 | mantissa << 8 | exponent
BF16_ONE = 0x007F         # 1.0: exponent 127
BF16_TWO = 0x0080         # 2.0: exponent 128
BF16_M1_5 = 0xC07F        # -1.5: sign, mantissa 0x40, exponent 127
BF16_NAN = 0x40FF         # exponent 255, mantissa 0x40
BF16_INF = 0x00FF         # exponent 255, mantissa 0
BF16_DENORMAL = 0x0100    # exponent 0, mantissa 1
BF16_NINE = 0x1082        # 9 = 1.001b * 2**3: mantissa 0x10, exponent 130
BF16_M4_5 = 0x9081        # -4.5 = -1.001b * 2**2: sign, mantissa 0x10, exponent 129
# Dst32 FP32 patterns
FP32_1_5 = 0x407F0000     # IEEE 0x3FC00000: mantissa-high 0x40, exponent 0x7F
FP32_M2 = 0x80800000      # IEEE 0xC0000000: sign, exponent 0x80


@pytest.fixture(scope="module")
def session() -> Session:
    return Session()


@pytest.fixture
def shell(session: Session) -> tuple[Interpreter, list[str]]:
    """A new interpreter on the shared session, put back to its loaded state."""
    session.restart()
    session.checkpoints.clear()
    chunks: list[str] = []
    return Interpreter(session, write=chunks.append), chunks


@pytest.fixture
def running_shell() -> tuple[Interpreter, list[str]]:
    """An interpreter on a session of its own (run control leaves breakpoints and threads)."""
    chunks: list[str] = []
    return Interpreter(Session(), write=chunks.append), chunks


def run(shell: tuple[Interpreter, list[str]], line: str) -> str:
    interp, chunks = shell
    chunks.clear()
    interp.execute(line)
    return "".join(chunks)


def dst(shell: tuple[Interpreter, list[str]]):
    return shell[0].session.tile.tensix.dst


def write_known_rows(shell) -> None:
    """Dst16b row 0: eight 1.0 then eight 2.0; row 1: -1.5, NaN, Inf, a denormal, 12 zeros."""
    row0 = [BF16_ONE] * 8 + [BF16_TWO] * 8
    row1 = [BF16_M1_5, BF16_NAN, BF16_INF, BF16_DENORMAL] + [0] * 12
    dst(shell).write16(np.arange(2), np.array([row0, row1]))


def test_dst_lists_subcommands_and_row_is_unchanged(shell) -> None:
    out = run(shell, "dst")
    assert out.splitlines()[0] == '"dst" must be followed by a subcommand:'
    assert {"dst row N", "dst stats [ROWS] [--view V]", "dst tile T [face F] [--view V]"} <= {line.strip() for line in out.splitlines()}
    dst(shell).write32(1, np.array([0] * 2 + [FP32_1_5] + [0] * 13))
    lines = run(shell, "dst row 1").splitlines()
    assert lines[0] == "Dst16b[1] (DstBits row 1)"
    assert lines[18] == "Dst32b[1] (DstBits rows 1, 9)"
    # raw, fp32 1.5, int32 = sign-magnitude 0x3FC00000, tf32 1.5
    assert lines[22].split() == ["2", "0x407f0000", "1.5", str(0x3FC00000), "1.5"]
    assert run(shell, "dst row 1024") == "Dst row 1024 out of range 0..1023\n"
    assert run(shell, "dst row") == "Usage: dst row N\n"


def test_stats_of_known_rows(shell) -> None:
    write_known_rows(shell)
    # finite: 8 * 1 + 8 * 2 - 1.5 + denormal (~1e-40) + 12 zeros + 0 -> 30 values, sum 22.5
    expected = (
        "Dst16b rows 0-1 as bf16: 32 values\n"
        "  min -1.5, max 2, mean 0.75\n"
        "  NaN 1, Inf 1, denormal 1, zero 12\n"
    )
    assert run(shell, "dst stats 0-1 --view bf16") == expected
    assert run(shell, "dst stats --view bf16") == expected  # default: the rows ever written
    assert run(shell, "dst stats 1 --view=int16").splitlines()[0] == "Dst16b rows 1 as int16: 16 values"


def test_stats_default_view_follows_the_window(shell) -> None:
    interp, _ = shell
    assert run(shell, "dst stats") == "No Dst rows written.\n"
    write_known_rows(shell)
    assert run(shell, "dst stats").startswith("Dst32b rows 0-1 as fp32: 32 values")  # fmt 0
    interp.session.tile.tensix.config.set("RISC_DEST_ACCESS_CTRL_SEC0_fmt", 3, thread=0)
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as bf16: 32 values")


def cfg(shell, **fields: int) -> None:
    """Write Config fields (the bank T0's CFG_STATE_ID selects, as the commands read them)."""
    for name, value in fields.items():
        shell[0].session.tile.tensix.config.set(name, value, thread=0)


def test_default_view_is_the_math_configuration_not_the_window(shell) -> None:
    """tt-llk never sets the window's fmt; it sets ALU_ACC_CTRL_Fp32_enabled (math) and
    ALU_FORMAT_SPEC_REG2_Dstacc (pack), and tt-exalens decodes Dst in Dstacc's format.  Codes
    from FormatConversion.md: 0 FP32, 1 FP16, 5 BF16, 8 INT32, 14 INT8."""
    write_known_rows(shell)
    cfg(shell, RISC_DEST_ACCESS_CTRL_SEC0_fmt=3)                 # the window says BF16 ...
    cfg(shell, ALU_ACC_CTRL_Fp32_enabled=1)                        # ... the math unit writes Dst32b
    assert run(shell, "dst stats").startswith("Dst32b rows 0-1 as fp32: 32 values")
    cfg(shell, RISC_DEST_ACCESS_CTRL_SEC0_fmt=0, ALU_ACC_CTRL_Fp32_enabled=0, ALU_FORMAT_SPEC_REG2_Dstacc=5)
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as bf16: 32 values")
    assert run(shell, "dst heatmap").startswith("Dst16b rows 0-1023 as bf16, one line per tile")
    assert run(shell, "dst tile 0").startswith("Tile 0 face 0 (Dst16b rows 0-15 as bf16):")
    cfg(shell, ALU_FORMAT_SPEC_REG2_Dstacc=1)
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as fp16: 32 values")
    cfg(shell, ALU_FORMAT_SPEC_REG_Dstacc_override=1, ALU_FORMAT_SPEC_REG_Dstacc_val=5)   # the override wins
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as bf16: 32 values")
    assert run(shell, "dst stats --view fp16").startswith(
        "Note: the math configuration says bf16 (Fp32_enabled 0, Dstacc_val BF16), not fp16.\n")
    cfg(shell, ALU_FORMAT_SPEC_REG_Dstacc_override=0, ALU_FORMAT_SPEC_REG2_Dstacc=14)
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as int8: 32 values")
    cfg(shell, ALU_ACC_CTRL_INT8_math_enabled=1)                   # Int8 math accumulates Integer "32"
    assert run(shell, "dst stats").startswith("Dst32b rows 0-1 as int32: 32 values")
    cfg(shell, ALU_ACC_CTRL_INT8_math_enabled=0, ALU_ACC_CTRL_Fp32_enabled=1, ALU_FORMAT_SPEC_REG2_Dstacc=8)
    assert run(shell, "dst stats").startswith("Dst32b rows 0-1 as int32: 32 values")
    assert run(shell, "pack 0 to int32").startswith("FP32/INT32 -> INT32")
    # Dstacc FP32 with both 32-bit bits clear (power-on) names no Dst16b type: the window's view
    cfg(shell, ALU_ACC_CTRL_Fp32_enabled=0, ALU_FORMAT_SPEC_REG2_Dstacc=0, RISC_DEST_ACCESS_CTRL_SEC0_fmt=2)
    assert run(shell, "dst stats").startswith("Dst16b rows 0-1 as fp16: 32 values")


def test_an_explicit_view_that_disagrees_says_so_in_one_line(shell) -> None:
    write_known_rows(shell)
    cfg(shell, ALU_FORMAT_SPEC_REG2_Dstacc=5)                     # BF16 in Dst16b
    note = "Note: the math configuration says bf16 (Fp32_enabled 0, Dstacc BF16), not {}."
    lines = run(shell, "dst tile 0 --view fp32").splitlines()
    assert lines[0] == note.format("fp32") and lines[1] == "Tile 0 face 0 (Dst32b rows 0-15 as fp32):"
    assert run(shell, "dst stats 0-1 --view fp16").splitlines()[:2] == [
        note.format("fp16"), "Dst16b rows 0-1 as fp16: 32 values"]
    assert run(shell, "dst heatmap --view raw32").splitlines()[0] == note.format("raw32")
    assert not run(shell, "dst stats 0-1 --view bf16").startswith("Note")  # agrees
    assert not run(shell, "dst stats 0-1 --view raw16").startswith("Note")  # bits claim no type
    assert run(shell, "dst tile 9 --view fp32") == "Tile 9 out of range 0..7 for Dst32b (fp32).\n"  # errors stay one line
    cfg(shell, ALU_ACC_CTRL_Fp32_enabled=1, ALU_FORMAT_SPEC_REG2_Dstacc=0)
    assert run(shell, "dst diff checkpoint 1 --view bf16") == "No checkpoint 1.\n"
    run(shell, "checkpoint")
    assert run(shell, "dst diff checkpoint 1 --view bf16").splitlines()[0] == (
        "Note: the math configuration says fp32 (Fp32_enabled 1, Dstacc FP32), not bf16.")
    cfg(shell, ALU_ACC_CTRL_Fp32_enabled=0)                        # power-on: the configuration names nothing
    assert not run(shell, "dst stats 0-1 --view bf16").startswith("Note")


def test_diff_since_previous_stop(running_shell) -> None:
    shell = running_shell
    assert run(shell, "dst diff") == "No previous stop recorded yet; Dst is snapshotted at every stop from now on.\n"
    run(shell, "start")
    d = dst(shell)
    d.write32(np.array([3, 7]), np.zeros((2, 16)))  # defined rows of zeros (power-on rows are undefined)
    d.write16(100, np.zeros(16))
    run(shell, "stepi")  # the prologue of main: no Dst store
    run(shell, "stepi")  # the previous stop is now one after those writes
    d.write32(3, np.array([0] * 4 + [FP32_1_5] + [0] * 11))
    d.write32(7, np.array([0] * 15 + [FP32_M2]))
    assert run(shell, "dst diff --view fp32") == (
        "row 3 col 4: 0 -> 1.5\n"
        "row 7 col 15: 0 -> -2\n"
        "2 of 8192 lanes differ (Dst32b rows 0-511 as fp32, since the previous stop).\n"
    )
    # the high halves are DstBits rows 3 and 7 = Dst16b rows 3 and 7, read as BF16
    assert run(shell, "dst diff --view bf16") == (
        "row 3 col 4: 0 -> 1.5\n"
        "row 7 col 15: 0 -> -2\n"
        "2 of 16384 lanes differ (Dst16b rows 0-1023 as bf16, since the previous stop).\n"
    )
    assert run(shell, "dst diff --view bf16 --max 1").splitlines()[1:] == [
        "2 of 16384 lanes differ (Dst16b rows 0-1023 as bf16, since the previous stop); the first 1 shown."
    ]
    d.write16(100, np.array([0x8000] + [0] * 15))  # sign-magnitude -0 reads as 0: bits shown
    assert run(shell, "dst diff --view int16").splitlines()[2] == "row 100 col 0: 0 (0x0000) -> 0 (0x8000)"
    # the state at the previous stop predates the writes above; DstBits row 100 holds the high
    # halves of Dst32b row 52 (Adj32(52) = (48 << 1) | 4), so -0 in FP32
    run(shell, "stepi")
    assert run(shell, "dst diff --view fp32") == (
        "row 3 col 4: 0 -> 1.5\n"
        "row 7 col 15: 0 -> -2\n"
        "row 52 col 0: 0 -> -0\n"
        "3 of 8192 lanes differ (Dst32b rows 0-511 as fp32, since the previous stop).\n"
    )
    run(shell, "stepi")
    assert run(shell, "dst diff --view fp32") == "0 of 8192 lanes differ (Dst32b rows 0-511 as fp32, since the previous stop).\n"


def test_diff_against_checkpoint(shell) -> None:
    interp, _ = shell
    assert run(shell, "dst diff checkpoint 1") == "No checkpoint 1.\n"
    dst(shell).write16(5, np.zeros(16))  # defined (power-on rows are undefined)
    assert interp.session.checkpoint() == 1
    dst(shell).write16(5, np.array([0] * 9 + [BF16_NINE] + [0] * 6))
    assert run(shell, "dst diff checkpoint 1 --view bf16") == (
        "row 5 col 9: 0 -> 9\n"
        "1 of 16384 lanes differ (Dst16b rows 0-1023 as bf16, since checkpoint 1).\n"
    )
    assert run(shell, "dst diff checkpoint 2") == "No checkpoint 2.\n"


def tile_values() -> np.ndarray:
    """64 tile rows of 16 where each element holds 100 * matrix_row + matrix_col, placed by a
    scalar walk of the documented layout (face f = tile rows 16f..16f+15, [[f0, f1], [f2, f3]])."""
    rows = np.zeros((64, 16), dtype=np.uint16)
    for r in range(64):
        face, i = divmod(r, 16)
        for c in range(16):
            rows[r, c] = 100 * (16 * (face // 2) + i) + 16 * (face % 2) + c  # int16: bits = value
    return rows


def test_tile_matrix_with_face_borders(shell) -> None:
    dst(shell).write16(np.arange(64, 128), tile_values())
    run(shell, "set width unlimited")   # the one-matrix layout
    lines = run(shell, "dst tile 1 --view int16").splitlines()
    assert lines[0] == "Tile 1 (Dst16b rows 64-127 as int16), faces [[0, 1], [2, 3]]:"
    header = lines[1].split()
    assert header == [str(j) for j in range(32)]
    body = lines[2:]
    assert len(body) == 33
    separator = body[16].strip()
    assert set(separator) == {"-", "+"} and separator.count("+") == 1
    assert body[16].index("+") == body[0].index("|")  # the borders line up
    for i, line in enumerate(body[:16] + body[17:]):
        words = line.split()
        assert words[0] == str(i) and words[17] == "|"
        assert [int(w) for w in words[1:17] + words[18:]] == [100 * i + j for j in range(32)]
        assert len(line) == len(body[0])
    face = run(shell, "dst tile 1 face 2 --view int16").splitlines()
    assert face[0] == "Tile 1 face 2 (Dst16b rows 96-111 as int16):"
    for i, line in enumerate(face[2:]):
        words = line.split()
        assert words[0] == str(96 + i)
        assert [int(w) for w in words[1:]] == [100 * (16 + i) + j for j in range(16)]
    assert len(face) == 18


def test_diff_against_golden_files(shell, tmp_path) -> None:
    write_known_rows(shell)
    golden = np.array([[1.0] * 8 + [2.0] * 8, [-1.5, np.nan, np.inf, 2.0**-133] + [0.0] * 12])  # 1/128 * 2**-126
    golden[0, 3] = 1.05
    golden[1, 5] = 1.0
    path = tmp_path / "g.npy"
    np.save(path, golden)
    summary = f"2 of 32 lanes differ (Dst16b rows 0-1 as bf16, against {path}, atol 0, rtol 0)."
    assert run(shell, f"dst diff {path} --view bf16") == (
        "row 0 col 3: 1.05 -> 1\n"
        "row 1 col 5: 1 -> 0\n" + summary + "\n"
    )
    out = run(shell, f"dst diff {path} 0 --view bf16 --atol 0.1")
    assert out.splitlines() == ["row 1 col 5: 1 -> 0", f"1 of 32 lanes differ (Dst16b rows 0-1 as bf16, against {path}, atol 0.1, rtol 0)."]
    assert run(shell, f"dst diff {path} --view bf16 --rtol 0.1").startswith("row 1 col 5")  # 0.05 <= 0.1 * 1.05
    csv = tmp_path / "g.csv"
    np.savetxt(csv, golden, delimiter=",")
    assert run(shell, f"dst diff {csv} 0-1 --view bf16").splitlines()[-1].startswith("2 of 32 lanes differ")
    bits = tmp_path / "bits.npy"
    np.save(bits, dst(shell).read16(np.arange(2)).astype(np.int64))
    assert run(shell, f"dst diff {bits} --view bf16 --raw").startswith("0 of 32 lanes differ")
    assert run(shell, f"dst diff {path} 5-9 --view bf16") == f"{path} holds 2 rows; they do not match Dst16b rows 5-9 (0..1023 exist).\n"


def test_diff_against_a_golden_tile_matrix(shell, tmp_path) -> None:
    dst(shell).write16(np.arange(64, 128), tile_values())
    matrix = np.array([[100 * i + j for j in range(32)] for i in range(32)])
    path = tmp_path / "tile.npy"
    np.save(path, matrix)
    assert run(shell, f"dst diff {path} tile 1 --view int16").startswith("0 of 1024 lanes differ (Dst16b rows 64-127")
    matrix[17, 3] += 1  # matrix row 17 col 3: face 2, its row 1 -> tile row 33 -> Dst16b row 97
    np.save(path, matrix)
    assert run(shell, f"dst diff {path} tile 1 --view int16").splitlines()[0] == "row 97 col 3: 1704 -> 1703"


def heatmap_rows(shell) -> None:
    d = dst(shell)
    d.write16(0, np.array([BF16_NINE] + [0] * 15))          # tile row 0 -> matrix (0, 0)
    d.write16(17, np.array([0] * 5 + [BF16_M4_5] + [0] * 10))  # face 1 row 1 -> matrix (1, 21)
    d.write16(40, np.array([0] * 2 + [BF16_ONE] + [0] * 13))   # face 2 row 8 -> matrix (24, 2)
    d.write16(63, np.array([0] * 15 + [BF16_NAN]))           # face 3 row 15 -> matrix (31, 31)


def test_heatmap_plain(shell) -> None:
    heatmap_rows(shell)
    lines = run(shell, "dst heatmap tile 0 --view bf16").splitlines()
    assert lines[0] == 'Tile 0 (Dst16b rows 0-63 as bf16): |value| 0 .. 9 linear, ramp " .:-=+*#%@"; N NaN, I Inf.'
    body = lines[1:]
    assert len(body) == 33
    blank = "  " * 16
    # level = ceil(|v| / 9 * 9): 9 -> '@', 4.5 -> '+', 1 -> '.'
    expected = {0: "@@" + "  " * 15 + "|" + blank, 1: blank + "|" + "  " * 5 + "++" + "  " * 10,
                24: "    .." + "  " * 13 + "|" + blank, 31: blank + "|" + "  " * 15 + "NN"}
    rows = body[:16] + body[17:]
    for i, line in enumerate(rows):
        assert line == f"{i:>2} " + expected.get(i, blank + "|" + blank)
    assert body[16] == "   " + "-" * 32 + "+" + "-" * 32
    all_lines = run(shell, "dst heatmap --view bf16").splitlines()
    assert len(all_lines) == 17
    # one character per row (largest |value| of its columns): rows 0, 17, 40, 63
    assert all_lines[1] == "tile  0 |@" + " " * 15 + "| +" + " " * 14 + "|" + " " * 8 + "." + " " * 7 + "|" + " " * 15 + "N|"
    assert all_lines[16] == "tile 15 |" + "|".join([" " * 16] * 4) + "|"
    assert "\x1b" not in "".join(all_lines)


def test_heatmap_colour_only_on_a_terminal(shell, monkeypatch) -> None:
    interp, _ = shell
    heatmap_rows(shell)
    monkeypatch.setattr(sys, "stdout", SimpleNamespace(isatty=lambda: True))
    out = run(shell, "dst heatmap tile 0 --view bf16")
    assert "\x1b[48;5;226m  \x1b[0m" in out  # the top level
    assert "\x1b[48;5;196mNN\x1b[0m" in out  # NaN
    assert "   " + "-" * 32 + "+" + "-" * 32 in out.splitlines()
    interp.state.batch = True
    assert "\x1b" not in run(shell, "dst heatmap tile 0 --view bf16")


@pytest.mark.parametrize("suffix", [".npy", ".csv"])
def test_dump_restore_round_trip(shell, tmp_path, suffix) -> None:
    d = dst(shell)
    data = np.random.default_rng(7).integers(0, 1 << 16, size=(4, 16), dtype=np.uint16)
    d.bits[8:12] = data
    path = tmp_path / f"rows{suffix}"
    assert run(shell, f"dump dst 8-11 {path} --raw") == f"Saved DstBits rows 8-11 (4x16 uint16) to {path}; restore dst {path} 8 loads it back.\n"
    d.bits[:] = 0
    assert run(shell, f"restore dst {path} 8") == f"Restored DstBits rows 8-11 from {path}.\n"
    assert np.array_equal(d.bits[8:12], data) and d.ever_written[8:12].all()
    assert run(shell, f"restore dst {path}") == f"Restored DstBits rows 0-3 from {path}.\n"
    assert np.array_equal(d.bits[0:4], data)


@pytest.mark.parametrize("suffix", [".npy", ".csv"])
def test_dump_values_and_restore_them_in_a_view(shell, tmp_path, suffix) -> None:
    write_known_rows(shell)
    path = tmp_path / f"values{suffix}"
    assert run(shell, f"dump dst 0-1 {path} --view bf16") == f"Saved Dst16b rows 0-1 as bf16 (2x16 float32) to {path}.\n"
    values = np.load(path) if suffix == ".npy" else np.loadtxt(path, delimiter=",")
    assert values[0].tolist() == [1.0] * 8 + [2.0] * 8
    assert values[1, 0] == -1.5 and np.isnan(values[1, 1]) and values[1, 2] == np.inf
    assert run(shell, f"restore dst {path}") == f"{path} does not hold raw 16-bit DstBits (use --view V for values).\n"
    assert run(shell, f"restore dst {path} 10 --view bf16") == f"Restored Dst16b rows 10-11 as bf16 from {path}.\n"
    assert np.array_equal(dst(shell).bits[10:12], dst(shell).bits[0:2])


@pytest.mark.parametrize(("line", "message"), [
    ("dst bogus", 'Undefined dst command: "bogus".  Try "help dst".'),
    ("dst tile 16 --view bf16", "Tile 16 out of range 0..15 for Dst16b (bf16)."),
    ("dst tile 8 --view fp32", "Tile 8 out of range 0..7 for Dst32b (fp32)."),
    ("dst tile 0 face 4", "Face 4 out of range 0..3."),
    ("dst tile", "Usage: dst tile T [face F] [--view V]"),
    ("dst stats 5-2", "Dst32b rows 5-2 out of range 0..511."),
    ("dst stats --view nope", 'Unknown view "nope"; choose from: bf16 fp16 fp8 int8 int16 raw16 (or raw) (Dst16b); fp32 tf32 int32 raw32 (Dst32b).'),
    ("dst diff --bogus 1", "Unknown option --bogus; expected --view, --max, --atol, --rtol, --raw."),
    ("dst diff --max", "--max needs a value."),
    ("dst diff --max x", "Bad value for --max: x"),
    ("dst diff --atol 1", "--atol, --rtol and --raw apply to a golden FILE."),
    ("dst diff missing.npy", "missing.npy: No such file or directory."),  # strerror, as GDB says it
    ("dst heatmap tile", "Usage: dst heatmap [tile T | all] [--view V]"),
    ("dump dst 0-3", "Usage: dump dst ROWS FILE.npy|FILE.csv [--view V | --raw]"),
    ("dump dst 0-3 out.txt", "out.txt: the file name must end in .npy or .csv."),
    ("restore dst", "Usage: restore dst FILE.npy|FILE.csv [ROW] [--view V]"),
    ("restore memory x", 'No symbol "x" in current context.'),  # GDB's restore FILE BIAS
])
def test_errors_are_one_line(shell, line, message) -> None:
    interp, _ = shell
    assert run(shell, line) == message + "\n"
    assert interp.failed


def test_restore_refuses_rows_past_the_end(shell, tmp_path) -> None:
    path = tmp_path / "r.npy"
    np.save(path, np.zeros((4, 16), dtype=np.uint16))
    assert run(shell, f"restore dst {path} 1022") == f"{path} holds 4 rows; from row 1022 they do not fit DstBits rows 0..1023.\n"
    np.save(path, np.zeros((4, 8), dtype=np.uint16))
    assert run(shell, f"restore dst {path}") == f"{path} holds shape (4, 8); expected (N, 16).\n"
