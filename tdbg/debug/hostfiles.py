"""Host files named by the user (``dump``, ``restore``, ``source``, ``file``, ``dst diff``):
``~`` expanded, only regular files read (a FIFO or a device would block or never end), each
read bounded, every failure one ``HostFileError`` line naming the file and what is wrong."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_SCRIPT_BYTES = 64 << 20   # ``source`` and ``-x`` command files
MAX_RESTORE_BYTES = 16 << 20  # ``restore FILE binary``: ten times L1, more than any tile memory takes


class HostFileError(ValueError):
    """A host file cannot be used: the message names it (shown as it is, one line)."""


def host_path(text: str | Path) -> Path:
    """``text`` with ``~`` / ``~USER`` expanded; an unknown user is an error naming the path
    (``Path.expanduser`` raises a bare ``RuntimeError`` there)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        user = str(text)[1:].split("/", 1)[0]
        raise HostFileError(f"{text}: no user named {user!r} for '~{user}'.") from None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def read_host_file(text: str | Path, limit: int, what: str = "file", head: bool = False) -> bytes:
    """The bytes of the regular file ``text``, at most ``limit`` of them (checked before
    reading; the error names the limit).  ``head``: a larger file is not an error, its first
    ``limit`` bytes are read (for formats whose header says how much follows)."""
    path = host_path(text)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise HostFileError(f"{text}: not a regular file.")
        if head:
            with path.open("rb") as fh:
                return fh.read(limit)
        if info.st_size > limit:
            raise HostFileError(f"{text}: {info.st_size} bytes; tdbg reads a {what} of at most {limit} bytes.")
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise HostFileError(f"{text}: {_reason(exc)}.") from None
    if len(data) > limit:  # it grew while being read
        raise HostFileError(f"{text}: more than {limit} bytes; tdbg reads a {what} of at most {limit} bytes.")
    return data


def write_host_file(text: str | Path, data: bytes, append: bool = False) -> None:
    """Write (or append) ``data`` to ``text``: a regular file, created if missing, or a
    character device such as /dev/null; never a FIFO (opening one waits for a reader)."""
    path = host_path(text)
    try:
        if path.exists() and not (path.is_file() or stat.S_ISCHR(path.stat().st_mode)):
            raise HostFileError(f"{text}: not a regular file.")
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC) | os.O_NONBLOCK
        fd = os.open(path, flags, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise HostFileError(f"{text}: {_reason(exc)}.") from None


class BadLine(str):
    """A command-file line that is not UTF-8: its text says why; the file ends there."""


def read_script(text: str | Path) -> list[str]:
    """The lines of a command file (``source``, ``-x``) of at most ``MAX_SCRIPT_BYTES``; a line
    that is not UTF-8 is a ``BadLine`` (the lines before it still run, as GDB runs them)."""
    lines: list[str] = []
    for raw in read_host_file(text, MAX_SCRIPT_BYTES, "command file").splitlines():
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            lines.append(BadLine(f"not UTF-8 text (byte {raw[exc.start]:#04x} at column {exc.start + 1})."))
    return lines
