"""Settings shared by the fuzz tests (``test_fuzz_*.py``): a short run by default, many more
examples with ``--fuzz-long`` or ``TDBG_FUZZ_LONG=1``.  Every example must end in bounded time:
``bounded`` arms a watchdog that dumps every thread's stack and fails the run if it does not."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, settings

LONG = os.environ.get("TDBG_FUZZ_LONG", "") not in ("", "0")


def fuzz_settings(short: int, long: int) -> settings:
    """``short`` examples normally, ``long`` in the long run; no per-example deadline (the
    watchdog bounds each one instead), no shrinking limit on time."""
    return settings(max_examples=long if LONG else short, deadline=None, derandomize=not LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


@contextmanager
def bounded(seconds: float = 60) -> Iterator[None]:
    """Fail loudly (every thread's traceback, then exit) if the block runs past ``seconds``:
    a hang is a failure, never a stuck suite."""
    faulthandler.dump_traceback_later(seconds, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
