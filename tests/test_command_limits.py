"""Issue 15 at the command level: breakpoint number lists as GDB takes them (item 12), file
commands on weird files (item 16), sizes checked before work with the limit named and long
commands stopped by Ctrl-C (item 9), memory shown where it is bounded (item 18).

Expected texts follow GDB (``breakpoint.c``'s number_or_range_parser messages, measured with
gdb 13 in batch mode: "No breakpoint number 99.", "Inverted breakpoint range at '5-3'", "Bad
breakpoint number 'foo'", "Negative breakpoint number '-1'"; no argument means every
breakpoint and watchpoint; a missing number is reported and the rest of the list still done)."""

from __future__ import annotations

import re

import pytest

from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from tdbg.commands import execute
from examples import EXAMPLES

FW = firmware_dir()


def run(s: Session, line: str) -> str:
    return execute(s, line, check=False)


def enb(s: Session) -> dict[int, str]:
    """Number -> the Enb column of ``info breakpoints``."""
    rows = [re.match(r"(\d+)\s+(?:breakpoint|hw watchpoint|read watchpoint|acc watchpoint)\s+\S+\s+([yn])\s", line)
            for line in run(s, "info breakpoints").splitlines()]
    return {int(m.group(1)): m.group(2) for m in rows if m}


@pytest.fixture
def demo() -> Session:
    s = Session(FW / "demo.c")
    execute(s, "break main")           # 1
    execute(s, "watch results[2]")     # 2: demo.c stores 4 there
    execute(s, "tbreak fill_row")      # 3
    return s


def test_disable_and_enable_without_arguments_take_watchpoints_too(demo: Session) -> None:
    assert run(demo, "disable") == ""
    assert enb(demo) == {1: "n", 2: "n", 3: "n"}
    assert "exited normally" in run(demo, "run")          # nothing fires, the watchpoint neither
    assert run(demo, "enable") == ""
    assert enb(demo) == {1: "y", 2: "y", 3: "y"}


def test_a_watchpoint_is_disabled_by_number_and_ranges_work(demo: Session) -> None:
    run(demo, "disable 1 3")
    assert enb(demo) == {1: "n", 2: "y", 3: "n"}
    assert "Hardware watchpoint 2: results[2]" in run(demo, "run")
    run(demo, "disable 2-3")
    run(demo, "enable 1-1")
    assert enb(demo) == {1: "y", 2: "n", 3: "n"}
    assert "Breakpoint 1," in run(demo, "run")
    assert "exited normally" in run(demo, "continue")      # the disabled watchpoint stays quiet


def test_missing_numbers_are_reported_and_the_rest_is_done(demo: Session) -> None:
    out = run(demo, "delete 7 2 1-1000000000")    # 2 is gone when the range comes
    assert out.splitlines() == ["No breakpoint number 7.", "No breakpoint number 2.", "No breakpoint numbers 4-1000000000."]
    assert enb(demo) == {}
    assert run(demo, "disable 5") == "No breakpoint number 5.\n"


@pytest.mark.parametrize("args, error", [("5-3", "Inverted breakpoint range at '5-3'"), ("foo", "Bad breakpoint number 'foo'"),
                                         ("0", "Bad breakpoint number '0'"), ("-1", "Negative breakpoint number '-1'"),
                                         ("1 x", "Bad breakpoint number 'x'"), ("99999999999", "Bad breakpoint number '99999999999'")])
def test_a_bad_number_list_is_one_error_and_changes_nothing(demo: Session, args: str, error: str) -> None:
    for cmd in ("disable", "enable", "delete"):
        with pytest.raises(Exception, match=re.escape(error)):
            execute(demo, f"{cmd} {args}")
    assert enb(demo) == {1: "y", 2: "y", 3: "y"}


def test_bpnum_names_the_last_breakpoint(demo: Session) -> None:
    run(demo, "disable $bpnum")
    assert enb(demo) == {1: "y", 2: "y", 3: "n"}


# -- item 16: file commands on weird files ---------------------------------------------------------

def _npy_header(shape: str) -> bytes:
    """A version 1.0 .npy header (numpy's NEP 1 layout: magic, version, little-endian length,
    a dict literal padded with spaces to a multiple of 64 bytes, ending in a newline)."""
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    text += " " * (63 - (len(text) + 10) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode()


@pytest.fixture
def weird(tmp_path):
    import numpy as np

    (tmp_path / "empty.npy").write_bytes(b"")
    np.savez(tmp_path / "z.npz", a=np.zeros((2, 16)))
    (tmp_path / "z.npz").rename(tmp_path / "npz.npy")
    (tmp_path / "huge.npy").write_bytes(_npy_header("(100000000000, 16)") + bytes(64))
    (tmp_path / "wide.csv").write_text(",".join(["1"] * 100_000) + "\n")
    (tmp_path / "latin1.csv").write_bytes(b"1,\xe9\n")
    (tmp_path / "dir.npy").mkdir()
    np.save(tmp_path / "obj.npy", np.array([[1, None]], dtype=object), allow_pickle=True)
    np.save(tmp_path / "cube.npy", np.zeros((2, 2, 16)))
    return tmp_path


@pytest.mark.parametrize("name, says", [
    ("empty.npy", "an empty file"), ("npz.npy", "not a .npy file"),
    ("huge.npy", "a 100000000000x16 array; a Dst file holds at most 1024 rows of 16 values or a 32x32 tile"),
    ("wide.csv", "100000 fields in a line; a Dst file holds at most 1024 rows"),
    ("latin1.csv", ":1: not UTF-8 text (byte 0xe9)"), ("dir.npy", "not a regular file"),
    ("obj.npy", "expected a 2-D numeric array, not object"), ("cube.npy", "expected a 2-D numeric array, not float64 of shape (2, 2, 16)"),
])
def test_dst_files_that_cannot_be_used_are_one_line_naming_the_file(demo: Session, weird, name: str, says: str) -> None:
    path = weird / name
    for line in (f"restore dst {path}", f"restore dst {path} 0 --view bf16", f"dst diff {path}", f"dst diff {path} --raw"):
        out = run(demo, line)
        assert out.startswith(str(path)) and says in out and out.count("\n") == 1, (line, out)


@pytest.mark.parametrize("line", [
    "dump dst 0-3 ~nosuchuser/x.npy", "restore dst ~nosuchuser/x.npy", "dst diff ~nosuchuser/x.csv",
    "dump memory ~nosuchuser/x 0x6000 0x6010", "append binary memory ~nosuchuser/x 0x6000 0x6010",
    "restore ~nosuchuser/x binary 0x50000", "file ~nosuchuser/x", "file T1 ~nosuchuser/x", "source ~nosuchuser/x",
])
def test_an_unknown_user_in_a_path_is_one_line(demo: Session, line: str) -> None:
    out = run(demo, line)
    assert out.startswith("~nosuchuser/x") and "no user named 'nosuchuser'" in out and out.count("\n") == 1, out
    assert run(demo, "p 1 + 2") == "$1 = 3\n"


def test_file_with_a_path_and_no_core_loads_it(demo: Session) -> None:
    """GDB's ``file FILE``: the first word is a core only when it names one."""
    out = run(demo, f"file {FW / 'demo.c'}")
    assert out.startswith(f"Reading symbols from {FW / 'demo.c'} for T0"), out


def test_a_fifo_is_refused_for_reading_and_writing_without_blocking(demo: Session, tmp_path) -> None:
    import os

    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    for line in (f"dump dst 0 {fifo}", f"dump memory {fifo} 0x6000 0x6010", f"restore {fifo} binary 0x50000",
                 f"restore dst {fifo}", f"source {fifo}", f"file {fifo}"):
        assert run(demo, line).startswith(f"{fifo}: not a regular file"), line


# -- item 9: sizes checked before work, with the limit; Ctrl-C ends long commands --------------------

@pytest.mark.parametrize("line, error", [
    ("pack 0-10000000 to bfp2", "Dst32b rows 0-10000000 out of range 0..511."),        # Dst.md: 512 Dst32b rows
    ("pack 1024 to bf16 from bf16", "Dst16b rows 1024 out of range 0..1023."),          # 1024 Dst16b rows
    ("pack 512 to fp32 from fp32", "Dst32b rows 512 out of range 0..511."),
    ('printf "%999999999d\\n", 1', "printf: field width 999999999 is larger than 4096, tdbg's limit."),
    ('printf "%.999999999f\\n", 1.0', "printf: precision 999999999 is larger than 4096, tdbg's limit."),
])
def test_sizes_beyond_the_limits_are_refused_before_any_work(demo: Session, line: str, error: str) -> None:
    assert run(demo, line) == error + "\n"


def test_pack_checks_its_address_before_it_packs(demo: Session) -> None:
    assert run(demo, "pack 0-3 to bfp8 at nosuch") == 'No symbol "nosuch" in current context.\n'


def test_printf_at_the_limit_still_prints(demo: Session) -> None:
    assert run(demo, 'printf "%4096d|\\n", 7') == " " * 4095 + "7|\n"


def _interrupt_after(s: Session, lines: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (``Session.interrupt``, what the CLI's SIGINT handler calls) after ``lines`` lines."""
    run(s, "echo")                               # the session's interpreter exists
    interp = s.shell
    original, count = interp.out, [0]

    def out(text: str = "") -> None:
        count[0] += 1
        if count[0] == lines:
            s.interrupt()
        original(text)

    monkeypatch.setattr(interp, "out", out)


@pytest.mark.parametrize("line", ["x/99999999i 0x6000", "x/99999999xw 0x6000", "x/99999999s 0x6000", "x/4000h dst[0]",
                                  "disassemble 0x6000,0x100000", "pack 0-511 to fp32 from fp32", "dst diff --max 100000"])
def test_ctrl_c_ends_a_long_command_with_quit(demo: Session, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    if line.startswith("dst diff"):
        run(demo, "run")                         # a stop: Dst snapshotted
        run(demo, "restore dst " + _golden())    # then every DstBits row changes
    _interrupt_after(demo, 20, monkeypatch)
    out = run(demo, line)
    lines = out.splitlines()
    assert lines[-1] == "Quit" and 20 <= len(lines) <= 22, (len(lines), lines[-3:])
    demo.clear_interrupt()                       # as the CLI does when the next command starts
    monkeypatch.undo()
    assert run(demo, "p 1 + 2") == "$1 = 3\n" and enb(demo) == {1: "y", 2: "y", 3: "y"}


def _golden() -> str:
    """512 raw DstBits rows of ones (so every Dst32b lane differs from the snapshot)."""
    import tempfile

    import numpy as np

    path = tempfile.mkdtemp() + "/ones.npy"
    np.save(path, np.ones((512, 16), dtype=np.uint16))
    return path


# -- item 18: bounded memory is shown ------------------------------------------------------------

def test_info_checkpoints_shows_each_size_and_the_total_against_the_budget(demo: Session) -> None:
    assert run(demo, "info checkpoints") == f"No checkpoints; the checkpoint memory budget is {demo.checkpoint_budget / 2**20:.1f} MiB.\n"
    run(demo, "run")
    run(demo, "checkpoint")
    run(demo, "checkpoint")
    sizes = [demo.checkpoint_memory(n) for n in (1, 2)]
    lines = run(demo, "info checkpoints").splitlines()
    assert [(line.split()[0], line.rsplit("(", 1)[1]) for line in lines[:2]] == [("1", f"{sizes[0] / 1024:.1f} KiB)"), ("2", f"{sizes[1] / 1024:.1f} KiB)")]
    assert lines[2] == f"2 checkpoints hold {sum(sizes) / 1024:.1f} KiB; the checkpoint memory budget is {demo.checkpoint_budget / 2**20:.1f} MiB."
    assert run(demo, "delete checkpoint 1") == ""
    assert run(demo, "info checkpoints").splitlines()[-1].startswith(f"1 checkpoint holds {sizes[1] / 1024:.1f} KiB")
    assert run(demo, "delete checkpoint 1") == "No checkpoint number 1.\n"


def test_trace_dst_shows_its_bounded_log() -> None:
    s = Session(EXAMPLES / "dst_fill.c")
    assert run(s, "trace dst") == "Dst window tracing is off.\n"
    run(s, "trace dst on")
    s.break_at("_tdbg_exit")
    s.cont()                                    # no shell stop hook ran: the log still holds the run
    held = len(s.window_trace)
    assert held > 0
    assert run(s, "trace dst") == f"Dst window tracing is on: {held} accesses logged since the last stop, at most 100000 kept.\n"


# -- item 4 at the command level -------------------------------------------------------------------

def test_delete_after_thread_2_removes_everything_and_the_script_goes_on() -> None:
    s = Session({f"T{i}": EXAMPLES / f"pipeline_t{i}.c" for i in range(3)})
    for line in ("break main", "break main thread 3", "watch results[0]", "watch dst[3]", "thread 2"):
        run(s, line)
    assert run(s, "delete") == "" and run(s, "info breakpoints") == "No breakpoints or watchpoints.\n"
    assert run(s, "continue").startswith("[All cores finished")   # nothing fires on thread 1 or any other
    assert run(s, "p 1 + 2") == "$1 = 3\n"


def test_an_error_whose_text_is_not_a_string_is_still_one_line() -> None:
    from tdbg.commands.interpreter import error_message

    assert error_message(KeyError(4)) == "4"               # Session.delete's KeyError once reached 1 + "\n"


def test_dst_commands_on_the_b_core_ask_for_a_view() -> None:
    """B has no Tensix thread, so no config bank and no window view to default to (found by the command fuzz:
    'thread 4' then 'dst diff F' was an internal error)."""
    s = Session({"B": FW / "release_triscs.c", "T0": EXAMPLES / "pipeline_t0.c"})
    run(s, "thread 4")                                     # B (T0, T1, T2, B)
    assert run(s, "dst stats") == "B has no Dst view in force: give --view V, or select T0, T1 or T2.\n"
    assert run(s, "pack 0 to bf16") == "B has no Dst view in force: give from DSTFMT, or select T0, T1 or T2.\n"
    assert run(s, "pack 0 to bf16 from fp32").startswith("FP32/INT32 -> BF16")


def test_display_numbers_are_never_reused_and_undisplay_takes_ranges(demo: Session) -> None:
    """GDB (measured, gdb 13): after 'undisplay 2' the next display is 3; 'undisplay 1-3' with
    2 gone removes 1 and 3 and prints "No display number 2."."""
    for expr in ("1", "2"):
        run(demo, f"display {expr}")
    run(demo, "undisplay 2")
    assert run(demo, "display 3").startswith("3: ")
    assert run(demo, "undisplay 1-3") == "No display number 2.\n"
    assert run(demo, "info display") == "There are no auto-display expressions now.\n"
    assert run(demo, "undisplay x") == 'Arguments must be display numbers: "x".\n'


def test_a_display_on_a_core_without_symbols_shows_its_error_and_the_others() -> None:
    """Found by the long command fuzz: 'thread 2' (no firmware) then 'display results[2]' failed
    the whole command with the display kept, and each later stop's displays stopped there.  A new
    display there is refused, as GDB refuses one with no symbol table loaded ("No symbol table is
    loaded.  Use the \"file\" command.", gdb-multiarch 13.1, no file)."""
    s = Session(FW / "demo.c")
    run(s, "display 1 + 1")
    run(s, "display results[2]")
    run(s, "thread 2")
    assert run(s, "display results[2]") == 'No symbol table is loaded for T1.  Use the "file T1 FILE" command.\n'
    assert run(s, "display") == '1: 1 + 1 = 2\n2: results[2] = <error: No symbol table is loaded for T1.  Use the "file T1 FILE" command.>\n'
    assert run(s, "info display").splitlines()[2:] == ["1:   y  1 + 1", "2:   y  results[2]"]
