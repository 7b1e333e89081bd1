"""Build tt-llk's own test kernels (``tests/sources/*.cpp`` of the ttnn wheel) with the bundled zig.

A tt-llk test is one C++ source compiled three times with ``tests/helpers/src/trisc.cpp``, once
per TRISC (``-DCOMPILE_FOR_TRISC=0|1|2 -DLLK_TRISC_UNPACK|MATH|PACK``), against the variant's
``build.h``, and linked with ``tests/helpers/ld/memory.blackhole.ld``, ``{unpack,math,pack}.ld``
and ``sections.ld``.  ``Variant`` writes that ``build.h`` as tt-llk's harness does
(``tests/python_tests/helpers/test_config.py`` ``generate_build_header``, runtime formats) and the
``RuntimeParams`` blob the host writes at ``0x20000`` (``write_runtimes_to_L1``).

tt-llk is built by SFPI GCC; stock clang needs small shims (``tdbg/toolchain/shim``, tdbg's own
code): ``.ttinsn`` as an assembler macro, SFPI's ``lltt.h`` and a few ``sfpi.h`` constants,
newlib's ``<sys/_stdint.h>``, ``memset``/``memcpy``, a start stub (clang rejects C++ in the naked
``_start``, so it becomes ``_start_c``), and the three host-only sections of ``sections.ld``
(``.device_print_strings``, ``.device_print_strings_info``, ``.profiler_meta``) marked ``(INFO)``
(not allocated) for ld.lld, in a copy of the scripts joined into one (zig takes one ``-T``).
Kernels that use SFPI's vector types (most SFPU tests) cannot be built this way.

The ISA is the Blackhole cores' as far as LLVM can express it: ``generic_rv32+m+zaamo+zba+zbb``
(SFPI GCC's ``-mcpu=tt-bh`` adds ``xttzbkb``, of which the cores have only ``pack`` and ``brev8``:
LLVM's ``zbkb`` would also emit ``packh``/``zip``/``unzip``).  ``RV32IM`` builds the same kernel
without Zb* (for comparisons).  ELFs go to the ttnn cache (``ttnn.cache_root()/builds``), keyed by
everything that decides them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

from tdbg.arch import data_formats
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.arch.data_formats import TT_METAL_FORMATS
from tdbg.toolchain.zig import ToolchainError
from tdbg.toolchain import ttnn

__all__ = ["BLACKHOLE_ISA", "RV32IM", "TRISCS", "Field", "Formats", "KernelBuildError", "Operand", "Variant",
           "build", "shim_dir", "tile_bytes"]

BLACKHOLE_ISA = BLACKHOLE.llvm_cpu
RV32IM = "generic_rv32+m"
#: core -> (tt-llk's kernel part, COMPILE_FOR_TRISC)
TRISCS = {"T0": ("unpack", 0), "T1": ("math", 1), "T2": ("pack", 2)}
#: tt-llk's test_config.py flags for a Blackhole run on a simulator (``TT_METAL_TTSIM``), less the
#: SFPI-GCC-only ``-ftt-*`` and ``-mno-tt-fix-whbhebreak``.
CXXFLAGS = ("-O3", "-g", "-std=c++17", "-ffast-math", "-fno-finite-math-only", "-fsigned-zeros",
            "-fno-associative-math", "-fno-exceptions", "-fno-rtti", "-fno-use-cxa-atexit", "-w")
DEFINES = ("TENSIX_FIRMWARE", "ENV_LLK_INFRA", "KERNEL_BUILD", "ENABLE_LLK_ASSERT", "ARCH_BLACKHOLE",
           "LLK_BOOT_MODE_BRISC", "TT_METAL_TTSIM", "LLK_PERF_L1_MUX_GROUP=0",
           "naked=", "_start=_start_c")
#: test_config.py INCLUDES (relative to tt-llk's ``tests``) for Blackhole.
INCLUDES = ("../tt_llk_blackhole/llk_lib", "../tt_llk_blackhole/llk_lib/hal", "../tt_llk_blackhole/common/inc",
            "../tt_llk_blackhole/common/inc/sfpu", "../common", "../tools/include", "../../hw/inc",
            "firmware/riscv/common", "helpers/include", "../../hostdevcommon/api",
            "../../hw/inc/internal/tt-1xx/blackhole", "../../hw/ckernels/blackhole/metal/llk_api",
            "../../hw/ckernels/blackhole/metal/llk_api/llk_sfpu", "../../../ttnn/cpp/ttnn/operations/experimental")
HOST_ONLY_SECTIONS = (".device_print_strings", ".device_print_strings_info", ".profiler_meta")
COMPILE_TIMEOUT = 900

#: tt-llk's DataFormat codes on Blackhole, by name (``tdbg.arch.data_formats.TT_METAL_FORMATS``).
DATA_FORMAT = {name: f.code for name, f in TT_METAL_FORMATS.items()}
_EXPONENT_B = {"Float16_b", "Bfp8_b", "Bfp4_b", "Bfp2_b", "Tf32", "Float32"}


class KernelBuildError(ToolchainError):
    """A tt-llk kernel did not build; the message holds the compiler's first errors."""


def tile_bytes(fmt: str) -> int:
    """Bytes of one 32x32 tile of tt-llk's format ``fmt`` in L1 (BFP: 64 shared exponents, then
    the datums)."""
    return data_formats.tile_bytes(TT_METAL_FORMATS[fmt].layout)


@dataclass(frozen=True)
class Formats:
    """tt-llk's ``FormatConfig``: the 13 data formats of one L1-to-L1 run, in its field order."""

    unpack_A_src: str
    unpack_B_src: str
    unpack_S_src: str
    unpack_A_dst: str
    unpack_B_dst: str
    unpack_S_dst: str
    math: str
    sfpu_src: str
    sfpu_dst: str
    pack_src: str
    pack_dst: str
    pack_S_src: str
    pack_S_dst: str

    @classmethod
    def infer(cls, input_format: str, output_format: str, dest_acc: bool, input_b: str | None = None) -> Formats:
        """What tt-llk's harness infers for a Blackhole run (``data_format_inference.py``
        ``infer_data_formats``), for the float and BFP formats: Float32 in L1 is unpacked as TF32
        with a 32-bit ``Dst``, else as a 16-bit format of its exponent family; the packer's input
        is the output format with a 32-bit ``Dst``, else the register format (BFP4/BFP2 outputs
        pack from Float32 / Float16_b; an exponent-B input packed to Float16 packs from Float16)."""
        def unpack_out(fmt: str) -> str:
            if fmt in ("Bfp4_b", "Bfp2_b"):
                return fmt
            if fmt == "Float32":
                return "Tf32" if dest_acc else ("Float16_b" if output_format in _EXPONENT_B else "Float16")
            return fmt

        def family(fmt: str) -> str:   # infer_downstream_unpack_out
            return "Bfp8_b" if fmt in ("Bfp4_b", "Bfp2_b") else fmt

        a = unpack_out(input_format)
        b = unpack_out(input_b) if input_b is not None else a
        if (family(a) in _EXPONENT_B) != (family(b) in _EXPONENT_B):
            raise ValueError(f"{input_format} and {input_b} have different exponent widths")
        math = family(a)
        if math == "Float32" and not dest_acc and not (output_format in _EXPONENT_B and output_format != "Float32"):
            pack = math
        elif math == "Float32":
            pack = output_format
        elif math == "Float16" and output_format == "Bfp8_b" and not dest_acc:
            pack = "Bfp8"
        elif math in _EXPONENT_B and math != "Float32" and output_format == "Float16" and not dest_acc:
            pack = output_format      # is_format_combination_outlier: Blackhole's gasket converts
        elif output_format in ("Bfp4_b", "Bfp2_b"):
            pack = "Float32" if dest_acc else "Float16_b"
        else:
            pack = output_format if dest_acc else math
        return cls(input_format, input_b or input_format, input_format, a, b, a, math, math, math,
                   pack, output_format, pack, output_format)

    def codes(self) -> list[int]:
        return [DATA_FORMAT[getattr(self, name)] for name in self.__dataclass_fields__]


@dataclass(frozen=True)
class Field:
    """One ``RuntimeParams`` member after the operands: its C type (``std::uint32_t``, ``int`` or
    ``bool``), name and value."""

    ctype: str
    name: str
    value: int


@dataclass(frozen=True)
class Operand:
    """An L1 buffer (tt-llk's ``operand.h``: base address and bytes per tile)."""

    address: int
    tile_bytes: int
    tiles: int

    @property
    def end(self) -> int:
        return self.address + self.tile_bytes * self.tiles


#: StimuliConfig: the first buffer at STIMULI_L1_ADDRESS_PERF, the others after it.
STIMULI_BASE = 0x21000
RUNTIME_PARAMS = 0x20000     # __runtime_args_start (memory.blackhole.ld RUNTIME_ARGS_START)
_CTYPES = {"std::uint32_t": "<I", "int": "<i", "bool": "<?"}


@dataclass(frozen=True)
class Variant:
    """One tt-llk test source with the parameters tt-llk's harness would give it.

    ``templates`` are the compile-time lines of ``build.h`` (``constexpr ...``); ``runtime`` the
    ``RuntimeParams`` members after the buffers; ``tiles`` the tile counts of A, B and the result
    (laid out from ``STIMULI_BASE`` as the harness's StimuliConfig does; ``None``: the test has no
    buffers), ``extra`` the optional buffers the test reads (``S``, ``T``, ``C``: one tile each, in
    A's format).  ``compile_time_formats``: the formats are ``build.h`` constants instead of
    ``RuntimeParams`` members (the harness's ``compile_time_formats=True``; else
    ``-DRUNTIME_FORMATS``)."""

    source: str
    formats: Formats
    dest_acc: bool = False
    templates: tuple[str, ...] = ()
    runtime: tuple[Field, ...] = ()
    tiles: tuple[int, int, int] | None = (1, 1, 1)
    l1_acc: bool = False
    unpack_to_dest: bool = False
    extra: tuple[str, ...] = ()
    compile_time_formats: bool = False

    @property
    def buffers(self) -> dict[str, Operand]:
        """The buffers where the harness puts them: A, B, then S and T, the result, then C."""
        if self.tiles is None:
            return {}
        size = {"A": tile_bytes(self.formats.unpack_A_src), "B": tile_bytes(self.formats.unpack_B_src),
                "Res": tile_bytes(self.formats.pack_dst)}
        count = {"A": self.tiles[0], "B": self.tiles[1], "Res": self.tiles[2]}
        order = ["A", "B", *(n for n in ("S", "T") if n in self.extra), "Res", *(n for n in ("C",) if n in self.extra)]
        out, address = {}, STIMULI_BASE
        for name in order:
            out[name] = Operand(address, size.get(name, size["A"]), count.get(name, 1))
            address = out[name].end
        return out

    def source_path(self, tree: ttnn.Tree) -> Path:
        """The test source: ``tests/sources/<source>`` of tt-llk, or an absolute path (an
        out-of-tree driver, as the harness's ``test_name`` may be)."""
        return Path(self.source) if os.path.isabs(self.source) else tree.tt_llk / "tests" / "sources" / self.source

    @property
    def defines(self) -> tuple[str, ...]:
        return () if self.compile_time_formats else ("RUNTIME_FORMATS",)

    def tile_sizes(self) -> tuple[int, int, int]:
        """TILE_SIZE_PACK / _UNPACK_A / _UNPACK_B in 16-byte words (test_config.py TILE_SIZES:
        BFP8 68, BFP4 36, Float32 256, anything else 128)."""
        words = {"Bfp8_b": 68, "Bfp4_b": 36, "Float32": 256}
        f = self.formats
        return words.get(f.pack_dst, 128), words.get(f.unpack_A_src, 128), words.get(f.unpack_B_src, 128)

    def build_h(self) -> str:
        """``build.h`` as ``generate_build_header`` writes it."""
        names = tuple(Formats.__dataclass_fields__)
        if self.compile_time_formats:      # FORMATS_CONFIG_STRUCT_COMPILETIME, generate_compile_time_data_formats
            struct_lines = ["// Formats struct", "struct FormatConfig", "{",
                            *(f"    const std::uint32_t {n};" for n in names), "",
                            "    constexpr FormatConfig(" + ", ".join(f"std::uint32_t {n}_" for n in names) + ") :",
                            "        " + ", ".join(f"{n}({n}_)" for n in names), "    {", "    }", "};", ""]
            format_lines = ["// Data formats inferred by Python inference model",
                            "constexpr FormatConfig formats = FormatConfig("
                            + ", ".join(f"ckernel::to_underlying(DataFormat::{getattr(self.formats, n)})" for n in names)
                            + ");"]
        else:                              # FORMATS_CONFIG_STRUCT_RUNTIME
            struct_lines = ["struct FormatConfig", "{", *(f"    std::uint32_t {n} = 0;" for n in names), "};"]
            format_lines = []
        lines = [
            f"// build.h for {self.source}, written by tdbg as tt-llk's",
            "// tests/python_tests/helpers/test_config.py generate_build_header() writes it.",
            "#pragma once", "", "#include <array>", "#include <type_traits>", "",
            '#include "operand.h"', '#include "llk_defs.h"', '#include "llk_sfpu_types.h"', '#include "perf.h"',
            '#include "tensix_types.h"',
            "#define RUNTIME_PARAMETERS  [[maybe_unused]] const struct RuntimeParams&",
            f"constexpr bool l1_acc_en = {_cpp(self.l1_acc)};",
            f"constexpr bool unpack_to_dest = {_cpp(self.unpack_to_dest)};",
            *struct_lines,
            f"constexpr bool is_fp32_dest_acc_en = {_cpp(self.dest_acc)};",
            *self.templates,
            *format_lines,
            "// Struct containing runtime parameter layout", "struct RuntimeParams {",
            "std::uint32_t TILE_SIZE_PACK;", "std::uint32_t TILE_SIZE_UNPACK_A;", "std::uint32_t TILE_SIZE_UNPACK_B;",
            *([] if self.compile_time_formats else ["FormatConfig formats;"]),
            *(f"Operand buffer_{name};" for name in self.buffers),
            *(f"{f.ctype} {f.name};" for f in self.runtime), "};",
        ]
        return "\n".join(lines) + "\n"

    def params(self) -> bytes:
        """The ``RuntimeParams`` blob (``write_runtimes_to_L1``: the struct's fields in order, each
        aligned to its size as the RISC-V ABI lays it out)."""
        out = bytearray(struct.pack("<3I", *self.tile_sizes()))
        if not self.compile_time_formats:
            out += struct.pack("<13I", *self.formats.codes())
        for operand in self.buffers.values():
            out += struct.pack("<2I", operand.address, operand.tile_bytes)
        for f in self.runtime:
            fmt = _CTYPES[f.ctype]
            out += bytes(-len(out) % struct.calcsize(fmt)) + struct.pack(fmt, f.value)
        return bytes(out)


def _cpp(value: bool) -> str:
    return "true" if value else "false"


def shim_dir() -> Path:
    """tdbg's shims (package data ``tdbg/toolchain/shim``)."""
    shim = resources.files("tdbg.toolchain") / "shim"
    if not isinstance(shim, Path):  # pragma: no cover - tdbg imported from a zip archive
        raise ToolchainError(f"tdbg's tt-llk shims are not on the file system: {shim}")
    return shim


def _shim_files() -> list[Path]:
    return sorted(p for p in shim_dir().rglob("*") if p.is_file())


def _key(variant: Variant, isa: str, tree: ttnn.Tree) -> str:
    h = hashlib.sha256()
    parts = (variant.source, variant.build_h(), isa, *CXXFLAGS, *DEFINES, *variant.defines, *INCLUDES,
             str(tree.root), ttnn.VERSION, "zig=" + metadata.version("ziglang"))
    h.update("\0".join(parts).encode())
    for path in _shim_files() + ([Path(variant.source)] if os.path.isabs(variant.source) else []):
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def build(variant: Variant, isa: str = BLACKHOLE_ISA) -> dict[str, Path]:
    """The three ELFs of ``variant`` built at ``isa`` (cached): ``{"T0": unpack.elf, ...}``.

    Raises ``ttnn.TtnnUnavailable`` when the wheel cannot be had, ``KernelBuildError`` when the
    kernel does not compile."""
    tree = ttnn.tree()
    source = variant.source_path(tree)
    if not source.is_file():
        raise KernelBuildError(f"tt-llk has no tests/sources/{variant.source}" if source.parent.name == "sources"
                               else f"no test source {source}")
    out = ttnn.cache_root() / "builds" / f"{source.stem}-{_key(variant, isa, tree)}"
    elfs = {core: out / f"{part}.elf" for core, (part, _) in TRISCS.items()}
    if all(p.is_file() for p in elfs.values()):
        return elfs
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{source.stem}-", dir=out.parent))
    try:
        (work / "build.h").write_text(variant.build_h())
        (work / "params.bin").write_bytes(variant.params())
        common = _objects(work, isa)
        with ThreadPoolExecutor(max_workers=len(TRISCS)) as pool:
            jobs = [pool.submit(_build_part, tree, variant, work, part, trisc, isa, common)
                    for part, trisc in TRISCS.values()]
            for job in jobs:
                job.result()
        shutil.rmtree(out, ignore_errors=True)
        os.replace(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return elfs


def _zig(mode: str, args: Sequence[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run([sys.executable, "-m", "ziglang", mode, *args], cwd=cwd,
                              capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KernelBuildError(f"could not run zig for {what}: {exc}") from exc
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
        raise KernelBuildError(f"building {what} failed:\n" + "\n".join(errors[:12]))


def _objects(work: Path, isa: str) -> list[Path]:
    """The start stub and the C library shim, for every part."""
    shim = shim_dir()
    start, libc = work / "start.o", work / "libc.o"
    base = ("-target", "riscv32-freestanding-none", f"-mcpu={isa}", "-c")
    _zig("cc", (*base, str(shim / "start.S"), "-o", str(start)), work, "the start stub")
    _zig("cc", (*base, "-O2", "-ffreestanding", "-fno-builtin", str(shim / "libc.c"), "-o", str(libc)), work,
         "the C library shim")
    return [start, libc]


def _linker_script(tree: ttnn.Tree, part: str, dest: Path) -> Path:
    """memory.blackhole.ld + ``part``.ld + sections.ld in one file (zig passes one ``-T``), with
    the host-only sections not allocated."""
    ld = tree.tt_llk / "tests" / "helpers" / "ld"
    text = "\n".join((ld / name).read_text() for name in ("memory.blackhole.ld", f"{part}.ld", "sections.ld"))
    for section in HOST_ONLY_SECTIONS:
        vma = f"__{section[1:]}_vma"
        before = f"  {section} {vma} :"
        if before not in text:
            raise KernelBuildError(f"tt-llk's sections.ld no longer places {section} at {vma}")
        text = text.replace(before, f"  {section} {vma} (INFO) :")
    dest.write_text(text)
    return dest


def _build_part(tree: ttnn.Tree, variant: Variant, work: Path, part: str, trisc: int, isa: str,
                common: list[Path]) -> None:
    tests = tree.tt_llk / "tests"
    wrapper = work / f"{part}.cpp"
    driver = f'"{variant.source}"' if os.path.isabs(variant.source) else f"<sources/{variant.source}>"
    wrapper.write_text(f"#include {driver}\n#include <trisc.cpp>\n")
    obj = work / f"{part}.o"
    shim = shim_dir()
    defines = (*DEFINES, *variant.defines, f"COMPILE_FOR_TRISC={trisc}", f"LLK_TRISC_{part.upper()}")
    _zig("c++", ("-target", "riscv32-linux-musl", f"-mcpu={isa}", *CXXFLAGS, "-include", str(shim / "ttinsn.h"),
                 f"-I{tests}", f"-I{tests / 'helpers' / 'src'}", f"-I{work}", *(f"-I{tests / i}" for i in INCLUDES),
                 f"-I{shim}", *(f"-D{d}" for d in defines), "-c", str(wrapper), "-o", str(obj)),
         tests, f"{variant.source} ({part})")
    script = _linker_script(tree, part, work / f"{part}.ld")
    _zig("cc", ("-target", "riscv32-freestanding-none", f"-mcpu={isa}", "-nostartfiles",
                "-Wl,-z,max-page-size=16", "-Wl,-z,common-page-size=16", "-T", str(script),
                str(common[0]), str(obj), *map(str, common[1:]), "-o", str(work / f"{part}.elf")),
         work, f"{variant.source} ({part}, link)")
