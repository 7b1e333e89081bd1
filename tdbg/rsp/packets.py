"""The stub's packet table: each packet declares its name and the schema of its arguments, the
table finds a packet's entry and parses its arguments into typed values, and a packet whose
arguments do not fit its schema is refused in one place (as QEMU's gdbstub ``GdbCmdParseEntry``
carries a schema per packet; the lookup is pyOCD's: the exact text, else the longest name
prefix, else the first letter).

A schema is the argument text's shape: fields, the literal characters between them, and an
optional tail in ``[...]``.  Fields:

* ``L`` a hexadecimal number (an ``int``)
* ``H`` hex-encoded bytes (``bytes``)
* ``B`` escaped binary data to the end (``bytes``: ``X``'s data, ``}``-escapes undone)
* ``T`` a thread id: hex ``N``, ``-1``, or with the multiprocess extensions ``pPID[.TID]`` (``str``)
* ``O`` one character (``str``)
* ``S`` text up to the next literal, or to the end (``str``)

An optional tail that is absent gives None for each of its fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

_HEX = r"[0-9a-fA-F]"
_FIELDS = {
    "L": (rf"({_HEX}+)", lambda text: int(text, 16)),
    "H": (rf"((?:{_HEX}{_HEX})*)", bytes.fromhex),
    "B": (r"(.*)", lambda text: unescape(text.encode("latin-1"))),
    "T": (rf"(-1|p(?:-1|{_HEX}+)(?:\.(?:-1|{_HEX}+))?|{_HEX}+)", str),
    "O": (r"(.)", str),
    "S": (r"(.*?)", str),
}


class PacketError(ValueError):
    """A packet's arguments do not fit its schema."""


def unescape(data: bytes) -> bytes:
    """Undo the ``}`` escapes of binary data (``}`` then the byte XOR 0x20)."""
    out, it = bytearray(), iter(data)
    for b in it:
        out.append(next(it, 0) ^ 0x20 if b == 0x7D else b)
    return bytes(out)


@dataclass(frozen=True)
class Schema:
    """A compiled schema: its pattern and each field's converter."""

    text: str
    pattern: re.Pattern[str] = field(init=False, compare=False)
    converters: tuple[Callable[[str], object], ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        regex, converters = [], []
        for char in self.text:
            if char in _FIELDS:
                regex.append(_FIELDS[char][0])
                converters.append(_FIELDS[char][1])
            elif char == "[":
                regex.append("(?:")
            elif char == "]":
                regex.append(")?")
            else:
                regex.append(re.escape(char))
        object.__setattr__(self, "pattern", re.compile("".join(regex), re.DOTALL))
        object.__setattr__(self, "converters", tuple(converters))

    def parse(self, text: str) -> list[object]:
        """The typed values of ``text``'s fields (None for an absent optional one)."""
        match = self.pattern.fullmatch(text)
        if match is None:
            raise PacketError(f"arguments {text[:40]!r} do not fit {self.text!r}")
        return [None if value is None else convert(value) for value, convert in zip(match.groups(), self.converters)]


@dataclass(frozen=True)
class Packet:
    """One packet: its ``name`` (the whole text when ``exact``, else what its arguments follow),
    the ``schema`` of those arguments, and the handler that gets their values."""

    name: str
    schema: Schema
    handler: Callable[..., object]
    exact: bool = False


def packet(name: str, schema: str, handler: Callable[..., object], exact: bool = False) -> Packet:
    return Packet(name, Schema(schema), handler, exact)


class PacketTable:
    """The packets a stub answers, looked up by a packet's text."""

    def __init__(self, packets: Iterable[Packet]) -> None:
        packets = list(packets)
        self._exact = {p.name: p for p in packets if p.exact}
        self._prefixed = sorted((p for p in packets if not p.exact and len(p.name) > 1), key=lambda p: -len(p.name))
        self._letters = {p.name: p for p in packets if not p.exact and len(p.name) == 1}

    def lookup(self, text: str) -> tuple[Packet, str] | None:
        """The entry of the packet ``text`` and its argument text; None when no entry has it."""
        if text in self._exact:
            return self._exact[text], ""
        for entry in self._prefixed:
            if text.startswith(entry.name):
                return entry, text[len(entry.name):]
        entry = self._letters.get(text[:1])
        return (entry, text[1:]) if entry is not None else None

    def dispatch(self, text: str) -> object:
        """The handler's reply to the packet ``text`` with its arguments parsed; the empty reply
        for a packet no entry has (the protocol's "not supported"); ``PacketError`` when its
        arguments do not fit its schema."""
        found = self.lookup(text)
        if found is None:
            return ""
        entry, args = found
        return entry.handler(*entry.schema.parse(args))
