"""Disassembly for the baby RISC-V as GDB shows it: capstone decodes each word (RV32, no C
extension: which instruction, its registers, immediates and memory operands); this module
spells capstone's result in the syntax of GDB's disassembler (binutils' ``riscv-dis.c`` with
the ``rv32i_m`` architecture the firmware is built for), and shows a ``.ttinsn`` word as its
Tensix instruction.

GDB prints the first matching entry of binutils' opcode table, so its aliases are capstone's
(``mv``, ``nop``, ``j``, ``ret``, ``beqz``, ``neg``, ``seqz``, ``rdcycle`` ...) except where
``_ALIASES`` says otherwise (``li``, ``add rd,rs,imm`` for ``addi``, ``sll rd,rs,0xN`` for
``slli``, ``zext.b``, ``jr``/``jalr`` with ``imm(rs)``); registers by ABI name, no space after a
comma, immediates in decimal (shift amounts and ``lui``/``auipc`` in hex), branch and jump
targets as absolute addresses (``0x61fc <fill_row+48>``), and after an instruction that forms
an address from a register ``lui``/``auipc`` set earlier in the same run (or from ``tp`` or
``zero``), that address as a comment (``# 0x6a60 <results>``, binutils'
``maybe_print_address``): ``Disassembler`` keeps those registers between instructions; GDB's
``x/i`` starts afresh for every instruction, ``disassemble`` once per run (``/s`` and ``/m``:
once per source line).  What is not in ``rv32i_m`` GDB shows as ``.4byte 0x...`` even where
capstone decodes it: A, F and D, Zicsr (but the counter reads ``rdcycle`` ...) and Zifencei.
The tables key on capstone 5's mnemonics (its aliases) and operand lists; all of this is checked
word for word against gdb-multiarch 13 (tests/test_disasm.py).

A word whose low two bits are not ``0b11`` is a ``.ttinsn`` (BabyRISCV
``PushTensixInstruction.md``): it is shown as the Tensix instruction ``rotr32(word, 2)``.

GDB decodes for the architecture the ELF's ``Tag_RISCV_arch`` names: with Zba/Zbb (and Zicsr,
which ``i2p0`` includes) their instructions are spelled as binutils spells them
(``tdbg.riscv.extensions``; capstone 5 decodes neither Zba nor Zbb), and ``pack``/``brev8`` of
Tenstorrent's ``xttzbkb``, which binutils does not know, as Zbkb's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import capstone
from capstone import riscv_const as rv

from tdbg.riscv.extensions import decode_bitmanip, decode_csr
from tdbg.tensix.isa import Isa, UnknownInstruction, is_ttinsn, ttinsn_to_word

_CS = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)
_CS.detail = True

# what GDB decodes for rv32i_m: RV32I, M, and the privileged instructions (binutils' class I)
_RV32I_M = frozenset(getattr(rv, f"RISCV_INS_{name}") for name in (
    "LUI AUIPC JAL JALR BEQ BNE BLT BGE BLTU BGEU LB LH LW LBU LHU SB SH SW ADDI SLTI SLTIU XORI ORI ANDI "
    "SLLI SRLI SRAI ADD SUB SLL SLT SLTU XOR SRL SRA OR AND MUL MULH MULHSU MULHU DIV DIVU REM REMU "
    "FENCE FENCE_TSO ECALL EBREAK URET SRET MRET WFI SFENCE_VMA").split())
_COUNTERS = frozenset(("rdcycle", "rdtime", "rdinstret", "rdcycleh", "rdtimeh", "rdinstreth"))  # csrrs aliases
_RELATIVE = frozenset((rv.RISCV_INS_JAL, rv.RISCV_INS_BEQ, rv.RISCV_INS_BNE, rv.RISCV_INS_BLT,
                       rv.RISCV_INS_BGE, rv.RISCV_INS_BLTU, rv.RISCV_INS_BGEU))  # imm: pc-relative target
_HEX = frozenset(("slli", "srli", "srai", "lui", "auipc"))  # immediates GDB prints in hex
_RENAMED = {"andi": "and", "ori": "or", "xori": "xor", "slli": "sll", "srli": "srl", "srai": "sra"}

# binutils' table still holds the privileged spec 1.9.1's ``sfence.vm [rs1]`` and ``hret`` and
# the debug spec's ``dret``, which capstone 5 does not decode: these 34 words, by value.
_NOT_IN_CAPSTONE = {0x20200073: ("hret", ""), 0x7B200073: ("dret", ""), 0x10400073: ("sfence.vm", ""),
                    **{0x10400073 | r << 15: ("sfence.vm", _CS.reg_name(rv.RISCV_REG_X0 + r)) for r in range(1, 32)}}

Operand = str | int | tuple[str, int]  # a register, an immediate, or memory (base, displacement)
Spelled = tuple[str, tuple[Operand, ...], int | None]  # GDB's mnemonic, operands, address comment
Symbolize = Callable[[int], str]  # an address -> "<sym+off>" or ""


@dataclass(frozen=True)
class Insn:
    """One decoded word.  ``operands`` may hold ``{target}``, the absolute address of a branch or
    jump, and ``comment`` is the address GDB notes after it; ``render`` spells both."""

    address: int
    word: int
    mnemonic: str
    operands: str
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


def _reg(field: int) -> str:
    return _CS.reg_name(rv.RISCV_REG_X0 + (field & 31))


@lru_cache(maxsize=4096)
def _decode(word: int) -> tuple[int, str, str, tuple[Operand, ...]] | None:
    """capstone's decode of ``word`` at address 0 (targets stay relative): id, mnemonic (its
    alias, if any), operand text, and operands; None if capstone cannot decode it."""
    insn = next(_CS.disasm(word.to_bytes(4, "little"), 0, 1), None)
    if insn is None:
        return None
    operands: list[Operand] = []
    for op in insn.operands:
        if op.type == rv.RISCV_OP_REG:
            operands.append(insn.reg_name(op.reg))
        elif op.type == rv.RISCV_OP_IMM:
            operands.append(op.imm)
        else:
            operands.append((insn.reg_name(op.mem.base), op.mem.disp))
    return insn.id, insn.mnemonic, insn.op_str, tuple(operands)


class Disassembler:
    """Decodes words in GDB's syntax, remembering the registers ``lui``/``auipc`` set (for the
    address comments of the instructions that use them, once each)."""

    def __init__(self, isa: Isa, extensions: frozenset[str] = frozenset()) -> None:
        self.isa = isa
        self.extensions = extensions     # the ELF's (``riscv_ext.arch_extensions``)
        self.hi_addr: dict[str, int] = {}

    def __call__(self, address: int, word: int) -> Insn:
        if is_ttinsn(word):
            return self._tensix(address, word)
        return self._riscv(address, word & 0xFFFFFFFF)

    def _tensix(self, address: int, word: int) -> Insn:
        tensix_word = ttinsn_to_word(word)
        try:
            fields = self.isa.decode(tensix_word).text().split(" ", 1)
            return Insn(address, word, f".ttinsn {fields[0]}", fields[1] if len(fields) > 1 else "")
        except UnknownInstruction:
            return Insn(address, word, ".ttinsn", f"{tensix_word:#010x}")

    def _address(self, base: str, offset: int) -> int | None:
        """binutils' ``maybe_print_address``: the address a base register and offset form,
        when the base was set by ``lui``/``auipc`` (used up here), or is ``tp`` or ``zero``."""
        if base in self.hi_addr:
            return (self.hi_addr.pop(base) + offset) & 0xFFFFFFFF
        if base in ("tp", "zero"):
            return offset & 0xFFFFFFFF
        return None

    def _riscv(self, address: int, word: int) -> Insn:
        if (bits := decode_bitmanip(word)) is not None and bits.spelled_with(self.extensions):
            return Insn(address, word, *bits.spell(self.extensions))
        if word & 0xFC00_707F == 0x6000_5013 and "zbb" in self.extensions:   # binutils' rori mask: 6-bit shamt
            return Insn(address, word, "ror", f"{_reg(word >> 7)},{_reg(word >> 15)},{(word >> 20) & 63:#x}")
        if "zicsr" in self.extensions and (csr := decode_csr(word)) is not None:
            return Insn(address, word, *csr.spell())
        decoded = _decode(word)
        if decoded is None or (decoded[0] not in _RV32I_M and decoded[1] not in _COUNTERS):
            mnemonic, operands = _NOT_IN_CAPSTONE.get(word, (".4byte", f"{word:#x}"))
            return Insn(address, word, mnemonic, operands)
        ident, mnemonic, op_str, ops = decoded
        if mnemonic == "fence":  # capstone gives its predecessor and successor sets as text only
            return Insn(address, word, mnemonic, op_str.replace(" ", ""))
        if mnemonic in ("lui", "auipc") and ops[0] != "zero":  # from zero, an address is the offset
            self.hi_addr[ops[0]] = ((address if mnemonic == "auipc" else 0) + (ops[1] << 12)) & 0xFFFFFFFF
        if (alias := _ALIASES.get(mnemonic)) and (spelled := alias(self, ops)):
            return Insn(address, word, spelled[0], ",".join(map(str, spelled[1])), comment=spelled[2])
        target = comment = None
        spelled_ops = []
        for op in ops:
            if isinstance(op, str):
                spelled_ops.append(op)
            elif isinstance(op, tuple):                                   # loads and stores
                spelled_ops.append(f"{op[1]}({op[0]})")
                comment = self._address(*op)
            elif ident in _RELATIVE:
                target = (address + op) & 0xFFFFFFFF
                spelled_ops.append("{target}")
            else:
                spelled_ops.append(f"{op:#x}" if mnemonic in _HEX else str(op))
        return Insn(address, word, _RENAMED.get(mnemonic, mnemonic), ",".join(spelled_ops), target, comment)

    def _addi(self, ops: tuple[Operand, ...]) -> Spelled:
        """``li rd,imm`` from zero, else ``add rd,rs,imm`` (binutils' alias, with the address)."""
        rd, rs, imm = ops
        return ("li", (rd, imm), None) if rs == "zero" else ("add", ops, self._address(rs, imm))

    def _jalr(self, ops: tuple[Operand, ...]) -> Spelled:
        """capstone's ``jalr rd,rs,imm`` (``jalr rs``: rd ``ra``, imm 0) as GDB's ``jr``/``jalr``,
        rd left out when it is ``zero``/``ra``, the target ``imm(rs)``, or ``rs`` when imm is 0."""
        rd, rs, imm = ops if len(ops) == 3 else ("ra", ops[0], 0)
        comment = self._address(rs, imm)
        if rs == "tp" and imm != 0:  # riscv-dis.c asks again for "o(s)" ('o' falls through to 'j',
            comment = imm & 0xFFFFFFFF  # then 's'): lui/auipc's address used up, tp's stands
        target = rs if imm == 0 else f"{imm}({rs})"
        if rd in ("zero", "ra"):
            return "jr" if rd == "zero" else "jalr", (target,), comment
        return "jalr", (rd, target), comment


# capstone's mnemonic -> GDB's mnemonic, operands and address comment, where they differ beyond
# _RENAMED and _HEX (None: spelled as capstone decodes it)
_ALIASES: dict[str, Callable[[Disassembler, tuple[Operand, ...]], Spelled | None]] = {
    "addi": Disassembler._addi,
    "mv": lambda self, ops: ("li", (ops[0], 0), None) if ops[1] == "zero" else None,
    "andi": lambda self, ops: ("zext.b", ops[:2], None) if ops[2] == 255 else None,
    "jalr": Disassembler._jalr,
    "jr": lambda self, ops: self._jalr(("zero", ops[0], 0)),
}


def disassemble(address: int, word: int, isa: Isa, extensions: frozenset[str] = frozenset()) -> Insn:
    """One 32-bit instruction word at ``address``, decoded afresh (as GDB's ``x/i`` does);
    ``.ttinsn`` words decode with ``isa``."""
    return Disassembler(isa, extensions)(address, word)
