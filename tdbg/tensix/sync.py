"""Sync Unit semaphores and each thread's Wait Gate (``STALLWAIT`` / ``SEMWAIT`` latches).

Implements WormholeB0 ``TensixCoprocessor/SyncUnit.md`` (``Semaphores[8]`` and their RISC-V
access), ``SEMINIT.md``, ``SEMPOST.md``, ``SEMGET.md``, ``STALLWAIT.md``, ``SEMWAIT.md`` and the
newer ``WaitGate.md``.  The model is synchronous: every instruction that passes a Wait Gate
finishes at once, so the conditions "an instruction of this thread is still in unit X's
pipeline / has memory requests outstanding" are always met (C0 after ``LOADIND`` / ``LOADREG``:
their GPR write is made when they execute); the ``AllowedClient`` conditions of
the ``SrcA`` / ``SrcB`` banks and the ``SEMWAIT`` conditions are evaluated against the state.

``STALLWAIT`` condition bits (keep waiting while ...), by generation (the profile's
``SyncSpec`` holds what differs: Blackhole's in ``tdbg.arch.blackhole``; Wormhole B0's would be
a default mask of C0-C6, 0x7F, and bits 8-11 testing the banks):

===  ==========================================  ==========================================
bit  Wormhole B0 (STALLWAIT.md)                  Blackhole
===  ==========================================  ==========================================
0    ThCon memory requests                       ThCon (thcon)
1    Unpacker 0 busy                             Unpacker 0 (unpack0)
2    Unpacker 1 busy                             Unpacker 1 (unpack1)
3-6  Packer 0-3 busy                             3 Packer (packer0), 4 Matrix Unit (math)
7    Matrix Unit busy                            5 SrcA cleared = WH C8, 6 SrcB cleared = WH C9
8    SrcA[Unpackers[0].SrcBank] not Unpackers    7 SrcA valid = WH C10, 8 SrcB valid = WH C11
9    SrcB[Unpackers[1].SrcBank] not Unpackers    9 mover = WH C12
10   SrcA[MatrixUnit.SrcABank] not MatrixUnit    10 TRISC config requests = WH C13
11   SrcB[MatrixUnit.SrcBBank] not MatrixUnit    11 Vector Unit (sfpu) = WH C14
12   mover memory requests                       12 Configuration Unit (CfgExu); no WH bit
13   RISC-V config/GPR requests
14   Vector Unit busy
===  ==========================================  ==========================================

Blackhole evidence (no Blackhole page): tt-llk's ``assembly.yaml`` describes ``wait_res`` as
``{CfgExu (bit12), sfpu(bit11), trisc cfg(bit10), mover(bit9), srcB valid(bit8), srcA
valid(bit7), srcB cleared(bit6), srcA cleared(bit5), math(bit4), packer0(bit3), unpack1(bit2),
unpack0(bit1), thcon(bit0)}``; tt-llk's Blackhole ``ckernel_instr_params.h`` ``p_stall`` has
``SRCA_CLR 0x20``, ``SRCB_CLR 0x40``, ``SRCA_VLD 0x80``, ``SRCB_VLD 0x100``, ``XMOV 0x200``,
``TRISC_CFG 0x400``, ``SFPU1 0x800``, ``CFGEXU 0x1000``; ttsim's Blackhole ``STALLWAIT`` never
waits on bits 0-4, 10, 11 and waits on 7 / 8 until ``SrcA`` / ``SrcB`` of the Matrix Unit's
bank is valid.  "Cleared" / "valid" are read as the Wormhole page's ``AllowedClient`` tests of
the same banks.  A zero ``ConditionMask`` means C0-C6 on Wormhole (the page); Blackhole's default
is undocumented (ttsim rejects it), and tdbg uses the same units, C0-C3 (always met here).  The
block bits B0-B8 are the same on both (the YAML's ``stall_res``: compute/tdma, sync, pack,
unpack, xmov, thcon, math, cfg, sfpu; ``p_stall::STALL_*``); Blackhole-only instructions are
placed by the YAML's ``ex_resource``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdbg.arch.profile import SrcCondition, SyncSpec
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState

_ALL_BLOCK_BITS = 0x1FF
B6_MATRIX_UNIT = 1 << 6


class Semaphore:
    """``Semaphores[i]`` of SyncUnit.md: two 4-bit fields, a view of one row of an int32 array
    (``Coprocessor.semaphore_bits``, which the native push path writes in place)."""

    __slots__ = ("_row",)

    def __init__(self, row: np.ndarray | None = None) -> None:
        self._row = np.zeros(2, dtype=np.int32) if row is None else row

    @property
    def Value(self) -> int:  # noqa: N802 - the page's name
        return int(self._row[0])

    @Value.setter
    def Value(self, value: int) -> None:  # noqa: N802
        self._row[0] = value

    @property
    def Max(self) -> int:  # noqa: N802
        return int(self._row[1])

    @Max.setter
    def Max(self, value: int) -> None:  # noqa: N802
        self._row[1] = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semaphore) and (self.Value, self.Max) == (other.Value, other.Max)

    def __repr__(self) -> str:
        return f"Semaphore(Value={self.Value}, Max={self.Max})"


def seminit(sems: list[Semaphore], f: dict[str, int]) -> None:
    """``SEMINIT`` (SEMINIT.md)."""
    for i, s in enumerate(sems):
        if f["SemaphoreMask"] >> i & 1:
            s.Value, s.Max = f["NewValue"], f["NewMax"]


def sempost(sems: list[Semaphore], mask: int) -> None:
    """``SEMPOST`` (SEMPOST.md): increment, saturating at 15."""
    for i, s in enumerate(sems):
        if mask >> i & 1 and s.Value < 15:
            s.Value += 1


def semget(sems: list[Semaphore], mask: int) -> None:
    """``SEMGET`` (SEMGET.md): decrement, saturating at 0."""
    for i, s in enumerate(sems):
        if mask >> i & 1 and s.Value > 0:
            s.Value -= 1


def atgetm_wait(mutexes: list[int | None], thread: int, index: int) -> str | None:
    """Why ``ATGETM`` waits at the Wait Gate (ATGETM.md): an invalid index waits forever, a
    mutex held by another thread until it is released."""
    if index == 1 or index > 7:
        return f"ATGETM {index}: an invalid mutex index waits forever (ATGETM.md)"
    holder = mutexes[index]
    if holder is not None and holder != thread:
        return f"ATGETM {index} waits for mutex {index}, held by T{holder} (ATGETM.md)"
    return None


def atrelm_wait(index: int) -> str | None:
    """Why ``ATRELM`` waits at the Wait Gate (ATRELM.md): only an invalid index, forever."""
    if index == 1 or index > 7:
        return f"ATRELM {index}: an invalid mutex index waits forever (ATRELM.md)"
    return None


def atgetm(mutexes: list[int | None], thread: int, index: int) -> None:
    """``ATGETM`` once its wait is over: the thread holds the mutex."""
    mutexes[index] = thread


def atrelm(mutexes: list[int | None], thread: int, index: int) -> None:
    """``ATRELM`` (ATRELM.md): release the mutex if this thread holds it, else no change.  When
    both other threads wait for the mutex, tdbg's Wait Gate retries them in thread order, not
    from ``(i + 1) % 3`` as the page's fairness rule says."""
    if mutexes[index] == thread:
        mutexes[index] = None


def riscv_semaphore_write(sems: list[Semaphore], index: int, value: int) -> None:
    """A RISC-V store to ``SemaphoreAccess[index]`` (SyncUnit.md): odd gets, even posts."""
    (semget if value & 1 else sempost)(sems, 1 << index)


# STALLWAIT.md "Block mask" table: which block bits catch an instruction (by base mnemonic).
_BLOCKED_BY: dict[str, int] = {}
for _bits, _names in (
    ((0, 5), "ADDDMAREG ATCAS ATINCGET ATINCGETPTR ATSWAP BITWOPDMAREG CMPDMAREG DMANOP FLUSHDMA "
             "LOADIND LOADREG MULDMAREG REG2FLOP SETDMAREG SHIFTDMAREG STOREIND STOREREG SUBDMAREG"),
    ((0,), "ADDRCRXY ADDRCRZW INCADCXY INCADCZW RSTDMA SETADC SETADCXX SETADCXY SETADCZW SETDVALID"),
    ((6,), "APOOL3S1 APOOL3S2 CLEARDVALID CLREXPHIST CONV3S1 CONV3S2 DOTPV ELWADD ELWMUL ELWSUB GAPOOL "
           "GATESRCRST GMPOOL INCRWC MFCONV3S1 MOVA2D MOVB2A MOVB2D MOVD2A MOVD2B MOVDBGA2D MPOOL3S1 "
           "MPOOL3S2 MVMUL SETRWC SHIFTXA SHIFTXB TRNSPSRCB ZEROACC ZEROSRC"),
    ((1,), "ATGETM ATRELM SEMGET SEMINIT SEMPOST SEMWAIT"),
    ((0, 2), "PACR PACR_SETREG"),
    ((7,), "RDCFG RMWCIB SETC16 WRCFG"),
    ((8,), "SFPABS SFPADD SFPADDI SFPAND SFPCAST SFPCOMPC SFPCONFIG SFPDIVP2 SFPENCC SFPEXEXP SFPEXMAN "
           "SFPIADD SFPLOAD SFPLOADI SFPLOADMACRO SFPLUT SFPLUTFP32 SFPLZ SFPMAD SFPMOV SFPMUL SFPMULI "
           "SFPNOP SFPNOT SFPOR SFPPOPC SFPPUSHC SFPSETCC SFPSETEXP SFPSETMAN SFPSETSGN SFPSHFT SFPSHFT2 "
           "SFPSTOCHRND SFPSTORE SFPSWAP SFPTRANSP SFPXOR"),
    ((0, 1, 2, 3, 4, 5, 6, 7, 8), "STALLWAIT"),
    ((0, 3), "UNPACR UNPACR_NOP"),
    ((0, 4), "XMOV"),
    # Blackhole only (assembly.yaml ex_resource SFPU / CFG / SYNC)
    ((8,), "SFPLE SFPGT SFPMUL24 SFPARECIP SFP_STOCH_RND"),
    ((7,), "CFGSHIFTMASK STREAMWRCFG"),
    ((1,), "STREAMWAIT"),
):
    for _name in _names.split():
        _BLOCKED_BY[_name] = sum(1 << b for b in _bits)


def base_mnemonic(mnemonic: str) -> str | None:
    """The STALLWAIT table row of a codec mnemonic (``SETDMAREG_Immediate`` -> ``SETDMAREG``,
    ``RMWCIB2`` -> ``RMWCIB``), or None for ``NOP`` / unknown."""
    if mnemonic in _BLOCKED_BY:
        return mnemonic
    prefixes = [k for k in _BLOCKED_BY if mnemonic.startswith(k)]
    return max(prefixes, key=len) if prefixes else None


def blocked_by(mnemonic: str, block_mask: int) -> bool:
    """True if a latched wait with ``block_mask`` holds ``mnemonic`` at the Wait Gate."""
    if mnemonic == "NOP":
        return block_mask & _ALL_BLOCK_BITS == _ALL_BLOCK_BITS
    base = base_mnemonic(mnemonic)
    return base is not None and bool(_BLOCKED_BY[base] & block_mask)


@dataclass
class LatchedWait:
    """``WaitGate[thread].LatchedWaitInstruction`` while it is not NOP."""

    Opcode: str             # "STALLWAIT" or "SEMWAIT"
    ConditionMask: int
    BlockMask: int
    SemaphoreMask: int = 0


def stallwait_latch(sync: SyncSpec, f: dict[str, int]) -> LatchedWait:
    """What ``STALLWAIT`` latches (STALLWAIT.md; the zero default is the profile's, module
    docstring)."""
    return LatchedWait("STALLWAIT", f["ConditionMask"] or sync.default_conditions, f["BlockMask"] or B6_MATRIX_UNIT)


def semwait_latch(sync: SyncSpec, f: dict[str, int]) -> LatchedWait:
    """What ``SEMWAIT`` latches (SEMWAIT.md); ConditionMask 0 latches a STALLWAIT on the default
    conditions (C0-C6 on Wormhole)."""
    block = f["BlockMask"] or B6_MATRIX_UNIT
    if f["ConditionMask"]:
        return LatchedWait("SEMWAIT", f["ConditionMask"], block, f["SemaphoreMask"])
    return LatchedWait("STALLWAIT", sync.default_conditions, block)


def unmet_conditions(latch: LatchedWait, state: TensixState, sems: list[Semaphore]) -> list[str]:
    """The latch's conditions that still say "keep waiting" (empty: the latch is forgotten)."""
    unmet = []
    if latch.Opcode == "SEMWAIT":
        chosen = [(i, s) for i, s in enumerate(sems) if latch.SemaphoreMask >> i & 1]
        if latch.ConditionMask & 1 and any(s.Value == 0 for _, s in chosen):
            unmet.append("C0: a selected semaphore has Value == 0")
        if latch.ConditionMask & 2 and any(s.Value >= s.Max for _, s in chosen):
            unmet.append("C1: a selected semaphore has Value >= Max")
        return unmet
    for cond in state.profile.sync.src_conditions:
        if latch.ConditionMask >> cond.bit & 1:
            bank, holder, met = _src_condition(state, cond)
            if not met:
                unmet.append(f"C{cond.bit}: {cond.register}[{bank}].AllowedClient != {cond.client} ({holder}'s bank)")
    return unmet


def _src_condition(state: TensixState, cond: SrcCondition) -> tuple[int, str, bool]:
    """The bank a Src condition tests, its holder, and whether the condition is met."""
    banks, reg = state.src_banks, cond.register
    if cond.holder == "unpacker":
        bank = banks.unpacker[0 if reg == "SrcA" else 1]
        holder = "Unpackers[0]" if reg == "SrcA" else "Unpackers[1]"
    else:
        bank = banks.matrix_unit_srca if reg == "SrcA" else banks.matrix_unit_srcb
        holder = "MatrixUnit"
    src = state.srca if reg == "SrcA" else state.srcb
    return bank, holder, src.allowed_client[bank] == SrcClient(cond.client)


def unmet_src_conditions(state: TensixState) -> int:
    """The ``STALLWAIT`` condition bits that test the Src banks and are unmet now (the native
    push path's, ``tdbg.emu.native_ctrl``)."""
    return sum(1 << c.bit for c in state.profile.sync.src_conditions if not _src_condition(state, c)[2])
