"""Where variables are: global and local variables in a frame, their DWARF location expressions
evaluated (registers, the frame base, pieces, entry values), and described (GDB's ``info scope``,
``info address``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from tdbg.symbols.dies import (
    _const_value, _describe_simple, _die_covers, _entry_value_register, _name, _origin, _reg_number,
    _is_cplus, _register_location, _scoped_name, _value_expression,
)
from tdbg.symbols.block_order import hashed_order
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import Frame, Piece, Variable

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE
    from elftools.dwarf.locationlists import BaseAddressEntry


class VariableLocations(DwarfReader):
    """Variables and where they are (``DebugInfo``'s part)."""

    def scope_symbols(self, pc: int, scope: bool = True) -> list[tuple[str, str, int | None]]:
        """The symbols of the block around ``pc`` and of each block around it up to its
        function or the inlined call it is in (GDB's ``info scope``, which stops at a block with
        ``BLOCK_FUNCTION``), each block's in GDB's order (``tdbg.symbols.block_order``): (name,
        where it is as GDB's ``describe_location`` says it, size in bytes; None where GDB gives
        none, an optimized-out variable).  An inlined call's block holds the inlined function's
        own symbol first (GDB's ``read_func_scope`` adds it after opening the block), a function
        of length 1 (GDB's function type), and after a block's own DIEs those of its abstract origin
        that none of them stands for (GDB's ``inherit_abstract_dies``: clang leaves optimized-out
        locals of an inlined call there).  ``scope``: a constant in ``info scope``'s words.
        Types, labels and enumerators declared in a block are not listed."""
        found: list[tuple[str, str, int | None]] = []
        calls = {call.die.offset: call for call in self.inline_chain(pc)}
        block = self.block_at(pc)
        while block is not None:
            symbols: list[tuple[str, tuple[str, int | None]]] = []
            call = calls.get(block.offset) if block.tag == "DW_TAG_inlined_subroutine" else None
            if call is not None:
                symbols.append((call.physname, (f"a function at address {call.entry:#x}", 1)))
            for child in _block_children(block):
                name = _name(child) if child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") else None
                if name:
                    where = self.describe_location(child, scope)
                    declared = _origin(child, "DW_AT_type")
                    size = self._type(declared.get_DIE_from_attribute("DW_AT_type")).size if declared is not None else 0
                    symbols.append((name, (where, None if where == "optimized out" else size)))
            if block.tag == "DW_TAG_lexical_block":
                symbols = hashed_order(symbols, _is_cplus(block.cu))
            found += [(name, where, size) for name, (where, size) in symbols]
            if block.tag in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine"):
                break
            block = block.get_parent()
        return found

    def describe_location(self, die: DIE, scope: bool = False) -> str:
        """Where a variable is, in GDB 13's words (``info address``; ``scope``: ``info scope``'s
        for a constant): ``a variable in $a0``, ``a variable at frame base reg $fp offset
        0+-20``, ``static storage at address 0x...``, ``multi-location:`` and its ranges, ...
        (GDB's ``locexpr_describe_location_1`` and ``loclist_describe_location``)."""
        from elftools.dwarf.locationlists import BaseAddressEntry

        attrs = die.attributes
        if "DW_AT_const_value" in attrs:
            value = _const_value(attrs["DW_AT_const_value"])
            if not isinstance(value, int):
                return "constant bytes"
            return f"a constant with value {value} ({value:#x})" if scope else "constant"
        if "DW_AT_location" not in attrs:
            return "optimized out"
        frame_base = None
        parent = die.get_parent()
        while parent is not None and parent.tag != "DW_TAG_subprogram":
            parent = parent.get_parent()
        if parent is not None and "DW_AT_frame_base" in parent.attributes:
            frame_base = self._expr.parse_expr(parent.attributes["DW_AT_frame_base"].value)
        parsed = self._locations.parse_from_attribute(attrs["DW_AT_location"], die.cu.header.version, die)
        if hasattr(parsed, "loc_expr"):
            return self._describe_expr(self._expr.parse_expr(parsed.loc_expr), frame_base)
        base = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base_addr = base.value if base is not None else 0
        text = "multi-location:\n"
        for entry in parsed:
            if isinstance(entry, BaseAddressEntry):   # GDB says it as the file has it (before a move, -o)
                base_addr = entry.base_address
                text += f"  Base address {base_addr - (self.moved_by if self._executable(base_addr) else 0):#x}"
                continue
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base_addr + entry.begin_offset, base_addr + entry.end_offset)
            text += f"  Range {lo:#x}-{hi:#x}: {self._describe_expr(self._expr.parse_expr(entry.loc_expr), frame_base)}\n"
        return text

    def _describe_expr(self, ops: list, frame_base: list | None) -> str:
        """One location expression as GDB describes it, piece by piece."""
        if not any(op.op_name == "DW_OP_piece" for op in ops):
            return _describe_simple(ops, frame_base)
        parts, part = [], []
        for op in ops:
            if op.op_name != "DW_OP_piece":
                part.append(op)
                continue
            size = op.args[0]
            if not part:
                parts.append(f"an empty {size}-byte piece")
            else:
                text = _describe_simple(part, frame_base)
                parts.append(f"{text}{'    ' if text.endswith(chr(10)) else ' '}[{size}-byte piece]")
            part = []
        return ", and ".join(parts)

    def global_variable(self, name: str) -> Variable:
        """A variable defined at file or namespace scope, by its (qualified, in C++) name."""
        if self._globals is None:
            self._globals = {}
            for die in self._global_dies("DW_TAG_variable"):
                if "DW_AT_type" in die.attributes or "DW_AT_specification" in die.attributes:
                    var = self._variable(die, 0, {}, None)
                    if var is not None and (var.addr is not None or var.value is not None):
                        self._globals.setdefault(_scoped_name(die), replace(var, name=_scoped_name(die)))
        try:
            return self._globals[name]
        except KeyError:
            raise KeyError(f'No symbol "{name}" in current context.') from None

    def locals_at(self, frame: Frame, caller: Frame | None = None) -> list[Variable]:
        """Parameters (``param``) and locals in scope at ``frame`` (of its inlined call, for an
        inline frame), innermost block first; their addresses use the frame's registers and
        CFA.  With the ``caller`` frame, values the compiler left only as entry values
        (``DW_OP_entry_value``) are resolved through the caller's call site, and each parameter
        of a real frame gets its value at entry (``Variable.entry``) where the call site gives
        it, as GDB does; a lexical block's in GDB's order (``tdbg.symbols.block_order``)."""
        pc = frame.lookup_pc
        function = self.function_at(pc)
        if function is None or function.die is None:
            return []
        scope = frame.block.die if frame.block is not None else function.die
        scopes: list[list[Variable]] = []
        entry = (lambda reg: self._entry_value(reg, caller)) if caller is not None and frame.block is None else None

        def visit(die: DIE) -> None:
            here: list[Variable] = []
            for child in _block_children(die):
                inherited = child.get_parent().offset != die.offset   # (the abstract origin's: no place here)
                if child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") and _name(child):
                    if inherited and "DW_AT_artificial" in child.attributes:
                        continue
                    var = self._variable(child, pc, frame.regs, frame.cfa, function.die, None if inherited else entry)
                    if var is not None:
                        here.append(replace(var, addr=None, register=None, value=None, entry=None, pieces=())
                                    if inherited else var)
                elif child.tag == "DW_TAG_lexical_block" and not inherited and _die_covers(child, pc):
                    visit(child)
            if die.tag == "DW_TAG_lexical_block":    # GDB's hashed dictionary (``block_order``)
                here = [var for _, var in hashed_order([(var.name, var) for var in here], _is_cplus(die.cu))]
            scopes.append(here)

        visit(scope)
        return [v for block in scopes for v in block]

    def _variable(self, die: DIE, pc: int, regs: Mapping[int, int], cfa: int | None,
                  function: DIE | None = None, entry: Callable[[int], int | None] | None = None) -> Variable | None:
        attrs = die.attributes
        declared = _origin(die, "DW_AT_type")  # an inlined copy names its type through its origin
        if declared is None:
            return None
        ctype = self._type(declared.get_DIE_from_attribute("DW_AT_type"))
        param = die.tag == "DW_TAG_formal_parameter"
        name = _name(die) or ""
        if "DW_AT_const_value" in attrs:
            return Variable(name, None, ctype, value=_const_value(attrs["DW_AT_const_value"]), param=param)
        if "DW_AT_location" not in attrs:
            return Variable(name, None, ctype, param=param)
        expr = self._location_expr(attrs["DW_AT_location"], die, pc)
        at_entry = None
        if param and entry is not None and function is not None and "DW_AT_low_pc" in function.attributes:
            first = self._location_expr(attrs["DW_AT_location"], die, function.attributes["DW_AT_low_pc"].value)
            reg = _register_location(self._expr.parse_expr(first)) if first is not None else None
            at_entry = entry(reg) if reg is not None else None
        if expr is not None and (reg := _entry_value_register(self._expr.parse_expr(expr))) is not None:
            value = entry(reg) if entry is not None else None       # DW_OP_entry_value(DW_OP_regN)
            return Variable(name, None, ctype, value=value, param=param, entry=value if param else None)
        where = self._locate(self._expr.parse_expr(expr), regs, cfa, function) if expr is not None else None
        if where is None or (len(where) == 1 and where[0].bits == 0):   # not a composite: the whole object
            found = where[0] if where else Piece(0)
            return Variable(name, found.addr, ctype, register=found.register, value=found.value, param=param,
                            entry=at_entry)
        return Variable(name, None, ctype, param=param, entry=at_entry, pieces=where)

    def _entry_value(self, reg: int, caller: Frame) -> int | None:
        """The value register ``reg`` had when the function of a frame was entered, from the
        call site its caller made (``DW_TAG_call_site`` at the return address ``caller.pc``,
        its ``DW_TAG_call_site_parameter`` for ``reg``, evaluated in the caller's frame); None
        when the call site does not say."""
        site = self._call_sites(caller.pc - 1).get(caller.pc)
        if site is None:
            return None
        for param in site.iter_children():
            if param.tag not in ("DW_TAG_call_site_parameter", "DW_TAG_GNU_call_site_parameter"):
                continue
            location = param.attributes.get("DW_AT_location")
            value = param.attributes.get("DW_AT_call_value") or param.attributes.get("DW_AT_GNU_call_site_value")
            if location is None or value is None or _register_location(self._expr.parse_expr(location.value)) != reg:
                continue
            return _value_expression(self._expr.parse_expr(value.value), caller.regs, caller.cfa)
        return None

    def _call_sites(self, pc: int) -> dict[int, DIE]:
        """The call sites in the function around ``pc``, by return address."""
        function = self.function_at(pc)
        if function is None or function.die is None:
            return {}
        sites = self._sites.get(function.low)
        if sites is None:
            sites = self._sites[function.low] = {}
            pending = [function.die]
            while pending:
                for child in pending.pop().iter_children():
                    if child.tag in ("DW_TAG_call_site", "DW_TAG_GNU_call_site"):
                        pc_attr = child.attributes.get("DW_AT_call_return_pc") or child.attributes.get("DW_AT_low_pc")
                        if pc_attr is not None:
                            sites[pc_attr.value] = child
                    elif child.has_children:
                        pending.append(child)
        return sites

    def _location_expr(self, attr, die: DIE, pc: int) -> list[int] | None:
        """The location expression in effect at ``pc`` (location lists pick one entry)."""
        from elftools.dwarf.locationlists import BaseAddressEntry

        parsed = self._locations.parse_from_attribute(attr, die.cu.header.version, die)
        if hasattr(parsed, "loc_expr"):
            return parsed.loc_expr
        base = die.cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base_addr = base.value if base is not None else 0
        for entry in parsed:
            if isinstance(entry, BaseAddressEntry):
                base_addr = entry.base_address
                continue
            lo, hi = (entry.begin_offset, entry.end_offset) if entry.is_absolute else \
                (base_addr + entry.begin_offset, base_addr + entry.end_offset)
            if lo <= pc < hi:
                return entry.loc_expr
        return None

    def _locate(self, ops: list, regs: Mapping[int, int], cfa: int | None,
                function: DIE | None) -> tuple[Piece, ...] | None:
        """The pieces of a location description (DWARF 5 section 2.6): one ``Piece`` of 0 bits for
        a location that is not composite, one per ``DW_OP_piece`` / ``DW_OP_bit_piece`` for one
        that is; None when it cannot be computed here."""
        pieces: list[Piece] = []
        part: list = []
        for op in ops:
            if op.op_name not in ("DW_OP_piece", "DW_OP_bit_piece"):
                part.append(op)
                continue
            bits, offset = (8 * op.args[0], 0) if op.op_name == "DW_OP_piece" else (op.args[0], op.args[1])
            found = self._simple_location(part, regs, cfa, function)
            pieces.append(replace(found, bits=bits, offset=offset) if found is not None else Piece(bits))
            part = []
        if pieces:
            return tuple(pieces) if not part else None
        found = self._simple_location(part, regs, cfa, function)
        return (found,) if found is not None else None

    def _simple_location(self, ops: list, regs: Mapping[int, int], cfa: int | None,
                         function: DIE | None) -> Piece | None:
        """A location that is not composite (DWARF 5 section 2.6.1.1): empty (optimized out),
        a register (``DW_OP_regN``), an implicit value (``DW_OP_implicit_value``, a DWARF
        expression ending in ``DW_OP_stack_value``) or a memory address (``DW_OP_addr``,
        ``DW_OP_fbreg``, ``DW_OP_bregN``, arithmetic); None when it needs what is not known here."""
        if not ops:
            return Piece(0)
        if (reg := _register_location(ops)) is not None:
            return Piece(0, register=reg)
        if len(ops) == 1 and ops[0].op_name == "DW_OP_implicit_value":
            return Piece(0, value=bytes(ops[0].args[-1]))
        if ops[-1].op_name == "DW_OP_stack_value":
            value = _value_expression(ops[:-1], regs, cfa)
            return Piece(0, value=value) if value is not None else None
        start = None
        if ops[0].op_name == "DW_OP_fbreg":
            if function is None or "DW_AT_frame_base" not in function.attributes:
                return None
            base = self._frame_base(function.attributes["DW_AT_frame_base"].value, regs, cfa)
            if base is None:
                return None
            start, ops = base + ops[0].args[0], ops[1:]
        addr = _value_expression(ops, regs, cfa, start)
        return Piece(0, addr=addr & 0xFFFFFFFF) if addr is not None else None

    def _frame_base(self, expr: list[int], regs: Mapping[int, int], cfa: int | None) -> int | None:
        ops = self._expr.parse_expr(expr)
        if len(ops) != 1:
            return None
        op = ops[0]
        if op.op_name == "DW_OP_call_frame_cfa":
            return cfa
        if op.op_name.startswith(("DW_OP_reg", "DW_OP_breg")):
            reg = _reg_number(op)
            offset = op.args[-1] if op.op_name.startswith("DW_OP_breg") else 0
            return regs[reg] + offset if reg in regs else None
        return None


def _block_children(block: DIE) -> list[DIE]:
    """A block's DIEs as GDB reads them into it: its children, then (``inherit_abstract_dies``)
    each child of its abstract origin that no child stands for; an abstract lexical block so
    left over has no addresses, so its DIEs are read into this block (``read_lexical_block_scope``
    on a block without bounds)."""
    children = list(block.iter_children())
    if "DW_AT_abstract_origin" not in block.attributes:
        return children
    origin = block.get_DIE_from_attribute("DW_AT_abstract_origin")
    stood_for = {c.get_DIE_from_attribute("DW_AT_abstract_origin").offset
                 for c in children if "DW_AT_abstract_origin" in c.attributes}
    left = [c for c in origin.iter_children() if c.offset not in stood_for]
    while any(c.tag == "DW_TAG_lexical_block" for c in left):
        left = [d for c in left for d in (c.iter_children() if c.tag == "DW_TAG_lexical_block" else [c])]
    return children + left
