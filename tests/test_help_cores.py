"""``help file`` and ``help break`` name every core a Blackhole tile has (issue 33 item 9: NC
was missing): BRISC (B), NCRISC (NC), TRISC0-2 (T0-T2), as DESIGN.md lists them."""

from __future__ import annotations

import re

import pytest

from tdbg.session import Session
from tdbg.commands import execute

CORES = {"B", "NC", "T0", "T1", "T2"}


@pytest.mark.parametrize("command", ["file", "break"])
def test_help_names_every_core(command: str) -> None:
    text = " ".join(execute(Session(), f"help {command}").split())
    listed = re.search(r"\(N: thread number or ([^)]*)\)" if command == "break" else r"of CORE \(([^;]*);", text)
    assert listed is not None, text
    assert set(listed.group(1).split(", ")) == CORES
