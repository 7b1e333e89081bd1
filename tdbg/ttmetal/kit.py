"""Build a tt-metal kernel for Blackhole the way tt-metal 0.81.1 JIT-builds it, with the bundled zig.

What tt-metal does, measured by running tt-metal 0.81.1 itself on ttsim with a compiler that logs
every call (its JIT command lines, the files it generates, the ELFs it loads, the bytes it writes):

- A **dataflow** kernel becomes one ELF, for BRISC or NCRISC: the firmware's kernel entry
  ``hw/firmware/src/tt-1xx/brisck.cc`` (``ncrisck.cc``) compiled with ``-DCOMPILE_FOR_BRISC``
  (``NCRISC``), ``-DPROCESSOR_INDEX=0`` (1), ``-DNOC_INDEX``, ``-DNOC_MODE``, the kernel's defines and
  ``-DKERNEL_COMPILE_TIME_ARGS=a,b,...``; it includes the generated ``kernel_includes.hpp``
  (``void kernel_main();`` and ``#include "<kernel source>"``).  A **compute** kernel becomes three,
  TRISC0..2: ``trisck.cc`` with ``-DUCK_CHLKC_UNPACK|MATH|PACK -DCOMPILE_FOR_TRISC=0|1|2
  -DPROCESSOR_INDEX=2|3|4``, including the generated ``chlkc_unpack|math|pack.cpp``
  (``#define TRISC_UNPACK``..., ``#include "defines_generated.h"``, the source).  Every kernel gets
  ``chlkc_descriptors.h`` (math fidelity, approx mode, each CB's unpack/pack data formats and tile
  shape, ``DST_ACCUM_MODE``, ``DST_SYNC_MODE``); named compile-time args add
  ``named_ct_arg_map_generated.h`` (``-include``d) and ``named_args_generated.h``; a Metal 2.0
  kernel (``args::``, ``dfb::``, ``tensor::``) ``kernel_bindings_generated.h`` and
  ``kernel_args_generated.h``, included before its source (``tdbg.ttmetal.metal2``).
- It links with ``runtime/hw/toolchain/blackhole/kernel_<proc>.ld`` against the firmware's symbols
  (``--just-symbols`` of the firmware ELF weakened, ``tdbg.toolchain.elfpatch.weaken``) with
  ``--emit-relocs``: ``.text`` at the firmware's ``__fw_export_text_end``, ``.data`` in the core's
  local memory at ``__fw_export_ldm_end``, loaded right after the text.
- The host writes the **execute-in-place image** (``elfpatch.xip_image``: text, then data) at
  ``kernel_config_base + kernel_text_offset[PROCESSOR_INDEX]`` and sets ``kernel_text_size`` to its
  length; the firmware jumps there.  ``Binary`` carries that image.

SFPI GCC is replaced by zig's clang (``riscv32``, ``generic_rv32+m+zaamo+zba+zbb+relax``): the
flags GCC alone has are dropped (``-ftt-*``, LTO, ``--param``, GCC warnings), C++17 becomes C++20
(SFPI's ``-ftt-nttp``/``-ftt-constinit``/``-ftt-consteval`` give C++17 those C++20 features), jump
tables are off (clang's are absolute text addresses in data, which tt-metal cannot load in place),
linker relaxation is on (calls become ``jal``, as GNU ld makes them), and tdbg's shims stand in for
SFPI's toolchain (``tdbg/toolchain/shim``: ``.ttinsn``, ``lltt.h``, ``sfpi.h`` constants,
``memset``/``memcpy``).  The wheel's ``noc.o``/``substitutes.o`` are GCC LTO bytecode, so their
sources (``blackhole/noc.c``, ``toolchain/substitutes.cpp``) are compiled with the kernel's flags.
Measured: these ELFs, loaded by tt-metal 0.81.1, compute ttnn's eltwise binary add and a matmul on
ttsim to the numpy result.  A kernel with SFPI vector code (``vFloat``, ``dst_reg``,
``__builtin_rvtt_*``) needs SFPI's compiler and is refused with ``NeedsSfpi``.

With the **watcher** (``Kernel.watcher``) the compile gets what tt-metal's JIT build passes when
``TT_METAL_WATCHER`` is set: ``-DWATCHER_ENABLED`` and a ``-DWATCHER_DISABLE_<FEATURE>`` per disabled
feature, here ``STACK_USAGE`` (its check reads the stack-base symbols of firmware built with the watcher;
the wheel's firmware is built without it).  That firmware also defines ``rta_count``/``crta_count`` (the
bounds ``get_arg_val``/``get_common_arg_val``'s ASSERTs check, ``brisc.cc``/``trisc.cc``: set from the
count word the watcher host writes before the arguments); the wheel's does not, so the kit links a
definition of each, the kernel's runtime-argument count and 0 (tdbg has no common arguments): a
kernel needs no edit, and reading past its arguments trips ``DebugAssertRtaOutOfBounds``.

Builds are cached under the ttnn cache (``ttnn.cache_root() / "ttmetal"``), keyed by everything
that decides them and re-checked against the digests of every header the compiler read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path

from elftools.elf.elffile import ELFFile

from tdbg.arch.blackhole import BLACKHOLE
from tdbg.arch.data_formats import TT_METAL_FORMATS, tile_bytes
from tdbg.toolchain.zig import ToolchainError
from tdbg.toolchain import elfpatch, ttnn
from tdbg.ttmetal import metal2
from tdbg.ttmetal.metal2 import Metal2, includes, kernel_args_header, kernel_bindings_header

__all__ = ["DATA_FORMATS", "FIRMWARE", "MATH_FIDELITY", "PROCESSORS", "Binary", "Build", "ComputeConfig",
           "Kernel", "KernelBuildError", "NeedsSfpi", "Processor", "build"]

#: The wheel's pre-compiled firmware these kernels link against and the boot loads
#: (``pre-compiled/<hash>``): what tt-metal 0.81.1 builds for ttsim's Blackhole (NUM_L1_BANKS=130,
#: NUM_DRAM_BANKS=8, DISPATCH_MESSAGE_ADDR=0xFFB70438).
FIRMWARE = "11660721212704224774"
#: tt-metal 0.81.1's device defines for that device, first on every kernel's command line (measured).
DEVICE_DEFINES = ("IS_NOT_POW2_NUM_L1_BANKS=1", "LOG_BASE_2_OF_NUM_DRAM_BANKS=3", "NUM_DRAM_BANKS=8",
                  "NUM_L1_BANKS=130", "PCIE_NOC_X=19", "PCIE_NOC_Y=24", "TENSIX_FIRMWARE", "LOCAL_MEM_EN=0")
#: ... and after the processor's own (DISPATCH_MESSAGE_ADDR = 0xFFB70438).
DISPATCH_MESSAGE_ADDR = "DISPATCH_MESSAGE_ADDR=4290184248"
BUILD_DEFINES = ("PROGRAMMABLE_CORE_TYPE=0", "ARCH_BLACKHOLE", DISPATCH_MESSAGE_ADDR, "KERNEL_BUILD")
#: LLVM's spelling of the cores' ISA (the profile's), with linker relaxation.
ISA = BLACKHOLE.llvm_cpu + "+relax"
#: tt-metal's compiler flags that clang shares (its GCC-only ones dropped, C++17 -> C++20, see above).
CXXFLAGS = ("-std=c++20", "-ffast-math", "-fno-finite-math-only", "-fsigned-zeros", "-fno-associative-math",
            "-fno-exceptions", "-fno-rtti", "-fno-use-cxa-atexit", "-g", "-fno-jump-tables")
#: clang is stricter than GCC on one construct the kernel headers use (``x.template f(...)``); and in
#: C++ clang deletes a loop without side effects as never-ending (``-ffinite-loops``, its default),
#: where GCC keeps it: the watcher's ``assert_and_hang`` ends in ``while (1) {}``, which clang dropped,
#: falling through into the next function (measured on reader_two.cpp's ASSERT).
#: DPRINT (tt-metal 0.81.1's DEVICE_PRINT) checks its format string in constant expressions that name
#: the arguments of a generic lambda: GCC accepts them in C++17; clang 22 only in C++23 (P2280).
DEBUG_PRINT_STD = "-std=c++23"
#: what tt-metal's JIT build adds with the watcher on (see above)
WATCHER_DEFINES = ("WATCHER_ENABLED", "WATCHER_DISABLE_STACK_USAGE")
CLANG_ONLY = ("-w", "-Wno-missing-template-arg-list-after-template-kw", "-fno-finite-loops")
#: tt-metal's precompiled header: the standard headers every kernel compile includes first.
PCH_HEADERS = ("algorithm", "array", "atomic", "bit", "climits", "compare", "concepts", "cstddef", "cstdint",
               "cstdio", "cstring", "limits", "new", "optional", "tuple", "type_traits", "utility", "variant")
#: tt-metal's ``-I`` list, in its order (relative to the wheel's ``ttnn/``); ``None`` marks TRISC-only
#: entries by name below.
_INCLUDES = ("", "ttnn", "ttnn/cpp", "tt_metal/hw/inc", "tt_metal/tt-llk/common", "tt_metal/tt-llk/tools/include",
             "tt_metal/hostdevcommon/api", "tt_metal/api/", "runtime/sfpi/include",
             "tt_metal/hw/ckernels/blackhole/metal/common", "tt_metal/hw/ckernels/blackhole/metal/llk_io",
             "tt_metal/hw/inc/internal/tt-1xx", "tt_metal/hw/inc/internal/tt-1xx/blackhole",
             "tt_metal/hw/inc/internal/tt-1xx/blackhole/blackhole_defines",
             "tt_metal/hw/inc/internal/tt-1xx/blackhole/noc", "tt_metal/tt-llk/tt_llk_blackhole/common/inc",
             "tt_metal/tt-llk/tt_llk_blackhole/llk_lib", "tt_metal/tt-llk/tt_llk_blackhole/llk_lib/hal",
             "tt_metal/hw/ckernels/blackhole/metal/llk_api", "tt_metal/hw/ckernels/blackhole/metal/llk_api/llk_sfpu",
             "tt_metal/hw/firmware/src/tt-1xx")
_TRISC_ONLY = {"runtime/sfpi/include", "tt_metal/hw/ckernels/blackhole/metal/llk_api",
               "tt_metal/hw/ckernels/blackhole/metal/llk_api/llk_sfpu"}
#: what the wrapper compiles noc.c / substitutes.cpp against (their own headers)
LIB_INCLUDES = ("tt_metal/hw/inc", "tt_metal/hw/inc/internal/tt-1xx", "tt_metal/hw/inc/internal/tt-1xx/blackhole",
                 "tt_metal/hw/inc/internal/tt-1xx/blackhole/noc",
                 "tt_metal/hw/inc/internal/tt-1xx/blackhole/blackhole_defines", "tt_metal/hostdevcommon/api",
                 "tt_metal/tt-llk/tt_llk_blackhole/common/inc")
LIBS = {"noc": "tt_metal/hw/firmware/src/tt-1xx/blackhole/noc.c", "substitutes": "tt_metal/hw/toolchain/substitutes.cpp"}

#: tt-metal's DataFormat codes for the formats the kit generates descriptors for
#: (``tdbg.arch.data_formats.TT_METAL_FORMATS``), and a tile's bytes in L1 of each.
DATA_FORMATS = {name: TT_METAL_FORMATS[name].code for name in ("Float16_b", "Float32", "Bfp8_b")}
TILE_BYTES = {name: tile_bytes(TT_METAL_FORMATS[name].layout) for name in DATA_FORMATS}
INVALID = 255
#: what tt-metal writes for a CB the program does not use (measured: 1088)
UNUSED_TILE_BYTES = 1088
TF32 = TT_METAL_FORMATS["Tf32"].code
MATH_FIDELITY = {"LoFi": 0, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}
NUM_CBS = 64
COMPILE_TIMEOUT = 900


class KernelBuildError(ToolchainError):
    """A tt-metal kernel did not build; the message holds the compiler's first errors."""


class NeedsSfpi(KernelBuildError):
    """The kernel uses SFPI's vector extension, which only SFPI's GCC compiles."""


@dataclass(frozen=True)
class Processor:
    """One baby RISC-V as tt-metal's JIT build targets it."""

    name: str                 # tt-metal's: brisc, ncrisc, trisc0..2 (the profile's ``CoreSpec.alias``)
    index: int                # PROCESSOR_INDEX: the launch message's slot, bit in ``enables``
    entry_source: str         # the firmware's kernel entry, under tt_metal/hw/firmware/src/tt-1xx
    defines: tuple[str, ...]
    opt: str                  # tt-metal's default optimisation (KernelBuildOptLevel)
    libs: tuple[str, ...]     # the wheel objects its link adds, as sources (``LIBS``)

    @property
    def core(self) -> str:
        """tdbg's name of the core: B, NC, T0..T2."""
        return BLACKHOLE.core(self.name).name

    @property
    def trisc(self) -> bool:
        return self.name.startswith("trisc")


PROCESSORS = {p.name: p for p in (
    Processor("brisc", 0, "brisck.cc", ("COMPILE_FOR_BRISC",), "-O2", ("noc", "substitutes")),
    Processor("ncrisc", 1, "ncrisck.cc", ("COMPILE_FOR_NCRISC",), "-O2", ("substitutes",)),
    Processor("trisc0", 2, "trisck.cc", ("UCK_CHLKC_UNPACK", "COMPILE_FOR_TRISC=0"), "-O3", ("substitutes",)),
    Processor("trisc1", 3, "trisck.cc", ("UCK_CHLKC_MATH", "COMPILE_FOR_TRISC=1"), "-O3", ("substitutes",)),
    Processor("trisc2", 4, "trisck.cc", ("UCK_CHLKC_PACK", "COMPILE_FOR_TRISC=2"), "-O3", ("substitutes",)),
)}
#: the generated TRISC source of each, and its ``#define``
_CHLKC = {"trisc0": ("chlkc_unpack.cpp", "TRISC_UNPACK"), "trisc1": ("chlkc_math.cpp", "TRISC_MATH"),
          "trisc2": ("chlkc_pack.cpp", "TRISC_PACK")}
#: the NoC tt-metal's Writer/ReaderDataMovementConfig give BRISC/NCRISC on Blackhole (measured: NOC_INDEX)
DEFAULT_NOC = {"brisc": 1, "ncrisc": 0}


@dataclass(frozen=True)
class ComputeConfig:
    """tt-metal's ``ComputeConfig`` fields that reach the build (the rest stay at their defaults)."""

    math_fidelity: str = "HiFi4"
    fp32_dest_acc_en: bool = False
    dst_full_sync_en: bool = False
    math_approx_mode: bool = False


@dataclass(frozen=True)
class Kernel:
    """A kernel as a program declares it: the source, where it runs (``brisc``, ``ncrisc`` or
    ``compute``), the program's CBs on the core (index -> data format: ``Float16_b``,
    ``Float32``, ``Bfp8_b``), defines, compile-time args (positional and named), the NoC of a
    dataflow kernel, the compute configuration of a compute kernel."""

    source: Path
    processor: str
    cbs: Mapping[int, str] = field(default_factory=dict)
    defines: tuple[tuple[str, str], ...] = ()
    compile_args: tuple[int, ...] = ()
    named_args: tuple[tuple[str, int], ...] = ()
    noc: int | None = None
    noc_mode: int = 0
    compute: ComputeConfig = ComputeConfig()
    debug_print: bool = False
    watcher: bool = False
    runtime_args: int = 0      # with the watcher: the bound get_arg_val's ASSERT checks (rta_count)
    metal2: Metal2 | None = None       # a Metal 2.0 kernel's named args and bindings (tdbg.ttmetal.metal2)

    @property
    def processors(self) -> tuple[Processor, ...]:
        if self.processor == "compute":
            return tuple(PROCESSORS[f"trisc{i}"] for i in range(3))
        return (PROCESSORS[self.processor],)


@dataclass(frozen=True)
class Binary:
    """One processor's ELF and what a host needs to place it: write ``image`` at
    ``kernel_config_base + kernel_text_offset[index]`` and set ``kernel_text_size[index] = size``."""

    processor: str
    core: str
    index: int
    elf: Path
    entry: int             # = the link address of .text (the firmware's __fw_export_text_end)
    data_address: int      # .data in the core's local memory
    image: bytes           # execute-in-place text, then data

    @property
    def size(self) -> int:
        return len(self.image)


@dataclass(frozen=True)
class Build:
    """A built kernel: one ``Binary`` per processor, and the folder with the generated files."""

    kernel: Kernel
    binaries: tuple[Binary, ...]
    directory: Path


def build(kernel: Kernel, force: bool = False) -> Build:
    """Build ``kernel`` (cached).  Raises ``ttnn.TtnnUnavailable`` without the wheel,
    ``NeedsSfpi`` for SFPI vector code, ``KernelBuildError`` when it does not build."""
    _check(kernel)
    tree = ttnn.tree()
    metal = tree.root / "ttnn"
    for part in ("runtime/hw/toolchain/blackhole", "tt_metal/api", "ttnn/cpp"):
        if not (metal / part).is_dir():
            raise ttnn.TtnnUnavailable(f"the ttnn tree at {tree.root} has no ttnn/{part}, which tt-metal kernels need")
    source = kernel.source.resolve()
    key = _key(kernel, source, tree)
    out = ttnn.cache_root() / "ttmetal" / f"{source.stem}-{key}"
    if not force and _valid(out):
        return _result(kernel, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{source.stem}-", dir=out.parent))
    try:
        _generate(kernel, source, work / "kernel", key)
        weakened = _weakened_firmware(tree, work)
        procs = kernel.processors
        with ThreadPoolExecutor(max_workers=min(len(procs), os.cpu_count() or 1)) as pool:
            for job in [pool.submit(_build_processor, kernel, p, metal, work, weakened) for p in procs]:
                job.result()
        _record_deps(work)
        _install(work, out, force)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _result(kernel, out)


def _check(kernel: Kernel) -> None:
    if kernel.processor not in ("brisc", "ncrisc", "compute"):
        raise KernelBuildError(f"processor must be brisc, ncrisc or compute, not {kernel.processor!r}")
    if not kernel.source.is_file():
        raise KernelBuildError(f"kernel source not found: {kernel.source}")
    for cb, fmt in kernel.cbs.items():
        if not 0 <= cb < NUM_CBS:
            raise KernelBuildError(f"CB index {cb} is outside 0..{NUM_CBS - 1}")
        if fmt not in DATA_FORMATS:
            raise KernelBuildError(f"CB {cb}: data format {fmt!r} is not one the kit generates descriptors for "
                                   f"({', '.join(DATA_FORMATS)})")
    if kernel.compute.math_fidelity not in MATH_FIDELITY:
        raise KernelBuildError(f"math fidelity must be one of {', '.join(MATH_FIDELITY)}")
    if kernel.noc not in (None, 0, 1):
        raise KernelBuildError(f"noc must be 0 or 1, not {kernel.noc}")
    for name, _ in kernel.defines:
        if not re.fullmatch(r"[A-Za-z_]\w*(\([\w\s,]*\))?", name):      # a macro, with parameters or not
            raise KernelBuildError(f"bad define name {name!r}")
    for name, _ in kernel.named_args:
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise KernelBuildError(f"bad named compile-time arg {name!r}")
    if kernel.metal2 is not None:
        try:
            kernel.metal2.check()
        except ValueError as exc:
            raise KernelBuildError(str(exc)) from None


# ---- generated files (as tt-metal 0.81.1 writes them; compared with its own in the tests) -----------


def _generate(kernel: Kernel, source: Path, gen: Path, key: str) -> None:
    gen.mkdir(parents=True)
    include = f'void kernel_main();\n#include "{source}"\n'
    named = '#include "named_args_generated.h"\n' if kernel.named_args else ""
    metal2 = includes(kernel.metal2)
    if kernel.metal2 is not None:
        (gen / "kernel_args_generated.h").write_text(kernel_args_header(kernel.metal2))
        (gen / "kernel_bindings_generated.h").write_text(kernel_bindings_header(kernel.metal2))
    if kernel.processor == "compute":
        for name, define in (*_CHLKC.values(), ("chlkc_isolate_sfpu.cpp", "TRISC_ISOLATE_SFPU")):
            (gen / name).write_text(f'#define {define}\n{metal2}#include "defines_generated.h"\n{named}{include}')
        defines = [*sorted(kernel.defines), ("NOC_MODE", str(kernel.noc_mode))]
        (gen / "defines_generated.h").write_text("#pragma once\n" + "".join(f"#define {k} {v}\n" for k, v in defines))
    else:
        (gen / "kernel_includes.hpp").write_text(metal2 + named + include)
    if kernel.named_args:
        args = sorted(kernel.named_args)
        (gen / "named_ct_arg_map_generated.h").write_text(
            "// AUTO-GENERATED -- do not edit.\n#pragma once\n\n#define KERNEL_COMPILE_TIME_ARG_MAP "
            + ",".join(f'{{"{k}",{v}}}' for k, v in args) + "\n")
        (gen / "named_args_generated.h").write_text(
            '#pragma once\n#include "experimental/blaze_rt_arg.h"\n\nnamespace blaze_ct_args {\n'
            + "".join(f"    static constexpr uint32_t {k} = {v};\n" for k, v in args) + "}\n")
    (gen / "chlkc_descriptors.h").write_text(descriptors(kernel))
    (gen / "pch.h").write_text("#pragma once\n" + "".join(f"#include <{h}>\n" for h in PCH_HEADERS))
    (gen / "key").write_text(key + "\n")


def descriptors(kernel: Kernel) -> str:
    """``chlkc_descriptors.h`` as tt-metal 0.81.1 generates it for ``kernel`` (genfiles.cpp, data
    formats from data_format.cpp's rules; measured for Float16_b, Float32 and Bfp8_b CBs with and
    without ``fp32_dest_acc_en``): per CB, L1 format -> unpacker output / packer input."""
    compute = kernel.processor == "compute"
    acc = compute and kernel.compute.fp32_dest_acc_en
    fidelity = MATH_FIDELITY[kernel.compute.math_fidelity] if compute else 255
    approx = kernel.compute.math_approx_mode if compute else True
    l1 = [DATA_FORMATS[kernel.cbs[i]] if i in kernel.cbs else INVALID for i in range(NUM_CBS)]
    # the Float32 conversion target: TF32 with a 32-bit Dst, else Float16_b (all measured formats are
    # of exponent family B or Float32)
    cond = TF32 if acc else DATA_FORMATS["Float16_b"]
    unpack_dst = [cond if f == DATA_FORMATS["Float32"] else f for f in l1]
    pack_src = [f if f != DATA_FORMATS["Float32"] or acc else cond for f in l1]
    tile = [TILE_BYTES[kernel.cbs[i]] if i in kernel.cbs else UNUSED_TILE_BYTES for i in range(NUM_CBS)]

    def array(ctype: str, name: str, values: Sequence[int]) -> str:
        return f"constexpr {ctype} {name}[{NUM_CBS}] = {{\n    {','.join(map(str, values))}\n}};\n"

    def dims(prefix: str) -> str:
        return (array("uint8_t", f"{prefix}_tile_num_faces", [4] * NUM_CBS)
                + array("uint8_t", f"{prefix}_partial_face", [0] * NUM_CBS)
                + array("uint8_t", f"{prefix}_tile_face_r_dim", [16] * NUM_CBS)
                + array("uint8_t", f"{prefix}_narrow_tile", [0] * NUM_CBS)
                + array("uint8_t", f"{prefix}_tile_r_dim", [32] * NUM_CBS)
                + array("uint8_t", f"{prefix}_tile_c_dim", [32] * NUM_CBS)
                + array("uint16_t", f"{prefix}_tile_size", tile)
                + array("uint8_t", f"{prefix}_num_faces_r_dim", [2] * NUM_CBS)
                + array("uint8_t", f"{prefix}_num_faces_c_dim", [2] * NUM_CBS))

    math = (f'#include "llk_defs.h"\nconstexpr ckernel::MathFidelity MATH_FIDELITY = '
            f"static_cast<ckernel::MathFidelity>({fidelity});\nconstexpr bool APPROX = {str(approx).lower()};\n")
    sync = "Full" if compute and kernel.compute.dst_full_sync_en else "Half"
    return ("#pragma once\n\n"
            f"#if defined(UCK_CHLKC_MATH)\n{math}#endif\n\n"
            f"#if defined(UCK_CHLKC_PACK)\n{math}#endif\n\n"
            "#if !defined(UCK_CHLKC_PACK)\n"
            + array("uint8_t", "unpack_src_format", l1) + array("uint8_t", "unpack_dst_format", unpack_dst)
            + dims("unpack") + "#endif\n\n"
            "#if !defined(UCK_CHLKC_MATH) && !defined(UCK_CHLKC_UNPACK)\n"
            + array("unsigned char", "pack_src_format", pack_src) + array("unsigned char", "pack_dst_format", l1)
            + dims("pack")
            + "#if defined(UCK_CHLKC_PACK)\n" + array("uint8_t", "unpack_src_format", l1) + "#endif\n#endif\n\n"
            "#if defined(UCK_CHLKC_MATH) || defined(UCK_CHLKC_PACK) || defined(UCK_CHLKC_UNPACK) || "
            "defined(UCK_CHLKC_ISOLATE_SFPU)\n"
            f"constexpr bool DST_ACCUM_MODE = {str(acc).lower()};\n#define DST_SYNC_MODE DstSync::Sync{sync}\n#endif\n")


# ---- compile and link --------------------------------------------------------------------------------


def shim_dir() -> Path:
    """tdbg's shims for SFPI's toolchain (package data ``tdbg/toolchain/shim``)."""
    shim = resources.files("tdbg.toolchain") / "shim"
    if not isinstance(shim, Path):  # pragma: no cover - tdbg imported from a zip archive
        raise ToolchainError(f"tdbg's shims are not on the file system: {shim}")
    return shim


def compile_command(kernel: Kernel, proc: Processor, metal: Path, gen: Path, obj: Path, name: str) -> list[str]:
    """The zig arguments for ``proc``'s object, run in ``gen/<proc>`` (tt-metal's ``-I. -I..``);
    ``name`` is tt-metal's ``FULL_KERNEL_NAME`` (kernel/hash/)."""
    includes = [f"-I{metal / i}" if i else f"-I{metal}/" for i in _INCLUDES if proc.trisc or i not in _TRISC_ONLY]
    defines = [*DEVICE_DEFINES, f"PROCESSOR_INDEX={proc.index}", *proc.defines, *BUILD_DEFINES]
    if not proc.trisc:
        noc = DEFAULT_NOC[proc.name] if kernel.noc is None else kernel.noc
        defines += [f"{k}={v}" for k, v in sorted(kernel.defines)] + [f"NOC_INDEX={noc}", f"NOC_MODE={kernel.noc_mode}"]
    if kernel.debug_print:
        defines.append("DEBUG_PRINT_ENABLED")   # tt-metal's JIT build, with its print server on
    if kernel.watcher:
        defines += WATCHER_DEFINES
    defines.append(f'FULL_KERNEL_NAME="{name}"')
    if kernel.compile_args:
        defines.append("KERNEL_COMPILE_TIME_ARGS=" + ",".join(str(a) for a in kernel.compile_args))
    named = ["-include", "named_ct_arg_map_generated.h"] if kernel.named_args else []
    shim = shim_dir()
    flags = [DEBUG_PRINT_STD if f.startswith("-std=") else f for f in CXXFLAGS] if kernel.debug_print else CXXFLAGS
    return ["-target", "riscv32-linux-musl", f"-mcpu={ISA}", proc.opt, *flags, "-MMD", "-I.", "-I..", *includes,
            f"-I{kernel.source.resolve().parent}", "-include", str(shim / "ttinsn.h"), f"-I{shim}", *CLANG_ONLY,
            "-include", str(gen / "pch.h"), *(f"-D{d}" for d in defines), *named,
            "-c", "-o", str(obj), str(metal / "tt_metal/hw/firmware/src/tt-1xx" / proc.entry_source),
            "-MF", str(obj.with_suffix(".d"))]


def _build_processor(kernel: Kernel, proc: Processor, metal: Path, work: Path, weakened: Path) -> None:
    gen = work / "kernel"
    pdir = gen / proc.name
    pdir.mkdir()
    obj = pdir / f"{proc.entry_source.split('.')[0]}.o"
    name = f"{kernel.source.stem}/{(gen / 'key').read_text().strip()}/"
    _zig("c++", compile_command(kernel, proc, metal, gen, obj, name), pdir, f"{kernel.source.name} ({proc.name})")
    objects = []
    for lib in proc.libs:
        lib_obj = pdir / f"{lib}.o"
        _zig("c++", ["-target", "riscv32-linux-musl", f"-mcpu={ISA}", proc.opt, *CXXFLAGS, "-x", "c++",
                     *(f"-I{metal / i}" for i in LIB_INCLUDES), f"-I{shim_dir()}", *CLANG_ONLY,
                     "-DARCH_BLACKHOLE", "-DTENSIX_FIRMWARE", "-c", str(metal / LIBS[lib]), "-o", str(lib_obj)],
             pdir, f"{LIBS[lib]} ({proc.name})")
        objects.append(lib_obj)
    libc = pdir / "libc.o"
    _zig("cc", ["-target", "riscv32-freestanding-none", f"-mcpu={ISA}", "-O2", "-ffreestanding", "-fno-builtin", "-c",
                str(shim_dir() / "libc.c"), "-o", str(libc)], pdir, "tdbg's libc shim")
    if kernel.watcher:
        objects.append(_watcher_counts(kernel, pdir))
    if kernel.debug_print:   # DPRINT's buffer lock is a std::atomic
        atomic = pdir / "atomic.o"
        _zig("cc", ["-target", "riscv32-freestanding-none", f"-mcpu={ISA}", "-O2", "-ffreestanding", "-c",
                    str(shim_dir() / "atomic.c"), "-o", str(atomic)], pdir, "tdbg's atomics shim")
        objects.append(atomic)
    elf = pdir / f"{proc.name}.elf"
    _zig("ld.lld", [f"--just-symbols={weakened / f'{proc.name}_weakened.elf'}", "-z", "max-page-size=16",
                    "-z", "common-page-size=16", "-T", str(metal / f"runtime/hw/toolchain/blackhole/kernel_{proc.name}.ld"),
                    "--emit-relocs", *map(str, objects), str(obj), str(libc), "-o", str(elf)],
         pdir, f"{kernel.source.name} ({proc.name}, link)")
    elfpatch.drop_null_relocations(elf)
    try:
        (pdir / f"{proc.name}.image").write_bytes(elfpatch.xip_image(elf.read_bytes(), elf.name))
    except elfpatch.XipError as exc:
        raise KernelBuildError(f"{kernel.source.name} ({proc.name}): {exc}") from exc


def _watcher_counts(kernel: Kernel, pdir: Path) -> Path:
    """The object defining ``rta_count`` and ``crta_count``, which watcher firmware would (see above)."""
    source, obj = pdir / "watcher_counts.c", pdir / "watcher_counts.o"
    source.write_text(f"unsigned int rta_count __attribute__((used)) = {kernel.runtime_args};\n"
                      "unsigned int crta_count __attribute__((used)) = 0;\n")
    _zig("cc", ["-target", "riscv32-freestanding-none", f"-mcpu={ISA}", "-O2", "-ffreestanding", "-c", str(source),
                "-o", str(obj)], pdir, "the watcher's argument counts")
    return obj


def _weakened_firmware(tree: ttnn.Tree, work: Path) -> Path:
    """The firmware ELFs weakened as tt-metal does (``<proc>_weakened.elf``)."""
    out = work / "firmware"
    out.mkdir()
    for name in PROCESSORS:
        fw = tree.precompiled / FIRMWARE / name / f"{name}.elf"
        if not fw.is_file():
            raise ttnn.TtnnUnavailable(f"the ttnn wheel has no pre-compiled firmware {FIRMWARE}/{name}")
        (out / f"{name}_weakened.elf").write_bytes(elfpatch.weaken(fw.read_bytes(), str(fw)))
    return out


#: what an error names when the kernel uses SFPI's vector extension
SFPI_CODE = re.compile(r"\b(vFloat|vInt|vUInt|vConst\w*|dst_reg|l_reg|v_if|v_elseif|v_else|v_endif|"
                   r"sfpi::\w+|__builtin_rvtt_\w+|__rvtt_\w+)\b")


def _zig(mode: str, args: Sequence[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run([sys.executable, "-m", "ziglang", mode, *args], cwd=cwd, capture_output=True,
                              text=True, timeout=COMPILE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KernelBuildError(f"could not run zig for {what}: {exc}") from exc
    if done.returncode == 0:
        return
    errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
    sfpi = sorted({m.group(1) for line in errors for m in [SFPI_CODE.search(line)] if m})
    if sfpi:
        raise NeedsSfpi(f"{what} uses SFPI vector code ({', '.join(sfpi[:3])}): it needs SFPI's compiler "
                        "(riscv-tt-elf-g++), which tdbg does not have")
    raise KernelBuildError(f"building {what} failed:\n" + "\n".join(errors[:12]))


# ---- cache -------------------------------------------------------------------------------------------


def _key(kernel: Kernel, source: Path, tree: ttnn.Tree) -> str:
    h = hashlib.sha256()
    parts = (str(source), repr(sorted(kernel.cbs.items())), repr(kernel.defines), repr(kernel.compile_args),
             repr(kernel.named_args), repr(kernel.noc), str(kernel.noc_mode), repr(kernel.compute), kernel.processor,
             repr(kernel.metal2),
             *(("debug_print",) if kernel.debug_print else ()),
             *((f"watcher={kernel.runtime_args}",) if kernel.watcher else ()),
             ISA, *CXXFLAGS, *CLANG_ONLY, *DEVICE_DEFINES, *BUILD_DEFINES, FIRMWARE, str(tree.root), ttnn.VERSION,
             "zig=" + metadata.version("ziglang"))
    h.update("\0".join(parts).encode())
    for path in sorted(p for p in shim_dir().rglob("*") if p.is_file()) + [source, Path(elfpatch.__file__),
                                                                         Path(__file__), Path(metal2.__file__)]:
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:20]


def _record_deps(work: Path) -> None:
    """The digest of every file outside the build the compiles read (their ``-MF`` lists; the
    generated files inside it are decided by the key), to re-check the cache."""
    deps = {}
    for d in work.glob("kernel/*/*.d"):
        text = d.read_text().replace("\\\n", " ")
        for name in text.split(":", 1)[1].split():
            path = (d.parent / name).resolve()
            if not path.is_relative_to(work.resolve()) and path.is_file():
                deps[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    (work / "deps.json").write_text(json.dumps(deps, indent=0, sort_keys=True))


def _install(work: Path, out: Path, force: bool) -> None:
    """Move a finished build into place; a valid one another process installed meanwhile stays
    (unless ``force``)."""
    try:
        os.replace(work, out)
        return
    except OSError:
        if _valid(out) and not force:
            return
    shutil.rmtree(out, ignore_errors=True)
    os.replace(work, out)


def _valid(out: Path) -> bool:
    try:
        deps = json.loads((out / "deps.json").read_text())
    except (OSError, ValueError):
        return False
    for path, digest in deps.items():
        try:
            if hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
                return False
        except OSError:
            return False
    return True


def _result(kernel: Kernel, out: Path) -> Build:
    binaries = []
    for proc in kernel.processors:
        elf = out / "kernel" / proc.name / f"{proc.name}.elf"
        image = elf.with_suffix(".image").read_bytes()
        entry, data = _addresses(elf)
        binaries.append(Binary(proc.name, proc.core, proc.index, elf, entry, data, image))
    return Build(kernel, tuple(binaries), out / "kernel")


def _addresses(elf: Path) -> tuple[int, int]:
    """(entry, the first non-text segment's address) of a kernel ELF."""
    with elf.open("rb") as f:
        e = ELFFile(f)
        entry = e.header.e_entry
        loads = [s for s in e.iter_segments() if s.header.p_type == "PT_LOAD" and s.header.p_memsz]
        data = next((s.header.p_vaddr for s in loads if s.header.p_vaddr != entry), 0)
    return entry, data
