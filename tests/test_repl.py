"""The interactive shell in a real pseudo-terminal (pexpect driving ``python -m tdbg``):
prompt, breakpoints, Tab completion, Ctrl-C during a run that never stops, persistent
history, Enter repeating ``stepi``, Ctrl-C / Ctrl-D at the prompt, ``define`` blocks.
Plus the completer and the lexers without a terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from pygments.token import Keyword, Name, Number, String

from tdbg.cli.completion import TdbgCompleter
from tdbg.cli.lexer import TdbgLexer, highlight_asm
from tdbg.cli.repl import open_history
from tdbg.commands import Interpreter
from tdbg.session import Session

try:
    import pexpect
except ImportError:  # the terminal tests skip; the others still run
    pexpect = None

FOREVER = Path(__file__).parent / "firmware" / "forever.c"
# A fresh prompt: prompt_toolkit draws the message, then moves the cursor past it (the trailing
# space is a cursor movement).  The accepted line is drawn again as "(tdbg) LINE" (or
# "(tdbg)" + a cursor-left for an empty line) before its output, so "(tdbg)" alone would also
# match that redraw.
PROMPT = r"\(tdbg\)\x1b\[\d+D\x1b\[\d+C"
BLOCK_PROMPT = r">(?:\x08|\x1b\[\d+D)\x1b\[\d*C"
MAIN = r"(?:0x[0-9a-f]+ in )?main \(\)"  # with or without line information
TIMEOUT = 20
UP = "\x1b[A"


class Tdbg:
    """One ``python -m tdbg`` in a pty."""

    def __init__(self, history: Path, *args: str) -> None:
        if pexpect is None:
            pytest.skip("pexpect is not installed (pip install -e .[dev]): no pseudo-terminal tests")
        env = {**os.environ, "TDBG_HISTORY": str(history), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
        try:
            self.child = pexpect.spawn(
                sys.executable, ["-m", "tdbg", "-q", *args], env=env, encoding="utf-8",
                timeout=TIMEOUT, dimensions=(40, 160),
            )
        except (OSError, pexpect.ExceptionPexpect) as exc:
            pytest.skip(f"cannot spawn tdbg in a pseudo-terminal: {exc}")
        self.expect(PROMPT, timeout=60)  # a .c program is built first (cached afterwards)

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        self.child.expect(pattern, timeout=timeout)
        return self.child.match

    def run(self, line: str, *expected: str) -> list[re.Match[str]]:
        """Type ``line`` + Enter; wait for each of ``expected`` in turn, then the next prompt."""
        self.child.send(line + "\r")
        return self.wait(*expected)

    def wait(self, *expected: str) -> list[re.Match[str]]:
        """Wait for each of ``expected`` in turn, then the next prompt."""
        matches = [self.expect(pattern) for pattern in expected]
        self.expect(PROMPT)
        return matches

    def quit(self) -> int:
        self.child.send("quit\r")
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return tmp_path / "history" / "tdbg_history"  # the directory does not exist yet


@pytest.fixture
def tdbg(history: Path) -> Iterator[Tdbg]:
    shell = Tdbg(history)
    yield shell
    shell.child.close(force=True)


# -- in a pseudo-terminal ------------------------------------------------------------------------
def test_prompt_break_run_and_quit(tdbg: Tdbg) -> None:
    tdbg.run("break main", r"Breakpoint 1 at 0x[0-9a-f]+")
    tdbg.run("run", r"Breakpoint 1, " + MAIN)
    tdbg.run("info registers pc", r"pc\s+0x[0-9a-f]+\s+0x[0-9a-f]+ <main(?:\+\d+)?>")
    assert tdbg.quit() == 0


def test_tab_completes_a_command(tdbg: Tdbg) -> None:
    tdbg.child.send("disas\t")
    tdbg.expect("disassemble")
    tdbg.run("", "Dump of assembler code for function _start:", "End of assembler dump.")


def test_tab_completes_a_symbol(tdbg: Tdbg) -> None:
    tdbg.child.send("break fill_\t")
    tdbg.expect("fill_row")
    tdbg.run("", r"Breakpoint 1 at 0x[0-9a-f]+")
    tdbg.run("run", r"Breakpoint 1, (?:0x[0-9a-f]+ in )?fill_row \(")


def test_tab_lists_candidates_like_readline(tdbg: Tdbg) -> None:
    tdbg.child.send("info re\t\t")  # the first Tab adds the common prefix, the second lists
    tdbg.expect("registers")
    tdbg.child.send("\x15")  # Ctrl-U: drop the line
    tdbg.run("echo ok\\n", r"ok\r\n")


def test_tab_offers_subcommands_then_files_and_locals(tdbg: Tdbg) -> None:
    """``tt-metal <TAB>`` lists its subcommands (before: 459 symbols); ``break dem<TAB>`` is
    demo.c's FILE: (GDB completes source files in a linespec); in fill_row's frame
    ``p va<TAB>`` is its local ``value`` (demo.c)."""
    tdbg.child.send("tt-metal \t\t")
    tdbg.expect("boot")
    tdbg.expect("program")
    tdbg.child.send("\x15")
    tdbg.run("echo ok\\n", r"ok\r\n")
    tdbg.child.send("break dem\t")
    tdbg.expect("demo.c:")
    tdbg.child.send("27\r")
    tdbg.wait(r"Breakpoint 1 at 0x[0-9a-f]+: file .*demo.c, line 27\.")
    tdbg.run("run", r"Breakpoint 1, fill_row \(")
    tdbg.child.send("p va\t")
    tdbg.expect("value")
    tdbg.child.send("\r")
    tdbg.wait(r"\$1 = 0")


PAGER = r"--Type <RET> for more, q to quit, c to continue without paging--"


def test_long_output_pages_as_gdb(tdbg: Tdbg) -> None:
    """A terminal of 40 rows: 'info cfg' (every config field: hundreds of lines) stops after 39
    with GDB's prompt; Enter shows one more page, q ends the command with "Quit", c shows the
    rest; 'set pagination off' and 'set height 0' never page (before: no pager at all)."""
    tdbg.run("show height", r"Number of lines gdb thinks are in a page is 40\.")
    tdbg.child.send("info cfg\r")
    tdbg.expect(PAGER)
    assert tdbg.child.before.count("\n") >= 38     # a page: the terminal's rows less the prompt's
    tdbg.child.send("\r")
    tdbg.expect(PAGER)
    tdbg.child.send("q\r")
    tdbg.wait(r"\r\nQuit\r\n")
    tdbg.child.send("info cfg\r")
    tdbg.expect(PAGER)
    tdbg.child.send("c\r")
    tdbg.wait(r"THCON_\w+")   # the last fields come with no prompt
    for setting in ("set pagination off", "set height 0"):
        tdbg.run(setting)
        tdbg.child.send("info cfg\r")
        assert tdbg.child.expect([PAGER, PROMPT]) == 1
        tdbg.run("set pagination on")
        tdbg.run("set height 40")


def test_exalens_spellings_name_the_tdbg_command(tdbg: Tdbg) -> None:
    """tt-exalens' brxy, gpr, dr, rv and wxy say in one line what tdbg's command is (before: only
    "Undefined command"); its r and d keep GDB's meanings (run, delete)."""
    tdbg.run("brxy 0,0 0x0 16", r'Undefined command: "brxy"\.  Try "help"\.  \(tt-exalens\' burst-read-xy; in tdbg: x/Nwx ADDR ')
    tdbg.run("gpr", r"\(tt-exalens' dump-gpr; in tdbg: info registers ")
    tdbg.run("dr 2", r"\(tt-exalens' dump-regfile; in tdbg: x/16h dst\[ROW\]")
    tdbg.run("rv halt", r"\(tt-exalens' riscv; in tdbg: stepi, continue, ")
    tdbg.run("wxy 0,0 0x0 0x1234", r"\(tt-exalens' write-xy; in tdbg: set \{uint32_t\}ADDR = VALUE\.\)")
    tdbg.run("break main", "Breakpoint 1 at")
    tdbg.run("r", r"Breakpoint 1, " + MAIN)              # GDB's run
    tdbg.run("d")                                         # GDB's delete
    tdbg.run("info breakpoints", "No breakpoints or watchpoints.")


def test_enter_repeats_stepi(tdbg: Tdbg) -> None:
    tdbg.run("break main", "Breakpoint 1 at")
    tdbg.run("run", "Breakpoint 1, ")
    tdbg.run("stepi")
    tdbg.run("")
    tdbg.run("")
    (repeated,) = tdbg.run("info registers pc", r"pc\s+(0x[0-9a-f]+)")
    tdbg.child.send("run\r")                              # GDB asks at a terminal
    tdbg.expect(r"Start it from the beginning\? \(y or n\)")
    tdbg.run("y", "Breakpoint 1, ")
    tdbg.run("stepi 3")
    (explicit,) = tdbg.run("info registers pc", r"pc\s+(0x[0-9a-f]+)")
    assert repeated.group(1) == explicit.group(1)


def test_ctrl_c_interrupts_a_run_that_never_stops(history: Path) -> None:
    shell = Tdbg(history, str(FOREVER))
    try:
        counts = []
        for command in ("run", "continue"):
            shell.child.send(command + "\r")
            time.sleep(0.3)  # let it run; it never stops by itself
            shell.child.sendintr()
            shell.wait("Program received signal SIGINT, Interrupt.", MAIN)
            (m,) = shell.run("x/wx &counter", r"<counter>:\s+(0x[0-9a-f]+)")
            counts.append(int(m.group(1), 16))
        assert 0 < counts[0] < counts[1]  # it ran, stopped, and resumed where it was
        shell.run("info registers pc", r"<main\+\d+>")
        assert shell.quit() == 0
    finally:
        shell.child.close(force=True)


def test_history_persists_across_runs(history: Path) -> None:
    first = Tdbg(history)
    first.run("echo from-the-first-run\\n", r"from-the-first-run\r\n")
    assert first.quit() == 0
    assert "from-the-first-run" in history.read_text()
    second = Tdbg(history)
    try:
        second.child.send(UP + UP)  # the first run's last line was "quit"
        second.expect(r"from-the-first-run\\n")  # the recalled line, as typed
        second.run("", r"from-the-first-run\r\n")
    finally:
        second.child.close(force=True)


def test_unwritable_history_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    shell = Tdbg(blocker / "history")  # its "directory" is a file
    try:
        shell.run("echo still-works\\n", r"still-works\r\n")
        shell.child.send(UP)
        shell.expect(r"still-works\\n")
    finally:
        shell.child.close(force=True)


def test_ctrl_c_and_ctrl_d_at_the_prompt(tdbg: Tdbg) -> None:
    tdbg.child.send("echo never")
    tdbg.child.sendintr()
    tdbg.expect(PROMPT)  # the line is dropped
    tdbg.run("echo next\\n", r"next\r\n")
    tdbg.child.sendeof()
    tdbg.expect("quit")
    tdbg.child.expect(pexpect.EOF)
    tdbg.child.close()
    assert tdbg.child.exitstatus == 0


def test_define_reads_its_block_at_a_gt_prompt(tdbg: Tdbg) -> None:
    tdbg.child.send("define hello\r")
    for line in ("echo hello-from-define\\n", "end"):
        tdbg.expect(BLOCK_PROMPT)
        tdbg.child.send(line + "\r")
    tdbg.expect(PROMPT)
    tdbg.run("hello", r"hello-from-define\r\n")


def test_disassembly_is_coloured_only_on_a_terminal(tdbg: Tdbg) -> None:
    (m,) = tdbg.run("disassemble", r"<\+0>:\t(.*)\r\n")
    assert "\x1b[" in m.group(1)
    batch = subprocess.run(
        [sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "disassemble main"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    assert "Dump of assembler code for function main:" in batch.stdout
    assert "\x1b" not in batch.stdout


# -- without a terminal ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def completer() -> TdbgCompleter:
    return TdbgCompleter(Interpreter(Session()))


def complete(completer: TdbgCompleter, text: str) -> list[str]:
    """The line after accepting each completion of ``text``."""
    event = CompleteEvent(completion_requested=True)
    return [text[: len(text) + c.start_position] + c.text for c in completer.get_completions(Document(text), event)]


def test_completer_commands_info_and_help(completer: TdbgCompleter) -> None:
    assert complete(completer, "disas") == ["disassemble "]
    assert complete(completer, "br") == ["br ", "break "]
    assert complete(completer, "info thr") == ["info threads "]
    assert complete(completer, "help tbr") == ["help tbreak"]


def test_completer_user_commands(completer: TdbgCompleter) -> None:
    lines = iter(["echo hi\\n", "end"])
    completer.interp.read_line = lambda prompt: next(lines, None)
    completer.interp.execute("define showall")
    assert complete(completer, "showa") == ["showall "]
    assert complete(completer, "showall fill_") == ["showall fill_row"]


def test_completer_delegates_to_the_command(completer: TdbgCompleter) -> None:
    assert complete(completer, "break fill_") == ["break fill_row"]
    assert complete(completer, "tensix MOVD2") == ["tensix MOVD2A", "tensix MOVD2B"]
    assert complete(completer, "tensix MOVD2B Src") == ["tensix MOVD2B SrcRow="]
    assert complete(completer, "info registers $t") == [f"info registers $t{i}" for i in range(7)] + ["info registers $tp"]


def test_completer_subcommands_files_and_frame_locals(completer: TdbgCompleter) -> None:
    assert complete(completer, "tt-metal ") == ["tt-metal boot", "tt-metal program"]
    assert complete(completer, "break dem") == ["break demo.c:"] and complete(completer, "tbreak crt") == ["tbreak crt0.S:"]
    assert complete(completer, "p st") == []                     # at _start: no frame with locals
    completer.interp.execute("break fill_row")
    completer.interp.execute("run")
    assert complete(completer, "p st") == ["p start", "p step"]  # fill_row(int row, float start, float step)
    assert complete(completer, "p va") == ["p value"]


def test_completer_breaks_in_a_kernel_before_it_runs() -> None:
    """A tt-metal program's kernels are symbol files until they run: ``break kernel_m<TAB>`` is
    their kernel_main (C++: GDB completes ``kernel_main()``), and their sources complete as FILE:."""
    from tdbg.ttmetal import boot
    from tdbg.ttmetal.boot import TtMetalError
    from tdbg.ttmetal.program import prepare
    from ttmetal_programs import eltwise_add, operations

    ops = operations()
    try:
        fw = boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")
    s = Session({})
    prepare(s, eltwise_add(ops), fw)
    c = TdbgCompleter(Interpreter(s))
    assert complete(c, "break kernel_m") == ["break kernel_main()"]
    assert complete(c, "break eltwise_binary_k") == ["break eltwise_binary_kernel.cpp:"]


def test_completer_defaults(completer: TdbgCompleter) -> None:
    assert complete(completer, "x/4wx $s") == [f"x/4wx $s{i}" for i in (0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9)] + ["x/4wx $sp"]
    assert complete(completer, "x/4wx res") == ["x/4wx results"]
    assert complete(completer, "info cfg CFG_STATE_ID_S") == ["info cfg CFG_STATE_ID_StateID"]
    assert complete(completer, "set cfg CFG_STATE_ID_S") == ["set cfg CFG_STATE_ID_StateID"]


def test_lexer_tokens() -> None:
    tokens = [(t, v) for t, v in TdbgLexer().get_tokens("x/16h dst[3] as bf16") if v.strip()]
    assert tokens[:4] == [(Keyword, "x"), (Keyword.Type, "/16h"), (Name.Builtin, "dst"), (tokens[3][0], "[")]
    tokens = [(t, v) for t, v in TdbgLexer().get_tokens('tensix movd2b DstRow=4 \n printf "%x", $pc') if v.strip()]
    assert (Name.Function, "movd2b") in tokens
    assert (Name.Attribute, "DstRow") in tokens
    assert (Number.Integer, "4") in tokens
    assert (String, '"%x"') in tokens
    assert (Name.Variable, "$pc") in tokens


def test_highlight_asm_keeps_the_text() -> None:
    for text in ("addi\tsp, sp, -0x20", ".ttinsn SETRWC\tFlipSrcB=0 Dst=1", "sw\tra, 0x1c(sp)\n"):
        coloured = highlight_asm(text)
        assert "\x1b[" in coloured
        assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == text


def test_open_history(tmp_path: Path) -> None:
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    assert isinstance(open_history(tmp_path / "a" / "b" / "hist"), FileHistory)
    assert (tmp_path / "a" / "b" / "hist").exists()
    (tmp_path / "f").write_text("")
    assert isinstance(open_history(tmp_path / "f" / "hist"), InMemoryHistory)
