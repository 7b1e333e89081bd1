"""GDB remote serial protocol over a byte stream (stdio or TCP) on top of ``Session``.

Packets ``$data#cs`` with ``+``/``-`` acknowledgements until ``QStartNoAckMode``; ``0x03``
interrupts a running ``continue``.  Breakpoints (``Z0``) are emulator breakpoints, never memory
patches; watchpoints (``Z2``-``Z4``) stop before the access, as RISC-V triggers do (GDB steps
over the access and compares values itself).  ``qRcmd`` runs any tdbg command (``monitor``).
A malformed packet gets an error reply, a bad checksum a ``-``; a vanished client ends the stub.

Each core with firmware is a GDB thread, numbered as the session numbers them (T0 1, T1 2, T2 3,
B 4): ``qfThreadInfo`` lists them, ``qThreadExtraInfo`` names the core and its state, ``Hg``
selects whose registers and memory view ``g``/``p``/``m`` use, stop replies name the thread
(``T05thread:2;``), and ``vCont`` steps one thread while the others follow the session's
``scheduler-locking`` (``vCont;c:N`` alone runs only thread N).  GDB reads the current core's
ELF (``qXfer:exec-file``): one symbol file per connection.
"""

from __future__ import annotations

import queue
import socket
import struct
import sys
import threading
from collections.abc import Callable

from tdbg.commands import Interpreter
import numpy as np

from tdbg.rsp.target_xml import DST_ROWS, REGISTER_COUNT, target_xml
from tdbg.session import Session, SessionError
from tdbg.emu.stops import Stop, StopKind

SIGTRAP, SIGINT, SIGILL, SIGSEGV = 5, 2, 4, 11


def checksum(data: bytes) -> int:
    return sum(data) & 0xFF


def escape(data: bytes) -> bytes:
    """Escape ``#``, ``$``, ``}`` and ``*`` for a packet body."""
    out = bytearray()
    for b in data:
        if b in b"#$}*":
            out += bytes((0x7D, b ^ 0x20))
        else:
            out.append(b)
    return bytes(out)


def unescape(data: bytes) -> bytes:
    out, it = bytearray(), iter(data)
    for b in it:
        out.append(next(it, 0) ^ 0x20 if b == 0x7D else b)
    return bytes(out)


class Transport:
    """A byte stream: ``read(n)`` returns b"" at end, ``write`` sends everything."""

    def __init__(self, read: Callable[[int], bytes], write: Callable[[bytes], None]) -> None:
        self.read = read
        self.write = write


class ClientGone(Exception):
    pass


class RspServer:
    """Serves one GDB client until it detaches, kills or disconnects."""

    def __init__(self, session: Session, transport: Transport) -> None:
        self.session = session
        session.watch_after = False   # GDB steps over a watched access itself (RISC-V triggers fire before it)
        self.io = transport
        self.ack = True
        self.interp = Interpreter(session)
        self._packets: queue.Queue[bytes | None] = queue.Queue()
        self._breakpoints: dict[int, int] = {}               # address -> breakpoint number
        self._watches: dict[tuple[int, int, int], int] = {}  # (type, addr, len) -> number
        self.running = False
        self.exited = False
        self._file = b""

    # -- framing ----------------------------------------------------------------------------------
    def _reader(self) -> None:
        """Split the byte stream into packets (and ``0x03`` interrupts); runs in a thread."""
        buf = bytearray()
        try:
            while True:
                chunk = self.io.read(4096)
                if not chunk:
                    break
                buf += chunk
                while buf:
                    if buf[0] == 0x03:
                        del buf[0]
                        if self.running:
                            self.session.interrupt()
                        continue
                    if buf[0] in b"+-":
                        del buf[0]
                        continue
                    start = buf.find(b"$")
                    if start < 0:
                        buf.clear()
                        break
                    end = buf.find(b"#", start)
                    if end < 0 or len(buf) < end + 3:
                        del buf[:start]
                        break
                    body, cs = bytes(buf[start + 1 : end]), bytes(buf[end + 1 : end + 3])
                    del buf[: end + 3]
                    try:
                        good = int(cs, 16) == checksum(body)
                    except ValueError:
                        good = False
                    if self.ack:
                        self.io.write(b"+" if good else b"-")
                    if good or not self.ack:
                        self._packets.put(body)
        except OSError:
            pass
        self._packets.put(None)

    def send(self, data: bytes | str) -> None:
        body = escape(data.encode() if isinstance(data, str) else data)
        self.io.write(b"$" + body + b"#%02x" % checksum(body))

    # -- main loop ----------------------------------------------------------------------------------
    def serve(self) -> None:
        threading.Thread(target=self._reader, daemon=True).start()
        while True:
            packet = self._packets.get()
            if packet is None:
                return
            try:
                reply = self.handle(packet)
            except ClientGone:
                return
            except (SessionError, ValueError, KeyError, IndexError):
                reply = "E01"
            if reply is not None:
                self.send(reply)
            if packet[:1] in (b"D", b"k") or packet.startswith(b"vKill"):
                return

    def handle(self, packet: bytes) -> str | bytes | None:
        text = packet.decode("latin-1")
        kind = text[:1]
        if text.startswith("qSupported"):
            return "PacketSize=4000;qXfer:features:read+;qXfer:exec-file:read+;QStartNoAckMode+;vContSupported+;swbreak+;hwbreak+"
        if text == "QStartNoAckMode":
            self.send("OK")
            self.ack = False
            return None
        if text.startswith("qXfer:features:read:target.xml:"):
            return self._xfer(target_xml().encode(), text.rsplit(":", 1)[1])
        if text.startswith("qXfer:exec-file:read:"):
            return self._xfer(str(self.session.image.path).encode(), text.rsplit(":", 1)[1])
        if text.startswith("vFile:"):
            return self._vfile(text[6:])
        if text.startswith("qRcmd,"):
            return self._monitor(bytes.fromhex(text[6:]).decode("utf-8", "replace"))
        if text == "qC":
            return f"QC{self.session.thread_id(self.session.current):x}"
        if text == "qfThreadInfo":
            return "m" + ",".join(f"{self.session.thread_id(n):x}" for n in self._threads())
        if text == "qsThreadInfo":
            return "l"
        if text.startswith("qThreadExtraInfo,"):
            name = self._core(text.split(",", 1)[1])
            return f"{name} {self.session.core_state(name)}".encode().hex()
        if text == "qAttached":
            return "1"
        if text.startswith("qOffsets"):
            return "Text=0;Data=0;Bss=0"
        if text == "qSymbol::":
            return "OK"
        if kind == "H":
            if text[2:] not in ("0", "-1"):
                core = self._core(text[2:])
                if text[1] == "g":
                    self.session.select_core(core)
            return "OK"
        if kind == "T":
            self._core(text[1:])
            return "OK"
        if text == "?":
            return self._stop_reply(self.session.core.last_stop)
        if kind == "g":
            return "".join(self._reg_hex(i) for i in range(REGISTER_COUNT))
        if kind == "G":
            data = text[1:]
            for i in range(REGISTER_COUNT):
                self._set_reg(i, bytes.fromhex(data[8 * i : 8 * i + 8]))
            return "OK"
        if kind == "p":
            return self._reg_hex(int(text[1:], 16))
        if kind == "P":
            n, value = text[1:].split("=")
            data = bytes.fromhex(value)
            if len(data) != (32 if int(n, 16) >= REGISTER_COUNT else 4):
                return "E01"
            self._set_reg(int(n, 16), data)
            return "OK"
        if kind == "m":
            addr, length = (int(x, 16) for x in text[1:].split(","))
            try:
                return self.session.read_memory(addr, length).hex()
            except SessionError:
                return "E14"
        if kind in "MX":
            head, _, data = packet[1:].partition(b":")
            addr, length = (int(x, 16) for x in head.decode().split(","))
            raw = bytes.fromhex(data.decode()) if kind == "M" else unescape(data)
            if len(raw) != length:
                return "E01"
            try:
                self.session.write_memory(addr, raw)
            except SessionError:
                return "E14"
            return "OK"
        if kind in "Zz":
            return self._point(kind == "Z", text[1:])
        if text == "vCont?":
            return "vCont;c;C;s;S"
        if text.startswith("vCont;"):
            return self._vcont(text[6:].split(";"))
        if kind in "cC":
            return self._resume(step=False)
        if kind in "sS":
            return self._resume(step=True)
        if kind == "D":
            return "OK"
        if kind == "k" or text.startswith("vKill"):
            return "OK" if text.startswith("vKill") else None
        if text == "vMustReplyEmpty":
            return ""
        return ""  # unsupported packet: the empty reply, as the protocol asks

    # -- pieces ---------------------------------------------------------------------------------
    @staticmethod
    def _xfer(data: bytes, window: str) -> bytes:
        offset, length = (int(x, 16) for x in window.split(","))
        chunk = data[offset : offset + length]
        return (b"l" if offset + length >= len(data) else b"m") + chunk

    def _vfile(self, request: str) -> str | bytes:
        """Host I/O, so GDB can read the ELF it is debugging with no ``file`` command: only the
        program's own file can be opened, read-only."""
        op, _, args = request.partition(":")
        if op == "setfs":
            return "F0"
        if op == "open":
            path = bytes.fromhex(args.split(",")[0]).decode()
            if path != str(self.session.image.path):
                return "F-1,2"  # ENOENT
            self._file = self.session.image.path.read_bytes()
            return "F3"
        if op == "pread":
            fd, count, offset = (int(x, 16) for x in args.split(","))
            data = self._file[offset : offset + count]
            return b"F%x;" % len(data) + data
        if op == "close":
            return "F0"
        if op == "fstat":  # GDB's struct stat: big-endian, 64 bytes
            stat = struct.pack(">7I3Q3I", 0, 0, 0o100644, 1, 0, 0, 0, len(self._file), 4096, (len(self._file) + 511) // 512, 0, 0, 0)
            return b"F%x;" % len(stat) + stat
        return "F-1,58"  # ENOSYS: fstat, unlink, readlink ...

    def _reg_hex(self, n: int) -> str:
        if REGISTER_COUNT <= n < REGISTER_COUNT + DST_ROWS:
            return self.session.tile.tensix.dst.read16(n - REGISTER_COUNT).astype("<u2").tobytes().hex()
        if not 0 <= n < REGISTER_COUNT:
            raise ValueError(n)
        value = self.session.core.pc if n == 32 else self.session.core.reg(n)
        return value.to_bytes(4, "little").hex()

    def _set_reg(self, n: int, data: bytes) -> None:
        if REGISTER_COUNT <= n < REGISTER_COUNT + DST_ROWS:
            self.session.tile.tensix.dst.write16(n - REGISTER_COUNT, np.frombuffer(data, dtype="<u2"))
            return
        value = int.from_bytes(data, "little")
        if n == 32:
            self.session.core.pc = value
        elif 0 <= n < 32:
            self.session.core.set_reg(n, value)
        else:
            raise ValueError(n)

    def _monitor(self, command: str) -> str:
        try:
            output = self.interp.capture(command)
        except SystemExit:  # ``quit``: the GDB client decides when the session ends
            output = "quit: use GDB's detach or kill to end the session\n"
        if output:
            self.send("O" + output.encode().hex())
        return "OK"

    def _point(self, insert: bool, args: str) -> str:
        kind, addr_text, length_text = args.split(",")[:3]
        addr, length = int(addr_text, 16), int(length_text.split(";")[0], 16)
        s = self.session
        if kind in ("0", "1"):
            if insert:
                if addr not in self._breakpoints:
                    self._breakpoints[addr] = s.break_at(addr).number
            elif addr in self._breakpoints:
                s.delete(self._breakpoints.pop(addr))
            return "OK"
        if kind in ("2", "3", "4"):
            key = (int(kind), addr, length)
            if insert:
                watch_kind = {"2": "write", "3": "read", "4": "access"}[kind]
                self._watches[key] = s.watch(addr, length, watch_kind).number
            elif key in self._watches:
                s.delete(self._watches.pop(key))
            return "OK"
        return ""

    def _threads(self) -> list[str]:
        """The cores GDB sees as threads: those with firmware."""
        return [n for n in self.session.tile.cores if n in self.session.tile.programs]

    def _core(self, thread_id: str) -> str:
        """The core of a thread id in a packet (hex; -1/0 mean any: the current core)."""
        tid = int(thread_id.split(".")[-1], 16) if thread_id not in ("-1", "0", "") else 0
        if tid <= 0:
            return self.session.current
        name = self.session.core_by_thread(str(tid))
        if name not in self._threads():
            raise ValueError(f"no thread {tid}")
        return name

    def _vcont(self, actions: list[str]) -> str:
        """``vCont``: a step action for a thread steps that core; ``c:N`` with no default
        action runs only core N; otherwise every core runs."""
        for action in actions:
            verb, _, tid = action.partition(":")
            if verb[:1] in "sS" and tid:
                self.session.select_core(self._core(tid))
                return self._resume(step=True)
        if len(actions) == 1 and actions[0][:1] in "cC" and ":" in actions[0]:
            self.session.select_core(self._core(actions[0].partition(":")[2]))
            return self._resume(step=False, only=True)
        return self._resume(step=any(a[:1] in "sS" for a in actions))

    def _resume(self, step: bool, only: bool = False) -> str:
        if self.exited:
            return "W00"
        s = self.session
        self.running = True
        saved = s.scheduler_locking
        try:
            if only:
                s.scheduler_locking = "on"
            stop = s.announce(s.stepi() if step else s.cont())
        finally:
            s.scheduler_locking = saved
            self.running = False
        return self._stop_reply(stop)

    def _stop_reply(self, stop: Stop | None) -> str:
        s = self.session
        if stop is None:
            return f"T05thread:{s.thread_id(s.current):x};"
        if stop.kind is StopKind.EXITED:
            self.exited = True
            codes = s.tile.exit_codes
            return f"W{max(codes.values(), default=0) & 0xFF:02x}"
        thread = f"thread:{s.thread_id(stop.core):x};" if stop.core in s.tile.cores else ""
        if stop.kind is StopKind.WATCHPOINT and stop.access is not None:
            name = {"write": "watch", "read": "rwatch", "access": "awatch"}[stop.watch.kind]  # type: ignore[union-attr]
            return f"T05{thread}{name}:{stop.access.address:x};"
        if stop.kind is StopKind.BREAKPOINT:
            return f"T05{thread}swbreak:;"
        if stop.kind is StopKind.INTERRUPTED:
            return f"T{SIGINT:02x}{thread}"
        if stop.kind in (StopKind.EVENT, StopKind.FAULT, StopKind.DEADLOCK, StopKind.BLOCKED):
            self.send("O" + f"{stop.describe()}\n".encode().hex())
            signal = SIGSEGV if stop.kind is StopKind.EVENT and stop.access else SIGILL
            return f"T{signal:02x}{thread}"
        return f"T{SIGTRAP:02x}{thread}"


def serve_stdio(session: Session) -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def write(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    RspServer(session, Transport(lambda n: stdin.read1(n) if hasattr(stdin, "read1") else stdin.read(1), write)).serve()


def serve_tcp(session: Session, port: int, host: str = "127.0.0.1", ready: Callable[[int], None] | None = None) -> None:
    """Accept one client on ``host:port`` (0 picks a free port) and serve it."""
    with socket.create_server((host, port)) as server:
        if ready is not None:
            ready(server.getsockname()[1])
        conn, _ = server.accept()
        with conn:
            RspServer(session, Transport(conn.recv, conn.sendall)).serve()
