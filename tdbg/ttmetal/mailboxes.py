"""tt-metal's mailboxes (``mailboxes_t``, ``hostdev/dev_msgs.h``) as the firmware was compiled.

Where each field lies is read from the firmware's own DWARF, through the session's expression
evaluator (the answers ``gdb-multiarch -ex 'ptype /o mailboxes_t' brisc.elf`` gives), at
``MEM_MAILBOX_BASE``; the values the host writes are named here with their ``dev_msgs.h``
definitions.  ``Record`` builds a struct's bytes field by field, as the host's C++ fills it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.expr.ctype import CType, Kind
from tdbg.ttmetal.memmap import MAILBOX_BASE, MAILBOX_END

if TYPE_CHECKING:
    from tdbg.session import Session

# dev_msgs.h (ttnn 0.81.1 wheel, tt_metal/hw/inc/hostdev/dev_msgs.h)
RUN_MSG_INIT = 0x40
RUN_MSG_GO = 0x80
RUN_MSG_DONE = 0
RUN_MSG_NAMES = {0x40: "RUN_MSG_INIT", 0x80: "RUN_MSG_GO", 0xC0: "RUN_MSG_RESET_READ_PTR",
                 0xE0: "RUN_MSG_RESET_READ_PTR_FROM_HOST", 0xF0: "RUN_MSG_REPLAY_TRACE", 0: "RUN_MSG_DONE"}
DISPATCH_MODE_HOST = 1                   # enum dispatch_mode
WATCHER_DISABLED = 2                     # enum watcher_enable_msg_t: WatcherDisabled
DEBUG_SANITIZE_OK = 2                    # enum debug_sanitize_noc_return_code_enum: DebugSanitizeOK
DEBUG_ASSERT_OK = 2                      # enum debug_assert_type_t: DebugAssertOK
#: enum debug_assert_type_t's other values: what tripped
DEBUG_ASSERT_TYPES = {3: "DebugAssertTripped", 4: "DebugAssertNCriscNOCReadsFlushedTripped",
                      5: "DebugAssertNCriscNOCNonpostedWritesSentTripped",
                      6: "DebugAssertNCriscNOCNonpostedAtomicsFlushedTripped",
                      7: "DebugAssertNCriscNOCPostedWritesSentTripped", 8: "DebugAssertRtaOutOfBounds",
                      9: "DebugAssertCrtaOutOfBounds", 10: "DebugAssertHwFault",
                      11: "DebugAssertNCriscNOCPacketTagClearedTripped", 12: "DebugAssertNocMidNotClearedTripped"}
ADDRESSABLE_CORE = {"TENSIX": 0, "ETH": 1, "PCIE": 2, "DRAM": 3, "HARVESTED": 4, "DISPATCH": 5, "UNKNOWN": 6}
CORE_COORD_INVALID = 0xFF
CORE_MAGIC_WORKER = 0x50EC09A3           # enum class CoreMagicNumber: WORKER
MAX_PHYSICAL_NON_WORKER_CORES = 35
MAX_VIRTUAL_NON_WORKER_CORES = 30
LAUNCH_MSG_BUFFER_NUM_ENTRIES = 8
# The watcher's "nothing happened yet" patterns (tt-metal's watcher server writes them with the
# watcher off too; measured on ttsim): DEBUG_SANITIZE_NOC_SENTINEL_OK_64/32/16/8.
SENTINEL_OK = {8: 0xBADA_BADA_BADA_BADA, 4: 0xBADA_BADA, 2: 0xBADA, 1: 0xDA}


@dataclass(frozen=True)
class Field:
    """A field of the mailboxes: its expression (``go_messages[0].signal``), address and type."""

    path: str
    address: int
    ctype: CType

    @property
    def size(self) -> int:
        return self.ctype.size


class Mailboxes:
    """The mailboxes of ``core``'s firmware (loaded in ``session``), field by field."""

    def __init__(self, session: Session, core: str = "B") -> None:
        self.session, self.core = session, core
        self._fields: dict[str, Field] = {}
        self._type: CType | None = None

    def field(self, path: str) -> Field:
        """``((mailboxes_t *)MEM_MAILBOX_BASE)->PATH``; a ``SessionError`` if the firmware has no such field."""
        found = self._fields.get(path)
        if found is None:
            value = self._evaluate(f"((mailboxes_t *){MAILBOX_BASE:#x})->{path}")
            found = self._fields[path] = Field(path, value.address, value.ctype)
        return found

    def address(self, path: str) -> int:
        return self.field(path).address

    def read(self, path: str) -> int:
        """``PATH``'s value as the host reads it (its size from DWARF, little-endian)."""
        f = self.field(path)
        return int.from_bytes(self.session.read_memory(f.address, f.size), "little")

    def struct(self) -> CType:
        """``mailboxes_t`` as DWARF gives it."""
        if self._type is None:
            self._type = self._evaluate(f"*(mailboxes_t *){MAILBOX_BASE:#x}").ctype
        return self._type

    def record(self, path: str) -> Record:
        """Bytes for the struct at ``path``, zero, to fill field by field."""
        return Record(self, path)

    def name(self, address: int) -> str | None:
        """The innermost field holding ``address`` (``mailboxes.go_messages[0].signal``), or None
        outside the mailboxes."""
        if not MAILBOX_BASE <= address < MAILBOX_END:
            return None
        found = _member_path(self.struct(), address - MAILBOX_BASE)
        return "mailboxes" + found[1] if found and found[1] else None

    def _evaluate(self, text: str):
        from tdbg.expr import ExprError
        from tdbg.session import SessionError

        with self.session.on_core(self.core):
            try:
                return self.session.evaluate(text)
            except ExprError as exc:
                raise SessionError(f"{self.core}'s firmware has no {text}: {exc}") from None


class Record:
    """A struct of the mailboxes as bytes: ``set`` fields (relative paths), then write ``data``
    at ``address``."""

    def __init__(self, mailboxes: Mailboxes, path: str) -> None:
        self.mailboxes, self.path = mailboxes, path
        whole = mailboxes.field(path)
        self.address = whole.address
        self.data = bytearray(whole.size)

    def set(self, member: str, value: int) -> None:
        """``member`` (``.enable``, ``[2].x``) = ``value`` (its size from DWARF, little-endian)."""
        f = self.mailboxes.field(self.path + member)
        at = f.address - self.address
        self.data[at:at + f.size] = (value & ((1 << (8 * f.size)) - 1)).to_bytes(f.size, "little")


def _member_path(t: CType, offset: int) -> tuple[int, str] | None:
    """(depth, path) of the innermost member of ``t`` at byte ``offset``: arrays indexed, members
    named (an anonymous struct or union adds depth, not a name), the deepest of a union's
    members that hold the byte."""
    if t.kind is Kind.ARRAY and t.target is not None and t.target.size:
        index, within = divmod(offset, t.target.size)
        inner = _member_path(t.target, within)
        depth, rest = inner if inner else (0, "")
        return depth + 1, f"[{index}]{rest}"
    if t.kind is Kind.STRUCT and t.fields:
        best: tuple[int, str] | None = None
        for f in t.fields:   # (a zero-length array, GCC's upper bound -1, reads as 2**32 elements)
            if f.offset <= offset < f.offset + f.ctype.size <= t.size:
                inner = _member_path(f.ctype, offset - f.offset)
                depth, rest = inner if inner else (0, "")
                candidate = (depth + 1, (f".{f.name}" if f.name else "") + rest)
                if best is None or candidate[0] > best[0]:
                    best = candidate
        return best
    return None
