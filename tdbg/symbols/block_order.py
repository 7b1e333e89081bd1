"""The order in which GDB lists a block's symbols (``info scope``), as GDB 13 builds its blocks
(``buildsym.c``, ``dictionary.c``):

- a function's block (a subprogram, or an inlined call: ``BLOCK_FUNCTION`` is set) keeps its
  symbols in a linear dictionary, in the order they were read (declaration order);
- any other block (a lexical block) keeps them in a hashed dictionary of ``n // 5 + 1`` buckets
  (``DICT_HASHTABLE_SIZE``), filled from the pending list newest first, each symbol pushed on the
  front of its bucket, and iterated bucket by bucket: within a bucket, declaration order.

The hash is the language's ``search_name_hash``: C++'s ``cp_search_name_hash``, every other
language's the default (``language_defn::search_name_hash``), both built on
``SYMBOL_HASH_NEXT(hash, c) = hash * 67 + tolower(c) - 113`` (unsigned 32-bit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_MASK = 0xFFFFFFFF


def _next(hash_: int, c: str) -> int:
    """``SYMBOL_HASH_NEXT`` (``minsyms.h``)."""
    return (hash_ * 67 + ord(c.lower()) - 113) & _MASK


def _hash_iw(name: str) -> int:
    """``msymbol_hash_iw``: the name up to a ``(``, spaces left out."""
    hash_ = 0
    for c in name.split("(", 1)[0]:
        if c != " ":
            hash_ = _next(hash_, c)
    return hash_


def default_hash(name: str) -> int:
    """``language_defn::search_name_hash``: Ada's encodings reduced to their last part, every
    other name hashed whole (``msymbol_hash_iw`` where a ``$``, ``.``, ``X``, space or ``(`` says
    it is not an encoded name)."""
    i = 0
    if name.startswith("_"):
        if not name.startswith("_ada_"):
            return _hash_iw(name)
        i = 5
    start, hash_ = i, 0
    while i < len(name):
        c = name[i]
        if c in "$.X":
            return _hash_iw(name) if i == 0 else hash_
        if c in " (":
            return _hash_iw(name)
        if c == "_" and name[i + 1:i + 2] == "_" and i != start:
            after = name[i + 2:i + 3]
            if after == "B" and name[i + 3:i + 4] == "_":
                i += 4
                while i < len(name) and name[i].isdigit():
                    i += 1
                continue
            if not ("a" <= after <= "z") and after != "O":
                return hash_
            hash_, i = 0, i + 2
            continue
        if c == "T" and name[i:] == "TKB":
            return hash_
        hash_ = _next(hash_, c)
        i += 1
    return hash_


def cplus_hash(name: str) -> int:
    """``cp_search_name_hash``: the unqualified name up to ``(`` or an ``[abi:`` tag, spaces left
    out (the names hashed here, a block's locals, are unqualified)."""
    hash_ = 0
    name = name.removeprefix("::")
    i = 0
    while i < len(name):
        c = name[i]
        if c == " ":
            i += 1
            continue
        if c == "(" or (c == "[" and name.startswith("abi:", i + 1) and name[i + 5:i + 6] != ":"):
            break
        hash_ = _next(hash_, c)
        i += 1
    return hash_


def hashed_order(symbols: Sequence[tuple[str, T]], cplus: bool) -> list[tuple[str, T]]:
    """``symbols`` (name, anything), in declaration order, as a hashed dictionary lists them."""
    buckets: list[list[tuple[str, T]]] = [[] for _ in range(len(symbols) // 5 + 1)]
    hash_ = cplus_hash if cplus else default_hash
    for symbol in reversed(symbols):            # the pending list, newest first
        buckets[hash_(symbol[0]) % len(buckets)].insert(0, symbol)
    return [symbol for bucket in buckets for symbol in bucket]
