"""A tt-metal program that hangs: the deadlock stop with the host's account of it, in tt-metal's
terms: the go message; each core waiting on a circular buffer (``cb_wait_front`` for pages,
``cb_reserve_back`` for free space), with the CB's counts and who last pushed into it or popped from
it and what that core does now; each other core's state (in its kernel, or back in its firmware
once its kernel returned); the watcher's waypoints.  The deadlock's own report (every wait, what
would release it, the backtraces) follows it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tdbg.emu.stops import Stop
from tdbg.ttmetal import cbs
from tdbg.ttmetal.boot import PROCESSORS
from tdbg.ttmetal.mailboxes import RUN_MSG_NAMES

if TYPE_CHECKING:
    from tdbg.session import Session
    from tdbg.ttmetal.program import ProgramHost


def report(session: Session, host: ProgramHost, stop: Stop) -> Stop:
    """``stop`` (a deadlock) with the host's report."""
    signal = host.signal(session)
    lines = [f"tt-metal program hangs: go_messages[0].signal = {RUN_MSG_NAMES.get(signal, hex(signal))}; "
             "no core can run:"]
    states = cbs.states(session, host)
    waiting = {w.core: (state, w) for state in states for w in state.waits}
    for core in session.core_names:
        if core in waiting:
            state, wait = waiting[core]
            lines.append(f"  {cb_wait(state, wait)}")
            lines.append(f"    {partner(session, host, state, wait)}")
        elif session.has_firmware(core):
            lines.append(f"  {core} {state_of(session, host, core)}")
    lines.append("  waypoints: " + ", ".join(f"{core} {text!r}" for core, text in waypoints(session, host).items()))
    return replace(stop, report=tuple(lines))


def partner(session: Session, host: ProgramHost, state: cbs.State, wait: cbs.Wait) -> str:
    """The other side of a CB wait and what it does: for a wait for pages the producer (the core
    that last pushed into the CB, else one waiting in ``cb_reserve_back`` on it), for a wait for
    space the consumer (who last popped, else one waiting in ``cb_wait_front``)."""
    role, verb, other = (("producer", "pushed into", "back") if wait.side == "front"
                         else ("consumer", "popped from", "front"))
    cb = state.cb.index
    last = state.pushed_by if wait.side == "front" else state.popped_by
    if last is not None and last[0] != wait.core:
        return f"{last[0]}, the {role} (last at {session.describe_pc(*last)}), {state_of(session, host, last[0])}"
    opposite = next((w for w in state.waits if w.side == other and w.core != wait.core), None)
    if opposite is not None:
        what = "cb_reserve_back for space" if other == "back" else "cb_wait_front for pages"
        return f"{opposite.core}, the {role}, has not {verb} CB {cb} yet: it waits in {what} on it"
    returned = _returned(session, host)
    done = ", ".join(returned) if returned else "none"
    waiter = "cb_reserve_back" if other == "back" else "cb_wait_front"
    return (f"no core has {verb} CB {cb}, and none waits in {waiter} on it; "
            f"kernels that have returned: {done}")


def _returned(session: Session, host: ProgramHost) -> list[str]:
    """The cores whose kernel has returned (back in their firmware)."""
    out = []
    for core in (c for c in PROCESSORS if c in host.binaries):
        with session.on_core(core):
            pc = session.register("pc")
        if not host.runs_kernel(core, pc):
            out.append(core)
    return out


def cb_wait(state: cbs.State, wait: cbs.Wait) -> str:
    """One CB wait, and what the counts prove: a producer that waits for space in an empty CB (or
    a consumer for pages in a full one) asks for more pages than the CB holds."""
    cb = state.cb
    size = f"{cb.pages} page{'s' if cb.pages != 1 else ''}"
    received, acked = state.counts(wait)
    in_cb = (received - acked) & cbs.COUNT_MASK
    own = ""
    if (received, acked) != (state.received, state.acked):
        own = (f" (its own count: {received} pushed; the packer's instructions counting them have not run: "
               f"{state.received} received)" if wait.side == "back" else
               f" (its own count: {acked} popped; {state.acked} acknowledged)")
    if wait.side == "front":
        text = (f"{wait.core} waits in cb_wait_front on CB {cb.index} ({size}): {cbs.pages(received)} received, "
                f"{acked} acknowledged, {in_cb} in the CB{own}")
        too_small = in_cb == cb.pages
    else:
        text = (f"{wait.core} waits in cb_reserve_back on CB {cb.index} ({size}): {in_cb} in use "
                f"({received} received, {acked} acknowledged){own}")
        too_small = in_cb == 0
    if too_small:
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
