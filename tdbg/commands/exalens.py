"""tt-exalens' command names a tt-exalens user may type out of habit, with what does the same in
tdbg: an unknown or ambiguous command that is one of them gets the tdbg command in the same line
as GDB's error (``r`` and ``d`` keep GDB's meanings, run and delete; ``tensix`` and ``bt`` are
tdbg's and GDB's).  Names: tt-exalens' command-line application (its commands' long and short
names)."""

from __future__ import annotations

#: exalens name -> (its long name, what to type in tdbg)
SPELLINGS: dict[str, tuple[str, str]] = {}


def _spelling(names: tuple[str, ...], long_name: str, tdbg: str) -> None:
    for name in names:
        SPELLINGS[name] = (long_name, tdbg)


_spelling(("brxy", "burst-read-xy"), "burst-read-xy",
          "x/Nwx ADDR reads this tile's memory as the current core sees it (DRAM transfers: info noc)")
_spelling(("wxy", "write-xy"), "write-xy", "set {uint32_t}ADDR = VALUE")
_spelling(("read",), "read (its r; tdbg's r is GDB's run)", "x/Nwx ADDR")
_spelling(("write", "w"), "write", "set {uint32_t}ADDR = VALUE")
_spelling(("gpr", "dump-gpr"), "dump-gpr", "info registers (another core's: thread N first, or info threads)")
_spelling(("dr", "dump-regfile"), "dump-regfile", "x/16h dst[ROW], dst tile N, x/16w srca[BANK][ROW], x/16w srcb[BANK][ROW]")
_spelling(("rv", "riscv"), "riscv", "stepi, continue, break *ADDR, watch *(int*)ADDR, info registers, thread N")
_spelling(("reg", "tensix-reg"), "tensix-reg", "info cfg NAME, set cfg NAME = VALUE")
_spelling(("dump-tensix-state",), "dump-tensix-state", "info tensix")
_spelling(("go",), "go", "thread N selects a core (T0, T1, T2, B, NC)")
_spelling(("nc", "noc"), "noc", "info noc")
_spelling(("re", "run-elf"), "run-elf", "file CORE ELF, then run")
_spelling(("device",), "device (its d; tdbg's d is GDB's delete)", "info threads")
_spelling(("callstack",), "callstack", "bt")
_spelling(("dbus", "debug-bus"), "debug-bus", "none: tdbg has no debug bus (info registers, info tensix, info threads)")
_spelling(("gdb",), "gdb start", "start tdbg with --gdb-port N (or --rsp-stdio)")


def with_exalens_hint(word: str, error: str) -> str:
    """GDB's ``error`` about the command ``word``, with the tdbg command when ``word`` is
    tt-exalens'."""
    if word not in SPELLINGS:
        return error
    long_name, tdbg = SPELLINGS[word]
    return f"{error}  (tt-exalens' {long_name}; in tdbg: {tdbg}.)"
