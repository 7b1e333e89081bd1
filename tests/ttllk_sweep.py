"""Build every tt-llk test source of the ttnn wheel and run it on the tile, to see what stops.

Each top-level ``tests/sources/*.cpp`` gets a generic variant: the ``RuntimeParams`` members it
reads (``params.NAME``) and the ``build.h`` constants it names, from ``FIELDS`` / ``TEMPLATES``
(defaults in the spirit of tt-llk's harness: one tile of Float16_b, four faces, 16x16 faces,
LoFi, SyncHalf; A and B random BF16).  When the build names what the tables lack, the sweep
adapts and builds again (``adapt``): formats as build.h constants, the buffers it reads, other
names declared as ``std::uint32_t`` 1 (said in the report as guessed), a constant the source
defines itself dropped.  No golden: the sweep says whether each kernel builds
(SFPI kernels cannot: clang has no SFPI vector types), and whether it runs to its end (every
mailbox KERNEL_COMPLETE) or stops, and on what.  The representative kernels with goldens are
``ttllk_variants``.

    python3 tests/ttllk_sweep.py [rv32im]      # a table, one line per source
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tdbg.emu.stops import StopKind
from tdbg.session import Session, SessionError
from tdbg.toolchain import ttllk, ttnn
from tdbg.toolchain.ttllk import Field, Formats, KernelBuildError, Variant

U32 = "std::uint32_t"
#: RuntimeParams members tt-llk's harness defines (test_variant_parameters.py), with sweep values.
FIELDS: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("num_faces", "num_faces_A", "num_faces_B"), (U32, 4)),
    **dict.fromkeys(("NUM_BLOCKS", "INPUT_NUM_BLOCKS", "OUTPUT_NUM_BLOCKS", "INPUT_TILE_CNT", "OUTPUT_TILE_CNT",
                     "SRCA_REUSE_COUNT"), ("int", 1)),
    **dict.fromkeys(("TILE_CNT", "NUM_TILES_IN_BLOCK", "INPUT_NUM_TILES_IN_BLOCK", "OUTPUT_NUM_TILES_IN_BLOCK",
                     "LOOP_FACTOR", "CT_DIM", "RT_DIM", "KT_DIM", "BLOCK_CT_DIM", "BLOCK_RT_DIM", "FULL_CT_DIM",
                     "FULL_RT_DIM"), (U32, 1)),
    **dict.fromkeys(("TEST_FACE_R_DIM", "TEST_FACE_C_DIM"), (U32, 16)),
    **dict.fromkeys(("in0_face_r_dim", "in0_face_c_dim", "in1_face_r_dim", "in1_face_c_dim"), ("int", 16)),
    **dict.fromkeys(("in0_tile_r_dim", "in0_tile_c_dim", "in1_tile_r_dim", "in1_tile_c_dim"), (U32, 32)),
    **dict.fromkeys(("num_faces_r_dim_A", "num_faces_c_dim_A", "num_faces_r_dim_B", "num_faces_c_dim_B"), ("int", 2)),
    **dict.fromkeys(("UNPACK_TRANSPOSE_FACES", "UNPACK_TRANSPOSE_WITHIN_FACE", "PARTIAL_FACE_A", "PARTIAL_FACE_B",
                     "PARTIAL_FACE_PACK", "PARTIAL_FACE_MATH", "NARROW_TILE", "IS_REDUCE_TO_ONE"), ("bool", 0)),
    **dict.fromkeys(("DST_INDEX", "L1_ACC", "RELU_CONFIG"), ("int", 0)),
    "NUM_ROWS_TO_PACK": (U32, 32), "NUM_GUARD_TILES": (U32, 0), "ZERO_POINT": (U32, 0),
}
#: build.h constants (TemplateParameter.convert_to_cpp), with sweep values.
TEMPLATES: dict[str, str] = {
    "MATH_FIDELITY": "constexpr ckernel::MathFidelity MATH_FIDELITY = ckernel::MathFidelity::LoFi;",
    "BROADCAST_TYPE": "constexpr auto BROADCAST_TYPE = ckernel::BroadcastType::NONE;",
    "ELTWISE_BINARY_OP": "constexpr auto ELTWISE_BINARY_OP = ckernel::EltwiseBinaryType::ELWADD;",
    "dest_sync": "constexpr auto dest_sync = ckernel::DstSync::SyncHalf;",
    "REUSE_DEST_TYPE": "constexpr auto REUSE_DEST_TYPE = ckernel::EltwiseBinaryReuseDestType::NONE;",
    "DATA_COPY_TYPE": "constexpr auto DATA_COPY_TYPE = ckernel::DataCopyType::A2D;",
    "REDUCE_DIM": "constexpr auto REDUCE_DIM = ckernel::ReduceDim::REDUCE_ROW;",
    "POOL_TYPE": "constexpr auto POOL_TYPE = ckernel::PoolType::SUM;",
    "PERF_RUN_TYPE": "constexpr auto PERF_RUN_TYPE = PerfRunType::L1_TO_L1;",
    "STOCHASTIC_RND": "constexpr auto STOCHASTIC_RND = ckernel::StochRndType::None;",
    "THROTTLE_LEVEL": "constexpr int THROTTLE_LEVEL = 0;",
    "tilize_en": "constexpr bool tilize_en = false;",
    "disable_src_zero_flag": "constexpr bool disable_src_zero_flag = false;",
    "APPROX_MODE": "constexpr bool APPROX_MODE = false;",
    "TILE_DST_CT_OFFSET": "constexpr std::uint32_t TILE_DST_CT_OFFSET = 0;",
    **{name: f"constexpr bool {name} = false;" for name in (
        "ACC_TO_DEST", "MATH_TRANSPOSE_FACES", "UNPACK_TRANSPOSE_FACES", "UNPACK_TRANSPOSE_WITHIN_FACE", "NARROW_TILE",
        "PARTIAL_FACE_A", "PARTIAL_FACE_B", "PARTIAL_FACE_PACK", "PARTIAL_FACE_MATH", "IS_REDUCE_TO_ONE", "USE_RUNTIME",
        "OFFSET_ENABLED", "UNINIT_SKIP", "UNINIT_RESTORE_MOP", "UNINIT_DENSE_PACKING")},
    **{name: f"constexpr std::uint32_t {name} = {FIELDS[name][1]};" for name in (
        "FULL_RT_DIM", "FULL_CT_DIM", "BLOCK_CT_DIM", "BLOCK_RT_DIM", "TILE_CNT", "NUM_TILES_IN_BLOCK",
        "INPUT_NUM_TILES_IN_BLOCK", "OUTPUT_NUM_TILES_IN_BLOCK", "RT_DIM", "CT_DIM", "KT_DIM", "LOOP_FACTOR",
        "num_faces", "num_faces_A", "num_faces_B", "TEST_FACE_R_DIM", "TEST_FACE_C_DIM", "NUM_ROWS_TO_PACK",
        "NUM_GUARD_TILES", "in0_tile_r_dim", "in0_tile_c_dim", "in1_tile_r_dim", "in1_tile_c_dim")},
    **{name: f"constexpr int {name} = {FIELDS[name][1]};" for name in (
        "NUM_BLOCKS", "INPUT_NUM_BLOCKS", "OUTPUT_NUM_BLOCKS", "INPUT_TILE_CNT", "OUTPUT_TILE_CNT", "DST_INDEX",
        "SRCA_REUSE_COUNT", "num_faces_r_dim_A", "num_faces_c_dim_A", "num_faces_r_dim_B", "num_faces_c_dim_B",
        "in0_face_r_dim", "in0_face_c_dim", "in1_face_r_dim", "in1_face_c_dim", "L1_ACC", "RELU_CONFIG")},
}
_SFPI = re.compile(r"\b(vFloat|vInt|vUInt|vConstFloat|vConstIntPrgm\w*|dst_reg|sfpi_inline|sfpi::v\w+|"
                   r"__builtin_rvtt_\w+|l_reg|vCond)\b")
_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'")
_NO_MEMBER = re.compile(r"no member named '(\w+)' in 'RuntimeParams'")
_CLASH = re.compile(r"(?:redefinition of|declaration of) '(\w+)'")
BUFFER = re.compile(r"buffer_([A-Z]\w*)")


def sources(tree: ttnn.Tree) -> list[str]:
    return sorted(p.name for p in (tree.tt_llk / "tests" / "sources").glob("*.cpp"))


def auto_variant(tree: ttnn.Tree, source: str) -> Variant:
    text = (tree.tt_llk / "tests" / "sources" / source).read_text()
    text = re.sub(r"//[^\n]*", "", text)
    read = set(re.findall(r"\bparams\.(\w+)", text))
    bare = set(re.findall(r"(?<![.\w])(\w+)\b", re.sub(r"\bparams\.\w+", "", text)))
    runtime = tuple(Field(FIELDS[name][0], name, FIELDS[name][1]) for name in FIELDS if name in read)
    templates = tuple(line for name, line in TEMPLATES.items() if name in bare)
    extra = tuple(n for n in ("S", "T", "C") if f"buffer_{n}" in read)
    return Variant(source, Formats.infer("Float16_b", "Float16_b", False), False, templates, runtime, (1, 1, 1),
                   extra=extra)


def adapt(variant: Variant, errors: str, guessed: list[str]) -> Variant | None:
    """The variant changed as the compiler's errors ask, or None when they ask for nothing the
    sweep can give."""
    if "no viable conversion from 'const FormatConfig'" in errors or "'formats'" in errors or "'UNPACK_A_IN'" in errors:
        if not variant.compile_time_formats:
            return replace(variant, compile_time_formats=True)
    templates, runtime, extra = list(variant.templates), list(variant.runtime), set(variant.extra)
    clashes = set(_CLASH.findall(errors))
    templates = [t for t in templates if not any(re.search(rf"\b{name} =", t) for name in clashes)]
    for name in sorted(set(_UNDECLARED.findall(errors))):
        buffer = BUFFER.fullmatch(name)
        if buffer and variant.tiles is not None:
            if buffer[1] in ("S", "T", "C"):
                extra.add(buffer[1])
            operand = replace(variant, extra=tuple(extra)).buffers.get(buffer[1])
            if operand:
                templates.append(f"constexpr Operand {name}({operand.address:#x}, {operand.tile_bytes});")
        elif not name.startswith("_") and name not in guessed:
            guessed.append(name)
            templates.append(f"constexpr std::uint32_t {name} = 1;")
    for name in sorted(set(_NO_MEMBER.findall(errors))):
        if BUFFER.fullmatch(name) and name[7:] in ("S", "T", "C"):
            extra.add(name[7:])
        elif name not in guessed:
            guessed.append(name)
            runtime.append(Field(U32, name, 1))
    changed = replace(variant, templates=tuple(templates), runtime=tuple(runtime),
                      extra=tuple(n for n in ("S", "T", "C") if n in extra))
    return changed if changed != variant else None


@dataclass
class Outcome:
    source: str
    built: str          # "yes", "SFPI", or the error
    ran: str = ""       # "completed", or the stop

    @property
    def line(self) -> str:
        return f"{self.source:50s} {self.built:10s} {self.ran}"


def sweep_one(tree: ttnn.Tree, source: str, isa: str = ttllk.BLACKHOLE_ISA) -> Outcome:
    variant: Variant | None = auto_variant(tree, source)
    guessed: list[str] = []
    for _ in range(6):
        try:
            elfs = ttllk.build(variant, isa)
        except KernelBuildError as exc:
            text = str(exc)
            if _SFPI.search(text):
                return Outcome(source, "SFPI", "needs SFPI GCC's vector types")
            if "subscripted value is not an array" in text:
                return Outcome(source, "no", "needs several L1-to-L1 runs (a formats array): not in the sweep")
            adapted = adapt(variant, text, guessed)
            if adapted is None:
                first = next((line for line in text.splitlines() if "error:" in line), text)
                return Outcome(source, "no", first.split("error: ", 1)[-1][:160])
            variant = adapted
            continue
        ran = run_outcome(variant, elfs)
        return Outcome(source, "yes", ran + (f" (guessed: {', '.join(guessed)})" if guessed else ""))
    return Outcome(source, "no", f"still not building after guessing {', '.join(guessed)}")


def run_outcome(variant: Variant, elfs: dict[str, Path]) -> str:
    try:
        s = Session(elfs)
    except SessionError as exc:
        return f"not loaded: {exc}"
    rng = np.random.default_rng(0)
    s.write_memory(ttllk.RUNTIME_PARAMS, variant.params())
    for name, operand in variant.buffers.items():
        if name != "Res":
            values = rng.uniform(-2, 2, operand.tile_bytes // 2 * operand.tiles).astype(np.float32)
            s.write_memory(operand.address, ((values.view(np.uint32) >> 16).astype("<u2")).tobytes())
    stop = s.cont()
    if stop.kind is StopKind.EXITED:
        done = s.read_memory(0x1FFB8, 12) == b"\xff\0\0\0" * 3
        return "completed" if done else f"ended without KERNEL_COMPLETE: {s.read_memory(0x1FFB8, 12).hex()}"
    return " ".join(stop.describe().split())[:220]


def main(argv: list[str]) -> None:
    isa = ttllk.RV32IM if argv[1:2] == ["rv32im"] else ttllk.BLACKHOLE_ISA
    tree = ttnn.tree()
    outcomes = []
    for source in sources(tree):
        outcomes.append(sweep_one(tree, source, isa))
        print(outcomes[-1].line, flush=True)
    built = [o for o in outcomes if o.built == "yes"]
    print(f"\n{len(outcomes)} sources: {len(built)} built, {sum(o.built == 'SFPI' for o in outcomes)} need SFPI, "
          f"{sum(o.built == 'no' for o in outcomes)} did not build; "
          f"{sum(o.ran == 'completed' for o in built)} ran to KERNEL_COMPLETE")


if __name__ == "__main__":
    main(sys.argv)
