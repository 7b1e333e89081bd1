"""The names tt-llk gives the Sync Unit's semaphores and mutexes, read from a firmware's DWARF.

tt-llk numbers them in two structs of namespace ``ckernel`` (``ckernel_structs.h``): ``struct
semaphore { constexpr static std::uint32_t MATH_PACK = 1; ... }`` and ``struct mutex { ... }``.
In the DWARF of a kernel built from it the struct is a ``DW_TAG_structure_type`` (or
``DW_TAG_class_type``) and each constant a child ``DW_TAG_member`` (DWARF 4; ``DW_TAG_variable``
in DWARF 5) with ``DW_AT_const_value`` (measured: tt-llk's datacopy kernel built by clang 22,
``-g``: ``semaphore`` with FPU_SFPU 0 ... MATH_DONE 7, then NUM_SEMAPHORES 8,
SEMAPHORE_BIT_COUNT 4 and SEMAPHORE_MAX_VALUE 15).  An index is a constant of the struct's
index type: the type most of its constants have (``std::uint32_t``; the counts are
``std::uint8_t``), so ``SEMAPHORE_BIT_COUNT`` (4) does not name semaphore 4.
"""

from __future__ import annotations

import io
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # pyelftools is imported when a program's names are first read
    from elftools.dwarf.die import DIE
    from tdbg.emu.elf import ElfImage

_STRUCTS = ("DW_TAG_structure_type", "DW_TAG_class_type")
_CONSTANTS = ("DW_TAG_member", "DW_TAG_variable")


@dataclass(frozen=True)
class LlkNames:
    """Index -> tt-llk's name, for the semaphores and the mutexes (empty when the ELF has none)."""

    semaphores: dict[int, str] = field(default_factory=dict)
    mutexes: dict[int, str] = field(default_factory=dict)


_CACHE: dict[int, tuple[weakref.ref[ElfImage], LlkNames]] = {}


def llk_names(image: ElfImage) -> LlkNames:
    """The names ``image``'s DWARF gives (read once per loaded image)."""
    cached = _CACHE.get(id(image))
    if cached is not None and cached[0]() is image:
        return cached[1]
    names = _read(image.raw)
    _CACHE[id(image)] = (weakref.ref(image, lambda _, key=id(image): _CACHE.pop(key, None)), names)
    return names


def _read(raw: bytes) -> LlkNames:
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(raw))
        if elf.get_section_by_name(".debug_info") is None:
            return LlkNames()
        found: dict[str, dict[int, str]] = {}
        for cu in elf.get_dwarf_info(relocate_dwarf_sections=False).iter_CUs():
            _visit(cu.get_top_DIE(), [], found)
            if len(found) == 2:
                break
    except Exception:  # noqa: BLE001  (corrupt DWARF: no names, never a failed report)
        return LlkNames()
    return LlkNames(found.get("semaphore", {}), found.get("mutex", {}))


def _visit(die: DIE, scope: list[str], found: dict[str, dict[int, str]]) -> None:
    for child in die.iter_children():
        name = _name(child)
        if child.tag == "DW_TAG_namespace":
            _visit(child, [*scope, name or ""], found)
        elif child.tag in _STRUCTS and scope == ["ckernel"] and name in ("semaphore", "mutex") and name not in found:
            constants = _constants(child)
            if constants:
                found[name] = constants


def _constants(struct: DIE) -> dict[int, str]:
    """The struct's constants of its index type, by value (the first name of a value wins)."""
    members = [(c, _name(c)) for c in struct.iter_children() if c.tag in _CONSTANTS and "DW_AT_const_value" in c.attributes]
    types = Counter(c.attributes["DW_AT_type"].value for c, _ in members if "DW_AT_type" in c.attributes)
    if not types:
        return {}
    index_type = types.most_common(1)[0][0]
    out: dict[int, str] = {}
    for c, name in members:
        if name and c.attributes.get("DW_AT_type") and c.attributes["DW_AT_type"].value == index_type:
            out.setdefault(int(c.attributes["DW_AT_const_value"].value), name)
    return out


def _name(die: DIE) -> str | None:
    attr = die.attributes.get("DW_AT_name")
    if attr is None:
        return None
    value = attr.value
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
