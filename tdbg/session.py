"""The public Python API of tdbg: load firmware, run it, stop it, look at the tile.

``Session`` composes the engine's services (``tdbg.debug``), each over one ``Target`` (the
selected tile and core), and forwards their methods, so each is declared once, in its
service.  The shell (``tdbg.commands``: ``execute(session, line)``), the GDB stub, the CLI and
the simulator server are front ends over it.  Example::

    s = Session("kernel.c")               # a .c file is built with the bundled toolchain
    s.break_at("main")
    stop = s.cont()
    s.read_u32(s.symbol("results").addr)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.arch import chips
from tdbg.arch import profile_for
from tdbg.arch.profile import Profile
from tdbg.debug.breakpoints import Breakpoint, Location
from tdbg.debug.cores import Cores
from tdbg.debug.expressions import Expressions
from tdbg.debug.facade import forward
from tdbg.debug.frames import Backtrace
from tdbg.debug.hostport import HostPort
from tdbg.debug.locations import Locations
from tdbg.debug.memory import MAX_TRANSFER, Memory, SetupWrite
from tdbg.debug.noc import NocAccess
from tdbg.debug.points import Points
from tdbg.debug.programs import Programs, load_program
from tdbg.symbols.symbol_file import SymbolFile
from tdbg.debug.rewind import Rewind
from tdbg.debug.run_control import Host, RunControl, RunStatus
from tdbg.debug.target import Target
from tdbg.debug.tensix_access import TensixAccess
from tdbg.emu.states import Disposition
from tdbg.errors import SessionError
from tdbg.riscv.registers import NUMBERS as REGISTERS
from tdbg.toolchain.zig import demo_source

if TYPE_CHECKING:
    from tdbg.debug.expr_context import SessionContext
    from tdbg.emu.tile import Policy, Tile

__all__ = ["Breakpoint", "Disposition", "Host", "Location", "MAX_TRANSFER", "Policy", "REGISTERS", "RunStatus",
           "Session", "SessionError", "SetupWrite", "SymbolFile", "load_program"]

ProgramFiles = Mapping[str, "str | Path | None"]   # core name -> ELF or C file


def __getattr__(name: str) -> object:
    """``Policy``, the tile's, imported (with the model) when first asked for."""
    if name == "Policy":
        from tdbg.emu.tile import Policy

        return Policy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _tile(profile: Profile) -> Tile:
    """A new tile of ``profile`` (the model is imported with it)."""
    from tdbg.emu.tile import Tile

    return Tile(profile)


def _context(session: Session) -> SessionContext:
    """The session's expression context (the bridge to ``tdbg.expr``)."""
    from tdbg.debug.expr_context import SessionContext

    return SessionContext(session.target, session.code, session.memory, session.tensix_access, session.backtrace)


class Session:
    """One debugging session over one tile (or a chip's grid, one tile selected): its cores,
    their firmware and debug information, the run model (the tile's, with GDB's
    ``scheduler-locking``), memory and registers as the current core sees them, breakpoints,
    watchpoints and checkpoints, the coprocessor.  Every name below the constructor is a
    service's (``forward``): ``target``, ``run``, ``memory``, ``code`` (programs), ``locations``,
    ``expressions``, ``backtrace``, ``breaks``, ``rewind``, ``tensix_access``, ``cores``,
    ``noc``."""

    LOCKING = RunControl.LOCKING

    def __init__(self, program: str | Path | ProgramFiles | None = None, profile: Profile | None = None) -> None:
        profile = profile or profile_for()
        programs = program if isinstance(program, Mapping) else {"T0": demo_source() if program is None else program}
        given = program is not None and bool(programs)   # loaded now: a file that cannot be is an error here
        self.target = target = Target(lambda: _tile(profile), None if given else lambda: self._load(programs))
        self.memory = Memory(target)
        self.code = Programs(target)
        self.tensix_access = TensixAccess(target)
        self.backtrace = Backtrace(target, self.code, self.memory)
        self.expressions = Expressions(target, lambda: _context(self))
        self.locations = Locations(target, self.code, self.expressions)
        self.run = RunControl(target, self.memory, self.expressions)
        self.run.host_session = self
        self.rewind = Rewind(target, self.run, self.tensix_access)
        self.breaks = Points(target, self.locations, self.backtrace)
        self.cores = Cores(target)
        self.noc = NocAccess(target)
        self.shell: object | None = None   # the shell a front end attached (``tdbg.commands.execute``)
        self.host_port: HostPort | None = None
        if given:
            self._load(programs)

    def _load(self, programs: ProgramFiles) -> None:
        """Load each core's firmware and reset the tile (the demo, and no firmware at all, when
        the tile is first used)."""
        for name, path in programs.items():
            if path is not None:
                self.load(name, path, reset=False)
        self.current = next(iter(self.tile.programs), "T0")
        self.tile.reset()

    @classmethod
    def on_chip(cls, chip: str, profile: Profile | None = None) -> Session:
        """A session over chip ``chip``'s grid (``tdbg.arch.chips``: "1x2", "full"), as the
        simulator server presents it to a host; its first worker selected, every core held."""
        profile = profile or profile_for()
        from tdbg.emu.grid import Grid

        try:
            layout = chips.chip(chip, profile)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        session = cls({}, profile)
        session.grid = Grid(profile, layout)
        session.host_port = HostPort(session.target, session.code, session.run, session.grid)
        session.select_tile(layout.workers[0])
        return session

    def restart(self, checkpoint: int | None = None) -> None:
        """Back to the loaded state with the set-up written again (``setup``; unless
        ``replay_setup`` is off), or to checkpoint N; breakpoints and watchpoints stay."""
        if checkpoint is None:
            self.run.restart()
        else:
            self.rewind.restore(checkpoint)



forward(Session, "target", Target, """
    tile current started grid view points checkpoints history stop_listeners load_warnings warning_listeners
    tile_coord select_tile on_tile pc tensix_thread last_stop select_core on_core thread_id core_by_thread
    register registers set_register warn announce when_built""")
forward(Session, "code", Programs, """
    programs debug_infos symbol_files print_settings source_path load add_symbol_file remove_symbol_files
    symbols_from describe_pc debug_info_at image debug symbol symbolize""")
forward(Session, "memory", Memory, """
    setup replay_setup written_after_exit set_alignment_check read_memory read_u32 read_value write_value
    write_memory l1_values load_code""")
forward(Session, "run", RunControl, """
    scheduler_locking watch_after host status start_over starti cont stepi nexti run_until
    landed_on_breakpoint interrupt interrupted clear_interrupt check_interrupt run_breakable""")
forward(Session, "rewind", Rewind, """
    checkpoint checkpoint_budget checkpoint_memory checkpoint_pc delete_checkpoint checkpoint_dst reverse_stepi""")
forward(Session, "expressions", Expressions, "expression_context evaluate condition_true address_of")
forward(Session, "locations", Locations, "resolve locate symbol_names location_names")
forward(Session, "backtrace", Backtrace, "stack_ranges frames")
forward(Session, "breaks", Points, "break_at watch watch_dst_row delete enable breakpoints watchpoints last_hits")
forward(Session, "cores", Cores, """
    profile core_names core_state core_status wait has_firmware core_label tiles name_memory explain_waits
    pushes describe_word policy set_policy take_warnings exit_codes finish_summary disassembler""")
forward(Session, "noc", NocAccess, "noc_status noc_endpoint name_noc read_noc write_noc noc_l1_writer stream_writer")
forward(Session, "tensix_access", TensixAccess, """
    dst set_dst src write_dst_element set_dst_bits write_src_element dst_contents view_in_force
    dst_view_in_force math_dst vector_unit write_lreg_lane coprocessor_state state_changes cfg set_cfg
    cfg_fields cfg_names unpacker_status packer_status tensix l1_accesses l1_writer dst_writer
    observe_window window_trace clear_window_trace recording_window_writers""")
