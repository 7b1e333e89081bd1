"""SV REMAP ``SHAPE``: 1D/2D/3D element-index remapping.

Implements the Libre-SOC SV REMAP page (``seeds/003``, section "SHAPE 1D/2D/3D vector-matrix
remapping CSRs").  A 32-bit SHAPE value holds, per that section's bit table::

    31..30 applydim | 29..24 modulo | 23..21 invxyz | 20..18 permute
    17..12 zdimsz   | 11..6  ydimsz | 5..0   xdimsz

This revision of the page has no offset or skip field.  The sizes are stored minus one
(``xdimsz=2`` is a dimension of 3 elements), so each dimension holds 1..64 elements.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

# (field, lowest bit, width) in the seed's SHAPE table.
_LAYOUT = (
    ("xdimsz", 0, 6), ("ydimsz", 6, 6), ("zdimsz", 12, 6), ("permute", 18, 3),
    ("invxyz", 21, 3), ("modulo", 24, 6), ("applydim", 30, 2),
)
_WIDTH = {name: width for name, _, width in _LAYOUT}

# permute -> the axes (0 = x, 1 = y, 2 = z) from the fastest-counting loop to the slowest:
# the seed's "order" column.
ORDERS: dict[int, tuple[int, int, int]] = {
    0: (0, 1, 2), 1: (0, 2, 1), 2: (1, 0, 2), 3: (1, 2, 0), 4: (2, 0, 1), 5: (2, 1, 0),
}
AXES = "xyz"
MAX_DIM = 1 << _WIDTH["xdimsz"]


@dataclass(frozen=True)
class Shape:
    """One SHAPE register, as its stored fields.

    ``invxyz`` is a mask: bit 0 inverts x, bit 1 y, bit 2 z.  ``modulo`` 0 disables the wrap.
    ``applydim`` N zeroes the dimensions below N (0: x y z apply, 1: y z, 2: z only).
    Reserved values (permute 6 and 7, applydim 3) are refused with ``ValueError``.
    """

    xdimsz: int = 0
    ydimsz: int = 0
    zdimsz: int = 0
    permute: int = 0
    invxyz: int = 0
    modulo: int = 0
    applydim: int = 0

    def __post_init__(self) -> None:
        for f in fields(self):
            value, top = getattr(self, f.name), (1 << _WIDTH[f.name]) - 1
            if not isinstance(value, int) or not 0 <= value <= top:
                raise ValueError(f"SHAPE {f.name} {value!r} out of range 0..{top}")
        if self.permute not in ORDERS:
            raise ValueError(f"SHAPE permute {self.permute} is reserved (0..5 are legal)")
        if self.applydim == 3:
            raise ValueError("SHAPE applydim 3 is reserved (0..2 are legal)")

    @classmethod
    def decode(cls, raw: int) -> Shape:
        """The shape a raw 32-bit SHAPE value holds."""
        if not 0 <= raw < 1 << 32:
            raise ValueError(f"SHAPE value {raw:#x} is not a 32-bit value")
        return cls(**{name: raw >> low & (1 << width) - 1 for name, low, width in _LAYOUT})

    def encode(self) -> int:
        """The raw 32-bit SHAPE value."""
        return sum(getattr(self, name) << low for name, low, _ in _LAYOUT)

    @classmethod
    def from_names(cls, *, xdim: int = 1, ydim: int = 1, zdim: int = 1, permute: int = 0,
                   invxyz: int = 0, modulo: int = 0, applydim: int = 0) -> Shape:
        """A shape from the *actual* dimension sizes (1..64): ``xdim=3`` stores ``xdimsz=2``."""
        return cls(_stored_size("xdim", xdim), _stored_size("ydim", ydim), _stored_size("zdim", zdim),
                   permute, invxyz, modulo, applydim)

    @property
    def dims(self) -> tuple[int, int, int]:
        """The actual sizes (x, y, z)."""
        return self.xdimsz + 1, self.ydimsz + 1, self.zdimsz + 1

    @property
    def size(self) -> int:
        """Elements in one pass of the iterator."""
        x, y, z = self.dims
        return x * y * z

    @property
    def disabled(self) -> bool:
        """An all-zero SHAPE: no remapping, the elements are a linear vector (seed 003)."""
        return self.encode() == 0

    def describe(self) -> str:
        """The shape in the shell's ``key=value`` form (``parse`` reads it back)."""
        x, y, z = self.dims
        words = [f"xdim={x}", f"ydim={y}", f"zdim={z}", f"permute={self.permute}"]
        if self.invxyz:
            words.append("invxyz=" + "".join(a for i, a in enumerate(AXES) if self.invxyz >> i & 1))
        if self.modulo:
            words.append(f"modulo={self.modulo}")
        if self.applydim:
            words.append(f"applydim={self.applydim}")
        inner, middle, outer = (AXES[a] for a in ORDERS[self.permute])
        return " ".join(words) + f"  (loops: {inner} innermost, then {middle}, then {outer}; {self.size} elements)"


def _stored_size(name: str, size: int) -> int:
    if not isinstance(size, int) or not 1 <= size <= MAX_DIM:
        raise ValueError(f"SHAPE {name} {size!r} out of range 1..{MAX_DIM}")
    return size - 1


def _one_pass(shape: Shape) -> Iterator[int]:
    dims = shape.dims
    strides = (1, dims[0], dims[0] * dims[1])
    inner, middle, outer = ORDERS[shape.permute]
    for a in range(dims[outer]):
        for b in range(dims[middle]):
            for c in range(dims[inner]):
                position = [0, 0, 0]
                position[outer], position[middle], position[inner] = a, b, c
                index = 0
                for axis in range(shape.applydim, 3):
                    step = position[axis]
                    if shape.invxyz >> axis & 1:
                        step = dims[axis] - 1 - step
                    index += step * strides[axis]
                yield index % shape.modulo if shape.modulo else index


def indices(shape: Shape, count: int | None = None) -> list[int]:
    """The element indices the SHAPE iterator visits (seed 003, the SHAPE section's listing).

    The loops nest in ``ORDERS[permute]`` order (first entry counts fastest); the index is
    ``x + y*xdim + z*xdim*ydim``.  A dimension below ``applydim`` contributes 0 (and is not
    inverted: the prose says it is set to zero).  ``modulo``, when non-zero, is applied last.

    Inversion: the seed's listing starts an inverted count at the size ``d`` (visiting d..1)
    and its prose at ``xdimsz-1`` (d-2..0); neither visits each element once.  Here an
    inverted dimension of size ``d`` visits d-1 .. 0, once each.

    ``count`` elements are returned (default: one pass, ``shape.size``); past one pass the
    counters wrap to zero and the sequence repeats.  An all-zero SHAPE is disabled: 0, 1, 2...
    """
    n = shape.size if count is None else count
    if shape.disabled:
        return list(range(n))
    one = list(_one_pass(shape))
    return [one[i % len(one)] for i in range(n)]


_SIZE_KEYS = ("xdim", "ydim", "zdim")
FIELD_KEYS = (*_SIZE_KEYS, "xdimsz", "ydimsz", "zdimsz", "permute", "invxyz", "modulo", "applydim")


def parse(text: str) -> Shape:
    """A SHAPE from the shell: a raw value (``0x80042``) or ``key=value`` words.

    ``xdim= ydim= zdim=`` are actual sizes (1..64, default 1); ``xdimsz= ydimsz= zdimsz=``
    are the stored form (size minus one).  ``invxyz`` is a mask (``5``, ``0b101``) or the
    letters of the inverted axes (``xz``).  Omitted fields are 0.
    """
    words = text.split()
    if not words:
        raise ValueError("SHAPE required: 0xHEX or xdim=N ydim=N zdim=N permute=P ...")
    if len(words) == 1 and "=" not in words[0]:
        return Shape.decode(_number("SHAPE", words[0]))
    given: dict[str, int] = {}
    for word in words:
        key, eq, value = word.partition("=")
        key = key.lower()
        if not eq or key not in FIELD_KEYS:
            raise ValueError(f"unknown SHAPE field {word!r} (fields: {' '.join(FIELD_KEYS)})")
        if key in given:
            raise ValueError(f"SHAPE field {key} given twice")
        given[key] = _invxyz(value) if key == "invxyz" else _number(key, value)
    stored: dict[str, int] = {}
    for key, value in given.items():
        if key in _SIZE_KEYS:
            if key + "sz" in given:
                raise ValueError(f"give {key} (the size) or {key}sz (size minus one), not both")
            stored[key + "sz"] = _stored_size(key, value)
        else:
            stored[key] = value
    return Shape(**stored)


def _number(name: str, text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"SHAPE {name}: {text!r} is not a number") from None


def _invxyz(text: str) -> int:
    if text and set(text.lower()) <= set(AXES):
        return sum(1 << AXES.index(a) for a in set(text.lower()))
    return _number("invxyz", text)
