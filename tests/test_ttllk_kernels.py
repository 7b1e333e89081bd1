"""tt-llk's own test kernels, built from the ttnn wheel at the Blackhole ISA and run on the whole
tile as a host runs them (``shared/kernels/README.md`` "How a host runs them": the three ELFs
loaded tt-exalens' way, ``RuntimeParams`` at ``0x20000``, the inputs from ``0x21000``, every TRISC
released at its entry), then compared with an independent golden (``ttllk_variants``: numpy, bit
for bit where the result is exact, else within tt-llk's tolerance) and, for the three kernels in
``../shared/kernels``, with the bytes Tenstorrent's simulator ttsim wrote.

The wheel is downloaded once into the ttnn cache (``tdbg.toolchain.ttnn``); without it (no
network) the module skips, saying why.  ``TDBG_TTLLK_SWEEP=1`` also builds every tt-llk test
source (``test_ttllk_sweep.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import ttllk_variants as tv

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.toolchain import ttllk, ttnn
from tdbg.toolchain.ttllk import Variant

SHARED_KERNELS = Path(__file__).resolve().parents[2] / "shared" / "kernels"
MAILBOXES = 0x1FFB8          # trisc.cpp mailboxes_start: T0, T1, T2
KERNEL_COMPLETE = b"\xff\0\0\0" * 3


@pytest.fixture(scope="module", autouse=True)
def wheel() -> ttnn.Tree:
    try:
        return ttnn.tree()
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"tt-llk kernels need the ttnn wheel: {exc}")


def run(variant: Variant, inputs: dict[str, bytes], isa: str = ttllk.BLACKHOLE_ISA) -> Session:
    """Build ``variant``, load it with its parameters and inputs, run every core to its end."""
    s = Session(ttllk.build(variant, isa))
    s.write_memory(ttllk.RUNTIME_PARAMS, variant.params())
    for name, data in inputs.items():
        s.write_memory(variant.buffers[name].address, data)
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert s.read_memory(MAILBOXES, 12) == KERNEL_COMPLETE
    return s


@pytest.mark.parametrize("name", list(tv.CASES))
def test_kernel_matches_its_golden(name: str) -> None:
    case = tv.CASES[name]()
    s = run(case.variant, case.inputs)
    res = case.variant.buffers["Res"]
    got = tv.decode(s.read_memory(res.address, case.out_bytes), case.out_format)
    if case.tolerance is None:
        wrong = np.flatnonzero(got != case.golden)
        assert wrong.size == 0, f"{wrong.size} datums differ, first at {wrong[0]}: {got[wrong[0]]} != {case.golden[wrong[0]]}"
    else:
        atol, rtol = case.tolerance
        assert np.isclose(got, case.golden, atol=atol, rtol=rtol).all(), "outside tt-llk's tolerance"


# -- ../shared/kernels: ttsim's bytes -----------------------------------------------------------------

def shared(name: str) -> Path:
    folder = SHARED_KERNELS / name
    if not folder.is_dir():
        pytest.skip(f"../shared/kernels/{name} (ttsim's outputs) is not present")
    return folder


def _lines(build_h: str) -> list[str]:
    return [line for line in build_h.splitlines() if line.strip() and not line.startswith("//")]


@pytest.mark.parametrize("name", list(tv.SHARED))
def test_shared_kernel_matches_ttsim(name: str) -> None:
    """The variant writes the reference's ``build.h`` and ``params.bin``, and the kernel built from
    it writes ttsim's ``expected.bin`` byte for byte."""
    folder = shared(name)
    manifest = json.loads((folder / "manifest.json").read_text())
    variant = tv.SHARED[name]()
    assert _lines(variant.build_h()) == _lines((folder / "build.h").read_text())
    assert variant.params() == (folder / "params.bin").read_bytes()
    inputs = {}
    for load in manifest["loads"][1:]:
        operand = next(k for k, op in variant.buffers.items() if op.address == int(load["addr"], 16))
        inputs[operand] = (folder / load["file"]).read_bytes()
    s = run(variant, inputs)
    out = manifest["output"]
    assert s.read_memory(int(out["addr"], 16), out["len"]) == (folder / "expected.bin").read_bytes()
