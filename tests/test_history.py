"""reverse-stepi's undo records: each step keeps only what it can change, undoing puts exactly
that back, and the records stay within their memory budget."""

from __future__ import annotations

import numpy as np

from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from examples import EXAMPLES

FW = firmware_dir()


def step_until(s: Session, predicate, limit: int = 5000) -> None:
    for _ in range(limit):
        if predicate():
            return
        assert s.stepi(record=False).kind is StopKind.STEP
    raise AssertionError("never reached")


def word_at_pc(s: Session) -> int:
    return int.from_bytes(s.read_memory(s.pc, 4), "little")


def test_a_plain_step_keeps_only_the_core() -> None:
    s = Session(FW / "demo.c")
    s.stepi()
    record = s.history._records[-1]
    assert record.ram is None and record.devices is None and record.tile is None
    assert record.size < 2048


def test_a_store_to_l1_is_undone_byte_for_byte() -> None:
    s = Session(FW / "demo.c")
    s.write_memory(s.symbol("results").addr, b"\xff" * 4)   # crt0 zeroes .bss (results) first
    # the first sw into L1 (RISC-V store opcode 0x23 whose target is below the end of L1)
    def at_l1_store() -> bool:
        word = word_at_pc(s)
        if word & 0x7F != 0x23:
            return False
        offset = ((word >> 25) << 5) | ((word >> 7) & 0x1F)
        offset -= (offset & 0x800) << 1
        return (s.registers()[(word >> 15) & 0x1F] + offset) & 0xFFFFFFFF < 0x180000
    step_until(s, at_l1_store)
    l1_before = s.read_memory(0, 0x180000)
    regs, pc = s.registers(), s.pc
    assert s.stepi().kind is StopKind.STEP
    record = s.history._records[-1]
    assert record.ram is not None and record.devices is None
    assert s.read_memory(0, 0x180000) != l1_before                # the store changed L1
    s.reverse_stepi()
    assert s.read_memory(0, 0x180000) == l1_before and s.registers() == regs and s.pc == pc


def test_a_pushed_instruction_is_undone_with_the_coprocessor() -> None:
    s = Session(EXAMPLES / "movd2b.c")
    step_until(s, lambda: s.pc in s.tile.code.at and s.tile.coprocessor.mnemonic(s.tile.code.at[s.pc].insn) == "MOVD2B")
    srcb, pushes = s.src("srcb", 0).copy(), len(s.tile.pushes)
    assert s.stepi().kind is StopKind.STEP
    assert len(s.tile.pushes) == pushes + 1 and not np.array_equal(s.src("srcb", 0), srcb)
    assert s.history._records[-1].devices is not None
    s.reverse_stepi()
    assert np.array_equal(s.src("srcb", 0), srcb) and len(s.tile.pushes) == pushes


def test_records_stay_within_the_budget() -> None:
    s = Session(EXAMPLES / "movd2b.c")
    s.history.budget = 10_000       # a few register-only steps
    for _ in range(40):
        s.stepi()
    assert s.history.bytes <= 10_000 and 1 <= len(s.history) < 40
    n = len(s.history)
    s.reverse_stepi(n)
    assert len(s.history) == 0


def test_reverse_over_a_soft_reset_store_puts_the_other_cores_back() -> None:
    s = Session({"B": FW / "release_triscs.c", "T0": EXAMPLES / "pipeline_t0.c"})
    s.select_core("B")
    # step B until its store to SOFT_RESET_0 has released T0, recording every step
    for _ in range(400):
        s.stepi()
        if s.tile.cores["T0"].state.value == "running":
            break
    assert s.tile.cores["T0"].state.value == "running"
    assert s.history._records[-1].tile is not None
    s.reverse_stepi()
    assert s.tile.cores["T0"].state.value == "held in reset"
    assert s.tile.registers.value("SOFT_RESET_0") & (1 << 12)


def test_reverse_over_a_step_that_began_to_wait_puts_the_other_cores_back() -> None:
    # Issue 26 item 6: T2 polls semaphore 1 (a wait); stepping it with scheduler-locking off lets
    # T0 and T1 run to their end inside that one step.  Undoing the step puts them back too
    # (before: only T2 was saved, the record chosen before the step began to wait).
    s = Session({f"T{i}": EXAMPLES / f"pipeline_t{i}.c" for i in range(3)})
    s.select_core("T2")
    before = None
    for _ in range(5000):
        before = (s.tile.cores["T0"].state, s.tile.cores["T1"].state, s.tile.cores["T0"].pc, len(s.tile.pushes))
        assert s.stepi().kind is StopKind.STEP
        if s.tile.cores["T0"].state.value == "exited":
            break
    assert s.tile.cores["T0"].state.value == "exited" and before is not None
    assert s.history._records[-1].tile is not None
    s.reverse_stepi()
    assert (s.tile.cores["T0"].state, s.tile.cores["T1"].state, s.tile.cores["T0"].pc, len(s.tile.pushes)) == before
    assert s.tile.cores["T0"].state.value == "running"
