"""``SrcA`` and ``SrcB``: banks x rows x columns (2 x 64 x 16: the profile's geometry) of 19-bit
data, with ``AllowedClient``.

Implements WormholeB0 ``TensixCoprocessor/SrcASrcB.md`` (seed 004): each bank has an
``AllowedClient`` (Unpackers at reset), and the Matrix Unit and the two unpackers each keep one
bit saying which bank they use (``MatrixUnit.SrcABank``, ``MatrixUnit.SrcBBank``,
``Unpackers[0].SrcBank`` for SrcA, ``Unpackers[1].SrcBank`` for SrcB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np

MASK19 = (1 << 19) - 1


class SrcClient(str, Enum):
    MatrixUnit = "MatrixUnit"
    Unpackers = "Unpackers"


class SrcRegister:
    """One of ``SrcA`` / ``SrcB``: ``data[bank][row][col]`` holds 19-bit values in uint32."""

    def __init__(self, name: str, banks: int, rows: int, cols: int) -> None:
        self.name = name
        self.data = np.zeros((banks, rows, cols), dtype=np.uint32)
        self.allowed_client = [SrcClient.Unpackers] * banks
        self.fmt = [0] * banks  # Blackhole: the implied format of each bank (tdbg.tensix.unpackers)

    def read(self, bank: int, rows: int | slice | np.ndarray) -> np.ndarray:
        """``Src[bank][rows]``."""
        return self.data[bank, rows]

    def write(self, bank: int, rows: int | slice | np.ndarray, values: np.ndarray) -> None:
        """``Src[bank][rows] = values`` (each value masked to 19 bits)."""
        self.data[bank, rows] = np.asarray(values, dtype=np.uint32) & MASK19


@dataclass
class SrcBankSelect:
    """The bank bit each client keeps (all 0 at reset)."""

    matrix_unit_srca: int = 0   # MatrixUnit::SrcABank
    matrix_unit_srcb: int = 0   # MatrixUnit::SrcBBank
    unpacker: list[int] = field(default_factory=lambda: [0, 0])  # Unpackers[0] -> SrcA, [1] -> SrcB
