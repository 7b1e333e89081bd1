"""Debugger writes into every device region (issue 26): for each core, random offsets, sizes and
values in each of its regions (``Core.regions``: tile registers, the Dst window, GPRs, the
instruction push, PCBuf/TTSync/semaphores, mailboxes, config, NoC, ...), written through the API
(``write_memory``), the shell (``set {T}ADDR = V``, ``restore``) and read back (``x``), on the
three-core pipeline before and while it runs.

Each example asserts: a write completes or fails with one line (``Cannot write memory ...``), a
read likewise; never an internal error or a Python exception; afterwards the session answers,
and a ``run`` from the start ends (exited, parked, or a stop that names its reason: the writes
may have changed what the firmware sees)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from tdbg.emu.stops import StopKind
from tdbg.session import Session, SessionError
from tdbg.commands import execute
from examples import EXAMPLES

BAD = ("internal error", "Traceback")
TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int"}


@pytest.fixture(scope="module")
def pipeline() -> Session:
    return Session({f"T{i}": EXAMPLES / f"pipeline_t{i}.c" for i in range(3)})


@st.composite
def writes(draw: st.DrawFn, s: Session) -> tuple[str, str, int, int, int]:
    """(core, path: api | set | restore | x, address, size, value)."""
    core = draw(st.sampled_from(sorted(s.tile.cores)))   # every core, with firmware or not
    region = draw(st.sampled_from(s.tile.cores[core].regions))
    size = draw(st.sampled_from([1, 2, 4, 8]))
    offset = draw(st.one_of(st.integers(0, 64), st.integers(0, region.size - 1), st.just(region.size - size)))
    value = draw(st.one_of(st.sampled_from([0, 1, 0xFF, 0xFFFF, 0x7F817F81, 0xFFFFFFFF]), st.integers(0, 2**64 - 1)))
    path = draw(st.sampled_from(["api", "set", "restore", "x"]))
    return core, path, region.base + max(offset, 0), size, value & ((1 << (8 * size)) - 1)


def _write(s: Session, tmp: Path, path: str, address: int, size: int, value: int) -> str:
    if path == "api":
        try:
            s.write_memory(address, value.to_bytes(size, "little"))
        except SessionError as exc:
            return str(exc)
        return ""
    if path == "set":
        kind = TYPES.get(size, "unsigned long long")
        return execute(s, f"set {{{kind}}}{address:#x} = {value:#x}", check=False)
    if path == "restore":
        data = tmp / "w.bin"
        data.write_bytes(value.to_bytes(size, "little"))
        return execute(s, f"restore {data} binary {address:#x}", check=False)
    return execute(s, f"x/{max(size // 4, 1)}xw {address & ~3:#x}", check=False)


@fuzz_settings(short=15, long=2000)
@given(data=st.data())
def test_writes_into_every_device_region(pipeline: Session, tmp_path_factory: pytest.TempPathFactory,
                                         data: st.DataObject) -> None:
    s = pipeline
    tmp = tmp_path_factory.mktemp("w", numbered=True)
    execute(s, "delete", check=False)
    s.restart()
    s.clear_interrupt()
    steps = data.draw(st.lists(st.tuples(writes(s), st.integers(0, 2000)), min_size=1, max_size=12))
    with bounded(120):
        for (core, path, address, size, value), run_for in steps:
            s.select_core(core)
            out = _write(s, tmp, path, address, size, value)
            assert not any(b in out for b in BAD), (core, path, hex(address), size, out)
            if run_for:   # let the cores run a little between writes (a limit per turn)
                stop = s.cont(limit=run_for)
                assert stop.kind is not StopKind.FAULT, stop.describe()
        assert execute(s, "p 1 + 2").strip().endswith("= 3")
        s.restart()
        stop = s.cont()
        assert stop.kind is not StopKind.FAULT and not any(b in stop.describe() for b in BAD), stop.describe()
