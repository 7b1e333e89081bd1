"""C types from DWARF (the evaluator's ``tdbg.expr.CType``): base, pointer, array, struct and class
types, typedefs, functions' types."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tdbg.expr.ctype import (
    array_of, CField, CType, Details, function_type, Kind, Method, pointer_to, qualified, reference_to,
    type_name, typedef, VOID,
)
from tdbg.symbols.dies import (
    _DW_ATE_BOOLEAN, _DW_ATE_FLOAT, _FIELD_TAGS, _SIGNED, _TAGS, _TYPE_TAGS, _access, _const_value, _is_cplus,
    _member_offset, _name, _origin, _qualified, _size, _subrange_count, _type_spelling,
)
from tdbg.symbols.dwarf_reader import DwarfReader
from tdbg.symbols.records import Function

if TYPE_CHECKING:   # pyelftools' DWARF reader is imported when DWARF is first read
    from elftools.dwarf.die import DIE


class Types(DwarfReader):
    """C types read from DWARF (``DebugInfo``'s part)."""

    def function_type(self, function: Function) -> CType | None:
        """The C type of ``function`` (``void (int, float, float)``); None without DWARF."""
        if function.die is None:
            return None
        return function_type(self.return_type(function) or VOID, self._params(function.die))

    def _params(self, die: DIE) -> tuple[CType, ...] | None:
        """Parameter types of a subprogram or subroutine type (a concrete subprogram's from the
        DIE it stands for); None when unprototyped (never in C++: GDB prints ``void (void)``)."""
        die = _origin(die, "DW_AT_name") or die
        types = tuple(self._type(c.get_DIE_from_attribute("DW_AT_type")) for c in die.iter_children()
                      if c.tag == "DW_TAG_formal_parameter" and "DW_AT_type" in c.attributes)
        prototyped = "DW_AT_prototyped" in die.attributes or (
            "DW_AT_specification" in die.attributes and "DW_AT_prototyped" in die.get_DIE_from_attribute("DW_AT_specification").attributes)
        return types if types or prototyped or _is_cplus(die.cu) else None

    def return_type(self, function: Function) -> CType | None:
        """What ``function`` returns; None for void (or without DWARF)."""
        die = None if function.die is None else _origin(function.die, "DW_AT_type")
        if die is None:
            return None
        return self._type(die.get_DIE_from_attribute("DW_AT_type"))

    def lookup_type(self, name: str) -> CType | None:
        """The file-scope type spelled ``name`` (``"uint32_t"``, ``"struct node"``, ``"enum mode"``),
        from its definition rather than a declaration; None if the program has none."""
        if self._type_dies is None:
            self._type_dies = {}
            for die in self._global_dies(*_TYPE_TAGS):
                spelled = _type_spelling(die)
                if spelled is not None and "DW_AT_declaration" not in die.attributes:
                    self._type_dies.setdefault(spelled, die)
        die = self._type_dies.get(name)
        return self._type(die) if die is not None else None

    def _type(self, die: DIE) -> CType:
        """The type of a DWARF type DIE, qualifiers dropped; enums are integers.  A struct
        reached again while its members are read (``struct node { struct node *next; }``) is
        its incomplete shell, which the evaluator completes through ``lookup_type``."""
        cached = self._types.get(die.offset)
        if cached is not None:
            return cached
        attrs = die.attributes
        tag = die.tag
        inner = self._type(die.get_DIE_from_attribute("DW_AT_type")) if "DW_AT_type" in attrs else None
        if tag in ("DW_TAG_const_type", "DW_TAG_volatile_type"):
            return self._remember(die, qualified(inner or VOID, "const" if tag == "DW_TAG_const_type" else "volatile"))
        if tag in ("DW_TAG_restrict_type", "DW_TAG_atomic_type"):
            return self._remember(die, inner or VOID)
        if tag == "DW_TAG_typedef":
            return self._remember(die, typedef(_name(die) or "?", inner or VOID))
        if tag == "DW_TAG_pointer_type":
            return self._remember(die, pointer_to(inner or VOID))
        if tag in ("DW_TAG_reference_type", "DW_TAG_rvalue_reference_type"):
            return self._remember(die, reference_to(inner or VOID))
        if tag == "DW_TAG_array_type":
            counts = [_subrange_count(c) for c in die.iter_children() if c.tag == "DW_TAG_subrange_type"] or [None]
            element = inner or VOID
            for count in reversed(counts):
                element = array_of(element, count or 0)
            return self._remember(die, element)
        if tag in ("DW_TAG_structure_type", "DW_TAG_union_type", "DW_TAG_class_type"):
            shell = CType(_type_spelling(die) or f"{_TAGS[tag]} {{...}}", _size(die), Kind.STRUCT)
            self._types[die.offset] = shell  # while the members are read
            fields = tuple(self._field(c) for c in die.iter_children()
                           if c.tag in _FIELD_TAGS and "DW_AT_type" in c.attributes)
            self._types[die.offset] = ctype = replace(shell, fields=fields, details=self._class_details(die))
            return ctype
        if tag == "DW_TAG_enumeration_type":
            scope = f"{_qualified(die)}::" if "DW_AT_enum_class" in attrs else ""
            enumerators = tuple((scope + (_name(c) or "?"),
                                 c.attributes["DW_AT_const_value"].value)
                                for c in die.iter_children() if c.tag == "DW_TAG_enumerator" and "DW_AT_const_value" in c.attributes)
            details = Details("enum", enumerators=enumerators, scoped="DW_AT_enum_class" in attrs, underlying=inner,
                              cplus=_is_cplus(die.cu))
            return self._remember(die, CType(_type_spelling(die) or "enum {...}", _size(die), Kind.INT,
                                             signed=inner is not None and inner.signed, details=details))
        if tag == "DW_TAG_base_type":
            encoding = attrs["DW_AT_encoding"].value if "DW_AT_encoding" in attrs else 0
            kind = {_DW_ATE_BOOLEAN: Kind.BOOL, _DW_ATE_FLOAT: Kind.FLOAT}.get(encoding, Kind.INT)
            return self._remember(die, CType(_name(die) or "?", _size(die), kind, signed=encoding in _SIGNED))
        if tag == "DW_TAG_subroutine_type":
            return self._remember(die, function_type(inner or VOID, self._params(die)))
        return self._remember(die, CType(_name(die) or "?", _size(die)))

    def _field(self, die: DIE) -> CField:
        """A member of a struct, union or class: a data member, a base class
        (``DW_TAG_inheritance``) or a static member (a ``DW_TAG_member`` declaration in DWARF 4,
        a ``DW_TAG_variable`` in DWARF 5), whose value is its ``DW_AT_const_value`` or the object
        its definition (a variable whose ``DW_AT_specification`` is the member) is at."""
        ctype = self._type(die.get_DIE_from_attribute("DW_AT_type"))
        if die.tag == "DW_TAG_inheritance":
            return CField(type_name(ctype), _member_offset(die), ctype, _access(die), role="base")
        if die.tag == "DW_TAG_variable" or "DW_AT_declaration" in die.attributes:
            const = die.attributes.get("DW_AT_const_value")
            return CField(_name(die) or "", 0, ctype, _access(die), role="static",
                          value=_const_value(const) if const is not None else None,
                          address=self._static_definitions().get(die.offset))
        return CField(_name(die) or "", _member_offset(die), ctype, _access(die))

    def _static_definitions(self) -> dict[int, int]:
        """The addresses of static members' definitions, by the offset of their declaration."""
        if self._statics is None:
            self._statics = {}
            for die in self._global_dies("DW_TAG_variable"):
                if "DW_AT_specification" in die.attributes and "DW_AT_location" in die.attributes:
                    expr = self._location_expr(die.attributes["DW_AT_location"], die, 0)
                    where = self._locate(self._expr.parse_expr(expr), {}, None, None) if expr is not None else None
                    if where is not None and len(where) == 1 and where[0].addr is not None:
                        self._statics[die.get_DIE_from_attribute("DW_AT_specification").offset] = where[0].addr
        return self._statics

    def _class_details(self, die: DIE) -> Details:
        """A struct's, union's or class's C++ side: its class key, member functions (not the
        compiler's), type template parameters."""
        keyword = {"DW_TAG_class_type": "class", "DW_TAG_union_type": "union"}.get(die.tag, "struct")
        if not _is_cplus(die.cu):
            return Details(keyword)
        methods, template, typedefs = [], [], []
        for child in die.iter_children():
            if child.tag == "DW_TAG_typedef" and "DW_AT_type" in child.attributes:
                typedefs.append((_name(child) or "?", self._type(child.get_DIE_from_attribute("DW_AT_type")), _access(child)))
            if child.tag == "DW_TAG_subprogram" and _name(child) and "DW_AT_artificial" not in child.attributes:
                params = [c for c in child.iter_children() if c.tag == "DW_TAG_formal_parameter" and "DW_AT_type" in c.attributes]
                this = next((p for p in params if "DW_AT_artificial" in p.attributes), None)
                const = this is not None and "const" in type_name(self._type(this.get_DIE_from_attribute("DW_AT_type")))
                returns = self._type(child.get_DIE_from_attribute("DW_AT_type")) if "DW_AT_type" in child.attributes else VOID
                methods.append(Method(_name(child) or "", returns,
                                      tuple(self._type(p.get_DIE_from_attribute("DW_AT_type")) for p in params if p is not this),
                                      _access(child), const, static=this is None))
            elif child.tag == "DW_TAG_template_type_param" and "DW_AT_type" in child.attributes:
                template.append((_name(child) or "?", self._type(child.get_DIE_from_attribute("DW_AT_type"))))
        return Details(keyword, tuple(methods), tuple(template), cplus=True, typedefs=tuple(typedefs))

    def _remember(self, die: DIE, ctype: CType) -> CType:
        """Cache ``ctype`` unless it is an incomplete struct: a typedef or qualifier of a struct
        whose members are being read is complete when looked up later."""
        if ctype.kind is not Kind.STRUCT or ctype.fields:
            self._types[die.offset] = ctype
        return ctype
