"""The command line imports what its commands need (issue 34, start-up): ``tdbg -q -batch -ex quit``,
``help``, ``apropos`` and the shell's settings build no tile, so they import neither numpy, Unicorn,
the Tensix model, pyelftools nor the REPL's prompt_toolkit and pygments; the first command that
needs the tile (a setting held by the tile, ``dst-provenance``, too) builds it, with its firmware.
Nor does ``quit`` import the DWARF reader, the expression parser or the instruction table, and a
run imports no DWARF module; each of them, imported when first used, does what it does when
imported beforehand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: What a command that never touches the tile must not import.
MODEL = ("numpy", "unicorn", "tdbg.emu.core", "tdbg.emu.tile", "tdbg.tensix.coprocessor", "elftools",
         "prompt_toolkit", "pygments")

#: ``python -m tdbg ARGS`` in this process (as ``__main__`` runs it), then the names of every module
#: imported, on the last line of stdout.
CHILD = """
import json, runpy, sys
sys.argv = ["tdbg", *sys.argv[1:]]
try:
    runpy.run_module("tdbg", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    status = exc.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


#: What ``quit`` does not import either, each imported when first used (measured: the DWARF reader and
#: the expression parser were a quarter of ``-batch -ex quit``'s CPU time).
DEFERRED = ("tdbg.symbols.debuginfo", "tdbg.symbols.records", "tdbg.symbols.linespec", "tdbg.expr.parser",
            "tdbg.expr.evaluator", "tdbg.expr.formatter", "tdbg.tensix.isa.codec", "capstone", "pynng", "flatbuffers")
#: What no run of firmware imports before a source-level question.
DWARF = ("tdbg.symbols.debuginfo", "tdbg.symbols.records", "tdbg.symbols.linespec", "tdbg.symbols.cfi")


def _run(*args: str, preload: tuple[str, ...] = ()) -> tuple[str, int, set[str]]:
    """The output of ``tdbg ARGS`` without its last line, its exit status, and the modules it imported
    (``preload``: modules imported before tdbg starts)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = "".join(f"import {name}\n" for name in preload) + CHILD
    done = subprocess.run([sys.executable, "-c", child, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    output, _, last = done.stdout.rstrip("\n").rpartition("\n")
    result = json.loads(last)
    return output, result["status"], set(result["modules"])


def _model_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in MODEL or m in MODEL}


@pytest.mark.parametrize("commands", [
    ["help"],
    ["help x"],
    ["apropos breakpoint"],
    ["show confirm", "show listsize"],
    ["set pagination off", "show pagination"],
])
def test_commands_that_need_no_tile_import_no_model(commands: list[str]) -> None:
    args = [a for c in commands for a in ("-ex", c)]
    output, status, modules = _run("-q", "-batch", *args)
    assert status == 0
    assert output                      # quit prints nothing; the others print their text
    assert not _model_modules(modules), sorted(_model_modules(modules))


def test_quit_prints_nothing_and_imports_no_model() -> None:
    output, status, modules = _run("-q", "-batch", "-ex", "quit")
    assert (output, status) == ("", 0)
    assert not _model_modules(modules)
    assert not modules & set(DEFERRED), sorted(modules & set(DEFERRED))


def test_a_run_reads_no_dwarf() -> None:
    output, status, modules = _run("-q", "-batch", "-ex", "run")
    assert (output, status) == ("[Inferior 1 (T0) exited normally]", 0)
    assert not modules & set(DWARF), sorted(modules & set(DWARF))


def test_a_kernel_run_from_the_command_line_parses_no_expression(tmp_path: Path) -> None:
    """restore, run, dump with literal addresses (a kernel run as the README gives it) read their
    numbers without the expression parser; the bytes go in and come out all the same."""
    data, out = tmp_path / "in.bin", tmp_path / "out.bin"
    data.write_bytes(bytes(range(256)) * 4)
    output, status, modules = _run("-q", "-batch", "-ex", f"restore {data} binary 0x30000", "-ex", "run",
                                   "-ex", f"dump binary memory {out} 0x30100 {0x30100 + 768}")
    assert status == 0, output
    assert out.read_bytes() == data.read_bytes()[256:]
    assert not modules & {"tdbg.expr.parser", "tdbg.expr.evaluator"}, sorted(modules)


#: Commands whose modules are imported when first used: expressions, DWARF (lines, breakpoints, frames),
#: disassembly (capstone), the instruction table (decode, completion), help.
FIRST_USES = ["print 1+2", "output/x 255", "info line main", "break main", "run", "bt", "info locals",
              "x/2i 0x6000", "tensix decode 0x02000000", "help break", "info breakpoints"]


def test_what_is_imported_on_first_use_works_as_when_imported_before() -> None:
    args = [a for c in FIRST_USES for a in ("-ex", c)]
    lazy, status, modules = _run("-q", "-batch", *args)
    eager, eager_status, _ = _run("-q", "-batch", *args, preload=("tdbg.commands", *DEFERRED, "tdbg.debug.expr_context"))
    assert (status, eager_status) == (0, 0)
    assert lazy == eager
    assert lazy.startswith("$1 = 3\n0xff")
    assert {"tdbg.symbols.debuginfo", "tdbg.expr.parser", "tdbg.tensix.isa.codec", "capstone"} <= modules


def test_completion_reads_the_instruction_table_when_first_needed() -> None:
    """The REPL's completer in a fresh process: ``tensix``'s mnemonics and fields come from the
    encodings, imported by the first completion that needs them."""
    child = """
import sys
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from tdbg.cli.completion import TdbgCompleter
from tdbg.commands import Interpreter
from tdbg.session import Session
before = "tdbg.tensix.isa.codec" in sys.modules
completer = TdbgCompleter(Interpreter(Session()))
for text in ("tensix SETRW", "tensix SETRWC clear_ab_v"):
    print(" ".join(c.text for c in completer.get_completions(Document(text), CompleteEvent())))
print(before)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["SETRWC", "clear_ab_vld=", "False"]


def test_the_first_command_that_needs_the_tile_builds_it_with_the_demo() -> None:
    # the demo's _start is at the start of T0's code (tdbg.ld: 0x6000, the kit's linker script)
    output, status, modules = _run("-q", "-batch", "-ex", "info symbol 0x6000", "-ex", "print $pc")
    assert output.splitlines() == ["_start in section .text", "$1 = (void (*)()) 0x6000 <_start>"]
    assert {"numpy", "unicorn", "tdbg.emu.tile"} <= modules


def test_the_expression_package_imports_its_parser_when_a_name_of_it_is_first_used() -> None:
    child = """
import sys
import tdbg.expr as expr
print("tdbg.expr.parser" in sys.modules, "tdbg.expr.evaluator" in sys.modules)
from tdbg.expr import INT, Literal, evaluate, format_value, parse
from tdbg.expr import parser, evaluator, formatter
print(Literal is parser.Literal, parse is parser.parse, evaluate is evaluator.evaluate,
      format_value is formatter.format_value, isinstance(parse("1 + 2"), parser.Binary))
try:
    expr.no_such_name
except AttributeError as exc:
    print(exc)
namespace = {}
exec("from tdbg.expr import *", namespace)
print(sorted(set(expr.__all__) - set(namespace)))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["False False", "True True True True True",
                                        "module 'tdbg.expr' has no attribute 'no_such_name'", "[]"]


def test_the_native_librarys_cache_key_starts_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``platform.processor()`` runs ``uname -p`` as a child process on Linux: the key does without."""
    import platform

    from tdbg import native

    def no_child() -> str:
        raise AssertionError("platform.processor() runs a child process")

    monkeypatch.setattr(platform, "processor", no_child)
    key = native._host()
    assert key.startswith(f"{platform.system()}\0{platform.machine()}\0")


@pytest.mark.parametrize(("text", "value"), [("0x1F", 31), ("0X10", 16), (" 12 ", 12), ("0", 0), ("010", 8),
                                             ("1+2", 3), ("-4", -4), ("'A'", 65)])
def test_an_integer_argument_has_its_c_value_with_or_without_the_parser(text: str, value: int) -> None:
    """C's literal rules (a leading 0 is octal), whether the literal is read directly or parsed."""
    from tdbg.commands import Interpreter
    from tdbg.commands.values import evaluate_int
    from tdbg.session import Session

    assert evaluate_int(Interpreter(Session(), write=lambda _: None), text) == value
