"""A minimal GDB remote-protocol client for the stub's tests: raw packets over TCP (or an
in-process transport), replies with bounded waits."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tdbg.rsp.server import checksum, serve_tcp
from tdbg.session import Session


def packet(body: bytes) -> bytes:
    return b"$" + body + b"#%02x" % checksum(body)


def start_server(session: Session, **kwargs: object) -> tuple[threading.Thread, int]:
    """Serve ``session`` on a free TCP port in a thread: (the thread, the port)."""
    ready = threading.Event()
    port: list[int] = []
    server = threading.Thread(target=serve_tcp, args=(session, 0),
                              kwargs={"ready": lambda p: (port.append(p), ready.set()), **kwargs}, daemon=True)
    server.start()
    assert ready.wait(30)
    return server, port[0]


@contextmanager
def served(session: Session, no_ack: bool = True, **kwargs: object) -> Iterator[Client]:
    """A client of a stub serving ``session`` on a free port; when the block ends the client
    leaves and the stub must end with it."""
    server, port = start_server(session, **kwargs)
    client = Client(port, no_ack=no_ack)
    try:
        yield client
    finally:
        client.close()
    server.join(30)
    assert not server.is_alive()


class Client:
    """One connection; ``no_ack`` switches acknowledgements off first (as GDB does)."""

    def __init__(self, port: int, no_ack: bool = True, timeout: float = 30) -> None:
        self.conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        if no_ack:
            self.conn.sendall(packet(b"QStartNoAckMode"))
            assert self.reply() == b"OK"

    def raw(self, data: bytes) -> None:
        self.conn.sendall(data)

    def ask(self, body: bytes, timeout: float = 30) -> bytes:
        """Send ``body``; the reply's body (console ``O`` packets before it are skipped)."""
        self.raw(packet(body))
        return self.reply(timeout)

    def reply(self, timeout: float = 30, keep_output: list[bytes] | None = None) -> bytes:
        """The next reply packet's body (``O`` packets go to ``keep_output``)."""
        deadline = time.monotonic() + timeout
        while True:
            start = self.buf.find(b"$")
            end = self.buf.find(b"#", start)
            if start >= 0 and end >= 0 and len(self.buf) >= end + 3:
                body, self.buf = self.buf[start + 1: end], self.buf[end + 3:]
                if body.startswith(b"O") and body != b"OK":
                    if keep_output is not None:
                        keep_output.append(bytes.fromhex(body[1:].decode()))
                    continue
                return body
            self.conn.settimeout(max(deadline - time.monotonic(), 0.01))
            chunk = self.conn.recv(65536)
            if not chunk:
                raise ConnectionError("the stub closed the connection")
            self.buf += chunk

    def close(self) -> None:
        self.conn.close()
