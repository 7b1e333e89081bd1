"""The public Python API of tdbg: load firmware, run it, stop it, look at the tile.

The shell and the GDB stub are thin layers over ``Session``.  Example::

    s = Session("firmware/dst_fill.c")     # a .c file is built with the bundled toolchain
    s.break_at("main")
    stop = s.cont()
    s.read_u32(s.symbol("results").addr)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tdbg.target.core import Core, Watch
from tdbg.target.elf import ElfImage
from tdbg.target.stops import Stop
from tdbg.target.tile import Tile
from tdbg.target.toolchain import build, demo_source
from tdbg.tensix.profile import BLACKHOLE, Profile


class SessionError(Exception):
    """A request the session cannot carry out; the message is one line for the user."""


@dataclass
class Breakpoint:
    number: int
    address: int
    enabled: bool = True
    temporary: bool = False
    hits: int = 0


def load_program(path: str | Path) -> ElfImage:
    """An ELF, or a C file built with the bundled toolchain first."""
    path = Path(path)
    if path.suffix == ".c":
        path = build(path)
    return ElfImage.load(path)


class Session:
    """One debugging session over one tile."""

    def __init__(self, program: str | Path | None = None, profile: Profile = BLACKHOLE) -> None:
        self.tile = Tile(profile)
        self.current = "T0"
        self.breakpoints: dict[int, Breakpoint] = {}
        self.watchpoints: dict[int, Watch] = {}
        self._next_number = 1
        self.load(demo_source() if program is None else program)

    # -- program -----------------------------------------------------------------------------------
    def load(self, program: str | Path) -> None:
        self.tile.load(load_program(program))

    @property
    def image(self) -> ElfImage:
        assert self.tile.image is not None
        return self.tile.image

    @property
    def core(self) -> Core:
        return self.tile.cores[self.current]

    def restart(self) -> None:
        """Back to the loaded state; breakpoints and watchpoints stay."""
        self.tile.reset()

    # -- run control -------------------------------------------------------------------------------
    def cont(self, limit: int | None = None) -> Stop:
        """Run the current core until it stops (``limit``: at most that many instructions)."""
        stop = self.core.resume(limit)
        return self._after(stop)

    def stepi(self, count: int = 1) -> Stop:
        return self._after(self.core.step(count))

    def interrupt(self) -> None:
        """Stop a running ``cont`` (safe to call from another thread)."""
        self.core.interrupt()

    def _after(self, stop: Stop) -> Stop:
        for bp in self.breakpoints.values():
            if bp.address == stop.pc and stop.kind.value == "breakpoint":
                bp.hits += 1
                if bp.temporary:
                    self.delete(bp.number)
                break
        return stop

    # -- breakpoints and watchpoints ----------------------------------------------------------
    def resolve(self, location: str | int) -> int:
        """An address from a number or a symbol name."""
        if isinstance(location, int):
            return location
        try:
            return int(location, 0)
        except ValueError:
            pass
        try:
            return self.image.symbol(location).addr
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def break_at(self, location: str | int, temporary: bool = False) -> Breakpoint:
        bp = Breakpoint(self._take_number(), self.resolve(location), temporary=temporary)
        self.breakpoints[bp.number] = bp
        self._sync_breakpoints()
        return bp

    def watch(self, address: int, length: int, kind: str = "write") -> Watch:
        if kind not in ("write", "read", "access"):
            raise SessionError(f"watch kind must be write, read or access, not {kind!r}")
        watch = Watch(self._take_number(), address, length, kind)
        self.watchpoints[watch.number] = watch
        self.core.add_watch(watch)
        return watch

    def delete(self, number: int) -> None:
        if number in self.breakpoints:
            del self.breakpoints[number]
            self._sync_breakpoints()
        elif number in self.watchpoints:
            del self.watchpoints[number]
            self.core.remove_watch(number)
        else:
            raise SessionError(f"No breakpoint number {number}.")

    def _take_number(self) -> int:
        number = self._next_number
        self._next_number += 1
        return number

    def _sync_breakpoints(self) -> None:
        self.core.set_breakpoints({bp.address for bp in self.breakpoints.values() if bp.enabled})

    # -- memory as the current core sees it ---------------------------------------------------
    def read_memory(self, address: int, size: int) -> bytes:
        data = self.tile.read(self.core, address, size)
        if data is None:
            raise SessionError(f"Cannot access memory at address {address:#x}")
        return data

    def read_u32(self, address: int) -> int:
        return int.from_bytes(self.read_memory(address, 4), "little")

    def symbol(self, name: str):
        try:
            return self.image.symbol(name)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None
