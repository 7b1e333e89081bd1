"""``tdbg toolchain sfpi-standin TTNN_DIR``: install tdbg's stand-in for SFPI's compiler where
tt-metal looks for it, for machines without SFPI (``tdbg.toolchain.sfpi_standin``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tdbg.toolchain.sfpi_standin import COMPILER, StandinError, install

EPILOG = f"""\
TTNN_DIR is the installed ttnn package (the folder holding tt_metal/ and runtime/), or a
virtual environment that has ttnn installed.  The stand-in is written at TTNN_DIR/{COMPILER};
tt-metal's JIT build then compiles firmware and kernels with the bundled zig (clang, lld): the
firmware answered with the wheel's pre-compiled set where the device's defines are that set's,
else built with LTO at -Oz.  A kernel with SFPI vector code (vFloat, dst_reg, ...) is refused
in one line naming the kernel and the line: it needs SFPI's compiler.  Example:

    tdbg toolchain sfpi-standin ~/venv-ttnn
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tdbg toolchain", usage="tdbg toolchain sfpi-standin TTNN_DIR",
                                     description="Install tdbg's stand-in for SFPI's riscv-tt-elf-g++.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="sfpi-standin")
    standin = sub.add_parser("sfpi-standin", help="install the stand-in into an installed ttnn",
                             usage="tdbg toolchain sfpi-standin TTNN_DIR", epilog=EPILOG,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    standin.add_argument("ttnn_dir", metavar="TTNN_DIR", type=Path, help="the ttnn package folder, or a venv with ttnn")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        print(install(_package(args.ttnn_dir)))
    except StandinError as exc:
        print(f"tdbg: {exc}", file=sys.stderr)
        return 1
    return 0


def _package(given: Path) -> Path:
    """``given`` itself, or the ttnn package inside the venv ``given``."""
    if (given / "tt_metal").is_dir():
        return given
    found = sorted(given.glob("lib/python3*/site-packages/ttnn"))
    return found[0] if found else given
