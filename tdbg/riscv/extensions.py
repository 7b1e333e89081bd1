"""The Blackhole baby RISC-V instructions beyond RV32IM that Unicorn does not execute as the
cores do: what each word is, what it computes, and how binutils spells it.

BlackholeA0 ``BabyRISCV/README.md`` "Instruction set": RV32IM plus all of Zicsr, Zaamo, Zba and
Zbb; Tenstorrent's toolchain names a subset of Zbkb ``xttzbkb`` (``Tag_RISCV_arch``
``..._zba1p0_zbb1p0_xttzbkb1p0``), which ttsim v1.10.0 gives as ``pack`` and ``brev8``
(``riscv_impl.h``: ``HAS_PACK_BREV8``, "small subset of Zbkb that is in BH babyrisc").  The
encodings and results are the RISC-V Bit-Manipulation spec 1.0.0 (Zba, Zbb) and the Scalar
Cryptography spec 1.0.1 (Zbkb's ``pack``, ``brev8``), as ttsim implements them
(``riscv_impl.h``: ``alu``'s funct7/funct3 cases, ``alu_imm``'s immediates 0x600..0x605,
0x287, 0x600+shamt, 0x698, 0x687).  ``zext.h`` is ``pack rd, rs, zero`` on RV32.

CSRs (``csrrw`` ... ``csrrci``) and Zaamo's AMOs are decoded here for their spelling only;
the CSRs' behaviour is the core's (``tdbg.emu.csrs``).

Spelling follows binutils 2.40 (gdb-multiarch 13.1) for an ELF whose ``Tag_RISCV_arch`` has the
extension: ``rori`` prints as ``ror`` with a hex shift amount, CSRs by their standard names or
in hex, ``csrrs rd,csr,zero`` as ``csrr``, the counter reads as ``rdcycle`` ...; binutils does
not know ``xttzbkb``, so ``pack``/``brev8`` are spelled as Zbkb spells them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from tdbg.riscv.registers import ABI_NAMES

M32 = 0xFFFF_FFFF
#: Register names as binutils' disassembler prints them (``s0``, where GDB's register is ``fp``).
_NAMES = tuple("s0" if name == "fp" else name for name in ABI_NAMES)

#: (funct7, funct3) of OP (0x33) -> (mnemonic, extension)
_R_TYPE: dict[tuple[int, int], tuple[str, str]] = {
    (0x10, 2): ("sh1add", "zba"), (0x10, 4): ("sh2add", "zba"), (0x10, 6): ("sh3add", "zba"),
    (0x20, 7): ("andn", "zbb"), (0x20, 6): ("orn", "zbb"), (0x20, 4): ("xnor", "zbb"),
    (0x05, 4): ("min", "zbb"), (0x05, 5): ("minu", "zbb"), (0x05, 6): ("max", "zbb"), (0x05, 7): ("maxu", "zbb"),
    (0x30, 1): ("rol", "zbb"), (0x30, 5): ("ror", "zbb"),
    (0x04, 4): ("pack", "xttzbkb"),
}
#: imm[11:0] of OP-IMM (0x13) funct3 1 and 5 -> (mnemonic, extension); ``rori`` is 0x600|shamt.
_UNARY: dict[tuple[int, int], tuple[str, str]] = {
    (1, 0x600): ("clz", "zbb"), (1, 0x601): ("ctz", "zbb"), (1, 0x602): ("cpop", "zbb"),
    (1, 0x604): ("sext.b", "zbb"), (1, 0x605): ("sext.h", "zbb"),
    (5, 0x287): ("orc.b", "zbb"), (5, 0x698): ("rev8", "zbb"), (5, 0x687): ("brev8", "xttzbkb"),
}


@dataclass(frozen=True)
class BitInsn:
    """One Zba / Zbb / xttzbkb instruction: ``rd = op(x[rs1], x[rs2] or shamt)``."""

    name: str
    extension: str
    rd: int
    rs1: int
    rs2: int = 0        # OP forms
    shamt: int = 0      # rori

    @property
    def sources(self) -> tuple[int, ...]:
        return (self.rs1, self.rs2) if self.name in _BINARY else (self.rs1,)

    def spelled_with(self, extensions: frozenset[str]) -> bool:
        """binutils decodes it for an ELF with ``extensions`` (tdbg takes Tenstorrent's
        ``xttzbkb`` for the Zbkb it is a subset of)."""
        return self.extension in extensions or (self.name in ("pack", "brev8") and bool({"zbkb", "xttzbkb"} & extensions))

    def spell(self, extensions: frozenset[str] = frozenset({"zbb"})) -> tuple[str, str]:
        """binutils' mnemonic and operands (``zext.h`` is ``pack rd,rs,zero`` without Zbb)."""
        rd, rs1 = _NAMES[self.rd], _NAMES[self.rs1]
        if self.name == "rori":
            return "ror", f"{rd},{rs1},{self.shamt:#x}"
        if self.name == "pack" and self.rs2 == 0 and "zbb" in extensions:
            return "zext.h", f"{rd},{rs1}"
        if self.name in _BINARY:
            return self.name, f"{rd},{rs1},{_NAMES[self.rs2]}"
        return self.name, f"{rd},{rs1}"


def decode_bitmanip(word: int) -> BitInsn | None:
    """The Zba / Zbb / xttzbkb instruction ``word`` is, if it is one."""
    opcode, rd, funct3, rs1 = word & 0x7F, (word >> 7) & 31, (word >> 12) & 7, (word >> 15) & 31
    if opcode == 0x33:
        found, rs2 = _R_TYPE.get((word >> 25, funct3)), (word >> 20) & 31
        if found is None:
            return None
        return BitInsn(found[0], "zbb" if found[0] == "pack" and rs2 == 0 else found[1], rd, rs1, rs2)  # zext.h
    if opcode == 0x13 and funct3 in (1, 5):
        imm = word >> 20
        if funct3 == 5 and imm >> 5 == 0x30:
            return BitInsn("rori", "zbb", rd, rs1, shamt=imm & 31)
        found = _UNARY.get((funct3, imm))
        return BitInsn(found[0], found[1], rd, rs1) if found else None
    return None


def _rotr(x: int, n: int) -> int:
    n &= 31
    return ((x >> n) | (x << (32 - n))) & M32 if n else x


def _signed(x: int) -> int:
    return x - (1 << 32) if x & 0x8000_0000 else x


def _bytes(x: int, f: Callable[[int], int]) -> int:
    return sum(f((x >> s) & 0xFF) << s for s in (0, 8, 16, 24))


_BINARY: dict[str, Callable[[int, int], int]] = {
    "sh1add": lambda a, b: ((a << 1) + b) & M32,
    "sh2add": lambda a, b: ((a << 2) + b) & M32,
    "sh3add": lambda a, b: ((a << 3) + b) & M32,
    "andn": lambda a, b: a & ~b & M32,
    "orn": lambda a, b: (a | ~b) & M32,
    "xnor": lambda a, b: ~(a ^ b) & M32,
    "min": lambda a, b: a if _signed(a) < _signed(b) else b,
    "minu": min,
    "max": lambda a, b: a if _signed(a) > _signed(b) else b,
    "maxu": max,
    "rol": lambda a, b: _rotr(a, 32 - (b & 31)),
    "ror": lambda a, b: _rotr(a, b),
    "pack": lambda a, b: (a & 0xFFFF) | (b << 16) & M32,
}
_UNARY_OPS: dict[str, Callable[[int], int]] = {
    "clz": lambda a: 32 - a.bit_length(),
    "ctz": lambda a: (a & -a).bit_length() - 1 if a else 32,
    "cpop": lambda a: bin(a).count("1"),
    "sext.b": lambda a: (a & 0xFF) - ((a & 0x80) << 1) & M32,
    "sext.h": lambda a: (a & 0xFFFF) - ((a & 0x8000) << 1) & M32,
    "orc.b": lambda a: _bytes(a, lambda b: 0xFF if b else 0),
    "rev8": lambda a: int.from_bytes(a.to_bytes(4, "little"), "big"),
    "brev8": lambda a: _bytes(a, lambda b: int(f"{b:08b}"[::-1], 2)),
}


def evaluate(insn: BitInsn, a: int, b: int = 0) -> int:
    """``x[rd]`` after ``insn`` with ``x[rs1] = a``, ``x[rs2] = b``: the specification's result,
    written from the specs above (the reference the translated code is tested against)."""
    if insn.name == "rori":
        return _rotr(a, insn.shamt)
    if insn.name in _BINARY:
        return _BINARY[insn.name](a & M32, b & M32)
    return _UNARY_OPS[insn.name](a & M32)


# -- Zicsr ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CsrInsn:
    """``csrrw|csrrs|csrrc[i] rd, csr, rs1|uimm``: ``op`` is "w", "s" or "c"."""

    op: str
    immediate: bool
    rd: int
    csr: int
    source: int          # rs1, or the 5-bit immediate

    @property
    def reads(self) -> bool:
        """csrrw[i] with rd = x0 does not read the CSR (Zicsr)."""
        return self.op != "w" or self.rd != 0

    @property
    def writes(self) -> bool:
        """csrrs/csrrc[i] with rs1 = x0 (uimm = 0) do not write the CSR (Zicsr)."""
        return self.op == "w" or self.source != 0

    def spell(self) -> tuple[str, str]:
        """binutils' spelling (``csrr``, ``csrs``, ``csrc``, ``csrw``, ``rdcycle`` ... aliases;
        the immediate forms as the register ones with the immediate)."""
        rd, csr = _NAMES[self.rd], CSR_NAMES.get(self.csr, f"{self.csr:#x}")
        src = str(self.source) if self.immediate else _NAMES[self.source]
        if self.op == "s" and self.source == 0 and not self.immediate:
            counter = _COUNTER_READS.get(self.csr)
            return (counter, rd) if counter else ("csrr", f"{rd},{csr}")
        if self.rd == 0:
            return f"csr{self.op}", f"{csr},{src}"
        return f"csrr{self.op}", f"{rd},{csr},{src}"


def decode_csr(word: int) -> CsrInsn | None:
    """The Zicsr instruction ``word`` is, if it is one (SYSTEM, funct3 1-3 and 5-7)."""
    funct3 = (word >> 12) & 7
    if word & 0x7F != 0x73 or funct3 in (0, 4):
        return None
    return CsrInsn("wsc"[(funct3 & 3) - 1], bool(funct3 & 4), (word >> 7) & 31, word >> 20, (word >> 15) & 31)


def is_lr_sc(word: int) -> bool:
    """``lr.w`` / ``sc.w`` (Zalrsc): the cores have Zaamo only."""
    return word & 0x707F == 0x202F and (word >> 27) in (2, 3)


def _csr_names() -> dict[int, str]:
    """The CSR names binutils prints (package data generated by ``scripts/gen_csr_names.py``
    from gdb-multiarch 13.1); any other CSR prints in hex."""
    table = json.loads((resources.files("tdbg") / "data" / "riscv_csr_names.json").read_text())
    return {int(number, 16): name for number, name in table["names"].items()}


CSR_NAMES: dict[int, str] = _csr_names()
_COUNTER_READS = {0xC00: "rdcycle", 0xC01: "rdtime", 0xC02: "rdinstret",
                  0xC80: "rdcycleh", 0xC81: "rdtimeh", 0xC82: "rdinstreth"}


def arch_extensions(arch: str | None) -> frozenset[str]:
    """The extensions an ELF's ``Tag_RISCV_arch`` names (``rv32i2p0_m2p0_zba1p0`` -> i, m, zba,
    and zicsr: the I extension before version 2.1 included Zicsr and Zifencei, which binutils
    follows); empty when the ELF has no attribute."""
    if not arch:
        return frozenset()
    base, *parts = arch.lower().split("_")
    base = base.removeprefix("rv32").removeprefix("rv64")
    found = {part.rstrip("0123456789p") for part in (base, *parts)}
    if base.startswith("i2p0"):
        found.update(("zicsr", "zifencei"))
    return frozenset(found)
