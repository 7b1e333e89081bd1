"""tt-llk's ``LLK_ASSERT``, decoded at the ``ebreak`` it leaves.

With ``ENABLE_LLK_ASSERT`` and tt-llk's own test infrastructure (``ENV_LLK_INFRA``), tt-llk's
``LLK_ASSERT(condition, message)`` (``common/llk_assert.h``, tt-llk in the ttnn 0.81.1 wheel) is
``if (__builtin_expect(!(condition), 0)) { asm volatile("ebreak"); }`` and ``LLK_PANIC(c, m)`` is
``LLK_ASSERT(!(c), m)``: a failed assert is a bare ``ebreak``, and the condition and message are
only in the source.  An ``ebreak`` whose line (the innermost one, from the line table: inside an
inlined LLK function, the header's line) is an ``LLK_ASSERT(`` or ``LLK_PANIC(`` is that assert;
its condition and message are read from the source (found as ``list`` finds it: ``set
substitute-path``, ``directory``).  Where the source cannot be read the stop stays GDB's plain
SIGTRAP, with its file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tdbg.emu.stops import Stop, StopKind

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.symbols.debuginfo import DebugInfo


class Session(Protocol):
    """What reading an assert uses of a session (``tdbg.Session`` is one)."""

    @property
    def programs(self) -> dict[str, ElfImage]: ...
    @property
    def debug(self) -> DebugInfo | None: ...
    def on_core(self, name: str) -> AbstractContextManager[str]: ...

_CALL = re.compile(r"\b(LLK_ASSERT|LLK_PANIC)\s*\(")
MAX_LINES = 20   # an assert's arguments span at most this many source lines


@dataclass(frozen=True)
class AssertFailure:
    """A failed ``LLK_ASSERT`` (or ``LLK_PANIC``): the core, where, and the arguments as
    written (``condition``: what had to hold, or for ``LLK_PANIC`` what must not)."""

    core: str
    file: Path
    line: int
    macro: str
    condition: str
    message: str | None

    def describe(self) -> str:
        """``LLK_ASSERT failed on T0 at llk_unpack_common.h:78: unpA_num_faces == 1 || ...
        ("unpA_num_faces must be 1, 2, or 4")``."""
        what = "failed" if self.macro == "LLK_ASSERT" else "hit"
        message = f" ({self.message})" if self.message else ""
        return f"{self.macro} {what} on {self.core} at {self.file.name}:{self.line}: {self.condition}{message}"


def llk_assert(session: Session, stop: Stop) -> AssertFailure | None:
    """The ``LLK_ASSERT`` an ``ebreak`` stop comes from, or None."""
    if stop.kind is not StopKind.EBREAK or stop.core not in session.programs:
        return None
    with session.on_core(stop.core):
        info = session.debug
        where = info.line_for(stop.pc) if info is not None else None
        if where is None:
            return None
        try:
            lines = info.source_lines(str(where.file))
        except (OSError, KeyError, ValueError):
            return None
    text = " ".join(lines[where.line - 1: where.line - 1 + MAX_LINES])
    m = _CALL.search(lines[where.line - 1] if 0 < where.line <= len(lines) else "")
    if m is None:
        return None
    args = _arguments(text[text.find(m.group(0)) + len(m.group(0)):])
    if not args:
        return None
    message = args[1] if len(args) > 1 else None
    return AssertFailure(stop.core, where.file, where.line, m.group(1), " ".join(args[0].split()),
                         " ".join(message.split()) if message else None)


def _arguments(text: str) -> list[str]:
    """The arguments of a call whose text starts after its ``(``, split at top-level commas (not
    inside brackets or string literals); [] when it does not close."""
    args, depth, start, quote, i = [], 0, 0, "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[start:i].strip())
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    return []
