"""What a baby RISC-V core does where Unicorn raises an exception or does something else, as
events with the rule they break.

WormholeB0 ``BabyRISCV/README.md`` "Faults / exceptions": the cores cannot fault; an unaligned
access is rounded down to the aligned address; an invalid or unsupported instruction executes as
some other instruction, usually a nop.  BlackholeA0 ``BabyRISCV/README.md``: the instruction set
is RV32IM, Zicsr, Zaamo, Zba, Zbb and part of Zicntr, F and Zfh (part of V on T2); "Frontend":
instructions are fetched from L1 only.

Zicsr, Zba, Zbb and xttzbkb run (``tdbg.emu.code_patches``); F, Zfh and V do not.

Measured on Unicorn 2.1 (RV32, C extension always on): an instruction it cannot decode raises
``UC_HOOK_INTR`` 2 with the PC 4 past it (also after a 2-byte compressed word); ``wfi`` ends
``emu_start`` with the PC past it and no hook; a misaligned load or store in RAM completes byte
by byte (the bytes past the aligned word change), a misaligned AMO raises interrupt 4 or 6; a
fetch from a page mapped without ``UC_PROT_EXEC`` fails with ``UC_ERR_FETCH_PROT``.  ttsim
reports an undecodable instruction as ``UndefinedBehavior`` and an unaligned access as
``NonContractualBehavior`` (``riscv_impl.h``).
"""

from __future__ import annotations

from tdbg.tensix.events import NonContractualBehavior, TensixEvent, UndefinedBehavior, UnimplementedFunctionality

WFI = 0x1050_0073
ILLEGAL_INSTRUCTION = 2                 # Unicorn's interrupt numbers (RISC-V exception causes)
MISALIGNED = {4: "load", 6: "store"}
_FAULTS = 'BabyRISCV/README.md "Faults / exceptions"'


def _extension(word: int) -> str | None:
    """The Blackhole extension an instruction Unicorn rejected belongs to, if any."""
    opcode = word & 0x7F
    if opcode in (0x07, 0x27, 0x43, 0x47, 0x4B, 0x4F, 0x53):
        return "F/Zfh (floating point)"
    if opcode == 0x57:
        return "V (vector)"
    return None


def illegal_instruction(word: int | None) -> TensixEvent:
    """An instruction Unicorn cannot execute: one of Blackhole's extensions tdbg does not run
    (``UnimplementedFunctionality``), else no instruction the core implements."""
    if word is None:
        return UndefinedBehavior(f"{_FAULTS}: an unreadable instruction word executes as some other instruction")
    extension = _extension(word)
    if extension is not None:
        return UnimplementedFunctionality(f'BabyRISCV/README.md "Instruction set": {word:#010x} is a {extension} '
                                          f"instruction; the baby RISC-V has it (perhaps in part), tdbg does not execute it")
    return UndefinedBehavior(f"{_FAULTS}: {word:#010x} is no instruction the baby RISC-V implements; "
                             f"silicon executes it as some other instruction (usually a nop)")


def wfi() -> TensixEvent:
    """``wfi`` is in none of the extensions the pages list."""
    return UndefinedBehavior(f'BabyRISCV/README.md "Instruction set": wfi is not in RV32IM, Zicsr, Zaamo, Zba or Zbb; '
                             f"{_FAULTS}: an unsupported instruction executes as some other instruction (usually a nop)")


def misaligned(address: int, size: int, write: bool) -> TensixEvent:
    """An access whose address is not a multiple of its size."""
    return NonContractualBehavior(f"{_FAULTS}: an unaligned {size}-byte {'store' if write else 'load'} at {address:#010x} "
                                  f"is rounded down to {address & -size:#010x}")


def misaligned_atomic(kind: str) -> TensixEvent:
    """A misaligned AMO (Unicorn raises; tdbg does not complete it rounded down)."""
    return UnimplementedFunctionality(f"{_FAULTS}: an unaligned atomic {kind} is rounded down on silicon; tdbg does not "
                                      f"model a rounded-down atomic")


def fetch_outside_l1(core: str, address: int) -> TensixEvent:
    return UndefinedBehavior(f'BabyRISCV/README.md "Frontend": instructions are fetched from L1 only; {core} '
                             f"fetched from {address:#010x}")
