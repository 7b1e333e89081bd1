"""Determinism under any stepping pattern (issue 26): a three-core kernel (the kit's ``eltwise_t*``,
``pipeline_t*``, and tt-llk's own datacopy, eltwise add and matmul built from the ttnn wheel, with
their inputs written before the first run, which every run writes again) driven by random run
control through the shell (breakpoints with conditions,
ignore counts and threads, temporary ones, watchpoints, ``stepi``/``nexti``/``next``/``step``/
``finish``/``until``/``advance``, thread switches, ``scheduler-locking``, Ctrl-C from another
thread at random moments, ``reverse-stepi``), then run to its end, must leave the same output
as an uninterrupted run: every core's exit code, all of L1, ``Dst`` and the push count.  No
command may print an internal error, and the run must end (no deadlock, no hang).

To add a kernel, add its programs to ``KERNELS`` (a dict of core -> firmware, as ``Session``
takes it), or a tt-llk case of ``ttllk_variants.CASES`` to ``LLK_KERNELS``."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ttllk_variants as tv
from fuzzing import bounded, fuzz_settings
from tdbg.emu.stops import StopKind
from tdbg.session import RunStatus, Session
from tdbg.toolchain import ttllk, ttnn
from tdbg.commands import execute
from examples import EXAMPLES

KERNELS: dict[str, dict[str, object]] = {
    name: {f"T{i}": EXAMPLES / f"{name}_t{i}.c" for i in range(3)} for name in ("eltwise", "pipeline")
}
#: tt-llk kernels (``ttllk_variants.CASES``), when the ttnn wheel can be had.
LLK_KERNELS = {"llk_datacopy": "datacopy_bf16", "llk_eltwise_add": "eltwise_add", "llk_matmul": "matmul_2x2x2"}
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
        out[name] = _reference(s, [path for path in programs.values()])  # type: ignore[misc]
    try:
        ttnn.tree()
    except ttnn.TtnnUnavailable:
        return out      # the kit's kernels only (the tt-llk ones need the wheel)
    for name, case_name in LLK_KERNELS.items():
        case = tv.CASES[case_name]()
        s = Session(ttllk.build(case.variant))
        s.write_memory(ttllk.RUNTIME_PARAMS, case.variant.params())   # the set-up: run writes it again
        for operand, data in case.inputs.items():
            s.write_memory(case.variant.buffers[operand].address, data)
        out[name] = _reference(s, [case.variant.source_path(ttnn.tree())])
    return out


def _reference(s: Session, sources: list) -> tuple[Session, tuple[object, ...], list[str]]:  # type: ignore[type-arg]
    """A session run to its end, its outcome, and the lines and functions of its sources."""
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    locations = []
    for path in sources:
        locations += [f"{path.name}:{n}" for n in range(1, len(path.read_text().splitlines()) + 1)]
    for core in s.core_names:
        if s.has_firmware(core):
            with s.on_core(core):
                locations += [sym for sym in ("main", "_tdbg_exit") if sym in s.image.symbols]
                if "_Z10run_kernelRK13RuntimeParams" in s.image.symbols:   # tt-llk's kernel entry
                    locations.append("run_kernel")
    return s, outcome(s), sorted(set(locations))


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
            return execute(s, "continue", check=False)
        finally:
            timer.cancel()
    return execute(s, line, check=False)


def _finish(s: Session) -> None:
    """Every breakpoint gone, every core free: continue until the program has exited."""
    execute(s, "delete", check=False)
    execute(s, "set scheduler-locking off", check=False)
    for _ in range(20):
        if s.status is RunStatus.EXITED:
            return
        stop = s.cont()
        assert stop.kind not in (StopKind.DEADLOCK, StopKind.FAULT), stop.describe()
    raise AssertionError(f"the program did not end: {execute(s, 'info threads', check=False)}")


@st.composite
def scripts(draw: st.DrawFn, kernels: dict) -> tuple[str, list[str]]:  # type: ignore[type-arg]
    name = draw(st.sampled_from(sorted(kernels)))
    return name, draw(st.lists(actions(kernels[name][2]), max_size=25))


def _check(kernels: dict, name: str, script: list[str], prepare: Callable[[Session], None] | None = None) -> None:  # type: ignore[type-arg]
    s, reference, _ = kernels[name]
    execute(s, "delete", check=False)
    execute(s, "set scheduler-locking off", check=False)
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
