"""Metal 2.0 kernel arguments (issue 33 item 8): ttnn's transpose reader names its runtime args
(``get_arg(args::Ht)``), its CB (``dfb::in0``) and its tensor (``TensorAccessor(tensor::src)``);
the program declares them (``rt_args``, ``dfbs``, ``tensors``) and the kit generates
``kernel_args_generated.h`` and ``kernel_bindings_generated.h`` as tt-metal 0.81.1's JIT does.

Expected values: numpy's transpose of the input (small integers, exact in bfloat16), and the
generated headers' text as tt-metal's ``genfiles.cpp`` writes it for such a schema (its format:
``args`` with byte offsets 0, 4, 8 ... in declaration order, CTAs sorted by name, the vararg
helpers' offsets the named counts).  Needs the ttnn wheel and tdbg.ttmetal.kit (skips, saying so)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.metal2 import Metal2, kernel_args_header, kernel_bindings_header
from tdbg.ttmetal.program import Program, run
from tdbg.commands import execute
from ttmetal_programs import exact_inputs, operations


def test_generated_headers_text() -> None:
    m = Metal2(("num_tiles", "start_id"), ("scale",), (("Wt", 2), ("Ht", 3)), (("out", 16), ("in0", 0)),
               (("src", 1, 4),))
    assert kernel_args_header(m) == (
        "// AUTO-GENERATED — do not edit.\n\n#pragma once\n\n#include \"experimental/kernel_args.h\"\n\n"
        "namespace args {\n"
        "constexpr experimental::RtaArg<uint32_t> num_tiles{0};\n"
        "constexpr experimental::RtaArg<uint32_t> start_id{4};\n"
        "constexpr experimental::CrtaArg<uint32_t> scale{0};\n"
        "constexpr experimental::CtaVal<uint32_t> Ht{3u};\n"
        "constexpr experimental::CtaVal<uint32_t> Wt{2u};\n"
        "}  // namespace args\n\n"
        "FORCE_INLINE uint32_t get_vararg(uint32_t idx) { return get_arg_val<uint32_t>(2 + idx); }\n"
        "FORCE_INLINE uint32_t get_common_vararg(uint32_t idx) { return get_common_arg_val<uint32_t>(2 + idx); }\n")
    bindings = kernel_bindings_header(m)
    assert "namespace dfb {\nconstexpr DFBBindingToken in0{0};\nconstexpr DFBBindingToken out{16};\n}  // namespace dfb\n" \
        in bindings
    assert ("namespace tensor {\nusing src_t = ::tensor_accessor::TensorBindingToken<1u, 4u>;\n"
            "constexpr src_t src{binding_details::LLKMetadata{}};\n}  // namespace tensor\n") in bindings
    assert kernel_bindings_header(Metal2()).endswith("// No bindings for this kernel.\n")


def test_ttnn_transpose_reader_with_named_args_transposes() -> None:
    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    ht = wt = 2
    a, _ = exact_inputs(wt)
    a = np.concatenate([a, a[::-1] + 1], axis=0)          # [64, 64]: 2 x 2 tiles
    p = Program()
    A, C = p.buffer("a", a), p.buffer("c", pages=ht * wt)
    p.cb(0, 2, 2048)
    p.cb(16, 2, 2048)
    t = ops / "data_movement/transpose/device/kernels"
    p.kernel("ncrisc", t / "dataflow/reader_unary_transpose_wh_interleaved_start_id.cpp",
             rt_args={"num_tiles": ht * wt, "start_id": 0, "start_ht": 0, "start_wt": 0, "Ht": ht, "Wt": wt,
                      "HtWt": ht * wt},
             dfbs={"in0": 0}, tensors={"src": A})
    p.kernel("brisc", ops / "eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp",
             compile_args=[16, *C.accessor_args], args=[C, ht * wt, 0])
    p.kernel("compute", t / "compute/transpose_wh.cpp", args=[ht * wt])
    s = Session({})
    result = run(s, p, fw)
    assert np.array_equal(result.tensor("c", a.shape), a.T)
    shown = execute(s, "info kernels")
    assert "      dfbs: in0=CB 0\n      tensors: src=buffer a\n" in shown
    assert f": [num_tiles=4, start_id=0, start_ht=0, start_wt=0, Ht=2, Wt=2, HtWt=4]\n" in shown
    assert f"      common runtime args at 0x" in shown and f": [tensor src={A.address:#x} (a)]" in shown


def test_the_program_format_declares_a_metal2_kernel(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text('''
[buffers.a]
pages = 4
[cbs]
0 = { pages = 2, page_size = 2048 }
[[kernels]]
processor = "ncrisc"
source = "reader.cpp"
compile_args = [7]
args = [9]
rt_args = { num_tiles = 4, base = "a" }
common_args = { scale = 3 }
named_args = { block = 2 }
dfbs = { in0 = 0 }
tensors = { src = "a" }
''')
    p = Program.load(tmp_path / "p.toml")
    k = p.kernels[0]
    p.allocate()
    a = p.buffers["a"]
    # the tensor's accessor args follow the positional CTA; its address follows the named CRTA
    assert k.metal2 == Metal2(("num_tiles", "base"), ("scale",), (("block", 2),), (("in0", 0),), (("src", 1, 4),))
    assert k.all_compile_args == [7, *a.accessor_args]
    assert k.arg_words() == [4, a.address, 9]
    assert k.common_words() == [3, a.address]
