"""A shell whose output a test reads: an ``Interpreter`` over a session, writing into a list."""

from __future__ import annotations

from pathlib import Path

from tdbg.commands import Interpreter
from tdbg.session import Session

Shell = tuple[Interpreter, list[str]]


def shell(program: Session | str | Path) -> Shell:
    """An interpreter on ``program`` (a session, or firmware to open one on)."""
    out: list[str] = []
    session = program if isinstance(program, Session) else Session(program)
    return Interpreter(session, write=out.append), out


def run(sh: Shell, *lines: str) -> str:
    """What ``lines`` print, run one after another."""
    interp, out = sh
    out.clear()
    for line in lines:
        interp.execute(line)
    return "".join(out)
