"""Each fact has one home (issue 32): a grep of the package finds it written once, and the
places that used to repeat it read it from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tdbg"


def _sources() -> dict[Path, str]:
    return {p: p.read_text() for p in PACKAGE.rglob("*.py")}


SOURCES = _sources()


def _homes(pattern: str) -> list[str]:
    rx = re.compile(pattern)
    return sorted(str(p.relative_to(PACKAGE)) for p, text in SOURCES.items() if rx.search(text))


@pytest.mark.parametrize(("what", "pattern", "home"), [
    ("the pre-compiled firmware's hash", r'"\d{16,}"', ["ttmetal/kit.py"]),
    ("the cores' ISA as LLVM spells it", r'"generic_rv32\+m\+zaamo', ["arch/blackhole/__init__.py"]),
    ("the data movement kernels' default NoC", r"(?m)^DEFAULT_NOC\s*=", ["ttmetal/kit.py"]),
    ("tt-metal's data format codes", r'"Float16_b":\s*\w*\(?5', ["arch/data_formats.py"]),
    ("tt-metal's processor names by core", r'"T0":\s*"trisc0"|Processor\("trisc0", "T0"', []),
    ("the default architecture", r"profile: Profile = BLACKHOLE", []),
    ("Dst's row count outside the profile", r"DST_ROWS\s*=|STORAGE_ROWS\s*=", []),
])
def test_fact_has_one_home(what: str, pattern: str, home: list[str]) -> None:
    assert _homes(pattern) == home, what


def test_dst_rows_are_the_profiles_where_they_were_repeated() -> None:
    """The places that spelled 1024 Dst rows (the stub's target description, the expression
    bridge, watchpoints, the Dst and examine commands) now ask the profile."""
    for name in ("rsp/target_xml.py", "debug/expr_context.py", "debug/points.py", "debug/snapshots.py",
                 "commands/examine.py", "commands/tensix_cmds.py", "commands/dst_rows.py"):
        assert not re.search(r"\b(1024|512)\b(?! ?(?:B|bytes|KiB))", SOURCES[PACKAGE / name].split('"""', 2)[-1]), name
