"""The tile's RISC-V mailboxes (WormholeB0 ``BabyRISCV/Mailboxes.md``; the same map on
Blackhole: tt-metal's Blackhole ``tensix.h`` ``TENSIX_MAILBOX0..3_BASE``, and ttsim v1.10.0
tile.cpp:1956-1980, 2215-2222, 2279-2286).

Sixteen FIFOs of 32-bit values, one from each of B, T0, T1, T2 to each of them.  Address region
``i`` (``TENSIX_MAILBOX{i}_BASE``, core order B, T0, T1, T2): a write by core ``c`` pushes onto
``c -> i``; a read pops ``i -> c``, or, at an address with bit 2 set, says whether ``i -> c``
holds anything (0 / 1).  A mailbox holds at most four values, and the four a core can write to
hold at most four between them; a write past that waits, as does a pop of an empty mailbox.
(ttsim keeps one value per mailbox and has no query; tdbg follows the page.)
"""

from __future__ import annotations

from collections import deque

CORES = ("B", "T0", "T1", "T2")  # the order of TENSIX_MAILBOX0..3_BASE
DEPTH = 4                        # per mailbox, and per writer over its four mailboxes


class Mailboxes:
    """``fifos[src][dst]``: the values ``src`` wrote for ``dst``, oldest first."""

    def __init__(self) -> None:
        self.fifos = [[deque[int]() for _ in CORES] for _ in CORES]

    def can_write(self, src: int, dst: int) -> bool:
        return len(self.fifos[src][dst]) < DEPTH and sum(len(f) for f in self.fifos[src]) < DEPTH

    def write(self, src: int, dst: int, value: int) -> None:
        self.fifos[src][dst].append(value & 0xFFFFFFFF)

    def holds(self, src: int, dst: int) -> bool:
        return bool(self.fifos[src][dst])

    def pop(self, src: int, dst: int) -> int:
        return self.fifos[src][dst].popleft()

    def snapshot(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        return tuple(tuple(tuple(f) for f in row) for row in self.fifos)

    def restore(self, snap: tuple[tuple[tuple[int, ...], ...], ...]) -> None:
        self.fifos = [[deque(f) for f in row] for row in snap]

    def reset(self) -> None:
        for row in self.fifos:
            for f in row:
                f.clear()
