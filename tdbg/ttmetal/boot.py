"""The host preset: boot Tenstorrent's Blackhole firmware on the tile as tt-metal 0.81.1's host
does (slow dispatch), until the five cores wait in their idle loops for a go message.

Measured first: tt-metal 0.81.1 itself opening a device on ttsim (``libtt_metal.so`` from the
wheel, every host access to the tile logged); what it writes is computed here from named facts
(``memmap``: dev_mem_map.h; ``mailboxes``: the firmware's ``mailboxes_t`` and dev_msgs.h;
``device``: the device descriptors), in its order:

1. ``SOFT_RESET_0``: all five cores held (``assert_tensix_workers_impl``);
2. ``mailboxes.watcher``: the watcher's initial state, written with the watcher off too;
3. ``mailboxes.core_info`` (``populate_core_info_msg``);
4. the bank tables at ``MEM_BANK_TO_NOC_SCRATCH`` (``initialize_device_bank_to_noc_tables``)
   and the logical-to-virtual tables at ``MEM_LOGICAL_TO_VIRTUAL_SCRATCH``;
5. the firmware (tt-metal's ELF loader: ``.text`` at its address, ``.data`` at
   ``MEM_*_INIT_LOCAL_L1_BASE_SCRATCH``; here the session's loader with ``local_init``);
6. ``launch[8]``: zero but ``kernel_config.mode = DISPATCH_MODE_HOST``;
   ``go_messages[0].signal = RUN_MSG_INIT``; ``launch_msg_rd_ptr = 0``, ``go_message_index = 0``;
7. a ``jal`` to ``MEM_BRISC_FIRMWARE_BASE`` at BRISC's reset PC (``generate_risc_startup_addr``);
8. ``SOFT_RESET_0``: BRISC released; it releases the others (``brisc.cc``).

The writes are the session's set-up (written while the program is not started, written again
by every ``run``).  ``BootHost`` then plays the host while the tile runs: when every core waits
it checks that ``go_messages[0].signal`` reads ``RUN_MSG_DONE`` (the host's
``wait_until_cores_done``) and ends the run with a ``StopKind.HOST`` stop naming each core's
wait; any other wait is the hang it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tdbg.debug import Stop, StopKind
from tdbg.session import Session, SessionError
from tdbg.ttmetal import device, kit
from tdbg.ttmetal.mailboxes import (
    ADDRESSABLE_CORE, CORE_COORD_INVALID, CORE_MAGIC_WORKER, DEBUG_ASSERT_OK, DEBUG_SANITIZE_OK,
    DISPATCH_MODE_HOST, LAUNCH_MSG_BUFFER_NUM_ENTRIES, MAX_PHYSICAL_NON_WORKER_CORES, MAX_VIRTUAL_NON_WORKER_CORES,
    RUN_MSG_DONE, RUN_MSG_INIT, RUN_MSG_NAMES, SENTINEL_OK, WATCHER_DISABLED, Mailboxes,
)
from tdbg.ttmetal.memmap import (
    BANK_TO_NOC_SCRATCH, BOOT_CODE_BASE, FIRMWARE_BASE, INIT_LOCAL_L1_BASE_SCRATCH, L1_UNRESERVED_START,
    LOGICAL_TO_VIRTUAL_SCRATCH,
)

#: tdbg's core -> tt-metal's processor (and its folder in ``pre-compiled/<hash>/``), in tt-metal's
#: processor order (PROCESSOR_INDEX 0..4; the kit's ``PROCESSORS``).
PROCESSORS = {p.core: name for name, p in kit.PROCESSORS.items()}
FIRMWARE = kit.FIRMWARE
#: The tile tdbg models: the first worker, NoC 0 (1, 2), logical (0, 0).
NOC_XY_BITS = 6                       # noc_parameters.h NOC_ADDR_NODE_ID_BITS: xy = y << 6 | x


class TtMetalError(SessionError):
    """The tt-metal host cannot do what was asked; the message is one line."""


@dataclass(frozen=True)
class HostWrite:
    """One write of the host: where, the bytes, and what it is."""

    address: int
    data: bytes
    meaning: str


def firmware_dir(path: str | Path | None = None) -> Path:
    """The pre-compiled firmware set: ``path`` (a ``pre-compiled/<hash>`` folder) or the ttnn
    wheel's ``FIRMWARE`` set (``tdbg.toolchain.ttnn``, obtained once)."""
    if path is None:
        try:
            from tdbg.toolchain import ttnn
        except ImportError:   # the wheel helper is not in this tdbg yet: its TDBG_TTNN_DIR, as it reads it
            given = os.environ.get("TDBG_TTNN_DIR")
            if not given:
                raise TtMetalError("no ttnn wheel: give the firmware folder (pre-compiled/<hash>) or set "
                                   "TDBG_TTNN_DIR to an unpacked ttnn wheel") from None
            path = Path(given) / "ttnn" / "tt_metal" / "pre-compiled" / FIRMWARE
        else:
            try:
                path = ttnn.tree().precompiled / FIRMWARE
            except ttnn.TtnnUnavailable as exc:
                raise TtMetalError(str(exc)) from None
    folder = Path(path)
    missing = [p for p in PROCESSORS.values() if not (folder / p / f"{p}.elf").is_file()]
    if missing:
        raise TtMetalError(f"{folder}: no {', '.join(f'{p}/{p}.elf' for p in missing)} (a pre-compiled firmware "
                           "folder holds brisc/brisc.elf ... trisc2/trisc2.elf)")
    return folder


#: Where tt-metal's build of the wheel's firmware had its tt_metal tree: the source paths its DWARF
#: records (``/project/tt_metal/hw/firmware/src/tt-1xx/ncrisc.cc``, measured in 0.81.1's ELFs).
FIRMWARE_BUILD_TREE = "/project/tt_metal"


def load_firmware(session: Session, folder: Path) -> None:
    """The five firmware ELFs placed as tt-metal's loader places them, in place of whatever the
    cores held (the bundled demo on T0 included): the earlier programs are taken away first, so
    their L1 does not clash with the new firmware's.  If one of the five does not load, the
    earlier programs are put back and the error raised.  Their sources are those of the tt_metal
    tree the folder is in (``tt_metal/pre-compiled/<hash>``): a source path substitution from
    ``FIRMWARE_BUILD_TREE`` to it, unless one is set already (``show substitute-path``)."""
    earlier = {core: image.path for core, image in session.programs.items()}
    for core in earlier:
        session.load(core, None)
    try:
        for core, processor in PROCESSORS.items():
            session.load(core, folder / processor / f"{processor}.elf", local_init=INIT_LOCAL_L1_BASE_SCRATCH[core])
    except SessionError:
        for core in PROCESSORS:
            session.load(core, None)
        for core, path in earlier.items():
            session.load(core, path)
        raise
    tree = folder.resolve().parent.parent
    rules = session.source_path.substitutions
    if (tree / "hw" / "firmware").is_dir() and not any(old == FIRMWARE_BUILD_TREE for old, _ in rules):
        session.source_path.substitute(FIRMWARE_BUILD_TREE, str(tree))


def soft_reset_held(session: Session, released: tuple[str, ...] = ()) -> int:
    """``SOFT_RESET_0`` with every core's bit set but ``released``'s (TileControlDebugStatus.md)."""
    value = 0
    for core in PROCESSORS:
        if core not in released:
            value |= 1 << session.profile.core(core).soft_reset_bit
    return value


def soft_reset_address(session: Session) -> int:
    return session.profile.devices_of("tile registers")[0].base + session.profile.register("SOFT_RESET_0").offset


def jal(target: int) -> int:
    """``jal x0, target`` at address 0 (tt-metal's ``generate_risc_startup_addr``: RV32I J-type)."""
    return (((target >> 20) & 1) << 31) | (((target >> 1) & 0x3FF) << 21) | (((target >> 11) & 1) << 20) \
        | (((target >> 12) & 0xFF) << 12) | 0x6F


def xy(coord: tuple[int, int]) -> int:
    """A NoC coordinate as the bank tables hold it (``NOC_XY_ENCODING``)."""
    return coord[1] << NOC_XY_BITS | coord[0]


def watcher_init(mailboxes: Mailboxes) -> HostWrite:
    """``watcher_msg_t`` as tt-metal's watcher server initialises it: disabled, every waypoint
    'X', the sanitizers and the assert at their "OK" sentinels, the rest zero."""
    w = mailboxes.record("watcher")
    w.set(".enable", WATCHER_DISABLED)
    for risc in range(len(PROCESSORS)):
        w.set(f".debug_waypoint[{risc}].waypoint[0]", ord("X"))
    for noc in range(2):
        for member in ("noc_addr", "l1_addr", "len", "which_risc"):
            size = mailboxes.field(f"watcher.sanitize[{noc}].{member}").size
            w.set(f".sanitize[{noc}].{member}", SENTINEL_OK[size])
        w.set(f".sanitize[{noc}].return_code", DEBUG_SANITIZE_OK)
        for member in ("is_multicast", "is_write", "is_target"):
            w.set(f".sanitize[{noc}].{member}", SENTINEL_OK[1])
    w.set(".assert_status.line_num", SENTINEL_OK[2])
    w.set(".assert_status.tripped", DEBUG_ASSERT_OK)
    w.set(".assert_status.which", SENTINEL_OK[1])
    return HostWrite(w.address, bytes(w.data), "mailboxes.watcher: the watcher's initial state (disabled)")


def core_info(mailboxes: Mailboxes, session: Session) -> HostWrite:
    """``core_info_msg_t`` as ``populate_core_info_msg`` fills it for a worker of this device."""
    c = mailboxes.record("core_info")
    c.set(".noc_pcie_addr_base", device.PCIE_ADDR_RANGE[0])
    c.set(".noc_pcie_addr_end", device.PCIE_ADDR_RANGE[1])
    c.set(".noc_dram_addr_base", 0)
    c.set(".noc_dram_addr_end", device.NUM_DRAM_BANKS * device.DRAM_BANK_SIZE)
    for i in range(MAX_PHYSICAL_NON_WORKER_CORES):    # Blackhole with virtual coordinates: unused
        _core(c, f".non_worker_cores[{i}]", None, "UNKNOWN")
    eth, dram = set(device.ETH_VIRTUAL), {xy for noc in (0, 1) for xy in device.dram_bank_xy(noc)}
    found = device.virtual_non_worker_cores()
    for i in range(MAX_VIRTUAL_NON_WORKER_CORES):
        coord = found[i] if i < len(found) else None
        kind = "UNKNOWN" if coord is None else "ETH" if coord in eth else "DRAM" if coord in dram else "PCIE"
        _core(c, f".virtual_non_worker_cores[{i}]", coord, kind)
    for i in range(2):
        c.set(f".harvested_coords[{i}]", CORE_COORD_INVALID)
        c.set(f".virtual_harvested_coords[{i}]", CORE_COORD_INVALID)
    noc = session.profile.noc
    c.set(".noc_size_x", noc.size[0])
    c.set(".noc_size_y", noc.size[1])
    c.set(".worker_grid_size_x", len(device.worker_columns(session.profile)))
    c.set(".worker_grid_size_y", len(device.worker_rows(session.profile)))
    x, y = device.logical(noc.tile, session.profile)
    c.set(".absolute_logical_x", x)
    c.set(".absolute_logical_y", y)
    c.set(".l1_unreserved_start", L1_UNRESERVED_START)
    c.set(".core_magic_number", CORE_MAGIC_WORKER)
    return HostWrite(c.address, bytes(c.data), "mailboxes.core_info (populate_core_info_msg)")


def _core(record, member: str, coord: tuple[int, int] | None, kind: str) -> None:
    record.set(member + ".x", CORE_COORD_INVALID if coord is None else coord[0])
    record.set(member + ".y", CORE_COORD_INVALID if coord is None else coord[1])
    record.set(member + ".type", ADDRESSABLE_CORE[kind])


def bank_tables(session: Session) -> list[HostWrite]:
    """The tables ``noc_bank_table_init`` copies (dev_mem_map.h MEM_BANK_TO_NOC_SCRATCH):
    ``dram_bank_to_noc_xy[2][8]``, ``l1_bank_to_noc_xy[2][130]`` (uint16 each), then
    ``bank_to_dram_offset[8]`` and ``bank_to_l1_offset[130]`` (int32, all 0)."""
    dram = [xy(c) for noc in (0, 1) for c in device.dram_bank_xy(noc)]
    l1 = [xy(c) for _ in (0, 1) for c in device.l1_banks(session.profile)]
    at = BANK_TO_NOC_SCRATCH
    out = []
    for name, values, size in (("dram_bank_to_noc_xy", dram, 2), ("l1_bank_to_noc_xy", l1, 2),
                               ("bank_to_dram_offset", [0] * device.NUM_DRAM_BANKS, 4),
                               ("bank_to_l1_offset", [0] * (len(l1) // 2), 4)):
        data = b"".join(v.to_bytes(size, "little") for v in values)
        out.append(HostWrite(at, data, name))
        at += len(data)
    return out


def logical_to_virtual(session: Session) -> list[HostWrite]:
    """``worker_logical_col_to_virtual_col`` and, at + round_up(NoC x size, 4), ``..._row_...``
    (each padded to 4 bytes)."""
    cols, rows = device.worker_columns(session.profile), device.worker_rows(session.profile)
    pad = lambda values: bytes(values).ljust(-(-len(values) // 4) * 4, b"\0")  # noqa: E731
    rows_at = LOGICAL_TO_VIRTUAL_SCRATCH + (-(-session.profile.noc.size[0] // 4) * 4)
    return [HostWrite(LOGICAL_TO_VIRTUAL_SCRATCH, pad(cols), "worker_logical_col_to_virtual_col"),
            HostWrite(rows_at, pad(rows), "worker_logical_row_to_virtual_row")]


def boot_writes(session: Session, mailboxes: Mailboxes) -> list[HostWrite]:
    """Everything the host writes to boot the tile, in tt-metal's order (the firmware's bytes
    are the loader's: ``load_firmware``)."""
    reset = soft_reset_address(session)
    held = soft_reset_held(session).to_bytes(4, "little")
    launches = []
    for i in range(LAUNCH_MSG_BUFFER_NUM_ENTRIES):
        record = mailboxes.record(f"launch[{i}]")
        record.set(".kernel_config.mode", DISPATCH_MODE_HOST)
        launches.append(HostWrite(record.address, bytes(record.data), f"mailboxes.launch[{i}]: mode = DISPATCH_MODE_HOST"))
    go = mailboxes.record("go_messages[0]")
    go.set(".signal", RUN_MSG_INIT)
    u32 = lambda path, value: HostWrite(mailboxes.address(path), value.to_bytes(4, "little"), f"mailboxes.{path}")  # noqa: E731
    return [
        HostWrite(reset, held, "SOFT_RESET_0: every core held"),
        watcher_init(mailboxes),
        core_info(mailboxes, session),
        *bank_tables(session),
        *logical_to_virtual(session),
        *launches,
        HostWrite(go.address, bytes(go.data), "mailboxes.go_messages[0]: signal = RUN_MSG_INIT"),
        u32("launch_msg_rd_ptr", 0),
        u32("go_message_index", 0),
        HostWrite(BOOT_CODE_BASE, jal(FIRMWARE_BASE["B"] - BOOT_CODE_BASE).to_bytes(4, "little"),
                  "jal x0 to MEM_BRISC_FIRMWARE_BASE at BRISC's reset PC"),
        HostWrite(reset, soft_reset_held(session, ("B",)).to_bytes(4, "little"), "SOFT_RESET_0: BRISC released"),
    ]


@dataclass(frozen=True)
class CoreWait:
    """Where a core waits for the host: its PC, what it reads there, and its loop."""

    core: str
    pc: int
    reason: str
    loop: frozenset[int]


class BootHost:
    """tt-metal's host while its firmware boots: when every core waits, the boot is done if
    ``go_messages[0].signal`` reads ``RUN_MSG_DONE`` (a ``StopKind.HOST`` stop naming each
    core's wait); otherwise the cores hang, and the deadlock says where."""

    def __init__(self, mailboxes: Mailboxes) -> None:
        self.mailboxes = mailboxes

    def restarted(self, session: Session) -> None:
        """Nothing to do: the boot writes are the session's set-up."""

    def saved(self) -> object:
        """Nothing: the boot's host keeps no state."""
        return None

    def resumed(self, saved: object) -> None:
        """Nothing to put back."""

    def idle(self, session: Session, stop: Stop) -> Stop:
        signal = self.signal(session)
        if signal != RUN_MSG_DONE:
            return stop
        return Stop(StopKind.HOST, stop.core, stop.pc,
                    detail=f"tt-metal firmware booted: go_messages[0].signal = {RUN_MSG_NAMES.get(signal, hex(signal))}; "
                           "every core waits for the host:",
                    report=tuple(f"  {w.core}: {w.reason}" for w in waits(session)))

    def signal(self, session: Session) -> int:
        """``go_messages[0].signal`` as the host reads it."""
        return self.mailboxes.read("go_messages[0].signal")


def waits(session: Session) -> list[CoreWait]:
    """Every firmware core's wait, in the profile's order (a core that does not wait is not listed)."""
    out = []
    for core in session.core_names:
        wait = session.wait(core) if session.has_firmware(core) else None
        if wait is not None:
            with session.on_core(core):
                pc = session.register("pc")
                name = session.symbolize(pc)
            out.append(CoreWait(core, pc, f"at {pc:#x}{' ' + name if name else ''}: {wait.reason}", wait.loop))
    return out


def prepare(session: Session, folder: str | Path | None = None) -> BootHost:
    """Load the firmware and write the boot as the session's set-up (replacing any earlier
    set-up); the session's host is then a ``BootHost``.  ``run`` boots the tile."""
    found = firmware_dir(folder)
    load_firmware(session, found)
    session.setup.clear()
    mailboxes = Mailboxes(session)
    with session.on_core("B"):
        for write in boot_writes(session, mailboxes):
            session.write_memory(write.address, write.data)
    session.name_memory(mailboxes.name)
    host = BootHost(mailboxes)
    session.host = host
    session.name_noc(None)      # no buffers yet (a program's host names them)
    return host


def boot(session: Session, folder: str | Path | None = None) -> list[CoreWait]:
    """Boot the firmware (``prepare``, then run until every core waits for the host); each
    core's wait.  A ``TtMetalError`` if the run stops otherwise (its stop named)."""
    prepare(session, folder)
    stop = session.cont()
    if stop.kind is not StopKind.HOST:
        raise TtMetalError(f"the firmware did not boot: {stop.describe()}")
    return waits(session)
