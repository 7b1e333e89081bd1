"""The RISC-V side: ``info registers``, ``disassemble``, ``info symbol``."""

from __future__ import annotations

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_address
from tdbg.disasm import disassemble
from tdbg.riscv import ABI_NAMES
from tdbg.session import REGISTERS


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
            natural = f"{value:#x} {s.symbolize(value)}".rstrip()
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
    section = ".text" if sym.kind == "func" else ".data"
    interp.out(f"{sym.name}{f' + {offset}' if offset else ''} in section {section}")


@command("disassemble", usage="disassemble [/r] [ADDR | START,END | START,+LEN]", help="Disassemble the function around ADDR (default: the pc), or a range; /r adds the raw words.  .ttinsn words show as the Tensix instruction they push.", example="disassemble /r main")
def disassemble_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    raw = False
    text = args.strip()
    if text.startswith("/"):
        mods, _, text = text.partition(" ")
        raw = "r" in mods
        text = text.strip()
    if "," in text:
        a, b = (t.strip() for t in text.split(",", 1))
        start = evaluate_address(interp, a)
        end = start + evaluate_address(interp, b[1:]) if b.startswith("+") else evaluate_address(interp, b)
        name = None
    else:
        address = evaluate_address(interp, text) if text else s.core.pc
        hit = s.image.symbol_at(address)
        if hit is None or hit[0].kind != "func":
            raise CommandError("No function contains specified address.")
        sym = hit[0]
        start, end, name = sym.addr, sym.addr + sym.size, sym.name
    if name:
        interp.out(f"Dump of assembler code for function {name}:")
    else:
        interp.out(f"Dump of assembler code from {start:#x} to {end:#x}:")
    highlight = interp.context.get("highlight_asm", lambda t: t)
    pc = s.core.pc
    for address in range(start, end, 4):
        insn = disassemble(address, int.from_bytes(s.read_memory(address, 4), "little"), s.tile.profile.isa)
        offset = f"<+{address - start}>" if name else s.symbolize(address)
        marker = "=> " if address == pc else "   "
        raw_text = f"\t{insn.word:08x}" if raw else ""
        interp.out(f"{marker}{address:#010x} {offset}:{raw_text}\t{highlight(insn.text)}")  # type: ignore[operator]
    interp.out("End of assembler dump.")


def context_panel(interp: Interpreter, stop: object = None) -> None:
    """Registers changed since the previous stop and the next instructions (displays follow,
    printed by ``display``'s own stop hook)."""
    if stop is not None and (not interp.context.get("running") or interp.context.get("silent_stop")):
        return
    s = interp.session
    regs = {name: s.register(name) for name in [*ABI_NAMES[1:], "pc"]}
    before: dict[str, int] = interp.context.get("context_regs") or {}  # type: ignore[assignment]
    interp.context["context_regs"] = regs
    changed = [f"{n}={v:#x}" for n, v in regs.items() if before.get(n) != v and n != "pc"]
    interp.out("--- registers changed: " + (" ".join(changed) if before and changed else "(none)" if before else "(first stop)"))
    interp.out("--- code")
    pc = s.core.pc
    for address in range(pc, pc + 16, 4):
        try:
            insn = disassemble(address, int.from_bytes(s.read_memory(address, 4), "little"), s.tile.profile.isa)
        except Exception:
            break
        marker = "=> " if address == pc else "   "
        interp.out(f"{marker}{address:#010x} {s.symbolize(address)}\t{insn.text}")


@command("context", usage="context [on|off]", help="Show the context panel now, or turn on/off showing it at every stop: registers changed since the previous stop and the next instructions (then the displays).", example="context on")
def context_cmd(interp: Interpreter, args: str) -> None:
    word = args.strip()
    hooks = interp.context.setdefault("stop_hooks", [])
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
