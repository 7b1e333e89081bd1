"""A core that spins on memory nothing will change waits, as a core polling a device does.

A core is looked at early in each turn, after ``FIRST_LOOK``, twice that, ... up to ``LAST_LOOK``
instructions (counted: where the looks land never depends on host time), with two windows of
``SHORT`` instructions: enough for a firmware's wait on a mailbox word, and cheap, so that a core
that goes back to waiting waits at once.  A look there is inconclusive unless it finds a spin over
memory alone (a loop longer than a short window, or one that reads a device, the wall clock, is
left to the long look; a spin's registers come round within a window, so a longer one would
find the same).  The long look: a core whose turn lasts a whole slice (``tdbg.emu.preempt``) is
watched for two windows of ``WINDOW`` instructions.  If both run the same set of instructions,
store nothing that changes memory or a device, push no Tensix instruction, and the memory the
loop reads holds the same values, the core is spinning on those values (a semaphore in L1, a mailbox word, a go message) and can only leave the loop when
something else changes them.  It then waits (``Wait``): its turn passes to cores that can run,
it runs again when a word it read changes, and when no core can run the run stops with every wait
named (a deadlock, or every core idle waiting for the host), as ttsim-run's ``idle`` condition
ends a run (two windows with the same PCs and unchanged L1).

A loop that reads no device must also come back to the same registers (a deterministic spin);
one that counts (a computing loop over constant memory) does not.  A loop that reads a device (the
wall clock: time, as in tt-metal's ``riscv_wait``) is judged by its instructions and the memory it
reads alone, as ttsim-run's ``idle`` does: a loop that waits only for time leaves it in time, and a
timeout longer than the two windows is reported as a wait (the timeout is not modelled).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from unicorn import UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE

from tdbg.emu.devices.device import Wait
from tdbg.emu.fasthook import add_code_hook, add_mem_hook
from tdbg.emu.stops import Stop

if TYPE_CHECKING:
    from tdbg.emu.core import Core

WINDOW = 4096
#: The short look's windows, and the instruction counts into a turn at which it is made.
SHORT = 64
FIRST_LOOK, LAST_LOOK = 1 << 10, 1 << 16
#: Slices a core that computes (is not found spinning) keeps its turn before it yields anyway (a
#: loop whose instructions or values change while it waits for another core, e.g. one counting
#: its own iterations); until then where a turn ends never depends on host time (``Tile._turn``).
PATIENCE = 50


@dataclass
class _Window:
    pcs: set[int]
    reads: dict[int, tuple[int, int]]     # address in memory -> (size, value)
    changed: bool                          # a store changed memory or touched a device
    devices: set[int]                      # device addresses read
    states: set[tuple[int, ...]]           # the registers each time the window's first pc came round
    repeats: bool = False                  # ... until they came round again (then no more are read)


def _observe(core: Core, count: int) -> tuple[_Window, Stop | None]:
    """Run ``count`` instructions of ``core`` watching what they execute, read and store; the
    stop that ended the window early, if one did.  The hooks are raw (``tdbg.emu.fasthook``):
    every instruction of the window calls one, and the binding's wrapper would triple its cost
    (bench (d): the Tensix mixes spent four tenths of their run in these windows); once the
    window has done something (a push, a store that changes memory) they return at once, its
    verdict being made.  An error in one is kept and raised after the window (a raw hook may not
    raise)."""
    uc = core.uc
    window = _Window(set(), {}, False, set(), set())
    first = core.pc
    seen, states, regs, region_at, mem_read = window.pcs.add, window.states, core.regs, core.region_at, uc.mem_read
    reads = window.reads
    errors: list[BaseException] = []
    path = core.tile.push_path
    pushes = path.seq

    def on_code(handle: int, address: int, size: int, user: int) -> None:
        if window.changed or path.seq != pushes:   # decided: the window did something
            window.changed = True
            return
        seen(address)
        if address == first and not window.repeats:
            try:
                state = tuple(regs())
                window.repeats = state in states
                states.add(state)
            except BaseException as exc:  # noqa: BLE001  (raised after the window)
                errors.append(exc)

    def on_read(handle: int, access: int, address: int, size: int, value: int, user: int) -> None:
        if window.changed or reads.get(address, (0,))[0] == size:   # read before: nothing changed it
            return
        try:
            if region_at(address) is None:
                window.reads[address] = (size, int.from_bytes(mem_read(address, size), "little"))
            else:
                window.devices.add(address)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def on_write(handle: int, access: int, address: int, size: int, value: int, user: int) -> None:
        if window.changed:
            return
        try:
            mask = (1 << (8 * size)) - 1
            if region_at(address) is not None or int.from_bytes(mem_read(address, size), "little") != value & mask:
                window.changed = True
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    hooks = [add_code_hook(uc, on_code, 1, 0), add_mem_hook(uc, UC_HOOK_MEM_READ, on_read, 1, 0),
             add_mem_hook(uc, UC_HOOK_MEM_WRITE, on_write, 1, 0)]
    # Measured on Unicorn 2.1: a code hook added now is not called from code translated before
    # it without one (a loop's cached blocks would be missed): unless the core's translations
    # are all traced (``Core.traced``: the window's counted run keeps them so), translate afresh.
    # The memory hooks need no flush: Unicorn 2.1.4 sends every load and store of code
    # translated while any memory hook exists (a core's device hooks, from its build) through
    # its slow path, which runs the hooks of the address (``tcg_uc_has_hookmem``, ``load_helper``).
    # Deleting the hooks drops the translations they were instrumented in (``uc_hook_del``).
    if not core.traced:
        core.flush_translations()
        core.traced = True
    try:
        stop = core.run_observed(count)
    finally:
        for h in hooks:
            uc.hook_del(h)
    if errors:
        raise errors[0]
    if path.seq != pushes:      # a .ttinsn push (a code hook, not a store) did something
        window.changed = True
    return window, stop


def spinning(core: Core, describe: Callable[[int, int], str], window: int = WINDOW) -> Wait | Stop | None:
    """``core`` (just preempted, or at a look) watched for two windows of ``window``
    instructions: the wait it is in, a stop it made while watched, or None when it is doing
    something else (or, in short windows, when they cannot tell)."""
    first, stop = _observe(core, window)
    if stop is not None or first.changed:
        return stop
    second, stop = _observe(core, window)
    if stop is not None or second.changed or second.pcs != first.pcs:
        return stop
    if window < WINDOW and second.devices:
        return None     # time read: too short a window to judge a wait for it
    if not second.devices and not second.repeats:
        return None     # no time read, and its registers never come round again: it computes
    condition = {a: sv for a, sv in second.reads.items() if first.reads.get(a) == sv}
    if not condition:
        return None
    loop = frozenset(p for p in second.pcs if not core.tile.trampolines.contains(p))
    if not second.devices:    # a loop over memory alone has no effect: wait at its first address
        core.run_to_loop_head(min(loop))
    pc = core.pc
    shown = ", ".join(describe(a, v) for a, (_, v) in sorted(condition.items())[:4])
    more = f" and {len(condition) - 4} more" if len(condition) > 4 else ""

    # each word as a view of its memory, compared with the bytes it held (the scheduler asks at
    # every turn and the host's every read: mem_read there cost a READ 40 of its 85 us, measured)
    held = [(core.memory_view(a, size), a, size, v.to_bytes(size, "little")) for a, (size, v) in condition.items()]

    def ready() -> bool:
        return any((view if view is not None else core.uc.mem_read(a, size)) != was for view, a, size, was in held)

    return Wait(f"spins at {pc:#010x} reading {shown}{more}, which nothing has changed", ready,
                reads={a: v for a, (_, v) in condition.items()}, loop=loop)
