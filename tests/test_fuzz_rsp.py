"""Fuzzing the GDB stub (issue 15 items 2, 3, 9, 18): framing (noise, bad checksums, escapes,
unterminated and oversized packets), every packet letter with malformed arguments and sizes at
the limits, monitor commands, interrupt storms, clients that vanish mid-run.  After every
example the stub answers a probe in bounded time, the session keeps its breakpoint and reads
memory; the stub thread never dies until its client leaves, and then it ends."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from rsp_client import packet
from tdbg.toolchain.zig import firmware_dir
from tdbg.rsp.server import RspServer, Transport, checksum
from tdbg.session import Session

DEMO = firmware_dir() / "demo.c"

NUMBERS = st.one_of(st.sampled_from(["0", "1", "4", "ff", "6000", "ffffffff", "100000000", "fffffffffffffffff",
                                     "-1", "", "zz", "0x10", "7ffffffc", "ffb00ffc", "ffbd8000", "ffe40000"]),
                    st.integers(0, 2**40).map(lambda n: f"{n:x}"))
HEX = st.one_of(st.sampled_from(["", "0", "zz", "00" * 4, "13000000"]), st.binary(max_size=64).map(bytes.hex))
MONITOR = st.sampled_from(["info registers", "x/4wx 0x6000", "info threads", "stepi", "continue", "run", "bt",
                           "break main", "info breakpoints", "x/16h dst[0]", "tensix NOP", "set $pc = 0x6000",
                           "source /etc/passwd", "dump binary memory /tmp/x 0 4", "restore /etc/hostname binary 0",
                           "file T0 /etc/passwd", "dst diff /tmp/x.npy", "echo hi\\n", "quit", "help", "info cfg *fmt*",
                           "x/99999999wx 0", "p 1/0", "", "nosuchcommand", "thread 9", "set scheduler-locking on",
                           "handle UndefinedBehavior warn", "info pushes", "checkpoint", "restart 1"])


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A packet body: a letter with malformed or limit arguments."""
    n = lambda: draw(NUMBERS)  # noqa: E731
    kind = draw(st.sampled_from(["m", "M", "X", "p", "P", "g", "G", "Z", "z", "H", "T", "c", "s", "C", "S", "vCont",
                                 "vFile", "qRcmd", "qXfer", "q", "?", "raw"]))
    if kind == "m":
        return f"m{n()},{n()}".encode()
    if kind in "MX":
        data = draw(st.binary(max_size=32))
        return f"{kind}{n()},{n()}:".encode() + (data.hex().encode() if kind == "M" else data)
    if kind == "p":
        return f"p{n()}".encode()
    if kind == "P":
        return f"P{n()}={draw(HEX)}".encode()
    if kind == "g":
        return b"g"
    if kind == "G":
        return b"G" + draw(HEX).encode()
    if kind in "Zz":
        return f"{kind}{draw(st.sampled_from('0123459'))},{n()},{n()}".encode()
    if kind in "HT":
        return f"{kind}{draw(st.sampled_from(['', 'g', 'c']))}{n()}".encode()
    if kind in "cs":
        return f"{kind}{draw(st.sampled_from(['', n()]))}".encode()
    if kind in "CS":
        return f"{kind}{n()};{n()}".encode()
    if kind == "vCont":
        action = draw(st.sampled_from(["c", "s", "C05", "S05", "t", "r0,4", "x", ""]))
        return f"vCont;{action}{draw(st.sampled_from(['', ':1', ':2', ':-1', ':99', ':zz']))}".encode()
    if kind == "vFile":
        op = draw(st.sampled_from(["open", "pread", "close", "fstat", "setfs", "unlink", "readlink"]))
        return f"vFile:{op}:{draw(HEX)},{n()},{n()}".encode()
    if kind == "qRcmd":
        return b"qRcmd," + draw(st.one_of(MONITOR, st.text(max_size=20))).encode().hex().encode()
    if kind == "qXfer":
        obj = draw(st.sampled_from(["features:read:target.xml", "exec-file:read", "nosuch:read"]))
        return f"qXfer:{obj}:{n()}:{n()},{n()}".encode()
    if kind == "q":
        return draw(st.sampled_from([b"qSupported:multiprocess+", b"qC", b"qfThreadInfo", b"qsThreadInfo", b"qAttached",
                                     b"qOffsets", b"qSymbol::", b"qThreadExtraInfo,1", b"qThreadExtraInfo,zz", b"vMustReplyEmpty"]))
    if kind == "?":
        return b"?"
    return draw(st.binary(max_size=40)).replace(b"#", b"").replace(b"$", b"")


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """What goes on the wire: packets (some with bad checksums or escapes), noise, 0x03."""
    out = b""
    for _ in range(draw(st.integers(1, 6))):
        how = draw(st.sampled_from(["packet", "packet", "packet", "badsum", "noise", "break", "escape"]))
        body = draw(bodies())
        if body.startswith((b"D", b"k", b"vKill")):   # detach / kill end the stub, by design
            body = b"_" + body
        if how == "packet":
            out += packet(body)
        elif how == "badsum":
            out += b"$" + body + b"#%02x" % ((checksum(body) + 1) & 0xFF)
        elif how == "noise":
            out += draw(st.binary(max_size=20)).replace(b"$", b"")
        elif how == "break":
            out += b"\x03" * draw(st.integers(1, 5))
        else:
            out += packet(body + b"}")
    return out


class Wire:
    """A stub serving one session over a socket pair, driven from the test."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.ours, theirs = socket.socketpair()
        self.server = RspServer(session, Transport(theirs.recv, theirs.sendall))
        self.thread = threading.Thread(target=self._serve, args=(theirs,), daemon=True)
        self.thread.start()
        self.ours.settimeout(0.2)
        self.ours.sendall(packet(b"QStartNoAckMode"))
        assert self.until(b"OK", 20)

    def _serve(self, theirs: socket.socket) -> None:
        try:
            self.server.serve()
        finally:
            theirs.close()

    def until(self, wanted: bytes | tuple[bytes, ...], timeout: float) -> bool:
        """Read replies until one starting with ``wanted`` (or one of them); send 0x03 every 2 s meanwhile (a
        resumed program may run forever)."""
        deadline = time.monotonic() + timeout
        buf, last_break = b"", time.monotonic()
        while time.monotonic() < deadline:
            try:
                chunk = self.ours.recv(65536)
            except socket.timeout:
                chunk = b""
            if chunk == b"" and not self.thread.is_alive():
                return False
            buf += chunk
            while b"#" in buf[buf.find(b"$") + 1:] and buf.find(b"$") >= 0:
                start = buf.find(b"$")
                end = buf.find(b"#", start)
                if len(buf) < end + 3:
                    break
                body, buf = buf[start + 1: end], buf[end + 3:]
                if body.startswith(wanted):
                    return True
            if time.monotonic() - last_break > 2:
                self.ours.sendall(b"\x03")
                last_break = time.monotonic()
        return False

    def probe(self) -> None:
        """End any unterminated packet, then ask something with a known answer."""
        self.ours.sendall(b"#00" + packet(b"qC"))
        assert self.until(b"QC", 60), "the stub did not answer"


@pytest.fixture(scope="module")
def wire() -> Wire:
    s = Session(DEMO)
    s.break_at("main")
    return Wire(s)


@fuzz_settings(short=150, long=20000)
@given(data=frames())
def test_packets(wire: Wire, data: bytes, capfd: pytest.CaptureFixture[str]) -> None:
    with bounded(120):
        wire.ours.sendall(data)
        wire.probe()
    assert "internal error" not in capfd.readouterr().err
    s = wire.session
    assert wire.thread.is_alive()
    assert any(bp.location or True for bp in s.breakpoints.values() if "T0" in bp.cores)
    assert len(s.read_memory(0x6000, 4)) == 4


def test_oversized_and_interrupt_storm(wire: Wire) -> None:
    with bounded(120):
        wire.ours.sendall(b"$" + b"m" * 200_000)              # never terminated, far past the packet size
        wire.ours.sendall(b"\x03" * 500)
        wire.probe()
        wire.ours.sendall(packet(b"vCont;c") + b"\x03" * 200)
        assert wire.until((b"T", b"W"), 30)   # W: the random packets may have run the program to its end
        wire.probe()


@fuzz_settings(short=8, long=300)
@given(data=frames(), cut=st.integers(0, 200))
def test_clients_that_vanish(data: bytes, cut: int) -> None:
    """The client leaves at any point (also while the program runs): the stub ends."""
    s = Session(firmware_dir() / "demo.c")
    ours, theirs = socket.socketpair()
    server = RspServer(s, Transport(theirs.recv, theirs.sendall))
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    with bounded(60):
        ours.sendall(packet(b"QStartNoAckMode") + data[:cut] + packet(b"vCont;c"))
        ours.close()
        thread.join(30)
        assert not thread.is_alive()
        theirs.close()
