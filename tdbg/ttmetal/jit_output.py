"""The tt-metal host's JIT output, as the simulator server meets it: which firmware or kernel a
block of bytes the host writes into L1 is.

tt-metal 0.81.1 builds into ``~/.cache/tt-metal-cache/<build key>/``, and with
``TT_METAL_CACHE`` set into ``$TT_METAL_CACHE/tt-metal-cache<build key>/`` (measured: nothing
between the name and the key): ``firmware/<proc>/<proc>.elf`` and
``kernels/<kernel>/<hash>/<proc>/<proc>.elf`` with the execute-in-place ``<proc>.elf.xip.elf`` it
writes (``<proc>``: brisc, ncrisc, trisc0-2, tt-exalens' names of B, NC, T0-T2).  The host writes
each binary's text in one piece (measured with tt-umd's simulation protocol): a write whose bytes
begin with a known binary's text is that binary, its text code from there on.

Beside a kernel's ``<proc>`` folders its build folder holds the file the JIT compiled:
``kernel_includes.hpp`` (data movement) or ``chlkc_unpack.cpp`` / ``chlkc_math.cpp`` /
``chlkc_pack.cpp`` (compute), each ``#include``-ing the kernel's source by its path, and for a
compute kernel ``chlkc_descriptors.h`` with the CBs' data formats (``unpack_src_format[64]``,
``pack_dst_format[64]``: tt-metal's ``DataFormat`` codes, 255 for none).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tdbg.arch.profile import Profile
from tdbg.emu.elf import ElfImage, ElfLoadError
from tdbg.toolchain.ttllk import DATA_FORMAT

_KEY_BYTES = 64            # the text prefix a binary is known by


@dataclass(frozen=True)
class Binary:
    """One firmware or kernel: its name (``firmware`` or the kernel's folder), the core it runs
    on, the ELF with its symbols and the length of the text the host writes first."""

    name: str
    core: str
    elf: Path
    text: bytes

    @property
    def kind(self) -> str:
        return "firmware" if self.name == "firmware" else "kernel"

    @property
    def source(self) -> str | None:
        """The kernel's source file, as its build folder includes it (None: not known)."""
        return kernel_source(self.elf.parent.parent) if self.kind == "kernel" else None

    @property
    def cb_formats(self) -> dict[int, str]:
        """A compute kernel's CBs' data formats by CB (empty for any other binary)."""
        return cb_formats(self.elf.parent.parent) if self.kind == "kernel" else {}


_COMPILED = ("kernel_includes.hpp", "chlkc_unpack.cpp", "chlkc_math.cpp", "chlkc_pack.cpp")
_INCLUDE = re.compile(r'^#include "([^"]+\.(?:cpp|cc|c))"', re.M)
_FORMATS = re.compile(r"\b(unpack_src_format|pack_dst_format)\[\d+\] = \{([^}]*)\}")
_FORMAT_NAMES = {code: name for name, code in DATA_FORMAT.items()}
_NO_FORMAT = 255


@functools.cache
def kernel_source(folder: Path) -> str | None:
    """The source a kernel build folder's compiled file includes."""
    for name in _COMPILED:
        try:
            found = _INCLUDE.search((folder / name).read_text(errors="replace"))
        except OSError:
            continue
        if found:
            return found.group(1)
    return None


@functools.cache
def cb_formats(folder: Path) -> dict[int, str]:
    """CB -> data format name from a compute build's ``chlkc_descriptors.h`` (an input's
    unpacker source format, else an output's packer destination format)."""
    try:
        text = (folder / "chlkc_descriptors.h").read_text(errors="replace")
    except OSError:
        return {}
    tables: dict[str, list[int]] = {}
    for name, values in _FORMATS.findall(text):
        tables.setdefault(name, [int(v) for v in values.replace("\n", "").split(",") if v.strip()])
    out = {}
    for table in ("pack_dst_format", "unpack_src_format"):      # an input's own format wins
        for cb, code in enumerate(tables.get(table, [])):
            if code != _NO_FORMAT:
                out[cb] = _FORMAT_NAMES.get(code, f"DataFormat {code}")
    return out


def cache_builds() -> tuple[Path, str]:
    """The folder tt-metal puts its JIT build folders in, and the pattern of their names."""
    chosen = os.environ.get("TT_METAL_CACHE")
    return (Path(chosen), "tt-metal-cache*") if chosen else (Path.home() / ".cache" / "tt-metal-cache", "*")


class JitOutput:
    """The binaries in the build folders under ``root`` (those named like ``builds``), by the
    first bytes of their text; read again (``refresh``) when a write is not one of them (the host
    builds a kernel before it writes it)."""

    def __init__(self, profile: Profile, root: Path | None = None, builds: str = "*") -> None:
        self.root, self.builds = (root, builds) if root is not None else cache_builds()
        self.cores = {spec.alias: spec.name for spec in profile.cores}
        self.seen: dict[Path, tuple[int, int]] = {}   # (mtime, size) read
        self.by_prefix: dict[bytes, list[Binary]] = {}
        self.scans = 0
        self.key_bytes = _KEY_BYTES

    @property
    def folder(self) -> str:
        """Where the builds are read from, as a shell pattern."""
        return str(self.root / self.builds)

    def refresh(self) -> None:
        """Read the binaries built or finished since the last time (a file keeps its place by
        its (mtime, size): one read half-written is read again once it is whole)."""
        self.scans += 1
        if not self.root.is_dir():
            return
        for path in self.root.glob(f"{self.builds}/firmware/*/*.elf"):
            self._add(path, "firmware", path)
        for path in self.root.glob(f"{self.builds}/kernels/*/*/*/*.elf.xip.elf"):
            self._add(path, path.parent.parent.parent.name, path.with_name(path.name[:-len(".xip.elf")]))

    def _add(self, written: Path, name: str, symbols: Path) -> None:
        core = self.cores.get(written.parent.name)
        if core is None or written.name.endswith("_weakened.elf"):
            return
        try:
            stat = written.stat()
            version = (stat.st_mtime_ns, stat.st_size)
            if self.seen.get(written) == version:
                return
            image = ElfImage.load(written)
        except (OSError, ElfLoadError):
            return      # not there, or being written (tt-metal rewrites the .xip.elf each run): next scan
        self.seen[written] = version
        text = next((s.data for s in image.segments if s.executable and s.data), None)
        if text is None or len(text) < _KEY_BYTES:
            return
        key = hashlib.blake2b(text[:_KEY_BYTES], digest_size=16).digest()
        self.by_prefix.setdefault(key, []).append(Binary(name, core, symbols if symbols.exists() else written, text))

    def match(self, data: bytes, scan: bool = True) -> Binary | None:
        """The binary whose text ``data`` begins with, if any (``scan``: the folder read again
        first when none known is)."""
        if len(data) < _KEY_BYTES:
            return None
        key = hashlib.blake2b(data[:_KEY_BYTES], digest_size=16).digest()
        found = self._known(key, data)
        if found is None and scan:
            self.refresh()
            found = self._known(key, data)
        return found

    def _known(self, key: bytes, data: bytes) -> Binary | None:
        for binary in self.by_prefix.get(key, ()):
            if data[:len(binary.text)] == binary.text:
                return binary
        return None
