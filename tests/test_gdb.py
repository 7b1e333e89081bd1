"""The GDB stub driven by the real gdb-multiarch (stdio and TCP), and the protocol's error
paths driven by hand.  Expected values come from the firmware source and Dst.md."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tdbg.rsp.server import checksum, serve_tcp
from tdbg.session import Session
from tdbg.toolchain.zig import build, firmware_dir
from examples import EXAMPLES

GDB = shutil.which("gdb-multiarch")
needs_gdb = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")
DEMO = firmware_dir() / "demo.c"


def gdb(*commands: str, target: str) -> str:
    args = [GDB, "-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off",
            "-ex", "set remotetimeout 60", "-ex", f"target remote {target}"]
    for c in commands:
        args += ["-ex", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent)
    return done.stdout + done.stderr


@needs_gdb
def test_gdb_over_stdio_debugs_demo_to_its_end() -> None:
    build(DEMO)
    out = gdb(
        "info registers pc",
        "break main",
        "continue",
        "stepi",
        "x/4wx &results",
        "watch results[2]",
        "continue",
        "monitor x/16h dst[0]",
        "delete",
        "continue",
        target=f"| {sys.executable} -m tdbg --rsp-stdio {DEMO}",
    )
    assert "pc             0x6000" in out
    assert "Breakpoint 1, main () at" in out and "demo.c" in out
    assert "<results>:\t0x00000000\t0x00000000\t0x00000000\t0x00000000" in out
    # demo.c stores 4 (rows filled) in results[2]
    assert "Old value = 0" in out and "New value = 4" in out
    # Dst16b[0][0..3] read through monitor: demo fills Dst32b row 0 with 0.0, 0.25, 0.5, 0.75;
    # Dst16b[0] is DstBits[0], the high halves: BF16 layout (sign, mantissa, exponent) of them
    assert "dst[0]:\t0x0000\t0x007d\t0x007e\t0x407e\t0x007f\t0x207f\t0x407f\t0x607f" in out  # 0..1.75
    assert "exited normally" in out


@needs_gdb
def test_gdb_over_tcp() -> None:
    session = Session(DEMO)
    server, port = start_server(session)
    out = gdb("break fill_row", "continue", "info registers a0", "bt", "detach", target=f"127.0.0.1:{port}")
    assert "Breakpoint 1, fill_row (" in out
    assert "#1 " in out and "main ()" in out
    server.join(30)
    assert not server.is_alive()


@needs_gdb
def test_a_tdbg_breakpoint_stops_gdb() -> None:
    """``monitor break`` is tdbg's, not GDB's: its stop reply has no ``swbreak`` (GDB took the
    stop for one of its own breakpoints just removed, resumed, and the demo ran to its end);
    GDB stops with SIGTRAP at fill_row (demo.c: fill_row(0, 0.0f, 0.25f) first) and the
    console names the breakpoint, as tdbg's shell does.  ``monitor tbreak`` likewise."""
    build(DEMO)
    out = gdb("monitor break fill_row", "continue", "bt 1", "monitor tbreak main", "monitor run", "continue",
              target=f"| {sys.executable} -m tdbg --rsp-stdio {DEMO}")
    assert "Breakpoint 1, fill_row (row=0, start=0, step=0.25) at " in out
    assert "Program received signal SIGTRAP, Trace/breakpoint trap.\nfill_row (row=0, start=0, step=0.25) at " in out
    assert "#0  fill_row (row=0, start=0, step=0.25) at " in out
    assert "Temporary breakpoint 2, main () at " in out
    assert out.count("Breakpoint 1, fill_row (row=0, start=0, step=0.25) at ") == 2   # after the restart too
    assert "exited normally" not in out


@needs_gdb
def test_gdb_has_the_tiles_memory_map() -> None:
    """``qXfer:memory-map:read`` from the profile's map: ``info mem`` lists the ranges any core has
    something at, each once; GDB itself refuses an address outside them.  Expected ranges:
    BlackholeA0 BabyRISCV/README.md "Memory map": L1 0x0000_0000..0x0017_FFFF (1536 KiB), the
    local data RAM from 0xFFB0_0000 (B and NC: to 0xFFB0_1FFF), and Dst.md's window
    0xFFBD_8000..0xFFBD_FFFF."""
    build(DEMO)
    out = gdb("info mem", "x/wx 0x200000", "x/2wx 0x6000", target=f"| {sys.executable} -m tdbg --rsp-stdio {DEMO}")
    assert "Using memory regions provided by the target." in out
    assert "0   y  \t0x00000000 0x00180000 rw nocache \n1   y  \t0xffb00000 0xffb02000 rw nocache \n" in out
    assert "\t0xffbd8000 0xffbe0000 rw nocache \n" in out
    assert "Cannot access memory at address 0x200000" in out
    assert "0x6000 <_start>:\t0x" in out   # L1 still read through the stub


def start_server(session: Session) -> tuple[threading.Thread, int]:
    """Serve ``session`` on a free TCP port in a thread: (the thread, the port)."""
    ready = threading.Event()
    port: list[int] = []
    server = threading.Thread(target=serve_tcp, args=(session, 0), kwargs={"ready": lambda p: (port.append(p), ready.set())}, daemon=True)
    server.start()
    assert ready.wait(30)
    return server, port[0]


def packet(body: bytes) -> bytes:
    return b"$" + body + b"#%02x" % checksum(body)


def recv_packet(conn: socket.socket) -> bytes:
    """The next whole packet (acknowledgements before it are dropped)."""
    data = b""
    while not (b"#" in data and len(data.rsplit(b"#", 1)[1]) >= 2):
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data[data.find(b"$"):]


def test_protocol_errors_and_vanishing_client() -> None:
    session = Session(DEMO)
    server, port = start_server(session)
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)

    def ask(raw: bytes) -> bytes:
        """Send raw bytes; return the acknowledgement plus the reply packet (if any)."""
        conn.sendall(raw)
        data = b""
        while data != b"-" and not (b"#" in data and len(data.rsplit(b"#", 1)[1]) >= 2):
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    assert ask(b"$g#00").startswith(b"-")  # bad checksum: retransmit request
    assert b"$E01" in ask(packet(b"mzz,4"))  # malformed address
    assert b"$E01" in ask(packet(b"p999"))  # no such register (33 + 1024 rows)
    assert ask(packet(b"qNoSuchThing")).startswith(b"+$#00")  # unknown packet: empty reply
    assert b"$" in ask(packet(b"m6000,4"))  # the session still answers
    conn.close()  # the client vanishes
    server.join(30)
    assert not server.is_alive()


def test_interrupt_packet_stops_a_running_core() -> None:
    session = Session(Path(__file__).parent / "firmware" / "forever.c")
    server, port = start_server(session)
    conn = socket.create_connection(("127.0.0.1", port), timeout=20)
    conn.sendall(packet(b"QStartNoAckMode"))
    assert recv_packet(conn) == packet(b"OK")
    conn.sendall(packet(b"vCont;c"))  # runs forever
    threading.Timer(0.3, lambda: conn.sendall(b"\x03")).start()
    assert recv_packet(conn) == packet(b"T02thread:1;")  # SIGINT, on thread 1 (T0)
    conn.sendall(packet(b"p20"))  # the session still answers: pc
    assert len(recv_packet(conn)) == len(packet(b"00000000"))
    conn.sendall(packet(b"k"))
    server.join(30)
    assert not server.is_alive()


@needs_gdb
def test_dst_rows_are_gdb_registers() -> None:
    import struct

    source = EXAMPLES / "dst_fill.c"
    build(source)
    out = gdb("break _tdbg_exit", "continue", "p/x $dst1", "set var $dst2[3] = 0x1234", "monitor x/4hx dst[2]",
              target=f"| {sys.executable} -m tdbg --rsp-stdio {source}")

    def dst16(value: float) -> int:  # FP32 bits -> the high half in the Dst layout (sign, mantissa-high7, exponent)
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return (bits >> 31) << 15 | ((bits >> 16) & 0x7F) << 8 | (bits >> 23) & 0xFF

    # dst_fill.c: Dst32b[r][c] = r*0.5 + c - 3.0; Dst16b row 1 holds the high halves of Dst32b row 1
    row1 = ", ".join(hex(dst16(0.5 + c - 3.0)) for c in range(16))
    assert f"$1 = {{{row1}}}" in out
    assert "dst[2]:\t0x8080\t0x807f\t0x0000\t0x1234" in out  # written through the register
