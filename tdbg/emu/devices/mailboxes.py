"""The tile's RISC-V mailboxes (WormholeB0 ``BabyRISCV/Mailboxes.md``; the same map on
Blackhole: tt-metal's Blackhole ``tensix.h`` ``TENSIX_MAILBOX0..3_BASE``, and ttsim v1.10.0
tile.cpp:1956-1980, 2215-2222, 2279-2286).

Sixteen FIFOs of 32-bit values, one from each of B, T0, T1, T2 to each of them (the profile's
``MailboxSpec``: the cores in region order, the depth).  Address region ``i``
(``TENSIX_MAILBOX{i}_BASE``, 4 KiB each): a write by core ``c`` pushes onto ``c -> i``; a read
pops ``i -> c``, or, at an address with bit 2 set, says whether ``i -> c`` holds anything
(0 / 1).  A mailbox holds at most ``depth`` values, and the mailboxes a core can write to hold at
most ``depth`` between them; a write past that waits, as does a pop of an empty mailbox.
(ttsim keeps one value per mailbox and has no query; tdbg follows the page.)
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.arch.profile import MailboxSpec
from tdbg.emu.devices.device import Device, Stall, Wait
from tdbg.tensix.state_description import StateDescription, obj
from tdbg.tensix.events import UndefinedBehavior

if TYPE_CHECKING:
    from tdbg.emu.core import Core


class Mailboxes(Device):
    """``fifos[src][dst]``: the values ``src`` wrote for ``dst``, oldest first.  A pop is no
    poll (each read takes a value), so the device is not ``pollable``."""

    def __init__(self, mailboxes: MailboxSpec, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.cores, self.depth = mailboxes.cores, mailboxes.depth
        self.fifos: list[list[deque[int]]]
        Mailboxes.STATE.reset(self)

    STATE = StateDescription("mailboxes", (
        obj("fifos", reset=lambda m: [[deque[int]() for _ in m.cores] for _ in m.cores]),
    ))

    def can_write(self, src: int, dst: int) -> bool:
        return len(self.fifos[src][dst]) < self.depth and sum(len(f) for f in self.fifos[src]) < self.depth

    def holds(self, src: int, dst: int) -> bool:
        return bool(self.fifos[src][dst])

    def pop(self, src: int, dst: int) -> int:
        return self.fifos[src][dst].popleft()

    def write(self, src: int, dst: int, value: int) -> None:
        self.fifos[src][dst].append(value & 0xFFFFFFFF)

    def load(self, core: Core, offset: int, size: int) -> int:
        other, me = offset >> 12, self.cores.index(core.name)
        if size != 4:
            raise UndefinedBehavior(f"Mailboxes.md: a mailbox holds 32-bit values (a {size}-byte load)")
        if offset & 4:
            return int(self.holds(other, me))
        if not self.holds(other, me):
            raise Stall(Wait(f"mailbox read at {core.pc:#010x} waits for a value from {self.cores[other]}",
                             lambda: self.holds(other, me)))
        return self.pop(other, me)

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        other, me = offset >> 12, self.cores.index(core.name)
        if size != 4:
            raise UndefinedBehavior(f"Mailboxes.md: a mailbox holds 32-bit values (a {size}-byte store)")
        if not self.can_write(me, other):
            raise Stall(Wait(f"mailbox write at {core.pc:#010x} waits: {core.name}'s mailboxes hold {self.depth} values",
                             lambda: self.can_write(me, other)))
        self.write(me, other, value)
