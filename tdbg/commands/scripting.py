"""GDB's command scripting: ``source``, ``define`` / ``document`` and the user commands they
make, ``if`` / ``else`` / ``while`` / ``loop_break`` / ``loop_continue``, ``echo`` and
``printf``.  Scripts behave as in GDB: the first failing command ends a sourced file (and the
user command or block it ran in), ``$argc`` / ``$arg0``.. are the arguments of a user command."""

from __future__ import annotations

import re
import shlex
import struct

from tdbg.commands.interpreter import BLOCK_OPENERS, PYTHON_OPENERS, Interpreter, LoopBreak, LoopContinue, UserCommand
from tdbg.commands.registry import ROOT, CommandError, command
from tdbg.commands.values import evaluate
from tdbg.debug.hostfiles import read_script
from tdbg.expr import ExprError, Kind, Value, value_as_address

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "a": "\a", "e": "\x1b", "r": "\r", " ": " "}
MAX_STRING = 200  # GDB's print elements: the longest %s read from target memory


def unescape(text: str) -> str:
    """GDB's backslash escapes (``\\n``, ``\\t``, ``\\033`` ...)."""
    def sub(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] in "01234567":
            return chr(int(esc, 8))
        return _ESCAPES.get(esc, esc)

    return re.sub(r"\\([0-7]{1,3}|.)", sub, text)


@command("echo", usage="echo TEXT", help="Print TEXT; GDB's backslash escapes apply (\\n for a newline, a trailing \\ for none).", example="echo done\\n")
def echo_cmd(interp: Interpreter, args: str) -> None:
    interp.write(unescape(args))


# -- source, define, document, user commands ------------------------------------------------------

@command("source", usage="source FILE", help="Run the commands in FILE as if typed; the first failing command ends the file, reported as 'FILE:LINE: Error in sourced command file:' and its error, as GDB does.", example="source checks.gdb", host_files=True)
def source_cmd(interp: Interpreter, args: str) -> None:
    name = args.strip()
    interp.source_lines(read_script(name), name)


@command("define", usage="define NAME ... end", help="Define a new command NAME that runs the lines up to 'end'; $arg0..$argN and $argc are its arguments.  The first failing line ends it.", example="define showdst")
def define_cmd(interp: Interpreter, args: str) -> None:
    name = args.strip()
    if not re.fullmatch(r"[A-Za-z_][\w-]*", name):
        raise CommandError(f'Invalid command name "{name}".')
    if name in ROOT.commands:
        raise CommandError(f'"{name}" is a built-in command and cannot be redefined.')
    doc = interp.user_commands[name].doc if name in interp.user_commands else ""
    interp.user_commands[name] = UserCommand(name, interp.read_block(), doc)


@command("document", usage="document NAME ... end", help="Give the user-defined command NAME the documentation 'help NAME' shows: the lines up to 'end'.", example="document showdst")
def document_cmd(interp: Interpreter, args: str) -> None:
    name = args.strip()
    if name in ROOT.commands or name in ROOT.aliases:
        raise CommandError(f'Command "{name}" is built-in.')
    if name not in interp.user_commands:
        raise CommandError(f'Undefined command: "{name}".')
    interp.user_commands[name].doc = "\n".join(interp.read_block())


@command("__user__", usage="NAME [ARGS...]", help="Run a user-defined command.", example="showdst 3")
def run_user_command(interp: Interpreter, text: str) -> None:
    name, _, rest = text.partition(" ")
    body = interp.user_commands[name].body
    argv = shlex.split(rest) if rest.strip() else []
    depth = interp.state.user_depth
    if depth > 64:  # type: ignore[operator]
        raise RecursionError
    interp.state.user_depth = depth + 1
    try:
        interp.run_block([_substitute(line, argv) for line in body])
    finally:
        interp.state.user_depth = depth


def _substitute(line: str, argv: list[str]) -> str:
    """``$argc`` and ``$argN`` replaced by the user command's arguments (GDB's textual rule)."""
    line = line.replace("$argc", str(len(argv)))
    return re.sub(r"\$arg(\d+)", lambda m: argv[int(m.group(1))] if int(m.group(1)) < len(argv) else m.group(0), line)


# -- if / while ----------------------------------------------------------------------------------

def _condition(interp: Interpreter, text: str) -> bool:
    if not text.strip():
        raise CommandError("if/while commands require arguments.")
    value = evaluate(interp, text)
    if value.ctype.kind not in (Kind.INT, Kind.BOOL, Kind.FLOAT, Kind.POINTER):
        raise CommandError("Argument to arithmetic operation not a number or boolean.")
    return bool(value.raw)


def _split_else(body: list[str]) -> tuple[list[str], list[str]]:
    """An ``if`` body's two branches, split at its own ``else`` (not a nested block's)."""
    depth = 0
    for i, line in enumerate(body):
        word = line.split(" ", 1)[0]
        if word in BLOCK_OPENERS or line.strip() in PYTHON_OPENERS:
            depth += 1
        elif word == "end":
            depth -= 1
        elif line == "else" and depth == 0:
            return body[:i], body[i + 1:]
    return body, []


@command("if", usage="if EXPR ... [else ...] end", help="Run the lines up to 'else' (or 'end') when EXPR is non-zero, else the lines from 'else' to 'end'.", example="if $a0 == 0")
def if_cmd(interp: Interpreter, args: str) -> None:
    then, other = _split_else(interp.read_block())
    interp.run_block(then if _condition(interp, args) else other)


@command("while", usage="while EXPR ... end", help="Run the lines up to 'end' as long as EXPR is non-zero (evaluated before each pass); loop_break leaves the loop, loop_continue starts the next pass.", example="while $i < 4")
def while_cmd(interp: Interpreter, args: str) -> None:
    body = interp.read_block()
    while _condition(interp, args):
        try:
            interp.run_block(body)
        except LoopBreak:
            break
        except LoopContinue:
            continue


@command("loop_break", usage="loop_break", help="Leave the innermost while loop.", example="loop_break")
def loop_break_cmd(interp: Interpreter, args: str) -> None:
    raise LoopBreak


@command("loop_continue", usage="loop_continue", help="Go on with the next pass of the innermost while loop.", example="loop_continue")
def loop_continue_cmd(interp: Interpreter, args: str) -> None:
    raise LoopContinue


# -- printf ---------------------------------------------------------------------------------------

MAX_FIELD = 4096  # printf's largest field width and precision: a line, not a gigabyte
_SPEC = re.compile(r"%(?P<flags>[-+ #0']*)(?P<width>\d*)(?P<prec>\.\d*)?(?P<length>ll|l|L|z)?(?P<conv>.?)", re.S)


@command("printf", usage='printf "FORMAT", ARG...', help="Print ARGs with a C format string, as GDB's printf: %d %i %u %o %x %X %c with the length modifiers l, ll and z; %s (a char array, a string literal, or a char pointer read from target memory; \"(null)\" for 0); %p; %e %f %g %E %G (an integer argument is taken as the bits of a float of its size, as GDB does); %%.", example='printf "row %d: %f\\n", $i, dst32[$i][0]')
def printf_cmd(interp: Interpreter, args: str) -> None:
    text = args.strip()
    if not text.startswith('"'):
        raise CommandError("Bad format string, missing '\"'")
    m = re.match(r'"((?:[^"\\]|\\.)*)"\s*(.*)$', text, re.S)
    if not m:
        raise CommandError("Bad format string, non-terminated '\"'")
    rest = m.group(2).strip()
    if rest and not rest.startswith(","):
        raise CommandError("Invalid argument syntax")
    pieces = _format_pieces(unescape(m.group(1)))
    values = split_args(rest[1:]) if rest else []
    if len(values) != sum(1 for p in pieces if isinstance(p, re.Match)):
        raise CommandError("Wrong number of arguments for specified format-string")
    out, args_left = [], iter(values)
    for piece in pieces:
        out.append(piece if isinstance(piece, str) else _convert(interp, piece, evaluate(interp, next(args_left).strip())))
    interp.write("".join(out))


def _format_pieces(fmt: str) -> list[str | re.Match[str]]:
    """Literal text and conversion specifications, checked as GDB's ``format_pieces`` checks
    them (its error messages)."""
    pieces: list[str | re.Match[str]] = []
    i = 0
    while i < len(fmt):
        j = fmt.find("%", i)
        if j < 0:
            pieces.append(fmt[i:])
            break
        pieces.append(fmt[i:j])
        if fmt.startswith("%%", j):
            pieces.append("%")
            i = j + 2
            continue
        spec = _SPEC.match(fmt, j)
        assert spec is not None
        conv, length, flags = spec["conv"], spec["length"] or "", spec["flags"]
        if conv == "*" or spec["width"] == "" and fmt[j + 1 + len(flags):].startswith("*"):
            raise CommandError("`*' not supported for precision or width in printf")
        if conv == "n":
            raise CommandError("Format specifier `n' not supported in printf")
        if conv == "":
            raise CommandError("Incomplete format specifier at end of format string")
        if conv not in "diuoxXcspfeEgG":
            raise CommandError(f"Unrecognized format specifier '{conv}' in printf")
        bad = (
            (conv in "uoxX" and (" " in flags or "+" in flags)) or (conv == "u" and "#" in flags)
            or (conv in "diuoxX" and length == "L")
            or (conv in "cs" and (length not in ("", "l") or (conv == "c" and (spec["prec"] or set(flags) & set("0 +")))
                                  or (conv == "s" and set(flags) & set("0 +"))))
            or (conv == "p" and (length or spec["prec"] or set(flags) & set("#0 +")))
            or (conv in "feEgG" and length in ("l", "ll", "z"))
        )
        if bad:
            raise CommandError(f"Inappropriate modifiers to format specifier '{conv}' in printf")
        for what, digits in (("field width", spec["width"]), ("precision", (spec["prec"] or ".")[1:])):
            if digits and int(digits) > MAX_FIELD:
                raise CommandError(f"printf: {what} {int(digits)} is larger than {MAX_FIELD}, tdbg's limit.")
        pieces.append(spec)
        i = spec.end()
    return [p for p in pieces if p != ""]


def _convert(interp: Interpreter, spec: re.Match[str], value: Value) -> str:
    conv, length = spec["conv"], spec["length"] or ""
    pyspec = f"%{spec['flags'].replace(chr(39), '')}{spec['width']}{spec['prec'] or ''}"
    if conv == "s":
        return (pyspec + "s") % _string(interp, value)
    if conv in "feEgG":
        return (pyspec + conv) % _double(value)
    if conv == "p":
        address = _integer(value)
        return f"%{spec['width']}s" % (f"{address & 0xFFFFFFFF:#x}" if address else "(nil)")
    n = _integer(value)
    bits = 32 if length in ("", "L") else 64  # int, or the host's (LP64) long / long long / size_t
    n &= (1 << bits) - 1
    if conv == "c":
        return (pyspec + "c") % chr(n & 0xFF)
    if conv in "di" and n >> (bits - 1):
        n -= 1 << bits
    if conv == "o" and "#" in spec["flags"]:  # C's alternate octal form is a leading 0, not 0o
        return (pyspec.replace("#", "") + "s") % (f"0{n:o}" if n else "0")
    return (pyspec + ("d" if conv in "diu" else conv)) % n


def _integer(value: Value) -> int:
    """GDB's ``value_as_long``: integers, pointers, floats (truncated)."""
    raw = value.raw
    if value.ctype.kind is Kind.ARRAY or not isinstance(raw, (int, float)):
        raise CommandError("Value can't be converted to integer.")
    return int(raw)


def _double(value: Value) -> float:
    """A float argument as GDB takes it: a float's value; an integer of 4 or 8 bytes read as
    the float of that size (GDB's ``float_type_from_length``); other integers converted."""
    t = value.ctype
    if t.kind is Kind.FLOAT:
        return float(value.raw)  # type: ignore[arg-type]
    if t.kind in (Kind.INT, Kind.BOOL, Kind.POINTER) and t.size in (4, 8):
        data = (int(value.raw) & ((1 << 8 * t.size) - 1)).to_bytes(t.size, "little")  # type: ignore[arg-type]
        return struct.unpack("<f" if t.size == 4 else "<d", data)[0]
    return float(_integer(value))


def _string(interp: Interpreter, value: Value) -> str:
    """A ``%s`` argument: a char array's bytes (a string literal, a convenience variable, an array
    in memory) up to its NUL, or the NUL-terminated string a pointer points to."""
    t = value.ctype
    if t.kind is Kind.ARRAY and isinstance(value.raw, bytes):
        data = value.raw.split(b"\0", 1)[0]
    else:
        try:
            address = value_as_address(value)
        except ExprError as exc:
            raise CommandError(str(exc)) from None
        if address == 0:
            return "(null)"
        data = bytearray()
        ctx = interp.session.expression_context()
        while len(data) < MAX_STRING:
            try:
                byte = ctx.read_memory(address + len(data), 1)[0]
            except ExprError:
                raise CommandError(f"Cannot access memory at address {address + len(data):#x}") from None
            if byte == 0:
                break
            data.append(byte)
    return bytes(data).decode("latin-1")


def split_args(text: str, keep_last: bool = False) -> list[str]:
    """Split on commas that are not inside brackets or quotes; a blank last part is dropped
    unless ``keep_last``."""
    parts, depth, current, quote, escaped = [], 0, [], "", False
    for ch in text:
        if quote:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    if keep_last or "".join(current).strip():
        parts.append("".join(current))
    return parts

