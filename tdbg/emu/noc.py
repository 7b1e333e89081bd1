"""The NoC, functionally: the endpoints the requests of this tile's NIUs (NoC 0 and NoC 1,
``tdbg.emu.devices.niu``: the registers, the request types, the counters) reach, and the log of
those requests.

A request is done when software writes ``NOC_CMD_CTRL``, as in ttsim (no cycle model): the
data has moved and every counter ``Counters.md`` lists for the request type shows the completed
request, so ``NOC_CMD_CTRL`` always reads 0 and nothing is outstanding.  Endpoints: this tile
(L1 and the devices the map's "NoC" column gives, through the tile), every other Tensix tile's
L1 and the DRAM channels as memory that costs what is written (``SparseMemory``); the PCIe,
ARC and Ethernet tiles, and a coordinate where nothing is, stop the request by name.  In a grid
(``tdbg.emu.grid``) the other Tensix tiles are the grid's: ``fabric`` gives each one's L1 and
devices as it gives this tile's, or its memory while it holds no running core.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.arch.profile import Coord, NocSpec
from tdbg.tensix.state_description import StateDescription, value
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.devices.niu import Niu

_MAP = "NoC/MemoryMap.md"


#: NoC requests ``info noc requests`` keeps, newest last (the log of a long run is bounded).
LOG_KEPT = 10_000


class SparseMemory:
    """``size`` bytes of memory that cost what has been written: 1 KiB pages made at the first
    write (a 64-byte DRAM write costs 1 KiB, not a large page); what was never written reads as
    zero."""

    PAGE = 1 << 10

    def __init__(self, size: int) -> None:
        self.size = size
        self.pages: dict[int, bytearray] = {}

    def _check(self, address: int, n: int, what: str) -> None:
        if address < 0 or address + n > self.size:
            raise UndefinedBehavior(f"{_MAP}: a {n}-byte {what} at {address:#x} is past the endpoint's {self.size:#x} bytes")

    def read(self, address: int, n: int) -> bytes:
        self._check(address, n, "read")
        out = bytearray()
        while len(out) < n:
            at = address + len(out)
            page, offset = divmod(at, self.PAGE)
            take = min(n - len(out), self.PAGE - offset)
            data = self.pages.get(page)
            out += data[offset:offset + take] if data is not None else bytes(take)
        return bytes(out)

    def write(self, address: int, data: bytes) -> None:
        self._check(address, len(data), "write")
        done = 0
        while done < len(data):
            page, offset = divmod(address + done, self.PAGE)
            take = min(len(data) - done, self.PAGE - offset)
            buf = self.pages.setdefault(page, bytearray(self.PAGE))
            buf[offset:offset + take] = data[done:done + take]
            done += take

    def written(self, address: int, n: int) -> bool:
        """True if something was written in the pages ``n`` bytes at ``address`` touch."""
        return any(page in self.pages for page in range(address // self.PAGE, (address + n - 1) // self.PAGE + 1))

    @property
    def nbytes(self) -> int:
        return len(self.pages) * self.PAGE

    def snapshot(self) -> dict[int, bytes]:
        return {page: bytes(data) for page, data in self.pages.items()}

    def restore(self, snap: dict[int, bytes]) -> None:
        self.pages = {page: bytearray(data) for page, data in snap.items()}


@dataclass(frozen=True)
class Transfer:
    """One NoC request, as ``info noc`` and a watchpoint name it."""

    seq: int
    noc: int
    core: str
    pc: int
    kind: str              # "read", "write", "posted write", "inline write", "atomic", "multicast write"
    source: str            # where the data came from
    dest: str              # where it went
    length: int

    def describe(self) -> str:
        return (f"NoC {self.noc} {self.kind} of {self.length} bytes by {self.core} at {self.pc:#010x}: "
                f"{self.source} -> {self.dest}")


class L1Writes:
    """The newest NoC requests that wrote a tile's L1 (at most ``kept``), for hang reports and
    ``info noc``: which one last wrote an address.  An address outside every range kept is
    answered without a scan (measured on ttnn.add of 64 tiles: a spinning core's wait names the
    mailbox words it reads, which no request writes; scanning the 10,000 kept for each was 2.6 %
    of the simulator's run)."""

    def __init__(self, kept: int) -> None:
        self._writes: deque[tuple[int, int, Transfer, int]] = deque(maxlen=kept)
        self._lo, self._hi = 1 << 64, 0     # covers every range kept (and perhaps more)

    def add(self, start: int, end: int, transfer: Transfer, pushes: int) -> None:
        """``transfer`` wrote ``[start, end)`` after ``pushes`` Tensix instructions had been pushed."""
        self._writes.append((start, end, transfer, pushes))
        self._lo, self._hi = min(self._lo, start), max(self._hi, end)

    def last(self, address: int) -> tuple[Transfer, int] | None:
        """The newest request kept that wrote ``address``, and the pushes before it."""
        if not self._lo <= address < self._hi:
            return None
        return next(((t, pushes) for lo, hi, t, pushes in reversed(self._writes) if lo <= address < hi), None)


@dataclass(frozen=True)
class LocalTile:
    """What the NoC needs of this tile: its L1 and its NoC-visible devices (``Tile`` provides
    them, so a NoC write into L1 goes where any other L1 write goes)."""

    read_l1: Callable[[int, int], bytes]
    write_l1: Callable[[int, bytes, Transfer], None]
    load_mmio: Callable[[int], int]
    store_mmio: Callable[[int, int], None]
    #: nothing wrote any of L1 ``start .. end`` since the reset (``tdbg.emu.l1_written``)
    never_written: Callable[[int, int], bool] = lambda start, end: False


def _back_to(noc: Noc, seq: int) -> None:
    """The log as it was when ``seq`` requests had been made (the ones after it dropped)."""
    while noc.log and noc.log[-1].seq > seq:
        noc.log.pop()
    noc.seq = seq


class Noc:
    """Both NIUs of this tile and the endpoints beyond it."""

    def __init__(self, spec: NocSpec, l1_size: int, local: LocalTile) -> None:
        self.spec, self.l1_size, self.local = spec, l1_size, local
        self.nius: list[Niu] = []      # the tile's NIUs (``tdbg.emu.devices.niu``), by number
        self.remote_l1: dict[Coord, SparseMemory] = {}
        self.dram: dict[int, SparseMemory] = {}
        self.log: list[Transfer] = []
        self.seq = 0
        self.issuer: tuple[str, int] = ("", 0)    # the core and pc storing to NOC_CMD_CTRL
        #: A host's name for what it put at an endpoint (``Session.name_noc``): (endpoint,
        #: address, length) -> e.g. "buffer a", or "no buffer there"; None where it knows nothing.
        self.namer: Callable[[Coord, int, int], str | None] | None = None
        #: While a step is recorded for reverse-stepi: (endpoint, address, bytes before) of every
        #: write to memory beyond this tile (this tile's L1 is journalled with the coprocessor's).
        #: By endpoint, not by memory: undoing a whole-tile record replaces the memories.
        self.journal: list[tuple[Coord, int, bytes]] | None = None
        #: In a grid: another Tensix tile by NoC 0 coordinate (its ``LocalTile``, or its memory).
        self.fabric: Callable[[Coord], LocalTile | SparseMemory] | None = None

    def attach(self, niu: Niu) -> Niu:
        """Connect NIU ``niu`` (the tile builds it with its devices)."""
        self.nius.append(niu)
        self.nius.sort(key=lambda n: n.index)
        return niu

    #: The request log (kept up to the number of requests made) and the memory of the other endpoints, which a
    #: reverse-stepi record leaves to the step's journal.  The NIUs are the tile's devices.
    STATE = StateDescription("NoC", (
        value("log", get=lambda n: n.seq, put=_back_to, reset=0),
        value("remote_l1", get=lambda n: {c: m.snapshot() for c, m in n.remote_l1.items()},
              put=lambda n, v: setattr(n, "remote_l1", {c: _restored(n.l1_size, m) for c, m in v.items()}),
              reset={}, in_steps=False),
        value("dram", get=lambda n: {c: m.snapshot() for c, m in n.dram.items()},
              put=lambda n, v: setattr(n, "dram", {c: _restored(n.spec.dram_channel_size, m) for c, m in v.items()}),
              reset={}, in_steps=False),
    ))

    # -- endpoints ---------------------------------------------------------------------------
    def physical(self, coord: int, noc: int = 0) -> Coord:
        """The NoC 0 coordinate a coordinate field (x | y << 6) of a request on NoC ``noc``
        names: a translated one through the table (the same on both NoCs).  On a chip that
        translates nothing (an empty table) a NoC 1 coordinate is NoC 1's own, which runs the other
        way (NoC/Coordinates.md: (x, y) on NoC 1 is (W - 1 - x, H - 1 - y) on NoC 0, in the grid
        the host was given: ``noc1_grid``, 6 bits each), except this tile's NoC 0 coordinate
        (firmware names its own tile by ``NOC_ID_LOGICAL`` on both NoCs: ttsim tile.cpp:1421-1424)
        and another Tensix tile's whose NoC 1 reading is no DRAM port: the host gives the kernels
        its workers' NoC 0 coordinates (measured: ttnn.matmul's multicast on the ``1x2`` chip) and
        NoC 1's coordinates of DRAM in its bank tables (measured on ``1x2``, described as 17 x 2:
        its NoC 1 writes to DRAM ports 0,1 and 0,10 name 16,0 and 16,55; on the full chip port 0,1
        is 16,10, a Tensix tile's NoC 0 coordinate: ttnn.add's writer).  So a kernel that names a
        tile of column 7 or 16 by its NoC 0 coordinate on NoC 1 reaches a DRAM port: the two
        readings are the same bits there."""
        xy = (coord & 63, (coord >> 6) & 63)
        if noc and not self.spec.translated and xy != self.spec.tile:
            w, h = self.spec.noc1_grid or self.spec.size
            own = (w - 1 - xy[0]) & 63, (h - 1 - xy[1]) & 63
            if own in self.spec.dram or xy not in self.spec.tensix:
                return own
        return self.spec.physical(xy)

    def describe(self, where: Coord, address: int) -> str:
        if where == self.spec.tile:
            return f"this tile {address:#x}"
        if where in self.spec.dram:
            return f"DRAM channel {self.spec.dram[where]} {address:#x}"
        return f"tile {where[0]},{where[1]} {address:#x}"

    def memory(self, where: Coord, address: int, n: int) -> SparseMemory | LocalTile | None:
        """The memory a request at ``where`` reaches (None: this tile; a ``LocalTile``: another
        tile of the grid); a stop for any other endpoint."""
        if where == self.spec.tile:
            return None
        if self.fabric is not None and where in self.spec.tensix:
            return self.fabric(where)
        if where in self.spec.dram:
            channel = self.spec.dram[where]
            return self.dram.setdefault(channel, SparseMemory(self.spec.dram_channel_size))
        if where in self.spec.tensix:
            if address + n > self.l1_size:
                raise UnimplementedFunctionality(f"{_MAP}: {address:#x} in tile {where[0]},{where[1]} is not its L1; "
                                                 "tdbg models only the L1 of the other tiles")
            return self.remote_l1.setdefault(where, SparseMemory(self.l1_size))
        kind = self.spec.others.get(where)
        if kind is not None and kind != "router":
            raise UnimplementedFunctionality(f"{_MAP}: a request to the {kind} tile at {where[0]},{where[1]}: tdbg does "
                                             "not model it")
        raise UndefinedBehavior(f"NoC/Coordinates.md: no endpoint at NoC 0 coordinate {where[0]},{where[1]} "
                                f"({'a router-only tile' if kind else 'outside the grid'}); the request is lost")

    def check_local(self, address: int, n: int, what: str) -> None:
        """Stop a ``what`` of ``n`` bytes at ``address`` of this tile that no access can make:
        one that runs past L1's end, or one beyond L1 (MMIO) that is not a 4-byte aligned
        word; before any data moves (a read of 1 GiB into L1 gathers nothing)."""
        if address + n <= self.l1_size:
            return
        if address < self.l1_size:
            raise UndefinedBehavior(f"{_MAP}: a {n}-byte {what} at L1 {address:#x} runs past L1's end "
                                    f"({self.l1_size:#x})")
        if n > 4 or address & 3:
            raise UndefinedBehavior(f"{_MAP}: only a 4-byte aligned {what} reaches an MMIO address "
                                    f"({n} bytes at {address:#x})")

    def read(self, where: Coord, address: int, n: int) -> bytes:
        memory = self.memory(where, address, n)
        if isinstance(memory, SparseMemory):
            return memory.read(address, n)
        tile = memory or self.local
        self.check_local(address, n, "read")
        if address + n <= self.l1_size:
            return tile.read_l1(address, n)
        return tile.load_mmio(address).to_bytes(4, "little")[:n]

    def write(self, where: Coord, address: int, data: bytes, transfer: Transfer) -> None:
        memory = self.memory(where, address, len(data))
        if isinstance(memory, SparseMemory):
            if self.journal is not None:
                self.journal.append((where, address, memory.read(address, len(data))))
            memory.write(address, data)
            return
        tile = memory or self.local
        if memory is not None and transfer.seq:   # another tile's cores are not this one's
            x, y = self.spec.tile
            transfer = dataclasses.replace(transfer, core=f"{x},{y}:{transfer.core}")
        self.check_local(address, len(data), "write")
        if address + len(data) <= self.l1_size:
            tile.write_l1(address, data, transfer)
        else:
            tile.store_mmio(address, int.from_bytes(data, "little"))

    def named(self, where: Coord, address: int, n: int) -> str | None:
        """What the host put at ``n`` bytes of ``where`` from ``address`` (``namer``)."""
        return self.namer(where, address, n) if self.namer is not None else None

    def put_back(self, where: Coord, address: int, old: bytes) -> None:
        """Undo a journalled write beyond this tile: ``old`` at ``address`` of ``where``."""
        memory = self.memory(where, address, len(old))
        if isinstance(memory, SparseMemory):
            memory.write(address, old)
        else:   # a tile of the grid modelled since the write: its L1, as a write that is no request
            (memory or self.local).write_l1(address, old, Transfer(0, 0, "", 0, "undo", "", "", len(old)))

    def record(self, transfer: Transfer) -> None:
        self.log.append(transfer)
        if len(self.log) > 2 * LOG_KEPT:
            del self.log[:-LOG_KEPT]

    def host_transfer(self, length: int) -> Transfer:
        """A write the host (the debugger) makes at an endpoint; not a NoC request of the run."""
        return Transfer(0, 0, "host", 0, "host write", "the host", "", length)


def _restored(size: int, snap: dict[int, bytes]) -> SparseMemory:
    memory = SparseMemory(size)
    memory.restore(snap)
    return memory
