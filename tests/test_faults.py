"""Where a baby RISC-V differs from a plain RV32 emulator: illegal and unsupported instructions,
``wfi``, misaligned accesses, fetches outside L1 (issue 15 items 5, 11, 13).  Expected values come
from BabyRISCV/README.md ("Faults / exceptions": unaligned accesses are rounded down, unsupported
instructions run as some other instruction; "Instruction set"; "Frontend": code runs from L1
only) and from the firmware source (tests/firmware/misbehave.c)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tdbg.emu.stops import StopKind
from tdbg.emu.tile import Policy
from tdbg.session import Session
from tdbg.tensix.events import Category
from tdbg.commands import execute

MISBEHAVE = Path(__file__).parent / "firmware" / "misbehave.c"


def session(mode: int) -> Session:
    s = Session(MISBEHAVE)
    s.write_value(s.symbol("mode").addr, 4, mode)
    return s


def word_at(s: Session, pc: int) -> int:
    return int.from_bytes(s.read_memory(pc, 4), "little")


def u32(s: Session, name: str, index: int = 0) -> int:
    return struct.unpack_from("<I", s.read_memory(s.symbol(name).addr + 4 * index, 4))[0]


def in_function(s: Session, pc: int, name: str) -> bool:
    sym = s.symbol(name)
    return sym.addr <= pc < sym.addr + sym.size


@pytest.mark.parametrize("mode, word, category", [(1, 0xFFFFFFFF, Category.UndefinedBehavior),
                                                  (2, 0x10500073, Category.UndefinedBehavior),      # wfi
                                                  (8, 0x00B57553, Category.UnimplementedFunctionality)])  # F fadd.s
def test_an_instruction_the_core_cannot_run_stops_on_itself(mode: int, word: int, category: Category) -> None:
    s = session(mode)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is category
    assert word_at(s, stop.pc) == word and s.pc == stop.pc        # its own PC, not PC+4
    assert f"{word:#010x}" in stop.describe() or "wfi" in stop.describe()
    assert "BabyRISCV/README.md" in stop.describe()                     # the rule
    assert "limit" not in stop.describe().lower()
    again = s.cont()                                                   # continue runs it again
    assert (again.kind, again.pc) == (StopKind.EVENT, stop.pc) and u32(s, "after") == 0
    s.tile.policy[category] = Policy.WARN                              # let through: a nop
    assert s.cont().kind is StopKind.EXITED and u32(s, "after") == 1
    assert [w.pc for w in s.tile.warnings] == [stop.pc]


def test_stepping_onto_an_illegal_instruction_stops_there() -> None:
    s = session(1)
    s.break_at("illegal")
    s.cont()
    stops = [s.stepi() for _ in range(3)]
    event = next(st for st in stops if st.kind is StopKind.EVENT)
    assert word_at(s, event.pc) == 0xFFFFFFFF and in_function(s, event.pc, "illegal")


@pytest.mark.parametrize("mode, function", [(5, "run_local_ram"), (6, "run_dst_window")])
def test_code_runs_from_l1_only(mode: int, function: str) -> None:
    s = session(mode)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is Category.UndefinedBehavior
    assert stop.pc in (0xFFB00000, 0xFFBD8000) and "fetched from L1 only" in stop.describe()


def test_misaligned_device_load_is_caught_and_rounded_down() -> None:
    s = session(7)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is Category.NonContractualBehavior
    assert stop.access.address == 0xFFBD8002 and in_function(s, stop.pc, "misaligned_device_load")
    assert "rounded down to 0xffbd8000" in stop.describe()
    s.set_dst(0, [1.5] * 16, "fp32")
    s.tile.policy[Category.NonContractualBehavior] = Policy.IGNORE
    assert s.cont().kind is StopKind.EXITED
    # the window in its reset format (fmt 0, FP32): the aligned element, Dst32b[0][0] = 1.5
    assert u32(s, "sink") == 0x3FC00000


def test_misaligned_store_without_the_check_spills_as_unicorn_does() -> None:
    """The named limit: with the alignment check off, plain memory is Unicorn's (byte-wise)."""
    s = session(3)
    assert s.cont().kind is StopKind.EXITED
    assert (u32(s, "pair", 0), u32(s, "pair", 1)) == (0x3344AAAA, 0xBBBB1122)


def test_misaligned_store_with_the_check_stops_then_rounds_down() -> None:
    s = session(3)
    s.set_alignment_check(True)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is Category.NonContractualBehavior
    assert stop.access.write and stop.access.address == s.symbol("pair").addr + 2
    assert (u32(s, "pair", 0), u32(s, "pair", 1)) == (0xAAAAAAAA, 0xBBBBBBBB)   # nothing committed
    s.tile.policy[Category.NonContractualBehavior] = Policy.IGNORE
    assert s.cont().kind is StopKind.EXITED
    assert (u32(s, "pair", 0), u32(s, "pair", 1)) == (0x11223344, 0xBBBBBBBB)   # memory_map.md: rounded down


def test_misaligned_load_with_the_check_reads_the_aligned_word() -> None:
    s = session(4)
    s.set_alignment_check(True)
    s.tile.policy[Category.NonContractualBehavior] = Policy.WARN
    assert s.cont().kind is StopKind.EXITED
    assert u32(s, "sink") == 0xBBBBBBBB and len(s.tile.warnings) == 1
    assert (u32(s, "pair", 0), u32(s, "pair", 1)) == (0xAAAAAAAA, 0xBBBBBBBB)   # memory as it was


def test_reverse_stepi_undoes_a_rounded_down_store() -> None:
    s = session(3)
    s.set_alignment_check(True)
    s.tile.policy[Category.NonContractualBehavior] = Policy.IGNORE
    s.break_at("misaligned_store")
    s.cont()
    while u32(s, "pair", 0) == 0xAAAAAAAA:
        s.stepi()
    s.reverse_stepi()
    assert (u32(s, "pair", 0), u32(s, "pair", 1)) == (0xAAAAAAAA, 0xBBBBBBBB)


def test_backtrace_after_an_event_stays_in_the_t_cores_local_ram() -> None:
    """Item 7: T cores map 4 KiB of local RAM, B 8 KiB; s0 points 16 bytes past T0's RAM.  The
    stop report names the function, and ``bt`` stops at the end of T0's RAM."""
    s = session(9)
    report = execute(s, "run")
    assert "UndefinedBehavior on T0" in report and "in no_frame_info ()" in report
    assert "Cannot access memory" not in report
    (frame,) = execute(s, "bt").splitlines()
    assert frame.startswith("#0 ") and frame.endswith("in no_frame_info ()")


def test_an_unreadable_saved_value_ends_the_backtrace_instead_of_replacing_it() -> None:
    s = session(9)
    s.cont()
    profile = s.tile.profile
    brisc_sized = ((0, profile.l1_size), (profile.local_ram_base, profile.local_ram_base + 0x2000))
    frames = s.debug.frames(s.pc, s.registers(), s.read_u32, brisc_sized)   # would read 0xffb0100c
    assert [f.function for f in frames] == ["no_frame_info"]
