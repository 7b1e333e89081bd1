"""The build cache never runs stale or broken code (issue 26 item 12): every file the
preprocessor reads is in the entry's manifest (headers in a subfolder, non-``.h`` includes), a
damaged ELF is rebuilt, ``-c`` among the flags is refused instead of cached as firmware, ``-o``
naming the source is refused, and an include of a device is refused before the compiler reads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tdbg.toolchain import zig as toolchain
from tdbg.emu.elf import ElfImage


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(toolchain, "cache_dir", lambda: tmp_path / "cache")
    return tmp_path / "cache"


def _value(elf: Path) -> int:
    """The initial value of ``answer`` in the ELF's .data."""
    image = ElfImage.load(elf)
    sym = image.symbols["answer"]
    seg = next(s for s in image.segments if s.vaddr <= sym.addr < s.vaddr + len(s.data))
    return int.from_bytes(seg.data[sym.addr - seg.vaddr:sym.addr - seg.vaddr + 4], "little")


def test_headers_in_a_subfolder_and_other_includes_are_in_the_key(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "k.c"
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "v.h").write_text("#define V 1\n")
    (tmp_path / "w.inc").write_text("+ 10\n")
    src.write_text('#include "sub/v.h"\nvolatile unsigned answer = V\n#include "w.inc"\n;\nint main(void) { return answer; }\n')
    assert _value(toolchain.build(src)) == 11
    (tmp_path / "sub" / "v.h").write_text("#define V 2\n")
    assert _value(toolchain.build(src)) == 12
    (tmp_path / "w.inc").write_text("+ 20\n")
    first = toolchain.ensure_built(src)
    assert first.rebuilt and _value(first.elf) == 22
    assert not toolchain.ensure_built(src).rebuilt


def test_a_damaged_entry_is_rebuilt(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text("volatile unsigned answer = 5;\nint main(void) { return answer; }\n")
    elf = toolchain.build(src)
    good = elf.read_bytes()
    elf.write_bytes(good[:100])                      # truncated
    again = toolchain.ensure_built(src)
    assert again.rebuilt and again.elf.read_bytes() == good


def test_an_object_file_is_not_cached_as_firmware(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text("int main(void) { return 0; }\n")
    with pytest.raises(toolchain.ToolchainError, match="relocatable object"):
        toolchain.ensure_built(src, ["-c"])
    with pytest.raises(toolchain.ToolchainError, match="relocatable object"):   # and not cached either
        toolchain.ensure_built(src, ["-c"])


def test_an_include_of_a_device_is_refused_at_once(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text('#include "/dev/zero"\nint main(void) { return 0; }\n')
    with pytest.raises(toolchain.ToolchainError, match="/dev/zero, which is not a regular file"):
        toolchain.ensure_built(src)


def test_build_refuses_to_write_the_elf_over_its_source(tmp_path: Path) -> None:
    src = tmp_path / "k.c"
    text = "int main(void) { return 0; }\n"
    src.write_text(text)
    done = subprocess.run([sys.executable, "-m", "tdbg", "build", str(src), "-o", str(src)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "is the source itself" in done.stderr
    assert src.read_text() == text


def test_a_relocatable_object_is_refused_by_the_loader(tmp_path: Path) -> None:
    from tdbg.emu.elf import ElfLoadError

    src = tmp_path / "k.c"
    src.write_text("int main(void) { return 0; }\n")
    obj = tmp_path / "k.o"
    cmd = toolchain.compile_command(src, obj, ["-c"])
    cmd.remove(str(toolchain.firmware_dir() / "crt0.S"))
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    with pytest.raises(ElfLoadError, match="relocatable object"):
        ElfImage.load(obj)
