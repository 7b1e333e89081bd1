"""``tdbg build``: build a firmware C file with tdbg's toolchain, or print the compiler command,
flags and include directory tdbg uses, for one's own Makefile; ``tdbg build --tt-metal`` builds a
tt-metal kernel as tt-metal does (``tdbg.ttmetal.kit``)."""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import sys
from pathlib import Path

from tdbg.toolchain.zig import CFLAGS, KIT_CORES, ToolchainError, ensure_built, firmware_dir, kit_flags
from tdbg.toolchain.ttnn import TtnnUnavailable
from tdbg.ttmetal import kit
from tdbg.ttmetal.kit import DATA_FORMATS, MATH_FIDELITY

EPILOG = """\
The ELF is cached in $XDG_CACHE_HOME/tdbg (else ~/.cache/tdbg), keyed by the source, the
headers beside it and the flags.  In a Makefile (one step: compile and link):

    CC     := $(shell tdbg build --print-cc)
    CFLAGS := $(shell tdbg build --print-flags)
    %.elf: %.c
    \t$(CC) $(CFLAGS) -O2 $< -o $@

tt-metal kernels (--tt-metal): KERNEL.cpp is built the way tt-metal 0.81.1 JIT-builds it for
Blackhole, with the bundled zig instead of SFPI's GCC and tt-metal's headers, linker scripts and
firmware from the ttnn wheel (downloaded once into tdbg's cache): a dataflow kernel gives one ELF
(brisc or ncrisc), a compute kernel three (trisc0..2).  Each line of the output is a processor,
its core, its ELF, its entry and the size of the image a host writes at kernel_config_base +
kernel_text_offset.  A kernel with SFPI vector code (vFloat, dst_reg) needs SFPI's compiler and
is refused.  Example, ttnn's eltwise add compute kernel:

    tdbg build --tt-metal eltwise_binary_kernel.cpp --cb 0=Float16_b --cb 1=Float16_b \\
        --cb 2=Float16_b -DELTWISE_OP=add_tiles -DELTWISE_OP_TYPE=EltwiseBinaryType::ELWADD
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdbg build",
        usage="tdbg build FILE.c [--core T0|T1|T2|B] [-o FILE.elf] [-- FLAG ...]\n"
              "       tdbg build --print-cc | --print-flags | --print-include-dir\n"
              "       tdbg build --tt-metal KERNEL.cpp [--processor brisc|ncrisc|compute] [-D NAME[=VALUE]]...\n"
              "                  [--compile-args A,B,...] [--named-arg NAME=V]... [--cb INDEX=FORMAT]... [-o DIR]",
        description="Build FILE.c with tdbg's firmware kit (tensix.h, start-up code, linker script) into an\n"
                    "RV32IM ELF.  FLAGs after -- go to the compiler after tdbg's own, so they win.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", nargs="?", metavar="FILE.c", help="the firmware source")
    parser.add_argument("-o", dest="output", metavar="FILE.elf", help="write the ELF here (default: print the cached ELF's path)")
    parser.add_argument("--core", default="T0", choices=KIT_CORES, help="the core the firmware is for: its code goes in that core's part of L1 (default T0)")
    parser.add_argument("--force", action="store_true", help="rebuild even if the cache holds the ELF")
    metal = parser.add_argument_group("tt-metal kernels")
    metal.add_argument("--tt-metal", action="store_true", help="FILE is a tt-metal kernel: build it as tt-metal does; -o names a folder for the ELFs")
    metal.add_argument("--processor", choices=("brisc", "ncrisc", "compute"),
                       help="where it runs (default: compute if it includes an api/compute/ header, else brisc)")
    metal.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]", help="a kernel define (repeatable)")
    metal.add_argument("--compile-args", default="", metavar="A,B,...", help="its compile-time args (get_compile_time_arg_val)")
    metal.add_argument("--named-arg", action="append", default=[], metavar="NAME=V", help="a named compile-time arg (repeatable)")
    metal.add_argument("--cb", action="append", default=[], metavar="INDEX=FORMAT",
                       help=f"a circular buffer of the program and its data format ({', '.join(DATA_FORMATS)}; repeatable)")
    metal.add_argument("--noc", type=int, choices=(0, 1), help="a dataflow kernel's NoC (default: BRISC 1, NCRISC 0)")
    metal.add_argument("--math-fidelity", default="HiFi4", choices=tuple(MATH_FIDELITY), help="a compute kernel's math fidelity")
    metal.add_argument("--fp32-dest-acc", action="store_true", help="a compute kernel with a 32-bit Dst (fp32_dest_acc_en)")
    metal.add_argument("--dst-full-sync", action="store_true", help="a compute kernel with dst_full_sync_en")
    metal.add_argument("--math-approx", action="store_true", help="a compute kernel with math_approx_mode")
    show = parser.add_mutually_exclusive_group()
    show.add_argument("--print-cc", action="store_true", help="print the compiler command (this Python's zig cc)")
    show.add_argument("--print-flags", action="store_true", help="print the compiler flags, linker script, include directory and start-up code tdbg adds")
    show.add_argument("--print-include-dir", action="store_true", help="print the directory of tensix.h, crt0.S and tdbg.ld")
    return parser


def main(argv: list[str]) -> int:
    split = argv.index("--") if "--" in argv else len(argv)
    parser = build_parser()
    args = parser.parse_args(argv[:split])
    extra = argv[split + 1:]
    if args.print_cc:
        print(shlex.join([sys.executable, "-m", "ziglang", "cc"]))
    elif args.print_flags:
        print(shlex.join([*CFLAGS, *kit_flags(args.core)]))
    elif args.print_include_dir:
        print(firmware_dir())
    elif args.source is None:
        parser.error("FILE.c is required")
    elif args.tt_metal:
        if extra:
            parser.error("flags after -- are for FILE.c builds, not --tt-metal ones (use -D, --compile-args ...)")
        return _build_tt_metal(parser, args)
    else:
        if args.output is not None and Path(args.output).resolve() == Path(args.source).resolve():
            print(f"tdbg: -o {args.output} is the source itself; name another file for the ELF", file=sys.stderr)
            return 1
        try:
            elf = ensure_built(args.source, extra, force=args.force, core=args.core).elf
            if args.output is None:
                print(elf)
            else:
                shutil.copyfile(elf, args.output)
        except (ToolchainError, OSError) as exc:
            print(f"tdbg: {exc}", file=sys.stderr)
            return 1
    return 0


def _build_tt_metal(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--tt-metal``: build the kernel with ``tdbg.ttmetal.kit`` and print one line per processor."""
    source = Path(args.source)
    try:
        kernel = kit.Kernel(
            source, args.processor or _guess_processor(source),
            cbs=dict(_pair(parser, "--cb", c, int, str) for c in args.cb),
            defines=tuple(_define(d) for d in args.defines),
            compile_args=tuple(_integer(parser, "--compile-args", a) for a in args.compile_args.split(",") if a.strip()),
            named_args=tuple(_pair(parser, "--named-arg", n, str, int) for n in args.named_arg),
            noc=args.noc,
            compute=kit.ComputeConfig(args.math_fidelity, args.fp32_dest_acc, args.dst_full_sync, args.math_approx))
        built = kit.build(kernel, force=args.force)
        for binary in built.binaries:
            elf = binary.elf
            if args.output is not None:
                Path(args.output).mkdir(parents=True, exist_ok=True)
                elf = Path(args.output) / f"{binary.processor}.elf"
                shutil.copyfile(binary.elf, elf)
            print(f"{binary.processor:<7}{binary.core:<3}{elf}  entry {binary.entry:#x}  image {binary.size} bytes")
    except (ToolchainError, TtnnUnavailable, OSError) as exc:
        print(f"tdbg: {exc}", file=sys.stderr)
        return 1
    return 0


def _guess_processor(source: Path) -> str:
    try:
        text = source.read_text(errors="replace")
    except OSError:
        return "brisc"            # kit.build says the source is missing
    return "compute" if re.search(r'#\s*include\s*[<"](api/compute/|compute_kernel_api)', text) else "brisc"


def _define(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    return name, value if "=" in text else "1"


def _integer(parser: argparse.ArgumentParser, option: str, text: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        parser.error(f"{option}: {text.strip()!r} is not an integer")


def _pair(parser: argparse.ArgumentParser, option: str, text: str, key: type, value: type) -> tuple:
    name, sep, val = text.partition("=")
    if not sep:
        parser.error(f"{option} wants KEY=VALUE, not {text!r}")
    return (_integer(parser, option, name) if key is int else name,
            _integer(parser, option, val) if value is int else val)

