"""The memory-mapped devices a baby RISC-V T core sees, as load/store handlers.

Each ``Region`` is mapped into the core's Unicorn address space as RAM that only the region's
hooks touch: a read hook computes the value and writes it where the load will read it, a write
hook applies the store.  Both hooks see the exact PC and can stop the core before the access
commits.  Addresses: BlackholeA0 ``BabyRISCV/README.md`` "Memory map", ``memory_map.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.tile import TensixState

Load = Callable[[int, int, int], int]          # (thread, offset, size) -> value
Store = Callable[[int, int, int, int], None]   # (thread, offset, size, value)
Push = Callable[[int, int], None]              # (thread, word)

PAGE = 0x1000


@dataclass(frozen=True)
class Region:
    name: str
    base: int
    size: int          # mapped bytes (a multiple of 4 KiB)
    load: Load
    store: Store
    observed: bool = False  # accesses go to ``Tile.window_observer`` when one is set


def _unimplemented(name: str) -> tuple[Load, Store]:
    def load(thread: int, offset: int, size: int) -> int:
        raise UnimplementedFunctionality(f"{name} (offset {offset:#x}) is not modelled by tdbg")

    def store(thread: int, offset: int, size: int, value: int) -> None:
        raise UnimplementedFunctionality(f"{name} (offset {offset:#x}) is not modelled by tdbg")

    return load, store


def word_loads(value_of: Callable[[int, int], int]) -> Load:
    """A device read a word at a time: ``value_of(thread, word_offset)``; narrower loads take
    their bytes out of that word."""

    def load(thread: int, offset: int, size: int) -> int:
        return (value_of(thread, offset & ~3) >> (8 * (offset & 3))) & ((1 << (8 * size)) - 1)

    return load


class DebugRegisters:
    """Tile control / debug / status registers (``RISCV_DEBUG_REGS_START_ADDR``), the ones tdbg
    models: ``DBG_FEATURE_DISABLE`` (bit 11 changes ``Dst16b``, Dst.md) and the
    ``CFGREG_RD_CNTL`` / ``CFGREG_RDDATA`` config read path (BackendConfiguration.md)."""

    FEATURE_DISABLE = 0x068
    CFGREG_RD_CNTL = 0x058
    CFGREG_RDDATA = 0x078

    def __init__(self, tensix: TensixState) -> None:
        self.tensix = tensix
        self.cfgreg_rd_cntl = 0
        self.load = word_loads(self._word)

    def _word(self, thread: int, word: int) -> int:
        if word == self.FEATURE_DISABLE:
            return self.tensix.dst.feature_disable
        if word == self.CFGREG_RD_CNTL:
            return self.cfgreg_rd_cntl
        if word == self.CFGREG_RDDATA:
            return self.tensix.config.riscv_load((self.cfgreg_rd_cntl & 0x7FF) * 4, 4)
        raise UnimplementedFunctionality(f"debug register at offset {word:#x} is not modelled by tdbg")

    def store(self, thread: int, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UnimplementedFunctionality(f"{size}-byte store to debug register {offset:#x} is not modelled by tdbg")
        if offset == self.FEATURE_DISABLE:
            self.tensix.dst.feature_disable = value
        elif offset == self.CFGREG_RD_CNTL:
            self.cfgreg_rd_cntl = value
        else:
            raise UnimplementedFunctionality(f"debug register at offset {offset:#x} is not modelled by tdbg")

    def reset(self) -> None:
        self.cfgreg_rd_cntl = 0


def t_core_regions(tensix: TensixState, coprocessor: Coprocessor, debug: DebugRegisters, push: Push) -> list[Region]:
    """The devices of a T core (thread 0..2), beyond L1 and its local data RAM."""
    profile = tensix.profile

    # ScalarUnit.md "RISCV access to GPRs": own thread's GPRs[64] at REGFILE_BASE.
    def gpr_value(thread: int, offset: int) -> int:
        if offset >= 64 * 4:
            raise UndefinedBehavior(f"BabyRISCV/README.md: REGFILE offset {offset:#x} is past GPRs[64]")
        return int(tensix.gprs[thread, offset >> 2])

    def gpr_store(thread: int, offset: int, size: int, value: int) -> None:
        gpr_value(thread, offset)
        shift = 8 * (offset & 3)
        mask = ((1 << (8 * size)) - 1) << shift
        old = int(tensix.gprs[thread, offset >> 2])
        tensix.gprs[thread, offset >> 2] = (old & ~mask) | ((value << shift) & mask)

    # MOPExpander.md "Configuration": MopCfg[9], write-only.
    def mop_load(thread: int, offset: int, size: int) -> int:
        raise UndefinedBehavior("MOPExpander.md: MOP expander configuration is write-only")

    def mop_store(thread: int, offset: int, size: int, value: int) -> None:
        if offset >= 9 * 4 or size != 4:
            raise UndefinedBehavior(f"MOPExpander.md: {size}-byte store at MopCfg offset {offset:#x}")
        tensix.mop_cfg[thread, offset >> 2] = value

    # PushTensixInstruction.md: a store to INSTRN_BUF_BASE pushes one instruction.
    def instrn_load(thread: int, offset: int, size: int) -> int:
        raise UndefinedBehavior("PushTensixInstruction.md: INSTRN_BUF_BASE is for stores only")

    def instrn_store(thread: int, offset: int, size: int, value: int) -> None:
        if size != 4:
            raise UndefinedBehavior(f"PushTensixInstruction.md: a Tensix instruction is pushed with sw, not a {size}-byte store")
        push(thread, value)

    # TTSync.md: loads from CoprocessorDoneCheck / MOPExpanderDoneCheck wait until the thread is
    # idle and return an undefined value (firmware discards it); stores are discarded.  tdbg runs
    # every pushed instruction to completion at push time, so the wait is over at once; the
    # undefined value is given as 0.  SyncUnit.md: the eight semaphores from offset 0x20.
    done_checks = (0x4, 0x8)
    semaphores = range(0x20, 0x40)

    def pcbuf_value(thread: int, offset: int) -> int:
        if offset in done_checks:
            return 0
        if offset in semaphores:
            return coprocessor.riscv_semaphore_read((offset - 0x20) >> 2)
        raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")

    def pcbuf_store(thread: int, offset: int, size: int, value: int) -> None:
        if offset & ~3 in semaphores:
            coprocessor.riscv_semaphore_write((offset - 0x20) >> 2, value)
        elif offset & ~3 not in done_checks:
            raise UnimplementedFunctionality(f"PC_BUF_BASE offset {offset:#x} (PCBuf) is not modelled by tdbg")

    cfg = tensix.config

    def cfg_load(thread: int, offset: int, size: int) -> int:
        return cfg.riscv_load(offset, size)

    def cfg_store(thread: int, offset: int, size: int, value: int) -> None:
        cfg.riscv_store(offset, size, value)

    window = tensix.window
    regions = [
        Region("debug registers", profile.debug_regs_base, PAGE, debug.load, debug.store),
        Region("MOP expander config", 0xFFB8_0000, PAGE, mop_load, mop_store),
        Region("Tensix GPRs", 0xFFE0_0000, PAGE, word_loads(gpr_value), gpr_store),
        Region("Tensix instruction push", profile.instrn_buf_base, 0x10000, instrn_load, instrn_store),
        Region("PCBuf / TTSync / semaphores", profile.pc_buf_base, 0x10000, word_loads(pcbuf_value), pcbuf_store),
        Region("Tensix backend configuration", profile.cfg_base, 0x10000, cfg_load, cfg_store),
    ]
    if profile.dst_window_base is not None:
        regions.append(Region("Dst window", profile.dst_window_base, profile.dst_window_size, window.load, window.store, observed=True))
    for name, base, size in (
        ("TDMA-RISC registers", 0xFFB1_1000, PAGE),
        ("PIC registers", 0xFFB1_3000, PAGE),
        ("NoC 0 registers", 0xFFB2_0000, 0x10000),
        ("NoC 1 registers", 0xFFB3_0000, 0x10000),
        ("NoC overlay", 0xFFB4_0000, 0x40000),
        ("mailboxes", 0xFFEC_0000, 0x4000),
    ):
        regions.append(Region(name, base, size, *_unimplemented(name)))
    return regions
