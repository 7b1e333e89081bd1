"""The report of a hang (a ``DEADLOCK`` stop, or a wait under ``scheduler-locking on``): one entry
per blocked core from ``tdbg.hang`` (what it waits for, where the held instruction and the wait
latched before it were pushed, which cores' firmware would release it and their states), then
every core's backtrace as ``thread apply all bt`` prints them (highest thread first)."""

from __future__ import annotations

from tdbg.commands.escapes import thread_apply
from tdbg.commands.interpreter import Interpreter
from tdbg.emu.stops import Stop
from tdbg.hang import explain


def site(interp: Interpreter, core: str, pc: int) -> str:
    """``0x0000b05c in main at deadlock_t1.c:9``, in an inlined call ``0x00010074 in
    tdbg_semaphore_post at tensix.h:393, inlined in main at deadlock_t2.c:12`` (from ``core``'s
    debug information; files by name)."""
    info = interp.session.debug_info_at(core, pc)
    where = f"{pc:#010x}"
    function = info.function_at(pc) if info is not None else None
    if info is None or function is None:
        return where
    chain = info.inline_chain(pc)
    line = info.line_for(pc)
    where += f" in {chain[0].name if chain else function.name}"
    if line is not None:
        where += f" at {line.file.name}:{line.line}"
    if chain and chain[-1].call_file is not None:
        where += f", inlined in {function.name} at {chain[-1].call_file.name}:{chain[-1].call_line}"
    return where


def report_waits(interp: Interpreter, stop: Stop) -> None:
    """What each blocked core waits for and what would end it."""
    for report in explain(interp.session, stop.waits):
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
    saved, chunks = interp.write, []
    interp.write = chunks.append
    try:
        report_waits(interp, stop)
    finally:
        interp.write = saved
    return "".join(chunks)


def all_backtraces(interp: Interpreter) -> None:
    """``thread apply all bt``, as the command prints it (``tdbg.commands.escapes``)."""
    thread_apply(interp, "all bt")
