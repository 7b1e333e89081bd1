"""tt-metal's DPRINT, drained and shown as its print server does.

tt-metal 0.81.1's ``DPRINT(format, args...)`` (``api/debug/dprint.h``: an alias of ``DEVICE_PRINT``,
``api/debug/device_print.h``) writes into one buffer per tile, ``mailboxes.dprint_buf.buffer``
(``hostdev/device_print_common.h``'s ``DevicePrintBuffer``: ``aux.wpos``, ``aux.rpos``,
``aux.risc_state[5]``, ``aux.lock``, then ``data``; addresses from the firmware's DWARF).  A message
is a 4-byte ``DevicePrintHeader`` (``hostdev/device_print_structures.h``: bit 0 ``is_kernel``, bits
5:1 ``risc_id`` = PROCESSOR_INDEX, bits 15:6 ``message_payload`` bytes after the header, bits 31:16
``info_id``) and the arguments, largest first, padded to 4 bytes.  ``info_id`` indexes the ELF's
``.device_print_strings_info`` (``DevicePrintStringInfo``: the format string's and the file's
addresses in ``.device_print_strings``, the line), and the format string there was rewritten at
compile time to ``{N,T[:spec]}``: argument N in the serialized order, of type character T
(``device_print_type<...>::value``: b B h H i I q Q f d ? w e E p s t A c, enums ``/e_T_Name``).
Two headers carry no format: ``message_payload`` 1023 marks a kernel's first print (``info_id``:
its watcher kernel id), ``info_id`` 65535 with no payload says the writer wrapped to the start.

The host reads from ``rpos`` to ``wpos`` (less ``DEVICE_PRINT_WRITE_STALL_FLAG``, which a writer
waiting for space sets) and moves ``rpos`` there, as the print server does: a kernel whose message
does not fit waits until ``rpos`` moves (``locking::wait_for_space``).  A writer wraps only once the
reader has read to the buffer's end, so the unread messages are ``[rpos, wpos)``, or ``[rpos, end)``
(up to a wrap header, or to where no header fits) then ``[0, wpos)``.  Firmware that scribbles the
buffer is named, never followed: a position past the buffer, a message that runs past ``wpos`` or the
buffer's end, a RISC id no core has, a message shorter than its format's arguments each give a
``warning:`` line (a ``Print`` with ``note``) naming the header, and the drain moves ``rpos`` to
``wpos`` (the rest of that stretch is skipped).  Each line is shown with the
server's prefix ``DEVICE:X-Y:RISC: `` (logical core; BR, NC, TR0..TR2), as tt-metal 0.81.1's own
print server shows it (measured: ``0:0-0:NC: step 10 of 3`` from a ttnn host on ``tdbg
simulator``; tt-metal's documentation and older examples show ``0:(x=0,y=0):TR1: ...``).  Tile slices (``t``), typed arrays (``A``) and call stacks (``c``) are shown as
what they are, not decoded.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from tdbg.session import SessionError
from tdbg.ttmetal.boot import PROCESSORS

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.session import Session
    from tdbg.ttmetal.mailboxes import Mailboxes

WRITE_STALL_FLAG = 1 << 31                  # hostdevcommon/dprint_common.h
SERVER_MAGICS = (0x98989898, 0xF8F8F8F8)    # DEBUG_PRINT_SERVER_STARTING / _DISABLED_MAGIC (wpos)
RESET_MAGIC = 0xF0E1D2C3                    # DEVICE_PRINT_RESET_BUFFER_MAGIC (rpos)
NEW_KERNEL_PAYLOAD = 1023                   # DevicePrintHeader::max_message_payload_size
WRAP_INFO = 65535                           # DevicePrintHeader::max_info_id_value
#: the cores by PROCESSOR_INDEX (a header's risc_id)
CORES = tuple(PROCESSORS)
RISC_NAMES = {"B": "BR", "NC": "NC", "T0": "TR0", "T1": "TR1", "T2": "TR2"}
#: device_print_type<T>::value: the type character and the bytes a value takes
TYPES = {"b": ("<b", 1), "B": ("<B", 1), "h": ("<h", 2), "H": ("<H", 2), "i": ("<i", 4), "I": ("<I", 4),
         "q": ("<q", 8), "Q": ("<Q", 8), "f": ("<f", 4), "d": ("<d", 8), "?": ("<?", 1), "w": ("<H", 2),
         "e": ("<H", 2), "E": ("<H", 2), "p": ("<I", 4), "s": ("<I", 4), "c": (None, 12)}
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\d+),(/[eE]_(.)_[^:}]*|.)(?::([^}]*))?\}")


@dataclass(frozen=True)
class Print:
    """One line a core printed (``text`` without its newline), or, with ``note``, what the host
    says about a message it could not read (``core`` None when no core is named)."""

    core: str | None
    text: str
    note: bool = False

    def shown(self, device: int = 0, x: int = 0, y: int = 0) -> str:
        if self.note:
            return f"warning: DPRINT: {self.text}"
        return f"{device}:{x}-{y}:{RISC_NAMES[self.core]}: {self.text}"


class _Corrupt(Exception):
    """The print buffer's positions or a header do not hold together (the message says how)."""


@dataclass
class PrintServer:
    """The host's print server for one tile: drains the buffer into ``prints``; ``shown`` counts
    the ones a front end has shown."""

    mailboxes: Mailboxes
    kernels: dict[str, ElfImage]            # each core's kernel ELF (its strings)
    prints: list[Print] = field(default_factory=list)
    shown: int = 0
    _partial: dict[str, str] = field(default_factory=dict)   # text since a core's last newline

    def address(self, name: str) -> int:
        return self.mailboxes.field(f"dprint_buf.buffer.{name}").address

    def copy(self) -> PrintServer:
        """The server as it is now (a checkpoint's), sharing nothing that changes."""
        return replace(self, prints=list(self.prints), _partial=dict(self._partial))

    def drain(self, session: Session) -> bool:
        """Read every message written since the last drain into ``prints`` (the lines they end,
        and a note for what cannot be read) and move ``rpos`` past them; True when there were any."""
        with session.on_core("B"):
            wpos = session.read_value(self.address("aux.wpos"), 4)
            rpos = session.read_value(self.address("aux.rpos"), 4)
            if wpos in SERVER_MAGICS or rpos == RESET_MAGIC:
                return False
            wpos &= ~WRITE_STALL_FLAG
            if wpos == rpos:
                return False
            size = self.mailboxes.field("dprint_buf.buffer.data").size
            data = session.read_memory(self.address("data"), size)
            new: list[Print] = []
            try:
                for at, header, message in _messages(data, rpos, wpos):
                    new += self._message(session, at, header, message)
            except _Corrupt as exc:
                new.append(Print(None, f"{exc}; read position moved to the write position {wpos:#x}", note=True))
            session.write_memory(self.address("aux.rpos"), wpos.to_bytes(4, "little"))
        self.prints += new
        return True

    def _message(self, session: Session, at: int, header: int, message: bytes) -> list[Print]:
        is_kernel, risc, info = header & 1, (header >> 1) & 0x1F, header >> 16
        if risc >= len(CORES):
            return [Print(None, f"header {header:#010x} at {at:#x} names RISC {risc}; the tile has "
                                f"{len(CORES)} (0..{len(CORES) - 1}): message skipped", note=True)]
        core = CORES[risc]
        notes: list[str] = []
        text = self._format(session, core, bool(is_kernel), info, message, notes)
        return [Print(core, f"header {header:#010x} at {at:#x} ({RISC_NAMES[core]}): {n}", note=True) for n in notes] \
            + self._lines(core, text)

    def unshown(self) -> list[Print]:
        """The prints no front end has shown yet (and now counted as shown)."""
        out, self.shown = self.prints[self.shown:], len(self.prints)
        return out

    def _lines(self, core: str, text: str) -> list[Print]:
        pending = self._partial.pop(core, "") + text
        *lines, rest = pending.split("\n")
        if rest:
            self._partial[core] = rest
        return [Print(core, line) for line in lines]

    def _format(self, session: Session, core: str, is_kernel: bool, info: int, message: bytes,
                notes: list[str]) -> str:
        elf = self.kernels.get(core) if is_kernel else None
        strings = elf.section(".device_print_strings") if elf is not None else None
        infos = elf.section(".device_print_strings_info") if elf is not None else None
        if strings is None or infos is None or infos.data is None or (info + 1) * 16 > len(infos.data):
            return f"<a DPRINT from {'its kernel' if is_kernel else 'the firmware'} whose format tdbg cannot find (info {info})>\n"
        fmt_ptr, _file, _line, _ = struct.unpack_from("<4I", infos.data, info * 16)
        fmt = _c_string(strings.data or b"", fmt_ptr - strings.addr)
        places = [(int(m.group(1)), m.group(3) or m.group(2)) for m in _PLACEHOLDER.finditer(fmt) if m.group(1)]
        sizes = dict(sorted({n: TYPES.get(t, (None, 0))[1] for n, t in places}.items()))
        offsets, at = {}, 0
        for n, size in sizes.items():
            offsets[n], at = at, at + size
        if at > len(message):
            notes.append(f"{len(message)} bytes of arguments where its format ({fmt.strip()!r}) takes {at}; "
                         "the missing ones are shown as <missing>")

        def value(m: re.Match[str]) -> str:
            if m.group(0) in ("{{", "}}"):
                return m.group(0)[0]
            n, kind, spec = int(m.group(1)), m.group(3) or m.group(2), m.group(4) or ""
            if offsets[n] + sizes[n] > len(message):
                return "<missing>"
            try:
                return _shown(session, core, kind, message, offsets[n], spec, strings)
            except (ValueError, SessionError) as exc:   # a format spec for another type; a string pointer to nowhere
                notes.append(f"argument {n} ({kind!r}) cannot be shown: {exc}")
                return "<unreadable>"

        return _PLACEHOLDER.sub(value, fmt)


def _messages(data: bytes, rpos: int, wpos: int) -> Iterator[tuple[int, int, bytes]]:
    """The unread messages of the print buffer ``data`` in order: (offset, header, payload) each,
    first-kernel markers and wrap headers left out; ``_Corrupt`` where the positions or a header
    stop holding together (the messages before it are good)."""
    size = len(data)
    for name, position in (("write", wpos), ("read", rpos)):
        if position > size:
            raise _Corrupt(f"the {name} position {position:#x} is past the buffer's {size} bytes")
    for start, end in ([(rpos, wpos)] if rpos <= wpos else [(rpos, size), (0, wpos)]):
        at = start
        while at < end:
            if at + 4 > end:
                if end == size:          # no room for a header: the writer went back to 0
                    break
                raise _Corrupt(f"the write position {wpos:#x} is {end - at} bytes into a header at {at:#x}")
            header = int.from_bytes(data[at:at + 4], "little")
            payload, info = (header >> 6) & 0x3FF, header >> 16
            if info == WRAP_INFO and payload == 0 and not header & 1:
                if end != size:
                    raise _Corrupt(f"wrap header {header:#010x} at {at:#x}, before the write position {wpos:#x}")
                break
            length = 4 if payload == NEW_KERNEL_PAYLOAD else 4 + payload
            if at + length > end:
                raise _Corrupt(f"header {header:#010x} at {at:#x} says {length - 4} bytes follow: past the "
                               f"{'write position' if end == wpos else 'buffer end'} {end:#x}")
            if payload != NEW_KERNEL_PAYLOAD:
                yield at, header, data[at + 4:at + length]
            at += length


def _c_string(data: bytes, at: int) -> str:
    end = data.find(b"\0", at)
    return data[at:end if end >= 0 else len(data)].decode("utf-8", "replace")


def _shown(session: Session, core: str, kind: str, message: bytes, at: int, spec: str, strings) -> str:
    """One argument as the print server formats it ({fmt}'s rules, which Python's format follows for
    these types)."""
    code, size = TYPES.get(kind, (None, 0))
    if code is None:
        return {"t": "<tile slice>", "A": "<typed array>", "c": "<call stack>"}.get(kind, f"<type {kind!r}>")
    raw = struct.unpack_from(code, message, at)[0]
    if kind == "?":
        return format("true" if raw else "false", spec)
    if kind == "w":                                     # bfloat16: the upper half of a float32
        return format(float(np.uint32(raw << 16).view(np.float32)), spec) if spec else str(np.uint32(raw << 16).view(np.float32))
    if kind in "fd":
        return format(raw, spec) if spec else str(np.float32(raw) if kind == "f" else raw)
    if kind == "p":
        return format(raw, spec) if spec else f"{raw:#x}"
    if kind == "s":
        if strings is not None and strings.data is not None and strings.addr <= raw < strings.addr + len(strings.data):
            text = _c_string(strings.data, raw - strings.addr)
        else:
            with session.on_core(core):
                block = session.read_memory(raw, 64)
            text = _c_string(block, 0)
        return format(text, spec)
    return format(raw, spec)
