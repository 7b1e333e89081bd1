"""DWARF expression arithmetic and stack operations (``tdbg.symbols.dies._value_expression``),
each expected value worked out by hand from DWARF 5 sections 2.5.1.3-2.5.1.5 on a 32-bit
generic type (signed division truncates toward zero; ``DW_OP_mod`` is unsigned, as GDB)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tdbg.symbols.dies import _value_expression


def op(name: str, *args: int) -> SimpleNamespace:
    return SimpleNamespace(op_name=name, args=list(args))


def consts(*values: int) -> list[SimpleNamespace]:
    return [op("DW_OP_consts", v) for v in values]


@pytest.mark.parametrize("ops, expected", [
    (consts(-7, 2) + [op("DW_OP_div")], 0xFFFFFFFD),           # -3
    (consts(7, -2) + [op("DW_OP_div")], 0xFFFFFFFD),
    (consts(-8, -2) + [op("DW_OP_div")], 4),
    (consts(-1, 3) + [op("DW_OP_mod")], 0xFFFFFFFF % 3),          # unsigned: 4294967295 mod 3 = 0
    (consts(7, 3) + [op("DW_OP_mod")], 1),
    (consts(-16, 2) + [op("DW_OP_shra")], 0xFFFFFFFC),           # -4
    (consts(-16, 28) + [op("DW_OP_shr")], 0xF),
    (consts(5) + [op("DW_OP_neg")], 0xFFFFFFFB),
    (consts(-5) + [op("DW_OP_abs")], 5),
    (consts(0) + [op("DW_OP_not")], 0xFFFFFFFF),
    (consts(-1, 1) + [op("DW_OP_lt")], 1),                       # signed: -1 < 1
    (consts(3, 3) + [op("DW_OP_eq")], 1),
    (consts(3, 4) + [op("DW_OP_ge")], 0),
    (consts(1, 2, 3) + [op("DW_OP_rot")], 2),                    # 1 2 3 (3 on top) -> 3 1 2
    (consts(1, 2, 3) + [op("DW_OP_rot"), op("DW_OP_drop")], 1),  # 3 1 2 -> 3 1
    (consts(1, 2) + [op("DW_OP_swap")], 1),
    (consts(1, 2) + [op("DW_OP_over")], 1),
    (consts(1, 2, 3) + [op("DW_OP_pick", 2)], 1),
    (consts(9) + [op("DW_OP_dup"), op("DW_OP_mul")], 81),
])
def test_operations(ops: list, expected: int) -> None:
    assert _value_expression(ops + [op("DW_OP_stack_value")], {}, None) == expected


def test_division_by_zero_has_no_value() -> None:
    assert _value_expression(consts(1, 0) + [op("DW_OP_div")], {}, None) is None
    assert _value_expression(consts(1, 0) + [op("DW_OP_mod")], {}, None) is None
