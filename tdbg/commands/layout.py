"""Fitting wide output to the terminal: GDB's ``set width`` (the characters in a line, 0 for
unlimited), and the helpers the tables use to stay within it.

tdbg's default is 80 columns, or the terminal's width when standard output is one (GDB measures
the terminal the same way; unlike GDB, ``-batch`` keeps 80, so a script's output reads the same
on an 80-column screen).  A table that is wider than the line is laid out again: the shortest
digits that still tell every value of the format apart, then its columns in blocks (``blocks``)
or its text wrapped (``wrap``); ``set width unlimited`` gives the one-line-per-row layout.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter

DEFAULT_WIDTH = 80

#: Significant decimal digits that tell every value of a float format apart (its precision p:
#: 1 + ceil(p * log10 2), C's ``*_DECIMAL_DIG``): BF16 8 bits, FP16 and TF32 11, FP8 (e5m2) 3,
#: FP32 24.  The narrow layout prints floats with these instead of FP32's 9.
SHORT_DIGITS = {"bf16": 4, "fp16": 5, "tf32": 5, "fp8": 3, "fp32": 9}


def line_width(interp: Interpreter) -> int | None:
    """The characters in a line (None: unlimited)."""
    return interp.state.width or None


def fits(lines: Sequence[str], width: int | None) -> bool:
    return width is None or all(len(line) <= width for line in lines)


def first_fitting(width: int | None, layouts: Sequence[Callable[[], list[str]]]) -> list[str]:
    """The first layout whose lines fit ``width`` (the last one when none does)."""
    lines: list[str] = []
    for layout in layouts:
        lines = layout()
        if fits(lines, width):
            break
    return lines


def blocks(columns: int, width: int | None, layout: Callable[[int, int], list[str]]) -> list[str]:
    """``layout(first, last)`` of column blocks ``first..last-1``: all ``columns`` at once if that
    fits, else blocks of a half, a quarter ... of them, one after the other."""
    n = columns
    while True:
        lines = [line for start in range(0, columns, n) for line in layout(start, min(start + n, columns))]
        if n == 1 or fits(lines, width):
            return lines
        n //= 2


def wrap(text: str, width: int | None, indent: str = "", subsequent: str | None = None) -> list[str]:
    """``text`` filled to ``width`` at spaces (a word longer than a line stays whole), the first
    line after ``indent``, the others after ``subsequent`` (default: as many spaces)."""
    if subsequent is None:
        subsequent = " " * len(indent)
    if width is None or len(indent) + len(text) <= width:
        return [indent + text]
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=subsequent,
                         break_long_words=False, break_on_hyphens=False) or [indent]


def wrap_lines(text: str, width: int | None) -> list[str]:
    """Each line of ``text`` filled to ``width``; a continuation is indented like its line (and
    under the text after a leading ``Usage:`` or ``Example:``)."""
    out: list[str] = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        label = next((w for w in ("Usage: ", "Example: ") if body.startswith(w)), "")
        out.extend(wrap(body[len(label):], width, indent + label) if body else [line])
    return out
