"""Where a core is (``CoreState``) and what a breakpoint does after it stops the program
(``Disposition``): the run model's names, importable without the emulator (``tdbg.emu.core``)."""

from __future__ import annotations

from enum import Enum


class CoreState(str, Enum):
    """Where a core is, as ``info threads`` shows it."""

    IDLE = "no firmware"        # nothing loaded: the core never runs
    RESET = "held in reset"     # its SOFT_RESET_0 bit is set
    RUNNABLE = "running"        # runs when the tile runs
    BLOCKED = "blocked"         # waiting (``Core.wait`` says on what)
    PARKED = "parked"           # spinning on ``j .``: finished firmware
    EXITED = "exited"           # reached the end of tdbg's crt0 (``_tdbg_exit``)


class Disposition(str, Enum):
    """What a breakpoint or watchpoint does after it stops the program: GDB's ``Disp`` column
    (GDB manual, "Disabling Breakpoints": ``enable once``/``count`` disable it after its hits,
    ``enable delete`` and ``tbreak`` delete it)."""

    KEEP = "keep"
    DISABLE = "dis"
    DELETE = "del"
