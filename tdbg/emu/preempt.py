"""Looking at a core's turn after each slice of host time, so that a core spinning on L1 for
another core cannot starve it: ``tdbg.emu.spin`` then decides, from what the core does (never
from when it is looked at), whether it waits or keeps its turn.

Measured on Unicorn 2.1: ``emu_start``'s own ``timeout`` starts a thread per call that polls
every 2 microseconds, which costs a fifth of the emulation speed while three cores take turns;
an instruction count per turn costs far more (a C hook on every instruction).  Here one daemon
thread, asleep between checks, calls ``Core.preempt`` (an ``emu_stop`` from another thread,
as Ctrl-C does) on the core whose turn has lasted ``SLICE_S``.  Where it lands depends on host
timing, so nothing may depend on it: the core is only looked at there (``tdbg.emu.spin``).
Cores that wait for each other through the coprocessor or by polling a device block anyway and
never reach it.
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
    """Watches one turn at a time (``begin`` / ``end``); the watcher sleeps on a condition, so a
    new turn wakes it whatever slice the previous one had."""

    def __init__(self, slice_s: float = SLICE_S) -> None:
        self.slice_s = slice_s
        self._cond = threading.Condition()
        self._core: Core | None = None
        self._deadline = 0.0
        self._turn = 0      # begins so far: an ask that outlives its turn leaves the next alone
        self._thread: threading.Thread | None = None

    def begin(self, core: Core) -> None:
        """``core`` starts a turn that may be cut after the slice."""
        with self._cond:
            self._core, self._deadline = core, time.monotonic() + self.slice_s
            self._turn += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="tdbg-preempt", daemon=True)
                self._thread.start()
            self._cond.notify()

    def end(self, core: Core) -> None:
        """``core``'s turn is over (a newer turn, of another tile's core, stays watched)."""
        with self._cond:
            if self._core is core:
                self._core = None

    def _watch(self) -> None:
        with self._cond:
            while True:
                if self._core is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                # Stopped, or left to the core's next hook: either way ask again if the turn
                # goes on (a stop can also be lost just before emu_start begins).  The ask
                # waits for the core's hooks to be quiet, so it runs without the lock.
                core, turn = self._core, self._turn
                self._cond.release()
                try:
                    stopped = core.preempt()
                finally:
                    self._cond.acquire()
                if self._turn == turn:
                    self._deadline = time.monotonic() + (self.slice_s if stopped else RETRY_S)


#: One watcher for every tile of the process (only one core runs at a time in each).
PREEMPTOR = Preemptor()
