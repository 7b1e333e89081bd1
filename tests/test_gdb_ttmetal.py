"""A tt-metal program through the GDB stub, driven by the real gdb-multiarch 13.1: the kernels a
program puts on the cores are announced as libraries (``qXfer:libraries-svr4``, what GDB asks for
its default GNU/Linux OS ABI; a ``library`` stop when they change), so ``break kernel_main`` takes
every core's kernel and ``bt`` in a kernel names its function and FILE:LINE with no
``add-symbol-file`` (before: GDB had the firmware ELFs only, a kernel's frames were ``?? ()``).

The program is ttnn's eltwise add (tests/ttmetal_programs.py).  Expected places: kernel_main's
first line in eltwise_binary_kernel.cpp (15: ``per_core_block_cnt = get_arg_val``), and NC's
reader blocked in ``cb_reserve_back`` called at reader_binary_interleaved_start_id.cpp:96, its
firmware's ``main`` calling the kernel at ncrisc.cc:186 (the wheel's sources; what gdb-multiarch
shows with ``add-symbol-file`` of the same ELF).  Needs gdb-multiarch, the ttnn wheel and the kit."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from tdbg.rsp.server import serve_tcp
from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import PROGRAM_FORMAT, prepare
from ttmetal_programs import TTSIM, eltwise_add, exact_inputs, operations

GDB = shutil.which("gdb-multiarch")
pytestmark = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")


def prepared() -> Session:
    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    s = Session({})
    prepare(s, eltwise_add(ops), fw)
    return s


def gdb_on(session: Session, *commands: str, setup: tuple[str, ...] = (), allow_host_files: bool = False) -> str:
    """gdb-multiarch's output for ``commands`` against ``session`` served on a free TCP port
    (``setup``: GDB commands before it connects)."""
    ready, port = threading.Event(), []
    server = threading.Thread(target=serve_tcp, args=(session, 0),
                              kwargs={"ready": lambda p: (port.append(p), ready.set()),
                                      "allow_host_files": allow_host_files}, daemon=True)
    server.start()
    assert ready.wait(30)
    args = [GDB, "-q", "-batch", "-nx"]
    for c in ("set pagination off", "set remotetimeout 120", *setup, f"target remote 127.0.0.1:{port[0]}", *commands):
        args += ["-ex", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    server.join(30)
    return done.stdout + done.stderr


@pytest.mark.parametrize("osabi", ["auto", "none"])
def test_kernels_have_symbols_through_the_stub(osabi: str) -> None:
    """OS ABI auto (GNU/Linux for gdb-multiarch: qXfer:libraries-svr4) and none (bare metal:
    qXfer:libraries, each loadable segment's run address)."""
    out = gdb_on(prepared(), "info sharedlibrary", "break kernel_main", "set schedule-multiple on", "continue",
                 "bt", "info threads", "thread 5.1", "bt", setup=(f"set osabi {osabi}",))
    assert "eltwise_binary_kernel-" in out and "/kernel/trisc0/trisc0.elf" in out      # T0's kernel, a library
    assert "Thread 1.1 hit Breakpoint 1." in out and ", kernel_main () at " in out
    assert "eltwise_binary_kernel.cpp:15\n15\t    uint32_t per_core_block_cnt = get_arg_val<uint32_t>(0);" in out
    assert "#1  0x" in out and " in run_kernel () at " in out
    # thread names are the core and its state in a word (before: the whole wait, 200+ columns)
    assert "* 1.1  Thread 1.1 (T0 stopped) kernel_main () at " in out and "  4.1  Thread 4.1 (B blocked)  reg_read (" in out
    assert "  5.1  Thread 5.1 (NC blocked) reg_read (" in out and "polls" not in out
    nc = out[out.index("[Switching to thread 5.1"):]
    assert "cb_reserve_back (operand=0, num_pages=1) at " in nc
    assert "kernel_main () at " in nc and "reader_binary_interleaved_start_id.cpp:96" in nc
    assert " in main (" in nc and "ncrisc.cc:186" in nc
    assert "?? ()" not in out


def test_a_program_loaded_through_monitor_announces_its_kernels(tmp_path: Path) -> None:
    """The tile booted bare; ``monitor tt-metal program`` puts the kernels on the cores after GDB
    connected: the next resume is a ``library`` stop per core (GDB reads the kernels, resolves
    its pending breakpoint, and goes on) and the run stops in a kernel_main."""
    operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    a, b = exact_inputs(12)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "eltwise_add.toml").write_text(PROGRAM_FORMAT)
    s = Session({})
    boot.prepare(s, fw)
    out = gdb_on(s, f"monitor tt-metal program {tmp_path / 'eltwise_add.toml'}", "set breakpoint pending on",
                 "break kernel_main", "set schedule-multiple on", "continue", "bt 1", allow_host_files=True)
    assert "Function \"kernel_main\" not defined." in out                 # before the kernels are known
    assert "Breakpoint 1 (kernel_main) pending." in out
    assert " hit Breakpoint 1." in out and ", kernel_main () at " in out and "\n#0  kernel_main () at " in out


def test_without_processes_every_kernel_is_a_library_of_the_one_program() -> None:
    """Without GDB's multiprocess extensions the one program holds every core's kernel: five
    libraries, five kernel_main locations (B, NC, T0, T1, T2), frames in the kernel's source."""
    out = gdb_on(prepared(), "info sharedlibrary", "break kernel_main", "continue", "bt 1",
                 setup=("set remote multiprocess-feature-packet off",))
    assert sum(line.startswith("0x") and "/kernel/" in line for line in out.splitlines()) == 5
    assert "Breakpoint 1 at 0x" in out and ": kernel_main. (5 locations)" in out
    assert " hit Breakpoint 1." in out and "#0  kernel_main () at " in out


def test_a_noc_read_hits_a_watchpoint_on_the_reading_cores_thread() -> None:
    """NC's reader fills CB 0 (at the address tt-metal 0.81.1 gave it on ttsim) by NoC reads: with
    the watchpoint set in NC's process too, the hit is NC's thread's, in the NoC read call
    (before: always the thread of the process that set it first, T0).  Set in T0's process only,
    it is T0's (GDB ignores a hit outside the watchpoint's program space) and the console names
    NC, where NC is, and how to stop on its thread."""
    cb0 = int(TTSIM["add"]["cb_addresses"]["0"], 16)
    out = gdb_on(prepared(), "set schedule-multiple on", f"watch *(int*){cb0:#x}", "inferior 5",
                 f"watch *(int*){cb0:#x}", "continue", "inferior 1", "delete 2", "continue")
    assert f"\nThread 5.1 hit Hardware watchpoint 2: *(int*){cb0:#x}\n\nOld value = 0\n" in out
    nc = out[out.index("Thread 5.1 hit"):]
    assert nc[nc.index("New value = "):].splitlines()[1].startswith("ncrisc_noc_fast_read<")
    assert f"\nThread 1.1 hit Hardware watchpoint 1: *(int*){cb0:#x}\n" in out
    assert f"-> this tile {cb0:#x}; NC is at 0x" in out and "(set the watchpoint in inferior 5 too to stop on NC's thread)" in out
