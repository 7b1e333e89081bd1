"""Build tdbg firmware: one C or C++ file + the kit's ``crt0.S`` and ``tdbg.ld`` -> ELF.

The firmware kit (``tensix.h``, ``crt0.S``, ``tdbg.ld``, the demo, ``release_triscs.c``) is
package data, ``tdbg/firmware/``, so an installed wheel carries it; the example and benchmark
firmware is the checkout's top-level ``firmware/``.

The compiler is the pip-installed zig (``python -m ziglang cc``) targeting the
baby RISC-V T cores: RV32IM, no C extension
(tt-isa-documentation/WormholeB0/TensixTile/BabyRISCV/PushTensixInstruction.md:
the compressed encoding space holds ``.ttinsn`` words instead).

A C++ source (``.cpp``, ``.cc``, ``.cxx``) goes through zig's ``c++`` driver with
``CXXFLAGS``: freestanding C++ as tt-llk's kernels are, no exceptions, no RTTI and no C++
standard library (``-nostdlib++``: zig would otherwise build libc++ for the target).  Its
``main`` is ``extern "C"`` (a freestanding target does not treat ``main`` specially).

``riscv32-freestanding-none`` links no libc and no start files, but zig still
links its compiler-rt, which provides the soft-float helpers (``__addsf3`` ...)
that ``float`` arithmetic needs; ``-nostdlib`` would drop compiler-rt as well.

Builds are cached in the user's cache directory (``cache_dir()``), one folder per key: the
digest of the source's path and content, the kit, the compiler flags and the zig version.  The
folder's manifest (``inputs.json``) holds the digest of every file the preprocessor read (any
header, in any folder, whatever its name: the compiler's own dependency list, ``-MD``) and of the
ELF; an entry is used only while all of them still match, so a changed header or a damaged ELF
is rebuilt.  An include that is not a regular file (``/dev/zero``, a FIFO) is refused before the
compiler reads it (zig's cache would read it for ever).  An ELF is never written beside its
source, so a read-only source folder works; the path is in the key because the ELF's debug
information names the source file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources, util
from pathlib import Path

__all__ = [
    "CFLAGS",
    "CXXFLAGS",
    "CXX_SUFFIXES",
    "KIT_CORES",
    "BuildResult",
    "ToolchainError",
    "build",
    "cache_dir",
    "compile_command",
    "demo_source",
    "ensure_built",
    "firmware_dir",
    "firmware_sources",
    "kit_flags",
    "zig_version",
]

#: Flags for ``python -m ziglang cc`` (order matters only for readability).
CFLAGS: tuple[str, ...] = (
    "-target", "riscv32-freestanding-none",
    "-mcpu=generic_rv32+m",          # RV32IM: no C extension, like the silicon
    "-O1",
    "-g",
    "-fno-omit-frame-pointer",       # s0 frame chain: simple, reliable backtraces
    "-ffreestanding",
    "-fno-builtin",                  # no calls to memset/memcpy from loops
)

#: What a C++ source adds to ``CFLAGS`` (zig's ``c++`` driver).
CXXFLAGS: tuple[str, ...] = ("-fno-exceptions", "-fno-rtti", "-nostdlib++")
#: The suffixes built as C++; every other source is C.
CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
#: The suffixes tdbg builds (a program given as one of these is built before it is loaded).
SOURCE_SUFFIXES = (".c", *CXX_SUFFIXES)

#: Seconds to wait for one compile (the first one also builds compiler-rt).
COMPILE_TIMEOUT = 600
#: Seconds to wait for the preprocessor's dependency list (about 0.1 s measured).
DEPENDENCY_TIMEOUT = 60
MANIFEST = "inputs.json"


class ToolchainError(Exception):
    """The firmware could not be built; the message includes the compiler's stderr."""


@dataclass(frozen=True)
class BuildResult:
    elf: Path
    rebuilt: bool
    command: tuple[str, ...]


def firmware_dir() -> Path:
    """The firmware kit: the package data folder ``tdbg/firmware``."""
    kit = resources.files("tdbg") / "firmware"
    if not isinstance(kit, Path):  # pragma: no cover - tdbg imported from a zip archive
        raise ToolchainError(f"the firmware kit is not on the file system: {kit}")
    return kit


def cache_dir() -> Path:
    """Where built ELFs go: ``$XDG_CACHE_HOME/tdbg``, else ``~/.cache/tdbg`` (the XDG Base
    Directory specification ignores a relative ``XDG_CACHE_HOME``)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "tdbg"


def demo_source() -> Path:
    """The demo firmware a new user steps through in the shell."""
    return firmware_dir() / "demo.c"


def firmware_sources() -> list[Path]:
    """Every ``*.c`` of the kit (the demo, ``release_triscs.c``), sorted by name; the examples and
    benchmarks are the checkout's top-level ``firmware/``."""
    return sorted(firmware_dir().glob("*.c"))


#: Where each core's firmware goes in L1 (tt-llk's test layout for the TRISCs): ``tdbg.ld`` as
#: written places T0's; the other cores get a copy with their base (``linker_script``).
CODE_BASES = {"T0": 0x6000, "T1": 0xB000, "T2": 0x10000, "B": 0x1000, "NC": 0x14000}
KIT_CORES = tuple(CODE_BASES)
_BASE_LINE = "__tdbg_code_base = 0x6000;"


def _support_files() -> list[Path]:
    fw = firmware_dir()
    return [fw / "crt0.S", fw / "tdbg.ld", fw / "tensix.h"]


def linker_script(core: str = "T0") -> Path:
    """The kit's ``tdbg.ld`` for ``core``: the kit's own file for T0, else a copy with the core's
    code base, kept in the cache."""
    if core not in CODE_BASES:
        raise ToolchainError(f"the firmware kit has no code base for core {core!r} ({', '.join(KIT_CORES)})")
    script = firmware_dir() / "tdbg.ld"
    if core == "T0":
        return script
    text = script.read_text()
    if _BASE_LINE not in text:
        raise ToolchainError(f"{script} does not set {_BASE_LINE!r}")
    derived = cache_dir() / "ld" / f"tdbg-{core}.ld"
    text = text.replace(_BASE_LINE, f"__tdbg_code_base = {CODE_BASES[core]:#x};")
    if not derived.is_file() or derived.read_text() != text:
        derived.parent.mkdir(parents=True, exist_ok=True)
        derived.write_text(text)
    return derived


def compile_command(source: Path, output: Path, extra_flags: Sequence[str] = (), core: str = "T0") -> list[str]:
    """The full compiler command line for ``source`` -> ``output`` as firmware of ``core``;
    ``extra_flags`` come after tdbg's own, so they win (``-O2``, ``-DNAME=1``)."""
    cxx = Path(source).suffix in CXX_SUFFIXES
    return [
        sys.executable, "-m", "ziglang", "c++" if cxx else "cc",
        *CFLAGS,
        *(CXXFLAGS if cxx else ()),
        *extra_flags,
        *kit_flags(core),
        str(Path(source).resolve()),
        "-o", str(output),
    ]


def kit_flags(core: str = "T0") -> list[str]:
    """The linker script (``core``'s: where its code goes in L1), the include directory and the
    start-up code every build adds."""
    fw = firmware_dir()
    return ["-T", str(linker_script(core)), "-I", str(fw), str(fw / "crt0.S")]


@cache
def zig_version() -> str:
    """The installed ``ziglang`` distribution's version: the name of its ``.dist-info`` folder
    beside the package when there is one (no ``importlib.metadata`` import, a few milliseconds
    of every start), else from the package metadata."""
    spec = util.find_spec("ziglang")
    if spec is not None and spec.origin:
        found = sorted(Path(spec.origin).parent.parent.glob("ziglang-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len("ziglang-"):-len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version("ziglang")
    except metadata.PackageNotFoundError:  # pragma: no cover - zig missing
        return "unknown"


def _inputs_digest(source: Path, extra_flags: Sequence[str], core: str) -> str:
    """Digest of what names the cache folder: the flags, the compiler, the core, the source's
    path and content and the kit (the other headers are in the folder's manifest)."""
    h = hashlib.sha256()
    cxx = CXXFLAGS if source.suffix in CXX_SUFFIXES else ()
    h.update("\0".join((*CFLAGS, *cxx, *extra_flags, "zig=" + zig_version(), "core=" + core, str(source))).encode())
    for path in [source, *_support_files()]:
        h.update(b"\0file\0" + path.name.encode() + b"\0" + _file_digest(path).encode())
    return h.hexdigest()


def _file_digest(path: Path) -> str:
    """SHA-256 of a regular file's bytes; a marker for anything else (never read: a FIFO or a
    device would block or never end)."""
    try:
        if not path.is_file():
            return "<not a regular file>"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "<unreadable>"


def _dependencies(source: Path, extra_flags: Sequence[str]) -> list[Path]:
    """Every file the preprocessor reads for ``source`` with these flags (its ``-MD`` list);
    an include that is not a regular file is a ``ToolchainError``."""
    import subprocess   # here and in ``ensure_built``: only a build runs the compiler
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tdbg-deps-") as tmp:
        depfile = Path(tmp) / "deps.d"
        cmd = [sys.executable, "-m", "ziglang", "cc", *CFLAGS, *extra_flags, "-I", str(firmware_dir()), str(source),
               "-E", "-o", os.devnull, "-MD", "-MF", str(depfile)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=DEPENDENCY_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolchainError(f"could not list the files {source.name} includes: {exc}") from exc
        if proc.returncode != 0 or not depfile.is_file():
            detail = (proc.stderr or proc.stdout).strip()
            raise ToolchainError(f"building {source.name} failed (exit {proc.returncode}):\n{detail}")
        text = depfile.read_text()
    _, _, listed = text.replace("\\\n", " ").partition(": ")
    deps = [Path(os.path.abspath(d.replace("\\ ", " "))) for d in re.split(r"(?<!\\)\s+", listed.strip()) if d]
    for dep in deps:
        if not dep.is_file():
            raise ToolchainError(f"{source.name} includes {dep}, which is not a regular file")
    return deps


def _cached(elf: Path, manifest: Path) -> bool:
    """True when ``elf`` and every input its manifest lists still have the recorded digests."""
    try:
        recorded = json.loads(manifest.read_text())
        return (_file_digest(elf) == recorded["elf"]
                and all(_file_digest(Path(p)) == d for p, d in recorded["inputs"].items()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _check_executable(path: Path, source: Path) -> None:
    """The build made a linked RV32 executable (not, with ``-c`` among the flags, an object)."""
    with open(path, "rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF" or int.from_bytes(header[16:18], "little") != 2:   # e_type ET_EXEC
        kind = "a relocatable object (ET_REL)" if header[:4] == b"\x7fELF" else "not an ELF file"
        raise ToolchainError(f"building {source.name} made {kind}, not linked firmware (is -c among the flags?)")


def _runtime_marker() -> Path:
    """Present once a build with this zig and these target flags has succeeded: zig has then
    built its compiler-rt for the target (into zig's own cache), which the first build does
    silently for several seconds."""
    key = hashlib.sha256("\0".join((*CFLAGS, zig_version())).encode()).hexdigest()[:16]
    return cache_dir() / f"runtime-{key}"


def ensure_built(source: Path, extra_flags: Sequence[str] = (), force: bool = False, core: str = "T0") -> BuildResult:
    """Build ``source`` as ``core``'s firmware unless the cache holds its ELF; say which happened."""
    source = Path(source).resolve()
    if not source.is_file():
        raise ToolchainError(f"firmware source {'is not a regular file' if source.exists() else 'not found'}: {source}")
    for support in _support_files():
        if not support.is_file():
            raise ToolchainError(f"missing firmware support file: {support}")

    folder = cache_dir() / _inputs_digest(source, extra_flags, core)[:24]
    elf, manifest = folder / f"{source.stem}.elf", folder / MANIFEST
    if not force and _cached(elf, manifest):
        return BuildResult(elf, False, tuple(compile_command(source, elf, extra_flags, core)))

    import subprocess
    import tempfile

    inputs = _dependencies(source, extra_flags)
    folder.mkdir(parents=True, exist_ok=True)
    marker = _runtime_marker()
    if not marker.exists():
        print("tdbg: first build: building the C runtime (zig's compiler-rt for RV32IM); "
              "this takes a few seconds, once", file=sys.stderr, flush=True)
    # Compile to a private name and rename, so concurrent builds never see a
    # half-written ELF; the manifest goes last (an entry without it is not used).
    fd, tmp_name = tempfile.mkstemp(prefix=f".{source.stem}.", suffix=".elf.tmp", dir=folder)
    os.close(fd)
    tmp = Path(tmp_name)
    cmd = compile_command(source, tmp, extra_flags, core)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip()
            raise ToolchainError(f"building {source.name} failed (exit {proc.returncode}):\n{detail}")
        _check_executable(tmp, source)
    except (OSError, subprocess.TimeoutExpired) as exc:
        tmp.unlink(missing_ok=True)
        raise ToolchainError(f"could not run the compiler for {source.name}: {exc}") from exc
    except ToolchainError:
        tmp.unlink(missing_ok=True)
        raise
    record = {"elf": _file_digest(tmp), "inputs": {str(p): _file_digest(p) for p in [*inputs, *_support_files()]}}
    manifest.unlink(missing_ok=True)
    os.replace(tmp, elf)
    fd, tmp_name = tempfile.mkstemp(prefix=".inputs.", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(record, f)
    os.replace(tmp_name, manifest)
    marker.touch()
    return BuildResult(elf, True, tuple(compile_command(source, elf, extra_flags, core)))


def build(source: Path, extra_flags: Sequence[str] = (), core: str = "T0") -> Path:
    """Build ``source`` (cached) as ``core``'s firmware and return the ELF's path.

    Raises ToolchainError with the compiler's stderr if compilation fails.
    """
    return ensure_built(source, extra_flags, core=core).elf
