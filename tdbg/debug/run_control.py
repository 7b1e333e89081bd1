"""Run control: the tile's all-stop runs with GDB's ``scheduler-locking``, single steps, runs to
internal breakpoints, restarts with the host's set-up written again, and interrupts."""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Protocol, TypeVar

from tdbg.debug.expressions import Expressions
from tdbg.debug.memory import Memory
from tdbg.debug.target import Target
from tdbg.emu.states import CoreState
from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.tile import Tile

T = TypeVar("T")


class Host(Protocol):
    """Whoever plays the host around the tile's runs (``Session.host``; tt-metal's, in
    ``tdbg.ttmetal``): told when the tile is put back in its loaded state, and given the word
    whenever every core waits, as a real host acts while the firmware waits for it."""

    def restarted(self, session) -> None:   # noqa: ANN001  (the session: the host's whole API)
        """The tile is back in its loaded state, its set-up written again."""

    def saved(self) -> object:
        """What the host knows of the run so far (a checkpoint keeps it with the tile)."""

    def resumed(self, saved: object) -> None:
        """The tile is back in a checkpoint: the host knows again what ``saved`` says."""

    def idle(self, session, stop: Stop) -> Stop | None:   # noqa: ANN001
        """No core can run (``stop`` names every wait): act and return None to run on, or
        return the stop to report (``StopKind.HOST`` when the host's work is done)."""


class RunStatus(str, Enum):
    """Whether the program is being run, in GDB's sense."""

    LOADED = "not started"     # at its entry (memory written since then is kept by ``run``)
    STOPPED = "stopped"        # started, and stopped somewhere
    EXITED = "exited"          # every core with firmware has exited or parked


class RunControl:
    """Runs and steps the selected tile's cores.  ``host_session`` is what a ``Host`` is handed
    (the session facade: a host drives the whole API)."""

    LOCKING = ("off", "on", "step")

    def __init__(self, target: Target, memory: Memory, expressions: Expressions) -> None:
        self.t, self.memory, self.expressions = target, memory, expressions
        self.scheduler_locking = "off"
        self.watch_after = True       # report a watchpoint after its access (GDB's view); the
                                      # stub turns it off: gdb steps over the access itself
        self.host: Host | None = None      # plays the host around the runs (Host)
        self.host_session: object = None
        self._interrupted = False

    @property
    def tile(self) -> Tile:
        return self.t.tile

    @property
    def status(self) -> RunStatus:
        if not self.t.started:
            return RunStatus.LOADED
        return RunStatus.EXITED if self.tile.finished() else RunStatus.STOPPED

    def restart(self) -> None:
        """Back to the loaded state with the set-up written again (``Memory.setup``; unless
        ``replay_setup`` is off); breakpoints and watchpoints stay."""
        self.t.history.clear()
        self.tile.reset()
        self.t.started = False
        self.memory.replay()
        if self.host is not None:
            self.host.restarted(self.host_session)

    def start_over(self) -> None:
        """What GDB's ``run``, ``start`` and ``starti`` do first: the tile back to its loaded
        state if it has run, with the set-up written before the first run written again
        (``setup``: the host's inputs, e.g. what ``restore`` put in L1), and every
        breakpoint's and watchpoint's hit count back to zero (GDB's run_command_1; measured
        with gdb-multiarch 13: a second ``run`` reports "already hit 1 time")."""
        if self.t.started:
            self.restart()
        self.memory.written_after_exit = False
        self.t.points.reset_hits()

    def starti(self) -> Stop:
        """GDB's ``starti``: the program from its loaded state, stopped before its first
        instruction (a breakpoint there is not counted)."""
        self.start_over()
        self.t.started = True
        return Stop(StopKind.STEP, self.t.current, self.t.core.pc, detail="entry")

    def cont(self, limit: int | None = None) -> Stop:
        """Run the tile until something stops it (``limit``: at most that many instructions per
        turn of a core); with ``scheduler-locking on`` only the current core runs.

        A breakpoint whose ignore count is not used up, or whose condition is false, does not
        stop the run.  The core that stopped becomes the current core, as in GDB."""
        self.t.history.clear()
        self.t.started = True
        only = self.t.current if self.scheduler_locking == "on" else None
        while True:
            stop = self._focus(self._scope_exit(self.tile.run(only, limit)))
            if stop.kind is StopKind.DEADLOCK and self.host is not None:
                answer = self.host.idle(self.host_session, stop)
                if answer is None:
                    continue
                stop = self._focus(answer)
            if self._unchanged_write(stop):
                continue
            if stop.kind is not StopKind.BREAKPOINT or self._breakpoint_stops(stop.core, stop.pc):
                return stop

    def _unchanged_write(self, stop: Stop) -> bool:
        """GDB reports a write watchpoint only when the value changed: a store of the same value
        (seen after the access) does not stop the run; for a ``Dst`` row, a store that left the
        watched rows' bits as they were."""
        return (stop.kind is StopKind.WATCHPOINT and self.watch_after and stop.access is not None
                and stop.access.write and (stop.unchanged if stop.watch.dst_rows else stop.old == stop.new))

    def _scope_exit(self, stop: Stop) -> Stop:
        """A watched local's frame returned: its watchpoint is deleted and the run stops
        (``BreakpointManager.scope_exit``)."""
        return self.t.points.scope_exit(stop)

    def _focus(self, stop: Stop) -> Stop:
        """The core that stopped becomes the current one; a memory watchpoint's access is
        completed first when the session reports watchpoints after the access, and a
        watchpoint that stops the program counts the hit and has its disposition applied (a
        store of an unchanged value neither stops nor counts, as in GDB)."""
        if stop.core in self.tile.cores:
            self.t.current = stop.core
            if stop.kind is StopKind.WATCHPOINT and stop.access is not None and self.watch_after:
                stop = self.t.core.complete_access(stop)
        if stop.kind is StopKind.WATCHPOINT and not self._unchanged_write(stop):
            self.t.points.watch_hit(stop)
        return stop

    def steppable(self) -> Core:
        """The current core, if it can execute an instruction."""
        core = self.t.core
        if core.state is CoreState.IDLE:
            raise SessionError(f"{core.name} has no firmware (load one with \"file {core.name} FILE\").")
        if core.state is CoreState.RESET:
            raise SessionError(f"{core.name} is held in reset (SOFT_RESET_0 bit {core.spec.soft_reset_bit}).")
        return core

    def _step_core(self, others_run: Callable[[], None] = lambda: None) -> Stop:
        """One instruction of the current core.  If it must wait and ``scheduler-locking`` is
        off, the other cores run until the wait is over (``others_run`` is called first), then
        the instruction executes."""
        core = self.steppable()
        self.t.started = True
        if core.state in (CoreState.PARKED, CoreState.EXITED):
            core.state = CoreState.RUNNABLE   # stepping a finished core executes its j . / ebreak
        while True:
            if core.state is CoreState.BLOCKED and self.scheduler_locking == "off":
                others_run()
                stop = self.tile.run_others_until_ready(core.name)
                if stop is not None:
                    return self._focus(stop)
            stop = self._focus(self._scope_exit(self.tile.classify_step(core, core.step())))
            if stop.kind is not StopKind.BLOCKED or self.scheduler_locking != "off":
                return stop

    def stepi(self, count: int = 1, record: bool = True) -> Stop:
        """Execute ``count`` instructions of the current core, recording each for
        ``reverse_stepi``; with ``record=False`` (the steps inside source-level stepping)
        nothing is copied and the recorded history ends here.  A step during which the other
        cores run (the core waits, ``scheduler-locking off``) records the whole tile, also when
        the wait began in the step."""
        history = self.t.history
        stop = None
        if not record:
            history.clear()
        for _ in range(count):
            undo = None
            if record:
                undo = history.record(self.tile, self.steppable())

            def others_run() -> None:
                nonlocal undo
                if undo is not None:
                    undo = history.widen(undo, self.tile)

            stop = self._step_core(others_run)
            if undo is not None:
                history.push(undo)
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def nexti(self, count: int = 1) -> Stop:
        """Like ``stepi``, but a call (``jal``/``jalr`` linking ``ra``) runs until it returns."""
        stop = None
        for _ in range(count):
            pc = self.t.core.pc
            word = int.from_bytes(self.memory.read_memory(pc, 4), "little")
            if word & 0x7F in (0x6F, 0x67) and (word >> 7) & 0x1F == 1:
                sp = self.t.register("sp")
                stop, _ = self.run_until({pc + 4: lambda: self.t.register("sp") >= sp})
            else:
                stop = self.stepi()
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def run_until(self, targets: dict[int, Callable[[], bool]]) -> tuple[Stop, bool]:
        """Continue until the current core's pc reaches one of ``targets`` with its condition
        true, using internal breakpoints (no numbers) on that core: returns (a STEP stop there,
        True); any other stop (a user breakpoint, watchpoint, event, ...) comes back as (it,
        False).  The other cores run unless ``scheduler-locking`` is on or step."""
        self.t.history.clear()
        core = self.steppable()
        self.t.started = True
        name = core.name
        only = None if self.scheduler_locking == "off" else name
        user = core.breakpoints
        core.set_breakpoints(user | set(targets))
        try:
            while True:
                stop = self._scope_exit(self.tile.run(only))
                if stop.kind is not StopKind.BREAKPOINT:
                    stop = self._focus(stop)
                    if self._unchanged_write(stop):
                        continue
                    return stop, False
                if stop.core != name or stop.pc in user:
                    if self._breakpoint_stops(stop.core, stop.pc):
                        return self._focus(stop), False
                    if stop.core != name:
                        continue
                condition = targets.get(stop.pc)
                if condition is not None and condition():
                    return Stop(StopKind.STEP, stop.core, stop.pc), True
        finally:
            core.set_breakpoints(user)

    def landed_on_breakpoint(self, stop: Stop) -> Stop:
        """A step that lands on an enabled breakpoint reports it (and counts the hit), as GDB's
        source-level stepping does."""
        if stop.kind is StopKind.STEP and stop.pc in self.t.core.breakpoints and self._breakpoint_stops(stop.core, stop.pc):
            return Stop(StopKind.BREAKPOINT, stop.core, stop.pc)
        return stop

    def _breakpoint_stops(self, core: str, pc: int) -> bool:
        """Count a hit on the breakpoints at ``pc`` of ``core``; True if one of them stops the
        run (``last_hits``).  Conditions are evaluated in that core's context."""
        saved, self.t.current = self.t.current, core
        try:
            return self.t.points.hit(core, pc, self.expressions.condition_true)
        finally:
            self.t.current = saved

    # -- interrupts ----------------------------------------------------------------------------------
    def interrupt(self) -> None:
        """Stop a running ``cont`` (safe to call from another thread); ``interrupted`` stays
        True until ``clear_interrupt`` (whoever starts a command clears it).  A tile not built
        yet has nothing to stop (``run_breakable`` interrupts again while one is pending)."""
        self._interrupted = True
        if self.t.built:
            self.tile.interrupt()

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    def clear_interrupt(self) -> None:
        """Drop a pending interrupt, the session's and the tile's (a new command starts)."""
        self._interrupted = False
        if self.t.built:
            self.tile.clear_interrupt()

    def check_interrupt(self) -> None:
        """For long work outside the emulator (formatting, packing): stop at a Ctrl-C."""
        if self._interrupted:
            raise SessionError("Quit")

    def run_breakable(self, action: Callable[[], T], wants_stop: Callable[[], bool] = lambda: False,
                      keyboard: bool = True) -> T:
        """Run ``action`` in a worker thread while this thread passes on interrupts, so a
        running core can be stopped without losing any state: every 50 ms, ``interrupt`` again
        while one is pending or ``wants_stop()`` (a request that comes between two emulator
        runs is lost otherwise); with ``keyboard``, a ``KeyboardInterrupt`` here (SIGINT's
        default handler) is one too.  A pending interrupt is dropped first.  What ``action``
        raises is raised here.

        This thread waits on an event, not ``Thread.join``: on Python 3.11 a join interrupted
        by Ctrl-C marks the still-running worker as finished."""
        self.clear_interrupt()
        result: list[T | BaseException] = []
        done = threading.Event()

        def work() -> None:
            try:
                result.append(action())
            except BaseException as exc:  # noqa: BLE001  (re-raised in the calling thread)
                result.append(exc)
            finally:
                done.set()

        threading.Thread(target=work, name="tdbg-run", daemon=True).start()
        while True:
            try:
                if done.wait(0.05):
                    break
                if self._interrupted or wants_stop():
                    self.interrupt()
            except KeyboardInterrupt:
                if not keyboard:
                    raise
                self.interrupt()
        if isinstance(result[0], BaseException):
            raise result[0]
        return result[0]
