"""The tokens of an expression, scanned the way GDB's C lexer scans them: numbers with their
C types, character and string literals with escapes, ``$`` names, GDB's quoted symbols."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tdbg.expr.ctype import DOUBLE, FLOAT, INT, LLONG, LONG, UINT, ULLONG, ULONG, CType, round_float
from tdbg.expr.values import ExprError


@dataclass(frozen=True)
class Token:
    kind: str  # num char str qname ident dollar op eof
    text: str
    pos: int
    value: object = None


_OPS = ["<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
        "*=", "/=", "%=", "&=", "^=", "|=", *"()[]{}.,?:!~*/%+-<>&^|=@"]
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCOPED = re.compile(r"(?:::)?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")   # C++: ckernel::counter
_DOLLAR = re.compile(r"\$[A-Za-z0-9_$]*")
_QNAME = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*")
_CXX_NAME = re.compile(r"(?:::)?[A-Za-z_][\w:<>(),&* ]*")   # a quoted C++ name: 'f(int const&)', 'T<4, 0>'
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)")
_FLOAT = re.compile(r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?([fF]?)")
_HEXFLOAT = re.compile(r"(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)([fF]?)")
_SUFFIXES = {"": (False, 0), "u": (True, 0), "l": (False, 1), "ul": (True, 1), "lu": (True, 1),
             "ll": (False, 2), "ull": (True, 2), "llu": (True, 2)}
_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27}
_DIGITS = "0123456789"


def lex(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            tokens.append(Token("eof", "", n))
            return tokens
        c = text[i]
        if c in _DIGITS or (c == "." and text[i + 1:i + 2] in tuple(_DIGITS)):
            j = _scan_number(text, i)
            tokens.append(Token("num", text[i:j], i, _number(text[i:j])))
        elif (m := _SCOPED.match(text, i)) and m.group():
            j = m.end()
            tokens.append(Token("ident", m.group(), i))
        elif m := _DOLLAR.match(text, i):
            j = m.end()
            tokens.append(Token("dollar", m.group(), i))
        elif c == "'":
            token, j = _lex_quote(text, i)
            tokens.append(token)
        elif c == '"':
            data, j = _lex_string(text, i)
            tokens.append(Token("str", text[i:j], i, data))
        else:
            op = next((o for o in _OPS if text.startswith(o, i)), None)
            if op is None:
                raise ExprError(f"Invalid character '{c}' in expression.")
            j = i + len(op)
            tokens.append(Token("op", op, i))
        i = j


def _scan_number(text: str, i: int) -> int:
    """The end of the number at ``i``, scanned the way GDB's lexer does."""
    hexa = text.startswith(("0x", "0X"), i)
    j, n = i + 2 if hexa else i, len(text)
    got_dot = got_exp = False
    while j < n:
        c = text[j]
        if not got_exp and c in ("pP" if hexa else "eE"):
            got_exp = True
            j += 2 if text[j + 1:j + 2] in ("+", "-") else 1
        elif c == "." and not (got_dot or got_exp):
            got_dot = True
            j += 1
        elif c.isascii() and (c.isalnum() or c == "_"):
            j += 1
        else:
            break
    return j


def _number(text: str) -> tuple[CType, int | float]:
    if (m := _INT.fullmatch(text)) and m.group(2).lower() in _SUFFIXES:
        digits = m.group(1)
        if digits[:2] in ("0x", "0X", "0b", "0B"):
            value, decimal = int(digits, 0), False
        elif digits.startswith("0") and len(digits) > 1:
            if not set(digits) <= set("01234567"):
                raise ExprError(f'Invalid number "{text}".')
            value, decimal = int(digits, 8), False
        else:
            value, decimal = int(digits), True
        unsigned, longs = _SUFFIXES[m.group(2).lower()]
        return _int_literal_type(value, decimal, unsigned, longs), value
    if m := _FLOAT.fullmatch(text):
        value, suffix = float(text[:m.start(1)]), m.group(1)
    elif m := _HEXFLOAT.fullmatch(text):
        suffix = m.group(2)
        try:
            value = float.fromhex(m.group(1))
        except OverflowError:
            value = math.inf
    else:
        raise ExprError(f'Invalid number "{text}".')
    return (FLOAT, round_float(value, 4)) if suffix else (DOUBLE, value)


def _int_literal_type(value: int, decimal: bool, unsigned: bool, longs: int) -> CType:
    """C's rule (RV32: long is 32-bit): the first type of the list that holds the value; like
    GDB, a decimal constant too big for ``long long`` is ``unsigned long long``."""
    candidates: list[CType] = []
    for signed_type, unsigned_type in [(INT, UINT), (LONG, ULONG), (LLONG, ULLONG)][longs:]:
        if not unsigned:
            candidates.append(signed_type)
        if unsigned or not decimal:
            candidates.append(unsigned_type)
    for t in [*candidates, ULLONG]:
        if value < 1 << (8 * t.size - t.signed):
            return t
    raise ExprError("Numeric constant too large.")


def _escape(text: str, i: int) -> tuple[int, int]:
    """The character of the escape sequence whose backslash is at ``i``, and where it ends."""
    c = text[i + 1:i + 2]
    if not c:
        raise ExprError("Unmatched single quote.")
    if c == "x":
        m = re.compile(r"[0-9a-fA-F]+").match(text, i + 2)
        if not m:
            raise ExprError("\\x escape without a following hex digit")
        return int(m.group(), 16) & 0xFF, m.end()
    if m := re.compile(r"[0-7]{1,3}").match(text, i + 1):
        return int(m.group(), 8) & 0xFF, m.end()
    return _ESCAPES.get(c, ord(c) & 0xFF), i + 2


def _lex_quote(text: str, i: int) -> tuple[Token, int]:
    """A character literal, or GDB's quoted symbol name (``'dst'``)."""
    if text[i + 1:i + 2] == "\\":
        value, j = _escape(text, i + 1)
        if text[j:j + 1] != "'":
            raise ExprError("Unmatched single quote." if "'" not in text[j:] else "Invalid character constant.")
        return Token("char", text[i:j + 1], i, value), j + 1
    end = text.find("'", i + 1)
    if end < 0:
        raise ExprError("Unmatched single quote.")
    body = text[i + 1:end]
    if not body:
        raise ExprError("Empty character constant.")
    if len(body.encode()) == 1:
        return Token("char", text[i:end + 1], i, ord(body)), end + 1
    if _QNAME.fullmatch(body) or (_CXX_NAME.fullmatch(body) and any(c in body for c in "(<:")):
        return Token("qname", body, i), end + 1
    raise ExprError("Invalid character constant.")


def _lex_string(text: str, i: int) -> tuple[bytes, int]:
    out = bytearray()
    j = i + 1
    while j < len(text) and text[j] != '"':
        if text[j] == "\\":
            value, j = _escape(text, j)
            out.append(value)
        else:
            out += text[j].encode()
            j += 1
    if j >= len(text):
        raise ExprError("Unterminated string in expression.")
    return bytes(out), j + 1
