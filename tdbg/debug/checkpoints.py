"""Checkpoints of a session: whole saved tiles (``Tile.checkpoint``, L1 compressed), each with
what the session's host knew then (``Host.saved``: a run depends on it too), by number, within
a memory budget (``info checkpoints``, ``restart N``, ``dst diff checkpoint N``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from tdbg.emu.tile import Checkpoint, Tile


class CheckpointError(Exception):
    """A checkpoint request that cannot be carried out; the message is one line."""


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


class Checkpoints:
    """The checkpoints of one tile, numbered from 1 (a deleted number is not given again while
    a higher one exists); iterating gives their numbers in order."""

    BUDGET = 256 << 20   # bytes all checkpoints may hold

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        self.budget = self.BUDGET
        self._saved: dict[int, Checkpoint] = {}
        self._host: dict[int, object] = {}

    def __iter__(self) -> Iterator[int]:
        return iter(sorted(self._saved))

    def __len__(self) -> int:
        return len(self._saved)

    def __contains__(self, number: object) -> bool:
        return number in self._saved

    def save(self, host: object = None) -> int:
        """Save the whole tile, and ``host`` (the host's state) with it; returns the checkpoint's
        number.  Refused when the checkpoints would hold more than ``budget`` bytes."""
        cp = self.tile.checkpoint(compress=True)
        used = self.memory()
        if used + cp.nbytes > self.budget:
            raise CheckpointError(f"Cannot save a checkpoint: it needs {_mib(cp.nbytes)} and the {len(self)} "
                                  f"checkpoints hold {_mib(used)} of the {_mib(self.budget)} checkpoint memory; "
                                  f"delete one first")
        number = max(self._saved, default=0) + 1
        self._saved[number], self._host[number] = cp, host
        return number

    def get(self, number: int) -> Checkpoint:
        try:
            return self._saved[number]
        except KeyError:
            raise CheckpointError(f"No checkpoint number {number}.") from None

    def restore(self, number: int) -> object:
        """Put the tile back in checkpoint ``number``; the host's state saved with it."""
        self.tile.restore(self.get(number))
        return self._host[number]

    def delete(self, number: int) -> None:
        self.get(number)
        del self._saved[number], self._host[number]

    def clear(self) -> None:
        self._saved.clear()
        self._host.clear()

    def memory(self, number: int | None = None) -> int:
        """Bytes held by checkpoint ``number``, or by all of them."""
        if number is not None:
            return self.get(number).nbytes
        return sum(cp.nbytes for cp in self._saved.values())

    def pc(self, number: int, core: str) -> int | None:
        """Where ``core`` was in checkpoint ``number`` (None: the core had not been created)."""
        state = self.get(number).cores.get(core)
        return None if state is None else state.pc

    def dst_storage(self, number: int) -> tuple[np.ndarray, np.ndarray]:
        """``DstBits`` and its per-row defined flags in checkpoint ``number``."""
        import numpy as np

        cp = self.get(number)
        return np.asarray(cp.dst_bits), np.asarray(cp.tensix["ever_written"])
