"""tt-llk test kernels as tt-llk's harness parameterises them, with inputs and independent goldens.

The parameter helpers mirror ``tests/python_tests/helpers/test_variant_parameters.py`` of the
wheel's tt-llk (each returns the ``build.h`` lines or the ``RuntimeParams`` members that class
writes); ``Case`` adds the inputs a host writes and the golden, computed with numpy from what the
kernel is documented to compute (tt-llk's Python test of the same name says what that is), never
from tdbg.  Inputs are chosen so that the exact result is representable in the output format
where that is possible (small multiples of a power of two): those cases are compared bit for
bit; the others within tt-llk's own tolerance (``helpers/utils.py`` ``tolerances``).

L1 layouts (tt-llk ``tilize_untilize.py``, ``FloatBitPatterns.md``): a 32x32 tile is four 16x16
faces (top-left, top-right, bottom-left, bottom-right), each row-major; a matrix of tiles is
stored tile-row by tile-row.  BF16 is the top half of FP32; BFP8_b is 64 shared exponents (one
per 16 datums) followed by 1024 sign-magnitude bytes (7-bit magnitude).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

from tdbg.toolchain import ttllk, ttnn
from tdbg.toolchain.ttllk import Field, Formats, Variant

U32 = "std::uint32_t"

# -- the harness's parameters (test_variant_parameters.py) -------------------------------------------


@dataclass(frozen=True)
class P:
    """What one harness parameter adds: ``build.h`` lines and ``RuntimeParams`` members."""

    templates: tuple[str, ...] = ()
    runtime: tuple[Field, ...] = ()


def MATH_FIDELITY(name: str) -> P:
    return P((f"constexpr ckernel::MathFidelity MATH_FIDELITY = ckernel::MathFidelity::{name};",))


def BROADCAST_TYPE(kind: str = "NONE") -> P:
    return P((f"constexpr auto BROADCAST_TYPE = ckernel::BroadcastType::{kind};",))


def MATH_OP(binary: str | None = None, reduce_dim: str | None = None, pool: str | None = None) -> P:
    lines = ["", "// Math operation configuration"]
    if binary:
        lines.append(f"constexpr auto ELTWISE_BINARY_OP = ckernel::EltwiseBinaryType::{binary};")
    if reduce_dim:
        lines.append(f"constexpr auto REDUCE_DIM = ckernel::ReduceDim::{reduce_dim};")
        lines.append(f"constexpr auto POOL_TYPE = ckernel::PoolType::{pool};")
    return P(tuple(lines))


def DEST_SYNC(kind: str = "Half") -> P:
    return P((f"constexpr auto dest_sync = ckernel::DstSync::Sync{kind};",))


def REUSE_DEST_TYPE(kind: str = "NONE") -> P:
    return P((f"constexpr auto REUSE_DEST_TYPE = ckernel::EltwiseBinaryReuseDestType::{kind};",))


def ACC_TO_DEST(on: bool = False) -> P:
    return P((f"constexpr bool ACC_TO_DEST = {str(on).lower()};",))


def PERF_RUN_TYPE() -> P:
    """``create_test_or_perf_config`` adds it to every functional test (and ``TestConfig`` users
    name it): a plain L1-to-L1 run."""
    return P(("", "constexpr auto PERF_RUN_TYPE = PerfRunType::L1_TO_L1;"))


def THROTTLE_LEVEL(level: int = 0) -> P:
    return P((f"constexpr int THROTTLE_LEVEL = {level};",))


def TILIZE(on: bool = False) -> P:
    return P((f"constexpr bool tilize_en = {str(on).lower()};",))


def MATH_TRANSPOSE_FACES(on: bool) -> P:
    return P((f"constexpr bool MATH_TRANSPOSE_FACES = {str(on).lower()};",))


def TILE_DST_CT_OFFSET(offset: int = 0) -> P:
    return P((f"constexpr std::uint32_t TILE_DST_CT_OFFSET = {offset};",))


def _dims(full_rt: int, full_ct: int, block_ct: int | None, block_rt: int | None) -> tuple[tuple[str, int], ...]:
    return (("FULL_RT_DIM", full_rt), ("FULL_CT_DIM", full_ct), ("BLOCK_CT_DIM", block_ct or full_ct),
            ("BLOCK_RT_DIM", block_rt or full_rt))


def INPUT_DIMENSIONS(rows: int, cols: int, block_ct: int | None = None, template: bool = False) -> P:
    """``generate_input_dim`` for an A and B of ``rows`` x ``cols`` (as template or runtime)."""
    dims = _dims(rows // 32, cols // 32, block_ct, None)
    if template:
        return P(tuple(f"constexpr std::uint32_t {n} = {v};" for n, v in dims))
    return P(runtime=tuple(Field(U32, n, v) for n, v in dims))


def _fields(ctype: str, **values: int) -> P:
    return P(runtime=tuple(Field(ctype, n, v) for n, v in values.items()))


def DEST_INDEX(index: int = 0) -> P:
    return _fields("int", DST_INDEX=index)


def TILE_COUNT(n: int) -> P:
    return _fields(U32, TILE_CNT=n)


def NUM_FACES(n: int = 4, a: int = 4, b: int = 4) -> P:
    return _fields(U32, num_faces=n, num_faces_A=a, num_faces_B=b)


def NUM_BLOCKS(n: int) -> P:
    return _fields("int", NUM_BLOCKS=n, INPUT_NUM_BLOCKS=n, OUTPUT_NUM_BLOCKS=n)


def NUM_TILES_IN_BLOCK(n: int, inp: int | None = None, out: int | None = None) -> P:
    return _fields(U32, NUM_TILES_IN_BLOCK=n, INPUT_NUM_TILES_IN_BLOCK=inp or n, OUTPUT_NUM_TILES_IN_BLOCK=out or n)


def LOOP_FACTOR(n: int = 1) -> P:
    return _fields(U32, LOOP_FACTOR=n)


def UNPACK_TRANS_FACES(on: bool = False) -> P:
    return _fields("bool", UNPACK_TRANSPOSE_FACES=int(on))


def UNPACK_TRANS_WITHIN_FACE(on: bool = False) -> P:
    return _fields("bool", UNPACK_TRANSPOSE_WITHIN_FACE=int(on))


def NUM_FACES_R_DIM(a: int = 2, b: int = 2) -> P:
    return _fields("int", num_faces_r_dim_A=a, num_faces_r_dim_B=b)


def NUM_FACES_C_DIM(a: int = 2, b: int = 2) -> P:
    return _fields("int", num_faces_c_dim_A=a, num_faces_c_dim_B=b)


def TEST_FACE_DIMS(r: int = 16, c: int = 16) -> P:
    return _fields(U32, TEST_FACE_R_DIM=r, TEST_FACE_C_DIM=c)


def CRK_TILE_DIMM(ct: int, rt: int, kt: int) -> P:
    return _fields(U32, CT_DIM=ct, RT_DIM=rt, KT_DIM=kt)


def IN_FACE_DIMS(r: int = 16, c: int = 16) -> P:
    return _fields("int", in0_face_r_dim=r, in0_face_c_dim=c, in1_face_r_dim=r, in1_face_c_dim=c)


def INPUT_TILE_CNT(n: int) -> P:
    return _fields("int", INPUT_TILE_CNT=n)


def OUTPUT_TILE_CNT(n: int) -> P:
    return _fields("int", OUTPUT_TILE_CNT=n)


def REDUCE_TO_ONE(on: bool = False) -> P:
    return _fields("bool", IS_REDUCE_TO_ONE=int(on))


def variant(source: str, formats: Formats, *params: P, dest_acc: bool = False, tiles=(1, 1, 1),
            unpack_to_dest: bool = False) -> Variant:
    return Variant(source, formats, dest_acc, sum((p.templates for p in params), ()),
                   sum((p.runtime for p in params), ()), tiles, unpack_to_dest=unpack_to_dest)


# -- L1 data ------------------------------------------------------------------------------------------


def tilize(m: np.ndarray) -> np.ndarray:
    """A (32R x 32C) matrix in tt-llk's tile order, flat: tiles row by row, faces, rows."""
    r, c = m.shape[0] // 32, m.shape[1] // 32
    t = m.reshape(r, 2, 16, c, 2, 16).transpose(0, 3, 1, 4, 2, 5)   # tile row, tile col, face r, face c
    return t.reshape(-1)


def untilize(flat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    r, c = rows // 32, cols // 32
    return flat.reshape(r, c, 2, 2, 16, 16).transpose(0, 2, 4, 1, 3, 5).reshape(rows, cols)


def encode(values: np.ndarray, fmt: str) -> bytes:
    """Values (exactly representable) in an L1 format, in the order given."""
    v = np.asarray(values, dtype=np.float32)
    bits = v.view(np.uint32)
    if fmt == "Float32":
        return bits.astype("<u4").tobytes()
    if fmt == "Float16_b":
        assert not (bits & 0xFFFF).any(), "not exact in BF16"
        return (bits >> 16).astype("<u2").tobytes()
    if fmt == "Float16":
        h = v.astype(np.float16)
        assert (h.astype(np.float32) == v).all(), "not exact in FP16"
        return h.astype("<f2").tobytes()
    if fmt == "Bfp8_b":
        out = bytearray()
        for tile in v.reshape(-1, 1024):
            rows = tile.reshape(64, 16)
            exps, mags = [], []
            for row in rows:
                e = max(int(np.frexp(np.abs(row).max())[1]) + 126, 0) if row.any() else 0
                step = 2.0 ** (e - 127 - 6)                     # 7 magnitude bits: 1.xxxxxx * 2**(e-127)
                m = np.abs(row) / step
                assert (m == np.round(m)).all() and (m < 128).all(), "not exact in BFP8_b"
                exps.append(e)
                mags.append(m.astype(np.uint8) | (np.signbit(row).astype(np.uint8) << 7))
            out += bytes(exps) + np.concatenate(mags).tobytes()
        return bytes(out)
    raise ValueError(fmt)


def decode(raw: bytes, fmt: str) -> np.ndarray:
    """L1 datums as float64 (the test's own decoder, FloatBitPatterns.md)."""
    if fmt == "Float32":
        return np.frombuffer(raw, "<f4").astype(np.float64)
    if fmt == "Float16":
        return np.frombuffer(raw, "<f2").astype(np.float64)
    if fmt == "Float16_b":
        return (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if fmt == "Bfp8_b":
        out = []
        for t in range(len(raw) // 1088):
            b = raw[t * 1088:(t + 1) * 1088]
            d = np.frombuffer(b[64:], np.uint8).astype(np.int64)
            exp = np.repeat(np.frombuffer(b[:64], np.uint8).astype(np.int64), 16)
            mag = (d & 0x7F) * np.exp2(exp - 127.0 - 6)
            out.append(np.where(d >> 7 & 1, -mag, mag))
        return np.concatenate(out)
    raise ValueError(fmt)


def grid(rng: np.random.Generator, shape: tuple[int, int], lo: int, hi: int, scale: float) -> np.ndarray:
    """Random multiples of ``scale`` (a power of two) between ``lo`` and ``hi`` steps."""
    return (rng.integers(lo, hi + 1, size=shape) * scale).astype(np.float32)


def bf16(values: np.ndarray) -> np.ndarray:
    """Round to nearest even BF16 (what a random FP32 stimulus becomes in a BF16 tile)."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


# -- cases ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A variant, what the host writes (``A``, ``B``: L1 bytes at the harness's addresses) and the
    golden output (float64, in L1 order).  ``tolerance`` ``None``: bit-exact; else (atol, rtol)."""

    name: str
    variant: Variant
    inputs: dict[str, bytes]
    golden: np.ndarray
    tolerance: tuple[float, float] | None = None
    note: str = field(default="")

    @property
    def out_format(self) -> str:
        return self.variant.formats.pack_dst

    @property
    def out_bytes(self) -> int:
        res = self.variant.buffers["Res"]
        return res.tile_bytes * res.tiles


TOLERANCE = {"Float16": (0.05, 0.05), "Float16_b": (0.05, 0.05), "Float32": (0.05, 0.05), "Bfp8_b": (0.1, 0.2)}


def datacopy(fmt: str = "Float16_b", tiles: int = 2, seed: int = 11) -> Case:
    """``eltwise_unary_datacopy_test``: UNPACR to SrcA, MOVA2D, PACR: the tiles come back unchanged."""
    v = variant("eltwise_unary_datacopy_test.cpp", Formats.infer(fmt, fmt, fmt == "Float32"),
                INPUT_DIMENSIONS(32, 32 * tiles, template=True), TILIZE(False), PERF_RUN_TYPE(),
                DEST_INDEX(0), TILE_COUNT(tiles), NUM_FACES(), NUM_BLOCKS(1), NUM_TILES_IN_BLOCK(tiles), LOOP_FACTOR(),
                dest_acc=fmt == "Float32", tiles=(tiles, tiles, tiles))
    a = tilize(grid(np.random.default_rng(seed), (32, 32 * tiles), -127, 127, 1 / 32))
    return Case(f"datacopy_{fmt}", v, {"A": encode(a, fmt)}, a.astype(np.float64))


BINARY = {"ELWADD": np.add, "ELWSUB": np.subtract, "ELWMUL": np.multiply}


def eltwise_binary(op: str, fmt: str = "Float16_b", rows: int = 64, bcast: str = "NONE", transpose: bool = False,
                   fidelity: str = "LoFi", dest_acc: bool = False, blocks: int = 1, seed: int = 5) -> Case:
    """``eltwise_binary_test``: C = A op B per tile, B broadcast (tt-llk's BroadcastGolden: COL
    takes each row's column 0, ROW row 0, SCALAR element [0, 0] of B's tile), A transposed per tile
    when ``transpose`` (unpack: faces, then within faces).  Inputs are multiples of 1/4 small
    enough that every sum and product is exact in the output format."""
    tiles = rows // 32
    in_block = tiles // blocks
    v = variant("eltwise_binary_test.cpp", Formats.infer(fmt, fmt, dest_acc),
                MATH_FIDELITY(fidelity), BROADCAST_TYPE(bcast), MATH_OP(binary=op), DEST_SYNC(), REUSE_DEST_TYPE(),
                ACC_TO_DEST(False), PERF_RUN_TYPE(),
                INPUT_DIMENSIONS(rows, 32), UNPACK_TRANS_FACES(transpose), UNPACK_TRANS_WITHIN_FACE(transpose),
                TILE_COUNT(tiles), NUM_TILES_IN_BLOCK(in_block), NUM_BLOCKS(blocks), NUM_FACES_R_DIM(), NUM_FACES_C_DIM(),
                TEST_FACE_DIMS(), LOOP_FACTOR(),
                dest_acc=dest_acc, tiles=(tiles, tiles, tiles))
    rng = np.random.default_rng(seed)
    limit = 15 if op == "ELWMUL" else 63
    a, b = (grid(rng, (rows, 32), -limit, limit, 1 / 4) for _ in range(2))
    ta, tb = a.reshape(tiles, 32, 32), b.reshape(tiles, 32, 32)
    if transpose:
        ta = ta.transpose(0, 2, 1)
    if bcast == "COL":
        tb = np.repeat(tb[:, :, :1], 32, axis=2)
    elif bcast == "ROW":
        tb = np.repeat(tb[:, :1, :], 32, axis=1)
    elif bcast == "SCALAR":
        tb = np.broadcast_to(tb[:, :1, :1], tb.shape)
    golden = BINARY[op](ta.astype(np.float64), tb.astype(np.float64)).reshape(rows, 32)
    name = f"eltwise_{op.lower()}_{fmt}" + (f"_bcast_{bcast.lower()}" if bcast != "NONE" else "") \
        + ("_transpose" if transpose else "") + ("_dst32" if dest_acc else "") + (f"_{blocks}blocks" if blocks > 1 else "")
    return Case(name, v, {"A": encode(tilize(a), fmt), "B": encode(tilize(b), fmt)}, tilize(golden))


def matmul(rt: int = 2, ct: int = 2, kt: int = 2, seed: int = 3, exact: bool = True) -> Case:
    """``matmul_test``: C[rt x ct tiles] = A[rt x kt] @ B[kt x ct], Float16_b, HiFi4, 16-bit Dst.
    Exact inputs: multiples of 1/8 up to 7/8 with sums that stay exact in BF16; else uniform
    random BF16 within tt-llk's tolerance."""
    v = variant("matmul_test.cpp", Formats.infer("Float16_b", "Float16_b", False),
                MATH_FIDELITY("HiFi4"), PERF_RUN_TYPE(), DEST_SYNC(), THROTTLE_LEVEL(),
                NUM_FACES(), TILE_COUNT(rt * ct), CRK_TILE_DIMM(ct, rt, kt), LOOP_FACTOR(), UNPACK_TRANS_FACES(False),
                tiles=(rt * kt, kt * ct, rt * ct))
    rng = np.random.default_rng(seed)
    if exact:
        a = grid(rng, (32 * rt, 32 * kt), -1, 1, 1.0)
        b = grid(rng, (32 * kt, 32 * ct), -1, 1, 1.0)
        tol = None
    else:
        a = bf16(rng.uniform(-1, 1, (32 * rt, 32 * kt)))
        b = bf16(rng.uniform(-1, 1, (32 * kt, 32 * ct)))
        tol = TOLERANCE["Float16_b"]
    golden = a.astype(np.float64) @ b.astype(np.float64)
    if tol is None:
        assert (np.abs(golden) <= 256).all()        # integers below 2**8: exact in BF16
    return Case(f"matmul_{rt}x{kt}x{ct}" + ("" if exact else "_random"), v,
                {"A": encode(tilize(a), "Float16_b"), "B": encode(tilize(b), "Float16_b")}, tilize(golden), tol)


def reduce(dim: str, pool: str, tiles: int = 2, seed: int = 9) -> Case:
    """``reduce_test``: each tile reduced along ``dim`` (REDUCE_ROW: each row to column 0,
    REDUCE_COL: each column to row 0, REDUCE_SCALAR: all to [0, 0]) by ``pool`` with B the
    scaler tile (1 for SUM and MAX, 1/32 for AVG of a row or column: test_reduce.py); the rest of
    the output tile is zero.  Integer inputs: every sum is exact in BF16."""
    scaler = {"SUM": 1.0, "MAX": 1.0, "AVG": 1 / 32}[pool]
    if pool == "AVG" and dim == "REDUCE_SCALAR":
        raise ValueError("AVG of a scalar reduce scales by 1/sqrt(1024): not exact")
    v = variant("reduce_test.cpp", Formats.infer("Float16_b", "Float16_b", False),
                MATH_OP(reduce_dim=dim, pool=pool), MATH_FIDELITY("HiFi4"),
                IN_FACE_DIMS(), INPUT_TILE_CNT(tiles), OUTPUT_TILE_CNT(tiles), NUM_TILES_IN_BLOCK(tiles),
                REDUCE_TO_ONE(False), NUM_FACES_R_DIM(), NUM_FACES_C_DIM(), tiles=(tiles, 1, tiles))
    rng = np.random.default_rng(seed)
    a = grid(rng, (32 * tiles, 32), -3, 3, 1.0)
    t = a.reshape(tiles, 32, 32).astype(np.float64)
    out = np.zeros_like(t)
    f = np.max if pool == "MAX" else np.sum
    if dim == "REDUCE_ROW":
        out[:, :, 0] = f(t, axis=2) * scaler
    elif dim == "REDUCE_COL":
        out[:, 0, :] = f(t, axis=1) * scaler
    else:
        out[:, 0, 0] = f(t, axis=(1, 2)) * scaler
    b = np.full((32, 32), scaler, np.float32)
    return Case(f"reduce_{dim[7:].lower()}_{pool.lower()}", v,
                {"A": encode(tilize(a), "Float16_b"), "B": encode(tilize(b), "Float16_b")},
                tilize(out.reshape(32 * tiles, 32)))


def unpack_tilize(rows: int = 64, cols: int = 64, seed: int = 13) -> Case:
    """``unpack_tilize_test``: a row-major matrix in L1 comes out as tiles (TilizeGolden)."""
    tiles = rows // 32 * (cols // 32)
    v = variant("unpack_tilize_test.cpp", Formats.infer("Float16_b", "Float16_b", False),
                INPUT_DIMENSIONS(rows, cols), TILE_COUNT(tiles), NUM_FACES(), NUM_BLOCKS(1), NUM_TILES_IN_BLOCK(tiles),
                tiles=(tiles, tiles, tiles))
    a = grid(np.random.default_rng(seed), (rows, cols), -127, 127, 1 / 16)
    return Case(f"unpack_tilize_{rows}x{cols}", v, {"A": encode(a.reshape(-1), "Float16_b")}, tilize(a).astype(np.float64))


def pack_untilize(rows: int = 32, cols: int = 128, block_ct: int = 4, seed: int = 17) -> Case:
    """``pack_untilize_test``: tiles in L1 are packed back row-major (the packer's untilize)."""
    tiles = rows // 32 * (cols // 32)
    v = variant("pack_untilize_test.cpp", Formats.infer("Float16_b", "Float16_b", False),
                INPUT_DIMENSIONS(rows, cols, block_ct, template=True), DEST_SYNC(), TILE_DST_CT_OFFSET(0),
                TILE_COUNT(tiles), NUM_FACES(4), tiles=(tiles, tiles, tiles))
    a = grid(np.random.default_rng(seed), (rows, cols), -127, 127, 1 / 16)
    return Case(f"pack_untilize_{rows}x{cols}_block{block_ct}", v, {"A": encode(tilize(a), "Float16_b")},
                a.reshape(-1).astype(np.float64))


def transpose_dest(tiles: int = 2, seed: int = 19) -> Case:
    """``transpose_dest_test``, MATH_TRANSPOSE_FACES: each tile transposed in Dst (16-bit)."""
    v = variant("transpose_dest_test.cpp", Formats.infer("Float16_b", "Float16_b", False),
                MATH_TRANSPOSE_FACES(True),
                UNPACK_TRANS_FACES(False), TILE_COUNT(tiles), NUM_FACES(), NUM_BLOCKS(1), NUM_TILES_IN_BLOCK(tiles),
                tiles=(tiles, tiles, tiles))
    a = grid(np.random.default_rng(seed), (32 * tiles, 32), -127, 127, 1 / 16)
    t = a.reshape(tiles, 32, 32).transpose(0, 2, 1).reshape(32 * tiles, 32)
    return Case(f"transpose_dest_{tiles}tiles", v, {"A": encode(tilize(a), "Float16_b")}, tilize(t).astype(np.float64))


#: The representative set the suite runs by default: the issue's families.
CASES: dict[str, Callable[[], Case]] = {
    "datacopy_bf16": lambda: datacopy("Float16_b"),
    "datacopy_bfp8": lambda: datacopy("Bfp8_b"),
    "datacopy_fp32": lambda: datacopy("Float32"),
    "eltwise_add": lambda: eltwise_binary("ELWADD"),
    "eltwise_sub_bcast_col": lambda: eltwise_binary("ELWSUB", bcast="COL"),
    "eltwise_mul_bcast_row": lambda: eltwise_binary("ELWMUL", bcast="ROW", fidelity="HiFi4"),
    "eltwise_add_bcast_scalar": lambda: eltwise_binary("ELWADD", bcast="SCALAR"),
    "eltwise_add_transpose": lambda: eltwise_binary("ELWADD", transpose=True),
    "eltwise_mul_fp32_2blocks": lambda: eltwise_binary("ELWMUL", fmt="Float32", rows=256, fidelity="HiFi4",
                                                       dest_acc=True, blocks=2),
    "eltwise_add_bf16_fp32dest_2blocks": lambda: eltwise_binary("ELWADD", rows=256, dest_acc=True, blocks=2),
    "matmul_2x2x2": lambda: matmul(2, 2, 2),
    "matmul_random": lambda: matmul(1, 2, 3, exact=False),
    "reduce_row_sum": lambda: reduce("REDUCE_ROW", "SUM"),
    "reduce_col_max": lambda: reduce("REDUCE_COL", "MAX"),
    "reduce_scalar_sum": lambda: reduce("REDUCE_SCALAR", "SUM"),
    "reduce_col_avg": lambda: reduce("REDUCE_COL", "AVG"),
    "unpack_tilize": lambda: unpack_tilize(),
    "pack_untilize": lambda: pack_untilize(),
    "transpose_dest": lambda: transpose_dest(),
}


def build_or_skip(variant: Variant, isa: str = ttllk.BLACKHOLE_ISA) -> dict[str, object]:
    """``ttllk.build``, or a visible skip when the ttnn wheel cannot be had."""
    try:
        return ttllk.build(variant, isa)
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"tt-llk kernels need the ttnn wheel: {exc}")


def case_or_skip(name: str) -> Case:
    """``CASES[name]()``, or a visible skip when the ttnn wheel cannot be had."""
    try:
        ttnn.tree()
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"tt-llk kernels need the ttnn wheel: {exc}")
    return CASES[name]()


#: The variants of the three kernels in ../shared/kernels (their build.h and params.bin).
SHARED: dict[str, Callable[[], Variant]] = {
    "datacopy": lambda: datacopy("Float16_b", tiles=2).variant,
    "matmul_bf16": lambda: matmul(1, 1, 2).variant,
    "risc_compute": lambda: variant("risc_compute_test.cpp", Formats.infer("Int32", "Int32", False),
                                    NUM_BLOCKS(1), NUM_TILES_IN_BLOCK(3), tiles=(3, 3, 3)),
}
