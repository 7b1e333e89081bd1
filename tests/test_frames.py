"""Frames as GDB shows them: inlined calls (DW_TAG_inlined_subroutine) are frames, ``break main``
names main's own line, ``step`` enters an inlined call and ``next`` steps over it; ``frame``,
``up``, ``down``, ``info frame``, ``bt full``/``N``/``-N``, ``finish`` from a selected frame, and
locals, arguments and registers of the selected frame.

Every expected transcript below is GDB 13's for the same commands on the same ELF (gdb-multiarch
attached to tdbg's stub), with values worked from the sources: INLINE stores scale(7, 3) =
7 * 3 + 1 = 22, plain(22) = 22 ^ 0x5a = 76, scale(76, 3) = 229; FACT computes 5!.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from examples import EXAMPLES
from captured import run, shell

INLINE = """\
/* Inlined helpers, as LLK kernels use them. */
typedef unsigned int uint32_t;

volatile uint32_t out[8];

static inline __attribute__((always_inline)) uint32_t scale(uint32_t v, uint32_t k)
{
    uint32_t r = v * k;                     /* scale body */
    return r + 1;                           /* scale return */
}

static inline __attribute__((always_inline)) void store_pair(int i, uint32_t v)
{
    out[i] = scale(v, 3);                   /* pair first */
    out[i + 1] = v;                         /* pair second */
}

__attribute__((noinline)) uint32_t plain(uint32_t x)
{
    return x ^ 0x5a;                        /* plain body */
}

int main(void)
{
    store_pair(0, 7);                       /* call pair */
    out[2] = plain(out[0]);                 /* call plain */
    store_pair(4, out[2]);                  /* call pair again */
    return 0;                               /* done */
}
"""

FACT = """\
#define KEEP __attribute__((optnone, noinline))

volatile int out;

static KEEP int fact(int n)
{
    int below = 1;
    if (n > 1)
        below = fact(n - 1);        /* recurse */
    return n * below;               /* product */
}

KEEP int main(void)
{
    out = fact(5);                  /* call */
    return 0;
}
"""


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)


def src(source: str, marker: str) -> str:
    """``LINE<tab>TEXT`` of the line holding ``marker``, as a stop prints it."""
    n = line_of(source, marker)
    return f"{n}\t{source.splitlines()[n - 1]}"


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("frames")
    out = {}
    for name, text in (("inl", INLINE), ("fact", FACT)):
        path = folder / f"{name}.c"
        path.write_text(text)
        Session(path)  # build once
        out[name] = path
    return out


def test_break_main_names_mains_own_line(programs: dict[str, Path]) -> None:
    path = programs["inl"]
    sh = shell(path)
    call = line_of(INLINE, "/* call pair */")
    # main's prologue ends on the first instruction of the inlined store_pair(0, 7)
    assert run(sh, "break main").endswith(f": file {path}, line {call}.\n")
    assert run(sh, "run") == f"\nBreakpoint 1, main () at {path}:{call}\n{src(INLINE, '/* call pair */')}\n"
    assert run(sh, "bt") == f"#0  main () at {path}:{call}\n"  # the inline frame is hidden at its entry
    fill = EXAMPLES / "dst_fill.c"
    text = fill.read_text()
    assert run(shell(fill), "break main").endswith(f": file {fill}, line {line_of(text, 'tdbg_set_dst_access(CORE, TDBG_FMT_FP32')}.\n")


def test_step_enters_inlined_calls_and_next_steps_over_them(programs: dict[str, Path]) -> None:
    path = programs["inl"]
    sh = shell(path)
    run(sh, "break main", "run")
    pc = sh[0].session.pc
    # step at a call site whose inlined call starts here: into it, running nothing
    assert run(sh, "step") == f"store_pair (i=0, v=7) at {path}:{line_of(INLINE, '/* pair first */')}\n{src(INLINE, '/* pair first */')}\n"
    assert sh[0].session.pc == pc
    assert run(sh, "bt") == (f"#0  store_pair (i=0, v=7) at {path}:{line_of(INLINE, '/* pair first */')}\n"
                             f"#1  main () at {path}:{line_of(INLINE, '/* call pair */')}\n")
    assert run(sh, "step") == src(INLINE, "/* pair second */") + "\n"
    assert run(sh, "step") == f"main () at {path}:{line_of(INLINE, '/* call plain */')}\n{src(INLINE, '/* call plain */')}\n"
    assert run(sh, "next") == src(INLINE, "/* call pair again */") + "\n"
    assert run(sh, "next") == src(INLINE, "/* done */") + "\n"  # over store_pair(4, 76) and its scale()
    assert sh[0].session.read_u32(sh[0].session.symbol("out").addr + 16) == 229


def test_backtrace_shows_inline_frames(programs: dict[str, Path]) -> None:
    path = programs["inl"]
    sh = shell(path)
    run(sh, f"break {line_of(INLINE, '/* scale return */')}", "run")
    scale = f"scale (v=76, k=3) at {path}:{line_of(INLINE, '/* scale return */')}"
    pair = f"store_pair (i=4, v=76) at {path}:{line_of(INLINE, '/* pair first */')}"
    main = f"main () at {path}:{line_of(INLINE, '/* call pair again */')}"
    assert run(sh, "bt") == f"#0  {scale}\n#1  {pair}\n#2  {main}\n"  # no _start: GDB stops at main
    assert run(sh, "bt full") == f"#0  {scale}\n        r = 228\n#1  {pair}\nNo locals.\n#2  {main}\nNo locals.\n"
    assert run(sh, "bt 1") == f"#0  {scale}\n" and run(sh, "bt -1") == f"#2  {main}\n"
    lines = run(sh, "info frame").splitlines()
    assert lines[0] == "Stack level 0, frame at 0xffb01000:" and lines[2:] == [
        " inlined into frame 1", " source language c.", " Arglist at unknown address.",
        " Locals at unknown address, Previous frame's sp in sp"]
    assert run(sh, "up") == f"#1  {pair}\n{src(INLINE, '/* pair first */')}\n"
    assert run(sh, "info locals", "info args", "p v") == "No locals.\ni = 4\nv = 76\n$1 = 76\n"
    assert run(sh, "info frame").splitlines()[2] == " inlined into frame 2, caller of frame at 0xffb01000"
    # finish out of an inline frame: run until its code is left, to the next statement
    assert run(sh, "finish") == f"main () at {path}:{line_of(INLINE, '/* done */')}\n{src(INLINE, '/* done */')}\n"


def test_selected_frame_up_down_and_finish_from_an_outer_frame(programs: dict[str, Path]) -> None:
    path = programs["fact"]
    sh = shell(path)
    run(sh, "break fact", "run", "c", "c")  # in fact(3), called by fact(4), fact(5), main
    recurse, body, call = (line_of(FACT, m) for m in ("/* recurse */", "int below = 1;", "/* call */"))
    s = sh[0].session
    returns = s.frames()[1].pc  # the return address in fact, then main's
    main_return = s.frames()[3].pc
    assert run(sh, "bt") == (f"#0  fact (n=3) at {path}:{body}\n"
                             f"#1  {returns:#010x} in fact (n=4) at {path}:{recurse}\n"
                             f"#2  {returns:#010x} in fact (n=5) at {path}:{recurse}\n"
                             f"#3  {main_return:#010x} in main () at {path}:{call}\n")
    assert run(sh, "up") == f"#1  {returns:#010x} in fact (n=4) at {path}:{recurse}\n{src(FACT, '/* recurse */')}\n"
    assert run(sh, "p n", "info args") == "$1 = 4\nn = 4\n"
    info = run(sh, "info frame").splitlines()
    cfas = [f.cfa for f in s.frames()]
    assert info[:2] == [f"Stack level 1, frame at {cfas[1]:#x}:",
                        f" pc = {returns:#x} in fact ({path}:{recurse}); saved pc = {returns:#x}"]
    assert info[2:6] == [f" called by frame at {cfas[2]:#x}, caller of frame at {cfas[0]:#x}", " source language c.",
                         f" Arglist at {cfas[1]:#x}, args: n=4", f" Locals at {cfas[1]:#x}, Previous frame's sp is {cfas[1]:#x}"]
    assert info[6] == " Saved registers:" and info[7].startswith(f"  ra at {cfas[1] - 4:#x}, fp at {cfas[1] - 8:#x}")
    assert run(sh, "up 2") == f"#3  {main_return:#010x} in main () at {path}:{call}\n{src(FACT, '/* call */')}\n"
    assert run(sh, "up") == "Initial frame selected; you cannot go up.\n"
    assert run(sh, "finish") == '"finish" not meaningful in the outermost frame.\n'
    assert run(sh, "down 9").startswith("#0  fact (n=3)")
    assert run(sh, "down") == "Bottom (innermost) frame selected; you cannot go down.\n"
    assert run(sh, "frame 7") == "No frame at level 7.\n"
    run(sh, "delete", "frame 1")
    # out of fact(4), as GDB: the caller fact(5) at its call, then 4! = 24 in the value history
    assert run(sh, "finish") == f"fact (n=5) at {path}:{recurse}\n{src(FACT, '/* recurse */')}\nValue returned is $2 = 24\n"
    assert run(sh, "p $", "frame") == f"$3 = 24\n#0  fact (n=5) at {path}:{recurse}\n{src(FACT, '/* recurse */')}\n"


def test_registers_and_locals_follow_the_selected_frame() -> None:
    sh = shell(firmware_dir() / "demo.c")
    run(sh, "break fill_row", "run")
    s = sh[0].session
    inner_sp, outer = s.register("sp"), s.frames()[1]
    run(sh, "up")
    assert run(sh, "p/x $pc", "p/x $sp") == f"$1 = {outer.pc:#x}\n$2 = {outer.sp:#x}\n"
    assert outer.sp > inner_sp
    assert run(sh, "p rows", "info locals") == "$3 = 0\nr = 0\nrows = 0\ntotal = 0\n"
    run(sh, "down")
    assert run(sh, "p/x $sp", "p row") == f"$4 = {inner_sp:#x}\n$5 = 0\n"


def test_the_selection_ends_when_the_core_runs() -> None:
    """A stop at the same pc with the same stack (a loop's breakpoint) is a new stop: GDB
    selects frame 0 again."""
    sh = shell(firmware_dir() / "demo.c")
    run(sh, "break fill_row", "run", "up")
    assert run(sh, "frame").startswith("#1  ")
    run(sh, "continue")
    assert run(sh, "frame").startswith("#0  fill_row (row=1, ")
