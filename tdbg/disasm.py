"""Disassembly for the baby RISC-V: capstone for RV32IM, the Tensix codec for ``.ttinsn`` words.

A word whose low two bits are not ``0b11`` is a ``.ttinsn`` (BabyRISCV
``PushTensixInstruction.md``): it is shown as the Tensix instruction ``rotr32(word, 2)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import capstone

from tdbg.tensix.isa import Isa, UnknownInstruction, is_ttinsn, ttinsn_to_word

_CS = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)


@dataclass(frozen=True)
class Insn:
    address: int
    word: int
    mnemonic: str
    operands: str
    tensix: bool = False

    @property
    def text(self) -> str:
        return f"{self.mnemonic}\t{self.operands}" if self.operands else self.mnemonic


def disassemble(address: int, word: int, isa: Isa) -> Insn:
    """One 32-bit instruction word at ``address``; ``.ttinsn`` words decode with ``isa``."""
    if is_ttinsn(word):
        tensix_word = ttinsn_to_word(word)
        try:
            insn = isa.decode(tensix_word)
            fields = insn.text().split(" ", 1)
            return Insn(address, word, f".ttinsn {fields[0]}", fields[1] if len(fields) > 1 else "", True)
        except UnknownInstruction:
            return Insn(address, word, ".ttinsn", f"{tensix_word:#010x}", True)
    for insn in _CS.disasm(word.to_bytes(4, "little"), address, 1):
        return Insn(address, word, insn.mnemonic, insn.op_str)
    return Insn(address, word, ".word", f"{word:#010x}")
