"""The ELF edits tt-metal 0.81.1's JIT build makes around a kernel, written for tdbg from what they do.

- ``weaken``: the firmware ELF a kernel is linked against (``ld --just-symbols``): every global
  symbol defined in a section of a data segment becomes weak (a kernel may define its own), every
  other global becomes local, except the names kept strong (``__fw_export_*``,
  ``__global_pointer$``); locals are moved before globals as ELF requires.  tt-metal's
  ``ElfFile::WeakenDataSymbols`` (tt_metal/llrt/tt_elffile.cpp, called by ``JitBuildState::weaken``
  in jit_build/build.cpp); measured: ``weaken`` of the wheel's pre-compiled firmware is
  byte-identical to the ``*_weakened.elf`` tt-metal 0.81.1 wrote beside it.
- ``drop_null_relocations``: ld.lld ``--emit-relocs`` writes an ``R_RISCV_NONE`` with offset 0 and
  no symbol where GNU ld keeps the ``.reloc ..., R_RISCV_NONE, __global_pointer$`` of tt-metal's
  ``_start`` (brisck.cc, trisck.cc) at its own offset; tt-metal's loader refuses a relocation outside
  ``.text`` ("relocation @ 0x0 is outside of section .text", measured), so those entries go.
- ``xip_image``: the bytes tt-metal writes into L1 for a kernel: its text made execute-in-place
  (``ElfFile::MakeExecuteInPlace``: a ``lui`` + lo12 pair from text to a text symbol becomes
  ``auipc``-relative, an ``auipc`` + lo12 pair from text to data becomes an absolute ``lui``), then
  its data segment at the offset of its load address.  The firmware runs it at
  ``kernel_config_base + kernel_text_offset``, not at its link address.  Measured: for every kernel
  of the captured programs the image equals the bytes tt-metal 0.81.1 wrote (and its ``.xip.elf``).
  What tt-metal refuses is refused here too (``XipError``): a call through ``auipc``+``jalr``
  (``R_RISCV_CALL``; GNU ld relaxes calls to ``jal``, so kernels are linked with relaxation), a
  data word holding a text address (``R_RISCV_32`` to text: "unexpected dynamic relocations",
  tt_memory.cpp), a ``jal`` or hi20 crossing between text and data.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["XipError", "drop_null_relocations", "weaken", "xip_image"]

SHT_SYMTAB, SHT_RELA, SHT_NOBITS = 2, 4, 8
SHF_ALLOC = 2
PT_LOAD = 1
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
#: tt-metal's strong names (jit_build/build.cpp ``JitBuildState::weaken``); a trailing ``*`` is a prefix.
STRONG_NAMES = ("__fw_export_*", "__global_pointer$")
# RISC-V relocation types (RISC-V ELF psABI)
R_RISCV_32, R_RISCV_BRANCH, R_RISCV_JAL, R_RISCV_CALL, R_RISCV_CALL_PLT = 1, 16, 17, 18, 19
R_RISCV_PCREL_HI20, R_RISCV_PCREL_LO12_I, R_RISCV_PCREL_LO12_S = 23, 24, 25
R_RISCV_HI20, R_RISCV_LO12_I, R_RISCV_LO12_S = 26, 27, 28
R_RISCV_ADD32, R_RISCV_SUB32, R_RISCV_32_PCREL = 35, 39, 57
OPC_AUIPC, OPC_LUI = 0x17, 0x37


class XipError(Exception):
    """The kernel cannot run in place as tt-metal loads it; the message says why, in one line."""


@dataclass(frozen=True)
class _Shdr:
    index: int
    name: int
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int


@dataclass(frozen=True)
class _Phdr:
    type: int
    offset: int
    vaddr: int
    paddr: int
    filesz: int
    memsz: int


class _Elf:
    """An ELF32 little-endian file held as bytes, for in-place edits."""

    def __init__(self, data: bytes, what: str) -> None:
        if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
            raise XipError(f"{what} is not a 32-bit little-endian ELF")
        self.data = bytearray(data)
        self.what = what
        self.entry, phoff, shoff = struct.unpack_from("<3I", data, 0x18)
        phnum, = struct.unpack_from("<H", data, 0x2C)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
        self.shoff, self.shentsize = shoff, shentsize
        self.sections = [_Shdr(i, *struct.unpack_from("<10I", data, shoff + i * shentsize)) for i in range(shnum)]
        self.phdrs = [_Phdr(*struct.unpack_from("<6I", data, phoff + 32 * i)) for i in range(phnum)]

    def set_section_field(self, section: _Shdr, word: int, value: int) -> None:
        struct.pack_into("<I", self.data, self.shoff + section.index * self.shentsize + 4 * word, value)

    def section_name(self, section: _Shdr) -> str:
        return self.string(struct.unpack_from("<H", self.data, 0x32)[0], section.name)

    def string(self, table: int, offset: int) -> str:
        start = self.sections[table].offset + offset
        return self.data[start:self.data.index(b"\0", start)].decode("latin-1")

    def loads(self) -> list[_Phdr]:
        """PT_LOAD segments with memory, the text segment (holding the entry point) first."""
        loads = [p for p in self.phdrs if p.type == PT_LOAD and p.memsz]
        text = [p for p in loads if p.vaddr == self.entry]
        if not text:
            raise XipError(f"{self.what}: no loadable segment starts at the entry point {self.entry:#x}")
        return text + [p for p in loads if p is not text[0]]

    def segment_of(self, section: _Shdr) -> int:
        """The index in ``loads()`` of the segment holding an allocated section, else -1 (tt-metal
        compares addresses: the last segment that contains it wins)."""
        if not section.flags & SHF_ALLOC:
            return -1
        for i, seg in reversed(list(enumerate(self.loads()))):
            if seg.vaddr <= section.addr and section.addr + section.size <= seg.vaddr + ((seg.memsz + 3) & ~3):
                return i
        return -1


def weaken(firmware: bytes, what: str = "firmware") -> bytes:
    """``firmware`` with its symbols weakened as tt-metal does before linking a kernel against it."""
    elf = _Elf(firmware, what)
    data_sections = {s.index for s in elf.sections if elf.segment_of(s) > 0}
    for symtab in elf.sections:
        if symtab.type != SHT_SYMTAB or symtab.flags & SHF_ALLOC:
            continue
        if any(s.type == SHT_RELA and s.link == symtab.index for s in elf.sections):
            raise XipError(f"{what}: relocations against its symbol table are not supported")
        first = symtab.offset + 16 * symtab.info
        end = symtab.offset + symtab.size
        locals_, globals_ = [], []
        for at in range(first, end, 16):
            entry = bytearray(elf.data[at:at + 16])
            name_off, _, _, info, _, shndx = struct.unpack("<IIIBBH", entry)
            bind, kind = info >> 4, info & 0xF
            name = elf.string(symtab.link, name_off)
            if bind in (STB_GLOBAL, STB_WEAK) and not _strong(name):
                bind = STB_WEAK if shndx in data_sections else STB_LOCAL
                entry[12] = bind << 4 | kind
            (locals_ if bind == STB_LOCAL else globals_).append(bytes(entry))
        elf.data[first:end] = b"".join(locals_ + globals_)
        elf.set_section_field(symtab, 7, symtab.info + len(locals_))
    return bytes(elf.data)


def _strong(name: str) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in STRONG_NAMES)


def drop_null_relocations(path: Path) -> int:
    """Remove the all-zero entries from the relocation sections of allocated sections of the ELF at
    ``path`` (rewritten in place); return how many went."""
    elf = _Elf(path.read_bytes(), str(path))
    dropped = 0
    for rela in elf.sections:
        if rela.type != SHT_RELA or not elf.sections[rela.info].flags & SHF_ALLOC:
            continue
        blob = bytes(elf.data[rela.offset:rela.offset + rela.size])
        kept = [blob[i:i + 12] for i in range(0, len(blob), 12) if blob[i:i + 12] != bytes(12)]
        dropped += len(blob) // 12 - len(kept)
        elf.data[rela.offset:rela.offset + rela.size] = b"".join(kept) + bytes(len(blob) - 12 * len(kept))
        elf.set_section_field(rela, 5, 12 * len(kept))
    if dropped:
        path.write_bytes(bytes(elf.data))
    return dropped


@dataclass
class _Hi:
    offset: int
    symbol: int
    addend: int
    los: list[tuple[int, int]]      # (offset, type)


def xip_image(kernel: bytes, what: str = "kernel") -> bytes:
    """The execute-in-place text of ``kernel`` followed by its data, as tt-metal writes them."""
    elf = _Elf(kernel, what)
    loads = elf.loads()
    text = loads[0]
    image = bytearray()
    for seg in loads:
        at = seg.paddr - text.vaddr
        if seg.filesz and not 0 <= at < 1 << 24:
            raise XipError(f"{what}: a segment loads at {seg.paddr:#x}, not after the text at {text.vaddr:#x}")
        if seg.filesz:
            image[len(image):at] = bytes(max(0, at - len(image)))
            image[at:at + seg.filesz] = elf.data[seg.offset:seg.offset + seg.filesz]
    relocated = 0
    for rela in elf.sections:
        if rela.type != SHT_RELA:
            continue
        target = elf.sections[rela.info]
        if target.type == SHT_NOBITS or elf.segment_of(target) < 0:
            continue
        relocated += 1
        if elf.segment_of(target) == 0:
            _xip_text(elf, rela, target, image, text.vaddr)
        else:
            _check_data(elf, rela, target)
    if not relocated:
        raise XipError(f"{what}: no relocations (link it with --emit-relocs)")
    return bytes(image)


def _relocations(elf: _Elf, rela: _Shdr, target: _Shdr) -> list[tuple[int, int, int, int]]:
    out = []
    for at in range(rela.offset, rela.offset + rela.size, 12):
        offset, info, addend = struct.unpack_from("<IIi", elf.data, at)
        if offset & 3 or not target.addr <= offset < target.addr + target.size:
            where = "misaligned in" if offset & 3 else "outside of"
            raise XipError(f"{elf.what}: relocation at {offset:#x} is {where} section {elf.section_name(target)}")
        out.append((offset, info & 0xFF, info >> 8, addend))
    return out


def _symbol(elf: _Elf, symtab: _Shdr, index: int) -> tuple[int, bool]:
    """(value, whether it is in the text segment) of symbol ``index``."""
    value, _, _, _, shndx = struct.unpack_from("<IIBBH", elf.data, symtab.offset + 16 * index + 4)
    in_text = shndx < len(elf.sections) and elf.segment_of(elf.sections[shndx]) == 0
    return value, in_text


def _check_data(elf: _Elf, rela: _Shdr, target: _Shdr) -> None:
    """Relocations in a data section: a word pointing into the text would need the loader to
    patch it (tt-metal 0.81.1 refuses: "unexpected dynamic relocations")."""
    symtab = elf.sections[rela.link]
    for offset, kind, sym, _ in _relocations(elf, rela, target):
        if kind == R_RISCV_32 and _symbol(elf, symtab, sym)[1]:
            raise XipError(f"{elf.what}: the data word at {offset:#x} holds a text address (a jump table or a "
                           "function pointer): tt-metal cannot load it in place")
        if kind in (R_RISCV_HI20, R_RISCV_PCREL_HI20) and _symbol(elf, symtab, sym)[1]:
            raise XipError(f"{elf.what}: a hi20 relocation at {offset:#x} crosses from data to text")


def _xip_text(elf: _Elf, rela: _Shdr, target: _Shdr, image: bytearray, text_base: int) -> None:
    symtab = elf.sections[rela.link]
    his: dict[int, dict[int, _Hi]] = {OPC_LUI: {}, OPC_AUIPC: {}}
    los: dict[int, list[tuple[int, int, int, int]]] = {OPC_LUI: [], OPC_AUIPC: []}
    relocs = _relocations(elf, rela, target)
    for i, (offset, kind, sym, addend) in enumerate(relocs):
        value, to_text = _symbol(elf, symtab, sym)
        if kind in (R_RISCV_CALL, R_RISCV_CALL_PLT):
            raise XipError(f"{elf.what}: a call through auipc+jalr at {offset:#x} (R_RISCV_CALL): link with "
                           "relaxation so that calls become jal")
        if kind == R_RISCV_32_PCREL:
            raise XipError(f"{elf.what}: an R_RISCV_32_PCREL relocation at {offset:#x}")
        if kind == R_RISCV_JAL and not to_text:
            raise XipError(f"{elf.what}: a jal at {offset:#x} leaves the text")
        if kind == R_RISCV_ADD32 and (i == 0 or relocs[i - 1][1] != R_RISCV_SUB32 or relocs[i - 1][0] != offset
                                      or _symbol(elf, symtab, relocs[i - 1][2])[1] != to_text):
            raise XipError(f"{elf.what}: an unpaired or mismatched add32/sub32 relocation at {offset:#x}")
        if kind in (R_RISCV_LO12_I, R_RISCV_LO12_S) and to_text:
            los[OPC_LUI].append((offset, kind, sym, addend))
        elif kind in (R_RISCV_PCREL_LO12_I, R_RISCV_PCREL_LO12_S):
            los[OPC_AUIPC].append((offset, kind, sym, addend))
        elif kind == R_RISCV_HI20 and to_text:
            his[OPC_LUI][offset] = _Hi(offset, sym, addend, [])
        elif kind == R_RISCV_PCREL_HI20:
            his[OPC_AUIPC][offset] = _Hi(offset, sym, addend, [])
    for offset, kind, sym, addend in los[OPC_LUI]:       # the nearest lui before it for the same symbol
        before = [h for h in his[OPC_LUI].values() if h.offset < offset and h.symbol == sym]
        if not before:
            raise XipError(f"{elf.what}: the lo12 at {offset:#x} has no matching hi20")
        max(before, key=lambda h: h.offset).los.append((offset, kind))
    for offset, kind, sym, addend in los[OPC_AUIPC]:     # the auipc the lo12's label points at
        at = _symbol(elf, symtab, sym)[0] + addend
        if at not in his[OPC_AUIPC]:
            raise XipError(f"{elf.what}: the pcrel lo12 at {offset:#x} has no matching pcrel hi20")
        his[OPC_AUIPC][at].los.append((offset, kind))
    for opcode, table in his.items():
        for hi in table.values():
            if not hi.los:
                raise XipError(f"{elf.what}: the hi20 at {hi.offset:#x} has no matching lo12")
            value, to_text = _symbol(elf, symtab, hi.symbol)
            if opcode == OPC_AUIPC and to_text:
                continue                   # text to text, pc-relative: already in place
            value += hi.addend
            if opcode == OPC_LUI:
                value -= hi.offset         # absolute text address -> pc-relative
            _patch(elf, image, hi.offset - text_base, opcode, value, hi.los, text_base)


def _patch(elf: _Elf, image: bytearray, at: int, opcode: int, value: int, los: list[tuple[int, int]],
           text_base: int) -> None:
    insn, = struct.unpack_from("<I", image, at)
    if insn & 0x7F != opcode:
        raise XipError(f"{elf.what}: the instruction at {at + text_base:#x} is not "
                       f"{'lui' if opcode == OPC_LUI else 'auipc'}")
    insn = (insn & 0xFFF) ^ (OPC_AUIPC ^ OPC_LUI)
    insn |= ((value + 0x800) >> 12 & 0xFFFFF) << 12
    struct.pack_into("<I", image, at, insn)
    for offset, kind in los:
        lo_at = offset - text_base
        insn, = struct.unpack_from("<I", image, lo_at)
        if kind in (R_RISCV_LO12_I, R_RISCV_PCREL_LO12_I):
            insn = (insn & 0x000FFFFF) | (value & 0xFFF) << 20
        else:
            insn = (insn & 0x01FFF07F) | (value & 0x1F) << 7 | ((value & 0xFFF) >> 5) << 25
        struct.pack_into("<I", image, lo_at, insn)
