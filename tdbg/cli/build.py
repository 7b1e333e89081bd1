"""``tdbg build``: build a firmware C file with tdbg's toolchain, or print the compiler command,
flags and include directory tdbg uses, for one's own Makefile."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

from tdbg.emu.toolchain import CFLAGS, KIT_CORES, ToolchainError, ensure_built, firmware_dir, kit_flags

EPILOG = """\
The ELF is cached in $XDG_CACHE_HOME/tdbg (else ~/.cache/tdbg), keyed by the source, the
headers beside it and the flags.  In a Makefile (one step: compile and link):

    CC     := $(shell tdbg build --print-cc)
    CFLAGS := $(shell tdbg build --print-flags)
    %.elf: %.c
    \t$(CC) $(CFLAGS) -O2 $< -o $@
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdbg build",
        usage="tdbg build FILE.c [--core T0|T1|T2|B] [-o FILE.elf] [-- FLAG ...]\n"
              "       tdbg build --print-cc | --print-flags | --print-include-dir",
        description="Build FILE.c with tdbg's firmware kit (tensix.h, start-up code, linker script) into an\n"
                    "RV32IM ELF.  FLAGs after -- go to the compiler after tdbg's own, so they win.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", nargs="?", metavar="FILE.c", help="the firmware source")
    parser.add_argument("-o", dest="output", metavar="FILE.elf", help="write the ELF here (default: print the cached ELF's path)")
    parser.add_argument("--core", default="T0", choices=KIT_CORES, help="the core the firmware is for: its code goes in that core's part of L1 (default T0)")
    parser.add_argument("--force", action="store_true", help="rebuild even if the cache holds the ELF")
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
