"""The GDB stub on a chip a host drives (``tdbg simulator``'s ``--gdb-port``): the user's tt-metal
host runs the device, GDB stops and resumes it.

The host's requests run the tiles (``tdbg.debug.hostport``); GDB's ``continue`` hands the run
back to the host, and the next stop on any tile (a breakpoint, an event, a hang) is the
continue's stop reply, while the host waits for its read.  Stepping runs the selected tile's cores only (the host
waits).  Every core of every modelled tile is a GDB process of one thread (GDB's multiprocess
extensions: one inferior per core per tile), numbered by the tile's place in the chip's worker
list (``pid = 5 * tile + core + 1``: tile (1,2)'s T0 is 1, tile (2,2)'s T0 is 6 on the 1x2 chip)
and named ``X,Y:CORE`` (``info threads``: ``Thread 6.1 (2,2:T0 stopped)``).  The firmware the
host loads on a core is that process's program (GDB takes the architecture from it); its kernels
are the process's libraries, announced by a ``library`` stop before the run that follows their
load.  ``detach`` lets the host run on without GDB; ``kill`` ends the device's run: the host's
reads get no data and the script ends with tt-umd's error; the host's end (its EXIT) is the exit
of the current process, and the connection closes."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tdbg.arch.chips import parse_coord
from tdbg.arch.profile import Coord
from tdbg.emu.elf import ElfImage
from tdbg.debug import Stop, StopKind
from tdbg.rsp.server import MAX_OPEN_FILES, Resumed, RspServer, Transport
from tdbg.session import Session, SymbolFile


class HostedRspServer(RspServer):
    """``RspServer`` over a chip's grid: keys are ``X,Y:CORE``; a continue is the host's."""

    def __init__(self, session: Session, transport: Transport, allow_host_files: bool = False) -> None:
        super().__init__(session, transport, allow_host_files)
        self.killed = False
        self._fs: str | None = None   # the process whose files vFile opens (vFile:setfs)
        self._one_core = False        # the resume asked for runs one core (``_vcont``)
        self._hinted = True           # (GDB's continue of one process resumes the host: every core)

    # -- keys -----------------------------------------------------------------------------------
    @contextmanager
    def _on_tile(self, where: Coord) -> Iterator[None]:
        s = self.session
        selected, core = s.tile_coord, s.current
        s.select_tile(where)
        try:
            yield
        finally:
            if selected is not None and selected != where:
                s.select_tile(selected)
                s.current = core

    @staticmethod
    def _split(key: str) -> tuple[Coord, str]:
        where, _, name = key.rpartition(":")
        return parse_coord(where), name

    def _current(self) -> str:
        return self.session.core_label(self.session.current)

    def _key(self, core: str) -> str:
        return self.session.core_label(core)

    def _select(self, key: str) -> None:
        where, name = self._split(key)
        self.session.select_tile(where)
        self.session.select_core(name)

    def _loaded_files(self, key: str) -> tuple[SymbolFile | None, list[SymbolFile]]:
        """Core ``key``'s firmware (the host's, known by ``host_port``) and its other code."""
        where, name = self._split(key)
        port = self.session.host_port
        binaries = port.loaded.get((where, name), {}).values()   # type: ignore[union-attr]
        firmware = {b.elf.resolve() for b in binaries if b.kind == "firmware"}
        with self._on_tile(where):
            files = list(self.session.symbol_files.get(name, ()))
        main = next((f for f in files if f.image.path.resolve() in firmware), None)
        return main, [f for f in files if f is not main]

    def _files_of(self, key: str) -> list[SymbolFile]:
        """The kernels: GDB's libraries of the core's process."""
        return self._loaded_files(key)[1]

    def _program(self, key: str) -> ElfImage | None:
        """The firmware: the process's exec file (GDB takes the architecture from it)."""
        main = self._loaded_files(key)[0]
        return None if main is None else main.image

    def _status(self, key: str) -> str:
        where, name = self._split(key)
        with self._on_tile(where):
            return self.session.core_status(name)

    def _threads(self) -> list[str]:
        """Every core that has code, of every tile the host released a core of."""
        s, keys = self.session, []
        for where in s.grid.chip.workers:   # type: ignore[union-attr]
            if where in s.grid.tiles:       # type: ignore[union-attr]
                with self._on_tile(where):
                    keys += [s.core_label(n) for n in s.core_names if s.has_firmware(n)]
        return [k for k in keys if k not in self._reported_exits]

    def _pid(self, key: str) -> int:
        where, name = self._split(key)
        names = self.session.core_names
        tile = self.session.grid.chip.workers.index(where)   # type: ignore[union-attr]
        return tile * len(names) + names.index(name) + 1

    def _thread_id(self, core: str) -> str:
        pid = self._pid(core)
        return f"p{pid:x}.1" if self.multiprocess else f"{pid:x}"

    def _core(self, thread_id: str) -> str:
        text = thread_id.strip()
        if text.startswith("p"):
            text = text[1:].partition(".")[0]
        pid = int(text, 16) if text not in ("-1", "0", "") else 0
        if pid <= 0:
            return self._current()
        key = next((k for k in self._threads() if self._pid(k) == pid), None)
        if key is None:
            raise ValueError(f"no thread {pid}")
        return key

    # -- files ----------------------------------------------------------------------------------
    def _setfs(self, pid: int) -> str:
        self._fs = self._core(f"p{pid:x}") if pid else None
        return "F0"

    def _max_open_files(self) -> int:
        return MAX_OPEN_FILES * max(len(self._threads()), 1)   # as many per process as one tile's stub

    def _openable(self) -> dict[str, bytes]:
        """The symbol files of vFile's process (``setfs``), else of the selected core's tile."""
        where, _ = self._split(self._fs or self._current())
        with self._on_tile(where):
            return super()._openable()

    # -- run control ------------------------------------------------------------------------------
    def handle(self, packet: bytes) -> str | bytes | None:
        if packet[:1] == b"k" or packet.startswith(b"vKill"):
            self.killed = True
        return super().handle(packet)

    def handle_packets(self) -> bool:
        return super().handle_packets() and not self.killed

    def _vcont(self, actions: list[str]) -> str:
        """A step, or a continue of one thread (``c:pN.1``: GDB's step over a breakpoint, which
        RISC-V makes with a breakpoint after it), runs that tile while the host waits; any
        other continue (``c``, ``c:pN.-1``) is the host's."""
        one = actions[0] if len(actions) == 1 else ""
        self._one_core = one[:1] in "cC" and ":" in one and not one.endswith(".-1")
        return super()._vcont(actions)

    def _continue(self, addr: int | None, step: bool) -> str:
        self._one_core = False
        return super()._continue(addr, step)

    def _resume(self, step: bool, only: bool = False) -> str:
        if step or (only and self._one_core):
            return super()._resume(step, only)
        raise Resumed

    def _interrupt(self) -> None:
        self.session.interrupt()   # the tile that runs stops at once, one that waits when it next runs

    def reply(self, text: str) -> None:
        """Send the resume's (deferred) reply: the packet is answered."""
        self.send(text)
        self._done()


class HostedGdb:
    """The GDB stub of a session a host drives: bound to ``port`` of ``host`` (``note`` says
    where), listens for and takes GDB's connection when the host has loaded its first kernel (``attach``: the host
    waits; ``host_gone`` ends the wait when the host dies first), and gives GDB each stop until
    GDB leaves."""

    def __init__(self, session: Session, port: int, host: str = "127.0.0.1",
                 note: Callable[[str], None] = lambda line: print(f"tdbg: {line}", file=sys.stderr, flush=True),
                 allow_host_files: bool = False, host_gone: Callable[[], bool] = lambda: False) -> None:
        self.session, self.note, self.allow_host_files, self.host_gone = session, note, allow_host_files, host_gone
        # bound now (the port is known), listening only from ``attach``: GDB connecting while the host
        # still boots the device is refused at once, where a connection left waiting would time out
        # in GDB's handshake (measured on the full chip: "Ignoring packet error", then no program)
        self.listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.port = self.listener.getsockname()[1]
        self.server: HostedRspServer | None = None
        self.resumed = False     # GDB waits for a stop reply
        note(f"GDB stub on {host}:{self.port}: it takes gdb-multiarch once the host has loaded its first kernel "
             f"(\"waiting for GDB\"; a connection before that is refused): target remote {host}:{self.port}")

    @property
    def attached(self) -> bool:
        return self.server is not None

    def attach(self) -> None:
        """Wait for GDB (the host waits too) and serve it until it continues."""
        host, port = self.listener.getsockname()[:2]
        self.listener.listen(1)
        self.note(f"the host has loaded its first kernel: waiting for GDB on {host}:{port}")
        self.listener.settimeout(0.5)
        while True:
            try:
                conn, _ = self.listener.accept()
                break
            except TimeoutError:
                if self.host_gone():
                    return
        self.listener.close()
        conn.settimeout(None)
        self.conn = conn
        self.server = HostedRspServer(self.session, Transport(conn.recv, conn.sendall), self.allow_host_files)
        self.server.start_reading()
        self._serve()

    def _serve(self) -> bool:
        """Packets until GDB resumes (True) or leaves (False: detached, killed or gone)."""
        server = self.server
        assert server is not None
        self.resumed = server.handle_packets()
        if self.resumed:
            return True
        self.server = None
        for (key, _), number in server._breakpoints.items():   # GDB gone: its breakpoints too
            if key is not None:
                server._select(key)
                if number in self.session.breakpoints:
                    self.session.delete(number)
        if server.killed:
            self.note("GDB killed the device's run: the host's reads get no data from now on")
        return not server.killed

    def libraries(self) -> None:
        """Before the host's device runs: a ``library`` stop for each core whose code changed."""
        while self.server is not None and self.resumed:
            key = self.server._unannounced(None)
            if key is None:
                return
            self.server._loaded = key
            self.server.reply(f"T05thread:{self.server._thread_id(key)};library:;")
            self._serve()

    def stopped(self, stop: Stop, preface: str = "") -> bool:
        """A stop on the selected tile (``preface``: said on GDB's console first): GDB's, until
        it resumes (True) or kills (False)."""
        server = self.server
        assert server is not None
        self.session.clear_interrupt()
        if preface:
            server._console(preface)
        server.reply(server._reported(stop))
        return self._serve()

    def interrupted(self) -> Stop | None:
        """While the host sends nothing (it computes, or waits for the user): the stop of a
        0x03 GDB sent while the host had the device (the selected core's), else None."""
        server = self.server
        if server is None or not self.resumed or not server._breaking():
            return None
        return Stop(StopKind.INTERRUPTED, self.session.current, self.session.pc)

    def ended(self) -> None:
        """The host closed the device: every process has exited."""
        if self.server is not None and self.resumed:
            self.server._console("tdbg: the host closed the device\n")
            self.server.reply(f"W00;process:{self.server._pid(self.server._current()):x}")
        if self.server is not None:
            self.conn.close()
        else:
            self.listener.close()
