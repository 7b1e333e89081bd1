"""State declared once, as QEMU's ``VMStateDescription`` does it.

Each stateful component (the coprocessor model's state, the coprocessor, the Vector Unit, each
device, each core, the tile) lists its state in one ``StateDescription``, its class's ``STATE``.
That one list then drives everything that must cover the whole state:

* ``reset``: back to power-on (each field's ``reset``);
* ``save`` / ``load``: a checkpoint, a reverse-stepi record, and returning to one;
* ``Saved.nbytes``: what a save costs in memory (the history's and the checkpoints' budgets);
* ``changes``: what differs between two saves, in words (the ``tensix`` command's report).

A field is an attribute path of the component, or a ``get`` / ``put`` pair where the state is
not one attribute.  Its kind says how it is copied: an ``ARRAY`` is copied out and written back
in place (views of it stay valid), a ``VALUE`` is immutable and kept as it is, an ``OBJECT`` is
deep-copied both ways, a ``PART`` is a component with a description of its own, ``PARTS`` a
mapping of them (the cores by name, the devices).  A field that a reverse-stepi record leaves to
the step's journal (L1, the memory of other endpoints) has ``in_steps=False``; one that only a
reset clears (logs nobody returns to) has ``saved=False``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from operator import attrgetter
from typing import Any

import numpy as np

#: Bytes a saved field costs beyond its arrays and bytes (the dictionary, small objects), roughly.
FIELD_OVERHEAD = 64

Report = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]
#: A field's ``reset`` when a reset leaves it as it is.
KEEP: Any = object()


class Kind(Enum):
    ARRAY = "array"
    VALUE = "value"
    OBJECT = "object"
    PART = "part"
    PARTS = "parts"


@dataclass(frozen=True)
class Field:
    """One piece of a component's state (module docstring).  ``reset``: for an ``ARRAY`` the
    value every element gets (or a function of the component giving the contents), for a
    ``VALUE`` / ``OBJECT`` the value or a function of the component making it; ``KEEP`` for a
    field a reset leaves alone (a part resets itself).  ``copy``: how an ``OBJECT`` is copied (a
    flat ``dict`` or ``list`` of numbers needs no deep copy).  ``report``: the lines the ``tensix``
    command prints when it changed, from the two saves of the whole component.  ``size``: bytes
    a saved value holds that ``Saved.nbytes`` cannot see (a Unicorn CPU context)."""

    name: str
    kind: Kind
    path: str = ""
    get: Callable[[Any], Any] | None = None
    put: Callable[[Any, Any], None] | None = None
    reset: Any = KEEP
    report: Report | None = None
    saved: bool = True
    in_steps: bool = True
    size: int = 0
    copy: Callable[[Any], Any] = copy.deepcopy

    def __post_init__(self) -> None:
        path = self.path or self.name
        object.__setattr__(self, "_attributes", tuple(path.split(".")))
        object.__setattr__(self, "read", self.get or attrgetter(path))

    def write(self, obj: Any, value: Any) -> None:
        if self.put is not None:
            self.put(obj, value)
            return
        *parents, last = self._attributes  # type: ignore[attr-defined]
        for name in parents:
            obj = getattr(obj, name)
        setattr(obj, last, value)


def array(name: str, path: str = "", **options: Any) -> Field:
    return Field(name, Kind.ARRAY, path, **{"reset": 0, **options})


def value(name: str, path: str = "", **options: Any) -> Field:
    return Field(name, Kind.VALUE, path, **options)


def obj(name: str, path: str = "", **options: Any) -> Field:
    return Field(name, Kind.OBJECT, path, **options)


def part(name: str, path: str = "", **options: Any) -> Field:
    return Field(name, Kind.PART, path, **options)


def parts(name: str, path: str = "", **options: Any) -> Field:
    return Field(name, Kind.PARTS, path, **options)


class Saved(dict[str, Any]):
    """A component's saved state, by field name, and ``nbytes``: roughly the memory it holds (its
    arrays and byte strings, what ``Field.size`` adds, an overhead per field)."""

    nbytes: int = 0


@dataclass(frozen=True)
class StateDescription:
    """Every field of one component's state, in the order they are written back; ``after``
    refreshes what the component derives from them (caches), after a load and after a reset."""

    name: str
    fields: tuple[Field, ...]
    after: Callable[[Any], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        saved = tuple(f for f in self.fields if f.saved)
        object.__setattr__(self, "_save", (_compiled_save(saved, False),
                                           _compiled_save(tuple(f for f in saved if f.in_steps), True)))
        object.__setattr__(self, "_reset", _compiled_reset(self.fields, self.after))

    def save(self, obj: Any, steps: bool = False) -> Saved:
        """The component's state (``steps``: for a reverse-stepi record, without the fields the
        step's journal keeps), with roughly the memory it holds (``Saved.nbytes``)."""
        return self._save[steps](obj)  # type: ignore[attr-defined]

    def load(self, obj: Any, saved: Mapping[str, Any]) -> None:
        """Put back a ``save`` (the fields it holds)."""
        for f in self.fields:
            if f.name not in saved:
                continue
            if f.kind is Kind.ARRAY:
                f.read(obj)[...] = saved[f.name]
            elif f.kind is Kind.OBJECT:
                f.write(obj, f.copy(saved[f.name]))
            elif f.kind is Kind.PART:
                current = f.read(obj)
                describe(current).load(current, saved[f.name])
            elif f.kind is Kind.PARTS:
                for key, c in f.read(obj).items():
                    describe(c).load(c, saved[f.name][key])
            else:
                f.write(obj, saved[f.name])
        if self.after is not None:
            self.after(obj)

    def reset(self, obj: Any) -> None:
        """Back to power-on: each field's ``reset`` (an ``OBJECT``'s constant deep-copied), the
        parts' own resets, then ``after``."""
        self._reset(obj)  # type: ignore[attr-defined]

    def changes(self, obj: Any, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        """What changed in ``obj`` between two of its saves, as the fields' reports say it."""
        lines: list[str] = []
        for f in self.fields:
            if f.name not in before:
                continue
            if f.kind is Kind.PART:
                current = f.read(obj)
                lines += describe(current).changes(current, before[f.name], after[f.name])
            elif f.report is not None:
                lines += f.report(before, after)
        return lines


def describe(component: Any) -> StateDescription:
    """The description of ``component`` (its class's ``STATE``)."""
    description = type(component).STATE
    assert isinstance(description, StateDescription), type(component)
    return description


def save(component: Any, steps: bool = False) -> Saved:
    """``component``'s state, as its description saves it."""
    return describe(component).save(component, steps)


def load(component: Any, saved: Mapping[str, Any]) -> None:
    """Put back a ``save`` of ``component``."""
    describe(component).load(component, saved)


def reset(component: Any) -> None:
    """``component`` back to power-on."""
    describe(component).reset(component)


def changes(component: Any, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What changed in ``component`` between two of its saves, in words."""
    return describe(component).changes(component, before, after)


_SIZED = (np.ndarray, bytes, bytearray, dict)


def _compiled_save(fields: tuple[Field, ...], steps: bool) -> Callable[[Any], Saved]:
    """``StateDescription.save`` of ``fields``, written out as one function, as ``dataclasses``
    writes ``__init__`` (measured: a reverse-stepi record of a core and the tile registers in
    7.4 us against 10.0 us for a loop over the fields, most of a stepi's cost beyond the
    instruction)."""
    env: dict[str, Any] = {"Saved": Saved, "describe": describe, "_data_bytes": _data_bytes}
    fixed = sum(f.size + FIELD_OVERHEAD for f in fields if f.kind in (Kind.VALUE, Kind.OBJECT, Kind.ARRAY))
    body = ["out = Saved()", f"size = {fixed}"]
    for i, f in enumerate(fields):
        path = f.path or f.name
        if f.get is None and all(part.isidentifier() for part in path.split(".")):
            read = f"obj.{path}"
        else:
            env[f"read{i}"] = f.read  # type: ignore[attr-defined]
            read = f"read{i}(obj)"
        key = repr(f.name)
        if f.kind is Kind.VALUE:
            body.append(f"out[{key}] = v = {read}")
            if not f.size:
                body.append("if type(v) is bytes or type(v) is dict: size += _data_bytes(v)")
        elif f.kind is Kind.OBJECT:
            env[f"copy{i}"] = f.copy
            body.append(f"out[{key}] = copy{i}({read})")
        elif f.kind is Kind.ARRAY:
            body += [f"out[{key}] = v = {read}.copy()", "size += v.nbytes"]
        elif f.kind is Kind.PART:
            body += [f"v = {read}", f"out[{key}] = v = describe(v).save(v, {steps})", "size += v.nbytes"]
        else:
            body += [f"out[{key}] = v = {{key: describe(c).save(c, {steps}) for key, c in {read}.items()}}",
                     "size += sum(part.nbytes for part in v.values())"]
    body += ["out.nbytes = size", "return out"]
    source = "def save(obj):\n" + "".join(f"    {line}\n" for line in body)
    exec(source, env)  # noqa: S102 - generated from the declaration above, as dataclasses does
    return env["save"]


def _compiled_reset(fields: tuple[Field, ...], after: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """``StateDescription.reset`` of ``fields``, written out as one function (``_compiled_save``;
    measured: the tile's reset 250 -> 150 us, a walk over some 150 fields)."""
    env: dict[str, Any] = {"describe": describe, "deepcopy": copy.deepcopy, "after": after}
    body: list[str] = []
    for i, f in enumerate(fields):
        path = f.path or f.name
        plain = all(part.isidentifier() for part in path.split("."))
        if f.get is None and plain:
            read = f"obj.{path}"
        else:
            env[f"read{i}"] = f.read  # type: ignore[attr-defined]
            read = f"read{i}(obj)"
        if f.kind is Kind.PART:
            body += [f"v = {read}", "describe(v).reset(v)"]
            continue
        if f.kind is Kind.PARTS:
            body += [f"for c in {read}.values():", "    describe(c).reset(c)"]
            continue
        if f.reset is KEEP:
            continue
        env[f"reset{i}"] = f.reset
        if callable(f.reset):
            value = f"reset{i}(obj)"
        else:
            value = f"deepcopy(reset{i})" if f.kind is Kind.OBJECT else f"reset{i}"
        if f.kind is Kind.ARRAY:
            body.append(f"{read}[...] = {value}")
        elif f.put is not None:
            env[f"put{i}"] = f.put
            body.append(f"put{i}(obj, {value})")
        elif plain:
            body.append(f"obj.{path} = {value}")
        else:
            env[f"write{i}"] = f.write
            body.append(f"write{i}(obj, {value})")
    if after is not None:
        body.append("after(obj)")
    source = "def reset(obj):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, env)  # noqa: S102 - generated from the declaration above, as dataclasses does
    return env["reset"]


def _data_bytes(item: Any) -> int:
    """The bytes of the arrays and byte strings in a saved value (dictionaries walked)."""
    if isinstance(item, np.ndarray):
        return item.nbytes
    if isinstance(item, bytes | bytearray):
        return len(item)
    if isinstance(item, dict) and item and isinstance(next(iter(item.values())), _SIZED):
        return sum(_data_bytes(v) for v in item.values())   # pages, memories (a dict of numbers holds none)
    return 0


# -- reports (the ``tensix`` command's words for what changed) ------------------------------------

def ranges(values: Any) -> str:
    """``1-3, 7`` for [1, 2, 3, 7]."""
    out, start, prev = [], None, None
    for v in list(map(int, values)) + [None]:
        if start is not None and v is not None and v == prev + 1:
            prev = v
            continue
        if start is not None:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
        start = prev = v
    return ", ".join(out)


def rows_changed(label: str, name: str) -> Report:
    """``LABEL rows changed: ...`` for a 2-D array field; ``LABEL[b] rows changed`` per bank of a
    3-D one."""
    def report(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        a, b = before[name], after[name]
        planes = [(label, a, b)] if a.ndim == 2 else [(f"{label}[{i}]", a[i], b[i]) for i in range(a.shape[0])]
        lines = []
        for text, x, y in planes:
            diff = np.flatnonzero((x != y).any(axis=1))
            if len(diff):
                lines.append(f"{text} rows changed: {ranges(diff)}")
        return lines
    return report


def words_changed(label: str, name: str) -> Report:
    """``LABEL[i][j]: old -> new`` for each word of a 2-D array field that changed."""
    def report(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        a, b = before[name], after[name]
        return [f"{label}[{i}][{j}]: {int(a[i][j]):#x} -> {int(b[i][j]):#x}"
                for i in range(a.shape[0]) for j in np.flatnonzero(a[i] != b[i])]
    return report


def lanes_changed(label: str, name: str) -> Report:
    """``LABEL changed in lanes ...`` for a per-lane array field."""
    def report(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        lanes = np.flatnonzero(before[name] != after[name])
        return [f"{label} changed in lanes {ranges(lanes)}"] if len(lanes) else []
    return report
