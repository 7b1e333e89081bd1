"""``tdbg`` command line."""

from __future__ import annotations

import argparse

from tdbg import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tdbg", description="Debugger for Tensix tile firmware.")
    parser.add_argument("--version", action="version", version=f"tdbg {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    return 0
