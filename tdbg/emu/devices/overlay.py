"""The NoC overlay's stream registers that tt-metal uses, as memory-mapped registers
(``NOC_OVERLAY_START_ADDR``: stream ``s`` at ``s * stride``, register ``i`` at ``4 * i``).

tt-metal's circular buffers count pages in ``STREAM_REMOTE_DEST_BUF_SIZE`` (pages received) and
``STREAM_REMOTE_DEST_BUF_START`` (pages acknowledged) of the CB's stream (``stream_io_map.h``);
writing ``..._SIZE`` also sets ``..._SPACE_AVAILABLE``, and ``..._SPACE_AVAILABLE_UPDATE`` adds its
bits 22:6 to it (noc_overlay_parameters.h ``REMOTE_DEST_BUF_WORDS_FREE_INC``), as ttsim v1.10.0
keeps them (tile.cpp:1812-1853).  Each keeps its width (17 bits: ``MEM_WORD_ADDR_WIDTH``).  Any
other stream register (the overlay's own data movement) is ``UnimplementedFunctionality``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.arch.profile import OverlaySpec
from tdbg.emu.devices.device import Registers32
from tdbg.tensix.state_description import StateDescription, obj
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality, UnsupportedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.core import Core

_PAGE = "NoC/Overlay/README.md"


class Overlay(Registers32):
    """The stream registers of one tile."""

    pollable = True

    def __init__(self, overlay: OverlaySpec, spec: DeviceSpec) -> None:
        super().__init__(spec)
        self.streams = overlay
        self._names = {index: (name, bits) for name, (index, bits) in overlay.registers.items()}
        self._decoded: dict[int, tuple[int, str, int]] = {}   # offset -> ``register``'s answer
        self.values: dict[tuple[int, str], int]
        self.writers: dict[tuple[int, str], tuple[str, int]]   # the core and pc of each's last store
        self._issuer: tuple[str, int] = ("", 0)
        Overlay.STATE.reset(self)

    STATE = StateDescription("overlay", (obj("values", reset=lambda o: {}, copy=dict),
                                         obj("writers", reset=lambda o: {}, copy=dict)))

    def issued(self, core: Core) -> None:
        self._issuer = (core.name, core.pc)

    def register(self, offset: int) -> tuple[int, str, int]:
        """(stream, register name, bits) at ``offset`` (each offset decoded once: a circular
        buffer's wait reads one at every poll, 1 566 loads a 64-tile ttnn.add, measured)."""
        found = self._decoded.get(offset)
        if found is None:
            found = self._decoded[offset] = self._decode(offset)
        return found

    def _decode(self, offset: int) -> tuple[int, str, int]:
        stream, within = divmod(offset, self.streams.stride)
        if stream >= self.streams.streams or within & 3:
            raise UndefinedBehavior(f"{_PAGE}: overlay offset {offset:#x} is no stream register")
        found = self._names.get(within >> 2)
        if found is None:
            raise UnimplementedFunctionality(f"{_PAGE}: stream {stream} register {within >> 2} is not modelled by tdbg "
                                             "(only the ones tt-metal's circular buffers use)")
        return stream, found[0], found[1]

    def describe(self, offset: int) -> str:
        try:
            stream, name, _ = self.register(offset)
        except Exception:   # noqa: BLE001 - a name for a message only
            return f"overlay offset {offset:#x}"
        return f"stream {stream} {name}"

    def read(self, offset: int) -> int:
        stream, name, _ = self.register(offset)
        if name.endswith("_UPDATE"):
            raise UndefinedBehavior(f"{_PAGE}: {name} is written, not read")
        return self.values.get((stream, name), 0)

    def write(self, offset: int, value: int) -> None:
        """A store of ``value``; the core and pc that made it are kept for reports (``writers``)."""
        stream, name, bits = self.register(offset)
        self.writers[(stream, name)] = self._issuer
        if name == "STREAM_REMOTE_DEST_BUF_SPACE_AVAILABLE":
            raise UndefinedBehavior(f"{_PAGE}: {name} is read-only")
        if name.endswith("_UPDATE"):
            if value & 0x3F:
                raise UnsupportedFunctionality(f"ttsim v1.10.0 (tile.cpp:1846): {name} with destination number "
                                               f"{value & 0x3F} (multicast streams) is not modelled")
            key = (stream, "STREAM_REMOTE_DEST_BUF_SPACE_AVAILABLE")
            self.values[key] = (self.values.get(key, 0) + (value >> 6)) & 0x1FFFF
            return
        self.values[(stream, name)] = value & ((1 << bits) - 1)
        if name == "STREAM_REMOTE_DEST_BUF_SIZE":
            self.values[(stream, "STREAM_REMOTE_DEST_BUF_SPACE_AVAILABLE")] = value & 0x1FFFF
