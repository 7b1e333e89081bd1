"""The rest of GDB's behaviour a user meets on day one: ``help info``, what to do after an event
stop (``jump``), ``ptype``/``whatis`` with typedefs, const/volatile and ``struct TAG``, function
types with their parameters, ``break`` errors and warnings, raw view names, and
``Session.execute`` raising on a failed command.

Expected text is GDB 13's for the same commands (a native program with the same declarations,
checked side by side), worked from the sources here where tdbg extends GDB."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg.commands import Interpreter
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session, SessionError
from tdbg.commands import execute
from captured import run, shell

DEMO = firmware_dir() / "demo.c"
FAULTS = Path(__file__).parent / "firmware" / "faults.c"
TYPES = """\
typedef unsigned int uint32_t;
typedef struct pt { int x; uint32_t y; } pt_t;
typedef uint32_t word_t;
volatile uint32_t results[4];
const char *const name = "x";
pt_t pts[2];
word_t w;
struct pt *pp;
__attribute__((noinline)) int f(word_t a, const char *b) { return a + b[0]; }
int main(void) { return f(w, name) + pts[0].x + (pp != 0) + results[0]; }
"""


def test_help_info_lists_the_subcommands() -> None:
    lines = run(shell(DEMO), "set width unlimited", "help info").splitlines()   # GDB -batch's width
    at = lines.index("List of info subcommands:")
    assert "info breakpoints, info b, info break -- List breakpoints and watchpoints with their hit counts, conditions and commands." in lines
    assert "info watchpoints -- List the watchpoints only, as 'info breakpoints' shows them." in lines
    assert any(line.startswith("info frame, info f -- ") for line in lines[at:])
    assert lines[-1] == 'Type "help info" followed by info subcommand name for full documentation.'


def test_an_event_stop_says_how_to_go_on_and_jump_goes_on() -> None:
    sh = shell(FAULTS)
    run(sh, "break main", "run", "set var mode = 1")  # faults.c: a 16-bit window load in fmt 0
    text = run(sh, "continue").splitlines()
    pc = sh[0].session.pc
    assert text[1].startswith("Program stopped: UndefinedBehavior")
    assert text[-1] == (f'To go on: "handle UndefinedBehavior warn" then continue (it is reported and passed), '
                        f'or skip the instruction: "jump *{pc + 4:#x}" or "set $pc = {pc + 4:#x}".')
    assert run(sh, f"jump *{pc + 4:#x}") == f"Continuing at {pc + 4:#x}.\n[Inferior 1 (T0) exited normally]\n"


@pytest.fixture(scope="module")
def types_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("types") / "types.c"
    path.write_text(TYPES)
    return path


@pytest.mark.parametrize("command, expected", [
    ("whatis results", "volatile uint32_t [4]"), ("ptype results", "volatile unsigned int [4]"),
    ("whatis word_t", "uint32_t"), ("ptype word_t", "unsigned int"), ("whatis w", "word_t"),
    ("whatis pts", "pt_t [2]"), ("ptype pts", "struct pt {\n    int x;\n    uint32_t y;\n} [2]"),
    ("whatis struct pt", "struct pt"), ("ptype struct pt", "struct pt {\n    int x;\n    uint32_t y;\n}"),
    ("whatis pt_t", "struct pt"), ("ptype name", "const char * const"), ("whatis name", "const char * const"),
    ("ptype f", "int (word_t, const char *)"), ("ptype pp", "struct pt {\n    int x;\n    uint32_t y;\n} *"),
    ("whatis pp", "struct pt *"), ("whatis unsigned int", "unsigned int"), ("ptype int*", "int *"),
])
def test_ptype_and_whatis_like_gdb(types_program: Path, command: str, expected: str) -> None:
    assert run(shell(types_program), command) == f"type = {expected}\n"


def test_types_errors_and_function_values(types_program: Path) -> None:
    sh = shell(types_program)
    assert run(sh, "ptype struct nosuch") == "No struct type named nosuch.\n"
    f = sh[0].session.symbol("f").addr
    assert run(sh, "p f") == f"$1 = {{int (word_t, const char *)}} {f:#x} <f>\n"
    demo = shell(DEMO)
    fill, main = (demo[0].session.symbol(n).addr for n in ("fill_row", "main"))
    assert run(demo, "p fill_row", "p main") == (f"$1 = {{void (int, float, float)}} {fill:#x} <fill_row>\n"
                                                f"$2 = {{int (void)}} {main:#x} <main>\n")


def test_break_errors_and_warnings() -> None:
    sh = shell(DEMO)
    assert run(sh, "break nosuch") == 'Function "nosuch" not defined.\n'
    text = run(sh, "break *0x6002").splitlines()
    assert text[0] == ("warning: 0x6002 is not 4-byte aligned: no instruction starts there (the baby RISC-V has "
                       "no compressed instructions), so this breakpoint is never hit.")
    assert text[1].startswith("Breakpoint 1 at 0x6002")
    assert run(sh, "break *0x6004").startswith("Breakpoint 2 at 0x6004")  # aligned: no warning


def test_raw_views_have_one_name_everywhere() -> None:
    s = Session(DEMO)
    s.set_dst(1, np.arange(16) * 0x10001, "raw32")  # Dst32b row 1: high and low halves alike
    sh = (Interpreter(s, write=(out := []).append), out)
    assert np.array_equal(s.dst(1, "raw16"), s.dst(1, "raw")) and s.dst(1, "raw32")[2] == 0x20002
    assert run(sh, "x/2w dst[1] as raw32") == "dst[1]:\t0x00000000\t0x00010001\n"
    assert run(sh, "x/2h dst[1] as raw16") == run(sh, "x/2h dst[1] as raw") == "dst[1]:\t0x0000\t0x0001\n"
    face = run(sh, "dst tile 0 face 0 --view raw16").splitlines()
    assert face[0] == "Tile 0 face 0 (Dst16b rows 0-15 as raw):" and face[3].split()[1:4] == ["0x0000", "0x0001", "0x0002"]


def test_session_execute_raises_on_a_failed_command() -> None:
    s = Session(DEMO)
    with pytest.raises(SessionError, match='Undefined command: "frobnicate"'):
        execute(s, "frobnicate")
    assert execute(s, "frobnicate", check=False) == 'Undefined command: "frobnicate".  Try "help".\n'
    assert execute(s, "p 1 + 1") == "$1 = 2\n"
