"""Hang reports for a tt-metal program (the deadlock's waits, as the tile names them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.emu.stops import Stop

if TYPE_CHECKING:
    from tdbg.session import Session
    from tdbg.ttmetal.program import ProgramHost


def report(session: Session, host: ProgramHost, stop: Stop) -> Stop:
    """The deadlock ``stop`` of a program whose cores wait for each other, as it is."""
    return stop
