"""A stand-in for SFPI's ``riscv-tt-elf-g++`` for machines without it: tt-metal's JIT build on the bundled zig.

tt-metal 0.81.1 looks for its compiler at ``<ttnn>/runtime/sfpi/compiler/bin/riscv-tt-elf-g++``
(else ``/opt/tenstorrent/sfpi``; strings of the wheel's ``libtt_metal.so``: ``runtime/sfpi``,
``/compiler/bin/riscv-tt-elf-g++``, "sfpi not found at {} or {}"); ttnn's ``download_sfpi.py``
unpacks SFPI's release there.  It runs that one program for everything (measured, every call
logged): ``--version`` (a probe whose text goes into the firmware build key), ``-x c++-header``
(its precompiled header), ``-c`` compiles of the firmware (``-DFW_BUILD``) and of each kernel, and
links (``-T <ld> ... -o <elf>``).  This module maps those lines onto zig's clang and lld with the
flags ``tdbg.ttmetal.kit`` uses (there measured byte-identical to what tt-metal loads):

- GCC-only flags dropped (``-ftt-*``, ``--param``, ``-mcpu=tt-*``, GCC warnings), C++17 given as
  C++20 (SFPI's ``-ftt-nttp/-constinit/-consteval``), tdbg's shims (``.ttinsn``, ``sfpi.h``);
- the wheel's ``noc.o``/``substitutes.o`` (GCC LTO bytecode) rebuilt from their sources;
- firmware compiled and linked with LTO at ``-Oz`` as SFPI GCC links it with ``-flto`` (BRISC's
  firmware otherwise overflows its slot);
- a firmware link whose defines are those of the wheel's pre-compiled set ``kit.FIRMWARE`` is
  answered with that set's ELF (the firmware tdbg boots and ttsim runs);
- SFPI vector code refused in one line naming the kernel and the line.

``install(ttnn_dir)`` writes the wrapper; ``TDBG_STANDIN_LOG=FILE`` appends every call's line.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from tdbg.toolchain import elfpatch
from tdbg.toolchain.zig import cache_dir
from tdbg.ttmetal import kit

__all__ = ["COMPILER", "StandinError", "install", "main"]

#: where tt-metal 0.81.1 looks for SFPI's compiler, under the ttnn package folder
COMPILER = Path("runtime/sfpi/compiler/bin/riscv-tt-elf-g++")
#: flags of tt-metal's lines the stand-in drops (by prefix): GCC's own (SFPI's ``-ftt-*``, GCC's LTO
#: partitioning, ``--param``, ``-fno-tree-*``, SFPI's ``-mcpu``/``-march`` names) and the warnings
#: (clang runs with ``-w``; ``-Wl,`` linker options are kept)
_DROPPED_PREFIXES = ("-ftt-", "-flto", "-fno-lto", "--param", "-mcpu=", "-march=", "-fno-tree-", "-W")
_DROPPED = {"-fno-use-cxa-atexit"}
TIMEOUT = 900


class StandinError(Exception):
    """A line the stand-in does not map, or a build that failed; one line for tt-metal's log."""


class NeedsSfpi(StandinError):
    """The code uses SFPI's vector extension, which only SFPI's compiler builds."""


def install(ttnn_dir: Path) -> Path:
    """Write the wrapper at ``ttnn_dir / COMPILER`` (``ttnn_dir``: the installed ``ttnn``
    package folder, the one holding ``tt_metal/`` and ``runtime/``); returns its path."""
    if not (ttnn_dir / "tt_metal" / "hw").is_dir() or not (ttnn_dir / "runtime").is_dir():
        raise StandinError(f"{ttnn_dir} is not an installed ttnn package (no tt_metal/hw, runtime/)")
    wrapper = ttnn_dir / COMPILER
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    package_root = Path(__file__).resolve().parents[2]
    staged = wrapper.with_name(f".{wrapper.name}.{os.getpid()}")     # replaced whole: a running build never reads half
    staged.write_text("#!/bin/sh\n# tdbg's stand-in for SFPI's riscv-tt-elf-g++ (tdbg toolchain sfpi-standin)\n"
                       f"PYTHONPATH={shlex.quote(str(package_root))} "
                       f"TDBG_SFPI_STANDIN_TTNN={shlex.quote(str(ttnn_dir.resolve()))} exec {shlex.quote(sys.executable)} "
                       '-m tdbg.toolchain.sfpi_standin "$@"\n')
    staged.chmod(0o755)
    os.replace(staged, wrapper)
    return wrapper


def main(argv: Sequence[str]) -> int:
    log = os.environ.get("TDBG_STANDIN_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getcwd()}: {shlex.join(argv)}\n")
    try:
        if list(argv) == ["--version"]:
            print(version())
        elif "-x" in argv and argv[argv.index("-x") + 1:][:1] == ["c++-header"]:
            _precompiled_header(argv)
        elif "-c" in argv:
            _compile(argv)
        else:
            _link(argv)
    except StandinError as exc:
        print(f"tdbg sfpi-standin: {exc}", file=sys.stderr)
        return 1
    return 0


def version() -> str:
    """The probe's answer: what this is (it enters tt-metal's firmware build key)."""
    return (f"riscv-tt-elf-g++ (tdbg SFPI stand-in: zig {metadata.version('ziglang')} clang, "
            f"{kit.ISA}) tdbg {metadata.version('tdbg') if _has_dist('tdbg') else 'checkout'}")


def _has_dist(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def _out(argv: Sequence[str]) -> Path:
    if "-o" not in argv or argv.index("-o") + 1 >= len(argv):
        raise StandinError(f"no -o in {shlex.join(argv)[:200]}")
    return Path(argv[argv.index("-o") + 1])


def _precompiled_header(argv: Sequence[str]) -> None:
    """GCC's ``.gch`` is of no use to clang: an empty one, which clang never reads (the compiles
    name no ``-include`` of it)."""
    _out(argv).write_bytes(b"")


def _compile(argv: Sequence[str]) -> None:
    firmware = "-DFW_BUILD" in argv
    obj = _out(argv)
    defines = [a[2:] for a in argv if a.startswith("-D")]
    obj.with_name(obj.name + ".defines").write_text("\n".join(defines) + "\n")
    if firmware and _is_precompiled_set(defines):
        # answered at the link with the wheel's ELF: no object to build (an empty one, and its
        # dependency list naming the source, for tt-metal's cache)
        obj.write_bytes(b"")
        _precompiled_marker(obj).write_text(kit.FIRMWARE + "\n")
        if "-MF" in argv:
            source = next(a for a in reversed(argv) if a.endswith((".cc", ".cpp", ".c")))
            Path(argv[argv.index("-MF") + 1]).write_text(f"{obj}: {source}\n")
        return
    debug_print = "-DDEBUG_PRINT_ENABLED" in argv
    args: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in _DROPPED or (a.startswith(_DROPPED_PREFIXES) and not a.startswith("-Wl,")):
            continue
        if a.startswith("-std="):
            a = kit.DEBUG_PRINT_STD if debug_print else "-std=c++20"
        if firmware and a in ("-Os", "-O2", "-O3"):
            a = "-Oz"
        args.append(a)
    shim = kit.shim_dir()
    flags = ["-target", "riscv32-linux-musl", f"-mcpu={kit.ISA}", "-fno-jump-tables", *kit.CLANG_ONLY,
             "-include", str(shim / "ttinsn.h"), f"-I{shim}",
             *(["-flto", *_STANDARD_HEADERS, "-include", str(shim / "word_aligned_tables.h")] if firmware else [])]
    try:
        _zig("c++", [*flags, *args], _what(argv))
    except NeedsSfpi as first:
        if firmware:
            raise
        refusal = first
        # SFPU code in headers the kernel includes but does not run (ttnn's reduce kernel): read
        # against SFPI's interface declared without bodies (shim/sfpi_declarations.h), template
        # bodies only where instantiated; code the kernel does run fails at its link.
        try:
            _zig("c++", [*flags, "-DTDBG_SFPI_DECLARATIONS", "-fdelayed-template-parsing", *args], _what(argv))
        except NeedsSfpi:
            raise
        except StandinError as again:
            # what still does not build against the declared interface is SFPU code put to use
            raise _sfpi_at(str(again), _what(argv)) or refusal from None


#: the firmware compiles get the standard headers tt-metal's precompiled header gives every kernel
#: (``kit.PCH_HEADERS``): GCC's libstdc++ brings ``std::max`` in through the headers the firmware
#: includes, clang's libc++ does not (DPRINT's device_print.h, measured)
_STANDARD_HEADERS = tuple(f for h in kit.PCH_HEADERS for f in ("-include", h))


def _is_precompiled_set(defines: list[str]) -> bool:
    """The device's defines are those the wheel's pre-compiled firmware ``kit.FIRMWARE`` was built
    with (the 140-core descriptor's: ``kit.DEVICE_DEFINES``, the same dispatch message address)."""
    return (defines[:len(kit.DEVICE_DEFINES)] == list(kit.DEVICE_DEFINES)
            and kit.DISPATCH_MESSAGE_ADDR in defines)


def _precompiled_marker(obj: Path) -> Path:
    return obj.with_name(obj.name + ".precompiled")


def _defines_of(obj: Path) -> str:
    sidecar = obj.with_name(obj.name + ".defines")
    return sidecar.read_text() if sidecar.is_file() else ""


def _answer_with_precompiled(objects: list[Path], out: Path) -> None:
    """The firmware ELF of the wheel's pre-compiled set, for the processor tt-metal builds in
    ``.../firmware/<name>/``."""
    name = out.parent.name
    elf = _ttnn_dir() / "tt_metal" / "pre-compiled" / kit.FIRMWARE / name / f"{name}.elf"
    if not elf.is_file():
        raise StandinError(f"the wheel's pre-compiled firmware {kit.FIRMWARE} has no {name}")
    shutil.copyfile(elf, out)


def _what(argv: Sequence[str]) -> str:
    """The kernel (or firmware) a line builds, as tt-metal names it."""
    for a in argv:
        m = re.match(r'-DFULL_KERNEL_NAME="?([^"]*)"?', a)
        if m:
            return m.group(1).split("/")[0]
    sources = [a for a in argv if a.endswith((".cc", ".cpp", ".c"))]
    return Path(sources[-1]).name if sources else "the build"


def _link(argv: Sequence[str]) -> None:
    """``g++ [flags] -Wl,... -T<ld> <objects> -o <elf>`` as ``ld.lld``: the ``-Wl,`` options and
    the script as given, the wheel's GCC LTO objects rebuilt from source, tdbg's libc shim."""
    out = _out(argv)
    script = next((a[2:] or argv[i + 1] for i, a in enumerate(argv) if a.startswith("-T")), None)
    if script is None:
        raise StandinError(f"a link without -T: {shlex.join(argv)[:300]}")
    firmware = Path(script).name.startswith("firmware_")
    objects = [Path(a) for a in argv if a.endswith(".o")]
    main_objects = [o for o in objects if o.parent.name != "blackhole" or o.parent.parent.name != "lib"]
    if firmware and all(_precompiled_marker(o).is_file() for o in main_objects):
        _answer_with_precompiled(main_objects, out)
        return
    options: list[str] = []
    for a in argv:
        if a.startswith("-Wl,"):
            options += a[4:].split(",")
    inputs = [str(_rebuilt(o, firmware)) if o.name in _WHEEL_LTO else str(o) for o in objects]
    inputs += [str(_shim_object("libc.c")), str(_shim_archive("memmove.c"))]
    if any("DEBUG_PRINT" in _defines_of(o) for o in main_objects):
        inputs.append(str(_shim_object("atomic.c")))
    lto = ["--lto-O2"] if firmware else []
    _zig("ld.lld", [*options, *lto, "-T", script, *inputs, "-o", str(out)], _kernel_of(out))
    elfpatch.drop_null_relocations(out)


#: the wheel's objects that are GCC LTO bytecode, and their sources (tdbg.ttmetal.kit's)
_WHEEL_LTO = {"noc.o": kit.LIBS["noc"], "substitutes.o": kit.LIBS["substitutes"]}


def _kernel_of(elf: Path) -> str:
    """The kernel an ELF is for, from tt-metal's JIT output path (``kernels/<name>/<hash>/<proc>/``)."""
    parts = elf.resolve().parts
    return parts[-4] if len(parts) >= 5 and parts[-5] == "kernels" else elf.name.split(".")[0]


def _ttnn_dir() -> Path:
    """The ttnn package folder this wrapper is installed in (``install`` passes it)."""
    given = os.environ.get("TDBG_SFPI_STANDIN_TTNN")
    if not given:
        raise StandinError("TDBG_SFPI_STANDIN_TTNN is not set (run the wrapper `tdbg toolchain sfpi-standin` wrote)")
    return Path(given)


def _rebuilt(wheel_object: Path, firmware: bool) -> Path:
    """``noc.o``/``substitutes.o`` compiled from the wheel's sources with the kit's flags (LTO at
    ``-Oz`` for firmware), cached by the source's digest and the flags."""
    ttnn_dir = _ttnn_dir()
    source = ttnn_dir / _WHEEL_LTO[wheel_object.name]
    flags = ["-target", "riscv32-linux-musl", f"-mcpu={kit.ISA}", *(["-Oz", "-flto"] if firmware else ["-O2"]),
             *kit.CXXFLAGS, "-x", "c++", *(f"-I{ttnn_dir / i}" for i in kit.LIB_INCLUDES), f"-I{kit.shim_dir()}",
             *kit.CLANG_ONLY, "-DARCH_BLACKHOLE", "-DTENSIX_FIRMWARE", "-c", str(source)]
    return _cached(wheel_object.stem, flags, [source], "c++")


def _shim_object(name: str) -> Path:
    """tdbg's C library shim, its functions leaves without a stack frame: the watcher's
    ``mark_stack_usage`` paints the free stack below ``sp``, a loop clang turns into a call to
    ``memset``, whose own frame would be painted over (measured: its return address read
    0xbabababa, TT_METAL_WATCHER=1 on ttsim).  Newlib's memset, which SFPI's GCC links, has none."""
    source = kit.shim_dir() / name
    flags = ["-target", "riscv32-freestanding-none", f"-mcpu={kit.ISA}", "-O2", "-ffreestanding", "-fno-builtin",
             "-fomit-frame-pointer", "-c", str(source)]
    return _cached(Path(name).stem, flags, [source], "cc")


def _shim_archive(name: str) -> Path:
    """A shim object in an archive: the linker takes it only where something calls it."""
    obj = _shim_object(name)
    archive = obj.with_suffix(".a")
    if not archive.is_file():
        with tempfile.TemporaryDirectory(dir=archive.parent) as tmp:
            made = Path(tmp) / archive.name
            _zig("ar", ["rcs", str(made), str(obj)], name)
            os.replace(made, archive)
    return archive


def _cached(stem: str, flags: list[str], sources: list[Path], mode: str) -> Path:
    h = hashlib.sha256("\0".join([*flags, metadata.version("ziglang")]).encode())
    for source in sources:
        h.update(source.read_bytes())
    obj = cache_dir() / "sfpi-standin" / f"{stem}-{h.hexdigest()[:16]}.o"
    if not obj.is_file():
        obj.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=obj.parent) as tmp:
            made = Path(tmp) / obj.name
            _zig(mode, [*flags, "-o", str(made)], f"{sources[0].name}")
            os.replace(made, obj)
    return obj


#: what an error names when the kernel uses SFPI's vector extension (kit's list)
#: lld's ">>> referenced by ckernel_sfpu_relu.h:54 (/path/ckernel_sfpu_relu.h:54)"
_REFERENCED_AT = re.compile(r">>> referenced by \S+ \((?P<at>[^)]+:\d+)\)")
_ERROR_AT = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):\d+: error: (?P<what>.*)$")


def _sfpi_at(errors: str, what: str) -> NeedsSfpi | None:
    """The refusal naming the first error's line in ``errors`` (a compile's), if it names one."""
    for line in errors.splitlines():
        m = _ERROR_AT.match(line.strip())
        if m:
            return NeedsSfpi(f"{what}: {m['file']}:{m['line']} uses SFPI vector code ({m['what'][:60]}), which needs "
                             "SFPI's compiler (this is tdbg's stand-in for machines without it)")
    return None


def _sfpi_references(lines: list[str]) -> list[tuple[str, str]]:
    """(symbol, file:line) of each reference lld names to an SFPI declaration without a body."""
    uses, symbol = [], None
    for line in lines:
        if "undefined symbol: " in line:
            name = line.split("undefined symbol: ", 1)[1]
            symbol = name if name.startswith(("sfpi::", "__builtin_rvtt")) or "sfpi::" in name.split("(")[0] else None
        elif symbol and (m := _REFERENCED_AT.search(line)):
            uses.append((symbol[:60], m["at"]))
    return uses


def _zig(mode: str, args: Sequence[str], what: str) -> None:
    try:
        done = subprocess.run([sys.executable, "-m", "ziglang", mode, *args], capture_output=True, text=True,
                              timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StandinError(f"could not run zig for {what}: {exc}") from exc
    if done.returncode == 0:
        return
    lines = done.stderr.splitlines()
    uses = _sfpi_references(lines)
    if uses:
        # the line of an SFPU header if one is named (an inlined use may carry its caller's line)
        symbol, where = next((u for u in uses if "sfpu" in Path(u[1]).name), uses[0])
        raise NeedsSfpi(f"{what}: {where} uses SFPI vector code ({symbol}), which needs SFPI's compiler "
                        "(this is tdbg's stand-in for machines without it)")
    for line in lines:
        m = _ERROR_AT.match(line)
        sfpi = kit.SFPI_CODE.search(line)
        if m and sfpi:
            raise NeedsSfpi(f"{what}: {m['file']}:{m['line']} uses SFPI vector code ({sfpi.group(1)}), "
                               "which needs SFPI's compiler (this is tdbg's stand-in for machines without it)")
    errors = [line for line in lines if "error" in line] or lines
    raise StandinError(f"building {what} failed:\n" + "\n".join(errors[:12]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
