"""One NIU of the tile (NoC 0 or NoC 1): its registers and the requests they make.

What a request does, the registers and the counters: WormholeB0 ``NoC/MemoryMap.md`` (request
initiators, ``NOC_CTRL``, ``NOC_TARG_ADDR``/``NOC_RET_ADDR``, ``NOC_AT_LEN_BE``,
``NOC_CMD_CTRL``), ``Counters.md`` and ``Atomics.md``; where Blackhole differs, Tenstorrent's
simulator shows it (ttsim v1.10.0, ``tile.cpp``): the register offsets (the profile's
``NocSpec``), the coordinate in ``*_ADDR_HI`` (x | y << 6; a multicast's start in bits 23:12),
translated coordinates meaning the same tile on both NoCs, an inline write to L1 being unsafe.
A request is done when software writes ``NOC_CMD_CTRL``, at the endpoints of ``tdbg.emu.noc``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.arch.profile import Coord
from tdbg.emu.devices.device import Registers32
from tdbg.emu.noc import LocalTile, Noc, SparseMemory, Transfer
from tdbg.tensix.state_description import StateDescription, obj
from tdbg.tensix.events import NeverWritten, UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.core import Core

_MAP = "NoC/MemoryMap.md"


@dataclass
class CommandBuffer:
    """One NIU request initiator's registers (MemoryMap.md "NIU Request Initiators")."""

    regs: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, name: str) -> int:
        return self.regs.get(name, 0)


class Niu(Registers32):
    """One NIU's registers (MemoryMap.md) and its requests; ``spec.unit`` is its number."""

    pollable = True

    def __init__(self, noc: Noc, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.noc, self.index, self.noc_spec = noc, spec.unit, noc.spec
        self.buffers: list[CommandBuffer] = []
        self.config: dict[str, int] = {}
        self.counters: list[int] = []
        self._by_offset = {off: name for name, off in self.noc_spec.cmd_regs.items()}
        self._niu_by_offset = {off: name for name, off in self.noc_spec.niu_regs.items()}
        self._power_on = self._power_on_config()
        Niu.STATE.reset(self)

    def _power_on_config(self) -> dict[str, int]:
        """MemoryMap.md ROUTER_CFG_1/3: "Firmware will configure this mask such that only Tensix
        tiles receive broadcasts"; ttsim v1.10.0 starts with it so (tile.cpp:44-45)."""
        w, h = self.noc_spec.size
        cols = sum(1 << x for x in range(w) if not any((x, y) in self.noc_spec.tensix for y in range(h)))
        rows = sum(1 << y for y in range(h) if not any((x, y) in self.noc_spec.tensix for x in range(w)))
        return {"NIU_CFG_0": 0, "ROUTER_CFG_0": 0, "ROUTER_CFG_1": cols, "ROUTER_CFG_2": 0, "ROUTER_CFG_3": rows,
                "ROUTER_CFG_4": 0}

    #: The request initiators' registers, the configuration registers, the NOC_STATUS counters.
    STATE = StateDescription("NIU", (
        obj("buffers", reset=lambda n: [CommandBuffer() for _ in range(n.noc_spec.cmd_buffers)]),
        obj("config", reset=lambda n: dict(n._power_on), copy=dict),
        obj("counters", reset=lambda n: [0] * 64, copy=list),          # NOC_STATUS(0..63)
    ))

    # -- identification -----------------------------------------------------------------------
    @property
    def coordinate(self) -> int:
        """This tile as software addresses it (translated coordinates are the NoC 0 ones for a
        Tensix tile on both NoCs: ttsim tile.cpp:1421-1424)."""
        x, y = self.noc_spec.tile
        return x | y << 6

    def node_id(self) -> int:
        """``NOC_NODE_ID`` (MemoryMap.md): the NIU's coordinate on its own NoC (NoC 1 runs the
        other way: (16 - x, 11 - y) on Blackhole), the NoC's size, and whether unicast routes go X
        first (NoC 0) (ttsim tile.cpp:1282-1289)."""
        x, y = self.noc_spec.tile
        w, h = self.noc_spec.size
        if self.index:
            x, y = w - 1 - x, h - 1 - y
        return x | y << 6 | w << 12 | h << 19 | (self.index == 0) << 28

    # -- registers -----------------------------------------------------------------------------
    def describe(self, offset: int) -> str:
        """The register at ``offset`` by its name (for waits and errors)."""
        base = self.noc_spec.counters_base
        if offset >= base and (offset - base) >> 2 in self.noc_spec.counters:
            return self.noc_spec.counters[(offset - base) >> 2]
        buf, within = divmod(offset, self.noc_spec.cmd_buf_stride)
        if buf < len(self.buffers) and within in self._by_offset:
            return f"CMD_BUF{buf}.{self._by_offset[within]}"
        return self._niu_by_offset.get(offset, f"offset {offset:#x}")

    def issued(self, core: Core) -> None:
        self.noc.issuer = (core.name, core.pc)

    def read(self, offset: int) -> int:
        if offset & 3:
            raise UndefinedBehavior(f"{_MAP}: NIU registers are 32-bit ({offset:#x})")
        buf, within = divmod(offset, self.noc_spec.cmd_buf_stride)
        if buf < len(self.buffers) and within in self._by_offset:
            name = self._by_offset[within]
            return 0 if name == "CMD_CTRL" else self.buffers[buf][name]      # every request is done
        name = self._niu_by_offset.get(offset)
        if name == "NODE_ID":
            return self.node_id()
        if name == "NOC_ID_LOGICAL":
            return self.coordinate
        if name == "CMD_BUF_AVAIL":
            raise UnimplementedFunctionality(f"{_MAP}: CMD_BUF_AVAIL is not modelled by tdbg")
        if name in self.config:
            return self.config[name]
        base = self.noc_spec.counters_base
        if base <= offset < base + 4 * len(self.counters):
            index = (offset - base) >> 2      # Counters.md: the transaction ID counters are 8 bits
            return self.counters[index] & (0xFF if 0x10 <= index < 0x30 else 0xFFFF_FFFF)
        raise UnimplementedFunctionality(f"{_MAP}: NoC {self.index} register at offset {offset:#x} is not modelled by tdbg")

    def write(self, offset: int, value: int) -> None:
        if offset & 3:
            raise UndefinedBehavior(f"{_MAP}: NIU registers are 32-bit ({offset:#x})")
        buf, within = divmod(offset, self.noc_spec.cmd_buf_stride)
        if buf < len(self.buffers) and within in self._by_offset:
            name = self._by_offset[within]
            if name == "CMD_CTRL":
                if value & 1:
                    self.issue(self.buffers[buf])
                return
            self.buffers[buf].regs[name] = value
            return
        name = self._niu_by_offset.get(offset)
        if name == "CLEAR_OUTSTANDING_REQ_CNT":         # Counters.md "Clear NIU transaction ID counters"
            for i in range(16):
                if value >> i & 1:
                    self.counters[0x10 + i] = 0
            return
        if name in self.config:
            self.config[name] = value
            return
        raise UnimplementedFunctionality(f"{_MAP}: a store to NoC {self.index} register at offset {offset:#x} is not "
                                         "modelled by tdbg")

    def status(self) -> list[str]:
        """``info noc``: each command buffer that was used, the counters that moved, the
        configuration registers."""
        def where(lo: str, mid: str, hi: str) -> str:
            x, y = buf[hi] & 63, (buf[hi] >> 6) & 63
            return f"{x},{y}:{buf[lo] | buf[mid] << 32:#x}"

        lines = []
        for i, buf in enumerate(self.buffers):
            if buf.regs:
                lines.append(f"CMD_BUF{i}  targ {where('TARG_ADDR_LO', 'TARG_ADDR_MID', 'TARG_ADDR_HI')}  "
                             f"ret {where('RET_ADDR_LO', 'RET_ADDR_MID', 'RET_ADDR_HI')}  ctrl {buf['CTRL']:#x}  "
                             f"len_be {buf['AT_LEN_BE']:#x}  tag {buf['PACKET_TAG']:#x}  at_data {buf['AT_DATA']:#x}")
        moved = [f"{name.removeprefix('NIU_')} {self.counters[i]}" for i, name in self.noc_spec.counters.items()
                 if self.counters[i]]
        lines += _wrapped("counters  ", moved or ["all 0"])
        lines += _wrapped("config    ", [f"{n} {v:#x}" for n, v in self.config.items()])
        return lines

    # -- requests ------------------------------------------------------------------------------
    def _count(self, index: int, by: int = 1) -> None:
        self.counters[index] = (self.counters[index] + by) & 0xFFFF_FFFF

    def issue(self, buf: CommandBuffer) -> None:
        """``NOC_CMD_CTRL`` written with its low bit set: the request, done (MemoryMap.md
        "NOC_CMD_CTRL"; the counters of Counters.md for the completed request)."""
        ctrl = buf["CTRL"]
        atomic, write, byte_enable, inline, marked, multicast = (ctrl >> b & 1 for b in (0, 1, 2, 3, 4, 5))
        if atomic and write:
            raise UndefinedBehavior(f"{_MAP}: NOC_CTRL request type 3 is reserved")
        if byte_enable and write and not inline:
            raise UnimplementedFunctionality(f"{_MAP}: NOC_CMD_WR_BE writes are not modelled by tdbg")
        if ctrl >> 31 & 1:
            raise UnimplementedFunctionality(f"{_MAP}: NOC_CMD_L1_ACC_AT_EN (accumulating writes) is not modelled by tdbg")
        if ctrl >> 9 & 1:
            raise UnimplementedFunctionality(f"{_MAP}: NOC_CMD_MEM_RD_DROP_ACK concerns the NoC Overlay, which tdbg does "
                                             "not model as a NoC client")
        tag = buf["PACKET_TAG"]
        if tag & 0xFF:
            raise UnimplementedFunctionality(f"{_MAP}: NOC_PACKET_TAG delivery to a NoC Overlay stream is not modelled by tdbg")
        tid = (tag >> 10) & 0xF
        targ = (buf["TARG_ADDR_LO"] | buf["TARG_ADDR_MID"] << 32, buf["TARG_ADDR_HI"])
        ret = (buf["RET_ADDR_LO"] | buf["RET_ADDR_MID"] << 32, buf["RET_ADDR_HI"])
        length = buf["AT_LEN_BE"]
        if atomic:
            self._atomic(targ, ret, length, buf["AT_DATA"], marked, multicast)
        elif write and inline:
            self._inline(targ, buf["AT_DATA"], marked)
        elif write:
            self._write(targ, ret, length, marked, multicast, tid, ctrl)
        else:
            if multicast:
                raise UndefinedBehavior(f"{_MAP}: NOC_CMD_BRCST_PACKET \"should always be false for read requests\"")
            self._read(targ, ret, length, tid)

    def _transfer(self, kind: str, source: str, dest: str, length: int) -> Transfer:
        noc = self.noc
        noc.seq += 1
        core, pc = noc.issuer
        transfer = Transfer(noc.seq, self.index, core, pc, kind, source, dest, length)
        noc.record(transfer)
        return transfer

    def _here(self, coord: int, what: str) -> None:
        if self.noc.physical(coord, self.index) != self.noc_spec.tile:
            x, y = self.noc.physical(coord, self.index)
            raise UnimplementedFunctionality(f"{_MAP}: {what} at tile {x},{y}: tdbg models requests whose data comes "
                                             "from (or returns to) the initiating tile")

    def _packets(self, length: int) -> int:
        if length < 1:
            raise UndefinedBehavior(f"{_MAP}: NOC_AT_LEN_BE must be at least 1 byte for a read or write (it is 0)")
        return -(-length // self.noc_spec.max_packet)

    def _read(self, targ: tuple[int, int], ret: tuple[int, int], length: int, tid: int) -> None:
        """Counters.md "Read requests"; one packet per ``max_packet`` bytes ("Automatic request
        splitting")."""
        packets = self._packets(length)
        self._here(ret[1], "the destination of a read")
        source = self.noc.physical(targ[1], self.index)
        _aligned(targ[0], ret[0], 64 if source in self.noc_spec.dram else 16, "read")
        self.noc.check_local(ret[0], length, "read's destination")
        transfer = self._transfer("read", self.noc.describe(source, targ[0]), f"this tile {ret[0]:#x}", length)
        data = self.noc.read(source, targ[0], length)
        memory = self.noc.memory(source, targ[0], length)
        self.noc.write(self.noc_spec.tile, ret[0], data, transfer)
        flits = -(-length // self.noc_spec.word_bytes)
        for index in (0x4, 0xE, 0x5, 0x2):    # CMD_ACCEPTED, RD_REQ_STARTED, RD_REQ_SENT, RD_RESP_RECEIVED
            self._count(index, packets)
        self._count(0x3, flits)                # RD_DATA_WORD_RECEIVED
        if self._never_written(memory, targ[0], length):
            named = self.noc.named(source, targ[0], length)
            raise NeverWritten(f"{transfer.core} read {self.noc.describe(source, targ[0])}..{targ[0] + length:#x}: "
                               f"{named + ', ' if named else ''}never written")

    def _never_written(self, memory: SparseMemory | LocalTile | None, address: int, length: int) -> bool:
        """Nothing wrote the ``length`` bytes at ``address`` of ``memory`` (None: this tile;
        a tile's L1 by ``tdbg.emu.l1_written``, its MMIO never)."""
        if isinstance(memory, SparseMemory):
            return not memory.written(address, length)
        return address + length <= self.noc.l1_size and (memory or self.noc.local).never_written(address, address + length)

    def _write(self, targ: tuple[int, int], ret: tuple[int, int], length: int, marked: int, multicast: int,
               tid: int, ctrl: int) -> None:
        """Counters.md "Write requests with NOC_CMD_WR_INLINE=false"; a multicast writes every
        Tensix tile of the rectangle that has not opted out (ROUTER_CFG_1/3) and this tile only
        with ``NOC_CMD_BRCST_SRC_INCLUDE`` (bit 17)."""
        packets = self._packets(length)
        self._here(targ[1], "the source of a write")
        _aligned(targ[0], ret[0], 16, "write")
        data = self.noc.read(self.noc_spec.tile, targ[0], length)
        if multicast:
            dests = self._rectangle(ret[1], bool(ctrl >> 17 & 1))
        else:
            dests = [self.noc.physical(ret[1], self.index)]
        kind = "multicast write" if multicast else "write" if marked else "posted write"
        where = ", ".join(self.noc.describe(d, ret[0]) for d in dests) or "no tile"
        transfer = self._transfer(kind, f"this tile {targ[0]:#x}", where, length)
        for dest in dests:
            self.noc.write(dest, ret[0], data, transfer)
        flits = -(-length // self.noc_spec.word_bytes)
        self._count(0x4, packets)                                           # CMD_ACCEPTED
        self._count(0xC if marked else 0xD, packets)                        # WR_REQ_STARTED
        self._count(0xA if marked else 0xB, packets)                        # WR_REQ_SENT
        self._count(0x8 if marked else 0x9, flits)                          # WR_DATA_WORD_SENT
        if marked:
            self._count(0x1, packets * len(dests))                          # WR_ACK_RECEIVED
        if self._never_written(None, targ[0], length):
            raise NeverWritten(f"{transfer.core} read {self.noc.describe(self.noc_spec.tile, targ[0])}..{targ[0] + length:#x} "
                               f"for a NoC {kind} to {where}: never written")

    def _inline(self, targ: tuple[int, int], value: int, marked: int) -> None:
        """An inline write: ``NOC_AT_DATA`` to ``NOC_TARG_ADDR`` (MemoryMap.md).  To L1 on
        Blackhole it is unsafe (ttsim v1.10.0 tile.cpp:1632: UndefinedBehavior); to MMIO, a
        32-bit store."""
        dest = self.noc.physical(targ[1], self.index)
        address = targ[0]
        if address < self.noc.l1_size:
            raise UndefinedBehavior("ttsim v1.10.0 (tile.cpp:1632): an inline write to an L1 address is unsafe on "
                                    f"Blackhole ({address:#x})")
        transfer = self._transfer("inline write", f"NOC_AT_DATA {value:#x}", self.noc.describe(dest, address), 4)
        self.noc.write(dest, address & ~3, value.to_bytes(4, "little"), transfer)
        self._count(0x4)
        self._count(0xC if marked else 0xD)
        self._count(0xA if marked else 0xB)
        if marked:
            self._count(0x1)

    def _atomic(self, targ: tuple[int, int], ret: tuple[int, int], len_be: int, data: int, marked: int,
                multicast: int) -> None:
        """Atomics.md: increment (op 1), swap by mask (3), compare and swap (4), swap by index
        (6, 7), on the L1 of ``NOC_TARG_ADDR``; the word at ``NOC_TARG_ADDR`` before it returns
        to ``NOC_RET_ADDR`` when ``NOC_CMD_RESP_MARKED``."""
        if multicast:
            raise UnimplementedFunctionality(f"{_MAP}: multicast atomics are not modelled by tdbg")
        where, address = self.noc.physical(targ[1], self.index), targ[0]
        if where in self.noc_spec.dram or address + 16 > self.noc.l1_size:
            raise UndefinedBehavior(f"Atomics.md: atomic operations cannot be performed against MMIO or DRAM "
                                    f"addresses ({self.noc.describe(where, address)})")
        op = (len_be >> 12) & 0xF
        base = address & ~0xF
        block = bytearray(self.noc.read(where, base, 16))
        words = [int.from_bytes(block[i:i + 4], "little") for i in range(0, 16, 4)]
        result = words[(address & 0xF) >> 2]
        if op == 1:
            ofs, width = len_be & 3, (len_be >> 2) & 31
            mask = (2 << width) - 1 & 0xFFFF_FFFF
            original = words[ofs]
            words[ofs] = ((original + data) & mask) | (original & ~mask & 0xFFFF_FFFF)
            name = f"increment by {data}"
        elif op == 4:
            ofs, cmp, new = len_be & 3, (len_be >> 2) & 0xF, (len_be >> 6) & 0xF
            if words[ofs] == cmp:
                words[ofs] = new
            name = f"compare {cmp} and swap {new}"
        elif op in (6, 7):
            ofs = len_be & 3 if op == 6 else (len_be >> 2) & 3
            words[ofs] = data
            name = f"swap {data:#x}"
        elif op == 3:
            halves = [w >> s & 0xFFFF for w in words for s in (0, 16)]
            for i in range(8):
                if (len_be >> 2) >> i & 1:
                    halves[i] = data >> (16 * (i & 1)) & 0xFFFF
            words = [halves[2 * i] | halves[2 * i + 1] << 16 for i in range(4)]
            name = f"swap by mask {(len_be >> 2) & 0xFF:#x}"
        else:
            raise UnimplementedFunctionality(f"Atomics.md: NoC atomic operation {op} is not modelled by tdbg")
        transfer = self._transfer("atomic", f"{name} of {self.noc.describe(where, address)}",
                                  f"this tile {ret[0]:#x}" if marked else "no response", 4)
        self.noc.write(where, base, b"".join(w.to_bytes(4, "little") for w in words), transfer)
        self._count(0x4)
        if marked:
            self._here(ret[1], "the return address of an atomic")
            self.noc.write(self.noc_spec.tile, ret[0] & ~3, result.to_bytes(4, "little"), transfer)
            self._count(0xF)    # NONPOSTED_ATOMIC_STARTED
            self._count(0x6)    # NONPOSTED_ATOMIC_SENT
            self._count(0x0)    # ATOMIC_RESP_RECEIVED
        else:
            self._count(0x7)    # POSTED_ATOMIC_SENT

    def _rectangle(self, coords: int, include_self: bool) -> list[Coord]:
        """The Tensix tiles of a multicast's rectangle (MemoryMap.md: start in bits 23:12, end in
        bits 11:0 of ``NOC_RET_ADDR_HI``; a span wraps when start > end), less the columns and
        rows opted out in ``ROUTER_CFG_1``/``ROUTER_CFG_3``.  NoC 1 runs the other way, so its
        rectangle goes from end to start (ttsim v1.10.0 tile.cpp:1561-1566)."""
        sx, sy = self.noc.physical(coords >> 12, self.index)
        ex, ey = self.noc.physical(coords & 0xFFF, self.index)
        if self.index:
            (sx, sy), (ex, ey) = (ex, ey), (sx, sy)
        w, h = self.noc_spec.size

        def span(a: int, b: int, n: int) -> list[int]:
            return list(range(a, b + 1)) if a <= b else [v for v in range(n) if v <= b or v >= a]

        cols, rows = self.config["ROUTER_CFG_1"], self.config["ROUTER_CFG_3"]
        dests = [(x, y) for y in span(sy, ey, h) for x in span(sx, ex, w)
                 if not cols >> x & 1 and not rows >> y & 1 and (x, y) in self.noc_spec.tensix]
        if not include_self:
            dests = [d for d in dests if d != self.noc_spec.tile]
        return dests


def _wrapped(label: str, items: list[str], width: int = 76) -> list[str]:
    """``items`` after ``label``, comma separated, in lines of at most ``width`` characters."""
    lines, line = [], label
    for i, item in enumerate(items):
        text = item + ("," if i < len(items) - 1 else "")
        if len(line) + len(text) + 1 > width and line.strip() != label.strip():
            lines.append(line.rstrip())
            line = " " * len(label)
        line += text + " "
    lines.append(line.rstrip())
    return lines


def _aligned(source: int, dest: int, modulo: int, what: str) -> None:
    """ttsim v1.10.0 (tile.cpp:1664, 1680-1689): a transfer keeps its offset within a 16-byte L1
    word (64-byte for DRAM on Blackhole); otherwise UndefinedBehavior."""
    if source % modulo != dest % modulo:
        raise UndefinedBehavior(f"ttsim v1.10.0 (tile.cpp:1664): the {what}'s source {source:#x} and destination "
                                f"{dest:#x} differ modulo {modulo}")

