"""Looking at a core's turn after each slice of host time, so that a core spinning on L1 for
another core cannot starve it: ``Tile._turn`` then decides from what the core does (spinning,
``tdbg.emu.idle``: it waits; computing: it goes on), never from when it was looked at.

Measured on Unicorn 2.1: ``emu_start``'s own ``timeout`` starts a thread per call that polls
every 2 microseconds, which costs a fifth of the emulation speed while three cores take turns;
an instruction count per turn costs far more (a C hook on every instruction).  Here one daemon
thread, asleep between checks, calls ``Core.preempt`` (an ``emu_stop`` from another thread,
as Ctrl-C does) on the core whose turn has lasted ``SLICE_S``.  Where it lands depends on host
timing, so nothing may depend on it; cores that wait for each other through the coprocessor or
by polling a device block anyway and never reach it.

A turn's start wakes the watcher only when it sleeps past the new deadline: with no turn under way
it sleeps a slice, then for good.  (Measured on tt-llk's datacopy, some 180 turns: waking it at
every turn's start was a tenth of the run, the thread switch and the GIL's hand-over.)
"""

from __future__ import annotations

import math
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
        self._wake = math.inf   # when the watcher wakes next (inf: when notified)

    def begin(self, core: Core) -> None:
        """``core`` starts a turn that may be cut after the slice."""
        with self._cond:
            self._count += 1
            deadline = time.monotonic() + self.slice_s
            self._turns[core] = (deadline, self._count)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="tdbg-preempt", daemon=True)
                self._thread.start()
            if deadline < self._wake:
                self._cond.notify()

    def end(self, core: Core) -> None:
        """``core``'s turn is over (the turns of other tiles' cores stay watched)."""
        with self._cond:
            self._turns.pop(core, None)

    def _watch(self) -> None:
        with self._cond:
            idle = False   # the last wait was a slice with no turn under way
            while True:
                now = time.monotonic()
                if not self._turns:
                    self._wake = math.inf if idle else now + self.slice_s
                    self._cond.wait(None if idle else self.slice_s)
                    idle = not idle
                    continue
                idle = False
                core, (deadline, turn) = min(self._turns.items(), key=lambda item: item[1][0])
                left = deadline - now
                if left > 0:
                    self._wake = deadline
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
