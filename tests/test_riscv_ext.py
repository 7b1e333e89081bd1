"""The Blackhole RISC-V extensions: decode, the reference results, binutils' spelling, and the
RV32IM trampolines that execute them (against the reference, on bare Unicorn).

Expected results are worked by hand from the RISC-V Bit-Manipulation spec 1.0.0 and the Scalar
Cryptography spec (``pack``, ``brev8``); the spellings are gdb-multiarch 13.1's ``x/i`` of the
same words in an ELF whose ``Tag_RISCV_arch`` names the extension (``zba``/``zbb``; ``zbkb``
for ``pack``/``brev8``; ``i2p0``, which implies Zicsr, for the CSRs).
"""

from __future__ import annotations

import itertools
import random

import pytest
from unicorn import UC_ARCH_RISCV, UC_MODE_RISCV32, UC_PROT_ALL, UC_PROT_EXEC, Uc
from unicorn.riscv_const import UC_RISCV_REG_PC, UC_RISCV_REG_X0

from tdbg.emu.translation import Trampolines, jal_offset, sequence
from tdbg.riscv.extensions import BitInsn, arch_extensions, decode_bitmanip, decode_csr, evaluate, is_lr_sc

# (word, gdb-multiarch 13.1's x/i text)
SPELLED = [
    (0x20C5A533, "sh1add\ta0,a1,a2"), (0x20A5C533, "sh2add\ta0,a1,a0"), (0x207362B3, "sh3add\tt0,t1,t2"),
    (0x40C5F533, "andn\ta0,a1,a2"), (0x40C5E533, "orn\ta0,a1,a2"), (0x40C5C533, "xnor\ta0,a1,a2"),
    (0x0AC5C533, "min\ta0,a1,a2"), (0x0AC5D533, "minu\ta0,a1,a2"), (0x0AC5E533, "max\ta0,a1,a2"),
    (0x0AC5F533, "maxu\ta0,a1,a2"), (0x60C59533, "rol\ta0,a1,a2"), (0x60C5D533, "ror\ta0,a1,a2"),
    (0x6035D513, "ror\ta0,a1,0x3"), (0x61F5D513, "ror\ta0,a1,0x1f"), (0x60059513, "clz\ta0,a1"),
    (0x60159513, "ctz\ta0,a1"), (0x60259513, "cpop\ta0,a1"), (0x60459513, "sext.b\ta0,a1"),
    (0x60559513, "sext.h\ta0,a1"), (0x0805C533, "zext.h\ta0,a1"), (0x2875D513, "orc.b\ta0,a1"),
    (0x6985D513, "rev8\ta0,a1"), (0x08C5C533, "pack\ta0,a1,a2"), (0x6875D513, "brev8\ta0,a1"),
]
CSR_SPELLED = [
    (0x7C032073, "csrs\t0x7c0,t1"), (0x7C033073, "csrc\t0x7c0,t1"), (0xB0002573, "csrr\ta0,mcycle"),
    (0xC0002573, "rdcycle\ta0"), (0x7C351073, "csrw\t0x7c3,a0"), (0x7C02D573, "csrrw\ta0,0x7c0,5"),
    (0x7C02E073, "csrs\t0x7c0,5"), (0xF1402573, "csrr\ta0,mhartid"), (0x30102573, "csrr\ta0,misa"),
    (0xC8002573, "rdcycleh\ta0"), (0xC0202573, "rdinstret\ta0"), (0x7C031573, "csrrw\ta0,0x7c0,t1"),
    (0x7C032573, "csrrs\ta0,0x7c0,t1"), (0x7C033573, "csrrc\ta0,0x7c0,t1"), (0x7C02F573, "csrrc\ta0,0x7c0,5"),
    (0x7C02F073, "csrc\t0x7c0,5"), (0xC0002073, "rdcycle\tzero"), (0x00302573, "csrr\ta0,fcsr"),
    (0x7C102573, "csrr\ta0,0x7c1"), (0xBC002573, "csrr\ta0,0xbc0"), (0xC2202573, "csrr\ta0,vlenb"),
]


@pytest.mark.parametrize(("word", "text"), SPELLED)
def test_bitmanip_words_are_spelled_as_gdb(word: int, text: str) -> None:
    insn = decode_bitmanip(word)
    assert insn is not None
    assert "\t".join(insn.spell()) == text


@pytest.mark.parametrize(("word", "text"), CSR_SPELLED)
def test_csr_words_are_spelled_as_gdb(word: int, text: str) -> None:
    insn = decode_csr(word)
    assert insn is not None
    assert "\t".join(insn.spell()) == text


def test_not_extension_words() -> None:
    for word in (0x00B50533, 0x40B50533, 0x00359513, 0x4035D513, 0x0AC5C5B3 & ~0x7F | 0x3B, 0x08C5F533):  # add, sub, slli, srai, a W op, packh
        assert decode_bitmanip(word) is None, hex(word)
    assert decode_csr(0x00000073) is None and decode_csr(0x10500073) is None    # ecall, wfi
    assert is_lr_sc(0x1005252F) and is_lr_sc(0x18B5252F) and not is_lr_sc(0x00B5252F)


def test_arch_attribute() -> None:
    bh = arch_extensions("rv32i2p0_m2p0_zmmul1p0_zaamo1p0_zba1p0_zbb1p0_xttzbkb1p0")
    assert {"i", "m", "zicsr", "zaamo", "zba", "zbb", "xttzbkb"} <= bh
    assert "zicsr" not in arch_extensions("rv32i2p1_m2p0_zmmul1p0")
    assert arch_extensions(None) == frozenset()


# Hand-worked from the specifications' definitions.
WORKED = [
    ("sh1add", 5, 7, 17), ("sh2add", 5, 7, 27), ("sh3add", 0xFFFF_FFFF, 9, 1), ("andn", 0xF0F0, 0xFF00, 0x00F0),
    ("orn", 0x0F, 0xFFFF_FFF0, 0x0F | 0xF), ("xnor", 0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF),
    ("min", 0xFFFF_FFFF, 1, 0xFFFF_FFFF), ("minu", 0xFFFF_FFFF, 1, 1), ("max", 0x8000_0000, 3, 3),
    ("maxu", 0x8000_0000, 3, 0x8000_0000), ("rol", 0x8000_0001, 1, 3), ("ror", 0x8000_0001, 1, 0xC000_0000),
    ("rol", 0x1234_5678, 36, 0x2345_6781), ("clz", 1, 0, 31), ("clz", 0, 0, 32), ("clz", 0x8000_0000, 0, 0),
    ("ctz", 0, 0, 32), ("ctz", 0x10, 0, 4), ("cpop", 0xF00F_0001, 0, 9), ("sext.b", 0x80, 0, 0xFFFF_FF80),
    ("sext.h", 0x1_7FFF, 0, 0x7FFF), ("orc.b", 0x0001_0200, 0, 0x00FF_FF00), ("rev8", 0x1122_3344, 0, 0x4433_2211),
    ("brev8", 0x0180_C001, 0, 0x8001_0380), ("pack", 0xAAAA_1234, 0xBBBB_5678, 0x5678_1234),
]


@pytest.mark.parametrize(("name", "a", "b", "result"), WORKED)
def test_reference_results(name: str, a: int, b: int, result: int) -> None:
    assert evaluate(BitInsn(name, "", 10, 11, 12), a, b) == result


def test_rori_reference() -> None:
    assert evaluate(BitInsn("rori", "zbb", 10, 11, shamt=4), 0x1234_5678, 0) == 0x8123_4567
    assert evaluate(BitInsn("rori", "zbb", 10, 11, shamt=0), 0x1234_5678, 0) == 0x1234_5678


SPACE = 0x10_0000            # where the bare harness puts trampolines (one space above its code)
CODE = 0x1000


def _run(insn: BitInsn, regs: dict[int, int]) -> list[int]:
    """Every register after the trampoline of ``insn`` ran on bare Unicorn with ``regs``."""
    uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
    uc.mem_map(0, 0x2000, UC_PROT_ALL)
    tramps = Trampolines(((SPACE, 0x1000),))
    uc.mem_map_ptr(SPACE, 0x1000, UC_PROT_EXEC, tramps.spaces[0].buffer)
    jump = tramps.place(CODE, insn, 0)
    uc.mem_write(CODE, jump.to_bytes(4, "little"))
    for r in range(1, 32):
        uc.reg_write(UC_RISCV_REG_X0 + r, regs.get(r, 0x1111_0000 + r))
    uc.emu_start(CODE, CODE + 4)
    assert uc.reg_read(UC_RISCV_REG_PC) == CODE + 4
    return [uc.reg_read(UC_RISCV_REG_X0 + r) for r in range(32)]


NAMES = ["sh1add", "sh2add", "sh3add", "andn", "orn", "xnor", "min", "minu", "max", "maxu", "rol", "ror", "pack",
         "rori", "clz", "ctz", "cpop", "sext.b", "sext.h", "orc.b", "rev8", "brev8"]
EDGES = [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x8000_0001, 0x0000_FFFF, 0xFFFF_0000, 31, 32, 33]


@pytest.mark.parametrize("name", NAMES)
def test_trampolines_compute_the_reference(name: str) -> None:
    """Every aliasing of rd/rs1/rs2 among three registers, edge values and random ones: the
    trampoline leaves rd as the reference says and every other register as it was."""
    rng = random.Random(name)
    values = EDGES + [rng.getrandbits(32) for _ in range(6)]
    for rd, rs1, rs2 in itertools.product((10, 11, 12), repeat=3):
        insn = BitInsn(name, "", rd, rs1, 0 if name == "pack" and rs2 == 12 else rs2, shamt=rng.randrange(32))
        for a, b in zip(values, reversed(values)):
            regs = {rs1: a, insn.rs2: b} if insn.rs2 else {rs1: a}
            if insn.rs2 and insn.rs2 == rs1:
                regs = {rs1: a}
                b = a
            before = {r: regs.get(r, 0x1111_0000 + r) for r in range(1, 32)}
            after = _run(insn, regs)
            expected = evaluate(insn, before[rs1], before[insn.rs2] if insn.rs2 else 0)
            assert after[rd] == expected, (insn, hex(a), hex(b))
            for r in range(1, 32):
                if r != rd:
                    assert after[r] == before[r], (insn, r)


def test_zext_h_and_rd_zero() -> None:
    assert _run(BitInsn("pack", "zbb", 10, 11, 0), {11: 0xABCD_1234})[10] == 0x1234
    assert all(w != 0 for w in sequence(BitInsn("clz", "zbb", 5, 5)))


def test_trampoline_jumps_back() -> None:
    tramps = Trampolines(((0xFFF8_0000, 0x7_F000), (0x18_0000, 0x8_0000)))
    low = tramps.place(0x6000, BitInsn("sh2add", "zba", 10, 11, 10), 0x20A5C533)
    assert (0x6000 + jal_offset(low)) % (1 << 32) >= 0xFFF8_0000                # wraps below 2**32
    high = tramps.place(0x15_0000, BitInsn("sh2add", "zba", 10, 11, 10), 0x20A5C533)
    assert 0x18_0000 <= 0x15_0000 + jal_offset(high) < 0x20_0000
    assert tramps.place(0x6000, BitInsn("sh2add", "zba", 10, 11, 10), 0x20A5C533) == low  # placed once
