"""Memory as the current core sees it: reads as the debugger sees them, writes as the core's
stores would make them (plain memory as is, device addresses through the device model), and
the host's set-up (memory written before the program started, written again after a restart)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.debug.target import Target
from tdbg.errors import SessionError
from tdbg.tensix.events import TensixEvent

if TYPE_CHECKING:
    import numpy as np

    from tdbg.emu.core import Core

#: The most bytes one read or write of memory moves (L1 is 1.5 MiB; a bigger request is a mistake
#: that would allocate the whole size first).
MAX_TRANSFER = 16 << 20


def check_range(address: int, size: int) -> None:
    """``[address, address + size)`` must lie in the 32-bit address space and be at most
    ``MAX_TRANSFER`` bytes: checked before any work starts."""
    if size > MAX_TRANSFER:
        raise SessionError(f"Cannot access {size} bytes at once (at most {MAX_TRANSFER >> 20} MiB).")
    if address < 0 or size < 0 or address + size > 1 << 32:
        raise SessionError(f"Cannot access memory at address {address:#x}: outside the 32-bit address space.")


@dataclass(frozen=True)
class SetupWrite:
    """Memory written while the program was not started (a ``restore``, ``set var``, a GDB
    client's ``M`` packet): the host's set-up, written again after each restart."""

    core: str
    address: int
    data: bytes


class Memory:
    """Reads and writes of the selected tile's memory, on the current core."""

    def __init__(self, target: Target) -> None:
        self.t = target
        self.setup: list[SetupWrite] = []   # memory written while the program was not started
        self.replay_setup = True            # restart (run, kill) writes the set-up again
        self.written_after_exit = False     # memory written since every core finished (run drops it)
        self._replaying = False

    def set_alignment_check(self, on: bool) -> None:
        """Catch misaligned L1 / local-RAM loads and stores (``NonContractualBehavior``: stop, or
        round down as silicon does).  Off by default: Unicorn then completes such an access byte
        by byte, and only device accesses are caught; on, each plain-memory access costs a
        Python call."""
        self.t.tile.set_alignment_check(on)

    def read_memory(self, address: int, size: int) -> bytes:
        """Bytes as the debugger sees them (devices read element by element as ``load``); at
        most ``MAX_TRANSFER`` at once."""
        from tdbg.emu.tile import Unreadable

        check_range(address, size)
        try:
            return self.t.tile.read(self.t.core, address, size)
        except Unreadable as exc:
            raise SessionError(str(exc)) from None

    def read_u32(self, address: int) -> int:
        return int.from_bytes(self.read_memory(address, 4), "little")

    def read_value(self, address: int, size: int) -> int:
        """What a ``size``-byte load by the current core at ``address`` returns."""
        from tdbg.emu.devices.device import Stall

        region = self.t.core.region_at(address)
        if region is None:
            return int.from_bytes(self.read_memory(address, size), "little")
        try:
            return region.load(address - region.base, size)
        except (TensixEvent, Stall) as exc:
            raise SessionError(f"Cannot access memory at address {address:#x}: {exc}") from None

    def write_value(self, address: int, size: int, value: int) -> None:
        """Store as the current core's ``sb``/``sh``/``sw`` at ``address`` would."""
        self.write_memory(address, (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))

    def write_memory(self, address: int, data: bytes) -> None:
        """Write bytes as the current core's stores would: plain memory (L1, local RAM) as is,
        device addresses through the device model, a naturally aligned element at a time."""
        check_range(address, len(data))
        core = self.t.core
        self._store(core, address, data)
        if not self.t.started and not self._replaying and self.t.tile.programs:
            end = address + len(data)   # a memory write that covers an earlier one replaces it; a device
            if not any(r.base < end and address < r.base + r.size for r in core.regions):   # write acts,
                self.setup = [w for w in self.setup if not (w.core == core.name and address <= w.address  # so each
                                                             and w.address + len(w.data) <= end)]         # is kept
            self.setup.append(SetupWrite(core.name, address, bytes(data)))
        if self.t.started and self.t.tile.finished():
            self.written_after_exit = True

    def replay(self) -> None:
        """Write the set-up again (after a restart), unless ``replay_setup`` is off."""
        if not self.replay_setup:
            return
        self._replaying = True
        try:
            for write in self.setup:
                with self.t.on_core(write.core):
                    self.write_memory(write.address, write.data)
        finally:
            self._replaying = False

    def _store(self, core: Core, address: int, data: bytes) -> None:
        """``write_memory``'s stores (the set-up keeps only writes that completed)."""
        from tdbg.emu.devices.device import Stall

        tile = self.t.tile
        pos = 0
        while pos < len(data):
            at = address + pos
            region = core.region_at(at)
            if region is None:
                n = len(data) - pos
                for r in core.regions:  # plain memory up to the next device
                    if at < r.base < at + n:
                        n = r.base - at
                if at + n <= tile.profile.l1_size:
                    tile.write(at, bytes(data[pos:pos + n]))
                else:
                    try:
                        if tile.trampolines.overlaps(at, n):
                            raise ValueError("unmapped")
                        core.reach(at, n)
                        core.uc.mem_write(at, bytes(data[pos:pos + n]))
                    except Exception:
                        raise SessionError(f"Cannot access memory at address {at:#x}") from None
            else:
                left = len(data) - pos
                n = next(w for w in (4, 2, 1) if at % w == 0 and left >= w)
                try:
                    region.store(at - region.base, n, int.from_bytes(data[pos:pos + n], "little"))
                except (TensixEvent, Stall) as exc:
                    raise SessionError(f"Cannot write memory at address {at:#x}: {exc}") from None
            pos += n

    def l1_values(self, address: int, count: int, fmt: str) -> np.ndarray:
        """``count`` datums of L1 data format ``fmt`` at ``address`` (BFP: the exponent section
        first), decoded (``tdbg.tensix.l1_data``)."""
        from tdbg.tensix import l1_data

        try:
            size = l1_data.size(fmt, count)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        return l1_data.values(self.read_memory(address, size), fmt, count)

    def load_code(self, address: int, data: bytes) -> None:
        """A host writes code into L1 (a kernel its firmware jumps to): the bytes, known as
        code as a loaded ELF's text is (a ``.ttinsn``, CSR or Zba/Zbb word runs as the core
        would run it), until the tile is next reset."""
        check_range(address, len(data))
        if address + len(data) > self.t.tile.profile.l1_size:
            raise SessionError(f"Cannot load code at {address:#x}: {len(data)} bytes do not fit L1.")
        self.t.tile.load_code(address, bytes(data))
