"""tdbg playing tt-metal 0.81.1's host for a program on one tile: DRAM buffers, the kernel
configuration buffer, the launch and go messages, the run, the results.

Expected values: what tt-metal 0.81.1 itself did on Tenstorrent's simulator for ttnn's eltwise add
and a matmul (``tests/data/ttmetal_programs_ttsim.json``: buffer addresses, the launch message's
bytes, the layout, the sha256 of ttsim's result; ``scripts/ttmetal_program_fixture.py``); numpy
for the results' values; an independent scalar rounding for bfloat16.  The program tests need
the ttnn wheel and tdbg.ttmetal.kit, and skip, saying so, without them."""

from __future__ import annotations

import datetime
import hashlib
import math
import os
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
from tdbg.session import Session, SessionError
from tdbg.ttmetal import boot, dram, tensors
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import Layout, Program, run
from tdbg.commands import execute
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
    frame = execute(s, "frame")
    assert frame.startswith("#0  kernel_main () at ") and "/eltwise_binary_kernel.cpp:15" in frame
    s.delete(bp.number)
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done")
    assert hashlib.sha256(host.result.buffers["c"]).hexdigest() == TTSIM["add"]["output_sha256"]


@pytest.mark.parametrize("cb_pages", [6, "to L1's end"])
def test_eltwise_add_with_cbs_past_l1_0x20000(cb_pages: int | str) -> None:
    """CBs of 6 pages reach past L1 0x20000, the page a NoC 0 read into once killed the process
    (issue 30 N1); CBs as large as L1 holds put the reader's NoC reads in the middle of L1 and the
    last CB at its end.  The sum is the one with CBs of 2 pages (ttsim's bytes)."""
    ops, fw = operations(), firmware()
    from tdbg.arch import profile_for
    from tdbg.ttmetal.memmap import L1_UNRESERVED_START
    from tdbg.ttmetal.program import prepare

    l1_size = profile_for().l1_size
    pages = cb_pages if isinstance(cb_pages, int) else (l1_size - L1_UNRESERVED_START) // (3 * 2048)
    s = Session({})
    program = eltwise_add(ops, cb_pages=pages)
    host = prepare(s, program, fw)
    spans = [(at, at + program.cbs[i].pages * program.cbs[i].page_size) for i, at in host.layout.cb_addresses.items()]
    assert any(lo <= 0x20000 < hi for lo, hi in spans), [(hex(lo), hex(hi)) for lo, hi in spans]
    if not isinstance(cb_pages, int):
        assert l1_size - 3 * 2048 < max(hi for _, hi in spans) <= l1_size, [(hex(lo), hex(hi)) for lo, hi in spans]
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


def test_tt_metal_boot_replaces_the_demo_and_a_folder_that_does_not_load_leaves_it(tmp_path: Path) -> None:
    """Issue 30 D1 / 33 item 1: from plain `tdbg` (the demo on T0) 'tt-metal boot' does what its
    help says (the earlier programs and set-up dropped); a firmware folder whose last ELF is not
    one fails in one line and leaves the demo as it was."""
    import shutil

    fw = firmware()
    s = Session()
    demo = {core: image.path for core, image in s.programs.items()}
    assert list(demo) == ["T0"]
    bad = tmp_path / "fw"
    shutil.copytree(fw, bad)
    (bad / "trisc2" / "trisc2.elf").write_bytes(b"not an ELF")
    with pytest.raises(SessionError, match="trisc2.elf"):
        execute(s, f"tt-metal boot {bad}")
    assert {core: image.path for core, image in s.programs.items()} == demo and s.host is None
    assert "tt-metal 0.81.1's firmware loaded on B, NC, T0, T1, T2" in execute(s, f"tt-metal boot {fw}")
    assert sorted(s.programs) == sorted(["B", "NC", "T0", "T1", "T2"])
    assert s.programs["T0"].path == fw / "trisc0" / "trisc0.elf"
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal firmware booted")


# -- the program file: every wrong key is one line naming it (issue 30 T1-T5) ---------------------------

def _valid_file(folder: Path) -> dict:
    """A program file's document (PROGRAM_FORMAT's shape, local paths: nothing is built)."""
    np.save(folder / "a.npy", np.ones((32, 64), np.float32))
    (folder / "k.cpp").write_text("void kernel_main() {}\n")
    return {"dprint": False,
            "buffers": {"a": {"file": "a.npy", "page_size": 2048}, "c": {"pages": 2, "page_size": 2048, "dump": "c.bin"}},
            "cbs": {"0": {"pages": 2, "page_size": 2048, "format": "Float16_b"}, "1": {"pages": 2, "page_size": 2048}},
            "kernels": [{"processor": "ncrisc", "source": "k.cpp", "compile_args": [0, "a.accessor"], "args": ["a", 2, 0]},
                        {"processor": "compute", "source": "k.cpp", "defines": {"OP": "add_tiles"}, "args": [2, 1],
                         "named_args": {"cb_in0": 0}, "compute": {"math_fidelity": "HiFi4", "fp32_dest_acc_en": False}},
                        {"processor": "brisc", "source": "k.cpp", "args": ["c", 2, 0], "noc": 1}]}


def _load(spec: dict, folder: Path):
    from tdbg.ttmetal.program import from_spec

    program = from_spec(spec, folder)
    program.allocate()
    for kernel in program.kernels:
        kernel.arg_words()
    return program


@pytest.mark.parametrize("where, value, message", [
    (("buffers",), 5, "buffers: a table [buffers], not an integer (5)"),
    (("buffers", "a"), 5, "buffers.a: a table { file, page_size, pages, dump, address }, not an integer (5)"),
    (("buffers", "a", "file"), 5, "buffers.a.file: a string, not an integer (5)"),
    (("buffers", "a", "page_size"), 0, "buffer a: page_size 0; a page is a positive number of bytes"),
    (("buffers", "a", "page_size"), 2048.0, "buffers.a.page_size: an integer, not a float (2048.0)"),
    (("buffers", "c", "pages"), "2", "buffers.c.pages: an integer, not a string ('2')"),
    (("buffers", "c", "pages"), True, "buffers.c.pages: an integer, not a boolean (True)"),
    (("buffers", "c", "dump"), ["c.bin"], "buffers.c.dump: a string, not an array (['c.bin'])"),
    (("buffers", "c", "address"), 1.5, "buffers.c.address: an integer, not a float (1.5)"),
    (("cbs",), [1], "cbs: a table [cbs], not an array ([1])"),
    (("cbs", "0"), 2, "cbs.0: a table { pages, page_size, format }, not an integer (2)"),
    (("cbs", "0", "pages"), 2.5, "cbs.0.pages: an integer, not a float (2.5)"),
    (("cbs", "0", "format"), 5, "cbs.0.format: a string, not an integer (5)"),
    (("kernels",), {"c": 1}, "kernels: an array of tables ([[kernels]] before each kernel), not a table ({'c': 1})"),
    (("kernels", 0), "x", "kernels[0]: a table ([[kernels]]), not a string ('x')"),
    (("kernels", 0, "source"), 5, "kernels[0].source: a string, not an integer (5)"),
    (("kernels", 0, "processor"), 5, "kernels[0].processor: a string, not an integer (5)"),
    (("kernels", 0, "args"), [[1]], "kernels[0].args[0]: a 32-bit word or a buffer name, not an array ([1])"),
    (("kernels", 0, "args"), [{"x": 1}], "kernels[0].args[0]: a 32-bit word or a buffer name, not a table ({'x': 1})"),
    (("kernels", 0, "args"), [datetime.date(2024, 1, 2)],
     "kernels[0].args[0]: a 32-bit word or a buffer name, not a date or time (datetime.date(2024, 1, 2))"),
    (("kernels", 0, "args"), [12.7], "kernels[0].args[0]: a 32-bit word or a buffer name, not a float (12.7)"),
    (("kernels", 0, "args"), [-1], "kernels[0].args[0]: -1 is outside 0..4294967295"),
    (("kernels", 0, "args"), 5, "kernels[0].args: an array, not an integer (5)"),
    (("kernels", 0, "compile_args"), [1.0], "kernels[0].compile_args[0]: a 32-bit word or BUFFER.accessor, not a float (1.0)"),
    (("kernels", 1, "compute"), {"bogus": 1},
     "kernels[1].compute: unknown key(s) bogus; it has math_fidelity, fp32_dest_acc_en, dst_full_sync_en, math_approx_mode"),
    (("kernels", 1, "compute"), {"fp32_dest_acc_en": 1}, "kernels[1].compute.fp32_dest_acc_en: true or false, not an integer (1)"),
    (("kernels", 1, "defines"), {"OP": [1]}, "kernels[1].defines.OP: a string or an integer, not an array ([1])"),
    (("kernels", 1, "named_args"), {"cb": "0"}, "kernels[1].named_args.cb: an integer, not a string ('0')"),
    (("kernels", 2, "noc"), 2, "kernels[2].noc: 0 or 1, not 2"),
    (("dprint",), "no", "dprint: true or false, not a string ('no')"),
])
def test_a_wrong_typed_key_is_one_line_naming_it(tmp_path: Path, where: tuple, value: object, message: str) -> None:
    spec = _valid_file(tmp_path)
    _load(spec, tmp_path)                      # the document is valid as it is
    holder = spec
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    with pytest.raises(TtMetalError) as caught:
        _load(spec, tmp_path)
    assert str(caught.value) == message


@pytest.mark.parametrize("where, message", [
    (("cbs", "0", "pages"), "cbs.0: no pages (the table is { pages, page_size, format })"),
    (("cbs", "1", "page_size"), "cbs.1: no page_size (the table is { pages, page_size, format })"),
    (("kernels", 0, "processor"), "kernels[0]: no processor (brisc | ncrisc | compute)"),
])
def test_a_missing_key_is_named_with_its_table(tmp_path: Path, where: tuple, message: str) -> None:
    spec = _valid_file(tmp_path)
    holder = spec
    for key in where[:-1]:
        holder = holder[key]
    del holder[where[-1]]
    with pytest.raises(TtMetalError) as caught:
        _load(spec, tmp_path)
    assert str(caught.value) == message


def test_negative_sizes_are_refused(tmp_path: Path) -> None:
    spec = _valid_file(tmp_path)
    spec["buffers"]["a"]["page_size"] = -2048
    with pytest.raises(TtMetalError, match=r"^buffer a: page_size -2048; a page is a positive number of bytes$"):
        _load(spec, tmp_path)
    spec = _valid_file(tmp_path)
    spec["buffers"]["c"]["pages"] = -12
    with pytest.raises(TtMetalError, match=r"^buffer c: -12 pages; a buffer has at least one$"):
        _load(spec, tmp_path)
    with pytest.raises(TtMetalError, match="negative"):
        Program().buffer("x", pages=1, address=-64)


def test_a_buffer_larger_than_a_dram_bank_is_refused_as_tt_metals_allocator_refuses_it(tmp_path: Path) -> None:
    """8 banks of 4 278 190 080 bytes (the soc descriptor's dram_view_size), from 0x100080 (the
    first address tt-metal 0.81.1 allocated on ttsim): 200 TB is refused, and so is the buffer
    that no longer fits after another one; one that ends at a bank's end is not."""
    bank = 4_278_190_080
    spec = _valid_file(tmp_path)
    spec["buffers"]["c"] = {"pages": 200 * 10 ** 12 // 2048, "page_size": 2048}
    with pytest.raises(TtMetalError, match=r"^buffer c: out of memory: 200000000000000 B across 8 DRAM banks need "
                                           rf"\d+ B in each from 0x100080, but a bank is {bank} B$"):
        _load(spec, tmp_path)
    fits = (bank - 0x100080) // 2048                  # pages per bank that fit, 2048 bytes each (64-aligned)
    p = Program()
    p.buffer("whole", pages=8 * fits)
    p.allocate()
    assert p.buffers["whole"].placement().bank_bytes == fits * 2048
    p = Program()
    p.buffer("first", pages=8)
    p.buffer("whole", pages=8 * fits)
    with pytest.raises(TtMetalError, match="^buffer whole: out of memory"):
        p.allocate()


def test_fifos_and_devices_are_refused_not_read(tmp_path: Path) -> None:
    """restore/source refuse them (tdbg.debug.hostfiles); so does the program loader, as the program
    file and as a buffer's file (a FIFO would block for ever, /dev/zero never end)."""
    from fuzzing import bounded

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with bounded(30):
        with pytest.raises(TtMetalError, match=rf"^{fifo}: not a regular file\.$"):
            Program.load(fifo)
        for name in (str(fifo), "/dev/zero"):
            spec = _valid_file(tmp_path)
            spec["buffers"]["a"]["file"] = name
            with pytest.raises(TtMetalError, match=rf"^{name}: not a regular file\.$"):
                _load(spec, tmp_path)


def test_a_circular_buffer_past_l1s_end_is_refused_when_created() -> None:
    """tt-metal: the CBs "grow to" their end "which is beyond max L1 size" (MEM_L1_SIZE, 1536 KiB);
    they start at l1_unreserved_start, 0x1B480 (measured on ttsim)."""
    room = 1536 * 1024 - 0x1B480
    p = Program()
    p.cb(0, room // 2048, 2048)                        # fits
    p.cb(1, 1, room % 2048)                            # 896 bytes: L1 full to its end, 0x180000
    with pytest.raises(TtMetalError, match=r"^CB 2: 1 pages of 2048 bytes: the circular buffers grow to 0x180800, "
                                           r"beyond max L1 size of 1572864 B"):
        p.cb(2, 1, 2048)
    with pytest.raises(TtMetalError, match="beyond max L1 size"):
        Program().cb(0, 2_097_152, 2048)               # issue 30: an OverflowError before


def test_a_kernel_argument_that_is_a_float_is_refused_not_truncated(tmp_path: Path) -> None:
    spec = _valid_file(tmp_path)
    spec["kernels"][0]["args"] = [12.7]
    with pytest.raises(TtMetalError, match="not a float"):
        _load(spec, tmp_path)
    kernel = Program().kernel("ncrisc", tmp_path / "k.cpp", args=[12.7])          # from Python: not 12 either
    with pytest.raises(TtMetalError, match="runtime argument 12.7 is not an integer or a buffer"):
        kernel.arg_words()
    assert Program().kernel("brisc", tmp_path / "k.cpp", args=[np.uint32(7), 2]).arg_words() == [7, 2]


_WRONG = (5, -2048, 0, 2 ** 40, -(2 ** 70), 12.7, "2", "a", "a.accessor", True, [1, [2]], [], {"bogus": 1}, {},
          datetime.date(2024, 1, 2), datetime.time(1, 2), "fifo", "/dev/zero")


def _paths(value: object, at: tuple = ()) -> list[tuple]:
    """Every key path in a document (tables and arrays)."""
    out = [at] if at else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*at, i))
    return out


_KEYS = ("bogus", "²", "0", "64", "pages", "file", "", "a.accessor")


def _mutated(spec: dict, path: tuple, value: object, delete: bool, rename: str | None = None) -> dict:
    """``spec`` with the value at ``path`` replaced by ``value``, deleted, or (a table's) renamed."""
    import copy

    spec = copy.deepcopy(spec)
    holder = spec
    for key in path[:-1]:
        holder = holder[key]
    if rename is not None and isinstance(holder, dict):
        holder[rename] = holder.pop(path[-1])
    elif delete:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return spec


def _check_loads_or_refuses(spec: dict, folder: Path) -> None:
    """The loader's contract: a program, placed and with its arguments as words, or one line."""
    try:
        program = _load(spec, folder)
    except TtMetalError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    for buffer in program.buffers.values():
        assert buffer.page_size > 0 and buffer.pages > 0 and buffer.address >= 0
        assert buffer.address + buffer.placement().bank_bytes <= 4_278_190_080
    assert sum(cb.size for cb in program.cbs.values()) <= 1536 * 1024 - 0x1B480


@pytest.fixture
def fuzz_folder(tmp_path: Path) -> tuple[dict, Path]:
    spec = _valid_file(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    return spec, tmp_path


def test_every_single_mutation_of_a_program_file_loads_or_is_refused_in_one_line(fuzz_folder) -> None:
    """Each key of a valid program replaced by each wrong value (wrong types, sizes, FIFOs,
    devices), deleted, or renamed: 1300 documents."""
    from fuzzing import bounded

    spec, folder = fuzz_folder
    cases = [(p, v, False, None) for p in _paths(spec) for v in _WRONG] + [(p, None, True, None) for p in _paths(spec)]
    cases += [(p, None, False, k) for p in _paths(spec) for k in _KEYS]
    assert len(cases) > 1000
    with bounded(120):
        for path, value, delete, rename in cases:
            _check_loads_or_refuses(_mutated(spec, path, value, delete, rename), folder)


def test_random_mutations_of_a_program_file_load_or_are_refused_in_one_line(fuzz_folder) -> None:
    """Several mutations at once (more with TDBG_FUZZ_LONG=1)."""
    from fuzzing import LONG, bounded
    import random

    spec, folder = fuzz_folder
    rng = random.Random(30)
    with bounded(1800 if LONG else 60):
        for _ in range(20000 if LONG else 300):
            doc = spec
            for _ in range(rng.randint(1, 4)):
                paths = _paths(doc)
                if not paths:
                    break
                doc = _mutated(doc, rng.choice(paths), rng.choice(_WRONG), rng.random() < 0.2,
                               rng.choice(_KEYS) if rng.random() < 0.15 else None)
            _check_loads_or_refuses(doc, folder)


def test_a_fifo_as_a_dump_file_is_refused_not_opened(tmp_path: Path) -> None:
    """Opening a FIFO for writing waits for a reader: the result's dump is written as 'dump' writes
    (tdbg.debug.hostfiles), which refuses one; a non-ASCII digit is no CB index."""
    from types import SimpleNamespace

    from fuzzing import bounded
    from tdbg.ttmetal.program import ProgramHost, from_spec

    os.mkfifo(tmp_path / "fifo")
    p = Program()
    p.buffer("c", pages=1, dump=tmp_path / "fifo")
    p.allocate()
    with bounded(30), pytest.raises(TtMetalError, match=rf"^{tmp_path / 'fifo'}: not a regular file\.$"):
        ProgramHost.collect(SimpleNamespace(program=p), Session({}))
    with pytest.raises(TtMetalError, match="CB index '²' is not a number"):
        from_spec({"cbs": {"²": {"pages": 1, "page_size": 16}}}, tmp_path)


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
