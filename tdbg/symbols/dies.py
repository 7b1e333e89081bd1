"""Helpers over pyelftools' DIEs and DWARF expressions, shared by the debug information's parts."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.symbols.cxxnames import canonical_literals
from tdbg.symbols.records import Row

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.callframe import RegisterRule
    from elftools.dwarf.die import DIE


_DW_ATE_BOOLEAN = 0x02
_DW_ATE_FLOAT = 0x04
_SIGNED = {0x04, 0x05, 0x06, 0x0D}     # DW_ATE_float (as tdbg.expr's), signed, signed_char, signed_fixed
_TAGS = {"DW_TAG_structure_type": "struct", "DW_TAG_class_type": "struct", "DW_TAG_union_type": "union",
         "DW_TAG_enumeration_type": "enum"}
_TYPE_TAGS = (*_TAGS, "DW_TAG_typedef")
_FIELD_TAGS = ("DW_TAG_member", "DW_TAG_inheritance", "DW_TAG_variable")


def _scoped_name(die: DIE) -> str:
    """A variable's or label's name as GDB's symbol tables have it: qualified in C++."""
    return _qualified(die) if _is_cplus(die.cu) else (_name(die) or "")


def _cu_name(cu) -> str:
    attr = cu.get_top_DIE().attributes.get("DW_AT_name")
    return attr.value.decode(errors="replace") if attr is not None else ""


_CPLUS_LANGUAGES = {0x04, 0x19, 0x1A, 0x21}   # DW_LANG_C_plus_plus, _03, _11, _14
_SCOPES = ("DW_TAG_namespace", "DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type")


_ACCESS = {1: "public", 2: "protected", 3: "private"}


def _access(die: DIE) -> str:
    """A member's C++ access (DW_AT_accessibility; by default private in a class, else public,
    as DWARF 3 and later say)."""
    attr = die.attributes.get("DW_AT_accessibility")
    if attr is not None:
        return _ACCESS.get(attr.value, "public")
    parent = die.get_parent()
    return "private" if parent is not None and parent.tag == "DW_TAG_class_type" else "public"


def _is_cplus(cu) -> bool:
    """Is ``cu`` C++ (DW_AT_language)?"""
    attr = cu.get_top_DIE().attributes.get("DW_AT_language")
    return attr is not None and attr.value in _CPLUS_LANGUAGES


def _subprograms(die: DIE):
    """The subprogram DIEs with code under ``die``, also inside namespaces and classes."""
    for child in die.iter_children():
        if child.tag == "DW_TAG_subprogram":
            if "DW_AT_low_pc" in child.attributes:
                yield child
        elif child.tag in _SCOPES:
            yield from _subprograms(child)


def _linkage_name(die: DIE) -> str | None:
    """The linkage (mangled) name of ``die`` or of the declaration it completes or stands for."""
    for attr in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
        if attr in die.attributes and isinstance(die.attributes[attr].value, bytes):
            return die.attributes[attr].value.decode(errors="replace")
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _linkage_name(die.get_DIE_from_attribute(ref))
    return None


def _qualified(die: DIE) -> str:
    """``ns::Class::name`` of a DIE: its name after the names of the namespaces and classes
    around its declaration (an anonymous namespace is GDB's ``(anonymous namespace)``)."""
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _qualified(die.get_DIE_from_attribute(ref))
    parts = [_name(die) or "??"]
    parent = die.get_parent()
    while parent is not None and parent.tag in _SCOPES:
        parts.append(_name(parent) or ("(anonymous namespace)" if parent.tag == "DW_TAG_namespace" else "{...}"))
        parent = parent.get_parent()
    return "::".join(reversed(parts))


def _name(die: DIE) -> str | None:
    """A DIE's name; in C++ as GDB canonicalizes it (``dwarf2_canonicalize_name``: clang's
    ``f<16385U>`` is ``f<16385u>``)."""
    attr = die.attributes.get("DW_AT_name")
    if attr is not None:
        if not isinstance(attr.value, bytes):
            return None
        text = attr.value.decode(errors="replace")
        return canonical_literals(text) if "<" in text and _is_cplus(die.cu) else text
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:
            return _name(die.get_DIE_from_attribute(ref))
    return None


def _origin(die: DIE, attribute: str) -> DIE | None:
    """``die``, or the DIE it stands for (``DW_AT_abstract_origin``), that has ``attribute``."""
    while attribute not in die.attributes:
        if "DW_AT_abstract_origin" not in die.attributes:
            return None
        die = die.get_DIE_from_attribute("DW_AT_abstract_origin")
    return die


def _type_spelling(die: DIE) -> str | None:
    """How the program's language names a type DIE: in C ``uint32_t``, ``struct node``,
    ``enum mode``; in C++ the qualified name without a keyword (``ckernel::Counter``); None if
    anonymous or not a named type."""
    name = _name(die)
    if name is None or (die.tag != "DW_TAG_typedef" and die.tag not in _TAGS):
        return None
    if _is_cplus(die.cu):
        return _qualified(die)
    return name if die.tag == "DW_TAG_typedef" else f"{_TAGS[die.tag]} {name}"


def _member_offset(die: DIE) -> int:
    loc = die.attributes.get("DW_AT_data_member_location")
    return loc.value if loc is not None and isinstance(loc.value, int) else 0


def _size(die: DIE) -> int:
    attr = die.attributes.get("DW_AT_byte_size")
    return attr.value if attr is not None else 0


def _subrange_count(die: DIE) -> int | None:
    attrs = die.attributes
    if "DW_AT_count" in attrs and isinstance(attrs["DW_AT_count"].value, int):
        return attrs["DW_AT_count"].value
    if "DW_AT_upper_bound" in attrs and isinstance(attrs["DW_AT_upper_bound"].value, int):
        return attrs["DW_AT_upper_bound"].value + 1
    return None


def _high_pc(die: DIE, low: int) -> int:
    attr = die.attributes.get("DW_AT_high_pc")
    if attr is None:
        return low + 1
    return attr.value if attr.form == "DW_FORM_addr" else low + attr.value


def _die_ranges(die: DIE) -> list[tuple[int, int]]:
    """The address ranges of a DIE (DW_AT_ranges, else DW_AT_low_pc/high_pc), in DWARF's order.
    A unit with DW_AT_ranges may also have DW_AT_low_pc: its lists' base address (DWARF 5
    section 2.17.3), often 0, not a range."""
    attrs = die.attributes
    if "DW_AT_ranges" not in attrs:
        if "DW_AT_low_pc" not in attrs:
            return []
        low = attrs["DW_AT_low_pc"].value
        return [(low, _high_pc(die, low))]
    dwarf = die.dwarfinfo
    entries = dwarf.range_lists().get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=die.cu)
    base_attr = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
    base = base_attr.value if base_attr is not None else 0
    out = []
    for entry in entries:
        if hasattr(entry, "base_address"):
            base = entry.base_address
        elif entry.begin_offset != entry.end_offset:
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base + entry.begin_offset, base + entry.end_offset)
            out.append((lo, hi))
    return out


def _die_covers(die: DIE, pc: int) -> bool:
    """Does a lexical block cover ``pc`` (one without addresses covers everything)?"""
    attrs = die.attributes
    if "DW_AT_low_pc" not in attrs and "DW_AT_ranges" not in attrs:
        return True
    return any(lo <= pc < hi for lo, hi in _die_ranges(die))


def _describe_simple(ops: list, frame_base: list | None) -> str:
    """A location that is not composite in GDB 13's words (``locexpr_describe_location_1``),
    else its disassembly (``disassemble_dwarf_expression``)."""
    from tdbg.riscv.registers import ABI_NAMES

    if (reg := _register_location(ops)) is not None:
        return f"a variable in ${ABI_NAMES[reg]}"
    if len(ops) == 1 and ops[0].op_name == "DW_OP_addr":
        return f"static storage at address {ops[0].args[0]:#x}"
    if len(ops) == 1 and ops[0].op_name == "DW_OP_fbreg" and frame_base and len(frame_base) == 1 \
            and frame_base[0].op_name.startswith(("DW_OP_reg", "DW_OP_breg")):
        base = frame_base[0]
        offset = base.args[-1] if base.op_name.startswith("DW_OP_breg") else 0
        return f"a variable at frame base reg ${ABI_NAMES[_reg_number(base)]} offset {offset}+{ops[0].args[0]}"
    if len(ops) == 1 and ops[0].op_name.startswith("DW_OP_breg"):
        return f"a variable at offset {ops[0].args[-1]} from base reg ${ABI_NAMES[_reg_number(ops[0])]}"
    if len(ops) == 2 and ops[0].op_name.startswith("DW_OP_lit") and ops[1].op_name == "DW_OP_stack_value":
        return f"the constant {ops[0].op_name.removeprefix('DW_OP_lit')}"
    lines = []
    for op in ops:
        name = op.op_name
        if name.startswith("DW_OP_reg") and name != "DW_OP_regx":
            arg = f" [${ABI_NAMES[_reg_number(op)]}]"
        elif name.startswith("DW_OP_breg") and name != "DW_OP_bregx":
            arg = f" {op.args[-1]} [${ABI_NAMES[_reg_number(op)]}]"
        elif op.args and all(isinstance(a, int) for a in op.args):
            arg = "".join(f" {a}" for a in op.args)
        else:
            arg = ""
        lines.append(f"{op.offset - ops[0].offset:>6}: {name}{arg}\n")   # from the piece's start
    return "a complex DWARF expression:\n" + "".join(lines)


def _register_location(ops: list) -> int | None:
    """N of a location that is register N alone (``DW_OP_regN``), else None."""
    if len(ops) == 1 and ops[0].op_name.startswith("DW_OP_reg"):
        return _reg_number(ops[0])
    return None


def _entry_value_register(ops: list) -> int | None:
    """N of ``DW_OP_entry_value(DW_OP_regN) DW_OP_stack_value`` (the value register N had at the
    function's entry), else None."""
    if (len(ops) == 2 and ops[0].op_name in ("DW_OP_entry_value", "DW_OP_GNU_entry_value")
            and ops[1].op_name == "DW_OP_stack_value" and isinstance(ops[0].args[0], list)):
        return _register_location(ops[0].args[0])
    return None


def _signed(value: int) -> int:
    """A stack entry (the generic type: 32 bits on this target) as a signed integer."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _div(a: int, b: int) -> int | None:
    """``DW_OP_div``: signed division, truncated toward zero (as GDB's BINOP_DIV on the generic
    type); None on division by zero (GDB: "Division by zero")."""
    a, b = _signed(a), _signed(b)
    if b == 0:
        return None
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


#: DWARF 5 section 2.5.1.4 (arithmetic and logical operations) and 2.5.1.5 (control flow's
#: comparisons, signed), on the 32-bit generic type; ``DW_OP_mod`` is unsigned (as GDB computes
#: it: "the DWARF standard says the modulus is unsigned").
_BINARY_OPS: dict[str, Callable[[int, int], int | None]] = {
    "DW_OP_plus": lambda a, b: a + b, "DW_OP_minus": lambda a, b: a - b, "DW_OP_mul": lambda a, b: a * b,
    "DW_OP_and": lambda a, b: a & b, "DW_OP_or": lambda a, b: a | b, "DW_OP_xor": lambda a, b: a ^ b,
    "DW_OP_shl": lambda a, b: a << b, "DW_OP_shr": lambda a, b: (a & 0xFFFFFFFF) >> b,
    "DW_OP_shra": lambda a, b: _signed(a) >> b, "DW_OP_div": _div,
    "DW_OP_mod": lambda a, b: (a & 0xFFFFFFFF) % (b & 0xFFFFFFFF) if b & 0xFFFFFFFF else None,
    "DW_OP_eq": lambda a, b: int(_signed(a) == _signed(b)), "DW_OP_ne": lambda a, b: int(_signed(a) != _signed(b)),
    "DW_OP_lt": lambda a, b: int(_signed(a) < _signed(b)), "DW_OP_gt": lambda a, b: int(_signed(a) > _signed(b)),
    "DW_OP_le": lambda a, b: int(_signed(a) <= _signed(b)), "DW_OP_ge": lambda a, b: int(_signed(a) >= _signed(b))}
#: Section 2.5.1.4's unary operations.
_UNARY_OPS: dict[str, Callable[[int], int]] = {
    "DW_OP_neg": lambda a: -_signed(a), "DW_OP_not": lambda a: ~a, "DW_OP_abs": lambda a: abs(_signed(a))}


def _value_expression(ops: list, regs: Mapping[int, int], cfa: int | None, start: int | None = None) -> int | None:
    """The value a DWARF expression computes (a call site's ``DW_AT_call_value``, a stack
    value, an address) in a frame with registers ``regs`` (``x0`` is 0), on a stack holding
    ``start`` if given: literals, constants, registers (``DW_OP_regN``: its value,
    ``DW_OP_bregN``: value plus offset), ``DW_OP_call_frame_cfa``, ``plus_uconst``, the
    arithmetic, logical and comparison operators and the stack operations (DWARF 5 sections
    2.5.1.3-2.5.1.5); None for anything that needs memory or is unknown here."""
    stack: list[int] = [] if start is None else [start]
    for op in ops:
        name = op.op_name
        if name.startswith("DW_OP_lit"):
            stack.append(int(name.removeprefix("DW_OP_lit")))
        elif name.startswith("DW_OP_const") or name == "DW_OP_addr":
            stack.append(op.args[0])
        elif name.startswith(("DW_OP_reg", "DW_OP_breg")):
            reg = _reg_number(op)
            if reg != 0 and reg not in regs:
                return None
            value = 0 if reg == 0 else regs[reg]
            stack.append(value + (op.args[-1] if name.startswith("DW_OP_breg") else 0))
        elif name == "DW_OP_call_frame_cfa" and cfa is not None:
            stack.append(cfa)
        elif name == "DW_OP_plus_uconst" and stack:
            stack.append(stack.pop() + op.args[0])
        elif name in _BINARY_OPS and len(stack) >= 2:
            b, a = stack.pop(), stack.pop()
            result = _BINARY_OPS[name](a, b)
            if result is None:
                return None
            stack.append(result)
        elif name in _UNARY_OPS and stack:
            stack.append(_UNARY_OPS[name](stack.pop()))
        elif name in ("DW_OP_dup", "DW_OP_over", "DW_OP_pick") and len(stack) > (op.args[0] if name == "DW_OP_pick" else name == "DW_OP_over"):
            stack.append(stack[-1 - (op.args[0] if name == "DW_OP_pick" else name == "DW_OP_over")])
        elif name == "DW_OP_drop" and stack:
            stack.pop()
        elif name == "DW_OP_swap" and len(stack) >= 2:
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif name == "DW_OP_rot" and len(stack) >= 3:
            stack[-1], stack[-2], stack[-3] = stack[-2], stack[-3], stack[-1]
        elif name == "DW_OP_stack_value":
            break
        else:
            return None
    return stack[-1] & 0xFFFFFFFF if stack else None


def _const_value(attr) -> int | bytes:
    """``DW_AT_const_value``: an integer (its ``DW_FORM_data``/``sdata`` value) or the bytes of
    a block form (DWARF 5 section 2.19)."""
    value = attr.value
    return value if isinstance(value, int) else value.encode() if isinstance(value, str) else bytes(value)


def _reg_number(op) -> int:
    """N of DW_OP_regN / DW_OP_bregN (or their ...x forms)."""
    name = op.op_name
    if name in ("DW_OP_regx", "DW_OP_bregx"):
        return op.args[0]
    return int(name.removeprefix("DW_OP_breg").removeprefix("DW_OP_reg"))


def _apply(reg: int, rule: RegisterRule, cfa: int, regs: Mapping[int, int], read_u32: Callable[[int], int],
           ranges: list[tuple[int, int]]) -> int | None:
    """A caller's register value from its CFI rule; None when unknown."""
    from elftools.dwarf.callframe import RegisterRule

    if rule.type == RegisterRule.OFFSET:
        addr = (cfa + rule.arg) & 0xFFFFFFFF
        return read_u32(addr) if _inside(addr, ranges) else None
    if rule.type == RegisterRule.VAL_OFFSET:
        return (cfa + rule.arg) & 0xFFFFFFFF
    if rule.type == RegisterRule.REGISTER:
        return regs.get(rule.arg)
    if rule.type == RegisterRule.SAME_VALUE:
        return regs.get(reg)
    return None


def _inside(cfa: int, ranges: list[tuple[int, int]]) -> bool:
    """True when a frame with this CFA has its save area (the words below it) in a range."""
    return any(lo < cfa <= hi for lo, hi in ranges)


def _containing(items: list, starts: list[int], addr: int):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < items[i].high:
        return items[i]
    return None


def _file_names(cu, program) -> dict[int, Path]:
    """Line-program file index -> absolute path (DWARF 4 indexes from 1, DWARF 5 from 0)."""
    top = cu.get_top_DIE().attributes
    comp_dir = top["DW_AT_comp_dir"].value.decode(errors="replace") if "DW_AT_comp_dir" in top else ""
    header = program.header
    dirs = [d.decode(errors="replace") if isinstance(d, bytes) else d.DW_LNCT_path.decode(errors="replace")
            for d in header["include_directory"]]
    version5 = header["version"] >= 5
    out: dict[int, Path] = {}
    for i, entry in enumerate(header["file_entry"]):
        name = entry.name.decode(errors="replace")
        dir_index = entry.dir_index
        if version5:
            directory = dirs[dir_index] if dir_index < len(dirs) else comp_dir
        else:
            directory = dirs[dir_index - 1] if 0 < dir_index <= len(dirs) else comp_dir
        path = os.path.join(comp_dir, directory, name)
        out[i if version5 else i + 1] = Path(os.path.normpath(path))
    return out


def _recorded_names(cu, program) -> dict[Path, str]:
    """Each file of a line program (its absolute path) -> its name as recorded: the entry's
    name, after its directory entry when it names one (GDB's ``file_file_name``)."""
    header = program.header
    dirs = [d.decode(errors="replace") if isinstance(d, bytes) else d.DW_LNCT_path.decode(errors="replace")
            for d in header["include_directory"]]
    version5 = header["version"] >= 5
    absolute = _file_names(cu, program)
    out: dict[Path, str] = {}
    for i, entry in enumerate(header["file_entry"]):
        name = entry.name.decode(errors="replace")
        index = entry.dir_index if version5 else entry.dir_index - 1
        if not os.path.isabs(name) and 0 <= index < len(dirs):
            name = f"{dirs[index]}/{name}"
        path = absolute.get(i if version5 else i + 1)
        if path is not None:
            out.setdefault(path, name)
    return out


def _sequence_rows(states: list, files: dict[int, Path]) -> list[Row]:
    """The rows of one line-table sequence as GDB records them (``lnp_state_machine::
    record_line``): an entry with line 0 is dropped, and so is one that only switches file at
    the address of the previous entry without being a statement; each row ends where the next
    one starts.  Of several entries at one address the last one describes it; a
    ``prologue_end`` on any of them counts, and two entries with a line in the same file make
    the row ``repeated``."""
    kept: list = []
    for state in states[:-1]:
        last = kept[-1] if kept else None
        if state.line == 0:
            continue
        if last is not None and state.file != last.file and state.address == last.address and not state.is_stmt:
            continue
        kept.append(state)
    rows: list[Row] = []
    same: list = []
    for state, following in zip(kept, [*kept[1:], states[-1]]):
        same.append(state)
        if following.address == state.address and following is not states[-1]:
            continue
        file = files.get(state.file)
        if file is not None and following.address > state.address:
            marked = any(s.prologue_end for s in same)
            repeated = sum(1 for s in same if s.file == state.file) > 1
            rows.append(Row(state.address, following.address, file, state.line, bool(state.is_stmt), marked, repeated))
        same = []
    return rows
