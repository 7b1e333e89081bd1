"""A user's ttnn script, nothing in it written for tdbg: run by the ttnn host (tests/ttnn_host.py) on
whatever ``TT_METAL_SIMULATOR`` names, it prints one JSON line per op named on its command line:
``{"op": ..., "mismatches": N, "values": N, ...}`` against numpy, or ``{"op": ..., "error": ...}``.

numpy is the oracle.  Inputs are chosen so that every result is exactly representable in bf16
(multiples of 1/8 for add and sum, small integers for matmul), so the device's rounding cannot hide a wrong
answer; ``add_random`` adds normal values, where the FPU's rounding is not numpy's nearest-even
(ttsim rounds ties away from zero and truncates the smaller operand as it aligns it, measured):
there a result must be within one bf16 step.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import ttnn


def bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> the nearest bf16 (ties to even), as float32."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def host(t: "ttnn.Tensor", shape: tuple[int, ...]) -> np.ndarray:
    rows = ttnn.to_layout(t.cpu(), ttnn.ROW_MAJOR_LAYOUT)
    return np.array(rows.to_list(), dtype=np.float32).reshape(shape)


def device(x: np.ndarray, dev, layout=ttnn.TILE_LAYOUT) -> "ttnn.Tensor":
    return ttnn.Tensor(x, data_type=ttnn.bfloat16, device=dev, layout=layout)


def eighths(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return (rng.integers(-64, 64, shape) / 8).astype(np.float32)


def op_add(dev, rng, shape=(32, 32)) -> dict:
    a, b = eighths(rng, shape), eighths(rng, shape)
    got = host(ttnn.add(device(a, dev), device(b, dev)), shape)
    return {"mismatches": int((got != a + b).sum()), "values": a.size}


def op_add_64_tiles(dev, rng) -> dict:
    return op_add(dev, rng, (256, 256))


def op_add_random(dev, rng) -> dict:
    """Normal values: every sum within one bf16 step of numpy's (``mismatches`` counts those
    that are not), ``inexact`` the sums that differ from numpy's nearest-even rounding."""
    a, b = bf16(rng.standard_normal((64, 64))), bf16(rng.standard_normal((64, 64)))
    exact = a.astype(np.float64) + b
    got = host(ttnn.add(device(a, dev), device(b, dev)), a.shape)
    step = np.exp2(np.floor(np.log2(np.maximum(np.abs(exact), 2.0 ** -100))) - 7)
    return {"mismatches": int((np.abs(got - exact) > step).sum()),
            "inexact": int((got != bf16(exact.astype(np.float32))).sum()), "values": a.size}


def op_tilize_untilize(dev, rng) -> dict:
    x = bf16(rng.standard_normal((64, 96)))
    rows = device(x, dev, ttnn.ROW_MAJOR_LAYOUT)
    tiled = ttnn.to_layout(rows, ttnn.TILE_LAYOUT)            # tilize on the device
    back = ttnn.to_layout(tiled, ttnn.ROW_MAJOR_LAYOUT)       # untilize on the device
    got = np.array(back.cpu().to_list(), dtype=np.float32).reshape(x.shape)
    return {"mismatches": int((got != x).sum()), "values": x.size}


def op_matmul(dev, rng) -> dict:
    a = rng.integers(-2, 3, (64, 128)).astype(np.float32)
    b = rng.integers(-2, 3, (128, 128)).astype(np.float32)
    got = host(ttnn.matmul(device(a, dev), device(b, dev)), (64, 128))
    return {"mismatches": int((got != a @ b).sum()), "values": got.size}


def op_reduce_sum(dev, rng) -> dict:
    """ttnn's reduce kernel: its headers include SFPU code it does not use."""
    x = eighths(rng, (32, 64))
    got = host(ttnn.sum(device(x, dev), dim=-1, keepdim=True), (32, 1))
    return {"mismatches": int((got[:, 0] != x.sum(axis=1)).sum()), "values": 32}


def op_relu(dev, rng) -> dict:
    """An SFPU op: its kernel needs SFPI's compiler (refused by tdbg's stand-in)."""
    x = eighths(rng, (32, 32))
    got = host(ttnn.relu(device(x, dev)), x.shape)
    return {"mismatches": int((got != np.maximum(x, 0)).sum()), "values": x.size}


def main(ops: list[str]) -> None:
    dev = ttnn.open_device(device_id=0)
    try:
        grid = dev.compute_with_storage_grid_size()
        print(json.dumps({"op": "grid", "x": grid.x, "y": grid.y}), flush=True)
        for name in ops:
            rng = np.random.default_rng(31)
            try:
                result = globals()[f"op_{name}"](dev, rng)
            except RuntimeError as exc:
                lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
                result = {"error": next((line for line in lines if "sfpi-standin" in line), lines[0])}
            print(json.dumps({"op": name, **result}), flush=True)
    finally:
        ttnn.close_device(dev)


if __name__ == "__main__":
    main(sys.argv[1:])
