"""``x/NFU ADDR``: GDB's examine, over memory as the current core sees it and over ``Dst``,
``SrcA``, ``SrcB`` rows (``dst[ROW]``, ``dstbits[ROW]``, ``srca[B][ROW]``, ``srcb[B][ROW]``),
with named number views (``as bf16``): over memory, the L1 data formats of ``l1_data``."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command
from tdbg.commands.remap_cmds import remap_order
from tdbg.commands.scripting import split_args
from tdbg.commands.ttmetal_cmds import buffer_page
from tdbg.commands.values import evaluate, evaluate_address, evaluate_int
from tdbg.expr import DOUBLE, FLOAT, INT8, INT16, INT32, INT64, Value, decode, pointer_to
from tdbg.session import SessionError

SIZES = {"b": 1, "h": 2, "w": 4, "g": 8}
FORMATS = set("xduotacfsiz")
PER_LINE = {1: 8, 2: 8, 4: 4, 8: 2}  # GDB's do_examine
_INT_UNITS = {1: INT8, 2: INT16, 4: INT32, 8: INT64}
_FMT = re.compile(r"^/(\d*)([a-z]*)$")
RAW_VIEWS = {"raw": "raw", "raw16": "raw", "raw32": "raw", "raw19": "raw"}  # raw bits, any storage
_REG_LOC = re.compile(r"^(dst|dstbits|srca|srcb)((?:\[[^\]]+\])+)$")
_NOC_LOC = re.compile(r"^noc\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)\s*:\s*(.+)$")


@dataclass(frozen=True)
class NocLoc:
    """An address at a NoC endpoint, ``noc(X,Y):ADDR`` (tt-exalens' ``brxy X,Y ADDR``): DRAM, another
    tile's L1, this tile; (X, Y) as software writes them."""

    x: int
    y: int
    address: int


@dataclass(frozen=True)
class RegLoc:
    """An element of a Tensix register file: ``dst[row]`` (col 0), ``srca[bank][row]``..."""

    kind: str   # dst, dstbits, srca, srcb
    bank: int
    row: int
    col: int

    def label(self) -> str:
        bank = f"[{self.bank}]" if self.kind in ("srca", "srcb") else ""
        col = f"[{self.col}]" if self.col else ""
        return f"{self.kind}{bank}[{self.row}]{col}"


def parse_fmt(text: str, state) -> tuple[int, str, str]:
    """``/NFU`` -> (count, format, size) with GDB's sticky defaults."""
    count, fmt, size = 1, state.fmt, state.size
    if text:
        m = _FMT.match(text)
        if not m:
            raise CommandError(f"Invalid number \"{text[1:]}\".")
        if m.group(1):
            count = int(m.group(1))
        for letter in m.group(2):
            if letter in SIZES:
                size = letter
            elif letter in FORMATS:
                fmt = letter
            else:
                raise CommandError(f"Undefined output format \"{letter}\".")
    if fmt == "c" and not (text and any(c in SIZES for c in text)):
        size = "b"
    if fmt == "a":
        size = "w"
    return count, fmt, size


def parse_regloc(interp: Interpreter, text: str) -> RegLoc | None:
    m = _REG_LOC.match(text.replace(" ", ""))
    if not m:
        return None
    kind = m.group(1)
    indexes = [evaluate_int(interp, i) for i in re.findall(r"\[([^\]]+)\]", m.group(2))]
    want = 2 if kind in ("srca", "srcb") else 1
    if len(indexes) not in (want, want + 1):
        raise CommandError(f"{kind} takes {'[BANK][ROW]' if want == 2 else '[ROW]'}, optionally [COL]")
    bank = indexes.pop(0) if want == 2 else 0
    row = indexes[0]
    col = indexes[1] if len(indexes) > 1 else 0
    tensix = interp.session.profile.tensix
    src = kind in ("srca", "srcb")
    rows, cols = (tensix.src_rows, tensix.src_cols) if src else (tensix.dst_rows, tensix.dst_cols)
    if not (0 <= bank < tensix.src_banks and 0 <= row < rows and 0 <= col < cols):
        raise CommandError(f"{kind} index out of range (rows 0..{rows - 1}, columns 0..{cols - 1})")
    return RegLoc(kind, bank, row, col)



@command(
    "x",
    usage="x/NFU ADDR [as VIEW] [remap SHAPE]",
    help=(
        "Examine memory or a Tensix register row: N units of size U (b h w g) in format F "
        "(x d u o t a c f s i z); F and U are sticky and a bare x continues after the last "
        "unit shown.  ADDR is an expression, or dst[ROW] (Dst16b for h, Dst32b for w), "
        "dstbits[ROW] (raw storage, h), srca[B][ROW] / srcb[B][ROW] (19-bit values, w), "
        "lreg[N] or lreg[N][LANE] (an LReg's 32 lanes, w), noc(X,Y):ADDR (what a NoC read at "
        "endpoint X,Y returns: DRAM, another tile's L1; tt-exalens' brxy), or a tt-metal program's "
        "BUFFER page P (that page where it is in DRAM).  "
        "Device memory (the Dst window, config) reads as the current core's load would.  "
        "Format f shows dst, srca and srcb data as the numbers it holds, in the format in force: "
        "Dst32b (w) as FP32, or Integer \"32\" while the current core's window fmt "
        "(RISC_DEST_ACCESS_CTRL_SEC<thread>_fmt) is 1; Dst16b (h) as FP16 (fmt 2), Integer "
        "\"16\" (fmt 4), Integer \"8\" (fmt 5), else BF16; SrcA/SrcB by their Unpacker data format "
        "(ALU_FORMAT_SPEC_REG0_SrcA, ALU_FORMAT_SPEC_REG1_SrcB): TF32, BF16, FP16, FP8, Integer "
        "\"8\" or \"16\".  The other formats show the stored bits.  An element of an undefined Dst "
        "row (ZEROACC, or never written) shows as <undef>; a Dst32b element with one half "
        "undefined reads that half as zero, as the packers do.  "
        "'as VIEW' decodes Dst/Src data: bf16 fp16 fp8 int8 int16 raw (h), fp32 int32 tf32 "
        "raw (w), tf32 bf16 fp16 fp8 int8 int16 raw (Src); raw16, raw32, raw19 name the raw bits "
        "of that width.  Over memory, 'as VIEW' decodes L1 data formats: bf16 fp16 int16 (h), fp32 "
        "tf32 int32 (w), fp8 int8 uint8 (b), and bfp8 bfp4 bfp2 bfp8a bfp4a bfp2a, where N counts "
        "datums and ADDR is where the block's exponent section starts (see also tile).  "
        "'remap SHAPE' (last; a remap "
        "NAME, 0xHEX or xdim=.. ydim=.. ..., see help remap) shows the N register elements from "
        "ADDR in the shape's index order, 16 per row; each line is labelled with where its first "
        "value lives."
    ),
    example="x/1024h 0x30000 as bf16",
    repeatable=True,
)
def x_command(interp: Interpreter, args: str) -> None:
    from tdbg.commands import sfpu_cmds

    state = interp.examine
    fmt_text = ""
    if args.startswith("/"):
        fmt_text, _, args = args.partition(" ")
    count, fmt, size = parse_fmt(fmt_text, state)
    view = None
    order = None
    if " remap " in f" {args} ":
        args, _, shape = f" {args} ".partition(" remap ")
        args = args.strip()
        order = remap_order(interp, shape, count)
    if " as " in f" {args} ":
        args, _, view = args.rpartition(" as ")
        args, view = args.strip(), view.strip()
    if not args:
        if state.next is None:
            raise CommandError("Argument required (starting display address).")
        where = state.next
    else:
        where = parse_nocloc(interp, args)
        if where is None:
            where = parse_regloc(interp, args)
        if where is None:
            where = sfpu_cmds.parse_lreg(interp, args)  # lreg[N] (an LReg's 32 lanes)
        if where is None:
            where = evaluate_address(interp, args)
    state.fmt, state.size = fmt, size
    if isinstance(where, RegLoc):
        state.next = examine_register(interp, where, count, fmt, size, view, order)
    elif isinstance(where, NocLoc):
        if view or order is not None or fmt in ("i", "s"):
            raise CommandError("x/i, x/s, 'as VIEW' and 'remap SHAPE' read this tile's memory, not noc(X,Y):ADDR")
        state.next = examine_noc(interp, where, count, fmt, SIZES[size])
    elif isinstance(where, sfpu_cmds.LRegLoc):
        if view or order is not None:
            raise CommandError("'as VIEW' and 'remap SHAPE' apply to dst, dstbits, srca and srcb")
        state.next = sfpu_cmds.examine_lreg(interp, where, count, fmt, size)
    else:
        if order is not None:
            raise CommandError("'remap SHAPE' applies to dst, dstbits, srca and srcb")
        if view:
            state.next = examine_memory_view(interp, where, count, size, view)
        else:
            state.next = examine_memory(interp, where, count, fmt, SIZES[size])



# -- memory ------------------------------------------------------------------------------------

def examine_memory(interp: Interpreter, address: int, count: int, fmt: str, size: int) -> int:
    s = interp.session
    if fmt == "i":  # each instruction decoded afresh, as GDB's x/i; => at the selected frame's pc
        pc = s.expression_context().frames.selected().pc
        for _ in range(count):
            s.check_interrupt()
            insn = s.disassembler()(address, s.read_value(address, 4))
            marker = "=> " if address == pc else "   "
            interp.out(f"{marker}{label(interp, address)}\t{insn.render(s.symbolize)}")
            address += 4
        return address
    if fmt == "s":
        for _ in range(count):
            s.check_interrupt()
            data = bytearray()
            while len(data) < 200:
                byte = s.read_value(address + len(data), 1)
                if byte == 0:
                    break
                data.append(byte)
            interp.out(f"{label(interp, address)}\t{c_string(bytes(data))}")
            address += len(data) + 1
        return address
    per_line = PER_LINE[size]
    for start in range(0, count, per_line):
        s.check_interrupt()
        n = min(per_line, count - start)
        base = address + start * size
        values = [read_unit(interp, base + i * size, size) for i in range(n)]
        interp.out(f"{label(interp, base)}" + "".join("\t" + format_int(interp, v, fmt, size) for v in values))
        set_last_examined(interp, base + (n - 1) * size, values[-1], size, fmt)
    return address + count * size


def parse_nocloc(interp: Interpreter, text: str) -> NocLoc | None:
    """``noc(X,Y):ADDR`` (each an expression), a tt-metal program's ``BUFFER page P`` (where that
    page is in DRAM), or None for anything else."""
    page = buffer_page(interp, text)
    if page is not None:
        return NocLoc(*page[1:])
    m = _NOC_LOC.match(text.strip())
    if m is None:
        return None
    x, y = (evaluate_int(interp, part) for part in m.group(1, 2))
    return NocLoc(x, y, evaluate_address(interp, m.group(3)))


def examine_noc(interp: Interpreter, where: NocLoc, count: int, fmt: str, size: int) -> NocLoc:
    """``x/NFU noc(X,Y):ADDR``: the units as a NoC read from that endpoint returns them
    (``Session.read_noc``), GDB's layout, each line labelled ``noc(X,Y):ADDR:``."""
    try:
        data = interp.session.read_noc(where.x, where.y, where.address, count * size)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    per_line = PER_LINE[size]
    for start in range(0, count, per_line):
        values = [int.from_bytes(data[i * size:(i + 1) * size], "little") for i in range(start, min(count, start + per_line))]
        base = where.address + start * size
        interp.out(f"noc({where.x},{where.y}):{base:#x}:" + "".join("\t" + format_int(interp, v, fmt, size) for v in values))
    return NocLoc(where.x, where.y, where.address + count * size)


def examine_memory_view(interp: Interpreter, address: int, count: int, size: str, view: str) -> int:
    """``x/NU ADDR as VIEW`` over memory: ``count`` datums of an L1 data format
    (``tdbg.tensix.l1_data``), each line labelled with its first datum's address."""
    from tdbg.tensix import l1_data

    name = view.strip().lower()
    if name not in l1_data.FORMATS:
        raise CommandError(f"Unknown view {view!r} for memory; L1 formats: {', '.join(l1_data.FORMATS)}.")
    bits = l1_data.datum_bits(name)
    bfp = l1_data.is_bfp(name)
    if not bfp and SIZES[size] * 8 != bits:
        unit = {8: "b", 16: "h", 32: "w"}[bits]
        raise CommandError(f"{name} datums are {bits} bits: examine them in units of {unit} (x/{count}{unit} ... as {name})")
    try:
        values = interp.session.l1_values(address, count, name)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    start = address + l1_data.exponent_section(name, count)
    per_line = 8 if bits <= 16 else 4
    for i in range(0, count, per_line):
        interp.session.check_interrupt()
        interp.out(label(interp, start + i * bits // 8) + "".join("\t" + format_view_value(v) for v in values[i:i + per_line]))
    return start + -(-count * bits // 8)


def set_last_examined(interp: Interpreter, address: int, value: int, size: int, fmt: str) -> None:
    """GDB's ``$_`` (the last address examined, a pointer to the unit's type) and ``$__`` (its
    contents)."""
    unit = (FLOAT if size == 4 else DOUBLE) if fmt == "f" and size in (4, 8) else _INT_UNITS[size]
    ctx = interp.session.expression_context()
    ctx.set_convenience("_", Value(pointer_to(unit), address))
    ctx.set_convenience("__", Value(unit, decode(value.to_bytes(size, "little"), unit)))


def read_unit(interp: Interpreter, address: int, size: int) -> int:
    s = interp.session
    if size == 8:
        return int.from_bytes(s.read_memory(address, 8), "little")
    return s.read_value(address, size)


def label(interp: Interpreter, address: int) -> str:
    sym = interp.session.symbolize(address)
    return f"{address:#x} {sym}:" if sym else f"{address:#x}:"


def c_string(data: bytes) -> str:
    out = []
    for b in data:
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in "\"\\" else ("\\" + ch if ch in "\"\\" else f"\\{b:03o}"))
    return '"' + "".join(out) + '"'


def format_int(interp: Interpreter, value: int, fmt: str, size: int) -> str:
    """One unit in a GDB print format."""
    bits = 8 * size
    value &= (1 << bits) - 1
    signed = value - (1 << bits) if value >> (bits - 1) else value
    if fmt in ("x", "z"):
        return f"0x{value:0{2 * size}x}"
    if fmt == "d":
        return str(signed)
    if fmt == "u":
        return str(value)
    if fmt == "o":
        return f"0{value:o}" if value else "0"
    if fmt == "t":
        return f"{value:0{bits}b}"
    if fmt == "c":
        ch = signed & 0xFF
        shown = chr(ch) if 32 <= ch < 127 else f"\\{ch:03o}"
        return f"{signed if size == 1 else value} '{shown}'"
    if fmt == "a":
        sym = interp.session.symbolize(value)
        return f"{value:#x} {sym}" if sym else f"{value:#x}"
    if fmt == "f":
        if size == 2:
            import numpy as np

            return format_float(float(np.array(value, dtype=np.uint16).view(np.float16)))
        if size == 4:
            return format_float(struct.unpack("<f", struct.pack("<I", value))[0])
        if size == 8:
            return format_float(struct.unpack("<d", struct.pack("<Q", value))[0], 17)
        return str(signed)
    raise CommandError(f"Format letter \"{fmt}\" is meaningless here.")


def format_float(value: float, digits: int = 9) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}g}"


# -- Dst / SrcA / SrcB -------------------------------------------------------------------------

def examine_register(interp: Interpreter, loc: RegLoc, count: int, fmt: str, size: str, view_name: str | None,
                     order: list[int] | None = None) -> RegLoc:
    """Show ``count`` elements from ``loc``; with ``order``, element i is ``loc + order[i]``.
    ``f`` without ``as VIEW`` decodes data in its format in force (``view_in_force``); an
    element of an undefined ``Dst`` row shows as ``<undef>`` (``dst_access.lanes_defined``)."""
    import numpy as np

    from tdbg.tensix import formats

    s = interp.session
    if loc.kind == "dstbits":
        storage, unit, rows, width = "dst16", "h", s.dst_contents().bits, 16
    elif loc.kind == "dst":
        if size not in ("h", "w"):
            raise CommandError("dst rows are examined in units of h (Dst16b) or w (Dst32b)")
        unit = size
        storage, width = ("dst16", 16) if size == "h" else ("dst32", 32)
        rows = None
    else:
        storage, unit, width = "src", "w", 19
        rows = s.src(loc.kind, loc.bank)
    if loc.kind != "dst" and size != unit and size in ("b", "g"):
        raise CommandError(f"{loc.kind} is examined in units of {unit}")
    tensix = s.profile.tensix
    nrows = tensix.storage_rows(storage)
    first = loc.row * 16 + loc.col
    span = count if order is None else max(order, default=-1) + 1
    if first + span > nrows * 16 and storage == "dst32":
        nrows = tensix.dst_rows  # Dst32b rows are 10-bit indexes; Adj32 folds them onto the distinct pairs
    if order is not None and first + span > nrows * 16:
        raise CommandError(f"the remap shape reaches past {loc.kind}'s last row")
    last = min(first + span, nrows * 16)
    defined = None
    if rows is None:
        dst, row_ids = s.dst_contents(), np.arange(first // 16, (last + 15) // 16)
        rows = dst.lanes(storage, row_ids)
        flat = rows.reshape(-1)[first % 16 : first % 16 + (last - first)]
        defined = dst.defined(storage, row_ids).reshape(-1)[first % 16 : first % 16 + (last - first)]
    else:
        flat = np.asarray(rows).reshape(-1)[first:last]
    if order is not None:
        flat = flat[order]
        defined = defined[order] if defined is not None else None
    view = None
    if view_name:
        try:
            view = formats.get_view(storage, RAW_VIEWS.get(view_name, view_name))
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from None
        if view_name in RAW_VIEWS and view_name not in ("raw", f"raw{width}"):
            raise CommandError(f"view {view_name} does not apply to {loc.kind} in units of {unit}")
    elif fmt == "f" and loc.kind != "dstbits":
        view = s.view_in_force(loc.kind if storage == "src" else storage)
    if view is not None and view.name != "raw":
        decoded = view.decode(flat)
    per_line = 8 if unit == "h" else 4
    unit_bytes = 2 if unit == "h" else 4

    def cell(i: int) -> str:
        if defined is not None and not defined[i]:
            return "<undef>"
        if view is not None and view.name != "raw":
            return format_view_value(decoded[i])
        if (view is not None and view.name == "raw") or fmt in ("x", "z"):
            return f"0x{int(flat[i]):0{(width + 3) // 4}x}"
        return format_int(interp, int(flat[i]), fmt, unit_bytes)

    for start in range(0, len(flat), per_line):
        interp.session.check_interrupt()
        index = first + (start if order is None else order[start])
        where = RegLoc(loc.kind, loc.bank, index // 16, index % 16)
        interp.out(f"{where.label()}:" + "".join("\t" + cell(i) for i in range(start, min(start + per_line, len(flat)))))
    if order is None and last < first + span:
        storage_name = {"dst16": "Dst16b", "dst32": "Dst32b", "src": loc.kind}[storage] if loc.kind != "dstbits" else "DstBits"
        interp.out(f"(stopped after {storage_name} row {nrows - 1}, the last row: {last - first} of {span} elements shown)")
    end = last
    return RegLoc(loc.kind, loc.bank, end // 16, end % 16)


def format_view_value(value: object) -> str:
    """A decoded view value: floats like GDB's %g, integers in decimal."""
    import numpy as np

    array = np.asarray(value)
    if array.dtype.kind == "f":
        return format_float(float(array))
    return str(int(array))


_FIND_SIZES = {"b": 1, "h": 2, "w": 4, "g": 8}


@command("find", usage="find [/SIZE-CHAR] [/MAX-COUNT] START, +LENGTH|END, EXPR1 [, EXPR2 ...]", help="Search memory from START (LENGTH bytes, or up to END inclusive) for the bytes of the values EXPR1, EXPR2 ... laid end to end (each the size of its type, or SIZE-CHAR b h w g; a string's characters without its NUL), as the current core reads memory; print each address found and how many; $_ is the last, $numfound the count (GDB's find).", example="find &results, +16, 0")
def find_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    text = args.strip()
    size, limit = None, None
    while text.startswith("/"):
        word, _, text = text[1:].partition(" ")
        for c in re.findall(r"\d+|.", word):
            if c.isdigit():
                limit = int(c)
            elif c in _FIND_SIZES:
                size = _FIND_SIZES[c]
            else:
                raise CommandError("Invalid size granularity.")
        text = text.strip()
    parts = [part.strip() for part in split_args(text, keep_last=True)]
    if len(parts) < 3 or not all(parts):
        raise CommandError("Missing search parameters." if len(parts) < 2 else "Missing search pattern.")
    start = evaluate_address(interp, parts[0])
    if parts[1].startswith("+"):
        length = evaluate_int(interp, parts[1][1:])
    else:
        end = evaluate_address(interp, parts[1])
        if end < start:
            raise CommandError("Invalid search space, end precedes start.")
        length = end - start + 1
    if length <= 0:
        raise CommandError("Empty search range.")
    pattern = b""
    for expr in parts[2:]:
        value = evaluate(interp, expr)
        if isinstance(value.raw, bytes):
            data = value.raw.rstrip(b"\0") if expr.startswith('"') else value.raw
        else:
            width = size or value.ctype.size
            number = int(value.raw) if not isinstance(value.raw, float) else struct.unpack(
                "<I" if width == 4 else "<Q", struct.pack("<f" if width == 4 else "<d", value.raw))[0]
            data = (number & ((1 << 8 * width) - 1)).to_bytes(width, "little")
        pattern += data
    try:
        memory = s.read_memory(start, length)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    found: list[int] = []
    at = memory.find(pattern)
    while at >= 0 and (limit is None or len(found) < limit):
        found.append(start + at)
        at = memory.find(pattern, at + 1)
    for address in found:
        name = s.symbolize(address)
        interp.out(f"{address:#x} {name}" if name else f"{address:#x}")
    ctx = s.expression_context()
    ctx.set_convenience("numfound", Value(INT32, len(found)))
    if found:
        ctx.set_convenience("_", Value(pointer_to(INT8), found[-1]))
    interp.out(f"{len(found)} pattern{'s' if len(found) > 1 else ''} found." if found else "Pattern not found.")
