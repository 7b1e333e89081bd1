"""The report of a hang (a ``DEADLOCK`` stop, or a wait under ``scheduler-locking on``): a host's
account of it when the session's host gave one (``Stop.report``: tt-metal's, in its terms, which
includes the waits' facts), else one entry per blocked core from ``Session.explain_waits`` (what it
waits for, where the held instruction and the wait latched before it were pushed, which cores'
code would release it and their states) and every core's backtrace as ``thread apply all bt``
prints them (highest thread first).  Every line is fitted to ``set width``: wrapped at spaces
(a word longer than the line is cut), a continuation indented four more than its line, as GDB
indents a frame's ``at FILE:LINE`` when it wraps."""

from __future__ import annotations

import textwrap

from tdbg.commands.escapes import thread_apply
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import line_width
from tdbg.debug import Stop

#: what a host's report ends with: where the backtraces it leaves out are
BACKTRACES_HINT = "  (thread apply all bt: every core's backtrace)"


def site(interp: Interpreter, core: str, pc: int) -> str:
    """Where ``core`` is at ``pc`` (``Session.describe_pc``)."""
    return interp.session.describe_pc(core, pc)


def fitted(text: str, width: int | None) -> list[str]:
    """Each line of ``text`` within ``width`` columns (module docstring); None: as it is."""
    out: list[str] = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        if width is None or len(line) <= width or not body:
            out.append(line)
            continue
        indent = line[:len(line) - len(body)]
        more = indent + "    " if len(indent) + 4 < width // 2 else indent
        out.extend(textwrap.wrap(body, width, initial_indent=indent, subsequent_indent=more,
                                 break_long_words=True, break_on_hyphens=False, drop_whitespace=True))
    return out


def out_fitted(interp: Interpreter, text: str) -> None:
    """``text`` printed fitted to the line (``fitted``)."""
    for line in fitted(text.rstrip("\n"), line_width(interp)):
        interp.out(line)


def report_waits(interp: Interpreter, stop: Stop) -> None:
    """The host's account of the hang, or what each blocked core waits for and what would end it."""
    from tdbg.debug.hang import detail_lines

    if stop.report:
        for line in stop.report:
            out_fitted(interp, line)
        return
    session = interp.session
    searched = "firmware or kernel" if session.symbol_files else "firmware"
    for report in session.explain_waits(stop):
        wait = report.wait
        out_fitted(interp, f"  {wait.core}: {report.reason} ({site(interp, wait.core, wait.pc)})")
        for line in detail_lines(report, session.describe_pc, searched):
            out_fitted(interp, line)


def report_text(interp: Interpreter, stop: Stop) -> str:
    """``report_waits`` as text (for the GDB stub's console output)."""
    return interp.output_of(lambda: report_waits(interp, stop))


def all_backtraces(interp: Interpreter, stop: Stop) -> None:
    """``thread apply all bt``, as the command prints it (``tdbg.commands.escapes``), fitted to
    the line; after a host's report only where they are (it names each core's place)."""
    if stop.report:
        out_fitted(interp, BACKTRACES_HINT)
        return
    out_fitted(interp, interp.output_of(lambda: thread_apply(interp, "all bt")))
