"""``remap``: SV REMAP SHAPE element orders (seed 003, ``tdbg.tensix.remap``), and the
``remap SHAPE`` suffix of ``x`` (``remap_order``)."""

from __future__ import annotations

import re

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command
from tdbg.tensix.remap import FIELD_KEYS, Shape, indices, parse

SUBCOMMANDS = ("indices", "define", "show")
_NAME = re.compile(r"^[A-Za-z_][\w.-]*$")


def shapes(interp: Interpreter) -> dict[str, Shape]:
    """The shapes ``remap define`` named, in ``interp.state.remap_shapes``."""
    return interp.state.remap_shapes


def resolve_shape(interp: Interpreter, text: str) -> Shape:
    """A defined NAME, a raw 0xHEX value, or ``key=value`` words."""
    text = text.strip()
    named = shapes(interp).get(text)
    if named is not None:
        return named
    if _NAME.match(text):
        raise CommandError(f'No remap shape named "{text}".  Try "remap show".')
    try:
        return parse(text)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def remap_order(interp: Interpreter, text: str, count: int) -> list[int]:
    """For ``x/N... remap SHAPE``: the offsets (from the first element) of the N elements shown."""
    return indices(resolve_shape(interp, text), count)


def _complete_remap(interp: Interpreter, word: str) -> list[str]:
    parts = interp.state.completion_line.split()
    if len(parts) <= 1 or (len(parts) == 2 and word):
        return [s for s in SUBCOMMANDS if s.startswith(word)]
    return [c for c in [*(f"{k}=" for k in FIELD_KEYS), *shapes(interp)] if c.startswith(word)]


@command(
    "remap",
    usage="remap indices SHAPE | remap define NAME SHAPE | remap show",
    help=(
        "SV REMAP shapes (Libre-SOC SHAPE registers).  'indices' prints the element index "
        "sequence of one pass, decimal, whitespace separated; 'define' names a shape; 'show' "
        "lists the named ones.  SHAPE is a defined NAME, a raw 32-bit value (0xHEX), or words "
        "xdim=N ydim=N zdim=N (actual sizes 1..64, default 1; xdimsz= ydimsz= zdimsz= give the "
        "stored size minus one) permute=0..5 invxyz=MASK|LETTERS (bit 0 / x inverts x) "
        "modulo=0..63 (0: off) applydim=0..2 (dimensions below it count as 0).  An inverted "
        "dimension of size d counts d-1 down to 0.  Use a shape with x/NFU dst[ROW] remap SHAPE."
    ),
    example="remap indices xdim=3 ydim=4 zdim=5 permute=2",
    complete=_complete_remap,
)
def remap_cmd(interp: Interpreter, args: str) -> None:
    sub, _, rest = args.strip().partition(" ")
    matches = [s for s in SUBCOMMANDS if sub and s.startswith(sub)]
    if len(matches) != 1:
        raise CommandError(f'"remap" takes a subcommand: {", ".join(SUBCOMMANDS)}.')
    rest = rest.strip()
    if matches[0] == "indices":
        if not rest:
            raise CommandError("Argument required (SHAPE).")
        interp.out(" ".join(map(str, indices(resolve_shape(interp, rest)))))
    elif matches[0] == "define":
        name, _, spec = rest.partition(" ")
        if not _NAME.match(name) or not spec.strip():
            raise CommandError("Usage: remap define NAME SHAPE (NAME a letter, then letters, digits, _ . -).")
        shape = resolve_shape(interp, spec)
        shapes(interp)[name] = shape
    else:
        if rest:
            raise CommandError('"remap show" takes no argument.')
        if not shapes(interp):
            interp.out("No remap shapes defined.")
        for name, shape in sorted(shapes(interp).items()):
            interp.out(f"{name}: {shape.encode():#010x}  {shape.describe()}")
