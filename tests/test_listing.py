"""GDB's current source file and line: where ``list`` starts and goes on, and which file a bare
``LINE`` location names (``main``'s before the program runs, then the file of the last stop or
listing).  Expected lines come from the source text of demo.c (found by marker strings) and
GDB 13's rules, checked side by side with GDB on a native two-file program."""

from __future__ import annotations

from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from tdbg.commands import execute
from captured import run, shell

DEMO = firmware_dir() / "demo.c"
SOURCE = DEMO.read_text().splitlines()


def line_of(marker: str, lines: list[str] = SOURCE) -> int:
    return next(i for i, text in enumerate(lines, 1) if marker in text)


def listing(first: int, last: int, lines: list[str] = SOURCE) -> str:
    return "".join(f"{n}\t{lines[n - 1].rstrip()}\n" for n in range(first, min(last, len(lines)) + 1))


def test_a_bare_line_is_in_mains_file_before_run() -> None:
    sh = shell(DEMO)
    line = line_of("rows++;")
    assert run(sh, f"break {line}").endswith(f"demo.c, line {line}.\n")
    assert "demo.c" in run(sh, f"info line {line}")


def test_list_starts_around_main_and_goes_on_like_gdb() -> None:
    sh = shell(DEMO)
    # GDB: the current line starts 9 above where `break main` stops, and the first list centres on it
    main_stop = line_of("int rows = 0;")
    first = max(main_stop - 9 - 5, 1)
    assert run(sh, "list") == listing(first, first + 9)
    assert run(sh, "list") == listing(first + 10, first + 19)
    assert run(sh, "list -") == listing(first, first + 9)          # the ten before the last shown
    assert run(sh, "list -") == listing(max(first - 10, 1), first - 1)
    assert run(sh, "list 5,7") == listing(5, 7)
    assert run(sh, "list") == listing(8, 17)
    assert run(sh, "list ,20") == listing(11, 20)
    assert run(sh, "list 60,") == listing(60, 69)
    assert run(sh, "list 1000") == f"Line number 995 out of range; {DEMO} has {len(SOURCE)} lines.\n"
    assert run(sh, "list nosuch") == 'Function "nosuch" not defined.\n'
    assert run(sh, "list 1") == listing(1, 10)
    assert run(sh, "list -") == f"Already at the start of {DEMO}.\n"


def test_a_stop_and_a_listing_move_the_current_file() -> None:
    sh = shell(DEMO)
    header = (firmware_dir() / "tensix.h").read_text().splitlines()
    run(sh, "list tdbg_set_dst_access")  # now in tensix.h, as GDB's list makes it
    line = line_of("uint32_t w = TDBG_CFG_WORD(0, RISC_DEST_ACCESS_CTRL_SEC0_fmt_ADDR32)", header)
    assert run(sh, f"info line {line}").startswith(f'Line {line} of "{firmware_dir() / "tensix.h"}"')
    fill = line_of("value += step;")
    run(sh, "break fill_row")
    run(sh, "run")                        # the stop prints a demo.c line
    assert f"demo.c, line {fill}." in run(sh, f"tbreak {fill}")
    stop = line_of("float value = start;")
    assert run(sh, "list") == listing(stop - 5, stop + 4)  # around the stop
    assert run(sh, "list -") == listing(stop - 15, stop - 6)


def test_list_of_a_source_that_is_now_a_folder_is_one_line(tmp_path) -> None:
    # Found by the long ELF fuzz run (a mutated DWARF directory name): the line table names a
    # path this host cannot read as a file; `list` says so instead of an internal error.
    source = tmp_path / "gone.c"
    source.write_text("int main(void) { return 0; }\n")
    s = Session(source)
    source.unlink()
    source.mkdir()
    text = execute(s, "list main", check=False)
    assert "gone.c" in text and "internal error" not in text
    assert execute(s, "p 1 + 2") == "$1 = 3\n"
