"""The run model of a tile: whose turn it is, how long a turn lasts, when a core waits, and how a
run ends (DESIGN.md, "The whole tile").

All-stop and deterministic.  ``run`` gives the runnable cores turns in the profile's order; a
core keeps its turn until it stops, blocks (a ``Wait``: also a core found spinning on memory that
nothing else changes, ``tdbg.emu.idle``), parks (reaches ``j .``) or exits (tdbg's crt0 end).  On
a tile a host drives (``Tile.hosted``, ``Scheduler.looks_early``: the host polls, and each poll
would otherwise wait a slice) a turn is looked at early, at instruction counts
(``idle.FIRST_LOOK``), so a core that goes back to a wait waits at once; elsewhere not (the counted
runs' ends cost Unicorn's translations, measured on bench (g): risc_compute's run 2.1 -> 6.5 ms).
A core that computes keeps its turn for up to ``idle.PATIENCE`` slices of host time
(``tdbg.emu.preempt``), so where turns end, and which core a stop is reported on, does not depend
on host speed.  Any stop stops every core and names its core.  With no runnable core left the run
ends: a ``DEADLOCK`` stop naming every wait when a core is blocked, else ``EXITED`` (every core
with firmware has exited or parked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tdbg.emu import idle
from tdbg.emu.core import Core, CoreState
from tdbg.emu.devices.device import Wait
from tdbg.emu.stops import CoreWait, Stop, StopKind
from tdbg.tensix.state_description import StateDescription, obj, value

if TYPE_CHECKING:
    from tdbg.emu.tile import Tile

EXIT_SYMBOL, EXIT_CODE_SYMBOL = "_tdbg_exit", "tdbg_exit_code"   # tdbg's crt0


class Scheduler:
    """The turns of one tile's cores, their exits, and the interrupt that stops a run."""

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        self.cores = tile.cores
        self.looks_early = tile.hosted           # look at a turn early (module docstring)
        self.exit_codes: dict[str, int]
        self.last_turn: str | None             # the core whose turn ended last (``_next_turn``)
        self._interrupt = False
        self._active: Core | None = None
        Scheduler.STATE.reset(self)            # the state's power-on values: its declaration's

    STATE = StateDescription("scheduler", (obj("exit_codes", reset=lambda s: {}, copy=dict), value("last_turn", reset=None)))

    # -- runs -------------------------------------------------------------------------------------
    def run(self, only: str | None = None, limit: int | None = None) -> Stop:
        """Run the runnable cores (every one, or just ``only``) until something stops them.
        ``limit``: at most that many instructions per turn of a core.  An interrupt asked
        before the run (between two runs of one request) stops it at once."""
        names = [only] if only else list(self.cores)
        while True:
            runnable = self._runnable(names)
            if self._interrupt:
                return self._interrupted(self.cores[runnable[0] if runnable else names[0]])
            if not runnable:
                return self._idle_stop(names, only)
            stop = self._turn(self.cores[self._next_turn(runnable)], limit)
            if stop is not None and stop.kind is not StopKind.PREEMPTED:
                return self._interrupted(self.cores[stop.core], stop) if stop.kind is StopKind.INTERRUPTED else stop

    def run_others_until_ready(self, name: str) -> Stop | None:
        """Give the cores other than ``name`` turns until ``name``'s wait is over (None), or
        return what stopped them (a stop, an interrupt, or a deadlock naming every wait)."""
        waiting = self.cores[name]
        others = [n for n in self.cores if n != name]
        while True:
            self._runnable([name])
            if waiting.state is not CoreState.BLOCKED:
                return None
            runnable = self._runnable(others)
            if self._interrupt:
                return self._interrupted(waiting)
            if not runnable:
                return self._idle_stop([name, *others], None)
            stop = self._turn(self.cores[self._next_turn(runnable)], None)
            if stop is not None and stop.kind is not StopKind.PREEMPTED:
                return self._interrupted(waiting, stop) if stop.kind is StopKind.INTERRUPTED else stop

    def _next_turn(self, runnable: Sequence[str]) -> str:
        """Whose turn it is: the first of ``runnable`` after the core whose turn ended last, in
        the profile's order (deterministic: where turns end, never when)."""
        order = list(self.cores)
        after = order.index(self.last_turn) + 1 if self.last_turn in self.cores else 0
        return next(n for n in order[after:] + order[:after] if n in runnable)

    def _turn(self, core: Core, limit: int | None) -> Stop | None:
        """Run ``core`` for one turn (others could run, so it may be preempted).  None when it
        blocked, parked, exited or went into reset; else its stop."""
        self._active, self.last_turn = core, core.name
        try:
            stop = self._looked_at(core) if limit is None and self.looks_early else None
            if isinstance(stop, Wait):
                core.state, core.wait = CoreState.BLOCKED, stop
                return None
            stop = stop or core.resume(limit, preemptible=True)
            slices = 1
            while stop.kind is StopKind.PREEMPTED:
                # a slice of host time is over: a core spinning on memory waits; a core that
                # computes keeps its turn (host time decides when it is looked at, never what
                # runs next), unless it has run PATIENCE slices or the run gives turns a limit
                found = idle.spinning(core, self.tile.describe_address)
                if isinstance(found, Wait):
                    core.state, core.wait = CoreState.BLOCKED, found
                    return None
                if found is not None:
                    stop = found
                elif limit is None and slices < idle.PATIENCE:
                    stop = core.resume(None, preemptible=True)
                    slices += 1
                else:
                    break
        finally:
            self._active = None
        if stop.kind is StopKind.BLOCKED or core.state is not CoreState.RUNNABLE:
            return None
        if stop.kind is StopKind.PARKED:
            core.state = CoreState.PARKED
            return None
        if stop.kind is StopKind.EBREAK and stop.pc == self._exit_pc(core):
            self._exit(core)
            return None
        return stop

    def _looked_at(self, core: Core) -> Wait | Stop | None:
        """The start of ``core``'s turn, looked at after ``idle.FIRST_LOOK``, twice that, ... up to
        ``idle.LAST_LOOK`` instructions (``idle.SHORT`` windows; a look may come a little later
        than its count: ``Core.resume``'s ``exact``): the wait it went into, the stop that ended
        this part of its turn, or None (it computes on: host time slices take over)."""
        look = idle.FIRST_LOOK
        while look <= idle.LAST_LOOK:
            stop = core.resume(look, exact=False)
            if stop.kind is not StopKind.LIMIT:
                return stop
            found = idle.spinning(core, self.tile.describe_address, idle.SHORT)
            if found is not None:
                return found
            look *= 2
        return None

    def _runnable(self, names: Sequence[str]) -> list[str]:
        """Wake blocked cores whose wait is over; the cores that can run now."""
        for name in names:
            core = self.cores[name]
            if core.state is CoreState.BLOCKED and core.wait is not None and core.wait.ready():
                core.state, core.wait = CoreState.RUNNABLE, None
        return [n for n in names if self.cores[n].state is CoreState.RUNNABLE]

    def _idle_stop(self, names: Sequence[str], only: str | None) -> Stop:
        """No core can run: a deadlock if one waits, else the end of the run."""
        cores = [self.cores[n] for n in names]
        blocked = [c for c in cores if c.state is CoreState.BLOCKED]
        focus = blocked[0] if blocked else next((c for c in cores if c.state in (CoreState.EXITED, CoreState.PARKED)), cores[0])
        if blocked:
            waits = tuple(CoreWait(c.name, c.pc, c.wait.reason if c.wait else "blocked", c.wait) for c in blocked)
            return Stop(StopKind.DEADLOCK if only is None else StopKind.BLOCKED, focus.name, focus.pc,
                        detail="; ".join(f"{w.core}: {w.reason} (pc {w.pc:#010x})" for w in waits), waits=waits)
        return Stop(StopKind.EXITED, focus.name, focus.pc, detail=self.describe_finish(names))

    # -- the end of a core's firmware ---------------------------------------------------------
    def finished(self) -> bool:
        """True when every core with firmware has exited or parked (a hosted tile's: every core
        is held, exited or parked, or was never released)."""
        if self.tile.hosted:
            return all(c.state in (CoreState.EXITED, CoreState.PARKED, CoreState.RESET, CoreState.IDLE)
                       for c in self.cores.values())
        return all(self.cores[n].state in (CoreState.EXITED, CoreState.PARKED) for n in self.tile.programs)

    def runnable(self) -> list[str]:
        """The cores that can run now."""
        return self._runnable(list(self.cores))

    def classify_step(self, core: Core, stop: Stop) -> Stop:
        """A single step of ``core`` that reached its firmware's end: the core has exited (an
        ``EXITED`` stop, for the whole tile once no core is left)."""
        if stop.kind is StopKind.EBREAK and stop.pc == self._exit_pc(core):
            self._exit(core)
            names = list(self.tile.programs)
            return Stop(StopKind.EXITED, core.name, stop.pc,
                        detail=self.describe_finish(names if self.finished() else [core.name]))
        return stop

    def _exit_pc(self, core: Core) -> int | None:
        program = self.tile.programs.get(core.name)
        if program is None:
            return None
        sym = program.image.symbols.get(EXIT_SYMBOL)
        return sym.addr if sym else None

    def _exit(self, core: Core) -> None:
        core.state = CoreState.EXITED
        sym = self.tile.programs[core.name].image.symbols.get(EXIT_CODE_SYMBOL)
        code = self.tile.peek(core, sym.addr, 4) if sym else 0
        self.exit_codes[core.name] = code or 0

    def describe_finish(self, names: Sequence[str]) -> str:
        parts = []
        for name in names:
            core = self.cores[name]
            if core.state is CoreState.EXITED:
                parts.append(f"{name} exited with code {self.exit_codes.get(name, 0)}")
            elif core.state is CoreState.PARKED:
                parts.append(f"{name} parked at {core.pc:#010x}")
            elif core.state is CoreState.RESET and name in self.tile.programs:
                parts.append(f"{name} held in reset")
        return ", ".join(parts)

    # -- interrupts -------------------------------------------------------------------------------
    def interrupt(self) -> None:
        """Stop a running ``run`` from another thread (Ctrl-C); it stays pending until a run
        takes it (an ``INTERRUPTED`` stop) or ``clear_interrupt``."""
        self._interrupt = True
        active = self._active
        if active is not None:
            active.interrupt()

    def clear_interrupt(self) -> None:
        """Drop a pending interrupt (a new request starts)."""
        self._interrupt = False
        for core in self.cores.values():
            core.clear_interrupt()

    def _interrupted(self, core: Core, stop: Stop | None = None) -> Stop:
        """The interrupt is taken: no core or tile keeps it pending; ``stop`` (or one at
        ``core``'s PC) reports it."""
        self.clear_interrupt()
        return stop or Stop(StopKind.INTERRUPTED, core.name, core.pc)
