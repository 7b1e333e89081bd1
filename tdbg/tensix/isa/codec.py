"""Tensix instruction words: decode, encode, text form, and the ``.ttinsn`` rotation.

An ``Isa`` is one profile's table (``isa.json`` in the architecture's package, made by
``scripts/gen_isa_table.py``): ``tdbg.arch.wormhole_b0``'s holds the layouts of
``Diagrams/Src/Bits32.lua`` (Wormhole B0), ``tdbg.arch.blackhole``'s those of tt-llk's Blackhole ``assembly.yaml`` with its fields named after the Wormhole pages and
the YAML names kept as aliases.  The opcode is bits ``[31:24]``, each field is
``(word >> lsb) & (2**width - 1)``, and variants sharing an opcode are told apart by their fixed
bits (or, for ``SFPSHFT2b`` / ``SFPSTOCHRNDi``, by ``Mod1``).  Operand order follows the
"Syntax" section of each page (Wormhole) or the ``TT_OP_*`` macro (Blackhole, msb first).
``.ttinsn`` follows ``BabyRISCV/PushTensixInstruction.md``.

Decode rule for a word:

1. The candidates are the table's encodings with opcode ``word >> 24``.
2. A candidate matches when all its fixed bits have their values and its selecting field (if
   any) holds one of its selecting values.
3. Among matches the one with the most constrained bits (fixed bits plus selecting-field bits)
   wins; the table has no two co-matching variants with equal counts (the tests check this).
   No match raises ``UnknownInstruction``.
4. Bits that neither the winner's fields nor its fixed bits cover are kept, in place, in the
   pseudo-field ``_reserved`` (present only when nonzero), so ``encode(decode(w)) == w`` for
   every word ``decode`` accepts.

An alias names a bit range; a value given for it is split over the fields inside the range
(bits of the range no field covers go to ``_reserved``).  Signed fields (``Imm12 (signed)``)
decode to their two's-complement value and encode from ``-2**(w-1) .. 2**w - 1``.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources

RESERVED = "_reserved"
OPCODE_SHIFT = 24
OPERAND_MASK = (1 << OPCODE_SHIFT) - 1


class IsaError(ValueError):
    """Base of the codec's errors; each message is one line."""


class UnknownInstruction(IsaError):
    """No encoding of the table matches ``word``."""

    def __init__(self, word: int, why: str = "") -> None:
        self.word = word
        text = f"0x{word:08x}" if 0 <= word < 1 << 32 else str(word)
        super().__init__(f"unknown Tensix instruction {text}{': ' + why if why else ''}")


class EncodeError(IsaError):
    """A mnemonic, field name or field value that cannot be encoded."""


class ParseError(IsaError):
    """Text that is not an instruction."""


@dataclass(frozen=True)
class Field:
    """One operand field: ``(word >> lsb) & (2**width - 1)``."""

    name: str
    lsb: int
    width: int
    signed: bool = False

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb

    def check(self, value: int) -> int:
        """Validate ``value`` and return it in canonical form (signed fields as signed)."""
        lo = -(1 << (self.width - 1)) if self.signed else 0
        hi = (1 << self.width) - 1
        try:
            value = operator.index(value)
        except TypeError:
            raise EncodeError(f"{self.name}={value!r} is not an integer") from None
        if not lo <= value <= hi:
            kind = f"signed {self.width}-bit" if self.signed else f"{self.width}-bit"
            raise EncodeError(f"{self.name}={value!r} does not fit: {self.name} is a {kind} field ({lo}..{hi})")
        if self.signed and value >= 1 << (self.width - 1):
            value -= 1 << self.width
        return value


@dataclass(frozen=True)
class Encoding:
    """One instruction (or variant) layout from the generated table."""

    name: str
    opcode: int
    fields: tuple[Field, ...]                           # lsb order
    fixed: tuple[tuple[int, int, int], ...]             # (lsb, width, value)
    select: tuple[tuple[str, tuple[int, ...]], ...]     # (field, values that select this variant)
    syntax: tuple[str, ...] | None                      # positional order, None if unknown
    doc: tuple[str, ...]
    aliases: tuple[Field, ...] = ()                     # other names of bit ranges

    @cached_property
    def order(self) -> tuple[str, ...]:
        """Positional operand order: the syntax, then any field it does not cover, msb first."""
        first = tuple(self._field_of(self.resolve(n)).name for n in self.syntax or ())
        covered = 0
        for name in first:
            covered |= self.resolve(name).mask
        rest = sorted((f for f in self.fields if not f.mask & covered), key=lambda f: -f.lsb)
        return (*first, *(f.name for f in rest))

    def _field_of(self, f: Field) -> Field:
        """The field with exactly ``f``'s bits (an alias of one field), else ``f``."""
        return next((g for g in self.fields if (g.lsb, g.width) == (f.lsb, f.width)), f)

    @cached_property
    def shown(self) -> tuple[str, ...]:
        """Fields in text order: the positional order where it names fields only, else msb first."""
        if all(n in self.names for n in self.order):
            return self.order
        return tuple(f.name for f in sorted(self.fields, key=lambda f: -f.lsb))

    @cached_property
    def names(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    @cached_property
    def by_lower(self) -> dict[str, Field]:
        return {f.name.lower(): f for f in (*self.aliases, *self.fields)}

    @cached_property
    def extract(self) -> tuple[tuple[str, int, int, int], ...]:
        """(name, lsb, width mask, sign bit or 0) per field, for ``unpack``."""
        return tuple((f.name, f.lsb, (1 << f.width) - 1, 1 << (f.width - 1) if f.signed else 0) for f in self.fields)

    @cached_property
    def fixed_mask(self) -> int:
        return sum(((1 << w) - 1) << lsb for lsb, w, _ in self.fixed)

    @cached_property
    def fixed_value(self) -> int:
        return sum(v << lsb for lsb, _, v in self.fixed)

    @cached_property
    def reserved_mask(self) -> int:
        """Operand bits covered by neither a field nor a fixed bit."""
        covered = self.fixed_mask
        for f in self.fields:
            covered |= f.mask
        return OPERAND_MASK & ~covered

    @cached_property
    def specificity(self) -> int:
        """Number of constrained bits; decode prefers the larger."""
        sel = sum(self.field(name).width for name, _ in self.select)
        return self.fixed_mask.bit_count() + sel

    def resolve(self, name: str) -> Field:
        """The field, or the alias range, called ``name`` (any case)."""
        try:
            return self.by_lower[name.lower()]
        except KeyError:
            have = ", ".join([*self.order, *(a.name for a in self.aliases)]) or "none"
            raise EncodeError(f"{self.name} has no field {name!r} (fields: {have})") from None

    def field(self, name: str) -> Field:
        """The field called ``name`` (any case), not an alias."""
        f = self.resolve(name)
        if f.name not in self.names:
            raise EncodeError(f"{self.name}: {name} is an alias, not a field")
        return f

    def matches(self, word: int) -> bool:
        if word >> OPCODE_SHIFT != self.opcode or word & self.fixed_mask != self.fixed_value:
            return False
        return all((word & (f := self.field(n)).mask) >> f.lsb in vals for n, vals in self.select)

    def unpack(self, word: int) -> dict[str, int]:
        values = {}
        for name, lsb, mask, sign in self.extract:
            v = (word >> lsb) & mask
            values[name] = v - (sign << 1) if v & sign else v
        if word & self.reserved_mask:
            values[RESERVED] = word & self.reserved_mask
        return values

    def _split(self, alias: Field, value: int, given: dict[str, int]) -> None:
        """Spread an alias value over the fields inside its range (the rest: ``_reserved``)."""
        bits = alias.check(value) << alias.lsb
        for f in self.fields:
            if f.mask & alias.mask:
                if f.name in given:
                    raise EncodeError(f"{self.name}: field {f.name} given twice (also by {alias.name})")
                given[f.name] = (bits & f.mask) >> f.lsb
                bits &= ~f.mask
        if bits:
            given[RESERVED] = given.get(RESERVED, 0) | bits

    def canonical(self, values: Mapping[str, int]) -> dict[str, int]:
        """Validated fields in table order; missing ones 0 (a selecting field: its first value)."""
        given: dict[str, int] = {}
        for name, value in values.items():
            if name.lower() == RESERVED:
                key = RESERVED
            else:
                f = self.resolve(name)
                if f.name not in self.names:
                    self._split(f, value, given)
                    continue
                key = f.name
            if key in given:
                raise EncodeError(f"{self.name}: field {key} given twice")
            given[key] = value
        defaults = dict((n, vals[0]) for n, vals in self.select)
        out = {f.name: f.check(given.get(f.name, defaults.get(f.name, 0))) for f in self.fields}
        extra = given.get(RESERVED, 0)
        if not isinstance(extra, int) or extra & ~self.reserved_mask or extra < 0:
            raise EncodeError(f"{self.name}: {RESERVED}={extra!r} must only set unused bits "
                              f"(mask 0x{self.reserved_mask:06x})")
        if extra:
            out[RESERVED] = extra
        return out

    def pack(self, values: Mapping[str, int]) -> int:
        """The word for already canonical ``values``."""
        word = self.opcode << OPCODE_SHIFT | self.fixed_value | values.get(RESERVED, 0)
        for f in self.fields:
            word |= (values[f.name] << f.lsb) & f.mask
        return word


@dataclass(frozen=True)
class Instruction:
    """A decoded or parsed instruction; ``fields`` are in table (lsb) order."""

    spec: Encoding
    fields: dict[str, int] = field(hash=False)

    @property
    def mnemonic(self) -> str:
        return self.spec.name

    @property
    def word(self) -> int:
        return self.spec.pack(self.spec.canonical(self.fields))

    def text(self) -> str:
        """``MNEMONIC Field=V ...`` with fields in positional (syntax) order."""
        spec = self.spec
        values = spec.canonical(self.fields)
        parts = [spec.name, *(f"{n}={values[n]}" for n in spec.shown)]
        if RESERVED in values:
            parts.append(f"{RESERVED}=0x{values[RESERVED]:x}")
        return " ".join(parts)


def _row(row: dict) -> Encoding:
    return Encoding(
        name=row["name"],
        opcode=row["opcode"],
        fields=tuple(Field(*f) for f in row["fields"]),
        fixed=tuple(tuple(x) for x in row["fixed"]),
        select=tuple((k, tuple(v)) for k, v in row.get("select", {}).items()),
        syntax=None if row["syntax"] is None else tuple(row["syntax"]),
        doc=tuple(row["doc"]),
        aliases=tuple(Field(name, lsb, width) for name, (lsb, width) in row.get("aliases", {}).items()),
    )


class Isa:
    """One profile's instruction table (see the module docstring)."""

    def __init__(self, name: str, rows: list[dict]) -> None:
        self.name = name
        encs = [_row(r) for r in rows]
        self.encodings = {e.name.lower(): e for e in encs}
        self.by_opcode: dict[int, list[Encoding]] = {}
        for e in sorted(encs, key=lambda e: (-e.specificity, e.name)):
            self.by_opcode.setdefault(e.opcode, []).append(e)

    @classmethod
    @cache
    def load(cls, package: str, filename: str = "isa.json") -> Isa:
        """The table in package data file ``filename`` of ``package`` (an architecture's:
        ``tdbg.arch.blackhole``), named after the architecture."""
        data = json.loads(resources.files(package).joinpath(filename).read_text())
        return cls(package.rsplit(".", 1)[-1], data["instructions"])

    def __repr__(self) -> str:
        return f"Isa({self.name!r})"

    def __deepcopy__(self, memo: dict) -> Isa:
        return self  # immutable: checkpoints of state that holds a table share it

    def encoding(self, mnemonic: str) -> Encoding:
        """The encoding called ``mnemonic`` (any case)."""
        try:
            return self.encodings[mnemonic.lower()]
        except KeyError:
            raise EncodeError(f"unknown Tensix instruction {mnemonic!r}") from None

    def mnemonics(self) -> list[str]:
        """Sorted mnemonics (for completion)."""
        return sorted(e.name for e in self.encodings.values())

    def field_names(self, mnemonic: str) -> list[str]:
        """Field names of ``mnemonic`` in positional order, then its aliases (for completion)."""
        enc = self.encoding(mnemonic)
        return [*enc.order, *(a.name for a in enc.aliases if a.name not in enc.order)]

    def decode(self, word: int) -> Instruction:
        """The instruction in a 32-bit word (rule in the module docstring)."""
        if not isinstance(word, int) or not 0 <= word < 1 << 32:
            raise UnknownInstruction(word, "not a 32-bit word")
        group = self.by_opcode.get(word >> OPCODE_SHIFT)
        if group is None:
            raise UnknownInstruction(word, f"no opcode 0x{word >> OPCODE_SHIFT:02x} in {self.name}")
        for enc in group:
            if enc.matches(word):
                return Instruction(enc, enc.unpack(word))
        names = "/".join(e.name for e in group)
        raise UnknownInstruction(word, f"opcode 0x{word >> OPCODE_SHIFT:02x} ({names}) with no matching variant bits")

    def encode(self, mnemonic: str, **fields: int) -> int:
        """The word for ``mnemonic`` with ``fields`` (any case, aliases too; missing ones 0).

        Raises ``EncodeError`` for an unknown name, a value that does not fit its field, or values
        that would decode as a different variant of the same opcode.
        """
        enc = self.encoding(mnemonic)
        word = enc.pack(enc.canonical(fields))
        got = self.decode(word).spec
        if got is not enc:
            rules = [f"{e.name} has {n} in {list(v)}" for e in (enc, got) for n, v in e.select]
            raise EncodeError(f"these {enc.name} fields encode {got.name}{' (' + '; '.join(rules) + ')' if rules else ''}")
        return word

    def parse(self, text: str) -> Instruction:
        """Parse ``MNEMONIC Field=V ...``, ``MNEMONIC v1, v2, ...`` or ``MNEMONIC(v1, v2, ...)``.

        Values are decimal, ``0x`` hex or ``0b`` binary; mnemonics and field names ignore case;
        positional values follow ``field_names(mnemonic)``.
        """
        if "\n" in text.strip():
            raise ParseError("one instruction per line")
        head = _HEAD.fullmatch(text)
        if head is None:
            raise ParseError(f"expected MNEMONIC [operands], got {text.strip()!r}")
        try:
            enc = self.encoding(head.group(1))
        except EncodeError as e:
            raise ParseError(str(e)) from None
        rest = head.group(2)
        if rest.startswith("("):
            if not rest.endswith(")"):
                raise ParseError(f"{enc.name}: missing ')'")
            rest = rest[1:-1]
        rest = re.sub(r"\s*=\s*", "=", rest.strip())
        tokens = [t for t in re.split(r"[\s,]+", rest) if t]
        named = [t for t in tokens if "=" in t]
        try:
            if named and len(named) != len(tokens):
                raise ParseError(f"{enc.name}: use either Field=V operands or positional values, not both")
            if named:
                values: dict[str, int] = {}
                for tok in named:
                    name, _, val = tok.partition("=")
                    if not name:
                        raise ParseError(f"{enc.name}: missing field name before '={val}'")
                    key = RESERVED if name.lower() == RESERVED else enc.resolve(name).name
                    if key in values:
                        raise ParseError(f"{enc.name}: field {key} given twice")
                    values[key] = _value(val, key)
            else:
                if tokens and len(tokens) != len(enc.order):
                    raise ParseError(f"{enc.name} takes {len(enc.order)} operands "
                                     f"({', '.join(enc.order) or 'none'}), got {len(tokens)}")
                values = {n: _value(t, n) for n, t in zip(enc.order, tokens)}
            self.encode(enc.name, **values)
            return Instruction(enc, enc.canonical(values))
        except EncodeError as e:
            raise ParseError(str(e)) from None


_VALUE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)")
_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(.*?)\s*$", re.S)


def _value(token: str, what: str) -> int:
    if not _VALUE.fullmatch(token):
        raise ParseError(f"bad value {token!r} for {what} (want decimal, 0x hex or 0b binary)")
    neg = token.startswith("-")
    digits = token.lstrip("-")
    base = {"0x": 16, "0b": 2}.get(digits[:2].lower(), 10)
    value = int(digits[2:] if base != 10 else digits, base)
    return -value if neg else value


def is_ttinsn(riscv_word: int) -> bool:
    """True when a fetched RISC-V word is a ``.ttinsn`` (low two bits not ``0b11``)."""
    return riscv_word & 3 != 3


def ttinsn_to_word(riscv_word: int) -> int:
    """The Tensix instruction a ``.ttinsn`` RISC-V word pushes: rotate right by 2."""
    if not is_ttinsn(riscv_word):
        raise ValueError(f"0x{riscv_word:08x} is not a .ttinsn (low two bits are 0b11)")
    return (riscv_word >> 2 | riscv_word << 30) & 0xFFFF_FFFF


def word_to_ttinsn(word: int) -> int:
    """The ``.ttinsn`` RISC-V encoding of a Tensix instruction: rotate left by 2.

    Only words below ``0xC0000000`` have one (every valid Tensix instruction is).
    """
    if not 0 <= word < 0xC000_0000:
        raise ValueError(f"0x{word:08x} has no .ttinsn form (must be below 0xc0000000)")
    return (word << 2 | word >> 30) & 0xFFFF_FFFF
