"""tdbg.toolchain.elfpatch on small ELFs built here with zig: the execute-in-place rewrite checked
against encodings worked out by hand (RISC-V unprivileged ISA: U-type ``imm[31:12] rd opcode``,
I-type ``imm[11:0] rs1 funct3 rd opcode``), what tt-metal refuses refused, symbols weakened.
The tt-metal kernels themselves are checked against tt-metal's own bytes in test_ttmetal_kit.py."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from tdbg.toolchain import elfpatch

TEXT, DATA = 0x5000, 0xFFB00100
LINKER_SCRIPT = f"""ENTRY(_start)
SECTIONS {{
  .text {TEXT:#x} : {{ *(.text .text.*) }}
  .data {DATA:#x} : AT(ADDR(.text) + SIZEOF(.text)) {{ *(.data) }}
}}
"""
A0, A1, A2, RA = 10, 11, 12, 1


def u_type(opcode: int, rd: int, imm20: int) -> int:
    return (imm20 & 0xFFFFF) << 12 | rd << 7 | opcode


def i_type(opcode: int, funct3: int, rd: int, rs1: int, imm12: int) -> int:
    return (imm12 & 0xFFF) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


LUI, AUIPC, ADDI, LW = 0x37, 0x17, (0x13, 0), (0x03, 2)


def link(tmp_path: Path, asm: str, relax: bool = False, relocs: bool = True) -> bytes:
    (tmp_path / "k.S").write_text(asm)
    (tmp_path / "k.ld").write_text(LINKER_SCRIPT)
    zig = [sys.executable, "-m", "ziglang"]
    subprocess.run([*zig, "cc", "-target", "riscv32-freestanding-none", "-mcpu=generic_rv32+m" + ("+relax" if relax else ""),
                    "-c", "k.S", "-o", "k.o"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run([*zig, "ld.lld", *["--emit-relocs"] * relocs, "-T", "k.ld", "k.o", "-o", "k.elf"], cwd=tmp_path,
                   check=True, capture_output=True)
    return (tmp_path / "k.elf").read_bytes()


PAIRS = """
    .text
    .globl _start
_start:
    lui a0, %hi(target)             # absolute address of text: must become pc-relative
    addi a0, a0, %lo(target)
1:  auipc a1, %pcrel_hi(value)      # pc-relative address of data: must become absolute
    lw a1, %pcrel_lo(1b)(a1)
    lui a2, %hi(value)              # absolute address of data: stays
    lw a2, %lo(value)(a2)
target:
    ret
    .data
value:
    .word 42
"""


def test_xip_turns_text_addresses_relative_and_data_addresses_absolute(tmp_path: Path) -> None:
    image = elfpatch.xip_image(link(tmp_path, PAIRS))
    words = list(struct.unpack("<7I", image[:28]))
    target = TEXT + 24
    assert words == [
        u_type(AUIPC, A0, (target - TEXT + 0x800) >> 12), i_type(*ADDI, A0, A0, target - TEXT),
        u_type(LUI, A1, (DATA + 0x800) >> 12), i_type(*LW, A1, A1, DATA & 0xFFF),
        u_type(LUI, A2, (DATA + 0x800) >> 12), i_type(*LW, A2, A2, DATA & 0xFFF),
        i_type(0x67, 0, 0, RA, 0)]                              # ret = jalr zero, 0(ra)
    assert image[28:] == struct.pack("<I", 42)                  # the data, at its load address after the text


@pytest.mark.parametrize("asm,match", [
    (".text\n.globl _start\n_start:\n call far\n.section .text.far\nfar:\n ret\n", "call through auipc\\+jalr"),
    (".text\n.globl _start\n_start:\n ret\n.data\n.word _start\n", "holds a text address"),
], ids=["call", "text-address-in-data"])
def test_xip_refuses_what_tt_metal_refuses(tmp_path: Path, asm: str, match: str) -> None:
    with pytest.raises(elfpatch.XipError, match=match):
        elfpatch.xip_image(link(tmp_path, asm))


def test_relaxed_calls_are_jal_and_run_in_place(tmp_path: Path) -> None:
    elf = link(tmp_path, ".text\n.globl _start\n_start:\n call far\n.section .text.far\nfar:\n ret\n", relax=True)
    jal, = struct.unpack_from("<I", elfpatch.xip_image(elf))
    assert jal == (4 >> 1 & 0x3FF) << 21 | RA << 7 | 0x6F              # jal ra, +4


def test_null_relocations_are_dropped(tmp_path: Path) -> None:
    """ld.lld writes tt-metal's ``.reloc 0b, R_RISCV_NONE, ...`` as a null entry at offset 0, which
    tt-metal's loader (and xip_image) refuse; dropping it makes the kernel loadable."""
    elf = tmp_path / "n.elf"
    elf.write_bytes(link(tmp_path, ".text\n.globl _start\n_start:\n0: .reloc 0b, R_RISCV_NONE, _start\n ret\n"))
    with pytest.raises(elfpatch.XipError, match="relocation at 0x0 is outside of section .text"):
        elfpatch.xip_image(elf.read_bytes())
    assert elfpatch.drop_null_relocations(elf) == 1
    assert elfpatch.drop_null_relocations(elf) == 0
    assert elfpatch.xip_image(elf.read_bytes()) == struct.pack("<I", i_type(0x67, 0, 0, RA, 0))


WEAKEN = """
    .text
    .globl _start, main, __fw_export_text_end
_start:
main: ret
__fw_export_text_end:
    .data
    .globl counter, __global_pointer$
counter: .word 0
__global_pointer$:
"""


def test_weaken(tmp_path: Path) -> None:
    out = elfpatch.weaken(link(tmp_path, WEAKEN, relocs=False))   # linked as the firmware is: no relocations kept
    symtab = ELFFile(io.BytesIO(out)).get_section_by_name(".symtab")
    binds = {s.name: s["st_info"]["bind"] for s in symtab.iter_symbols() if s.name}
    assert binds["main"] == "STB_LOCAL"                 # text: hidden from the kernel
    assert binds["counter"] == "STB_WEAK"               # data: the kernel may use or redefine it
    assert binds["__fw_export_text_end"] == binds["__global_pointer$"] == "STB_GLOBAL"
    names = [s.name for s in symtab.iter_symbols()]
    first_global = symtab["sh_info"]
    assert all(binds.get(n, "STB_LOCAL") == "STB_LOCAL" for n in names[:first_global])
    assert all(binds[n] != "STB_LOCAL" for n in names[first_global:])
