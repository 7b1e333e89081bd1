"""Dst row mappings and the vectorized row/block paths (Dst.md), cross-checked against the
scalar reference in ``dst_reference.py``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dst_reference as ref
from tdbg.tensix.dst import adj16, adj32
from tdbg.tensix.state import TensixState

FLAGS = list(itertools.product((False, True), repeat=2))


@pytest.mark.parametrize("remap", [False, True])
def test_adj16_is_a_bijection(remap: bool) -> None:
    assert sorted(adj16(r, remap) for r in range(1024)) == list(range(1024))


def test_adj16_remap_hand_values() -> None:
    # remap moves bit 3 -> bit 5, bit 4 -> bit 3, bit 5 -> bit 4
    assert [adj16(r, True) for r in (0x008, 0x010, 0x020, 0x3C7)] == [0x020, 0x008, 0x010, 0x3C7]


@pytest.mark.parametrize("remap,swizzle", FLAGS)
def test_adj32_reaches_512_row_pairs(remap: bool, swizzle: bool) -> None:
    highs = {adj32(r, remap, swizzle) for r in range(1024)}
    assert len(highs) == 512
    assert highs.isdisjoint({h + 8 for h in highs})  # the low halves are other rows
    assert len(highs | {h + 8 for h in highs}) == 1024


def test_adj32_hand_values() -> None:
    # ((r & 0x1f8) << 1) | (r & 0x207)
    assert [adj32(r, False, False) for r in (1, 7, 8, 0x100, 0x200)] == [1, 7, 16, 0x200, 0x200]


@pytest.mark.parametrize("remap,swizzle", FLAGS)
@pytest.mark.parametrize("bit11", [False, True])
def test_row_paths_match_reference(remap: bool, swizzle: bool, bit11: bool) -> None:
    rng = np.random.default_rng(7)
    t = TensixState()
    t.config.set("DEST_ACCESS_CFG_remap_addrs", int(remap))
    t.config.set("DEST_ACCESS_CFG_swizzle_32b", int(swizzle))
    t.dst.feature_disable = (1 << 11) if bit11 else 0
    d = ref.RefDst(remap, swizzle, bit11)
    block32 = rng.integers(0, 2**32, size=(512, 16), dtype=np.uint32)
    t.dst.write32(slice(0, 512), block32)
    for r in range(512):
        for c in range(16):
            d.wr32(r, c, int(block32[r, c]))
    assert t.dst.bits.tolist() == d.bits
    rows = rng.integers(0, 1024, size=50)
    assert t.dst.read32(rows).tolist() == [[d.rd32(int(r), c) for c in range(16)] for r in rows]
    assert t.dst.read16(rows).tolist() == [[d.rd16(int(r), c) for c in range(16)] for r in rows]
    row16 = rng.integers(0, 2**16, size=16, dtype=np.uint16)
    t.dst.write16(37, row16)
    for c in range(16):
        d.wr16(37, c, int(row16[c]))
    assert t.dst.bits.tolist() == d.bits
    assert [t.dst.get16(37, c) for c in range(16)] == row16.tolist()
    assert t.dst.read16(37).shape == (16,)


def test_ever_written_tracks_dstbits_rows(tensix: TensixState) -> None:
    tensix.dst.set32(8, 3, 1)
    assert np.flatnonzero(tensix.dst.ever_written).tolist() == [16, 24]
