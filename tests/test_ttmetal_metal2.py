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
from tdbg.ttmetal.memmap import KERNEL_CONFIG_BASE
from tdbg.ttmetal.program import Program, prepare, run
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


def test_generated_semaphore_tokens_text() -> None:
    """The 0.81.1 wheel's libtt_metal.so writes ``namespace sem {``, then per binding (by name)
    ``constexpr ::SemaphoreBindingToken NAME{IDu, ::SemScope::SCOPE};`` between the dfb and tensor
    namespaces (its emit_semaphore_binding_tokens' strings, in the order its code writes them)."""
    m = Metal2(dfbs=(("in0", 0),), tensors=(("src", 1, 4),),
               sems=(("ready", 1, "LOCAL_NONATOMIC"), ("go", 0, "LOCAL_NONATOMIC")))
    bindings = kernel_bindings_header(m)
    sem = ("namespace sem {\nconstexpr ::SemaphoreBindingToken go{0u, ::SemScope::LOCAL_NONATOMIC};\n"
           "constexpr ::SemaphoreBindingToken ready{1u, ::SemScope::LOCAL_NONATOMIC};\n}  // namespace sem\n")
    assert sem in bindings and '#include "api/dataflow/semaphore_binding_token.h"\n' in bindings
    assert bindings.index("namespace dfb") < bindings.index(sem) < bindings.index("namespace tensor")
    assert "namespace sem" in kernel_bindings_header(Metal2(sems=(("s", 0, "COMPUTE_ATOMIC"),)))


def test_ttnn_layernorm_receiver_binds_its_semaphore_by_sem_name() -> None:
    """ttnn's layernorm mcast receiver (``Semaphore reduce_sender_sem(sem::reduce_sender)``, its CTA
    ``args::block_h``, ``dfb::ex_global``) on one tile: the host puts semaphore 0's initial value at
    ``kernel_config_base + sem_offset`` (tt-metal: the semaphores follow the runtime arguments, 16
    bytes each; here no arguments, so at the base), the kernel sets it INVALID (0) there and waits
    for VALID (1), which no core sends: a hang naming the semaphore; the debugger's VALID ends it."""
    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    p = Program()
    sem = p.semaphore(7)
    p.cb(8, 2, 2048)                                   # stats_tiles (2) * block_h pages
    p.kernel("ncrisc", ops / "normalization/layernorm/device/kernels/dataflow/"
             "reader_mcast_receiver_unary_sharded_ln_post_allgather.cpp",
             named_args={"block_h": 1}, dfbs={"ex_global": 8}, sems={"reduce_sender": sem})
    s = Session({})
    prepare(s, p, fw)
    address = KERNEL_CONFIG_BASE
    assert execute(s, "info kernels").splitlines()[6] == f"      sems: reduce_sender=semaphore 0 at {address:#x}"
    stop = " ".join(execute(s, "continue").split())
    assert "deadlock" in stop and f"reading L1 {address:#x} <semaphore 0 (sem::reduce_sender)> (= 0x0)" in stop
    assert "reduce_sender_sem.wait(VALID);" in stop
    execute(s, f"set {{uint32_t}}{address:#x} = 1")
    assert "tt-metal program done" in execute(s, "continue")


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
semaphores = [0, 3]
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
sems = { ready = 1 }
''')
    p = Program.load(tmp_path / "p.toml")
    k = p.kernels[0]
    p.allocate()
    a = p.buffers["a"]
    # the tensor's accessor args follow the positional CTA; its address follows the named CRTA
    assert p.semaphores == [0, 3]
    assert k.metal2 == Metal2(("num_tiles", "base"), ("scale",), (("block", 2),), (("in0", 0),), (("src", 1, 4),),
                              (("ready", 1, "LOCAL_NONATOMIC"),))
    assert k.all_compile_args == [7, *a.accessor_args]
    assert k.arg_words() == [4, a.address, 9]
    assert k.common_words() == [3, a.address]


def test_a_sem_binding_names_a_semaphore_the_program_has(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text('semaphores = [0]\n[[kernels]]\nprocessor = "brisc"\nsource = "w.cpp"\n'
                                     'sems = { ready = 1 }\n')
    with pytest.raises(TtMetalError, match=r"sem::ready: semaphore 1; the program has 1"):
        Program.load(tmp_path / "p.toml")
