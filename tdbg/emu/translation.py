"""Zba / Zbb / xttzbkb instructions, which Unicorn cannot execute, run at Unicorn's speed as
short RV32IM sequences ("trampolines").

The word at ``A`` becomes ``jal zero, T`` (or a NOP when it writes ``zero``); the trampoline at
``T`` computes the same ``rd`` with RV32IM instructions and ends with ``jal zero, A+4``.  So the
only Python work is at translation; running the instruction costs a few native instructions
(measured: ``scripts/bench.py`` (h)).  A trampoline that needs scratch registers borrows them
through ``csrrw t, mscratch|sscratch, t`` (two swaps put them back): Unicorn keeps those CSRs per
core, no firmware instruction can reach them (every CSR instruction in loaded code is the core's
own, ``tdbg.emu.csrs``), and no memory is touched.

Trampolines live where the Blackhole map has nothing and a ``jal`` from L1 reaches (+-1 MiB,
wrapping at 2**32): the profile's ``trampoline_spaces``, mapped execute-only in every core (a
load or store there is unmapped, as on silicon).  A stop never leaves a core inside one: the core
finishes the sequence first (``Core``), so the debugger sees ``A`` executed as one instruction.

Each sequence is tested against ``tdbg.riscv.extensions.evaluate`` (written from the specifications)
on random operands and every register aliasing (tests/test_riscv_ext.py).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from tdbg.emu.host_memory import zeroed
from tdbg.riscv.extensions import BitInsn

MSCRATCH, SSCRATCH = 0x340, 0x140
NOP = 0x0000_0013
JAL_REACH = 1 << 20            # jal's offset: -2**20 .. 2**20 - 2


# -- RV32I encodings (The RISC-V Instruction Set Manual, volume I, "Base Instruction Formats") --

def _r(funct7: int, rs2: int, rs1: int, funct3: int, rd: int, opcode: int = 0x33) -> int:
    return (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode


def _i(imm: int, rs1: int, funct3: int, rd: int, opcode: int = 0x13) -> int:
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode


def _b(offset: int, rs2: int, rs1: int, funct3: int) -> int:
    o = offset & 0x1FFF
    return (((o >> 12) & 1) << 31) | (((o >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) \
        | (((o >> 1) & 0xF) << 8) | (((o >> 11) & 1) << 7) | 0x63


def jal(rd: int, offset: int) -> int:
    """``jal rd, offset``; ``offset`` must be within ``JAL_REACH``."""
    if not -JAL_REACH <= offset < JAL_REACH or offset & 1:
        raise ValueError(f"jal offset {offset:#x} out of reach")
    o = offset & 0x1F_FFFF
    return (((o >> 20) & 1) << 31) | (((o >> 1) & 0x3FF) << 21) | (((o >> 11) & 1) << 20) \
        | (((o >> 12) & 0xFF) << 12) | (rd << 7) | 0x6F


def jal_offset(word: int) -> int | None:
    """The offset of a ``jal zero, offset`` word, else None."""
    if word & 0xFFF != 0x06F:
        return None
    o = (((word >> 31) & 1) << 20) | (((word >> 21) & 0x3FF) << 1) | (((word >> 20) & 1) << 11) | (((word >> 12) & 0xFF) << 12)
    return o - (1 << 21) if o & (1 << 20) else o


class _Asm:
    """A straight-line RV32IM sequence with forward labels for its few branches."""

    def __init__(self) -> None:
        self.words: list[int | Callable[[int], int]] = []
        self.labels: dict[str, int] = {}

    def emit(self, *words: int) -> None:
        self.words.extend(words)

    def branch(self, funct3: int, rs1: int, rs2: int, label: str) -> None:
        at = len(self.words)
        self.words.append(lambda here, at=at: _b(4 * (self.labels[label] - at), rs2, rs1, funct3))

    def skip_next(self, funct3: int, rs1: int, rs2: int, count: int = 1) -> None:
        """Branch over the next ``count`` instructions when the condition holds."""
        self.emit(_b(4 * (count + 1), rs2, rs1, funct3))

    def jump(self, label: str) -> None:
        at = len(self.words)
        self.words.append(lambda here, at=at: jal(0, 4 * (self.labels[label] - at)))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.words)

    def li(self, rd: int, value: int) -> None:
        hi = ((value + 0x800) >> 12) & 0xFFFFF
        self.emit((hi << 12) | (rd << 7) | 0x37, _i(value, rd, 0, rd))

    def swap(self, reg: int, csr: int) -> None:
        self.emit(_i(csr, reg, 1, reg, 0x73))       # csrrw reg, csr, reg

    def assemble(self) -> list[int]:
        return [w if isinstance(w, int) else w(0) for w in self.words]


def _add(rd: int, a: int, b: int) -> int: return _r(0, b, a, 0, rd)
def _sub(rd: int, a: int, b: int) -> int: return _r(0x20, b, a, 0, rd)
def _and(rd: int, a: int, b: int) -> int: return _r(0, b, a, 7, rd)
def _or(rd: int, a: int, b: int) -> int: return _r(0, b, a, 6, rd)
def _xor(rd: int, a: int, b: int) -> int: return _r(0, b, a, 4, rd)
def _sll(rd: int, a: int, b: int) -> int: return _r(0, b, a, 1, rd)
def _srl(rd: int, a: int, b: int) -> int: return _r(0, b, a, 5, rd)
def _mul(rd: int, a: int, b: int) -> int: return _r(1, b, a, 0, rd)
def _addi(rd: int, a: int, imm: int) -> int: return _i(imm, a, 0, rd)
def _xori(rd: int, a: int, imm: int) -> int: return _i(imm, a, 4, rd)
def _andi(rd: int, a: int, imm: int) -> int: return _i(imm, a, 7, rd)
def _slli(rd: int, a: int, sh: int) -> int: return _i(sh, a, 1, rd)
def _srli(rd: int, a: int, sh: int) -> int: return _i(sh, a, 5, rd)
def _srai(rd: int, a: int, sh: int) -> int: return _i(0x400 | sh, a, 5, rd)


_BEQ, _BNE, _BLT, _BGE, _BLTU, _BGEU = 0, 1, 4, 5, 6, 7


def _scratch(insn: BitInsn, count: int) -> list[int]:
    """``count`` registers the instruction neither reads nor writes (never ``zero``)."""
    busy = {insn.rd, insn.rs1, insn.rs2}
    return [r for r in (*range(5, 32), 1, 2, 3, 4) if r not in busy][:count]


def sequence(insn: BitInsn) -> list[int]:
    """RV32IM words that leave ``x[insn.rd]`` as ``insn`` would (``rd`` is not ``zero``) and
    change no other register."""
    rd, a, b, name = insn.rd, insn.rs1, insn.rs2, insn.name
    asm = _Asm()
    t, u = _scratch(insn, 2)
    borrowed: list[int] = []

    def borrow(*regs: int) -> None:
        for reg, csr in zip(regs, (MSCRATCH, SSCRATCH)):
            asm.swap(reg, csr)
            borrowed.append(reg)

    if name in ("sh1add", "sh2add", "sh3add"):
        n = int(name[2])
        if rd != b:
            asm.emit(_slli(rd, a, n), _add(rd, rd, b))
        elif rd != a:                                       # rd == rs2: add rs1 2**n times
            asm.emit(*[_add(rd, rd, a)] * (1 << n))
        else:
            borrow(t)
            asm.emit(_slli(t, a, n), _add(rd, t, rd))
    elif name == "andn":
        asm.emit(*((_xori(rd, b, -1), _and(rd, rd, a)) if rd != a else (_or(rd, rd, b), _xor(rd, rd, b))))
    elif name == "orn":
        if rd != a:
            asm.emit(_xori(rd, b, -1), _or(rd, rd, a))
        elif rd != b:                                       # rd == rs1: ~(~a & b)
            asm.emit(_xori(rd, rd, -1), _and(rd, rd, b), _xori(rd, rd, -1))
        else:                                               # a | ~a
            asm.emit(_addi(rd, 0, -1))
    elif name == "xnor":
        asm.emit(_xor(rd, a, b), _xori(rd, rd, -1))
    elif name in ("min", "minu", "max", "maxu"):
        less = _BLTU if name.endswith("u") else _BLT
        keep_a = (lambda x, y: (x, y)) if name.startswith("min") else (lambda x, y: (y, x))  # a kept when less(*keep_a(a, b))
        if rd == a:
            asm.skip_next(less, *keep_a(rd, b))
            asm.emit(_addi(rd, b, 0))
        elif rd == b:
            asm.skip_next(less ^ 1, *keep_a(a, rd))            # not less: keep b (in rd)
            asm.emit(_addi(rd, a, 0))
        else:
            asm.emit(_addi(rd, a, 0))
            asm.skip_next(less, *keep_a(rd, b))
            asm.emit(_addi(rd, b, 0))
    elif name in ("sext.b", "sext.h"):
        n = 24 if name == "sext.b" else 16
        asm.emit(_slli(rd, a, n), _srai(rd, rd, n))
    elif name == "pack" and b == 0:                            # zext.h
        asm.emit(_slli(rd, a, 16), _srli(rd, rd, 16))
    elif name == "pack":
        borrow(t)
        asm.emit(_slli(t, a, 16), _srli(t, t, 16), _slli(rd, b, 16), _or(rd, rd, t))
    elif name in ("rol", "ror"):
        first, second = (_sll, _srl) if name == "rol" else (_srl, _sll)
        borrow(t, u)
        asm.emit(first(t, a, b), _sub(u, 0, b), second(u, a, u), _or(rd, t, u))
    elif name == "rori":
        if insn.shamt == 0:
            asm.emit(_addi(rd, a, 0))
        else:
            borrow(t)
            asm.emit(_srli(t, a, insn.shamt), _slli(rd, a, 32 - insn.shamt), _or(rd, rd, t))
    elif name in ("clz", "ctz"):
        probe, shift = (_srli, _slli) if name == "clz" else (_slli, _srli)
        borrow(t, u)                                         # t: the value, u: the count, rd: scratch
        asm.emit(_addi(t, a, 0), _addi(u, 0, 0))
        asm.branch(_BEQ, t, 0, "zero")
        for n in (16, 8, 4, 2):
            asm.emit(probe(rd, t, 32 - n))
            asm.skip_next(_BNE, rd, 0, 2)
            asm.emit(_addi(u, u, n), shift(t, t, n))
        asm.emit(probe(rd, t, 31))
        asm.skip_next(_BNE, rd, 0)
        asm.emit(_addi(u, u, 1))
        asm.jump("end")
        asm.label("zero")
        asm.emit(_addi(u, 0, 32))
        asm.label("end")
        asm.emit(_addi(rd, u, 0))
    elif name == "cpop":
        borrow(t, u)
        asm.emit(_addi(t, a, 0), _srli(u, t, 1))
        asm.li(rd, 0x5555_5555)
        asm.emit(_and(u, u, rd), _sub(t, t, u))
        asm.li(rd, 0x3333_3333)
        asm.emit(_srli(u, t, 2), _and(u, u, rd), _and(t, t, rd), _add(t, t, u), _srli(u, t, 4), _add(t, t, u))
        asm.li(rd, 0x0F0F_0F0F)
        asm.emit(_and(t, t, rd))
        asm.li(rd, 0x0101_0101)
        asm.emit(_mul(t, t, rd), _srli(rd, t, 24))
    elif name == "orc.b":
        borrow(t, u)
        asm.emit(_addi(t, a, 0))
        for n in (1, 2, 4):
            asm.emit(_srli(u, t, n), _or(t, t, u))
        asm.li(u, 0x0101_0101)
        asm.emit(_and(t, t, u), _addi(u, 0, 0xFF), _mul(rd, t, u))
    elif name == "rev8":
        borrow(t, u)
        asm.emit(_addi(t, a, 0), _slli(rd, t, 24), _srli(u, t, 24), _or(rd, rd, u))
        for down, up in ((8, 16), (16, 8)):
            asm.emit(_srli(u, t, down), _andi(u, u, 0xFF), _slli(u, u, up), _or(rd, rd, u))
    elif name == "brev8":
        borrow(t, u)
        asm.emit(_addi(t, a, 0))
        for n, mask in ((1, 0x5555_5555), (2, 0x3333_3333), (4, 0x0F0F_0F0F)):
            asm.li(rd, mask)
            asm.emit(_srli(u, t, n), _and(u, u, rd), _and(t, t, rd), _slli(t, t, n), _or(t, t, u))
        asm.emit(_addi(rd, t, 0))
    else:
        raise ValueError(f"no sequence for {name}")
    for reg, csr in reversed(list(zip(borrowed, (MSCRATCH, SSCRATCH)))):
        asm.swap(reg, csr)
    return asm.assemble()


def _rel(target: int, origin: int) -> int:
    """``target - origin`` as a jump sees it: modulo 2**32, signed."""
    return (target - origin + (1 << 31)) % (1 << 32) - (1 << 31)


@dataclass
class _Space:
    """One execute-only range for trampolines, filled from one end: upwards from ``base`` when
    it lies above L1, downwards from its end when it lies below 2**32 (so that the low L1
    addresses, which reach it by wrapping, find room first)."""

    base: int
    size: int
    buffer: ctypes.Array = field(repr=False)
    down: bool
    next: int = 0

    def __post_init__(self) -> None:
        self.next = self.base + self.size if self.down else self.base

    def room(self, address: int, size: int) -> int | None:
        """Where ``size`` bytes go so that a ``jal`` at ``address`` reaches them and their last
        word reaches ``address + 4``; None if nowhere left."""
        start = self.next - size if self.down else self.next
        if start < self.base or start + size > self.base + self.size:
            return None
        if -JAL_REACH <= _rel(start, address) < JAL_REACH and -JAL_REACH <= _rel(address + 4, start + size - 4) < JAL_REACH:
            return start
        return None


@lru_cache(maxsize=1 << 12)
def _body(insn: BitInsn) -> tuple[int, ...]:
    """``sequence`` of one instruction, made once per process."""
    return tuple(sequence(insn))


class Trampolines:
    """The trampolines of one tile (shared by its cores, as L1 is), by the address they serve."""

    def __init__(self, spaces: tuple[tuple[int, int], ...]) -> None:
        self.spaces = [_Space(base, size, zeroed(size), down=base >= (1 << 31))
                       for base, size in spaces]
        self.placed: dict[tuple[int, int], int] = {}   # (address, word) -> trampoline start
        self._served: dict[int, tuple[int, int]] = {}   # trampoline start -> (its end, the address served)

    def contains(self, pc: int) -> bool:
        return any(s.base <= pc < s.base + s.size for s in self.spaces)

    def return_address(self, pc: int) -> int:
        """Where the trampoline ``pc`` is in jumps back to: after the instruction it stands for."""
        for start, (end, address) in self._served.items():
            if start <= pc < end:
                return address + 4
        raise ValueError(f"{pc:#x} is in no trampoline")

    def overlaps(self, address: int, size: int) -> bool:
        """True when ``[address, address + size)`` touches a trampoline space (which the
        cores' map leaves unmapped: the debugger cannot reach it either)."""
        return any(address < s.base + s.size and s.base < address + size for s in self.spaces)

    def place(self, address: int, insn: BitInsn, word: int) -> int:
        """The ``jal`` that replaces ``word`` (which is ``insn``) at ``address``, its trampoline
        written (or found, when the same word was placed there before)."""
        start = self.placed.get((address, word))
        if start is None:
            body = _body(insn)
            size = 4 * (len(body) + 1)
            for space in self.spaces:
                start = space.room(address, size)
                if start is not None:
                    break
            else:
                raise MemoryError(f"no room left for the trampoline of {address:#x}")
            code = b"".join(w.to_bytes(4, "little") for w in (*body, jal(0, _rel(address + 4, start + size - 4))))
            ctypes.memmove(ctypes.addressof(space.buffer) + start - space.base, code, size)
            space.next = start if space.down else start + size
            self.placed[(address, word)] = start
            self._served[start] = (start + size, address)
        return jal(0, _rel(start, address))
