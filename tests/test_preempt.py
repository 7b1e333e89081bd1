"""The preemption watcher (tdbg.emu.preempt): a turn that outlasts its slice is cut, and turns that
start and end within their slices do not wake the watcher each time."""

from __future__ import annotations

import threading
import time

from tdbg.emu.preempt import Preemptor


class _Core:
    def __init__(self) -> None:
        self.asked = threading.Event()

    def preempt(self) -> bool:
        self.asked.set()
        return True


class _CountingCondition(threading.Condition):
    notified = 0

    def notify(self, n: int = 1) -> None:
        type(self).notified += 1
        super().notify(n)


def test_a_turn_longer_than_its_slice_is_cut() -> None:
    watcher, core = Preemptor(slice_s=0.05), _Core()
    started = time.monotonic()
    watcher.begin(core)
    assert core.asked.wait(5.0)
    assert time.monotonic() - started >= 0.05
    watcher.end(core)


def test_short_turns_do_not_wake_the_watcher_at_each_start() -> None:
    watcher, core = Preemptor(slice_s=0.2), _Core()
    watcher._cond = _CountingCondition()
    watcher.begin(core)     # starts the watcher, which then sleeps until this turn's deadline
    watcher.end(core)
    time.sleep(0.05)
    before = _CountingCondition.notified
    for _ in range(200):
        watcher.begin(core)
        watcher.end(core)
    assert _CountingCondition.notified - before == 0
    assert not core.asked.is_set()
    time.sleep(0.5)         # two slices with no turn: the watcher sleeps until notified
    watcher.begin(core)     # ... and a turn then is still cut after its slice
    assert core.asked.wait(5.0)
    watcher.end(core)
