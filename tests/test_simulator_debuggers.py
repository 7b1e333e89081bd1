"""The debuggers on a user's ttnn script (``tests/ttnn_ops.py``) run by the ttnn wheel's own host
on tdbg's ``TT_METAL_SIMULATOR`` folder: the real gdb-multiarch through ``TDBG_SIMULATOR_ARGS=
--gdb-port 0`` (one process per core per tile, the kernels announced as they load), and the tdbg
shell on the script's terminal with ``--tty`` (a real pseudo-terminal).  One host run per test.

Expected places: line 70 of ttnn's ``eltwise_binary_no_bcast.cpp`` (the compute kernel of
``ttnn.add``, its chunk loop) on each TRISC; ``num_tiles`` is 1 on tile (1,2), the first of the two
cores tt-metal splits the one tile of a 32x32 add over; the script's results are numpy's
(``ttnn_ops``).  Skips visibly without the host venv, gdb-multiarch or pexpect."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

import ttnn_host
from test_simulator_ttnn import OPS, host  # noqa: F401  (the module's host fixture)

GDB = shutil.which("gdb-multiarch")
LINE = "eltwise_binary_no_bcast.cpp:70"


def _gdb_port(script: subprocess.Popen, err: list[str]) -> str | None:
    """The port tdbg's stub waits for GDB on, once it says so on the script's stderr (every line
    kept in ``err``); a connection before that is refused."""
    for line in script.stderr:   # type: ignore[union-attr]
        err.append(line)
        found = re.search(r"waiting for GDB on 127\.0\.0\.1:(\d+)", line)
        if found:
            return found[1]
    return None


def _gdb_on_add(host, *commands: str) -> tuple[subprocess.CompletedProcess, str, list[str]]:
    """The add with the stub on (``--gdb-port 0``) and gdb-multiarch -batch giving ``commands``
    once it may attach: GDB's run, the script's stdout, its stderr lines."""
    python, env = host
    script = subprocess.Popen([str(python), str(OPS), "add"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=ttnn_host.clean_env(**env, TDBG_SIMULATOR_ARGS="--gdb-port 0"))
    err: list[str] = []
    port = _gdb_port(script, err)
    drain = threading.Thread(target=lambda: err.extend(script.stderr), daemon=True)   # type: ignore[arg-type]
    drain.start()
    assert port is not None, "".join(err)[-3000:]
    args = [str(GDB), "-q", "-batch", "-nx"]
    for command in ("set pagination off", f"target remote 127.0.0.1:{port}", "set breakpoint pending on", *commands):
        args += ["-ex", command]
    gdb = subprocess.run(args, capture_output=True, text=True, timeout=600)
    out, _ = script.communicate(timeout=600)
    drain.join(30)
    return gdb, out, err


def test_gdb_breaks_in_a_kernel_of_the_script_and_the_script_ends_right(host) -> None:  # noqa: F811
    if GDB is None:
        pytest.skip("gdb-multiarch is not installed (Debian package gdb-multiarch)")
    gdb, out, err = _gdb_on_add(host, f"break {LINE}", "continue", "print num_tiles", "bt 2", "info threads",
                                "info sharedlibrary", "delete", "continue")
    text = gdb.stdout + gdb.stderr
    assert f"Thread 1.1 hit Breakpoint 1.1, kernel_main () at " in text and f"{LINE}\n70\t" in text, text[-3000:]
    assert "$1 = 1\n" in text
    assert "\n#1  0x" in text and " in run_kernel () at " in text                      # the firmware calls it
    # one inferior per core per tile, named by tile: (1,2) has processes 1-5, (2,2) 6-10
    table = " ".join(text.split())   # (GDB pads the columns)
    assert "* 1.1 Thread 1.1 (1,2:T0 stopped) kernel_main () at " in table
    assert " 5.1 Thread 5.1 (1,2:NC blocked) " in table and " 6.1 Thread 6.1 (2,2:T0 " in table
    assert " 10.1 Thread 10.1 (2,2:NC blocked) " in table and "11.1" not in table
    assert "/kernels/eltwise_binary_no_bcast/" in text and "trisc0/trisc0.elf" in text   # T0's kernel, a library
    assert "tdbg: the host closed the device" in text and "[Inferior 1 (process 1) exited normally]" in text
    assert '{"op": "add", "mismatches": 0, "values": 1024}' in out, "".join(err)[-3000:]


def test_gdb_kill_ends_the_devices_run_and_the_script_fails(host) -> None:  # noqa: F811
    """GDB's ``kill`` at a stop in the kernel: tdbg says the device's run ends, the host's next
    read gets no data and the add ends with tt-umd's error (not a hang, not a result; the script
    prints the op's error and goes on: ``ttnn_ops``)."""
    if GDB is None:
        pytest.skip("gdb-multiarch is not installed (Debian package gdb-multiarch)")
    gdb, out, err = _gdb_on_add(host, f"break {LINE}", "continue", "kill")
    text, stderr = gdb.stdout + gdb.stderr, "".join(err)
    assert "hit Breakpoint 1.1, kernel_main () at " in text and "[Inferior 1 (process 1) killed]" in text, text[-3000:]
    assert "GDB killed the device's run: the host's reads get no data from now on" in stderr, stderr[-3000:]
    results = [line for line in out.splitlines() if line.startswith('{"op": "add"')]
    assert len(results) == 1 and "the simulator returned an empty read response" in results[0], out[-3000:]


def test_the_shell_opens_on_the_scripts_terminal_at_a_stop(host) -> None:  # noqa: F811
    """The add twice, a breakpoint in T1's kernel on tile (1,2): at the first stop ``p`` a local
    and ``continue`` (numpy's answer); at the second T1 is sent back to its firmware's start
    (``set var $pc = main``: it waits for a go message that never comes) and continued: the hang
    is reported and the shell opens again, ``quit`` (the add ends with tt-umd's error)."""
    pexpect = pytest.importorskip("pexpect", reason="pexpect is not installed: no pseudo-terminal test")
    python, env = host
    args = f"--tty -ex 'break {LINE} thread 1,2:T1'"   # one tile's T1 ('thread T1': each tile's)
    child = pexpect.spawn(str(python), [str(OPS), "add", "add"], encoding="utf-8", timeout=300, dimensions=(40, 160),
                          env=ttnn_host.clean_env(**env, TDBG_SIMULATOR_ARGS=args, TERM="xterm",
                                                  PROMPT_TOOLKIT_NO_CPR="1", TDBG_HISTORY="/dev/null"))
    prompt = r"\(tdbg\)\x1b\[\d+D\x1b\[\d+C"   # prompt_toolkit's fresh prompt (tests/test_repl.py)
    try:
        child.expect(r"\[Tile 1,2\]\r\nBreakpoint 1, kernel_main \(\) at \S+" + re.escape(LINE))
        child.expect(prompt)
        child.sendline("p num_tiles")
        child.expect(r"\$1 = 1\r\n")
        child.expect(prompt)
        child.sendline("continue")
        child.expect(re.escape('{"op": "add", "mismatches": 0, "values": 1024}'))
        child.expect(r"Breakpoint 1, kernel_main \(\)")
        child.expect(prompt)
        child.sendline("set var $pc = main")
        child.expect(prompt)
        child.sendline("continue")
        child.expect(re.escape("the host waits for the device (it reads 1,2 at 0x4f0), and no core can run"))
        child.expect("Program stopped: deadlock: no core can run.")
        child.expect('tdbg: the host waits: "continue" gives it the device back')
        child.expect(prompt)
        child.sendline("quit")
        child.expect("tdbg: quit: the device's run ends")
        child.expect(r'\{"op": "add", "error": "[^"]*empty read response')
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_the_shells_continue_and_quit_are_the_hosts(tmp_path) -> None:
    """No host needed: the shell of a session over the 1x2 chip, on the terminal of a process in a
    pseudo-terminal, twice: ``run`` is refused (the host starts the device), ``info tiles`` runs,
    ``continue`` ends the first (True: the host resumes), ``quit`` the second (False)."""
    pexpect = pytest.importorskip("pexpect", reason="pexpect is not installed: no pseudo-terminal test")
    code = ("from tdbg.session import Session; from tdbg.simulator.terminal import TerminalShell; "
            "shell = TerminalShell(Session.on_chip('1x2')); print('first', shell.stopped(None)); "
            "print('second', shell.stopped(None))")
    child = pexpect.spawn(sys.executable, ["-c", code], encoding="utf-8", timeout=60, dimensions=(40, 160),
                          env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
                               "TDBG_HISTORY": "/dev/null"})
    prompt = r"\(tdbg\)\x1b\[\d+D\x1b\[\d+C"
    try:
        child.expect('tdbg: the host waits: "continue" gives it the device back')
        child.expect(prompt)
        child.sendline("run")
        child.expect(r'"run": the host runs this device: "continue" gives it back, "quit" ends its run')
        child.expect(prompt)
        child.sendline("info tiles")
        child.expect(r"1,2")
        child.expect(prompt)
        child.sendline("c")
        child.expect(r"first True")
        child.expect(prompt)
        child.sendline("quit")
        child.expect("tdbg: quit: the device's run ends")
        child.expect(r"second False")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_gdb_connecting_before_the_first_kernel_is_refused() -> None:
    """No host needed: the stub's port is known at once but refuses a connection until ``attach``
    (the host has loaded its first kernel), which then takes one."""
    import socket

    from tdbg.rsp.hosted import HostedGdb
    from tdbg.session import Session

    lines: list[str] = []
    gdb = HostedGdb(Session.on_chip("1x2"), 0, note=lines.append, host_gone=lambda: True)
    assert f"target remote 127.0.0.1:{gdb.port}" in lines[0]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", gdb.port), timeout=5)
    gdb.attach()                                         # the host is gone: no wait, but it listened
    assert lines[-1] == f"the host has loaded its first kernel: waiting for GDB on 127.0.0.1:{gdb.port}"
