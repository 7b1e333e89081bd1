"""The ``Dst`` register: ``DstBits[rows][cols]`` (1024 x 16: the profile's geometry) and its
``Dst16b`` / ``Dst32b`` views.

Implements BlackholeA0 ``TensixCoprocessor/Dst.md``: ``Adj16`` / ``Adj32`` under
``DEST_ACCESS_CFG_remap_addrs`` / ``DEST_ACCESS_CFG_swizzle_32b``; ``Dst32b[r][c]`` is
``DstBits[Adj32(r)][c] << 16 | DstBits[Adj32(r) + 8][c]``; and, while bit 11 of
``RISCV_DEBUG_REG_DBG_FEATURE_DISABLE`` is set, ``Dst16b[r][c]`` is the high half of
``Dst32b[r][c]`` and a write to it leaves the low half unpredictable.

Row indexes are 10-bit (``& 0x3ff``), as the page's ``Adj16`` / ``Adj32`` take them.  Scalar accessors (``get16``/``set16``/``get32``/``set32``)
serve the RISC-V window; ``read16``/``write16``/``read32``/``write32`` take a row, a slice or an
array of rows and move whole rows with numpy.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tdbg.tensix.config import TensixConfig
from tdbg.tensix.events import UnpredictableValueUsed

FEATURE_DISABLE_DST16_ALIAS = 1 << 11  # RISCV_DEBUG_REG_DBG_FEATURE_DISABLE bit 11


@cache
def row_indexes(rows: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Read-only index arrays of one ``DstBits`` row (``[r]``) and of four (``4 * i ..``), shared
    by every instruction that writes so many rows (building one costs more than the write)."""
    one = tuple(np.array([r]) for r in range(rows))
    four = tuple(np.arange(4 * i, 4 * i + 4) for i in range(rows // 4))
    for a in (*one, *four):
        a.flags.writeable = False
    return one, four


@cache
def row_maps(rows: int, cols: int, remap_addrs: bool, swizzle_32b: bool,
             alias16: bool) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
    """``Dst32b`` and ``Dst16b`` row -> ``DstBits`` row (read-only arrays), and the same times
    ``cols``, as Python ints, under one configuration; shared by every ``Dst`` (each tile's is
    built in 2048 calls of ``adj16``/``adj32`` otherwise)."""
    row32 = np.array([adj32(r, remap_addrs, swizzle_32b) for r in range(rows)], dtype=np.int64)
    row16 = row32 if alias16 else np.array([adj16(r, remap_addrs) for r in range(rows)], dtype=np.int64)
    row32.flags.writeable = row16.flags.writeable = False
    return row32, row16, [int(r) * cols for r in row32], [int(r) * cols for r in row16]


def adj16(r: int, remap_addrs: bool) -> int:
    """``Adj16`` of Dst.md."""
    if remap_addrs:
        r = (r & 0x3C7) ^ ((r & 0x030) >> 1) ^ ((r & 0x008) << 2)
    return r


def adj32(r: int, remap_addrs: bool, swizzle_32b: bool) -> int:
    """``Adj32`` of Dst.md: the ``DstBits`` row holding the high halves of ``Dst32b[r]``."""
    r = adj16(r, remap_addrs)
    if swizzle_32b:
        r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1)
    return ((r & 0x1F8) << 1) | (r & 0x207)


class Dst:
    """``DstBits`` plus the row mappings that the current config selects; ``one_row[r]`` and
    ``four_rows[i]`` are shared row index arrays (``row_indexes``)."""

    def __init__(self, config: TensixConfig, rows: int, cols: int) -> None:
        self.config = config
        self.rows, self.cols = rows, cols
        self._low_half = 8 * cols  # flat distance from DstBits[Adj32(r)][c] to DstBits[Adj32(r) + 8][c]
        self.one_row, self.four_rows = row_indexes(rows)
        self.bits = np.zeros((rows, cols), dtype=np.uint16)
        self._flat = memoryview(self.bits.reshape(-1))  # shares memory; fast scalar access
        self.unpredictable = np.zeros((rows, cols), dtype=bool)
        self._any_unpredictable = False
        self._written = bytearray(rows)  # per DstBits row; ``ever_written`` is a numpy view
        self.ever_written = np.frombuffer(self._written, dtype=bool)
        self._feature_disable = 0
        self.alias16 = False  # Dst16b aliases the high half of Dst32b (bit 11 mode)
        self.alias_flag = np.zeros(1, dtype=np.uint8)   # alias16 where the native push path reads it
        self._key: tuple[bool, bool, bool] | None = None
        self.row16 = np.arange(rows, dtype=np.int64)   # Dst16b row -> DstBits row
        self.row32 = np.arange(rows, dtype=np.int64)   # Dst32b row -> DstBits row of the high halves
        self._row16_base: list[int] = []  # the same, times cols, as Python ints
        self._row32_base: list[int] = []
        config.on_change(self._refresh, ("DEST_ACCESS_CFG_remap_addrs", "DEST_ACCESS_CFG_swizzle_32b"))
        self._refresh()

    # -- configuration -------------------------------------------------------------------------
    @property
    def feature_disable(self) -> int:
        """``RISCV_DEBUG_REG_DBG_FEATURE_DISABLE`` (only bit 11 affects Dst)."""
        return self._feature_disable

    @feature_disable.setter
    def feature_disable(self, value: int) -> None:
        self._feature_disable = value & 0xFFFFFFFF
        self.alias16 = bool(self._feature_disable & FEATURE_DISABLE_DST16_ALIAS)
        self.alias_flag[0] = self.alias16
        self._refresh()

    def rows_state(self, rows: list[int]) -> np.ndarray:
        """``(len(rows), cols, 2)`` bool: per datum of ``DstBits`` ``rows``, what its value is
        besides its bits: its row defined (``ever_written``: ZEROACC undefines a row, which then
        reads as 0) and the datum unpredictable."""
        return np.stack([np.repeat(self.ever_written[rows][:, None], self.cols, axis=1),
                         self.unpredictable[rows]], axis=-1)

    def _refresh(self) -> None:
        cfg = self.config
        key = (bool(cfg.get("DEST_ACCESS_CFG_remap_addrs")), bool(cfg.get("DEST_ACCESS_CFG_swizzle_32b")), self.alias16)
        if key == self._key:
            return
        self._key = key
        row32, row16, self._row32_base, self._row16_base = row_maps(self.rows, self.cols, *key)
        self.row32[:] = row32     # in place: the native push path holds their addresses (tdbg.emu.native_push)
        self.row16[:] = row16

    # -- scalar access (the RISC-V window's path) -------------------------------------------
    def get16(self, row: int, col: int) -> int:
        """``Dst16b[row][col]``."""
        i = self._row16_base[row & 0x3FF] + col
        if self._any_unpredictable and self.unpredictable.flat[i]:
            raise UnpredictableValueUsed(f"Dst.md: Dst16b[{row}][{col}] holds garbage left by a bit-11 Dst16b write")
        return self._flat[i]

    def set16(self, row: int, col: int, value: int) -> None:
        """``Dst16b[row][col] = value``."""
        i = self._row16_base[row & 0x3FF] + col
        self._flat[i] = value
        self._written[i // self.cols] = 1
        if self.alias16:
            self._mark_low_half_garbage(i)
        elif self._any_unpredictable:
            self.unpredictable.flat[i] = False

    def get32(self, row: int, col: int) -> int:
        """``Dst32b[row][col]``."""
        i = self._row32_base[row & 0x3FF] + col
        low = i + self._low_half
        if self._any_unpredictable and (self.unpredictable.flat[i] or self.unpredictable.flat[low]):
            raise UnpredictableValueUsed(f"Dst.md: Dst32b[{row}][{col}] holds garbage left by a bit-11 Dst16b write")
        flat = self._flat
        return (flat[i] << 16) | flat[low]

    def set32(self, row: int, col: int, value: int) -> None:
        """``Dst32b[row][col] = value``."""
        i = self._row32_base[row & 0x3FF] + col
        low = i + self._low_half
        flat = self._flat
        flat[i] = value >> 16
        flat[low] = value & 0xFFFF
        r = i // self.cols
        self._written[r] = self._written[r + 8] = 1
        if self._any_unpredictable:
            self.unpredictable.flat[i] = self.unpredictable.flat[low] = False

    def _mark_low_half_garbage(self, i: int) -> None:
        self.unpredictable.flat[i] = False
        self.unpredictable.flat[i + self._low_half] = True
        self._any_unpredictable = True

    # -- rows and blocks (numpy) -------------------------------------------------------------
    def _rows(self, rows: int | slice | np.ndarray) -> np.ndarray:
        return np.arange(self.rows)[rows] if isinstance(rows, slice) else np.asarray(rows) & 0x3FF

    def read16(self, rows: int | slice | np.ndarray) -> np.ndarray:
        """``Dst16b[rows]`` as uint16 (shape ``(16,)`` for one row, ``(n, 16)`` for several)."""
        return self.bits[self.row16[self._rows(rows)]]

    def write16(self, rows: int | slice | np.ndarray, values: np.ndarray) -> None:
        """``Dst16b[rows] = values``."""
        target = self.row16[self._rows(rows)]
        self.bits[target] = np.asarray(values, dtype=np.uint16)
        self.ever_written[target] = True
        if self.alias16:
            self.unpredictable[target] = False
            self.unpredictable[target + 8] = True
            self._any_unpredictable = True
        elif self._any_unpredictable:
            self.unpredictable[target] = False

    def read32(self, rows: int | slice | np.ndarray) -> np.ndarray:
        """``Dst32b[rows]`` as uint32."""
        hi = self.row32[self._rows(rows)]
        return (self.bits[hi].astype(np.uint32) << 16) | self.bits[hi + 8]

    def write32(self, rows: int | slice | np.ndarray, values: np.ndarray) -> None:
        """``Dst32b[rows] = values``."""
        hi = self.row32[self._rows(rows)]
        values = np.asarray(values, dtype=np.uint32)
        self.bits[hi] = values >> 16
        self.bits[hi + 8] = values & 0xFFFF
        self.ever_written[hi] = self.ever_written[hi + 8] = True
        if self._any_unpredictable:
            self.unpredictable[hi] = self.unpredictable[hi + 8] = False

    def clear_unpredictable(self) -> None:
        self.unpredictable[:] = False
        self._any_unpredictable = False

    def recount_unpredictable(self) -> None:
        """``unpredictable`` was written in bulk (a restore): note whether any lane is."""
        self._any_unpredictable = bool(self.unpredictable.any())
