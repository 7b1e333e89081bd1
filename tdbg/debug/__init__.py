"""The engine: the services ``tdbg.Session`` composes, each over one small ``Target``.

Layer: above ``tdbg.emu`` (the tile) and ``tdbg.symbols`` (DWARF); below every front end (the
shell in ``tdbg.commands``, the CLI, the GDB stub, the simulator server, ``tdbg.ttmetal``),
which import the session and the stop types from here, never the tile's internals.  Nothing
here imports ``tdbg.session`` or a front end.

- ``target``: the selected tile (a ``TileView``: its breakpoints, checkpoints, history, symbols)
  and core, its registers, the stop and warning listeners.
- ``run_control``: continue, steps, runs to internal breakpoints, restart, interrupts.
- ``memory``: reads and writes as the current core's loads and stores, the host's set-up.
- ``programs``: firmware and symbol files, their debug information, symbolizing.
- ``locations``: GDB's locations over every program of a core; completion names.
- ``expressions`` and ``expr_context``: the bridge to ``tdbg.expr``.
- ``tensix_access`` (typed copies in ``snapshots``): Dst, Src, the Vector Unit, config, pushes.
- ``points`` over ``breakpoints``: breakpoints and watchpoints; ``rewind`` over
  ``checkpoints``: checkpoints and reverse steps.
- ``cores``: core states, waits and hang reports (``hang``), event policy, disassembly;
  ``noc``: the NoC from the selected tile; ``hostport``: a host's requests to a chip's grid.
- ``frames`` (backtrace, frame selection), ``stepping`` (source-level steps), ``asserts``
  (tt-llk's ``LLK_ASSERT``), ``hostfiles`` (files named by the user), ``facade`` (delegation).
"""

from tdbg.emu.stops import CoreWait, Stop, StopKind

__all__ = ["CoreWait", "Stop", "StopKind"]
