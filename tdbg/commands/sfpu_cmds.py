"""Vector Unit (SFPU) commands: ``info lregs``, ``info sfpu``, and the LReg lanes a single step
changed (printed at every step stop, and by ``tensix``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.commands.examine import format_float, format_int
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import first_fitting, line_width
from tdbg.commands.registry import INIT_HOOKS, CommandError, info_command
from tdbg.commands.values import evaluate_int
from tdbg.debug import StopKind

if TYPE_CHECKING:
    import numpy as np

VIEWS = ("x", "f", "d")
VIEW_NAMES = {"x": "hex", "f": "fp32", "d": "int"}
NAMES = {8: "0.8373", 9: "0", 10: "1.0", 15: "2*lane"}   # LReg.md's read-only constants


def install(interp: Interpreter) -> None:
    """Snapshot the Vector Unit as loaded and at every stop; after a step stop, say which lanes
    changed."""
    hooks = interp.state.stop_hooks
    if _on_stop not in hooks:
        hooks.append(_on_stop)

        def loaded() -> None:
            interp.state.sfpu_stop = interp.session.vector_unit()

        interp.session.when_built(loaded)


INIT_HOOKS.append(install)


def _on_stop(interp: Interpreter, stop: object) -> None:
    now = interp.session.vector_unit()
    before = interp.state.sfpu_stop
    interp.state.sfpu_stop = now
    if before is not None and getattr(stop, "kind", None) is StopKind.STEP:
        for line in interp.session.state_changes(before, now):
            interp.out(line)


def _cell(bits: int, defined: int, view: str) -> str:
    import numpy as np

    from tdbg.tensix.sfpu.vector_unit import FULL

    if defined != FULL:
        return "<undef>" if not defined else f"<{'low' if defined == 1 else 'high'} only>"
    if view == "x":
        return f"{bits:#010x}"
    if view == "f":
        return format_float(float(np.uint32(bits).view(np.float32)))
    return str(int(np.uint32(bits).view(np.int32)))


def _parse_regs(text: str) -> list[int]:
    regs: list[int] = []
    for word in text.replace(",", " ").split():
        lo, _, hi = word.partition("-")
        try:
            first, last = int(lo, 0), int(hi or lo, 0)
        except ValueError:
            raise CommandError(f'Bad LReg "{word}": give numbers 0-16 or ranges like 0-7.') from None
        if not 0 <= first <= last <= 16:
            raise CommandError(f"LReg {word} out of range 0..16")
        regs.extend(range(first, last + 1))
    return regs


@info_command(
    "lregs",
    usage="info lregs [/x|/f|/d] [N|N-M ...]",
    help=(
        "Show LRegs (all 17 by default) as the 4 x 8 grid of their 32 lanes (LReg.md's lane "
        "layout: lane 8*row + column), in hex, FP32 and two's complement int (or one of them: "
        "/x, /f, /d); lines of 4 lanes where 8 do not fit the line (set width).  '*' marks a lane that changed since the last stop; <undef> a lane no "
        "instruction has written (power-on LRegs have no value).  LReg[8], [9], [10], [15] are "
        "the read-only constants; [11]-[14] are written by SFPCONFIG; [16] only by SFPLOADMACRO.  "
        "Also: x/32wf lreg[N] (or lreg[N][LANE]) examines lanes in any x format; in expressions "
        "lreg[N][LANE] is a lane as FP32 and lregbits[N][LANE] its bits (both assignable), $lregN "
        "the whole LReg as float[32] (p $lreg3[5])."
    ),
    example="info lregs /f 0-3",
)
def info_lregs(interp: Interpreter, args: str) -> None:
    import numpy as np

    from tdbg.tensix.sfpu.vector_unit import LANES

    text = args.strip()
    views = list(VIEWS)
    if text.startswith("/"):
        letter, _, text = text[1:].partition(" ")
        if letter not in VIEWS:
            raise CommandError(f'Bad format "/{letter}": use /x, /f or /d.')
        views = [letter]
    regs = _parse_regs(text) if text.strip() else list(range(17))
    vu = interp.session.vector_unit()
    before = interp.state.sfpu_stop
    changed = (before.lreg != vu.lreg) | (before.defined != vu.defined) if before else np.zeros_like(vu.defined, bool)
    for reg in regs:
        label = f"LReg[{reg}]" + (f" (constant {NAMES[reg]})" if reg in NAMES else "")
        if not vu.defined[reg].any() and not changed[reg].any():
            interp.out(label + ": <undef> in all 32 lanes")
            continue
        interp.out(label + ":")
        for view in views:
            cells = [_cell(int(vu.lreg[reg][lane]), int(vu.defined[reg][lane]), view) + ("*" if changed[reg][lane] else " ")
                     for lane in range(LANES)]
            cell = max(len(c) for c in cells)

            def rows(per_line: int) -> list[str]:
                return [f"  {VIEW_NAMES[view] if first == 0 else '':<4} lanes {first:>2}-{first + per_line - 1:<2} "
                        + " ".join(c.rjust(cell) for c in cells[first: first + per_line])
                        for first in range(0, LANES, per_line)]
            # LReg.md's rows of 8 lanes; half rows when they do not fit the line (set width)
            for line in first_fitting(line_width(interp), [lambda: rows(8), lambda: rows(4), lambda: rows(2)]):
                interp.out(line)


def _grid(mask: np.ndarray) -> str:
    """32 lane booleans as four groups of eight, lane 0 first: ``11110000 ...``."""
    bits = "".join("1" if b else "0" for b in mask)
    return " ".join(bits[i: i + 8] for i in range(0, 32, 8))


@info_command(
    "sfpu",
    usage="info sfpu",
    help=(
        "Show the Vector Unit's predication and configuration: which lanes are enabled "
        "(IsLaneEnabled: LaneConfig's ROW_MASK, then LaneFlags where UseLaneFlagsForLaneEnable), "
        "LaneFlags, UseLaneFlagsForLaneEnable and the flag stack (top first) as lanes 0-31 in "
        "groups of eight, LaneConfig, the LoadMacroConfig that SFPCONFIG wrote, and each thread's "
        "Vector Unit stack pointer RWCs.Sp."
    ),
    example="info sfpu",
)
def info_sfpu(interp: Interpreter, args: str) -> None:
    from tdbg.tensix.isa import IsaError, isa_of
    from tdbg.tensix.state_description import ranges

    import numpy as np

    s = interp.session
    vu = s.vector_unit()
    interp.out(f"Enabled lanes:             {_grid(vu.enabled)}")
    interp.out(f"LaneFlags:                 {_grid(vu.lane_flags)}")
    interp.out(f"UseLaneFlagsForLaneEnable: {_grid(vu.use_lane_flags)}")
    depth = vu.stack_size
    if not depth.any():
        interp.out("FlagStack: empty")
    else:
        interp.out(f"FlagStack depth per lane:  {' '.join(''.join(str(int(d)) for d in depth[i: i + 8]) for i in range(0, 32, 8))}")
        for level in range(int(depth.max()) - 1, -1, -1):
            present = depth > level
            flags = np.where(present, vu.stack[level, 0], False)
            use = np.where(present, vu.stack[level, 1], False)
            interp.out(f"  [{level}] LaneFlags {_grid(flags)}  Use {_grid(use)}")
    configs = sorted(set(int(c) for c in vu.lane_config))
    if configs == [0]:
        interp.out("LaneConfig: 0 in every lane")
    else:
        for value in configs:
            lanes = np.flatnonzero(vu.lane_config == value)
            interp.out(f"LaneConfig {value:#07x} in lanes {ranges(lanes)}")
    isa = isa_of(s.profile)
    for i in range(4):
        if vu.macro_defined[i].any():
            word = int(vu.template[i][np.argmax(vu.macro_defined[i])])
            try:
                text = isa.decode(word).text()
            except IsaError:
                text = "(no encoding matches)"
            interp.out(f"LoadMacroConfig.InstructionTemplate[{i}]: {word:#010x}  {text}")
    for i in range(4):
        if vu.macro_defined[4 + i].any():
            interp.out(f"LoadMacroConfig.Sequence[{i}]: {int(vu.sequence[i][np.argmax(vu.macro_defined[4 + i])]):#010x}")
    if vu.macro_defined[8].any():
        interp.out(f"LoadMacroConfig.Misc: {int(vu.misc[np.argmax(vu.macro_defined[8])]):#05x}")
    interp.out("RWCs.Sp: " + ", ".join(f"T{t} {sp}" for t, sp in enumerate(vu.sp)))


# -- x/NFw lreg[N] -------------------------------------------------------------------------------

_LREG = re.compile(r"^lreg\[([^\]]+)\](?:\[([^\]]+)\])?$")


@dataclass(frozen=True)
class LRegLoc:
    """Lane ``lane`` of ``LReg[reg]``, where ``x`` starts (or goes on)."""

    reg: int
    lane: int


def parse_lreg(interp: Interpreter, text: str) -> LRegLoc | None:
    """``lreg[N]`` or ``lreg[N][LANE]`` for ``x``; None for anything else."""
    from tdbg.tensix.sfpu.vector_unit import LANES

    m = _LREG.match(text.replace(" ", ""))
    if not m:
        return None
    reg = evaluate_int(interp, m.group(1))
    lane = evaluate_int(interp, m.group(2)) if m.group(2) else 0
    if not (0 <= reg < 17 and 0 <= lane < LANES):
        raise CommandError("lreg index out of range (LRegs 0..16, lanes 0..31)")
    return LRegLoc(reg, lane)


def examine_lreg(interp: Interpreter, loc: LRegLoc, count: int, fmt: str, size: str) -> LRegLoc:
    """``x/NFw lreg[N]``: ``count`` lanes from ``loc``, four a line, going on into the next LReg;
    a lane no instruction has written shows as ``<undef>``.  Returns where a bare ``x`` goes on."""
    import numpy as np

    from tdbg.tensix.sfpu.vector_unit import FULL, LANES

    if size != "w":
        raise CommandError("LRegs are examined in units of w (32 bits a lane)")
    if fmt in ("i", "s"):
        raise CommandError(f'Format letter "{fmt}" is meaningless for an LReg.')
    vu = interp.session.vector_unit()
    first = loc.reg * LANES + loc.lane
    last = min(first + count, 17 * LANES)
    if first >= last:
        raise CommandError("no LReg lanes past lreg[16][31]")
    bits, defined = vu.lreg.reshape(-1), vu.defined.reshape(-1)

    def cell(i: int) -> str:
        if defined[i] != FULL:
            return "<undef>" if not defined[i] else f"<{'low' if defined[i] == 1 else 'high'} only>"
        if fmt == "f":
            return format_float(float(np.uint32(bits[i]).view(np.float32)))
        return format_int(interp, int(bits[i]), fmt, 4)

    start = first
    while start < last:
        end = min(start + 4, last, (start // LANES + 1) * LANES)   # a line stays in one LReg
        interp.out(f"lreg[{start // LANES}][{start % LANES}]:" + "".join("\t" + cell(i) for i in range(start, end)))
        start = end
    return LRegLoc(last // LANES, last % LANES) if last < 17 * LANES else LRegLoc(16, LANES - 1)
