"""Build tdbg firmware: one C file + ``firmware/crt0.S`` + ``firmware/tdbg.ld`` -> ELF.

The compiler is the pip-installed zig (``python -m ziglang cc``) targeting the
baby RISC-V T cores: RV32IM, no C extension
(tt-isa-documentation/WormholeB0/TensixTile/BabyRISCV/PushTensixInstruction.md:
the compressed encoding space holds ``.ttinsn`` words instead).

``riscv32-freestanding-none`` links no libc and no start files, but zig still
links its compiler-rt, which provides the soft-float helpers (``__addsf3`` ...)
that ``float`` arithmetic needs; ``-nostdlib`` would drop compiler-rt as well.

Builds are cached: the ELF is rebuilt only when the C source, a header next to
it, ``tensix.h``, ``crt0.S``, the linker script, the compiler flags or the zig
version changed. A digest of those inputs is stored beside the ELF.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import tdbg

__all__ = [
    "CFLAGS",
    "BuildResult",
    "ToolchainError",
    "build",
    "build_all",
    "compile_command",
    "demo_source",
    "ensure_built",
    "firmware_dir",
    "firmware_sources",
    "output_path",
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

#: Seconds to wait for one compile (the first one also builds compiler-rt).
COMPILE_TIMEOUT = 600

HASH_SUFFIX = ".inputs.sha256"
USER_CACHE_DIR = ".tdbg-build"


class ToolchainError(Exception):
    """The firmware could not be built; the message includes the compiler's stderr."""


@dataclass(frozen=True)
class BuildResult:
    elf: Path
    rebuilt: bool
    command: tuple[str, ...]


def firmware_dir() -> Path:
    """The repository's ``firmware/`` directory (tdbg is installed editable)."""
    return Path(tdbg.__file__).resolve().parents[1] / "firmware"


def demo_source() -> Path:
    """The demo firmware a new user steps through in the shell."""
    return firmware_dir() / "demo.c"


def firmware_sources() -> list[Path]:
    """Every ``firmware/*.c``, sorted by name."""
    return sorted(firmware_dir().glob("*.c"))


def _support_files() -> list[Path]:
    fw = firmware_dir()
    return [fw / "crt0.S", fw / "tdbg.ld", fw / "tensix.h"]


def output_path(source: Path, out_dir: Path | None = None) -> Path:
    """Where the ELF for ``source`` goes.

    ``firmware/build/<stem>.elf`` for sources in ``firmware/``, otherwise
    ``.tdbg-build/<stem>.elf`` next to the source, unless ``out_dir`` is given.
    """
    source = Path(source).resolve()
    if out_dir is None:
        fw = firmware_dir().resolve()
        out_dir = fw / "build" if source.parent == fw else source.parent / USER_CACHE_DIR
    return Path(out_dir) / f"{source.stem}.elf"


def compile_command(source: Path, output: Path) -> list[str]:
    """The full compiler command line for ``source`` -> ``output``."""
    fw = firmware_dir()
    return [
        sys.executable, "-m", "ziglang", "cc",
        *CFLAGS,
        "-T", str(fw / "tdbg.ld"),
        "-I", str(fw),
        str(fw / "crt0.S"),
        str(Path(source).resolve()),
        "-o", str(output),
    ]


def _zig_version() -> str:
    try:
        return metadata.version("ziglang")
    except metadata.PackageNotFoundError:  # pragma: no cover - zig missing
        return "unknown"


def _inputs_digest(source: Path) -> str:
    """Digest of everything that decides the ELF's contents."""
    h = hashlib.sha256()
    h.update(("\0".join(CFLAGS) + "\0zig=" + _zig_version()).encode())
    headers = sorted(p for p in source.parent.glob("*.h"))
    for path in [source, *_support_files(), *headers]:
        h.update(b"\0file\0" + path.name.encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except FileNotFoundError:
            h.update(b"<missing>")
    return h.hexdigest()


def ensure_built(source: Path, out_dir: Path | None = None, force: bool = False) -> BuildResult:
    """Build ``source`` unless an up-to-date ELF is cached; say which happened."""
    source = Path(source).resolve()
    if not source.is_file():
        raise ToolchainError(f"firmware source not found: {source}")
    for support in _support_files():
        if not support.is_file():
            raise ToolchainError(f"missing firmware support file: {support}")

    elf = output_path(source, out_dir)
    stamp = elf.with_name(elf.name + HASH_SUFFIX)
    digest = _inputs_digest(source)
    if not force and elf.is_file() and stamp.is_file() and stamp.read_text().strip() == digest:
        return BuildResult(elf, False, tuple(compile_command(source, elf)))

    elf.parent.mkdir(parents=True, exist_ok=True)
    # Compile to a private name and rename, so concurrent builds never see a
    # half-written ELF.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{source.stem}.", suffix=".elf.tmp", dir=elf.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    cmd = compile_command(source, tmp)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        tmp.unlink(missing_ok=True)
        raise ToolchainError(f"could not run the compiler for {source.name}: {exc}") from exc
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        detail = (proc.stderr or proc.stdout).strip()
        raise ToolchainError(
            f"building {source.name} failed (exit {proc.returncode}):\n{detail}"
        )
    os.replace(tmp, elf)
    stamp.write_text(digest + "\n")
    return BuildResult(elf, True, tuple(compile_command(source, elf)))


def build(source: Path, out_dir: Path | None = None) -> Path:
    """Build ``source`` (cached) and return the ELF's path.

    Raises ToolchainError with the compiler's stderr if compilation fails.
    """
    return ensure_built(source, out_dir).elf


def build_all(force: bool = False) -> list[BuildResult]:
    """Build every ``firmware/*.c``."""
    return [ensure_built(src, force=force) for src in firmware_sources()]
