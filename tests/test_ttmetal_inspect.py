"""``info kernels`` (issue 33 item 10): each kernel of a tt-metal program, where it runs, its
source, what it was built with and its runtime arguments as launched, then the program's CBs;
``info l1-writer`` naming a NoC request, ``tile BUFFER page P`` and ``x/NFU noc(X,Y):ADDR`` (item 9).

The program is the suite's eltwise add (``tests/ttmetal_programs.py``); the expected buffer
addresses, the kernel configuration base, B's code offset and the CB addresses are what tt-metal
0.81.1 gave the same program on ttsim (``tests/data/ttmetal_programs_ttsim.json``: the buffers,
the launch message's first word, ``kernel_text_offset``, ``cb_addresses``); the arguments are the
program's own.  Needs the ttnn wheel and tdbg.ttmetal.kit (skips, saying so, without them)."""

from __future__ import annotations

import struct

import pytest

from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import prepare
from tdbg.commands import execute
from ttmetal_programs import TTSIM, eltwise_add, operations

ADD = TTSIM["add"]
A, B, C = (int(a, 16) for a in ADD["buffers"])
CONFIG_BASE = int.from_bytes(bytes.fromhex(ADD["launch"])[:4], "little")   # kernel_config_base[0]


@pytest.fixture(scope="module")
def session() -> Session:
    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    s = Session({})
    prepare(s, eltwise_add(ops), fw)
    return s


def test_info_kernels_before_and_after_the_launch(session: Session) -> None:
    lines = execute(session, "info kernels").splitlines()
    assert lines[0] == "B     writer_unary_interleaved_start_id (brisc, NoC 1)"
    assert lines[1].startswith("      source: /") and lines[1].endswith("/writer_unary_interleaved_start_id.cpp")
    assert lines[2].startswith(f"      B code at {CONFIG_BASE + int(ADD['kernel_text_offset'][0], 16):#x} (")
    assert lines[3] == "      compile args: [2, 2, 2048]"
    assert lines[4] == f"      runtime args at {CONFIG_BASE:#x}, not launched yet: [{C:#x} (c), 12, 0]"
    nc = lines.index("NC    reader_binary_interleaved_start_id (ncrisc, NoC 0)")
    assert f"      runtime args at {CONFIG_BASE + 12:#x}, not launched yet: [{A:#x} (a), {B:#x} (b), 12, 0, 0, 0, 0]" \
        in lines[nc:]
    compute = lines.index("T0-T2 eltwise_binary_kernel (compute)")
    assert [line.split(" code at ")[0] for line in lines[compute + 2:compute + 5]] == ["      T0", "      T1", "      T2"]
    assert "      defines: ELTWISE_OP=add_tiles, ELTWISE_OP_TYPE=EltwiseBinaryType::ELWADD" in lines[compute:]
    # the arguments in processor order: B's 3 words, NC's 7, then the compute kernel's
    assert f"      runtime args at {CONFIG_BASE + 40:#x}, not launched yet: [12, 1]" in lines
    for index, at in ADD["cb_addresses"].items():
        assert f"CB {index}: 2 pages of 2048 bytes at {int(at, 16):#x} (Float16_b)" in lines

    execute(session, "break kernel_main thread NC")
    assert "hit Breakpoint 1, kernel_main () at " in execute(session, "continue")
    execute(session, f"set {{uint32_t}}{CONFIG_BASE + 12 + 8:#x} = 7")     # the reader's tile count, changed
    after = execute(session, "info kernels")
    assert f"      runtime args at {CONFIG_BASE:#x}: [{C:#x} (c), 12, 0]" in after
    assert f"      runtime args at {CONFIG_BASE + 12:#x}: [{A:#x} (a), {B:#x} (b), 12 [now 7], 0, 0, 0, 0]" in after


def test_info_kernels_without_a_program_says_so() -> None:
    s = Session({})
    assert execute(s, "info kernels", check=False).strip() == "No tt-metal program is loaded ('tt-metal program FILE')."


def test_who_wrote_a_cb_page_and_dram_read_by_name_and_endpoint() -> None:
    """At the compute kernel's start the reader has read A's first tile into CB 0 by a NoC read
    (issue 33 item 9): ``info l1-writer`` names that request and the reader's line; ``tile a
    page 3`` reads A's page 3 in DRAM (bank 3, as tt-metal interleaves pages over 8 banks);
    ``x/4wx noc(X,Y):ADDR`` reads bank 0's first words (A's tile 0, face 0, row 0: bfloat16 pairs)."""
    from tdbg.ttmetal.device import dram_bank_xy

    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    s = Session({})
    prepare(s, eltwise_add(ops), fw)
    execute(s, "break kernel_main thread T1")
    execute(s, "continue")
    cb0 = int(ADD["cb_addresses"]["0"], 16)
    wrote = execute(s, f"info l1-writer {cb0 + 100:#x}").strip()
    assert wrote.startswith(f"L1 {cb0 + 100:#x}: the NoC request NoC 0 read of 2048 bytes by NC at 0x")
    assert f" {A:#x} -> this tile {cb0:#x} (#1), issued at 0x" in wrote and "reader_binary_interleaved_start_id.cpp:" in wrote

    written = s.host.program.buffers["a"].data            # the bytes the host wrote: tiles of bfloat16, in pages
    page3 = struct.unpack_from("<16H", written, 3 * 2048)  # face 0, row 0 of tile 3
    execute(s, "set width unlimited")
    shown = execute(s, "tile/x a page 3").splitlines()
    assert shown[0] == f"Tile at DRAM buffer a page 3 (bank 3 {A:#x}) as bf16"
    assert tuple(int(w, 16) for w in shown[2].split(":")[1].split()) == page3
    x, y = dram_bank_xy(0)[0]
    words = execute(s, f"x/4wx noc({x},{y}):{A:#x}").split()
    assert words[0] == f"noc({x},{y}):{A:#x}:"
    assert tuple(int(w, 16) for w in words[1:]) == struct.unpack_from("<4I", written, 0)
    assert execute(s, "x/4wx a page 9").split()[1:] == [f"{w:#010x}" for w in struct.unpack_from("<4I", written, 9 * 2048)]
    assert execute(s, "tile a page 12", check=False).strip() == "Buffer a has pages 0..11, not 12."
