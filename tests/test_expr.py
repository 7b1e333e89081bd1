"""The expression language: parser, C semantics, lvalues, Tensix names, GDB's print formats.

Expected strings are GDB 13's output (``gdb-multiarch``, ``set architecture riscv:rv32``, or an
RV32 ELF with the same variables), worked out by hand where GDB has no equivalent.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdbg.expr import (
    BUILTIN_TYPES, CHAR, DOUBLE, FLOAT, INT, INT32, LLONG, LONG, UCHAR, UINT, UINT8, UINT16, UINT32,
    ULLONG, CField, CfgRef, CType, ExprError, Kind, Lval, SymbolInfo, TensixRef, Value, array_of,
    evaluate, format_value, function_type, parse, parse_type, pointer_to, type_name, value_as_address,
)

PT = CType("struct pt", 8, Kind.STRUCT, fields=(CField("x", 0, INT), CField("y", 4, INT)))
NODE_REF = CType("struct node", 8, Kind.STRUCT)  # incomplete: breaks the cycle
NODE = CType("struct node", 8, Kind.STRUCT, fields=(CField("v", 0, INT), CField("next", 4, pointer_to(NODE_REF))))
OPAQUE = CType("struct opaque", 4, Kind.STRUCT)
BOOL_T = BUILTIN_TYPES["_Bool"]
BASE, SIZE = 0x6000, 0x3000
WRITE_ONLY = 0xFFE40000  # like INSTRN_BUF_BASE: a store goes through, a load faults


class FakeContext:
    """Dict-backed registers, a bytearray memory at 0x6000, a small symbol table, fake Tensix."""

    def __init__(self) -> None:
        self.regs = {name: 0 for name in ["pc", "zero", "ra", "sp", "gp", "tp", "fp", "a0", "t0", "s11"]}
        self.regs.update(pc=0x6004, ra=0x6040, sp=0x8FF0, fp=0x8FF8, a0=5, a1=0x3FC00000, s1=41, mstatus=0x1800)
        self.mem = bytearray(SIZE)
        self.write_only: dict[int, bytes] = {}
        self.symbols: dict[str, tuple[SymbolInfo, int]] = {}
        # Tensix arrays as a session types them: values in their format (float, int), raw bits
        self.tensix_types = {"dst": FLOAT, "dst32": INT, "srca": FLOAT, "srcb": INT, "dstbits": UINT16,
                             "dst32bits": UINT32, "srcabits": UINT32, "srcbbits": UINT32}
        self.tensix_vals: dict[tuple[str | int, ...], int | float] = {}
        self.undefined: set[tuple[str | int, ...]] = set()
        self.cfg_vals = {"RISC_DEST_ACCESS_CTRL_SEC0_fmt": 5, "ALU_FORMAT_SPEC_REG0_SrcA": 0}
        self.values: list[Value] = []
        self.conv: dict[str, Value] = {}
        self.reads = 0
        self.func("main", 0x6000, None, 0x40)
        self.func("helper", 0x6040, function_type(INT), 0x40)
        self.data("results", 0x7000, array_of(UINT32, 16), struct.pack("<16I", 1, 2, 3, *[0] * 11, 7, 7))
        self.data("counter", 0x7040, INT32, struct.pack("<i", -5))
        self.data("ptr", 0x7044, pointer_to(UINT32), struct.pack("<I", 0x7008))
        self.data("name", 0x7048, array_of(CHAR, 8), b"hi".ljust(8, b"\0"))
        self.data("raw_sym", 0x7050, None, struct.pack("<I", 1), size=4)
        self.data("fval", 0x7054, FLOAT, struct.pack("<f", 1.5))
        self.data("pt", 0x7058, PT, struct.pack("<ii", 3, 4))
        self.data("str_ptr", 0x7060, pointer_to(CHAR), struct.pack("<I", 0x8100))
        self.data("dval", 0x7068, DOUBLE, struct.pack("<d", 0.1))
        self.data("flag", 0x7070, BOOL_T, b"\1")
        self.data("dst", 0x7074, UINT32, struct.pack("<I", 77))
        self.data("null_str", 0x7078, pointer_to(CHAR), bytes(4))
        self.data("bad_str", 0x707C, pointer_to(CHAR), struct.pack("<I", 0xDEAD0000))
        self.data("ten", 0x7080, array_of(UINT32, 12), struct.pack("<12I", *[5] * 10, 1, 2))
        self.data("eleven", 0x70B0, array_of(UINT32, 12), struct.pack("<12I", *[5] * 11, 2))
        self.data("bytes4", 0x70E0, array_of(UINT8, 4), bytes([1, 2, 3, 4]))
        self.data("full", 0x70E4, array_of(CHAR, 4), b"abcd")
        self.data("zeros", 0x70E8, array_of(CHAR, 8), bytes(8))
        self.data("rep", 0x70F0, array_of(CHAR, 20), b"a" * 15 + b"b" + bytes(4))
        self.data("quote", 0x7108, array_of(CHAR, 8), b"a\"b'\\\n\t\0")
        self.data("buf", 0x7110, array_of(CHAR, 32), b"hi".ljust(32, b"\0"))
        self.data("big", 0x7200, array_of(UINT32, 300), bytes(1200))
        self.data("big2", 0x7700, array_of(UINT32, 300), struct.pack("<300I", *range(1, 301)))
        self.data("head", 0x7140, NODE, struct.pack("<iIiI", 1, 0x7148, 2, 0), size=16)
        self.symbols["loop_i"] = (SymbolInfo(0, False, INT, register="s1"), 0)
        self.symbols["half"] = (SymbolInfo(0, False, FLOAT, register="a1"), 0)
        self.mem[0x8100 - BASE:0x8106 - BASE] = b"hello\0"

    def func(self, name: str, address: int, ctype: CType | None, size: int) -> None:
        self.symbols[name] = (SymbolInfo(address, True, ctype), size)

    def data(self, name: str, address: int, ctype: CType | None, init: bytes, size: int = 0) -> None:
        self.symbols[name] = (SymbolInfo(address, False, ctype), size or len(init))
        self.mem[address - BASE:address - BASE + len(init)] = init

    # EvalContext
    def register(self, name: str) -> int:
        return self.regs[name]

    def set_register(self, name: str, value: int) -> None:
        if name not in self.regs:
            raise KeyError(name)
        self.regs[name] = value

    def symbol(self, name: str) -> SymbolInfo:
        return self.symbols[name][0]

    def symbolize(self, address: int) -> str | None:
        for name, (sym, size) in self.symbols.items():
            if sym.address <= address < sym.address + size:
                offset = address - sym.address
                return f"{name}+{offset}" if offset else name
        return None

    def lookup_type(self, name: str) -> CType | None:
        return {"struct pt": PT, "pt_t": PT, "struct node": NODE, "struct opaque": OPAQUE}.get(name)

    def read_memory(self, address: int, size: int) -> bytes:
        self.reads += 1
        if not (BASE <= address and address + size <= BASE + SIZE):
            raise IndexError(address)
        return bytes(self.mem[address - BASE:address - BASE + size])

    def write_memory(self, address: int, data: bytes) -> None:
        if address == WRITE_ONLY:
            self.write_only[address] = data
            return
        if not (BASE <= address and address + len(data) <= BASE + SIZE):
            raise IndexError(address)
        self.mem[address - BASE:address - BASE + len(data)] = data

    def tensix_type(self, array: str) -> CType:
        return self.tensix_types[array]

    def tensix(self, array: str, indices: tuple[int, ...]) -> int | float:
        self._check(array, indices)
        if (array, *indices) in self.undefined:
            raise ValueError(f"{array}{list(indices)} is undefined")
        return self.tensix_vals.get((array, *indices), 0)

    def set_tensix(self, array: str, indices: tuple[int, ...], value: int | float) -> None:
        self._check(array, indices)
        t = self.tensix_types[array]
        self.tensix_vals[(array, *indices)] = value if t.kind is Kind.FLOAT else value & ((1 << 8 * t.size) - 1)

    @staticmethod
    def _check(array: str, indices: tuple[int, ...]) -> None:
        rows = 64 if array.startswith("src") else 512 if array == "dst32" else 1024
        *_, row, col = indices
        if not 0 <= row < rows:
            raise IndexError(f"row {row} out of range (0..{rows - 1})")
        if not 0 <= col < 16:
            raise IndexError(f"column {col} out of range (0..15)")

    def cfg(self, name: str) -> int:
        return self.cfg_vals[name]

    def set_cfg(self, name: str, value: int) -> None:
        if name not in self.cfg_vals:
            raise KeyError(name)
        self.cfg_vals[name] = value

    def history(self) -> Sequence[Value]:
        return self.values

    def convenience(self, name: str) -> Value | None:
        return self.conv.get(name)

    def set_convenience(self, name: str, value: Value) -> None:
        self.conv[name] = value


@pytest.fixture
def ctx() -> FakeContext:
    return FakeContext()


def p(ctx: FakeContext, text: str, fmt: str | None = None) -> str:
    """What ``print/FMT TEXT`` shows after ``$N = ``."""
    return format_value(evaluate(text, ctx), fmt, ctx)


def err(ctx: FakeContext, text: str, fmt: str | None = None) -> str:
    with pytest.raises(ExprError) as info:
        p(ctx, text, fmt)
    return str(info.value)


def u32(ctx: FakeContext, address: int) -> int:
    return struct.unpack_from("<I", ctx.mem, address - BASE)[0]


# -- literals and their types ---------------------------------------------------------------------

@pytest.mark.parametrize("text, raw, tname", [
    ("42", 42, "int"), ("0x2a", 42, "int"), ("052", 42, "int"), ("0b101010", 42, "int"),
    ("0", 0, "int"), ("'A'", 65, "char"), ("'\\n'", 10, "char"), ("'\\x41'", 65, "char"),
    ("'\\101'", 65, "char"), ("'\\0'", 0, "char"), ("'\\''", 39, "char"), ("'\\\\'", 92, "char"),
    ("'\\377'", 255, "char"), ("'\\e'", 27, "char"),
    ("2147483647", 2147483647, "int"), ("2147483648", 2147483648, "long long"),
    ("0x80000000", 0x80000000, "unsigned int"), ("0xffffffff", 0xFFFFFFFF, "unsigned int"),
    ("0x100000000", 1 << 32, "long long"), ("10000000000", 10**10, "long long"),
    ("9223372036854775808", 1 << 63, "unsigned long long"), ("0xffffffffffffffff", (1 << 64) - 1, "unsigned long long"),
    ("7u", 7, "unsigned int"), ("7l", 7, "long"), ("7ul", 7, "unsigned long"), ("7LU", 7, "unsigned long"),
    ("7ll", 7, "long long"), ("7ull", 7, "unsigned long long"),
    ("1.5", 1.5, "double"), ("1.5f", 1.5, "float"), ("1e-3", 0.001, "double"), (".5", 0.5, "double"),
    ("5.", 5.0, "double"), ("0x1p3", 8.0, "double"), ("1E2F", 100.0, "float"),
])
def test_literals(ctx: FakeContext, text: str, raw: int | float, tname: str) -> None:
    v = evaluate(text, ctx)
    assert (v.raw, type_name(v.ctype)) == (raw, tname)
    assert v.lval is None


def test_string_literals(ctx: FakeContext) -> None:
    assert p(ctx, '"abc"') == '"abc"'
    assert p(ctx, '"ab" "cd"') == '"abcd"'
    assert p(ctx, 'sizeof("abc")') == "4"
    assert p(ctx, '"a\\tb"[1]') == "9 '\\t'"
    assert p(ctx, '"abc"[3]') == "0 '\\000'"


@pytest.mark.parametrize("text, message", [
    ("09", 'Invalid number "09".'),
    ("1.5L", 'Invalid number "1.5L".'),
    ("0x", 'Invalid number "0x".'),
    ("18446744073709551616", "Numeric constant too large."),
    ("'a", "Unmatched single quote."),
    ("''", "Empty character constant."),
    ("'a b'", "Invalid character constant."),
    ("'\\x'", "\\x escape without a following hex digit"),
    ('"abc', "Unterminated string in expression."),
    ("1 # 2", "Invalid character '#' in expression."),
    ("1 ` 2", "Invalid character '`' in expression."),
])
def test_lexical_errors(ctx: FakeContext, text: str, message: str) -> None:
    assert err(ctx, text) == message


# -- operators ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # every binary operator
    ("7 + 5", "12"), ("7 - 5", "2"), ("7 * 5", "35"), ("7 / 2", "3"), ("7 % 5", "2"),
    ("6 & 3", "2"), ("6 | 3", "7"), ("6 ^ 3", "5"), ("1 << 4", "16"), ("256 >> 4", "16"),
    ("1 < 2", "1"), ("2 < 1", "0"), ("2 <= 2", "1"), ("3 > 2", "1"), ("2 >= 3", "0"),
    ("2 == 2", "1"), ("2 != 2", "0"), ("1 && 2", "1"), ("1 && 0", "0"), ("0 || 3", "1"), ("0 || 0", "0"),
    ("5 ? 1 : 2", "1"), ("0 ? 1 : 2", "2"), ("1, 2", "2"),
    # unary
    ("-5", "-5"), ("+5", "5"), ("!5", "0"), ("!0", "1"), ("~0", "-1"), ("- -5", "5"), ("!!7", "1"),
    # precedence and associativity (C's)
    ("1 + 2 * 3", "7"), ("(1 + 2) * 3", "9"), ("1 << 2 + 1", "8"), ("1 | 2 ^ 3 & 4", "3"),
    ("1 < 2 == 1", "1"), ("6 & 3 == 3", "0"), ("-2 * -3", "6"), ("!0 + 1", "2"), ("~0 & 0xff", "255"),
    ("10 - 2 - 3", "5"), ("100 / 10 / 5", "2"), ("2 ? 3 : 4 ? 5 : 6", "3"), ("0 ? 3 : 0 ? 5 : 6", "6"),
    ("1 || 0 && 0", "1"), ("2 + 3 << 1", "10"), ("1 + 2 > 2", "1"), ("-1 + 2 * 3 % 4", "1"),
    ("0 ? 1, 2 : 3", "3"), ("1 ? 1, 2 : 3", "2"),
    # short circuit
    ("1 || 1/0", "1"), ("0 && 1/0", "0"), ("1 ? 2 : 1/0", "2"),
    # C integer semantics
    ("-5 / 2", "-2"), ("-5 % 2", "-1"), ("5 % -2", "1"), ("(-2147483647-1) / -1", "-2147483648"),
    ("1 << 31", "-2147483648"), ("1 << 32", "0"), ("1 << -1", "0"), ("-1 >> 1", "-1"), ("-5 >> 1", "-3"),
    ("0xffffffff + 1", "0"), ("2147483647 + 1", "-2147483648"), ("1u - 2", "4294967295"),
    ("-1 < 1u", "0"), ("-1 < 1", "1"), ("(unsigned char)200 + (unsigned char)100", "300"),
    ("1LL << 40", "1099511627776"), ("(char)255 == 255", "1"), ("(signed char)255 == -1", "1"),
    ("-2147483648", "-2147483648"), ("0x7fffffff * 2", "-2"), ("3000000000u * 2", "1705032704"),
    # floats
    ("1.5 + 1", "2.5"), ("1.0 / 3", "0.33333333333333331"), ("0.1", "0.10000000000000001"), ("3.0", "3"),
    ("1e20", "1e+20"), ("1e16", "10000000000000000"), ("1e17", "1e+17"), ("1e-5", "1.0000000000000001e-05"),
    ("1e-4", "0.0001"), ("1.5f", "1.5"), ("1.5f / 3", "0.5"), ("1.0f / 3", "0.333333343"),
    ("(float)1 / 3", "0.333333343"), ("123456789.0f", "123456792"), ("16777217.0f", "16777216"),
    ("(double)(1.0f / 3)", "0.3333333432674408"), ("-1.5", "-1.5"), ("-0.0", "0"), ("2.5 > 2", "1"),
    ("!1.5", "0"), ("1.5 && 0", "0"), ("0.0 ? 1 : 2", "2"), ("1.0 / 0", "inf"), ("-1.0 / 0", "-inf"),
    ("1.5e300 * 1e300", "inf"), ("-(1.5e300 * 1e300)", "-inf"), ("0.0 / 0", "-nan(0x8000000000000)"),
    ("-(0.0 / 0)", "-nan(0x8000000000000)"), ("(float)(0.0 / 0)", "-nan(0x400000)"),
    ("(float)1e300", "inf"), ("1e300f", "inf"), ("1.5 == 1.5f", "1"), ("0.1 == 0.1f", "0"),
])
def test_operators(ctx: FakeContext, text: str, expected: str) -> None:
    assert p(ctx, text) == expected


@pytest.mark.parametrize("text, tname", [
    ("1 == 1", "int"), ("(char)1 + (char)1", "int"), ("1u + -1", "unsigned int"),
    ("1.5f + 1", "float"), ("1.5f + 1.0", "double"), ("!1.5", "int"), ("1 ? 2 : 3.0", "int"),
    ("(unsigned short)1 + 1", "int"), ("(unsigned int)1 + 1L", "unsigned int"),
    ("(unsigned long)1 + 1LL", "long long"), ("~(unsigned char)1", "int"), ("-(unsigned char)1", "int"),
    ("(long)1 << (long long)2", "long"), ("(uint32_t)1 >> 1", "uint32_t"), ("ptr - ptr", "long"),
    ("sizeof(int)", "int"), ("&results", "uint32_t (*)[16]"), ("&results[0]", "uint32_t *"),
    ("results + 0", "uint32_t *"), ("&main", "<text variable, no debug info> *"),
    ("&helper", "int (*)(void)"), ("helper", "int (void)"), ("$pc", "void (*)()"), ("$sp", "void *"),
    ("$a0", "long"), ("$fp", "void *"), ("&pt", "struct pt *"), ("&pt.y", "int *"), ("'A' + 1", "int"),
    ("fval * 2", "float"), ("dst[0][0]", "float"), ("dst32[0][0]", "int"),
    ("srca[0][0][0]", "float"), ("dst[0]", "float [16]"), ("srcb[1][2]", "int [16]"),
    ("dstbits[0][0]", "uint16_t"), ("dst32bits[0]", "uint32_t [16]"), ("srcabits[0][1][2]", "uint32_t"),
    ("cfg.ALU_FORMAT_SPEC_REG0_SrcA", "uint32_t"), ("results[1]@3", "uint32_t [3]"),
])
def test_result_types(ctx: FakeContext, text: str, tname: str) -> None:
    assert type_name(evaluate(text, ctx).ctype) == tname


@pytest.mark.parametrize("text, message", [
    ("1/0", "Division by zero"), ("1%0", "Division by zero"), ("counter / 0", "Division by zero"),
    ("1.5 % 2", "Integer-only operation on floating point number."),
    ("1.5 & 1", "Integer-only operation on floating point number."),
    ("1.5 << 1", "Integer-only operation on floating point number."),
    ("1 << 1.5", "Integer-only operation on floating point number."),
    ("~1.5", "Argument to complement operation not an integer, boolean."),
    ("-ptr", "Argument to negate operation not a number."),
    ("+pt", "Argument to positive operation not a number."),
    ("~ptr", "Argument to complement operation not an integer, boolean."),
    ("ptr * 2", "Argument to arithmetic operation not a number or boolean."),
    ("ptr + 1.5", "Argument to arithmetic operation not a number or boolean."),
    ("1 - ptr", "Argument to arithmetic operation not a number or boolean."),
    ("$nonexistent + 1", "Argument to arithmetic operation not a number or boolean."),
    ("pt + 1", "Argument to arithmetic operation not a number or boolean."),
    ("pt ? 1 : 2", "Argument to arithmetic operation not a number or boolean."),
    ("ptr - (char *)0", "First argument of `-' is a pointer and second argument is neither an integer "
                        "nor a pointer of the same type."),
])
def test_operator_errors(ctx: FakeContext, text: str, message: str) -> None:
    assert err(ctx, text) == message


def test_sizeof(ctx: FakeContext) -> None:
    for text, size in [("sizeof(int)", 4), ("sizeof(long)", 4), ("sizeof(long long)", 8), ("sizeof(char)", 1),
                       ("sizeof(int*)", 4), ("sizeof(results)", 64), ("sizeof results + 1", 65),
                       ("sizeof(pt)", 8), ("sizeof(struct pt)", 8), ("sizeof(pt_t)", 8), ("sizeof(double)", 8),
                       ("sizeof(int) * 2", 8), ("sizeof(1/0)", 4), ("sizeof results[0]", 4),
                       ("sizeof(uint32_t (*)[4])", 4), ("sizeof(uint16_t [3][2])", 12), ("sizeof(main)", 1)]:
        assert evaluate(text, ctx).raw == size, text
    before = bytes(ctx.mem)
    assert evaluate("sizeof(counter = 5)", ctx).raw == 4
    assert bytes(ctx.mem) == before  # sizeof evaluates nothing


def test_side_effect_free_evaluation(ctx: FakeContext) -> None:
    before = bytes(ctx.mem)
    v = evaluate("counter = 5", ctx, side_effects=False)
    assert type_name(v.ctype) == "int32_t"
    assert evaluate("$x = 3", ctx, side_effects=False).raw == 3 and "x" not in ctx.conv
    assert evaluate("1/0", ctx, side_effects=False).ctype == INT
    assert bytes(ctx.mem) == before and ctx.reads == 0


# -- casts -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("(int8_t)0xff", "-1 '\\377'"), ("(uint8_t)-1", "255 '\\377'"), ("(int16_t)0x18000", "-32768"),
    ("(uint16_t)-2", "65534"), ("(int32_t)0xffffffff", "-1"), ("(uint32_t)-1", "4294967295"),
    ("(int64_t)-1", "-1"), ("(uint64_t)-1", "18446744073709551615"), ("(unsigned long long)-1", "18446744073709551615"),
    ("(int)3.9", "3"), ("(int)-3.9", "-3"), ("(unsigned char)256", "0 '\\000'"), ("(float)0.1", "0.100000001"),
    ("(_Bool)5", "true"), ("(bool)0", "false"), ("(_Bool)0.5", "true"), ("(char)65", "65 'A'"),
    ("(char)200", "200 '\\310'"), ("(char)127", "127 '\\177'"), ("(unsigned char)1", "1 '\\001'"),
    ("(signed char)-3", "-3 '\\375'"), ("(short)-1", "-1"), ("(short int)-1", "-1"), ("(long int)-1", "-1"),
    ("(long long int)-1", "-1"), ("(unsigned short int)-1", "65535"), ("(unsigned)1", "1"),
    ("(signed)-1", "-1"), ("(const int)5", "5"), ("(volatile unsigned int)5", "5"),
    ("(long)main", "24576"), ("(int)&counter", "28736"), ("(int)results", "28672"), ("(double)7", "7"),
    ("(int)1e300", "0"), ("(long long)1e300", "-9223372036854775808"), ("(int)(0.0/0)", "0"),
    ("(uint32_t *)0", "(uint32_t *) 0x0"), ("(void *)&counter", "(void *) 0x7040 <counter>"),
    ("(uint8_t *)&counter", "0x7040 <counter> \"\\373\\377\\377\\377\\bp\""),
    ("(char *)&name", "0x7048 <name> \"hi\""), ("(pt_t *)&pt", "(struct pt *) 0x7058 <pt>"),
    ("(struct pt *)0x7058", "(struct pt *) 0x7058 <pt>"), ("*(pt_t *)&pt", "{x = 3, y = 4}"),
    ("(int (*)[4])&results", "(int (*)[4]) 0x7000 <results>"), ("*(int (*)[4])&results", "{1, 2, 3, 0}"),
    ("(void (*)(void))0x6000", "(void (*)(void)) 0x6000 <main>"), ("(void)5", "void"),
    ("(uint32_t)(uint8_t)0x1234", "52"), ("(int)(char)-1", "255"), ("(int)(int8_t)-1", "-1"),
])
def test_casts(ctx: FakeContext, text: str, expected: str) -> None:
    assert p(ctx, text) == expected


@pytest.mark.parametrize("text, message", [
    ("(foo)1", "A syntax error in expression, near `1'."),  # not a type: a parenthesized name
    ("(int)", "A syntax error in expression, near `'."),
    ("(int", "A syntax error in expression, near `'."),
    ("(struct nope *)0", "No struct type named nope."),
    ("(int int)1", "A syntax error in expression, near `)1'."),
    ("(long double)1", "A syntax error in expression, near `)1'."),
    ("(int *)1.5", "Invalid cast."),
    ("(int)pt", "Invalid cast."),
    ("(pt_t)1", "Invalid cast."),
    ("(int)$nonexistent", "Invalid cast."),
    ("int", "Attempt to use a type name as an expression"),
    ("uint32_t + 1", "Attempt to use a type name as an expression"),
])
def test_cast_errors(ctx: FakeContext, text: str, message: str) -> None:
    assert err(ctx, text) == message


@given(st.integers(-(1 << 63), (1 << 64) - 1))
def test_integer_casts_match_struct(value: int) -> None:
    """Truncation and sign extension against ``struct``'s C integer formats."""
    ctx = FakeContext()
    lit = f"{value}" if value >= 0 else f"({value})"
    for tname, code in [("int8_t", "b"), ("uint8_t", "B"), ("int16_t", "h"), ("uint16_t", "H"),
                        ("int32_t", "i"), ("uint32_t", "I"), ("int64_t", "q"), ("uint64_t", "Q")]:
        size = struct.calcsize(code)
        expected = struct.unpack(code, (value & ((1 << 8 * size) - 1)).to_bytes(size, "little"))[0]
        assert evaluate(f"({tname}){lit}", ctx).raw == expected


@settings(max_examples=300)
@given(st.integers(-(1 << 31), (1 << 31) - 1), st.integers(-(1 << 31), (1 << 31) - 1),
       st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^"]))
def test_int32_arithmetic_matches_numpy(a: int, b: int, op: str) -> None:
    """``int`` arithmetic against numpy's int32 (C truncating division, wrap-around)."""
    ctx = FakeContext()
    text = f"(int)({a}) {op} (int)({b})"
    if op in "/%" and b == 0:
        assert err(ctx, text) == "Division by zero"
        return
    if op in "/%":
        q = int(np.trunc(a / b))  # exact for 32-bit operands
        expected = q if op == "/" else a - q * b
    else:
        expected = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
    assert evaluate(text, ctx).raw == int(np.array(expected, dtype=np.int64).astype(np.int32))


# -- symbols, pointers, arrays, members -----------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("results", "{1, 2, 3, 0 <repeats 11 times>, 7, 7}"), ("results[1]", "2"), ("results[14] + results[15]", "14"),
    ("counter", "-5"), ("ptr", "(uint32_t *) 0x7008 <results+8>"), ("*ptr", "3"), ("ptr[1]", "0"),
    ("ptr[-1]", "2"), ("ptr + 1", "(uint32_t *) 0x700c <results+12>"), ("1 + ptr", "(uint32_t *) 0x700c <results+12>"),
    ("ptr - 2", "(uint32_t *) 0x7000 <results>"), ("ptr - &results[0]", "2"), ("&results", "(uint32_t (*)[16]) 0x7000 <results>"),
    ("&results[1]", "(uint32_t *) 0x7004 <results+4>"), ("*&results[1]", "2"), ("*results", "1"),
    ("results + 1", "(uint32_t *) 0x7004 <results+4>"), ("*(results + 2)", "3"), ("&counter", "(int32_t *) 0x7040 <counter>"),
    ("results == ptr", "0"), ("results + 2 == ptr", "1"), ("ptr > results", "1"), ("!ptr", "0"), ("ptr && 1", "1"),
    ("ptr == 0x7008", "1"), ("fval", "1.5"), ("fval * 2", "3"), ("dval", "0.10000000000000001"), ("flag", "true"),
    ("name", '"hi\\000\\000\\000\\000\\000"'), ("name[1]", "105 'i'"), ("str_ptr", '0x8100 "hello"'),
    ("*str_ptr", "104 'h'"), ("null_str", "0x0"), ("bad_str", "0xdead0000 <error: Cannot access memory at address 0xdead0000>"),
    ("pt", "{x = 3, y = 4}"), ("pt.x", "3"), ("pt.y * 2", "8"), ("(&pt)->y", "4"), ("pt->x", "3"),
    ("&pt.y", "(int *) 0x705c <pt+4>"), ("&pt", "(struct pt *) 0x7058 <pt>"),
    ("main", "{<text variable, no debug info>} 0x6000 <main>"), ("*main", "{<text variable, no debug info>} 0x6000 <main>"),
    ("&main", "(<text variable, no debug info> *) 0x6000 <main>"),
    ("main + 4", "(<text variable, no debug info> *) 0x6004 <main+4>"), ("main == main", "1"),
    ("helper", "{int (void)} 0x6040 <helper>"), ("&helper", "(int (*)(void)) 0x6040 <helper>"),
    ("(int)raw_sym", "1"), ("(char)raw_sym", "1 '\\001'"), ("&raw_sym", "(<data variable, no debug info> *) 0x7050 <raw_sym>"),
    ("*&raw_sym", "<data variable, no debug info>"), ("*(int *)&raw_sym", "1"), ("{int}&raw_sym", "1"),
    ("'counter' + 1", "-4"), ("{uint32_t}0x7000", "1"), ("{uint16_t}0x7008", "3"), ("*(uint32_t *)0x7004", "2"),
    ("{int32_t}&counter", "-5"), ("*0x7000", "1"), ("{uint8_t}(0x7000 + 4)", "2 '\\002'"),
    ("results[1]@3", "{2, 3, 0}"), ("*ptr@2", "{3, 0}"), ("counter@1", "{-5}"), ("dst", "77"), ("'dst'", "77"),
    ("dst + 1", "78"),
])
def test_symbols_and_memory(ctx: FakeContext, text: str, expected: str) -> None:
    assert p(ctx, text) == expected


@pytest.mark.parametrize("text, message", [
    ("nosuch", 'No symbol "nosuch" in current context.'),
    ("'ab'", 'No symbol "ab" in current context.'),
    ("raw_sym", "'raw_sym' has unknown type; cast it to its declared type"),
    ("raw_sym[1]", "'raw_sym' has unknown type; cast it to its declared type"),
    ("raw_sym + 1", "'raw_sym' has unknown type; cast it to its declared type"),
    ("sizeof(raw_sym)", "'raw_sym' has unknown type; cast it to its declared type"),
    ("{int}raw_sym", "'raw_sym' has unknown type; cast it to its declared type"),
    ("&raw_sym + 1", 'Cannot perform pointer math on incomplete type "<data variable, no debug info>", '
                     "try casting to a known type, or void *."),
    ("pt.z", "There is no member named z."),
    ("counter.x", "Attempt to extract a component of a value that is not a structure."),
    ("ptr->x", "Attempt to extract a component of a value that is not a structure pointer."),
    ("counter->x", "Attempt to extract a component of a value that is not a structure pointer."),
    ("counter[1]", "cannot subscript something of type `int32_t'"),
    ("*(void *)0x7000", "Attempt to take contents of a non-pointer value."),
    ("*1.5", "Attempt to take contents of a non-pointer value."),
    ("*pt", "Attempt to take contents of a non-pointer value."),
    ("&5", "Attempt to take address of value not located in memory."),
    ("&$pc", "Attempt to take address of value not located in memory."),
    ("&dst[0][0]", "Attempt to take address of value not located in memory."),
    ("dst[0] + 1", "Attempt to take address of value not located in memory."),
    ("counter@0", "Invalid number 0 of repetitions."),
    ("5@2", "Only values in memory can be extended with '@'."),
    ("results[0]@100000", "value requires 400000 bytes, which is more than max-value-size"),
    ("*(int *)0xdeadbeef", "Cannot access memory at address 0xdeadbeef"),
    ("{int}0", "Cannot access memory at address 0x0"),
    ("results[99999999]", "Cannot access memory at address 0x17d7f3fc"),
    ("main()", "Calling firmware functions is not supported."),
])
def test_symbol_errors(ctx: FakeContext, text: str, message: str) -> None:
    assert err(ctx, text) == message


def test_self_referencing_struct(ctx: FakeContext) -> None:
    """An incomplete struct is completed through ``lookup_type`` when the object is reached."""
    assert p(ctx, "head") == "{v = 1, next = 0x7148 <head+8>}"
    assert p(ctx, "head.next->v") == "2"
    assert p(ctx, "*head.next") == "{v = 2, next = 0x0}"
    assert p(ctx, "head.next->next") == "(struct node *) 0x0"
    assert p(ctx, "head.next + 1") == "(struct node *) 0x7150"
    assert p(ctx, "sizeof(*head.next)") == "8"
    assert p(ctx, "head.next->v = 5") == "5" and p(ctx, "head.next[0].v") == "5"
    assert err(ctx, "head.next->next->v") == "Cannot access memory at address 0x0"
    assert p(ctx, "*(struct opaque *)0x7000") == "<incomplete type>"
    assert err(ctx, "(*(struct opaque *)0x7000).x") == "There is no member named x."


def test_register_variables(ctx: FakeContext) -> None:
    """A local the compiler keeps in a register reads and writes that register."""
    assert p(ctx, "loop_i") == "41" and p(ctx, "loop_i * 2") == "82"
    assert p(ctx, "loop_i = -7") == "-7" and ctx.regs["s1"] == 0xFFFFFFF9
    assert p(ctx, "loop_i++") == "-7" and p(ctx, "$s1") == "-6"
    assert p(ctx, "half") == "1.5" and p(ctx, "half = 2") == "2" and ctx.regs["a1"] == 0x40000000
    assert evaluate("loop_i", ctx).lval is Lval.REGISTER
    assert err(ctx, "&loop_i") == 'Address requested for identifier "loop_i" which is in register $s1'


def test_lazy_reads(ctx: FakeContext) -> None:
    """Taking an address or the size of an object does not read it."""
    for text in ("&results[3]", "&*(int *)0xdeadbeef", "sizeof(*(int *)0xdeadbeef)", "&big", "main", "&pt.y"):
        ctx.reads = 0
        evaluate(text, ctx)
        assert ctx.reads == 0, text


# -- registers, convenience variables, history -----------------------------------------------------

def test_registers(ctx: FakeContext) -> None:
    assert p(ctx, "$pc") == "(void (*)()) 0x6004 <main+4>"
    assert p(ctx, "$ra") == "(void (*)()) 0x6040 <helper>"
    assert p(ctx, "$sp") == "(void *) 0x8ff0"
    assert p(ctx, "$fp") == p(ctx, "$s0") == p(ctx, "$x8") == "(void *) 0x8ff8"
    assert p(ctx, "$a0") == p(ctx, "$x10") == "5"
    assert p(ctx, "$zero") == p(ctx, "$x0") == "0"
    assert p(ctx, "$pc", "x") == "0x6004"
    assert p(ctx, "$mstatus") == "6144"  # a register the context knows beyond the GPRs
    assert p(ctx, "$a0 = -1") == "-1"
    assert ctx.regs["a0"] == 0xFFFFFFFF and p(ctx, "$a0") == "-1" and p(ctx, "$a0", "x") == "0xffffffff"
    assert p(ctx, "$pc = main") == "(void (*)()) 0x6000 <main>" and ctx.regs["pc"] == 0x6000
    assert p(ctx, "$pc += 4") == "(void (*)()) 0x6004 <main+4>" and ctx.regs["pc"] == 0x6004
    assert p(ctx, "$sp = $sp - 16") == "(void *) 0x8fe0"
    assert p(ctx, "$t0 = 1.9") == "1" and ctx.regs["t0"] == 1
    assert p(ctx, "$a0++") == "-1" and ctx.regs["a0"] == 0
    assert p(ctx, "--$a0") == "-1"
    assert p(ctx, "*(int *)$sp") == "0"
    assert evaluate("$a0", ctx).lval is Lval.REGISTER
    assert err(ctx, "$t6") == "Invalid register `t6'"  # the context has no such register


def test_convenience_variables(ctx: FakeContext) -> None:
    assert p(ctx, "$foo") == "void"
    assert p(ctx, "$foo = 5") == "5"
    assert p(ctx, "$foo") == "5" and ctx.conv["foo"].lval is None
    assert p(ctx, "$foo += 2") == "7"
    assert p(ctx, "$foo++") == "7" and p(ctx, "$foo") == "8"
    assert p(ctx, "++$foo") == "9"
    assert p(ctx, "$foo = 1.5") == "1.5" and type_name(evaluate("$foo", ctx).ctype) == "double"
    assert p(ctx, "$a = $b = 3") == "3" and p(ctx, "$a + $b") == "6"
    assert p(ctx, "$arr = results") == "{1, 2, 3, 0 <repeats 11 times>, 7, 7}"
    evaluate("results[0] = 100", ctx)
    assert p(ctx, "$arr[0]") == "1"  # a copy, not the memory
    assert p(ctx, "$p = &results[2]") == "(uint32_t *) 0x7008 <results+8>" and p(ctx, "*$p") == "3"
    assert p(ctx, "$f = main") == "{<text variable, no debug info>} 0x6000 <main>" and p(ctx, "$f + 1") == \
        "(<text variable, no debug info> *) 0x6001 <main+1>"


def test_history(ctx: FakeContext) -> None:
    assert err(ctx, "$") == "The history is empty."
    assert err(ctx, "$$") == "History does not go back to $$1."
    assert err(ctx, "$1") == "History has not yet reached $1."
    ctx.values += [evaluate("results", ctx), evaluate("10", ctx), evaluate("&counter", ctx)]
    assert p(ctx, "$") == p(ctx, "$0") == p(ctx, "$$0") == p(ctx, "$3") == "(int32_t *) 0x7040 <counter>"
    assert p(ctx, "$$") == p(ctx, "$$1") == p(ctx, "$2") == "10"
    assert p(ctx, "$$2") == p(ctx, "$1") == "{1, 2, 3, 0 <repeats 11 times>, 7, 7}"
    assert p(ctx, "$1[2] + $2") == "13"
    assert p(ctx, "*$") == "-5"
    assert err(ctx, "$$3") == "History does not go back to $$3."
    assert err(ctx, "$4") == "History has not yet reached $4."
    assert err(ctx, "$1[16]") == "no such vector element"
    assert err(ctx, "$2 = 3") == "Left operand of assignment is not an lvalue."
    evaluate("results[2] = 9", ctx)
    assert p(ctx, "$1[2]") == "3"  # history keeps the value it had


# -- assignment through every lvalue kind ---------------------------------------------------------------

def test_memory_assignment(ctx: FakeContext) -> None:
    assert p(ctx, "counter = 7") == "7" and u32(ctx, 0x7040) == 7
    assert p(ctx, "counter += 10") == "17" and p(ctx, "counter") == "17"
    assert p(ctx, "counter -= 20") == "-3" and u32(ctx, 0x7040) == 0xFFFFFFFD
    assert p(ctx, "counter *= -2") == "6"
    assert p(ctx, "counter /= 4") == "1"
    assert p(ctx, "counter <<= 4") == "16"
    assert p(ctx, "counter >>= 2") == "4"
    assert p(ctx, "counter |= 3") == "7"
    assert p(ctx, "counter &= 5") == "5"
    assert p(ctx, "counter ^= 1") == "4"
    assert p(ctx, "counter %= 3") == "1"
    assert p(ctx, "counter++") == "1" and p(ctx, "counter") == "2"
    assert p(ctx, "counter--") == "2" and p(ctx, "--counter") == "0"
    assert p(ctx, "results[3] = 9") == "9" and u32(ctx, 0x700C) == 9
    assert p(ctx, "*ptr = 11") == "11" and u32(ctx, 0x7008) == 11
    assert p(ctx, "ptr[1] = 12") == "12" and u32(ctx, 0x700C) == 12
    assert p(ctx, "name[0] = 'H'") == "72 'H'" and p(ctx, "name") == '"Hi\\000\\000\\000\\000\\000"'
    assert p(ctx, "pt.y = 9") == "9" and p(ctx, "pt") == "{x = 3, y = 9}"
    assert p(ctx, "(&pt)->x = -1") == "-1" and p(ctx, "pt") == "{x = -1, y = 9}"
    assert p(ctx, "fval = 2") == "2" and ctx.mem[0x7054 - BASE:0x7058 - BASE] == struct.pack("<f", 2.0)
    assert p(ctx, "dval = 1/3.0") == "0.33333333333333331"
    assert p(ctx, "flag = 0") == "false" and ctx.mem[0x7070 - BASE] == 0
    assert p(ctx, "flag = 7") == "true" and ctx.mem[0x7070 - BASE] == 1
    assert p(ctx, "ptr = &results[4]") == "(uint32_t *) 0x7010 <results+16>" and u32(ctx, 0x7044) == 0x7010
    assert p(ctx, "ptr += 2") == "(uint32_t *) 0x7018 <results+24>"
    assert p(ctx, "ptr++") == "(uint32_t *) 0x7018 <results+24>" and u32(ctx, 0x7044) == 0x701C
    assert p(ctx, "'dst' = 5") == "5" and u32(ctx, 0x7074) == 5
    assert p(ctx, "$v = results[0]@2") == "{1, 2}"
    assert p(ctx, "results[0]@2 = $v") == "{1, 2}"
    assert p(ctx, "(int)raw_sym = 0x102") == "258" and u32(ctx, 0x7050) == 0x102


def test_memory_at_assignment(ctx: FakeContext) -> None:
    """``set {TYPE}ADDR = V`` and ``set *(TYPE *)ADDR = V`` write exactly TYPE's bytes."""
    evaluate("{uint32_t}0x7000 = 0x12345678", ctx)
    assert u32(ctx, 0x7000) == 0x12345678
    evaluate("{uint16_t}0x7000 = 0xbeef", ctx)
    assert u32(ctx, 0x7000) == 0x1234BEEF
    evaluate("{uint8_t}0x7000 = 0x1ff", ctx)
    assert u32(ctx, 0x7000) == 0x1234BEFF
    evaluate("{int8_t}0x7003 = -1", ctx)
    assert u32(ctx, 0x7000) == 0xFF34BEFF
    evaluate("{int16_t}0x7002 = -2", ctx)
    assert u32(ctx, 0x7000) == 0xFFFEBEFF
    evaluate("*(uint32_t *)0x7004 = -1", ctx)
    assert u32(ctx, 0x7004) == 0xFFFFFFFF
    evaluate("*(uint64_t *)0x7008 = 0x1122334455667788", ctx)
    assert (u32(ctx, 0x7008), u32(ctx, 0x700C)) == (0x55667788, 0x11223344)
    evaluate("{float}0x7010 = 1", ctx)
    assert u32(ctx, 0x7010) == 0x3F800000
    ctx.reads = 0
    evaluate(f"{{uint32_t}}{WRITE_ONLY:#x} = 0x12345678", ctx)  # never read first
    assert ctx.write_only[WRITE_ONLY] == struct.pack("<I", 0x12345678) and ctx.reads == 0
    assert err(ctx, "{int}0x100 = 1") == "Cannot access memory at address 0x100"


@pytest.mark.parametrize("text, message", [
    ("5 = 3", "Left operand of assignment is not an lvalue."),
    ("3--", "Left operand of assignment is not an lvalue."),
    ("++3", "Left operand of assignment is not an lvalue."),
    ("(counter + 1) = 2", "Left operand of assignment is not an lvalue."),
    ("1 ? 2 : 3 = 4", "Left operand of assignment is not an lvalue."),
    ("dst[0] = 1", "Left operand of assignment is not an lvalue."),
    ("results = 1", "Invalid cast."),
    ("pt = 1", "Invalid cast."),
    ("counter = pt", "Invalid cast."),
    ("ptr = 1.5", "Invalid cast."),
])
def test_assignment_errors(ctx: FakeContext, text: str, message: str) -> None:
    assert err(ctx, text) == message


def test_tensix_lvalues(ctx: FakeContext) -> None:
    # data elements have the type of their format in force: arithmetic and comparisons are C's
    ctx.tensix_vals["dst", 3, 4] = 1.5
    assert p(ctx, "dst[3][4]") == "1.5" and p(ctx, "dst[3][4] == 1.5") == "1"
    assert p(ctx, "dst[3][4] = 7") == "7" and ctx.tensix_vals["dst", 3, 4] == 7.0  # converted to float
    assert isinstance(ctx.tensix_vals["dst", 3, 4], float)
    assert p(ctx, "dst[3][4] += 0.5") == "7.5"
    assert p(ctx, "dst[1+2][2*2]++") == "7.5" and ctx.tensix_vals["dst", 3, 4] == 8.5
    assert p(ctx, "dst32[2][1] = -5") == "-5" and ctx.tensix_vals["dst32", 2, 1] == 0xFFFFFFFB  # int
    assert p(ctx, "dst32[2][1] = 2.9") == "2" and p(ctx, "dst32[2][1] * 2") == "4"
    assert p(ctx, "srca[1][2][3] = 0.25") == "0.25" and ctx.tensix_vals["srca", 1, 2, 3] == 0.25
    assert p(ctx, "srcb[0][63][15] = 5") == "5" and ctx.tensix_vals["srcb", 0, 63, 15] == 5
    assert p(ctx, "srca[1][2][3] + srcb[0][63][15]") == "5.25"
    # raw bits: unsigned, wrapping in their width
    assert p(ctx, "dstbits[3][4] = 0x1bf80") == "49024" and ctx.tensix_vals["dstbits", 3, 4] == 0xBF80
    assert p(ctx, "dst32bits[2][1] = 0xdeadbeef", "x") == "0xdeadbeef"
    assert p(ctx, "srcabits[0][1][2] = 7") == "7" and p(ctx, "srcbbits[1][1][2]") == "0"
    assert p(ctx, "dst[3]") == "{0, 0, 0, 0, 8.5, 0 <repeats 11 times>}"
    assert p(ctx, "dstbits[3]", "x") == "{0x0, 0x0, 0x0, 0x0, 0xbf80, 0x0 <repeats 11 times>}"
    assert p(ctx, "srcb[0][63]") == "{0 <repeats 15 times>, 5}"
    assert p(ctx, "dst[3][4] == dst[3][4]") == "1"
    assert evaluate("dst[0][0]", ctx).lval is Lval.TENSIX
    assert evaluate("srcb[1][2][3]", ctx).location == ("srcb", 1, 2, 3)
    assert evaluate("dst32[7][1]", ctx).location == ("dst32", 7, 1)
    ctx.undefined.add(("dst32", 9, 0))
    assert err(ctx, "dst32[9][0] + 1") == "dst32[9, 0] is undefined"
    assert evaluate("dst32[9][0]", ctx, side_effects=False).ctype is INT  # whatis reads nothing
    assert p(ctx, "cfg.RISC_DEST_ACCESS_CTRL_SEC0_fmt") == "5"
    assert p(ctx, "cfg.RISC_DEST_ACCESS_CTRL_SEC0_fmt = 2") == "2" and ctx.cfg_vals["RISC_DEST_ACCESS_CTRL_SEC0_fmt"] == 2
    assert p(ctx, "cfg.ALU_FORMAT_SPEC_REG0_SrcA |= 0x10") == "16"
    assert err(ctx, "cfg.NOPE") == 'No config field "NOPE".'
    assert err(ctx, "cfg.NOPE = 1") == 'No config field "NOPE".'
    assert err(ctx, "dst[1024][0]") == "row 1024 out of range (0..1023)"
    assert err(ctx, "dst[0][16] = 1") == "column 16 out of range (0..15)"
    assert err(ctx, "dst32[512][0]") == "row 512 out of range (0..511)"
    assert err(ctx, "srca[0]") == "Usage: srca[BANK][ROW][COL] or srca[BANK][ROW]."
    assert err(ctx, "dst[1.5][0]") == "Argument to arithmetic operation not a number or boolean."


def test_tensix_nodes() -> None:
    """The ``x`` command tells a Tensix row from an element by the parse tree."""
    row, element = parse("dst[3]"), parse("srca[1][2][3]")
    assert isinstance(row, TensixRef) and row.array == "dst" and row.is_row
    assert isinstance(element, TensixRef) and not element.is_row
    assert parse("cfg.X") == CfgRef("X")
    assert not isinstance(parse("'dst'"), TensixRef)


def test_parsed_node_reevaluates(ctx: FakeContext) -> None:
    node = parse("counter > 0 && results[1] == 2")
    assert evaluate(node, ctx).raw == 0
    evaluate("counter = 1", ctx)
    assert evaluate(node, ctx).raw == 1


# -- syntax ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, near", [
    ("1 +", ""), ("(1 + 2", ""), ("1 + )", ")"), ("1 : 2", ": 2"), ("3 3", "3"), (",", ","), ("", ""),
    (")", ")"), ("1 ? 2", ""), ("1 ?", ""), ("1 ==", ""), ("1.2.3", ".3"), ("pt.", ""), ("pt.3", ".3"),
    ("a[1", ""), ("{int 0x10", "0x10"), ("$1abc", "$1abc"), ("sizeof", ""), ("results[]", "]"),
])
def test_syntax_errors(ctx: FakeContext, text: str, near: str) -> None:
    assert err(ctx, text) == f"A syntax error in expression, near `{near}'."


# -- print formats ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, fmt, expected", [
    ("-1", "x", "0xffffffff"), ("10", "t", "1010"), ("8", "o", "010"), ("65", "c", "65 'A'"),
    ("0", "t", "0"), ("0", "o", "0"), ("0", "x", "0x0"), ("5", "z", "0x00000005"), ("-1", "z", "0xffffffff"),
    ("-1", "o", "037777777777"), ("-1", "t", "1" * 32), ("-1", "u", "4294967295"), ("-1", "d", "-1"),
    ("-1LL", "x", "0xffffffffffffffff"), ("(char)-1", "x", "0xff"), ("(short)-2", "x", "0xfffe"),
    ("(char)5", "z", "0x05"), ("(short)5", "z", "0x0005"), ("(char)5", "t", "101"),
    ("(unsigned)4294967295", "d", "-1"), ("(char)-1", "u", "255"), ("(unsigned char)200", "d", "-56"),
    ("'a'", "x", "0x61"), ("'A'", "d", "65"), ("1 == 1", "x", "0x1"),
    ("300", "c", "44 ','"), ("128", "c", "-128 '\\200'"), ("200", "c", "-56 '\\310'"), ("-3", "c", "-3 '\\375'"),
    ("1", "c", "1 '\\001'"), ("127", "c", "127 '\\177'"), ("(unsigned char)200", "c", "200 '\\310'"),
    ("1.5", "c", "1 '\\001'"), ("counter", "c", "-5 '\\373'"), ("10", "c", "10 '\\n'"), ("39", "c", "39 '\\''"),
    ("92", "c", "92 '\\\\'"), ("27", "c", "27 '\\033'"),
    ("1.5", "x", "0x3ff8000000000000"), ("1.5", "d", "4609434218613702656"), ("1.5f", "x", "0x3fc00000"),
    ("1.5", "t", "11111111111000000000000000000000000000000000000000000000000000"), ("1.5", "a", "0x1"),
    ("fval", "x", "0x3fc00000"), ("fval", "f", "1.5"), ("dval", "x", "0x3fb999999999999a"),
    ("3", "f", "4.20389539e-45"), ("1065353216", "f", "1"), ("(char)65", "f", "65"), ("(short)1", "f", "1"),
    ("1LL", "f", "4.9406564584124654e-324"), ("4607182418800017408LL", "f", "1"), ("counter", "f", "-nan(0x7ffffb)"),
    ("0x6000", "a", "0x6000 <main>"), ("main + 4", "a", "0x6004 <main+4>"), ("0x10", "a", "0x10"), ("0", "a", "0x0"),
    ("-1", "a", "0xffffffff"), ("ptr", "a", "0x7008 <results+8>"), ("ptr", "x", "0x7008"), ("ptr", "d", "28680"),
    ("ptr", "s", "(uint32_t *) 0x7008 <results+8>"), ("counter", "s", "-5"), ("counter", "u", "4294967291"),
    ("counter", "o", "037777777773"), ("flag", "x", "0x1"), ("flag", "d", "1"),
    ("main", "x", "0x6000"), ("$foo", "x", "void"),
    ("results", "x", "{0x1, 0x2, 0x3, 0x0 <repeats 11 times>, 0x7, 0x7}"),
    ("results", "a", "{0x1, 0x2, 0x3, 0x0 <repeats 11 times>, 0x7, 0x7}"),
    ("results", "c", "{1 '\\001', 2 '\\002', 3 '\\003', 0 '\\000' <repeats 11 times>, 7 '\\a', 7 '\\a'}"),
    ("name", "x", "{0x68, 0x69, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}"), ("name", "d", "{104, 105, 0, 0, 0, 0, 0, 0}"),
    ("name", "s", '"hi\\000\\000\\000\\000\\000"'), ("bytes4", "c", "{1 '\\001', 2 '\\002', 3 '\\003', 4 '\\004'}"),
    ("bytes4", "x", "{0x1, 0x2, 0x3, 0x4}"), ("pt", "x", "{x = 0x3, y = 0x4}"),
    ("*(float (*)[2])&fval", "x", "{0x3fc00000, 0x3}"), ("*(float (*)[2])&fval", "d", "{1069547520, 3}"),
    ("results[0]@3", "x", "{0x1, 0x2, 0x3}"),
])
def test_print_formats(ctx: FakeContext, text: str, fmt: str, expected: str) -> None:
    assert p(ctx, text, fmt) == expected


@pytest.mark.parametrize("text, expected", [
    ("ten", "{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 2}"),  # ten equal elements are still listed
    ("eleven", "{5 <repeats 11 times>, 2}"),
    ("big", "{0 <repeats 300 times>}"),
    ("big2", "{" + ", ".join(map(str, range(1, 201))) + "...}"),  # print elements 200
    ("zeros", '"\\000\\000\\000\\000\\000\\000\\000"'),
    ("buf", '"hi", \'\\000\' <repeats 29 times>'),
    ("full", '"abcd"'),
    ("rep", "'a' <repeats 15 times>, \"b\\000\\000\\000\""),
    ("quote", '"a\\"b\'\\\\\\n\\t"'),
    ("bytes4", '"\\001\\002\\003\\004"'),
    ("*(int8_t (*)[3])&counter", '"\\373\\377\\377"'),
    ("'A'", "65 'A'"), ("'\\n'", "10 '\\n'"), ("'\\0'", "0 '\\000'"), ("'\\''", "39 '\\''"),
    ("(char)200", "200 '\\310'"), ("(int8_t)-3", "-3 '\\375'"),
    ("*(float (*)[3])&fval", "{1.5, 4.20389539e-45, 5.60519386e-45}"),
    ("*(double (*)[1])&dval", "{0.10000000000000001}"),
    ("*(struct pt (*)[2])&pt", "{{x = 3, y = 4}, {x = 33024, y = 0}}"),
    ("*(uint32_t *(*)[2])&ptr", "{0x7008 <results+8>, 0x6968}"),
    ("*(char *(*)[2])&str_ptr", '{0x8100 "hello", 0x0}'),
    ("*(_Bool (*)[2])&flag", "{true, false}"),
    ("*(uint16_t (*)[2][3])&results", "{{1, 0, 2}, {0, 3, 0}}"),
])
def test_default_formats(ctx: FakeContext, text: str, expected: str) -> None:
    assert p(ctx, text) == expected


def test_long_strings(ctx: FakeContext) -> None:
    ctx.mem[0x8200 - BASE:0x8200 - BASE + 250] = b"x" * 5 + bytes(range(33, 126)) * 2 + b"y" * 59
    ctx.mem[0x8300 - BASE:0x8300 - BASE + 4] = b"ok\0\0"
    evaluate("$s = (char *)0x8200", ctx)
    text = p(ctx, "$s")
    body = "".join("\\\\" if chr(c) == "\\" else '\\"' if chr(c) == '"' else chr(c) for c in range(33, 126)) * 2
    assert text == '0x8200 "xxxxx' + body + "yyyyyyyyy" + '"...'  # 200 characters, then "..."
    assert p(ctx, "(char *)0x8300") == '0x8300 "ok"'
    assert p(ctx, "(char *)0x8ffe") == '0x8ffe ""'
    assert p(ctx, "*(char (*)[2])0x8ffe") == '"\\000"'


def test_char_pointer_running_off_memory(ctx: FakeContext) -> None:
    ctx.mem[-3:] = b"abc"
    assert p(ctx, "(char *)0x8ffd") == '0x8ffd "abc"<error: Cannot access memory at address 0x9000>'


@pytest.mark.parametrize("fmt, message", [
    ("q", 'Undefined output format "q".'),
    ("i", 'Format letter "i" is meaningless in "print" command.'),
])
def test_format_errors(ctx: FakeContext, fmt: str, message: str) -> None:
    assert err(ctx, "5", fmt) == message


# -- types ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("uint32_t", UINT32), ("unsigned int", UINT), ("unsigned", UINT), ("int *", pointer_to(INT)),
    ("unsigned char", UCHAR), ("char", CHAR), ("long long int", LLONG), ("long unsigned long", ULLONG),
    ("long", LONG), ("const volatile int", INT), ("int * const *", pointer_to(pointer_to(INT))),
    ("uint16_t [4]", array_of(UINT16, 4)), ("uint8_t (*)[4]", pointer_to(array_of(UINT8, 4))),
    ("int (*)(void)", pointer_to(function_type(INT))), ("void (*)()", pointer_to(function_type(BUILTIN_TYPES["void"], None))),
    ("struct pt", PT), ("pt_t *", pointer_to(PT)), ("double", DOUBLE), ("float", FLOAT),
])
def test_parse_type(text: str, expected: CType) -> None:
    assert parse_type(text, FakeContext().lookup_type) == expected


@pytest.mark.parametrize("text, message", [
    ("foo", 'No symbol "foo" in current context.'),
    ("int int", "A syntax error in expression, near `'."),
    ("short char", "A syntax error in expression, near `'."),
    ("int *)", "A syntax error in expression, near `)'."),
    ("struct pt", "No struct type named pt."),  # no debug-info types without a lookup
    ("5", "A syntax error in expression, near `5'."),
])
def test_parse_type_errors(text: str, message: str) -> None:
    with pytest.raises(ExprError) as info:
        parse_type(text)
    assert str(info.value) == message


@pytest.mark.parametrize("ctype, name", [
    (pointer_to(UINT32), "uint32_t *"), (array_of(UINT32, 16), "uint32_t [16]"),
    (pointer_to(array_of(UINT32, 16)), "uint32_t (*)[16]"), (array_of(pointer_to(CHAR), 3), "char *[3]"),
    (array_of(array_of(INT, 3), 2), "int [2][3]"), (function_type(INT), "int (void)"),
    (pointer_to(function_type(INT, (INT, pointer_to(CHAR)))), "int (*)(int, char *)"),
    (pointer_to(pointer_to(INT)), "int **"), (CType("x", 4, "pointer", target=INT), "x"),
])
def test_type_names(ctype: CType, name: str) -> None:
    assert type_name(ctype) == name


def test_ctype_accepts_plain_kind_strings() -> None:
    t = CType("my_ptr", 4, "pointer", target=INT)  # type: ignore[arg-type]
    assert t.kind is Kind.POINTER
    assert CType("u32", 4, "int") == CType("u32", 4, Kind.INT)  # type: ignore[arg-type]


def test_value_as_address(ctx: FakeContext) -> None:
    assert value_as_address(evaluate("results", ctx)) == 0x7000
    assert value_as_address(evaluate("ptr", ctx)) == 0x7008
    assert value_as_address(evaluate("main", ctx)) == 0x6000
    assert value_as_address(evaluate("$sp", ctx)) == 0x8FF0
    assert value_as_address(evaluate("-1", ctx)) == 0xFFFFFFFF
    with pytest.raises(ExprError, match="not located in memory"):
        value_as_address(evaluate("dst[0]", ctx))
    with pytest.raises(ExprError, match="Invalid cast"):
        value_as_address(evaluate("1.5", ctx))


# -- robustness -------------------------------------------------------------------------------------

_PIECES = st.sampled_from([
    "1", "0x10", "07", "1.5", "1e3", "'a'", '"s"', "(", ")", "[", "]", "{", "}", "+", "-", "*", "/", "%", "<<", ">>",
    "<", ">", "==", "!=", "&", "&&", "|", "||", "^", "~", "!", "?", ":", ",", "=", "+=", "++", "--", "@", ".", "->",
    "$", "$$", "$1", "$pc", "$sp", "$a0", "$foo", "results", "counter", "ptr", "pt", "x", "main", "raw_sym", "name",
    "dst", "dst32", "srca", "srcb", "cfg", "cfg.RISC_DEST_ACCESS_CTRL_SEC0_fmt", "int", "uint8_t", "unsigned", "char",
    "struct pt", "pt_t", "sizeof", "0", "-1", "0xffffffff", " ", "'", '"', "\\", "#",
])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=30), st.lists(_PIECES, max_size=14).map("".join)),
       st.sampled_from([None, *"xduotacfsz"]))
def test_random_input_raises_only_expr_error(text: str, fmt: str | None) -> None:
    ctx = FakeContext()
    ctx.values.append(evaluate("results", ctx))
    try:
        format_value(evaluate(text, ctx), fmt, ctx)
    except ExprError as e:
        assert str(e) and "\n" not in str(e)


def test_deep_nesting_is_an_expr_error(ctx: FakeContext) -> None:
    for text in ("(" * 5000 + "1" + ")" * 5000, "-" * 5000 + "1", "+".join(["1"] * 5000)):
        try:
            evaluate(text, ctx)
        except ExprError as e:
            assert str(e) == "Expression too deeply nested."
