"""The tile's memory-mapped devices: one class per device model, one object per device of the
profile's map (``DeviceSpec.model`` names its class here; a device with no model is
``Unmodelled``).  A new device is a class in this package and a line in ``MODELS``; its address
and who sees it are the profile's (``tdbg.arch``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.arch.memory_map import DeviceSpec
from tdbg.emu.devices.backend_config import BackendConfig
from tdbg.emu.devices.device import Device, Port, Stall, Unmodelled, Wait
from tdbg.emu.devices.dst_window import DstWindowDevice
from tdbg.emu.devices.gprs import Gprs
from tdbg.emu.devices.instruction_push import InstructionPush
from tdbg.emu.devices.mailboxes import Mailboxes
from tdbg.emu.devices.mop_config import MopConfig
from tdbg.emu.devices.niu import Niu
from tdbg.emu.devices.overlay import Overlay
from tdbg.emu.devices.pcbuf import PcBuf
from tdbg.emu.devices.tdma_risc import TdmaRisc
from tdbg.emu.devices.tile_registers import TileRegisters

if TYPE_CHECKING:
    from tdbg.emu.tile import Tile

__all__ = ["MODELS", "Device", "Port", "Stall", "Wait", "build"]

#: Each device model's class, built for one tile.
MODELS: dict[str, Callable[[Tile, DeviceSpec], Device]] = {
    "tile registers": lambda tile, spec: TileRegisters(tile, spec),
    "gprs": lambda tile, spec: Gprs(tile.tensix, spec),
    "mop config": lambda tile, spec: MopConfig(tile.tensix, spec),
    "instruction push": lambda tile, spec: InstructionPush(tile.push_path, spec),
    "pcbuf": lambda tile, spec: PcBuf(tile.coprocessor, tile.push_path, spec),
    "mailboxes": lambda tile, spec: Mailboxes(tile.profile.mailboxes, spec),
    "config": lambda tile, spec: BackendConfig(tile.tensix.config, spec),
    "tdma-risc": lambda tile, spec: TdmaRisc(tile.tensix, spec),
    "dst window": lambda tile, spec: DstWindowDevice(tile.tensix.window, spec),
    "niu": lambda tile, spec: tile.noc.attach(Niu(tile.noc, spec)),
    "overlay": lambda tile, spec: Overlay(tile.profile.overlay, spec),
}


def build(tile: Tile) -> dict[str, Device]:
    """The devices of ``tile``'s profile, by name."""
    return {spec.name: MODELS[spec.model](tile, spec) if spec.model else Unmodelled(spec) for spec in tile.profile.devices}
