"""What every device of the map is to the cores: ``Device``, the ``Port`` a core's hooks call, and
the ``Wait`` a device makes a core sit in when an access cannot complete yet (``Stall``).

A core maps each device region of its map (``tdbg.arch.memory_map``) as RAM that only the
region's hooks touch: a read hook computes the value (``Port.load``) and writes it where the load
will read it, a write hook applies the store (``Port.store``); both see the exact PC and can stop
the core before the access commits (``tdbg.emu.core``).  A device is one object per tile, shared
by every core that sees it; it learns who accesses it from the ``Core`` its port passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from tdbg.arch.memory_map import DeviceSpec
from tdbg.tensix.state_description import StateDescription
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.emu.core import Core


@dataclass(frozen=True)
class Wait:
    """What a blocked core waits for: what it is doing, the test that ends the wait, and
    (when the cause can change while it waits) a function saying what holds it now; for a
    report, the device ``address`` a polling loop reads and the Tensix ``thread`` whose queue
    a TTSync load or a push waits on; a core spinning on memory also says which addresses it
    reads (``reads``: address -> the value it keeps reading), and a polling or spinning core the
    instructions of its loop (``loop``)."""

    what: str
    ready: Callable[[], bool] = field(compare=False)
    why: Callable[[], str | None] | None = field(default=None, compare=False)
    address: int | None = None
    thread: int | None = None
    reads: dict[int, int] = field(default_factory=dict, compare=False)
    loop: frozenset[int] = field(default=frozenset(), compare=False)

    @property
    def reason(self) -> str:
        cause = self.why() if self.why is not None else None
        return f"{self.what}: {cause}" if cause else self.what


class Stall(Exception):
    """Raised by a device: the access cannot complete yet."""

    def __init__(self, wait: Wait) -> None:
        super().__init__(wait.reason)
        self.wait = wait


class Device:
    """One device of the map with its behaviour.  ``load`` / ``store`` take the accessing core
    (its name, Tensix thread and PC), the offset in the device and the access size in bytes;
    they raise a ``TensixEvent`` for an access the spec does not allow and ``Stall`` for one that
    must wait.  ``pollable``: a loop reading it with nothing else changing waits instead of
    spinning (``Core._polling``); ``observed``: accesses go to ``Tile.window_observer``;
    ``native_stores``: a T core's stores go to the native push path's store hook first
    (``tdbg.emu.native_push.NativeCore.hook_stores``).  ``STATE``: what the device keeps itself (most keep nothing: their state is the model's)."""

    pollable: ClassVar[bool] = False
    observed: ClassVar[bool] = False
    native_stores: ClassVar[bool] = False
    STATE: ClassVar[StateDescription] = StateDescription("device", ())

    def __init__(self, spec: DeviceSpec) -> None:
        self.spec = spec
        self.name = spec.name

    def load(self, core: Core, offset: int, size: int) -> int:
        raise NotImplementedError

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        raise NotImplementedError

    def port(self, core: Core) -> Port:
        """The device as ``core`` sees it."""
        return Port(self, partial(self.load, core), partial(self.store, core))


@dataclass(frozen=True, slots=True)
class Port:
    """A device as one core sees it: ``load(offset, size)``, ``store(offset, size, value)``."""

    device: Device
    load: Callable[[int, int], int]
    store: Callable[[int, int, int], None]

    @property
    def name(self) -> str:
        return self.device.name

    @property
    def base(self) -> int:
        return self.device.spec.base

    @property
    def size(self) -> int:
        return self.device.spec.size


class WordRegisters(Device):
    """A device read a word at a time (``word(core, word_offset)``); a narrower load takes its
    bytes out of that word."""

    def word(self, core: Core, offset: int) -> int:
        raise NotImplementedError

    def load(self, core: Core, offset: int, size: int) -> int:
        return (self.word(core, offset & ~3) >> (8 * (offset & 3))) & ((1 << (8 * size)) - 1)


class Registers32(Device):
    """A device of 32-bit registers only (the NIUs, the overlay: NoC/MemoryMap.md): ``read`` and
    ``write`` a register; a store names the core that made it (``issued``)."""

    def read(self, offset: int) -> int:
        raise NotImplementedError

    def write(self, offset: int, value: int) -> None:
        raise NotImplementedError

    def issued(self, core: Core) -> None:
        """``core`` is about to store to a register (a NoC request names its core)."""

    def load(self, core: Core, offset: int, size: int) -> int:
        if size != 4:
            raise UndefinedBehavior(f"NoC/MemoryMap.md: a {size}-byte load of a 32-bit register (offset {offset:#x})")
        return self.read(offset)

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UndefinedBehavior(f"NoC/MemoryMap.md: a {size}-byte store to a 32-bit register (offset {offset:#x})")
        self.issued(core)
        self.write(offset, value)


class Unmodelled(Device):
    """A device tdbg does not model (the PIC, RISCV B's views of PCBuf 1 and 2): every access is
    ``UnimplementedFunctionality``."""

    def load(self, core: Core, offset: int, size: int) -> int:
        raise unmodelled(self.name, offset)

    def store(self, core: Core, offset: int, size: int, value: int) -> None:
        raise unmodelled(self.name, offset)


def unmodelled(name: str, offset: int) -> UnimplementedFunctionality:
    return UnimplementedFunctionality(f"{name} (offset {offset:#x}) is not modelled by tdbg")
