"""GDB commands tdbg lacked (issue 33 item 9): ``clear``, ``save breakpoints``, ``info scope``,
``info address``, ``frame function``, ``apropos``, ``find``, on the demo firmware.

Every expected text is gdb-multiarch 13.1's on the same ELF, attached to tdbg's stub
(``target remote | tdbg --rsp-stdio demo.elf``), the commands given with ``-ex`` (typed, as
from a terminal: GDB says "Deleted breakpoint 1 " only then); ``{src}`` is the source's path.
"""

from __future__ import annotations

from pathlib import Path

from tdbg.toolchain.zig import build, firmware_dir
from captured import Shell, shell

DEMO = firmware_dir() / "demo.c"
SRC = str(DEMO)


def typed(sh: Shell, *lines: str) -> str:
    interp, out = sh
    out.clear()
    for line in lines:
        interp.execute(line, from_tty=True)
    return "".join(out)


def at_fill_row() -> Shell:
    sh = shell(DEMO)
    typed(sh, "break fill_row", "run")
    return sh


def test_info_scope_and_info_address_as_gdb() -> None:
    sh = at_fill_row()
    assert typed(sh, "info scope fill_row") == (
        "Scope for fill_row:\n"
        "Symbol row is a variable at frame base reg $fp offset 0+-12, length 4.\n"
        "Symbol start is a variable at frame base reg $fp offset 0+-16, length 4.\n"
        "Symbol step is a variable at frame base reg $fp offset 0+-20, length 4.\n"
        "Symbol value is a variable at frame base reg $fp offset 0+-24, length 4.\n")
    assert typed(sh, "info scope main") == (
        "Scope for main:\n"
        "Symbol rows is a variable at frame base reg $fp offset 0+-20, length 4.\n"
        "Symbol total is a variable at frame base reg $fp offset 0+-28, length 4.\n")
    assert typed(sh, "info address fill_row") == 'Symbol "fill_row" is a function at address 0x61cc.\n'
    assert typed(sh, "info address results") == 'Symbol "results" is static storage at address 0x6a60.\n'
    assert typed(sh, "info address _start") == 'Symbol "_start" is at 0x6000 in a file compiled without debugging.\n'
    assert typed(sh, "info address nosuch") == 'No symbol "nosuch" in current context.\n'
    assert typed(sh, "info scope nosuch") == 'Function "nosuch" not defined.\n'
    assert typed(sh, "info scope") == "requires an argument (function, line or *addr) to define a scope\n"
    typed(sh, "finish")
    assert typed(sh, "info address rows") == 'Symbol "rows" is a variable at frame base reg $fp offset 0+-20.\n'


def test_finish_clear_and_frame_function_as_gdb() -> None:
    sh = at_fill_row()
    assert typed(sh, "finish") == (f"Run till exit from #0  fill_row (row=0, start=0, step=0.25) at {SRC}:27\n"
                                   f"main () at {SRC}:42\n42\t        rows++;\n")   # GDB wraps before "at" at width 80
    assert typed(sh, "break demo.c:42", "tbreak demo.c:42").startswith("Breakpoint 2 at 0x60b0")
    assert typed(sh, "clear demo.c:42") == "Deleted breakpoints 2 3 \n"
    assert typed(sh, "clear fill_row") == "Deleted breakpoint 1 \n"
    assert typed(sh, "clear fill_row") == "No breakpoint at fill_row.\n"
    assert typed(sh, "frame function fill_row") == 'No frame for function "fill_row".\n'
    assert typed(sh, "frame function nosuch") == 'Function "nosuch" not defined.\n'
    assert typed(sh, "frame function main") == f"#0  main () at {SRC}:42\n42\t        rows++;\n"


def test_save_breakpoints_writes_what_gdb_writes(tmp_path: Path) -> None:
    sh = at_fill_row()
    typed(sh, "delete", "break demo.c:27", "tbreak main")
    saved = tmp_path / "bps.txt"
    assert typed(sh, f"save breakpoints {saved}") == f"Saved to file '{saved}'.\n"
    assert saved.read_text() == "break demo.c:27\ntbreak main\n"       # GDB 13.1's file, byte for byte
    typed(sh, "delete", f"source {saved}")
    assert [bp.location for bp in sh[0].session.breakpoints.values()] == ["demo.c:27", "main"]


def test_find_as_gdb() -> None:
    sh = at_fill_row()
    listing = typed(sh, "find &results, +16, 0").splitlines()
    assert listing[0] == "0x6a60 <results>" and listing[-2] == "0x6a6c <results+12>"
    assert listing[-1] == "13 patterns found." and len(listing) == 14     # 16 zero bytes, a 4-byte 0
    assert typed(sh, "print $numfound") == "$1 = 13\n"
    assert typed(sh, "find &results, +16, (char)1") == "Pattern not found.\n"


def test_apropos_lists_matching_commands() -> None:
    sh = shell(DEMO)
    lines = typed(sh, "apropos watch").splitlines()
    assert any(line.startswith("watch -- ") for line in lines)
    assert any(line.startswith("info watchpoints -- ") for line in lines)
    assert typed(sh, "apropos zzzqqq") == ""                                # GDB prints nothing either


def test_info_line_prints_a_symbol_only_where_there_is_one() -> None:
    sh = shell(DEMO)    # gdb-multiarch 13.1 -batch on demo.elf: 'info line *0x10', 'info line *0x6000'
    assert typed(sh, "info line *0x10") == "No line number information available for address 0x10\n"
    crt0 = firmware_dir() / "crt0.S"
    assert typed(sh, "info line *0x6000") == f'Line 18 of "{crt0}" starts at address 0x6000 <_start> and ends at 0x6004 <_start+4>.\n'


def test_info_inferiors_as_gdb_before_the_program_runs() -> None:
    # gdb-multiarch 13.1 -batch -ex 'info inferiors' demo.elf (no process yet)
    sh = shell(DEMO)
    elf = sh[0].session.image.path
    assert typed(sh, "info inferiors") == (f"  Num  Description       Connection           Executable        \n"
                                           f"* 1    <null>                                 {elf} \n")
    typed(sh, "break main", "run")
    assert typed(sh, "info inferiors").splitlines()[1].startswith("* 1    process 1         1 (tdbg)  ")


def _symbol_lines(text: str) -> list[str]:
    """``info scope``'s symbol lines, long descriptions (multi-location, DWARF expressions) cut
    after their first words."""
    return [line.split(":")[0] if line.endswith(":") else line for line in text.splitlines() if line.startswith("Symbol ")]


def test_info_scope_orders_and_stops_as_gdb() -> None:
    """gdb-multiarch 13.1 on tests/firmware/blocks.cpp (-O1): a lexical block's locals in hash
    bucket order, the inlined call's block (its own function symbol first) ending the scope,
    optimized-out locals from the abstract origin without a length."""
    elf = build(Path(__file__).parent / "firmware" / "blocks.cpp", ["-O1", "-g"])
    sh = shell(elf)
    assert _symbol_lines(typed(sh, "info scope blocks.cpp:13")) == [
        "Symbol u is multi-location", "Symbol maxX is multi-location", "Symbol q1 is multi-location",
        "Symbol q3 is multi-location", "Symbol _hidden is optimized out.", "Symbol q2 is multi-location",
        "Symbol a__b is optimized out.", "Symbol ns::scale<2>(int, int) is a function at address 0x60bc, length 1.",
        "Symbol v is a complex DWARF expression", "Symbol k is multi-location", "Symbol t is multi-location"]
    assert _symbol_lines(typed(sh, "info scope blocks.cpp:26")) == [
        f"Symbol {name} is a variable at frame base reg $fp offset 0+-{offset}, length 4." if offset else f"Symbol {name} is multi-location"
        for name, offset in [("beta", 56), ("delta", 64), ("epsilon", 68), ("eta", 76), ("kappa", 88), ("w", 0),
                             ("alpha", 52), ("gamma", 60), ("zeta", 72), ("theta", 80), ("iota", 84), ("lambda", 92),
                             ("i", 0), ("acc", 0)]]


def test_info_locals_orders_a_block_and_computes_as_gdb() -> None:
    """gdb-multiarch 13.1 attached to tdbg's stub on tests/firmware/blocks.cpp (-O1), stopped at
    line 26: the loop body's locals in hash-bucket order; ``i`` is ``DW_OP_breg10 0;
    DW_OP_consts 2; DW_OP_div; DW_OP_stack_value`` there (GDB: 0, not optimized out)."""
    elf = build(Path(__file__).parent / "firmware" / "blocks.cpp", ["-O1", "-g"])
    sh = shell(elf)
    typed(sh, "break blocks.cpp:26", "run")
    assert typed(sh, "info locals").splitlines() == [
        "beta = 2", "delta = 4", "epsilon = 5", "eta = 7", "kappa = 0", "w = 3", "alpha = 3", "gamma = 3",
        "zeta = 6", "theta = 8", "iota = 0", "lambda = 0", "i = 0", "acc = 0"]
