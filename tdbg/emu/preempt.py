"""Ending a core's turn after a slice of host time, so that a core spinning on L1 for another
core cannot starve it.

Measured on Unicorn 2.1: ``emu_start``'s own ``timeout`` starts a thread per call that polls
every 2 microseconds, which costs a fifth of the emulation speed while three cores take turns;
an instruction count per turn costs far more (a C hook on every instruction).  Here one daemon
thread, asleep between checks, calls ``Core.preempt`` (an ``emu_stop`` from another thread,
as Ctrl-C does) on the core whose turn has lasted ``SLICE_S``.  Where a preemption lands is the
one thing in a run that depends on host timing, so the slice is long (a tenth of a second):
cores that wait for each other through the coprocessor or by polling a device block instead
(deterministically) and never reach it; only a core that spins on plain L1 for another core,
or computes that long without touching the coprocessor, is cut.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.emu.core import Core

SLICE_S = 0.100
RETRY_S = 0.0005   # when the core's hooks were busy (``Core.preempt`` returned False)


class Preemptor:
    """Watches the turns under way (``begin`` / ``end``), one per tile at most: sessions in
    several threads each have their own.  The watcher sleeps on a condition until the earliest
    deadline, so a new turn wakes it whatever slices the others have."""

    def __init__(self, slice_s: float = SLICE_S) -> None:
        self.slice_s = slice_s
        self._cond = threading.Condition()
        self._turns: dict[Core, tuple[float, int]] = {}   # core -> (deadline, its turn's number)
        self._count = 0     # begins so far: an ask that outlives its turn leaves the next alone
        self._thread: threading.Thread | None = None

    def begin(self, core: Core) -> None:
        """``core`` starts a turn that may be cut after the slice."""
        with self._cond:
            self._count += 1
            self._turns[core] = (time.monotonic() + self.slice_s, self._count)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="tdbg-preempt", daemon=True)
                self._thread.start()
            self._cond.notify()

    def end(self, core: Core) -> None:
        """``core``'s turn is over (the turns of other tiles' cores stay watched)."""
        with self._cond:
            self._turns.pop(core, None)

    def _watch(self) -> None:
        with self._cond:
            while True:
                if not self._turns:
                    self._cond.wait()
                    continue
                core, (deadline, turn) = min(self._turns.items(), key=lambda item: item[1][0])
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                # Stopped, or left to the core's next hook: either way ask again if the turn
                # goes on (a stop can also be lost just before emu_start begins).  The ask
                # waits for the core's hooks to be quiet, so it runs without the lock.
                self._cond.release()
                try:
                    stopped = core.preempt()
                finally:
                    self._cond.acquire()
                if self._turns.get(core, (0.0, None))[1] == turn:
                    self._turns[core] = (time.monotonic() + (self.slice_s if stopped else RETRY_S), turn)


#: One watcher for every tile of the process (only one core runs at a time in each).
PREEMPTOR = Preemptor()
