"""Fuzzing the loader (issue 15 items 1 and 8): mutated ELFs (header, program and section header
fields, debug sections, truncation, stray bytes) given to a session that already has firmware.
Each one is refused with one line naming the file, or loads (corrupt debug information: with a
warning) and then runs and answers commands; never an uncaught exception, a signal death or a
hang, and the session keeps its breakpoints and still runs its firmware afterwards.  Plus the
crafted cases the fuzz run of the issue found."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from tdbg.emu.elf import ElfImage, ElfLoadError
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build, firmware_dir
from tdbg.session import Session, SessionError
from tdbg.commands import execute

DEMO = firmware_dir() / "demo.c"
EHDR = {"e_type": (16, 2), "e_machine": (18, 2), "e_version": (20, 4), "e_entry": (24, 4), "e_phoff": (28, 4),
        "e_shoff": (32, 4), "e_flags": (36, 4), "e_ehsize": (40, 2), "e_phentsize": (42, 2), "e_phnum": (44, 2),
        "e_shentsize": (46, 2), "e_shnum": (48, 2), "e_shstrndx": (50, 2)}
PHDR = {"p_type": 0, "p_offset": 4, "p_vaddr": 8, "p_paddr": 12, "p_filesz": 16, "p_memsz": 20, "p_flags": 24, "p_align": 28}
SHDR = {"sh_name": 0, "sh_type": 4, "sh_flags": 8, "sh_addr": 12, "sh_offset": 16, "sh_size": 20, "sh_link": 24,
        "sh_info": 28, "sh_addralign": 32, "sh_entsize": 36}
COMMANDS = ["info registers pc", "bt", "x/4wx $pc", "info threads", "stepi", "disassemble $pc,+8", "info breakpoints",
            "info symbol $pc", "list", "info locals", "p $sp", "info frame", "x/2i $pc"]


def interesting(width: int) -> st.SearchStrategy[int]:
    top = (1 << (8 * width)) - 1
    return st.one_of(st.sampled_from(sorted({0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, top, top - 3, top >> 1, 0x16E000 & top,
                                              0x17FFFC & top, 0x10000 & top, 0xFFB00000 & top, 0xFFB01000 & top})),
                     st.integers(0, top))


class Base:
    """The demo ELF and where its tables are."""

    def __init__(self) -> None:
        self.path = build(DEMO)
        self.raw = self.path.read_bytes()
        (self.phoff, self.shoff) = struct.unpack_from("<II", self.raw, 28)
        (self.phnum, self.shnum) = (struct.unpack_from("<H", self.raw, 44)[0], struct.unpack_from("<H", self.raw, 48)[0])
        image = ElfImage.load(self.path)
        offsets = {}
        for i in range(self.shnum):
            at = self.shoff + 40 * i
            offsets[i] = struct.unpack_from("<II", self.raw, at + 16)
        names = [s.name for s in image.sections]
        self.debug = [offsets[i] for i, name in enumerate(names) if name.startswith(".debug") and offsets[i][1]]


BASE = Base()


@st.composite
def mutation(draw: st.DrawFn) -> tuple[str, int, bytes] | tuple[str, int]:
    """One change to the ELF's bytes: ("write", offset, bytes) or ("truncate", length)."""
    kind = draw(st.sampled_from(["ehdr", "phdr", "shdr", "debug", "truncate", "bytes"]))
    if kind == "ehdr":
        offset, width = EHDR[draw(st.sampled_from(sorted(EHDR)))]
        return ("write", offset, draw(interesting(width)).to_bytes(width, "little"))
    if kind == "phdr":
        index = draw(st.integers(0, BASE.phnum - 1))
        return ("write", BASE.phoff + 32 * index + PHDR[draw(st.sampled_from(sorted(PHDR)))],
                draw(interesting(4)).to_bytes(4, "little"))
    if kind == "shdr":
        index = draw(st.integers(0, BASE.shnum - 1))
        return ("write", BASE.shoff + 40 * index + SHDR[draw(st.sampled_from(sorted(SHDR)))],
                draw(interesting(4)).to_bytes(4, "little"))
    if kind == "debug":
        offset, size = draw(st.sampled_from(BASE.debug))
        return ("write", offset + draw(st.integers(0, size - 1)), draw(st.binary(min_size=1, max_size=16)))
    if kind == "truncate":
        return ("truncate", draw(st.integers(0, len(BASE.raw) - 1)))
    return ("write", draw(st.integers(0, len(BASE.raw) - 1)), draw(st.binary(min_size=1, max_size=8)))


def mutated(changes: list) -> bytes:
    raw = bytearray(BASE.raw)
    for change in changes:
        if change[0] == "truncate":
            del raw[change[1]:]
        else:
            _, offset, data = change
            raw[offset: offset + len(data)] = data[: max(len(raw) - offset, 0)]
    return bytes(raw)


@pytest.fixture(scope="module")
def session() -> Session:
    s = Session(BASE.path)
    s.break_at("main")
    return s


def check_still_whole(s: Session) -> None:
    """The session answers, keeps its breakpoint and runs the demo again to it."""
    s.load("T0", BASE.path)
    assert [bp.location or bp.number for bp in s.breakpoints.values()] and s.tile.cores[s.current].breakpoints
    stop = s.cont()
    assert stop.kind is StopKind.BREAKPOINT and stop.pc == next(iter(s.breakpoints.values())).address


@fuzz_settings(short=40, long=3000)
@given(changes=st.lists(mutation(), min_size=1, max_size=3))
def test_mutated_elfs(session: Session, changes: list, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("elf") / "mutated.elf"
    path.write_bytes(mutated(changes))
    s = session
    with bounded(60):
        try:
            s.load("T0", path)
        except SessionError as exc:
            message = str(exc)
            assert "\n" not in message and str(path) in message, message
        else:
            s.cont(limit=3000)
            for command in COMMANDS:
                out = execute(s, command, check=False)
                assert "Traceback" not in out and "internal error" not in out, (command, out)
            s.stepi(3)
        check_still_whole(s)


# -- the crafted cases ------------------------------------------------------------------------------

def patched(tmp_path: Path, edits: dict[int, bytes], name: str = "crafted.elf") -> Path:
    raw = bytearray(BASE.raw)
    for offset, data in edits.items():
        raw[offset: offset + len(data)] = data
    path = tmp_path / name
    path.write_bytes(bytes(raw))
    return path


def text_segment(field: str) -> int:
    return BASE.phoff + PHDR[field]


def test_segment_whose_file_bytes_overflow_l1_is_refused_without_a_crash(tmp_path: Path) -> None:
    """Item 1: p_vaddr 0x17FFFC, p_filesz 0x10000, p_memsz 4 crashed the process (SIGSEGV)."""
    path = patched(tmp_path, {text_segment("p_vaddr"): struct.pack("<I", 0x17FFFC),
                              text_segment("p_filesz"): struct.pack("<I", 0x10000),
                              text_segment("p_memsz"): struct.pack("<I", 4)})
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done                      # not a signal (negative) status
    assert done.stderr.count("\n") == 1 and "p_filesz 0x10000 > p_memsz 0x4" in done.stderr


@pytest.mark.parametrize("field, value, message", [
    ("p_memsz", 0x10000_0000 - 0x6000, "outside what T0 can be loaded with"),     # wraps 32 bits
    ("p_filesz", 0x7FFF_FFFF, "p_filesz"),
    ("p_offset", 0xFFFF_FFF0, "past the end of the"),
    ("p_vaddr", 0xFFB00FFC, "outside what T0 can be loaded with"),               # runs past T0's 4 KiB
])
def test_every_variant_of_bytes_outside_the_tile_is_refused(tmp_path: Path, field: str, value: int, message: str) -> None:
    path = patched(tmp_path, {text_segment(field): struct.pack("<I", value)})
    with pytest.raises(SessionError, match=message):
        Session(path)


def test_code_words_outside_l1_are_never_written(tmp_path: Path) -> None:
    """An executable section at 0xFFFFFF00 full of words that look like .ttinsn: the tile used to
    write a NOP at each of their addresses, past the end of L1."""
    image = ElfImage.load(BASE.path)
    index = next(i for i, sec in enumerate(image.sections) if sec.executable)
    path = patched(tmp_path, {BASE.shoff + 40 * index + SHDR["sh_addr"]: struct.pack("<I", 0xFFFFFF00)})
    s = Session(path)
    assert not s.tile.code.at and s.cont(limit=1000).kind is not None


def test_corrupt_debug_information_loads_with_a_warning(tmp_path: Path) -> None:
    """Item 8: a traceback at start-up.  The program loads and runs; the warning says why, when
    the debug information is first used (issue 23: it is read lazily)."""
    offset, size = BASE.debug[0]
    path = patched(tmp_path, {offset: b"\xff" * min(size, 64)})
    s = Session(path)
    assert not s.load_warnings           # nothing read yet
    assert s.debug is None               # first use: opened, found unusable
    assert s.load_warnings and "debug information is unusable" in s.load_warnings[0] and "\n" not in s.load_warnings[0]
    assert s.debug is None and s.cont().kind is StopKind.EXITED
    # the run's end shows no frame (GDB's rule after an exit): the backtrace first reads the DWARF
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "run", "-ex", "bt", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "debug information is unusable" in done.stderr


def test_not_an_elf_nor_a_file(tmp_path: Path) -> None:
    (tmp_path / "text.elf").write_text("hello\n")
    (tmp_path / "empty.elf").write_bytes(b"")
    os.mkfifo(tmp_path / "fifo.elf")
    (tmp_path / "dir.elf").mkdir()
    for name, message in [("text.elf", "not a usable ELF"), ("empty.elf", "not a usable ELF"),
                          ("fifo.elf", "not a regular file"), ("dir.elf", "not a regular file"),
                          ("missing.elf", "No such file")]:
        with pytest.raises(ElfLoadError, match=message):
            ElfImage.load(tmp_path / name)
