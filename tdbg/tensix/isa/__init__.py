"""The Tensix instruction codec: words, mnemonics, fields, text and ``.ttinsn`` (see ``codec``)."""

from tdbg.tensix.isa.codec import (
    BLACKHOLE_A0,
    DEFAULT_ARCH,
    RESERVED,
    WORMHOLE_B0,
    EncodeError,
    Encoding,
    Field,
    Instruction,
    IsaError,
    ParseError,
    UnknownInstruction,
    arches,
    decode,
    encode,
    encoding,
    field_names,
    is_ttinsn,
    mnemonics,
    parse,
    ttinsn_to_word,
    word_to_ttinsn,
)

__all__ = [
    "BLACKHOLE_A0", "DEFAULT_ARCH", "RESERVED", "WORMHOLE_B0",
    "EncodeError", "Encoding", "Field", "Instruction", "IsaError", "ParseError", "UnknownInstruction",
    "arches", "decode", "encode", "encoding", "field_names", "is_ttinsn", "mnemonics", "parse",
    "ttinsn_to_word", "word_to_ttinsn",
]
