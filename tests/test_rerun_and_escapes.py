"""Issue 25 items 1, 4 and 6 and issue 23 item 1 on ``tests/firmware/llk_kernel.cpp`` (T0 build,
-O2) and the demo: re-running keeps the set-up, GDB's hooks and run's question, the LLK_ASSERT
stop, source paths and the init file, GDB's escape hatches, settings that are refused rather
than ignored, and DWARF read only when first needed.

GDB texts (gdb 13.1, checked on a native program built with gcc -g): hooks run as
``before echo`` / ``hi`` / ``after echo``, ``hook-stop`` before the stop is shown, ``hook-run``
before and ``hookpost-run`` after the run's stop; a second ``run`` whose input is not a
terminal prints ``The program being debugged has been started already.`` and ``Start it from
the beginning? (y or n) [answered Y; input not from terminal]``, and ``-batch`` asks nothing
(confirm off); ``show substitute-path``, ``show directories``, ``info source`` (gdb-multiarch on
llk_kernel's ELF); ``thread apply all`` headers ``Thread N (...):`` after a blank line;
``pipe echo abc | tr a-z A-Z`` prints ``ABC``; GDB's Python error is ``Python Exception <class
'ValueError'>: bad`` then ``Error while executing Python code.``; ``show logging`` lines.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tdbg.toolchain.zig import build, firmware_dir
from tdbg.session import Session
from tdbg.commands import execute
from examples import EXAMPLES
from captured import run, shell

SOURCE = Path(__file__).parent / "firmware" / "llk_kernel.cpp"
SRC = str(SOURCE.resolve())
DEMO = firmware_dir() / "demo.c"
ASSERT_LINE = ('91\t    LLK_ASSERT(params.num_faces == 1 || params.num_faces == 2 || params.num_faces == 4, '
               '"num_faces must be 1, 2, or 4");\n')


@pytest.fixture(scope="module")
def kernel() -> Path:
    return build(SOURCE, ("-O2", "-DTRISC=0"), core="T0")


@pytest.fixture
def params(tmp_path: Path) -> Path:
    path = tmp_path / "params.bin"
    path.write_bytes(struct.pack("<III", 2, 1, 4))      # KT_DIM, CT_DIM, num_faces
    return path


def define(sh, name: str, *body: str) -> None:
    lines = iter([*body, "end"])
    sh[0].read_line = lambda prompt: next(lines, None)
    run(sh, f"define {name}")


# -- item 1: re-running keeps the set-up ---------------------------------------------------------

def test_a_second_run_writes_the_restored_inputs_again(kernel: Path, params: Path) -> None:
    sh = shell(kernel)
    run(sh, f"restore {params} binary &params")
    assert run(sh, "info setup") == "Set-up, written again by run, start and kill:\n  1: 12 bytes at 0x00006308 (T0)\n"
    assert run(sh, "run") == "[Inferior 1 (T0) exited normally]\n"
    assert run(sh, "run", "p params") == "[Inferior 1 (T0) exited normally]\n$1 = {KT_DIM = 2, CT_DIM = 1, num_faces = 4}\n"
    run(sh, "break record", "run")
    assert run(sh, "kill") == "Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n[Inferior 1 killed]\n"
    assert run(sh, "p params") == "$2 = {KT_DIM = 2, CT_DIM = 1, num_faces = 4}\n"


def test_without_the_set_up_the_llk_assert_is_a_named_stop(kernel: Path, params: Path) -> None:
    sh = shell(kernel)
    run(sh, f"restore {params} binary &params", "run", "set replay-setup off")
    assert run(sh, "run") == text(
        "\nProgram received signal SIGTRAP, Trace/breakpoint trap.\n"
        'LLK_ASSERT failed on T0 at llk_kernel.cpp:91: params.num_faces == 1 || params.num_faces == 2 || '
        'params.num_faces == 4 ("num_faces must be 1, 2, or 4")\n'
        "main () at {src}:91\n" + ASSERT_LINE)
    assert run(sh, "delete setup", "info setup") == "No set-up: nothing was written before the program started.\n"


def test_run_on_a_started_tile_asks_as_gdb_does(kernel: Path, params: Path) -> None:
    sh = shell(kernel)
    run(sh, f"restore {params} binary &params", "break record", "run")
    question = ("The program being debugged has been started already.\n"
                "Start it from the beginning? (y or n) [answered Y; input not from terminal]\n")
    assert run(sh, "run").startswith(question + "\nBreakpoint 1, record (value=7)")
    sh[0].state.terminal = True
    answers = iter(["maybe", "n"])
    sh[0].read_line = lambda prompt: next(answers)
    assert run(sh, "run") == ("The program being debugged has been started already.\nPlease answer y or n.\n"
                              "Program not restarted.\n")
    assert sh[0].session.pc == 0x605C                      # still stopped where it was
    run(sh, "set confirm off")
    assert run(sh, "run").startswith("\nBreakpoint 1, record (value=7)")


def test_a_sourced_file_answers_the_question_itself(kernel: Path, params: Path, tmp_path: Path) -> None:
    """GDB: input from a command file is not the user's, even at a terminal."""
    script = tmp_path / "twice.gdb"
    script.write_text(f"restore {params} binary &params\nbreak record\nrun\nrun\n")
    sh = shell(kernel)
    sh[0].state.terminal = True
    assert run(sh, f"source {script}").count("Start it from the beginning? (y or n) [answered Y; input not from terminal]\n") == 1


def test_gdb_hooks_around_commands_and_at_stops(kernel: Path, params: Path) -> None:
    sh = shell(kernel)
    define(sh, "hook-echo", 'printf "before echo\\n"')
    define(sh, "hookpost-echo", 'printf "after echo\\n"')
    assert run(sh, "echo hi\\n") == "before echo\nhi\nafter echo\n"
    define(sh, "hook-stop", 'printf "STOP HOOK\\n"')
    run(sh, f"restore {params} binary &params")
    define(sh, "hook-run", 'printf "HOOK RUN\\n"')
    define(sh, "hookpost-run", 'printf "POST RUN\\n"')
    run(sh, "break record")
    assert run(sh, "r") == text("HOOK RUN\nSTOP HOOK\n\nBreakpoint 1, record (value=7) at {src}:66\n"
                                "66\t    ckernel::trace[value & 15] = value;\nPOST RUN\n")


def test_an_error_in_hook_stop_is_printed_and_the_stop_still_reported(kernel: Path, params: Path) -> None:
    """GDB 13 (infrun.c, normal_stop): ``Error while running hook_stop:`` then the error's
    message, and the stop is shown as usual (checked with gdb on a native program)."""
    sh = shell(kernel)
    define(sh, "hook-stop", "p no_such_symbol")
    run(sh, f"restore {params} binary &params")
    run(sh, "break record")
    assert run(sh, "r") == text('Error while running hook_stop:\nNo symbol "no_such_symbol" in current context.\n'
                                "\nBreakpoint 1, record (value=7) at {src}:66\n"
                                "66\t    ckernel::trace[value & 15] = value;\n")
    assert run(sh, "p value") == "$1 = 7\n"


def test_batch_runs_twice_without_asking(kernel: Path, params: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-nx", "-batch", "-ex", f"restore {params} binary &params",
                           "-ex", "break record", "-ex", "run", "-ex", "run", "-ex", "p params.num_faces", str(kernel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Start it from the beginning" not in done.stdout and done.stdout.count("Breakpoint 1, record") == 2
    assert done.stdout.endswith("$1 = 4\n")


# -- item 4: source paths and the init file -------------------------------------------------------

def test_substitute_path_and_directory_find_sources_recorded_elsewhere(kernel: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / SOURCE.name).write_text(SOURCE.read_text().replace("record(a + b);", "record(a + b);  /* moved copy */"))
    sh = shell(kernel)
    assert run(sh, "show substitute-path") == "List of all source path substitution rules:\n"
    run(sh, f"set substitute-path {SOURCE.parent} {moved}")
    assert run(sh, "show substitute-path") == f"List of all source path substitution rules:\n  `{SOURCE.parent}' -> `{moved}'.\n"
    assert "71\t    record(a + b);  /* moved copy */\n" in run(sh, "list combine")
    lines = run(sh, "info source").splitlines()
    assert lines[0] == f"Current source file is {SRC}" and lines[1].startswith("Compilation directory is ")
    assert lines[2:] == [f"Located in {moved / SOURCE.name}", "Contains 100 lines.", "Source language is c++.",
                         "Producer is clang version 22.1.8.", "Compiled with DWARF 4 debugging format.",
                         "Does not include preprocessor macro info."]
    run(sh, f"unset substitute-path {SOURCE.parent}")
    assert run(sh, "show directories") == "Source directories searched: $cdir:$cwd\n"
    run(sh, f"directory {moved}")
    assert run(sh, "show directories") == f"Source directories searched: {moved}:$cdir:$cwd\n"


def test_info_line_of_a_function_is_its_first_instruction(kernel: Path) -> None:
    assert run(shell(kernel), "info line combine") == text(
        'Line 70 of "{src}" starts at address 0x6084 <_Z7combinejj> and ends at 0x609c <_Z7combinejj+24>.\n')


def test_the_init_file_runs_first_and_nx_skips_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".tdbginit").write_text("set listsize 5\ndirectory /tmp\n")
    env = dict(os.environ, HOME=str(home))
    command = [sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "show listsize", "-ex", "show directories"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.stdout == ("Number of source lines gdb will list by default is 5.\n"
                           "Source directories searched: /tmp:$cdir:$cwd\n"), done.stderr
    done = subprocess.run([*command[:3], "-nx", *command[3:]], capture_output=True, text=True, timeout=300, env=env)
    assert done.stdout == "Number of source lines gdb will list by default is 10.\nSource directories searched: $cdir:$cwd\n"


# -- item 6: escape hatches and settings ------------------------------------------------------------

def test_thread_apply_shell_and_pipe() -> None:
    cores = {f"T{i}": EXAMPLES / f"pipeline_t{i}.c" for i in range(3)}
    sh = shell(Session(cores))
    out = run(sh, "thread apply all p 1")
    assert out == "\nThread 3 (T2):\n$1 = 1\n\nThread 2 (T1):\n$2 = 1\n\nThread 1 (T0):\n$3 = 1\n"
    assert run(sh, "thread apply 2 T0 -q p 2") == "$4 = 2\n$5 = 2\n"
    assert sh[0].session.current == "T0"
    assert run(sh, "shell echo hi", "!echo hi2") == "hi\nhi2\n"
    assert run(sh, "pipe echo abc | tr a-z A-Z", "| echo abc | wc -c") == "ABC3\n"
    assert run(sh, "shell exit 3", "p $_shell_exitcode") == "$6 = 3\n"


def test_set_logging_copies_or_redirects_output(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    sh = shell(DEMO)
    assert run(sh, f"set logging file {log}", "set logging overwrite on", "set logging enabled on", "p 42") == "$1 = 42\n"
    run(sh, "set logging enabled off", "set logging redirect on", "set logging overwrite off")
    assert run(sh, "set logging enabled on", "p 43", "set logging enabled off") == ""
    assert log.read_text() == "$1 = 42\n$2 = 43\n"
    assert run(sh, "show logging") == (
        "logging debugredirect:  off: Debug output will go to both the screen and the log file.\n"
        "logging enabled:  off: Logging is disabled.\n"
        f'logging file:  The current logfile is "{log}".\n'
        "logging overwrite:  off: Logging appends to the log file.\n"
        "logging redirect:  on: Output will go to the log file only.\n")


def test_python_over_the_session() -> None:
    sh = shell(DEMO)
    assert run(sh, "python print(session.current, 1 + 1)") == "T0 2\n"
    lines = iter(["rows = [session.dst(r, 'fp32')[0] for r in range(2)]", "print(len(rows))", "end"])
    sh[0].read_line = lambda prompt: next(lines, None)
    assert run(sh, "python") == "2\n"
    assert run(sh, "pi len(rows) * 3") == "6\n"
    assert run(sh, 'python print(execute("p 5"), end="")') == "$1 = 5\n"
    assert run(sh, 'python raise ValueError("bad")') == \
        "Python Exception <class 'ValueError'>: bad\nError while executing Python code.\n"


def test_no_gdb_setting_is_silently_ignored() -> None:
    sh = shell(DEMO)
    assert run(sh, "set verbose on") == '"set verbose" is not supported by tdbg: tdbg has no informational messages to add.\n'
    assert run(sh, "set pagination on", "show pagination") == "State of pagination is on.\n"   # (tdbg.cli.pager)
    assert run(sh, "set pagination off", "set height 0", "set width unlimited", "show pagination") == "State of pagination is off.\n"
    assert run(sh, "set print pretty maybe") == '"on" or "off" expected.\n'
    assert run(sh, "show print demangle", "show print asm-demangle") == (
        "Demangling of encoded C++/ObjC names when displaying symbols is on.\n"
        "Demangling of C++/ObjC names in disassembly listings is off.\n")


def test_monitor_refuses_host_escapes() -> None:
    from tdbg.rsp.server import MonitorInterpreter

    interp = MonitorInterpreter(Session(DEMO), allow_host_files=False)
    for line in ("shell echo x", "pipe p 1 | cat", "python print(1)", "set logging enabled on"):
        assert "refused through the GDB stub" in interp.capture(line)


# -- issue 23 item 1: DWARF read when first needed ---------------------------------------------------

def test_session_reads_no_dwarf_until_a_source_question(kernel: Path) -> None:
    s = Session({"T0": kernel})
    info = s.debug_infos["T0"]
    assert info is not None and "_dwarf" not in vars(info) and "_fdes" not in vars(info)
    s.debug.row_at(0x6084)                               # one address: its unit's line table only
    assert "_dwarf" in vars(info) and "_fdes" not in vars(info)
    assert execute(s, "info line combine").startswith('Line 70 of "')


def text(template: str) -> str:
    return template.replace("{src}", SRC)
