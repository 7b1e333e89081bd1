"""What front ends read of the coprocessor, as typed copies the session hands out (``Session.
dst_contents``, ``vector_unit``, ``coprocessor_state``): the commands, the stub and the
expression bridge look at these, never at the model, so nothing they hold can change the tile.

``Dst``'s validity is per ``DstBits`` row (``tdbg.tensix.dst_access``: ZEROACC.md's "undefined"):
``DstContents.lanes`` reads an undefined row as zero, as the Packers do, and ``defined`` says
which lanes hold data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tdbg.tensix.dst_access import lanes_defined, read_lanes


@dataclass(frozen=True)
class DstContents:
    """``DstBits`` with its per-row defined flags, seen through the row mapping in force
    (``Adj16`` / ``Adj32`` of Dst.md: ``row16`` / ``row32`` give the ``DstBits`` row of a
    ``Dst16b`` row / of the high halves of a ``Dst32b`` row)."""

    bits: np.ndarray       # DstBits, (rows, columns) uint16 (the profile's geometry)
    written: np.ndarray    # per DstBits row: it holds data (False: undefined)
    row16: np.ndarray
    row32: np.ndarray
    garbage: int | None = None   # elements left unpredictable by bit-11 Dst16b writes (Dst.md); None: no such write

    def lanes(self, storage: str, rows: np.ndarray) -> np.ndarray:
        """``Dst16b[rows]`` (``storage`` ``"dst16"``) or ``Dst32b[rows]`` (``"dst32"``), ``(n,
        16)``, undefined halves read as zero (``dst_access.read_lanes``)."""
        return read_lanes(self, self.bits, self.written, storage, rows)  # type: ignore[arg-type]

    def defined(self, storage: str, rows: np.ndarray) -> np.ndarray:
        """Per lane of ``lanes(storage, rows)``: does it hold data (``dst_access.lanes_defined``)."""
        return lanes_defined(self, self.written, storage, rows)  # type: ignore[arg-type]

    def read16(self, row: int) -> np.ndarray:
        """``Dst16b[row]``'s bits as stored, defined or not."""
        return self.bits[self.row16[row & 0x3FF]]

    def read32(self, row: int) -> np.ndarray:
        """``Dst32b[row]``'s bits as stored, defined or not."""
        hi = self.row32[row & 0x3FF]
        return (self.bits[hi].astype(np.uint32) << 16) | self.bits[hi + 8]

    def with_storage(self, bits: np.ndarray, written: np.ndarray) -> DstContents:
        """Other ``DstBits`` contents (a checkpoint's, a stop's) through this row mapping."""
        return replace(self, bits=bits, written=written, garbage=None)


@dataclass(frozen=True)
class VectorUnitState:
    """The Vector Unit (VectorUnit.md, LReg.md): one for all threads."""

    lreg: np.ndarray            # (17, 32) uint32: LRegs by lane
    defined: np.ndarray         # (17, 32) uint8: the halves of each lane written (3: both, FULL)
    lane_flags: np.ndarray
    use_lane_flags: np.ndarray
    stack: np.ndarray           # [entry][LaneFlags, UseLaneFlags][lane]
    stack_size: np.ndarray      # per lane
    lane_config: np.ndarray
    enabled: np.ndarray         # IsLaneEnabled per lane
    template: np.ndarray        # LoadMacroConfig.InstructionTemplate[4][lane]
    sequence: np.ndarray        # LoadMacroConfig.Sequence[4][lane]
    misc: np.ndarray            # LoadMacroConfig.Misc[lane]
    macro_defined: np.ndarray   # templates 0-3, sequences 4-7, Misc 8: written per lane
    sp: tuple[int, ...]         # each thread's RWCs.Sp
    saved: Mapping[str, Any]    # the unit as its state declaration saves it (``Session.state_changes``)


@dataclass(frozen=True)
class ThreadState:
    """One Tensix thread as the coprocessor sees it."""

    rwc: dict[str, int]         # its RWCs by name
    waiting: str | None         # why its next instruction waits at the Wait Gate
    queued: int                 # instructions queued for it


@dataclass(frozen=True)
class CoprocessorState:
    """What a Tensix instruction can change, for ``tensix``'s report and ``info tensix``."""

    dst: DstContents
    srca: np.ndarray            # (2, 64, 16): SrcA banks
    srcb: np.ndarray
    config: np.ndarray          # Config[bank][word]
    thread_config: np.ndarray   # ThreadConfig[thread][word]
    threads: tuple[ThreadState, ...]
    semaphores: tuple[tuple[int, int], ...]          # (Value, Max)
    allowed_clients: tuple[tuple[str, ...], ...]     # SrcA's, SrcB's per bank
    src_banks: tuple[int, int, int, int]             # MatrixUnit SrcA, SrcB; Unpacker 0, 1
    vector: VectorUnitState
    saved: Mapping[str, Any]    # the coprocessor as its state declaration saves it (``Session.state_changes``)


@dataclass(frozen=True)
class ConfigFieldValue:
    """A config field (``cfg_defines.h``) as a thread sees it: its value and where it lives."""

    name: str
    value: int
    register: str               # "Config[1][12]" (the thread's CFG_STATE_ID bank) or "ThreadConfig[0][3]"
    lsb: int
    width: int
