"""Tensix commands: ``tensix`` (issue or decode an instruction), ``info tensix``,
``info pushes``, ``info cfg``, ``info dst``, ``pack`` (the ``dst`` family is ``dst_cmds``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tdbg.arch.data_formats import L1_FORMATS
from tdbg.commands.dst_rows import STORAGE_NAME, default_view, dst_rows, storage_rows
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import line_width, wrap
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_address, evaluate_int

if TYPE_CHECKING:
    from tdbg.debug.snapshots import CoprocessorState


def _complete_tensix(interp: Interpreter, word: str) -> list[str]:
    from tdbg.tensix.isa import IsaError, isa_of   # the encodings: read when first needed

    line = interp.state.completion_line
    parts = str(line).split()
    isa = isa_of(interp.session.profile)
    if len(parts) >= 2 and (len(parts) > 2 or str(line).endswith(" ")):
        try:
            return [f"{f}=" for f in isa.field_names(parts[1].upper()) if f.lower().startswith(word.lower())]
        except IsaError:
            return []
    return [m for m in [*isa.mnemonics(), "decode"] if m.lower().startswith(word.lower())]


def _report_changes(interp: Interpreter, before: CoprocessorState, thread: int) -> None:
    """What one instruction changed, between two ``Session.coprocessor_state`` copies (as the
    coprocessor's state declaration reports it), and what holds the thread now."""
    after = interp.session.coprocessor_state()
    lines = interp.session.state_changes(before, after)
    waiting = after.threads[thread].waiting
    if waiting:
        lines.append(f"T{thread} is waiting: {waiting}")
    for line in lines or ["No state changed."]:
        interp.out(line)


@command(
    "tensix",
    usage="tensix MNEMONIC [Field=V ...] | tensix 0xWORD | tensix decode 0xWORD",
    help=(
        "Execute one Tensix instruction on the current thread as if its core pushed it, and "
        "print what changed (Dst, SrcA/SrcB rows, config, RWCs, semaphores).  Encodings are the "
        "session profile's (Blackhole: tt-llk's assembly.yaml).  Fields are named as on the "
        "Wormhole pages (missing fields are 0), or by tt-llk's Blackhole names, which name the "
        "same bits (dst=DstRow, src=SrcRow, addr_mode=AddrMod, instr_mod=Move4Rows/Move8Rows "
        "bits, clear_dvalid=FlipSrcA+FlipSrcB, where=Imm10, clear_mode=Mode, "
        "use_32_bit_mode=UseDst32b, clear_zero_flags=Revert, rwc_a/rwc_b/rwc_d=SrcA/SrcB/Dst "
        "values, rwc_cr=the Cr bits, sem_sel=SemaphoreMask, wait_res=ConditionMask, "
        "stall_res=BlockMask, lreg_ind/lreg_dest=VD, instr_mod0=Mod0, sfpu_addr_mode=AddrMod, "
        "...: 'tensix decode' and completion list them), or positionally in the order of the "
        "TT_OP_* macro (Blackhole) or the page's syntax (Wormhole).  'tensix decode' only "
        "shows the instruction."
    ),
    example="tensix MOVD2B SrcRow=0 DstRow=4 Move4Rows=1",
    complete=_complete_tensix,
)
def tensix_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.tensix.isa import IsaError, isa_of

    text = args.strip()
    if not text:
        raise CommandError("Argument required (an instruction, a word, or decode WORD).")
    decode_only = text.split()[0].lower() == "decode"
    if decode_only:
        text = text.split(None, 1)[1] if len(text.split()) > 1 else ""
        if not text:
            raise CommandError("Argument required (instruction word).")
    isa = isa_of(interp.session.profile)
    try:
        if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", text):
            word = int(text, 0)
            insn = isa.decode(word)
        else:
            insn = isa.parse(text)
            word = insn.word
    except IsaError as exc:
        raise CommandError(str(exc)) from None
    interp.out(f"{word:#010x}  {insn.text()}")
    if decode_only:
        aliases = insn.spec.aliases
        if aliases:
            interp.out("  also: " + ", ".join(f"{a.name}=[{a.lsb + a.width - 1}:{a.lsb}]" for a in aliases))
        return
    s = interp.session
    before = s.coprocessor_state()
    try:
        s.tensix(word)
    finally:
        _report_changes(interp, before, s.tensix_thread or 0)


@info_command("tensix", usage="info tensix", help="Show the coprocessor state: RWCs per thread, SrcA/SrcB banks and clients, semaphores, queued instructions, pushes per thread.", example="info tensix")
def info_tensix(interp: Interpreter, args: str) -> None:
    s = interp.session
    state = s.coprocessor_state()
    for thread, t in enumerate(state.threads):
        pushes = s.pushes.per_thread[thread]
        interp.out(f"T{thread}: RWC " + " ".join(f"{k}={v}" for k, v in t.rwc.items()) + f"; {pushes} pushed")
        if t.waiting:
            interp.out(f"    waiting: {t.waiting} ({t.queued} queued)")
    srca, srcb, unpack0, unpack1 = state.src_banks
    interp.out(f"MatrixUnit: SrcABank={srca} SrcBBank={srcb}; Unpackers: SrcBank={unpack0} (SrcA), {unpack1} (SrcB)")
    for name, clients in zip(("SrcA", "SrcB"), state.allowed_clients):
        interp.out(f"{name}: AllowedClient bank0={clients[0]} bank1={clients[1]}")
    interp.out("Semaphores: " + " ".join(f"[{i}] {value}/{most}" for i, (value, most) in enumerate(state.semaphores)))


@info_command("pushes", usage="info pushes [N]", help="List the last N (default 20) Tensix instructions pushed: pc, core, how (ttinsn, store, debugger), word, instruction (its fields wrapped to the line: set width); under a push, the L1 bytes Tensix instructions read or wrote while it ran (an UNPACR's input, a PACR's output; an instruction of another thread released by the push is named).", example="info pushes 5")
def info_pushes(interp: Interpreter, args: str) -> None:
    s = interp.session
    pushes = s.pushes
    n = evaluate_int(interp, args) if args.strip() else 20
    if not pushes:
        interp.out("No Tensix instructions pushed.")
        return
    shown = pushes.last(n)
    width = line_width(interp)
    for i, p in enumerate(shown, start=pushes.total - len(shown) + 1):
        for line in wrap(s.describe_word(p.word), width, f"{i:>5}  {p.pc:#010x} {p.core} {p.via:<8} {p.word:#010x}  ", " " * 9):
            interp.out(line)
        for a in s.l1_accesses(p.seq):
            who = "" if a.thread == p.thread and a.word == p.word else f" by T{a.thread} {s.describe_word(a.word).split()[0]}"
            interp.out(f"{'':>7}L1 {'write' if a.write else 'read '} {a.start:#x}..{a.end:#x} ({a.end - a.start} bytes){who}")


@info_command("cfg", usage="info cfg [NAME|GLOB]", help="Show config fields by cfg_defines.h name (a glob or prefix selects several): Config fields in the current thread's CFG_STATE_ID bank, ThreadConfig fields of the current thread.", example="info cfg RISC_DEST_ACCESS_CTRL_SEC0*")
def info_cfg(interp: Interpreter, args: str) -> None:
    fields = interp.session.cfg_fields(args.strip() or None)
    if not fields:
        raise CommandError(f'No config field matches "{args.strip()}".')
    for f in fields:
        interp.out(f"{f.name:<48} = {f.value:#x} ({f.value})  {f.register} bits {f.lsb + f.width - 1}:{f.lsb}")


def set_cfg(interp: Interpreter, text: str) -> None:
    """``set cfg NAME = V``."""
    name, eq, value = text.partition("=")
    if not eq:
        raise CommandError("Usage: set cfg NAME = VALUE")
    interp.session.set_cfg(name.strip(), evaluate_int(interp, value.strip()))


@info_command("dst", usage="info dst", help="Which DstBits rows were ever written (and not since marked undefined), and counts of NaN, Inf and denormal values in the FP32 (Dst32b) and BF16 (Dst16b) readings of them.", example="info dst")
def info_dst(interp: Interpreter, args: str) -> None:
    import numpy as np

    from tdbg.tensix import formats
    from tdbg.tensix.state_description import ranges

    dst = interp.session.dst_contents()
    written = np.flatnonzero(dst.written)
    if not len(written):
        interp.out("No Dst rows written.")
        return
    interp.out(f"DstBits rows written: {ranges(written)} ({len(written)} rows)")
    bf16 = formats.get_view("dst16", "bf16")
    bits = dst.bits[written]
    interp.out(f"As BF16 (Dst16b): NaN {int(bf16.is_nan(bits).sum())}, Inf {int(bf16.is_inf(bits).sum())}, denormal {int(bf16.is_denormal(bits).sum())}")
    fp32 = formats.get_view("dst32", "fp32")
    rows32 = [r for r in range(storage_rows(interp, "dst32")) if dst.written[dst.row32[r]]]
    if rows32:
        v = np.array([dst.read32(r) for r in rows32])
        interp.out(f"As FP32 (Dst32b rows {ranges(rows32)}): NaN {int(fp32.is_nan(v).sum())}, Inf {int(fp32.is_inf(v).sum())}, denormal {int(fp32.is_denormal(v).sum())}")
    if dst.garbage is not None:
        interp.out(f"Elements holding garbage from bit-11 writes: {dst.garbage}")


@command(
    "pack",
    usage="pack ROWS to FORMAT [from DSTFMT] [at ADDR]",
    help=(
        "Run the packer's format conversion on Dst rows (N or A-B) and show the bytes it "
        "would write to L1, or write them at ADDR.  FORMAT: " + ", ".join(L1_FORMATS) + ".  "
        "DSTFMT is what Dst holds (fp32, int32: Dst32b rows; bf16, fp16, int16: Dst16b rows); "
        "by default the view in force (see help dst).  Undefined rows (ZEROACC, or never written) "
        "pack as zero, as the packers read them (ZEROACC.md)."
    ),
    example="pack 0-3 to bfp8 from fp32",
)
def pack_cmd(interp: Interpreter, args: str) -> None:
    from tdbg.tensix import pack_conversion as packer

    m = re.fullmatch(r"\s*(\S+)\s+to\s+(\S+)(?:\s+from\s+(\S+))?(?:\s+at\s+(.+))?\s*", args)
    if not m:
        raise CommandError("Usage: pack ROWS to FORMAT [from DSTFMT] [at ADDR]")
    rows_text, fmt_name, dst_fmt, at = m.groups()
    s = interp.session
    if dst_fmt is None:
        dst_fmt = default_view(interp, "from DSTFMT").name
    if dst_fmt == "int8":
        dst_fmt = "fp16"  # Integer "8" is overlaid on FP16 (Dst.md)
    try:
        cfg = packer.PackerConfig.for_output(fmt_name, dst_fmt)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    storage = "dst32" if cfg.read_32b_data else "dst16"
    rows = dst_rows(interp, rows_text, storage_rows(interp, storage), STORAGE_NAME[storage])
    data = s.dst_contents().lanes(storage, rows)  # ZEROACC.md: packers read undefined rows as zero
    address = evaluate_address(interp, at) if at else None
    packed = packer.pack(data, cfg)
    interp.out(f"{cfg.describe()}: {len(packed.data)} bytes" + (f" + {len(packed.exponents)} exponent bytes" if packed.exponents else ""))
    if address is not None:
        s.write_memory(address, packed.data + packed.exponents)
        interp.out(f"Written at {address:#x}" + (f" (exponents at {address + len(packed.data):#x})" if packed.exponents else ""))
        return
    for off in range(0, len(packed.data), 16):
        s.check_interrupt()
        interp.out(f"  {off:#06x}: " + " ".join(f"{b:02x}" for b in packed.data[off:off + 16]))
    if packed.exponents:
        interp.out("  exponents: " + " ".join(f"{b:02x}" for b in packed.exponents))


@command(
    "trace",
    usage="trace dst [on|off]",
    help=(
        "Log every Dst-window access (pc, core, row, column, width, value, view); the log is "
        "printed at each stop (its newest 1000 lines) and window stores are recorded for "
        "'info dst-writer'.  The log keeps the newest 100000 accesses between stops.  Costs a "
        "pc read per window access, so it is off by default.  'trace dst' alone shows whether it "
        "is on and how many accesses the log holds."
    ),
    example="trace dst on",
)
def trace_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    if not words or words[0] != "dst" or len(words) > 2 or words[1:] not in ([], ["on"], ["off"]):
        raise CommandError("Usage: trace dst [on|off]")
    trace = interp.session.window_trace
    if len(words) == 1:
        if trace is None:
            interp.out("Dst window tracing is off.")
        else:
            dropped = f"; {trace.dropped} older ones dropped" if trace.dropped else ""
            interp.out(f"Dst window tracing is on: {len(trace)} accesses logged since the last stop, "
                       f"at most {trace.limit} kept{dropped}.")
        return
    on = words[1] == "on"
    interp.session.observe_window(trace=on, writers=on)
    hooks = interp.state.stop_hooks
    if on and print_trace not in hooks:  # type: ignore[operator]
        hooks.append(print_trace)  # type: ignore[union-attr]
    interp.out(f"Dst window tracing is {words[1]}.")


def print_trace(interp: Interpreter, stop: object) -> None:
    trace = interp.session.window_trace
    if not trace:
        return
    limit = 1000
    for a in trace[-limit:]:
        kind = "store" if a.write else "load "
        interp.out(f"[{a.seq}] {a.pc:#010x} {a.core} {kind} row {a.row} col {a.col} {a.size}B {a.value:#x} ({a.view})")
    earlier = len(trace) + trace.dropped - limit
    if earlier > 0:
        interp.out(f"({earlier} earlier accesses not shown)")
    interp.session.clear_window_trace()


@info_command("dst-writer", usage="info dst-writer ROW", help="The last writer of Dst row ROW (Dst16b row; both DstBits rows of the Dst32b row are shown): pc, core, the Tensix instruction or window store, and its sequence number.  Window stores are recorded while 'trace dst on'.", example="info dst-writer 4")
def info_dst_writer(interp: Interpreter, args: str) -> None:
    row = evaluate_int(interp, args.strip())
    rows = storage_rows(interp, "dst16")
    if not 0 <= row < rows:
        raise CommandError(f"Dst row {row} out of range 0..{rows - 1}")
    s = interp.session
    dst = s.dst_contents()
    high = int(dst.row32[row])
    for label, bits_row in ((f"Dst16b[{row}]", int(dst.row16[row])), (f"Dst32b[{row}] high", high), (f"Dst32b[{row}] low", high + 8)):
        w = s.dst_writer(bits_row)
        who = f"{w.what} at pc {w.pc:#010x} on {w.core} (#{w.seq})" if w else "no recorded writer"
        interp.out(f"{label:<18} DstBits[{bits_row}]: {who}")
    if not s.recording_window_writers:
        interp.out("(window stores are not being recorded: 'trace dst on' records them)")
