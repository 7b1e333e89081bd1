"""Firmware built for the Blackhole ISA (``-mcpu=generic_rv32+m+zaamo+zba+zbb``, what LLVM can
express of Tenstorrent's ``rv32im_zaamo_zba_zbb_xttzbkb``) runs on the cores: every Zba / Zbb /
xttzbkb instruction, the CSRs (BlackholeA0 ``BabyRISCV/CSRs.md``), ``lr``/``sc`` refused, and
what the debugger sees of them (one instruction per ``stepi``, the loaded word in ``x``,
binutils' spelling).

Expected results are computed here from the instructions' definitions (RISC-V Bit-Manipulation
spec 1.0.0; Scalar Cryptography spec for ``pack``/``brev8``) with plain Python integers, and the
CSR values from CSRs.md's table.
"""

from __future__ import annotations

import random
import struct
import threading
from pathlib import Path

import pytest
from unicorn.riscv_const import UC_RISCV_REG_PC

from tdbg.emu.stops import StopKind
from tdbg.emu.tile import Policy
from tdbg.emu.translation import sequence
from tdbg.riscv.extensions import decode_bitmanip
from tdbg.session import Session, SessionError
from tdbg.tensix.events import Category
from tdbg.commands import execute
from examples import EXAMPLES

FIRMWARE = Path(__file__).parent / "firmware"
BH_ISA = ["-mcpu=generic_rv32+m+zaamo+zba+zbb"]
M = 0xFFFF_FFFF
N = 16


def s32(x: int) -> int:
    return x - (1 << 32) if x & 0x8000_0000 else x


def rotr(x: int, n: int) -> int:
    n &= 31
    return ((x >> n) | (x << (32 - n))) & M


def per_byte(x: int, f) -> int:
    return int.from_bytes(bytes(f(b) for b in x.to_bytes(4, "little")), "little")


EXPECTED = {
    0: lambda a, b: (2 * a + b) & M, 1: lambda a, b: (4 * a + b) & M, 2: lambda a, b: (8 * a + b) & M,
    3: lambda a, b: a & ~b & M, 4: lambda a, b: (a | ~b) & M, 5: lambda a, b: ~(a ^ b) & M,
    6: lambda a, b: a if s32(a) <= s32(b) else b, 7: lambda a, b: min(a, b),
    8: lambda a, b: a if s32(a) >= s32(b) else b, 9: lambda a, b: max(a, b),
    10: lambda a, b: rotr(a, 32 - b % 32), 11: lambda a, b: rotr(a, b),
    12: lambda a, b: 32 - a.bit_length(), 13: lambda a, b: next((i for i in range(32) if a >> i & 1), 32),
    14: lambda a, b: bin(a).count("1"), 15: lambda a, b: (a & 0xFF) | (0xFFFFFF00 if a & 0x80 else 0),
    16: lambda a, b: (a & 0xFFFF) | (0xFFFF0000 if a & 0x8000 else 0), 17: lambda a, b: a & 0xFFFF,
    18: lambda a, b: per_byte(a, lambda x: 0xFF if x else 0), 19: lambda a, b: int.from_bytes(a.to_bytes(4, "big"), "little"),
    20: lambda a, b: rotr(a, 7), 21: lambda a, b: (a & 0xFFFF) | ((b & 0xFFFF) << 16),
    22: lambda a, b: per_byte(a, lambda x: int(f"{x:08b}"[::-1], 2)), 23: lambda a, b: 3 * a & M,
    24: lambda a, b: (a + 4 * b) & M, 25: lambda a, b: 32 - a.bit_length(),
}


def inputs() -> tuple[list[int], list[int]]:
    rng = random.Random(20)
    edges = [0, 1, 0x80, 0x8000, 0x8000_0000, M, 0x7FFF_FFFF, 0x0001_0200, 31, 32]
    a = edges + [rng.getrandbits(32) for _ in range(N - len(edges))]
    b = [M, 0, 1, 0x7FFF_FFFF, 0x8000_0000, 5, 33, 0xFFFF_0000] + [rng.getrandbits(32) for _ in range(N - 8)]
    return a, b


def bitmanip_session() -> Session:
    s = Session({"T0": _build("bitmanip.c")})
    a, b = inputs()
    s.write_memory(s.symbol("in_a").addr, struct.pack(f"<{N}I", *a))
    s.write_memory(s.symbol("in_b").addr, struct.pack(f"<{N}I", *b))
    return s


def _build(name: str) -> Path:
    from tdbg.toolchain.zig import build
    return build(FIRMWARE / name, [*BH_ISA, "-O2"])


def outputs(s: Session, row: int) -> list[int]:
    return list(struct.unpack(f"<{N}I", s.read_memory(s.symbol("out").addr + 4 * N * row, 4 * N)))


def test_every_bitmanip_instruction_runs_as_specified() -> None:
    s = bitmanip_session()
    assert s.cont().kind is StopKind.EXITED
    a, b = inputs()
    for row, f in EXPECTED.items():
        assert outputs(s, row) == [f(x, y) for x, y in zip(a, b)], row


def test_code_the_firmware_writes_is_translated_when_it_first_runs() -> None:
    s = bitmanip_session()
    assert s.cont().kind is StopKind.EXITED
    a, b = inputs()
    assert outputs(s, 26)[:2] == [(4 * a[0] + b[0]) & M, (4 * a[1] + b[1]) & M]


def test_stepi_executes_a_translated_instruction_as_one() -> None:
    s = bitmanip_session()
    s.break_at("times_three")
    assert s.cont().kind is StopKind.BREAKPOINT
    x = s.register("a0")
    while s.read_u32(s.pc) != 0x20A52533:     # sh1add a0, a0, a0
        s.stepi()
    at = s.pc
    assert s.stepi().kind is StopKind.STEP
    assert s.pc == at + 4 and s.register("a0") == 3 * x & M
    assert not s.tile.trampolines.contains(s.pc)
    s.reverse_stepi()
    assert (s.pc, s.register("a0")) == (at, x)
    assert s.read_u32(at) == 0x20A52533               # the loaded word, not the jump
    assert "sh1add\ta0,a0,a0" in execute(s, f"x/i {at}")


def test_breakpoint_after_a_translated_instruction_and_instruction_limits() -> None:
    """A run cut after any number of instructions never stops inside a trampoline, and the
    results are those of an uninterrupted run."""
    reference = bitmanip_session()
    reference.cont()
    s = bitmanip_session()
    for limit in (3, 7, 11, 13, 50, 97):
        while True:
            stop = s.cont(limit=limit)
            assert not s.tile.trampolines.contains(s.pc)
            if stop.kind is StopKind.EXITED:
                break
        assert [outputs(s, r) for r in EXPECTED] == [outputs(reference, r) for r in EXPECTED]
        s.start_over()
        a, b = inputs()
        s.write_memory(s.symbol("in_a").addr, struct.pack(f"<{N}I", *a))
        s.write_memory(s.symbol("in_b").addr, struct.pack(f"<{N}I", *b))


def test_disassembly_spells_the_extensions() -> None:
    s = bitmanip_session()
    text = execute(s, "disassemble index_add")
    assert "sh2add\ta0,a1,a0" in text
    assert "clz\ta0,a0" in execute(s, "disassemble clz_in_place")


CSRS = FIRMWARE / "csrs.c"


def csr_session(mode: int) -> Session:
    s = Session({"T0": _build("csrs.c")})
    s.write_value(s.symbol("mode").addr, 4, mode)
    return s


def csr_results(s: Session) -> list[int]:
    return list(struct.unpack("<16I", s.read_memory(s.symbol("result").addr, 64)))


def test_csrs_as_the_page_gives_them() -> None:
    s = csr_session(0)
    assert s.cont().kind is StopKind.EXITED
    r = csr_results(s)
    assert r[0] == 0x0002_0000                       # cfg0 at reset: StMergeTimer = 16
    assert r[1] == 0x0006_000A                       # after csrs 2, csrs 1<<18, csrs 8
    assert r[2] == 0x0006_0008                       # csrc 2
    assert (r[3], r[4], r[5]) == (0x8000_6600, 0x4020_1123, 0)    # mstatus, misa, mhartid
    assert r[6] == 0x1234_5678                       # cfg1: scratch
    assert r[7] == 0x8000_6600                       # mstatus: writes have no effect
    assert r[8] < r[9]                               # cycle advances between reads
    assert r[10] == 0xABC                            # what was written to mcycle, then one read later
    assert r[11] == 5 and r[12] == 0x7               # csrrwi returns the old value; csrrsi
    assert s.tile.cores[s.current].csrs.values[0x7C3] == 0x1234_5678


@pytest.mark.parametrize("mode, category, text", [
    (1, Category.UndefinedBehavior, "CSR 0x7ff is not one the baby RISC-V recognises"),
    (2, Category.UnimplementedFunctionality, "minstret"),
    (3, Category.UnsupportedFunctionality, "cfg0 SyncAllOps"),
    (4, Category.UndefinedBehavior, "mhartid is read-only"),
    (5, Category.UndefinedBehavior, "0x1005252f is no instruction the baby RISC-V implements"),
    (6, Category.UnimplementedFunctionality, "NoC overlay stream register"),
])
def test_csr_and_atomic_stops(mode: int, category: Category, text: str) -> None:
    s = csr_session(mode)
    stop = s.cont()
    assert stop.kind is StopKind.EVENT and stop.category is category
    assert text in stop.describe()
    assert s.pc == stop.pc and s.read_u32(stop.pc) != 0x13      # on the instruction, shown as loaded
    again = s.cont()
    assert (again.kind, again.pc) == (StopKind.EVENT, stop.pc)


def test_cfg0_write_kept_when_let_through() -> None:
    s = csr_session(3)
    s.tile.policy[Category.UnsupportedFunctionality] = Policy.WARN
    assert s.cont().kind is StopKind.EXITED
    assert s.tile.cores[s.current].csrs.values[0x7C0] & (1 << 9)


def test_tt_cfg_sstatus_is_scratch_on_brisc() -> None:
    s = Session({"B": _build("csrs.c")})
    s.write_value(s.symbol("mode").addr, 4, 6)
    assert s.cont().kind is StopKind.EXITED
    assert csr_results(s)[13] == 0x55


def test_debugger_writes_over_code() -> None:
    """Issue 26 item 2: writing a word of loaded code replaces what the core runs, and reads
    show what was written; writing the same word back changes nothing."""
    s = bitmanip_session()
    at = s.symbol("index_add").addr + 16
    assert s.read_u32(at) == 0x20A5C533                            # sh2add a0, a1, a0
    execute(s, f"set {{int}}{at} = {{int}}{at}")
    assert s.read_u32(at) == 0x20A5C533
    s.write_value(at, 4, 0x00B50533)                                # add a0, a0, a1
    assert s.read_u32(at) == 0x00B50533 and at not in s.tile.code.at
    s.break_at("index_add")
    s.cont()
    execute(s, "finish")
    assert s.register("a0") == (inputs()[0][0] + inputs()[1][0]) & M
    with pytest.raises(SessionError):                                # the trampolines are not memory
        s.write_value(s.tile.trampolines.spaces[0].base, 4, 0)


def test_debugger_write_of_a_ttinsn_word_changes_what_is_pushed() -> None:
    """Issue 26 item 2 on a .ttinsn: the written Tensix word is pushed, not the ELF's."""
    s = Session(EXAMPLES / "movd2b.c")
    at = min(s.image.ttinsn)
    word = s.read_u32(at)
    execute(s, f"set {{int}}{at} = {{int}}{at}")
    assert s.read_u32(at) == word and s.tile.code.at[at].word == word
    nop = 0x02 << 24                                               # Tensix NOP, .ttinsn: rotated left by 2
    s.write_value(at, 4, ((nop << 2) | (nop >> 30)) & M)
    assert s.read_u32(at) == nop << 2
    s.cont()
    pushed = [r for r in s.tile.pushes if r.pc == at]
    assert pushed and all(r.word == nop for r in pushed)


def test_a_word_written_amid_consecutive_ttinsn_words_leaves_its_neighbours_pushed() -> None:
    """bench_rwc.c's loop is four .ttinsn words in a row: writing a RISC-V nop (0x13) over the
    second runs the nop there and pushes the three others; writing a Tensix NOP (opcode 0x02,
    .ttinsn: rotated left by 2) back pushes it there, and the others as before."""
    s = Session(EXAMPLES / "bench_rwc.c")
    s.write_memory(s.symbol("iterations").addr, struct.pack("<I", 1))
    words = sorted(s.image.ttinsn)
    first = next(a for a in words if all(a + 4 * i in words for i in range(4)))
    run = [first + 4 * i for i in range(4)]
    elf = {a: s.read_u32(a) for a in run}
    s.write_value(run[1], 4, 0x13)
    assert s.cont().kind is StopKind.EXITED
    pushed = {r.pc: r.word for r in s.tile.pushes}
    assert run[1] not in pushed
    assert all(((pushed[a] << 2) | (pushed[a] >> 30)) & M == elf[a] for a in (run[0], run[2], run[3]))
    s.restart()
    s.write_memory(s.symbol("iterations").addr, struct.pack("<I", 1))
    nop = 0x02 << 24
    s.write_value(run[1], 4, ((nop << 2) | (nop >> 30)) & M)
    assert s.cont().kind is StopKind.EXITED
    pushed = {r.pc: r.word for r in s.tile.pushes}
    assert pushed[run[1]] == nop
    assert all(((pushed[a] << 2) | (pushed[a] >> 30)) & M == elf[a] for a in (run[0], run[2], run[3]))


def test_a_core_that_runs_another_cores_code_pushes_its_ttinsn_words() -> None:
    """A .ttinsn is a sw to INSTRN_BUF_BASE wherever the core fetches it
    (PushTensixInstruction.md): T0 stepped through T1's four .ttinsn words of bench_rwc.c pushes
    each to thread 0, and runs T1's plain instructions as they are."""
    s = Session({"T0": EXAMPLES / "bench_loop.c", "T1": EXAMPLES / "bench_rwc.c"})
    t1 = s.tile.programs["T1"].image
    words = sorted(t1.ttinsn)
    first = next(a for a in words if all(a + 4 * i in words for i in range(4)))
    with s.on_core("T0"):
        assert not any(lo <= first < hi for lo, hi in s.tile.programs["T0"].image.exec_ranges)
        s.set_register("pc", first)
        for i in range(5):
            s.stepi()
    mine = [r for r in s.tile.pushes if r.core == "T0"]
    assert [r.pc for r in mine] == [first + 4 * i for i in range(4)] and {r.thread for r in mine} == {0}
    assert [((r.word << 2) | (r.word >> 30)) & M for r in mine] == [t1.ttinsn[first + 4 * i] for i in range(4)]
    assert s.tile.cores["T0"].pc == first + 20


def test_a_stop_in_a_trampoline_of_a_polling_loop_finishes_its_instruction() -> None:
    """A stop that lands on a trampoline's last word (the jump back; the preemptor can land
    there) finishes the translated instruction and returns: it does not go round the loop,
    whose blocks Unicorn has cached from the free run before."""
    s = Session({"T0": _build("spin_zb.c")})
    core = s.tile.cores["T0"]
    main = s.symbol("main").addr
    ((at, word), start), = s.tile.trampolines.placed.items()            # the loop's sh1add
    assert main <= at < main + 64 and decode_bitmanip(word).name == "sh1add"
    last = start + 4 * len(sequence(decode_bitmanip(word)))             # the jal back
    core.uc.emu_start(s.pc, 0, timeout=20_000)          # the loop, run freely for 20 ms
    core.uc.reg_write(UC_RISCV_REG_PC, last)
    done: list[int] = []
    runner = threading.Thread(target=lambda: done.append(core._finish_trampoline(last)), daemon=True)
    runner.start()
    runner.join(10)
    if runner.is_alive():
        core.uc.emu_stop()
    assert done == [at + 4]
