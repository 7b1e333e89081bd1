"""Where the example and benchmark firmware of the checkout lives (the top-level ``firmware/``;
the package ships only the run-time kit, ``tdbg.toolchain.zig.firmware_dir()``)."""

from __future__ import annotations

from pathlib import Path

from tdbg.toolchain.zig import firmware_sources

EXAMPLES = Path(__file__).resolve().parents[1] / "firmware"


def all_sources() -> list[Path]:
    """Every C source tdbg builds: the kit's and the examples', sorted by name."""
    return sorted([*firmware_sources(), *EXAMPLES.glob("*.c")], key=lambda p: p.name)
