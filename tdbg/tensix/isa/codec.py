"""Tensix instruction words: decode, encode, text form, and the ``.ttinsn`` rotation.

Implements the layouts of ``Diagrams/Src/Bits32.lua`` (as ``encodings.json``, turned into
``data/isa.json`` by ``scripts/gen_isa_table.py``): the opcode is bits ``[31:24]``, each field is
``(word >> lsb) & (2**width - 1)``, and variants sharing an opcode are told apart by their fixed
bits (or, for ``SFPSHFT2b`` / ``SFPSTOCHRNDi``, by ``Mod1``).  Operand order follows the
"Syntax" section of each instruction page.  ``.ttinsn`` follows
``BabyRISCV/PushTensixInstruction.md``.

Decode rule for a word:

1. The candidates are the profile's encodings with opcode ``word >> 24``.
2. A candidate matches when all its fixed bits have their values and its selecting field (if
   any) holds one of its selecting values.
3. Among matches the one with the most constrained bits (fixed bits plus selecting-field bits)
   wins; the table has no two co-matching variants with equal counts (the tests check this).
   No match raises ``UnknownInstruction``.
4. Bits that neither the winner's fields nor its fixed bits cover are kept, in place, in the
   pseudo-field ``_reserved`` (present only when nonzero), so ``encode(decode(w)) == w`` for
   every word ``decode`` accepts.

Signed fields (``Imm12 (signed)``) decode to their two's-complement value and encode from
``-2**(w-1) .. 2**w - 1``.
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
WORMHOLE_B0 = "WormholeB0"
BLACKHOLE_A0 = "BlackholeA0"
DEFAULT_ARCH = WORMHOLE_B0
# Where a profile lacks an encoding, the Wormhole B0 one applies (DESIGN "Which text rules").
_FALLBACK = {BLACKHOLE_A0: WORMHOLE_B0}
_BH_SUFFIX = "_BH"


class IsaError(ValueError):
    """Base of the codec's errors; each message is one line."""


class UnknownInstruction(IsaError):
    """No encoding of the profile matches ``word``."""

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
    syntax: tuple[str, ...] | None                      # page's positional order, None if absent
    arch: tuple[str, ...]
    doc: tuple[str, ...]

    @cached_property
    def order(self) -> tuple[str, ...]:
        """Positional operand order: the page's syntax, then any field it omits, msb first."""
        first = self.syntax or ()
        rest = sorted((f for f in self.fields if f.name not in first), key=lambda f: -f.lsb)
        return (*first, *(f.name for f in rest))

    @cached_property
    def by_lower(self) -> dict[str, Field]:
        return {f.name.lower(): f for f in self.fields}

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

    def field(self, name: str) -> Field:
        """The field called ``name`` (any case)."""
        try:
            return self.by_lower[name.lower()]
        except KeyError:
            have = ", ".join(self.order) or "none"
            raise EncodeError(f"{self.name} has no field {name!r} (fields: {have})") from None

    def matches(self, word: int) -> bool:
        if word >> OPCODE_SHIFT != self.opcode or word & self.fixed_mask != self.fixed_value:
            return False
        return all((word & (f := self.field(n)).mask) >> f.lsb in vals for n, vals in self.select)

    def unpack(self, word: int) -> dict[str, int]:
        values = {f.name: f.check((word & f.mask) >> f.lsb) for f in self.fields}
        if word & self.reserved_mask:
            values[RESERVED] = word & self.reserved_mask
        return values

    def canonical(self, values: Mapping[str, int]) -> dict[str, int]:
        """Validated fields in table order; missing ones 0 (a selecting field: its first value)."""
        given: dict[str, int] = {}
        for name, value in values.items():
            key = RESERVED if name.lower() == RESERVED else self.field(name).name
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

    mnemonic: str
    fields: dict[str, int] = field(hash=False)

    @property
    def spec(self) -> Encoding:
        return encoding(self.mnemonic)

    @property
    def word(self) -> int:
        return encode(self.mnemonic, **self.fields)

    def text(self) -> str:
        """``MNEMONIC Field=V ...`` with fields in positional (syntax) order."""
        spec = self.spec
        values = spec.canonical(self.fields)
        parts = [spec.name, *(f"{n}={values[n]}" for n in spec.order)]
        if RESERVED in values:
            parts.append(f"{RESERVED}=0x{values[RESERVED]:x}")
        return " ".join(parts)


@dataclass(frozen=True)
class _Table:
    encodings: dict[str, Encoding]                       # lower-case mnemonic -> encoding
    profiles: dict[str, dict[int, list[Encoding]]]       # arch -> opcode -> most specific first


def _row(row: dict) -> Encoding:
    return Encoding(
        name=row["name"],
        opcode=row["opcode"],
        fields=tuple(Field(*f) for f in row["fields"]),
        fixed=tuple(tuple(x) for x in row["fixed"]),
        select=tuple((k, tuple(v)) for k, v in row.get("select", {}).items()),
        syntax=None if row["syntax"] is None else tuple(row["syntax"]),
        arch=tuple(row["arch"]),
        doc=tuple(row["doc"]),
    )


@cache
def _table() -> _Table:
    data = json.loads(resources.files("tdbg.tensix").joinpath("data/isa.json").read_text())
    encs = [_row(r) for r in data["instructions"]]
    arches = sorted({a for e in encs for a in e.arch})
    profiles: dict[str, dict[int, list[Encoding]]] = {}
    for arch in arches:
        chosen = [e for e in encs if arch in e.arch]
        if arch in _FALLBACK:
            replaced = {e.name.removesuffix(_BH_SUFFIX) for e in chosen}
            chosen += [e for e in encs if _FALLBACK[arch] in e.arch and arch not in e.arch
                       and e.name not in replaced]
        groups: dict[int, list[Encoding]] = {}
        for e in sorted(chosen, key=lambda e: (-e.specificity, e.name)):
            groups.setdefault(e.opcode, []).append(e)
        profiles[arch] = groups
    return _Table({e.name.lower(): e for e in encs}, profiles)


def _profile(arch: str) -> dict[int, list[Encoding]]:
    try:
        return _table().profiles[arch]
    except KeyError:
        raise IsaError(f"unknown architecture {arch!r} (known: {', '.join(_table().profiles)})") from None


def arches() -> list[str]:
    """Architecture profiles the table knows."""
    return list(_table().profiles)


def encoding(mnemonic: str) -> Encoding:
    """The encoding called ``mnemonic`` (any case, any profile)."""
    try:
        return _table().encodings[mnemonic.lower()]
    except KeyError:
        raise EncodeError(f"unknown Tensix instruction {mnemonic!r}") from None


def mnemonics(arch: str = DEFAULT_ARCH) -> list[str]:
    """Sorted mnemonics of one profile (for completion)."""
    return sorted(e.name for group in _profile(arch).values() for e in group)


def field_names(mnemonic: str) -> list[str]:
    """Field names of ``mnemonic`` in positional order (for completion)."""
    return list(encoding(mnemonic).order)


def decode(word: int, arch: str = DEFAULT_ARCH) -> Instruction:
    """The instruction in a 32-bit word (rule in the module docstring)."""
    if not isinstance(word, int) or not 0 <= word < 1 << 32:
        raise UnknownInstruction(word, "not a 32-bit word")
    group = _profile(arch).get(word >> OPCODE_SHIFT)
    if group is None:
        raise UnknownInstruction(word, f"no {arch} opcode 0x{word >> OPCODE_SHIFT:02x}")
    for enc in group:
        if enc.matches(word):
            return Instruction(enc.name, enc.unpack(word))
    names = "/".join(e.name for e in group)
    raise UnknownInstruction(word, f"opcode 0x{word >> OPCODE_SHIFT:02x} ({names}) with no matching variant bits")


def encode(mnemonic: str, **fields: int) -> int:
    """The word for ``mnemonic`` with ``fields`` (any case; missing ones default to 0).

    Raises ``EncodeError`` for an unknown name, a value that does not fit its field, or values
    that would decode as a different variant of the same opcode.
    """
    enc = encoding(mnemonic)
    word = enc.pack(enc.canonical(fields))
    got = decode(word, enc.arch[0]).mnemonic
    if got != enc.name:
        rules = [f"{e.name} has {n} in {list(v)}" for e in (enc, encoding(got)) for n, v in e.select]
        raise EncodeError(f"these {enc.name} fields encode {got}{' (' + '; '.join(rules) + ')' if rules else ''}")
    return word


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


def parse(text: str) -> Instruction:
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
        enc = encoding(head.group(1))
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
                key = RESERVED if name.lower() == RESERVED else enc.field(name).name
                if key in values:
                    raise ParseError(f"{enc.name}: field {key} given twice")
                values[key] = _value(val, key)
        else:
            if tokens and len(tokens) != len(enc.order):
                raise ParseError(f"{enc.name} takes {len(enc.order)} operands "
                                 f"({', '.join(enc.order) or 'none'}), got {len(tokens)}")
            values = {n: _value(t, n) for n, t in zip(enc.order, tokens)}
        encode(enc.name, **values)
        return Instruction(enc.name, enc.canonical(values))
    except EncodeError as e:
        raise ParseError(str(e)) from None


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
