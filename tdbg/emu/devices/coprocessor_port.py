"""The tile's devices as a Tensix instruction reaches them (``Coprocessor.mmio``, for
``LOADREG``, ``STOREREG`` and ``PACR_SETREG``), and as a NoC request to this tile's MMIO does."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import TENSIX, RegionKind
from tdbg.emu.devices.device import Device, Stall
from tdbg.emu.devices.slow_path import SlowPath
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.tile import Tile


class CoprocessorPort:
    """What BlackholeA0 ``BabyRISCV/README.md``'s memory map makes "available to the NoC (and to
    the Tensix coprocessor)": the profile's map for the viewer ``TENSIX``, i.e. the devices of
    that column and the local RAMs' slow-access windows.  A device access goes through the
    device as the thread's T core would make it, so it has the same effect; every device the
    coprocessor reaches is shared by the cores.  Another address is "Unmapped" for the
    coprocessor: ``UndefinedBehavior`` (the TDMA-RISC registers, the MOP expander config and the
    Dst window among them).  A device access that would wait (``Stall``) raises
    ``UnimplementedFunctionality``: none of the reachable ones does."""

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        profile = tile.profile
        self._core = {spec.thread: spec.name for spec in profile.cores if spec.thread is not None}
        journal = lambda: tile.coprocessor.l1_journal  # noqa: E731 - read at each store
        self._slow = {r.base: SlowPath(r, tile.cores[r.owner].local_ram, journal)  # type: ignore[index]
                      for r in profile.map.regions(TENSIX) if r.kind is RegionKind.SLOW_PATH}

    def load(self, thread: int, address: int) -> int:
        target, offset = self._target(address)
        core = self.tile.cores[self._core[thread]]
        return self._device(lambda: target.load(core, offset, 4))

    def store(self, thread: int, address: int, value: int) -> None:
        target, offset = self._target(address)
        core = self.tile.cores[self._core[thread]]
        self._device(lambda: target.store(core, offset, 4, value))

    def _target(self, address: int) -> tuple[Device | SlowPath, int]:
        """The device (or slow path) at ``address`` and the offset in it."""
        region = self.tile.profile.map.region_at(TENSIX, address)
        if region is not None and region.kind is RegionKind.SLOW_PATH:
            return self._slow[region.base], address - region.base
        if region is None or region.kind is not RegionKind.DEVICE:
            device = self.tile.profile.device_at(address)
            what = f" ({device.name})" if device is not None else ""
            raise UndefinedBehavior(f"BabyRISCV/README.md memory map: {address:#010x}{what} is not made available "
                                    "to the Tensix coprocessor")
        return self.tile.devices[region.name], address - region.base

    @staticmethod
    def _device(access: Callable[[], int | None]) -> int:
        try:
            return access()  # type: ignore[return-value]
        except Stall as stall:
            raise UnimplementedFunctionality(f"a Tensix access that waits ({stall}) is not modelled by tdbg") from None
