"""The Tensix instruction codec: words, mnemonics, fields, text and ``.ttinsn`` (see ``codec``)."""

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

__all__ = [
    "RESERVED", "EncodeError", "Encoding", "Field", "Instruction", "Isa", "IsaError", "ParseError",
    "UnknownInstruction", "is_ttinsn", "ttinsn_to_word", "word_to_ttinsn",
]
