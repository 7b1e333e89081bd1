"""The Tensix instruction codec: words, mnemonics, fields, text and ``.ttinsn`` (see ``codec``);
``isa_of(profile)``: the encodings firmware built for that generation pushes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.tensix.isa.codec import (
    RESERVED,
    EncodeError,
    Encoding,
    Field,
    Instruction,
    Isa,
    IsaError,
    ParseError,
    UnknownInstruction,
    is_ttinsn,
    ttinsn_to_word,
    word_to_ttinsn,
)

if TYPE_CHECKING:
    from tdbg.arch.profile import Profile


def isa_of(profile: Profile) -> Isa:
    """The instruction encodings firmware built for ``profile``'s generation pushes (its
    package's ``isa_table``; loaded once)."""
    return Isa.load(profile.package, profile.isa_table)

__all__ = [
    "RESERVED", "EncodeError", "Encoding", "Field", "Instruction", "Isa", "IsaError", "ParseError",
    "UnknownInstruction", "is_ttinsn", "isa_of", "ttinsn_to_word", "word_to_ttinsn",
]
