"""The GDB stub never dies and never outlives its client (issue 15 items 2, 3, 9, 10, 18):
GDB's zero-length write probe, 0x03 during a monitor command, a client that vanishes during
``continue``, reads cut to a packet, host files refused through ``monitor``, ``vFile`` limited
to the loaded ELFs, unsupported ``vCont`` actions and zero-length watchpoints refused,
``c ADDR``, a second client, GDB's retransmission after a slow start."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tdbg.toolchain.zig import build, firmware_dir
from tdbg.rsp.server import MAX_READ, MonitorInterpreter
from tdbg.session import Session
from examples import EXAMPLES
from rsp_client import Client, packet, served, start_server

GDB = shutil.which("gdb-multiarch")
needs_gdb = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")
DEMO = firmware_dir() / "demo.c"
FOREVER = Path(__file__).parent / "firmware" / "forever.c"


def monitor(client: Client, command: str, timeout: float = 30) -> tuple[bytes, str]:
    """(the reply, the console output) of ``monitor COMMAND``."""
    out: list[bytes] = []
    client.raw(packet(b"qRcmd," + command.encode().hex().encode()))
    return client.reply(timeout, keep_output=out), b"".join(out).decode()


def test_zero_length_write_probe_and_the_session_goes_on() -> None:
    s = Session(DEMO)
    with served(s) as c:
        assert c.ask(b"X6000,0:") == b"OK"          # GDB's probe before binary writes
        assert c.ask(b"M6000,0:") == b"OK"
        assert c.ask(b"m6000,0") == b""
        assert len(c.ask(b"m6000,4")) == 8           # still answering


def test_reads_are_cut_to_a_packet() -> None:
    s = Session(DEMO)
    with served(s) as c:
        reply = c.ask(b"m0,ffffffff")                # would be 4 GB
        assert len(reply) == 2 * MAX_READ
        assert c.ask(b"mffffff00,ffffffff") == b"E14"


def test_ctrl_c_stops_a_monitor_command() -> None:
    s = Session(FOREVER)
    with served(s) as c:
        c.raw(packet(b"qRcmd," + b"run".hex().encode()))
        time.sleep(0.3)
        c.raw(b"\x03")
        out: list[bytes] = []
        assert c.reply(20, keep_output=out) == b"OK"
        assert "SIGINT" in b"".join(out).decode() or "nterrupt" in b"".join(out).decode()
        assert len(c.ask(b"p20")) == 8               # the session answers


def test_ctrl_c_sent_with_the_continue_is_not_lost() -> None:
    s = Session(FOREVER)
    with served(s) as c:
        c.raw(packet(b"c") + b"\x03")                # the 0x03 may arrive before the run starts
        assert c.reply(20).startswith(b"T02")


def test_a_client_that_vanishes_during_continue_ends_the_stub() -> None:
    s = Session(FOREVER)
    server, port = start_server(s)
    c = Client(port)
    c.raw(packet(b"c"))
    time.sleep(0.3)
    c.close()
    server.join(30)
    assert not server.is_alive()                 # not spinning on
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5)   # and not listening


def test_a_second_client_is_refused_at_once() -> None:
    s = Session(DEMO)
    server, port = start_server(s)
    first = Client(port)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5)
    assert len(first.ask(b"m6000,4")) == 8
    first.close()
    server.join(30)


@pytest.mark.parametrize("command", ["source /etc/hostname", "dump binary memory {tmp}/x.bin 0x6000 0x6004",
                                     "restore {tmp}/x.bin binary 0x20000", "file T1 {tmp}/x.elf",
                                     "dst diff {tmp}/golden.npy", "dump dst 0-1 {tmp}/d.npy", "append binary memory {tmp}/x.bin 0 4",
                                     "set logging file {tmp}/log.txt", "set logging on {tmp}/log.txt",
                                     "shell touch {tmp}/s", "pipe info threads | tee {tmp}/p",
                                     "python open('{tmp}/py', 'w')", "pi open('{tmp}/pi', 'w')"])
def test_monitor_refuses_host_files(command: str, tmp_path: Path) -> None:
    s = Session(DEMO)
    with served(s) as c:
        reply, out = monitor(c, command.format(tmp=tmp_path))
        assert reply == b"OK" and "refused through the GDB stub" in out and "--allow-host-files" in out
        assert not list(tmp_path.iterdir())          # nothing written


def test_monitor_refuses_host_files_inside_user_commands(tmp_path: Path) -> None:
    interp = MonitorInterpreter(Session(DEMO), allow_host_files=False)
    interp.source_lines(["define leak", f"dump binary memory {tmp_path}/x.bin 0x6000 0x6004", "end"], "defs")
    assert "refused through the GDB stub" in interp.capture("leak")
    assert not (tmp_path / "x.bin").exists()
    assert "refused" not in interp.capture("dst diff checkpoint 1")    # no file: not refused


def test_monitor_may_touch_host_files_when_allowed(tmp_path: Path) -> None:
    s = Session(DEMO)
    with served(s, allow_host_files=True) as c:
        reply, out = monitor(c, f"dump binary memory {tmp_path}/x.bin 0x6000 0x6004")
        assert reply == b"OK" and "refused" not in out
        assert (tmp_path / "x.bin").read_bytes() == s.read_memory(0x6000, 4)


def test_vfile_serves_only_the_loaded_elfs() -> None:
    s = Session({"T0": DEMO, "T1": EXAMPLES / "pipeline_t1.c"})
    with served(s) as c:
        for name, fd in (("T0", b"F3"), ("T1", b"F4")):   # both open at once (one per process)
            path = str(s.tile.image(name).path).encode()
            assert c.ask(b"vFile:open:" + path.hex().encode() + b",0,0") == fd
        assert c.ask(b"vFile:open:" + b"/etc/passwd".hex().encode() + b",0,0") == b"F-1,2"


def test_unsupported_resumes_and_zero_length_watchpoints_are_refused() -> None:
    s = Session(DEMO)
    with served(s) as c:
        pc = c.ask(b"p20")
        for body in (b"vCont;t", b"vCont;r6000,6010:1", b"vCont;x", b"Z2,6000,0", b"Z2,fffffffe,8", b"Z0,100000000,4"):
            assert c.ask(body) == b"E01", body
        assert c.ask(b"p20") == pc                   # nothing ran


def test_continue_at_an_address() -> None:
    s = Session(DEMO)
    with served(s) as c:
        exit_pc = s.symbol("_tdbg_exit").addr
        main = s.symbol("main").addr
        assert c.ask(b"Z0,%x,4" % main) == b"OK"
        assert c.ask(b"c%x" % exit_pc).startswith(b"W")    # from the end: main is never reached


def test_a_retransmitted_packet_is_answered_once() -> None:
    s = Session(DEMO)
    with served(s, no_ack=False) as c:
        c.raw(packet(b"qC") * 2 + packet(b"qAttached"))
        assert c.reply() == b"QC1"
        assert c.reply() == b"1"                     # not a second QC1


def test_an_oversized_packet_is_dropped() -> None:
    s = Session(DEMO)
    with served(s) as c:
        c.raw(b"$M6000,1:" + b"00" * 100_000)        # no end in sight
        c.raw(b"#00")
        assert len(c.ask(b"m6000,4")) == 8


@needs_gdb
def test_gdb_writes_memory_and_devices() -> None:
    build(DEMO)
    args = [GDB, "-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off",
            "-ex", f"target remote | {sys.executable} -m tdbg --rsp-stdio {DEMO}",
            "-ex", "set {int}0x20000 = 0x13", "-ex", "p/x *(int*)0x20000",
            "-ex", "set {float}0xFFBD8000 = 1.5", "-ex", "monitor x/1wx 0xFFBD8000", "-ex", "p 1+1"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert "$1 = 0x13" in out                    # item 2: the zero-length probe did not kill the stub
    assert "0xffbd8000:\t0x3fc00000" in out      # Dst.md Store32/Load32 with fmt 0 (FP32): the value as is
    assert "$2 = 2" in out
