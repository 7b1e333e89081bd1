"""What the shell keeps between commands, as one typed object per interpreter (``Interpreter
.state``).  Whether the program runs is not here: that is the session's (``Session.status``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter
    from tdbg.commands.location import SourcePosition
    from tdbg.debug import Stop
    from tdbg.debug.snapshots import DstContents, VectorUnitState

@dataclass
class Display:
    """One ``display``: its format, its text, and the frame scope it was made in when it names
    a local (GDB shows such a display only inside that function or inlined call)."""

    fmt: str | None
    text: str
    scope: tuple[str, str | None, str | None] | None = None   # (core, function, inlined callee)


StopHook = Callable[["Interpreter", "Stop | None"], None]


@dataclass
class ShellState:
    # run control and stop reports
    stop_hooks: list[StopHook] = field(default_factory=list)   # displays, context panel, traces
    output_hooks: list[StopHook] = field(default_factory=list) # what the device printed (DPRINT): before the report
    silent_stop: bool = False          # ``silent`` breakpoint commands: no report, no displays
    resumes: int = 0                   # run-control commands so far (ends a breakpoint's commands)
    bp_pending: list[list[str]] = field(default_factory=list)  # breakpoint commands to run
    bp_running: bool = False
    plain_step: bool = False           # the stop report is for stepi/nexti (GDB's shorter line)
    last_function: tuple | None = None # (function, CFA) of the last stop report
    context_regs: dict[str, int] = field(default_factory=dict)  # for the context panel
    # source and disassembly
    source: SourcePosition | None = None                        # where ``list`` goes on
    missing_sources: set[Path] = field(default_factory=set)     # reported once each
    highlight_asm: Callable[[str], str] | None = None           # the REPL's pygments colouring
    # data
    displays: dict[int, Display] = field(default_factory=dict)
    last_display: int = 0              # display numbers are never reused, as GDB's
    watch_expr: dict[int, str] = field(default_factory=dict)    # watchpoint number -> its text
    dst_stops: list[DstContents | None] = field(default_factory=lambda: [None, None])  # previous, last stop
    sfpu_stop: VectorUnitState | None = None                   # the Vector Unit at the last stop
    remap_shapes: dict[str, object] = field(default_factory=dict)
    # settings of the shell (tdbg.commands.settings)
    confirm: bool = True               # GDB's set confirm (-batch: off)
    terminal: bool = False             # commands come from a terminal (GDB's query asks there)
    listsize: int = 10                 # GDB's set listsize (0: unlimited)
    # the input
    completion_line: str = ""          # the line being completed (for subcommand completers)
    interactive: bool = False
    batch: bool = False
    width: int = 80                    # GDB's ``set width``: characters in a line, 0 unlimited
    height: int = 0                    # GDB's ``set height``: lines in a page, 0 unlimited (tdbg.cli.pager)
    pagination: bool = True            # GDB's ``set pagination`` (-batch: off)
    user_depth: int = 0                # nesting of user-defined commands
    # escapes (tdbg.commands.escapes)
    logging: object | None = None      # set logging: its Logging, once set
    python: dict[str, object] | None = None    # the python command's namespace
