"""A tt-metal program that hangs: the deadlock stop with the host's account of it, in tt-metal's
terms: the go message; each core waiting on a circular buffer (``cb_wait_front`` for pages,
``cb_reserve_back`` for free space), with the count it asked for, the CB's counts and who last
pushed into it or popped from it and what that core does now; each other core blocked in its
kernel (or in its firmware, on anything but the mailboxes), with what holds it and who would release
it; the cores idle in their firmware (polling the mailboxes: no kernel, or back once their kernel
returned) on one line; the watcher's waypoints.  It takes the place of
the deadlock's own report (``tdbg.debug.hang``), whose facts it includes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from tdbg.debug import Stop
from tdbg.debug.hang import detail_lines
from tdbg.ttmetal import cbs
from tdbg.ttmetal.boot import PROCESSORS
from tdbg.ttmetal.mailboxes import RUN_MSG_NAMES
from tdbg.ttmetal.memmap import MAILBOX_BASE, MAILBOX_END

if TYPE_CHECKING:
    from tdbg.session import Session
    from tdbg.ttmetal.program import ProgramHost


def report(session: Session, host: ProgramHost, stop: Stop, states: list[cbs.State] | None = None) -> Stop:
    """``stop`` (a deadlock) with the host's report: the cores blocked in their kernels first
    (CB waits with their counts and the other side; any other wait with what holds it and who
    would release it, ``tdbg.debug.hang``), then the cores idle in their firmware on one line, then the
    waypoints.  It replaces the deadlock's own report (the shell prints either).  ``states``: the
    CBs, where the host's program does not give them (a launch ``tdbg.ttmetal.launches`` saw)."""
    signal = host.signal(session)
    lines = [f"tt-metal program hangs: go_messages[0].signal = {RUN_MSG_NAMES.get(signal, hex(signal))}; "
             "no core can run:"]
    states = cbs.states(session, host) if states is None else states
    found = {w.core: (state, w) for state in states for w in state.waits}
    waiting = {core: found[core] for core in session.core_names if core in found}
    explained = {r.wait.core: r for r in session.explain_waits(stop)}
    idle: dict[str, list[str]] = {}
    blocked: list[str] = []
    for core in waiting:
        state, wait = waiting[core]
        lines.append(f"  {cb_wait(state, wait)}")
        lines.append(f"    {partner(session, host, state, wait, waiting)}")
    for core in session.core_names:
        if core in waiting or not session.has_firmware(core):
            continue
        if core in host.binaries and _in_kernel(session, host, core) or not waits_for_host(session, core):
            blocked.append(core)
            lines.append(f"  {core} {state_of(session, host, core)}")
            if core in explained:
                lines.extend(detail_lines(explained[core], session.describe_pc, "firmware or kernel"))
        else:
            place = "kernel returned" if core in host.binaries else "no kernel"
            idle.setdefault(place, []).append(core)
    if idle:
        lines.append("  idle in their firmware: " + "; ".join(f"{', '.join(cores)} ({place})" for place, cores in idle.items()))
    lines.append("  waypoints: " + ", ".join(f"{core} {text!r}" for core, text in waypoints(session, host).items()))
    first = next(iter([*waiting, *blocked]), None)     # the stop is the first blocked kernel's
    if first is None:
        return replace(stop, report=tuple(lines))
    with session.on_core(first):
        return replace(stop, core=first, pc=session.register("pc"), report=tuple(lines))


def waits_for_host(session: Session, core: str) -> bool:
    """True when ``core`` polls only the mailboxes (its firmware waiting for the host's go message
    or the BRISC's word), not when it waits for anything else (the coprocessor, a semaphore)."""
    wait = session.wait(core)
    if wait is None:
        return True
    polled = ([wait.address] if wait.address is not None else []) + list(wait.reads)
    return bool(polled) and all(MAILBOX_BASE <= a < MAILBOX_END for a in polled)


def _in_kernel(session: Session, host: ProgramHost, core: str) -> bool:
    with session.on_core(core):
        return host.runs_kernel(core, session.register("pc"))


def partner(session: Session, host: ProgramHost, state: cbs.State, wait: cbs.Wait,
            waiting: Mapping[str, tuple[cbs.State, cbs.Wait]]) -> str:
    """The other side of a CB wait and what it does: for a wait for pages the producer (the core
    that last pushed into the CB, else one waiting in ``cb_reserve_back`` on it), for a wait for
    space the consumer (who last popped, else one waiting in ``cb_wait_front``); a partner that
    waits on a CB itself is named by that wait (its own entry in ``waiting`` says more).  With
    neither, the core whose NoC request last wrote the page a consumer waits for (a reader that
    filled it and never pushed it) is named."""
    role, verb, other = (("producer", "pushed into", "back") if wait.side == "front"
                         else ("consumer", "popped from", "front"))
    cb = state.cb.index
    last = state.pushed_by if wait.side == "front" else state.popped_by
    if last is not None and last[0] != wait.core:
        head = f"{last[0]}, the {role} (last {verb.split()[0]} at {session.describe_pc(*last)}),"
        if last[0] in waiting:
            theirs, their_wait = waiting[last[0]]
            call = "cb_wait_front" if their_wait.side == "front" else "cb_reserve_back"
            return f"{head} waits in {call} on CB {theirs.cb.index}"
        if not _in_kernel(session, host, last[0]):
            more = "pages come" if wait.side == "front" else "pages are popped"
            return f"{head} has returned from its kernel: no more {more}"
        return f"{head} {state_of(session, host, last[0])}"
    opposite = next((w for w in state.waits if w.side == other and w.core != wait.core), None)
    if opposite is not None:
        what = "cb_reserve_back for space" if other == "back" else "cb_wait_front for pages"
        return f"{opposite.core}, the {role}, has not {verb} CB {cb} yet: it waits in {what} on it"
    returned = _returned(session, host)
    done = ", ".join(returned) if returned else "none"
    waiter = "cb_reserve_back" if other == "back" else "cb_wait_front"
    text = f"no core has {verb} CB {cb}, and none waits in {waiter} on it; kernels that have returned: {done}"
    wrote = session.noc_l1_writer(state.front) if wait.side == "front" else None
    if wrote is not None:      # the page it waits for was filled, and never pushed
        transfer = wrote[0]
        text += (f"; {transfer.core} filled the page it waits for ({transfer.kind} at "
                 f"{session.describe_pc(transfer.core, transfer.pc)}) and did not push it")
    return text


def _returned(session: Session, host: ProgramHost) -> list[str]:
    """The cores whose kernel has returned (back in their firmware)."""
    return [core for core in PROCESSORS if core in host.binaries and not _in_kernel(session, host, core)]


def cb_wait(state: cbs.State, wait: cbs.Wait) -> str:
    """One CB wait, with the count the kernel asked for (``cbs.asked_pages``), and what the
    counts prove: a kernel that asks for more pages than the CB holds waits for ever (the CB is
    too small); when the count is not known, a producer waiting for space in an empty CB (or a
    consumer for pages in a full one) proves the same."""
    cb = state.cb
    size = cbs.pages(cb.pages)
    received, acked = state.counts(wait)
    in_cb = (received - acked) & cbs.COUNT_MASK
    own = ""
    if (received, acked) != (state.received, state.acked):
        own = (f" (its own count: {received} pushed; the packer's instructions counting them have not run: "
               f"{state.received} received)" if wait.side == "back" else
               f" (its own count: {acked} popped; {state.acked} acknowledged)")
    asked = "" if wait.asked is None else f" for {cbs.pages(wait.asked)}{' of space' if wait.side == 'back' else ''}"
    if wait.side == "front":
        text = (f"{wait.core} waits in cb_wait_front{asked} on CB {cb.index} ({size}): {cbs.pages(received)} received, "
                f"{acked} acknowledged, {in_cb} in the CB{own}")
        too_small = in_cb == cb.pages
    else:
        text = (f"{wait.core} waits in cb_reserve_back{asked} on CB {cb.index} ({size}): {in_cb} in use "
                f"({received} received, {acked} acknowledged){own}")
        too_small = in_cb == 0
    if wait.asked is not None:
        if wait.asked > cb.pages:
            text += f"; it asks for more than the CB's {size}: the CB is too small"
    elif too_small:
        text += (f"; the CB is {'full' if wait.side == 'front' else 'empty'}, so the kernel asks for more than its "
                 f"{size}: the CB is too small")
    return f"{text}; at {wait.where}"


def state_of(session: Session, host: ProgramHost, core: str) -> str:
    """What ``core`` does now: where it waits (in its kernel, or back in its firmware)."""
    with session.on_core(core):
        pc = session.register("pc")
        status = session.core_state(core)
    in_kernel = host.runs_kernel(core, pc)
    place = "in its kernel" if in_kernel else "back in its firmware (its kernel returned)" if core in host.binaries \
        else "in its firmware (no kernel)"
    return f"is {place} at {session.describe_pc(core, pc)}: {status}"


def waypoints(session: Session, host: ProgramHost) -> dict[str, str]:
    """Each core's watcher waypoint (``mailboxes.watcher.debug_waypoint[i]``: up to 4 characters;
    'X' until a kernel built with the watcher writes one)."""
    out = {}
    for index, core in enumerate(PROCESSORS):        # indexed by PROCESSOR_INDEX
        field = host.mailboxes.field(f"watcher.debug_waypoint[{index}]")
        raw = session.read_memory(field.address, field.size)
        out[core] = raw.split(b"\0")[0].decode("ascii", "replace")
    return out
