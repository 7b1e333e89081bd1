"""tt-umd's simulation protocol, the message: one flatbuffers ``DeviceRequestResponse`` table.

The facts are tt-umd's schema (``device/simulation/simulation_device.fbs``): the enum
``DEVICE_COMMAND : byte`` (WRITE = 0, READ = 1, ALL_TENSIX_RESET_DEASSERT = 2,
ALL_TENSIX_RESET_ASSERT = 3, START = 4, EXIT = 5, ...), the struct ``tt_vcs_core { x: uint64;
y: uint64; }`` and the table's fields in slot order: ``command: DEVICE_COMMAND``, ``data:
[uint32]``, ``core: tt_vcs_core``, ``address: uint64``, ``size: uint32`` (bytes).  Its host side
(``rtl_sim_communicator.cpp``): a WRITE's ``data`` holds ``size / 4`` words, a READ's ``size``
bytes are answered by one message whose ``data`` holds at least that many bytes, and the simulator
acknowledges its start with a message whose command is EXIT.  ``flatbuffers`` is imported here
only, so the command line does not pay for it.
"""

from __future__ import annotations

import struct

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np


class Command(IntEnum):
    """``DEVICE_COMMAND`` (simulation_device.fbs)."""

    WRITE = 0
    READ = 1
    ALL_TENSIX_RESET_DEASSERT = 2
    ALL_TENSIX_RESET_ASSERT = 3
    START = 4
    EXIT = 5
    ALL_NEO_DMS_RESET_DEASSERT = 6
    ALL_NEO_DMS_RESET_ASSERT = 7
    NEO_DM_RESET_ASSERT = 8
    NEO_DM_RESET_DEASSERT = 9
    AXI_RAM_WRITE_NOTIFICATION = 10
    AXI_RAM_READ_NOTIFICATION = 11
    SMN_WRITE = 12
    SMN_READ = 13


# The table's field slots, in the schema's order (a field's vtable entry is at 4 + 2 * slot).
_COMMAND, _DATA, _CORE, _ADDRESS, _SIZE = range(5)


@dataclass(frozen=True)
class Message:
    """One ``DeviceRequestResponse``: ``command`` (an int: a value the schema has not is kept
    as it came, for the server to name), ``data`` its uint32 words, ``core`` (x, y)."""

    command: int
    data: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    core: tuple[int, int] = (0, 0)
    address: int = 0
    size: int = 0

    @property
    def payload(self) -> bytes:
        """A WRITE's bytes: ``size`` of them (the words as little-endian bytes)."""
        return self.data.astype("<u4").tobytes()[:self.size]

    @property
    def name(self) -> str:
        try:
            return Command(self.command).name
        except ValueError:
            return f"command {self.command}"


def encode(message: Message) -> bytes:
    """The message as tt-umd's ``CreateDeviceRequestResponse`` builds it: every field written."""
    import flatbuffers

    builder = flatbuffers.Builder(64 + 4 * len(message.data))
    data = builder.CreateNumpyVector(np.ascontiguousarray(message.data, dtype="<u4"))
    builder.StartObject(5)
    builder.PrependUint64Slot(_ADDRESS, message.address, 0)
    builder.PrependUOffsetTRelativeSlot(_DATA, data, 0)
    builder.Prep(8, 16)                       # tt_vcs_core: two uint64, inline in the table
    builder.PrependUint64(message.core[1])
    builder.PrependUint64(message.core[0])
    builder.PrependStructSlot(_CORE, builder.Offset(), 0)
    builder.PrependUint32Slot(_SIZE, message.size, 0)
    builder.PrependInt8Slot(_COMMAND, message.command, 0)
    builder.Finish(builder.EndObject())
    return bytes(builder.Output())


class BadMessage(ValueError):
    """Bytes that are not a ``DeviceRequestResponse``."""


def decode(buf: bytes) -> Message:
    """A received message; ``BadMessage`` for bytes that cannot be one."""
    from flatbuffers import number_types as n
    from flatbuffers.table import Table

    if len(buf) < 8:
        raise BadMessage(f"{len(buf)} bytes are not a DeviceRequestResponse")
    try:
        root = int.from_bytes(buf[:4], "little")
        table = Table(bytearray(buf), root)

        def slot(i: int) -> int:
            return table.Offset(4 + 2 * i)

        def scalar(i: int, flags: type) -> int:
            o = slot(i)
            return int(table.Get(flags, table.Pos + o)) if o else 0

        o = slot(_DATA)
        data = table.GetVectorAsNumpy(n.Uint32Flags, o).astype(np.uint32) if o else np.zeros(0, np.uint32)
        o = slot(_CORE)
        core = ((int(table.Get(n.Uint64Flags, table.Pos + o)), int(table.Get(n.Uint64Flags, table.Pos + o + 8)))
                if o else (0, 0))
        return Message(scalar(_COMMAND, n.Int8Flags), data, core, scalar(_ADDRESS, n.Uint64Flags),
                       scalar(_SIZE, n.Uint32Flags))
    except (IndexError, ValueError, TypeError, struct.error) as exc:   # (struct.error: an offset past the end)
        raise BadMessage(f"{len(buf)} bytes are not a DeviceRequestResponse ({exc})") from None
