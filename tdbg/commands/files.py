"""Files in and out: ``file`` (a core's firmware), GDB's ``dump``, ``append`` and ``restore``
(binary memory and values), with Dst's own ``dump dst`` / ``restore dst`` as subcommands
(declared in ``dst_cmds``)."""

from __future__ import annotations

import struct

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CORE_NAMES, CommandError, Registry, command
from tdbg.commands.values import evaluate, evaluate_int
from tdbg.debug.hostfiles import MAX_RESTORE_BYTES, read_host_file, write_host_file
from tdbg.session import SessionError

DUMP = Registry("dump")
APPEND = Registry("append")
RESTORE = Registry("restore")


def _memory(interp: Interpreter, args: str, usage: str) -> tuple[str, bytes]:
    words = args.split()
    if len(words) != 3:
        raise CommandError(f"Usage: {usage}")
    start, end = evaluate_int(interp, words[1]), evaluate_int(interp, words[2])
    if end < start:
        raise CommandError("Invalid memory address range (start > end).")
    return words[0], interp.session.read_memory(start, end - start)


def _value(interp: Interpreter, args: str, usage: str) -> tuple[str, bytes]:
    name, _, expr = args.strip().partition(" ")
    if not name or not expr.strip():
        raise CommandError(f"Usage: {usage}")
    value = evaluate(interp, expr.strip())
    size = value.ctype.size
    if value.address is not None:
        return name, interp.session.read_memory(value.address, size)
    if isinstance(value.raw, bytes):
        return name, value.raw
    if isinstance(value.raw, float):
        return name, struct.pack("<f" if size == 4 else "<d", value.raw)
    return name, (int(value.raw or 0) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _write(path: str, data: bytes, append: bool) -> None:
    write_host_file(path, data, append)


def _binary(registry: Registry, verb: str, append: bool) -> None:
    """Declare ``VERB [binary] memory`` and ``VERB [binary] value`` on ``registry``."""
    memory_usage = f"{verb} [binary] memory FILE START END"
    value_usage = f"{verb} [binary] value FILE EXPR"

    @registry.command("memory", usage=memory_usage,
                      help=f"{'Append' if append else 'Write'} the raw bytes of memory START..END (as the current core loads them) {'to' if append else 'into'} FILE.",
                      example=f"{verb} binary memory C.bin 0x50000 0x53000")
    def memory(interp: Interpreter, args: str) -> None:
        path, data = _memory(interp, args, memory_usage)
        _write(path, data, append)

    @registry.command("value", usage=value_usage,
                      help=f"{'Append' if append else 'Write'} the raw bytes of EXPR's value {'to' if append else 'into'} FILE.",
                      example=f"{verb} binary value r.bin results")
    def value(interp: Interpreter, args: str) -> None:
        path, data = _value(interp, args, value_usage)
        _write(path, data, append)

    @registry.command("binary", usage=f"{verb} binary memory|value ...", help="The binary format (GDB's raw bytes; the only one tdbg writes).",
                      example=f"{verb} binary memory C.bin 0x50000 0x53000")
    def binary(interp: Interpreter, args: str) -> None:
        word, _, rest = args.strip().partition(" ")
        if word not in ("memory", "value"):
            raise CommandError(f'"{verb} binary" must be followed by "memory" or "value".')
        (memory if word == "memory" else value)(interp, rest)


_binary(DUMP, "dump", append=False)
_binary(APPEND, "append", append=True)


@command("dump", usage="dump [binary] memory FILE START END | dump [binary] value FILE EXPR | dump dst ROWS FILE [--view V | --raw]",
         help="Save data to a file: memory START..END or an expression's value as raw bytes (GDB's dump), "
              "or Dst rows as .npy/.csv ('help dump dst' shows the Dst form).",
         example="dump binary memory C.bin 0x50000 0x53000", host_files=True)
def dump_cmd(interp: Interpreter, args: str) -> None:
    DUMP.dispatch(interp, args)


@command("append", usage="append [binary] memory FILE START END | append [binary] value FILE EXPR",
         help="Add memory START..END or an expression's value, as raw bytes, to the end of FILE (GDB's append).",
         example="append binary memory log.bin 0x50000 0x50010", host_files=True)
def append_cmd(interp: Interpreter, args: str) -> None:
    APPEND.dispatch(interp, args)


@command("restore", usage="restore FILE [binary] [BIAS [START [END]]] | restore dst FILE [ROW] [--view V]",
         help="Load a file into memory (GDB's restore): a binary file's bytes go to BIAS + their offset, "
              "only offsets START..END when given, written as the current core's stores would (device "
              "addresses through the device model).  'restore dst' loads Dst rows from .npy/.csv.",
         example="restore params.bin binary 0x20000", host_files=True)
def restore_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if words and words[0] in RESTORE.commands:
        RESTORE.dispatch(interp, args)
        return
    if not words:
        raise CommandError("Usage: restore FILE [binary] [BIAS [START [END]]]")
    path, rest = words[0], words[1:]
    if rest and rest[0] == "binary":
        rest = rest[1:]
    elif rest and rest[0] in ("ihex", "srec", "tekhex", "verilog"):
        raise CommandError(f"tdbg restores binary files only, not {rest[0]}.")
    if len(rest) > 3:
        raise CommandError("Usage: restore FILE [binary] [BIAS [START [END]]]")
    bias, start, end = (evaluate_int(interp, w) for w in [*rest, "0", "0", "0"][:3])
    data = read_host_file(path, MAX_RESTORE_BYTES, "binary file to restore")[start:end or None]
    if not data:
        raise CommandError(f"{path}: nothing to restore.")
    interp.out(f"Restoring binary file {path} into memory ({bias + start:#x} to {bias + start + len(data):#x})")
    interp.session.write_memory(bias + start, data)


@command("file", usage="file [CORE] [FILE]",
         help=f"Load FILE (an ELF, or a .c file to build) as the firmware of CORE ({CORE_NAMES}; default the "
              "current core), replacing what it had, and reset the tile; without FILE, CORE has no firmware.",
         example="file T1 math.elf", host_files=True)
def file_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    s = interp.session
    core = s.current
    if words:
        try:
            core = s.core_by_thread(words[0])
            words = words[1:]
        except SessionError:  # not a core: the FILE
            pass
    if len(words) > 1:
        raise CommandError("Usage: file [CORE] [FILE]")
    try:
        s.load(core, words[0] if words else None)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    if words:
        interp.out(f"Reading symbols from {words[0]} for {core}...")
    else:
        interp.out(f"No firmware on {core} now.")
