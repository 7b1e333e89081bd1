"""A user's ttnn script (``tests/ttnn_ops.py``, nothing in it written for tdbg) run by the ttnn
wheel's own host on ``TT_METAL_SIMULATOR`` = tdbg's folder: numpy's answer, a breakpoint set
through ``TDBG_SIMULATOR_ARGS``, a hang.  Skips visibly without the host venv (``ttnn_host``)."""

from __future__ import annotations

import json
import os
import re
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


def run_ops(host, ops: list[str], args: str = "", timeout: float = 900, merged: bool = False,
            **env: str) -> tuple[dict[str, dict], str]:
    """The ops' results, and what the host and tdbg wrote on stderr (``merged``: stdout and
    stderr as one stream, in the order they were written)."""
    python, readme_env = host
    done = subprocess.run([str(python), str(OPS), *ops], stdout=subprocess.PIPE, text=True, timeout=timeout,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          env=ttnn_host.clean_env(**readme_env, **env, TDBG_SIMULATOR_ARGS=args))
    results = {}
    for line in done.stdout.splitlines():
        if line.startswith('{"op": '):     # (merged: another stream's text may follow on the line)
            result = json.JSONDecoder().raw_decode(line)[0]
            results[result.pop("op")] = result
    return results, done.stdout if merged else done.stderr


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


@pytest.mark.skipif(not os.environ.get("TDBG_TTNN_LONG"), reason="the full chip's add takes about 5 min here "
                    "(TDBG_TTNN_LONG=1 runs it)")
def test_add_on_the_full_chip(host, tmp_path):
    """``tdbg simulator DIR --grid full``: the host boots all 140 Tensix tiles, takes its 13 x 10
    compute grid, and ttnn.add gives numpy's answer (278 s measured here beside the suite; most of it the 140 tiles'
    firmware and the add's kernels on 130 of them)."""
    python, readme_env = host
    folder = tmp_path / "full"
    subprocess.run([sys.executable, "-m", "tdbg", "simulator", str(folder), "--grid", "full"], check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(OPS.resolve().parent.parent)})
    results, err = run_ops((python, {**readme_env, "TT_METAL_SIMULATOR": str(folder.resolve())}), ["add"],
                           timeout=1800)
    assert results["grid"] == {"x": 13, "y": 10}, err[-3000:]
    assert results["add"] == {"mismatches": 0, "values": 1024}, err[-3000:]


def test_breakpoint_through_simulator_args(host, tmp_path):
    """One host run: a compute breakpoint (a local), a reader breakpoint set by FILE:LINE on NC
    (bt, locals, info cb, info kernels there); the run goes on to numpy's answer.  The oracle for
    the addresses is the host's own requests (--trace-requests): A and B are its first two DRAM
    writes, the result its DRAM read; the argument counts are the kernels' get_arg_val indices."""
    script, trace = tmp_path / "checks.gdb", tmp_path / "requests.txt"
    script.write_text("break eltwise_binary_no_bcast.cpp:70 thread T1\ncommands\n  print num_tiles\n  bt 1\nend\n"
                      "break reader_interleaved_no_bcast.cpp:68 thread NC\ncommands\n  bt\n  p/x src_addr\n"
                      "  p/x src_addr_b\n  info cb\n  info kernels\n  info breakpoints\nend\n")
    results, err = run_ops(host, ["add"], f"-x {script} --trace-requests {trace}")
    assert "Breakpoint 1.1, kernel_main () at " in err and "eltwise_binary_no_bcast.cpp:70" in err, err[-3000:]
    t1 = err[err.index("Breakpoint 1.1, kernel_main () at "):]
    assert re.search(r"^\$\d+ = 1$", t1, re.M), t1[:3000]                        # one tile for one core
    # 'thread T1' is that core on every tile (as GDB's breakpoint without an inferior is on all of
    # them): add's one tile of work per core stops on both tiles of the two-core grid
    hits = re.findall(r"^\[Tile (\d+,\d+)\]\n[^[]*?Breakpoint (1\.\d), kernel_main", err, re.M)
    assert sorted(hits) == [("1,2", "1.1"), ("2,2", "1.2")], err[-3000:]
    assert results["add"] == {"mismatches": 0, "values": 1024}, err[-3000:]    # and it went on
    dram = [line.split() for line in trace.read_text().splitlines() if line.split()[1] == "0,11"]
    a, b = (int(w[2], 16) for w in dram if w[0] == "WRITE")
    result = next(int(w[2], 16) for w in dram if w[0] == "READ")
    nc = err[err.index("Breakpoint 2.1, kernel_main () at "):]
    for n, tile, core in (("1.1", "1,2", "T1"), ("1.2", "2,2", "T1"), ("2.1", "1,2", "NC"), ("2.2", "2,2", "NC")):
        assert re.search(rf"^{re.escape(n)} +y +0x[0-9a-f]+ in kernel_main\(\) at .* \({tile}:{core}\)$", nc, re.M), nc[-3000:]
    assert "reader_interleaved_no_bcast.cpp:68" in nc.splitlines()[0]
    assert re.search(r"#1 .* in _start \(\) at .*ncrisck\.cc:\d+", nc), nc[:3000]        # bt: kernel, firmware
    assert re.search(rf"^\$\d+ = {a:#x}\n\$\d+ = {b:#x}$", nc, re.M), nc[:3000]
    for cb in range(3):                        # binary_ng's CBs: two bf16 tiles (2048 bytes) each
        assert re.search(rf"^CB {cb}: 2 pages of 2048 bytes at 0x[0-9a-f]+ \(Float16_b\): ", nc, re.M), nc[:3000]
    assert re.search(r"^  B waits in cb_wait_front for pages, at .*writer_interleaved_no_bcast\.cpp", nc, re.M)
    kernels = nc[nc.index("Launch 1 on tile 1,2"):]
    launch = kernels[:kernels.index("Launch 2 on tile")]
    assert re.search(r"^  B   writer_interleaved_no_bcast\n      source: .*/writer_interleaved_no_bcast\.cpp$",
                     launch, re.M), launch
    reader = re.search(r"^  NC  reader_interleaved_no_bcast\n.*\n.*\n      runtime args at 0x[0-9a-f]+: \[(.*)\]$",
                       launch, re.M)
    assert reader is not None, launch
    args = reader.group(1).split(", ")
    assert len(args) == 23 and int(args[0], 16) == a and int(args[15], 16) == b, args   # get_arg_val 0..22
    writer = re.search(r"^  B .*\n.*\n.*\n      runtime args at 0x[0-9a-f]+: \[(0x[0-9a-f]+),", launch, re.M)
    assert writer is not None and int(writer.group(1), 16) == result, launch
    for core in ("T0", "T1", "T2"):
        assert re.search(rf"^  {core}  eltwise_binary_no_bcast$", launch, re.M), launch


def test_a_hang_is_reported_and_ends_the_script(host, tmp_path):
    """T1 sent back to its firmware's start from the kernel: it waits for a go message that never
    comes, the host polls for a done message no core can produce.  Only the tile that hangs is
    reported; tile 2,2 (no tiles to add) is done."""
    script = tmp_path / "hang.gdb"
    script.write_text("break kernel_main thread T1\ncommands\n  set var $pc = main\nend\n")
    results, err = run_ops(host, ["add"], f"-x {script}")
    assert "the host waits for the device (it reads 1,2 at 0x4f0), and no core can run" in err, err[-3000:]
    assert "Program stopped: deadlock: no core can run." in err
    report = " ".join(err.split())                                               # the report wraps at the width
    assert "in _llk_packer_wait_for_math_done_ at llk_pack_common.h" in report   # T2 waits for T1's math
    assert "it needs a post of semaphore 1 (MATH_PACK), made by: T1" in report
    # in tt-metal's terms, from the launch the host made there: the writer waits for the
    # output CB (binary_ng's CB 2: two pages) that compute never fills; the waypoints
    assert "tt-metal program hangs: go_messages[0].signal = RUN_MSG_GO" in report
    assert "B waits in cb_wait_front for 1 page on CB 2 (2 pages): 0 pages received" in report
    assert "waypoints: B 'X', NC 'X', T0 'X', T1 'X', T2 'X'" in report       # no watcher build
    start = report.index("the host waits for the device")
    hang = report[start:report.index("[Tile", start)]
    assert "tile 1,2:" in hang and "tile 2,2" not in hang      # done (RUN_MSG_DONE, idle): no part of it
    assert "empty read response" in results["add"]["error"]


def test_dprint_as_the_hosts_print_server_shows_it(host, tmp_path):
    """The user's own kernel through ttnn.generic_op, TT_METAL_DPRINT_CORES=0,0: the host's print
    server shows core (0,0)'s lines, not (1,0)'s, and each line a kernel printed before a stop
    comes before tdbg's report of that stop (a breakpoint on the DPRINT line, every iteration)."""
    source = OPS.with_name("data").joinpath("ttnn_printer.cpp").read_text().splitlines()
    line = next(n for n, text in enumerate(source, 1) if text.strip().startswith("DPRINT("))
    script = tmp_path / "prints.gdb"
    script.write_text(f"break ttnn_printer.cpp:{line} thread NC\n")
    results, out = run_ops(host, ["dprint"], f"-x {script}", merged=True, TT_METAL_DPRINT_CORES="0,0")
    assert results.get("dprint") == {"done": True}, out[-3000:]
    lines = out.splitlines()
    prints = [line for line in lines if ":NC: step " in line]
    assert prints == [f"0:0-0:NC: step {n} of 3" for n in (10, 11, 12)], out[-3000:]   # not (1,0)'s 20, 21
    events = []
    for line in lines:
        event = "step" if line in prints else "stop" if line.startswith("Breakpoint 1.") else None
        if event is not None and not (event == "stop" and events and events[-1] == "stop"):
            events.append(event)
    assert events == ["stop", "step"] * 3, events


def test_watcher_assert_stops_with_the_watchers_state(host):
    """TT_METAL_WATCHER=1 (the host's watcher runs, the kernels are built with it): the user's
    kernel trips its ASSERT on logical core (1,0) (tile 2,2); tdbg stops there before the host's
    watcher sees it, naming the core, the source line (the oracle: the ASSERT's line in the
    kernel's source) and each core's waypoint (the kernel's own WAYPOINT); the script then ends
    with an error, not a silent poll."""
    source = OPS.with_name("data").joinpath("ttnn_printer.cpp").read_text().splitlines()
    line = next(n for n, text in enumerate(source, 1) if text.strip().startswith("ASSERT("))
    results, out = run_ops(host, ["assert"], merged=True, TT_METAL_WATCHER="1")
    report = " ".join(out.split())
    assert (f"tt-metal device assert: tile 2,2 NC tripped ASSERT at ttnn_printer.cpp:{line} (DebugAssertTripped)"
            in report), out[-3000:]
    assert "NC hangs in assert_and_hang, at " in report
    assert re.search(r"waypoints: B '\w+', NC 'PRNT', T0 '\w+', T1 '\w+', T2 '\w+'", report), out[-3000:]
    # the op's error, or (the host's watcher thread reading too) the host's own abort message
    assert "empty read response" in results.get("assert", {}).get("error", out), out[-3000:]
