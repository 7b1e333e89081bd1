"""ELF images for the baby RISC-V cores, read with pyelftools.

An ``ElfImage`` holds what the target needs to load and describe a program: loadable segments,
the entry point, symbols, executable ranges, and the ``.ttinsn`` words found in them (a word
whose low two bits are not ``0b11``: BabyRISCV ``PushTensixInstruction.md``, ".ttinsn").
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from tdbg.tensix.isa import is_ttinsn

EM_RISCV = 243


class ElfLoadError(Exception):
    """The file is not an RV32 ELF the tile can run."""


@dataclass(frozen=True)
class Segment:
    vaddr: int
    data: bytes
    memsz: int
    executable: bool


@dataclass(frozen=True)
class Symbol:
    name: str
    addr: int
    size: int
    kind: str  # "func", "object", "notype", ...


@dataclass
class ElfImage:
    path: Path
    entry: int
    segments: list[Segment]
    symbols: dict[str, Symbol]
    exec_ranges: list[tuple[int, int]]      # [start, end) of executable sections
    ttinsn: dict[int, int] = field(default_factory=dict)  # address -> the RISC-V word there
    _starts: list[int] = field(default_factory=list, repr=False)
    _by_addr: list[Symbol] = field(default_factory=list, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> ElfImage:
        path = Path(path)
        try:
            with path.open("rb") as fh:
                elf = ELFFile(fh)
                if elf["e_machine"] != "EM_RISCV" or elf.elfclass != 32:
                    raise ElfLoadError(f"{path}: not a 32-bit RISC-V ELF")
                segments = [
                    Segment(seg["p_vaddr"], seg.data(), seg["p_memsz"], bool(seg["p_flags"] & 1))
                    for seg in elf.iter_segments()
                    if seg["p_type"] == "PT_LOAD" and seg["p_memsz"]
                ]
                exec_ranges = [
                    (sec["sh_addr"], sec["sh_addr"] + sec["sh_size"])
                    for sec in elf.iter_sections()
                    if sec["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and sec["sh_size"]
                ]
                symbols = _symbols(elf)
                entry = elf["e_entry"]
        except OSError as exc:
            raise ElfLoadError(f"{path}: {exc.strerror or exc}") from None
        except ELFError as exc:
            raise ElfLoadError(f"{path}: not an ELF file ({exc})") from None
        image = cls(path, entry, segments, symbols, exec_ranges)
        image.ttinsn = image._find_ttinsn()
        image._by_addr = sorted((s for s in symbols.values() if s.kind in ("func", "object")), key=lambda s: s.addr)
        image._starts = [s.addr for s in image._by_addr]
        return image

    def _find_ttinsn(self) -> dict[int, int]:
        """Every aligned word of an executable section whose low two bits are not 0b11."""
        found: dict[int, int] = {}
        for seg in self.segments:
            if not seg.executable:
                continue
            for start, end in self.exec_ranges:
                lo, hi = max(start, seg.vaddr), min(end, seg.vaddr + len(seg.data))
                lo = (lo + 3) & ~3
                for addr in range(lo, hi - 3, 4):
                    (word,) = struct.unpack_from("<I", seg.data, addr - seg.vaddr)
                    if is_ttinsn(word):
                        found[addr] = word
        return found

    def is_executable(self, addr: int) -> bool:
        return any(start <= addr < end for start, end in self.exec_ranges)

    def symbol(self, name: str) -> Symbol:
        try:
            return self.symbols[name]
        except KeyError:
            raise KeyError(f'No symbol "{name}" in current context.') from None

    def symbol_at(self, addr: int) -> tuple[Symbol, int] | None:
        """The function or object containing ``addr`` and the offset into it."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        sym = self._by_addr[i]
        if addr < sym.addr + max(sym.size, 1):
            return sym, addr - sym.addr
        return None


def _symbols(elf: ELFFile) -> dict[str, Symbol]:
    table = elf.get_section_by_name(".symtab")
    out: dict[str, Symbol] = {}
    if table is None:
        return out
    kinds = {"STT_FUNC": "func", "STT_OBJECT": "object", "STT_NOTYPE": "notype"}
    for sym in table.iter_symbols():
        kind = kinds.get(sym["st_info"]["type"])
        if kind and sym.name and not sym.name.startswith((".L", "$")) and sym["st_shndx"] != "SHN_UNDEF":
            out.setdefault(sym.name, Symbol(sym.name, sym["st_value"], sym["st_size"], kind))
    return out
