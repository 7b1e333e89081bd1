"""The selected tile as front ends see it: its cores and their states, what a blocked core waits
for and why a hang holds (``tdbg.debug.hang``), the event policy, the pushed instructions, and
a disassembler for the current core's code.  Read these; change the tile through the services."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from tdbg.arch.profile import Coord, Profile
from tdbg.debug.target import Target
from tdbg.emu.states import CoreState
from tdbg.emu.stops import Stop
from tdbg.tensix.events import Category

if TYPE_CHECKING:
    from tdbg.debug.hang import WaitReport
    from tdbg.emu.devices.device import Wait
    from tdbg.emu.pushlog import PushLog
    from tdbg.emu.tile import Policy
    from tdbg.riscv.disasm import Disassembler


class Cores:
    """What the selected tile's cores are doing, and how its events are handled."""

    def __init__(self, target: Target) -> None:
        self.t = target

    @property
    def profile(self) -> Profile:
        return self.t.tile.profile

    @property
    def core_names(self) -> list[str]:
        """Every core, in thread order."""
        return list(self.t.tile.cores)

    def core_state(self, name: str) -> str:
        """A core's state in words: running, blocked and on what, parked, exited, held in
        reset, no firmware."""
        core = self.t.tile.cores[name]
        if core.state is CoreState.BLOCKED and core.wait is not None:
            return f"blocked: {core.wait.reason}"
        return core.state.value

    def core_status(self, name: str) -> str:
        """A core's state in a word or two, for a list of threads: ``stopped`` for a core that
        would run (all-stop: nothing runs while a front end asks), else blocked, parked, exited,
        held in reset, no firmware (``core_state`` says on what a blocked core waits)."""
        state = self.t.tile.cores[name].state
        return "stopped" if state is CoreState.RUNNABLE else state.value

    def wait(self, name: str) -> Wait | None:
        """What core ``name`` waits for while blocked (None when it is not): the reason, and for
        a core polling memory or a device the addresses it reads and its loop's instructions."""
        core = self.t.tile.core_named(name)
        return core.wait if core.state is CoreState.BLOCKED else None

    def has_firmware(self, name: str) -> bool:
        """The core has code to run: loaded firmware, or (a chip's tile) it has been released."""
        tile = self.t.tile
        if tile.hosted:
            return tile.core_named(name).state is not CoreState.IDLE
        return name in tile.programs

    def core_label(self, name: str) -> str:
        """A core as the user names it: ``X,Y:NAME`` on a chip (tt-exalens' ``-l X,Y``), else NAME."""
        where = self.t.tile_coord
        return name if where is None else f"{where[0]},{where[1]}:{name}"

    def tiles(self) -> list[tuple[Coord, str]]:
        """A chip's Tensix tiles and what each is: modelled (with its cores' states) or dormant."""
        grid = self.t.grid
        if grid is None:
            return []
        out = []
        for where in grid.chip.workers:
            tile = grid.tiles.get(where)
            out.append((where, "dormant (no core released)" if tile is None else
                        ", ".join(f"{n} {c.state.value}" for n, c in tile.cores.items())))
        return out

    def name_memory(self, namer: Callable[[int], str | None]) -> None:
        """Let ``namer`` name addresses where waits and hang reports name memory (a host knows
        what it put where, e.g. tt-metal's mailbox fields); ELF symbols name the rest."""
        self.t.tile.namers.append(namer)

    def explain_waits(self, stop: Stop) -> list[WaitReport]:
        """For each core a hang stop (``DEADLOCK``, or ``BLOCKED`` under scheduler-locking)
        names: what holds it and what would release it (``tdbg.debug.hang``), searching the
        firmware and the code of the symbol files added beside it (a host's kernels)."""
        from tdbg.debug.hang import explain

        kernels = {core: [f.image for f in files] for core, files in self.t.view.symbol_files.items()}
        return explain(self.t.tile, stop.waits, kernels)

    @property
    def pushes(self) -> PushLog:
        """The pushed Tensix instructions (the newest ones kept, every one counted)."""
        return self.t.tile.pushes

    def describe_word(self, word: int) -> str:
        """A pushed word as text, or its hex if no encoding matches."""
        return self.t.tile.describe_word(word)

    @property
    def policy(self) -> Mapping[Category, Policy]:
        """What each event category does (``handle``): stop, warn or ignore (read-only: change
        it with ``set_policy``)."""
        return MappingProxyType(self.t.tile.policy)

    def set_policy(self, category: Category, policy: Policy) -> None:
        """What an event of ``category`` does from now on (GDB's ``handle``)."""
        self.t.tile.policy[category] = policy

    def take_warnings(self) -> list:
        """The events a ``warn`` policy let pass since the last call."""
        tile = self.t.tile
        warnings, tile.warnings = list(tile.warnings), []
        return warnings

    @property
    def exit_codes(self) -> dict[str, int]:
        return self.t.tile.exit_codes

    def finish_summary(self) -> str:
        """How each core with firmware ended (``T0 parked at ...``)."""
        return self.t.tile.describe_finish(list(self.t.tile.programs))

    def disassembler(self) -> Disassembler:
        """A fresh disassembler for the current core's code: ``.ttinsn`` words by the profile's
        encodings, RISC-V as GDB decodes it for the architecture its ELF names."""
        from tdbg.riscv.disasm import Disassembler   # capstone: loaded when first needed
        from tdbg.riscv.extensions import arch_extensions
        from tdbg.tensix.isa import isa_of

        image = self.t.tile.image(self.t.current)
        return Disassembler(isa_of(self.profile), arch_extensions(image.arch if image else None))
