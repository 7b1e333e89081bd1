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
              | TENSIX[R][C] | TENSIX[R] (dst dst32 dstbits dst32bits lreg lregbits)
              | TENSIX[B][R][C] | TENSIX[B][R] (srca srcb srcabits srcbbits) | cfg.FIELD | '(' expr ')'

``A@N`` is GDB's artificial array (N objects starting at lvalue ``A``), ``{T} ADDR`` the object
of type ``T`` at ``ADDR``.  ``dst[R][C]`` is the ``Dst16b`` element and ``dst32[R][C]`` the
``Dst32b`` element, ``srca/srcb[B][R][C]`` a ``SrcA``/``SrcB`` element, each a value in the
format the configuration says the data has (``float`` or ``int``; the session's rule, e.g. the
window format of the current core for ``Dst``); ``dstbits[R][C]`` (``DstBits``, the 16 stored
bits, no row mapping), ``dst32bits[R][C]``, ``srcabits``/``srcbbits[B][R][C]`` are the raw bits.
``lreg[N][LANE]`` is lane ``LANE`` of the Vector Unit's ``LReg[N]`` as FP32, ``lregbits[N][LANE]``
its 32 bits (``$lregN`` is the whole LReg as ``float[32]``, a value).
``cfg.NAME`` is a config field by its ``cfg_defines.h`` name.  All are assignable (an element is
read only when used); with one index fewer they are a whole row (16 elements, an LReg's 32;
not an lvalue).  These forms win over firmware
symbols of the same name only where written so (``dst[``, ``cfg.``); ``'dst'`` (quoted) is
always the firmware symbol.

Types follow the RV32 ILP32 ABI: ``int`` and ``long`` are 32-bit, plain ``char`` is unsigned.
Integer arithmetic follows GDB (and C): promotion to ``int``, the usual arithmetic conversions,
wrap-around in the result type.

One module per job: ``ctype`` (C types and how their values are held), ``values`` (values,
lvalues and the ``EvalContext``), ``lexer``, ``parser`` (the parse tree), ``evaluator`` and
``formatter`` (GDB's ``print`` output).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tdbg.expr.ctype import (
    BOOL, BUILTIN_TYPES, CHAR, CODE_POINTER, DATA_POINTER, DOUBLE, FLOAT, INT, INT8, INT16, INT32,
    INT64, LLONG, LONG, NODEBUG_DATA, NODEBUG_FUNC, SCHAR, SHORT, UCHAR, UINT, UINT8, UINT16,
    UINT32, UINT64, ULLONG, ULONG, USHORT, VOID, CField, CType, Kind, array_of, declaration, decode,
    expand_typedefs, function_type, pointer_to, ptype_text, qualified, type_name, typedef,
)
from tdbg.expr.values import (
    REGISTERS, ROW_WIDTH, EvalContext, ExprError, Lval, SymbolInfo, Value, value_as_address,
)

if TYPE_CHECKING:
    from tdbg.expr.evaluator import evaluate, resolve
    from tdbg.expr.formatter import PRINT_FORMATS, format_value
    from tdbg.expr.parser import (
        Assign, Binary, Cast, CfgRef, Cond, Dollar, History, Ident, IncDec, Index, Literal, MemAt,
        Member, Node, Register, Sizeof, TensixRef, Unary, parse, parse_type,
    )

#: The parser's, evaluator's and formatter's names, imported when first used (PEP 562): the
#: types and values above are what the command modules need when they are imported; the parser
#: (17 node classes, frozen dataclasses at about 0.5 ms each to create) and the lexer, evaluator
#: and formatter were a twelfth of ``tdbg -q -batch -ex quit``'s import time (measured).
_LAZY = {
    "evaluator": ("evaluate", "resolve"),
    "formatter": ("PRINT_FORMATS", "format_value"),
    "parser": ("Assign", "Binary", "Cast", "CfgRef", "Cond", "Dollar", "History", "Ident", "IncDec", "Index",
               "Literal", "MemAt", "Member", "Node", "Register", "Sizeof", "TensixRef", "Unary", "parse", "parse_type"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return value


__all__ = [
    "BOOL", "BUILTIN_TYPES", "CHAR", "CODE_POINTER", "DATA_POINTER", "DOUBLE", "FLOAT", "INT", "INT8",
    "INT16", "INT32", "INT64", "LLONG", "LONG", "NODEBUG_DATA", "NODEBUG_FUNC", "SCHAR", "SHORT",
    "UCHAR", "UINT", "UINT8", "UINT16", "UINT32", "UINT64", "ULLONG", "ULONG", "USHORT", "VOID",
    "CField", "CType", "Kind", "array_of", "declaration", "decode", "expand_typedefs", "function_type", "pointer_to",
    "ptype_text", "qualified", "type_name", "typedef",
    "REGISTERS", "ROW_WIDTH", "EvalContext", "ExprError", "Lval", "SymbolInfo", "Value",
    "value_as_address",
    *_MODULE_OF,
]
