"""Expressions in command arguments: integers, addresses, values and lvalue sizes, through
``tdbg.expr`` in the session's expression context."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tdbg.commands.registry import CommandError
from tdbg.expr import ExprError, Kind, Value, value_as_address

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter


def evaluate(interp: Interpreter, text: str) -> Value:
    try:
        return interp.session.evaluate(text)
    except ExprError as exc:
        raise CommandError(str(exc)) from None


#: A C integer literal that is its own value (decimal without a leading 0, or hex): read without the
#: expression parser, which then need not be imported (``restore``, ``run``, ``dump`` of a kernel run).
_PLAIN_INT = re.compile(r"\s*(0[xX][0-9a-fA-F]+|[1-9][0-9]*|0)\s*")


def evaluate_int(interp: Interpreter, text: str) -> int:
    """An integer argument (any expression with an integer value)."""
    plain = _PLAIN_INT.fullmatch(text)
    if plain:
        return int(plain.group(1), 0)
    value = evaluate(interp, text)
    if value.ctype.kind is Kind.FLOAT:
        return int(value.raw)  # type: ignore[arg-type]
    if not isinstance(value.raw, int):
        raise CommandError(f"Value of \"{text}\" is not an integer.")
    return value.raw


def evaluate_address(interp: Interpreter, text: str) -> int:
    """An address argument, as GDB's ``x`` takes it (an array or function names its own
    address; a pointer or integer its value)."""
    try:
        return value_as_address(evaluate(interp, text))
    except ExprError as exc:
        raise CommandError(str(exc)) from None


def lvalue(interp: Interpreter, text: str) -> tuple[int, int]:
    """(address, size) of the memory an lvalue expression designates (for watchpoints)."""
    value = evaluate(interp, text)
    if value.address is None:
        raise CommandError(f"Cannot watch constant value `{text}'.")
    return value.address, max(value.ctype.size, 1)
