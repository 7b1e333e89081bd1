"""The types an architecture profile is made of; no architecture's values (those are in its
package: ``tdbg.arch.blackhole``).

A ``Profile`` holds every fact about one Tensix tile generation that tdbg uses: the cores and
how a host loads and releases them, the address map (``map``: typed regions per core and for the
coprocessor), the tile registers, the CSRs, the coprocessor's counts and geometry
(``TensixSpec``), per-architecture behaviour of the Wait Gate (``SyncSpec``), the RISC-V ``Dst``
window's formats (``WindowSpec``), the mailboxes, the NoC, the overlay and the generated config
and instruction tables.  The data formats are the same codes on every generation tdbg knows:
``tdbg.arch.data_formats``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tdbg.arch.memory_map import TENSIX, DeviceSpec, MemoryMap, Region, RegionKind

__all__ = [
    "TENSIX", "Coord", "CoreSpec", "CsrSpec", "DeviceSpec", "LoadRule", "MailboxSpec", "NocSpec", "OverlaySpec",
    "Profile", "Region", "RegionKind", "SrcCondition", "SyncSpec", "TensixSpec", "TileRegister", "WindowFormat",
    "WindowSpec",
]


@dataclass(frozen=True)
class CoreSpec:
    """One baby RISC-V core of the tile (BabyRISCV/README.md, "Memory map")."""

    name: str                  # B, T0, T1, T2, NC: the memory map's names
    thread: int | None         # the Tensix thread it pushes to (T cores); None for B and NC
    local_ram_size: int        # private data RAM at MEM_LOCAL_BASE ("Local Data RAM")
    local_ram_alias: int       # where every viewer sees that RAM through the slow access path
    soft_reset_bit: int        # its bit in RISCV_DEBUG_REG_SOFT_RESET_0
    reset_pc_reg: int | None   # debug register offset of its reset PC (T cores, NC)
    reset_pc_override: tuple[int, int] | None = None   # (register offset, bit) that enables it
    alias: str = ""            # tt-exalens' name for it (brisc, ncrisc, trisc0 ...)
    reset_pc: int = 0          # where it starts when released without the override (SoftReset.md)


@dataclass(frozen=True)
class TileRegister:
    """A tile control / debug / status register (``RISCV_DEBUG_REGS_START_ADDR`` + offset)."""

    name: str
    offset: int
    access: str                # "rw", "ro" or "wo"
    reset: int | None          # None: the table gives no reset value


@dataclass(frozen=True)
class LoadRule:
    """How a host loads one core's ELF (tt-exalens, as ``shared/kernels/README.md`` describes):
    only ``sections`` are written; one that lies in private memory goes to the ELF's
    ``loader_section`` address in L1, where the firmware's start-up code copies it from.  A host
    may give that L1 address itself for an ELF without the section (``loader.placements``'
    ``local_init``: tt-metal's ``MEM_*_INIT_LOCAL_L1_BASE_SCRATCH``)."""

    sections: tuple[str, ...]
    loader_section: str
    refused_arch: dict[str, str]   # Tag_RISCV_arch extension -> the architecture it means


@dataclass(frozen=True)
class CsrSpec:
    """A CSR the cores recognise (BlackholeA0 ``BabyRISCV/CSRs.md``) and how tdbg keeps it:
    ``scratch`` (read/write storage), ``constant`` (reads ``value``, writes have no effect),
    ``readonly`` (reads ``value``; a write is undefined), ``cfg0``, ``cycle``/``cycleh``
    (the counter, low and high half), ``unmodelled`` (a named stop, ``why``); ``scratch_on``:
    the cores where an otherwise unmodelled CSR is plain storage."""

    number: int
    name: str
    kind: str
    value: int = 0
    why: str = ""
    scratch_on: tuple[str, ...] = ()


Coord = tuple[int, int]


@dataclass(frozen=True)
class NocSpec:
    """The NoC as one tile's NIUs see it: the NIU register layout (the same in both NIUs), the
    grid of endpoints by NoC 0 coordinate, and how the coordinates software writes (translated
    ones, when the NIU translates) become NoC 0 coordinates."""

    cmd_buf_stride: int                  # NOC_CMD_BUF_OFFSET
    cmd_buffers: int                     # request initiators per NIU
    cmd_regs: dict[str, int]             # a request initiator's registers, by offset in it
    niu_regs: dict[str, int]             # the NIU's other registers
    counters_base: int                   # NOC_STATUS(0): the counters, 4 bytes apart
    counters: dict[int, str]             # NOC_STATUS index -> counter name
    word_bytes: int                      # NOC_WORD_BYTES: one data flit
    max_packet: int                      # bytes one request moves
    size: Coord                          # NoC columns, rows
    tile: Coord                          # this tile's NoC 0 coordinate
    tensix: frozenset[Coord]             # every Tensix tile
    dram: dict[Coord, int]               # a DRAM endpoint -> its channel
    dram_channel_size: int
    others: dict[Coord, str]             # the other endpoints (PCIe, ARC, Ethernet, router-only)
    translated: dict[Coord, Coord]       # translated coordinate -> NoC 0 coordinate (identity where absent)
    noc1_grid: Coord | None = None       # untranslated: the grid NoC 1 coordinates run back in (None: size)

    def physical(self, coord: Coord) -> Coord:
        return self.translated.get(coord, coord)


@dataclass(frozen=True)
class OverlaySpec:
    """The NoC overlay's stream registers tdbg keeps: ``streams`` of them, ``stride`` bytes apart
    from the device's base; each register by index (4 bytes apart) and its width in bits."""

    streams: int
    stride: int
    registers: dict[str, tuple[int, int]]   # name -> (register index, bits)


@dataclass(frozen=True)
class TensixSpec:
    """The coprocessor's counts and geometry, and the address window its register instructions
    (``LOADREG``, ``STOREREG``, ``PACR_SETREG``) reach the tile's devices through."""

    threads: int                # Tensix threads, one per TRISC
    semaphores: int             # SyncUnit.md Semaphores[]
    mutexes: int                # ATGETM.md Mutex[]
    gprs: int                   # ScalarUnit GPRs per thread
    mop_cfg_words: int          # MOPExpander.md MopCfg[] per thread
    dst_rows: int               # DstBits rows
    dst_cols: int
    src_banks: int              # SrcA / SrcB banks
    src_rows: int
    src_cols: int
    wait_gate_capacity: int     # instructions a thread may have queued before its core stalls
    register_window: int        # the device address a register index 0 names
    register_window_lowest: int  # below it, a register instruction's address is undefined
    setreg_limit: int           # PACR_SETREG drops writes at or above it

    def storage_rows(self, storage: str) -> int:
        """Rows of a register as a view addresses them: ``Dst16b`` and ``DstBits`` ("dst16",
        "bits") have ``dst_rows``; ``Dst32b`` ("dst32") half as many distinct ones, each a pair of
        ``DstBits`` rows (Dst.md: ``Adj32``); ``SrcA``/``SrcB`` ("src") ``src_rows`` per bank."""
        return {"dst16": self.dst_rows, "bits": self.dst_rows, "dst32": self.dst_rows // 2, "src": self.src_rows}[storage]


@dataclass(frozen=True)
class SrcCondition:
    """A ``STALLWAIT`` condition bit evaluated against the Src banks: keep waiting while
    ``register`` (``SrcA`` / ``SrcB``) of ``holder``'s bank (``unpacker`` / ``matrix_unit``) is
    not allowed to ``client`` (``Unpackers`` / ``MatrixUnit``)."""

    bit: int
    register: str
    holder: str
    client: str


@dataclass(frozen=True)
class SyncSpec:
    """What the Wait Gate does differently by generation (``tdbg.tensix.sync``): the condition
    mask a zero ``ConditionMask`` selects, and which condition bits test the Src banks."""

    default_conditions: int
    src_conditions: tuple[SrcCondition, ...]


@dataclass(frozen=True)
class WindowFormat:
    """One ``RISC_DEST_ACCESS_CTRL_SEC[].fmt`` value of the RISC-V ``Dst`` window (Dst.md)."""

    code: int
    name: str                  # as a message names it ("FP32/uint32")
    view: str                  # the number view the window converts to (``tdbg.tensix.formats``)
    element_size: int          # bytes of one element a load or store moves


@dataclass(frozen=True)
class WindowSpec:
    """The RISC-V ``Dst`` window (a device of the map, ``model="dst window"``): its formats, and
    the bytes the 8-bit format maps (one per ``Dst16b`` element)."""

    formats: tuple[WindowFormat, ...]
    int8_span: int

    def format(self, code: int) -> WindowFormat | None:
        for f in self.formats:
            if f.code == code:
                return f
        return None


@dataclass(frozen=True)
class MailboxSpec:
    """The RISC-V mailboxes: the cores in the order of their regions, and how many values a
    mailbox (and a writer's mailboxes together) holds."""

    cores: tuple[str, ...]
    depth: int


@dataclass(frozen=True)
class Profile:
    """Every fact of one Tensix tile generation (module docstring)."""

    name: str
    package: str                # the architecture's package: its generated tables are its data
    cfg_table: str              # generated by scripts/gen_cfg_table.py
    isa_table: str              # generated by scripts/gen_isa_table.py
    llvm_cpu: str               # the cores' ISA as LLVM's -mcpu spells it (compilers for the tile)
    l1_size: int                # bytes of L1 at address 0
    local_ram_base: int         # MEM_LOCAL_BASE: each core's private data RAM
    slow_path_span: int         # bytes of each core's slow-access window onto its local RAM
    cores: tuple[CoreSpec, ...]
    devices: tuple[DeviceSpec, ...]
    tile_registers: tuple[TileRegister, ...]
    load_rule: LoadRule
    tensix: TensixSpec
    sync: SyncSpec
    window: WindowSpec | None   # None: no RISC-V Dst window
    mailboxes: MailboxSpec
    clock_hz: int               # RISC-V clock, for the wall clock registers
    csrs: tuple[CsrSpec, ...]   # the CSRs the cores recognise
    cfg0_fields: tuple[tuple[int, int, str], ...]  # cfg0: (first bit, bits, name)
    cfg0_modelled: int          # the cfg0 bits a write may set (the others stop)
    trampoline_spaces: tuple[tuple[int, int], ...]  # (base, size): unmapped, within a jal of L1
    noc: NocSpec
    overlay: OverlaySpec

    @cached_property
    def map(self) -> MemoryMap:
        """The address map: every core's regions and the coprocessor's (``TENSIX``)."""
        return MemoryMap.build(self.l1_size, self.local_ram_base, self.slow_path_span, self.cores, self.devices)

    def core(self, name: str) -> CoreSpec:
        """The core called ``name`` (any case), by the map's name or tt-exalens'."""
        for spec in self.cores:
            if name.upper() in (spec.name, spec.alias.upper()):
                return spec
        raise KeyError(f"unknown core {name!r}: this tile has {', '.join(c.name for c in self.cores)}")

    def device(self, name: str) -> DeviceSpec:
        for spec in self.devices:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def device_at(self, address: int) -> DeviceSpec | None:
        """The device whose range holds ``address`` (for any viewer), if any."""
        for device in self.devices:
            if device.base <= address < device.base + device.size:
                return device
        return None

    def devices_of(self, model: str) -> tuple[DeviceSpec, ...]:
        """The devices whose behaviour is ``model``'s."""
        return tuple(d for d in self.devices if d.model == model)

    def register(self, name: str) -> TileRegister:
        for reg in self.tile_registers:
            if reg.name == name:
                return reg
        raise KeyError(name)

    @property
    def dst_window(self) -> DeviceSpec | None:
        """The RISC-V ``Dst`` window, where the generation has one."""
        found = self.devices_of("dst window")
        return found[0] if found else None

    @property
    def dst_window_base(self) -> int | None:
        return self.dst_window.base if self.dst_window else None

    @property
    def dst_window_size(self) -> int:
        return self.dst_window.size if self.dst_window else 0

    @property
    def instrn_buf_base(self) -> int:
        """INSTRN_BUF_BASE: where a core's store pushes a Tensix instruction."""
        return self.devices_of("instruction push")[0].base

    def semaphore_at(self, address: int) -> int | None:
        """The Sync Unit semaphore a RISC-V access to ``address`` reads or writes, if any
        (SyncUnit.md: ``SemaphoreAccess[i]`` at ``PC_BUF_BASE`` + 0x20 + 4 * i)."""
        for pcbuf in self.devices_of("pcbuf"):
            index, rest = divmod(address - pcbuf.base - pcbuf.registers["SemaphoreAccess"], 4)
            if 0 <= index < self.tensix.semaphores and not rest:
                return index
        return None
