"""The RISC-V Dst window against values worked by hand from Dst.md (seed 000) and against the
independent scalar reference in ``dst_reference.py``."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dst_reference as ref
from tdbg.tensix.events import UndefinedBehavior, UnpredictableValueUsed
from tdbg.tensix.state import TensixState


def configure(t: TensixState, core: int, fmt: int, no_swizzle: bool = False, unsigned_int: bool = False) -> None:
    sec = f"RISC_DEST_ACCESS_CTRL_SEC{core}_"
    t.config.set(sec + "fmt", fmt, thread=core)
    t.config.set(sec + "no_swizzle", int(no_swizzle), thread=core)
    t.config.set(sec + "unsigned_int", int(unsigned_int), thread=core)


# -- hand-worked values (expected bits computed by hand in the comments) ---------------------

def test_fp32_store_lands_in_dst32_layout(tensix: TensixState) -> None:
    configure(tensix, 0, 0)
    # 1.0 = 0x3F800000: exponent 0x7F -> bits 23:16, mantissa 0 -> Dst32 0x007F0000.
    tensix.window.store(0, 0, 4, 0x3F800000)
    # -2.5 = 0xC0200000: sign; exponent 0x80 -> 0x00800000; mantissa-high7 0x20 -> 0x20000000.
    tensix.window.store(0, 4, 4, 0xC0200000)
    # Dst32b[0][c] = DstBits[Adj32(0)=0][c] << 16 | DstBits[8][c]
    assert tensix.dst.bits[0, 0] == 0x007F and tensix.dst.bits[8, 0] == 0
    assert tensix.dst.bits[0, 1] == 0xA080 and tensix.dst.bits[8, 1] == 0
    assert tensix.window.load(0, 0, 4) == 0x3F800000
    assert tensix.window.load(0, 4, 4) == 0xC0200000


def test_fp32_then_bf16_view_reads_high_half(tensix: TensixState) -> None:
    configure(tensix, 0, 0)
    tensix.window.store(0, 4, 4, 0xC0200000)  # -2.5
    configure(tensix, 0, 3)
    # Dst16b[0][1] = DstBits[0][1] = 0xA080 -> CPU BF16: sign | exp 0x80 << 7 | mant 0x20 = 0xC020
    assert tensix.window.load(0, 2, 2) == 0xC020


def test_fp32_element_index(tensix: TensixState) -> None:
    configure(tensix, 0, 0, no_swizzle=True)
    # offset 0x84 -> element 33 -> Dst32b[2][1] -> DstBits[Adj32(2)=2][1] and [10][1]
    tensix.window.store(0, 0x84, 4, 0x12345678)
    assert tensix.dst.bits[2, 1] == 0x1234 and tensix.dst.bits[10, 1] == 0x5678
    # row 8 -> Adj32(8) = (8 & 0x1f8) << 1 = 16, low half at 24
    tensix.window.store(0, 8 * 64, 4, 0xAABBCCDD)
    assert tensix.dst.bits[16, 0] == 0xAABB and tensix.dst.bits[24, 0] == 0xCCDD


def test_int32_sign_magnitude_and_clamp(tensix: TensixState) -> None:
    configure(tensix, 0, 1)
    tensix.window.store(0, 0, 4, 0xFFFFFFFB)  # -5 -> sign-magnitude 0x80000005 (swizzle keeps it)
    assert (tensix.dst.bits[0, 0], tensix.dst.bits[8, 0]) == (0x8000, 0x0005)
    assert tensix.window.load(0, 0, 4) == 0xFFFFFFFB
    # 0x12345678 swizzled: 0x5678 | 0x12000000 >> 7 | 0x00340000 << 8 = 0x34245678
    tensix.window.store(0, 4, 4, 0x12345678)
    assert (tensix.dst.bits[0, 1], tensix.dst.bits[8, 1]) == (0x3424, 0x5678)
    assert tensix.window.load(0, 4, 4) == 0x12345678
    # -2**31 clamps to -(2**31 - 1): sign-magnitude 0xFFFFFFFF, read back as 0x80000001
    tensix.window.store(0, 8, 4, 0x80000000)
    assert (tensix.dst.bits[0, 2], tensix.dst.bits[8, 2]) == (0xFFFF, 0xFFFF)
    assert tensix.window.load(0, 8, 4) == 0x80000001


def test_int32_negative_zero_reads_as_zero(tensix: TensixState) -> None:
    configure(tensix, 0, 1)
    tensix.dst.set32(0, 0, 0x80000000)  # sign-magnitude -0
    assert tensix.window.load(0, 0, 4) == 0
    configure(tensix, 0, 1, no_swizzle=True)
    assert tensix.window.load(0, 0, 4) == 0x80000000  # no_swizzle: raw bits


def test_fp16_and_bf16_shuffles(tensix: TensixState) -> None:
    configure(tensix, 0, 2)
    tensix.window.store(0, 0, 2, 0x3C00)  # 1.0: exponent 15 -> bits 4:0 = 0x000F
    tensix.window.store(0, 2, 2, 0xC100)  # -2.5: sign | exp 16 | mant 0x100 << 5 = 0xA010
    assert tensix.dst.bits[0, 0] == 0x000F and tensix.dst.bits[0, 1] == 0xA010
    assert tensix.window.load(0, 2, 2) == 0xC100
    configure(tensix, 0, 3)
    tensix.window.store(0, 4, 2, 0x3F80)  # 1.0 BF16: exponent 0x7F -> bits 7:0
    tensix.window.store(0, 6, 2, 0xC020)  # -2.5: sign | mant 0x20 << 8 | exp 0x80 = 0xA080
    assert tensix.dst.bits[0, 2] == 0x007F and tensix.dst.bits[0, 3] == 0xA080
    configure(tensix, 0, 3, no_swizzle=True)
    assert tensix.window.load(0, 6, 2) == 0xA080


def test_int16_clamp_and_unsigned(tensix: TensixState) -> None:
    configure(tensix, 0, 4)
    tensix.window.store(0, 0, 2, 0xFFFE)  # -2 -> 0x8002
    tensix.window.store(0, 2, 2, 0x8000)  # -32768 clamps to -32767 -> 0xFFFF
    assert tensix.dst.bits[0, 0] == 0x8002 and tensix.dst.bits[0, 1] == 0xFFFF
    assert tensix.window.load(0, 0, 2) == 0xFFFE
    assert tensix.window.load(0, 2, 2) == 0x8001
    configure(tensix, 0, 4, unsigned_int=True)
    assert tensix.window.load(0, 0, 2) == 0x8002
    tensix.window.store(0, 4, 2, 0xFFFE)
    assert tensix.dst.bits[0, 2] == 0xFFFE


def test_int8_store_quirk(tensix: TensixState) -> None:
    configure(tensix, 0, 5)
    tensix.window.store(0, 0, 1, 0xFF)  # -1: Mag = 0x180 - 0xFF = 0x81 -> 0x8000 | 0x81 << 5 | 16
    assert tensix.dst.bits[0, 0] == 0x9030
    assert tensix.window.load(0, 0, 1) == 0xFF  # low seven magnitude bits 0x01, negated
    tensix.window.store(0, 1, 1, 0x80)  # -128: Mag = 0x100 - 1 = 0xFF -> 0x9FF0
    assert tensix.dst.bits[0, 1] == 0x9FF0
    assert tensix.window.load(0, 1, 1) == 0x81  # reads back as -127
    tensix.window.store(0, 2, 1, 5)
    tensix.window.store(0, 3, 1, 0)
    assert tensix.dst.bits[0, 2] == 0x00B0 and tensix.dst.bits[0, 3] == 0  # zero: low bits 0
    configure(tensix, 0, 5, unsigned_int=True)
    assert tensix.window.load(0, 0, 1) == 0x81
    tensix.window.store(0, 4, 1, 200)  # 0xC8 << 5 | 16
    assert tensix.dst.bits[0, 4] == 0x1910
    assert tensix.window.load(0, 4, 1) == 200


@pytest.mark.parametrize("fmt", range(8))
@pytest.mark.parametrize("size", [1, 2, 4])
def test_undefined_widths_raise(tensix: TensixState, fmt: int, size: int) -> None:
    configure(tensix, 0, fmt)
    defined = {0: 4, 1: 4, 2: 2, 3: 2, 4: 2, 5: 1}.get(fmt) == size
    for op in (lambda: tensix.window.load(0, 0, size), lambda: tensix.window.store(0, 0, size, 1)):
        if defined:
            op()
        else:
            with pytest.raises(UndefinedBehavior, match="Dst.md"):
                op()
    assert not tensix.dst.bits.any() or defined


def test_int8_view_is_16_kib(tensix: TensixState) -> None:
    configure(tensix, 0, 5)
    tensix.window.store(0, 0x3FFF, 1, 1)
    with pytest.raises(UndefinedBehavior, match="16 KiB"):
        tensix.window.store(0, 0x4000, 1, 1)
    with pytest.raises(UndefinedBehavior):
        tensix.window.load(0, 0x7FFF, 1)


def test_cores_use_their_own_sec_and_bank(tensix: TensixState) -> None:
    configure(tensix, 0, 0)
    tensix.config.set("CFG_STATE_ID_StateID", 1, thread=1)  # T1 reads Config bank 1
    tensix.config.set("RISC_DEST_ACCESS_CTRL_SEC1_fmt", 3, bank=1)
    tensix.window.store(0, 0, 4, 0x3F800000)
    assert tensix.window.load(1, 0, 2) == 0x3F80  # T1 sees BF16
    with pytest.raises(UndefinedBehavior):
        tensix.window.load(2, 0, 1)  # T2: fmt 0 in bank 0, byte access


def test_t2_splits_wide_access(tensix: TensixState) -> None:
    configure(tensix, 2, 3)
    tensix.window.store(2, 0, 4, 0xC0203F80)  # two BF16: 1.0 at col 0, -2.5 at col 1
    assert tensix.dst.bits[0, 0] == 0x007F and tensix.dst.bits[0, 1] == 0xA080
    assert tensix.window.load(2, 0, 4) == 0xC0203F80
    with pytest.raises(UndefinedBehavior, match="aligned"):
        tensix.window.load(2, 2, 4)
    configure(tensix, 0, 3)
    with pytest.raises(UndefinedBehavior):
        tensix.window.load(0, 0, 4)  # T0 cannot: a 32-bit load in a 16-bit view


def test_bit11_alias_and_garbage(tensix: TensixState) -> None:
    configure(tensix, 0, 0, no_swizzle=True)
    tensix.window.store(0, 8 * 64, 4, 0x11112222)  # Dst32b[8][0]: DstBits[16][0], [24][0]
    tensix.dst.feature_disable = 1 << 11
    configure(tensix, 0, 4, unsigned_int=True)
    assert tensix.window.load(0, 8 * 32, 2) == 0x1111  # Dst16b[8][0] = high half of Dst32b[8][0]
    tensix.window.store(0, 8 * 32, 2, 0x3333)
    assert tensix.dst.bits[16, 0] == 0x3333
    configure(tensix, 0, 0, no_swizzle=True)
    with pytest.raises(UnpredictableValueUsed):
        tensix.window.load(0, 8 * 64, 4)
    tensix.window.store(0, 8 * 64, 4, 0x44445555)  # a full write makes it defined again
    assert tensix.window.load(0, 8 * 64, 4) == 0x44445555


# -- cross-check against the scalar reference over every mode --------------------------------

MODES = list(itertools.product(range(3), range(8), (False, True), (False, True), (False, True), (False, True), (False, True)))


def reference_access(d: ref.RefDst, core: int, mode: tuple, op: str, off: int, size: int, value: int) -> int | None:
    fmt, nsw, uns = mode
    elem = {0: 4, 1: 4, 2: 2, 3: 2, 4: 2, 5: 1}.get(fmt, size)
    parts = [(off, size, value)]
    if core == 2 and size > elem:
        if off % size:
            raise ref.UB
        mask = (1 << (8 * elem)) - 1
        parts = [(off + i * elem, elem, (value >> (8 * elem * i)) & mask) for i in range(size // elem)]
    if op == "store":
        for o, s, v in parts:
            ref.STORES[s](d, fmt, nsw, uns, o, v)
        return None
    out = 0
    for i, (o, s, _) in enumerate(parts):
        out |= ref.LOADS[s](d, fmt, nsw, uns, o) << (8 * s * i)
    return out


@pytest.mark.parametrize("core,fmt,nsw,uns,remap,swz,bit11", MODES)
def test_matches_reference(core: int, fmt: int, nsw: bool, uns: bool, remap: bool, swz: bool, bit11: bool) -> None:
    rng = random.Random(hash((core, fmt, nsw, uns, remap, swz, bit11)))
    t = TensixState()
    t.config.set("DEST_ACCESS_CFG_remap_addrs", int(remap))
    t.config.set("DEST_ACCESS_CFG_swizzle_32b", int(swz))
    t.dst.feature_disable = (1 << 11) if bit11 else 0
    configure(t, core, fmt, nsw, uns)
    d = ref.RefDst(remap, swz, bit11)
    seed = [[rng.getrandbits(16) for _ in range(16)] for _ in range(1024)]
    d.bits = [row[:] for row in seed]
    t.dst.bits[:] = seed
    for _ in range(40):
        size = rng.choice([1, 2, 4])
        off = rng.randrange(0, 0x8000, size) if rng.random() < 0.9 else rng.randrange(0x8000)
        value = rng.getrandbits(8 * size)
        op = rng.choice(["load", "store"])
        try:
            want = reference_access(d, core, (fmt, nsw, uns), op, off, size, value)
        except ref.UB:
            with pytest.raises(UndefinedBehavior):
                getattr(t.window, op)(core, off, size, *([value] if op == "store" else []))
            continue
        try:
            got = t.window.load(core, off, size) if op == "load" else t.window.store(core, off, size, value)
        except UnpredictableValueUsed:
            assert bit11  # garbage is only ever produced by bit-11 Dst16b writes
            t.dst.clear_unpredictable()
            continue
        assert got == want, (op, hex(off), size, hex(value))
    assert t.dst.bits.tolist() == d.bits


# -- properties: Store then Load --------------------------------------------------------------

def roundtrip(fmt: int, nsw: bool, uns: bool, size: int, value: int) -> int:
    t = TensixState()
    configure(t, 0, fmt, nsw, uns)
    t.window.store(0, 0x40, size, value)
    return t.window.load(0, 0x40, size)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 0xFFFFFFFF), st.booleans(), st.booleans())
def test_store_load_32(value: int, nsw: bool, uns: bool) -> None:
    assert roundtrip(0, nsw, uns, 4, value) == value
    exact = nsw or value != 0x80000000  # only -2**31 is clamped
    assert (roundtrip(1, nsw, uns, 4, value) == value) == exact


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 0xFFFF), st.booleans(), st.booleans())
def test_store_load_16(value: int, nsw: bool, uns: bool) -> None:
    assert roundtrip(2, nsw, uns, 2, value) == value
    assert roundtrip(3, nsw, uns, 2, value) == value
    exact = nsw or uns or value != 0x8000
    assert (roundtrip(4, nsw, uns, 2, value) == value) == exact


def test_store_load_8_exhaustive() -> None:
    for nsw, uns in itertools.product((False, True), repeat=2):
        for value in range(256):
            exact = nsw or uns or value != 0x80  # -128 comes back as -127
            assert (roundtrip(5, nsw, uns, 1, value) == value) == exact, (nsw, uns, value)
