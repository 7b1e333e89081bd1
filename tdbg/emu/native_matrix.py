"""The native push path's Matrix Unit words (``tdbg/native/matrix_push.c``): which words it runs,
the config-derived values and Src bank state it reads (``describe``, ``banks``), the arrays it
works on in place (``addresses``), and the words Python's Wait Gate queue releases, which it
runs too (``run_queued``, the coprocessor's ``native_execute``).

Why the queue (measured on tt-llk's matmul, ``scripts/bench.py`` figure (g)): every MVMUL of
tt-llk's math thread comes after a ``STALLWAIT`` on the Src banks' data-valid, which latches
(the unpacker has not handed the banks over yet), so the whole MOP's expansion waits in Python's
queue and Python's ``Coprocessor._run`` releases it when the unpacker's ``SETDVALID`` /
``UNPACR`` lands; the ``.ttinsn`` hook never sees those words.  ``run_queued`` hands each released
word to C (``tdbg_run_queued``) when its kind reads only what is described here: the counters,
``Dst``, Src, ``LaneConfig``, the config-derived values (forgotten at every config write) and
the Src banks (``banks``, read anew before each word: the Python words around it move them).
A released MVMUL / ELW* that flips a bank (tt-llk's last of a tile, clearing its data-valid)
runs in C but for the flip, which ``run_queued`` makes then (``matrix_unit.flip_banks``: it
changes what holds other words at the Wait Gate, which only Python's queue sees).

UNPACR and PACR (``tdbg.emu.native_units``, in the modes the hook path runs) go the same way: every
UNPACR / PACR of tt-llk's kernels waits at the Wait Gate behind a latched wait.  The units' state
Python words change (the unpackers' banks and their AllowedClient, ``SrcRow``, code ranges, the
journal) is read before each (``NativeUnits.refresh``); an UNPACR's Wait Gate check has just
settled every latched wait (``Coprocessor._run``'s ``_held``), so another thread's latch does not
make it Python's here as it does when pushed; FlipSrc runs in C but for the flip
(``unpackers.flip_src`` after it).  Their L1 accesses go into the L1 log's one ring, in the order
made whichever side made them (``tdbg.emu.pushlog.L1Log``).  tt-llk's eltwise kernels: 8-64
UNPACRs and 0-96 PACRs left to Python each, now none.

Measured (one word through ``run_queued`` against Python's ``_execute``): MVMUL 6.7 against 13 us,
ELWADD 2.5 against 6.9, MOVA2D 1.5 against 18, MOVD2A 2.5 against 10, ZEROACC 1.5 against 2.5;
NOP, INCRWC and SETRWC cost Python 0.2-0.5 us, less than the call (1.4 us): they stay Python's
off the queue (``QUEUED``).  ``scripts/bench.py`` (d) FPU mix: 54-71 -> 390-410 k words/s.

What the C side declines (the Python path runs it: an event, a hold at the Wait Gate, or its
numpy path): a bank flip pushed to the hook (``FlipSrcA`` / ``FlipSrcB``), the INT8 style, an ELWADD /
ELWSUB in a fidelity phase other than 0, a format that names no style, an MVMUL with
``Zero_Flag_disabled_src`` or SrcA rows past 63, a masked column for the moves, a bank not the
Matrix Unit's, ``Dst16b`` aliasing ``Dst32b`` and an unpredictable cell in the rows it writes.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from tdbg import native
from tdbg.arch import data_formats
from tdbg.native import address
from tdbg.tensix.matrix_unit import flip_banks, math_config
from tdbg.tensix.src import SrcClient
from tdbg.tensix.unpackers import flip_src

if TYPE_CHECKING:
    from tdbg.emu.native_push import NativePush

MAXT = 4
K_MVMUL, K_ELWADD, K_ELWSUB, K_ELWMUL, K_MOVA2D, K_MOVB2D, K_MOVB2A = range(32, 39)
#: What each kind's C function reads, in its order (matrix_push.c; AddrMod always second).
FIELDS = {
    K_MVMUL: ("DstRow", "AddrMod", "BroadcastSrcBRow"),
    K_ELWADD: ("DstRow", "AddrMod", "BroadcastSrcBCol0", "BroadcastSrcBRow", "AddDst"),
    K_ELWSUB: ("DstRow", "AddrMod", "BroadcastSrcBCol0", "BroadcastSrcBRow", "AddDst"),
    K_ELWMUL: ("DstRow", "AddrMod", "BroadcastSrcBCol0", "BroadcastSrcBRow"),
    K_MOVA2D: ("DstRow", "AddrMod", "Move8Rows", "SrcRow", "UseDst32bLo"),
    K_MOVB2D: ("DstRow", "AddrMod", "BroadcastCol0", "Broadcast1RowTo8", "Move4Rows", "SrcRow", "UseDst32bLo"),
    K_MOVB2A: ("SrcARow", "AddrMod", "Move4Rows", "SrcBRow"),
}
_KINDS = {"MVMUL": K_MVMUL, "ELWADD": K_ELWADD, "ELWSUB": K_ELWSUB, "ELWMUL": K_ELWMUL, "MOVA2D": K_MOVA2D,
          "MOVB2D": K_MOVB2D, "MOVB2A": K_MOVB2A}
#: The words ``run_queued`` hands to C (push.c's runs_queued: the rest cost Python less than the call)
QUEUED = {*_KINDS, "ZEROACC", "MOVD2A", "MOVD2B", "UNPACR", "PACR"}
#: ... of which the unpackers' and the packer's (``tdbg.emu.native_units``: its state read first)
UNITS = {"UNPACR", "PACR"}
#: Where the entry's fields hold FlipSrcA and FlipSrcB (``values``)
FLIPS_AT = 10
#: push.c's style codes (native_push.STYLES)
_STYLES = {"BF16": 1, "FP16": 2, "TF32": 3}

_P, _I32 = ctypes.c_void_p, ctypes.c_int32


def kind(mnemonic: str | None, f: dict[str, int]) -> int | None:
    """The entry kind of a Matrix Unit word (None: not one matrix_push.c runs)."""
    return _KINDS.get(mnemonic or "")


def values(k: int, f: dict[str, int]) -> list[int]:
    """The entry's fields for kind ``k`` (``FIELDS``), FlipSrcA and FlipSrcB at ``FLIPS_AT``."""
    out = [f[name] for name in FIELDS[k]]
    return [*out, *[0] * (FLIPS_AT - len(out)), f.get("FlipSrcA", 0), f.get("FlipSrcB", 0)]


class Matrix(ctypes.Structure):
    """``struct matrix`` of matrix_push.c."""

    _fields_ = [*((n, _I32 * MAXT) for n in ("known", "fp16a_force", "int8_math", "fp32_dst", "zero_flag_disabled",
                                             "fidelity_base", "implied", "srca_fmt", "dst_base")),
                *((n, _I32) for n in ("bank_a", "bank_b", "fmt_a", "fmt_b", "ready")),
                ("style", _I32 * 16), ("tf32", _I32),
                *((n, _P) for n in ("bits", "written", "unpredictable", "alias", "row16", "row32", "srca", "srcb",
                                    "lane_config")),
                ("ran", ctypes.c_uint64)]


class NativeMatrix:
    """A tile's ``Matrix`` (module docstring)."""

    def __init__(self, path: NativePush, lib: ctypes.CDLL) -> None:
        if lib.tdbg_matrix_size() != ctypes.sizeof(Matrix):
            raise native.NativeError(f"tdbg/native/matrix_push.c's struct matrix is not {ctypes.sizeof(Matrix)} bytes: "
                                     "the two sides disagree")
        self.path, self.lib = path, lib
        self.coprocessor = cop = path.coprocessor
        self.s = s = Matrix()
        for code, f in data_formats.FORMATS.items():
            s.style[code] = _STYLES[f.style]
        s.tf32 = data_formats.DataFormat.TF32
        self._held: tuple = ()
        #: per word seen off the queue: None, never in C; else whether it is an UNPACR / PACR
        #: (``UNITS``) and its fields if it flips a bank (None if not)
        self._plan: dict[int, tuple[bool, dict[str, int] | None] | None] = {}
        self._cop_address = ctypes.addressof(path.cop)
        self._run = lib.tdbg_run_queued
        cop.native_execute = self.run_queued

    def addresses(self) -> None:
        """The arrays the C side works on (``NativePush._addresses``: a run starts)."""
        s, cop = self.s, self.coprocessor
        dst, state = cop.state.dst, cop.state
        self._held = held = (dst.bits, dst.ever_written, dst.unpredictable, dst.alias_flag, dst.row16, dst.row32,
                             state.srca.data, state.srcb.data, cop.vector.lane_config)
        (s.bits, s.written, s.unpredictable, s.alias, s.row16, s.row32, s.srca, s.srcb,
         s.lane_config) = (address(a) for a in held)

    def config_changed(self) -> None:
        """A config write: forget the MathConfig values."""
        ctypes.memset(ctypes.addressof(self.s) + Matrix.known.offset, 0, ctypes.sizeof(self.s.known))

    def describe(self, t: int) -> None:
        """Thread ``t``'s MathConfig values, once per config change."""
        s = self.s
        if s.known[t]:
            return
        m = math_config(self.coprocessor, t)
        (s.fp16a_force[t], s.int8_math[t], s.fp32_dst[t], s.zero_flag_disabled[t], s.fidelity_base[t], s.implied[t],
         s.srca_fmt[t], s.dst_base[t]) = (m.fp16a_force, m.int8_math, m.fp32_dst, m.zero_flag_disabled_src,
                                          m.fidelity_base, m.implied, m.srca_fmt, m.dst_base)
        s.known[t] = 1

    def banks(self) -> None:
        """The Src banks the Matrix Unit reads now, their implied formats and whether each is the
        Matrix Unit's (``Coprocessor._holds``); push.c's own copy of the banks too (MOVD2A /
        MOVD2B read it)."""
        s, c, state = self.s, self.path.cop, self.coprocessor.state
        banks, srca, srcb = state.src_banks, state.srca, state.srcb
        a, b = banks.matrix_unit_srca, banks.matrix_unit_srcb
        s.bank_a = c.bank_a = a
        s.bank_b = c.bank_b = b
        s.fmt_a = c.fmt_a = srca.fmt[a]
        s.fmt_b = c.fmt_b = srcb.fmt[b]
        s.ready = (srca.allowed_client[a] == SrcClient.MatrixUnit) | (srcb.allowed_client[b] == SrcClient.MatrixUnit) << 1

    def run_queued(self, thread: int, word: int) -> bool:
        """Run ``word``, which thread ``thread``'s Wait Gate queue releases, in C if it can
        (``tdbg_run_queued``); False: the Python path runs it.  Outside a run (the words queued
        behind an event, released as the run goes on: ``PushPath.go_on``) the model's arrays may
        have been replaced and a watchpoint set (or the library disabled) since: their addresses
        are read again, and a watchpoint leaves every word to Python (it records what each
        writes)."""
        path = self.path
        plan = self._plan.get(word, False)
        if plan is False:
            b = self.coprocessor.bound(word)
            f = b.fields
            flips = f.get("FlipSrcA") or f.get("FlipSrcB") or f.get("FlipSrc")
            plan = self._plan[word] = (b.mnemonic in UNITS, f if flips else None) if b.mnemonic in QUEUED else None
        if plan is None:
            return False
        units, flips = plan
        if not path.in_run:
            if path.tile.watches or native.library() is None:
                return False
            path._addresses()
        elif path._stale:
            path._addresses()
        if units:
            path.units.refresh()
        else:
            self.banks()
        run = self._run
        done = run(self._cop_address, thread, word)
        if done == -1:
            path.describe_word(thread, word)
            done = run(self._cop_address, thread, word)
        if done == -2:
            self._plan[word] = None
        elif done > 0 and flips is not None:   # (C ran all but the flips: matrix_push.c, unpack_pack.c)
            (flip_src if units else flip_banks)(self.coprocessor, thread, flips)
        return done > 0  # type: ignore[no-any-return]
