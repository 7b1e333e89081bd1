"""The log of pushed Tensix instructions, the trace of Dst-window accesses, who last wrote each
``Dst`` row, and the L1 traffic of Tensix instructions (unpackers, packer, Scalar Unit).

Each is on the path of every push or traced access, so each costs a tuple and a few array
stores: a record is a ``NamedTuple`` (its mnemonic is looked up only when shown), the logs keep
their newest ``LIMIT`` records in a ring while counting every record, and ``Dst`` provenance is
one sequence number per ``DstBits`` row, resolved to its writer only when asked; the window
stores it names are kept only while a row still names them.  Memory is therefore bounded
whatever the firmware does.
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol

import numpy as np


class PushRecord(NamedTuple):
    """One Tensix instruction pushed by a core (or by the debugger)."""

    seq: int
    pc: int
    core: str
    thread: int
    word: int
    via: str                 # "ttinsn", "store" or "debugger"


class DstWriter(NamedTuple):
    """Who last wrote a ``DstBits`` row."""

    pc: int
    core: str
    what: str   # "MOVD2B ..." or "window store (4 bytes, fmt 0)"
    seq: int


class PushLog:
    """Every push counted, the newest ``limit`` kept (bounded memory); records are kept as
    plain tuples (cheap to make) and handed out as ``PushRecord``.  The native push path
    (``tdbg.emu.native_push``) keeps its records in a ring of its own (``native``), merged in
    by sequence number only when the log is read."""

    LIMIT = 100_000

    def __init__(self, threads: int, limit: int = LIMIT) -> None:
        self._items: deque[tuple] = deque(maxlen=limit)
        self._total = 0
        self._per_thread = [0] * threads
        self.native: NativeRecords | None = None

    @property
    def total(self) -> int:
        n = self.native
        return self._total if n is None else self._total + n.total

    @property
    def per_thread(self) -> list[int]:
        n = self.native
        return list(self._per_thread) if n is None else [a + b for a, b in zip(self._per_thread, n.per_thread())]

    def append(self, seq: int, pc: int, core: str, thread: int, word: int, via: str) -> None:
        self._items.append((seq, pc, core, thread, word, via))
        self._total += 1
        self._per_thread[thread] += 1

    def pop(self) -> None:
        """Take back the newest record (a push that did not happen after all: the newest is
        always one of ``append``'s)."""
        record = self._items.pop()
        self._total -= 1
        self._per_thread[record[3]] -= 1

    def __len__(self) -> int:
        return self.total

    def _records(self, newest: int | None = None) -> list[tuple] | deque[tuple]:
        """The records still kept (the ``newest`` of them), oldest first, as tuples."""
        n = self.native
        if n is None or not n.count:
            return self._items
        keep = self._items.maxlen or self.total
        if newest is not None:
            keep = min(keep, newest)
        mine = self._items if keep >= len(self._items) else list(self._items)[-keep:]
        merged = list(heapq.merge(mine, n.records(keep)))
        return merged[-keep:] if keep else []

    def __iter__(self) -> Iterator[PushRecord]:
        """The records still kept, oldest first."""
        return map(PushRecord._make, self._records())

    def __bool__(self) -> bool:
        return self.total > 0

    def last(self, n: int = 1) -> list[PushRecord]:
        """The newest ``n`` records still kept, oldest first."""
        return [PushRecord._make(r) for r in list(self._records(n))[-n:]] if n > 0 else []

    def by_seq(self, seq: int) -> PushRecord | None:
        items, n = self._items, self.native
        i = bisect.bisect_left([r[0] for r in items], seq)
        found = items[i] if i < len(items) and items[i][0] == seq else n.find(seq) if n is not None else None
        if found is None:
            return None
        if n is not None and len(items) + n.count > (items.maxlen or len(items) + n.count):
            kept = self._records()    # more than the log keeps: is it among the newest?
            if seq < kept[0][0]:
                return None
        return PushRecord._make(found)

    def truncate(self, total: int, per_thread: list[int]) -> None:
        """Back to ``total`` pushes (a checkpoint's count; newer records are dropped)."""
        n = self.native
        count = self.total
        while count > total:
            mine = self._items[-1][0] if self._items else -1
            theirs = n.newest() if n is not None and n.count else -1
            if mine < 0 and theirs < 0:
                break
            if mine > theirs:
                self._items.pop()
            else:
                n.drop_newest()  # type: ignore[union-attr]
            count -= 1
        if n is not None:
            n.clear_counts()
        self._total = total
        self._per_thread = list(per_thread)

    def clear(self) -> None:
        self._items.clear()
        if self.native is not None:
            self.native.clear()
        self._total = 0
        self._per_thread = [0] * len(self._per_thread)


class NativeRecords(Protocol):
    """What ``PushLog`` reads of the native path's records (``tdbg.emu.native_push``)."""

    total: int
    count: int

    def per_thread(self) -> list[int]: ...
    def records(self, newest: int | None = None) -> list[tuple]: ...
    def find(self, seq: int) -> tuple | None: ...
    def newest(self) -> int: ...
    def drop_newest(self) -> None: ...
    def clear_counts(self) -> None: ...
    def clear(self) -> None: ...


class WindowAccess(NamedTuple):
    """One traced Dst-window access."""

    seq: int
    pc: int
    core: str
    row: int       # Dst16b or Dst32b row, per the view
    col: int
    size: int
    value: int
    view: str      # the window format's name
    write: bool


class WindowTrace:
    """The newest ``limit`` traced window accesses (a ring: ``dropped`` counts the older ones
    no longer kept since the last ``clear``); indexable like a list, slices included."""

    LIMIT = 100_000

    def __init__(self, limit: int = LIMIT) -> None:
        self._items: deque[WindowAccess] = deque(maxlen=limit)
        self.dropped = 0

    def append(self, access: WindowAccess) -> None:
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
        self._items.append(access)

    def __len__(self) -> int:
        return len(self._items)

    @property
    def limit(self) -> int:
        return self._items.maxlen or 0

    def __iter__(self) -> Iterator[WindowAccess]:
        return iter(self._items)

    def __getitem__(self, index: int | slice) -> WindowAccess | list[WindowAccess]:
        return list(self._items)[index] if isinstance(index, slice) else self._items[index]

    def clear(self) -> None:
        self._items.clear()
        self.dropped = 0


class DstProvenance:
    """The sequence number of the last write of each ``DstBits`` row (0: never written), and
    the window stores that were recorded (pushes are found in the ``PushLog``)."""

    def __init__(self, rows: int) -> None:
        self.seq = np.zeros(rows, dtype=np.int64)
        self.window: dict[int, DstWriter] = {}

    def clear(self) -> None:
        self.seq[:] = 0
        self.window.clear()

    def record_window(self, seq: int, writer: DstWriter, rows: list[int]) -> None:
        """A window store ``seq`` wrote ``rows``; window stores no row names any more are
        forgotten once there are four times as many as rows."""
        self.window[seq] = writer
        self.seq[rows] = seq
        if len(self.window) > 4 * len(self.seq):
            live = set(self.seq.tolist())
            self.window = {k: v for k, v in self.window.items() if k in live}

    def writer(self, row: int, log: PushLog, describe: Callable[[int], str]) -> DstWriter | None:
        """The last writer of ``row``: a recorded window store, or a push still in the log
        (``describe(word)`` names its instruction)."""
        seq = int(self.seq[row])
        if not seq:
            return None
        if seq in self.window:
            return self.window[seq]
        record = log.by_seq(seq)
        if record is None:
            return DstWriter(0, "?", f"push #{seq} (no longer in the push log)", seq)
        return DstWriter(record.pc, record.core, describe(record.word), seq)


class L1Access(NamedTuple):
    """L1 bytes ``start .. end`` a Tensix instruction read or wrote."""

    seq: int      # the push during which it ran (a queued instruction may run during a later push)
    thread: int   # the thread whose instruction it was
    word: int
    start: int
    end: int
    write: bool


class L1Log:
    """The newest ``limit`` L1 accesses of Tensix instructions (bounded memory), in the order they
    were made.  Once the native push path exists (``tdbg.emu.native_units``), its ring holds them
    all (``attach``): the accesses of the words C runs and those of the words Python runs, which
    may alternate within one push (a MOP's expansion handed over, the words a Wait Gate queue
    releases), go into the one ring as they are made."""

    LIMIT = 100_000

    def __init__(self, limit: int = LIMIT) -> None:
        self._items: deque[L1Access] = deque(maxlen=limit)
        self.native: NativeL1Records | None = None

    @property
    def limit(self) -> int:
        return self._items.maxlen or 0

    def attach(self, native: NativeL1Records) -> None:
        """The native path's ring keeps every access from now on (those kept so far moved in)."""
        for access in self._items:
            native.append(access)
        self._items.clear()
        self.native = native

    def append(self, access: L1Access) -> None:
        n = self.native
        if n is None:
            self._items.append(access)
        else:
            n.append(access)

    def _records(self) -> deque[L1Access] | list[L1Access]:
        n = self.native
        return self._items if n is None else list(map(L1Access._make, n.records()))

    def __iter__(self) -> Iterator[L1Access]:
        return iter(self._records())

    def of_push(self, seq: int) -> list[L1Access]:
        """The accesses made during push ``seq``."""
        return [a for a in self._records() if a.seq == seq]

    def writer(self, address: int) -> L1Access | None:
        """The last logged write that covers ``address``."""
        for access in reversed(self._records()):
            if access.write and access.start <= address < access.end:
                return access
        return None

    def truncate(self, seq: int) -> None:
        """Forget the accesses of pushes after ``seq`` (a checkpoint restored)."""
        n = self.native
        if n is not None:
            n.truncate(seq)
            return
        while self._items and self._items[-1].seq > seq:
            self._items.pop()

    def clear(self) -> None:
        n = self.native
        if n is not None:
            n.clear()
        self._items.clear()


class NativeL1Records(Protocol):
    """What ``L1Log`` reads and writes of the native path's L1 ring (``tdbg.emu.native_units``)."""

    def append(self, access: L1Access) -> None: ...
    def records(self) -> list[tuple]: ...
    def truncate(self, seq: int) -> None: ...
    def clear(self) -> None: ...
