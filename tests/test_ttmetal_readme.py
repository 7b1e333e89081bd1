"""The README's tt-metal session ("Debugging a tt-metal program"), command for command: the program
file is ``PROGRAM_FORMAT`` (ttnn's eltwise add over 12 bfloat16 tiles), its inputs small integers
(exact in bfloat16).  Expected values: the CB the file declares (2 pages of 2048 bytes, at the
address tt-metal 0.81.1 gave it on ttsim), A's first tile as written, numpy's A + B for the tile
Dst holds, the output buffer's size from the file; and the README's own example lines (the CB,
the tile's address, the output buffer's address) are what the run prints.  The session starts as
plain ``tdbg`` starts (the bundled demo on T0), which ``tt-metal program`` replaces.  Needs the
ttnn wheel and the kit."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tdbg.session import Session
from tdbg.ttmetal import boot, tensors
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import PROGRAM_FORMAT
from tdbg.commands import execute
from ttmetal_programs import TTSIM, exact_inputs, operations

CB0 = int(TTSIM["add"]["cb_addresses"]["0"], 16)


def shown_values(text: str, header: str) -> np.ndarray:
    """The 32x32 numbers a ``tile`` (faces of 16 columns) or ``dst tile`` (``set width unlimited``:
    a tile row a line, faces split by ``|``) printed after ``header``."""
    out = np.full((32, 32), np.nan)
    lines = text[text.index(header):].splitlines()[1:]
    c0 = 0
    for line in lines:
        face = re.match(r"Face \d \(tile rows \d+-\d+, columns (\d+)-\d+\):", line)
        if face:
            c0 = int(face.group(1))
            continue
        if set(line.strip()) <= set("-+"):        # the rule between the upper and lower faces
            continue
        words = line.replace("|", " ").replace(":", " ").split()
        if len(words) in (17, 33) and words[0].isdigit():
            values = [float(w) for w in words[1:]]
            out[int(words[0]), c0:c0 + len(values)] = values
        elif words and not words[0].isdigit():
            break
    assert not np.isnan(out).any(), text
    return out


def test_the_readme_session(tmp_path: Path) -> None:
    operations()
    try:
        boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    a, b = exact_inputs(12)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "eltwise_add.toml").write_text(PROGRAM_FORMAT)
    s = Session()                      # plain `tdbg`: the demo on T0
    run = lambda line: execute(s, line)  # noqa: E731

    assert "eltwise_binary_kernel on T0/T1/T2" in run(f"tt-metal program {tmp_path / 'eltwise_add.toml'}")
    run("break kernel_main thread T1")
    out = run("run")
    assert "Thread 2 (T1) hit Breakpoint 1, kernel_main () at " in out and "eltwise_binary_kernel.cpp:15" in out
    info = run("info cb 0").splitlines()
    received, acked = map(int, re.match(rf"CB 0: 2 pages of 2048 bytes at {CB0:#x} \(Float16_b\): (\d+) pages? "
                                        r"received, (\d+) acknowledged", info[0]).groups())
    assert received > acked            # the reader has pushed a page the compute kernel has not popped
    assert info[0].startswith(readme_line("CB 0: ").split("):")[0] + "):")      # the README's CB is the run's
    shown = run("tile cb 0")
    assert shown.startswith(f"Tile at {CB0 + (acked % 2) * 2048:#x} as bf16")
    assert shown.splitlines()[0] == readme_line("Tile at ")
    assert np.array_equal(shown_values(shown, "Tile at"), a[:, 32 * acked:32 * acked + 32])
    run("watch dst[0]")
    out = run("continue")
    assert "hit Hardware watchpoint 2: dst[0]" in out
    run("set width unlimited")
    shown = run("dst tile 0 --view bf16")
    assert np.array_equal(shown_values(shown, "Tile 0 (Dst16b rows 0-63 as bf16)"), (a + b)[:, 0:32])
    run("delete")
    out = run("continue")
    assert "tt-metal program done: go_messages[0].signal = RUN_MSG_DONE" in out
    assert f"buffer c: {12 * 2048} bytes at DRAM " in out
    c = np.frombuffer((tmp_path / "c.bin").read_bytes(), np.uint16)
    assert np.array_equal(s.host.result.tensor("c", a.shape), a + b) and c.size == 12 * 1024
    buffer = next(line for line in out.splitlines() if line.startswith("  buffer c: "))
    assert buffer.split(";")[0] == readme_line("  buffer c: ").split(";")[0]   # the README's values are the run's


def test_the_readme_session_verbatim_from_plain_tdbg(tmp_path: Path) -> None:
    """Issue 33 item 1: the same commands typed into `tdbg` with no arguments (the demo on T0), here
    in -batch: every one succeeds (exit status 0) and the run ends with the program's result."""
    import os
    import subprocess
    import sys

    operations()
    try:
        boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    a, b = exact_inputs(12)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "eltwise_add.toml").write_text(PROGRAM_FORMAT)
    session = ["tt-metal program eltwise_add.toml", "break kernel_main thread T1", "run", "info cb 0", "tile cb 0",
               "watch dst[0]", "continue", "dst tile 0 --view bf16", "delete", "continue"]
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-nx", "-batch", *(w for c in session for w in ("-ex", c))],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    out = done.stdout
    marks = ["eltwise_binary_kernel on T0/T1/T2", "Thread 2 (T1) hit Breakpoint 1, kernel_main ()", "CB 0: 2 pages",
             "Tile at", "hit Hardware watchpoint 2: dst[0]", "Tile 0 face 0 (Dst16b rows 0-15 as bf16)",
             "tt-metal program done: go_messages[0].signal = RUN_MSG_DONE"]
    at = [out.index(m) for m in marks]
    assert at == sorted(at)
    assert np.array_equal(tensors.from_bf16_tiles((tmp_path / "c.bin").read_bytes(), a.shape), a + b)



def readme_line(start: str) -> str:
    """The README's tt-metal walk-through line that starts with ``start`` (its 4-space indent off)."""
    text = (Path(__file__).parents[1] / "README.md").read_text()
    session = text[text.index("    (tdbg) tt-metal program eltwise_add.toml"):]
    return next(line[4:] for line in session.splitlines() if line[4:].startswith(start))
