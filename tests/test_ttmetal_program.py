"""tdbg playing tt-metal 0.81.1's host for a program on one tile: DRAM buffers, the kernel
configuration buffer, the launch and go messages, the run, the results.

Expected values: what tt-metal 0.81.1 itself did on Tenstorrent's simulator for ttnn's eltwise add
and a matmul (``tests/data/ttmetal_programs_ttsim.json``: buffer addresses, the launch message's
bytes, the layout, the sha256 of ttsim's result; ``scripts/ttmetal_program_fixture.py``); numpy
for the results' values; an independent scalar rounding for bfloat16.  The program tests need
the ttnn wheel and tdbg.ttmetal.kit, and skip, saying so, without them."""

from __future__ import annotations

import hashlib
import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.ttmetal import boot, dram, tensors
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import Layout, Program, run
from ttmetal_programs import TTSIM, eltwise_add, inputs, matmul, operations


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


# -- without the wheel -------------------------------------------------------------------------------

def test_buffers_interleaved_as_tt_metal_placed_them() -> None:
    placed = dram.allocate([(2048, 12)] * 3)
    assert [hex(b.address) for b in placed] == TTSIM["add"]["buffers"]
    assert [hex(b.address) for b in dram.allocate([(2048, 6)] * 3)] == TTSIM["matmul"]["buffers"]
    assert placed[0].page(7) == (7, 0x100080) and placed[0].page(8) == (0, 0x100880)   # measured: dram.json


def _bf16_reference(x: float) -> int:
    """The nearest bfloat16 (ties to the even one), chosen by comparing the two neighbours."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    low = bits & 0xFFFF_0000
    high = low + 0x1_0000
    value = lambda b: struct.unpack("<f", struct.pack("<I", b & 0xFFFF_FFFF))[0]  # noqa: E731
    d_low, d_high = abs(x - value(low)), abs(value(high) - x) if high < 1 << 32 else math.inf
    if d_low != d_high:
        return (low if d_low < d_high else high) >> 16
    return (low if not (low >> 16) & 1 else high) >> 16


_BIG = float(np.float32(3.38e38))     # below bfloat16's largest finite value: no rounding to infinity


@given(st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-_BIG, max_value=_BIG))
def test_bfloat16_rounds_to_nearest_even(x: float) -> None:
    assert int(tensors.to_bf16(np.float32(x))) == _bf16_reference(x)


@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 3).map(lambda n: 32 * n), st.integers(1, 3).map(lambda n: 32 * n))))
def test_tilize_is_undone_by_untilize(m: np.ndarray) -> None:
    assert np.array_equal(tensors.untilize(tensors.tilize(m), m.shape), m, equal_nan=True)


def test_tile_layout_is_faces_of_rows() -> None:
    m = np.arange(64 * 32, dtype=np.float32).reshape(32, 64)         # two tiles side by side
    flat = tensors.tilize(m)
    r, c = 20, 45                                                    # tile 1, face 2 (rows 16.., cols 32..47)
    assert flat[1024 + 2 * 256 + (r - 16) * 16 + (c - 32)] == m[r, c]


@dataclass(frozen=True)
class _Binary:
    core: str
    image: bytes
    elf: Path = Path("k.elf")
    entry: int = 0


def test_kernel_configuration_layout_is_tt_metals() -> None:
    want = TTSIM["add"]
    sizes = [int(s, 16) for s in want["kernel_text_size"]]
    p = Program()
    a, b, c = (p.buffer(n, pages=12) for n in "abc")
    for cb in (0, 1, 2):
        p.cb(cb, 2, 2048)
    binaries = {core: _Binary(core, bytes(size)) for core, size in zip(("B", "NC", "T0", "T1", "T2"), sizes)}
    p.kernel("ncrisc", binaries=[binaries["NC"]], args=[a, b, 12, 0, 0, 0, 0])
    p.kernel("brisc", binaries=[binaries["B"]], args=[c, 12, 0])
    p.kernel("compute", binaries=[binaries[t] for t in ("T0", "T1", "T2")], args=[12, 1])
    p.allocate()
    layout = Layout.of(p, binaries)
    assert [hex(layout.text_offset[c]) for c in ("B", "NC", "T0", "T1", "T2")] == want["kernel_text_offset"]
    assert (hex(layout.local_cb_offset), hex(layout.remote_cb_offset)) == (want["local_cb_offset"], want["remote_cb_offset"])
    assert {str(i): hex(a) for i, a in layout.cb_addresses.items()} == want["cb_addresses"]
    assert layout.rta_offset == {"B": 0, "NC": 0xC, "T0": 0x28, "T1": 0x28, "T2": 0x28}


def test_a_program_file_names_buffers_in_arguments(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones((32, 64), np.float32))
    (tmp_path / "k.cpp").write_text("void kernel_main() {}\n")
    (tmp_path / "p.toml").write_text(
        '[buffers.a]\nfile = "a.npy"\n[buffers.c]\npages = 2\ndump = "c.bin"\n'
        '[cbs]\n0 = { pages = 2, page_size = 2048 }\n16 = { pages = 1, page_size = 2048, format = "Float32" }\n'
        '[[kernels]]\nprocessor = "ncrisc"\nsource = "k.cpp"\ncompile_args = [7, "a.accessor"]\nargs = ["a", 2, "c"]\n')
    p = Program.load(tmp_path / "p.toml")
    p.allocate()
    assert p.buffers["a"].data == tensors.bf16_tiles(np.ones((32, 64), np.float32)) and p.buffers["a"].pages == 2
    assert p.buffers["c"].dump == tmp_path / "c.bin"
    assert (p.cbs[16].format, p.cbs[0].size) == ("Float32", 4096)
    kernel = p.kernels[0]
    assert kernel.source == tmp_path / "k.cpp" and list(kernel.compile_args) == [7, 2, 2048]
    assert kernel.arg_words() == [0x100080, 2, 0x100880]
    for bad, message in (('[cbs]\nx = { pages = 1, page_size = 16 }\n', "CB index 'x'"),
                         ('[[kernels]]\nprocessor = "ncrisc"\nsource = "k.cpp"\nargs = ["nosuch"]\n', "names no buffer"),
                         ('[stuff]\n', "unknown table")):
        (tmp_path / "bad.toml").write_text(bad)
        with pytest.raises(TtMetalError, match=message):
            Program.load(tmp_path / "bad.toml")


# -- the real programs -------------------------------------------------------------------------------

def _bf16(x: np.ndarray) -> np.ndarray:
    return tensors.from_bf16(tensors.to_bf16(x))


def test_eltwise_add_computes_numpys_sum_and_ttsims_bytes() -> None:
    ops, fw = operations(), firmware()
    s = Session({})
    program = eltwise_add(ops)
    result = run(s, program, fw)
    a, b = inputs("add")
    c = result.tensor("c", (32, 384))
    expected = _bf16(_bf16(a) + _bf16(b))
    ulp = np.abs(expected).view(np.uint32) & 0x7F80_0000        # one bfloat16 ulp of each value
    assert np.all(np.abs(c - expected) <= (ulp.view(np.float32) * 2.0 ** -7))
    assert hashlib.sha256(result.buffers["c"]).hexdigest() == TTSIM["add"]["output_sha256"]
    assert [hex(buf.address) for buf in program.buffers.values()] == TTSIM["add"]["buffers"]
    assert s.read_memory(0x70, 144).hex() == TTSIM["add"]["launch"]            # launch[0], byte for byte


def test_matmul_computes_numpys_product_and_ttsims_bytes() -> None:
    ops, fw = operations(), firmware()
    s = Session({})
    result = run(s, matmul(ops), fw)
    a, b = inputs("matmul")
    c = result.tensor("c", (64, 64))
    expected = _bf16(a).astype(np.float64) @ _bf16(b).astype(np.float64)
    assert np.abs(c - expected).max() < 0.2       # bfloat16 accumulation in Dst (ttsim: 0.12 at |C| <= 12.8)
    assert hashlib.sha256(result.buffers["c"]).hexdigest() == TTSIM["matmul"]["output_sha256"]


def test_break_in_the_compute_kernel_then_run_to_the_end() -> None:
    ops, fw = operations(), firmware()
    from tdbg.ttmetal.program import prepare

    s = Session({})
    host = prepare(s, eltwise_add(ops), fw)
    bp = s.break_at("kernel_main", thread="T1")
    stop = s.cont()
    assert stop.kind is StopKind.BREAKPOINT and stop.core == "T1" and stop.pc == bp.address
    frame = s.execute("frame")
    assert frame.startswith("#0  kernel_main () at ") and "/eltwise_binary_kernel.cpp:15" in frame
    s.delete(bp.number)
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done")
    assert hashlib.sha256(host.result.buffers["c"]).hexdigest() == TTSIM["add"]["output_sha256"]


def test_eltwise_add_with_cbs_past_l1_0x20000() -> None:
    """CBs of 6 pages reach past L1 0x20000, the page a NoC 0 read into once killed the process
    (issue 30 N1); the sum is the one with CBs of 2 pages (ttsim's bytes)."""
    ops, fw = operations(), firmware()
    from tdbg.ttmetal.program import prepare

    s = Session({})
    program = eltwise_add(ops, cb_pages=6)
    host = prepare(s, program, fw)
    spans = [(at, at + program.cbs[i].pages * program.cbs[i].page_size) for i, at in host.layout.cb_addresses.items()]
    assert any(lo <= 0x20000 < hi for lo, hi in spans), [(hex(lo), hex(hi)) for lo, hi in spans]
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done"), stop.describe()
    assert hashlib.sha256(host.result.buffers["c"]).hexdigest() == TTSIM["add"]["output_sha256"]


def test_a_checkpoint_restarted_many_times_runs_the_same_each_time() -> None:
    """Issue 30 R2: the host's part of the run (whether it has sent the program) is in the
    checkpoint: from a checkpoint taken before the program is sent, each restart steps to the
    same place and runs to ttsim's bytes (a second restart deadlocked on RUN_MSG_GO)."""
    ops, fw = operations(), firmware()
    from tdbg.ttmetal.program import prepare

    s = Session({})
    host = prepare(s, eltwise_add(ops), fw)
    number = s.checkpoint()
    where = []
    for _ in range(3):
        s.select_core("B")
        s.stepi(3000)
        where.append({c: (s.tile.cores[c].pc, s.core_state(c)) for c in s.tile.cores})
        stop = s.cont()
        assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done"), stop.describe()
        assert hashlib.sha256(host.result.buffers["c"]).hexdigest() == TTSIM["add"]["output_sha256"]
        s.restart(number)
    assert where[0] == where[1] == where[2]


def test_a_reader_given_an_address_no_buffer_covers_is_warned() -> None:
    """Issue 33 item 6: a reader given DRAM 0x30000000 for A (no buffer there, never written)
    ended "program done" in silence; each page it reads is now named, and the run goes on."""
    ops, fw = operations(), firmware()
    program = eltwise_add(ops)
    reader = next(k for k in program.kernels if k.processor == "ncrisc")
    reader.args = [0x3000_0000, *reader.args[1:]]
    s = Session({})
    run(s, program, fw)
    warned = [str(w.event) for w in s.take_warnings()]
    assert len(warned) == 12 and all(w.endswith(": no buffer there, never written") for w in warned), warned
    assert re.fullmatch(r"NeverWritten: NC read DRAM channel \d 0x30000000\.\.0x30000800: no buffer there, never written",
                        warned[0])
