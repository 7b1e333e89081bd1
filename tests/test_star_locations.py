"""``*EXPR`` locations (issue 26 item 9): ``info line``, ``advance``, ``until`` and ``jump``
evaluate the expression as GDB does (gdb-multiarch 13.1: ``info line *main+4`` on a native
program names the line holding that address; ``*foo`` says 'No symbol "foo" in current
context.'), the same as the address written as a number."""

from __future__ import annotations

from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from tdbg.commands import execute

DEMO = firmware_dir() / "demo.c"


def stopped_in_main() -> Session:
    s = Session(DEMO)
    execute(s, "break main")
    execute(s, "run")
    return s


def test_info_line_takes_an_expression() -> None:
    s = stopped_in_main()
    pc = s.pc
    assert execute(s, "info line *$pc+8") == execute(s, f"info line *{pc + 8:#x}")
    assert execute(s, "info line *main+8") == execute(s, f"info line *{s.symbol('main').addr + 8:#x}")
    assert execute(s, "info line *$pc+8").startswith("Line ")


def test_advance_and_until_take_an_expression() -> None:
    s = stopped_in_main()
    pc = s.pc
    execute(s, "advance *$pc+8")
    assert s.pc == pc + 8
    execute(s, "until *$pc+4")
    assert s.pc == pc + 12


def test_bad_expressions_are_gdbs_one_line() -> None:
    s = stopped_in_main()
    assert execute(s, "advance *foo", check=False).strip() == 'No symbol "foo" in current context.'
    assert execute(s, "until *(", check=False).strip() == "A syntax error in expression, near `'."
    assert execute(s, "info line *nosuch+1", check=False).strip() == 'No symbol "nosuch" in current context.'
