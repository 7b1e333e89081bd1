"""The units that move tiles between L1 and the coprocessor, and L1 data seen as tiles:
``info unpack``, ``info pack``, ``info l1-writer``, ``tile`` (``x/NU ADDR as FORMAT`` is
``examine``'s)."""

from __future__ import annotations

from collections.abc import Callable

from tdbg.arch.data_formats import L1_FORMATS
from tdbg.commands.examine import format_float
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import SHORT_DIGITS, blocks, first_fitting, line_width
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.ttmetal_cmds import buffer_page, cb_page
from tdbg.commands.values import evaluate_address, evaluate_int
from tdbg.session import SessionError

FORMATS = ", ".join(L1_FORMATS)


def _lines(interp: Interpreter, lines: list[tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in lines)
    for label, text in lines:
        interp.out(f"  {label:<{width}}  {text}")


@info_command("unpack", usage="info unpack [0|1]",
              help="Show unpacker 0 (L1 to SrcA or Dst) and unpacker 1 (L1 to SrcB) as the current core's thread "
                   "sees them: the configuration a tt-llk style UNPACR (MultiContextMode, context from "
                   "UNPACK_MISC_CFG_CfgContextOffset) uses, decoded by field name, the L1 bytes the next UNPACR "
                   "would read and where it would write, the address counters (ADCs) and the banks.",
              example="info unpack 0")
def info_unpack(interp: Interpreter, args: str) -> None:
    which = [evaluate_int(interp, args)] if args.strip() else [0, 1]
    for u in which:
        if u not in (0, 1):
            raise CommandError("There are two unpackers: 0 (SrcA / Dst) and 1 (SrcB).")
        try:
            lines = interp.session.unpacker_status(u)
        except SessionError as exc:
            raise CommandError(str(exc)) from None
        interp.out(f"Unpacker {u} ({'SrcB' if u else 'SrcA or Dst'}):")
        _lines(interp, lines)


@info_command("pack", usage="info pack",
              help="Show the packer as the current core's thread sees it: its format conversion, where the next "
                   "PACR (all read interfaces, AddrMode 0) reads Dst and writes L1, the output streams, edge "
                   "masks, ReLU and the other stages, the address counters (ADCs).",
              example="info pack")
def info_pack(interp: Interpreter, args: str) -> None:
    try:
        lines = interp.session.packer_status()
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    interp.out("Packer:")
    _lines(interp, lines)


@info_command("l1-writer", usage="info l1-writer ADDR",
              help="Who last wrote L1 address ADDR: a Tensix instruction (packer, Scalar Unit: its thread, the "
                   "instruction, the bytes it wrote and the push during which it ran) or a NoC request (a read "
                   "into this tile, a write from another: its NoC, the core and pc that issued it, where it is in "
                   "the source, and the bytes it moved), the newer first and the other after it.",
              example="info l1-writer 0x50000")
def info_l1_writer(interp: Interpreter, args: str) -> None:
    s = interp.session
    address = evaluate_address(interp, args.strip())
    access, noc = s.l1_writer(address), s.noc_l1_writer(address)
    if access is None and noc is None:
        interp.out(f"No logged Tensix instruction or NoC request wrote L1 {address:#x}.")
        return
    lines = []
    if access is not None:
        lines.append((access.seq, f"T{access.thread} {s.describe_word(access.word)} wrote "
                                  f"{access.start:#x}..{access.end:#x} (push #{access.seq})"))
    if noc is not None:
        transfer, pushes = noc
        lines.append((pushes + 0.5, f"the NoC request {transfer.describe()} (#{transfer.seq}), issued at "
                                    f"{s.describe_pc(transfer.core, transfer.pc)}"))
    lines.sort(reverse=True)
    interp.out(f"L1 {address:#x}: {lines[0][1]}")
    if len(lines) > 1:
        interp.out(f"  before it: {lines[1][1]}")


def _format_of(interp: Interpreter, args: str, default: str) -> tuple[str, str]:
    """``EXPR [as FORMAT]`` -> (EXPR, FORMAT)."""
    from tdbg.tensix import l1_data

    text, sep, fmt = args.rpartition(" as ")
    if not sep:
        return args.strip(), default
    fmt = fmt.strip().lower()
    if fmt not in l1_data.FORMATS:
        raise CommandError(f"Unknown L1 format {fmt!r}; valid: {FORMATS}.")
    return text.strip(), fmt


def _number(v: object, fmt: str, short: bool = False) -> str:
    """A datum as ``tile`` shows it: integers in decimal, floats with 6 digits (``short``: the
    digits that tell the format's values apart, ``layout.SHORT_DIGITS``; BFP datums are BF16 or
    FP16 values)."""
    if fmt.startswith(("int", "uint")):
        return str(int(v))  # type: ignore[call-overload]
    if short:
        kind = "fp16" if fmt.endswith("a") or fmt == "fp16" else "bf16" if fmt.startswith(("bf", "bfp")) else fmt
        return format_float(float(v), min(6, SHORT_DIGITS.get(kind, 6)))  # type: ignore[arg-type]
    return f"{float(v):.6g}"  # type: ignore[arg-type]


@command("tile", usage="tile[/x] ADDR [as FORMAT] | tile[/x] cb N [page P] | tile[/x] BUFFER page P [as FORMAT]",
         help="Show the 32x32 tile at L1 ADDR (four 16x16 faces, one after the other, as tt-llk lays them "
              "out) face by face, decoded from FORMAT (default bf16): " + FORMATS + ".  A BFP tile starts "
              "with its exponent section (one per 16 datums: each face row); each row shows its exponent.  "
              "/x shows the datums' bits.  A face wider than the line (set width; 80 columns by default) "
              "shows floats with the digits that tell the format's values apart, then its columns in "
              "blocks; 'set width unlimited' gives one line per face row.  'cb N' is a tt-metal program's CB "
              "(page P after its front), 'BUFFER page P' page P of its DRAM buffer BUFFER, read at its bank.",
         example="tile 0x30000 as bf16")
def tile_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.tensix import l1_data

    raw = args.startswith("/x")
    if args.startswith("/"):
        opt, _, args = args.partition(" ")
        if opt != "/x":
            raise CommandError(f"Unknown option {opt}; tile takes /x.")
    s = interp.session
    page = cb_page(interp, args)
    expr, fmt = _format_of(interp, args, "bf16")
    dram = buffer_page(interp, expr) if page is None else None
    try:
        if dram is not None:
            where, x, y, at = dram
            data = s.read_noc(x, y, at, l1_data.size(fmt, l1_data.TILE_DATUMS))
        else:
            if page is not None:
                address, fmt = page
            elif not expr:
                raise CommandError("Argument required (an L1 address).")
            else:
                address = evaluate_address(interp, expr)
            where, data = f"{address:#x}", s.read_memory(address, l1_data.size(fmt, l1_data.TILE_DATUMS))
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    bits, exps = l1_data.raw_datums(data, fmt, l1_data.TILE_DATUMS)
    shown = bits if raw else l1_data.values(data, fmt, l1_data.TILE_DATUMS)
    digits = -(-l1_data.datum_bits(fmt) // 4)
    width = line_width(interp)
    interp.out(f"Tile at {where} as {fmt}" + (f" ({l1_data.exponent_section(fmt, 1024)} bytes of exponents first)" if exps is not None else ""))
    for face in range(4):
        r0, c0 = 16 * (face // 2), 16 * (face % 2)

        def layout(short: bool) -> Callable[[], list[str]]:
            cells = [[f"{int(v):#0{digits + 2}x}" if raw else _number(v, fmt, short) for v in shown[i:i + 16]]
                     for i in range(face * 256, face * 256 + 256, 16)]
            cell = 10 if not short else max(len(c) for row in cells for c in row)

            def block(a: int, b: int) -> list[str]:
                lines = [f"Face {face} (tile rows {r0}-{r0 + 15}, columns {c0 + a}-{c0 + b - 1}):"]
                for row in range(16):
                    tail = f"  e={int(exps[face * 256 + row * 16])}" if exps is not None and a == 0 else ""
                    lines.append(f"  {r0 + row:>2}: " + " ".join(f"{c:>{cell}}" for c in cells[row][a:b]) + tail)
                return lines
            return lambda: block(0, 16) if not short else blocks(16, width, block)

        for line in first_fitting(width, [layout(False), layout(True)]):
            interp.out(line)
