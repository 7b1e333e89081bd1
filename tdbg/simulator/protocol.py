"""tt-umd's simulation protocol, the message: one flatbuffers ``DeviceRequestResponse`` table.

The facts are tt-umd's schema (``device/simulation/simulation_device.fbs``): the enum
``DEVICE_COMMAND : byte`` (WRITE = 0, READ = 1, ALL_TENSIX_RESET_DEASSERT = 2,
ALL_TENSIX_RESET_ASSERT = 3, START = 4, EXIT = 5, ...), the struct ``tt_vcs_core { x: uint64;
y: uint64; }`` and the table's fields in slot order: ``command: DEVICE_COMMAND``, ``data:
[uint32]``, ``core: tt_vcs_core``, ``address: uint64``, ``size: uint32`` (bytes).  Its host side
(``rtl_sim_communicator.cpp``): a WRITE's ``data`` holds ``size / 4`` words, a READ's ``size``
bytes are answered by one message whose ``data`` holds at least that many bytes, and the simulator
acknowledges its start with a message whose command is EXIT.  Messages are read and written with
``struct`` as the FlatBuffers format lays a table out (no flatbuffers package: its ``Table`` and
``Builder`` cost a READ 35 us of its 44 us in the server, measured).
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

# ``encode``'s layout, fixed (FlatBuffers' format: a table is found through the root uoffset, its
# vtable through the soffset at its start, a vector through a uoffset from the field; scalars
# and structs aligned to their size, ``tt_vcs_core`` to 8): the root uoffset, the vtable, the table
# (soffset, address, core, data's uoffset, size, command), then the vector (length, words).
_VTABLE_AT, _TABLE_AT = 4, 20
_HEAD = struct.Struct("<I7H2xiQQQIIb3xI")     # from the root uoffset to the vector's length
_TABLE_SIZE = 40                               # soffset 4, address 8, core 16, data 4, size 4, command 1, pad 3
_FIELD_AT = {_ADDRESS: 4, _CORE: 12, _DATA: 28, _SIZE: 32, _COMMAND: 36}     # offsets in the table
_VTABLE = (4 + 2 * 5, _TABLE_SIZE, *(_FIELD_AT[slot] for slot in range(5)))
_VECTOR_AT = _TABLE_AT + _TABLE_SIZE
_I8, _U16, _U32, _I32, _U64, _CORE_XY = (struct.Struct(f) for f in ("<b", "<H", "<I", "<i", "<Q", "<QQ"))


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
    """The message as one FlatBuffers table with every field written, in a fixed layout
    (``_HEAD``: packed in one call, measured 3 us against the flatbuffers builder's 19 us for a
    READ's reply).  Any FlatBuffers reader reads it as tt-umd's ``CreateDeviceRequestResponse``
    builds it: only the offsets say where a field is."""
    words = np.ascontiguousarray(message.data, dtype="<u4")
    return _HEAD.pack(_TABLE_AT, *_VTABLE, _TABLE_AT - _VTABLE_AT, message.address, *message.core,
                      _VECTOR_AT - (_TABLE_AT + _FIELD_AT[_DATA]), message.size, message.command,
                      len(words)) + words.tobytes()


class BadMessage(ValueError):
    """Bytes that are not a ``DeviceRequestResponse``."""


def decode(buf: bytes) -> Message:
    """A received message, read as FlatBuffers defines a table (the root uoffset, the soffset to
    its vtable, a field absent from the vtable holding its default, a vector through its
    uoffset: length, then items), with ``struct`` (measured 3 us against 16 us through the
    flatbuffers package's ``Table``); ``BadMessage`` for bytes that cannot be one."""
    n = len(buf)
    try:
        table = _U32.unpack_from(buf, 0)[0]
        vtable = table - _I32.unpack_from(buf, table)[0]
        if not 0 <= vtable <= n - 4:
            raise ValueError(f"vtable at {vtable}")
        size = _U16.unpack_from(buf, vtable)[0]

        def at(slot: int) -> int:
            entry = 4 + 2 * slot
            return table + _U16.unpack_from(buf, vtable + entry)[0] if entry < size else table

        o = at(_COMMAND)
        command = _I8.unpack_from(buf, o)[0] if o != table else 0
        o = at(_DATA)
        if o != table:
            vector = o + _U32.unpack_from(buf, o)[0]
            data = np.frombuffer(buf, "<u4", _U32.unpack_from(buf, vector)[0], vector + 4).astype(np.uint32)
        else:
            data = np.zeros(0, np.uint32)
        o = at(_CORE)
        core = _CORE_XY.unpack_from(buf, o) if o != table else (0, 0)
        o = at(_ADDRESS)
        address = _U64.unpack_from(buf, o)[0] if o != table else 0
        o = at(_SIZE)
        return Message(command, data, core, address, _U32.unpack_from(buf, o)[0] if o != table else 0)
    except (struct.error, ValueError, TypeError) as exc:
        raise BadMessage(f"{n} bytes are not a DeviceRequestResponse ({exc})") from None
