"""The Vector Unit predication programs that tdbg and ttsim both run (``data/sfpu_predication_ttsim.json``,
``scripts/sfpu_predication_fixture.py``): one word stream, pushed by TRISC0, whose only output is L1.

A program is its seeding words (``LReg[0..7]`` given per-lane values from ``LReg[15]``, the lane
number), its body (the random predication sequence) and what this module adds around them:

- before: every lane enabled (``SFPENCC Mod1=10 Imm2=3``); the configuration that the packer and
  ``SFPLOAD``/``SFPSTORE``'s implied format read (``RMWCIB0-3`` into Config, ``SETC16`` into
  ThreadConfig, ``SETADCXX``); after the seeding, the Dst data area the body loads and stores
  (``DATA``, the eight ``LReg`` stored raw) and the lane-enable marks zeroed;
- after: the lane-enable mask of the body's end, then of each flag-stack entry as ``SFPPOPC``
  restores it (``LReg[10]``, 1.0, stored into a zeroed mark where the lanes are enabled), every
  lane enabled again, ``LReg[0..7]`` stored raw (``SFPSTORE Mod0=4``) and Dst rows 0..51 packed
  to L1 ``OUT`` as FP32 (four rows a ``PACR``).

An ``SFPNOP`` follows every seeding and body word: ttsim has no pipeline, tdbg models SFPMAD.md's
"Instruction scheduling" hazard, and a NOP keeps it out of a comparison of values.
"""

from __future__ import annotations

import base64
import struct
from functools import cache

import numpy as np

from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.config import CfgTable
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

ENC = isa_of(BLACKHOLE).encode
OUT = 0x50000                  # L1 address of the packed Dst rows
ROWS = 52                      # Dst32b rows packed: LRegs 0-15, marks 16-35, data 36-51
MARK = [16 + 2 * k for k in range(10)]  # SFPSTORE Imm10 of mark k (an Imm10 with bit 1 set: the odd columns)
DATA = [36 + 2 * h for h in range(8)]   # SFPSTORE/SFPLOAD Imm10 of the data area's eight halves
NOP = ENC("SFPNOP")

CONFIG = {  # Config bank 0 (TRISC0's CFG_STATE_ID 0): FP32 Dst32b rows packed raw to FP32 at OUT
    "ALU_ACC_CTRL_SFPU_Fp32_enabled": 1,     # SFPLOAD/SFPSTORE Mod0 0 = FP32
    "THCON_SEC0_REG1_Disable_zero_compress": 1,
    "THCON_SEC0_REG1_L1_Dest_addr": OUT // 16 - 1,
    "PCK_EDGE_OFFSET_SEC0_mask": 0xFFFF,
    "PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": 16,
    "PCK0_ADDR_CTRL_XY_REG_0_Ystride": 64,   # one FP32 row
    "PCK_DEST_RD_CTRL_Read_32b_data": 1,
}
THREAD_CONFIG = {"ADDR_MOD_PACK_SEC0_YsrcIncr": 4}   # each PACR (AddrMode 0) moves on four rows


@cache
def config_words() -> tuple[int, ...]:
    """RMWCIB0-3 for each Config byte ``CONFIG`` sets, SETC16 for each ThreadConfig word."""
    table = CfgTable.load(BLACKHOLE.package, BLACKHOLE.cfg_table)
    words: dict[int, tuple[int, int]] = {}   # Config word -> (mask, value)
    thread: dict[int, int] = {}
    for name, value in CONFIG.items():
        f = table.field(name)
        mask, bits = words.get(f.addr32, (0, 0))
        words[f.addr32] = (mask | f.mask, bits | (value << f.shamt))
    for name, value in THREAD_CONFIG.items():
        f = table.field(name)
        thread[f.addr32] = thread.get(f.addr32, 0) | (value << f.shamt)
    out = []
    for addr, (mask, bits) in words.items():
        for byte in range(4):
            m = (mask >> (8 * byte)) & 0xFF
            if m:
                out.append(ENC(f"RMWCIB{byte}", Index4=addr, Mask=m, NewValue=(bits >> (8 * byte)) & 0xFF))
    out += [ENC("SETC16", CfgIndex=addr, NewValue=value) for addr, value in thread.items()]
    # the packer's address counters from zero (a run before this one on the same ttsim moved them)
    reset = ENC("SETADCXY", PK=1, X0=1, Y0=1, X1=1, Y1=1), ENC("SETADCZW", PK=1, Z0=1, W0=1, Z1=1, W1=1)
    return (*out, *reset, ENC("SETADCXX", PK=1, X0Val=0, X1Val=15))


def depth(body: list[int]) -> int:
    """The flag stack's depth after ``body`` (SFPPUSHC / SFPPOPC of Mod1 0)."""
    return sum((w == _PUSH) - (w == _POP) for w in body)


#: How a case starts: every lane enabled through the lane flags (``SFPENCC Mod1=10 Imm2=3``:
#: UseLaneFlagsForLaneEnable and LaneFlags true), or in VectorUnit.md's power-on state (both
#: false).  ttsim v1.10.0 powers on with both true (tensix.cpp ``tensix_init``: ``cc_en = true``,
#: ``cc = 0xFFFFFFFF``), so its stream starts with ``SFPENCC Mod1=10 Imm2=0``; tdbg's starts bare.
#: "bare": nothing first on either (each in its own power-on state).
START = {"enabled": ([ENC("SFPENCC", Mod1=10, Imm2=3)],) * 2, "page": ([ENC("SFPENCC", Mod1=10, Imm2=0)], []),
         "bare": ([], [])}


def program(seed: list[int], body: list[int], start: str = "enabled", ttsim: bool = False) -> list[int]:
    """The whole word stream for TRISC0 (ttsim's, or tdbg's: they differ only in ``START``)."""
    words = [*START[start][0 if ttsim else 1], *config_words()]
    for w in seed:
        words += [w, NOP]
    words += _AFTER_SEED
    for w in body:
        words += [w, NOP]
    words.append(_MARK_END)
    for k in range(1, depth(body) + 1):
        words += [_POP, _MARK[k]]
    return words + _DUMP


_AFTER_SEED = [ENC("SFPSTORE", VD=j, Mod0=4, Imm10=DATA[j]) for j in range(8)] + \
              [ENC("SFPSTORE", VD=9, Mod0=4, Imm10=m) for m in MARK]
_MARK = [ENC("SFPSTORE", VD=10, Mod0=4, Imm10=m) for m in MARK]
_MARK_END, _PUSH, _POP = _MARK[0], ENC("SFPPUSHC"), ENC("SFPPOPC")
_DUMP = [ENC("SFPENCC", Mod1=10, Imm2=3)] + \
        [ENC("SFPSTORE", VD=j, Mod0=4, Imm10=4 * (j // 2) + 2 * (j % 2)) for j in range(8)] + \
        [ENC("PACR", AddrMode=0, Last=int(g == ROWS // 4 - 1)) for g in range(ROWS // 4)]


def lregs(out: bytes) -> list[list[int]]:
    """``LReg[0..7]`` lane by lane from the packed rows (SFPSTORE.md's lane -> row, column map)."""
    rows = np.frombuffer(out, dtype="<u4").reshape(ROWS, 16)
    lane = np.arange(32)
    return [rows[4 * (j // 2) + lane // 8, 2 * (lane & 7) + j % 2].tolist() for j in range(8)]


def enabled(out: bytes, k: int) -> int:
    """Mark ``k`` as a 32-bit lane mask (bit ``lane``: the lane was enabled)."""
    rows = np.frombuffer(out, dtype="<u4").reshape(ROWS, 16)
    lane = np.arange(32)
    m = MARK[k]
    bits = rows[(m & ~3) + lane // 8, 2 * (lane & 7) + ((m >> 1) & 1)] != 0
    return int(sum(1 << int(i) for i in np.flatnonzero(bits)))


def unpack(text: str) -> list[int]:
    """Words from the fixture's base64."""
    raw = base64.b64decode(text)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def run_tdbg(words: list[int]) -> bytes:
    """The bytes at ``OUT`` after tdbg's coprocessor ran ``words`` on thread 0 from power-on."""
    cop = Coprocessor(TensixState())
    for w in words:
        cop.push(0, w)
    return bytes(cop.state.l1[OUT:OUT + ROWS * 64])


def describe(body: list[int]) -> str:
    """The body as text, a ``;`` between instructions."""
    def one(word: int) -> str:
        insn = isa_of(BLACKHOLE).decode(word)
        return " ".join([insn.mnemonic, *(f"{k}={v}" for k, v in insn.fields.items() if v)])
    return " ; ".join(one(w) for w in body)


def difference(got: bytes, expected: bytes) -> str:
    """Where two outputs differ: the marks, then the LRegs' lanes."""
    notes = [f"mark {k}: {enabled(got, k):#010x}, expected {enabled(expected, k):#010x}"
             for k in range(len(MARK)) if enabled(got, k) != enabled(expected, k)]
    for j, (g, e) in enumerate(zip(lregs(got), lregs(expected))):
        lanes = [lane for lane in range(32) if g[lane] != e[lane]]
        if lanes:
            notes.append(f"LReg {j} lanes {lanes[:4]}: " + " / ".join(f"{g[x]:#010x} vs {e[x]:#010x}" for x in lanes[:4]))
    if not notes:
        notes.append("the data area differs")
    return "; ".join(notes)
