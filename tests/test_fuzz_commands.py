"""Command-line fuzzing (issue 15): random sequences mixing breakpoints, watchpoints (memory and
Dst rows), threads, ``delete``/``enable``/``disable`` with number lists, conditions, ignore
counts, displays, stepping and running, checkpoints, file commands on weird files, ``x``,
``pack`` and ``printf`` with extreme numbers, on the demo firmware and on the three-core
pipeline.

Each example asserts: no exception escapes ``Session.execute``, no "internal error" in any
output, bounded time (``fuzzing.bounded``), and afterwards the session is whole: ``info
breakpoints`` lists exactly the numbers and Enb flags a model of GDB's rules predicts (numbers
never reused; no argument means all; a temporary breakpoint goes when it stops the program; a
watchpoint on a local goes when its frame ends; a temporary breakpoint that shares a stop with
the one reported may go too, as GDB deletes every temporary breakpoint a stop hits), ``info display`` lists the displays the model
predicts, ``p 1 + 2`` answers ``= 3`` and the registers read."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session
from tdbg.commands import execute
from examples import EXAMPLES

FW = firmware_dir()


# -- weird files -----------------------------------------------------------------------------------

def _weird_files(root: Path) -> list[str]:
    """Files a user could name by mistake (issue 15 item 16's kinds), plus good ones."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "empty.npy").write_bytes(b"")
    np.savez(root / "z.npz", a=np.zeros((2, 16)))
    os.replace(root / "z.npz", root / "npz.npy")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 16), }"
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    (root / "huge.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    (root / "wide.csv").write_text(",".join(["1"] * 100_000) + "\n")
    (root / "latin1.csv").write_bytes(b"1,\xe9\n")
    np.save(root / "obj.npy", np.array([[1, None]], dtype=object), allow_pickle=True)
    np.save(root / "cube.npy", np.zeros((2, 2, 16)))
    np.save(root / "str.npy", np.array([["a"] * 16]))
    np.save(root / "good.npy", np.arange(64, dtype=np.uint16).reshape(4, 16))
    (root / "good.csv").write_text("\n".join(",".join(str(i) for i in range(16)) for _ in range(3)) + "\n")
    (root / "dir.npy").mkdir(exist_ok=True)
    if not (root / "fifo.npy").exists():
        os.mkfifo(root / "fifo.npy")
    (root / "script.gdb").write_text("p 1\necho hi\\n\n")
    names = ["empty.npy", "npz.npy", "huge.npy", "wide.csv", "latin1.csv", "obj.npy", "cube.npy", "str.npy",
             "good.npy", "good.csv", "dir.npy", "fifo.npy", "script.gdb", "missing.npy"]
    return [str(root / n) for n in names] + ["~nosuchuser/x.npy", "/dev/full"]


# -- the model -------------------------------------------------------------------------------------

@dataclass
class Model:
    """What GDB's rules say the breakpoint table and the displays hold."""

    enabled: dict[int, bool] = field(default_factory=dict)
    temporary: set[int] = field(default_factory=set)
    issued: int = 0                                   # the highest number seen so far
    displays: set[int] = field(default_factory=set)
    last_display: int = 0
    stopped_at_breakpoint: bool = False              # a temporary one sharing the stop may be gone

    def created(self, number: int, temporary: bool = False) -> None:
        assert number > self.issued, f"number {number} reused (last issued {self.issued})"
        self.issued = number
        self.enabled[number] = True
        if temporary:
            self.temporary.add(number)

    def numbers(self, args: str) -> list[int] | None:
        """The existing numbers a GDB number list names (None: the list is bad)."""
        if not args.strip():
            return sorted(self.enabled)
        out = []
        for part in args.split():
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
            if not m:
                return None
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if lo == 0 or hi < lo or hi > 2**31 - 1:
                return None
            out += [n for n in sorted(self.enabled) if lo <= n <= hi and n not in out]
        return out


def _listed(s: Session) -> dict[int, bool]:
    table = {}
    for line in execute(s, "info breakpoints", check=False).splitlines():
        m = re.match(r"(\d+)\s+(?:breakpoint|hw watchpoint|read watchpoint|acc watchpoint)\s+(?:keep|del)\s+([yn])\b", line)
        if m:
            table[int(m.group(1))] = m.group(2) == "y"
    return table


def _displayed(s: Session) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^(\d+):\s+[yn]\s", execute(s, "info display", check=False), re.M)}


# -- commands --------------------------------------------------------------------------------------

BIG = st.sampled_from([0, 1, 2, 3, 7, 15, 16, 511, 512, 1023, 1024, 4096, 2**31 - 1, 2**31, 2**32, 10**12, -1])
NUMBER = st.one_of(st.integers(0, 12), BIG)


def _number_list() -> st.SearchStrategy[str]:
    one = st.one_of(NUMBER.map(str), st.tuples(NUMBER, NUMBER).map(lambda t: f"{t[0]}-{t[1]}"),
                    st.sampled_from(["x", "1.1", "--", "-3", ""]))
    return st.lists(one, max_size=3).map(" ".join)


def _commands(files: list[str], cores: int, local: str, global_: str, functions: list[str]) -> st.SearchStrategy[str]:
    where = st.one_of(st.sampled_from(functions), st.sampled_from(["*0x6000", "*0x7", "*$pc", "nosuch", "*0x100000", "999999"]),
                      st.sampled_from(functions).map(lambda f: f"{f} thread {1 + cores - 1}"),
                      st.sampled_from(functions).map(lambda f: f"{f} if $pc != 0"))
    thread = st.integers(0, cores + 2)
    file = st.sampled_from(files)
    fmt = st.sampled_from(["x", "d", "u", "t", "f", "c", "a", "i", "s", "z"])
    unit = st.sampled_from(["b", "h", "w", "g"])
    return st.one_of(
        where.map(lambda w: f"break {w}"), where.map(lambda w: f"tbreak {w}"),
        st.sampled_from([f"watch {global_}", f"rwatch {global_}", f"awatch {global_}", f"watch {local}",
                         "watch *(int*)0x6000", "watch *(char*)0xFFBD8000", "watch nosuch", "rwatch dst[3]"]),
        NUMBER.map(lambda r: f"watch dst[{r}]"), NUMBER.map(lambda r: f"awatch dst[{r}]"),
        thread.map(lambda n: f"thread {n}"),
        _number_list().map(lambda a: f"delete {a}"), _number_list().map(lambda a: f"disable {a}"),
        _number_list().map(lambda a: f"enable {a}"),
        st.tuples(NUMBER, st.sampled_from(["", "$pc != 0", "1 ==", "nosuch"])).map(lambda t: f"condition {t[0]} {t[1]}"),
        st.tuples(NUMBER, NUMBER).map(lambda t: f"ignore {t[0]} {t[1]}"),
        st.sampled_from(["display $pc", f"display {global_}", "display/x $sp", "display/i $pc", "display nosuch",
                         "display dst32[0][0]"]),
        st.one_of(_number_list(), st.just("")).map(lambda a: f"undisplay {a}"),
        st.sampled_from(["stepi", "stepi 3", "nexti", "next", "step", "finish", "continue", "run", "start", "kill",
                         "continue 2", "reverse-stepi", "until", "advance main"]),
        st.sampled_from(["checkpoint", "info checkpoints", "restart", "restart 1", "restart 99", "delete checkpoint 1"]),
        st.tuples(st.sampled_from(["restore dst {}", "restore dst {} 5 --view bf16", "dst diff {}", "dst diff {} --raw",
                                   "dump dst 0-3 {}", "restore {} binary 0x100000", "source {}",
                                   "dump binary memory {} 0x6000 0x6010"]), file).map(lambda t: t[0].format(t[1])),
        st.tuples(NUMBER, fmt, unit).map(lambda t: f"x/{t[0] % 5000}{t[1]}{t[2]} $pc"),
        st.tuples(BIG, st.sampled_from(["h dst[0]", "w dst[3]", "h dstbits[0]", "w srca[0][0]", "h dst[1023]"])).map(
            lambda t: f"x/{t[0]}{t[1]}"),
        st.tuples(NUMBER, NUMBER, st.sampled_from(["bfp2", "bf16", "fp32", "int8", "bfp8a"])).map(
            lambda t: f"pack {t[0]}-{t[1]} to {t[2]}"),
        st.tuples(BIG, BIG, st.sampled_from(["d", "x", "f", "s", "c", "u"])).map(
            lambda t: f'printf "%{t[0]}.{t[1]}{t[2]}\\n", {t[0]}' if t[2] != "s" else f'printf "%{t[0]}s\\n", "a"'),
        st.sampled_from(["info breakpoints", "info display", "info threads", "bt", "info registers pc", "dst stats",
                         "trace dst on", "trace dst off", "trace dst", "show history-memory"]),
    )


# -- the sessions ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[str]:
    return _weird_files(tmp_path_factory.mktemp("weird"))


DEMO = dict(cores=1, local="rows", global_="results[2]", functions=["main", "fill_row", "demo.c:30"])
PIPELINE = dict(cores=3, local="i", global_="results[0]", functions=["main"])


def _session(kind: str) -> Session:
    if kind == "demo":
        return Session(FW / "demo.c")
    return Session({f"T{i}": EXAMPLES / f"pipeline_t{i}.c" for i in range(3)})


_SESSIONS: dict[str, Session] = {}


def _fresh(kind: str) -> tuple[Session, Model]:
    """One session per kind, emptied before each example: the model starts from its numbers."""
    s = _SESSIONS.get(kind) or _SESSIONS.setdefault(kind, _session(kind))
    s.clear_interrupt()
    for line in ("delete", "undisplay", "trace dst off", "thread 1", "kill"):
        execute(s, line, check=False)
    for n in list(s.checkpoints):
        s.delete_checkpoint(n)
    assert _listed(s) == {} and _displayed(s) == set()
    model = Model(issued=s.points.issued, last_display=s.shell.state.last_display)
    return s, model


def _apply(model: Model, line: str, out: str) -> None:
    """What ``line`` did to the breakpoint table and the displays, by GDB's rules."""
    word, _, args = line.partition(" ")
    word = word.split("/")[0]
    failed = out.strip() and out.strip().splitlines()[-1].startswith(("Bad breakpoint", "Negative breakpoint", "Inverted breakpoint",
                                                                      "Convenience variable", "Arguments must be"))
    created = re.search(r"^(?:Temporary breakpoint|Breakpoint|Hardware (?:read |access \(read/write\) )?watchpoint) (\d+)(?::| at)", out, re.M)
    if created and word in ("break", "tbreak", "watch", "rwatch", "awatch", "start"):   # start: a tbreak at main
        model.created(int(created.group(1)), temporary=word in ("tbreak", "start"))
    elif word in ("delete", "disable", "enable") and not args.startswith("checkpoint"):
        numbers = model.numbers(args)
        assert (numbers is None) == bool(failed), (line, out)
        for n in numbers or []:
            if word == "delete":
                model.enabled.pop(n, None)
                model.temporary.discard(n)
            else:
                model.enabled[n] = word == "enable"
    elif word == "display" and args and not out.startswith(("No symbol", "A syntax error")):
        model.last_display += 1                       # shown now if it can be read, kept either way
        assert not out or out.startswith(f"{model.last_display}: "), (line, out)
        model.displays.add(model.last_display)
    elif word == "undisplay":
        if not args.strip():
            model.displays.clear()
        elif not out.startswith("Arguments must be"):
            for part in args.split():
                lo, _, hi = part.partition("-")
                model.displays -= set(range(int(lo), int(hi or lo) + 1)) if int(hi or lo) - int(lo) < 10**6 else \
                    {n for n in model.displays if int(lo) <= n <= int(hi or lo)}
    # a run: temporary breakpoints that stopped it, watchpoints whose frame ended
    for m in re.finditer(r"(?:^|hit )Temporary breakpoint (\d+), ", out, re.M):
        model.enabled.pop(int(m.group(1)), None)
    if re.search(r"(?:^|hit )(?:Temporary b|B)reakpoint \d+, ", out, re.M):
        model.stopped_at_breakpoint = True
    for m in re.finditer(r"^Watchpoint (\d+) deleted because the program has left the block", out, re.M):
        model.enabled.pop(int(m.group(1)), None)


def _check(kind: str, lines: list[str], files: list[str]) -> None:
    s, model = _fresh(kind)
    with bounded(120):
        for line in lines:
            out = execute(s, line, check=False)          # must not raise
            assert "internal error" not in out and "Traceback" not in out, (line, out)
            _apply(model, line, out)
        s.clear_interrupt()
        listed = _listed(s)
        if model.stopped_at_breakpoint:   # GDB deletes every temporary breakpoint the stop hit, not only the one it names
            for n in model.temporary - listed.keys():
                model.enabled.pop(n, None)
        assert listed == model.enabled, (lines, execute(s, "info breakpoints", check=False))
        assert _displayed(s) == model.displays, (lines, execute(s, "info display", check=False))
        assert execute(s, "p 1 + 2", check=False).endswith("= 3\n")
        assert re.match(r"pc\s+0x[0-9a-f]+", execute(s, "info registers pc", check=False))


def _sequences(kind: str) -> st.SearchStrategy[list[str]]:
    options = DEMO if kind == "demo" else PIPELINE
    return st.lists(_commands(FILES, **options), min_size=1, max_size=25)


FILES: list[str] = []


@pytest.fixture(autouse=True)
def _files(files: list[str]) -> None:
    FILES[:] = files


@fuzz_settings(short=150, long=2000)
@given(data=st.data())
def test_command_sequences_keep_the_demo_session_whole(data) -> None:
    _check("demo", data.draw(_sequences("demo")), FILES)


@fuzz_settings(short=60, long=800)
@given(data=st.data())
def test_command_sequences_keep_a_three_core_session_whole(data) -> None:
    _check("pipeline", data.draw(_sequences("pipeline")), FILES)
