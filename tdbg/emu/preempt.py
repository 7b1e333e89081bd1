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
    """Watches one turn at a time (``begin`` / ``end``)."""

    def __init__(self, slice_s: float = SLICE_S) -> None:
        self.slice_s = slice_s
        self._lock = threading.Lock()
        self._core: Core | None = None
        self._deadline = 0.0
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def begin(self, core: Core) -> None:
        """``core`` starts a turn that may be cut after the slice."""
        with self._lock:
            self._core, self._deadline = core, time.monotonic() + self.slice_s
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="tdbg-preempt", daemon=True)
            self._thread.start()
        self._wake.set()

    def end(self, core: Core) -> None:
        """``core``'s turn is over (a newer turn, of another tile's core, stays watched)."""
        with self._lock:
            if self._core is core:
                self._core = None

    def _watch(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:
                core, deadline = self._core, self._deadline
                if core is None:
                    self._wake.clear()
                    continue
                if time.monotonic() >= deadline:
                    # Stopped, or left to the core's next hook: either way ask again if the
                    # turn goes on (a stop can be lost just before emu_start begins).
                    stopped = core.preempt()
                    self._deadline = time.monotonic() + (self.slice_s if stopped else RETRY_S)
                    continue
            time.sleep(max(deadline - time.monotonic(), 0.0005))


#: One watcher for every tile of the process (only one core runs at a time in each).
PREEMPTOR = Preemptor()
