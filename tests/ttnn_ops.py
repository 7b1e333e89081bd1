"""A user's ttnn script, nothing in it written for tdbg: run by the ttnn host (tests/ttnn_host.py) on
whatever ``TT_METAL_SIMULATOR`` names, it prints one JSON line per op named on its command line:
``{"op": ..., "mismatches": N, "values": N, ...}`` against numpy, or ``{"op": ..., "error": ...}``.

numpy is the oracle.  Inputs are chosen so that every result is exactly representable in bf16
(multiples of 1/8 for add, small integers for matmul and sum), so the device's rounding cannot hide a wrong
answer; ``add_random`` adds normal values, where the FPU's rounding is not numpy's nearest-even
(ttsim rounds ties away from zero and truncates the smaller operand as it aligns it, measured):
there a result must be within one bf16 step.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
    x = rng.integers(-2, 3, (32, 64)).astype(np.float32)
    got = host(ttnn.sum(device(x, dev), dim=-1, keepdim=True), (32, 1))
    return {"mismatches": int((got[:, 0] != x.sum(axis=1)).sum()), "values": 32}


def op_relu(dev, rng) -> dict:
    """An SFPU op: its kernel needs SFPI's compiler (refused by tdbg's stand-in)."""
    x = eighths(rng, (32, 32))
    got = host(ttnn.relu(device(x, dev)), x.shape)
    return {"mismatches": int((got != np.maximum(x, 0)).sum()), "values": x.size}


def _ints(rng, shape, lo=-4, hi=5) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(np.float32)


def _unary(dev, rng, fn, want, shape=(64, 64)) -> dict:
    x = _ints(rng, shape)
    out = fn(device(x, dev))
    expect = want(x)
    got = host(out, expect.shape)
    return {"mismatches": int((got != expect).sum()), "values": expect.size}


def _binary(dev, rng, fn, want, shape=(64, 64)) -> dict:
    a, b = _ints(rng, shape), _ints(rng, shape)
    expect = want(a, b)
    got = host(fn(device(a, dev), device(b, dev)), expect.shape)
    return {"mismatches": int((got != expect).sum()), "values": expect.size}


def op_subtract(dev, rng) -> dict:
    return _binary(dev, rng, ttnn.subtract, np.subtract)


def op_multiply(dev, rng) -> dict:
    return _binary(dev, rng, ttnn.multiply, np.multiply)


def op_transpose(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.transpose(t, 0, 1), lambda x: x.T, (64, 96))


def op_permute(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.permute(t, (0, 2, 1)), lambda x: x.transpose(0, 2, 1), (2, 64, 32))


def op_concat(dev, rng) -> dict:
    return _binary(dev, rng, lambda a, b: ttnn.concat([a, b], dim=1), lambda a, b: np.concatenate([a, b], 1))


def op_slice(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.slice(t, [32, 0], [64, 64]), lambda x: x[32:64, 0:64], (64, 64))


def op_reshape(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.reshape(t, (32, 128)), lambda x: x.reshape(32, 128), (64, 64))


def op_pad(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.pad(t, [(0, 32), (0, 32)], 0.0), lambda x: np.pad(x, ((0, 32), (0, 32))),
                  (32, 32))


def op_repeat(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.repeat(t, (2, 1)), lambda x: np.tile(x, (2, 1)), (32, 64))


def op_clone(dev, rng) -> dict:
    return _unary(dev, rng, ttnn.clone, lambda x: x)


def op_copy(dev, rng) -> dict:
    """``ttnn.copy(a, b)``: ``a``'s elements into ``b``, in place."""
    a, b = _ints(rng, (64, 64)), _ints(rng, (64, 64))
    into = device(b, dev)
    ttnn.copy(device(a, dev), into)
    got = host(into, a.shape)
    return {"mismatches": int((got != a).sum()), "values": a.size}


def op_memory_config(dev, rng) -> dict:
    """DRAM interleaved -> L1 interleaved -> DRAM interleaved (``ttnn.to_memory_config``)."""
    x = _ints(rng, (64, 96))
    in_l1 = ttnn.to_memory_config(device(x, dev), ttnn.L1_MEMORY_CONFIG)
    back = ttnn.to_memory_config(in_l1, ttnn.DRAM_MEMORY_CONFIG)
    buffers = [in_l1.memory_config().buffer_type == ttnn.BufferType.L1,
               back.memory_config().buffer_type == ttnn.BufferType.DRAM]
    got = host(back, x.shape)
    return {"mismatches": int((got != x).sum()) + buffers.count(False), "values": x.size}


def op_linear(dev, rng) -> dict:
    a, w, bias = _ints(rng, (64, 64), -2, 3), _ints(rng, (64, 32), -2, 3), _ints(rng, (1, 32), -2, 3)
    got = host(ttnn.linear(device(a, dev), device(w, dev), bias=device(bias, dev)), (64, 32))
    return {"mismatches": int((got != a @ w + bias).sum()), "values": got.size}


def op_add_bcast(dev, rng) -> dict:
    """A row broadcast: (64, 64) + (1, 64)."""
    return _binary_shapes(dev, rng, ttnn.add, np.add, (64, 64), (1, 64))


def _binary_shapes(dev, rng, fn, want, sa, sb) -> dict:
    a, b = _ints(rng, sa), _ints(rng, sb)
    expect = want(a, b)
    got = host(fn(device(a, dev), device(b, dev)), expect.shape)
    return {"mismatches": int((got != expect).sum()), "values": expect.size}


def op_mean(dev, rng) -> dict:
    """Mean over the last dim of 32 values: sums of small integers over 32 (exact in bf16)."""
    x = _ints(rng, (32, 32), -2, 3) * 4
    got = host(ttnn.mean(device(x, dev), dim=-1, keepdim=True), (32, 1))
    return {"mismatches": int((got[:, 0] != bf16(x.mean(axis=1))).sum()), "values": 32}


def op_max(dev, rng) -> dict:
    x = _ints(rng, (32, 64))
    got = host(ttnn.max(device(x, dev), dim=-1, keepdim=True), (32, 1))
    return {"mismatches": int((got[:, 0] != x.max(axis=1)).sum()), "values": 32}


def op_layout_padded(dev, rng) -> dict:
    """Tilize a shape that is no multiple of a tile (the device pads), then untilize it back."""
    x = _ints(rng, (50, 70))
    tiled = ttnn.to_layout(device(x, dev, ttnn.ROW_MAJOR_LAYOUT), ttnn.TILE_LAYOUT)
    back = ttnn.to_layout(tiled, ttnn.ROW_MAJOR_LAYOUT)
    got = np.array(back.cpu().to_list(), dtype=np.float32).reshape(x.shape)
    return {"mismatches": int((got != x).sum()), "values": x.size}


def op_sharded(dev, rng) -> dict:
    """Interleaved -> height-sharded over both cores' L1 -> interleaved."""
    x = _ints(rng, (64, 64))
    config = ttnn.create_sharded_memory_config((64, 64), ttnn.CoreGrid(y=1, x=2), ttnn.ShardStrategy.HEIGHT)
    sharded = ttnn.to_memory_config(device(x, dev), config)
    got = host(ttnn.to_memory_config(sharded, ttnn.DRAM_MEMORY_CONFIG), x.shape)
    return {"mismatches": int((got != x).sum()), "values": x.size}


def op_embedding(dev, rng) -> dict:
    weights = _ints(rng, (64, 32))
    index = rng.integers(0, 64, (1, 32))
    ids = ttnn.Tensor(index.astype(np.uint32), data_type=ttnn.uint32, device=dev, layout=ttnn.ROW_MAJOR_LAYOUT)
    table = device(weights, dev, ttnn.ROW_MAJOR_LAYOUT)
    out = ttnn.embedding(ids, table, layout=ttnn.ROW_MAJOR_LAYOUT)
    got = np.array(out.cpu().to_list(), dtype=np.float32).reshape(32, 32)
    return {"mismatches": int((got != weights[index[0]]).sum()), "values": got.size}


def op_full_like(dev, rng) -> dict:
    x = _ints(rng, (64, 64))
    got = host(ttnn.full_like(device(x, dev), 3.0), x.shape)
    return {"mismatches": int((got != 3).sum()), "values": x.size}


def op_stack(dev, rng) -> dict:
    return _binary(dev, rng, lambda a, b: ttnn.stack([a, b], dim=0), lambda a, b: np.stack([a, b]))


def op_expand(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.expand(t, (64, 64)), lambda x: np.broadcast_to(x, (64, 64)), (1, 64))


def op_roll(dev, rng) -> dict:
    return _unary(dev, rng, lambda t: ttnn.roll(t, 32, 0), lambda x: np.roll(x, 32, 0), (64, 64))


def op_matmul_batched(dev, rng) -> dict:
    a = rng.integers(-2, 3, (2, 64, 64)).astype(np.float32)
    b = rng.integers(-2, 3, (2, 64, 32)).astype(np.float32)
    got = host(ttnn.matmul(device(a, dev), device(b, dev)), (2, 64, 32))
    return {"mismatches": int((got != a @ b).sum()), "values": got.size}


def op_typecast(dev, rng) -> dict:
    x = _ints(rng, (32, 32))
    out = ttnn.typecast(device(x, dev), ttnn.float32)
    got = host(out, x.shape)
    return {"mismatches": int((got != x).sum()), "values": x.size}


def op_argmax(dev, rng) -> dict:
    x = rng.permutation(64 * 32).reshape(32, 64).astype(np.float32)
    out = ttnn.argmax(device(x, dev, ttnn.ROW_MAJOR_LAYOUT), dim=-1)
    got = np.array(out.cpu().to_list()).reshape(32)
    return {"mismatches": int((got != x.argmax(axis=1)).sum()), "values": 32}


def op_tril(dev, rng) -> dict:
    return _unary(dev, rng, ttnn.tril, np.tril)


def op_exp(dev, rng) -> dict:
    return _unary(dev, rng, ttnn.exp, lambda x: bf16(np.exp(x)))


def op_dprint(dev, rng, defines: tuple[tuple[str, str], ...] = ()) -> dict:
    """The user's own kernel (data/ttnn_printer.cpp) through ttnn.generic_op on NC of both
    cores: logical core (0,0) prints steps 10..12, (1,0) steps 20..21."""
    x = device(np.zeros((32, 32), np.float32), dev)
    out = ttnn.allocate_tensor_on_device(x.spec, dev)
    cores = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 0))])
    args = ttnn.RuntimeArgs()
    args[0][0] = [10, 3]
    args[1][0] = [20, 2]
    kernel = ttnn.KernelDescriptor(kernel_source=str(Path(__file__).with_name("data") / "ttnn_printer.cpp"),
                                   source_type=ttnn.KernelDescriptor.SourceType.FILE_PATH, core_ranges=cores,
                                   compile_time_args=[], defines=list(defines), runtime_args=args,
                                   config=ttnn.ReaderConfigDescriptor())
    ttnn.generic_op([x, out], ttnn.ProgramDescriptor(kernels=[kernel], semaphores=[], cbs=[]))
    ttnn.synchronize_device(dev)
    return {"done": True}


def op_assert(dev, rng) -> dict:
    """The same kernel asserting its last step is at most 15: core (1,0)'s 21 trips it."""
    return op_dprint(dev, rng, (("LAST", "15"),))


def main(ops: list[str]) -> None:
    dev = ttnn.open_device(device_id=0)
    try:
        grid = dev.compute_with_storage_grid_size()
        print(json.dumps({"op": "grid", "x": grid.x, "y": grid.y}), flush=True)
        for name in ops:
            rng = np.random.default_rng(31)
            try:
                result = globals()[f"op_{name}"](dev, rng)
            except (RuntimeError, ValueError, TypeError) as exc:
                lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
                result = {"error": next((line for line in lines if "sfpi-standin" in line), lines[0])}
            print(json.dumps({"op": name, **result}), flush=True)
    finally:
        ttnn.close_device(dev)


if __name__ == "__main__":
    main(sys.argv[1:])
