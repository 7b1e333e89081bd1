"""How backend instructions read and write ``Dst`` rows, with row validity.

``ZEROACC`` (WormholeB0 ``TensixCoprocessor/ZEROACC.md``) marks rows undefined; the Matrix Unit
then reads an undefined row as the identity of the instruction (zero, or minus infinity with all
bits set for ``GMPOOL``), the Vector Unit must not read one, and any write makes the row defined
again.  tdbg keeps that per ``DstBits`` row in ``Dst.ever_written`` (False: undefined), which
every ``Dst`` write path already sets; power-on rows count as undefined.  A ``Dst32b`` row spans
two ``DstBits`` rows (high and low halves), each with its own flag.

Every write reports the ``DstBits`` rows it touched to ``notify`` (the Coprocessor's
``on_dst_write`` hook).  ``lanes_defined`` and ``read_lanes`` give the debugger the same reading
(live or from a snapshot), for display.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tdbg.tensix.dst import Dst


class DstPort:
    """Row-block access to ``Dst16b`` / ``Dst32b`` on behalf of backend instructions."""

    def __init__(self, dst: Dst, notify: Callable[[np.ndarray], None]) -> None:
        self.dst = dst
        self.notify = notify

    def bits_rows16(self, rows: np.ndarray) -> np.ndarray:
        """The ``DstBits`` rows holding ``Dst16b[rows]``."""
        return self.dst.row16[np.asarray(rows) & 0x3FF]

    def bits_rows32(self, rows: np.ndarray) -> np.ndarray:
        """The ``DstBits`` rows holding ``Dst32b[rows]`` (high halves, then low halves)."""
        hi = self.dst.row32[np.asarray(rows) & 0x3FF]
        return np.concatenate([hi, hi + 8])

    def read16(self, rows: np.ndarray, undefined: int = 0) -> np.ndarray:
        """``Dst16b[rows]`` as uint16 ``(n, 16)``; undefined rows read as ``undefined``."""
        bits_rows = self.bits_rows16(np.atleast_1d(rows))
        out = self.dst.bits[bits_rows]
        valid = self.dst.ever_written[bits_rows]
        if np.count_nonzero(valid) < len(valid):  # (ndarray.all costs five times more)
            out[~valid] = undefined
        return out

    def read32(self, rows: np.ndarray, undefined: int = 0) -> np.ndarray:
        """``Dst32b[rows]`` as uint32 ``(n, 16)``; each undefined half reads as that half of
        ``undefined``."""
        rows = np.atleast_1d(rows)
        hi = self.dst.row32[rows & 0x3FF]
        out = self.dst.read32(rows).reshape(-1, self.dst.cols)
        out[~self.dst.ever_written[hi]] &= np.uint32(0x0000FFFF)
        out[~self.dst.ever_written[hi]] |= np.uint32(undefined & 0xFFFF0000)
        out[~self.dst.ever_written[hi + 8]] &= np.uint32(0xFFFF0000)
        out[~self.dst.ever_written[hi + 8]] |= np.uint32(undefined & 0x0000FFFF)
        return out

    def write16(self, rows: np.ndarray, values: np.ndarray, cols: np.ndarray | None = None) -> None:
        """``Dst16b[rows][cols] = values`` (all columns when ``cols`` is None)."""
        rows = np.atleast_1d(rows)
        values = np.asarray(values, dtype=np.uint16).reshape(-1, self.dst.cols)
        if cols is not None and not cols.all():
            values = np.where(cols, values, self.dst.read16(rows).reshape(-1, self.dst.cols))
        self.dst.write16(rows, values)
        self.notify(self.bits_rows16(rows))

    def write32(self, rows: np.ndarray, values: np.ndarray, cols: np.ndarray | None = None) -> None:
        """``Dst32b[rows][cols] = values`` (all columns when ``cols`` is None)."""
        rows = np.atleast_1d(rows)
        values = np.asarray(values, dtype=np.uint32).reshape(-1, self.dst.cols)
        if cols is not None and not cols.all():
            values = np.where(cols, values, self.dst.read32(rows).reshape(-1, self.dst.cols))
        self.dst.write32(rows, values)
        self.notify(self.bits_rows32(rows))

    def undefine(self, bits_rows: np.ndarray) -> None:
        """Mark ``DstBits`` rows undefined (ZEROACC)."""
        self.dst.ever_written[bits_rows] = False
        self.notify(bits_rows)

    def define(self, bits_rows: np.ndarray) -> None:
        """Mark ``DstBits`` rows defined, their bits as they are (ZEROACC's ``Revert``)."""
        self.dst.ever_written[bits_rows] = True
        self.notify(bits_rows)

    def undefine_row(self, bits_row: int) -> None:
        """Mark one ``DstBits`` row undefined (``undefine`` without building an index array)."""
        self.dst.ever_written[bits_row] = False
        self.notify(self.dst.one_row[bits_row])


def lanes_defined(dst: Dst, written: np.ndarray, storage: str, rows: np.ndarray) -> np.ndarray:
    """Per lane of ``Dst16b[rows]`` (``storage`` ``"dst16"``) or ``Dst32b[rows]`` (``"dst32"``),
    ``(n, 16)`` bool: does it hold data, given the per-``DstBits``-row flags ``written`` (live
    ``Dst.ever_written`` or a snapshot)?  A ``Dst32b`` lane does while either half does: an
    undefined half reads as zero (``read_lanes``)."""
    rows = np.atleast_1d(rows) & 0x3FF
    if storage == "dst16":
        per_row = written[dst.row16[rows]]
    else:
        hi = dst.row32[rows]
        per_row = written[hi] | written[hi + 8]
    return np.repeat(np.asarray(per_row, dtype=bool)[:, None], dst.bits.shape[1], axis=1)


def read_lanes(dst: Dst, bits: np.ndarray, written: np.ndarray, storage: str, rows: np.ndarray) -> np.ndarray:
    """``Dst16b[rows]`` / ``Dst32b[rows]`` of the ``DstBits`` array ``bits`` (live or a snapshot)
    through the current row mapping, ``(n, 16)``, each undefined ``DstBits`` row read as zero, as
    the Packers read it (ZEROACC.md)."""
    rows = np.atleast_1d(rows) & 0x3FF
    if storage == "dst16":
        r = dst.row16[rows]
        return np.where(written[r][:, None], bits[r], 0).astype(np.uint16)
    hi = dst.row32[rows]
    high = np.where(written[hi][:, None], bits[hi], 0).astype(np.uint32)
    low = np.where(written[hi + 8][:, None], bits[hi + 8], 0).astype(np.uint32)
    return (high << 16) | low
