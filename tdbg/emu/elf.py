"""ELF images for the baby RISC-V cores, read with pyelftools (imported when a file is parsed).

An ``ElfImage`` holds what the tile needs to load and describe a program, independent of where a
host puts it: its sections, its loadable segments, the entry point, symbols, executable ranges,
the ``Tag_RISCV_arch`` attribute, and the words of executable code that Unicorn must not run as
they are (``tdbg.emu.code_patches.replaced``: ``.ttinsn``, CSR, ``lr``/``sc``, Zba/Zbb/xttzbkb words).
Where the bytes go in the tile is ``tdbg.emu.loader``'s business.

An image is parsed once per file content: in a process (``_PARSED``), and across processes in
tdbg's cache (``tdbg.toolchain.zig.cache_dir()/elf``) for files of at least ``CACHED_BYTES``,
keyed by the digest of the file's bytes and of the source of the code that parses them
(``_PARSER_MODULES``), so a changed parser never reads an image an older one wrote.  A file
whose times say it is unchanged since it was read is not read again (``_unchanged_key``).  The cache is
the user's own, like the built ELFs beside it.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import importlib
import io
import os
import pickle
import stat
import struct
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from tdbg.emu.code_patches import maybe_replaced, replaced
from tdbg.tensix.isa import is_ttinsn

if TYPE_CHECKING:
    from elftools.elf.elffile import ELFFile

EM_RISCV = 243
#: ``j .`` (``jal x0, 0``): what finished firmware spins on (tt-llk's ``for (;;) {}``).
JUMP_TO_SELF = 0x0000_006F
#: The largest ELF file tdbg reads (firmware with full debug information is a few MiB).
MAX_ELF_BYTES = 256 << 20
#: ELFs parsed in this process, by the digest of their bytes (``ElfImage.load``), newest last.
_PARSED: dict[bytes, ElfImage] = {}
PARSED_KEPT = 64
#: The digest of the bytes of a file unchanged since it was read (``_unchanged_key``): a load of
#: it reads and hashes nothing (measured: 90-140 us for an 80 KiB kernel ELF, most of it
#: blake2b).  A file counts as unchanged when its times are this old.
_BY_FILE: dict[tuple[int, ...], bytes] = {}
SETTLED_NS = 2_000_000_000
#: Files this large or larger are kept parsed in tdbg's cache too (a smaller one parses in about
#: a millisecond); at most ``CACHED_KEPT`` of them, the least recently written dropped first.
CACHED_BYTES, CACHED_KEPT = 32 << 10, 256
#: The modules whose code decides what an image holds (the cache's key includes their source).
_PARSER_MODULES = ("tdbg.emu.elf", "tdbg.emu.code_patches", "tdbg.riscv.extensions", "tdbg.riscv.registers",
                   "tdbg.tensix.isa.codec")
#: Section flags (System V gABI, "Sections").
SHF_ALLOC, SHF_EXECINSTR, SHF_COMPRESSED = 0x2, 0x4, 0x800


class ElfLoadError(Exception):
    """The file is not an RV32 ELF the tile can run; the message is one line (control
    characters from the file, in a section name say, are shown escaped)."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


def one_line(text: str) -> str:
    """``text`` with control characters escaped (``\\n`` as ``\\x0a``): it prints as one line."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in text)


@dataclass(frozen=True)
class Segment:
    """Bytes to write at ``vaddr`` (``memsz`` bytes in all, the rest zero)."""

    vaddr: int
    data: bytes
    memsz: int
    executable: bool


@dataclass(frozen=True)
class Section:
    name: str
    addr: int
    data: bytes | None          # None: NOBITS (.bss-like)
    size: int
    alloc: bool
    executable: bool


@dataclass(frozen=True)
class Symbol:
    name: str
    addr: int
    size: int
    kind: str  # "func", "object", "notype", ...
    bound_global: bool = False   # STB_GLOBAL: preferred to a local one at the same address
    absolute: bool = False       # SHN_ABS: a value, not an address in a section
    code: bool = False           # defined in an executable section (GDB's mst_text)


@dataclass
class ElfImage:
    path: Path
    entry: int
    segments: list[Segment]
    symbols: dict[str, Symbol]
    exec_ranges: list[tuple[int, int]]      # [start, end) of executable sections
    sections: list[Section] = field(default_factory=list)
    arch: str | None = None                 # Tag_RISCV_arch, e.g. "rv32i2p1_m2p0"
    replaced: dict[int, int] = field(default_factory=dict)  # address -> a word Unicorn must not run as is
    parks: list[int] = field(default_factory=list)        # addresses of ``j .`` in code
    raw: bytes = field(default=b"", repr=False)   # the file's bytes, read once (DWARF is read from them too)
    _starts: list[int] = field(default_factory=list, repr=False)
    _by_addr: list[Symbol] = field(default_factory=list, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> ElfImage:
        """Read an RV32 ELF; anything else, or an ELF whose headers do not hold together, is an
        ``ElfLoadError`` with one line (``read_elf_file`` says what is checked).  Parsed once
        per file content in a process (an image is never changed once parsed: the sessions,
        tiles and symbol files that load the same bytes share it, named by their own path)."""
        path = Path(path)
        seen = _unchanged_key(path)
        key = _BY_FILE.get(seen) if seen is not None else None
        image = _PARSED.pop(key, None) if key is not None else None
        if image is not None:
            _PARSED[key] = image
            return image if image.path == path else dataclasses.replace(image, path=path)
        raw = read_elf_file(path)
        key = hashlib.blake2b(raw, digest_size=20).digest()
        if seen is not None:
            _BY_FILE[seen] = key
            while len(_BY_FILE) > PARSED_KEPT:
                del _BY_FILE[next(iter(_BY_FILE))]
        image = _PARSED.pop(key, None)
        if image is None:
            image = _cached(key, raw) if len(raw) >= CACHED_BYTES else None
            if image is None:
                image = cls.parse(raw, path)
                if len(raw) >= CACHED_BYTES:
                    _keep(key, image)
        _PARSED[key] = image
        while len(_PARSED) > PARSED_KEPT:
            del _PARSED[next(iter(_PARSED))]
        return image if image.path == path else dataclasses.replace(image, path=path)

    @classmethod
    def parse(cls, raw: bytes, path: Path) -> ElfImage:
        """``load`` of an ELF's bytes (``path`` names it in messages)."""
        from elftools.elf.elffile import ELFFile

        try:
            elf = ELFFile(io.BytesIO(raw))
            if elf["e_machine"] != "EM_RISCV":
                raise ElfLoadError(f"{path}: not a RISC-V ELF (machine {elf['e_machine']})")
            if elf.elfclass != 32:
                raise ElfLoadError(f"{path}: a {elf.elfclass}-bit ELF; the baby RISC-V cores are RV32")
            if elf["e_type"] != "ET_EXEC":
                kind = {"ET_REL": "a relocatable object (ET_REL)", "ET_DYN": "a shared object (ET_DYN)"}
                raise ElfLoadError(f"{path}: {kind.get(elf['e_type'], elf['e_type'])}, not linked firmware "
                                   "(an executable, ET_EXEC)")
            segments = [_segment(path, raw, seg) for seg in elf.iter_segments()
                        if seg["p_type"] == "PT_LOAD" and seg["p_memsz"]]
            sections = [_section(path, raw, sec) for sec in elf.iter_sections()]
            exec_ranges = [(s.addr, s.addr + s.size) for s in sections if s.executable and s.size]
            symbols = _symbols(elf, raw, sections)
            entry = elf["e_entry"]
            arch = _arch_attribute(elf, sections)
        except ElfLoadError:
            raise
        except Exception as exc:  # noqa: BLE001  (pyelftools raises many kinds on a corrupt file)
            raise ElfLoadError(f"{path}: not a usable ELF file ({type(exc).__name__}: {exc})") from None
        image = cls(path, entry, segments, symbols, exec_ranges, sections, arch, raw=raw)
        image.replaced, image.parks = image._scan_code()
        code = [s for s in symbols.values() if s.kind == "notype" and any(lo <= s.addr < hi for lo, hi in exec_ranges)]
        order = {name: i for i, name in enumerate(symbols)}   # at one address the last is found:
        image._by_addr = sorted([s for s in symbols.values() if s.kind in ("func", "object")] + code,
                                key=lambda s: (s.addr, s.kind != "notype", s.bound_global, -order[s.name]))
        image._starts = [s.addr for s in image._by_addr]
        return image

    @property
    def ttinsn(self) -> dict[int, int]:
        """The ``.ttinsn`` words of executable code, by address."""
        return {a: w for a, w in self.replaced.items() if is_ttinsn(w)}

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def _scan_code(self) -> tuple[dict[int, int], list[int]]:
        """Every aligned word of an executable section that Unicorn must not run as it is, and
        every ``j .``."""
        found: dict[int, int] = {}
        parks: list[int] = []
        for sec in self.sections:
            if not sec.executable or sec.data is None:
                continue
            first = (-sec.addr) & 3
            words = np.frombuffer(sec.data, dtype="<u4", count=(len(sec.data) - first) // 4, offset=first)
            base = sec.addr + first
            for index in np.flatnonzero(maybe_replaced(words)).tolist():
                word = int(words[index])
                if replaced(word):
                    found[base + 4 * index] = word
            parks.extend(base + 4 * int(i) for i in np.flatnonzero(words == JUMP_TO_SELF))
        return found, parks

    def symbol(self, name: str) -> Symbol:
        try:
            return self.symbols[name]
        except KeyError:
            raise KeyError(f'No symbol "{name}" in current context.') from None

    def symbol_at(self, addr: int) -> tuple[Symbol, int] | None:
        """The function, object or code label (``STT_NOTYPE`` in an executable section, such
        as crt0's ``_start``) containing ``addr`` and the offset into it, as GDB's minimal
        symbols: at one address a typed symbol, then a global one, then the first in the table
        wins; a label reaches to the next symbol (or its section's end)."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        sym = self._by_addr[i]
        if sym.kind == "notype":   # a code label (GDB's minimal symbol): up to the next symbol
            for j in range(i - 1, -1, -1):   # GDB's lookup_minimal_symbol_by_pc_section: a label of
                outer = self._by_addr[j]     # no size inside a sized symbol gives way to that one
                if outer.size and outer.kind != "notype":
                    if outer.addr <= addr < outer.addr + outer.size:
                        return outer, addr - outer.addr
                    break
            later = bisect.bisect_right(self._starts, sym.addr)
            end = next(hi for lo, hi in self.exec_ranges if lo <= sym.addr < hi)
            if addr < (min(self._starts[later], end) if later < len(self._starts) else end):
                return sym, addr - sym.addr
            return None
        if addr < sym.addr + max(sym.size, 1):
            return sym, addr - sym.addr
        return None


def _unchanged_key(path: Path) -> tuple[int, ...] | None:
    """What names ``path``'s bytes without reading them: its file's device, inode, size and
    modification and change times, when both times are ``SETTLED_NS`` old (a file's times tick
    coarsely, every few milliseconds: one rewritten sooner could keep them, as git's "racy"
    index entries); else None (the bytes are read and hashed)."""
    try:
        info = path.stat()
    except OSError:
        return None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < SETTLED_NS:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def read_elf_file(path: Path) -> bytes:
    """The bytes of ``path``: a regular file (a FIFO or a device would block or never end) of at
    most ``MAX_ELF_BYTES``; every later read is bounded by them."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ElfLoadError(f"{path}: not a regular file")
        if info.st_size > MAX_ELF_BYTES:
            raise ElfLoadError(f"{path}: {info.st_size} bytes; tdbg reads ELF files of at most {MAX_ELF_BYTES >> 20} MiB")
        with path.open("rb") as fh:
            return fh.read(MAX_ELF_BYTES + 1)[:MAX_ELF_BYTES]
    except OSError as exc:
        raise ElfLoadError(f"{path}: {exc.strerror or exc}") from None


def _file_bytes(path: Path, raw: bytes, what: str, offset: int, size: int) -> bytes:
    """``size`` bytes at ``offset`` of the file; an ``ElfLoadError`` if they are not all there."""
    if offset + size > len(raw):
        raise ElfLoadError(f"{path}: {what} has {size} bytes at file offset {offset:#x}, past the end of the "
                           f"{len(raw)}-byte file")
    return raw[offset: offset + size]


def _segment(path: Path, raw: bytes, seg) -> Segment:
    """A ``PT_LOAD`` segment: ``p_filesz`` bytes from the file, ``p_memsz`` in memory (the ELF
    rule ``p_filesz <= p_memsz`` is checked: its bytes are what is written)."""
    vaddr, filesz, memsz = seg["p_vaddr"], seg["p_filesz"], seg["p_memsz"]
    if filesz > memsz:
        raise ElfLoadError(f"{path}: a segment at {vaddr:#x} has p_filesz {filesz:#x} > p_memsz {memsz:#x}")
    data = _file_bytes(path, raw, f"the segment at {vaddr:#x}", seg["p_offset"], filesz)
    return Segment(vaddr, data, memsz, bool(seg["p_flags"] & 1))


def _section(path: Path, raw: bytes, sec) -> Section:
    """A section header and its bytes as they are in the file (never decompressed: an
    allocated section must not be compressed)."""
    flags, size = sec["sh_flags"], sec["sh_size"]
    alloc = bool(flags & SHF_ALLOC)
    data = None
    if sec["sh_type"] != "SHT_NOBITS":
        if alloc and flags & SHF_COMPRESSED:
            raise ElfLoadError(f"{path}: section {sec.name} is allocated and compressed")
        data = _file_bytes(path, raw, f"section {sec.name or '?'}", sec["sh_offset"], size)
    return Section(sec.name, sec["sh_addr"], data, size, alloc, bool(flags & SHF_EXECINSTR))


def _named(elf: ELFFile, sections: list[Section], name: str):  # type: ignore[no-untyped-def]
    """pyelftools' ``get_section_by_name`` (the last section of that name) found in the
    sections already read, without pyelftools reading every section header again."""
    index = next((i for i in range(len(sections) - 1, -1, -1) if sections[i].name == name), None)
    return None if index is None else elf.get_section(index)


def _arch_attribute(elf: ELFFile, sections: list[Section]) -> str | None:
    """``Tag_RISCV_arch`` from ``.riscv.attributes`` (None when absent or unreadable)."""
    section = _named(elf, sections, ".riscv.attributes")
    if section is None or not hasattr(section, "iter_subsections"):
        return None
    try:
        for sub in section.iter_subsections():
            for subsub in sub.iter_subsubsections():
                for attribute in subsub.iter_attributes():
                    if attribute.tag == "TAG_ARCH":
                        return str(attribute.value)
    except Exception:  # noqa: BLE001 (a corrupt attribute section only loses the check)
        return None
    return None


class RawSymbol(NamedTuple):
    """One ``Elf32_Sym`` entry as stored."""

    name: str
    value: int
    size: int
    type: int      # STT_*: 0 notype, 1 object, 2 func
    bind: int      # STB_*: 0 local, 1 global, 2 weak
    shndx: int     # 0: undefined


_ELF32_SYM = struct.Struct("<IIIBBH")
_KINDS = {0: "notype", 1: "object", 2: "func"}
_SHN_ABS = 0xFFF1


def symbol_table(elf: ELFFile, raw: bytes, sections: list[Section] | None = None) -> list[RawSymbol]:
    """The entries of ``.symtab``, read with ``struct`` from the file's bytes (pyelftools takes
    about 50 us an entry, and firmware linked with compiler-rt has thousands); a table whose
    bytes lie outside the file is a ``ValueError``, a name outside its string table is "".
    ``sections``: the file's, already read (the table is found among them)."""
    table = elf.get_section_by_name(".symtab") if sections is None else _named(elf, sections, ".symtab")
    if table is None or table["sh_type"] != "SHT_SYMTAB" or table["sh_entsize"] not in (0, _ELF32_SYM.size):
        return []
    offset, size = table["sh_offset"], table["sh_size"]
    if offset + size > len(raw):
        raise ValueError(f".symtab ({size} bytes at {offset:#x}) runs past the end of the file")
    data = raw[offset: offset + size]
    strings = b""
    if 0 < table["sh_link"] < elf.num_sections():
        link = elf.get_section(table["sh_link"])
        strings = raw[link["sh_offset"]: link["sh_offset"] + link["sh_size"]]
    out = []
    for name_at, value, size, info, _, shndx in _ELF32_SYM.iter_unpack(data[: len(data) - len(data) % _ELF32_SYM.size]):
        end = strings.find(b"\0", name_at)
        name = strings[name_at: end if end >= 0 else len(strings)].decode("utf-8", "replace") if name_at < len(strings) else ""
        out.append(RawSymbol(name, value, size, info & 0xF, info >> 4, shndx))
    return out


def _symbols(elf: ELFFile, raw: bytes, sections: list[Section]) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    executable = {i for i, sec in enumerate(sections) if sec.executable}
    for sym in symbol_table(elf, raw, sections):
        kind = _KINDS.get(sym.type)
        if kind and sym.name and not sym.name.startswith((".L", "$")) and sym.shndx != 0:
            out.setdefault(sym.name, Symbol(sym.name, sym.value, sym.size, kind, sym.bind == 1, sym.shndx == _SHN_ABS,
                                            sym.shndx in executable))
    return out


# -- the cache across processes -------------------------------------------------------------------

@cache
def _parser_digest() -> str:
    """The digest of the parsing code's source and of the Python that pickles (``_PARSER_MODULES``)."""
    h = hashlib.blake2b(repr(sys.version_info[:2]).encode(), digest_size=12)
    for name in _PARSER_MODULES:
        h.update(Path(importlib.import_module(name).__file__ or "").read_bytes())
    return h.hexdigest()


def _cache_file(key: bytes) -> Path:
    from tdbg.toolchain.zig import cache_dir

    return cache_dir() / "elf" / f"{key.hex()}-{_parser_digest()}.pickle"


def _cached(key: bytes, raw: bytes) -> ElfImage | None:
    """The image of ``raw`` that an earlier process parsed, if the cache has it (anything else
    there, a truncated or foreign file, counts as absent)."""
    try:
        image = pickle.loads(_cache_file(key).read_bytes())
    except Exception:  # noqa: BLE001  (absent, unreadable or not an image: parse the file)
        return None
    return image if isinstance(image, ElfImage) and image.raw == raw else None


def _keep(key: bytes, image: ElfImage) -> None:
    """Write ``image`` to the cache (atomically; a cache that cannot be written is skipped) and
    drop the oldest entries beyond ``CACHED_KEPT``."""
    try:
        target = _cache_file(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(pickle.dumps(image, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, target)
        entries = sorted(target.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        for old in entries[:-CACHED_KEPT]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
