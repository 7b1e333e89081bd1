"""The evaluator: C semantics over a parse tree, reading and writing through an
``EvalContext``.  Integer arithmetic follows GDB (and C): promotion to ``int``, the usual
arithmetic conversions, wrap-around in the result type."""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable
from dataclasses import fields, replace

from tdbg.expr.ctype import (
    INT, LONG, NODEBUG_DATA, NODEBUG_FUNC, UINT32, VOID, CField, CType, Kind, array_of, decode,
    encode, float_to_int, is_number, member_raw, pointer_to, promote, promote1, round_float,
    type_name, wrap,
)
from tdbg.expr.parser import (
    Assign, Binary, Cast, CfgRef, Cond, Dollar, History, Ident, IncDec, Index, Literal, MemAt,
    Member, Node, Register, Sizeof, TensixRef, Unary, parse,
)
from tdbg.expr.values import (
    MASK32, MAX_VALUE_SIZE, REGISTER_TYPES, ROW_WIDTH, TENSIX_ROW_WIDTH, EvalContext, ExprError, Lval, Value,
    unavailable_within, value_as_address,
)


_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge}
_INT_ONLY = {"%", "&", "|", "^", "<<", ">>"}
_NOT_NUMBER = "Argument to arithmetic operation not a number or boolean."


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
        return read_memory(self.ctx, address, size)

    def at(self, t: CType, address: int) -> Value:
        """The object of type ``t`` at ``address`` (not read until needed)."""
        address &= MASK32
        if t.kind is Kind.STRUCT and not t.fields and t.name:
            t = self.ctx.lookup_type(t.name) or t
        if t.kind is Kind.FUNC:
            return Value(t, address, address)
        return Value(t, b"" if t.kind is Kind.UNKNOWN else None, address, Lval.MEMORY)

    def fetch(self, v: Value) -> Value:
        if v.raw is not None:
            return v
        if v.lval is Lval.TENSIX:  # read when used, so assigning to an undefined element works
            raw = self.tensix_call(self.ctx.tensix, v.location[0], tuple(v.location[1:])) if self.side_effects else 0
            return replace(v, raw=raw)  # type: ignore[arg-type]
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
        """An operand's value; one the debug information does not give cannot be used (GDB)."""
        v = self.decay(self.eval(node))
        if v.unavailable and v.ctype.kind not in (Kind.STRUCT, Kind.ARRAY):
            raise ExprError("value has been optimized out")
        return v

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
        """The value of ``node``; a C++ reference stands for the object it refers to."""
        return self.referenced(self.eval_node(node))

    def referenced(self, v: Value) -> Value:
        """A reference's object (GDB's ``coerce_ref``); any other value as it is."""
        if v.ctype.kind is not Kind.REFERENCE:
            return v
        v = self.fetch(v)
        return self.at(v.ctype.target, v.raw)  # type: ignore[arg-type]

    def eval_node(self, node: Node) -> Value:
        """The value of ``node`` itself (a reference stays one: ``print`` shows it so)."""
        match node:
            case Literal(ctype, raw):
                return Value(ctype, raw)
            case Ident(name):
                return self.ident(name, allow_unknown=False)
            case Register(name):
                return self.register(name, REGISTER_TYPES.get(name, LONG))
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
            raise ExprError(_no_symbol(name)) from None
        if sym.is_function:
            return self.at(sym.ctype or NODEBUG_FUNC, sym.address)
        if sym.register is not None and sym.ctype is not None:
            return self.register(sym.register, sym.ctype)
        if sym.value is not None and sym.ctype is not None:   # computed by the debug information: not an lvalue
            return computed(sym.ctype, sym.value, sym.unavailable)
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
        data = (raw & MASK32).to_bytes(4, "little")[:t.size].ljust(t.size, b"\0")
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

    def tensix_call(self, fn: Callable[..., int | float | CType | None], *args: object) -> object:
        try:
            result = fn(*args)
        except KeyError:
            raise ExprError(f'No config field "{args[0]}".') from None
        except (IndexError, ValueError) as e:
            raise ExprError(str(e)) from None
        return 0 if result is None else result

    def tensix(self, node: TensixRef) -> Value:
        """An element (an lvalue) or a whole row of a Tensix register, in the type the context
        gives the array (the data's format in force, or raw bits)."""
        indices = tuple(self.integer(i) for i in node.indices)
        name = node.array
        elem: CType = self.tensix_call(self.ctx.tensix_type, name)  # type: ignore[assignment]

        def get(where: tuple[int, ...]) -> int | float:
            if not self.side_effects:
                return 0
            return self.tensix_call(self.ctx.tensix, name, where)  # type: ignore[return-value]

        if not node.is_row:
            return Value(elem, None, lval=Lval.TENSIX, location=(name, *indices))
        width = TENSIX_ROW_WIDTH.get(name, ROW_WIDTH)
        row = b"".join(encode(get((*indices, c)), elem) for c in range(width))
        return Value(array_of(elem, width), row)

    def unary(self, op: str, operand: Node) -> Value:
        if op == "*":
            return self.deref(self.eval(operand))
        if op == "&":
            v = self.operand(operand)
            if v.ctype.kind is Kind.REFERENCE:   # &ref: the address of the object it refers to
                v = self.referenced(v)
            if v.lval is Lval.REGISTER and isinstance(operand, Ident):
                raise ExprError(f'Address requested for identifier "{operand.name}" which is in register '
                                f"${v.location[0]}")
            return self.address_of(v)
        v = self.rvalue(operand)
        if op == "!":
            return Value(INT, int(not self.truth(v)))
        t = promote1(v.ctype)
        if op == "~":
            if v.ctype.kind not in (Kind.INT, Kind.BOOL):
                raise ExprError("Argument to complement operation not an integer, boolean.")
            return Value(t, wrap(~v.raw, t))  # type: ignore[operator]
        if not is_number(v.ctype):
            raise ExprError(f"Argument to {'negate' if op == '-' else 'positive'} operation not a number.")
        if op == "+":
            return Value(t, v.raw)
        if t.kind is Kind.FLOAT:
            return Value(t, round_float(0.0 - v.raw, t.size))  # type: ignore[operator]
        return Value(t, wrap(-v.raw, t))  # type: ignore[operator]

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
        field = _find_member(base.ctype, name)
        if field is None:
            raise ExprError(f"There is no member named {name}.")
        if field.role == "static":
            return self.static_member(field)
        if base.address is not None:
            return self.at(field.ctype, base.address + field.offset)
        whole = self.fetch(base)
        return Value(field.ctype, member_raw(whole.raw, field),  # type: ignore[arg-type]
                     unavailable=unavailable_within(whole.unavailable, field.offset, field.ctype.size))

    def static_member(self, field: CField) -> Value:
        """A C++ static member: its constant, or the object its definition names."""
        if field.value is not None:
            return computed(field.ctype, field.value)
        if field.address is not None:
            return self.at(field.ctype, field.address)
        raise ExprError(f'field {field.name} is nonexistent or has been optimized out')

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
        if not (is_number(a.ctype) and is_number(b.ctype)):
            raise ExprError(_NOT_NUMBER)
        if op in ("<<", ">>"):
            t = promote1(a.ctype)
            if Kind.FLOAT in (t.kind, b.ctype.kind):
                raise ExprError("Integer-only operation on floating point number.")
            x, n = wrap(a.raw, t), b.raw  # type: ignore[arg-type]
            if not 0 <= n < 8 * t.size:  # type: ignore[operator]
                return Value(t, 0)
            return Value(t, wrap(x << n if op == "<<" else x >> n, t))  # type: ignore[operator]
        t = promote(a.ctype, b.ctype)
        if t.kind is Kind.FLOAT:
            x, y = (round_float(float(v.raw), t.size) for v in (a, b))  # type: ignore[arg-type]
        else:
            x, y = wrap(a.raw, t), wrap(b.raw, t)  # type: ignore[arg-type]
        if op in _COMPARE:
            return Value(INT, int(_COMPARE[op](x, y)))
        if t.kind is Kind.FLOAT:
            if op in _INT_ONLY:
                raise ExprError("Integer-only operation on floating point number.")
            return Value(t, round_float(_float_op(op, x, y), t.size))
        return Value(t, wrap(self.int_op(op, x, y), t))  # type: ignore[arg-type]

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
            return Value(INT, int(_COMPARE[op](a.raw & MASK32, b.raw & MASK32)))  # type: ignore[operator]
        if op == "-" and a.ctype.kind is b.ctype.kind is Kind.POINTER:
            stride = self.stride(a.ctype)
            if stride != self.stride(b.ctype):
                raise ExprError("First argument of `-' is a pointer and second argument is neither "
                                "an integer nor a pointer of the same type.")
            return Value(LONG, wrap(self.int_op("/", a.raw - b.raw, stride), LONG))  # type: ignore[operator]
        pointer, other = (a, b) if a.ctype.kind is Kind.POINTER else (b, a)
        if op not in ("+", "-") or (op == "-" and pointer is b) or other.ctype.kind not in (Kind.INT, Kind.BOOL):
            raise ExprError(_NOT_NUMBER)
        delta = other.raw * self.stride(pointer.ctype) * (1 if op == "+" else -1)  # type: ignore[operator]
        return Value(pointer.ctype, (pointer.raw + delta) & MASK32)  # type: ignore[operator]

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
            return Value(t, round_float(float(x), t.size))  # type: ignore[arg-type]
        if t.kind is Kind.BOOL:
            return Value(t, int(bool(x)))
        if isinstance(x, float):
            if t.kind is Kind.POINTER:
                raise ExprError("Invalid cast.")
            x = float_to_int(x)
        return Value(t, wrap(x, t))  # type: ignore[arg-type]

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
                write_memory(self.ctx, target.address, encode(raw, new.ctype))  # type: ignore[arg-type]
            elif kind is Lval.REGISTER:
                word = encode(raw, new.ctype)[:4]  # type: ignore[arg-type]
                self.ctx.set_register(str(loc[0]), int.from_bytes(word, "little"))
            elif kind is Lval.TENSIX:
                self.tensix_call(self.ctx.set_tensix, loc[0], tuple(loc[1:]), raw)
            else:
                self.tensix_call(self.ctx.set_cfg, *loc, raw)  # type: ignore[arg-type]
        return replace(new, address=target.address, lval=kind, location=loc)


_DEFAULT_NAN = struct.unpack("<d", bytes.fromhex("000000000000f8ff"))[0]  # x86's 0.0/0.0


def _float_op(op: str, x: float, y: float) -> float:
    if op == "/":
        if y == 0:
            if x == 0 or math.isnan(x):
                return _DEFAULT_NAN
            return math.copysign(math.inf, x) * math.copysign(1.0, y)
        return x / y
    return {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](x, y)


def read_memory(ctx: EvalContext, address: int, size: int) -> bytes:
    try:
        return bytes(ctx.read_memory(address, size))
    except ExprError:
        raise
    except Exception:  # the context's own error type: any failure means no access
        raise ExprError(f"Cannot access memory at address {address:#x}") from None


def write_memory(ctx: EvalContext, address: int, data: bytes) -> None:
    try:
        ctx.write_memory(address, data)
    except ExprError:
        raise
    except Exception:
        raise ExprError(f"Cannot access memory at address {address:#x}") from None


def _no_symbol(name: str) -> str:
    return f'No symbol "{name}" in current context.'


def resolve(expr: str, ctx: EvalContext) -> set[str]:
    """Parse ``expr`` and look up every name in it, as GDB's ``parse_expression`` does (so
    ``display`` refuses an expression before creating the display): the names it uses; a
    syntax error or a name with no symbol raises ``ExprError``; what fails only when read
    (memory, a member, a register) is left to :func:`evaluate`."""
    pending: list[object] = [parse(expr, ctx.lookup_type)]
    names: set[str] = set()
    while pending:
        item = pending.pop()
        if isinstance(item, Ident):
            try:
                ctx.symbol(item.name)
            except KeyError:
                raise ExprError(_no_symbol(item.name)) from None
            names.add(item.name)
        elif isinstance(item, Node):
            pending += [getattr(item, f.name) for f in fields(item)]  # type: ignore[arg-type]
        elif isinstance(item, tuple):
            pending += item
    return names


def evaluate(expr: str | Node, ctx: EvalContext, *, side_effects: bool = True) -> Value:
    """Evaluate an expression (text or a parsed node).  With ``side_effects=False`` nothing is
    written and memory reads as zeros: only the type of the result is meaningful (``whatis``)."""
    node = parse(expr, ctx.lookup_type) if isinstance(expr, str) else expr
    evaluator = _Evaluator(ctx, side_effects)
    try:
        return evaluator.fetch(evaluator.eval_node(node))
    except RecursionError:
        raise ExprError("Expression too deeply nested.") from None


def _find_member(t: CType, name: str) -> CField | None:
    """The member ``name`` of struct or union ``t``, looked for in its anonymous struct and
    union members too (C11 6.7.2.1p13: their members are members of ``t``; GDB's
    ``search_struct_field`` does the same), with its offset from ``t``'s start."""
    for f in t.fields:
        if f.name == name:
            return f
    for f in t.fields:
        if (not f.name or f.role == "base") and f.ctype.kind is Kind.STRUCT:
            inner = _find_member(f.ctype, name)
            if inner is not None:
                return replace(inner, offset=f.offset + inner.offset)
    return None


def computed(t: CType, value: int | bytes, unavailable: tuple[tuple[int, int], ...] = ()) -> Value:
    """The value of type ``t`` the debug information computes (not an lvalue): an integer (a
    DWARF stack value, ``DW_AT_const_value``: its low bytes, zero-extended to the type's size) or
    the object's bytes."""
    data = value if isinstance(value, bytes) else (value & ((1 << 8 * min(t.size, 8)) - 1)).to_bytes(min(t.size, 8), "little")
    data = data[:t.size].ljust(t.size, b"\0")
    missing = unavailable + (((len(value), t.size),) if isinstance(value, bytes) and len(value) < t.size else ())
    return Value(t, decode(data, t), unavailable=missing)
