"""GDB remote serial protocol over a byte stream (stdio or TCP) on top of ``Session``.

Packets ``$data#cs`` with ``+``/``-`` acknowledgements until ``QStartNoAckMode``; ``0x03``
interrupts whatever runs (``continue``, a step, a ``monitor`` command), also when it arrives just
before the run starts.  Breakpoints (``Z0``) are emulator breakpoints, never memory patches;
watchpoints (``Z2``-``Z4``) stop before the access, as RISC-V triggers do (GDB steps over the
access and compares values itself).  ``qRcmd`` runs a tdbg command (``monitor``), except the
commands that read or write host files (their declaration says so: ``Command.host_files``) unless
the user allowed them.

Each packet declares the schema of its arguments in the packet table (``tdbg.rsp.packets``); its
handler gets them typed.  The stub never dies of its input: a packet whose arguments do not fit
its schema, or name what does not exist, gets an error reply (``E01``; ``E14`` for memory tdbg
cannot access), a bad checksum a ``-``, an unsupported packet or ``vCont`` action
the empty reply or ``E01``; a packet larger than ``MAX_PACKET`` is dropped; a retransmission
of the packet being answered (GDB resends when tdbg starts slowly) is answered once; reads are
cut to what fits a packet (GDB asks again for the rest).  A vanished client interrupts what
runs and ends the stub.

Each core with firmware is a GDB thread, numbered as the session numbers them (T0 1, T1 2, T2 3,
B 4): ``qfThreadInfo`` lists them, ``qThreadExtraInfo`` names the core and its state, ``Hg``
selects whose registers and memory view ``g``/``p``/``m`` use, stop replies name the thread
(``T05thread:2;``), and ``vCont`` steps one thread while the others follow the session's
``scheduler-locking`` (``vCont;c:N`` alone runs only thread N).

With GDB's multiprocess extensions (gdb-multiarch offers them) each core is a process of one
thread (``pN.1``), as in tt-exalens' GDB server, with its own exec file (``qXfer:exec-file:read:N``,
read through ``vFile``): GDB makes an inferior per core, so a function of any core's ELF takes a
breakpoint (``Z0`` after ``Hg``: that core's) and every core's frames have symbols, with no
``file``.  GDB's default ``schedule-multiple off`` continues one process (``vCont;c:pN.-1``): then
only that core runs and the others stay where GDB saw them (said once on the console); ``set
schedule-multiple on`` runs the tile.  A process exits (``W..;process:N``) when its core ran alone
and exited, or at the tile's end, one process a resume.  ``D;N`` / ``vKill;N`` let one process go.

Code a host put on a core beyond its firmware (a tt-metal kernel: the session's symbol files) is
a library of that core's process (``qXfer:libraries-svr4``, ``qXfer:libraries``), announced by a
``library`` stop when it changes; ``qXfer:memory-map`` gives every core's map from the profile.
A breakpoint tdbg set (``monitor break``) stops GDB with no ``swbreak`` (GDB would take it for
one of its own and resume).
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable
from xml.sax.saxutils import quoteattr

import numpy as np

from tdbg.commands import Interpreter
from tdbg.commands.hang_report import report_text
from tdbg.commands.registry import Command, CommandError
from tdbg.commands.running import device_output, report_stop
from tdbg.debug import Stop, StopKind
from tdbg.emu.elf import ElfImage
from tdbg.rsp.packets import PacketError, PacketTable, packet
from tdbg.rsp.target_xml import REGISTER_COUNT, memory_map_xml, target_xml
from tdbg.session import RunStatus, Session, SessionError, SymbolFile

SIGTRAP, SIGINT, SIGILL, SIGSEGV = 5, 2, 4, 11
#: The signal a stop is reported with (any other kind: SIGTRAP); SIGILL's stops are described on
#: GDB's console too (an event of a load or store is SIGSEGV).
STOP_SIGNALS = {StopKind.INTERRUPTED: SIGINT, StopKind.EVENT: SIGILL, StopKind.FAULT: SIGILL,
                StopKind.DEADLOCK: SIGILL, StopKind.BLOCKED: SIGILL}
PACKET_SIZE = 0x4000            # what qSupported announces: the largest packet GDB sends us
MAX_PACKET = 4 * PACKET_SIZE    # a packet body longer than this is dropped unread
MAX_READ = (PACKET_SIZE - 16) // 2   # bytes an ``m`` reply carries at most (hex doubles them)
MAX_OPEN_FILES = 16                  # vFile descriptors open at once
class MonitorInterpreter(Interpreter):
    """The interpreter ``monitor`` commands run in: commands that touch host files are refused
    (also inside user-defined commands and breakpoint commands) unless ``allow_host_files``."""

    def __init__(self, session: Session, allow_host_files: bool) -> None:
        super().__init__(session)
        self.allow_host_files = allow_host_files

    def _run(self, cmd: Command, args: str) -> None:
        if not self.allow_host_files and cmd.touches_host_files(args):
            raise CommandError(f'"{cmd.name}" reads or writes files on the host running tdbg: refused through the GDB '
                               f"stub (start tdbg with --allow-host-files to allow it)")
        super()._run(cmd, args)


def _register_name(n: int) -> str:
    """The session's name of GDB's register ``n`` (``target_xml``: x0..x31, then pc)."""
    return "pc" if n == 32 else f"x{n}"


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


class Transport:
    """A byte stream: ``read(n)`` returns b"" at end, ``write`` sends everything."""

    def __init__(self, read: Callable[[int], bytes], write: Callable[[bytes], None]) -> None:
        self.read = read
        self.write = write


class ClientGone(Exception):
    pass


class Resumed(Exception):
    """A resume whose run someone else makes (a host drives the device: ``tdbg.rsp.hosted``)."""


class RspServer:
    """Serves one GDB client until it detaches, kills or disconnects."""

    def __init__(self, session: Session, transport: Transport, allow_host_files: bool = False) -> None:
        self.session = session
        session.watch_after = False   # GDB steps over a watched access itself (RISC-V triggers fire before it)
        self.io = transport
        self.ack = True
        self.interp = MonitorInterpreter(session, allow_host_files)
        self._breakpoints: dict[tuple[str | None, int], int] = {}   # (core or None: all, address) -> number
        self._watches: dict[tuple[int, int, int], int] = {}  # (type, addr, len) -> number
        self._watch_owners: dict[int, list[str]] = {}        # watch number -> the processes' cores that set it
        self.multiprocess = False    # GDB's multiprocess extensions: each core a process
        self.exited = False
        self._reported_exits: set[str] = set()   # cores whose process GDB has been told exited
        self._detached: set[str] = set()         # cores GDB detached from or killed
        self._access_done: str | None = None     # a watchpoint hit reported on this core after its access
        self._hinted = False                     # said once how to run every core
        self._announced: dict[str, list[str]] = {}   # core -> its symbol files GDB has been told of
        self._loaded: str | None = None          # the core of the last ``library`` stop (GDB reads its list)
        self._files: dict[int, bytes] = {}   # vFile descriptors: the loaded ELFs GDB opened
        self._table = self._packet_table()
        # Shared with the reader thread, under ``_lock``: packets not yet handled, whether one
        # is being handled, the body of the newest one (a retransmission of it is dropped),
        # a 0x03 for it, the client gone.
        self._lock = threading.Condition()
        self._queue: deque[bytes] = deque()
        self._busy = False
        self._last: bytes | None = None
        self._reads = 0          # chunks read from the client so far
        self._replied_at = 0     # ``_reads`` when the reply to ``_last`` was sent
        self._break = False
        self._gone = False

    # -- framing ----------------------------------------------------------------------------------
    def _reader(self) -> None:
        """Split the byte stream into packets (and ``0x03`` interrupts); runs in a thread."""
        buf = bytearray()
        try:
            while True:
                chunk = self.io.read(4096)
                if not chunk:
                    break
                with self._lock:
                    self._reads += 1
                    reads = self._reads
                buf += chunk
                while buf:
                    if buf[0] == 0x03:
                        del buf[0]
                        with self._lock:  # only for a packet pending or running (GDB's Ctrl-C)
                            self._break = self._break or self._busy or bool(self._queue)
                            broke = self._break
                        if broke:
                            self._interrupt()
                        continue
                    if buf[0] != 0x24:  # acknowledgements and noise before a packet
                        del buf[0]
                        continue
                    end = buf.find(b"#")
                    if end < 0 and len(buf) > MAX_PACKET or end > MAX_PACKET:
                        del buf[: end + 1 if end > 0 else len(buf)]   # too long: dropped, resent
                        if self.ack:
                            self.io.write(b"-")
                        continue
                    if end < 0 or len(buf) < end + 3:
                        break
                    body, cs = bytes(buf[1:end]), bytes(buf[end + 1: end + 3])
                    del buf[: end + 3]
                    try:
                        good = int(cs, 16) == checksum(body)
                    except ValueError:
                        good = False
                    if self.ack:
                        self.io.write(b"+" if good else b"-")
                    if good or not self.ack:
                        self._enqueue(body, reads)
        except OSError:
            pass
        with self._lock:
            self._gone = True
            self._lock.notify_all()

    def _interrupt(self) -> None:
        """A 0x03 came while a packet runs (here ``run_breakable`` polls ``_breaking``)."""

    def _enqueue(self, body: bytes, read: int) -> None:
        """Queue a packet read in chunk ``read``.  GDB sends nothing new before our reply, so
        the previous packet again, read before that reply was sent, is a retransmission."""
        with self._lock:
            if self.ack and body == self._last and (self._busy or self._queue or read <= self._replied_at):
                return
            self._last = body
            self._queue.append(body)
            self._lock.notify_all()

    def _next_packet(self) -> bytes | None:
        """The next packet (None once the client is gone); marks it being handled."""
        with self._lock:
            while not self._queue and not self._gone:
                self._lock.wait()
            if not self._queue:
                return None
            self._busy = True
            return self._queue.popleft()

    def _replying(self) -> None:
        """What is read from now on was sent after our reply (``_enqueue``)."""
        with self._lock:
            self._replied_at = self._reads

    def _done(self) -> None:
        with self._lock:
            self._busy = False
            if not self._queue:
                self._break = False

    def send(self, data: bytes | str) -> None:
        body = escape(data.encode() if isinstance(data, str) else data)
        self.io.write(b"$" + body + b"#%02x" % checksum(body))

    # -- main loop ----------------------------------------------------------------------------------
    def serve(self) -> None:
        self.start_reading()
        self.handle_packets()

    def start_reading(self) -> None:
        threading.Thread(target=self._reader, daemon=True).start()

    def handle_packets(self) -> bool:
        """Answer packets until the client leaves (False), or until a resume is handed to
        whoever runs the device (``Resumed``: True; its stop reply is sent later)."""
        while True:
            packet = self._next_packet()
            if packet is None:
                return False
            try:
                try:
                    reply = self.handle(packet)
                except ClientGone:
                    return False
                except Resumed:
                    self._replying()
                    return True      # still busy with the resume: a 0x03 now interrupts the run
                except (SessionError, CommandError, ValueError, KeyError, IndexError, struct.error):
                    reply = "E01"
                except Exception as exc:  # noqa: BLE001  (a bug in tdbg: one line, and the stub goes on)
                    print(f"tdbg: internal error on packet {packet[:40]!r}: {exc!r}", file=sys.stderr, flush=True)
                    reply = "E01"
                self._replying()
                if reply is not None:
                    self.send(reply)
            except OSError:  # the client closed the connection
                return False
            self._done()
            if packet[:1] == b"k" or self._gone or (self._detached and set(self._threads()) <= self._detached):
                return False

    def handle(self, packet: bytes) -> str | bytes | None:
        """The reply to one packet (None: no reply), by the packet table (``tdbg.rsp.packets``):
        an unknown packet gets the empty reply, as the protocol asks; one whose arguments do not
        fit its schema, ``E01``."""
        text = packet.decode("latin-1")   # (latin-1: every byte a character, X's binary data too)
        if not text:
            return ""
        try:
            return self._table.dispatch(text)  # type: ignore[return-value]
        except PacketError:
            return "E01"

    def _packet_table(self) -> PacketTable:
        """Every packet the stub answers, with the schema of its arguments (``tdbg.rsp.packets``)."""
        s = self.session
        xfer = "S:L,L"   # qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH
        return PacketTable([
            packet("QStartNoAckMode", "", self._no_ack, exact=True),
            packet("qC", "", lambda: f"QC{self._thread_id(self._current())}", exact=True),
            packet("qfThreadInfo", "", lambda: "m" + ",".join(self._thread_id(n) for n in self._threads()), exact=True),
            packet("qsThreadInfo", "", lambda: "l", exact=True),
            packet("qAttached", "[:L]", lambda pid: "1"),
            packet("qSymbol::", "", lambda: "OK", exact=True),
            packet("qOffsets", "", lambda: "Text=0;Data=0;Bss=0", exact=True),
            packet("?", "", lambda: self._stop_reply(s.last_stop), exact=True),
            packet("vCont?", "", lambda: "vCont;c;C;s;S", exact=True),
            packet("vMustReplyEmpty", "", lambda: "", exact=True),
            packet("qSupported", "[:S]", self._supported),
            packet("qXfer:features:read:", xfer, self._features),
            packet("qXfer:exec-file:read:", xfer, self._exec_file),
            packet("qXfer:libraries:read:", xfer, self._libraries),
            packet("qXfer:libraries-svr4:read:", xfer, self._libraries_svr4),
            packet("qXfer:memory-map:read:", xfer, self._memory_map),
            packet("vFile:setfs:", "L", self._setfs),
            packet("vFile:open:", "H,L,L", self._vfile_open),
            packet("vFile:pread:", "L,L,L", self._vfile_pread),
            packet("vFile:close:", "L", self._vfile_close),
            packet("vFile:fstat:", "L", self._vfile_fstat),
            packet("vFile:", "S", lambda request: "F-1,58"),   # ENOSYS: unlink, readlink ...
            packet("qRcmd,", "H", lambda command: self._monitor(command.decode("utf-8", "replace"))),
            packet("qThreadExtraInfo,", "T", self._thread_extra_info),
            packet("vCont;", "S", lambda actions: self._vcont(actions.split(";"))),
            packet("vKill;", "L", self._detach),
            packet("H", "OT", self._select_thread),
            packet("T", "T", self._thread_alive),
            packet("g", "", self._read_registers),
            packet("G", "H", self._write_registers),
            packet("p", "L", self._reg_hex),
            packet("P", "L=H", self._write_register),
            packet("m", "L,L", self._read_memory),
            packet("M", "L,L:H", self._store),
            packet("X", "L,L:B", self._store),
            packet("Z", "L,L,L[;S]", lambda kind, addr, length, conditions: self._point(True, kind, addr, length)),
            packet("z", "L,L,L[;S]", lambda kind, addr, length, conditions: self._point(False, kind, addr, length)),
            packet("c", "[L]", lambda addr: self._continue(addr, step=False)),
            packet("s", "[L]", lambda addr: self._continue(addr, step=True)),
            packet("C", "L[;L]", lambda signal, addr: self._continue(addr, step=False)),   # the signal is
            packet("S", "L[;L]", lambda signal, addr: self._continue(addr, step=True)),    # not delivered
            packet("D", "[;L]", self._detach),
            packet("k", "", lambda: None),
        ])

    # -- packets ----------------------------------------------------------------------------------
    def _supported(self, features: str | None) -> str:
        self.multiprocess = "multiprocess+" in (features or "").split(";")
        # a watchpoint is its process's, but any core (or Tensix unit) may make the access:
        # the stub completes it and reports the hit on the watchpoint's process (_watch_reply)
        self.session.watch_after = self.multiprocess
        return (f"PacketSize={PACKET_SIZE:x};qXfer:features:read+;qXfer:exec-file:read+;qXfer:libraries:read+;"
                "qXfer:libraries-svr4:read+;qXfer:memory-map:read+;QStartNoAckMode+;vContSupported+;swbreak+;hwbreak+"
                + (";multiprocess+" if self.multiprocess else ""))

    def _no_ack(self) -> None:
        self.send("OK")
        self.ack = False

    def _features(self, annex: str, offset: int, length: int) -> str | bytes:
        if annex != "target.xml":
            return "E00"
        return self._xfer(target_xml(self.session.profile.tensix.dst_rows).encode(), offset, length)

    def _memory_map(self, annex: str, offset: int, length: int) -> bytes:
        """``qXfer:memory-map:read::OFFSET,LENGTH``: every core's map, from the profile."""
        s = self.session
        return self._xfer(memory_map_xml(s.profile.map, s.core_names).encode(), offset, length)

    def _exec_file(self, annex: str, offset: int, length: int) -> str | bytes:
        core = self._core(f"p{annex}") if annex else self._current()
        image = self._program(core)
        if image is None:
            return "E01"
        return self._xfer(str(image.path).encode(), offset, length)

    def _libraries(self, annex: str, offset: int, length: int) -> bytes:
        """``qXfer:libraries:read::OFFSET,LENGTH`` (GDB's ``solib-target``, a bare-metal OS
        ABI): each symbol file a library whose loadable segments are given where they run, one
        ``segment`` address each in the file's order (a kernel's code moved, its data where it
        was linked), so GDB has the kernels' symbols with no ``add-symbol-file``."""
        entries = []
        for added in self._symbol_files():
            bases = "".join(f'<segment address="{seg.vaddr:#x}"/>' for seg in added.image.segments)
            entries.append(f"<library name={quoteattr(str(added.image.path))}>{bases}</library>")
        xml = '<library-list version="1.0">' + "".join(entries) + "</library-list>"
        return self._xfer(xml.encode(), offset, length)

    def _libraries_svr4(self, annex: str, offset: int, length: int) -> bytes:
        """``qXfer:libraries-svr4:read::OFFSET,LENGTH`` (what gdb-multiarch asks when it takes
        the firmware for GNU/Linux, its default OS ABI): the same symbol files, each one's load
        bias 0, since GDB reads their bytes through ``vFile`` as tdbg moved them (``lm``: a
        number of the stub's own, the list has no link map in memory)."""
        entries = "".join(f'<library name={quoteattr(str(added.image.path))} lm="{n:#x}" l_addr="0x0" l_ld="0x0" lmid="0x0"/>'
                          for n, added in enumerate(self._symbol_files(), 1))
        xml = '<library-list-svr4 version="1.0">' + entries + "</library-list-svr4>"
        return self._xfer(xml.encode(), offset, length)

    def _unannounced(self, only: str | None) -> str | None:
        """A core (``only``, or any) whose symbol files changed since GDB last read its library
        list (a tt-metal program prepared: its kernels), marked told; None when there is none.
        Its stop reply carries ``library``, as a dynamic loader's event would."""
        for core in [only] if only is not None else self._threads():
            files = [str(f.image.path) for f in self._files_of(core)]
            if files != self._announced.get(core, []):
                self._announced[core] = files
                return core
        return None

    def _symbol_files(self) -> list[SymbolFile]:
        """The symbol files (code beyond the firmware: a tt-metal kernel) of the cores GDB's
        current program holds: with processes the selected core's (after a ``library`` stop, the
        core it named: GDB reads that process's list with no ``Hg`` first), else every core's."""
        cores = [self._loaded or self._current()] if self.multiprocess else self._threads()
        for core in cores:   # GDB reads the list: it knows of these now
            self._announced[core] = [str(f.image.path) for f in self._files_of(core)]
        return [added for core in cores for added in self._files_of(core)]

    def _thread_extra_info(self, thread: str) -> str:
        name = self._core(thread)
        return f"{name} {self._status(name)}".encode().hex()   # short: GDB's info threads fits 80 columns

    def _select_thread(self, op: str, thread: str) -> str:
        """``Hg``/``Hc`` + a thread: ``Hg`` selects whose registers and memory view count."""
        if thread not in ("0", "-1"):
            core = self._core(thread)
            self._loaded = None
            if op == "g":
                self._select(core)
        return "OK"

    def _thread_alive(self, thread: str) -> str:
        self._core(thread)
        return "OK"

    def _read_registers(self) -> str:
        return "".join(self._reg_hex(i) for i in range(REGISTER_COUNT))

    def _write_registers(self, data: bytes) -> str:
        if len(data) != 4 * REGISTER_COUNT:
            return "E01"
        for i in range(REGISTER_COUNT):
            self._set_reg(i, data[4 * i: 4 * i + 4])
        return "OK"

    def _write_register(self, n: int, data: bytes) -> str:
        if len(data) != (32 if n >= REGISTER_COUNT else 4):
            return "E01"
        self._set_reg(n, data)
        return "OK"

    def _read_memory(self, addr: int, length: int) -> str:
        try:
            return self.session.read_memory(addr, min(length, MAX_READ)).hex()
        except SessionError:
            return "E14"

    def _store(self, addr: int, length: int, raw: bytes) -> str:
        """``M`` (hex data) and ``X`` (binary data): write as the current core's stores would."""
        if len(raw) != length:
            return "E01"
        try:
            self.session.write_memory(addr, raw)   # nothing for GDB's zero-length probe
        except SessionError:
            return "E14"
        return "OK"

    def _continue(self, addr: int | None, step: bool) -> str:
        """``c [ADDR]`` / ``s [ADDR]`` (and ``C``/``S`` with a signal, not delivered: the cores
        take none): resume, at ADDR when given."""
        if addr is not None:
            self.session.set_register("pc", addr)
        return self._resume(step=step)

    def _detach(self, pid: int | None) -> str:
        """``D[;PID]``, ``vKill;PID``: let one process go (the others go on), or every one."""
        self._detached.update([self._core(f"p{pid:x}")] if pid is not None else self._threads())
        return "OK"

    # -- pieces ---------------------------------------------------------------------------------
    @staticmethod
    def _xfer(data: bytes, offset: int, length: int) -> bytes:
        chunk = data[offset : offset + length]
        return (b"l" if offset + length >= len(data) else b"m") + chunk

    def _vfile_open(self, path: bytes, flags: int, mode: int) -> str:
        """Host I/O, so GDB can read the ELFs it is debugging with no ``file`` command: only the
        loaded programs' own files (and the symbol files) can be opened, read-only."""
        name = path.decode("utf-8", "replace")
        loaded = self._openable()
        if name not in loaded:
            return "F-1,2"  # ENOENT
        if len(self._files) >= self._max_open_files():
            return "F-1,18"  # EMFILE
        fd = next(n for n in range(3, 3 + len(self._files) + 1) if n not in self._files)
        self._files[fd] = loaded[name]   # the bytes tdbg loaded (GDB reads one file per process)
        return f"F{fd:x}"

    def _openable(self) -> dict[str, bytes]:
        """The files GDB may open, by name: the programs, and the symbol files' bytes as tdbg
        moved them (GDB relocates nothing: ``_libraries``)."""
        loaded = {str(image.path): image.raw for image in self.session.programs.values()}
        loaded.update((str(f.image.path), f.image.raw) for files in self.session.symbol_files.values() for f in files)
        return loaded

    def _max_open_files(self) -> int:
        """vFile descriptors open at once (GDB keeps each ELF it reads open)."""
        return MAX_OPEN_FILES

    def _setfs(self, pid: int) -> str:
        """``vFile:setfs:PID``: the files GDB opens next are process PID's (one set here)."""
        return "F0"

    def _vfile_pread(self, fd: int, count: int, offset: int) -> str | bytes:
        if fd not in self._files:
            return "F-1,9"  # EBADF
        chunk = self._files[fd][offset: offset + min(count, MAX_READ)]
        return b"F%x;" % len(chunk) + chunk

    def _vfile_close(self, fd: int) -> str:
        return "F0" if self._files.pop(fd, None) is not None else "F-1,9"

    def _vfile_fstat(self, fd: int) -> str | bytes:
        if fd not in self._files:
            return "F-1,9"
        size = len(self._files[fd])   # GDB's struct stat: big-endian, 64 bytes
        stat = struct.pack(">7I3Q3I", 0, 0, 0o100644, 1, 0, 0, 0, size, 4096, (size + 511) // 512, 0, 0, 0)
        return b"F%x;" % len(stat) + stat

    def _reg_hex(self, n: int) -> str:
        if REGISTER_COUNT <= n < REGISTER_COUNT + self.session.profile.tensix.dst_rows:   # $dstN: Dst16b row N, its raw bits
            return self.session.dst(n - REGISTER_COUNT, "raw16").astype("<u2").tobytes().hex()
        if not 0 <= n < REGISTER_COUNT:
            raise ValueError(n)
        return self.session.register(_register_name(n)).to_bytes(4, "little").hex()

    def _set_reg(self, n: int, data: bytes) -> None:
        if REGISTER_COUNT <= n < REGISTER_COUNT + self.session.profile.tensix.dst_rows:
            self.session.set_dst(n - REGISTER_COUNT, np.frombuffer(data, dtype="<u2"), "raw16")
        elif 0 <= n < REGISTER_COUNT:
            self.session.set_register(_register_name(n), int.from_bytes(data, "little"))
        else:
            raise ValueError(n)

    def _monitor(self, command: str) -> str:
        try:
            output = self.session.run_breakable(lambda: self.interp.capture(command), self._breaking, keyboard=False)
        except SystemExit:  # ``quit``: the GDB client decides when the session ends
            output = "quit: use GDB's detach or kill to end the session\n"
        self._console(output)
        return "OK"

    def _console(self, text: str) -> None:
        """Console output (``O`` packets), a packet's worth at a time."""
        data = text.encode()
        for i in range(0, len(data), MAX_READ):
            self.send("O" + data[i: i + MAX_READ].hex())

    def _breaking(self) -> bool:
        """A ``0x03`` came, or the client vanished: what runs is interrupted."""
        return self._break or self._gone

    def _point(self, insert: bool, kind: int, addr: int, length: int) -> str:
        s = self.session
        if kind in (0, 1):
            # with processes a breakpoint is the selected process's (GDB selects it with Hg
            # before Z0); without, the one program GDB knows is every core's
            where = (self._current() if self.multiprocess else None, addr)
            if insert:
                if where not in self._breakpoints:
                    self._breakpoints[where] = s.break_at(addr, thread=s.current if self.multiprocess else None, all_tiles=False).number
            elif where in self._breakpoints:
                if where[0] is not None:
                    self._select(where[0])   # (its tile's, on a chip)
                s.delete(self._breakpoints.pop(where))
            return "OK"
        if kind in (2, 3, 4):
            key = (kind, addr, length)
            if insert:
                watch_kind = {2: "write", 3: "read", 4: "access"}[kind]
                if key not in self._watches:   # one tile-wide watch, however many processes set it
                    self._watches[key] = s.watch(addr, length, watch_kind).number
                owners = self._watch_owners.setdefault(self._watches[key], [])
                if s.current not in owners:
                    owners.append(s.current)
            elif key in self._watches:
                owners = self._watch_owners.get(self._watches[key], [])
                if s.current in owners:
                    owners.remove(s.current)
                if not owners or not self.multiprocess:
                    number = self._watches.pop(key)
                    self._watch_owners.pop(number, None)
                    s.delete(number)
            return "OK"
        return ""

    def _threads(self) -> list[str]:
        """The cores GDB sees as threads: those with firmware (with processes, not one whose
        exit GDB has been told)."""
        return [n for n in self.session.core_names if self.session.has_firmware(n) and n not in self._reported_exits]

    # The stub names a core by a key: its name here; a tile's label and its name on a chip
    # (``tdbg.rsp.hosted``).  These are the only places that turn keys into the session's cores.
    def _current(self) -> str:
        """The selected core's key."""
        return self.session.current

    def _key(self, core: str) -> str:
        """The key of core ``core`` of the selected tile."""
        return core

    def _select(self, key: str) -> None:
        self.session.select_core(key)

    def _files_of(self, key: str) -> list[SymbolFile]:
        return list(self.session.symbol_files.get(key, ()))

    def _program(self, key: str) -> ElfImage | None:
        return self.session.programs.get(key)

    def _status(self, key: str) -> str:
        return self.session.core_status(key)

    def _thread_id(self, core: str) -> str:
        """A core's thread id in packets: ``pPID.1`` (its process, one thread) with the
        multiprocess extensions, else its thread number (hex)."""
        tid = self.session.thread_id(core)
        return f"p{tid:x}.1" if self.multiprocess else f"{tid:x}"

    def _core(self, thread_id: str) -> str:
        """The core of a thread id in a packet (hex ``N``, ``pPID.TID`` or ``pPID``: the process
        names the core; -1/0 mean any: the current core)."""
        text = thread_id.strip()
        if text.startswith("p"):
            text = text[1:].partition(".")[0]
        tid = int(text, 16) if text not in ("-1", "0", "") else 0
        if tid <= 0:
            return self._current()
        name = self.session.core_by_thread(str(tid))
        if name not in self._threads():
            raise ValueError(f"no thread {tid}")
        return name

    def _vcont(self, actions: list[str]) -> str:
        """``vCont``: a step action for a thread steps that core; ``c:N`` with no default
        action runs only core N; otherwise every core runs.  Actions other than the announced
        ``c C s S`` (``t``, ``r``: not supported) are an error, never a plain continue."""
        for action in actions:
            verb = action.partition(":")[0]
            if not verb or verb[0] not in "cCsS" or (verb[0] in "cs" and len(verb) > 1):
                return "E01"
            if verb[0] in "CS":
                int(verb[1:3], 16)
        for action in actions:
            verb, _, tid = action.partition(":")
            if verb[:1] in "sS" and tid:
                self._select(self._core(tid))
                return self._resume(step=True)
        if len(actions) == 1 and actions[0][:1] in "cC" and ":" in actions[0]:
            # one thread, or one process (GDB's default schedule-multiple off continues only the
            # current inferior: vCont;c:pN.-1): only that core runs, the others stay where GDB
            # saw them (their registers stay valid in GDB's caches)
            self._select(self._core(actions[0].partition(":")[2]))
            if actions[0].endswith(".-1") and not self._hinted and len(self._threads()) > 1:
                self._hinted = True
                self._console(f"tdbg: GDB resumes only process {self.session.thread_id(self.session.current)} "
                              f"({self.session.current}); 'set schedule-multiple on' runs every core\n")
            return self._resume(step=False, only=True)
        return self._resume(step=any(a[:1] in "sS" for a in actions))

    def _resume(self, step: bool, only: bool = False) -> str:
        if self.exited:
            return self._exit_reply(None)
        s = self.session
        loaded = None if step else self._unannounced(self._current() if only else None)
        self._loaded = loaded
        if loaded is not None:   # a kernel came: GDB reads its symbols, sets its breakpoints, resumes
            return f"T05thread:{self._thread_id(loaded)};library:;"
        done, self._access_done = self._access_done, None
        if done is not None and (step or only) and self._current() == done:
            # GDB steps the thread over the access that hit its watchpoint (RISC-V triggers fire
            # before it); that access is already done: the thread stays where it is
            return f"T05thread:{self._thread_id(done)};"
        saved = s.scheduler_locking
        try:
            if only:
                s.scheduler_locking = "on"
            stop = s.run_breakable(s.stepi if step else s.cont, self._breaking, keyboard=False)
        finally:
            s.scheduler_locking = saved
        return self._reported(stop)

    def _reported(self, stop: Stop) -> str:
        """The stop reply for ``stop``, what the console says before it sent."""
        if self._tdbg_breakpoint(stop):   # GDB did not insert it: the console says which one stopped
            self._console(self.interp.output_of(lambda: report_stop(self.interp, stop)))
        else:
            self._console(self.interp.output_of(lambda: device_output(self.interp, stop)))   # DPRINT, before the stop
            self.session.announce(stop)
        return self._stop_reply(stop)

    def _tdbg_breakpoint(self, stop: Stop | None) -> bool:
        """True when ``stop`` is a breakpoint GDB did not insert (``monitor break``, ``tbreak``,
        a condition tdbg evaluates): its stop reply carries no ``swbreak``, which would make GDB
        take it for one of its own just removed and resume silently (issue 30 G1)."""
        if stop is None or stop.kind is not StopKind.BREAKPOINT:
            return False
        ours = set(self._breakpoints.values())
        return not any(bp.number in ours for bp in self.session.last_hits)

    def _stop_reply(self, stop: Stop | None) -> str:
        s = self.session
        if stop is None:
            return f"T05thread:{self._thread_id(self._current())};"
        if stop.kind is StopKind.EXITED:
            if self.multiprocess and s.status is not RunStatus.EXITED:   # one core ran (and exited) alone
                return self._exit_reply(stop.core, whole_tile=False)
            self.exited = True
            return self._exit_reply(stop.core)
        thread = f"thread:{self._thread_id(self._key(stop.core))};" if stop.core in s.core_names else ""
        if stop.kind is StopKind.WATCHPOINT and stop.watch is not None:
            return self._watch_reply(stop, thread)
        if stop.kind is StopKind.BREAKPOINT:
            return f"T05{thread}" if self._tdbg_breakpoint(stop) else f"T05{thread}swbreak:;"
        signal = STOP_SIGNALS.get(stop.kind, SIGTRAP)
        if stop.kind is StopKind.HOST:   # the host's account of the run, on GDB's console
            self._console("".join(f"{line}\n" for line in (stop.detail, *stop.report)))
        if signal == SIGILL:   # said on the console, as the shell says it
            text = f"{stop.describe()}\n"
            if stop.waits:   # one entry per blocked core, as the shell reports a hang
                head = "deadlock: no core can run" if stop.kind is StopKind.DEADLOCK else f"{stop.core} waits"
                text = f"Program stopped: {head}.\n" + report_text(self.interp, stop)
            self._console(text)
            if stop.kind is StopKind.EVENT and stop.access:
                signal = SIGSEGV     # an event of a load or store
        return f"T{signal:02x}{thread}"


    def _exit_reply(self, core: str | None, whole_tile: bool = True) -> str:
        """``W`` for the tile's end (every core has exited or parked): without processes the
        highest exit code; with them one process a reply, with its core's exit code (``core``'s
        first, then one for each resume of another process), the whole tile's end said on the
        console as the shell says it."""
        s = self.session
        if not self.multiprocess:
            return f"W{max(s.exit_codes.values(), default=0) & 0xFF:02x}"
        left = self._threads()
        if not left:
            return "W00"
        if whole_tile and core in left and len(left) > 1:
            self._console(f"[All cores finished: {s.finish_summary()}]\n")
        core = core if core in left else left[0]
        self._reported_exits.add(core)
        return f"W{s.exit_codes.get(core, 0) & 0xFF:02x};process:{s.thread_id(core):x}"

    def _watch_reply(self, stop: Stop, thread: str) -> str:
        """``T05 watch:ADDR`` (``rwatch`` / ``awatch``) for a watchpoint hit by a core or by a
        Tensix unit (PACR, an unpacker, MOV*: the stop has no core access; the watched address is
        given).  A core's hit comes before its access (without processes: GDB steps over it); a
        unit's access is done, and so is every access with processes.  With processes the hit is
        reported on the thread of the core that made it (an NC NoC read: NC's) when that core's
        process set the watchpoint too; else on the thread of a process that set it (GDB checks a
        watchpoint only in its own program space, and ignores a hit elsewhere), the console
        saying which core made it, where that core is, and how to stop on its thread.  GDB's step
        over such a done access leaves the thread where it is (``_resume``)."""
        watch = stop.watch
        name = {"write": "watch", "read": "rwatch", "access": "awatch"}[watch.kind]  # type: ignore[union-attr]
        address = stop.access.address if stop.access is not None else watch.address  # type: ignore[union-attr]
        core = stop.core
        if self.multiprocess:
            owners = [c for c in self._watch_owners.get(watch.number, ()) if c in self._threads()]  # type: ignore[union-attr]
            core = stop.core if stop.core in owners or not owners else owners[0]
        if core != stop.core or stop.access is None:
            made = stop.detail or f"{stop.core}: {stop.access.describe()}"  # type: ignore[union-attr]
            where = f"; {stop.core} is at {self.session.describe_pc(stop.core, stop.pc)}" if core != stop.core else ""
            hint = (f" (set the watchpoint in inferior {self.session.thread_id(stop.core)} too to stop on {stop.core}'s thread)"
                    if core != stop.core and self.multiprocess else "")
            self._console(f"[{made}{where}{hint}]\n")
        if self.multiprocess or stop.access is None:
            self._access_done = core
            self.session.select_core(core)
        return f"T05thread:{self._thread_id(core)};{name}:{address:x};"


def serve_stdio(session: Session, allow_host_files: bool = False) -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def write(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    reader = stdin.read1 if hasattr(stdin, "read1") else (lambda n: stdin.read(1))
    RspServer(session, Transport(reader, write), allow_host_files).serve()


def serve_tcp(session: Session, port: int, host: str = "127.0.0.1", ready: Callable[[int], None] | None = None,
              allow_host_files: bool = False) -> None:
    """Accept one client on ``host:port`` (0 picks a free port) and serve it.  The port stops
    listening once the client is accepted: a second client is refused at once, and nothing
    listens after the first leaves.  ``OSError`` when the address cannot be used."""
    with socket.create_server((host, port)) as server:
        if ready is not None:
            ready(server.getsockname()[1])
        conn, _ = server.accept()
    with conn:
        RspServer(session, Transport(conn.recv, conn.sendall), allow_host_files).serve()
