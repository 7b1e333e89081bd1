"""C types as the evaluator sees them (RV32 ILP32: ``int`` and ``long`` are 32-bit, plain
``char`` is unsigned), their C spelling, and how values of them are held: integer wrap-around,
float rounding, and the little-endian bytes of an object."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace
from enum import StrEnum


class Kind(StrEnum):
    INT = "int"          # every integer type, including char (``size`` 1 prints as a character)
    BOOL = "bool"        # _Bool
    FLOAT = "float"      # float (size 4), double (size 8)
    POINTER = "pointer"  # target: the pointee
    REFERENCE = "reference"  # C++ T&: target: the referenced type (held as its address)
    ARRAY = "array"      # target: the element type, count: the number of elements
    STRUCT = "struct"    # struct or union; fields: the members
    FUNC = "func"        # target: the return type (None: no debug info), params
    VOID = "void"
    UNKNOWN = "unknown"  # a data symbol without debug info


@dataclass(frozen=True)
class CField:
    """One member of a struct or union: its name, byte offset and type (and, in C++, its
    access: "public", "private" or "protected").  In C++ a member may also be a base class
    (``role`` "base", named by its type, DWARF's ``DW_TAG_inheritance``) or a static member
    (``role`` "static": no storage in the object; its ``value`` from ``DW_AT_const_value`` or
    its definition's ``address``, neither when the compiler left it out)."""

    name: str
    offset: int
    ctype: CType
    access: str = field(default="public", compare=False)
    role: str = field(default="member", compare=False)
    value: int | bytes | None = field(default=None, compare=False)
    address: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Method:
    """A C++ member function as its class declares it (for ``ptype``); ``static``: it has no
    ``this``."""

    name: str
    returns: CType
    params: tuple[CType, ...]
    access: str = "public"
    const: bool = False
    static: bool = False


@dataclass(frozen=True)
class Details:
    """What C++ (and a C enum) adds to a type for ``ptype``: the class key (``class``,
    ``struct``, ``union``, ``enum``), member functions, the type template parameters
    (``T = unsigned int``), an enum's enumerators, whether it is an ``enum class`` and its
    underlying type."""

    keyword: str = ""
    methods: tuple[Method, ...] = ()
    template: tuple[tuple[str, CType], ...] = ()
    enumerators: tuple[tuple[str, int], ...] = ()
    scoped: bool = False
    underlying: CType | None = None
    cplus: bool = False
    typedefs: tuple[tuple[str, CType, str], ...] = ()   # a class's own typedefs: (name, type, access)


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
    ``qualifiers`` (``"const"``, ``"volatile"``, ``"const volatile"``) and ``typedef_of`` (the
    type a typedef names) are spelled by ``type_name`` / ``expand_typedefs`` but do not make
    another type for the evaluator (they take no part in ``==``).
    """

    name: str
    size: int
    kind: Kind = Kind.INT
    signed: bool = False
    target: CType | None = None
    count: int = 0
    fields: tuple[CField, ...] = ()
    params: tuple[CType, ...] | None = ()
    qualifiers: str = field(default="", compare=False)
    typedef_of: CType | None = field(default=None, compare=False)
    details: Details | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))  # accept plain strings: "int", "pointer"


def pointer_to(target: CType) -> CType:
    return CType("", 4, Kind.POINTER, target=target)


def reference_to(target: CType) -> CType:
    """C++'s ``T &`` (an address the language dereferences for you)."""
    return CType("", 4, Kind.REFERENCE, target=target)


def array_of(element: CType, count: int) -> CType:
    return CType("", element.size * count, Kind.ARRAY, target=element, count=count)


def function_type(returns: CType, params: tuple[CType, ...] | None = ()) -> CType:
    return CType("", 0, Kind.FUNC, target=returns, params=params)


def typedef(name: str, of: CType) -> CType:
    return replace(of, name=name, typedef_of=of)


def qualified(t: CType, qualifier: str) -> CType:
    """``t`` with ``const`` and/or ``volatile`` added (spelled in C's order: const volatile)."""
    words = set(t.qualifiers.split()) | set(qualifier.split())
    return replace(t, qualifiers=" ".join(q for q in ("const", "volatile") if q in words))


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
INT8, UINT8 = typedef("int8_t", SCHAR), typedef("uint8_t", UCHAR)
INT16, UINT16 = typedef("int16_t", SHORT), typedef("uint16_t", USHORT)
INT32, UINT32 = typedef("int32_t", INT), typedef("uint32_t", UINT)
INT64, UINT64 = typedef("int64_t", LLONG), typedef("uint64_t", ULLONG)
NODEBUG_FUNC = CType("<text variable, no debug info>", 0, Kind.FUNC, target=None)
NODEBUG_DATA = CType("<data variable, no debug info>", 0, Kind.UNKNOWN)
CODE_POINTER = pointer_to(function_type(VOID, None))  # $pc, $ra: void (*)()
DATA_POINTER = pointer_to(VOID)                       # $sp, $gp, $tp, $fp: void *

BUILTIN_TYPES: dict[str, CType] = {t.name: t for t in (
    VOID, BOOL, CHAR, SCHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, LLONG, ULLONG,
    FLOAT, DOUBLE, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64,
)} | {"bool": BOOL, "intptr_t": typedef("intptr_t", INT), "uintptr_t": typedef("uintptr_t", UINT),
      "size_t": typedef("size_t", UINT)}
TYPEDEFS = {name for name in BUILTIN_TYPES if " " not in name} - {"void", "char", "short", "int",
                                                                     "long", "float", "double"}


def type_name(ctype: CType) -> str:
    """The C spelling of a type, as GDB's ``whatis`` shows it (``uint32_t (*)[16]``)."""
    return _declare(ctype, "")


def declaration(ctype: CType, name: str) -> str:
    """A C declaration of ``name`` with type ``ctype`` (``volatile uint32_t trace[16]``,
    ``int main(void)``), as GDB's symbol listings print it."""
    return _declare(ctype, name)


def _declare(t: CType, inner: str) -> str:
    if t.name or t.target is None:
        name = f"{t.qualifiers} {t.name}" if t.qualifiers else t.name
        return f"{name} {inner}" if inner else name
    if t.kind is Kind.POINTER:  # GDB: "char * const"
        return _declare(t.target, "*" + (f" {t.qualifiers}" + (f" {inner}" if inner else "") if t.qualifiers else inner))
    if t.kind is Kind.REFERENCE:  # GDB: "const RuntimeParams &"
        return _declare(t.target, "&" + inner)
    wrapped = f"({inner})" if inner.startswith("*") else inner
    if t.kind is Kind.ARRAY:  # the qualifiers of an array are its elements'
        element = qualified(t.target, t.qualifiers) if t.qualifiers else t.target
        return _declare(element, f"{wrapped}[{t.count}]")
    params = "" if t.params is None else ", ".join(map(type_name, t.params)) or "void"
    return _declare(t.target, f"{wrapped}({params})")


def ptype_text(t: CType) -> str:
    """The type as GDB's ``ptype`` shows it: typedefs along the declarator resolved
    (``expand_typedefs``), and a struct, union, class or enum base spelled out with its members
    (``struct pt {\n    int x;\n} *``); in C++ with the class key, access labels, member
    functions and ``[with T = ...]`` for a template's type parameters (members of that type are
    spelled ``T``), as GDB 13 prints them."""
    t = expand_typedefs(t)
    base = t
    while base.target is not None and base.kind in (Kind.POINTER, Kind.REFERENCE, Kind.ARRAY, Kind.FUNC):
        base = base.target
    text = type_name(t)
    details = base.details
    if details is not None and details.keyword == "enum":
        return text.replace(base.name, _enum_body(base, details), 1)
    if base.kind is not Kind.STRUCT or not base.fields:
        return text
    if details is None or not details.cplus:
        head = base.name.removesuffix(" {...}")
        members = "".join(f"    {_declare(f.ctype, f.name)};\n" for f in base.fields)
        return text.replace(base.name, f"{head} {{\n{members}}}", 1)
    return text.replace(base.name, _class_body(base, details), 1)


def _class_body(t: CType, d: Details) -> str:
    """``class ns::C [with T = int] {...}`` (GDB's ``c_type_print_base_struct_union``)."""
    rename = {type_name(arg): name for name, arg in d.template}
    default = "private" if d.keyword == "class" else "public"
    members = [f for f in t.fields if f.role != "base"]
    labels = any(f.access != default for f in members) or any(m.access != default for m in d.methods)
    with_ = " [with " + ", ".join(f"{name} = {type_name(arg)}" for name, arg in d.template) + "]" if d.template else ""
    bases = ", ".join(f"{f.access} {f.name}" for f in t.fields if f.role == "base")
    lines = [f"{d.keyword} {t.name}{' : ' + bases if bases else ''}{with_} {{"]
    section = ""
    for f in members:
        if labels and f.access != section:
            lines.append(f"  {f.access}:")
            section = f.access
        static = "static " if f.role == "static" else ""
        lines.append(f"    {static}{_declare(_renamed(f.ctype, rename), f.name)};")
    if d.methods and members and section:
        lines.append("")
    for m in d.methods:
        if m.access != section:
            lines.append(f"  {m.access}:")
            section = m.access
        params = ", ".join(type_name(_renamed(p, rename)) for p in m.params) or "void"
        base_name = t.name.split("<")[0].rsplit("::", 1)[-1]
        if m.name in (base_name, f"~{base_name}"):   # GDB: a constructor or destructor has no return type
            head = m.name
        else:
            head = f"{'static ' if m.static else ''}{_declare(_renamed(m.returns, rename), m.name)}"
        lines.append(f"    {head}({params}){' const' if m.const else ''};")
    if d.typedefs and (members or d.methods):   # GDB: after a blank line, with their access labels
        lines.append("")
    for name, target, access in d.typedefs:
        if labels and access != section:
            lines.append(f"  {access}:")
            section = access
        lines.append(f"    typedef {_declare(target, name)};")
    return "\n".join(lines) + "\n}"


def _renamed(t: CType, rename: dict[str, str]) -> CType:
    """``t`` with the named types a template was instantiated with spelled as its parameters."""
    if t.name and type_name(replace(t, qualifiers="")) in rename:
        return replace(t, name=rename[type_name(replace(t, qualifiers=""))], typedef_of=None)
    if t.target is not None and t.kind in (Kind.POINTER, Kind.REFERENCE, Kind.ARRAY):
        return replace(t, target=_renamed(t.target, rename))
    return t


def _enum_body(t: CType, d: Details) -> str:
    """``enum class E : unsigned char {E::A, E::B = 2}`` (GDB: ``= N`` where the value is not
    the previous one plus one; the underlying type in C++ only)."""
    head = f"enum class {t.name}" if d.scoped else (t.name if t.name.startswith("enum") else f"enum {t.name}")
    under = f": {type_name(expand_typedefs(d.underlying))} " if d.cplus and d.underlying is not None else ""
    items, last = [], 0
    for name, value in d.enumerators:
        items.append(name if value == last else f"{name} = {value}")
        last = value + 1
    return f"{head} {under}{{{', '.join(items)}}}"


def expand_typedefs(t: CType) -> CType:
    """The type with the typedefs along its declarator resolved, as GDB's ``ptype`` shows it
    (``volatile unsigned int [4]`` for ``volatile uint32_t [4]``); struct members and function
    parameters keep their typedef names."""
    if t.typedef_of is not None:
        inner = expand_typedefs(t.typedef_of)
        for q in t.qualifiers.split():
            inner = qualified(inner, q)
        return inner
    if t.target is not None and t.kind in (Kind.POINTER, Kind.REFERENCE, Kind.ARRAY, Kind.FUNC):
        return replace(t, target=expand_typedefs(t.target))
    return t


# -- how values are held --------------------------------------------------------------------------


def wrap(value: int, t: CType) -> int:
    """An integer reduced to type ``t`` (two's complement wrap-around)."""
    bits = 8 * t.size
    value &= (1 << bits) - 1
    if t.signed and t.kind is Kind.INT and value >> (bits - 1):
        value -= 1 << bits
    return value


def round_float(x: float, size: int) -> float:
    if size != 4:
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def float_to_int(x: float) -> int:
    """C's float-to-integer conversion; out of range gives what the host (x86) gives."""
    if math.isfinite(x) and abs(x) < 2.0 ** 63:
        return int(x)
    return -(1 << 63)


def float_bits(x: float, size: int) -> int:
    return int.from_bytes(struct.pack("<f" if size == 4 else "<d", x), "little")


def decode(data: bytes, t: CType) -> int | float | bytes:
    """The ``Value.raw`` of an object of type ``t`` from its little-endian bytes."""
    if t.kind in (Kind.INT, Kind.BOOL, Kind.POINTER, Kind.REFERENCE):
        return int.from_bytes(data, "little", signed=t.signed and t.kind is Kind.INT)
    if t.kind is Kind.FLOAT:
        return struct.unpack("<f" if t.size == 4 else "<d", data)[0]
    return bytes(data)


def encode(raw: int | float | bytes, t: CType) -> bytes:
    if isinstance(raw, bytes):
        return raw
    if t.kind is Kind.FLOAT:
        return struct.pack("<f" if t.size == 4 else "<d", raw)
    return (int(raw) & ((1 << (8 * t.size)) - 1)).to_bytes(t.size, "little")


def member_raw(struct_raw: bytes, f: CField) -> int | float | bytes:
    return decode(struct_raw[f.offset:f.offset + f.ctype.size], f.ctype)


def is_number(t: CType) -> bool:
    return t.kind in (Kind.INT, Kind.BOOL, Kind.FLOAT)


def promote1(t: CType) -> CType:
    """Integer promotion (unary operators, shift operands)."""
    return INT if t.kind is not Kind.FLOAT and t.size < 4 else t


def promote(a: CType, b: CType) -> CType:
    """GDB's ``binop_promote`` for C on RV32."""
    floats = [t for t in (a, b) if t.kind is Kind.FLOAT]
    if floats:
        return max(floats, key=lambda t: t.size)
    (la, ua), (lb, ub) = ((4, False) if t.size < 4 else (t.size, not t.signed) for t in (a, b))
    size, unsigned = (la, ua) if la > lb else (lb, ub) if lb > la else (la, ua or ub)
    if size <= 4:
        return UINT if unsigned else INT
    return ULLONG if unsigned else LLONG


def is_char(t: CType | None) -> bool:
    return t is not None and t.kind is Kind.INT and t.size == 1
