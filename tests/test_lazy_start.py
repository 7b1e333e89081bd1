"""The command line imports what its commands need (issue 34, start-up): ``tdbg -q -batch -ex quit``,
``help``, ``apropos`` and the shell's settings build no tile, so they import neither numpy, Unicorn,
the Tensix model, pyelftools nor the REPL's prompt_toolkit and pygments; the first command that
needs the tile (a setting held by the tile, ``dst-provenance``, too) builds it, with its firmware."""

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


def _run(*args: str) -> tuple[str, int, set[str]]:
    """The output of ``tdbg ARGS`` without its last line, its exit status, and the modules it imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=ROOT, env=env, capture_output=True,
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


def test_the_first_command_that_needs_the_tile_builds_it_with_the_demo() -> None:
    # the demo's _start is at the start of T0's code (tdbg.ld: 0x6000, the kit's linker script)
    output, status, modules = _run("-q", "-batch", "-ex", "info symbol 0x6000", "-ex", "print $pc")
    assert output.splitlines() == ["_start in section .text", "$1 = (void (*)()) 0x6000 <_start>"]
    assert {"numpy", "unicorn", "tdbg.emu.tile"} <= modules
