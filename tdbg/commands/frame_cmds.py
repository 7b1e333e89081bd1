"""Frames as GDB shows them: ``backtrace`` (``bt N``, ``bt -N``, ``bt full``), ``frame``, ``up``,
``down``, ``info frame``, ``info locals``, ``info args``.  Inlined calls are frames; the
backtrace ends at ``main``; the selected frame is what ``info locals``, expressions and
``finish`` use, until the program runs again (``tdbg.debug.frames``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.location import (
    frame_args, frame_debug, frame_header, frame_view, need_debug, show_source_line, source_text, variable_value,
)
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_int
from tdbg.riscv.registers import ABI_NAMES, SP

if TYPE_CHECKING:
    from tdbg.symbols.debuginfo import Frame


def _show_frame(interp: Interpreter, frame: Frame) -> None:
    """``#N  header`` and the source line, as ``frame``, ``up`` and ``down`` print it."""
    interp.out(f"#{frame.level:<2} {frame_header(interp, frame)}")
    if interp.session.debug is not None and frame.file is not None and frame.line is not None:
        interp.out(source_text(interp, frame.file, frame.line))
        show_source_line(interp, frame.file, frame.line)


def _variables(interp: Interpreter, frame: Frame, params: bool, indent: str = "") -> None:
    need_debug(interp)
    info = frame_debug(interp, frame) or need_debug(interp)
    shown = [v for v in info.locals_at(frame, frame_view(interp).caller(frame)) if v.param == params]
    if not shown:
        interp.out("No arguments." if params else "No locals.")
    for v in shown:
        interp.out(f"{indent}{v.name} = {variable_value(interp, frame, v)}")


@command("backtrace", aliases=("bt", "where"), usage="backtrace [full] [N | -N]", help="Show the call stack of the current core, innermost first, down to main; inlined calls are frames of their own.  N: the innermost N frames, -N: the outermost N; full: with each frame's locals.", example="bt full")
def backtrace_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    full = bool(words) and words[0] in ("full", "-full")
    if full:
        words = words[1:]
    frames = frame_view(interp).all()
    shown = frames
    if words:
        n = evaluate_int(interp, " ".join(words))
        shown = frames[:n] if n >= 0 else frames[n:]
    for frame in shown:
        interp.out(f"#{frame.level:<2} {frame_header(interp, frame)}")
        if full:
            _variables(interp, frame, params=False, indent="        ")
    if words and shown and shown[-1] is not frames[-1] and interp.from_tty:
        interp.out("(More stack frames follow...)")


def _select(interp: Interpreter, level: int) -> None:
    try:
        frame = frame_view(interp).select(level)
    except IndexError:
        raise CommandError(f"No frame at level {level}.") from None
    _show_frame(interp, frame)


def _complete_frame(interp: Interpreter, word: str) -> list[str]:
    """``frame`` subcommands, then the functions of the current backtrace (``frame function NAME``)."""
    names = {"function", "level"} | {f.function for f in frame_view(interp).all() if f.function}
    return sorted(n for n in names if n.startswith(word))


@command("frame", aliases=("f",), usage="frame [N | level N | function NAME]", help="Select frame N (0: the innermost; see bt) for expressions, info locals and finish, and show it; 'frame function NAME' selects the innermost frame of function NAME; with no N, show the selected frame.", example="frame function main", complete=_complete_frame)
def frame_cmd(interp: Interpreter, args: str) -> None:
    word, _, rest = args.strip().partition(" ")
    if word == "function":
        _select(interp, _frame_of_function(interp, rest.strip()))
    elif args.strip():
        _select(interp, evaluate_int(interp, rest if word == "level" else args))
    else:
        _show_frame(interp, frame_view(interp).selected())


def _frame_of_function(interp: Interpreter, name: str) -> int:
    """The level of the innermost frame of function ``name`` (GDB's ``frame function``)."""
    if not name:
        raise CommandError("Missing function name argument")
    info = need_debug(interp)
    if info.function_named(name) is None and not any(c.name == name for f in info.functions() for c in info.inlined_calls(f)):
        raise CommandError(f'Function "{name}" not defined.')
    for frame in frame_view(interp).all():
        if frame.function == name:
            return frame.level
    raise CommandError(f'No frame for function "{name}".')


@command("up", usage="up [N]", help="Select the frame N levels further out (its caller; default 1) and show it.", example="up")
def up_cmd(interp: Interpreter, args: str) -> None:
    view = frame_view(interp)
    n = evaluate_int(interp, args) if args.strip() else 1
    frames, level = view.all(), view.selected().level
    if level + n >= len(frames) and n > 0:
        if level == len(frames) - 1:
            raise CommandError("Initial frame selected; you cannot go up.")
        n = len(frames) - 1 - level
    _select(interp, max(level + n, 0))


@command("down", usage="down [N]", help="Select the frame N levels further in (its callee; default 1) and show it.", example="down")
def down_cmd(interp: Interpreter, args: str) -> None:
    view = frame_view(interp)
    n = evaluate_int(interp, args) if args.strip() else 1
    level = view.selected().level
    if level - n < 0 and n > 0:
        if level == 0:
            raise CommandError("Bottom (innermost) frame selected; you cannot go down.")
        n = level
    _select(interp, level - n)


@info_command("frame", aliases=("f",), usage="info frame", help="Describe the selected frame as GDB does: its level and frame address (the CFA), pc, function, caller's pc, the frames around it, where its arguments and locals are, and where it saved its caller's registers.", example="info frame")
def info_frame(interp: Interpreter, args: str) -> None:
    s = interp.session
    view = frame_view(interp)
    frames = view.all()
    f = view.selected()
    every = s.frames()  # the caller's pc even past main
    i = f.level + view.hidden()
    while i < len(every) and every[i].block is not None:  # to the function of f's real frame
        i += 1
    interp.out(f"Stack level {f.level}, frame at {f.cfa:#x}:")
    where = f" ({f.file}:{f.line})" if f.file else ""
    saved = f"{every[i + 1].pc:#x}" if i + 1 < len(every) else "<not saved>"
    interp.out(f" pc = {f.pc:#x} in {f.function or '??'}{where}; saved pc = {saved}")
    around = []
    if f.level + 1 < len(frames):
        around.append(f" inlined into frame {f.level + 1}" if f.block is not None else f" called by frame at {frames[f.level + 1].cfa:#x}")
    if f.level > 0:
        around.append(f" caller of frame at {frames[f.level - 1].cfa:#x}")
    if around:
        interp.out(",".join(around))
    language = s.debug.language_at(f.pc) if s.debug is not None and f.file is not None else None
    interp.out(f" source language {language}." if language else "")
    info = s.debug
    if f.block is not None or info is None:
        interp.out(" Arglist at unknown address.")
        interp.out(" Locals at unknown address, Previous frame's sp in sp")
        return
    args_text = frame_args(interp, f)
    interp.out(f" Arglist at {f.cfa:#x}, args: {args_text}")
    interp.out(f" Locals at {f.cfa:#x}, Previous frame's sp is {f.cfa:#x}")
    saved_regs = info.saved_registers(f)
    if saved_regs:
        names = [f"{ABI_NAMES[r]} at {a:#x}" for r, a in sorted(saved_regs.items()) if r != SP]
        ra = saved_regs.get(1)
        names += [f"pc at {ra:#x}"] if ra is not None else []
        interp.out(" Saved registers:\n  " + ", ".join(names))


@info_command("locals", usage="info locals", help="Local variables of the selected frame and their values.", example="info locals")
def info_locals(interp: Interpreter, args: str) -> None:
    _variables(interp, frame_view(interp).selected(), params=False)


@info_command("args", usage="info args", help="Arguments of the selected frame and their values.", example="info args")
def info_args(interp: Interpreter, args: str) -> None:
    _variables(interp, frame_view(interp).selected(), params=True)
