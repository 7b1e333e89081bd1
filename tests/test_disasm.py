"""Disassembly as GDB prints it: capstone's decode of RV32IM spelled in binutils' syntax and
aliases, absolute branch and call targets with <symbol+offset>, the address an auipc/lui pair
forms as a comment, ``disassemble`` with /r, /s and /m, ``x/i``.

Expected text is gdb-multiarch 13's for the same words (kept here for the cases below); where
gdb-multiarch is installed, thousands of random words, the privileged and fence encodings, runs
of lui/auipc and their uses, and whole functions are compared with it directly."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import capstone
import pytest

from tdbg.commands import Interpreter
from tdbg.riscv.disasm import _NOT_IN_CAPSTONE, Disassembler, disassemble
from examples import EXAMPLES
from tdbg.toolchain.zig import build, firmware_dir
from tdbg.session import Session
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.isa import isa_of

GDB = shutil.which("gdb-multiarch")
needs_gdb = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")
ISA = isa_of(BLACKHOLE)


@pytest.mark.parametrize("address, word, text", [
    (0x61CC, 0xFE010113, "add\tsp,sp,-32"),            # addi: GDB's "add" alias
    (0x61D0, 0x00112E23, "sw\tra,28(sp)"),
    (0x6200, 0x01000593, "li\ta1,16"),
    (0x0, 0x00050593, "mv\ta1,a0"),
    (0x0, 0x00000013, "nop"),
    (0x61F8, 0x0040006F, "j\t0x61fc"),                  # targets are absolute
    (0x6204, 0x00B54663, "blt\ta0,a1,0x6210"),
    (0x0, 0x00008067, "ret"),
    (0x0, 0x000280E7, "jalr\tt0"),
    (0x0, 0x00153513, "seqz\ta0,a0"),
    (0x0, 0xFFF54513, "not\ta0,a0"),
    (0x0, 0x0FF57513, "zext.b\ta0,a0"),
    (0x0, 0x00459593, "sll\ta1,a1,0x4"),               # shift amounts in hex
    (0x0, 0x40A55513, "sra\ta0,a0,0xa"),
    (0x0, 0x3E800537, "lui\ta0,0x3e800"),
    (0x0, 0x41F00533, "neg\ta0,t6"),
    (0x0, 0x0100000F, "fence\tw,unknown"),
    (0x0, 0xC0102573, "rdtime\ta0"),
    (0x0, 0x30002573, ".4byte\t0x30002573"),           # no Zicsr in rv32i_m: as GDB shows it
    (0x0, 0x00402583, "lw\ta1,4(zero) # 0x4"),         # an address from zero (or tp): a comment
    (0x0, 0xFE020413, "add\ts0,tp,-32 # 0xffffffe0"),
    (0x0, 0x00000093, "li\tra,0"),                     # capstone's "mv ra, zero"
    (0x0, 0x00110067, "jr\t1(sp)"),                    # capstone's "jalr zero, sp, 1"
    (0x0, 0xD80C07E7, "jalr\ta5,-640(s8)"),
    (0x0, 0x00A080E7, "jalr\t10(ra)"),
    (0x6088, 0xFCBD04EF, "jal\ts1,0xfffd7052"),
    (0x0, 0x02059593, "sll\ta1,a1,0x20"),              # shamt bit 5 unchecked on RV32, as binutils
    (0x0, 0x8330000F, "fence.tso"),
    (0x0, 0x0000100F, ".4byte\t0x100f"),              # fence.i: no Zifencei in rv32i_m
    (0x0, 0x0757AEAF, ".4byte\t0x757aeaf"),           # capstone: amoadd.w.aqrl (no A in rv32i_m)
    (0x0, 0x0004A387, ".4byte\t0x4a387"),             # capstone: flw (no F)
    (0x0, 0xE60F9AF3, ".4byte\t0xe60f9af3"),          # capstone: csrrw (no Zicsr)
    (0x0, 0x10500073, "wfi"),
    (0x0, 0x30200073, "mret"),
    (0x0, 0x12A00073, "sfence.vma\tzero,a0"),
    (0x0, 0x10450073, "sfence.vm\ta0"),               # binutils only (capstone cannot decode it)
    (0x0, 0x20200073, "hret"),
    (0x0, 0x7B200073, "dret"),
    (0x0, 0x7B208073, ".4byte\t0x7b208073"),
])
def test_words_read_as_gdb_reads_them(address: int, word: int, text: str) -> None:
    assert disassemble(address, word, ISA).render() == text


def test_auipc_pairs_name_their_address_once() -> None:
    decode = Disassembler(ISA)  # one run, as GDB's disassemble (x/i decodes each word afresh)
    assert decode(0x623C, 0x00000097).render() == "auipc\tra,0x0"
    call = decode(0x6240, 0x490080E7)
    assert call.render(lambda a: "<compiler_rt.addf3.__addsf3>" if a == 0x66CC else "") == \
        "jalr\t1168(ra) # 0x66cc <compiler_rt.addf3.__addsf3>"
    assert decode(0x6244, 0x490080E7).render() == "jalr\t1168(ra)"  # used up
    assert disassemble(0x6240, 0x490080E7, ISA).render() == "jalr\t1168(ra)"


def test_comments_follow_binutils_quirks() -> None:
    """gdb-multiarch's ``disassemble`` of these words: lui to zero forms no address (one from zero
    is its offset), and jalr imm(tp) after lui tp shows the offset (binutils asks twice more)."""
    words = [0x12345037, 0x00005003, 0x00020237, 0x0E9200E7, 0x00020237, 0x000200E7, 0x12345237,
             0x00420203, 0x00020237, 0x00A20213]
    decode = Disassembler(ISA)
    assert [decode(0x604C + 4 * i, w).render() for i, w in enumerate(words)] == [
        "lui\tzero,0x12345", "lhu\tzero,0(zero) # 0x0", "lui\ttp,0x20", "jalr\t233(tp) # 0xe9", "lui\ttp,0x20",
        "jalr\ttp # 0x20000", "lui\ttp,0x12345", "lb\ttp,4(tp) # 0x12345004", "lui\ttp,0x20",
        "add\ttp,tp,10 # 0x2000a"]


def test_words_spelled_without_capstone_are_ones_it_cannot_decode() -> None:
    """The special case stays only while capstone cannot decode its words."""
    cs = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)
    assert len(_NOT_IN_CAPSTONE) == 34
    assert all(not list(cs.disasm(w.to_bytes(4, "little"), 0)) for w in _NOT_IN_CAPSTONE)


def test_x_i_and_disassemble_show_targets_with_symbols() -> None:
    out: list[str] = []
    interp = Interpreter(Session(firmware_dir() / "demo.c"), write=out.append)
    fill = interp.session.symbol("fill_row").addr
    interp.execute(f"x/2i {fill + 44}")
    assert "".join(out) == (f"   {fill + 44:#x} <fill_row+44>:\tj\t{fill + 48:#x} <fill_row+48>\n"
                            f"   {fill + 48:#x} <fill_row+48>:\tlw\ta0,-28(s0)\n")
    out.clear()
    interp.execute(f"disassemble /r {fill + 44},+8")
    assert "".join(out) == (f"Dump of assembler code from {fill + 44:#x} to {fill + 52:#x}:\n"
                            f"   {fill + 44:#010x} <fill_row+44>:\t0040006f        \tj\t{fill + 48:#x} <fill_row+48>\n"
                            f"   {fill + 48:#010x} <fill_row+48>:\tfe442503        \tlw\ta0,-28(s0)\n"
                            "End of assembler dump.\n")


def gdb_batch(elf: Path, *commands: str) -> str:
    args = [GDB, "-q", "-batch", "-nx"]
    for c in commands:
        args += ["-ex", c]
    return subprocess.run(args + [str(elf)], capture_output=True, text=True, timeout=120).stdout


def words_elf(tmp_path: Path, words: list[int]) -> tuple[Path, int]:
    """An ELF whose symbol ``words`` holds ``words``, and that symbol's address."""
    source = tmp_path / "words.c"
    source.write_text('__asm__(".text\\n.globl words\\nwords:\\n'
                      + "".join(f".word 0x{w:08x}\\n" for w in words) + '");\nint main(void) { return 0; }\n')
    elf = build(source)
    return elf, Session(elf).symbol("words").addr


def gdb_text(line: str) -> str:
    """An instruction line of GDB's, without its address and symbol names (compared on real
    firmware below)."""
    return re.sub(r" <[^>]*>", "", line.split(":\t", 1)[1])


@needs_gdb
def test_random_words_match_gdb(tmp_path: Path) -> None:
    rng = random.Random(13)
    ops = [0x13, 0x33, 0x03, 0x23, 0x63, 0x6F, 0x67, 0x37, 0x17, 0x0F, 0x73]
    words = []
    for _ in range(4000):
        w = rng.getrandbits(32)
        op = rng.choice(ops) if rng.random() < 0.85 else (rng.getrandbits(7) | 3) & ~0x10  # 32-bit lengths only
        w = (w & ~0x7F) | op
        if rng.random() < 0.3:
            w &= ~(0x1F << (15 if rng.random() < 0.5 else 20))   # zero registers: the aliases
        if rng.random() < 0.2:
            w = (w & 0x000FFFFF) | (rng.choice([0, 1, 0xFFF, 0xFF, 0x400]) << 20)
        words.append(w)
    assert_x_i_matches_gdb(tmp_path, words)


@needs_gdb
def test_system_and_fence_encodings_match_gdb(tmp_path: Path) -> None:
    """Every 12-bit immediate of SYSTEM with funct3 0 and of FENCE/FENCE.I (the privileged
    instructions, binutils-only ones included, and every fence set), rd and rs1 zero and not."""
    rng = random.Random(5)
    words = []
    for top in range(4096):
        words += [top << 20 | 0x73, top << 20 | rng.getrandbits(5) << 15 | 0x73, top << 20 | 0x0F,
                  top << 20 | 1 << 12 | 0x0F, top << 20 | rng.getrandbits(13) << 7 | 0x0F]
    words += [0x10400073 | r << 15 for r in range(32)]
    assert_x_i_matches_gdb(tmp_path, words)


def assert_x_i_matches_gdb(tmp_path: Path, words: list[int]) -> None:
    elf, base = words_elf(tmp_path, words)
    lines = gdb_batch(elf, f"x/{len(words)}i words").splitlines()
    assert len(lines) == len(words)
    for i, (word, line) in enumerate(zip(words, lines)):
        assert disassemble(base + 4 * i, word, ISA).render() == gdb_text(line), f"{word:#010x}"


@needs_gdb
def test_address_comments_over_a_run_match_gdb(tmp_path: Path) -> None:
    """One ``disassemble`` of lui/auipc into a few registers and loads, stores, addi and jalr
    from them (and from tp and zero): GDB's comments, consumed as binutils consumes them."""
    rng = random.Random(7)
    regs = [0, 1, 4, 5, 10, 11]
    words = []
    for _ in range(3000):
        kind, rd, rs, imm = rng.random(), rng.choice(regs), rng.choice(regs), rng.getrandbits(12)
        if kind < 0.3:
            words.append(rng.getrandbits(20) << 12 | rd << 7 | rng.choice([0x37, 0x17]))     # lui, auipc
        elif kind < 0.45:
            words.append(imm << 20 | rs << 15 | rng.choice([0, 1, 2, 4, 5]) << 12 | rd << 7 | 0x03)
        elif kind < 0.55:
            words.append((imm >> 5) << 25 | rd << 20 | rs << 15 | rng.choice([0, 1, 2]) << 12 | (imm & 31) << 7 | 0x23)
        elif kind < 0.75:
            words.append(rng.choice([imm, 0]) << 20 | rs << 15 | rng.choice([0, 0, 2, 4, 7]) << 12 | rd << 7 | 0x13)
        elif kind < 0.9:
            words.append(rng.choice([imm, 0]) << 20 | rs << 15 | rd << 7 | 0x67)             # jalr
        else:
            words.append((rng.getrandbits(32) | 3) & ~0x10)
    elf, base = words_elf(tmp_path, words)
    lines = gdb_batch(elf, f"disassemble words,+{4 * len(words)}").splitlines()[1:-1]
    assert len(lines) == len(words) and sum(" # " in line for line in lines) > 500
    decode = Disassembler(ISA)
    for i, (word, line) in enumerate(zip(words, lines)):
        assert decode(base + 4 * i, word).render() == gdb_text(line), f"{i}: {word:#010x}"


@needs_gdb
@pytest.mark.parametrize("program, command", [
    ("demo.c", "disassemble main"), ("demo.c", "disassemble /r fill_row"), ("demo.c", "disassemble /s fill_row"),
    ("demo.c", "disassemble /m fill_row"), ("demo.c", "disassemble /s main"), ("dst_fill.c", "disassemble /s main"),
    ("dst_fill.c", "disassemble /m main"), ("dst_fill.c", "disassemble main"),
])
def test_disassemble_matches_gdb(program: str, command: str) -> None:
    source = firmware_dir() / program if program == "demo.c" else EXAMPLES / program
    elf = build(source)
    out: list[str] = []
    Interpreter(Session(source), write=out.append).execute(command)
    ours, theirs = "".join(out).splitlines(), gdb_batch(elf, command).splitlines()
    # Not compared: .ttinsn words (GDB shows their two 16-bit halves, tdbg the Tensix
    # instruction), the toolchain's runtime names (tdbg leaves compiler_rt's DWARF out, so it
    # names __addsf3 by its ELF symbol) and header file names (GDB shows them relative).
    runtime = re.compile(r" <(compiler_rt\.\w+\.)?(__\w+)>")
    ours = [runtime.sub(r" <\2>", line) for line in ours if ":\t.ttinsn " not in line and not line.endswith("tensix.h:")]
    theirs = [runtime.sub(r" <\2>", line) for line in theirs if "\t.2byte\t" not in line and not line.endswith("tensix.h:")]
    assert any(":\t.ttinsn " in line for line in out) == (program == "demo.c" and "fill_row" not in command)
    assert ours == theirs


@needs_gdb
def test_blackhole_extension_words_match_gdb(tmp_path: Path) -> None:
    """Zba/Zbb and Zicsr words in an ELF whose ``Tag_RISCV_arch`` names them (built for the
    Blackhole ISA; ``i2p0``, which includes Zicsr, as Tenstorrent's toolchain writes it): tdbg
    spells them as GDB does, random OP/OP-IMM/SYSTEM words around them as before."""
    rng = random.Random(21)
    words = []
    for _ in range(3000):
        regs = rng.getrandbits(15) << 7 & 0x000F_8F80 | rng.getrandbits(5) << 7
        kind = rng.random()
        if kind < 0.4:
            words.append(rng.choice([0x04, 0x05, 0x10, 0x20, 0x30, 0]) << 25 | rng.getrandbits(5) << 20 | regs
                         | rng.getrandbits(3) << 12 | 0x33)
        elif kind < 0.7:
            imm = rng.choice([0x600, 0x601, 0x602, 0x604, 0x605, 0x287, 0x698, 0x687, 0x600 | rng.getrandbits(5),
                              rng.getrandbits(12)])
            words.append(imm << 20 | regs | rng.choice([1, 5]) << 12 | 0x13)
        else:
            csr = rng.choice([0x7C0, 0x7C3, 0x300, 0x301, 0xB00, 0xC00, 0xC02, 0xF14, 0x003, 0xBC0, rng.getrandbits(12)])
            words.append(csr << 20 | regs | rng.choice([1, 2, 3, 5, 6, 7]) << 12 | 0x73)
    source = tmp_path / "ext.c"
    source.write_text('__asm__(".text\\n.globl words\\nwords:\\n' + "".join(f".word 0x{w:08x}\\n" for w in words)
                      + '");\nint main(void) { return 0; }\n')
    built = build(source, ["-mcpu=generic_rv32+m+zaamo+zba+zbb"])
    elf = tmp_path / "ext.elf"
    elf.write_bytes(built.read_bytes().replace(b"rv32i2p1_m2p0", b"rv32i2p0_m2p0"))
    s = Session(elf)
    base = s.symbol("words").addr
    lines = gdb_batch(elf, f"x/{len(words)}i words").splitlines()
    assert len(lines) == len(words)
    decode = s.disassembler()
    assert {"zba", "zbb", "zicsr"} <= decode.extensions
    spelled = 0
    for i, (word, line) in enumerate(zip(words, lines)):
        text = decode(base + 4 * i, word).render()
        assert text == gdb_text(line), f"{word:#010x}"
        spelled += not text.startswith(".4byte")
    assert spelled > 1500
