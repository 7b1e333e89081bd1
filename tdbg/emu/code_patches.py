"""The words of loaded code that the tile replaces in L1, and what replaces them.

Unicorn runs RV32IMA(C), not the baby RISC-V's instruction set (DESIGN.md, "Facts about
Unicorn"), so four kinds of word are not left to it:

* a ``.ttinsn`` (low two bits not ``0b11``, BabyRISCV ``PushTensixInstruction.md``): Unicorn
  would decode it as compressed instructions.  A NOP; a code hook pushes it (T cores).
* a Zicsr instruction: Unicorn knows other CSRs (``cycle`` reads the host's clock, ``misa``
  its own value, ``cfg0`` traps).  A NOP; a code hook runs it on the core's CSRs.
* ``lr.w``/``sc.w``: Unicorn has them, the cores (Zaamo, no Zalrsc) do not.  A NOP; a code hook
  reports the instruction the core does not implement.
* a Zba/Zbb/xttzbkb instruction, which Unicorn refuses: a ``jal`` to its RV32IM trampoline
  (``tdbg.emu.translation``), or a NOP when it writes ``zero``.

Loaded code is classified when it is placed (the executable sections of each ELF, and every
debugger write into them); a Zb*/CSR word that Unicorn refuses in code nobody classified (code
the firmware wrote itself) is classified when it first traps.  Everyone who reads memory on the
debugger's behalf sees the loaded word (``original``); the firmware's own loads of its code see
what L1 holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np

from tdbg.emu.translation import NOP, Trampolines
from tdbg.riscv.extensions import BitInsn, CsrInsn, decode_bitmanip, decode_csr, is_lr_sc
from tdbg.tensix.isa import is_ttinsn, ttinsn_to_word


class PatchKind(str, Enum):
    TTINSN = "ttinsn"
    CSR = "csr"
    LRSC = "lr/sc"
    BITMANIP = "bitmanip"


@dataclass(frozen=True)
class Patch:
    """``word`` (as loaded) is ``insn`` of ``kind``; L1 holds ``placed`` instead."""

    kind: PatchKind
    word: int
    placed: int
    insn: int | CsrInsn | BitInsn | None   # the Tensix word a .ttinsn pushes, the decoded instruction

    @property
    def hooked(self) -> bool:
        """Executed by a code hook on the NOP (else by what L1 holds)."""
        return self.kind is not PatchKind.BITMANIP


def replaced(word: int) -> bool:
    """True for a word of code that the tile replaces (``CodePatches.classify``)."""
    return is_ttinsn(word) or decode_csr(word) is not None or is_lr_sc(word) or decode_bitmanip(word) is not None


def maybe_replaced(words: np.ndarray) -> np.ndarray:
    """A mask over ``uint32`` words that holds every word ``replaced`` is true for (and a few
    more: shifts, AMOs), so that a whole section is sifted at numpy's speed."""
    opcode, funct3, funct7 = words & 0x7F, (words >> 12) & 7, words >> 25
    return (((words & 3) != 3) | ((opcode == 0x73) & (funct3 != 0) & (funct3 != 4)) | (opcode == 0x2F)
            | ((opcode == 0x33) & np.isin(funct7, (0x04, 0x05, 0x10, 0x20, 0x30)))
            | ((opcode == 0x13) & ((funct3 == 1) | (funct3 == 5))))


@lru_cache(maxsize=1 << 16)
def _decoded(word: int) -> Patch | BitInsn | None:
    """``word``'s patch where it is the same at every address (a ``.ttinsn``, CSR or ``lr``/``sc``
    word: shared by every tile that loads it), its Zb* instruction (whose ``jal`` depends on
    where it lies), or None."""
    if is_ttinsn(word):
        return Patch(PatchKind.TTINSN, word, NOP, ttinsn_to_word(word))
    if (csr := decode_csr(word)) is not None:
        return Patch(PatchKind.CSR, word, NOP, csr)
    if is_lr_sc(word):
        return Patch(PatchKind.LRSC, word, NOP, None)
    return decode_bitmanip(word)


class CodePatches:
    """Every replaced word of the tile's L1, by address."""

    def __init__(self, trampolines: Trampolines) -> None:
        self.trampolines = trampolines
        #: Never changed in place once ``shared`` (a checkpoint keeps the dict it saw): the
        #: first change after that copies it (one copy per checkpoint, not one per change).
        self.at: dict[int, Patch] = {}
        self._shared: dict[int, Patch] | None = None

    def shared(self) -> dict[int, Patch]:
        """``at``, kept as it is now by the caller (a checkpoint)."""
        self._shared = self.at
        return self.at

    def set(self, address: int, patch: Patch | None) -> None:
        if self._shared is self.at:
            self.at = dict(self.at)
        if patch is None:
            self.at.pop(address, None)
        else:
            self.at[address] = patch

    def classify(self, address: int, word: int) -> Patch | None:
        """What ``word`` at ``address`` becomes, if it is not left to Unicorn."""
        found = _decoded(word)
        if not isinstance(found, BitInsn):
            return found
        placed = NOP if found.rd == 0 else self.trampolines.place(address, found, word)
        return Patch(PatchKind.BITMANIP, word, placed, found)

    def original(self, address: int, held: int) -> int:
        """The loaded word at ``address``, where L1 holds ``held``."""
        patch = self.at.get(address)
        return patch.word if patch is not None and patch.placed == held else held
