"""The parse tree and the recursive-descent parser of expressions and type names (the grammar
is in the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tdbg.expr.ctype import (
    BUILTIN_TYPES, CHAR, SHORT, TYPEDEFS, USHORT, CType, array_of, function_type, pointer_to,
)
from tdbg.expr.lexer import IDENT, Token, lex
from tdbg.expr.values import REGISTERS, TENSIX_INDICES, ExprError


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
        return len(self.indices) < TENSIX_INDICES[self.array]


@dataclass(frozen=True)
class CfgRef(Node):
    name: str


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
        self.tokens = lex(text)
        self.i = 0
        self.lookup_type = lookup_type

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, k: int) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
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
        if name in TENSIX_INDICES and self.is_op("["):
            indices: list[Node] = []
            while len(indices) < TENSIX_INDICES[name] and self.accept("["):
                indices.append(self.expr())
                self.expect("]")
            if len(indices) < TENSIX_INDICES[name] - 1:
                raise ExprError(f"Usage: {name}[BANK][ROW][COL] or {name}[BANK][ROW].")
            return TensixRef(name, tuple(indices))
        if name in _TYPE_WORDS or self.typedef(name) is not None:
            raise ExprError("Attempt to use a type name as an expression")
        return Ident(name)

    # types
    def typedef(self, name: str) -> CType | None:
        if name in TYPEDEFS:
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
    if not IDENT.fullmatch(body):
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
