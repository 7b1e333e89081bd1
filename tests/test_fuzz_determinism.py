"""Determinism under any stepping pattern (issue 26): a three-core kernel (``eltwise_t*``,
``pipeline_t*``) driven by random run control through the shell (breakpoints with conditions,
ignore counts and threads, temporary ones, watchpoints, ``stepi``/``nexti``/``next``/``step``/
``finish``/``until``/``advance``, thread switches, ``scheduler-locking``, Ctrl-C from another
thread at random moments, ``reverse-stepi``), then run to its end, must leave the same output
as an uninterrupted run: every core's exit code, all of L1, ``Dst`` and the push count.  No
command may print an internal error, and the run must end (no deadlock, no hang).

To add a kernel, add its programs to ``KERNELS`` (a dict of core -> firmware, as ``Session``
takes it); a kernel that needs inputs restored first takes a ``prepare`` function."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from tdbg.emu.stops import StopKind
from tdbg.emu.toolchain import firmware_dir
from tdbg.session import RunStatus, Session

FW = firmware_dir()
KERNELS: dict[str, dict[str, object]] = {
    name: {f"T{i}": FW / f"{name}_t{i}.c" for i in range(3)} for name in ("eltwise", "pipeline")
}
BAD = ("internal error", "Traceback")


def outcome(s: Session) -> tuple[object, ...]:
    """What the kernel leaves: exit codes, L1, Dst and the number of pushes."""
    tile = s.tile
    return (dict(tile.exit_codes), hashlib.sha256(bytes(tile.l1)).hexdigest(),
            hashlib.sha256(tile.tensix.dst.bits.tobytes()).hexdigest(), len(tile.pushes))


@pytest.fixture(scope="module")
def kernels() -> dict[str, tuple[Session, tuple[object, ...], list[str]]]:
    """Per kernel: a session, the outcome of an uninterrupted run, and locations to stop at."""
    out = {}
    for name, programs in KERNELS.items():
        s = Session(programs)
        stop = s.cont()
        assert stop.kind is StopKind.EXITED, stop.describe()
        reference = outcome(s)
        locations = []
        for core, path in programs.items():
            lines = len(path.read_text().splitlines())  # type: ignore[union-attr]
            locations += [f"{path.name}:{n}" for n in range(1, lines + 1)]  # type: ignore[union-attr]
            with s.on_core(core):
                locations += [sym for sym in ("main", "_tdbg_exit") if sym in s.image.symbols]
        out[name] = (s, reference, sorted(set(locations)))
    return out


CONDITIONS = st.sampled_from(["", " if 0", " if 1", " if $pc != 0", " if results[0] == 0"])
THREADS = st.sampled_from(["", " thread 1", " thread 2", " thread 3"])


def actions(locations: list[str]) -> st.SearchStrategy[str]:
    loc = st.sampled_from(locations)
    return st.one_of(
        st.builds(lambda l, t, c: f"break {l}{t}{c}", loc, THREADS, CONDITIONS),
        st.builds(lambda l, t: f"tbreak {l}{t}", loc, THREADS),
        st.builds(lambda n, k: f"ignore {n} {k}", st.integers(1, 12), st.integers(0, 50)),
        st.builds(lambda n: f"delete {n}", st.integers(1, 12)),
        st.builds(lambda n: f"disable {n}", st.integers(1, 12)),
        st.just("watch results[0]"),
        st.just("continue"),
        st.builds(lambda n: f"continue {n}", st.integers(1, 5)),
        st.builds(lambda n: f"stepi {n}", st.integers(1, 40)),
        st.sampled_from(["nexti", "next", "step", "finish", "until", "reverse-stepi", "info threads"]),
        st.builds(lambda l: f"until {l}", loc),
        st.builds(lambda l: f"advance {l}", loc),
        st.builds(lambda n: f"thread {n}", st.integers(1, 3)),
        st.builds(lambda m: f"set scheduler-locking {m}", st.sampled_from(["on", "off", "step"])),
        st.builds(lambda d: f"!interrupt {d}", st.integers(0, 60)),   # Ctrl-C after d ms, during continue
    )


def _run(s: Session, line: str) -> str:
    if line.startswith("!interrupt"):
        delay = int(line.split()[1]) / 1000
        timer = threading.Timer(delay, s.interrupt)
        timer.start()
        try:
            return s.execute("continue", check=False)
        finally:
            timer.cancel()
    return s.execute(line, check=False)


def _finish(s: Session) -> None:
    """Every breakpoint gone, every core free: continue until the program has exited."""
    s.execute("delete", check=False)
    s.execute("set scheduler-locking off", check=False)
    for _ in range(20):
        if s.status is RunStatus.EXITED:
            return
        stop = s.cont()
        assert stop.kind not in (StopKind.DEADLOCK, StopKind.FAULT), stop.describe()
    raise AssertionError(f"the program did not end: {s.execute('info threads', check=False)}")


@st.composite
def scripts(draw: st.DrawFn, kernels: dict) -> tuple[str, list[str]]:  # type: ignore[type-arg]
    name = draw(st.sampled_from(sorted(KERNELS)))
    return name, draw(st.lists(actions(kernels[name][2]), max_size=25))


def _check(kernels: dict, name: str, script: list[str], prepare: Callable[[Session], None] | None = None) -> None:  # type: ignore[type-arg]
    s, reference, _ = kernels[name]
    s.execute("delete", check=False)
    s.execute("set scheduler-locking off", check=False)
    s.restart()
    s.select_core("T0")
    with bounded(120):
        for line in script:
            out = _run(s, line)
            assert not any(b in out for b in BAD), (line, out)
        _finish(s)
    assert outcome(s) == reference, script


@fuzz_settings(short=25, long=2500)
@given(data=st.data())
def test_same_output_whatever_the_stepping(kernels: dict, data: st.DataObject) -> None:  # type: ignore[type-arg]
    name, script = data.draw(scripts(kernels))
    _check(kernels, name, script)
