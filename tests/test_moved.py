"""Code that runs elsewhere than it was linked (``tdbg.emu.moved``, ``Session.add_symbol_file``):
its lines, functions and symbols where it runs, its data where it is.

Expected values: gdb-multiarch 13.1's ``add-symbol-file FILE -s .text ADDR`` on the same ELF (GDB
moves the DWARF itself); skipped, saying so, without gdb-multiarch."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tdbg.emu.elf import ElfImage
from tdbg.emu.moved import move_code
from tdbg.toolchain.zig import build
from tdbg.symbols.debuginfo import DebugInfo
from tdbg.session import Session
from tdbg.commands import execute

SOURCE = """int table[4] = {1, 2, 3, 4};
__attribute__((noinline)) int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += table[i & 3]; return s; }
int main(void) { return sum(5); }
"""
BIAS = 0x10000


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("moved") / "mv.c"
    source.write_text(SOURCE)
    return build(source)


def test_code_moves_and_data_stays(elf: Path) -> None:
    original = ElfImage.load(elf)
    moved = ElfImage.parse(move_code(original.raw, BIAS), elf)
    assert moved.entry == original.entry + BIAS
    assert moved.exec_ranges == [(lo + BIAS, hi + BIAS) for lo, hi in original.exec_ranges]
    assert moved.symbols["sum"].addr == original.symbols["sum"].addr + BIAS
    assert moved.symbols["table"].addr == original.symbols["table"].addr      # data: not code


@pytest.mark.skipif(shutil.which("gdb-multiarch") is None, reason="gdb-multiarch is not installed")
def test_lines_as_gdb_places_a_moved_symbol_file(elf: Path) -> None:
    original = ElfImage.load(elf)
    text = original.section(".text")
    moved = ElfImage.parse(move_code(original.raw, BIAS), elf)
    info = DebugInfo.load(moved)
    info.open()
    addresses = range(text.addr + BIAS, text.addr + BIAS + text.size, 4)
    commands = [f"add-symbol-file {elf} -s .text {text.addr + BIAS:#x}", *(f"info line *{a:#x}" for a in addresses)]
    out = subprocess.run(["gdb-multiarch", "-nx", "-batch", *(x for c in commands for x in ("-ex", c)), "/dev/null"],
                         capture_output=True, text=True, timeout=120).stdout
    lines = [m.groups() for m in re.finditer(r'Line (\d+) of "[^"]+" starts at address (0x[0-9a-f]+)', out)]
    rows = [info.row_at(a) for a in addresses]
    ours = [(str(r.line), hex(r.addr)) for r in rows if r is not None and r.line]
    assert lines and ours == lines


def test_a_session_breaks_and_names_code_in_a_symbol_file(elf: Path) -> None:
    s = Session({"T0": elf})
    added = s.add_symbol_file("T0", elf, ElfImage.load(elf).section(".text").addr + BIAS)
    target = added.image.symbols["sum"].addr
    bp = s.break_at("sum")
    assert sorted(loc.address for loc in bp.locations)[-1] > target      # past the moved prologue too
    assert s.symbolize(target + 4) == "<sum+4>"
    assert s.debug_info_at("T0", target).function_at(target).name == "sum"


@pytest.mark.skipif(shutil.which("gdb-multiarch") is None, reason="gdb-multiarch is not installed")
def test_a_unit_with_ranges_and_a_zero_low_pc(tmp_path: Path) -> None:
    # -ffunction-sections: the unit's DW_AT_low_pc 0 is its lists' base, its code is DW_AT_ranges
    source = tmp_path / "fs.c"
    source.write_text("int table[4] = {1, 2, 3, 4};\n__attribute__((noinline)) int sum(int n)\n{\n    int s = 0;\n"
                      "    for (int i = 0; i < n; i++)\n        s += table[i & 3];\n    return s;\n}\n"
                      "int main(void) { return sum(5); }\n")
    elf = build(source, ["-ffunction-sections"])
    s = Session(elf)
    address = s.image.symbols["sum"].addr + 16
    gdb = subprocess.run(["gdb-multiarch", "-nx", "-batch", "-ex", f"info line *{address:#x}", str(elf)],
                         capture_output=True, text=True, timeout=60).stdout.strip()
    assert execute(s, f"info line *{address:#x}").strip() == gdb
