"""Why a run stopped: one ``Stop`` object per stop, naming the core, the PC and the cause."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tdbg.tensix.events import Category, TensixEvent


class StopKind(str, Enum):
    BREAKPOINT = "breakpoint"
    WATCHPOINT = "watchpoint"
    STEP = "step"
    EBREAK = "ebreak"
    ECALL = "ecall"
    EVENT = "event"            # a categorized TensixEvent (UndefinedBehavior, ...)
    FAULT = "fault"            # unmapped access, invalid instruction: the core would hang
    INTERRUPTED = "interrupted"
    LIMIT = "limit"            # instruction-count limit reached
    BLOCKED = "blocked"        # the core waits (Stop.detail says on what)
    PARKED = "parked"          # the core reached ``j .``: its firmware is finished
    EXITED = "exited"          # every core with firmware has exited or parked
    DEADLOCK = "deadlock"      # no core can run and some wait: detail names every wait
    PREEMPTED = "preempted"    # the core used up its turn (internal to the tile's run)
    SCOPE = "watchpoint scope" # a watchpoint on a local was deleted: its frame returned
    HOST = "host"              # the session's host ended the run (Session.host; detail says why)


@dataclass(frozen=True)
class Access:
    """One load or store as the core issued it."""

    address: int
    size: int
    write: bool
    value: int | None = None  # the stored value (stores only)

    def describe(self) -> str:
        what = f"{self.size}-byte {'store' if self.write else 'load'} at {self.address:#010x}"
        return what + (f" of {self.value:#x}" if self.value is not None else "")


@dataclass(frozen=True)
class CoreWait:
    """One blocked core of a ``DEADLOCK`` (or ``BLOCKED``) stop: where it waits, what for (the
    wait's words when the run stopped), and the wait itself (``tdbg.emu.devices.Wait``)."""

    core: str
    pc: int
    reason: str
    wait: object | None = None


@dataclass(frozen=True)
class Stop:
    kind: StopKind
    core: str
    pc: int
    detail: str = ""                 # DEADLOCK: every wait, joined with "; " (``waits`` is the list)
    access: Access | None = None
    event: TensixEvent | None = None
    watch: object | None = None      # the watchpoint that fired
    old: int | None = None           # watchpoint: value before the access
    new: int | None = None           # watchpoint: value the store would write
    waits: tuple[CoreWait, ...] = ()  # DEADLOCK / BLOCKED: each blocked core
    report: tuple[str, ...] = ()     # what the session's host adds to it (HOST, DEADLOCK): lines
    unchanged: bool = False          # a Dst-row watchpoint's store left the watched rows' bits as they were

    @property
    def category(self) -> Category | None:
        return self.event.category if self.event else None

    def describe(self) -> str:
        """One line: cause, core, PC and (for memory events) the access."""
        head = f"{self.event.category.value}" if self.event else self.kind.value
        parts = [f"{head} on {self.core} at pc {self.pc:#010x}"]
        if self.access:
            parts.append(self.access.describe())
        if self.detail:
            parts.append(self.detail)
        if self.event:
            parts.append(self.event.rule)
        return ": ".join(parts)
