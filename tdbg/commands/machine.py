"""The RISC-V side: ``info registers``, ``disassemble``, ``info symbol``."""

from __future__ import annotations

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import frame_view, source_line
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_address
from tdbg.symbols.cxxnames import demangle
from tdbg.riscv.registers import ABI_NAMES
from tdbg.session import REGISTERS, RunStatus


def _complete_registers(interp: Interpreter, word: str) -> list[str]:
    return [n for n in ["pc", *ABI_NAMES, *(f"x{i}" for i in range(32))] if n.startswith(word.lstrip("$"))]


@info_command("registers", aliases=("r", "reg", "all-registers"), usage="info registers [NAME...]", help="Show the current core's integer registers and pc (hex, then natural form), or just the named ones.", example="info registers a0 sp pc", complete=_complete_registers)
def info_registers(interp: Interpreter, args: str) -> None:
    s = interp.session
    names = [n.lstrip("$") for n in args.split()] or [*ABI_NAMES[1:], "pc"]
    for name in names:
        if name == "fp":
            name = "s0"
        if name != "pc" and name not in REGISTERS:
            raise CommandError(f"Invalid register `{name}'")
        value = s.register(name)
        if name in ("pc", "ra"):
            natural = f"{value:#x} {s.symbolize(value, s.print_settings.demangle)}".rstrip()
        elif name in ("sp", "gp", "tp", "s0"):
            natural = f"{value:#x}"
        else:
            natural = str(value - (1 << 32) if value >> 31 else value)
        interp.out(f"{name:<15}{value:#x}".ljust(34) + natural)


@info_command("symbol", usage="info symbol ADDR", help="Name the function or object containing ADDR.", example="info symbol $pc")
def info_symbol(interp: Interpreter, args: str) -> None:
    if not args.strip():
        raise CommandError("Argument required (address).")
    address = evaluate_address(interp, args.strip())
    hit = interp.session.image.symbol_at(address)
    if hit is None:
        interp.out(f"No symbol matches {args.strip()}.")
        return
    sym, offset = hit
    section = ".text" if sym.kind in ("func", "notype") else ".data"
    name = (demangle(sym.name) if interp.session.print_settings.demangle else None) or sym.name
    interp.out(f"{name}{f' + {offset}' if offset else ''} in section {section}")


@command("disassemble", usage="disassemble [/m|/s] [/r] [ADDR | START,END | START,+LEN]", help="Disassemble the function around ADDR (default: the selected frame's pc), or a range, as GDB prints it: absolute branch and call targets with <symbol+offset>, the address an auipc/lui pair forms as a comment, => at the pc.  /r adds the raw words; /s interleaves the source lines in address order, /m groups the code by source line in source order.  .ttinsn words show as the Tensix instruction they push.", example="disassemble /s main")
def disassemble_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    text = args.strip()
    mods = ""
    while text.startswith("/"):
        word, _, text = text.partition(" ")
        mods += word[1:]
        text = text.strip()
    if set(mods) - set("rsmb"):
        raise CommandError("Invalid disassembly modifier.")
    if "s" in mods and "m" in mods:
        raise CommandError("Cannot specify both /m and /s.")
    if "," in text:
        a, b = (t.strip() for t in text.split(",", 1))
        start = evaluate_address(interp, a)
        end = start + evaluate_address(interp, b[1:]) if b.startswith("+") else evaluate_address(interp, b)
        name = None
        interp.out(f"Dump of assembler code from {start:#x} to {end:#x}:")
    else:
        address = evaluate_address(interp, text) if text else frame_view(interp).selected().pc
        hit = s.image.symbol_at(address)
        if hit is None or hit[0].kind != "func":
            raise CommandError("No function contains specified address.")
        sym = hit[0]
        start, end = sym.addr, sym.addr + sym.size
        name = (demangle(sym.name) if s.print_settings.asm_demangle else None) or sym.name
        interp.out(f"Dump of assembler code for function {name}:")
    dump = _Dump(interp, name, start, "r" in mods or "b" in mods)
    info = s.debug
    if "s" in mods and info is not None:
        _source_order(interp, info, dump, start, end)
    elif "m" in mods and info is not None:
        _source_centric(interp, info, dump, start, end)
    else:
        dump.insns(start, end)
    interp.out("End of assembler dump.")


class _Dump:
    """Instruction lines as GDB's ``disassemble`` prints them; each ``insns`` call decodes with a
    fresh ``Disassembler`` (GDB: one per run of instructions)."""

    def __init__(self, interp: Interpreter, function: str | None, start: int, raw: bool) -> None:
        self.interp, self.function, self.start, self.raw = interp, function, start, raw
        self.pc = frame_view(interp).selected().pc
        self.highlight = interp.state.highlight_asm or (lambda text: text)

    def insns(self, low: int, high: int) -> None:
        s = self.interp.session
        decode = s.disassembler()
        for address in range(low, high, 4):
            s.check_interrupt()
            insn = decode(address, int.from_bytes(s.read_memory(address, 4), "little"))
            if self.function is not None:
                where = f"<+{address - self.start}>"
            else:
                hit = s.image.symbol_at(address)
                name = ((demangle(hit[0].name) if s.print_settings.asm_demangle else None) or hit[0].name) if hit else ""
                where = f"<{name}+{hit[1]}>" if hit else ""
            marker = "=> " if address == self.pc else "   "
            raw = f"\t{insn.word:08x}        " if self.raw else ""
            self.interp.out(f"{marker}{address:#010x} {where}:{raw}\t{self.highlight(insn.render(s.symbolize))}")  # type: ignore[operator]


def _source_order(interp: Interpreter, info, dump: _Dump, low: int, high: int) -> None:
    """GDB's ``/s`` (``do_mixed_source_and_assembly``): address order; before the code of a
    new line, the line (after its file's name when the file changes), and the lines just above
    it that have no code in the range."""
    rows = [info.row_at(low), *info.rows_in(low, high)]  # every row covering the range (not a walk over each word)
    with_code = {(r.file, r.line) for r in rows if r is not None and r.line}
    first = info.row_at(low)
    last_file, last_line, pc = None, 0, low
    while pc < high:
        row = info.row_at(pc)
        file, line = (row.file, row.line) if row is not None and row.line else (None, 0)
        preceding: range = range(0)
        new_line = False
        if file != last_file:
            new_line = True
            if last_line == 0 and first is not None and first.line and first.line < line:
                preceding = range(first.line, line)
        elif file is not None:
            if line > last_line + 1 and last_line:
                earlier = line - 1
                while earlier > last_line and (file, earlier) not in with_code:
                    earlier -= 1
                if earlier < line - 1:
                    preceding = range(earlier + 1, line)
            new_line = line != last_line
        if new_line:
            if pc > low:
                interp.out("")
            if file != last_file:
                interp.out(f"{file}:" if file is not None else "unknown:")
            for number in preceding:
                interp.out(_source(info, file, number))
            interp.out(_source(info, file, line) if file is not None else "--- no source info for this pc ---")
        end = min(row.end, high) if row is not None else pc + 4
        dump.insns(pc, end)
        pc = end
        last_file, last_line = file, line


def _source_centric(interp: Interpreter, info, dump: _Dump, low: int, high: int) -> None:
    """GDB's deprecated ``/m``: the line-table entries of the function's own file, sorted by
    line (then address), each line printed once before all of its code, intervening lines
    without code printed too, a blank line after each line's code.  Code from other files
    (inlined from a header) is not shown: GDB ends each entry where the file changes."""
    first = info.row_at(low)
    if first is None:
        dump.insns(low, high)
        return
    ranges = [(r.line, r.addr, min(r.end, high)) for r in info.rows_in(low, high) if r.file == first.file and r.line]
    ranges.sort(key=lambda item: (item[0], item[1]))
    next_line = 0
    for i, (line, start, end) in enumerate(ranges):
        if line >= next_line:
            for number in range(next_line or line, line + 1):
                interp.out(_source(info, first.file, number))
            next_line = line + 1
        dump.insns(start, end)
        if i == len(ranges) - 1 or ranges[i + 1][0] > line:
            interp.out("")


def _source(info, file, line: int) -> str:
    text = source_line(info, file, line)
    return f"{line}\t{text}" if text is not None else f"{line}\tin {file}"


def context_panel(interp: Interpreter, stop: object = None) -> None:
    """Registers changed since the previous stop and the next instructions (displays follow,
    printed by ``display``'s own stop hook)."""
    if stop is not None and (interp.session.status is not RunStatus.STOPPED or interp.state.silent_stop):
        return
    s = interp.session
    regs = {name: s.register(name) for name in [*ABI_NAMES[1:], "pc"]}
    before: dict[str, int] = interp.state.context_regs or {}
    interp.state.context_regs = regs
    changed = [f"{n}={v:#x}" for n, v in regs.items() if before.get(n) != v and n != "pc"]
    interp.out("--- registers changed: " + (" ".join(changed) if before and changed else "(none)" if before else "(first stop)"))
    interp.out("--- code")
    pc = s.pc
    for address in range(pc, pc + 16, 4):
        try:
            insn = s.disassembler()(address, int.from_bytes(s.read_memory(address, 4), "little"))
        except Exception:
            break
        marker = "=> " if address == pc else "   "
        interp.out(f"{marker}{address:#010x} {s.symbolize(address)}\t{insn.render(s.symbolize)}")


@command("context", usage="context [on|off]", help="Show the context panel now, or turn on/off showing it at every stop: registers changed since the previous stop and the next instructions (then the displays).", example="context on")
def context_cmd(interp: Interpreter, args: str) -> None:
    word = args.strip()
    hooks = interp.state.stop_hooks
    if word == "on":
        if context_panel not in hooks:  # type: ignore[operator]
            hooks.append(context_panel)  # type: ignore[union-attr]
    elif word == "off":
        if context_panel in hooks:  # type: ignore[operator]
            hooks.remove(context_panel)  # type: ignore[union-attr]
    elif not word:
        context_panel(interp)
    else:
        raise CommandError("Usage: context [on|off]")
