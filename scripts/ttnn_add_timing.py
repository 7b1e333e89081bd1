"""ttnn.add timed on whatever ``TT_METAL_SIMULATOR`` names, for scripts/bench.py (m): run by the
ttnn host's Python (tests/ttnn_host.py).  The device is opened and each size is added once
first (the JIT builds and loads its kernels), then each add with the result read back is timed
(wall clock, best of ``REPEAT``), the inputs already on the device.  Prints one JSON line:
``{"tiles": {"1": seconds, "64": seconds}, "mismatches": N, "reads": {"1": N, "64": N}}`` (against
numpy; ``reads``: the host's READ requests in the last add, counted in the request trace that
``TDBG_TRACE`` names, tdbg's ``--trace-requests FILE``, when it is set)."""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import ttnn

REPEAT = 3
SHAPES = {1: (32, 32), 64: (256, 256)}


def _reads() -> int:
    """READ requests in the trace so far (0 without one)."""
    trace = os.environ.get("TDBG_TRACE")
    if not trace or not os.path.exists(trace):
        return 0
    with open(trace) as f:
        return sum(line.startswith("READ ") for line in f)


def main(sizes: list[int]) -> None:
    dev = ttnn.open_device(device_id=0)
    try:
        rng = np.random.default_rng(34)
        times, mismatches, reads = {}, 0, {}
        for tiles in sizes:
            shape = SHAPES[tiles]
            a, b = ((rng.integers(-64, 64, shape) / 8).astype(np.float32) for _ in range(2))
            da, db = (ttnn.Tensor(x, data_type=ttnn.bfloat16, device=dev, layout=ttnn.TILE_LAYOUT) for x in (a, b))
            best = float("inf")
            for run in range(REPEAT + 1):       # run 0: the JIT build and the first load
                before, t0 = _reads(), time.perf_counter()
                out = ttnn.to_layout(ttnn.add(da, db).cpu(), ttnn.ROW_MAJOR_LAYOUT)
                elapsed = time.perf_counter() - t0
                reads[str(tiles)] = _reads() - before
                if run:
                    best = min(best, elapsed)
            got = np.array(out.to_list(), dtype=np.float32).reshape(shape)
            mismatches += int((got != a + b).sum())
            times[str(tiles)] = best
        print(json.dumps({"tiles": times, "mismatches": mismatches, "reads": reads}), flush=True)
    finally:
        ttnn.close_device(dev)


if __name__ == "__main__":
    main([int(n) for n in sys.argv[1:]] or [1, 64])
