"""Issue 26 item 14: a .npy header whose shape holds a bool or a negative count is refused; a
write after the program finished is said to be dropped by ``run``; a core that reaches another
core's ``j .`` parks; ``-ex``/``-x`` with the stub are refused, not ignored; the stub's host-file
check parses ``dst diff`` as the command does (``--`` is a file name)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tdbg.emu.core import CoreState
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import firmware_dir
from tdbg.rsp.server import MonitorInterpreter
from tdbg.session import Session
from tdbg.commands import execute

DEMO = firmware_dir() / "demo.c"


def _npy(path: Path, shape: str) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 256)


@pytest.mark.parametrize("shape", ["(True, 16)", "(-1, 16)", "(2, -16)", "(1, False)"])
def test_a_npy_shape_that_is_not_two_counts_is_refused(tmp_path: Path, shape: str) -> None:
    s = Session(DEMO)
    _npy(tmp_path / "x.npy", shape)
    for command in (f"restore dst {tmp_path / 'x.npy'} 0", f"dst diff {tmp_path / 'x.npy'}"):
        out = execute(s, command, check=False)
        assert "is not two counts" in out and "internal error" not in out, out


def test_run_says_it_drops_a_write_made_after_the_program_finished() -> None:
    s = Session(DEMO)
    execute(s, "set {int}0x30000 = 5")                  # before the first run: kept
    assert "warning" not in execute(s, "run")
    execute(s, "set {int}0x30000 = 7")                  # after it finished
    assert "not kept" in execute(s, "run")
    assert s.read_u32(0x30000) == 5                    # the set-up is written again, the 7 is not
    assert "warning" not in execute(s, "run")


def test_a_core_in_another_cores_park_loop_parks(tmp_path: Path) -> None:
    (tmp_path / "t0.c").write_text("""#include "tensix.h"
__attribute__((noinline)) void park(void) { for (;;) ; }
int main(void) { *(void (* volatile *)(void))0x100000u = park; park(); return 0; }
""")
    (tmp_path / "t1.c").write_text("""#include "tensix.h"
int main(void)
{
    void (*volatile *slot)(void) = (void (* volatile *)(void))0x100000u;
    while (*slot == 0)
        ;
    (*slot)();
    return 0;
}
""")
    s = Session({"T0": tmp_path / "t0.c", "T1": tmp_path / "t1.c"})
    out: list = []
    worker = threading.Thread(target=lambda: out.append(s.cont()), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():
        s.interrupt()
        worker.join(10)
        pytest.fail("T1 spun in T0's j . for ever")
    assert out[0].kind is StopKind.EXITED
    assert s.tile.cores["T1"].state is CoreState.PARKED and s.tile.cores["T1"].pc == s.tile.cores["T0"].pc


@pytest.mark.parametrize("stub", [["--rsp-stdio"], ["--gdb-port", "0"]])
@pytest.mark.parametrize("commands", [["-ex", "p 1"], ["-x", os.devnull], ["-batch"]])
def test_shell_options_with_the_stub_are_refused(stub: list[str], commands: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "tdbg", *stub, *commands, str(DEMO)], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "monitor CMD" in done.stderr


def test_the_stub_refuses_dst_diff_of_a_file_named_dashdash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--").write_text("1,2\n")
    monitor = MonitorInterpreter(Session(DEMO), allow_host_files=False)
    assert "refused through the GDB stub" in monitor.capture("dst diff -- checkpoint")
    assert "refused" not in monitor.capture("dst diff --view bf16 checkpoint 1")
