"""The shell: every contract form of DESIGN.md as written, a scripted session over real firmware
checking its values, batch-mode exit status, and random command lines that must never raise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tdbg.commands import Interpreter
from tdbg.session import Session
from tdbg.toolchain.zig import firmware_dir
from examples import EXAMPLES


def shell(program: str = "demo") -> tuple[Interpreter, list[str]]:
    out: list[str] = []
    source = firmware_dir() / f"{program}.c"      # the kit's demo, or an example
    return Interpreter(Session(source if source.is_file() else EXAMPLES / f"{program}.c"), write=out.append), out


def run(interp: Interpreter, out: list[str], line: str) -> str:
    out.clear()
    interp.execute(line)
    return "".join(out)


def test_x_on_dst_rows_and_views() -> None:
    interp, out = shell("dst_fill")
    run(interp, out, "run")
    # dst_fill.c: Dst32b[r][c] = r*0.5 + c - 3.0 (FP32), then the window switches to BF16.
    text = run(interp, out, "x/4w dst[1] as fp32")
    assert text == "dst[1]:\t-2.5\t-1.5\t-0.5\t0.5\n"
    # Dst32b[0][0] = -3.0 = 0xC0400000 -> Dst32 layout: sign, mantissa-high 0x40, exponent 0x80
    assert run(interp, out, "x/1wx dst[0]") == "dst[0]:\t0xc0800000\n"
    # Dst16b[0] is DstBits[0], the high halves: BF16 layout 0xC080 for -3.0
    assert run(interp, out, "x/2h dst[0] as bf16") == "dst[0]:\t-3\t-2\n"
    assert run(interp, out, "x/2hx dstbits[8]") == "dstbits[8]:\t0x0000\t0x0000\n"  # low halves of exact values
    assert run(interp, out, "x/16h dst[0]").count("\n") == 2  # GDB's 8 units of h per line
    # the window as firmware on T0 sees it now (fmt 3, BF16): lhu of element 0
    assert run(interp, out, "x/2hx 0xFFBD8000") == "0xffbd8000:\t0xc040\t0xc000\n"
    assert run(interp, out, "x/1wx 0xFFBD8000").startswith("Cannot access memory at address 0xffbd8000: UndefinedBehavior")
    assert run(interp, out, "x/2w srca[0][0]") == "srca[0][0]:\t0x00000\t0x00000\n"


def test_set_forms_write_as_the_core_would() -> None:
    interp, out = shell()
    run(interp, out, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 1")  # int32 view
    run(interp, out, "set {uint32_t}0xFFBD8000 = -5")
    assert run(interp, out, "x/1wx dst[0]") == "dst[0]:\t0x80000005\n"  # sign-magnitude
    run(interp, out, "set *(uint32_t*)0xFFBD8004 = 7")
    assert run(interp, out, "x/2wd 0xFFBD8000") == "0xffbd8000:\t-5\t7\n"
    run(interp, out, "set cfg RISC_DEST_ACCESS_CTRL_SEC0_fmt = 5")  # int8 view
    run(interp, out, "set {uint8_t}0xFFBD8000 = 0x80")  # -128 stores as Integer "8" 0x9FF0
    assert run(interp, out, "x/1hx dst[0]") == "dst[0]:\t0x9ff0\n"
    run(interp, out, "set {int8_t}0xFFBD8001 = -1")
    assert run(interp, out, "x/2bd 0xFFBD8000") == "0xffbd8000:\t-127\t-1\n"
    run(interp, out, "set {uint16_t}0xFFEF000C = 1")  # config is sw-only
    assert "sw only" in "".join(out)
    run(interp, out, "set var results[1] = 9")
    assert run(interp, out, "p results[1]") == "$1 = 9\n"
    run(interp, out, "set $a0 = 0x1234")
    assert run(interp, out, "p/x $a0") == "$2 = 0x1234\n"


def test_info_cfg_tensix_thread_echo_remap() -> None:
    interp, out = shell()
    assert "RISC_DEST_ACCESS_CTRL_SEC0_fmt" in run(interp, out, "info cfg RISC_DEST_ACCESS_CTRL_SEC0*")
    assert run(interp, out, "info cfg DEST_ACCESS_CFG_remap_addrs").startswith("DEST_ACCESS_CFG_remap_addrs")
    # SETRWC.md: with SrcA / Dst set, RWC.X = RWC.X_Cr = XVal
    text = run(interp, out, "tensix SETRWC SrcA=1 SrcAVal=4 Dst=1 DstVal=8")
    assert "RWC T0: Dst 0 -> 8, Dst_Cr 0 -> 8, SrcA 0 -> 4, SrcA_Cr 0 -> 4" in text
    assert run(interp, out, "tensix decode 0x0A082004").startswith("0x0a082004  MOVD2B UseDst32bLo=0 SrcRow=4 AddrMod=0 Move4Rows=1 DstRow=4")
    run(interp, out, "tensix 0x0A082004")  # MOVD2B as a word
    assert "MOVD2B" in run(interp, out, "info pushes")
    assert run(interp, out, "thread 2") == "[Current thread is 2 (T1)]\n"
    assert "* 2    Thread 2 (T1)" in run(interp, out, "info threads")
    assert run(interp, out, "echo a\\tb\\n") == "a\tb\n"
    # seed 003's example: xdim 3, ydim 4, zdim 5, permute 0 is plain order
    assert run(interp, out, "remap indices xdim=3 ydim=4 zdim=5").split() == [str(i) for i in range(60)]


def test_scripted_session_checks_firmware_values(tmp_path: Path) -> None:
    script = tmp_path / "check.gdb"
    script.write_text(
        "run\n"
        "# dst_formats.c: every fmt; results[2k] loaded, results[2k+1] raw\n"
        "p/x results[6]\n"       # case 3: -5 in fmt 1 loads back as 0xfffffffb
        "p/x results[7]\n"       # ... stored as sign-magnitude 0x80000005
        "p/x results[9]\n"       # case 4: -2**31 clamps to 0xffffffff in Dst
        "output results[40]\necho \\n\n"   # case 20: 0x80 in fmt 5 reads back as 0x81
    )
    done = subprocess.run(
        [sys.executable, "-m", "tdbg", "-q", "-batch", "-x", str(script), str(EXAMPLES / "dst_formats.c")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "$1 = 0xfffffffb" in lines and "$2 = 0x80000005" in lines and "$3 = 0xffffffff" in lines
    assert lines[-1] == "129"
    assert "(gdb)" not in done.stdout and "(tdbg)" not in done.stdout  # logs diff cleanly


def test_batch_status_and_pipe() -> None:
    bad = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "frobnicate"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and bad.stdout.strip() == 'Undefined command: "frobnicate".  Try "help".'
    piped = subprocess.run([sys.executable, "-m", "tdbg", "-q"], input="break fill_row\nrun\np row\n", capture_output=True, text=True, timeout=60)
    assert "$1 = 0" in piped.stdout


def test_help_for_every_command() -> None:
    from tdbg.commands.registry import INFO, ROOT

    interp, out = shell()
    for name, cmd in ROOT.commands.items():
        if name.startswith("__"):
            continue
        text = run(interp, out, f"help {name}")
        assert text.startswith("Usage: ") and "Example: " in text, name
    for name in INFO.commands:
        assert "Example: " in run(interp, out, f"help info {name}"), name


WORDS = ["x", "x/4xw", "x/16h", "p", "print/x", "set var", "set", "info", "info registers", "break", "tbreak",
         "delete", "watch", "tensix", "tensix decode", "dst", "dst row", "info cfg", "set cfg", "stepi", "next",
         "step", "finish", "continue", "run", "display", "undisplay", "list", "bt", "remap indices", "pack",
         "echo", "printf", "thread", "handle", "checkpoint", "restart", "reverse-stepi", "info dst", "output",
         "disassemble", "until", "advance", "condition", "ignore", "enable", "disable", "frobnicate", ""]
ARGS = st.text(alphabet="0123456789abcdefxXdst[]()*&$+-=/,. \\\"'", max_size=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(WORDS), ARGS), min_size=1, max_size=6))
def test_random_command_lines_never_raise(lines: list[tuple[str, str]]) -> None:
    interp, out = RANDOM_SHELL
    for word, args in lines:
        interp.execute(f"{word} {args}")  # must not raise
    out.clear()
    interp.execute("p 1 + 2")
    assert out[-1].endswith("= 3\n")  # the session still answers


RANDOM_SHELL = shell()


def test_breakpoint_commands_line_breakpoints_and_tbreak(tmp_path: Path) -> None:
    source = (firmware_dir() / "demo.c").read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if "rows++;" in text)
    script = tmp_path / "bp.gdb"
    script.write_text(
        f"break demo.c:{line}\ncommands\nsilent\np rows\ncontinue\nend\n"
        "tbreak fill_row\nrun\ncontinue\n"
    )
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", "-x", str(script)], capture_output=True, text=True, timeout=120)
    out = done.stdout
    assert "Breakpoint 1 at " in out and f"line {line}." in out
    assert "Temporary breakpoint 2, fill_row (row=0" in out
    # demo.c's loop runs fill_row four times, then rows++: the commands print 0, 1, 2, 3
    assert [l for l in out.splitlines() if l.startswith("$")] == ["$1 = 0", "$2 = 1", "$3 = 2", "$4 = 3"]
    assert out.rstrip().endswith("exited normally]")


def test_info_threads_shows_the_stopped_core_stopped_one_line_each() -> None:
    """All-stop: at a breakpoint every core is stopped, the current one too (before: "[running]");
    at GDB's default width (80) each thread is one line of at most 80 columns (issue 33 item 9)."""
    interp, out = shell()
    run(interp, out, "break fill_row")
    run(interp, out, "run")
    lines = run(interp, out, "info threads").splitlines()
    assert lines[1] == "* 1    Thread 1 (T0) [stopped]     fill_row (...) at demo.c:27"   # (the column: "[no firmware]")
    assert len(lines) == 6 and max(map(len, lines)) <= 80
    run(interp, out, "set width unlimited")
    assert "* 1    Thread 1 (T0) [stopped]     fill_row (row=0, start=0, step=0.25) at " in run(interp, out, "info threads")
