"""A core that spins on memory only another core can change waits for that change, so that where a
turn ends, and so which core a stop is reported on, never depends on host time.

When a turn has lasted a slice of host time (``tdbg.emu.preempt``) the core is stopped wherever
it is and stepped, one instruction at a time, for at most ``SPIN_STEPS`` instructions.  If it
comes back to the same pc with the same registers without storing anything, pushing anything or
touching a device in between, it is in a loop that can only end when another agent changes the
plain memory (L1, a local RAM) it reads: it then waits (``Wait``) until one of those bytes
changes, at the loop state it was found in (every state of the loop is the same to the other
cores: it stores nothing).  A core that does anything else is computing: it keeps its turn, as a
core that never takes long does, so the order of turns is the program's.  Only a core that has
computed for ``PATIENCE`` slices without being found spinning (a loop whose registers change,
e.g. one counting its own iterations while it polls) yields its turn after a slice, as before.

Stepping stops where a run would (a breakpoint, a watchpoint, an event): that stop is the turn's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unicorn import UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE

from tdbg.emu.fasthook import add_mem_hook
from tdbg.emu.regions import Wait
from tdbg.emu.stops import Stop, StopKind

if TYPE_CHECKING:
    from tdbg.emu.core import Core

SPIN_STEPS = 512   # instructions stepped to find the loop (a loop this long or shorter is found)
PATIENCE = 50      # slices (5 s) a computing core keeps its turn before it yields anyway


def find_spin(core: Core) -> Stop | None:
    """Step ``core`` looking for a pure spin loop: a ``BLOCKED`` stop (the core now waits), the
    stop a step made, or None (the core computes: its turn goes on)."""
    reads: dict[int, int] = {}        # plain-memory address -> size read in the loop
    impure_at = -1                    # the last step that stored, pushed or touched a device
    state = {"impure": False, "reads": reads}
    plain = core._plain

    def record(handle: int, access: int, address: int, size: int, value: int, _: int) -> None:
        if access == UC_MEM_WRITE or not any(lo <= address < hi for lo, hi in plain):
            state["impure"] = True
        else:
            reads[address] = max(size, reads.get(address, 0))

    hook = add_mem_hook(core.uc, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, record, 0, 0xFFFF_FFFF)
    seen: dict[tuple[int, ...], int] = {}
    pushes = core.tile.pushes.total
    try:
        for step in range(SPIN_STEPS):
            key = (core.pc, *core.regs()[1:])
            first = seen.get(key)
            if first is not None and first > impure_at:
                return _block(core, dict(reads))
            seen[key] = step
            stop = core._emulate(1, StopKind.STEP)
            if stop.kind is not StopKind.STEP:
                return stop
            if state["impure"] or core.tile.pushes.total != pushes:
                state["impure"], pushes, impure_at = False, core.tile.pushes.total, step
                reads.clear()
    finally:
        core.uc.hook_del(hook)
    return None


def _block(core: Core, reads: dict[int, int]) -> Stop:
    """The core waits until a byte its loop reads changes."""
    uc = core.uc
    held = {address: bytes(uc.mem_read(address, size)) for address, size in reads.items()}
    where = ", ".join(f"{a:#x}" for a in sorted(held)) or "nothing"

    def ready() -> bool:
        return any(bytes(uc.mem_read(a, len(old))) != old for a, old in held.items())

    from tdbg.emu.core import CoreState   # core.py imports this module

    pc = core.pc
    wait = Wait(f"spins at {pc:#010x} reading {where}, which only another core can change", ready,
                address=min(held) if held else None)
    core.state, core.wait = CoreState.BLOCKED, wait
    return Stop(StopKind.BLOCKED, core.name, pc, detail=wait.reason)
