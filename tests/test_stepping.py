"""Source-level stepping on real firmware: step, next, finish, until, advance, and what ends them.

Expected lines come from the source text (found by marker strings), addresses from the ELF
symbol table and capstone, values from the C source (worked by hand).
"""

from __future__ import annotations

from pathlib import Path

import capstone
import pytest

from tdbg.debug import stepping
from tdbg.symbols.debuginfo import DebugInfo
from tdbg.session import Session, SessionError
from tdbg.emu.stops import Stop, StopKind
from tdbg.toolchain.zig import firmware_dir
from tdbg.commands import execute

DEMO = firmware_dir() / "demo.c"
CS = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)

FACT = """\
/* Recursion for the stepping tests. */
#define STEPPABLE __attribute__((optnone, noinline))

volatile int out;

static STEPPABLE int fact(int n)
{
    if (n <= 1)
        return 1;                   /* base */
    int below = fact(n - 1);        /* recurse */
    return n * below;               /* product */
}

STEPPABLE int main(void)
{
    out = fact(5);                  /* call */
    for (int i = 0; i < 100000; i++) out += i;  /* spin */
    return 0;                       /* done */
}
"""


def line_of(source: str, marker: str) -> int:
    return next(i + 1 for i, text in enumerate(source.splitlines()) if marker in text)


def demo_line(marker: str) -> int:
    return line_of(DEMO.read_text(), marker)


@pytest.fixture(scope="module")
def demo_info() -> DebugInfo:
    info = DebugInfo.load(Session(DEMO).image.path)
    assert info is not None
    return info


@pytest.fixture
def demo(demo_info: DebugInfo) -> tuple[Session, DebugInfo]:
    return Session(DEMO), demo_info


@pytest.fixture(scope="module")
def fact_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fact") / "fact.c"
    path.write_text(FACT)
    return path


@pytest.fixture
def fact(fact_source: Path) -> tuple[Session, DebugInfo]:
    s = Session(fact_source)
    info = DebugInfo.load(s.image.path)
    assert info is not None
    return s, info


def run_to(s: Session, addr: int) -> None:
    bp = s.break_at(addr)
    assert s.cont().pc == addr
    s.delete(bp.number)


def where(info: DebugInfo, stop: Stop) -> tuple[str, int | None]:
    function = info.symbol_function_at(stop.pc)
    line = info.line_for(stop.pc)
    return function.name if function else "?", line.line if line else None


def in_symbol(s: Session, name: str, pc: int) -> bool:
    sym = s.symbol(name)
    return sym.addr <= pc < sym.addr + sym.size


def depth(s: Session, info: DebugInfo) -> int:
    return len(info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges()))


def local(s: Session, info: DebugInfo, name: str) -> int:
    frame = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())[0]
    (var,) = [v for v in info.locals_at(frame) if v.name == name]
    return s.read_u32(var.addr)


def at_call_line(s: Session, info: DebugInfo) -> None:
    run_to(s, info.addresses_for("demo.c", demo_line("fill_row(r,"))[0])


# -- step / next ---------------------------------------------------------------------------------
def test_step_enters_fill_row_past_its_prologue(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    stop = stepping.step(s, info)             # steps over __floatsisf (no line info), into fill_row
    assert stop.kind is StopKind.STEP and in_symbol(s, "fill_row", stop.pc)
    assert where(info, stop) == ("fill_row", demo_line("float value = start;"))
    assert depth(s, info) == 3 and not s.breakpoints


def test_next_steps_over_fill_row(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    stop = stepping.next(s, info)
    assert stop.kind is StopKind.STEP and where(info, stop) == ("main", demo_line("rows++;"))
    assert not s.breakpoints
    assert local(s, info, "r") == 0                # still the first iteration


def test_next_walks_main_in_source_order(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    lines = [where(info, stepping.next(s, info))[1] for _ in range(4)]
    assert lines == [demo_line("tdbg_set_dst_access(0, TDBG_FMT_FP32"), demo_line("for (int r = 0;"),
                     demo_line("fill_row(r,"), demo_line("rows++;")]


def test_step_at_the_closing_brace_returns_to_the_caller(demo) -> None:
    s, info = demo
    closing = demo_line("value += step;") + 2                     # fill_row's "}"
    assert DEMO.read_text().splitlines()[closing - 1] == "}"
    run_to(s, info.addresses_for("demo.c", closing)[0])
    stop = stepping.step(s, info)
    assert stop.kind is StopKind.STEP and where(info, stop) == ("main", demo_line("rows++;"))
    assert depth(s, info) == 2


# -- finish ----------------------------------------------------------------------------------------
def test_finish_out_of_fill_row(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    stepping.step(s, info)
    stop, _ = stepping.finish(s, info)
    assert stop.kind is StopKind.STEP and in_symbol(s, "main", stop.pc)
    (call,) = CS.disasm(s.read_memory(stop.pc - 4, 4), stop.pc - 4)
    assert call.mnemonic == "jalr" and call.op_str.startswith("ra")       # right after the call
    assert depth(s, info) == 2 and not s.breakpoints


def test_finish_out_of_main_returns_its_value(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    stop, value = stepping.finish(s, info)
    assert stop.kind is StopKind.STEP and in_symbol(s, "_start", stop.pc)
    assert value == 0                                                      # return 0;
    with pytest.raises(SessionError):
        stepping.finish(s, info)                                           # outermost frame


def test_finish_through_recursion(fact) -> None:
    s, info = fact
    run_to(s, info.addresses_for("fact.c", line_of(FACT, "/* base */"))[0])
    assert depth(s, info) == 5 + 2                           # fact(5)..fact(1), main, _start
    for k, factorial in [(1, 1), (2, 2), (3, 6), (4, 24)]:   # fact(k) returns into fact(k + 1)
        stop, value = stepping.finish(s, info)
        assert value == factorial and where(info, stop) == ("fact", line_of(FACT, "/* recurse */"))
        assert depth(s, info) == 5 + 2 - k
    stop, value = stepping.finish(s, info)
    assert value == 120 and where(info, stop) == ("main", line_of(FACT, "/* call */"))


def test_next_over_a_recursive_call_stays_in_the_frame(fact) -> None:
    s, info = fact
    run_to(s, info.addresses_for("fact.c", line_of(FACT, "/* recurse */"))[0])   # in fact(5)
    stop = stepping.next(s, info)
    assert where(info, stop) == ("fact", line_of(FACT, "/* product */"))
    assert local(s, info, "n") == 5 and local(s, info, "below") == 24


# -- until / advance --------------------------------------------------------------------------------
def test_until_runs_a_loop_to_its_end(demo) -> None:
    s, info = demo
    run_to(s, info.addresses_for("demo.c", demo_line("total += i * i;"))[0])
    assert where(info, stepping.until(s, info)) == ("main", demo_line("for (int i = 0; i < 5;"))
    stop = stepping.until(s, info)                        # the for's increment jumps back: go on
    assert stop.kind is StopKind.STEP and where(info, stop) == ("main", demo_line("results[2] = rows;"))
    assert local(s, info, "total") == sum(i * i for i in range(5)) and not s.breakpoints


def test_advance_to_a_line(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    stop = stepping.advance(s, info, f"demo.c:{demo_line('results[2] = rows;')}")
    assert stop.kind is StopKind.STEP and where(info, stop) == ("main", demo_line("results[2] = rows;"))
    assert local(s, info, "rows") == 4 and local(s, info, "total") == 30


def test_advance_to_a_function_and_an_address(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    stop = stepping.advance(s, info, "fill_row")
    assert stop.pc == info.breakpoint_address("fill_row") and stop.kind is StopKind.STEP
    target = s.symbol("fill_row").addr + s.symbol("fill_row").size - 4                # its ret
    assert stepping.advance(s, info, f"*{target:#x}").pc == target


def test_until_and_advance_stop_when_the_frame_returns(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    stepping.step(s, info)
    stop = stepping.until(s, info, demo_line("results[2] = rows;"))     # a line of main, not reached
    assert stop.kind is StopKind.STEP and in_symbol(s, "main", stop.pc) and depth(s, info) == 2


def test_until_location_skips_recursive_calls_advance_does_not(fact) -> None:
    s, info = fact
    recurse = info.addresses_for("fact.c", line_of(FACT, "/* recurse */"))[0]
    base = f"fact.c:{line_of(FACT, '/* base */')}"
    run_to(s, recurse)                                                    # fact(5)
    stop = stepping.until(s, info, base)             # fact(5) itself never gets there: it returns
    assert where(info, stop) == ("main", line_of(FACT, "/* call */"))
    s.restart()
    run_to(s, recurse)
    stop = stepping.advance(s, info, base)           # the first frame that gets there: fact(1)
    assert where(info, stop) == ("fact", line_of(FACT, "/* base */")) and depth(s, info) == 7
    assert local(s, info, "n") == 1


# -- what else ends an operation ---------------------------------------------------------------------
def test_a_user_breakpoint_inside_a_call_ends_next(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    user = s.break_at(info.addresses_for("demo.c", demo_line("value += step;"))[0])
    stop = stepping.next(s, info)
    assert stop.kind is StopKind.BREAKPOINT and stop.pc == user.address and user.hits == 1
    assert list(s.breakpoints) == [user.number]                           # the temporary is gone


def test_a_user_breakpoint_where_next_ends_is_reported(demo) -> None:
    s, info = demo
    at_call_line(s, info)
    user = s.break_at(info.addresses_for("demo.c", demo_line("rows++;"))[0])   # = the return address
    stop = stepping.next(s, info)
    assert stop.kind is StopKind.BREAKPOINT and stop.pc == user.address and user.hits == 1
    assert list(s.breakpoints) == [user.number]


def test_a_single_step_onto_a_user_breakpoint_reports_it(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    user = s.break_at(info.addresses_for("demo.c", demo_line("tdbg_set_dst_access(0, TDBG_FMT_FP32"))[0])
    stop = stepping.next(s, info)
    assert stop.kind is StopKind.BREAKPOINT and stop.pc == user.address and user.hits == 1


def test_a_watchpoint_ends_until(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    results = s.symbol("results").addr
    s.watch(results + 8, 4)                                               # results[2] = rows;
    stop = stepping.advance(s, info, demo_line("return 0;"))
    assert stop.kind is StopKind.WATCHPOINT and stop.new == 4
    # reported after the store, as GDB does: the store is the instruction before the stop
    assert info.line_for(stop.pc - 4).line == demo_line("results[2] = rows;")
    assert not s.breakpoints


def test_the_end_of_the_program_ends_next(demo) -> None:
    s, info = demo
    run_to(s, info.addresses_for("demo.c", demo_line("return 0;"))[0])
    kinds = [stepping.next(s, info).kind for _ in range(6)]
    assert StopKind.EXITED in kinds and not s.breakpoints


def test_lines_that_run_long_switch_to_breakpoints(demo_info: DebugInfo, fact_source: Path, monkeypatch) -> None:
    """With a budget of one instruction, every operation takes the breakpoint path: same stops."""
    def trace(s: Session, info: DebugInfo, script: list[str]) -> list[tuple[str, int | None, int]]:
        out = []
        for command in script:
            stop = getattr(stepping, command)(s, info)
            out.append((*where(info, stop), depth(s, info)))
        return out

    runs = []
    for budget in (stepping.STEP_BUDGET, 1):
        monkeypatch.setattr(stepping, "STEP_BUDGET", budget)
        s = Session(DEMO)
        run_to(s, demo_info.breakpoint_address("main"))
        demo_trace = trace(s, demo_info, ["next"] * 3 + ["step"] * 8 + ["next"] * 8)
        s = Session(fact_source)
        info = DebugInfo.load(s.image.path)
        run_to(s, info.breakpoint_address("main"))
        fact_trace = trace(s, info, ["step"] * 12 + ["next"] * 4)
        runs.append((demo_trace, fact_trace))
    assert runs[0] == runs[1]
    assert ("fact", line_of(FACT, "/* base */"), 7) in runs[0][1]


def test_next_over_a_line_that_loops_on_itself(fact) -> None:
    s, info = fact
    run_to(s, info.addresses_for("fact.c", line_of(FACT, "/* spin */"))[0])
    stop = stepping.next(s, info)                 # ~10^6 instructions: breakpoints, not stepi
    assert where(info, stop) == ("main", line_of(FACT, "/* done */"))
    assert s.read_u32(s.symbol("out").addr) == (120 + sum(range(100000))) & 0xFFFFFFFF
    assert not s.breakpoints


def test_resolve_location(demo) -> None:
    s, info = demo
    run_to(s, info.breakpoint_address("main"))
    line = demo_line("rows++;")
    (addr,) = info.addresses_for("demo.c", line)
    assert stepping.resolve_location(s, info, str(line)) == [addr]
    assert stepping.resolve_location(s, info, f"demo.c:{line}") == [addr]
    assert stepping.resolve_location(s, info, "fill_row") == [info.breakpoint_address("fill_row")]
    assert stepping.resolve_location(s, info, "_start") == [s.symbol("_start").addr]
    assert stepping.resolve_location(s, info, f"*{addr:#x}") == [addr] == stepping.resolve_location(s, info, addr)
    with pytest.raises(SessionError, match="No source file named nosuch.c."):
        stepping.resolve_location(s, info, "nosuch.c:3")
    with pytest.raises(SessionError):
        stepping.resolve_location(s, info, "nosuch")


def test_finish_on_b_unwinds_through_its_own_8k_local_ram() -> None:
    """B's local data RAM is 8 KiB (BlackholeA0 BabyRISCV/README.md "Local Data RAM"), a
    TRISC's 4 KiB: deep_stack_b.c runs on B's whole RAM (sp from 0xFFB02000) with a call
    chain deeper than 4 KiB.  Unwinding for ``finish`` takes B's own range; with T0's (as it
    did), no frame above 0xFFB01000 was a frame and ``finish`` said the frame was the
    outermost.  Values from the C source: deep(0) returns 0, deep(12) returns 0 + 1 + ... + 12."""
    from tdbg.toolchain.zig import build

    firmware = build(Path(__file__).parent / "firmware" / "deep_stack_b.c", core="B")
    s = Session({"B": firmware})
    execute(s, "break deep if n == 0")
    execute(s, "run")
    execute(s, "delete")
    assert s.register("sp") < 0xFFB02000 - 0x1000   # deeper than 4 KiB below the top
    assert len(execute(s, "bt").splitlines()) == 14   # deep x 13, on_whole_ram
    out = execute(s, "finish")
    assert out.startswith("deep (n=") and out.endswith("Value returned is $1 = 0\n")   # back in deep(1)
    s = Session({"B": firmware})
    execute(s, "break deep if n == 12")
    execute(s, "run")
    execute(s, "delete")
    assert s.register("sp") > 0xFFB02000 - 0x1000   # its frame is in B's upper 4 KiB
    out = execute(s, "finish")
    assert "on_whole_ram ()" in out and "Value returned is $1 = 78" in out
