"""Tensors as tt-metal puts them in a buffer: bfloat16 values in tile layout.

A 32x32 tile is four 16x16 faces one after the other (face ``f``: rows ``16 * (f // 2)``,
columns ``16 * (f % 2)``), each row-major (tt-metal's ``TILE_LAYOUT``, the layout the unpackers'
face addressing follows; ``tdbg.tensix.l1_data``).  Tiles follow each other row of tiles by row of
tiles.  float32 becomes bfloat16 by rounding to nearest, ties to even (measured: the bytes ttnn
0.81.1 wrote for random float32 inputs are these, not the truncated ones).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

TILE, FACE = 32, 16
TILE_BYTES_BF16 = TILE * TILE * 2


def to_bf16(values: ArrayLike) -> np.ndarray:
    """float32 -> bfloat16 bits, round to nearest even (a NaN stays a quiet NaN)."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits.astype(np.uint64) + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    return np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)


def from_bf16(bits: ArrayLike) -> np.ndarray:
    """bfloat16 bits -> float32 (exact)."""
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def tilize(matrix: ArrayLike) -> np.ndarray:
    """A (..., H, W) array (H, W multiples of 32) as a flat array in tile order."""
    m = np.asarray(matrix)
    h, w = m.shape[-2:]
    if h % TILE or w % TILE:
        raise ValueError(f"a tensor in tile layout needs rows and columns in multiples of {TILE}, not {h}x{w}")
    m = m.reshape(-1, h // TILE, TILE // FACE, FACE, w // TILE, TILE // FACE, FACE)
    # (batch, tile row, face row, row, tile column, face column, column) -> tile, face, row, column
    return m.transpose(0, 1, 4, 2, 5, 3, 6).reshape(-1)


def untilize(flat: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    """The inverse of ``tilize``: a flat array in tile order as an array of ``shape``."""
    h, w = shape[-2:]
    f = np.asarray(flat).reshape(-1, h // TILE, w // TILE, TILE // FACE, TILE // FACE, FACE, FACE)
    return f.transpose(0, 1, 3, 5, 2, 4, 6).reshape(shape)


def bf16_tiles(matrix: ArrayLike) -> bytes:
    """float values -> the bytes of a bfloat16 tensor in tile layout."""
    return to_bf16(tilize(np.asarray(matrix, dtype=np.float32))).astype("<u2").tobytes()


def from_bf16_tiles(data: bytes, shape: tuple[int, ...]) -> np.ndarray:
    """The bytes of a bfloat16 tensor in tile layout -> float32 values of ``shape``."""
    return untilize(from_bf16(np.frombuffer(data, dtype="<u2")), shape)
