"""Sync Unit semaphores and each thread's Wait Gate (``STALLWAIT`` / ``SEMWAIT`` latches).

Implements WormholeB0 ``TensixCoprocessor/SyncUnit.md`` (``Semaphores[8]`` and their RISC-V
access), ``SEMINIT.md``, ``SEMPOST.md``, ``SEMGET.md``, ``STALLWAIT.md``, ``SEMWAIT.md`` and the
newer ``WaitGate.md``.  The model is synchronous: every instruction that passes a Wait Gate
finishes at once, so the conditions "an instruction of this thread is still in unit X's
pipeline / has memory requests outstanding" (STALLWAIT C0-C7, C12-C14) are always met.  C8-C11
(``AllowedClient`` of the ``SrcA`` / ``SrcB`` banks) and the ``SEMWAIT`` conditions are
evaluated against the state.  Blackhole's ``STALLWAIT`` has 13 condition bits; no Blackhole
page names them, so they are read with the Wormhole meanings.
"""

from __future__ import annotations

from dataclasses import dataclass

from tdbg.tensix.src import SrcClient
from tdbg.tensix.tile import TensixState

_ALL_BLOCK_BITS = 0x1FF
B6_MATRIX_UNIT = 1 << 6


@dataclass
class Semaphore:
    """``Semaphores[i]`` of SyncUnit.md: two 4-bit fields."""

    Value: int = 0
    Max: int = 0


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
):
    for _name in _names.split():
        _BLOCKED_BY[_name] = sum(1 << b for b in _bits)


def base_mnemonic(mnemonic: str) -> str | None:
    """The STALLWAIT table row of a codec mnemonic (``SETDMAREG_Immediate`` -> ``SETDMAREG``,
    ``RMWCIB2`` -> ``RMWCIB``, ``SFPLOAD_BH`` -> ``SFPLOAD``), or None for ``NOP`` / unknown."""
    name = mnemonic.removesuffix("_BH")
    if name in _BLOCKED_BY:
        return name
    prefixes = [k for k in _BLOCKED_BY if name.startswith(k)]
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


def stallwait_latch(f: dict[str, int]) -> LatchedWait:
    """What ``STALLWAIT`` latches (STALLWAIT.md)."""
    return LatchedWait("STALLWAIT", f["ConditionMask"] or 0x7F, f["BlockMask"] or B6_MATRIX_UNIT)


def semwait_latch(f: dict[str, int]) -> LatchedWait:
    """What ``SEMWAIT`` latches (SEMWAIT.md); ConditionMask 0 latches a STALLWAIT on C0-C6."""
    block = f["BlockMask"] or B6_MATRIX_UNIT
    if f["ConditionMask"]:
        return LatchedWait("SEMWAIT", f["ConditionMask"], block, f["SemaphoreMask"])
    return LatchedWait("STALLWAIT", 0x7F, block)


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
    banks = state.src_banks
    checks = (
        (8, state.srca.allowed_client[banks.unpacker[0]] != SrcClient.Unpackers,
         f"C8: SrcA[{banks.unpacker[0]}].AllowedClient != Unpackers"),
        (9, state.srcb.allowed_client[banks.unpacker[1]] != SrcClient.Unpackers,
         f"C9: SrcB[{banks.unpacker[1]}].AllowedClient != Unpackers"),
        (10, state.srca.allowed_client[banks.matrix_unit_srca] != SrcClient.MatrixUnit,
         f"C10: SrcA[{banks.matrix_unit_srca}].AllowedClient != MatrixUnit"),
        (11, state.srcb.allowed_client[banks.matrix_unit_srcb] != SrcClient.MatrixUnit,
         f"C11: SrcB[{banks.matrix_unit_srcb}].AllowedClient != MatrixUnit"),
    )
    return [text for bit, waiting, text in checks if latch.ConditionMask >> bit & 1 and waiting]
