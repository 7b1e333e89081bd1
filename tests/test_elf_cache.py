"""An ELF is parsed once per file content: in a process, and across processes through tdbg's
cache (``tdbg.emu.elf``), with the image always the one a fresh parse makes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from examples import EXAMPLES
from tdbg.emu import elf
from tdbg.emu.elf import CACHED_BYTES, ElfImage
from tdbg.toolchain.zig import build, demo_source


def _fields(image: ElfImage) -> tuple:
    return (image.entry, image.segments, image.symbols, image.exec_ranges, image.sections, image.arch,
            image.replaced, image.parks, image.raw, image._starts, image._by_addr)


@pytest.fixture
def big_elf(tmp_path: Path) -> Path:
    """The demo firmware (compiler-rt linked in: large enough for the cache) under a new path."""
    path = tmp_path / "demo.elf"
    shutil.copy(build(demo_source()), path)
    assert path.stat().st_size >= CACHED_BYTES
    return path


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A process that has parsed nothing, with a cache of its own (in ``tmp_path / "cache"``)."""
    monkeypatch.setattr(elf, "_PARSED", {})
    monkeypatch.setattr(elf, "_BY_FILE", {})
    monkeypatch.setattr(elf, "_cache_file", lambda key, real=elf._cache_file: tmp_path / "cache" / real(key).name)


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(cls: type, raw: bytes, path: Path) -> ElfImage:
        raise AssertionError(f"{path} was parsed again")
    monkeypatch.setattr(ElfImage, "parse", classmethod(refuse))


def test_one_parse_per_content_in_a_process(big_elf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ElfImage.load(big_elf)
    fresh = ElfImage.parse(big_elf.read_bytes(), big_elf)
    other = big_elf.with_name("copy.elf")
    shutil.copy(big_elf, other)
    _no_parsing(monkeypatch)
    assert ElfImage.load(big_elf) is first
    copy = ElfImage.load(other)
    assert copy.path == other and first.path == big_elf
    assert _fields(copy) == _fields(first) == _fields(fresh)


def test_a_later_process_reads_the_parsed_image(big_elf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = ElfImage.parse(big_elf.read_bytes(), big_elf)
    ElfImage.load(big_elf)
    monkeypatch.setattr(elf, "_PARSED", {})        # as a new process
    _no_parsing(monkeypatch)
    again = ElfImage.load(big_elf)
    assert again.path == big_elf and _fields(again) == _fields(fresh)


def test_a_damaged_or_foreign_cache_entry_is_parsed_over(big_elf: Path, tmp_path: Path) -> None:
    key = elf.hashlib.blake2b(big_elf.read_bytes(), digest_size=20).digest()
    entry = elf._cache_file(key)
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"not a pickle")
    assert _fields(ElfImage.load(big_elf)) == _fields(ElfImage.parse(big_elf.read_bytes(), big_elf))
    small = build(EXAMPLES / "bench_loop.c")     # another program's image under this key
    elf._keep(key, ElfImage.parse(small.read_bytes(), small))
    elf._PARSED.clear()
    assert ElfImage.load(big_elf).raw == big_elf.read_bytes()


def test_a_small_elf_stays_out_of_the_cache(big_elf: Path, tmp_path: Path) -> None:
    small = build(EXAMPLES / "bench_loop.c")
    assert small.stat().st_size < CACHED_BYTES
    ElfImage.load(small)
    assert not list((tmp_path / "cache").glob("*.pickle"))
    ElfImage.load(big_elf)        # the check above can fail: a large one is written there
    assert len(list((tmp_path / "cache").glob("*.pickle"))) == 1


def test_a_file_unchanged_since_it_was_read_is_not_read_again(big_elf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(elf, "SETTLED_NS", 0)       # its times count as settled at once
    first = ElfImage.load(big_elf)

    def refuse(path: Path) -> bytes:
        raise AssertionError(f"{path} was read again")
    monkeypatch.setattr(elf, "read_elf_file", refuse)
    assert ElfImage.load(big_elf) is first


def test_a_file_rewritten_just_now_is_read_again(big_elf: Path, tmp_path: Path) -> None:
    """Two ELFs of one size (the smaller padded: bytes past the headers' reach are ignored),
    written one over the other at once: the second load reads the new bytes, though the file's
    times may not have ticked."""
    small = build(EXAMPLES / "bench_loop.c").read_bytes()
    big = big_elf.read_bytes()
    path = tmp_path / "rewritten.elf"
    path.write_bytes(small.ljust(len(big), b"\0"))
    assert ElfImage.load(path).entry == ElfImage.parse(small, path).entry
    path.write_bytes(big)
    again = ElfImage.load(path)
    assert again.raw == big and _fields(again) == _fields(ElfImage.parse(big, path))
