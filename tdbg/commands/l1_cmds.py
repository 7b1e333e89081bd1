"""The units that move tiles between L1 and the coprocessor, and L1 data seen as tiles:
``info unpack``, ``info pack``, ``info l1-writer``, ``tile`` (``x/NU ADDR as FORMAT`` is
``examine``'s)."""

from __future__ import annotations


from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_address, evaluate_int
from tdbg.session import SessionError
from tdbg.tensix import l1_data

FORMATS = ", ".join(l1_data.FORMATS)


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
              help="The last Tensix instruction (packer, Scalar Unit) that wrote L1 address ADDR: its thread, the "
                   "instruction, the bytes it wrote and the push during which it ran.",
              example="info l1-writer 0x50000")
def info_l1_writer(interp: Interpreter, args: str) -> None:
    address = evaluate_address(interp, args.strip())
    access = interp.session.l1_writer(address)
    if access is None:
        interp.out(f"No logged Tensix instruction wrote L1 {address:#x}.")
        return
    desc = interp.session.describe_word(access.word)
    interp.out(f"L1 {address:#x}: T{access.thread} {desc} wrote {access.start:#x}..{access.end:#x} (push #{access.seq})")


def _format_of(interp: Interpreter, args: str, default: str) -> tuple[str, str]:
    """``EXPR [as FORMAT]`` -> (EXPR, FORMAT)."""
    text, sep, fmt = args.rpartition(" as ")
    if not sep:
        return args.strip(), default
    fmt = fmt.strip().lower()
    if fmt not in l1_data.FORMATS:
        raise CommandError(f"Unknown L1 format {fmt!r}; valid: {FORMATS}.")
    return text.strip(), fmt


def _number(v: object, fmt: str) -> str:
    if fmt.startswith(("int", "uint")):
        return str(int(v))  # type: ignore[call-overload]
    return f"{float(v):.6g}"  # type: ignore[arg-type]


@command("tile", usage="tile[/x] ADDR [as FORMAT]",
         help="Show the 32x32 tile at L1 ADDR (four 16x16 faces, one after the other, as tt-llk lays them "
              "out) face by face, decoded from FORMAT (default bf16): " + FORMATS + ".  A BFP tile starts "
              "with its exponent section (one per 16 datums: each face row); each row shows its exponent.  "
              "/x shows the datums' bits.",
         example="tile 0x30000 as bf16")
def tile_cmd(interp: Interpreter, args: str) -> None:
    raw = args.startswith("/x")
    if args.startswith("/"):
        opt, _, args = args.partition(" ")
        if opt != "/x":
            raise CommandError(f"Unknown option {opt}; tile takes /x.")
    expr, fmt = _format_of(interp, args, "bf16")
    if not expr:
        raise CommandError("Argument required (an L1 address).")
    address = evaluate_address(interp, expr)
    s = interp.session
    try:
        data = s.read_memory(address, l1_data.size(fmt, l1_data.TILE_DATUMS))
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    bits, exps = l1_data.raw_datums(data, fmt, l1_data.TILE_DATUMS)
    shown = bits if raw else l1_data.values(data, fmt, l1_data.TILE_DATUMS)
    digits = -(-l1_data.datum_bits(fmt) // 4)
    interp.out(f"Tile at {address:#x} as {fmt}" + (f" ({l1_data.exponent_section(fmt, 1024)} bytes of exponents first)" if exps is not None else ""))
    for face in range(4):
        r0, c0 = 16 * (face // 2), 16 * (face % 2)
        interp.out(f"Face {face} (tile rows {r0}-{r0 + 15}, columns {c0}-{c0 + 15}):")
        for row in range(16):
            i = face * 256 + row * 16
            cells = [f"{int(v):#0{digits + 2}x}" if raw else _number(v, fmt) for v in shown[i:i + 16]]
            tail = f"  e={int(exps[i])}" if exps is not None else ""
            interp.out(f"  {r0 + row:>2}: " + " ".join(f"{c:>10}" for c in cells) + tail)
