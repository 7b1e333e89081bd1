"""A scalar, per-element reference of Dst.md written straight from the seed (seed 000,
"RISCV access to Dst"), independent of ``tdbg.tensix``: plain Python ints and lists.

Used only by tests to cross-check the model's vectorized and scalar paths.
"""

from __future__ import annotations


class UB(Exception):
    pass


class RefDst:
    def __init__(self, remap: bool = False, swz: bool = False, bit11: bool = False) -> None:
        self.bits = [[0] * 16 for _ in range(1024)]
        self.remap, self.swz, self.bit11 = remap, swz, bit11

    def adj16(self, r: int) -> int:
        if self.remap:
            r = (r & 0x3C7) ^ ((r & 0x030) >> 1) ^ ((r & 0x008) << 2)
        return r

    def adj32(self, r: int) -> int:
        r = self.adj16(r)
        if self.swz:
            r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1)
        return ((r & 0x1F8) << 1) | (r & 0x207)

    def rd32(self, row: int, col: int) -> int:
        a = self.adj32(row)
        return (self.bits[a][col] << 16) | self.bits[a + 8][col]

    def wr32(self, row: int, col: int, v: int) -> None:
        a = self.adj32(row)
        self.bits[a][col] = v >> 16
        self.bits[a + 8][col] = v & 0xFFFF

    def rd16(self, row: int, col: int) -> int:
        if self.bit11:
            return self.rd32(row, col) >> 16
        return self.bits[self.adj16(row)][col]

    def wr16(self, row: int, col: int, v: int) -> None:
        if self.bit11:  # the low half gets garbage; the reference leaves it as it was
            self.bits[self.adj32(row)][col] = v
        else:
            self.bits[self.adj16(row)][col] = v


def u32(x: int) -> int:
    return x & 0xFFFFFFFF


def u16(x: int) -> int:
    return x & 0xFFFF


def u8(x: int) -> int:
    return x & 0xFF


def load32(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int) -> int:
    a = off // 4
    v = d.rd32(a // 16, a % 16)
    if not nsw:
        v = (v & 0x8000FFFF) | ((v & 0x7F000000) >> 8) | ((v & 0x00FF0000) << 7)
    if fmt == 0:
        return v
    if fmt == 1:
        if nsw or v < 0x80000000:
            return v
        return u32(-(v & 0x7FFFFFFF))
    raise UB


def load16(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int) -> int:
    a = off // 2
    v = d.rd16(a // 16, a % 16)
    if fmt == 2:
        return v if nsw else (v & 0x8000) | ((v & 0x7FE0) >> 5) | ((v & 0x001F) << 10)
    if fmt == 3:
        return v if nsw else (v & 0x8000) | ((v & 0x7F00) >> 8) | ((v & 0x00FF) << 7)
    if fmt == 4:
        if nsw or uns or v < 0x8000:
            return v
        return u16(-(v & 0x7FFF))
    raise UB


def load8(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int) -> int:
    if fmt != 5 or off >= 0x4000:
        raise UB
    v16 = d.rd16(off // 16, off % 16)
    if nsw or uns:
        return (v16 >> 5) & 0xFF
    mag = (v16 >> 5) & 0x7F
    return u8(-mag) if v16 & 0x8000 else mag


def store32(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int, v: int) -> None:
    if fmt not in (0, 1):
        raise UB
    if fmt == 1 and not (nsw or v < 0x80000000):
        v = 0x80000000 | u32(-(v + (1 if v == 0x80000000 else 0)))
    if not nsw:
        v = (v & 0x8000FFFF) | ((v & 0x7F800000) >> 7) | ((v & 0x007F0000) << 8)
    a = off // 4
    d.wr32(a // 16, a % 16, v)


def store16(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int, v: int) -> None:
    if fmt == 2:
        if not nsw:
            v = (v & 0x8000) | ((v & 0x7C00) >> 10) | ((v & 0x03FF) << 5)
    elif fmt == 3:
        if not nsw:
            v = (v & 0x8000) | ((v & 0x7F80) >> 7) | ((v & 0x007F) << 8)
    elif fmt == 4:
        if not (nsw or uns or v < 0x8000):
            v = 0x8000 | u16(-(v + (1 if v == 0x8000 else 0)))
    else:
        raise UB
    a = off // 2
    d.wr16(a // 16, a % 16, v)


def store8(d: RefDst, fmt: int, nsw: bool, uns: bool, off: int, v: int) -> None:
    if fmt != 5 or off >= 0x4000:
        raise UB
    if nsw or uns or v < 0x80:
        v16 = (v << 5) | (16 if v else 0)
    else:
        mag = u8(0x180 - v - (1 if v == 0x80 else 0))
        v16 = 0x8000 | (mag << 5) | 16
    d.wr16(off // 16, off % 16, v16)


LOADS = {4: load32, 2: load16, 1: load8}
STORES = {4: store32, 2: store16, 1: store8}
