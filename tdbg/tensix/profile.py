"""Architecture profiles: the numbers that differ between Tensix generations.

Only Blackhole is modelled (the RISC-V ``Dst`` window is a Blackhole feature); Wormhole B0 would
be a second ``Profile`` with its own generated config table, its own core map and no window.
Everything the emulated tile needs to know about the architecture is here: the cores, each
core's address map, the tile control registers, how a host loads an ELF.
"""

from __future__ import annotations

from dataclasses import dataclass

from tdbg.tensix.isa import Isa


@dataclass(frozen=True)
class CoreSpec:
    """One baby RISC-V core of the tile (BabyRISCV/README.md, "Memory map")."""

    name: str                  # B, T0, T1, T2, NC: the memory map's names
    thread: int | None         # the Tensix thread it pushes to (T cores); None for B and NC
    local_ram_size: int        # private data RAM at MEM_LOCAL_BASE ("Local Data RAM")
    local_ram_alias: int       # where every core sees that RAM through the slow access path
    soft_reset_bit: int        # its bit in RISCV_DEBUG_REG_SOFT_RESET_0
    reset_pc_reg: int | None   # debug register offset of its reset PC (T cores, NC)
    reset_pc_override: tuple[int, int] | None = None   # (register offset, bit) that enables it
    alias: str = ""            # tt-exalens' name for it (brisc, ncrisc, trisc0 ...)
    reset_pc: int = 0          # where it starts when released without the override (SoftReset.md)

    @property
    def alias_span(self) -> int:
        """Bytes of the slow-access window at ``local_ram_alias``: 8 KiB, a 4 KiB RAM seen twice
        (BlackholeA0 BabyRISCV/README.md "Memory map")."""
        return max(self.local_ram_size, 0x2000)


@dataclass(frozen=True)
class Device:
    """An address range of the RISC-V map that is a device, not memory (a ``Region`` once
    tdbg.emu gives it a model).  ``cores`` are the cores that see it; elsewhere it is unmapped."""

    name: str
    base: int
    size: int                  # mapped bytes (a multiple of 4 KiB)
    cores: tuple[str, ...]     # may include ``TENSIX``: the coprocessor reaches it too


@dataclass(frozen=True)
class TileRegister:
    """A tile control / debug / status register (``RISCV_DEBUG_REGS_START_ADDR`` + offset)."""

    name: str
    offset: int
    access: str                # "rw", "ro" or "wo"
    reset: int | None          # None: the table gives no reset value


@dataclass(frozen=True)
class LoadRule:
    """How a host loads one core's ELF (tt-exalens, as ``shared/realfw/README.md`` describes):
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

    niu_bases: tuple[int, ...]           # NOC0_REGS_START_ADDR, NOC1_REGS_START_ADDR
    cmd_buf_stride: int                  # NOC_CMD_BUF_OFFSET
    cmd_regs: dict[str, int]             # a request initiator's registers, by offset in it
    niu_regs: dict[str, int]             # the NIU's other registers
    counters: dict[int, str]             # NOC_STATUS index -> counter name
    max_packet: int                      # bytes one request moves
    size: Coord                          # NoC columns, rows
    tile: Coord                          # this tile's NoC 0 coordinate
    tensix: frozenset[Coord]             # every Tensix tile
    dram: dict[Coord, int]               # a DRAM endpoint -> its channel
    dram_channel_size: int
    others: dict[Coord, str]             # the other endpoints (PCIe, ARC, Ethernet, router-only)
    translated: dict[Coord, Coord]       # translated coordinate -> NoC 0 coordinate (identity where absent)

    def physical(self, coord: Coord) -> Coord:
        return self.translated.get(coord, coord)


def _bh_translation() -> dict[Coord, Coord]:
    """Blackhole's coordinate translation as ttsim v1.10.0 applies it on both NoCs
    (``remap_virtual_coordinate``, tile.cpp:1231-1268): Tensix and rows 0-1 untranslated, logical
    Ethernet (20 + id, 25), DRAM (17 | 18, 12..23), PCIe (19, 24)."""
    table: dict[Coord, Coord] = {}
    for tile in range(12):
        table[(20 + tile, 25)] = (16 - (tile >> 1) if tile & 1 else 1 + (tile >> 1), 1)
    rows = {12: 0, 13: 1, 14: 11, 15: 2, 16: 10, 17: 3, 18: 5, 19: 7, 20: 6, 21: 9, 22: 4, 23: 8}
    for x, px in ((17, 9), (18, 0)):
        for y, py in rows.items():
            table[(x, y)] = (px, py)
    table[(19, 24)] = (2, 0)
    return table


@dataclass(frozen=True)
class OverlaySpec:
    """The NoC overlay's stream registers tdbg keeps: ``streams`` of them, ``stride`` bytes apart
    from the device's base; each register by index (4 bytes apart) and its width in bits."""

    streams: int
    stride: int
    registers: dict[str, tuple[int, int]]   # name -> (register index, bits)


@dataclass(frozen=True)
class Profile:
    """Addresses and sizes of one Tensix tile generation."""

    name: str
    cfg_table: str              # package data file generated by scripts/gen_cfg_table.py
    isa_table: str              # package data file generated by scripts/gen_isa_table.py
    l1_size: int                # bytes of L1 at address 0
    local_ram_base: int         # MEM_LOCAL_BASE: each core's private data RAM
    cfg_base: int               # TENSIX_CFG_BASE
    dst_window_base: int | None  # RISC-V Dst window (None: not mapped)
    dst_window_size: int
    instrn_buf_base: int        # INSTRN_BUF_BASE: push a Tensix instruction
    pc_buf_base: int            # PC_BUF_BASE: PCBuf, TTSync, semaphores
    debug_regs_base: int        # RISCV_DEBUG_REGS_START_ADDR
    dbg_feature_disable: int    # RISCV_DEBUG_REG_DBG_FEATURE_DISABLE
    cores: tuple[CoreSpec, ...]
    devices: tuple[Device, ...]
    tile_registers: tuple[TileRegister, ...]
    load_rule: LoadRule
    wait_gate_capacity: int     # instructions a thread may have queued before its core stalls
    clock_hz: int               # RISC-V clock, for the wall clock registers
    csrs: tuple[CsrSpec, ...]   # the CSRs the cores recognise
    cfg0_fields: tuple[tuple[int, int, str], ...]  # cfg0: (first bit, bits, name)
    cfg0_modelled: int          # the cfg0 bits a write may set (the others stop)
    trampoline_spaces: tuple[tuple[int, int], ...]  # (base, size): unmapped, within a jal of L1
    noc: NocSpec
    overlay: OverlaySpec
    semaphore_offset: int = 0x20  # SyncUnit.md: RISC-V sees Semaphores[i] at PC_BUF_BASE + this + 4 * i

    def semaphore_at(self, address: int) -> int | None:
        """The Sync Unit semaphore a RISC-V address reads or writes, if any."""
        index, rest = divmod(address - self.pc_buf_base - self.semaphore_offset, 4)
        return index if 0 <= index < 8 and not rest else None

    def core(self, name: str) -> CoreSpec:
        """The core called ``name`` (any case), by the map's name or tt-exalens'."""
        for spec in self.cores:
            if name.upper() in (spec.name, spec.alias.upper()):
                return spec
        raise KeyError(f"unknown core {name!r}: this tile has {', '.join(c.name for c in self.cores)}")

    def device_at(self, address: int) -> Device | None:
        """The device whose range holds ``address``, if any."""
        for device in self.devices:
            if device.base <= address < device.base + device.size:
                return device
        return None

    def register(self, name: str) -> TileRegister:
        for reg in self.tile_registers:
            if reg.name == name:
                return reg
        raise KeyError(name)

    @property
    def isa(self) -> Isa:
        """The instruction encodings firmware built for this generation pushes."""
        return Isa.load(self.isa_table)


_T = ("T0", "T1", "T2")
_BT = ("B", *_T)
#: The Tensix coprocessor as a viewer of the map (LOADREG, STOREREG, PACR_SETREG): the memory
#: map's "NoC" column, "made available to the NoC (and to the Tensix coprocessor)".
TENSIX = "Tensix"
_ALL = (*_BT, "NC", TENSIX)

# Blackhole: BlackholeA0 BabyRISCV/README.md "Memory map" and "Local Data RAM"; Dst.md "RISCV
# access to Dst"; memory_map.md and bh_cfg_fields.json (tile_address_map, tile_regs) for the
# register offsets and reset values; bh_encodings.json (tt-llk's Blackhole
# assembly.yaml) for the instruction encodings (``wh_isa.json`` is the Wormhole B0 table for a
# second profile).  The PCBuf region holds TTSync and the semaphores
# (TTSync.md, SyncUnit.md); B sees the B side of the three PCBufs instead.  ``TENSIX`` marks the
# devices of the "NoC" column (the local RAMs' slow-access windows are in it too); the TDMA-RISC
# registers, the MOP expander config and the Dst window are "Unmapped" there, and NC sees only
# what its column gives it.  tt-exalens names the cores brisc, ncrisc, trisc0..2.
BLACKHOLE = Profile(
    name="blackhole",
    cfg_table="bh_cfg.json",
    isa_table="bh_isa.json",
    l1_size=1536 * 1024,
    local_ram_base=0xFFB0_0000,
    cfg_base=0xFFEF_0000,
    dst_window_base=0xFFBD_8000,
    dst_window_size=0x8000,
    instrn_buf_base=0xFFE4_0000,
    pc_buf_base=0xFFE8_0000,
    debug_regs_base=0xFFB1_2000,
    dbg_feature_disable=0xFFB1_2068,
    # SOFT_RESET_0 bits and reset-PC registers: TileControlDebugStatus.md and tt-metal's
    # tensix.h (RISCV_SOFT_RESET_0_NCRISC is bit 18; NCRISC_RESET_PC with its override at
    # 0x23C bit 0); ttsim v1.10.0 releases the five cores on the same bits (tile.cpp:1151).
    # Reset PCs without the override: SoftReset.md's table (B always 0; ttsim tile.cpp:1160-1171).
    cores=(  # in GDB thread order (thread N is cores[N-1]), which is also the run order
        CoreSpec("T0", 0, 4 * 1024, 0xFFB1_8000, 12, 0x228, (0x234, 0), "trisc0", 0x6000),
        CoreSpec("T1", 1, 4 * 1024, 0xFFB1_A000, 13, 0x22C, (0x234, 1), "trisc1", 0xA000),
        CoreSpec("T2", 2, 4 * 1024, 0xFFB1_C000, 14, 0x230, (0x234, 2), "trisc2", 0xE000),
        CoreSpec("B", None, 8 * 1024, 0xFFB1_4000, 11, None, None, "brisc", 0x0),
        CoreSpec("NC", None, 8 * 1024, 0xFFB1_6000, 18, 0x238, (0x23C, 0), "ncrisc", 0x12000),
    ),
    devices=(
        Device("TDMA-RISC registers", 0xFFB1_1000, 0x1000, _BT),
        Device("debug registers", 0xFFB1_2000, 0x1000, _ALL),
        Device("PIC registers", 0xFFB1_3000, 0x1000, _ALL),
        Device("NoC 0 registers", 0xFFB2_0000, 0x10000, _ALL),
        Device("NoC 1 registers", 0xFFB3_0000, 0x10000, _ALL),
        Device("NoC overlay", 0xFFB4_0000, 0x40000, _ALL),
        Device("MOP expander config", 0xFFB8_0000, 0x1000, _T),
        Device("Dst window", 0xFFBD_8000, 0x8000, _T),
        Device("Tensix GPRs", 0xFFE0_0000, 0x1000, _BT),
        Device("Tensix instruction push", 0xFFE4_0000, 0x10000, _BT),
        Device("Tensix instruction push 1", 0xFFE5_0000, 0x10000, ("B",)),
        Device("Tensix instruction push 2", 0xFFE6_0000, 0x10000, ("B",)),
        Device("PCBuf / TTSync / semaphores", 0xFFE8_0000, 0x10000, _BT),
        Device("PCBuf 1", 0xFFE9_0000, 0x10000, ("B",)),
        Device("PCBuf 2", 0xFFEA_0000, 0x10000, ("B",)),
        Device("mailboxes", 0xFFEC_0000, 0x4000, _BT),
        Device("Tensix backend configuration", 0xFFEF_0000, 0x10000, _BT),
    ),
    tile_registers=(
        TileRegister("CFGREG_RD_CNTL", 0x058, "wo", None),
        TileRegister("DBG_FEATURE_DISABLE", 0x068, "rw", 0),
        TileRegister("CFGREG_RDDATA", 0x078, "ro", None),
        TileRegister("INSTRN_BUF_STATUS", 0x0A8, "ro", None),
        TileRegister("SOFT_RESET_0", 0x1B0, "rw", 0x0004_7800),
        TileRegister("WALL_CLOCK_0", 0x1F0, "ro", None),
        TileRegister("WALL_CLOCK_1", 0x1F4, "ro", None),
        TileRegister("WALL_CLOCK_1_AT", 0x1F8, "ro", 0),   # DebugTimestamper.md's WALL_CLOCK_H
        TileRegister("TRISC0_RESET_PC", 0x228, "rw", None),
        TileRegister("TRISC1_RESET_PC", 0x22C, "rw", None),
        TileRegister("TRISC2_RESET_PC", 0x230, "rw", None),
        TileRegister("TRISC_RESET_PC_OVERRIDE", 0x234, "rw", 0),
        TileRegister("NCRISC_RESET_PC", 0x238, "rw", None),
        TileRegister("NCRISC_RESET_PC_OVERRIDE", 0x23C, "rw", 0),
        TileRegister("DEST_CG_CTRL", 0x240, "wo", None),
    ),
    load_rule=LoadRule(
        sections=(".init", ".text", ".ldm_data", ".gcov_info", ".thread_local"),
        loader_section=".loader_init",
        refused_arch={"xttwh": "Wormhole B0", "xttqsr": "Quasar"},
    ),
    # The pages give no FIFO capacities (TensixCoprocessor/README.md only says a full FIFO
    # stalls the pushing core).  ttsim v1.10.0 stalls a .ttinsn push while the thread holds
    # more than 52 instructions after MOP/REPLAY expansion (tensix.cpp:162-168); tdbg stalls
    # any push at 52, which bounds how far RISC-V execution runs ahead.
    wait_gate_capacity=52,
    clock_hz=1_350_000_000,     # BabyRISCV/README.md: 1.35 GHz
    # BlackholeA0 BabyRISCV/CSRs.md (tt-isa-documentation 585749d1): every CSR the cores
    # recognise; any other is no instruction the core has.  The F and V state (fcsr, the
    # vector CSRs: T2 only) and the event counters belong to parts tdbg does not execute;
    # tdbg counts no instructions (minstret) and models no interrupts (intp_restore_pc).
    csrs=(
        CsrSpec(0x003, "fcsr", "unmodelled", why="the F extension is not executed by tdbg"),
        *(CsrSpec(n, name, "unmodelled", why="the V extension (RISCV T2) is not executed by tdbg")
          for n, name in ((0x008, "vstart"), (0x009, "vxsat"), (0x00A, "vxrm"), (0xC20, "vl"), (0xC21, "vtype"),
                          (0xC22, "vlenb"))),
        CsrSpec(0x300, "mstatus", "constant", 0x8000_6600),
        CsrSpec(0x301, "misa", "constant", 0x4020_1123),
        CsrSpec(0x320, "mcountinhibit", "scratch"),
        CsrSpec(0x323, "mhpmevent3", "scratch"),
        CsrSpec(0x324, "mhpmevent4", "scratch"),
        CsrSpec(0x7C0, "cfg0", "cfg0", 16 << 13),           # "At reset ... StMergeTimer ... 16"
        CsrSpec(0x7C1, "pmacfg0", "scratch"),               # strong ordering: tdbg's accesses are ordered
        CsrSpec(0x7C2, "pmacfg1", "scratch"),
        CsrSpec(0x7C3, "cfg1", "scratch"),
        CsrSpec(0x7C4, "hwa_mask", "scratch"),
        CsrSpec(0x7C5, "hwa_cfg", "scratch"),
        CsrSpec(0x7C6, "vgsrc", "scratch"),
        CsrSpec(0xB00, "mcycle", "cycle"),
        CsrSpec(0xB80, "mcycleh", "cycleh"),
        CsrSpec(0xC00, "cycle", "cycle"),                   # "Read/write alias of mcycle"
        CsrSpec(0xC80, "cycleh", "cycleh"),
        *(CsrSpec(n, name, "unmodelled", why="tdbg counts no retired instructions")
          for n, name in ((0xB02, "minstret"), (0xB82, "minstreth"), (0xC02, "instret"), (0xC82, "instreth"))),
        *(CsrSpec(n, name, "unmodelled", why="tdbg counts no hardware performance events")
          for n, name in ((0xB03, "mhpmcounter3"), (0xB04, "mhpmcounter4"), (0xB83, "mhpmcounter3h"),
                          (0xB84, "mhpmcounter4h"))),
        CsrSpec(0xBC0, "tt_cfg_qstatus", "unmodelled", why="the Tensix frontend status CSRs are not modelled"),
        CsrSpec(0xBC1, "tt_cfg_bstatus", "unmodelled", why="the Tensix busy status CSRs are not modelled"),
        *(CsrSpec(0xBC2 + i, f"tt_cfg_sstatus{i}", "unmodelled", scratch_on=("B", "NC"),
                  why="on a TRISC it is a NoC overlay stream register, which tdbg does not model")
          for i in range(8)),
        CsrSpec(0xBCA, "intp_restore_pc", "unmodelled", why="tdbg models no interrupts"),
        CsrSpec(0xF14, "mhartid", "readonly", 0),
    ),
    # CSRs.md "cfg0"; every field but EnBFloat* changes timing, which tdbg does not model, or
    # nothing.  A write may set the bits ttsim v1.10.0 accepts (riscv_impl.h:1173: DisBp,
    # DisLowCash, DisTriscCache, DisLowCachePeriodicFlush; the firmware and tt-llk's boot set
    # no others) and keep StMergeTimer, whose reset value the page gives; any other bit stops.
    cfg0_fields=((0, 1, "DisLdBufByp"), (1, 1, "DisBp"), (2, 1, "DisIcPrefetch"), (3, 1, "DisLowCash"),
                 (4, 1, "DisableDataEcc"), (5, 2, "Reserved"), (7, 1, "DisPmcWrapArnd"), (8, 1, "PmcClrOnRd"),
                 (9, 1, "SyncAllOps"), (10, 1, "DisCsrSync"), (11, 1, "DisVec128b"), (12, 1, "DisStMerge"),
                 (13, 5, "StMergeTimer"), (18, 1, "DisTriscCache"), (19, 1, "DisMultiMemLdOps"),
                 (20, 1, "DisRegForwarding"), (21, 3, "Reserved"), (24, 1, "DisLowCachePeriodicFlush"),
                 (25, 1, "Reserved"), (26, 2, "BpHistSel"), (28, 1, "EnRespOrderFifo"), (29, 1, "DisTTStatusReg"),
                 (30, 1, "EnBFloat"), (31, 1, "EnBFloatRTNE")),
    cfg0_modelled=0x0104_000A | (0x1F << 13),
    # Nothing is mapped above L1 (0x0018_0000) before MEM_LOCAL_BASE, nor above
    # TENSIX_CFG_BASE's 64 KiB (BabyRISCV/README.md "Memory map"): trampolines for the code in
    # the high part of L1 go above it, for the low part just below 2**32 (a jal wraps).
    trampoline_spaces=((0xFFF8_0000, 0x8_0000), (0x0018_0000, 0x8_0000)),
    # The NIU: WormholeB0 NoC/MemoryMap.md and Counters.md for what each register does;
    # Blackhole's offsets from tt-metal's blackhole noc_parameters.h (the ttnn 0.81.1 wheel) as
    # ttsim v1.10.0 decodes them (tile.cpp:1322-1473: NOC_ID_LOGICAL is NOC_CFG(0x12)).  The
    # grid: tt-metal's blackhole_140_arch.yaml (17 x 12, DRAM channels' endpoints, PCIe, ARC,
    # Ethernet, router-only tiles); the tile is the first worker, (1, 2), ttsim's tile 0.
    noc=NocSpec(
        niu_bases=(0xFFB2_0000, 0xFFB3_0000),
        cmd_buf_stride=0x800,
        cmd_regs={"TARG_ADDR_LO": 0x00, "TARG_ADDR_MID": 0x04, "TARG_ADDR_HI": 0x08, "RET_ADDR_LO": 0x0C,
                  "RET_ADDR_MID": 0x10, "RET_ADDR_HI": 0x14, "PACKET_TAG": 0x18, "CTRL": 0x1C, "AT_LEN_BE": 0x20,
                  "AT_LEN_BE_1": 0x24, "AT_DATA": 0x28, "BRCST_EXCLUDE": 0x2C, "CMD_CTRL": 0x40},
        niu_regs={"NODE_ID": 0x44, "ENDPOINT_ID": 0x48, "CLEAR_OUTSTANDING_REQ_CNT": 0x60, "CMD_BUF_AVAIL": 0x64,
                  "NIU_CFG_0": 0x100, "ROUTER_CFG_0": 0x104, "ROUTER_CFG_1": 0x108, "ROUTER_CFG_2": 0x10C,
                  "ROUTER_CFG_3": 0x110, "ROUTER_CFG_4": 0x114, "NOC_ID_LOGICAL": 0x148},
        counters={0x0: "NIU_MST_ATOMIC_RESP_RECEIVED", 0x1: "NIU_MST_WR_ACK_RECEIVED", 0x2: "NIU_MST_RD_RESP_RECEIVED",
                  0x3: "NIU_MST_RD_DATA_WORD_RECEIVED", 0x4: "NIU_MST_CMD_ACCEPTED", 0x5: "NIU_MST_RD_REQ_SENT",
                  0x6: "NIU_MST_NONPOSTED_ATOMIC_SENT", 0x7: "NIU_MST_POSTED_ATOMIC_SENT",
                  0x8: "NIU_MST_NONPOSTED_WR_DATA_WORD_SENT", 0x9: "NIU_MST_POSTED_WR_DATA_WORD_SENT",
                  0xA: "NIU_MST_NONPOSTED_WR_REQ_SENT", 0xB: "NIU_MST_POSTED_WR_REQ_SENT",
                  0xC: "NIU_MST_NONPOSTED_WR_REQ_STARTED", 0xD: "NIU_MST_POSTED_WR_REQ_STARTED",
                  0xE: "NIU_MST_RD_REQ_STARTED", 0xF: "NIU_MST_NONPOSTED_ATOMIC_STARTED",
                  **{0x10 + i: f"NIU_MST_REQS_OUTSTANDING_ID({i})" for i in range(16)},
                  **{0x20 + i: f"NIU_MST_WRITE_REQS_OUTGOING_ID({i})" for i in range(16)},
                  0x30: "NIU_SLV_ATOMIC_RESP_SENT", 0x31: "NIU_SLV_WR_ACK_SENT", 0x32: "NIU_SLV_RD_RESP_SENT",
                  0x33: "NIU_SLV_RD_DATA_WORD_SENT", 0x34: "NIU_SLV_REQ_ACCEPTED", 0x35: "NIU_SLV_RD_REQ_RECEIVED",
                  0x36: "NIU_SLV_NONPOSTED_ATOMIC_RECEIVED", 0x37: "NIU_SLV_POSTED_ATOMIC_RECEIVED",
                  0x38: "NIU_SLV_NONPOSTED_WR_DATA_WORD_RECEIVED", 0x39: "NIU_SLV_POSTED_WR_DATA_WORD_RECEIVED",
                  0x3A: "NIU_SLV_NONPOSTED_WR_REQ_RECEIVED", 0x3B: "NIU_SLV_POSTED_WR_REQ_RECEIVED",
                  0x3C: "NIU_SLV_NONPOSTED_WR_REQ_STARTED", 0x3D: "NIU_SLV_POSTED_WR_REQ_STARTED"},
        max_packet=16384,                 # NOC_MAX_BURST_SIZE: 256 words of 64 bytes
        size=(17, 12),
        tile=(1, 2),
        tensix=frozenset((x, y) for x in (*range(1, 8), *range(10, 17)) for y in range(2, 12)),
        dram={(x, y): channel + 4 * (x == 9)
              for x in (0, 9)
              for channel, ys in enumerate(((0, 1, 11), (2, 10, 3), (9, 4, 8), (5, 7, 6)))
              for y in ys},
        dram_channel_size=4_278_190_080,  # dram_bank_size
        others={(8, 0): "ARC", (2, 0): "PCIe", (11, 0): "PCIe",
                **{(x, 1): "Ethernet" for x in (*range(1, 8), *range(10, 17))},
                **{(x, 0): "router" for x in (1, 3, 4, 5, 6, 7, 10, 12, 13, 14, 15, 16)},
                **{(8, y): "router" for y in range(1, 12)}},
        translated=_bh_translation(),
    ),
    # The stream registers tt-metal's circular buffers and firmware use (tt-metal's blackhole
    # noc_overlay_parameters.h: indices, MEM_WORD_ADDR_WIDTH = 17 bits), as ttsim v1.10.0 keeps
    # them (tile.cpp:1812-1853).
    overlay=OverlaySpec(
        streams=64,
        stride=0x1000,
        registers={"STREAM_REMOTE_SRC": (4, 24), "STREAM_REMOTE_DEST_BUF_START": (8, 17),
                   "STREAM_REMOTE_DEST_BUF_SIZE": (10, 17), "STREAM_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE": (270, 32),
                   "STREAM_REMOTE_DEST_BUF_SPACE_AVAILABLE": (297, 17)},
    ),
)
