"""GDB's C expression language, reduced to what a firmware engineer needs, plus Tensix names.

Used by ``print``/``output``/``set var``/``x``/``display`` and breakpoint conditions.  The
evaluator never sees the session: it talks to an :class:`EvalContext`.

Grammar (GDB's ``c-exp.y``, lowest precedence first; binary operators are left-associative)::

    expr     := assign (',' assign)*
    assign   := cond [('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '<<=' | '>>=' | '&=' | '^=' | '|=') assign]
    cond     := binary ['?' expr ':' cond]
    binary   := || , && , | , ^ , & , == != , < <= > >= , << >> , @ , + - , * / %
    unary    := ('-' | '+' | '!' | '~' | '*' | '&' | '++' | '--') unary | 'sizeof' unary
              | 'sizeof' '(' type ')' | '(' type ')' unary | '{' type '}' unary | postfix
    postfix  := primary ('[' expr ']' | '.' NAME | '->' NAME | '++' | '--')*
    primary  := NUMBER | 'c' | "string"... | NAME | 'NAME' | $REG | $NAME | $ | $$ | $N | $$N
              | dst[R][C] | dst[R] | dst32[R][C] | dst32[R] | srca[B][R][C] | srca[B][R]
              | srcb[B][R][C] | srcb[B][R] | cfg.FIELD | '(' expr ')'

``A@N`` is GDB's artificial array (N objects starting at lvalue ``A``), ``{T} ADDR`` the object
of type ``T`` at ``ADDR``.  ``dst[R][C]`` is the ``Dst16b`` element (``uint16_t``),
``dst32[R][C]`` the ``Dst32b`` element, ``srca/srcb[B][R][C]`` a 19-bit ``SrcA``/``SrcB``
element (``uint32_t``), ``cfg.NAME`` a config field by its ``cfg_defines.h`` name; all are
assignable.  With one index fewer they are a whole row (16 elements, not an lvalue).  These
forms win over firmware symbols of the same name only where written so (``dst[``, ``cfg.``);
``'dst'`` (quoted) is always the firmware symbol.

Types follow the RV32 ILP32 ABI: ``int`` and ``long`` are 32-bit, plain ``char`` is unsigned.
Integer arithmetic follows GDB (and C): promotion to ``int``, the usual arithmetic conversions,
wrap-around in the result type.
"""

from __future__ import annotations

import math
import operator
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from tdbg.riscv import ABI_NAMES, NUMBERS


class ExprError(Exception):
    """A bad expression or a failed evaluation; the message is one line, GDB's where it has one."""


# -- types -------------------------------------------------------------------------------------------


class Kind(StrEnum):
    INT = "int"          # every integer type, including char (``size`` 1 prints as a character)
    BOOL = "bool"        # _Bool
    FLOAT = "float"      # float (size 4), double (size 8)
    POINTER = "pointer"  # target: the pointee
    ARRAY = "array"      # target: the element type, count: the number of elements
    STRUCT = "struct"    # struct or union; fields: the members
    FUNC = "func"        # target: the return type (None: no debug info), params
    VOID = "void"
    UNKNOWN = "unknown"  # a data symbol without debug info


@dataclass(frozen=True)
class CField:
    """One member of a struct or union: its name, byte offset and type."""

    name: str
    offset: int
    ctype: CType


@dataclass(frozen=True)
class CType:
    """A C type, small enough for the debug-info layer to build from DWARF.

    ``name`` is the C spelling of a named type (``"unsigned int"``, ``"uint32_t"``,
    ``"struct pt"``); derived types (pointer, array, function) leave it empty and
    :func:`type_name` spells them from ``target``.  ``size`` is ``sizeof`` in bytes.
    ``signed`` matters for integers only.  ``params`` of a function: ``None`` for an
    unprototyped ``()``, ``()`` for ``(void)``.  A struct may be referenced incomplete (named,
    no ``fields``), e.g. to break the cycle of ``struct node { struct node *next; }``: the
    evaluator completes it through ``EvalContext.lookup_type(name)`` when it reaches the object.
    """

    name: str
    size: int
    kind: Kind = Kind.INT
    signed: bool = False
    target: CType | None = None
    count: int = 0
    fields: tuple[CField, ...] = ()
    params: tuple[CType, ...] | None = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))  # accept plain strings: "int", "pointer"


def pointer_to(target: CType) -> CType:
    return CType("", 4, Kind.POINTER, target=target)


def array_of(element: CType, count: int) -> CType:
    return CType("", element.size * count, Kind.ARRAY, target=element, count=count)


def function_type(returns: CType, params: tuple[CType, ...] | None = ()) -> CType:
    return CType("", 0, Kind.FUNC, target=returns, params=params)


VOID = CType("void", 1, Kind.VOID)
BOOL = CType("_Bool", 1, Kind.BOOL)
CHAR = CType("char", 1)  # RV32 psABI: plain char is unsigned
SCHAR = CType("signed char", 1, signed=True)
UCHAR = CType("unsigned char", 1)
SHORT = CType("short", 2, signed=True)
USHORT = CType("unsigned short", 2)
INT = CType("int", 4, signed=True)
UINT = CType("unsigned int", 4)
LONG = CType("long", 4, signed=True)
ULONG = CType("unsigned long", 4)
LLONG = CType("long long", 8, signed=True)
ULLONG = CType("unsigned long long", 8)
FLOAT = CType("float", 4, Kind.FLOAT, signed=True)
DOUBLE = CType("double", 8, Kind.FLOAT, signed=True)
INT8, UINT8 = CType("int8_t", 1, signed=True), CType("uint8_t", 1)
INT16, UINT16 = CType("int16_t", 2, signed=True), CType("uint16_t", 2)
INT32, UINT32 = CType("int32_t", 4, signed=True), CType("uint32_t", 4)
INT64, UINT64 = CType("int64_t", 8, signed=True), CType("uint64_t", 8)
NODEBUG_FUNC = CType("<text variable, no debug info>", 0, Kind.FUNC, target=None)
NODEBUG_DATA = CType("<data variable, no debug info>", 0, Kind.UNKNOWN)
CODE_POINTER = pointer_to(function_type(VOID, None))  # $pc, $ra: void (*)()
DATA_POINTER = pointer_to(VOID)                       # $sp, $gp, $tp, $fp: void *

BUILTIN_TYPES: dict[str, CType] = {t.name: t for t in (
    VOID, BOOL, CHAR, SCHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, LLONG, ULLONG,
    FLOAT, DOUBLE, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64,
)} | {"bool": BOOL, "intptr_t": CType("intptr_t", 4, signed=True), "uintptr_t": CType("uintptr_t", 4),
      "size_t": CType("size_t", 4)}
_TYPEDEFS = {name for name in BUILTIN_TYPES if " " not in name} - {"void", "char", "short", "int",
                                                                     "long", "float", "double"}


def type_name(ctype: CType) -> str:
    """The C spelling of a type, as GDB's ``whatis`` shows it (``uint32_t (*)[16]``)."""
    return _declare(ctype, "")


def _declare(t: CType, inner: str) -> str:
    if t.name or t.target is None:
        return f"{t.name} {inner}" if inner else t.name
    if t.kind is Kind.POINTER:
        return _declare(t.target, "*" + inner)
    wrapped = f"({inner})" if inner.startswith("*") else inner
    if t.kind is Kind.ARRAY:
        return _declare(t.target, f"{wrapped}[{t.count}]")
    params = "" if t.params is None else ", ".join(map(type_name, t.params)) or "void"
    return _declare(t.target, f"{wrapped}({params})")


# -- values and the context ----------------------------------------------------------------------


class Lval(StrEnum):
    """Where an assignable value lives; ``Value.location`` says where exactly."""

    MEMORY = "memory"            # Value.address
    REGISTER = "register"        # (ABI name,)
    CONVENIENCE = "convenience"  # (name,)
    DST16 = "dst16"              # (row, col)
    DST32 = "dst32"              # (row, col)
    SRC = "src"                  # ("srca" | "srcb", bank, row, col)
    CFG = "cfg"                  # (field name,)


@dataclass(frozen=True)
class Value:
    """A typed value.  ``raw``: an int (integers, bools, pointers, function addresses), a float,
    or the bytes of an array or struct.  It is ``None`` only for memory not read yet, inside the
    evaluator; :func:`evaluate` never returns such a value."""

    ctype: CType
    raw: int | float | bytes | None
    address: int | None = None
    lval: Lval | None = None
    location: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class SymbolInfo:
    """A firmware symbol: its address, whether it is code, and its type if debug info has one.
    A variable the compiler keeps in a register names it (ABI name) in ``register`` instead."""

    address: int
    is_function: bool = False
    ctype: CType | None = None
    register: str | None = None


class EvalContext(Protocol):
    """What the evaluator needs from a debugging session.

    Registers are named by their ABI name as ``tdbg.riscv.ABI_NAMES`` spells it (``x8`` is
    ``fp``) or ``pc``; ``$s0`` and ``$xN`` are mapped to those.  ``register`` is also asked about any
    other ``$NAME`` first (a session may offer CSRs); ``KeyError`` makes it a convenience
    variable.  Memory accessors raise any exception for an address they cannot access.
    The Tensix accessors raise ``IndexError`` or ``ValueError`` with a one-line message for bad
    indices; ``cfg``/``set_cfg`` raise ``KeyError`` for an unknown field.
    """

    def register(self, name: str) -> int: ...
    def set_register(self, name: str, value: int) -> None: ...
    def symbol(self, name: str) -> SymbolInfo: ...  # KeyError if unknown; may raise ExprError
    def symbolize(self, address: int) -> str | None: ...  # "main+4", or None
    def lookup_type(self, name: str) -> CType | None: ...  # debug-info types: "pt_t", "struct pt"
    def read_memory(self, address: int, size: int) -> bytes: ...
    def write_memory(self, address: int, data: bytes) -> None: ...
    def dst16(self, row: int, col: int) -> int: ...
    def set_dst16(self, row: int, col: int, value: int) -> None: ...
    def dst32(self, row: int, col: int) -> int: ...
    def set_dst32(self, row: int, col: int, value: int) -> None: ...
    def src(self, which: str, bank: int, row: int, col: int) -> int: ...  # which: "srca" | "srcb"
    def set_src(self, which: str, bank: int, row: int, col: int, value: int) -> None: ...
    def cfg(self, name: str) -> int: ...
    def set_cfg(self, name: str, value: int) -> None: ...
    def history(self) -> Sequence[Value]: ...  # the value history, $1 first
    def convenience(self, name: str) -> Value | None: ...  # None if never set
    def set_convenience(self, name: str, value: Value) -> None: ...


REGISTERS: dict[str, str] = {name: ABI_NAMES[n] for name, n in NUMBERS.items()} | {"pc": "pc"}
_REGISTER_TYPES = {"pc": CODE_POINTER, "ra": CODE_POINTER, "sp": DATA_POINTER, "gp": DATA_POINTER,
                   "tp": DATA_POINTER, "fp": DATA_POINTER}
ROW_WIDTH = 16  # elements in a Dst / SrcA / SrcB row
_TENSIX = {"dst": 2, "dst32": 2, "srca": 3, "srcb": 3}  # name -> indices of one element
MAX_VALUE_SIZE = 65536  # GDB's max-value-size
_PRINT_ELEMENTS = 200   # GDB's print elements
_REPEATS = 10           # GDB's print repeats
_MASK32 = 0xFFFFFFFF

# -- nodes ---------------------------------------------------------------------------------------


class Node:
    """A parsed expression; immutable, so one parse can be evaluated any number of times."""


@dataclass(frozen=True)
class Literal(Node):
    ctype: CType
    raw: int | float | bytes


@dataclass(frozen=True)
class Ident(Node):
    name: str


@dataclass(frozen=True)
class Register(Node):
    name: str  # ABI name or "pc"


@dataclass(frozen=True)
class Dollar(Node):
    name: str  # a convenience variable, or a register the context knows beyond the GPRs


@dataclass(frozen=True)
class History(Node):
    num: int  # GDB's numbering: N > 0 is $N, 0 is $, -N is $$N


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class IncDec(Node):
    op: str  # "++" or "--"
    operand: Node
    prefix: bool


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Cond(Node):
    cond: Node
    then: Node
    other: Node


@dataclass(frozen=True)
class Assign(Node):
    op: str  # "" for plain '=', else the binary operator of a compound assignment
    target: Node
    value: Node


@dataclass(frozen=True)
class Cast(Node):
    ctype: CType
    operand: Node


@dataclass(frozen=True)
class MemAt(Node):
    ctype: CType
    address: Node


@dataclass(frozen=True)
class Sizeof(Node):
    operand: Node | CType


@dataclass(frozen=True)
class Index(Node):
    base: Node
    index: Node


@dataclass(frozen=True)
class Member(Node):
    base: Node
    name: str
    arrow: bool


@dataclass(frozen=True)
class TensixRef(Node):
    """``dst[r][c]`` etc.; one index fewer than an element needs is a whole row."""

    array: str  # "dst" | "dst32" | "srca" | "srcb"
    indices: tuple[Node, ...]

    @property
    def is_row(self) -> bool:
        return len(self.indices) < _TENSIX[self.array]


@dataclass(frozen=True)
class CfgRef(Node):
    name: str


# -- lexer ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: str  # num char str qname ident dollar op eof
    text: str
    pos: int
    value: object = None


_OPS = ["<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
        "*=", "/=", "%=", "&=", "^=", "|=", *"()[]{}.,?:!~*/%+-<>&^|=@"]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOLLAR = re.compile(r"\$[A-Za-z0-9_$]*")
_QNAME = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*")
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)")
_FLOAT = re.compile(r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?([fF]?)")
_HEXFLOAT = re.compile(r"(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)([fF]?)")
_SUFFIXES = {"": (False, 0), "u": (True, 0), "l": (False, 1), "ul": (True, 1), "lu": (True, 1),
             "ll": (False, 2), "ull": (True, 2), "llu": (True, 2)}
_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27}
_DIGITS = "0123456789"


def _lex(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            tokens.append(_Token("eof", "", n))
            return tokens
        c = text[i]
        if c in _DIGITS or (c == "." and text[i + 1:i + 2] in tuple(_DIGITS)):
            j = _scan_number(text, i)
            tokens.append(_Token("num", text[i:j], i, _number(text[i:j])))
        elif m := _IDENT.match(text, i):
            j = m.end()
            tokens.append(_Token("ident", m.group(), i))
        elif m := _DOLLAR.match(text, i):
            j = m.end()
            tokens.append(_Token("dollar", m.group(), i))
        elif c == "'":
            token, j = _lex_quote(text, i)
            tokens.append(token)
        elif c == '"':
            data, j = _lex_string(text, i)
            tokens.append(_Token("str", text[i:j], i, data))
        else:
            op = next((o for o in _OPS if text.startswith(o, i)), None)
            if op is None:
                raise ExprError(f"Invalid character '{c}' in expression.")
            j = i + len(op)
            tokens.append(_Token("op", op, i))
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
    return (FLOAT, _round_float(value, 4)) if suffix else (DOUBLE, value)


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


def _lex_quote(text: str, i: int) -> tuple[_Token, int]:
    """A character literal, or GDB's quoted symbol name (``'dst'``)."""
    if text[i + 1:i + 2] == "\\":
        value, j = _escape(text, i + 1)
        if text[j:j + 1] != "'":
            raise ExprError("Unmatched single quote." if "'" not in text[j:] else "Invalid character constant.")
        return _Token("char", text[i:j + 1], i, value), j + 1
    end = text.find("'", i + 1)
    if end < 0:
        raise ExprError("Unmatched single quote.")
    body = text[i + 1:end]
    if not body:
        raise ExprError("Empty character constant.")
    if len(body.encode()) == 1:
        return _Token("char", text[i:end + 1], i, ord(body)), end + 1
    if _QNAME.fullmatch(body):
        return _Token("qname", body, i), end + 1
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


# -- parser --------------------------------------------------------------------------------------

TypeLookup = Callable[[str], CType | None]
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7,
           ">=": 7, "<<": 8, ">>": 8, "@": 9, "+": 10, "-": 10, "*": 11, "/": 11, "%": 11}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}
_BASE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
               "_Bool", "bool"}
_TYPE_WORDS = _BASE_WORDS | {"const", "volatile", "struct", "union", "enum"}


class _Parser:
    def __init__(self, text: str, lookup_type: TypeLookup | None) -> None:
        self.text = text
        self.tokens = _lex(text)
        self.i = 0
        self.lookup_type = lookup_type

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def peek(self, k: int) -> _Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> _Token:
        tok = self.tok
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def is_op(self, text: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "op" and tok.text == text

    def accept(self, text: str) -> bool:
        if self.is_op(text):
            self.advance()
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.syntax_error()

    def syntax_error(self) -> ExprError:
        near = " ".join(self.text[self.tok.pos:].split())  # one line, whatever the input held
        return ExprError(f"A syntax error in expression, near `{near}'.")

    def finish(self) -> None:
        if self.tok.kind != "eof":
            raise self.syntax_error()

    # expressions
    def expr(self) -> Node:
        node = self.assign()
        while self.accept(","):
            node = Binary(",", node, self.assign())
        return node

    def assign(self) -> Node:
        node = self.cond()
        if self.tok.kind == "op" and self.tok.text in _ASSIGN:
            op = self.advance().text[:-1]
            return Assign(op, node, self.assign())
        return node

    def cond(self) -> Node:
        node = self.binary(1)
        if self.accept("?"):
            then = self.expr()
            self.expect(":")
            return Cond(node, then, self.cond())
        return node

    def binary(self, min_prec: int) -> Node:
        left = self.unary()
        while self.tok.kind == "op" and _BINARY.get(self.tok.text, 0) >= min_prec:
            op = self.advance().text
            left = Binary(op, left, self.binary(_BINARY[op] + 1))
        return left

    def unary(self) -> Node:
        tok = self.tok
        if tok.kind == "op":
            if tok.text in ("-", "+", "!", "~", "*", "&"):
                self.advance()
                return Unary(tok.text, self.unary())
            if tok.text in ("++", "--"):
                self.advance()
                return IncDec(tok.text, self.unary(), prefix=True)
            if tok.text == "(" and self.starts_type(1):
                self.advance()
                ctype = self.type_name()
                self.expect(")")
                return Cast(ctype, self.unary())
            if tok.text == "{":
                self.advance()
                ctype = self.type_name()
                self.expect("}")
                return MemAt(ctype, self.unary())
        if tok.kind == "ident" and tok.text == "sizeof":
            self.advance()
            if self.is_op("(") and self.starts_type(1):
                self.advance()
                ctype = self.type_name()
                self.expect(")")
                return Sizeof(ctype)
            return Sizeof(self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while True:
            if self.accept("["):
                index = self.expr()
                self.expect("]")
                node = Index(node, index)
            elif self.is_op(".") or self.is_op("->"):
                arrow = self.advance().text == "->"
                if self.tok.kind != "ident":
                    raise self.syntax_error()
                node = Member(node, self.advance().text, arrow)
            elif self.is_op("++") or self.is_op("--"):
                node = IncDec(self.advance().text, node, prefix=False)
            elif self.is_op("("):
                raise ExprError("Calling firmware functions is not supported.")
            else:
                return node

    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.advance()
            ctype, raw = tok.value  # type: ignore[misc]
            return Literal(ctype, raw)
        if tok.kind == "char":
            self.advance()
            return Literal(CHAR, tok.value)  # type: ignore[arg-type]
        if tok.kind == "str":
            data = b""
            while self.tok.kind == "str":
                data += self.advance().value  # type: ignore[operator]
            return Literal(array_of(CHAR, len(data) + 1), data + b"\0")
        if tok.kind == "qname":
            self.advance()
            return Ident(tok.text)
        if tok.kind == "dollar":
            node = _dollar(tok.text)
            if node is None:
                raise self.syntax_error()
            self.advance()
            return node
        if tok.kind == "ident":
            return self.name()
        if self.accept("("):
            node = self.expr()
            self.expect(")")
            return node
        raise self.syntax_error()

    def name(self) -> Node:
        name = self.advance().text
        if name == "cfg" and self.is_op(".") and self.peek(1).kind == "ident":
            self.advance()
            return CfgRef(self.advance().text)
        if name in _TENSIX and self.is_op("["):
            indices: list[Node] = []
            while len(indices) < _TENSIX[name] and self.accept("["):
                indices.append(self.expr())
                self.expect("]")
            if len(indices) < _TENSIX[name] - 1:
                raise ExprError(f"Usage: {name}[BANK][ROW][COL] or {name}[BANK][ROW].")
            return TensixRef(name, tuple(indices))
        if name in _TYPE_WORDS or self.typedef(name) is not None:
            raise ExprError("Attempt to use a type name as an expression")
        return Ident(name)

    # types
    def typedef(self, name: str) -> CType | None:
        if name in _TYPEDEFS:
            return BUILTIN_TYPES[name]
        return self.lookup_type(name) if self.lookup_type else None

    def starts_type(self, k: int) -> bool:
        tok = self.peek(k)
        return tok.kind == "ident" and (tok.text in _TYPE_WORDS or self.typedef(tok.text) is not None)

    def type_name(self) -> CType:
        base = self.specifiers()
        return self.declarator()(base)

    def specifiers(self) -> CType:
        words: list[str] = []
        named: CType | None = None
        while self.tok.kind == "ident":
            word = self.tok.text
            if word in ("const", "volatile"):
                self.advance()
            elif word in ("struct", "union", "enum") and named is None and not words:
                self.advance()
                if self.tok.kind != "ident":
                    raise self.syntax_error()
                tag = self.advance().text
                named = self.lookup_type(f"{word} {tag}") if self.lookup_type else None
                if named is None:
                    raise ExprError(f"No {word} type named {tag}.")
            elif word in _BASE_WORDS and named is None:
                words.append(self.advance().text)
            elif not words and named is None and (named := self.typedef(word)) is not None:
                self.advance()
            else:
                break
        if named is not None:
            return named
        ctype = _base_type(words)
        if ctype is None:
            raise self.syntax_error()
        return ctype

    def declarator(self) -> Callable[[CType], CType]:
        """An abstract declarator (``*``, ``(*)[4]``, ``(*)(void)``) as a function of its base."""
        if self.accept("*"):
            while self.tok.kind == "ident" and self.tok.text in ("const", "volatile"):
                self.advance()
            inner = self.declarator()
            return lambda t: inner(pointer_to(t))
        if self.is_op("(") and self.peek(1).kind == "op" and self.peek(1).text in ("*", "(", "["):
            self.advance()
            inner = self.declarator()
            self.expect(")")
            outer = self.suffixes()
            return lambda t: inner(outer(t))
        return self.suffixes()

    def suffixes(self) -> Callable[[CType], CType]:
        steps: list[Callable[[CType], CType]] = []
        while True:
            if self.accept("["):
                tok = self.advance()
                if tok.kind != "num" or not isinstance(tok.value[1], int):  # type: ignore[index]
                    raise self.syntax_error()
                self.expect("]")
                steps.append(lambda t, n=tok.value[1]: array_of(t, n))  # type: ignore[index,misc]
            elif self.accept("("):
                params: tuple[CType, ...] | None = None
                if self.tok.kind == "ident" and self.tok.text == "void" and self.is_op(")", 1):
                    self.advance()
                    params = ()
                elif not self.is_op(")"):
                    params = (self.type_name(),)
                    while self.accept(","):
                        params += (self.type_name(),)
                self.expect(")")
                steps.append(lambda t, p=params: function_type(t, p))
            else:
                break

        def apply(t: CType) -> CType:
            for step in reversed(steps):
                t = step(t)
            return t
        return apply


def _base_type(words: list[str]) -> CType | None:
    """The builtin type named by a list of specifier keywords, or None if they do not make one."""
    sign = [w for w in words if w in ("signed", "unsigned")]
    longs = words.count("long")
    rest = sorted(w for w in words if w not in ("signed", "unsigned", "long"))
    if len(sign) > 1 or len(set(rest)) != len(rest) or longs > 2:
        return None
    if rest == ["char"] and not longs:
        return BUILTIN_TYPES[" ".join([*sign, "char"])]
    if rest in (["short"], ["int", "short"]) and not longs:
        return SHORT if sign != ["unsigned"] else USHORT
    if rest in ([], ["int"]) and (sign or rest or longs):
        name = ("long long", "long", "int")[2 - longs] if longs else "int"
        return BUILTIN_TYPES[f"unsigned {name}" if sign == ["unsigned"] else name]
    if len(rest) == 1 and rest[0] in ("float", "double", "void", "_Bool", "bool") and not (sign or longs):
        return BUILTIN_TYPES[rest[0]]
    return None


def _dollar(text: str) -> Node | None:
    """``$``, ``$$``, ``$N``, ``$$N``, ``$REG`` or ``$NAME``; None if ``text`` is none of them."""
    body = text[1:]
    if body in ("", "$"):
        return History(-len(body))
    if body.startswith("$") and body[1:].isdigit():
        return History(-int(body[1:]))
    if body.isdigit():
        return History(int(body))
    if not _IDENT.fullmatch(body):
        return None
    return Register(REGISTERS[body]) if body in REGISTERS else Dollar(body)


def parse(text: str, lookup_type: TypeLookup | None = None) -> Node:
    """Parse an expression.  ``lookup_type`` resolves type names beyond the builtin ones
    (needed to tell a cast ``(pt_t)x`` from a parenthesized name)."""
    parser = _Parser(text, lookup_type)
    try:
        node = parser.expr()
    except RecursionError:
        raise ExprError("Expression too deeply nested.") from None
    parser.finish()
    return node


def parse_type(text: str, lookup_type: TypeLookup | None = None) -> CType:
    """Parse a type name: ``uint32_t``, ``unsigned int``, ``int *``, ``uint32_t (*)[4]``."""
    parser = _Parser(text, lookup_type)
    if parser.tok.kind == "ident" and not parser.starts_type(0):
        raise ExprError(f'No symbol "{parser.tok.text}" in current context.')
    ctype = parser.type_name()
    parser.finish()
    return ctype


# -- arithmetic helpers --------------------------------------------------------------------------


def _wrap(value: int, t: CType) -> int:
    """An integer reduced to type ``t`` (two's complement wrap-around)."""
    bits = 8 * t.size
    value &= (1 << bits) - 1
    if t.signed and t.kind is Kind.INT and value >> (bits - 1):
        value -= 1 << bits
    return value


def _round_float(x: float, size: int) -> float:
    if size != 4:
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _float_to_int(x: float) -> int:
    """C's float-to-integer conversion; out of range gives what the host (x86) gives."""
    if math.isfinite(x) and abs(x) < 2.0 ** 63:
        return int(x)
    return -(1 << 63)


def _float_bits(x: float, size: int) -> int:
    return int.from_bytes(struct.pack("<f" if size == 4 else "<d", x), "little")


_DEFAULT_NAN = struct.unpack("<d", bytes.fromhex("000000000000f8ff"))[0]  # x86's 0.0/0.0


def decode(data: bytes, t: CType) -> int | float | bytes:
    """The ``Value.raw`` of an object of type ``t`` from its little-endian bytes."""
    if t.kind in (Kind.INT, Kind.BOOL, Kind.POINTER):
        return int.from_bytes(data, "little", signed=t.signed and t.kind is Kind.INT)
    if t.kind is Kind.FLOAT:
        return struct.unpack("<f" if t.size == 4 else "<d", data)[0]
    return bytes(data)


def _encode(raw: int | float | bytes, t: CType) -> bytes:
    if isinstance(raw, bytes):
        return raw
    if t.kind is Kind.FLOAT:
        return struct.pack("<f" if t.size == 4 else "<d", raw)
    return (int(raw) & ((1 << (8 * t.size)) - 1)).to_bytes(t.size, "little")


def _member_raw(struct_raw: bytes, f: CField) -> int | float | bytes:
    return decode(struct_raw[f.offset:f.offset + f.ctype.size], f.ctype)


def _is_number(t: CType) -> bool:
    return t.kind in (Kind.INT, Kind.BOOL, Kind.FLOAT)


def _promote1(t: CType) -> CType:
    """Integer promotion (unary operators, shift operands)."""
    return INT if t.kind is not Kind.FLOAT and t.size < 4 else t


def _promote(a: CType, b: CType) -> CType:
    """GDB's ``binop_promote`` for C on RV32."""
    floats = [t for t in (a, b) if t.kind is Kind.FLOAT]
    if floats:
        return max(floats, key=lambda t: t.size)
    (la, ua), (lb, ub) = ((4, False) if t.size < 4 else (t.size, not t.signed) for t in (a, b))
    size, unsigned = (la, ua) if la > lb else (lb, ub) if lb > la else (la, ua or ub)
    if size <= 4:
        return UINT if unsigned else INT
    return ULLONG if unsigned else LLONG


def _is_char(t: CType | None) -> bool:
    return t is not None and t.kind is Kind.INT and t.size == 1


def value_as_address(value: Value) -> int:
    """The address a value designates, as GDB's ``x`` takes it: an array's or function's own
    address, a pointer's or integer's value."""
    t = value.ctype
    if t.kind is Kind.ARRAY:
        if value.address is None:
            raise ExprError("Attempt to take address of value not located in memory.")
        return value.address
    if t.kind in (Kind.FUNC, Kind.POINTER, Kind.INT, Kind.BOOL) and isinstance(value.raw, int):
        return value.raw & _MASK32
    raise ExprError("Invalid cast.")


_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge}
_INT_ONLY = {"%", "&", "|", "^", "<<", ">>"}
_NOT_NUMBER = "Argument to arithmetic operation not a number or boolean."


# -- evaluator -----------------------------------------------------------------------------------


class _Evaluator:
    def __init__(self, ctx: EvalContext, side_effects: bool) -> None:
        self.ctx = ctx
        self.side_effects = side_effects

    # memory
    def read(self, address: int, size: int) -> bytes:
        if size > MAX_VALUE_SIZE:
            raise ExprError(f"value requires {size} bytes, which is more than max-value-size")
        if not self.side_effects:
            return bytes(size)
        return _read_memory(self.ctx, address, size)

    def at(self, t: CType, address: int) -> Value:
        """The object of type ``t`` at ``address`` (not read until needed)."""
        address &= _MASK32
        if t.kind is Kind.STRUCT and not t.fields and t.name:
            t = self.ctx.lookup_type(t.name) or t
        if t.kind is Kind.FUNC:
            return Value(t, address, address)
        return Value(t, b"" if t.kind is Kind.UNKNOWN else None, address, Lval.MEMORY)

    def fetch(self, v: Value) -> Value:
        if v.raw is not None:
            return v
        assert v.address is not None
        return replace(v, raw=decode(self.read(v.address, v.ctype.size), v.ctype))

    def decay(self, v: Value) -> Value:
        """Arrays to pointers to their first element, functions to function pointers, then read."""
        if v.ctype.kind is Kind.ARRAY:
            return Value(pointer_to(v.ctype.target), value_as_address(v))  # type: ignore[arg-type]
        if v.ctype.kind is Kind.FUNC:
            return Value(pointer_to(v.ctype), v.raw)
        return self.fetch(v)

    def rvalue(self, node: Node) -> Value:
        return self.decay(self.eval(node))

    def integer(self, node: Node) -> int:
        v = self.rvalue(node)
        if v.ctype.kind not in (Kind.INT, Kind.BOOL):
            raise ExprError(_NOT_NUMBER)
        return v.raw  # type: ignore[return-value]

    def truth(self, v: Value) -> bool:
        if v.ctype.kind not in (Kind.INT, Kind.BOOL, Kind.FLOAT, Kind.POINTER):
            raise ExprError(_NOT_NUMBER)
        return bool(v.raw)

    # nodes
    def eval(self, node: Node) -> Value:
        match node:
            case Literal(ctype, raw):
                return Value(ctype, raw)
            case Ident(name):
                return self.ident(name, allow_unknown=False)
            case Register(name):
                return self.register(name, _REGISTER_TYPES.get(name, LONG))
            case Dollar(name):
                return self.dollar(name)
            case History(num):
                return self.history(num)
            case TensixRef():
                return self.tensix(node)
            case CfgRef(name):
                return Value(UINT32, self.tensix_call(self.ctx.cfg, name), lval=Lval.CFG, location=(name,))
            case Unary(op, operand):
                return self.unary(op, operand)
            case IncDec(op, operand, prefix):
                target = self.eval(operand)
                old = self.decay(target)
                new = self.assign(target, self.binary(op[0], old, Value(INT, 1)))
                return new if prefix else replace(old, address=None, lval=None, location=())
            case Binary(",", left, right):
                self.eval(left)
                return self.eval(right)
            case Binary("&&" | "||" as op, left, right):
                first = self.truth(self.rvalue(left))
                if first == (op == "||"):
                    return Value(INT, int(first))
                return Value(INT, int(self.truth(self.rvalue(right))))
            case Binary("@", left, right):
                return self.artificial_array(self.eval(left), self.integer(right))
            case Binary(op, left, right):
                return self.binary(op, self.rvalue(left), self.rvalue(right))
            case Cond(cond, then, other):
                return self.eval(then if self.truth(self.rvalue(cond)) else other)
            case Assign(op, target_node, value_node):
                target = self.eval(target_node)
                value = self.eval(value_node)
                if op:
                    value = self.binary(op, self.decay(target), self.decay(value))
                return self.assign(target, value)
            case Cast(ctype, operand):
                v = self.operand(operand)
                if v.ctype.kind is Kind.UNKNOWN:  # GDB: a cast gives a no-debug-info variable a type
                    return self.at(ctype, v.address)  # type: ignore[arg-type]
                return self.convert(v, ctype)
            case MemAt(ctype, address):
                return self.at(ctype, self.address(self.eval(address)))
            case Sizeof(operand):
                t = operand if isinstance(operand, CType) else _Evaluator(self.ctx, False).eval(operand).ctype
                return Value(INT, t.size or 1)
            case Index(base, index):
                return self.index(self.eval(base), self.integer(index))
            case Member(base, name, arrow):
                return self.member(self.eval(base), name, arrow)
        raise AssertionError(node)

    def operand(self, node: Node) -> Value:
        """The operand of ``&`` or a cast, where a symbol without debug info is allowed."""
        if isinstance(node, Ident):
            return self.ident(node.name, allow_unknown=True)
        return self.eval(node)

    def ident(self, name: str, allow_unknown: bool) -> Value:
        try:
            sym = self.ctx.symbol(name)
        except KeyError:
            raise ExprError(f'No symbol "{name}" in current context.') from None
        if sym.is_function:
            return self.at(sym.ctype or NODEBUG_FUNC, sym.address)
        if sym.register is not None and sym.ctype is not None:
            return self.register(sym.register, sym.ctype)
        if sym.ctype is None:
            if not allow_unknown:
                raise ExprError(f"'{name}' has unknown type; cast it to its declared type")
            return self.at(NODEBUG_DATA, sym.address)
        return self.at(sym.ctype, sym.address)

    def register(self, name: str, t: CType) -> Value:
        """A register's contents as type ``t`` (its low ``t.size`` bytes)."""
        try:
            raw = self.ctx.register(name)
        except KeyError:
            raise ExprError(f"Invalid register `{name}'") from None
        data = (raw & _MASK32).to_bytes(4, "little")[:t.size].ljust(t.size, b"\0")
        return Value(t, decode(data, t), lval=Lval.REGISTER, location=(name,))

    def dollar(self, name: str) -> Value:
        try:
            return self.register(name, LONG)
        except ExprError:
            v = self.ctx.convenience(name) or Value(VOID, 0)
            return replace(v, address=None, lval=Lval.CONVENIENCE, location=(name,))

    def history(self, num: int) -> Value:
        values = self.ctx.history()
        absolute = num + len(values) if num <= 0 else num
        if absolute <= 0:
            raise ExprError("The history is empty." if num == 0 else f"History does not go back to $${-num}.")
        if absolute > len(values):
            raise ExprError(f"History has not yet reached ${absolute}.")
        return replace(values[absolute - 1], address=None, lval=None, location=())

    def tensix_call(self, fn: Callable[..., int | None], *args: int | str) -> int:
        try:
            return fn(*args) or 0
        except KeyError:
            raise ExprError(f'No config field "{args[0]}".') from None
        except (IndexError, ValueError) as e:
            raise ExprError(str(e)) from None

    def tensix(self, node: TensixRef) -> Value:
        indices = [self.integer(i) for i in node.indices]
        name = node.array
        if name in ("srca", "srcb"):
            elem, lval = UINT32, Lval.SRC
            get: Callable[..., int] = lambda *rc: self.tensix_call(self.ctx.src, name, *rc)
            where: tuple[str | int, ...] = (name,)
        else:
            elem, lval = (UINT16, Lval.DST16) if name == "dst" else (UINT32, Lval.DST32)
            get = lambda *rc: self.tensix_call(self.ctx.dst16 if name == "dst" else self.ctx.dst32, *rc)
            where = ()
        if not node.is_row:
            return Value(elem, get(*indices), lval=lval, location=(*where, *indices))
        row = b"".join(_encode(get(*indices, c), elem) for c in range(ROW_WIDTH))
        return Value(array_of(elem, ROW_WIDTH), row)

    def unary(self, op: str, operand: Node) -> Value:
        if op == "*":
            return self.deref(self.eval(operand))
        if op == "&":
            v = self.operand(operand)
            if v.lval is Lval.REGISTER and isinstance(operand, Ident):
                raise ExprError(f'Address requested for identifier "{operand.name}" which is in register '
                                f"${v.location[0]}")
            return self.address_of(v)
        v = self.rvalue(operand)
        if op == "!":
            return Value(INT, int(not self.truth(v)))
        t = _promote1(v.ctype)
        if op == "~":
            if v.ctype.kind not in (Kind.INT, Kind.BOOL):
                raise ExprError("Argument to complement operation not an integer, boolean.")
            return Value(t, _wrap(~v.raw, t))  # type: ignore[operator]
        if not _is_number(v.ctype):
            raise ExprError(f"Argument to {'negate' if op == '-' else 'positive'} operation not a number.")
        if op == "+":
            return Value(t, v.raw)
        if t.kind is Kind.FLOAT:
            return Value(t, _round_float(0.0 - v.raw, t.size))  # type: ignore[operator]
        return Value(t, _wrap(-v.raw, t))  # type: ignore[operator]

    def deref(self, v: Value) -> Value:
        t = v.ctype
        if t.kind is Kind.ARRAY:
            return self.index(v, 0)
        if t.kind is Kind.FUNC:
            return v
        v = self.fetch(v)
        if t.kind is Kind.POINTER and t.target is not None and t.target.kind is not Kind.VOID:
            return self.at(t.target, v.raw)  # type: ignore[arg-type]
        if t.kind in (Kind.INT, Kind.BOOL):  # GDB reads a long at an integer address
            return self.at(LONG, v.raw)  # type: ignore[arg-type]
        raise ExprError("Attempt to take contents of a non-pointer value.")

    def address_of(self, v: Value) -> Value:
        if v.ctype.kind is Kind.FUNC:
            return Value(pointer_to(v.ctype), v.raw)
        if v.lval is not Lval.MEMORY:
            raise ExprError("Attempt to take address of value not located in memory.")
        return Value(pointer_to(v.ctype), v.address)

    def address(self, v: Value) -> int:
        return value_as_address(v if v.ctype.kind in (Kind.ARRAY, Kind.FUNC) else self.fetch(v))

    def index(self, base: Value, i: int) -> Value:
        t = base.ctype
        elem = t.target
        if t.kind is Kind.ARRAY and elem is not None:
            if base.address is not None:
                return self.at(elem, base.address + i * elem.size)
            if not 0 <= i < t.count:
                raise ExprError("no such vector element")
            data = self.fetch(base).raw[i * elem.size:(i + 1) * elem.size]  # type: ignore[index]
            return Value(elem, decode(data, elem))  # type: ignore[arg-type]
        if t.kind is Kind.POINTER:
            return self.deref(self.binary("+", self.fetch(base), Value(INT, i)))
        raise ExprError(f"cannot subscript something of type `{type_name(t)}'")

    def member(self, base: Value, name: str, arrow: bool) -> Value:
        if arrow and base.ctype.kind is not Kind.STRUCT:
            p = self.decay(base)
            if p.ctype.kind is not Kind.POINTER or p.ctype.target.kind is not Kind.STRUCT:  # type: ignore[union-attr]
                raise ExprError("Attempt to extract a component of a value that is not a structure pointer.")
            base = self.at(p.ctype.target, p.raw)  # type: ignore[arg-type]
        if base.ctype.kind is not Kind.STRUCT:
            raise ExprError("Attempt to extract a component of a value that is not a structure.")
        field = next((f for f in base.ctype.fields if f.name == name), None)
        if field is None:
            raise ExprError(f"There is no member named {name}.")
        if base.address is not None:
            return self.at(field.ctype, base.address + field.offset)
        return Value(field.ctype, _member_raw(self.fetch(base).raw, field))  # type: ignore[arg-type]

    def artificial_array(self, first: Value, count: int) -> Value:
        if first.lval is not Lval.MEMORY:
            raise ExprError("Only values in memory can be extended with '@'.")
        if count <= 0:
            raise ExprError(f"Invalid number {count} of repetitions.")
        return Value(array_of(first.ctype, count), None, first.address, Lval.MEMORY)

    # arithmetic
    def binary(self, op: str, a: Value, b: Value) -> Value:
        if Kind.POINTER in (a.ctype.kind, b.ctype.kind):
            return self.pointer_binary(op, a, b)
        if not (_is_number(a.ctype) and _is_number(b.ctype)):
            raise ExprError(_NOT_NUMBER)
        if op in ("<<", ">>"):
            t = _promote1(a.ctype)
            if Kind.FLOAT in (t.kind, b.ctype.kind):
                raise ExprError("Integer-only operation on floating point number.")
            x, n = _wrap(a.raw, t), b.raw  # type: ignore[arg-type]
            if not 0 <= n < 8 * t.size:  # type: ignore[operator]
                return Value(t, 0)
            return Value(t, _wrap(x << n if op == "<<" else x >> n, t))  # type: ignore[operator]
        t = _promote(a.ctype, b.ctype)
        if t.kind is Kind.FLOAT:
            x, y = (_round_float(float(v.raw), t.size) for v in (a, b))  # type: ignore[arg-type]
        else:
            x, y = _wrap(a.raw, t), _wrap(b.raw, t)  # type: ignore[arg-type]
        if op in _COMPARE:
            return Value(INT, int(_COMPARE[op](x, y)))
        if t.kind is Kind.FLOAT:
            if op in _INT_ONLY:
                raise ExprError("Integer-only operation on floating point number.")
            return Value(t, _round_float(_float_op(op, x, y), t.size))
        return Value(t, _wrap(self.int_op(op, x, y), t))  # type: ignore[arg-type]

    def int_op(self, op: str, x: int, y: int) -> int:
        if op in ("/", "%"):
            if y == 0:
                if self.side_effects:
                    raise ExprError("Division by zero")
                return 0
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            return q if op == "/" else x - q * y
        return {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_,
                "|": operator.or_, "^": operator.xor}[op](x, y)

    def pointer_binary(self, op: str, a: Value, b: Value) -> Value:
        pointerish = (Kind.POINTER, Kind.INT, Kind.BOOL)
        if op in _COMPARE and a.ctype.kind in pointerish and b.ctype.kind in pointerish:
            return Value(INT, int(_COMPARE[op](a.raw & _MASK32, b.raw & _MASK32)))  # type: ignore[operator]
        if op == "-" and a.ctype.kind is b.ctype.kind is Kind.POINTER:
            stride = self.stride(a.ctype)
            if stride != self.stride(b.ctype):
                raise ExprError("First argument of `-' is a pointer and second argument is neither "
                                "an integer nor a pointer of the same type.")
            return Value(LONG, _wrap(self.int_op("/", a.raw - b.raw, stride), LONG))  # type: ignore[operator]
        pointer, other = (a, b) if a.ctype.kind is Kind.POINTER else (b, a)
        if op not in ("+", "-") or (op == "-" and pointer is b) or other.ctype.kind not in (Kind.INT, Kind.BOOL):
            raise ExprError(_NOT_NUMBER)
        delta = other.raw * self.stride(pointer.ctype) * (1 if op == "+" else -1)  # type: ignore[operator]
        return Value(pointer.ctype, (pointer.raw + delta) & _MASK32)  # type: ignore[operator]

    def stride(self, t: CType) -> int:
        target = t.target
        assert target is not None
        if target.kind is Kind.UNKNOWN:
            raise ExprError(f'Cannot perform pointer math on incomplete type "{target.name}", '
                            "try casting to a known type, or void *.")
        return target.size or 1

    def convert(self, v: Value, t: CType) -> Value:
        """C's conversion of ``v`` to type ``t`` (a cast, or the right side of an assignment)."""
        if t.kind in (Kind.ARRAY, Kind.STRUCT) and v.ctype == t:
            return Value(t, self.fetch(v).raw)
        if t.kind is Kind.VOID:
            return Value(VOID, 0)
        v = self.decay(v)
        if t.kind not in (Kind.INT, Kind.BOOL, Kind.FLOAT, Kind.POINTER) or v.ctype.kind not in (
                Kind.INT, Kind.BOOL, Kind.FLOAT, Kind.POINTER):
            raise ExprError("Invalid cast.")
        x = v.raw
        if t.kind is Kind.FLOAT:
            return Value(t, _round_float(float(x), t.size))  # type: ignore[arg-type]
        if t.kind is Kind.BOOL:
            return Value(t, int(bool(x)))
        if isinstance(x, float):
            if t.kind is Kind.POINTER:
                raise ExprError("Invalid cast.")
            x = _float_to_int(x)
        return Value(t, _wrap(x, t))  # type: ignore[arg-type]

    def assign(self, target: Value, value: Value) -> Value:
        kind, loc = target.lval, target.location
        if kind is None:
            raise ExprError("Left operand of assignment is not an lvalue.")
        if kind is Lval.CONVENIENCE:
            stored = replace(self.fetch(value), address=None, lval=None, location=())
            if self.side_effects:
                self.ctx.set_convenience(str(loc[0]), stored)
            return replace(stored, lval=kind, location=loc)
        new = self.convert(value, target.ctype)
        if self.side_effects:
            raw = new.raw
            if kind is Lval.MEMORY:
                _write_memory(self.ctx, target.address, _encode(raw, new.ctype))  # type: ignore[arg-type]
            elif kind is Lval.REGISTER:
                word = _encode(raw, new.ctype)[:4]  # type: ignore[arg-type]
                self.ctx.set_register(str(loc[0]), int.from_bytes(word, "little"))
            elif kind is Lval.DST16:
                self.tensix_call(self.ctx.set_dst16, *loc, raw)  # type: ignore[arg-type]
            elif kind is Lval.DST32:
                self.tensix_call(self.ctx.set_dst32, *loc, raw)  # type: ignore[arg-type]
            elif kind is Lval.SRC:
                self.tensix_call(self.ctx.set_src, *loc, raw)  # type: ignore[arg-type]
            else:
                self.tensix_call(self.ctx.set_cfg, *loc, raw)  # type: ignore[arg-type]
        return replace(new, address=target.address, lval=kind, location=loc)


def _float_op(op: str, x: float, y: float) -> float:
    if op == "/":
        if y == 0:
            if x == 0 or math.isnan(x):
                return _DEFAULT_NAN
            return math.copysign(math.inf, x) * math.copysign(1.0, y)
        return x / y
    return {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](x, y)


def _read_memory(ctx: EvalContext, address: int, size: int) -> bytes:
    try:
        return bytes(ctx.read_memory(address, size))
    except ExprError:
        raise
    except Exception:  # the context's own error type: any failure means no access
        raise ExprError(f"Cannot access memory at address {address:#x}") from None


def _write_memory(ctx: EvalContext, address: int, data: bytes) -> None:
    try:
        ctx.write_memory(address, data)
    except ExprError:
        raise
    except Exception:
        raise ExprError(f"Cannot access memory at address {address:#x}") from None


def evaluate(expr: str | Node, ctx: EvalContext, *, side_effects: bool = True) -> Value:
    """Evaluate an expression (text or a parsed node).  With ``side_effects=False`` nothing is
    written and memory reads as zeros: only the type of the result is meaningful (``whatis``)."""
    node = parse(expr, ctx.lookup_type) if isinstance(expr, str) else expr
    evaluator = _Evaluator(ctx, side_effects)
    try:
        return evaluator.fetch(evaluator.eval(node))
    except RecursionError:
        raise ExprError("Expression too deeply nested.") from None


# -- formatting ----------------------------------------------------------------------------------

PRINT_FORMATS = "xduotacfsz"
_NAMED_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r"}


def _char_text(c: int, quote: str) -> str:
    """One byte inside a C character or string literal, escaped as GDB does."""
    ch = chr(c)
    if ch in (quote, "\\"):
        return "\\" + ch
    if 0x20 <= c < 0x7F:
        return ch
    return "\\" + _NAMED_ESCAPES[c] if c in _NAMED_ESCAPES else f"\\{c:03o}"


def _char_literal(c: int) -> str:
    return "'" + _char_text(c, "'") + "'"


def _string_text(data: bytes, force_ellipses: bool = False) -> str:
    """Bytes as GDB prints a char array: quoted runs, ``'c' <repeats N times>``, ``...``."""
    length = len(data)
    if not force_ellipses and length and data[-1] == 0:
        length -= 1
    if not length:
        return '""'
    groups: list[tuple[int, int]] = []
    i = printed = 0
    while i < length and printed < _PRINT_ELEMENTS:
        j = i + 1
        while j < length and data[j] == data[i]:
            j += 1
        groups.append((data[i], j - i))
        printed += j - i
        i = j
    parts: list[str] = []
    run: str | None = None
    for c, reps in groups:
        if reps > _REPEATS:
            if run is not None:
                parts.append(f'"{run}"')
                run = None
            parts.append(f"{_char_literal(c)} <repeats {reps} times>")
        else:
            run = (run or "") + _char_text(c, '"') * reps
    if run is not None:
        parts.append(f'"{run}"')
    return ", ".join(parts) + ("..." if force_ellipses or i < length else "")


def _float_text(x: float, size: int) -> str:
    """GDB's ``%g`` with 9 (float) or 17 (double) significant digits; NaNs show their mantissa."""
    if math.isnan(x):
        bits = _float_bits(x, size)
        mantissa = bits & ((1 << (23 if size == 4 else 52)) - 1)
        return f"{'-' if bits >> (8 * size - 1) else ''}nan({mantissa:#x})"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return format(x, ".9g" if size == 4 else ".17g")


class _Formatter:
    def __init__(self, ctx: EvalContext, fmt: str | None) -> None:
        self.ctx = ctx
        self.fmt = None if fmt == "s" else fmt

    def symbolic(self, address: int) -> str:
        name = self.ctx.symbolize(address)
        return f"{address:#x} <{name}>" if name else f"{address:#x}"

    def top(self, v: Value) -> str:
        t = v.ctype
        if t.kind is Kind.POINTER and self.fmt is None and not _is_char(t.target):
            return f"({type_name(t)}) {self.symbolic(v.raw)}"  # type: ignore[arg-type]
        return self.value(t, v.raw)  # type: ignore[arg-type]

    def value(self, t: CType, raw: int | float | bytes) -> str:
        if t.kind is Kind.ARRAY:
            return self.array(t, raw)  # type: ignore[arg-type]
        if t.kind is Kind.STRUCT:
            if not t.fields:
                return "<incomplete type>"
            members = (f"{f.name} = {self.value(f.ctype, _member_raw(raw, f))}" for f in t.fields)  # type: ignore[arg-type]
            return "{" + ", ".join(members) + "}"
        if t.kind in (Kind.VOID, Kind.UNKNOWN):
            return t.name
        if t.kind is Kind.FUNC:
            if self.fmt is None:
                return f"{{{type_name(t)}}} {self.symbolic(raw)}"  # type: ignore[arg-type]
            return self.scalar(UINT32, raw)
        return self.scalar(t, raw)

    def array(self, t: CType, raw: bytes) -> str:
        elem = t.target
        assert elem is not None
        if self.fmt is None and _is_char(elem):
            return _string_text(raw)
        size, items = elem.size, []
        i = printed = 0
        while i < t.count and printed < _PRINT_ELEMENTS:
            chunk = raw[i * size:(i + 1) * size]
            j = i + 1
            while j < t.count and raw[j * size:(j + 1) * size] == chunk:
                j += 1
            text = self.value(elem, decode(chunk, elem))
            if j - i > _REPEATS:
                items.append(f"{text} <repeats {j - i} times>")
                i, printed = j, printed + _REPEATS
            else:
                items.append(text)
                i, printed = i + 1, printed + 1
        return "{" + ", ".join(items) + ("..." if i < t.count else "") + "}"

    def char_pointer(self, address: int) -> str:
        if address == 0:
            return "0x0"
        text = self.symbolic(address)
        data = bytearray()
        error = ""
        while len(data) < _PRINT_ELEMENTS:
            try:
                c = _read_memory(self.ctx, address + len(data), 1)[0]
            except ExprError as e:
                error = f"<error: {e}>"
                break
            if c == 0:
                break
            data.append(c)
        if error and not data:
            return f"{text} {error}"
        return f"{text} {_string_text(bytes(data), len(data) == _PRINT_ELEMENTS)}{error}"

    def scalar(self, t: CType, raw: int | float) -> str:
        fmt = self.fmt
        if fmt is None:
            if t.kind is Kind.FLOAT:
                return _float_text(raw, t.size)  # type: ignore[arg-type]
            if t.kind is Kind.POINTER:
                return self.char_pointer(raw) if _is_char(t.target) else self.symbolic(raw)  # type: ignore[arg-type]
            if t.kind is Kind.BOOL and raw in (0, 1):
                return ("false", "true")[raw]  # type: ignore[index]
            if _is_char(t):
                return f"{raw} {_char_literal(raw & 0xFF)}"  # type: ignore[operator]
            return str(raw)
        if fmt in ("c", "a"):
            n = _float_to_int(raw) if isinstance(raw, float) else raw
            if fmt == "a":
                return self.symbolic(n & _MASK32)
            c = n & 0xFF
            return f"{c - 256 if t.signed and c > 127 else c} {_char_literal(c)}"
        bits = _float_bits(raw, t.size) if isinstance(raw, float) else raw & ((1 << (8 * t.size)) - 1)
        if fmt == "f":
            if t.kind is Kind.FLOAT:
                return _float_text(raw, t.size)  # type: ignore[arg-type]
            if t.size in (4, 8):  # the bits read as the float of that size
                as_float = FLOAT if t.size == 4 else DOUBLE
                return _float_text(decode(bits.to_bytes(t.size, "little"), as_float), t.size)  # type: ignore[arg-type]
            return str(_wrap(bits, t) if t.kind is Kind.INT else bits)
        if fmt == "x":
            return f"{bits:#x}"
        if fmt == "z":
            return f"0x{bits:0{2 * t.size}x}"
        if fmt == "o":
            return f"0{bits:o}" if bits else "0"
        if fmt == "t":
            return f"{bits:b}"
        if fmt == "d":
            return str(bits - (1 << 8 * t.size) if bits >> (8 * t.size - 1) else bits)
        return str(bits)  # "u"


def format_value(value: Value, fmt: str | None, ctx: EvalContext, *, typed: bool = True) -> str:
    """A value as GDB's ``print`` shows it (without the ``$N = ``), in format letter ``fmt``
    (one of ``x d u o t a c f s z``) or the natural format for its type.  ``typed=False``
    leaves out the ``(type *)`` before a pointer, as ``info locals`` and frame lines do."""
    if fmt is not None and fmt not in PRINT_FORMATS:
        raise ExprError(f'Format letter "{fmt}" is meaningless in "print" command.' if fmt == "i"
                        else f'Undefined output format "{fmt}".')
    formatter = _Formatter(ctx, fmt)
    return formatter.top(value) if typed else formatter.value(value.ctype, value.raw)  # type: ignore[arg-type]
