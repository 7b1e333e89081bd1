"""Pygments lexers: ``TdbgLexer`` colours a command line as it is typed in the REPL;
``highlight_asm`` colours one line of disassembly for a terminal."""

from __future__ import annotations

import re

from pygments import highlight
from pygments.formatters import TerminalFormatter
from pygments.lexer import RegexLexer, bygroups, default, include, inherit
from pygments.lexers.asm import GasLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from tdbg.session import REGISTERS
from tdbg.arch import profile_for
from tdbg.tensix.isa import isa_of


def _alternatives(names: list[str]) -> str:
    """One regex matching any of ``names`` (longest first), as a whole word."""
    return r"(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b"


_REGISTER = _alternatives([*REGISTERS, "pc", "fp"])
_MNEMONIC = r"(?i:" + _alternatives([*isa_of(profile_for()).mnemonics(), "decode"]) + ")"  # the REPL's profile
_HEX = r"-?0[xX][0-9a-fA-F]+"


class TdbgLexer(RegexLexer):
    """A tdbg command line: the command word, ``/FMT``, numbers, ``$registers``,
    ``dst[..]``/``srca[..]`` rows, strings, operators, Tensix mnemonics after ``tensix``."""

    name = "tdbg"
    aliases = ["tdbg"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*", Comment.Single),
            (r"(echo)(\s+)(.*)", bygroups(Keyword, Whitespace, String)),
            (r"(tensix)(\b)", bygroups(Keyword, Text), "tensix"),
            (r"[A-Za-z_][\w-]*", Keyword, "args"),
            default("args"),
        ],
        "args": [
            (r"\n", Whitespace, "#pop"),
            (r"\s+", Whitespace),
            (r"/\w+", Keyword.Type),
            (r'"(?:\\.|[^"\\])*"?', String),
            (r"'(?:\\.|[^'\\])*'?", String.Char),
            (r"\$\w*", Name.Variable),
            (r"\{[\w\s*]+\}", Keyword.Type),
            (r"(?:dstbits|dst|srca|srcb)(?=\[)", Name.Builtin),
            (r"0[xX][0-9a-fA-F]+", Number.Hex),
            (r"\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+", Number.Float),
            (r"\d+", Number.Integer),
            (r"(?:if|as)\b", Keyword),
            (r"[A-Za-z_][\w.]*", Name),
            (r"[-+*/%&|^~<>=!]+", Operator),
            (r"[\[\](){},:;.@]", Punctuation),
            (r".", Text),
        ],
        "tensix": [
            (r"\n", Whitespace, "#pop"),
            (r"\s+", Whitespace),
            (_MNEMONIC, Name.Function),
            (r"([A-Za-z_]\w*)(=)", bygroups(Name.Attribute, Operator)),
            include("args"),
        ],
    }


class _RiscvGasLexer(GasLexer):
    """GAS, plus what RISC-V disassembly has: bare register names, negative hex offsets,
    and the ``Field=V`` operands of ``.ttinsn`` lines."""

    tokens = {
        "root": [
            (r"(\.ttinsn)(\s+)(\w+)", bygroups(Name.Attribute, Whitespace, Name.Function), "directive-args"),
            inherit,
        ],
        "instruction-args": [
            (_HEX, Number.Hex),
            (_REGISTER, Name.Variable),
            inherit,
        ],
        "directive-args": [
            (r"([A-Za-z_]\w*)(=)", bygroups(Name.Attribute, Operator)),
            (_HEX, Number.Hex),
            inherit,
        ],
    }


_ASM_LEXER = _RiscvGasLexer()
_FORMATTER = TerminalFormatter()


def highlight_asm(text: str) -> str:
    """``text`` (disassembly) with ANSI colours; line breaks are kept as they were."""
    return highlight(text, _ASM_LEXER, _FORMATTER).removesuffix("\n") + ("\n" if text.endswith("\n") else "")
