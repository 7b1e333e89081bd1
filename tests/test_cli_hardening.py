"""The command line gets one clear line for bad input and survives signals (issue 15 items 10,
14, 15, 17, 18): ports out of range, an address in use or unresolvable, a warning for a
non-loopback stub, Ctrl-C storms in batch mode, scripts that are not UTF-8 or not files, a FIFO
given as the program, a history file that cannot be written or never ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prompt_toolkit.history import FileHistory, InMemoryHistory

from tdbg.cli.repl import SafeFileHistory, open_history
from tdbg.toolchain.zig import build, firmware_dir

DEMO = firmware_dir() / "demo.c"
FOREVER = Path(__file__).parent / "firmware" / "forever.c"


def tdbg(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tdbg", "-q", *args], capture_output=True, text=True, timeout=timeout)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr


@pytest.mark.parametrize("port, message", [("70000", "port 70000 is outside 0..65535"), ("-5", "port -5 is outside 0..65535"),
                                           ("http", "not a port number")])
def test_a_bad_port_is_one_line(port: str, message: str) -> None:
    done = tdbg("--gdb-port", port, str(DEMO))
    assert done.returncode == 2 and message in one_line_error(done)


def test_a_port_in_use_or_an_unknown_host_is_one_line() -> None:
    build(DEMO)
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        done = tdbg("--gdb-port", str(port), str(DEMO))
    assert done.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in one_line_error(done)
    done = tdbg("--gdb-port", "0", "--gdb-host", "no-such-host.invalid", str(DEMO))
    assert done.returncode == 1 and "cannot listen on no-such-host.invalid:0" in one_line_error(done)
    assert "warning: listening on no-such-host.invalid" in done.stderr


def detach(port: int) -> None:
    """Connect to the stub on ``port`` and detach (GDB's ``D``), which ends it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"$D#44")
        conn.recv(100)


def test_listening_beyond_loopback_warns() -> None:
    build(DEMO)
    child = subprocess.Popen([sys.executable, "-m", "tdbg", "--gdb-port", "0", "--gdb-host", "0.0.0.0", str(DEMO)],
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr is not None
        warning = child.stderr.readline()
        assert "warning: listening on 0.0.0.0, not loopback" in warning and "no authentication" in warning
        listening = child.stderr.readline()
        detach(int(listening.rsplit(":", 1)[1]))
        assert child.wait(30) == 0
    finally:
        child.kill()
        child.wait()


def test_loopback_is_quiet() -> None:
    build(DEMO)
    child = subprocess.Popen([sys.executable, "-m", "tdbg", "--gdb-port", "0", str(DEMO)], stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr is not None
        first = child.stderr.readline()
        assert first.startswith("tdbg: listening on 127.0.0.1:")
        detach(int(first.rsplit(":", 1)[1]))
        assert child.wait(30) == 0
    finally:
        child.kill()
        child.wait()


def test_ctrl_c_storm_in_batch_mode_interrupts_the_run_and_the_script_goes_on(tmp_path: Path) -> None:
    build(FOREVER)
    script = tmp_path / "storm.gdb"
    script.write_text("echo ready\\n\nrun\necho after\\n\ninfo registers pc\n")
    child = subprocess.Popen([sys.executable, "-m", "tdbg", "-q", "-batch", "-x", str(script), str(FOREVER)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    for _ in range(40):                              # a storm, during and after the run
        child.send_signal(signal.SIGINT)
        time.sleep(0.01)
    out, err = child.communicate(timeout=60)
    assert child.returncode >= 0 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "SIGINT" in out and "after" in out and "pc " in out


def test_a_script_line_that_is_not_utf8_ends_the_script_naming_it(tmp_path: Path) -> None:
    """As a failing command ends a sourced file (GDB's rule), with FILE:LINE and the byte."""
    script = tmp_path / "latin1.gdb"
    script.write_bytes(b"echo one\\n\necho caf\xe9\\n\necho three\\n\n")
    done = tdbg("-batch", "-x", str(script), "-ex", "echo after\\n", str(DEMO))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{script}:2: Error in sourced command file:\nnot UTF-8 text (byte 0xe9 at column 9)." in done.stdout
    assert "one" in done.stdout and "three" not in done.stdout and "after" in done.stdout


def test_fifos_are_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "program.elf"
    os.mkfifo(fifo)
    done = tdbg("-batch", str(fifo), timeout=60)
    assert done.returncode == 1 and "not a regular file" in one_line_error(done)
    script = tmp_path / "script.gdb"
    os.mkfifo(script)
    done = tdbg("-batch", "-x", str(script), str(DEMO), timeout=60)
    assert done.returncode == 1 and "not a regular file" in one_line_error(done)


def test_history_that_is_not_a_regular_file_is_kept_in_memory(capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(open_history(Path("/dev/full")), InMemoryHistory)     # reading it would never end
    assert "not a regular file" in capsys.readouterr().err


def test_a_history_write_that_fails_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    history = open_history(tmp_path / "history")
    assert isinstance(history, SafeFileHistory)
    history.store_string("x/4wx 0")

    def full(self: FileHistory, string: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FileHistory, "store_string", full)
    for line in ("stepi", "stepi", "continue"):
        history.store_string(line)
    assert capsys.readouterr().err.count("history not saved") == 1
    assert list(SafeFileHistory(tmp_path / "history").load_history_strings()) == ["x/4wx 0"]


def test_a_huge_history_file_is_read_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("".join(f"\n# time\n+command {i}\n" for i in range(400_000)))
    history = SafeFileHistory(path)
    history.MAX_READ = 1 << 16
    strings = list(history.load_history_strings())
    assert strings[0] == "command 399999" and 1000 < len(strings) < 10_000


PIPED_BLOCKS = ("set $x = 0\nif 0\np 111\nend\np 222\nfoo\np 333\nwhile $x < 2\nset $x = $x + 1\np $x\nend\n"
                "define hi\necho hi\\n\nend\nhi\nif 1\np 444\nelse\np 555\nend\n")
PIPED_OUTPUT = ["$1 = 222", 'Undefined command: "foo".  Try "help".', "$2 = 333", "$3 = 1", "$4 = 2", "hi", "$5 = 444"]


def test_blocks_in_commands_piped_on_stdin() -> None:
    # Issue 26 item 7: a block opener on stdin reads its body from stdin, as gdb-multiarch 13.1
    # does (measured: `... | gdb-multiarch -q -nx` prints exactly PIPED_OUTPUT between its prompts).
    done = subprocess.run([sys.executable, "-m", "tdbg", "-q", str(DEMO)], input=PIPED_BLOCKS,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert [line for line in done.stdout.splitlines() if line.strip() and not line.startswith("tdbg:")] == PIPED_OUTPUT


@pytest.mark.skipif(not __import__("shutil").which("gdb-multiarch"), reason="gdb-multiarch is not installed")
def test_gdb_prints_the_same_for_the_piped_blocks() -> None:
    done = subprocess.run(["gdb-multiarch", "-q", "-nx"], input=PIPED_BLOCKS, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    text = done.stdout.replace("(gdb) ", "\n").replace(">", "\n")
    assert [line.strip() for line in text.splitlines() if line.strip()] == PIPED_OUTPUT


def test_ctrl_c_while_starting_is_one_line_and_status_130(tmp_path: Path) -> None:
    """Issue 30: a SIGINT while tdbg starts (here while it builds a new .c firmware, after the
    libraries load or while they do) printed a KeyboardInterrupt traceback."""
    source = tmp_path / "fresh.c"
    source.write_text(f"int main(void) {{ return {time.time_ns() % 1000}; }}\n")
    child = subprocess.Popen([sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "echo started\\n", str(source)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children = Path(f"/proc/{child.pid}/task/{child.pid}/children")
    deadline = time.monotonic() + 30    # SIGINT once the build (a child process: zig) runs: a fixed
    while time.monotonic() < deadline and child.poll() is None:   # delay missed it once tdbg started fast
        if not children.is_file() or children.read_text().split():
            break
        time.sleep(0.01)
    if not children.is_file():
        time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert "started" not in out, "tdbg had started before the SIGINT: the test did not test anything"
    assert (child.returncode, err) == (130, "tdbg: interrupted while starting\n")
