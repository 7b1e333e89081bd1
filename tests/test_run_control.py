"""Run control on real firmware: breakpoints, stepping, watchpoints that stop before the access,
stops with the exact PC of the accessing instruction, interrupt, limit, restart."""

from __future__ import annotations

import struct
import threading
from pathlib import Path

import capstone
import pytest

from tdbg.session import Session
from tdbg.emu.stops import StopKind
from tdbg.tensix.events import Category
from tdbg.commands import execute
from examples import EXAMPLES

FAULTS = Path(__file__).parent / "firmware" / "faults.c"
CS = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)


def session(mode: int) -> Session:
    s = Session(FAULTS)
    s.tile.cores[s.current].uc.mem_write(s.symbol("mode").addr, struct.pack("<I", mode))
    return s


def insn_at(s: Session, pc: int) -> str:
    (insn,) = CS.disasm(s.read_memory(pc, 4), pc)
    return insn.mnemonic


def in_function(s: Session, pc: int, name: str) -> bool:
    sym = s.symbol(name)
    return sym.addr <= pc < sym.addr + sym.size


def test_breakpoint_step_and_continue() -> None:
    s = session(0)
    bp = s.break_at(s.symbol("main").addr)
    stop = s.cont()
    assert stop.kind is StopKind.BREAKPOINT and stop.pc == s.symbol("main").addr and bp.hits == 1
    assert s.stepi().pc == s.symbol("main").addr + 4
    assert s.stepi(3).kind is StopKind.STEP
    assert s.cont().kind is StopKind.EXITED
    s.restart()
    assert s.cont().pc == s.symbol("main").addr and bp.hits == 2
    s.delete(bp.number)
    assert s.cont().kind is StopKind.EXITED


def test_undefined_window_access_stops_at_the_load() -> None:
    s = session(1)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is Category.UndefinedBehavior
    assert in_function(s, stop.pc, "window_half_load_in_fp32") and insn_at(s, stop.pc) == "lhu"
    assert stop.access.address == 0xFFBD8000 and stop.access.size == 2 and not stop.access.write
    assert "Load16" in stop.describe() and f"{stop.pc:#010x}" in stop.describe()
    assert s.pc == stop.pc  # nothing committed: the core is on the load
    s.tile.policy[Category.UndefinedBehavior] = s.tile.policy[Category.UndefinedBehavior].__class__("warn")
    assert s.cont().kind is StopKind.EXITED  # with "warn" the load gives 0 and the run goes on
    assert [w.pc for w in s.tile.warnings] == [stop.pc]


def test_unmapped_load_stops_with_exact_pc() -> None:
    s = session(2)
    stop = s.cont()
    assert stop.category is Category.UndefinedBehavior
    assert in_function(s, stop.pc, "unmapped_load") and insn_at(s, stop.pc) == "lw"
    assert stop.access.address == 0x40000000 and not stop.access.write
    assert "unmapped" in stop.describe()


def test_watchpoints_stop_after_the_access_as_gdb_reports_them() -> None:
    s = session(3)
    s.break_at("touch_watched")
    assert s.cont().kind is StopKind.BREAKPOINT  # past crt0's .bss clearing
    watched = s.symbol("watched").addr
    w = s.watch(watched + 4, 4, "write")
    stop = s.cont()
    assert stop.kind is StopKind.WATCHPOINT and stop.watch is w
    assert insn_at(s, stop.pc - 4) == "sw" and (stop.old, stop.new) == (0, 0x1234)
    assert s.read_u32(watched + 4) == 0x1234  # written: the report comes after the store
    r = s.watch(watched + 8, 4, "read")
    stop = s.cont()
    assert stop.watch is r and insn_at(s, stop.pc - 4) == "lw"
    dst = s.watch(0xFFBD8000 + 64, 4, "write")  # a window range: Dst32b[1][0]
    stop = s.cont()
    assert stop.watch is dst and stop.old == 0 and stop.new == 0x3F800000   # what a load reads now
    assert s.tile.tensix.dst.get32(1, 0) == 0x007F0000  # the store happened (Dst32 layout of 1.0)
    assert s.cont().kind is StopKind.EXITED


def test_the_stub_sees_watchpoints_before_the_access() -> None:
    s = session(3)
    s.watch_after = False            # gdb-multiarch steps over the access itself
    s.break_at("touch_watched")
    assert s.cont().kind is StopKind.BREAKPOINT
    watched = s.symbol("watched").addr
    s.watch(watched + 4, 4, "write")
    stop = s.cont()
    assert insn_at(s, stop.pc) == "sw" and (stop.old, stop.new) == (0, 0x1234)
    assert s.read_u32(watched + 4) == 0  # not yet written
    s.stepi()
    assert s.read_u32(watched + 4) == 0x1234


def test_interrupt_from_another_thread_and_limit() -> None:
    s = session(4)
    timer = threading.Timer(0.2, s.interrupt)
    timer.start()
    stop = s.cont()
    assert stop.kind is StopKind.INTERRUPTED and in_function(s, stop.pc, "spin")
    counter = s.read_u32(s.symbol("counter").addr)
    assert counter > 1000
    stop = s.cont(limit=50)
    assert stop.kind is StopKind.LIMIT and in_function(s, stop.pc, "spin")
    assert 0 < s.read_u32(s.symbol("counter").addr) - counter <= 50


def test_ecall_and_restart() -> None:
    s = session(5)
    stop = s.cont()
    assert stop.kind is StopKind.ECALL and insn_at(s, stop.pc) == "ecall"
    s.restart()
    assert s.pc == s.image.entry
    assert s.read_u32(s.symbol("mode").addr) == 0xFF  # back to the loaded image


def test_bad_location_is_one_line_error() -> None:
    from tdbg.session import SessionError

    s = session(0)
    with pytest.raises(SessionError, match='Function "nope" not defined.'):  # GDB's words
        s.break_at("nope")


def test_dst_row_watch_window_store_and_tensix_instruction() -> None:

    s = Session(EXAMPLES / "movd2b.c")
    # movd2b.c writes Dst32b rows 0..7 in fmt 0: Dst32b row 1 is DstBits rows 1 and 9.
    w = s.watch_dst_row(1)
    assert w.view == "Dst32b" and w.bits_rows == [1, 9]
    stop = s.cont()
    assert stop.kind is StopKind.WATCHPOINT and stop.watch is w
    assert stop.access.address == 0xFFBD8000 + 16 * 4  # the first store to Dst32b[1][0]
    assert stop.new == 0x41880000 and insn_at(s, stop.pc - 4) == "sw"  # 17.0f, reported after the store


def test_dst_row_watch_hit_by_a_tensix_instruction() -> None:
    s = Session(Path(__file__).parent / "firmware" / "zeroacc.c")
    s.break_at(s.symbol("after_store").addr)
    assert s.cont().kind is StopKind.BREAKPOINT
    w = s.watch_dst_row(1)  # fmt 0: Dst32b row 1 = DstBits rows 1 and 9
    stop = s.cont()
    # ZEROACC (one row, ZEROACC.md) marks Dst32b[1] undefined: a write to the watched rows,
    # reported after the push, at the .ttinsn word that pushed it
    assert stop.kind is StopKind.WATCHPOINT and stop.watch is w and stop.access is None
    assert stop.pc in s.image.ttinsn and "ZEROACC" in stop.detail
    assert s.cont().kind is StopKind.EXITED  # the push is not repeated


def test_an_interrupt_is_taken_by_the_run_it_stops() -> None:
    # Issue 26 item 8: after the run an interrupt stopped, later commands through
    # Session.execute are not interrupted again (before: each printed "Quit").
    s = session(4)
    threading.Timer(0.2, s.interrupt).start()
    assert "Program received signal SIGINT" in execute(s, "continue") or s.last_stop.kind is StopKind.INTERRUPTED
    for command in ("x/4x $sp", "disassemble $pc,+8", "info registers pc"):
        out = execute(s, command, check=False)
        assert "Quit" not in out, (command, out)


def test_an_interrupt_between_two_runs_of_one_request_is_not_lost() -> None:
    # Issue 26 item 8: run_until resumes the tile after each hit of an internal breakpoint whose
    # condition is false; an interrupt that comes while the condition is evaluated (between two
    # emulator runs) stops the request (before: the next run dropped it, and it ran on).
    s = session(4)
    spin = s.symbol("spin").addr
    loop = next(a for a in range(spin, spin + s.symbol("spin").size, 4) if insn_at(s, a) == "j") - 4
    hits = [0]

    def condition() -> bool:
        hits[0] += 1
        if hits[0] == 3:
            s.interrupt()
        return False

    done: list = []
    worker = threading.Thread(target=lambda: done.append(s.run_until({loop: condition})), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        s.tile.interrupt()
        worker.join(10)
        pytest.fail("the interrupt was lost: the request ran on")
    stop, reached = done[0]
    assert stop.kind is StopKind.INTERRUPTED and not reached and hits[0] == 3


def test_a_resume_from_a_stop_with_nothing_to_mute_is_one_run_of_the_same_instructions() -> None:
    """A core stopped at a plain instruction (a turn's instruction count ran out: no breakpoint
    or park there, no watched access, no push done) resumes with one ``emu_start``, no single
    step first, and runs the instructions the step and the run ran: its registers are those of
    the same count of single steps (``stepi``, the reference)."""
    a, b = Session(EXAMPLES / "bench_loop.c"), Session(EXAMPLES / "bench_loop.c")
    core = a.tile.cores[a.current]
    assert core.resume(57).kind is StopKind.LIMIT      # the first resume runs 56 (none stopped yet)
    assert core._nothing_to_mute()
    runs: list[int] = []
    start = core.uc.emu_start

    def counted(begin: int, until: int, timeout: int = 0, count: int = 0) -> None:
        runs.append(count)
        start(begin, until, timeout, count)

    core.uc.emu_start = counted
    assert core.resume(57).kind is StopKind.LIMIT
    assert runs == [57]
    b.stepi(56 + 57)
    assert core.regs() == b.tile.cores[b.current].regs() and core.pc == b.tile.cores[b.current].pc
