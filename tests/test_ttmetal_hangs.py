"""Hang reports that are right on the three bugs a kernel engineer makes first (issue 33 item 5):
a CB too small for what untilize waits for, a reader that never calls ``cb_push_back``, a writer
that asks ``cb_wait_front`` for more pages than will come.  The programs are ttnn 0.81.1's own op
kernels (copy's reader and writer, untilize's compute kernel), copied into a temporary folder
with one line changed, the way the bug would be written.

Expected values come from the programs' own facts: the CB sizes they declare, the count the
changed line asks for, the tiles the reader reads, and tt-llk's name for semaphore 1 read from
the wheel's ``ckernel_structs.h`` (not from tdbg's DWARF reader).  Every line of a report fits
``set width 80``.  Needs the ttnn wheel and tdbg.ttmetal.kit (skips, saying so, without them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import Program, prepare
from tdbg.commands import execute
from ttmetal_programs import operations

TILES = 3


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


def changed(source: Path, folder: Path, old: str, new: str) -> Path:
    """``source`` copied into ``folder`` with the line ``old`` replaced by ``new``."""
    text = source.read_text()
    assert text.count(old) == 1, f"{source.name} no longer has {old!r}"
    out = folder / source.name
    out.write_text(text.replace(old, new))
    return out


def copy_program(ops: Path, reader: Path, writer: Path, cb_pages: int = 2) -> Program:
    """ttnn's copy: the reader pushes one tile at a time into CB 0, the writer pops them."""
    p = Program()
    a = np.arange(32 * 32 * TILES, dtype=np.float32).reshape(32, 32 * TILES) % 50
    A, C = p.buffer("a", a), p.buffer("c", pages=TILES)
    p.cb(0, cb_pages, 2048)
    p.kernel("ncrisc", reader, compile_args=[*A.accessor_args], args=[A, TILES, 0])
    p.kernel("brisc", writer, compile_args=[0, *C.accessor_args], args=[C, TILES, 0])
    return p


def hang(program: Program) -> tuple[Session, str]:
    """The program run to its hang in the shell at ``set width 80``: the session and the text."""
    s = Session({})
    prepare(s, program, firmware())
    execute(s, "set width 80")
    text = execute(s, "continue")
    assert "Program stopped: deadlock: no core can run." in text, text
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)
    return s, text


def entry(text: str, head: str) -> str:
    """The report's line starting ``head`` after its indent, its wrapped continuations (indented
    four more) joined again."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip(" ").startswith(head.strip()) and line.strip())
    more = " " * (len(lines[start]) - len(lines[start].lstrip(" ")) + 4)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(more)), len(lines))
    return " ".join(line.strip() for line in lines[start:end])


def joined(text: str) -> str:
    """The report with wrapped lines joined (a continuation is indented four more than its line)."""
    out: list[str] = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if out and line.strip() and indent >= 4 and indent == len(out[-1]) - len(out[-1].lstrip(" ")) + 4:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def copy_kernels() -> tuple[Path, Path]:
    k = operations() / "data_movement/copy/device/kernels"
    return k / "reader_unary_start_id.cpp", k / "writer_unary_start_id.cpp"


def test_a_reader_that_never_pushes(tmp_path: Path) -> None:
    reader, writer = copy_kernels()
    bad = changed(reader, tmp_path, "        dfb_in0.push_back(onetile);\n", "")
    s, text = hang(copy_program(operations(), bad, writer))
    report = joined(text)
    lines = report.splitlines()
    head = lines.index("tt-metal program hangs: go_messages[0].signal = RUN_MSG_GO; no core can run:")
    assert lines[head + 1].startswith("  B waits in cb_wait_front for 1 page on CB 0 (2 pages): 0 pages received, "
                                      "0 acknowledged, 0 in the CB; at ")
    assert "writer_unary_start_id.cpp:" in lines[head + 1]
    assert lines[head + 2].startswith("    no core has pushed into CB 0, and none waits in cb_reserve_back on it; "
                                      "kernels that have returned: NC; NC filled the page it waits for (read at 0x")
    assert lines[head + 2].endswith(") and did not push it")       # the reader's NoC read into CB 0's first page
    assert lines[head + 3] == "  idle in their firmware: T0, T1, T2 (no kernel); NC (kernel returned)"
    assert lines[head + 4].startswith("  waypoints: ")
    assert s.current == "B"          # the stop is the blocked kernel's, not an idle firmware's


def test_a_writer_that_waits_for_more_pages_than_come(tmp_path: Path) -> None:
    reader, writer = copy_kernels()
    bad = changed(writer, tmp_path, "dfb_out.wait_front(onetile);", "dfb_out.wait_front(2);")
    _, text = hang(copy_program(operations(), reader, bad))
    b = entry(text, "B waits")
    # the writer pops one page a turn: after two turns the third page is alone in the CB
    assert b.startswith(f"B waits in cb_wait_front for 2 pages on CB 0 (2 pages): {TILES} pages received, "
                        f"{TILES - 1} acknowledged, 1 in the CB; at ")
    assert "too small" not in b
    producer = entry(text, "  NC, the producer")
    assert re.fullmatch(r"NC, the producer \(last pushed at 0x[0-9a-f]{8} in cb_push_back at dataflow_api\.h:\d+, "
                        r"inlined in kernel_main at reader_unary_start_id\.cpp:\d+\), has returned from its kernel: "
                        r"no more pages come", producer), producer


def test_a_cb_too_small_for_untilize(tmp_path: Path) -> None:
    ops = operations()
    u = ops / "data_movement/untilize/device/kernels"
    reader, writer = copy_kernels()
    p = Program()
    tiles, block = 4, 2
    a = np.arange(32 * 32 * tiles, dtype=np.float32).reshape(32, 32 * tiles) % 50
    A, C = p.buffer("a", a), p.buffer("c", pages=tiles)
    p.cb(0, 1, 2048)                      # the bug: untilize waits for a block of 2 tiles
    p.cb(16, block, 2048)
    p.kernel("ncrisc", reader, compile_args=[*A.accessor_args], args=[A, tiles, 0])
    p.kernel("brisc", writer, compile_args=[16, *C.accessor_args], args=[C, tiles, 0])
    p.kernel("compute", u / "compute/untilize.cpp", compile_args=[tiles // block, block, 0, 16])
    _, text = hang(p)
    t0 = entry(text, "T0 waits")
    assert t0.startswith(f"T0 waits in cb_wait_front for {block} pages on CB 0 (1 page): 1 page received, "
                         "0 acknowledged, 1 in the CB; it asks for more than the CB's 1 page: the CB is too small; at ")
    assert "untilize.cpp:" in t0
    nc = entry(text, "NC waits")
    assert nc.startswith("NC waits in cb_reserve_back for 1 page of space on CB 0 (1 page): 1 in use ")
    # the packer waits on the math thread's semaphore; the math thread's kernel posts it
    header = (ops.parents[3] / "tt_metal/tt-llk/tt_llk_blackhole/common/inc/ckernel_structs.h").read_text()
    name = re.search(r"constexpr static std::uint32_t (\w+)\s*= 1;", header).group(1)
    report = joined(text)
    assert f"    it needs a post of semaphore 1 ({name}), made by:\n      T1 (blocked): SEMPOST at 0x" in report
    made = report.split(f"semaphore 1 ({name}), made by:\n")[1].splitlines()[0]
    assert "t6_semaphore_post" in made and "untilize.cpp:" in made
    order = [line[2:4].strip() for line in report.splitlines() if re.match(r"  (T\d|B|NC) ", line)]
    assert order == ["T0", "B", "NC", "T1", "T2"]     # the CB waits first, then the Tensix stalls
    assert "no core's" not in report
