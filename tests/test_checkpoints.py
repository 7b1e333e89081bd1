"""Checkpoints, restart N, reverse-stepi, trace dst and info dst-writer on real firmware runs,
through the shell as a user types them."""

from __future__ import annotations

from tdbg.commands import Interpreter
from tdbg.session import Session
from tdbg.toolchain.zig import firmware_dir
from examples import EXAMPLES


def shell(program: str) -> tuple[Interpreter, list[str]]:
    out: list[str] = []
    source = firmware_dir() / f"{program}.c"      # the kit's demo, or an example
    return Interpreter(Session(source if source.is_file() else EXAMPLES / f"{program}.c"), write=out.append), out


def run(interp: Interpreter, out: list[str], line: str) -> str:
    out.clear()
    assert interp.execute(line), "".join(out)
    return "".join(out)


def test_checkpoint_restores_everything() -> None:
    interp, out = shell("demo")
    s = interp.session
    run(interp, out, "break fill_row")
    run(interp, out, "run")
    assert run(interp, out, "checkpoint").startswith("Checkpoint 1 at fill_row")
    regs = s.registers()
    dst_before = s.tile.tensix.dst.bits.copy()
    cfg_before = s.tile.tensix.config.config.copy()
    run(interp, out, "delete")
    run(interp, out, "continue")  # to the end: Dst rows, config and the push log all change
    assert (s.tile.tensix.dst.bits != dst_before).any()
    assert "exited normally" in "".join(out)
    assert len(s.tile.pushes) == 2
    run(interp, out, "restart 1")
    assert s.registers() == regs
    assert (s.tile.tensix.dst.bits == dst_before).all()
    assert (s.tile.tensix.config.config == cfg_before).all()
    assert len(s.tile.pushes) == 0 and s.tile.pushes.last(5) == []
    assert run(interp, out, "info checkpoints").startswith("  1  fill_row")
    assert "exited normally" in run(interp, out, "continue")  # and it runs on from there
    out.clear()
    interp.execute("restart 7")
    assert "".join(out) == "No checkpoint number 7.\n"


def test_reverse_stepi_undoes_a_window_store() -> None:
    interp, out = shell("demo")
    s = interp.session
    run(interp, out, "break fill_row")
    run(interp, out, "run")
    # step until the first window store has written Dst32b[0][1] (0.25 = 0x3E800000)
    for _ in range(200):
        run(interp, out, "stepi")
        if s.tile.tensix.dst.get32(0, 1):
            break
    written = s.tile.tensix.dst.get32(0, 1)
    assert written == 0x007D0000 | 0  # 0.25: exponent 0x7D, mantissa 0, in the Dst32 layout
    pc = s.pc
    run(interp, out, "reverse-stepi")
    assert s.tile.tensix.dst.get32(0, 1) == 0 and s.pc == pc - 4
    run(interp, out, "stepi")
    assert s.tile.tensix.dst.get32(0, 1) == written and s.pc == pc
    run(interp, out, "continue")
    out.clear()
    interp.execute("reverse-stepi")
    assert "Cannot go back 1 instruction" in "".join(out)


def test_trace_and_dst_writer() -> None:
    interp, out = shell("movd2b")
    run(interp, out, "trace dst on")
    text = run(interp, out, "run")
    # movd2b.c stores Dst32b[r][c] = float(r*16 + c + 1) for r < 8 in fmt 0: 128 traced stores
    stores = [line for line in text.splitlines() if " store " in line]
    assert len(stores) == 128
    assert stores[0].endswith("row 0 col 0 4B 0x3f800000 (FP32/uint32)")
    assert " row 7 col 15 4B 0x43000000 " in stores[-1]  # 128.0
    writer = run(interp, out, "info dst-writer 0")
    # Dst16b row 0 is DstBits row 0, the high halves of Dst32b row 0: last written by a window store
    assert "window store (4 bytes, fmt 0)" in writer.splitlines()[0]
    # MOVD2B reads Dst, it never writes it; ZEROACC by hand marks a row: the writer becomes it
    run(interp, out, "tensix ZEROACC UseDst32b=1 Mode=0 AddrMod=0 Imm10=2")
    line = run(interp, out, "info dst-writer 2").splitlines()[1]
    assert ": ZEROACC " in line and " at pc " in line
    run(interp, out, "trace dst off")
