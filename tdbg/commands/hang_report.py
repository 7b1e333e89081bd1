"""The report of a hang (a ``DEADLOCK`` stop, or a wait under ``scheduler-locking on``): one entry
per blocked core from ``Session.explain_waits`` (what it waits for, where the held instruction and the wait
latched before it were pushed, which cores' firmware would release it and their states), then
every core's backtrace as ``thread apply all bt`` prints them (highest thread first)."""

from __future__ import annotations

from tdbg.commands.escapes import thread_apply
from tdbg.commands.interpreter import Interpreter
from tdbg.emu.stops import Stop


def site(interp: Interpreter, core: str, pc: int) -> str:
    """Where ``core`` is at ``pc`` (``Session.describe_pc``)."""
    return interp.session.describe_pc(core, pc)


def report_waits(interp: Interpreter, stop: Stop) -> None:
    """What each blocked core waits for and what would end it."""
    for report in interp.session.explain_waits(stop):
        wait = report.wait
        interp.out(f"  {wait.core}: {report.reason} ({site(interp, wait.core, wait.pc)})")
        if report.held is not None:
            interp.out(f"    {report.held.text.split()[0]} was pushed by {report.held.core} at {site(interp, report.held.core, report.held.pc)}")
        if report.latch is not None:
            interp.out(f"    the {report.latch.text} holding it was pushed by {report.latch.core} at "
                       f"{site(interp, report.latch.core, report.latch.pc)}")
        for need in report.needs:
            if not need.releases:
                interp.out(f"    it needs {need.what}: no core's firmware makes one")
                continue
            interp.out(f"    it needs {need.what}, made by:")
            for release in need.releases:
                interp.out(f"      {release.core} ({release.state}): {release.what} at {site(interp, release.core, release.pc)}")


def report_text(interp: Interpreter, stop: Stop) -> str:
    """``report_waits`` as text (for the GDB stub's console output)."""
    return interp.output_of(lambda: report_waits(interp, stop))


def all_backtraces(interp: Interpreter) -> None:
    """``thread apply all bt``, as the command prints it (``tdbg.commands.escapes``)."""
    thread_apply(interp, "all bt")
