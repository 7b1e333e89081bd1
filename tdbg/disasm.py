"""Disassembly for the baby RISC-V as GDB shows it: RV32IM in the syntax of GDB's disassembler
(binutils' ``riscv-dis.c`` with the ``rv32i_m`` architecture the firmware is built for), and
the Tensix instruction of a ``.ttinsn`` word.

GDB's RISC-V disassembler prints the first matching entry of its opcode table, aliases
included (``li``, ``mv``, ``add rd,rs,imm`` for ``addi``, ``sll rd,rs,0xN`` for ``slli``,
``beqz``, ``j``, ``ret`` ...), registers by ABI name (``s0`` for x8), immediates in decimal
(shift amounts and ``lui``/``auipc`` in hex), branch and jump targets as absolute addresses
(``0x61fc <fill_row+48>``), and after an instruction that forms an address from a register
``lui``/``auipc`` set earlier in the same run (or from ``tp`` or ``zero``), that address as a
comment (``# 0x6a60 <results>``): ``Disassembler`` keeps those registers between
instructions; GDB's ``x/i`` starts afresh for every instruction, ``disassemble`` once per run
(``/s`` and ``/m``: once per source line).  Words it cannot decode are ``.4byte 0x...``.
Zicsr and Zifencei are not in that architecture, so CSR instructions other than the counter
reads (``rdcycle`` ...) and ``fence.i`` are ``.4byte`` too, as GDB shows them.

A word whose low two bits are not ``0b11`` is a ``.ttinsn`` (BabyRISCV
``PushTensixInstruction.md``): it is shown as the Tensix instruction ``rotr32(word, 2)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tdbg.tensix.isa import Isa, UnknownInstruction, is_ttinsn, ttinsn_to_word

GPR = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
       "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6")
ZERO, RA, TP = 0, 1, 4
_LOADS = {0: "lb", 1: "lh", 2: "lw", 4: "lbu", 5: "lhu"}
_STORES = {0: "sb", 1: "sh", 2: "sw"}
_OP = {(0, 0): "add", (0, 1): "sll", (0, 2): "slt", (0, 3): "sltu", (0, 4): "xor", (0, 5): "srl",
       (0, 6): "or", (0, 7): "and", (0x20, 0): "sub", (0x20, 5): "sra", (1, 0): "mul", (1, 1): "mulh",
       (1, 2): "mulhsu", (1, 3): "mulhu", (1, 4): "div", (1, 5): "divu", (1, 6): "rem", (1, 7): "remu"}
_COUNTERS = {0xC00: "rdcycle", 0xC01: "rdtime", 0xC02: "rdinstret", 0xC80: "rdcycleh", 0xC81: "rdtimeh",
             0xC82: "rdinstreth"}
_FENCE_SETS = (None, "w", "r", "rw", "o", "ow", "or", "orw", "i", "iw", "ir", "irw", "io", "iow", "ior", "iorw")

Symbolize = Callable[[int], str]  # an address -> "<sym+off>" or ""


@dataclass(frozen=True)
class Insn:
    """One decoded word.  ``operands`` may hold ``{target}``, the absolute address of a branch or
    jump, and ``comment`` is the address GDB notes after it; ``render`` spells both."""

    address: int
    word: int
    mnemonic: str
    operands: str
    tensix: bool = False
    target: int | None = None
    comment: int | None = None

    def render(self, symbolize: Symbolize | None = None) -> str:
        """``mnemonic<TAB>operands`` with addresses as GDB prints them (``0x61fc <fill_row+48>``)."""
        def address(value: int) -> str:
            name = symbolize(value) if symbolize else ""
            return f"{value:#x} {name}" if name else f"{value:#x}"

        operands = self.operands.replace("{target}", address(self.target)) if self.target is not None else self.operands
        text = f"{self.mnemonic}\t{operands}" if operands else self.mnemonic
        return text + (f" # {address(self.comment)}" if self.comment is not None else "")

    @property
    def text(self) -> str:
        return self.render()


def _imm_i(word: int) -> int:
    return (word >> 20) - ((word >> 19) & 0x1000)


def _imm_s(word: int) -> int:
    value = ((word >> 25) << 5) | ((word >> 7) & 0x1F)
    return value - 0x1000 if value & 0x800 else value


def _imm_b(word: int) -> int:
    value = ((word >> 31) << 12) | (((word >> 7) & 1) << 11) | (((word >> 25) & 0x3F) << 5) | (((word >> 8) & 0xF) << 1)
    return value - 0x2000 if value & 0x1000 else value


def _imm_j(word: int) -> int:
    value = ((word >> 31) << 20) | (((word >> 12) & 0xFF) << 12) | (((word >> 20) & 1) << 11) | (((word >> 21) & 0x3FF) << 1)
    return value - 0x200000 if value & 0x100000 else value


class Disassembler:
    """Decodes words in GDB's syntax, remembering the registers ``lui``/``auipc`` set (for the
    address comments of the instructions that use them, once each)."""

    def __init__(self, isa: Isa) -> None:
        self.isa = isa
        self.hi_addr: dict[int, int] = {}

    def __call__(self, address: int, word: int) -> Insn:
        if is_ttinsn(word):
            return self._tensix(address, word)
        return self._riscv(address, word & 0xFFFFFFFF)

    def _tensix(self, address: int, word: int) -> Insn:
        tensix_word = ttinsn_to_word(word)
        try:
            fields = self.isa.decode(tensix_word).text().split(" ", 1)
            return Insn(address, word, f".ttinsn {fields[0]}", fields[1] if len(fields) > 1 else "", True)
        except UnknownInstruction:
            return Insn(address, word, ".ttinsn", f"{tensix_word:#010x}", True)

    def _address(self, base: int, offset: int) -> int | None:
        """binutils' ``maybe_print_address``: the address a base register and offset form,
        when the base was set by ``lui``/``auipc`` (used up here), or is ``tp`` or ``zero``."""
        if base in self.hi_addr:
            return (self.hi_addr.pop(base) + offset) & 0xFFFFFFFF
        if base in (TP, ZERO):
            return offset & 0xFFFFFFFF
        return None

    def _riscv(self, address: int, word: int) -> Insn:  # noqa: C901 - one decoder, by opcode
        op, rd, f3 = word & 0x7F, (word >> 7) & 31, (word >> 12) & 7
        rs1, rs2, f7 = (word >> 15) & 31, (word >> 20) & 31, word >> 25
        d, s, t = GPR[rd], GPR[rs1], GPR[rs2]

        def insn(mnemonic: str, operands: str = "", target: int | None = None, comment: int | None = None) -> Insn:
            return Insn(address, word, mnemonic, operands, target=target, comment=comment)

        if op == 0x37 or op == 0x17:                                      # lui, auipc
            upper = word & 0xFFFFF000
            self.hi_addr[rd] = upper if op == 0x37 else (address + upper) & 0xFFFFFFFF
            return insn("lui" if op == 0x37 else "auipc", f"{d},{upper >> 12:#x}")
        if op == 0x6F:                                                    # jal
            target = (address + _imm_j(word)) & 0xFFFFFFFF
            if rd == ZERO:
                return insn("j", "{target}", target)
            return insn("jal", "{target}" if rd == RA else f"{d},{{target}}", target)
        if op == 0x67 and f3 == 0:                                        # jalr
            imm = _imm_i(word)
            comment = self._address(rs1, imm)
            if rd == ZERO:
                if rs1 == RA and imm == 0:
                    return insn("ret")
                return insn("jr", s if imm == 0 else f"{imm}({s})", comment=comment)
            if rd == RA:
                return insn("jalr", s if imm == 0 else f"{imm}({s})", comment=comment)
            return insn("jalr", f"{d},{s}" if imm == 0 else f"{d},{imm}({s})", comment=comment)
        if op == 0x63 and f3 not in (2, 3):                               # branches
            target = (address + _imm_b(word)) & 0xFFFFFFFF
            name = {0: "beq", 1: "bne", 4: "blt", 5: "bge", 6: "bltu", 7: "bgeu"}[f3]
            if f3 in (0, 1) and rs2 == ZERO:
                return insn(name + "z", f"{s},{{target}}", target)
            if f3 == 5 and rs1 == ZERO:
                return insn("blez", f"{t},{{target}}", target)
            if f3 in (4, 5) and rs2 == ZERO:
                return insn("bltz" if f3 == 4 else "bgez", f"{s},{{target}}", target)
            if f3 == 4 and rs1 == ZERO:
                return insn("bgtz", f"{t},{{target}}", target)
            return insn(name, f"{s},{t},{{target}}", target)
        if op == 0x03 and f3 in _LOADS:
            imm = _imm_i(word)
            return insn(_LOADS[f3], f"{d},{imm}({s})", comment=self._address(rs1, imm))
        if op == 0x23 and f3 in _STORES:
            imm = _imm_s(word)
            return insn(_STORES[f3], f"{t},{imm}({s})", comment=self._address(rs1, imm))
        if op == 0x13:
            return self._op_imm(word, insn, f3, rd, rs1, d, s)
        if op == 0x33 and (f7, f3) in _OP:
            name = _OP[f7, f3]
            if name == "sub" and rs1 == ZERO:
                return insn("neg", f"{d},{t}")
            if name == "slt" and rs2 == ZERO:
                return insn("sltz", f"{d},{s}")
            if name == "slt" and rs1 == ZERO:
                return insn("sgtz", f"{d},{t}")
            if name == "sltu" and rs1 == ZERO:
                return insn("snez", f"{d},{t}")
            return insn(name, f"{d},{s},{t}")
        if op == 0x0F and f3 == 0 and rd == ZERO and rs1 == ZERO:         # fence
            pred, succ, fm = (word >> 24) & 0xF, (word >> 20) & 0xF, word >> 28
            if fm == 8 and pred == succ == 3:
                return insn("fence.tso")
            if fm == 0 and pred == succ == 0xF:
                return insn("fence")
            if fm == 0:
                return insn("fence", f"{_FENCE_SETS[pred] or 'unknown'},{_FENCE_SETS[succ] or 'unknown'}")
        if op == 0x73:
            if word == 0x00000073:
                return insn("ecall")
            if word == 0x00100073:
                return insn("ebreak")
            if f3 == 2 and rs1 == ZERO and (word >> 20) in _COUNTERS:    # csrrs rd, counter, zero
                return insn(_COUNTERS[word >> 20], d)
        return insn(".4byte", f"{word:#x}")

    def _op_imm(self, word: int, insn: Callable[..., Insn], f3: int, rd: int, rs1: int, d: str, s: str) -> Insn:
        imm = _imm_i(word)
        if f3 == 0:                                                       # addi
            if rd == ZERO and rs1 == ZERO and imm == 0:
                return insn("nop")
            if rs1 == ZERO:
                return insn("li", f"{d},{imm}")
            if imm == 0:
                return insn("mv", f"{d},{s}")
            return insn("add", f"{d},{s},{imm}", comment=self._address(rs1, imm))
        if f3 == 1 and word >> 26 == 0:                                   # slli (shamt bit 5 unchecked, as binutils)
            return insn("sll", f"{d},{s},{(word >> 20) & 0x3F:#x}")
        if f3 == 5 and word >> 26 in (0, 0x10):                           # srli, srai
            return insn("sra" if word >> 30 else "srl", f"{d},{s},{(word >> 20) & 0x3F:#x}")
        if f3 == 2:
            return insn("slti", f"{d},{s},{imm}")
        if f3 == 3:
            return insn("seqz", f"{d},{s}") if imm == 1 else insn("sltiu", f"{d},{s},{imm}")
        if f3 == 4:
            return insn("not", f"{d},{s}") if imm == -1 else insn("xor", f"{d},{s},{imm}")
        if f3 == 6:
            return insn("or", f"{d},{s},{imm}")
        if f3 == 7:
            return insn("zext.b", f"{d},{s}") if imm == 255 else insn("and", f"{d},{s},{imm}")
        return insn(".4byte", f"{word:#x}")


def disassemble(address: int, word: int, isa: Isa) -> Insn:
    """One 32-bit instruction word at ``address``, decoded afresh (as GDB's ``x/i`` does);
    ``.ttinsn`` words decode with ``isa``."""
    return Disassembler(isa)(address, word)
