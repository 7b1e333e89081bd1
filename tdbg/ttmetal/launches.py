"""What the user's tt-metal host launched, as the simulator server sees it: each go message the
host sends a tile, with the launch message it wrote before it, read as that tile's firmware will
read it (``launch_msg_t`` in ``hostdev/dev_msgs.h``, field by field from the firmware's DWARF).

tt-metal 0.81.1 in slow dispatch (measured with tt-umd's simulation protocol on ``ttnn.add``)
writes, per program and tile: each kernel's runtime arguments in one write at
``kernel_config_base + rta_offset[p].rta_offset`` (the common ones likewise at ``crta_offset``),
the CB configurations, each kernel's binary at ``kernel_config_base + kernel_text_offset[p]``,
``launch[0]`` word by word, then ``go_messages[0]`` with ``signal = RUN_MSG_GO``.  The launch
message has no argument counts (only a watcher build of the firmware puts a count before the
arguments), so a kernel's arguments are the words of the host's last write at that address since
the tile's previous launch; ``RTA_CRTA_NO_ARGS_SENTINEL`` (``hostdev/rta_constants.h``) marks none,
and so does a common-argument offset that is some kernel's runtime-argument offset (measured:
kernels without common arguments get offset 0, where the first kernel's arguments are).
``p`` indexes ``TensixProcessorTypes``: DM0 (B), DM1 (NC), MATH0-2 (T0-T2); bit ``p`` of
``enables`` says the processor runs a kernel.  A local CB ``n`` (bit ``n`` of ``local_cb_mask``)
is described at ``kernel_config_base + local_cb_offset + 16 n`` by four words: address, size,
pages, page size in bytes (``UINT32_WORDS_PER_LOCAL_CIRCULAR_BUFFER_CONFIG``, ``internal/
circular_buffer_init.h``).

A stop on a tile waits (``HostPort.defer_stop``) until the host's own print server has read what
the tile's kernels printed (``tdbg.ttmetal.dprint`` names the buffer's words): their lines, which
the host prints, then come before tdbg's report of the stop.  The print server's polls of its
buffers (each one it set up by writing a starting or disabled magic word and zeros: a tile's
``dprint_buf``, and one in a DRAM endpoint at 0x40, measured) are no sign the host waits for the
device (``HostPort.background``).  A hang on a tile is reported in
tt-metal's terms (``explain``, ``tdbg.ttmetal.hang``) from the tile's latest launch, with the
watcher's state: each core's waypoint, and an ASSERT a watcher build (``TT_METAL_WATCHER``) tripped.
A tripped ASSERT stops the run as soon as its tile settles (``tripped``), before the host's
watcher, which polls about once a second, sees it and ends the script.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tdbg.arch.profile import Coord
from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError
from tdbg.ttmetal.dprint import RESET_MAGIC, SERVER_MAGICS, WRITE_STALL_FLAG
from tdbg.ttmetal.mailboxes import DEBUG_ASSERT_TYPES, RUN_MSG_DONE, RUN_MSG_GO, Mailboxes
from tdbg.ttmetal.memmap import MAILBOX_BASE, MAILBOX_END
from tdbg.ttmetal.program import DEVICE_ASSERT, CircularBuffer, assert_site

if TYPE_CHECKING:
    from tdbg.debug.hostport import HostPort
    from tdbg.session import Session
    from tdbg.ttmetal.jit_output import Binary

PROCESSORS = ("B", "NC", "T0", "T1", "T2")     # TensixProcessorTypes' order
NO_ARGS = 0xFFFF                               # RTA_CRTA_NO_ARGS_SENTINEL
CB_CONFIG_WORDS = 4
_LAUNCH = "launch[0].kernel_config"
PRINT_WPOS, PRINT_RPOS = "dprint_buf.buffer.aux.wpos", "dprint_buf.buffer.aux.rpos"   # tdbg.ttmetal.dprint


@dataclass(frozen=True)
class KernelLaunch:
    """One processor's kernel in a launch: the binary the host wrote there (None: no binary
    tdbg knows), where its code and arguments are, the arguments."""

    core: str
    binary: Binary | None
    text_at: int
    text_size: int
    rta_at: int | None
    rtas: tuple[int, ...]
    crta_at: int | None
    crtas: tuple[int, ...]
    watcher_id: int

    @property
    def name(self) -> str:
        return self.binary.name if self.binary is not None else f"kernel at {self.text_at:#x}"


@dataclass(frozen=True)
class CbConfig:
    """A local CB as the launch configures it (bytes)."""

    index: int
    address: int
    size: int
    pages: int
    page_size: int


@dataclass(frozen=True)
class Launch:
    """One go message to one tile: the ``number``-th the host sent the chip, its program's
    ``host_id`` (``host_assigned_id``), the kernels and CBs it launched there."""

    number: int
    tile: Coord
    host_id: int
    config_base: int
    kernels: tuple[KernelLaunch, ...]
    cbs: tuple[CbConfig, ...]

    def kernel(self, core: str) -> KernelLaunch | None:
        return next((k for k in self.kernels if k.core == core), None)

    def runs_kernel(self, core: str, pc: int) -> bool:
        """True when ``pc`` is in the code of ``core``'s kernel of this launch."""
        k = self.kernel(core)
        return k is not None and k.text_at <= pc < k.text_at + max(k.text_size, len(k.binary.text) if k.binary else 0)


@dataclass
class Launches:
    """Every launch the host made, in order, kept by watching its writes (``HostPort.write``)."""

    session: Session
    port: HostPort
    log: list[Launch] = field(default_factory=list)
    written: dict[Coord, dict[int, int]] = field(default_factory=dict)   # tile -> address -> bytes last written
    fields: dict[str, tuple[int, int]] | None = None    # mailbox path -> (address, size)
    #: The firmware's mailboxes, their fields found once (an expression looks up its names in
    #: every symbol file: the kernels' would be moved to their load address at each launch)
    mailboxes: Mailboxes | None = None
    #: Each endpoint's print buffers (address, bytes) as the host's print server set them up
    print_buffers: dict[Coord, set[tuple[int, int]]] = field(default_factory=dict)
    unknown: set[tuple[Coord, str]] = field(default_factory=set)   # (tile, core) warned of a kernel no build

    def wrote(self, where: Coord, address: int, data: bytes) -> None:
        """The host wrote ``data`` at ``where``: remembered; a go message records the launch;
        a print buffer set up is kept."""
        if len(data) >= 4 and int.from_bytes(data[:4], "little") in SERVER_MAGICS and not data[4:].strip(b"\0"):
            self.print_buffers.setdefault(where, set()).add((address, len(data)))
        if where not in self.port.grid.chip.noc.tensix or address >= self.port.grid.profile.l1_size:
            return
        self.written.setdefault(where, {})[address] = len(data)
        if MAILBOX_BASE <= address < MAILBOX_END and len(data) == 4 and data[3] == RUN_MSG_GO:
            fields = self._fields(where)
            if fields is not None and address == fields["go_messages[0]"][0]:
                launch = self._launch(where, fields)
                self.log.append(launch)
                self.written[where] = {}
                self._unknown_kernels(launch)

    def _unknown_kernels(self, launch: Launch) -> None:
        """Warn, once per tile and core, of a kernel launched that is no binary the host built
        that tdbg found (its builds are elsewhere: another machine, another cache folder)."""
        for k in launch.kernels:
            if k.binary is None and (launch.tile, k.core) not in self.unknown:
                self.unknown.add((launch.tile, k.core))
                jit = self.port.jit
                x, y = launch.tile
                self.port.target.warn(
                    f"tile {x},{y}: the host launched {k.core}'s kernel at {k.text_at:#x}, which is no build tdbg found "
                    f"in {jit.folder if jit is not None else 'the host builds (none are read)'}: tdbg does not know its "
                    f"code, which may not run as on the device, nor its symbols (tdbg reads the builds where the host "
                    f"makes them: TT_METAL_CACHE, on this machine)")

    def polls_prints(self, where: Coord, address: int, n: int) -> bool:
        """True when a read of ``n`` bytes at ``address`` is within one of ``where``'s print buffers."""
        return any(at <= address and address + n <= at + size for at, size in self.print_buffers.get(where, ()))

    def last(self, where: Coord | None) -> Launch | None:
        """The latest launch on tile ``where``."""
        return next((launch for launch in reversed(self.log) if launch.tile == where), None)

    def unread_prints(self, where: Coord) -> bool:
        """True while tile ``where``'s print buffer holds messages the host's print server has not
        read (its write position past its read position, and neither a magic word the server
        writes when it starts, or for a tile it does not serve)."""
        fields = self.fields
        if fields is None or where not in self.port.grid.tiles:
            return False
        wpos, rpos = (self._value(where, fields, path) for path in (PRINT_WPOS, PRINT_RPOS))
        if wpos in SERVER_MAGICS or rpos == RESET_MAGIC:
            return False
        return wpos & ~WRITE_STALL_FLAG != rpos

    def cb_table(self, launch: Launch) -> dict[int, tuple[CircularBuffer, int]]:
        """``launch``'s CBs (with the data formats its kernels were built for) and their addresses."""
        formats: dict[int, str] = {}
        for k in launch.kernels:
            if k.binary is not None:
                formats.update(k.binary.cb_formats)
        return {cb.index: (CircularBuffer(cb.index, cb.pages, cb.page_size, formats.get(cb.index, "format unknown")),
                           cb.address) for cb in launch.cbs}

    # -- reading the launch message -----------------------------------------------------------------
    def _fields(self, where: Coord) -> dict[str, tuple[int, int]] | None:
        """The mailbox fields read, from the firmware's DWARF on ``where``'s BRISC (None: no
        firmware symbols there yet)."""
        if self.fields is not None:
            return self.fields
        session = self.session
        paths = ["go_messages[0]", "launch_msg_rd_ptr", PRINT_WPOS, PRINT_RPOS] + [f"{_LAUNCH}.{name}" for name in (
            "kernel_config_base[0]", "local_cb_offset", "local_cb_mask", "enables", "host_assigned_id")]
        for p in range(len(PROCESSORS)):
            paths += [f"{_LAUNCH}.rta_offset[{p}].rta_offset", f"{_LAUNCH}.rta_offset[{p}].crta_offset",
                      f"{_LAUNCH}.kernel_text_offset[{p}]", f"{_LAUNCH}.kernel_text_size[{p}]",
                      f"{_LAUNCH}.watcher_kernel_ids[{p}]"]
        selected = session.tile_coord
        session.select_tile(where)
        try:
            mailboxes = Mailboxes(session)
            found = {}
            for path in paths:
                f = mailboxes.field(path)
                found[path] = (f.address, f.size)
        except SessionError:
            return None
        finally:
            if selected is not None:
                session.select_tile(selected)
        launch_size = mailboxes.field("launch[1]").address - mailboxes.field("launch[0]").address
        found["launch stride"] = (launch_size, 0)
        self.fields = found
        return found

    def _value(self, where: Coord, fields: dict[str, tuple[int, int]], path: str, entry: int = 0) -> int:
        address, size = fields[path]
        if path.startswith("launch[0]"):
            address += entry * fields["launch stride"][0]
        return int.from_bytes(self.port.grid.read(where, address, size), "little")

    def _words(self, where: Coord, address: int, count: int) -> tuple[int, ...]:
        raw = self.port.grid.read(where, address, 4 * count) if count else b""
        return struct.unpack(f"<{count}I", raw)

    def _args(self, where: Coord, base: int, offset: int) -> tuple[int | None, tuple[int, ...]]:
        if offset == NO_ARGS:
            return None, ()
        at = base + offset
        return at, self._words(where, at, self.written.get(where, {}).get(at, 0) // 4)

    def _launch(self, where: Coord, fields: dict[str, tuple[int, int]]) -> Launch:
        entry = self._value(where, fields, "launch_msg_rd_ptr")
        value = lambda name: self._value(where, fields, f"{_LAUNCH}.{name}", entry)   # noqa: E731
        base = value("kernel_config_base[0]")
        enables = value("enables")
        loaded = self.port.loaded
        kernels = []
        running = [p for p in range(len(PROCESSORS)) if enables >> p & 1]
        rta_offsets = {value(f"rta_offset[{p}].rta_offset") for p in running}
        for p in running:
            core = PROCESSORS[p]
            text_at = base + value(f"kernel_text_offset[{p}]")
            rta_at, rtas = self._args(where, base, value(f"rta_offset[{p}].rta_offset"))
            crta_offset = value(f"rta_offset[{p}].crta_offset")   # where a kernel's runtime args are: none
            crta_at, crtas = self._args(where, base, NO_ARGS if crta_offset in rta_offsets else crta_offset)
            kernels.append(KernelLaunch(core, loaded.get((where, core), {}).get(text_at), text_at,
                                        value(f"kernel_text_size[{p}]"), rta_at, rtas, crta_at, crtas,
                                        value(f"watcher_kernel_ids[{p}]")))
        mask, cb_at = value("local_cb_mask"), base + value("local_cb_offset")
        cbs = []
        for n in range(mask.bit_length()):
            if mask >> n & 1:
                address, size, pages, page_size = self._words(where, cb_at + 4 * CB_CONFIG_WORDS * n, CB_CONFIG_WORDS)
                cbs.append(CbConfig(n, address, size, pages, page_size))
        return Launch(len(self.log) + 1, where, value("host_assigned_id"), base, tuple(kernels), tuple(cbs))


@dataclass
class TileHost:
    """The host of ``launch`` on its tile (selected in ``session``), as ``tdbg.ttmetal.hang``
    reports a hang: the cores with kernels, where their code is, the mailboxes."""

    session: Session
    launch: Launch
    mailboxes: Mailboxes | None = None     # the firmware's (default: found anew)

    def __post_init__(self) -> None:
        self.mailboxes = self.mailboxes or Mailboxes(self.session)
        self.binaries = {k.core: k.binary for k in self.launch.kernels}

    def runs_kernel(self, core: str, pc: int) -> bool:
        return self.launch.runs_kernel(core, pc)

    def signal(self, session: Session) -> int:
        return self.mailboxes.read("go_messages[0].signal")

    def assertion(self) -> Stop | None:
        """A tripped ASSERT (a watcher build's ``assert_and_hang``: the line and the processor in
        ``mailboxes.watcher.assert_status``, then a loop forever) as the stop that names it, at
        the core that tripped it; None when none has."""
        line, kind, which = (self.mailboxes.read(f"watcher.assert_status.{m}") for m in ("line_num", "tripped", "which"))
        if kind not in DEBUG_ASSERT_TYPES or which >= len(PROCESSORS):
            return None
        core = PROCESSORS[which]
        k = self.launch.kernel(core)
        source = k.binary.source if k is not None and k.binary is not None else None
        with self.session.on_core(core):
            pc = self.session.register("pc")
        site = assert_site(self.session, core, pc, line, source.rsplit("/", 1)[-1] if source else None)
        x, y = self.launch.tile
        return Stop(StopKind.HOST, core, pc,
                    detail=f"{DEVICE_ASSERT}: tile {x},{y} {core} tripped ASSERT at {site} ({DEBUG_ASSERT_TYPES[kind]})",
                    report=(f"  {core} hangs in assert_and_hang, at {self.session.describe_pc(core, pc)}",
                            "  waypoints: " + ", ".join(f"{c} {text!r}" for c, text in waypoints(self.session, self).items())))


def waypoints(session: Session, host: TileHost) -> dict[str, str]:
    from tdbg.ttmetal.hang import waypoints as read

    return read(session, host)   # type: ignore[arg-type]


def tripped(launches: Launches, where: Coord) -> Stop | None:
    """The ASSERT a kernel of tile ``where`` (selected) has tripped, as a stop; None when none has
    (or the host has launched nothing there)."""
    launch = launches.last(where)
    if launch is None:
        return None
    try:
        launches.mailboxes = launches.mailboxes or Mailboxes(launches.session)
        return TileHost(launches.session, launch, launches.mailboxes).assertion()
    except SessionError:
        return None


def explain(launches: Launches, where: Coord, stop: Stop) -> Stop | None:
    """A deadlock on tile ``where`` (selected) in tt-metal's terms (``tdbg.ttmetal.hang``: CB waits
    and their other side, the waypoints) with a tripped ASSERT named; None for a tile that is done
    (``RUN_MSG_DONE``, every core polling its mailboxes: it waits for the host, it does not hang);
    as it was where the host has launched nothing there, or the tile's firmware cannot be read."""
    from tdbg.ttmetal import cbs, hang

    launch = launches.last(where)
    if launch is None:
        return stop
    session = launches.session
    try:
        host = TileHost(session, launch)
        if host.signal(session) == RUN_MSG_DONE and all(hang.waits_for_host(session, c) for c in host.binaries):
            return None
        states = cbs.states_of(session, launches.cb_table(launch), launch.runs_kernel, list(host.binaries))
        explained = hang.report(session, host, stop, states)   # type: ignore[arg-type]
        asserted = host.assertion()
    except SessionError:
        return stop
    if asserted is not None:
        explained = replace(explained, report=(*explained.report, f"  {asserted.detail}"))
    return explained


def attach(session: Session) -> Launches:
    """Watch the host's writes on ``session``'s chip (the simulator server's session)."""
    port = session.host_port
    if port is None:
        raise SessionError("this session serves no host (tdbg simulator)")
    launches = Launches(session, port)
    port.write_listeners.append(launches.wrote)
    port.defer_stop = launches.unread_prints
    port.explain_hang = lambda where, stop: explain(launches, where, stop)
    port.tripped = lambda where: tripped(launches, where)
    port.background = launches.polls_prints
    port.launches = launches
    return launches


def of(session: Session) -> Launches | None:
    """The launches of ``session``'s host, where it serves one."""
    port = session.host_port
    return getattr(port, "launches", None) if port is not None else None
