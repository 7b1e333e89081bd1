"""The path of every Tensix instruction a core pushes, and the records it leaves: the push log,
the L1 traffic of Tensix instructions, who last wrote each ``Dst`` row (pushes and window
stores), and the trace of ``Dst``-window accesses (``tdbg.emu.pushlog`` holds the records).

A push (a ``.ttinsn`` word the core reaches, or a store to ``INSTRN_BUF_BASE``, BabyRISCV
``PushTensixInstruction.md``) is logged and handed to the coprocessor, which runs it now.  A push
into a full Wait Gate queue stalls the core (``Stall``; the push did not happen).  An event it
raises, or a write to a watched ``Dst`` row or L1 range, stops the core after the push (the push
itself has happened; the words queued behind the instruction that raised it run when the core goes
on, ``go_on``).  A push the debugger makes while the core is stopped raises the event
instead.  With no watch set, the path is a tuple in the log and the coprocessor's call; the
common ``.ttinsn`` words skip it (``tdbg.emu.native_push``: a code hook in C logs and runs them,
keeping ``seq`` and its records, which the log merges in when read).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from tdbg.emu.devices.device import Stall, Wait
from tdbg.emu.pushlog import DstProvenance, DstWriter, L1Access, L1Log, PushLog, WindowAccess, WindowTrace
from tdbg.tensix.state_description import StateDescription, obj, value
from tdbg.tensix.coprocessor import QueueFull
from tdbg.tensix.events import NeverWritten, TensixEvent
from tdbg.tensix.isa import IsaError, isa_of

if TYPE_CHECKING:
    from tdbg.emu.core import Core, Watch
    from tdbg.emu.native_push import Cop, NativePush
    from tdbg.emu.tile import Tile


def _truncate(path: PushPath, position: tuple[int, tuple[int, ...]]) -> None:
    """Back to ``position`` of the push log, and the L1 log to the last push kept."""
    total, per_thread = position
    path.log.truncate(total, list(per_thread))
    last = path.log.last()
    path.l1_log.truncate(last[0].seq if last else 0)


class PushPath:
    """Pushes, their log and the provenance of what they write (module docstring)."""

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        self.profile = tile.profile
        self.coprocessor = tile.coprocessor
        self.log = PushLog(tile.profile.tensix.threads)
        self.l1_log = L1Log()                              # L1 traffic of Tensix instructions
        self.provenance = DstProvenance(tile.profile.tensix.dst_rows)
        self._seq = 0                                      # orders pushes and recorded window accesses
        self.native: NativePush | None = None              # the native push path, once a core has it
        self._cop: Cop | None = None                       # ... its C structure, which holds seq
        self.record_window_writers = False                 # costs a PC read per window access
        self.window_trace: WindowTrace | None = None
        self._rows_written: set[int] | None = None         # DstBits rows the current push wrote (when watched)
        self._l1_written: list[L1Access] | None = None     # L1 it wrote (when watched)
        self._unwritten: list[L1Access] = []               # L1 nothing wrote that instructions read
        self._l1_watched: dict[Watch, bytes] | None = None  # watched L1 it wrote: what each held before
        self.coprocessor.on_dst_write = self._dst_written
        self.coprocessor.on_l1_access = self._l1_accessed

    #: How far the push log goes (the L1 log follows it); the Dst provenance and the window
    #: trace are only cleared by a reset (a restored tile keeps them).
    STATE = StateDescription("pushes", (
        value("log", get=lambda p: (p.log.total, tuple(p.log.per_thread)), put=_truncate,
              reset=lambda p: (0, (0,) * len(p.log.per_thread))),
        obj("provenance", saved=False, reset=lambda p: DstProvenance(p.profile.tensix.dst_rows)),
        value("window_trace", saved=False, reset=lambda p: WindowTrace() if p.window_trace is not None else None),
        obj("unwritten", "_unwritten", saved=False, reset=lambda p: []),
    ))

    @property
    def seq(self) -> int:
        """The sequence number of the newest push or recorded window access (the native path
        keeps it while it exists)."""
        c = self._cop
        return self._seq if c is None else c.seq

    @seq.setter
    def seq(self, value: int) -> None:
        c = self._cop
        if c is None:
            self._seq = value
        else:
            c.seq = value   # (moved by Python: the native side looks again)

    def attach(self, native: NativePush) -> None:
        """The native push path takes over the sequence number and logs its pushes itself."""
        self.native, self.log.native, self._cop = native, native, native.cop

    # -- pushes -----------------------------------------------------------------------------------
    def push(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        """``core`` pushes ``word`` to ``thread`` (module docstring)."""
        try:
            if core.running:
                self._run(core, word, lambda: self.execute(core, thread, pc, word, via))
                return
            try:
                self.execute(core, thread, pc, word, "debugger")
            finally:
                self._unwritten = []
        except QueueFull:
            raise Stall(self.fifo_wait(thread)) from None

    def go_on(self, core: Core) -> None:
        """``core`` continues after a push stopped it: the words queued behind the instruction
        whose event stopped it run now, watched as the push was (a watch names the oldest).  The
        Wait Gate passes instructions in push order, checking every cycle (WaitGate.md), with no
        further push needed; an event stops the core at the push again."""
        cop = self.coprocessor
        word = next((cop.pending(t)[0] for t in range(cop.threads) if cop.queued(t)), None)
        if word is not None:
            self._run(core, word, cop.resume)

    def _run(self, core: Core, word: int | None, run: Callable[[], None]) -> None:
        """``run`` the instructions of a push of the running ``core`` (``word``: the pushed word a
        watch names; None: no watch set): its event, watch hit or L1 read nothing wrote stops it."""
        watched = _Watched(self, core) if word is not None and self.tile.watches else None
        try:
            run()
        except TensixEvent as event:
            self._event(core, event)
            return
        finally:
            if watched is not None:
                watched.written(self)
            unwritten, self._unwritten = self._unwritten, []
        if unwritten:
            self._never_written(core, unwritten)
        if watched is not None:
            watched.report(word)

    def _event(self, core: Core, event: TensixEvent) -> None:
        """Hand a push's ``event`` to ``core``; while its policy lets the core run on, the words
        queued behind the instruction that raised it run too (``go_on``), each event handed on."""
        while not core.push_event(event):
            try:
                self.coprocessor.resume()
                return
            except TensixEvent as e:
                event = e

    def run_rest(self, core: Core, thread: int, words: list[int]) -> None:
        """The rest of the words a push by the running ``core`` expanded to, which the native
        path began running (``tdbg.emu.native_push``; it logged the push): run as ``push`` runs
        them, with no watch set."""
        self._run(core, None, lambda: self.coprocessor.run_expanded(thread, words))

    def _never_written(self, core: Core, unwritten: list[L1Access]) -> None:
        """The push read L1 nothing wrote: the first of it (tdbg.emu.l1_written)."""
        a = unwritten[0]
        what = self.coprocessor.mnemonic(a.word) or f"{a.word:#010x}"
        core.push_event(NeverWritten(f"T{a.thread}'s {what} read this tile {a.start:#x}..{a.end:#x}: never written"))

    def execute(self, core: Core, thread: int, pc: int, word: int, via: str) -> None:
        """Log and run one pushed instruction on ``thread``; events (and ``QueueFull``)
        propagate.  A push from B enters after the MOP expander (PushTensixInstruction.md)."""
        self.seq = seq = self.seq + 1
        self.log.append(seq, pc, core.name, thread, word, via)
        try:
            self.coprocessor.push(thread, word, core.thread is not None)
        except QueueFull:
            self.log.pop()
            self.seq = seq - 1
            raise

    def describe_word(self, word: int) -> str:
        """A pushed word as text (``MOVD2B SrcRow=0 ...``), or its hex if no encoding matches."""
        try:
            return isa_of(self.profile).decode(word).text()
        except IsaError:
            return f"{word:#010x}"

    # -- waits ------------------------------------------------------------------------------------
    def ttsync_wait(self, core: Core) -> Wait:
        """What a TTSync load by ``core`` waits for: its thread's queue to drain."""
        thread = core.thread
        assert thread is not None
        cop = self.coprocessor
        return Wait(f"TTSync load at {core.pc:#010x} waits for the coprocessor",
                    lambda: not cop.queued(thread), lambda: cop.waiting(thread), thread=thread)

    def fifo_wait(self, thread: int) -> Wait:
        """What a push into ``thread``'s full Wait Gate queue waits for."""
        cop, capacity = self.coprocessor, self.profile.tensix.wait_gate_capacity
        return Wait(f"push stalls: thread T{thread} has {capacity} instructions waiting at the Wait Gate",
                    lambda: cop.queued(thread) < capacity, lambda: cop.waiting(thread), thread=thread)

    # -- what pushed instructions wrote -----------------------------------------------------------
    def _dst_written(self, rows: np.ndarray) -> None:
        self.provenance.seq[rows] = self.seq
        if self._rows_written is not None:
            self._rows_written.update(rows.tolist())

    def _l1_accessed(self, thread: int, word: int, ranges: list[tuple[int, int, bool]]) -> None:
        """A Tensix instruction read or wrote L1 (its writes went through ``Tile.write``): log
        it under the current push's sequence number."""
        seq = self.seq
        for start, end, write in ranges:
            access = L1Access(seq, thread, word, start, end, write)
            self.l1_log.append(access)
            if write:
                if self._l1_written is not None:
                    self._l1_written.append(access)
            elif self.tile.l1_written.never_written(start, end):
                self._unwritten.append(access)

    def l1_watched(self, watch: Watch, old: bytes) -> None:
        """A Tensix unit wrote L1 that ``watch`` covers, which held ``old`` (``Tile.write``):
        the push reports it once it is over (the first write of each watch keeps its old value)."""
        if self._l1_watched is not None:
            self._l1_watched.setdefault(watch, old)

    def dst_writer(self, row: int) -> DstWriter | None:
        """The last writer of ``DstBits`` row ``row``, if known."""
        return self.provenance.writer(row, self.log, self.describe_word)

    # -- provenance and tracing of window accesses ------------------------------------------
    def observe_window(self, trace: bool | None = None, writers: bool | None = None) -> None:
        """Turn window-access tracing and window-store provenance on or off (each costs a PC
        read per window access, so both are off by default)."""
        if trace is not None:
            self.window_trace = WindowTrace() if trace else None
        if writers is not None:
            self.record_window_writers = writers
        on = self.window_trace is not None or self.record_window_writers
        self.tile.window_observer = self._observe if on else None

    def _observe(self, core: Core, address: int, size: int, value: int, write: bool) -> None:
        self.seq += 1
        pc = core.pc
        window = self.tile.tensix.window
        assert core.thread is not None
        fmt = window.ctrl(core.thread).fmt
        if self.window_trace is not None:
            spec = window.format(fmt)
            index = (address - (self.profile.dst_window_base or 0)) // (spec.element_size if spec else size)
            view = spec.name if spec else f"reserved fmt {fmt}"
            self.window_trace.append(WindowAccess(self.seq, pc, core.name, index // 16, index % 16, size, value, view, write))
        if write and self.record_window_writers:
            writer = DstWriter(pc, core.name, f"window store ({size} bytes, fmt {fmt})", self.seq)
            self.provenance.record_window(self.seq, writer, sorted(self.window_rows(core, address, size)))

    def window_rows(self, core: Core, address: int, size: int) -> set[int]:
        """``DstBits`` rows a window access by ``core`` would touch."""
        window = self.profile.dst_window
        if window is None or core.thread is None or not window.base <= address < window.base + window.size:
            return set()
        return self.tile.tensix.window.rows_touched(core.thread, address - window.base, size)


class _Watched:
    """What a push may write that a watch covers, as it was before the push: the watched ``Dst``
    rows and (by a Tensix unit: packer, Scalar Unit) the watched L1 ranges."""

    def __init__(self, path: PushPath, core: Core) -> None:
        tile = path.tile
        self.tile, self.core, self.describe = tile, core, path.describe_word
        self.mnemonic: Callable[[int], str | None] = tile.coprocessor.mnemonic
        dst = tile.tensix.dst
        self.dst: list[tuple[Watch, np.ndarray, np.ndarray]] = [
            (w, dst.bits[w.bits_rows].copy(), dst.rows_state(w.bits_rows))
            for w in tile.watches if w.dst_rows and w.kind != "read"]
        self.l1: dict[Watch, bytes] = {}   # filled by ``Tile.write``
        self.rows: set[int] = set()
        self.l1_writes: list[L1Access] = []
        path._rows_written, path._l1_written, path._l1_watched = self.rows, self.l1_writes, self.l1

    def written(self, path: PushPath) -> None:
        """The push is over: stop recording what it writes."""
        path._rows_written = path._l1_written = path._l1_watched = None

    def report(self, word: int) -> None:
        """Stop the core after the push if it wrote a watched L1 range or ``Dst`` row."""
        l1 = self.tile.l1
        for watch in self.tile.watches if self.l1 else ():
            old = self.l1.get(watch)
            if old is None:
                continue
            hit = next((a for a in self.l1_writes if a.start < watch.address + watch.length and watch.address < a.end), None)
            if hit is not None:
                new = int.from_bytes(bytes(l1[watch.address:watch.address + watch.length]), "little")
                detail = f"T{hit.thread} {self.describe(hit.word)} wrote L1 {hit.start:#x}..{hit.end:#x}"
                self.core.push_watch(watch, int.from_bytes(old, "little"), new, detail)
                return
        dst = self.tile.tensix.dst
        for watch, before, unknown in self.dst:   # GDB's watch: a write that changes nothing does not stop
            for row in sorted(watch.dst_rows & self.rows):
                i = watch.bits_rows.index(row)
                now = dst.bits[row]
                changed = np.flatnonzero((now != before[i]) | (dst.rows_state([row])[0] != unknown[i]).any(axis=-1))
                if len(changed):
                    col = int(changed[0])
                    detail = f"{self.mnemonic(word) or hex(word)} wrote DstBits row {row}"
                    self.core.push_watch(watch, int(before[i, col]), int(now[col]), detail)
                    return
