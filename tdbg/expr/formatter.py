"""Values as GDB's ``print`` shows them, in its format letters or a type's natural format."""

from __future__ import annotations

import math

from tdbg.expr.ctype import (
    DOUBLE, FLOAT, UINT32, CField, CType, Kind, decode, float_bits, float_to_int, is_char, member_raw, type_name, wrap,
)
from tdbg.expr.evaluator import read_memory
from tdbg.expr.values import MASK32, EvalContext, ExprError, PrintSettings, Value


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


def _string_text(data: bytes, force_ellipses: bool = False, settings: PrintSettings = PrintSettings()) -> str:
    """Bytes as GDB prints a char array: quoted runs, ``'c' <repeats N times>``, ``...``."""
    elements, repeats = settings.elements or 1 << 62, settings.repeats or 1 << 62
    length = len(data)
    if not force_ellipses and length and data[-1] == 0:
        length -= 1
    if not length:
        return '""'
    groups: list[tuple[int, int]] = []
    i = printed = 0
    while i < length and printed < elements:
        j = i + 1
        while j < length and data[j] == data[i]:
            j += 1
        groups.append((data[i], j - i))
        printed += j - i
        i = j
    parts: list[str] = []
    run: str | None = None
    for c, reps in groups:
        if reps > repeats:
            if run is not None:
                parts.append(f'"{run}"')
                run = None
            parts.append(f"{_char_literal(c)} <repeats {reps} times>")
        else:
            run = (run or "") + _char_text(c, '"') * reps
    if run is not None:
        parts.append(f'"{run}"')
    return ", ".join(parts) + ("..." if force_ellipses or i < length else "")


def float_text(x: float, size: int) -> str:
    """GDB's ``%g`` with 9 (float) or 17 (double) significant digits; NaNs show their mantissa."""
    if math.isnan(x):
        bits = float_bits(x, size)
        mantissa = bits & ((1 << (23 if size == 4 else 52)) - 1)
        return f"{'-' if bits >> (8 * size - 1) else ''}nan({mantissa:#x})"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return format(x, ".9g" if size == 4 else ".17g")


class _Formatter:
    def __init__(self, ctx: EvalContext, fmt: str | None, unavailable: tuple[tuple[int, int], ...] = ()) -> None:
        self.ctx = ctx
        self.unavailable = unavailable   # byte ranges of the value printed that the debug info does not give
        self.fmt = None if fmt == "s" else fmt
        self.settings: PrintSettings = getattr(ctx, "print_settings", None) or PrintSettings()
        self.elements = self.settings.elements or 1 << 62   # 0: unlimited
        self.repeats = self.settings.repeats or 1 << 62

    def symbolic(self, address: int) -> str:
        name = self.ctx.symbolize(address)
        return f"{address:#x} <{name}>" if name else f"{address:#x}"

    def top(self, v: Value, typed: bool = True) -> str:
        t = v.ctype
        if t.kind not in (Kind.STRUCT, Kind.ARRAY) and self.gone(0, t.size):
            return "<optimized out>"
        if t.kind is Kind.POINTER and self.fmt is None and not is_char(t.target) and typed:
            return f"({type_name(t)}) {self.symbolic(v.raw)}"  # type: ignore[arg-type]
        if t.kind is Kind.REFERENCE:   # GDB: (const T &) @0x...: <the object>
            target = t.target
            assert target is not None and isinstance(v.raw, int)
            if target.kind is Kind.STRUCT and not target.fields and target.name:
                target = self.ctx.lookup_type(target.name) or target
            try:
                shown = self.value(target, decode(read_memory(self.ctx, v.raw, target.size), target))
            except ExprError as exc:
                shown = f"<error: {exc}>"
            return f"({type_name(t)}) @{v.raw:#x}: {shown}" if typed else f"@{v.raw:#x}: {shown}"
        return self.value(t, v.raw)  # type: ignore[arg-type]

    def gone(self, at: int, size: int) -> bool:
        """Whether any byte of ``[at, at + size)`` is unavailable (GDB's ``value_bits_any_optimized_out``)."""
        return any(lo < at + max(size, 1) and hi > at for lo, hi in self.unavailable)

    def value(self, t: CType, raw: int | float | bytes, level: int = 0, at: int = 0) -> str:
        """``raw`` of type ``t``, the part at byte ``at`` of the value printed."""
        if t.kind is Kind.ARRAY:
            return self.array(t, raw, level, at)  # type: ignore[arg-type]
        if t.kind is not Kind.STRUCT and self.gone(at, t.size):
            return "<optimized out>"
        if t.kind is Kind.REFERENCE:   # a member that is a reference: GDB shows its address
            return f"@{raw:#x}"
        if t.kind is Kind.STRUCT:
            if not t.fields:
                return "<incomplete type>"
            pretty = self.settings.pretty   # set print pretty: one member a line, two spaces a level
            members = [self.member(f, raw, level + 1, at) for f in t.fields]  # type: ignore[arg-type]
            if not pretty:
                return "{" + ", ".join(members) + "}"
            pad = "  " * (level + 1)
            return "{\n" + ",\n".join(pad + m for m in members) + "\n" + "  " * level + "}"
        if t.kind in (Kind.VOID, Kind.UNKNOWN):
            return t.name
        if t.kind is Kind.FUNC:
            if self.fmt is None:
                return f"{{{type_name(t)}}} {self.symbolic(raw)}"  # type: ignore[arg-type]
            return self.scalar(UINT32, raw)
        return self.scalar(t, raw)

    def member(self, f: CField, raw: bytes, level: int, at: int) -> str:
        """One member as GDB's ``cp_print_value_fields`` shows it: ``name = value``, a base class
        ``<Base> = {...}``, a static member ``static name = value``, an anonymous struct or
        union member its value alone."""
        if f.role == "static":
            return f"static {f.name} = {self.static(f, level)}"
        text = self.value(f.ctype, member_raw(raw, f), level, at + f.offset)
        if f.role == "base":
            return f"<{f.name}> = {text}"
        return f"{f.name} = {text}" if f.name else text

    def static(self, f: CField, level: int) -> str:
        """A static member's value: its constant or its definition in memory."""
        if f.value is not None:
            data = f.value if isinstance(f.value, bytes) else (f.value & ((1 << 8 * f.ctype.size) - 1)).to_bytes(f.ctype.size, "little")
            return _Formatter(self.ctx, self.fmt).value(f.ctype, decode(data, f.ctype), level)
        if f.address is None:
            return "<optimized out>"
        try:
            return _Formatter(self.ctx, self.fmt).value(f.ctype, decode(read_memory(self.ctx, f.address, f.ctype.size), f.ctype), level)
        except ExprError as exc:
            return f"<error: {exc}>"

    def array(self, t: CType, raw: bytes, level: int = 0, at: int = 0) -> str:
        elem = t.target
        assert elem is not None
        if self.fmt is None and is_char(elem) and not self.gone(at, t.size):
            return _string_text(raw, settings=self.settings)
        size, items = elem.size, []
        i = printed = 0
        while i < t.count and printed < self.elements:
            chunk = raw[i * size:(i + 1) * size]
            j = i + 1
            while (j < t.count and raw[j * size:(j + 1) * size] == chunk
                   and self.gone(at + j * size, size) == self.gone(at + i * size, size)):
                j += 1
            text = self.value(elem, decode(chunk, elem), level + 1, at + i * size)
            if j - i > self.repeats:
                items.append(f"{text} <repeats {j - i} times>")
                i, printed = j, printed + self.repeats
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
        while len(data) < self.elements:
            try:
                c = read_memory(self.ctx, address + len(data), 1)[0]
            except ExprError as e:
                error = f"<error: {e}>"
                break
            if c == 0:
                break
            data.append(c)
        if error and not data:
            return f"{text} {error}"
        return f"{text} {_string_text(bytes(data), len(data) == self.elements, self.settings)}{error}"

    def scalar(self, t: CType, raw: int | float) -> str:
        fmt = self.fmt
        if fmt is None:
            if t.kind is Kind.FLOAT:
                return float_text(raw, t.size)  # type: ignore[arg-type]
            if t.kind is Kind.POINTER:
                return self.char_pointer(raw) if is_char(t.target) else self.symbolic(raw)  # type: ignore[arg-type]
            if t.kind is Kind.BOOL and raw in (0, 1):
                return ("false", "true")[raw]  # type: ignore[index]
            if is_char(t):
                return f"{raw} {_char_literal(raw & 0xFF)}"  # type: ignore[operator]
            return str(raw)
        if fmt in ("c", "a"):
            n = float_to_int(raw) if isinstance(raw, float) else raw
            if fmt == "a":
                return self.symbolic(n & MASK32)
            c = n & 0xFF
            return f"{c - 256 if t.signed and c > 127 else c} {_char_literal(c)}"
        bits = float_bits(raw, t.size) if isinstance(raw, float) else raw & ((1 << (8 * t.size)) - 1)
        if fmt == "f":
            if t.kind is Kind.FLOAT:
                return float_text(raw, t.size)  # type: ignore[arg-type]
            if t.size in (4, 8):  # the bits read as the float of that size
                as_float = FLOAT if t.size == 4 else DOUBLE
                return float_text(decode(bits.to_bytes(t.size, "little"), as_float), t.size)  # type: ignore[arg-type]
            return str(wrap(bits, t) if t.kind is Kind.INT else bits)
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
    return _Formatter(ctx, fmt, value.unavailable).top(value, typed)
