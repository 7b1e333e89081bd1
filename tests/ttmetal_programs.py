"""The tt-metal programs the tests run: ttnn's eltwise binary add and a legacy matmul, described as
tt-metal 0.81.1's programs were when it ran them on ttsim (TTMETAL_PROGRAM.md: the capture scripts'
CBs, compile-time and runtime arguments, defines), with their inputs from the same seeds.  Their
kernels come from the ttnn wheel and are built by ``tdbg.ttmetal.kit``; without either, the tests
that use them skip, saying so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tdbg.ttmetal.program import Program

TTSIM = json.loads((Path(__file__).parent / "data" / "ttmetal_programs_ttsim.json").read_text())


def operations() -> Path:
    """The wheel's op kernels (skips the test without the kit or the wheel)."""
    pytest.importorskip("tdbg.ttmetal.kit", reason="tt-metal kernels need tdbg.ttmetal.kit (not in this tdbg)")
    from tdbg.toolchain import ttnn

    try:
        return ttnn.tree().operations
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"tt-metal kernels need the ttnn wheel: {exc}")


def inputs(name: str) -> tuple[np.ndarray, np.ndarray]:
    spec = TTSIM[name]["inputs"]
    rng = np.random.default_rng(spec["seed"])
    return tuple(rng.uniform(spec["low"], spec["high"], spec[k]).astype(np.float32) for k in "ab")  # type: ignore[return-value]


def eltwise_add(ops: Path, tiles: int = 12, cb_pages: int = 2) -> Program:
    """C = A + B over ``tiles`` bfloat16 tiles (ttnn's legacy binary program factory's kernels)."""
    a, b = inputs("add") if tiles == 12 else (np.ones((32, 32 * tiles), np.float32),) * 2
    p = Program()
    A, B, C = p.buffer("a", a), p.buffer("b", b), p.buffer("c", pages=tiles)
    for cb in (0, 1, 2):
        p.cb(cb, cb_pages, 2048)
    k = ops / "eltwise"
    p.kernel("ncrisc", k / "binary/device/kernels/dataflow/reader_binary_interleaved_start_id.cpp",
             compile_args=[0, *A.accessor_args, *B.accessor_args], args=[A, B, tiles, 0, 0, 0, 0])
    p.kernel("brisc", k / "unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp",
             compile_args=[2, *C.accessor_args], args=[C, tiles, 0])
    p.kernel("compute", k / "binary/device/kernels/compute/eltwise_binary_kernel.cpp",
             defines={"ELTWISE_OP": "add_tiles", "ELTWISE_OP_TYPE": "EltwiseBinaryType::ELWADD"}, args=[tiles, 1])
    return p


def matmul(ops: Path) -> Program:
    """C[64x64] = A[64x96] B[96x64] (legacy bmm kernels, HiFi4)."""
    mt, kt, nt = 2, 3, 2
    a, b = inputs("matmul")
    p = Program()
    A, B, C = p.buffer("a", a), p.buffer("b", b), p.buffer("c", pages=mt * nt)
    for cb in (0, 1, 16):
        p.cb(cb, 2, 2048)
    named = {"cb_in0": 0, "cb_in1": 1}
    p.kernel("ncrisc", ops / "matmul/device/kernels/dataflow/reader_bmm_8bank_output_tiles_partitioned.cpp",
             compile_args=[0, 0, *A.accessor_args, *B.accessor_args], named_args=named,
             args=[A, B, mt, kt, nt, mt * kt, kt * nt, 1, 0, 0, mt * nt, mt * nt])
    p.kernel("brisc", ops / "eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp",
             compile_args=[16, *C.accessor_args], args=[C, mt * nt, 0])
    p.kernel("compute", ops / "matmul/device/kernels/compute/bmm.cpp", compile_args=[1, mt, kt, nt],
             named_args={**named, "cb_out": 16})
    return p


READER_TWO = Path(__file__).parent / "firmware" / "ttmetal" / "reader_two.cpp"


def exact_inputs(tiles: int) -> tuple[np.ndarray, np.ndarray]:
    """Two [32, 32 * tiles] tensors of small integers (exact in bfloat16, and so is their sum)."""
    r, c = np.indices((32, 32 * tiles))
    return ((r * 37 + c) % 101 - 50).astype(np.float32), ((r - 3 * c) % 7).astype(np.float32)


def reader_two_add(ops: Path, tiles: int = 4, cb_pages: int = 2, watcher: bool = False, **defines: str) -> Program:
    """C = A + B (``exact_inputs``) with our reader (``tests/firmware/ttmetal/reader_two.cpp``:
    ``PAGES_PER_PUSH``, ``NEVER_PUSH``, ``MAX_TILES``; its waypoints and ASSERT with the ``watcher``)
    and ttnn's compute kernel and writer; CBs 0, 1, 2 of ``cb_pages`` bfloat16 tiles."""
    a, b = exact_inputs(tiles)
    p = Program(watcher=watcher)
    A, B, C = p.buffer("a", a), p.buffer("b", b), p.buffer("c", pages=tiles)
    for cb in (0, 1, 2):
        p.cb(cb, cb_pages, 2048)
    k = ops / "eltwise"
    p.kernel("ncrisc", READER_TWO, compile_args=[*A.accessor_args, *B.accessor_args], args=[A, B, tiles],
             defines=defines)
    p.kernel("brisc", k / "unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp",
             compile_args=[2, *C.accessor_args], args=[C, tiles, 0])
    p.kernel("compute", k / "binary/device/kernels/compute/eltwise_binary_kernel.cpp",
             defines={"ELTWISE_OP": "add_tiles", "ELTWISE_OP_TYPE": "EltwiseBinaryType::ELWADD"}, args=[tiles, 1])
    return p


COMPUTE_PRINT = Path(__file__).parent / "firmware" / "ttmetal" / "compute_print.cpp"


def printing_program(ops: Path, tiles: int = 2) -> Program:
    """Every kernel prints (DPRINT on): reader_two.cpp reads ``tiles`` pages into CBs that hold
    them, ``compute_print.cpp`` prints on each TRISC, ttnn's writer writes nothing."""
    a, b = exact_inputs(tiles)
    p = Program(dprint=True)
    A, B, C = p.buffer("a", a), p.buffer("b", b), p.buffer("c", pages=tiles)
    for cb in (0, 1, 2):
        p.cb(cb, tiles, 2048)
    p.kernel("ncrisc", READER_TWO, compile_args=[*A.accessor_args, *B.accessor_args], args=[A, B, tiles])
    p.kernel("brisc", ops / "eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp",
             compile_args=[2, *C.accessor_args], args=[C, 0, 0])
    p.kernel("compute", COMPUTE_PRINT, args=[tiles])
    return p


def transpose(ops: Path, tiles: int = 2) -> Program:
    """C = transpose_wh(A) over ``tiles`` bfloat16 tiles (``exact_inputs``' A): ttnn's copy reader
    and writer (``reader_unary_start_id.cpp``, ``writer_unary_start_id.cpp``) and its
    ``transpose_wh.cpp`` compute kernel; CB 0 in, CB 16 out, 2 pages each."""
    a, _ = exact_inputs(tiles)
    p = Program()
    A, C = p.buffer("a", a), p.buffer("c", pages=tiles)
    for cb in (0, 16):
        p.cb(cb, 2, 2048)
    k = ops / "data_movement"
    p.kernel("ncrisc", k / "copy/device/kernels/reader_unary_start_id.cpp", compile_args=[*A.accessor_args],
             args=[A, tiles, 0])
    p.kernel("brisc", k / "copy/device/kernels/writer_unary_start_id.cpp", compile_args=[16, *C.accessor_args],
             args=[C, tiles, 0])
    p.kernel("compute", k / "transpose/device/kernels/compute/transpose_wh.cpp", args=[tiles])
    return p
