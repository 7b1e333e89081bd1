"""Values: ``print``/``p``, ``output``, ``set`` (variables, memory as a core's store, registers,
config fields, settings), ``display``/``undisplay``, ``whatis``, ``ptype``."""

from __future__ import annotations

import re

from tdbg.commands import settings
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.state import Display
from tdbg.commands.tensix_cmds import set_cfg
from tdbg.commands.values import evaluate
from tdbg.session import RunStatus, SessionError
from tdbg import expr
from tdbg.expr import CType, ExprError, ptype_text, type_name

_FMT = re.compile(r"^/([xduotacfsz])\s*(.*)$", re.S)


def split_format(args: str) -> tuple[str | None, str]:
    m = _FMT.match(args.strip())
    if m:
        return m.group(1), m.group(2).strip()
    if args.strip().startswith("/"):
        raise CommandError(f'Undefined output format "{args.strip()[1:].split()[0]}".')
    return None, args.strip()


def show(interp: Interpreter, text: str, fmt: str | None) -> str:
    ctx = interp.session.expression_context()
    value = evaluate(interp, text)
    try:
        return expr.format_value(value, fmt, ctx), value  # type: ignore[return-value]
    except ExprError as exc:
        raise CommandError(str(exc)) from None


def _complete_expr(interp: Interpreter, word: str) -> list[str]:
    s = interp.session
    if word.startswith("$"):
        from tdbg.session import REGISTERS

        return [f"${r}" for r in ["pc", *REGISTERS] if r.startswith(word[1:])]
    return [n for n in {*_frame_names(interp), *s.symbol_names()} if n.startswith(word)]


def _frame_names(interp: Interpreter) -> list[str]:
    """The selected frame's locals and arguments (none without a frame with debug information)."""
    from tdbg.commands.location import frame_view

    info = interp.session.debug
    if info is None or not interp.session.has_firmware(interp.session.current):
        return []
    view = frame_view(interp)
    frame = view.selected()
    return [v.name for v in info.locals_at(frame, view.caller(frame))]


@command("print", aliases=("p", "inspect", "call"), usage="print[/FMT] EXPR", help="Evaluate a C expression and print its value as $N (registers $pc $a0 $x5, variables, &symbol, casts, arithmetic, comparisons, assignments, $convenience variables, $ $$ $N history, dst[r][c], dst32[r][c], srca[b][r][c], srcb[b][r][c], cfg.NAME).  FMT: x d u o t a c f s z.  dst[r][c] (Dst16b), dst32[r][c] (Dst32b), srca[b][r][c] and srcb[b][r][c] are the numbers the data holds (float or int), in the format in force as x/f reads them (see help x): Dst by the current core's window fmt (RISC_DEST_ACCESS_CTRL_SEC<thread>_fmt), Src by its Unpacker data format; assigning one encodes the value back in that format, and reading an undefined Dst element (ZEROACC, or never written) is an error.  The raw bits are dstbits[r][c] (DstBits, the 16 stored bits, no row mapping), dst32bits[r][c], srcabits[b][r][c] and srcbbits[b][r][c].  One index fewer gives a whole row.", example="p/x results[1]", complete=_complete_expr)
def print_cmd(interp: Interpreter, args: str) -> None:
    fmt, text = split_format(args)
    ctx = interp.session.expression_context()
    value = evaluate(interp, text or "$")
    try:
        shown = expr.format_value(value, fmt, ctx)
    except ExprError as exc:
        raise CommandError(str(exc)) from None
    interp.out(f"${ctx.record(value)} = {shown}")


@command("output", usage="output[/FMT] EXPR", help="Print an expression's value with no newline and no history entry.", example='output $pc')
def output_cmd(interp: Interpreter, args: str) -> None:
    fmt, text = split_format(args)
    if not text:
        raise CommandError("Argument required (expression to compute).")
    shown, _ = show(interp, text, fmt)  # type: ignore[misc]
    interp.write(shown)


@command("set", usage="set var EXPR | set {TYPE}ADDR = V | set $REG = V | set cfg NAME = V | set SETTING VALUE", help="Assign: a variable, memory as the current core's store would write it ({uint32_t}ADDR, *(uint16_t*)ADDR), a register, a config field by name; or change a setting ('show' lists them: GDB's print pretty, print demangle, print asm-demangle, print elements, print repeats, listsize, confirm, logging, substitute-path, directories, scheduler-locking (off: every core runs on continue, and while the current core waits during a step; on: only the current core ever runs; step: only it runs for steps); tdbg's history-memory (the bytes reverse-stepi may keep: N, NK, NM, NG; default 64M) and dst-provenance (record window stores for 'info dst-writer')).  A GDB setting tdbg does not have is refused with a line saying so.", example="set {uint32_t}0xFFBD8000 = 0x3f800000", host_files=settings.touches_host_files)
def set_cmd(interp: Interpreter, args: str) -> None:
    text = args.strip()
    word, _, rest = text.partition(" ")
    if word == "cfg":
        set_cfg(interp, rest)
        return
    if word in ("var", "variable"):
        text = rest
    elif settings.apply(interp, text):
        return
    if not text:
        raise CommandError("Argument required (expression to compute).")
    evaluate(interp, text)


def parse_size(text: str) -> int:
    """``65536``, ``64K``, ``64M``, ``1G`` -> bytes."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit():
        raise CommandError(f'Invalid size "{text}"; use a number of bytes, or N with K, M or G.')
    return int(digits) * scale


def _display_list(interp: Interpreter) -> dict[int, Display]:
    return interp.state.displays


def _frame_scope(interp: Interpreter) -> tuple[str, str | None, str | None] | None:
    """(core, function, inlined callee) of the selected frame; None without one."""
    s = interp.session
    try:
        frame = s.expression_context().frames.selected()
    except (SessionError, IndexError, KeyError):
        return None
    return s.current, frame.function, frame.block.name if frame.block is not None else None


def _in_scope(interp: Interpreter, display: Display) -> bool:
    """GDB shows a display that names a local only in the block it was made in."""
    return display.scope is None or display.scope == _frame_scope(interp)


def show_displays(interp: Interpreter, stop: object = None) -> None:
    if stop is not None and (interp.session.status is not RunStatus.STOPPED or interp.state.silent_stop):
        return  # the program exited, or a breakpoint's commands begin with silent: GDB shows none
    for n, d in sorted(_display_list(interp).items()):
        if not _in_scope(interp, d):
            continue
        fmt, text = d.fmt, d.text
        try:
            if fmt == "i" or (fmt and fmt[0].isdigit()) or (fmt and fmt.endswith("i")):
                interp.out(f"{n}: x/{fmt} {text}")
                interp.execute(f"x/{fmt} {text}")
                continue
            shown, _ = show(interp, text, fmt)  # type: ignore[misc]
            interp.out(f"{n}: {'/' + fmt + ' ' if fmt else ''}{text} = {shown}")
        except (CommandError, SessionError) as exc:  # e.g. a core without symbols: this display only
            interp.out(f"{n}: {text} = <error: {exc}>")


@command("display", usage="display[/FMT] EXPR", help="Print EXPR now and at every stop (FMT with i or a count shows memory like x).  As in GDB, an expression that does not parse or names no symbol here is refused and no display is made; one that parses but cannot be read now (memory not accessible) is kept and shows <error: ...>; one that names a local is shown only in the function (or inlined call) it was made in.", example="display/i $pc")
def display_cmd(interp: Interpreter, args: str) -> None:
    displays = _display_list(interp)
    if not args.strip():
        show_displays(interp)
        return
    m = re.match(r"^/(\S+)\s+(.*)$", args.strip())
    fmt, text = (m.group(1), m.group(2)) if m else (None, args.strip())
    try:
        names = expr.resolve(text, interp.session.expression_context())
    except ExprError as exc:
        raise CommandError(str(exc)) from None
    interp.state.last_display += 1
    n = interp.state.last_display
    displays[n] = Display(fmt, text, _frame_scope(interp) if _names_a_local(interp, names) else None)
    hooks = interp.state.stop_hooks
    if show_displays not in hooks:  # type: ignore[operator]
        hooks.append(show_displays)  # type: ignore[union-attr]
    saved = dict(displays)
    interp.state.displays = {n: displays[n]}
    try:
        show_displays(interp)
    finally:
        interp.state.displays = saved


def _names_a_local(interp: Interpreter, names: set[str]) -> bool:
    info = interp.session.debug
    if info is None or not names:
        return False
    try:
        frame = interp.session.expression_context().frames.selected()
        return any(v.name in names for v in info.locals_at(frame, interp.session.expression_context().frames.caller(frame)))
    except (SessionError, IndexError, KeyError):
        return False


@command("undisplay", usage="undisplay [N|A-B ...]", help="Stop displaying expressions N (all when none given; A-B is a range).  A number no display has is reported and the others are still removed, as GDB does.", example="undisplay 1")
def undisplay_cmd(interp: Interpreter, args: str) -> None:
    displays = _display_list(interp)
    if not args.strip():
        displays.clear()
        return
    spans = []
    for word in args.split():
        lo, dash, hi = word.partition("-")
        if not (lo.isdigit() and (hi.isdigit() if dash else True)) or int(lo) > int(hi or lo):
            raise CommandError(f"Arguments must be display numbers: \"{word}\".")
        spans.append((int(lo), int(hi or lo)))
    for lo, hi in spans:
        expect = lo
        for n in [n for n in sorted(displays) if lo <= n <= hi] + [hi + 1]:
            if n > expect:
                interp.out(f"No display number {expect}." if n - 1 == expect else f"No display numbers {expect}-{n - 1}.")
            if n <= hi:
                del displays[n]
            expect = n + 1


@info_command("display", usage="info display", help="List the expressions displayed at each stop.", example="info display")
def info_display(interp: Interpreter, args: str) -> None:
    displays = _display_list(interp)
    if not displays:
        interp.out("There are no auto-display expressions now.")
        return
    interp.out("Auto-display expressions now in effect:\nNum Enb Expression")
    for n, d in sorted(displays.items()):
        where = "" if _in_scope(interp, d) else " (cannot be evaluated in the current context)"
        interp.out(f"{n}:   y  {'/' + d.fmt + ' ' if d.fmt else ''}{d.text}{where}")


def _type_of(interp: Interpreter, text: str) -> tuple[CType, bool]:
    """(the type, whether ``text`` named it as a type) of ``whatis``/``ptype``'s argument: a
    type name (``uint32_t``, ``struct pt``, ``char *``) or an expression."""
    ctx = interp.session.expression_context()
    try:
        return expr.parse_type(text, ctx.lookup_type), True
    except ExprError as exc:
        if text.split()[:1] in (["struct"], ["union"], ["enum"]):
            raise CommandError(str(exc)) from None
    try:
        return expr.evaluate(text, ctx, side_effects=False).ctype, False
    except ExprError as exc:
        raise CommandError(str(exc)) from None


@command("whatis", usage="whatis EXPR | whatis TYPE", help="The type of an expression, as declared (typedef names and const/volatile kept); of a type name, the type it is a typedef of (one level).", example="whatis results")
def whatis_cmd(interp: Interpreter, args: str) -> None:
    t, named = _type_of(interp, args.strip())
    if named and t.typedef_of is not None:
        t = t.typedef_of
    interp.out(f"type = {type_name(t)}")


@command("ptype", usage="ptype EXPR | ptype TYPE", help="The type of an expression or a type name with every typedef resolved and struct or union members spelled out (ptype struct TAG works too).", example="ptype struct node")
def ptype_cmd(interp: Interpreter, args: str) -> None:
    t, _ = _type_of(interp, args.strip())
    interp.out(f"type = {ptype_text(t)}")


# -- tdbg's own settings --------------------------------------------------------------------------

def _set_locking(interp: Interpreter, mode: str) -> None:
    mode = mode.strip()
    if mode not in interp.session.LOCKING:
        raise CommandError(f'Undefined item: "{mode}".' if mode else "Requires an argument. Valid arguments are off, on, step.")
    interp.session.scheduler_locking = mode


def _show_history(interp: Interpreter) -> str:
    h = interp.session.history
    return f"{len(h)} steps recorded for reverse-stepi in {h.bytes} bytes; the budget is {h.budget} bytes."


def _set_history(interp: Interpreter, text: str) -> None:
    interp.session.history.budget = parse_size(text.strip())


def _set_provenance(interp: Interpreter, text: str) -> None:
    if text.strip() not in ("on", "off"):
        raise CommandError("Usage: set dst-provenance on|off")
    interp.session.observe_window(writers=text.strip() == "on")


settings.setting("scheduler-locking", help="Which cores run: off (all, on continue and while the current core waits during a step), on (only the current core), step (only it, for steps).",
                 show=lambda interp: f'Mode for locking scheduler during execution is "{interp.session.scheduler_locking}".',
                 set=_set_locking)
settings.setting("history-memory", help="The bytes reverse-stepi may keep (N, NK, NM, NG; default 64M).", show=_show_history, set=_set_history)
settings.setting("dst-provenance", help="Record each window store's writer for 'info dst-writer' (on/off).",
                 show=lambda interp: f"Recording of Dst-window store writers is {settings.on_off(interp.session.recording_window_writers)}.",
                 set=_set_provenance)
