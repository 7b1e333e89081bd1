"""Vector Unit kernels on the emulated tile: tdbg's own ``sfpu_kernels.c`` (ReLU, and an ELU whose
exponential is a polynomial evaluated under lane predication) checked against numpy and against a
scalar reference of the Blackhole FMA, and Tenstorrent's cumulative-sum SFPU op (tt-metal's
``ckernel_sfpu_cumsum.h`` from the ttnn wheel, built with tt-llk's harness around our driver
``firmware/ttllk_cumsum.cpp``) checked against a column-wise running sum."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from sfpu_reference import fma_reference

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.toolchain import ttllk, ttnn
from examples import EXAMPLES

CUMSUM_DRIVER = Path(__file__).resolve().parent / "firmware" / "ttllk_cumsum.cpp"
ONE = 0x3F800000


def test_relu_and_polynomial_elu_kernels() -> None:
    s = Session(EXAMPLES / "sfpu_kernels.c")
    rng = np.random.default_rng(7)
    x = rng.uniform(-1.0, 1.0, (64, 16)).astype(np.float32)
    s.set_dst(slice(0, 64), x, view="fp32")
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    assert s.read_u32(s.symbol("results").addr) == 32

    relu = s.dst(slice(64, 128), view="fp32")
    assert (relu == np.maximum(x, 0)).all()

    elu = s.dst(slice(128, 192), view="fp32")
    assert (elu[x >= 0] == x[x >= 0]).all()
    assert np.allclose(elu[x < 0], np.expm1(x[x < 0].astype(np.float64)), atol=3e-5)  # Taylor: |x|**8 / 8!
    coefficients = [int(np.float32(1 / math.factorial(k)).view(np.uint32)) for k in range(7, 1, -1)]
    bits = elu.view(np.uint32)
    for value in x[x < 0][:200]:
        v = int(np.float32(value).view(np.uint32))
        p = coefficients[0]
        for c in coefficients[1:]:
            p = fma_reference(p, v, c)
        expected = fma_reference(fma_reference(p, v, ONE), v, 0)
        assert bits[x == value][0] == expected


def test_bench_sfpu_mix_counts_up() -> None:
    # scripts/bench.py figure (d)'s SFPU mix: each trip loads x, stores x * 1.0 + 1.0 (never < 0)
    s = Session(EXAMPLES / "bench_sfpu.c")
    s.write_value(s.symbol("iterations").addr, 4, 40)
    assert s.cont().kind is StopKind.EXITED
    cells = s.dst(slice(0, 4), view="fp32")[:, 0::2]
    assert (cells == 41.0).all()


def bf16_truncate(values: np.ndarray) -> np.ndarray:
    """SFPSTORE.md ToBF16: truncate FP32 to BF16 (no denormals occur here)."""
    return ((values.astype(np.float32).view(np.uint32) >> 16) << 16).view(np.float32)


def test_tt_metal_cumsum_gives_column_running_sums() -> None:
    variant = ttllk.Variant(str(CUMSUM_DRIVER), ttllk.Formats.infer("Float16_b", "Float16_b", False), tiles=None)
    try:
        elfs = ttllk.build(variant)
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"the cumsum op comes from the ttnn wheel: {exc}")
    s = Session(elfs)
    s.write_memory(ttllk.RUNTIME_PARAMS, variant.params())
    rng = np.random.default_rng(3)
    tile = bf16_truncate(rng.uniform(-4.0, 4.0, (32, 32)))
    faces = [tile[:16, :16], tile[:16, 16:], tile[16:, :16], tile[16:, 16:]]   # Dst rows 16f..16f+15
    s.set_dst(slice(0, 64), np.concatenate(faces), view="bf16")
    stop = s.cont()
    assert stop.kind is StopKind.EXITED, stop.describe()
    running = np.zeros(32, dtype=np.float32)
    expected = np.zeros_like(tile)
    for row in range(32):                    # FP32 adds down each column, each sum stored as BF16
        running = (running + tile[row]).astype(np.float32)
        expected[row] = bf16_truncate(running)
    got = s.dst(slice(0, 64), view="bf16")
    assert (np.concatenate([got[:16], got[16:32]], axis=1) == expected[:16]).all()
    assert (np.concatenate([got[32:48], got[48:]], axis=1) == expected[16:]).all()
