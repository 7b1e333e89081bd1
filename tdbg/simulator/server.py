"""The simulator server: tt-umd's simulation protocol served by a session over a chip's grid.

tt-umd (``rtl_sim_communicator.cpp``, ``simulation_host.cpp``) listens on an NNG pair1 socket,
exports its address as ``NNG_SOCKET_ADDR`` and spawns the folder's ``run.sh``; the simulator dials
it and acknowledges with an EXIT message; then every message is a request (``protocol.Command``):
WRITE and READ by NoC coordinate, ALL_TENSIX_RESET_ASSERT / _DEASSERT for one tile, START, and
EXIT when the host closes the device.  What each is answered with:

- WRITE: the bytes go where a NoC write from the host would (``tdbg.debug.hostport``): a Tensix tile's
  L1 or devices, DRAM, or memory kept for an endpoint tdbg does not model.
- READ: the tiles run until every core waits or is done, then one message carries ``size`` bytes
  (padded to whole words).  A read that cannot be made (nothing at that coordinate, a device that
  refuses it), and a read while the grid hangs (``hostport.Hang``), are answered with no data: the
  host then fails on its own check ("read response size 0 is smaller than requested size").
  So is every read after a stop the front end did not resume (``hostport.Halted``).
- ALL_TENSIX_RESET_ASSERT: every core of the tile held.  ALL_TENSIX_RESET_DEASSERT: BRISC
  released.  tt-umd sends it for whichever cores tt-metal names (for Blackhole it does not say
  which: ``rtl_simulation_tt_device.cpp``); tt-metal releases only BRISC, whose firmware releases
  the others, and tt-umd's libttsim path clears only the named cores' ``SOFT_RESET_0`` bits.
- START: nothing to do (tdbg runs the tiles when the host reads).
- Any other command (Quasar's NEO data-movement resets, SMN, AXI notifications): an
  ``UnimplementedFunctionality`` line on stderr; one that expects an answer gets one with no data.

``pynng`` is imported here only, so the command line does not pay for it.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import numpy as np

from tdbg.errors import SessionError
from tdbg.simulator.protocol import BadMessage, Command, Message, decode, encode

_ANSWERED = {Command.READ, Command.SMN_READ}


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address (unresolvable: False)."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def dial_host(address: str, allow_remote: bool) -> str:
    """The host part of ``NNG_SOCKET_ADDR`` (``tcp://HOST:PORT``), checked: a host that is not
    loopback is refused unless ``allow_remote``."""
    parts = urlsplit(address)
    if parts.scheme != "tcp" or not parts.hostname or parts.port is None:
        raise SessionError(f"NNG_SOCKET_ADDR {address!r} is not tcp://HOST:PORT")
    if not allow_remote and not is_loopback(parts.hostname):
        raise SessionError(f"NNG_SOCKET_ADDR {address!r} is not a loopback address: set TT_SIMULATOR_LOCALHOST=1 "
                           "before the script starts, or let tdbg dial it with --simulator-remote")
    return parts.hostname


class Server:
    """Answers one host's requests with ``session.host_port``; ``note`` gets each line for the
    user (stderr by default), ``on_hang`` the hang (the front end reports it)."""

    def __init__(self, session, note: Callable[[str], None] | None = None,
                 on_hang: Callable[[object], None] | None = None) -> None:
        if session.host_port is None:
            raise SessionError("the simulator server needs a session over a chip (Session.on_chip)")
        self.session, self.port = session, session.host_port
        self.note = note or (lambda line: print(f"tdbg: {line}", file=sys.stderr, flush=True))
        self.on_hang = on_hang or (lambda hang: None)
        self.counts: dict[str, int] = {}
        #: Each command's requests served: how many, and the seconds spent decoding them,
        #: answering (the run of the tiles included: ``HostPort.runs``), encoding and sending the reply.
        self.seconds: dict[str, list[float]] = {}
        self.trace: Callable[[bytes], None] | None = None   # told of each message received
        self.idle: Callable[[], None] = lambda: None   # called while no message comes (every 0.5 s)
        self.gone = threading.Event()   # the host's connection closed
        self.halt_told = False

    def answer(self, message: Message) -> Message | None:
        """The reply to ``message`` (None: none is sent); EXIT raises ``StopIteration``."""
        from tdbg.debug.hostport import Halted, Hang

        self.counts[message.name] = self.counts.get(message.name, 0) + 1
        where = message.core
        try:
            if message.command == Command.WRITE:
                self.port.write(where, message.address, message.payload)
            elif message.command == Command.READ:
                data = self.port.read(where, message.address, message.size)
                words = np.frombuffer(data + bytes(-len(data) % 4), dtype="<u4")
                return Message(Command.READ, words, where, message.address, message.size)
            elif message.command in (Command.ALL_TENSIX_RESET_ASSERT, Command.ALL_TENSIX_RESET_DEASSERT):
                self.port.hold(where, message.command == Command.ALL_TENSIX_RESET_ASSERT)
            elif message.command == Command.EXIT:
                raise StopIteration
            elif message.command != Command.START:
                self.note(f"UnimplementedFunctionality: tt-umd's {message.name} (tile {where[0]},{where[1]}, "
                          f"address {message.address:#x}) is not modelled by tdbg")
                if message.command in _ANSWERED:
                    return Message(message.command, core=where, address=message.address)
        except Hang as hang:
            self.on_hang(hang)
            return Message(message.command, core=where, address=message.address)
        except Halted as halted:
            if not self.halt_told:
                self.note(f"{halted}; the host's reads get no data from now on")
                self.halt_told = True
            return Message(message.command, core=where, address=message.address)
        except SessionError as exc:
            self.note(f"{message.name} of {message.size} bytes at {message.address:#x} in {where[0]},{where[1]}: {exc}")
            if message.command in _ANSWERED:
                return Message(message.command, core=where, address=message.address)
        return None

    def serve(self, address: str, allow_remote: bool = False) -> int:
        """Dial the host at ``address``, acknowledge, answer until it sends EXIT or goes away
        (its connection closed: a host that died leaves no server behind)."""
        import pynng

        dial_host(address, allow_remote)
        gone = self.gone
        with pynng.Pair1(recv_timeout=500, send_timeout=500) as sock:
            sock.add_post_pipe_remove_cb(lambda pipe: gone.set())
            sock.dial(address, block=False)        # tt-umd starts listening after it spawned us
            sock.send(encode(Message(Command.EXIT)))
            while True:
                try:
                    raw = sock.recv()
                except pynng.exceptions.Timeout:
                    if gone.is_set():
                        self.note("the host closed the connection")
                        return 0
                    self.idle()
                    continue
                except pynng.exceptions.Closed:
                    return 0
                if self.trace is not None:
                    self.trace(raw)
                started = time.perf_counter()
                try:
                    message = decode(raw)
                except BadMessage as exc:
                    self.note(str(exc))
                    continue
                decoded = time.perf_counter()
                try:
                    reply = self.answer(message)
                except StopIteration:
                    return 0
                answered = time.perf_counter()
                sent = reply is None or self._send(sock, encode(reply))
                spent = self.seconds.setdefault(message.name, [0, 0.0, 0.0, 0.0])
                spent[0] += 1
                spent[1] += decoded - started
                spent[2] += answered - decoded
                spent[3] += time.perf_counter() - answered
                if not sent:
                    return 0

    def describe_seconds(self) -> str:
        """Each command's mean cost per request, in parts: "READ 278: decode 3, answer 12,
        reply 9 us; ..." (a READ's answer without the run of the tiles, ``HostPort.runs``)."""
        out = []
        for name, (n, decoding, answering, replying) in sorted(self.seconds.items()):
            if name == Command.READ.name:
                answering -= sum(self.port.runs)
            out.append(f"{name} {n}: decode {decoding / n * 1e6:.0f}, answer {answering / n * 1e6:.0f}, "
                       f"reply {replying / n * 1e6:.0f} us")
        return "; ".join(out)

    def _send(self, sock, data: bytes) -> bool:
        """Send ``data`` to the host; False when the host went away meanwhile (a send to no peer
        would wait for ever)."""
        import pynng

        while True:
            try:
                sock.send(data)
                return True
            except pynng.exceptions.Timeout:
                if self.gone.is_set():
                    self.note("the host closed the connection")
                    return False
