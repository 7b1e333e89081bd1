"""The native push path: the ``.ttinsn`` words of the common instructions pushed by a code hook
in C (``tdbg/native/push.c``), with no Python frame, and everything else by the Python path.

Measured (``scripts/bench.py`` figure (d)): the Python path costs 2.5 to 8 us a push (the ctypes
callback, the push log, the coprocessor's dispatch, the executor); the C hook 0.05 to 0.2 us.

Each ``.ttinsn`` address of a core gets the C hook, whose user data is the address's ``Entry``.
The hook runs the instruction itself when the entry names one it mirrors (``_kind``: NOP,
INCRWC, SETRWC without bank flips, ZEROACC of one row, MOVD2A / MOVD2B with 16-bit Dst and no
column masked, and with every ``LaneConfig`` zero SFPLOAD, SFPSTORE, SFPLOADI, SFPMAD, SFPSETCC,
SFPENCC in their common modes; UNPACR and PACR in theirs, ``tdbg.emu.native_units``; the control
and sync words, ``tdbg.emu.native_ctrl``; MVMUL, ELWADD, ELWSUB, ELWMUL, MOVA2D, MOVB2D, MOVB2A in
theirs, ``tdbg.emu.native_matrix``, which also runs the words Python's Wait Gate queue releases:
``tdbg_run_queued``), the state it reads is as described (``Cop.valid``, the
config-derived values) and the run needs no Python record of each push (``Cop.mode``: no
watchpoint set).  It then logs the push in its ring (``NativeRecords``, which ``PushLog`` merges
in when read), bumps ``PushPath.seq`` (kept in ``Cop``) and the provenance of the ``Dst`` rows
it wrote.  An entry not described yet (its first visit) or whose config-derived values a config
write forgot is described first (``NativeCore._describe``: its kind and fields, from the
coprocessor's decode, once per word value and instruction set for the whole process, ``SharedWords``,
which C reads itself on a T core's first visit; and the config-derived values the instruction reads,
``MathConfig``, the ``ADDR_MOD`` entries, the SFPU's address bases; measured on tt-llk's datacopy,
where each word runs about once: 66 of its 120 Python pushes were first visits).  Otherwise it calls the
core's Python code hook (the reference, ``Core._code_hook``), or ``learn``: the Python hook,
then the description (B's first push, before which the thread its words go to is not known).  An
instruction's checks all come before its effects, so a push the C side declines has changed
nothing and the Python path runs it whole (and raises its events).  A word a T core stores to
``INSTRN_BUF_BASE`` goes the same way (the entry of the word table below), logged as a store: from
push.c's memory hook over the region (``NativeCore.hook_stores``, once the core has its native
side at a run's start), else from the store's device (``NativeCore.push_word``).

``valid`` is cleared by every Python push or recorded window access (they move ``PushPath.seq``:
the C hook sees it moved), every config write, every retry of the queues outside a push
(``Coprocessor.on_resume``) and at every run's start (the debugger may have changed anything); the
next mirrored word asks ``refresh`` (Python, a few us: less than the Python push it saves) to
describe the model again: the queues, latched waits and replay state (while other threads'
queues are held, by what the mirrored words never change, ``Coprocessor.settled_and_held``,
those words may still run here), the Src banks the Matrix Unit reads with their implied formats,
and the addresses of the arrays it works on (RWCs, ``Dst``, its provenance, Src, the Vector
Unit), which the model keeps in place.
A ``MOP`` or ``REPLAY`` word is expanded in C (``tdbg/native/frontend.c``, the expanders of
``tdbg.tensix.frontend`` on ``Coprocessor.replay_bits`` and ``MopCfg`` in place, ``MaskHi`` as
``refresh`` reads it) and the words it expands to run as above, each described once in a table
of words (``Cop.words``; ``describe`` fills the ones a push found missing, ``Cop.wanted``); at
the first word C does not run, Python's ``PushPath.run_rest`` takes the rest of the expansion
(``_handover``): so the push is logged once and what runs is what ``Coprocessor.push`` runs.
``Core._ask_stop`` sets the core's ``stop_asked`` too and reads its ``hooks``
(``tdbg_ask_stop``): the C hook keeps the Python hook's protocol.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

import numpy as np
from unicorn import UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UcError
from unicorn.riscv_const import UC_RISCV_REG_PC
from unicorn.unicorn_py3.unicorn import HOOK_CODE_CFUNC, uc_hook_h, uclib

from tdbg import native
from tdbg.arch import data_formats
from tdbg.emu import native_ctrl, native_matrix, native_units
from tdbg.emu.fasthook import add_mem_hook_fptr
from tdbg.native import address
from tdbg.tensix.events import MissingSpecification
from tdbg.tensix.frontend import REPLAY_WORDS
from tdbg.tensix.matrix_unit import math_config
from tdbg.tensix.rwc import entry_in_force
from tdbg.tensix.sfpu import loadstore

if TYPE_CHECKING:
    from tdbg.emu.core import Core
    from tdbg.emu.tile import Tile

MAXT = 4
K_UNKNOWN, K_NOP, K_INCRWC, K_SETRWC, K_ZEROACC_ROW, K_MOVD2A, K_MOVD2B, K_PYTHON = 0, 1, 2, 3, 4, 5, 6, 255
K_SFPLOAD, K_SFPSTORE, K_SFPLOADI, K_SFPMAD, K_SFPSETCC, K_SFPENCC = 7, 8, 9, 10, 11, 12
K_MOP, K_REPLAY = 15, 16   # (13, 14: native_units' UNPACR, PACR)
#: The Vector Unit instructions push.c mirrors, by mnemonic
VECTOR = {"SFPLOAD": K_SFPLOAD, "SFPSTORE": K_SFPSTORE, "SFPLOADI": K_SFPLOADI, "SFPMAD": K_SFPMAD,
          "SFPSETCC": K_SFPSETCC, "SFPENCC": K_SFPENCC}
#: push.c's style codes of tdbg.arch.data_formats' styles (0: no data format)
STYLES = {"BF16": 1, "FP16": 2, "TF32": 3}
MODE_PYTHON, MODE_FAST = 0, 1
#: Entries allocated at a time (a block never moves: hooks hold their entries' addresses).
BLOCK = 256
#: The ring's first size; it doubles (``refresh``) up to the log's limit, then wraps.
FIRST_RING = 1024
#: The table of expanded words (a power of two, filled to three quarters at most), the longest
#: expansion C runs (a longer one is Python's) and the words one push may ask ``learn`` for.
WORDS, EXPANDED, WANTED = 4096, 4096, 256

RECORD = np.dtype({"names": ["seq", "pc", "word", "core", "thread", "via"],
                   "formats": [np.uint64, np.uint32, np.uint32, np.uint8, np.uint8, np.uint8],
                   "offsets": [0, 8, 12, 16, 17, 18], "itemsize": 24})
VIA = ("ttinsn", "store")   # a record's via

_P, _I32, _U32, _U64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint32, ctypes.c_uint64
REFRESH = ctypes.CFUNCTYPE(None, _P)
HANDOVER = ctypes.CFUNCTYPE(None, _P, _U32, _U32)
DESCRIBE = ctypes.CFUNCTYPE(None, _P, _P)
#: frontend.c's fields, in its order: (encoding, field)
FRONTEND_FIELDS = (("MOP", "Template"), ("MOP", "Count1"), ("MOP", "MaskLo"), ("REPLAY", "Load"),
                   ("REPLAY", "Exec"), ("REPLAY", "Count"), ("REPLAY", "Index"))


class Fe(ctypes.Structure):
    """``struct fe`` of frontend.c."""

    _fields_ = [("mop_cfg", _P), ("replay", _P), ("cfg_words", _I32), ("mask_hi", _I32 * MAXT),
                ("mop_op", _U32), ("replay_op", _U32), ("nop_op", _U32),
                ("lsb", ctypes.c_uint8 * len(FRONTEND_FIELDS)), ("width", ctypes.c_uint8 * len(FRONTEND_FIELDS)),
                ("next", _U32 * REPLAY_WORDS)]


class Cop(ctypes.Structure):
    """``struct cop`` of push.c."""

    _fields_ = [("valid", _I32), ("mode", _I32), ("refresh", _P), ("rwc", _P), ("ever_written", _P),
                ("row16", _P), ("row32", _P), ("prov_seq", _P), ("seq", _U64), ("seen", _U64),
                ("math_known", _I32 * MAXT), ("dst_base", _I32 * MAXT), ("use32", _I32 * MAXT),
                ("addr_mod", ctypes.c_int16 * (MAXT * 2 * 8 * 16)),
                ("thread_ok", _I32),
                ("fp16a_force", _I32 * MAXT), ("implied", _I32 * MAXT), ("srca_fmt", _I32 * MAXT),
                ("bank_a", _I32), ("bank_b", _I32), ("fmt_a", _I32), ("fmt_b", _I32), ("style", _I32 * 16),
                ("dst_bits", _P), ("srca", _P), ("srcb", _P), ("lane_config", _P),
                ("lreg", _P), ("defined", _P), ("full", _P), ("vu_flags", _P), ("lane_flags", _P),
                ("use_flags", _P), ("unpredictable", _P), ("alias", _P),
                ("sfpu_known", _I32 * MAXT), ("sfpu_offset", _I32 * MAXT), ("sfpu_dst_base", _I32 * MAXT),
                ("sfpu_sp_base", _I32 * MAXT), ("srcb_mod0", _I32 * MAXT),
                ("ring", _P), ("cap", _U32), ("limit", _U32), ("head", _U32), ("count", _U32),
                ("total", _U64), ("per_thread", _U64 * MAXT), ("units", _P),
                ("held_ok", _I32), ("fe", _P), ("expanded", _P), ("wanted", _P), ("expanded_cap", _U32), ("wanted_cap", _U32),
                ("nwanted", _U32), ("words_mask", _U32), ("words", _P), ("handover", _P), ("ctrl", _P), ("via", _I32),
                ("matrix", _P), ("queued", _I32), ("shared", _P), ("words_used", _U32)]


class CoreC(ctypes.Structure):
    """``struct core`` of push.c."""

    _fields_ = [("cop", _P), ("fallback", _P), ("learn", _P), ("thread", _I32), ("index", _I32),
                ("hooks", _I32), ("stop_asked", _I32), ("pushes", _U64), ("describe", _P), ("shared_ok", _I32)]


class StoreHook(ctypes.Structure):
    """``struct store`` of push.c."""

    _fields_ = [("core", _P), ("fallback", _P), ("reg_read", _P), ("pc_reg", _I32)]


class Entry(ctypes.Structure):
    """``struct entry`` of push.c."""

    _fields_ = [("core", _P), ("word", _U32), ("kind", _U32), ("f", ctypes.c_uint16 * 12)]


class Shared(ctypes.Structure):
    """``struct shared`` of push.c."""

    _fields_ = [("slots", _P), ("mask", _U32), ("used", _U32)]


#: Slots of a profile's table of described words (a power of two; push.c fills three quarters).
SHARED_WORDS = 1 << 14


class SharedWords:
    """The kind and fields of every word described so far under one instruction set (push.c's
    ``struct shared``): they depend on the word and the encodings alone (``_kind``, ``_fill``),
    so every tile and session of the process with that ``Isa`` takes them from here, and a
    word's first visit in C asks Python only for the config-derived values, if those are not
    described yet.  Measured on tt-llk's matmul_bf16 (bench (g), a session after another): its
    run's Python ``describe`` calls 149 -> 8, its Python calls 15 406 -> 11 584."""

    _tables: dict[object, SharedWords] = {}

    def __init__(self) -> None:
        self.slots = (Entry * SHARED_WORDS)()
        self.s = Shared(ctypes.addressof(self.slots), SHARED_WORDS - 1, 0)
        self.address = ctypes.addressof(self.s)

    @classmethod
    def of(cls, isa: object) -> SharedWords:
        """The table of ``isa`` (an ``Isa``: immutable, one per profile's table, ``Isa.load``)."""
        table = cls._tables.get(isa)
        if table is None:
            table = cls._tables[isa] = cls()
        return table


#: What each mirrored instruction's C function reads, in its order (push.c).
FIELDS = {
    K_INCRWC: ("SrcAInc", "SrcACr", "SrcBInc", "SrcBCr", "DstInc", "DstCr"),
    K_SETRWC: ("SrcA", "SrcAVal", "SrcACr", "SrcB", "SrcBVal", "SrcBCr", "Dst", "DstCtoCr", "DstVal", "DstCr", "Fidelity"),
    K_ZEROACC_ROW: ("Imm10", "AddrMod"),
    K_MOVD2A: ("DstRow", "SrcRow", "Move4Rows", "AddrMod", "UseDst32bLo"),
    K_MOVD2B: ("DstRow", "SrcRow", "Move4Rows", "AddrMod", "UseDst32bLo"),
    K_SFPLOAD: ("Imm10", "AddrMod", "Mod0", "VD"),
    K_SFPSTORE: ("Imm10", "AddrMod", "Mod0", "VD"),
    K_SFPLOADI: ("Mod0", "Imm16", "VD"),
    K_SFPMAD: ("Mod1", "VA", "VB", "VC", "VD"),
    K_SFPSETCC: ("Mod1", "VC", "Imm1", "VD"),
    K_SFPENCC: ("Mod1", "Imm2", "VD"),
    **native_units.FIELDS,
    **native_matrix.FIELDS,
}
#: Where each kind's AddrMod is in its fields.
ADDR_MOD_AT = {K_ZEROACC_ROW: 1, K_MOVD2A: 3, K_MOVD2B: 3, K_SFPLOAD: 1, K_SFPSTORE: 1, **dict.fromkeys(native_matrix.FIELDS, 1)}


def _kind(mnemonic: str | None, f: dict[str, int]) -> int:
    """The entry kind of a decoded word (K_PYTHON: the Python path runs it)."""
    if mnemonic in ("NOP", "DMANOP"):   # (DMANOP.md: no effect)
        return K_NOP
    if mnemonic == "INCRWC":
        return K_INCRWC
    if mnemonic == "SETRWC" and not f["FlipSrcA"] and not f["FlipSrcB"]:
        return K_SETRWC
    if mnemonic == "ZEROACC" and f["Mode"] == 0:
        return K_ZEROACC_ROW
    if mnemonic in ("MOVD2A", "MOVD2B"):
        return K_MOVD2A if mnemonic == "MOVD2A" else K_MOVD2B
    matrix = native_matrix.kind(mnemonic, f)
    if matrix is not None:
        return matrix
    if mnemonic in ("UNPACR", "PACR"):
        return native_units.kind(mnemonic, f) or K_PYTHON
    if mnemonic in ("MOP", "REPLAY"):
        return K_MOP if mnemonic == "MOP" else K_REPLAY
    ctrl = native_ctrl.kind(mnemonic, f)
    if ctrl is not None:
        return ctrl
    kind = VECTOR.get(mnemonic or "")
    if kind is None or any(v for k, v in f.items() if k not in FIELDS[kind]) or f["VD"] >= 12:
        return K_PYTHON   # a field no page defines, or a backdoor load (vector_unit.instruction)
    if kind in (K_SFPLOAD, K_SFPSTORE) and f["Mod0"] == loadstore.INT32_ALL or kind == K_SFPLOAD and f["VD"] >= 8:
        return K_PYTHON
    if kind == K_SFPLOADI and f["Mod0"] not in (0, 1, 2, 4, 8, 10):
        return K_PYTHON   # UndefinedBehavior
    if kind == K_SFPMAD and f["Mod1"] & 12:
        return K_PYTHON   # INDIRECT_VA / INDIRECT_VD
    return kind


class NativePush:
    """A tile's native push path: ``Cop``, its records and its ``refresh`` (module docstring)."""

    def __init__(self, tile: Tile, lib: ctypes.CDLL) -> None:
        self.tile, self.lib = tile, lib
        path = tile.push_path
        self.cop = c = Cop()
        self.hook = ctypes.cast(lib.tdbg_push_hook, _P).value
        self._refresh_fptr = REFRESH(self._refresh)
        c.refresh = ctypes.cast(self._refresh_fptr, _P).value
        c.seq = c.seen = path.seq
        c.limit = path.log._items.maxlen or 0
        self.ring = np.zeros(min(FIRST_RING, c.limit), dtype=RECORD)
        c.ring, c.cap = self.ring.ctypes.data, len(self.ring)
        for code, f in data_formats.FORMATS.items():
            c.style[code] = STYLES[f.style]
        self.names: list[str] = []
        self._held: tuple = ()     # the arrays whose addresses ``cop`` holds, kept alive
        self._stale = True         # ... to be read again (a run starts)
        self.coprocessor = tile.coprocessor
        self.units = native_units.NativeUnits(tile, lib)
        c.units = ctypes.addressof(self.units.s)
        self.ctrl = native_ctrl.NativeCtrl(tile, lib, c)
        c.ctrl = ctypes.addressof(self.ctrl.s)
        self.in_run = False        # within a core's run (native_matrix.NativeMatrix.run_queued)
        self.matrix = native_matrix.NativeMatrix(self, lib)
        c.matrix = ctypes.addressof(self.matrix.s)
        self.cores: dict[int, NativeCore] = {}   # by their CoreC's address (``_handover``)
        self.fe = self._frontend()
        self.shared = SharedWords.of(self.coprocessor.isa)
        c.shared = self.shared.address
        self.coprocessor.state.config.on_change(self.config_changed)
        self.coprocessor.on_resume = self.resumed
        path.attach(self)

    def _frontend(self) -> Fe | None:
        """frontend.c's state and the word table (None: this profile's MopCfg is not the nine words
        frontend.c reads, and MOP / REPLAY stay Python's)."""
        c, cop = self.cop, self.coprocessor
        if cop.state.mop_cfg.shape[1] != 9:
            return None
        fe, isa = Fe(), cop.isa
        fe.cfg_words = 9
        fe.mop_op, fe.replay_op, fe.nop_op = (isa.encoding(m).opcode for m in ("MOP", "REPLAY", "NOP"))
        for i, (name, f) in enumerate(FRONTEND_FIELDS):
            layout = isa.encoding(name).field(f)
            fe.lsb[i], fe.width[i] = layout.lsb, layout.width
        self.words = (Entry * WORDS)()
        self.expanded, self.wanted = np.zeros(EXPANDED, dtype=np.uint32), np.zeros(WANTED, dtype=np.uint32)
        self._handover_fptr = HANDOVER(self._handover)
        c.fe, c.words, c.words_mask = ctypes.addressof(fe), ctypes.addressof(self.words), WORDS - 1
        c.expanded, c.expanded_cap, c.wanted, c.wanted_cap = self.expanded.ctypes.data, EXPANDED, self.wanted.ctypes.data, WANTED
        c.handover = ctypes.cast(self._handover_fptr, _P).value
        return fe

    def _handover(self, core: int, start: int, end: int) -> None:
        native = self.cores[core]
        try:
            self.tile.push_path.run_rest(native.core, native.c.thread, self.expanded[start:end].tolist())
        except BaseException as exc:   # noqa: BLE001 - a C callback must not raise (Core._code_hook's protocol)
            native.core._internal_error(exc)

    # -- Python's side of the state ---------------------------------------------------------------
    def begin_run(self) -> None:
        """A run starts: anything may have changed since the last (module docstring)."""
        c = self.cop
        c.valid, self._stale, self.in_run = 0, True, True
        c.mode = MODE_FAST if not self.tile.watches and native.library() is not None else MODE_PYTHON

    def end_run(self) -> None:
        """A run is over: until the next, the model's arrays may be replaced (a reset, a restore)."""
        self.in_run = False

    def config_changed(self) -> None:
        """A config write: forget what was derived from config."""
        c = self.cop
        c.valid = 0
        ctypes.memset(ctypes.addressof(c) + Cop.math_known.offset, 0, ctypes.sizeof(c.math_known))
        ctypes.memset(ctypes.addressof(c) + Cop.addr_mod.offset, 0, ctypes.sizeof(c.addr_mod))
        ctypes.memset(ctypes.addressof(c) + Cop.sfpu_known.offset, 0, ctypes.sizeof(c.sfpu_known))
        self.units.config_changed()
        self.matrix.config_changed()

    def resumed(self) -> None:
        """The queues are retried outside a push (a RISC-V semaphore write): what holds them, and
        what the instructions it lets go change, must be read again."""
        self.cop.valid = 0

    def _refresh(self, _: int) -> None:
        try:
            self.refresh()
        except BaseException:   # noqa: BLE001 - a C callback must not raise: the Python path runs it
            self.cop.valid = 0

    def refresh(self) -> None:
        """Describe the model to the C side again (``valid`` once done): what Python pushes
        change, and at a run's first refresh the arrays' addresses (the model writes its arrays
        in place; only a reset or a restore, between runs, may replace one)."""
        c, cop = self.cop, self.coprocessor
        if self._stale:
            self._addresses()
        if c.count == c.cap and c.cap < c.limit:
            self._grow()
        gates, replay, queues = cop.wait_gate, cop.replay, cop._queue
        idle = sum(1 << t for t in range(cop.threads) if gates[t] is None and not replay[t].load_left and not queues[t])
        ok = held = 0
        if not any(queues):
            ok = idle
        elif cop.settled_and_held():
            held = idle   # (for the words that release nothing: push.c's releases_nothing)
        c.held_ok = held
        c.thread_ok = ok
        self.matrix.banks()
        self.units.refresh()
        self.ctrl.refresh()
        if self.fe is not None:
            for t, mop in enumerate(cop.mop[:MAXT]):
                self.fe.mask_hi[t] = mop.MaskHi
        c.valid = 1

    def _addresses(self) -> None:
        c, cop, tile = self.cop, self.coprocessor, self.tile
        dst, state, vu = tile.tensix.dst, cop.state, cop.vector
        self._held = held = (cop.rwc_bits, dst.ever_written, dst.row16, dst.row32, tile.push_path.provenance.seq,
                             dst.bits, state.srca.data, state.srcb.data, vu.lane_config, vu.lreg, vu.defined, vu.full,
                             vu.flags, vu.lane_flags, vu.use_lane_flags, dst.unpredictable, dst.alias_flag)
        (c.rwc, c.ever_written, c.row16, c.row32, c.prov_seq, c.dst_bits, c.srca, c.srcb, c.lane_config,
         c.lreg, c.defined, c.full, c.vu_flags, c.lane_flags, c.use_flags, c.unpredictable,
         c.alias) = (address(a) for a in held)
        self.units.addresses()
        self.ctrl.addresses()
        self.matrix.addresses()
        if self.fe is not None:
            self._held += (state.mop_cfg, cop.replay_bits)
            self.fe.mop_cfg, self.fe.replay = address(state.mop_cfg), address(cop.replay_bits)
        self._stale = False

    def _grow(self) -> None:
        """Twice the ring (its records oldest first)."""
        c = self.cop
        old = self.ring_records()
        self.ring = np.zeros(min(2 * c.cap, c.limit), dtype=RECORD)
        self.ring[:len(old)] = old
        c.ring, c.cap, c.head = self.ring.ctypes.data, len(self.ring), len(old) % len(self.ring)

    def describe(self, core: Core, entry: Entry, thread: int | None = None) -> None:
        """The entry's kind and fields, and the config-derived values its instruction reads for
        the core's thread (``thread``: where its pushes go, default the ``.ttinsn`` words'); so
        for the expanded words C asked for."""
        k = core._native
        assert k is not None
        if entry.kind == K_UNKNOWN:
            thread = core._push_thread if thread is None else thread
            if thread is None or thread >= MAXT:
                entry.kind = K_PYTHON
                return
            k.c.thread = thread
            self._fill(entry)
            if (entry.kind == K_MOP and core.thread is None) or (entry.kind in (K_MOP, K_REPLAY) and self.fe is None):
                entry.kind = K_PYTHON   # B pushes after the MOP Expander (PushTensixInstruction.md)
        self._derive_for(k.c.thread, entry)
        c = self.cop
        for word in dict.fromkeys(self.wanted[:c.nwanted].tolist()):   # (an expansion repeats its words)
            slot = self.lib.tdbg_word_entry(ctypes.addressof(c), word)
            if slot:
                x = Entry.from_address(slot)
                if x.kind == K_UNKNOWN:
                    self._fill(x)
                self._derive_for(k.c.thread, x)
        c.nwanted = 0

    def _fill(self, entry: Entry) -> None:
        """The entry's kind and fields (the word's: the shared table's, or decoded and kept there)."""
        shared, at = self.shared.address, ctypes.addressof(entry)
        if self.lib.tdbg_shared_get(shared, at):
            return
        b = self.coprocessor.bound(entry.word)
        kind = _kind(b.mnemonic, b.fields)
        if kind in native_ctrl.FIELDS:
            values = native_ctrl.values(kind, b.mnemonic, b.fields)
        elif kind in native_matrix.FIELDS:
            values = native_matrix.values(kind, b.fields)
        else:
            values = [b.fields[name] for name in FIELDS.get(kind, ())]
        entry.f[:] = [*values, *[0] * (len(entry.f) - len(values))]
        entry.kind = kind
        self.lib.tdbg_shared_put(shared, at)

    def _derive_for(self, t: int, entry: Entry) -> None:
        at = ADDR_MOD_AT.get(entry.kind)
        if at is not None:
            self._derive(t, entry.f[at])
        if entry.kind in (K_SFPLOAD, K_SFPSTORE):
            self._derive_sfpu(t)
        if entry.kind in native_units.FIELDS:
            self.units.describe(t, entry)
        if entry.kind in native_matrix.FIELDS:
            self.matrix.describe(t)

    def describe_word(self, t: int, word: int) -> None:
        """The word table's entry of ``word`` (a word thread ``t``'s queue releases), as
        ``describe`` fills it, and what it reads for ``t``."""
        slot = self.lib.tdbg_word_entry(ctypes.addressof(self.cop), word)
        if not slot:
            return
        x = Entry.from_address(slot)
        try:
            if x.kind == K_UNKNOWN:
                self._fill(x)
            self._derive_for(t, x)
        except BaseException:   # noqa: BLE001 - a C caller waits: the word stays Python's
            x.kind = K_PYTHON

    def _derive(self, t: int, addr_mod: int) -> None:
        c, cop = self.cop, self.coprocessor
        config = cop.state.config
        if not c.math_known[t]:
            m = math_config(cop, t)
            c.dst_base[t], c.use32[t] = m.dst_base, m.fp32_dst or m.int8_math   # type: ignore[attr-defined]
            c.fp16a_force[t], c.implied[t], c.srca_fmt[t] = m.fp16a_force, m.implied, m.srca_fmt  # type: ignore[attr-defined]
            c.math_known[t] = 1
        for extra in (0, 1):
            at = ((t * 2 + extra) * 8 + addr_mod) * 16
            if c.addr_mod[at + 14]:
                continue
            try:
                e = entry_in_force(config, t, addr_mod, extra)
            except MissingSpecification:
                c.addr_mod[at + 14] = 2   # the Python path raises it
                continue
            for i, v in enumerate(e):   # type: ignore[arg-type]
                c.addr_mod[at + i] = v
            c.addr_mod[at + 14] = 1

    def _derive_sfpu(self, t: int) -> None:
        c, cop = self.cop, self.coprocessor
        if not c.sfpu_known[t]:
            c.sfpu_offset[t], c.sfpu_dst_base[t], c.sfpu_sp_base[t] = loadstore.address_bases(cop, t)
            c.srcb_mod0[t] = loadstore.resolve_mod0(cop, t, loadstore.SRCB)
            c.sfpu_known[t] = 1

    # -- the records (tdbg.emu.pushlog.NativeRecords) -----------------------------------------------
    @property
    def total(self) -> int:
        return self.cop.total

    @property
    def count(self) -> int:
        return self.cop.count

    def per_thread(self) -> list[int]:
        return list(self.cop.per_thread)

    def ring_records(self) -> np.ndarray:
        """The ring's records, oldest first."""
        c = self.cop
        if c.count < c.cap:
            start = (c.head - c.count) % c.cap
            return self.ring[start:start + c.count] if start + c.count <= c.cap else np.concatenate(
                (self.ring[start:], self.ring[:c.head]))
        return np.concatenate((self.ring[c.head:], self.ring[:c.head]))

    def records(self, newest: int | None = None) -> list[tuple]:
        """The ring's records (its ``newest``), oldest first, as ``PushLog`` keeps its own."""
        kept = self.ring_records()
        if newest is not None:
            kept = kept[len(kept) - min(newest, len(kept)):]
        return self._tuples(kept)

    def find(self, seq: int) -> tuple | None:
        """The ring's record of push ``seq``, if it holds it."""
        kept = self.ring_records()
        i = int(np.searchsorted(kept["seq"], seq))
        return self._tuples(kept[i:i + 1])[0] if i < len(kept) and kept[i]["seq"] == seq else None

    def _tuples(self, kept: np.ndarray) -> list[tuple]:
        names = self.names
        return [(int(seq), pc, names[core], thread, word, VIA[via]) for seq, pc, word, core, thread, via in kept.tolist()]

    def newest(self) -> int:
        c = self.cop
        return int(self.ring[(c.head - 1) % c.cap]["seq"])

    def drop_newest(self) -> None:
        c = self.cop
        c.head = (c.head - 1) % c.cap
        c.count -= 1

    def clear_counts(self) -> None:
        c = self.cop
        c.total = 0
        for t in range(MAXT):
            c.per_thread[t] = 0

    def clear(self) -> None:
        self.clear_counts()
        self.cop.count = self.cop.head = 0


class NativeCore:
    """One core's side: ``CoreC`` and the entries of its hooked ``.ttinsn`` addresses."""

    def __init__(self, path: NativePush, core: Core) -> None:
        self.path, self.core = path, core
        self.c = c = CoreC()
        self.c_address = ctypes.addressof(c)
        c.cop = ctypes.addressof(path.cop)
        c.thread = core._push_thread if core._push_thread is not None else (core.thread or 0)
        if core.name not in path.names:
            path.names.append(core.name)
        c.index = path.names.index(core.name)
        path.cores[self.c_address] = self
        c.fallback = ctypes.cast(core._code_fptr, _P).value
        self._learn_fptr = HOOK_CODE_CFUNC(self._learn)
        c.learn = ctypes.cast(self._learn_fptr, _P).value
        self._describe_fptr = DESCRIBE(self._describe)
        c.describe = ctypes.cast(self._describe_fptr, _P).value
        c.shared_ok = core.thread is not None and core.thread < MAXT and core._push_thread in (None, core.thread)
        self._blocks: list[ctypes.Array] = []
        self._used = BLOCK        # entries of the newest block handed out (an Entry object is made
        self._free: list[Entry] = []   # only when handed out: a block's 256 would be the GC's to walk)
        self.entries: dict[int, Entry] = {}
        self._handle = uc_hook_h()                 # reused by every ``add`` (plain ints for the rest:
        self._handle_ref = ctypes.byref(self._handle)   # the binding declares uc_hook_add's argtypes)

    def _learn(self, handle: int, address: int, size: int, user: int) -> None:
        self.core._code_py(handle, address, size, user)
        entry = self.entries.get(address)
        if entry is not None:
            try:
                self.path.describe(self.core, entry)
            except BaseException:   # noqa: BLE001 - a C callback must not raise: the entry stays Python's
                entry.kind = K_PYTHON

    def _describe(self, _: int, entry: int) -> None:
        """The C side asks before it runs the entry: its description (``learn``'s, with no push;
        none before B's first push says which thread its words go to)."""
        x = Entry.from_address(entry)
        core = self.core
        thread = core._push_thread if core._push_thread is not None else core.thread
        if x.kind == K_UNKNOWN and thread is None:
            return
        try:
            self.path.describe(core, x, thread)
        except BaseException:   # noqa: BLE001 - a C callback must not raise: the entry stays Python's
            x.kind = K_PYTHON

    def push_word(self, pc: int, word: int) -> bool:
        """Push ``word``, stored by the core (a T core: to its own thread) at ``pc``, in C if it
        can (``tdbg_push_word``); False: the Python path pushes it."""
        return bool(self.path.lib.tdbg_push_word(self.c_address, word, pc))

    def add(self, address: int, word: int) -> int:
        """Hook ``address`` (a ``.ttinsn`` of ``word``) with the C hook; returns the handle."""
        if self._free:
            entry = self._free.pop()
        else:
            if self._used == BLOCK:
                self._blocks.append((Entry * BLOCK)())
                self._used = 0
            entry, self._used = self._blocks[-1][self._used], self._used + 1
        entry.core, entry.word, entry.kind = self.c_address, word, K_UNKNOWN
        uc = self.core.uc
        status = uclib.uc_hook_add(uc._uch, self._handle_ref, UC_HOOK_CODE, self.path.hook, ctypes.addressof(entry),
                                   address, address)
        if status:
            self._free.append(entry)
            raise UcError(status)
        self.entries[address] = entry
        handle = self._handle.value
        uc._callbacks[handle] = entry   # what the binding's hook_del drops
        return handle

    def remove(self, address: int) -> None:
        """``address`` is unhooked (``uc.hook_del`` of its handle): its entry is free again."""
        entry = self.entries.pop(address, None)
        if entry is not None:
            self._free.append(entry)

    def ask_stop(self) -> int:
        """Set ``stop_asked``; the C hook's entries and exits so far."""
        return self.path.lib.tdbg_ask_stop(ctypes.addressof(self.c))  # type: ignore[no-any-return]

    def begin_run(self) -> None:
        self.c.stop_asked = 0
        if self.core._instrn_hook is not None:
            self.hook_stores()
        self.path.begin_run()

    def hook_stores(self) -> None:
        """Give the stores to the core's ``INSTRN_BUF_BASE`` region (a T core's) to push.c's
        ``tdbg_store_hook``, which pushes a word by ``tdbg_push_word`` with no Python frame and
        calls the region's Python hook (then its loads' only) for the rest (between runs: no
        hook of a running core changes).  Measured on tt-llk's matmul_bf16: 47 stored pushes a
        run, each cost the Python hook, ``on_write``, the device and ``push_word``."""
        core = self.core
        assert core._instrn_hook is not None
        handle, begin, end = core._instrn_hook
        core._instrn_hook = None
        uc = core.uc
        fallback = uc._callbacks[handle]
        self._stores = StoreHook(self.c_address, ctypes.cast(fallback, _P).value,
                                 ctypes.cast(uclib.uc_reg_read, _P).value, UC_RISCV_REG_PC)
        uc.hook_del(handle)
        add_mem_hook_fptr(uc, UC_HOOK_MEM_READ, fallback, begin, end)
        status = uclib.uc_hook_add(uc._uch, self._handle_ref, UC_HOOK_MEM_WRITE,
                                   ctypes.cast(self.path.lib.tdbg_store_hook, _P).value,
                                   ctypes.addressof(self._stores), begin, end)
        if status:
            raise UcError(status)
        uc._callbacks[self._handle.value] = (self._stores, fallback)   # kept while hooked

    def end_run(self) -> None:
        self.path.end_run()

    @property
    def hooks(self) -> int:
        return self.c.hooks

    @property
    def pushes(self) -> int:
        return self.c.pushes


def for_core(core: Core) -> NativeCore | None:
    """The core's native side (made with the tile's on first use), or None without the native
    library."""
    lib = native.library()
    tile = core.tile
    state = tile.coprocessor.state
    if lib is None or state.srca.data.shape[1:] != (64, 16) or state.dst.cols != 16:   # push.c's sizes
        return None
    layouts = (ctypes.sizeof(Cop), ctypes.sizeof(CoreC), ctypes.sizeof(Entry), RECORD.itemsize)
    if tuple(lib.tdbg_push_size(i) for i in range(4)) != layouts:
        raise native.NativeError(f"tdbg/native/push.c's structures are not {layouts} bytes: the two sides disagree")
    path = tile.push_path.native
    if path is None:
        path = NativePush(tile, lib)
    return NativeCore(path, core)
