"""The native push path's UNPACR and PACR (``tdbg/native/unpack_pack.c``): which words it runs,
the config-derived state it reads (``describe``, forgotten at every config write), the model
state it reads and writes in place (``addresses``, ``refresh``), and the ring of L1 accesses
that is ``tdbg.emu.pushlog.L1Log``'s once it exists (the Python path's accesses go into it too,
``append``: one order whichever side made them).

Measured (``scripts/bench.py`` figure (d), the UNPACR/PACR mix): the Python path costs about
32 us a push (the hook and log, the executor's Python, ``Tile.write``'s bookkeeping, the
``tdbg_pack`` call); the C path a fraction of a microsecond.

What the C side declines, so that the Python path (the reference) runs it and says what it
says: a word with a field it does not mirror (``kind``), a configuration it does not mirror
(``describe`` marks it so: compression, BFP input, ``Tileize_mode``, upsampling, a column
shift, ``Transpose``, unpacking to ``Dst``, ``Unpack_Src_Reg_Set_Upd``; for PACR a staged
conversion, L1 accumulation), and, per push, its bank not the unpackers', a run of datums that
is not whole rows, an address the Python path would refuse, an L1 read nothing wrote, an L1
write over loaded code, and a tile whose state needs what only Python keeps (a reverse-step
journal, L1 still all zero; for a pushed UNPACR a wait latched on any thread, which its Wait Gate
check, ``Coprocessor._held``, settles, and FlipSrc, whose bank handed over may release other
words: off Python's queue both run here, ``tdbg.emu.native_matrix.NativeMatrix.run_queued``).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

import numpy as np

from tdbg import native
from tdbg.native import address
from tdbg.tensix import packers, unpackers
from tdbg.tensix.events import TensixEvent
from tdbg.tensix.src import SrcClient

if TYPE_CHECKING:
    from tdbg.emu.native_push import Entry
    from tdbg.emu.pushlog import L1Access
    from tdbg.emu.tile import Tile

MAXT, NSLOT, MAXCODE = 4, 4 * 2 * 9, 64
K_UNPACR, K_PACR = 13, 14
#: What each instruction's C function reads, in its order (unpack_pack.c).
UNPACR_FIELDS = ("WhichUnpacker", "MultiContextMode", "ContextNumber", "ContextADC", "AllDatumsAreZero",
                 "Ch0YInc", "Ch0ZInc", "Ch1YInc", "Ch1ZInc", "FlipSrc")
PACR_FIELDS = ("Last", "OvrdThreadId", "ReadIntfSel", "AddrCntContext", "AddrMode")
FIELDS = {K_UNPACR: UNPACR_FIELDS, K_PACR: PACR_FIELDS}
#: Fields the C side leaves to Python when nonzero (what their Python code does is not mirrored);
#: the rest (UNPACR's Last, PACR's Concat) the Python functions do not read.
_PYTHON_ONLY = {"UNPACR": ("UseContextCounter", "CfgContextCntInc", "SearchCacheFlush", "srcb_bcast", "RowSearch"),
                "PACR": ("Flush", "ZeroWrite", "CtxtCtrl", "DstAccessMode", "RowPadZero", "CfgContext")}
F = unpackers.F
#: unpack_pack.c's conversions: (InDataFormat, OutDataFormat) -> code (unpackers.convert to Src)
CONVERSIONS = {(F.BF16, F.BF16): 1, (F.FP16, F.FP16): 2, (F.FP32, F.TF32): 3, (F.FP32, F.BF16): 4, (F.FP32, F.FP16): 5}
_32BIT, _16BIT = (F.FP32, F.TF32, F.INT32), (F.FP16, F.BF16, F.INT16)   # unpackers._out_address

_P, _I32, _U32, _I64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64

L1_RECORD = np.dtype({"names": ["seq", "start", "end", "word", "thread", "write"],
                      "formats": [np.uint64, np.uint32, np.uint32, np.uint32, np.uint8, np.uint8],
                      "offsets": [0, 8, 12, 16, 20, 21], "itemsize": 24})


class USlot(ctypes.Structure):
    _fields_ = [(n, _I32) for n in ("known", "conv", "width", "out_shift", "srca_set_ovrd", "add_ctx")] + \
               [(n, _I64) for n in ("in_addr", "x_dim", "y_dim", "z_dim", "fifo_size", "limit", "out_base", "y_stride",
                                    "z_stride", "w_stride", "ctx_out")]


class PSlot(ctypes.Structure):
    _fields_ = [("known", _I32), ("plan", _I32 * 10)] + \
               [(n, _I32) for n in ("datum_bits", "bfp", "read_32b", "in_fmt", "out_fmt", "sub_header", "yz_transposed")] + \
               [(n, _I64) for n in ("base0", "x_stride", "y_stride", "z_stride", "w_stride", "dst_offset", "base1",
                                    "y_stride1", "z_stride1", "w_stride1", "l1_dest_addr", "exp_section_size", "limit",
                                    "fifo_size", "reads_per_plane")] + \
               [("addr_mod", _I64 * 40)]


class Units(ctypes.Structure):
    """``struct units`` of unpack_pack.c."""

    _fields_ = [("ok", _I32), ("settled", _I32), ("src_ok", _I32 * 2), ("bank", _I32 * 2), ("src_row", _I32 * (2 * MAXT)),
                ("tracked", _I32), ("ncode", _I32), ("l1_size", _I64), ("code", _I64 * (2 * MAXCODE)),
                ("adc", _P), ("adc_cr", _P), ("packer", _P), ("max_exp", _P), ("l1", _P), ("written", _P),
                ("srca", _P), ("srcb", _P), ("dst_bits", _P), ("ever_written", _P), ("row16", _P), ("row32", _P),
                ("ring", _P), ("cap", _U32), ("head", _U32), ("count", _U32), ("pad", _U32),
                ("u", USlot * NSLOT), ("p", PSlot * MAXT)]


def kind(mnemonic: str, f: dict[str, int]) -> int | None:
    """The entry kind of an UNPACR or PACR word (None: the Python path runs it)."""
    if any(f[name] for name in _PYTHON_ONLY[mnemonic]):
        return None
    if mnemonic == "UNPACR" and f["MultiContextMode"] and f["ContextADC"] == 3:
        return None   # UndefinedBehavior (unpackers.context_of); the slot it shares does not say so
    return K_UNPACR if mnemonic == "UNPACR" else K_PACR


def _array_address(a) -> int:  # type: ignore[no-untyped-def]
    """The address of an ``array.array``'s items (it is never resized)."""
    return a.buffer_info()[0]  # type: ignore[no-any-return]


class NativeUnits:
    """A tile's ``Units`` and its L1 records (module docstring)."""

    def __init__(self, tile: Tile, lib: ctypes.CDLL) -> None:
        if lib.tdbg_units_size() != ctypes.sizeof(Units):
            raise native.NativeError(f"tdbg/native/unpack_pack.c's struct units is not {ctypes.sizeof(Units)} bytes: "
                                     "the two sides disagree")
        self.tile = tile
        self.s = Units()
        self.ring = np.zeros(tile.push_path.l1_log.limit, dtype=L1_RECORD)
        self.s.ring, self.s.cap = self.ring.ctypes.data, len(self.ring)
        self._held: tuple = ()
        self._code_ranges: object = None
        self._owners: tuple = ()   # what the arrays the C side holds belong to (``addresses``)
        self._described = False    # a slot was described since the last config write
        #: per slot (UNPACR's, then PACR's), what it was last described from (config-derived
        #: objects, the same while no word they read is written) and its bytes then: a config write
        #: forgets every slot, and one whose objects are the same again is copied back (measured:
        #: a PACR's slot 13 us to describe, its objects 3 us; an UNPACR's 4 against 1.3)
        self._saved: dict[int, tuple[tuple, bytes]] = {}
        self._log, self._address = lib.tdbg_units_log, ctypes.addressof(self.s)
        #: ``refresh``'s arrays of ``s`` (views of it: an attribute's lookup makes a new one each time)
        self._bank, self._src_ok, self._src_row = self.s.bank, self.s.src_ok, self.s.src_row
        self._threads, self._ncode = min(tile.coprocessor.threads, MAXT), 0
        tile.push_path.l1_log.attach(self)

    # -- Python's side of the state -------------------------------------------------------------
    def addresses(self) -> None:
        """The arrays the C side works on (a run starts; ``refresh`` when their owners change)."""
        s, tile = self.s, self.tile
        state = tile.coprocessor.state
        dst = state.dst
        self._owners = (state.adcs, state.packer, state.packer.histogram)
        self._held = (state.l1, tile.l1_written.view, state.srca.data, state.srcb.data, dst.bits, dst.ever_written,
                      dst.row16, dst.row32)
        (s.l1, s.written, s.srca, s.srcb, s.dst_bits, s.ever_written, s.row16, s.row32) = (address(a) for a in self._held)
        s.adc, s.adc_cr = _array_address(state.adcs._value), _array_address(state.adcs._cr)
        s.packer, s.max_exp = _array_address(state.packer.regs), _array_address(state.packer.histogram.regs)
        s.l1_size, s.tracked = len(state.l1), tile.l1_written.tracked

    def refresh(self) -> None:
        """Describe what Python pushes change (``NativePush.refresh``)."""
        s, tile = self.s, self.tile
        cop = tile.coprocessor
        state = cop.state
        if self._owners != (state.adcs, state.packer, state.packer.histogram):
            self.addresses()
        ranges = tile.code_ranges()
        if ranges is not self._code_ranges:
            self._code(ranges)
        s.ok = cop.l1_journal is None and not tile.l1_zero and self._ncode <= MAXCODE
        s.settled = all(g is None for g in cop.wait_gate)
        a, b = unpacker = state.src_banks.unpacker
        self._bank[:] = unpacker
        self._src_ok[:] = (state.srca.allowed_client[a] == SrcClient.Unpackers,
                           state.srcb.allowed_client[b] == SrcClient.Unpackers)
        rows, n = cop.unpacker_src_row, self._threads
        self._src_row[:n] = rows[0][:n]
        self._src_row[MAXT:MAXT + n] = rows[1][:n]

    def _code(self, ranges: tuple[list[int], list[int]]) -> None:
        """The loaded code's merged ranges (``Tile.code_ranges``)."""
        s = self.s
        starts, ends = ranges
        s.ncode = self._ncode = len(starts)
        for i, (lo, hi) in enumerate(zip(starts[:MAXCODE], ends[:MAXCODE])):
            s.code[2 * i], s.code[2 * i + 1] = lo, hi
        self._code_ranges = ranges

    def config_changed(self) -> None:
        """A config write: forget what was derived from config."""
        if self._described:
            ctypes.memset(ctypes.addressof(self.s) + Units.u.offset, 0, ctypes.sizeof(Units) - Units.u.offset)
            self._described = False

    def describe(self, thread: int, entry: Entry) -> None:
        """The config-derived state the entry's instruction reads for ``thread`` (after the Python
        path ran it): known 1, or 2 where the C side declines."""
        f = dict(zip(FIELDS[entry.kind], entry.f))
        cop = self.tile.coprocessor
        self._described = True
        if entry.kind == K_UNPACR:
            at = (thread * 2 + f["WhichUnpacker"]) * 9 + (1 + f["ContextNumber"] if f["MultiContextMode"] else 0)
            slot: USlot | PSlot = self.s.u[at]
        else:
            at, slot = NSLOT + thread, self.s.p[thread]
        if slot.known:
            return
        slot.known = 2
        try:
            inputs = _unpacr_inputs(cop, thread, f) if entry.kind == K_UNPACR else _pacr_inputs(cop, thread)
        except TensixEvent:
            return   # stays declined: the Python path raises it
        saved = self._saved.get(at)
        if saved is not None and all(a is b for a, b in zip(saved[0], inputs)):
            ctypes.memmove(ctypes.addressof(slot), saved[1], ctypes.sizeof(slot))
            return
        (_unpacr_slot if entry.kind == K_UNPACR else _pacr_slot)(inputs, slot)   # type: ignore[operator]
        self._saved[at] = (inputs, bytes(slot))

    # -- the records (tdbg.emu.pushlog.NativeL1Records) -------------------------------------------
    def append(self, access: L1Access) -> None:
        """An access the Python path made, into the ring after those made so far (``tdbg_units_log``)."""
        seq, thread, word, start, end, write = access
        self._log(self._address, seq, thread, word, start, end, write)

    def records(self) -> list[tuple]:
        """The ring's records, oldest first, as ``L1Access`` tuples."""
        s = self.s
        if s.count < s.cap:
            start = (s.head - s.count) % s.cap
            kept = self.ring[start:start + s.count] if start + s.count <= s.cap else np.concatenate(
                (self.ring[start:], self.ring[:s.head]))
        else:
            kept = np.concatenate((self.ring[s.head:], self.ring[:s.head]))
        return [(seq, thread, word, start, end, bool(write)) for seq, start, end, word, thread, write in kept.tolist()]

    def truncate(self, seq: int) -> None:
        """Forget the records of pushes after ``seq``."""
        s = self.s
        while s.count and int(self.ring[(s.head - 1) % s.cap]["seq"]) > seq:
            s.head = (s.head - 1) % s.cap
            s.count -= 1

    def clear(self) -> None:
        self.s.count = self.s.head = 0


def _unpacr_inputs(cop, thread: int, f: dict[str, int]) -> tuple[unpackers.UnpackConfig]:  # type: ignore[no-untyped-def]
    """What an UNPACR's slot is made from: ``unpackers.read_config`` of the word's context."""
    which, multi = f["WhichUnpacker"], bool(f["MultiContextMode"])
    fields = {"WhichUnpacker": which, "MultiContextMode": int(multi), "UseContextCounter": 0,
              "ContextNumber": f["ContextNumber"], "ContextADC": f["ContextADC"]}
    context, _ = unpackers.context_of(cop, thread, fields)
    return (unpackers.read_config(cop, thread, which, multi, context),)


def _unpacr_slot(inputs: tuple[unpackers.UnpackConfig], slot: USlot) -> None:
    """``slot`` from its inputs (known 1 when mirrored)."""
    c, = inputs
    conv = CONVERSIONS.get((c.in_fmt, c.out_fmt))
    if (conv is None or not c.uncompressed or c.tileize or c.transpose or c.to_dst or c.col_shift or c.upsample_rate
            or c.src_reg_set_upd):
        return
    slot.conv, slot.width = conv, c.width
    slot.out_shift = 2 if c.out_fmt in _32BIT else 1 if c.out_fmt in _16BIT else 0
    slot.srca_set_ovrd, slot.add_ctx = c.srca_set_ovrd, c.add_dest_addr_cntr
    slot.ctx_out = -1 if c.ctx_out_addr is None else c.ctx_out_addr
    (slot.in_addr, slot.x_dim, slot.y_dim, slot.z_dim, slot.fifo_size, slot.limit, slot.out_base, slot.y_stride,
     slot.z_stride, slot.w_stride) = (c.in_addr, c.x_dim, c.y_dim, c.z_dim, c.fifo_size, c.limit, c.out_base,
                                      c.y_stride, c.z_stride, c.w_stride)
    slot.known = 1


def _pacr_inputs(cop, thread: int) -> tuple:  # type: ignore[no-untyped-def]
    """What a PACR's slot is made from: ``packers.read_config`` and the four ``ADDR_MOD_PACK`` entries."""
    return (packers.read_config(cop, thread), *(packers.addr_mod_pack(cop, thread, m) for m in range(4)))


def _pacr_slot(inputs: tuple, slot: PSlot) -> None:
    """``slot`` from its inputs (known 1 when mirrored)."""
    c, *addr_mods = inputs
    if c.native is None or c.l1_acc:
        return
    plan, fmt = c.native
    for i, v in enumerate(plan.tolist()):
        slot.plan[i] = v
    slot.datum_bits, slot.bfp = fmt.datum_bits, fmt.is_bfp
    (slot.read_32b, slot.in_fmt, slot.out_fmt, slot.sub_header, slot.yz_transposed) = (
        c.read_32b, c.in_fmt, c.out_fmt, c.sub_header, c.yz_transposed)
    (slot.base0, slot.x_stride, slot.y_stride, slot.z_stride, slot.w_stride, slot.dst_offset, slot.base1,
     slot.y_stride1, slot.z_stride1, slot.w_stride1, slot.l1_dest_addr, slot.exp_section_size, slot.limit,
     slot.fifo_size, slot.reads_per_plane) = (
        c.base0, c.x_stride, c.y_stride, c.z_stride, c.w_stride, c.dst_offset, c.base1, c.y_stride1, c.z_stride1,
        c.w_stride1, c.l1_dest_addr, c.exp_section_size, c.limit, c.fifo_size, c.reads_per_plane)
    at = 0
    for entry in addr_mods:
        for side in entry:
            for v in side:
                slot.addr_mod[at] = v
                at += 1
    slot.known = 1
