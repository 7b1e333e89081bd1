"""A user's ttnn script (``tests/ttnn_ops.py``, nothing in it written for tdbg) run by the ttnn
wheel's own host on ``TT_METAL_SIMULATOR`` = tdbg's folder: numpy's answer, a breakpoint set
through ``TDBG_SIMULATOR_ARGS``, a hang.  Skips visibly without the host venv (``ttnn_host``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ttnn_host

OPS = Path(__file__).with_name("ttnn_ops.py")


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    python = ttnn_host.require()
    pytest.importorskip("pynng", reason="pynng is a dependency of tdbg's simulator server")
    from tdbg.toolchain import sfpi_standin

    ttnn_dir = next(python.parent.parent.glob("lib/python3.*/site-packages/ttnn"), None)
    if ttnn_dir is None:
        pytest.skip(f"no ttnn package beside {python}")
    sfpi_standin.install(ttnn_dir)
    return python, readme_environment(tmp_path_factory.mktemp("sim"))


def readme_environment(sim: Path) -> dict[str, str]:
    """The README's two lines ("Your ttnn program on tdbg"): the first run in bash (this tdbg,
    the folder in ``sim``), the environment it leaves; the second is how the tests run scripts."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = text.split("## Your ttnn program on tdbg", 1)[1].split("\n\n    ", 1)[1].split("\n\n", 1)[0]
    first, second = [line.strip() for line in block.splitlines()]
    assert second == "python your_script.py"
    line = first.replace("tdbg simulator", f"{sys.executable} -m tdbg simulator").replace("~/tdbg-sim", str(sim))
    done = subprocess.run(["bash", "-c", f"{line} && env"], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    env = dict(l.split("=", 1) for l in done.stdout.splitlines() if "=" in l)
    wanted = ("TT_METAL_SIMULATOR", "TT_SIMULATOR_LOCALHOST", "TT_METAL_SLOW_DISPATCH_MODE")
    assert env["TT_METAL_SIMULATOR"] == str(sim.resolve()) and (sim / "run.sh").is_file()
    return {name: env[name] for name in wanted}


def run_ops(host, ops: list[str], args: str = "", timeout: float = 900) -> tuple[dict[str, dict], str]:
    python, env = host
    done = subprocess.run([str(python), str(OPS), *ops], capture_output=True, text=True, timeout=timeout,
                          env=ttnn_host.clean_env(**env, TDBG_SIMULATOR_ARGS=args))
    results = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            results[result.pop("op")] = result
    return results, done.stderr


#: The ops that need no SFPI vector code, run one after the other in the script's one device
#: session (each program's kernels where the last one's were), and the values each compares.
WITHOUT_SFPI = {"tilize_untilize": 64 * 96, "matmul": 64 * 128, "linear": 64 * 32, "reduce_sum": 32,
                "mean": 32, "subtract": 64 * 64, "add_bcast": 64 * 64, "transpose": 64 * 96,
                "permute": 2 * 64 * 32, "concat": 64 * 128, "slice": 32 * 64, "reshape": 64 * 64,
                "pad": 64 * 64, "repeat": 64 * 64, "clone": 64 * 64, "copy": 64 * 64, "memory_config": 64 * 96,
                "sharded": 64 * 64, "embedding": 32 * 32}
if os.environ.get("TDBG_TTNN_LONG"):      # about 40 s more
    WITHOUT_SFPI.update({"layout_padded": 50 * 70, "stack": 2 * 64 * 64, "expand": 64 * 64, "roll": 64 * 64,
                         "matmul_batched": 2 * 64 * 32, "typecast": 32 * 32, "argmax": 32})


@pytest.fixture(scope="module")
def ops(host) -> tuple[dict[str, dict], str]:
    """One host run of add and every op of ``WITHOUT_SFPI`` (about 70 s here, kernels built;
    add alone is about 14 s)."""
    return run_ops(host, ["add", "add_64_tiles", *WITHOUT_SFPI])


def test_add_one_and_64_tiles(ops):
    results, err = ops
    assert results["grid"] == {"x": 2, "y": 1}, err[-3000:]      # the two-core simulation grid
    assert results["add"] == {"mismatches": 0, "values": 1024}, err[-3000:]
    assert results["add_64_tiles"] == {"mismatches": 0, "values": 65536}, err[-3000:]
    assert "tdbg simulator:" in err and " WRITE" in err


@pytest.mark.parametrize("op", WITHOUT_SFPI)
def test_an_op_without_sfpi_gives_numpys_answer(ops, op):
    """Tilize and untilize, matmul over both cores (its in0/in1 multicast), the reduction,
    the data-movement ops, DRAM <-> L1 moves: numpy's answer, every value."""
    results, err = ops
    assert results.get(op) == {"mismatches": 0, "values": WITHOUT_SFPI[op]}, err[-3000:]


def test_breakpoint_through_simulator_args(host, tmp_path):
    script = tmp_path / "checks.gdb"
    script.write_text("break eltwise_binary_no_bcast.cpp:70 thread T1\ncommands\n  print num_tiles\n  bt 1\nend\n")
    results, err = run_ops(host, ["add"], f"-x {script}")
    assert "Breakpoint 1, kernel_main () at " in err and "eltwise_binary_no_bcast.cpp:70" in err, err[-3000:]
    assert "$1 = 1" in err, err[-3000:]                                        # one tile for one core
    assert results["add"] == {"mismatches": 0, "values": 1024}, err[-3000:]    # and it went on


def test_a_hang_is_reported_and_ends_the_script(host, tmp_path):
    """T1 sent back to its firmware's start from the kernel: it waits for a go message that never
    comes, the host polls for a done message no core can produce."""
    script = tmp_path / "hang.gdb"
    script.write_text("break kernel_main thread T1\ncommands\n  set var $pc = main\nend\n")
    results, err = run_ops(host, ["add"], f"-x {script}")
    assert "the host waits for the device, and no core can run" in err, err[-3000:]
    assert "Program stopped: deadlock: no core can run." in err
    report = " ".join(err.split())                                               # the report wraps at the width
    assert "in _llk_packer_wait_for_math_done_ at llk_pack_common.h" in report   # T2 waits for T1's math
    assert "it needs a post of semaphore 1 (MATH_PACK), made by: T1" in report
    assert "empty read response" in results["add"]["error"]
