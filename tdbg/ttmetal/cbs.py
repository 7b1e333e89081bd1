"""A program's circular buffers as a debugger sees them.

tt-metal 0.81.1 on Blackhole counts a CB's pages in the NoC overlay: CB ``n`` is stream
``OPERAND_START_STREAM + n``, whose ``STREAM_REMOTE_DEST_BUF_SIZE`` register counts the pages the
producer pushed (``cb_push_back``: pages received) and ``STREAM_REMOTE_DEST_BUF_START`` the pages
the consumer popped (``cb_pop_front``: pages acknowledged), both modulo 2**16
(``internal/tt-1xx/blackhole/stream_io_map.h``, ``api/dataflow/dataflow_api.h``).  A consumer waits
in ``cb_wait_front`` polling pages received, a producer in ``cb_reserve_back`` polling pages
acknowledged.  Pages are pushed and popped in order, so the next page to read is page
``acked % pages`` of the CB and the next to write ``received % pages``.  Each core also keeps its
own view in the firmware's ``cb_interface[n]`` (``LocalCBInterface``, internal/circular_buffer_
interface.h: eight words, a TRISC's addresses in 16-byte units, ``CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT``):
read and write pointers, and on a TRISC its own counts: the packer's TRISC counts the pages it
pushed before the packer's instruction that adds them to pages received has run
(``llk_wait_for_free_tiles`` uses that count, ``llk_io_pack.h``), the unpacker's the pages it popped.

How many pages a waiting core asked for is read from its polling loop (``asked_pages``): the
loop computes pages in the CB (or free) from the count it polls and branches back while that is
less than ``num_pages`` (``bltu``: the loop-invariant operand's register holds the count) or
while it is zero (``beqz``: one page), as the bundled clang compiles ``cb_wait_front`` /
``cb_reserve_back`` / ``llk_wait_tiles`` / ``llk_wait_for_free_tiles`` (measured on ttnn 0.81.1's
kernels); any other loop shape leaves the count unknown.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.arch import data_formats
from tdbg.riscv.registers import ABI_NAMES
from tdbg.session import SessionError
from tdbg.ttmetal.program import DATA_FORMATS

if TYPE_CHECKING:
    from tdbg.session import Session
    from tdbg.ttmetal.program import CircularBuffer, ProgramHost

OPERAND_START_STREAM = 0                    # stream_io_map.h
PAGES_RECEIVED = "STREAM_REMOTE_DEST_BUF_SIZE"    # get_cb_tiles_received_ptr
PAGES_ACKED = "STREAM_REMOTE_DEST_BUF_START"      # get_cb_tiles_acked_ptr
COMPUTE_ADDR_SHIFT = 4                      # tt-metalium/circular_buffer_constants.h
COUNT_MASK = 0xFFFF                         # the counts are compared as uint16_t
#: The L1 format a CB's data format (``program.DATA_FORMATS``) is read as (``tile`` / ``l1_data``'s
#: names): the one with its layout (``tdbg.arch.data_formats.TT_METAL_FORMATS``).
L1_FORMATS = {name: next(f.name for f in data_formats.L1_FORMATS.values()
                         if f.format == data_formats.TT_METAL_FORMATS[name].layout and not f.unsigned)
              for name in DATA_FORMATS}


def register_address(session: Session, cb: int, name: str) -> int:
    """The overlay stream register ``name`` of CB ``cb``."""
    overlay = session.profile.overlay
    base = session.profile.device("NoC overlay").base
    return base + (OPERAND_START_STREAM + cb) * overlay.stride + 4 * overlay.registers[name][0]


#: LocalCBInterface's words (circular_buffer_interface.h), 32 bytes a CB (CBInterface's union)
INTERFACE_WORDS = ("fifo_size", "fifo_limit", "fifo_page_size", "fifo_num_pages", "fifo_rd_ptr", "fifo_wr_ptr",
                   "tiles_acked_received", "fifo_wr_tile_ptr")
INTERFACE_BYTES = 4 * len(INTERFACE_WORDS)


@dataclass(frozen=True)
class Interface:
    """A core's view of a CB (its ``cb_interface[n]``), addresses in bytes."""

    core: str
    read: int
    write: int
    pages: int                 # fifo_num_pages (set where the core writes the CB)
    acked: int                 # its own count of pages popped (the unpacker's TRISC)
    received: int              # ... of pages pushed (the packer's TRISC)


@dataclass(frozen=True)
class Wait:
    """A core waiting on a CB: ``front`` (cb_wait_front: for pages) or ``back`` (cb_reserve_back:
    for free space), where."""

    core: str
    side: str
    where: str
    asked: int | None = None     # the pages (or free pages) it waits for; None: not known


@dataclass(frozen=True)
class State:
    """One CB now."""

    cb: CircularBuffer
    address: int
    received: int
    acked: int
    pushed_by: tuple[str, int] | None       # the last store by a kernel to pages received
    popped_by: tuple[str, int] | None       # ... to pages acknowledged
    views: dict[str, Interface]             # each core that set the CB up
    waits: list[Wait]

    def counts(self, wait: Wait) -> tuple[int, int]:
        """(received, acknowledged) as the waiting core compares them: the registers, with a
        TRISC's own count of what it pushed (the packer's) or popped (the unpacker's)."""
        view = self.views.get(wait.core)
        own = view is not None and wait.core.startswith("T")
        if wait.side == "back":
            return (view.received if own else self.received), self.acked
        return self.received, (view.acked if own else self.acked)

    @property
    def in_cb(self) -> int:
        return (self.received - self.acked) & COUNT_MASK

    @property
    def front(self) -> int:
        """The address of the next page to read."""
        return self.address + (self.acked % self.cb.pages) * self.cb.page_size

    @property
    def back(self) -> int:
        """The address of the next page to write."""
        return self.address + (self.received % self.cb.pages) * self.cb.page_size

    def page(self, n: int) -> int:
        """The address of the ``n``-th page after the front (wrapping in the CB)."""
        return self.address + ((self.acked + n) % self.cb.pages) * self.cb.page_size

    def describe(self, session: Session) -> list[str]:
        """``info cb``'s lines for it."""
        cb = self.cb
        lines = [f"CB {cb.index}: {cb.pages} pages of {cb.page_size} bytes at {self.address:#x} ({cb.format}): "
                 f"{pages(self.received)} received, {self.acked} acknowledged, {self.in_cb} in the CB",
                 f"  front (next page to read) {self.front:#x}, back (next page to write) {self.back:#x}"]
        for what, by in (("pushed", self.pushed_by), ("popped", self.popped_by)):
            if by is not None:
                lines.append(f"  last {what} by {by[0]} at {session.describe_pc(by[0], by[1])}")
        for view in self.views.values():
            own = f", its own counts: {view.received} pushed, {view.acked} popped" if view.core.startswith("T") else ""
            lines.append(f"  {view.core}: read pointer {view.read:#x}, write pointer {view.write:#x}{own}")
        for wait in self.waits:
            what = "in cb_wait_front for pages" if wait.side == "front" else "in cb_reserve_back for free space"
            lines.append(f"  {wait.core} waits {what}, at {wait.where}")
        return lines


def pages(n: int) -> str:
    return f"{n} page{'' if n == 1 else 's'}"


def states(session: Session, host: ProgramHost, only: int | None = None) -> list[State]:
    """The program's CBs (or CB ``only``) as they are now."""
    table = {i: (cb, host.layout.cb_addresses[i]) for i, cb in host.program.cbs.items()}
    return states_of(session, table, host.runs_kernel, list(host.binaries), only)


def states_of(session: Session, table: dict[int, tuple[CircularBuffer, int]], runs_kernel: Callable[[str, int], bool],
              cores: list[str], only: int | None = None, owner: str = "The program") -> list[State]:
    """The CBs of ``table`` (index -> the CB and its L1 address), or CB ``only``, as they are now;
    ``runs_kernel(core, pc)`` tells a kernel's code from the firmware's, ``cores`` have kernels."""
    if only is not None and only not in table:
        raise SessionError(f"{owner} has no CB {only} (its CBs: {', '.join(map(str, sorted(table))) or 'none'}).")
    waits = _cb_waits(session)
    out = []
    for index in sorted(table) if only is None else [only]:
        received_at, acked_at = (register_address(session, index, n) for n in (PAGES_RECEIVED, PAGES_ACKED))
        received, acked = (_register(session, a) & COUNT_MASK for a in (received_at, acked_at))
        pushed, popped = (session.stream_writer(a) for a in (received_at, acked_at))
        cb, address = table[index]
        out.append(State(cb, address, received, acked,
                         pushed if pushed and runs_kernel(*pushed) else None,    # not the firmware's
                         popped if popped and runs_kernel(*popped) else None,    # set-up of the counts
                         _views(session, cores, index), waits.get(index, [])))
    return out


def _register(session: Session, address: int) -> int:
    with session.on_core("B"):
        return session.read_value(address, 4)


def _cb_waits(session: Session) -> dict[int, list[Wait]]:
    """Each core that polls a CB's count, by CB."""
    registers: dict[int, tuple[int, str]] = {}
    overlay = session.profile.overlay
    for cb in range(overlay.streams - OPERAND_START_STREAM):
        for name, side in ((PAGES_RECEIVED, "front"), (PAGES_ACKED, "back")):
            registers[register_address(session, cb, name)] = (cb, side)
    out: dict[int, list[Wait]] = {}
    for core in session.core_names:
        wait = session.wait(core) if session.has_firmware(core) else None
        if wait is None:
            continue
        for address in ([wait.address] if wait.address is not None else []) + list(wait.reads):
            if address in registers:
                cb, side = registers[address]
                with session.on_core(core):
                    pc = session.register("pc")
                out.setdefault(cb, []).append(Wait(core, side, session.describe_pc(core, pc), asked_pages(session, core, pc)))
                break
    return out


_LOOP_WORDS = 16     # how far after the polling load the loop's branch back is looked for


def asked_pages(session: Session, core: str, pc: int) -> int | None:
    """The count ``core``'s polling loop at ``pc`` waits for (module docstring): from the branch
    back to the loop's head at or before ``pc``, in the ``_LOOP_WORDS`` words after it."""
    with session.on_core(core):
        try:
            raw = session.read_memory(pc, 4 * _LOOP_WORDS)
        except SessionError:
            return None
        words = [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]
        for n, w in enumerate(words):
            if w & 0x7F != 0x63:
                continue
            target = pc + 4 * n + _branch_offset(w)
            if target > pc or pc - target > 4 * _LOOP_WORDS:
                return None                    # the first branch is not the loop's way back
            try:
                head = session.read_memory(target, pc - target)
            except SessionError:
                return None
            body = [int.from_bytes(head[i:i + 4], "little") for i in range(0, len(head), 4)] + words[:n]
            written = {x >> 7 & 31 for x in body if x & 0x7F not in (0x63, 0x23)}
            funct3, rs1, rs2 = w >> 12 & 7, w >> 15 & 31, w >> 20 & 31
            if funct3 == 0 and rs2 == 0 and rs1 in written:        # beqz: while none (of a mask)
                return _beqz_pages(session, body, rs1, written)
            if funct3 in (4, 6) and rs1 in written and rs2 not in written and rs2:   # blt(u): while fewer
                return session.register(ABI_NAMES[rs2])
            return None
    return None


def _beqz_pages(session: Session, body: list[int], reg: int, written: set[int]) -> int | None:
    """What a loop branching back while ``reg`` is zero waits for: one page, or where ``reg`` is
    last an ``and`` / ``andi`` of the count with a mask (clang's ``count & 0xfffe`` for
    ``count < 2``), the lowest page count the mask's 16 bits let through: 2**k for ``~(2**k-1)``."""
    last = next((w for w in reversed(body) if w >> 7 & 31 == reg and w & 0x7F not in (0x63, 0x23)), None)
    if last is None or last >> 12 & 7 != 7 or last & 0x7F not in (0x13, 0x33):
        return 1
    if last & 0x7F == 0x13:                                   # andi
        mask = last >> 20 if not last >> 31 else (last >> 20) - (1 << 12)
    elif last >> 25 == 0 and last >> 20 & 31 not in written:   # and with a loop-invariant mask
        mask = session.register(ABI_NAMES[last >> 20 & 31])
    else:
        return None
    mask &= COUNT_MASK
    low = mask & -mask
    return low if mask and mask == (COUNT_MASK + 1 - low) else None


def _branch_offset(w: int) -> int:
    """A B-type instruction's offset (RISC-V unprivileged ISA, 2.5)."""
    value = ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 63) << 5) | (((w >> 8) & 15) << 1)
    return value - (1 << 13) if value >> 12 else value


def _views(session: Session, cores: list[str], index: int) -> dict[str, Interface]:
    """Each core's ``cb_interface[index]``, where its firmware set the CB up (a FIFO size)."""
    out = {}
    for core in cores:
        with session.on_core(core), session.symbols_from(core):
            try:
                at = session.symbol("cb_interface").addr + index * INTERFACE_BYTES
            except SessionError:           # a firmware without CBs (T1's)
                continue
            words = dict(zip(INTERFACE_WORDS, struct.unpack("<8I", session.read_memory(at, INTERFACE_BYTES))))
        if words["fifo_size"]:
            shift = COMPUTE_ADDR_SHIFT if session.profile.core(core).thread is not None else 0
            counts = words["tiles_acked_received"]
            out[core] = Interface(core, words["fifo_rd_ptr"] << shift, words["fifo_wr_ptr"] << shift,
                                  words["fifo_num_pages"], counts & COUNT_MASK, counts >> 16)
    return out
