"""GDB 13 parity of ``display`` (GDB manual, "Automatic Display") and of ``enable once``,
``enable count``, ``enable delete`` (GDB manual, "Disabling Breakpoints") on the demo firmware.

Expected texts are GDB's, checked with gdb-multiarch 13.1: ``display nosuch`` on the demo ELF
says ``No symbol "nosuch" in current context.`` and makes no display (the next one is number
1); ``display *(int*)0`` in a running native program shows ``2: *(int*)0 = <error: Cannot access
memory at address 0x0>``; ``info breakpoints`` prints Disp ``dis``/``del``, ``ignore next N
hits`` and ``disable after next|additional N hits`` (only for a count above 1); plain ``enable``
keeps the disposition and clears the count, so the next stop disables it; a store of an
unchanged value is no watchpoint hit.  demo.c calls ``fill_row(r, ...)`` for r = 0..3 and
writes ``results[2]`` once (0 -> 4)."""

from __future__ import annotations

from tdbg.commands import Interpreter
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Disposition, Session
from tdbg.commands import execute
from captured import run, shell

DEMO = firmware_dir() / "demo.c"


def table(sh: tuple[Interpreter, list[str]]) -> list[str]:
    """``info breakpoints`` without its header, each row cut after Enb (the address and
    location are not what these tests are about), detail lines whole."""
    rows = run(sh, "info breakpoints").splitlines()[1:]
    return [row if row.startswith("\t") else row[:29].rstrip() for row in rows]


# -- display ---------------------------------------------------------------------------------------

def test_display_of_an_unknown_symbol_is_refused_and_takes_no_number() -> None:
    sh = shell(DEMO)
    assert run(sh, "display nosuch") == 'No symbol "nosuch" in current context.\n'
    assert run(sh, "display/x nosuch + 1") == 'No symbol "nosuch" in current context.\n'
    assert run(sh, "display/i nosuch") == 'No symbol "nosuch" in current context.\n'
    assert run(sh, "display 1 +") == "A syntax error in expression, near `'.\n"
    assert run(sh, "info display") == "There are no auto-display expressions now.\n"
    assert run(sh, "display results[2]") == "1: results[2] = 0\n"        # before run: created and shown


def test_display_that_cannot_be_read_now_is_kept_with_its_error() -> None:
    sh = shell(DEMO)
    assert run(sh, "display *(int*)0xdead0000") == "1: *(int*)0xdead0000 = <error: Cannot access memory at address 0xdead0000>\n"
    run(sh, "break fill_row")
    assert "1: *(int*)0xdead0000 = <error: Cannot access memory at address 0xdead0000>\n" in run(sh, "run")
    assert run(sh, "display rows") == 'No symbol "rows" in current context.\n'   # main's local, not in fill_row
    assert run(sh, "display row") == "2: row = 0\n"
    assert run(sh, "info display") == ("Auto-display expressions now in effect:\nNum Enb Expression\n"
                                       "1:   y  *(int*)0xdead0000\n2:   y  row\n")


# -- enable once / count / delete --------------------------------------------------------------------

def test_enable_once_disables_after_one_stop() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    assert run(sh, "enable once 1") == ""
    assert table(sh) == ["1       breakpoint     dis  y"]
    assert "Breakpoint 1, fill_row (row=0" in run(sh, "run")
    assert table(sh) == ["1       breakpoint     dis  n", "\tbreakpoint already hit 1 time"]
    assert "exited normally" in run(sh, "continue")


def test_enable_count_disables_after_count_stops_and_an_ignore_count_comes_first() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    run(sh, "ignore 1 1")
    run(sh, "enable count 2 1")
    assert table(sh) == ["1       breakpoint     dis  y", "\tignore next 1 hits", "\tdisable after additional 2 hits"]
    assert "Breakpoint 1, fill_row (row=1" in run(sh, "run")              # row=0 ignored
    assert table(sh) == ["1       breakpoint     dis  y", "\tbreakpoint already hit 2 times"]
    assert "Breakpoint 1, fill_row (row=2" in run(sh, "continue")
    assert table(sh) == ["1       breakpoint     dis  n", "\tbreakpoint already hit 3 times"]
    assert "exited normally" in run(sh, "continue")


def test_enable_count_lists_what_is_left() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    run(sh, "enable count 3 1")
    assert table(sh) == ["1       breakpoint     dis  y", "\tdisable after next 3 hits"]
    run(sh, "run")
    assert table(sh) == ["1       breakpoint     dis  y", "\tbreakpoint already hit 1 time", "\tdisable after next 2 hits"]


def test_plain_enable_keeps_the_disposition_and_clears_the_count() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    run(sh, "enable count 3 1")
    run(sh, "enable 1")
    assert table(sh) == ["1       breakpoint     dis  y"]
    run(sh, "run")
    assert table(sh) == ["1       breakpoint     dis  n", "\tbreakpoint already hit 1 time"]
    run(sh, "enable delete 1")
    run(sh, "enable 1")
    assert table(sh) == ["1       breakpoint     del  y", "\tbreakpoint already hit 1 time"]


def test_enable_delete_deletes_at_the_next_stop_like_tbreak() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    run(sh, "enable breakpoints delete 1")
    assert table(sh) == ["1       breakpoint     del  y"]
    assert "Temporary breakpoint 1, fill_row (row=0" in run(sh, "run")
    assert run(sh, "info breakpoints") == "No breakpoints or watchpoints.\n"


def test_watchpoints_take_the_dispositions() -> None:
    sh = shell(DEMO)
    run(sh, "watch results[2]")
    run(sh, "enable delete 1")
    assert table(sh) == ["1       hw watchpoint  del  y"]
    assert "Old value = 0\nNew value = 4\n" in run(sh, "run")
    assert run(sh, "info breakpoints") == "No breakpoints or watchpoints.\n"
    sh = shell(DEMO)
    run(sh, "watch results[2]")
    run(sh, "enable once 1")
    assert "New value = 4\n" in run(sh, "run")
    assert table(sh) == ["1       hw watchpoint  dis  n", "\tbreakpoint already hit 1 time"]


def test_the_argument_errors_are_gdbs() -> None:
    sh = shell(DEMO)
    run(sh, "break fill_row")
    assert run(sh, "enable once") == "Argument required (one or more breakpoint numbers).\n"
    assert run(sh, "enable delete") == "Argument required (one or more breakpoint numbers).\n"
    assert run(sh, "enable count") == "Argument required (hit count).\n"
    assert run(sh, "enable count 2") == "Argument required (one or more breakpoint numbers).\n"
    assert run(sh, "enable count $nope 1") == "Convenience variable must have integer value.\n"
    assert run(sh, "enable once 9") == "No breakpoint number 9.\n"
    assert table(sh) == ["1       breakpoint     keep y"]


def test_the_api_sees_the_disposition_the_shell_set() -> None:
    sh = shell(DEMO)
    s = sh[0].session
    bp = s.break_at("fill_row")
    s.enable(bp.number, True, Disposition.DISABLE, 2)
    s.cont()
    s.cont()
    assert (bp.enabled, bp.hits, bp.enable_count) == (False, 2, 0)
    assert "exited normally" in run(sh, "continue")


def test_run_again_clears_hit_counts_as_gdb() -> None:
    # gdb-multiarch 13 on a native program: break main, run, run -> "breakpoint already hit 1 time"
    s = Session(firmware_dir() / "demo.c")
    execute(s, "break fill_row")
    execute(s, "watch results[3]")
    execute(s, "run")
    execute(s, "continue")
    execute(s, "continue")
    execute(s, "disable 1")
    assert "Hardware watchpoint 2: results[3]" in execute(s, "continue")
    listing = execute(s, "info breakpoints")
    assert "breakpoint already hit 3 times" in listing and "breakpoint already hit 1 time" in listing
    execute(s, "enable 1")
    execute(s, "run")
    listing = execute(s, "info breakpoints")
    assert "breakpoint already hit 1 time" in listing and "3 times" not in listing
    assert listing.count("already hit") == 1          # the watchpoint's count is back to zero


def test_a_display_of_a_local_shows_only_in_its_function_as_gdb() -> None:
    # gdb-multiarch 13 on a native program (break f, run, display loc, display g, finish,
    # info display, continue): after finish only "2: g = ..." is shown, info display marks 1
    # "(cannot be evaluated in the current context)", and back in f both are shown again.
    sh = shell(DEMO)
    run(sh, "break fill_row", "run")
    assert run(sh, "display value").startswith("1: value = ")
    run(sh, "display results[2]")
    after = run(sh, "finish")
    assert "2: results[2] = " in after and "1: value" not in after
    listing = run(sh, "info display")
    assert "1:   y  value (cannot be evaluated in the current context)\n" in listing
    assert "2:   y  results[2]\n" in listing
    back = run(sh, "continue")
    assert "1: value = " in back and "2: results[2] = " in back
    assert "cannot be evaluated" not in run(sh, "info display")
