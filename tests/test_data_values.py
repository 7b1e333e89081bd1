"""Dst and Src data as the numbers they hold: ``x/f`` and expressions read them in the format in
force (the window ``fmt`` for Dst, the Unpacker format for Src), raw bits keep their own names,
undefined rows look undefined and pack as zero.

Expected values come from demo.c (it writes ``Dst32b[r][c] = r + 0.25 * c`` as FP32 through the
window, rows 0..3) and the bit layouts of Dst.md / SrcASrcB.md, worked by hand in the comments.
"""

from __future__ import annotations

import pytest

from tdbg.commands import Interpreter
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session

DEMO = firmware_dir() / "demo.c"


def demo_line(marker: str) -> int:
    return next(i for i, text in enumerate(DEMO.read_text().splitlines(), 1) if marker in text)


def shell_at(marker: str) -> tuple[Interpreter, list[str]]:
    """The demo stopped at the first line containing ``marker``."""
    out: list[str] = []
    interp = Interpreter(Session(DEMO), write=out.append)
    interp.execute(f"break demo.c:{demo_line(marker)}")
    interp.execute("run")
    assert "Breakpoint 1," in "".join(out)
    return interp, out


def run(shell: tuple[Interpreter, list[str]], line: str) -> str:
    interp, out = shell
    out.clear()
    interp.execute(line)
    return "".join(out)


@pytest.fixture
def filled() -> tuple[Interpreter, list[str]]:
    """Rows 0..3 filled, the window switched to BF16 (fmt 3), before the MOVD2B."""
    return shell_at("TTI(TT_OP_SETRWC")


def test_x_f_reads_dst_in_the_window_format() -> None:
    shell = shell_at("rows++;")  # after the first fill_row; window fmt 0 (FP32)
    assert run(shell, "x/16wf dst[0]") == (
        "dst[0]:\t0\t0.25\t0.5\t0.75\n"
        "dst[0][4]:\t1\t1.25\t1.5\t1.75\n"
        "dst[0][8]:\t2\t2.25\t2.5\t2.75\n"
        "dst[0][12]:\t3\t3.25\t3.5\t3.75\n"
    )
    # Dst16b[0] = DstBits[0], the high halves of Dst32b[0]: their BF16 under fmt 0
    assert run(shell, "x/4hf dst[0]") == "dst[0]:\t0\t0.25\t0.5\t0.75\n"
    assert run(shell, "x/1wx dst[0][1]") == "dst[0][1]:\t0x007d0000\n"  # other letters: the bits


def test_x_f_follows_the_window_format(filled) -> None:
    shell = filled
    assert run(shell, "x/4hf dst[1]") == "dst[1]:\t1\t1.25\t1.5\t1.75\n"  # fmt 3: BF16
    assert run(shell, "x/4wf dst[3]") == "dst[3]:\t3\t3.25\t3.5\t3.75\n"  # Dst32b: FP32
    # Dst16b[1][0] = 0x007f (the high half of FP32 1.0, Dst32 layout 0x007f0000)
    run(shell, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 2")
    # FP16 in Dst16 layout: exponent 0x7f & 0x1f = 31 (finite for the Matrix Unit), mantissa
    # 0x7f >> 5 = 3: 2**16 * (1 + 3/1024)
    assert run(shell, "x/1hf dst[1]") == "dst[1]:\t65728\n"
    run(shell, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 4")
    assert run(shell, "x/1hf dst[1]") == "dst[1]:\t127\n"  # Integer "16": sign-magnitude
    run(shell, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 1")
    # Integer "32" keeps its magnitude in the FP32 fields (encodings.json Dst32_INT32): the
    # stored 0x007f0000 is magnitude 0x3f800000
    assert run(shell, "x/1wf dst[1]") == f"dst[1]:\t{0x3F800000}\n"


def test_expressions_compare_tile_data_as_numbers(filled) -> None:
    shell = filled
    assert run(shell, "p dst32[1][2] == 1.5") == "$1 = 1\n"
    assert run(shell, "p dst32[1][2]") == "$2 = 1.5\n"
    assert run(shell, "whatis dst32[1][2]") == "type = float\n"
    assert run(shell, "p dst[1]") == ("$3 = {1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, "
                                      "4.25, 4.5, 4.75}\n")  # BF16 high halves (fmt 3)
    run(shell, "set var dst32[0][2] = 7.0")
    assert run(shell, "p dst32[0][2]") == "$4 = 7\n"
    # FP32 7.0 = 0x40e00000 (exponent 0x81, mantissa 0x600000); Dst32 layout: mantissa-high
    # 0x60 at bit 24, exponent at bit 16
    assert run(shell, "p/x dst32bits[0][2]") == "$5 = 0x60810000\n"
    run(shell, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 0")
    assert run(shell, "x/1wx 0xffbd8008") == "0xffbd8008:\t0x40e00000\n"  # what firmware loads
    assert run(shell, "p dstbits[1][0]") == "$6 = 127\n" and run(shell, "whatis dstbits[1][0]") == "type = uint16_t\n"


def test_src_reads_in_its_unpacker_format(filled) -> None:
    shell = filled
    run(shell, "set cfg ALU_FORMAT_SPEC_REG1_SrcB = 5")  # BF16 (FormatConversion.md code 5)
    # Src BF16 layout: sign at 18, mantissa at 11..17, exponent at 0..7; 1.5 = exp 0x7f, man 0x40
    run(shell, "set var srcbbits[0][0][1] = 0x2007f")
    assert run(shell, "p srcb[0][0][1]") == "$1 = 1.5\n"
    assert run(shell, "x/2wf srcb[0][0]") == "srcb[0][0]:\t0\t1.5\n"
    run(shell, "set var srcb[0][0][2] = -2")
    assert run(shell, "p/x srcbbits[0][0][2]") == "$2 = 0x40080\n"  # sign, exponent 0x80


def test_help_states_the_rule() -> None:
    interp, out = shell_at("rows++;")
    for command in ("x", "print"):
        text = run((interp, out), f"help {command}")
        assert "RISC_DEST_ACCESS_CTRL_SEC<thread>_fmt" in text and "dstbits" in text, command


def test_undefined_rows_look_undefined_and_pack_as_zero(filled) -> None:
    shell = filled
    assert " 00 00 80 3e " in run(shell, "pack 0 to fp32 from fp32")  # 0.25 before
    assert run(shell, "checkpoint").startswith("Checkpoint 1")
    run(shell, "tensix ZEROACC Mode=3")  # ZEROACC_MODE_ALL_OF_DST
    assert run(shell, "x/4wf dst[0]") == "dst[0]:\t<undef>\t<undef>\t<undef>\t<undef>\n"
    assert run(shell, "x/2hx dst[1]") == "dst[1]:\t<undef>\t<undef>\n"
    assert run(shell, "x/2hx dstbits[0]") == "dstbits[0]:\t0x0000\t0x007d\n"  # the storage keeps its bits
    assert run(shell, "p dst32[0][1]") == "Dst32b[0][1] is undefined (ZEROACC, or never written).\n"
    row = run(shell, "dst row 0").splitlines()
    assert row[0].endswith("undefined (ZEROACC, or never written)") and row[2].split() == ["0"] + ["<undef>"] * 5
    assert run(shell, "dst tile 0 face 0 --view fp32").splitlines()[2].split()[1:] == ["<undef>"] * 8  # 80 columns
    run(shell, "set width unlimited")
    assert run(shell, "dst tile 0 face 0 --view fp32").splitlines()[2].split()[1:] == ["<undef>"] * 16
    assert run(shell, "dst diff checkpoint 1 --view fp32 --max 2") == (
        "row 0 col 0: 0 -> <undef>\n"
        "row 0 col 1: 0.25 -> <undef>\n"
        "64 of 8192 lanes differ, 64 of them undefined (Dst32b rows 0-511 as fp32, since checkpoint 1); "
        "the first 2 shown.\n"
    )
    packed = run(shell, "pack 0 to fp32 from fp32").splitlines()
    assert packed[1:] == [f"  {off:#06x}: " + " ".join(["00"] * 16) for off in range(0, 64, 16)]


def test_a_datum_stored_into_an_undefined_row_leaves_the_rest_undefined(filled) -> None:
    """ZEROACC.md makes each datum of a row undefined; tdbg keeps that per DstBits row, so one
    datum stored by the debugger cannot define the other 15: the store is refused, whatever
    name it goes by (dstbits, dst, dst32bits), and the row stays undefined.  (Before, ``set var
    dstbits[R][C]`` wrote the model and marked the whole row defined: the stale bits ZEROACC
    left in its other columns then showed as data.)"""
    shell = filled
    assert run(shell, "set var dstbits[0][1] = 0x4000") == ""    # a defined row: stored as it is
    assert run(shell, "x/3hx dstbits[0]") == "dstbits[0]:\t0x0000\t0x4000\t0x007e\n"
    run(shell, "tensix ZEROACC Mode=3")   # ZEROACC_MODE_ALL_OF_DST
    for target in ("dstbits[0][1] = 5", "dst[0][1] = 1.5", "dst32bits[0][1] = 5"):
        assert run(shell, f"set var {target}").endswith("is undefined (ZEROACC, or never written).\n"), target
    assert run(shell, "x/4wf dst[0]") == "dst[0]:\t<undef>\t<undef>\t<undef>\t<undef>\n"
    assert run(shell, "x/2hx dst[0]") == "dst[0]:\t<undef>\t<undef>\n"
    assert run(shell, "x/2hx dstbits[0]") == "dstbits[0]:\t0x0000\t0x4000\n"  # the storage as it was
    assert run(shell, "info dst") == "No Dst rows written.\n"


def test_x_says_where_dst_ends() -> None:
    shell = shell_at("rows++;")
    text = run(shell, "x/32hx dstbits[1023]").splitlines()
    assert len(text) == 3 and text[-1] == "(stopped after DstBits row 1023, the last row: 16 of 32 elements shown)"
