#!/usr/bin/env python3
"""Build every C file of the firmware kit (tdbg/firmware) and of the examples (firmware/) with tdbg's toolchain; print each ELF and whether it was rebuilt."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tdbg.toolchain.zig import ToolchainError, ensure_built, firmware_sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--force", action="store_true", help="rebuild even if cached")
    parser.add_argument("-v", "--verbose", action="store_true", help="print compile commands")
    args = parser.parse_args(argv)

    failed = 0
    examples = Path(__file__).resolve().parents[1] / "firmware"
    for src in [*firmware_sources(), *sorted(examples.glob("*.c"))]:
        try:
            res = ensure_built(src, force=args.force)
        except ToolchainError as exc:
            failed += 1
            print(f"FAILED  {src.name}: {exc}", file=sys.stderr)
            continue
        print(f"{'rebuilt' if res.rebuilt else 'cached '}  {res.elf}")
        if args.verbose:
            print("  " + " ".join(res.command))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
