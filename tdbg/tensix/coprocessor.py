"""The Tensix coprocessor: three threads' frontends (MOP Expander, Replay Expander, Wait Gate)
feeding the backend units that tdbg models.

Implements the instruction path of WormholeB0 ``TensixCoprocessor/README.md``,
``MOPExpander.md``, ``REPLAY.md`` and the newer ``WaitGate.md``; each instruction has one row
in ``INSTRUCTIONS`` (its executor, in the module of its unit, and what it waits for).  The
emulation layer (``tdbg.emu``) calls ``push(thread, word)`` for a word that RISC-V T<thread>
stores to ``INSTRN_BUF_BASE``.

State kept here (the rest is architectural state in ``TensixState``):

* per thread: ``RWCs`` (``rwc(thread)``), the MOP Expander's ``MaskHi``, the replay buffer and
  its recording state, the Wait Gate's latched ``STALLWAIT`` / ``SEMWAIT`` (``wait_gate``), and
  the queue of instructions that reached the Wait Gate but have not passed it;
* shared: ``semaphores`` (``Semaphores[8]`` of SyncUnit.md), the Vector Unit (``vector``: LRegs,
  ``LaneConfig``; one for all threads, as ``LReg.md`` / ``README.md`` say), and
  ``unpacker_src_row[2][3]`` (``Unpackers[i].SrcRow[thread]``, written by ``SETDVALID``).

Execution is synchronous: an instruction that passes the Wait Gate completes before ``push``
returns.  An instruction the Wait Gate holds (a latched wait whose conditions are unmet, or a
Matrix Unit instruction whose ``SrcA`` / ``SrcB`` bank is not ``AllowedClient == MatrixUnit``)
stays queued with everything behind it, as in hardware; ``waiting(thread)`` says why.  After
every executed instruction the other threads' queues are retried, so one thread's ``SEMPOST``
or ``SETDVALID`` releases another; ``resume()`` retries them on demand (after a RISC-V
semaphore write, or to finish a queue an exception interrupted).

Each distinct word is decoded once, with the profile's table (``isa_of(profile)``), into a
``Bound`` (mnemonic, executor, fields) kept for the life of the coprocessor; words that are not
``MOP`` / ``MOP_CFG`` / ``REPLAY`` and reach an idle Replay Expander skip the expanders.

Events: an instruction tdbg does not model raises ``UnimplementedFunctionality`` naming it; a
word no encoding matches raises ``MissingSpecification``.  Every event raised out of ``push`` /
``resume`` carries ``.thread`` and ``.word`` of the instruction that raised it (not necessarily
the pushing thread's).  The instruction is consumed either way.

``on_dst_write(rows)`` is called once per instruction that wrote ``Dst`` (or marked rows
undefined with ``ZEROACC``) with the ``DstBits`` row numbers it touched (a row may repeat); a ``Dst32b``
write touches two ``DstBits`` rows (high and low halves, 8 apart).  ``on_l1_access(thread, word, ranges)``
is called once per instruction that read or wrote L1 (``state.l1``: unpackers, packer, Scalar
Unit) with its ``(start, end, write)`` byte ranges, in order.  ``mmio`` is the port to the
tile's devices (``tdbg.tensix.mmio``) that ``LOADREG``, ``STOREREG`` and ``PACR_SETREG`` use;
the tile installs it.  ``on_resume()`` is called before ``resume`` retries the queues.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from tdbg.tensix.state_description import StateDescription, array, obj, part, value
from tdbg.tensix import adcs, cfg_insns, matrix_unit as mu, packers, scalar_unit as su, sfpu, sync, unpackers
from tdbg.tensix.dst_access import DstPort
from tdbg.tensix.events import MissingSpecification, TensixEvent, UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.frontend import REPLAY_WORDS, MopExpander, ReplayExpander
from tdbg.tensix.isa import UnknownInstruction, isa_of
from tdbg.tensix.mmio import DETACHED, MmioPort
from tdbg.tensix import rwc as counters
from tdbg.tensix.rwc import RWCs, incrwc
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState

Executor = Callable[["Coprocessor", int, dict[str, int]], None]


def _nop(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``NOP`` (newer NOP.md): no effect."""


def _unknown(why: str) -> Executor:
    def run(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
        raise MissingSpecification(why)
    return run


def _frontend_only(page: str) -> Executor:
    def run(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
        raise MissingSpecification(f"{page}: this instruction came out of an expander and reached the backend, "
                                   "which no page describes")
    return run


UnitWait = Callable[["Coprocessor", int, dict[str, int]], "str | None"]


class Insn(NamedTuple):
    """Everything tdbg declares of one instruction (each from the instruction's page): how it
    executes, the Src registers whose bank it waits for at the Wait Gate (0 SrcA, 1 SrcB:
    ``AllowedClient == MatrixUnit``), and other unit state it waits for (``unit_wait``: why, or
    None when it may go)."""

    run: Executor
    banks: tuple[int, ...] = ()
    unit_wait: UnitWait | None = None


_A, _B, _AB = (0,), (1,), (0, 1)

#: One row per instruction tdbg models (``bound`` reads it once per distinct word).
INSTRUCTIONS: dict[str, Insn] = {
    "NOP": Insn(_nop),
    "SETRWC": Insn(mu.setrwc),
    "INCRWC": Insn(lambda cop, t, f: incrwc(cop.rwcs[t], f)),
    "MOVD2A": Insn(mu.movd2a), "MOVD2B": Insn(mu.movd2b), "MOVA2D": Insn(mu.mova2d, _A),
    "MOVB2D": Insn(mu.movb2d, _B), "MOVB2A": Insn(mu.movb2a, _B),
    "MOVDBGA2D": Insn(lambda cop, t, f: mu.mova2d(cop, t, f, "MOVDBGA2D.md")),
    "ZEROACC": Insn(mu.zeroacc), "ZEROSRC": Insn(mu.zerosrc), "SETDVALID": Insn(mu.setdvalid),
    "CLEARDVALID": Insn(mu.cleardvalid),
    "ELWADD": Insn(mu.elwadd, _AB), "ELWSUB": Insn(mu.elwsub, _AB), "ELWMUL": Insn(mu.elwmul, _AB),
    "MVMUL": Insn(mu.mvmul, _AB), "DOTPV": Insn(mu.dotpv, _AB), "GAPOOL": Insn(mu.gapool, _AB),
    "GMPOOL": Insn(mu.gmpool, _AB), "TRNSPSRCB": Insn(mu.trnspsrcb, _B),
    "SETC16": Insn(lambda cop, t, f: cfg_insns.setc16(cop.state, t, f)),
    "WRCFG": Insn(lambda cop, t, f: cfg_insns.wrcfg(cop.state, t, f)),
    "RDCFG": Insn(lambda cop, t, f: cfg_insns.rdcfg(cop.state, t, f)),
    **{f"RMWCIB{i}": Insn((lambda i: lambda cop, t, f: cfg_insns.rmwcib(cop.state, t, i, f))(i)) for i in range(4)},
    "CFGSHIFTMASK": Insn(lambda cop, t, f: cfg_insns.cfgshiftmask(cop.state, t, f)),
    **{name: Insn(run) for name, run in sfpu.EXECUTE.items()},
    "STALLWAIT": Insn(lambda cop, t, f: cop._latch(t, sync.stallwait_latch(cop.state.profile.sync, f))),
    "SEMWAIT": Insn(lambda cop, t, f: cop._latch(t, sync.semwait_latch(cop.state.profile.sync, f))),
    "SEMINIT": Insn(lambda cop, t, f: sync.seminit(cop.semaphores, f)),
    "SEMPOST": Insn(lambda cop, t, f: sync.sempost(cop.semaphores, f["SemaphoreMask"])),
    "SEMGET": Insn(lambda cop, t, f: sync.semget(cop.semaphores, f["SemaphoreMask"])),
    "MOP": Insn(_frontend_only("MOPExpander.md")), "MOP_CFG": Insn(_frontend_only("MOPExpander.md")),
    "REPLAY": Insn(_frontend_only("REPLAY.md")),
    # unpackers, packer, ADCs, Scalar Unit, mutexes
    "UNPACR": Insn(unpackers.unpacr, unit_wait=unpackers.unpacr_wait),
    "UNPACR_NOP": Insn(unpackers.unpacr_nop, unit_wait=unpackers.unpacr_nop_wait),
    "PACR": Insn(packers.pacr), "CLREXPHIST": Insn(packers.clrexphist),
    "GATESRCRST": Insn(_nop),  # GATESRCRST.md: a SrcB operand cache tdbg does not have
    "SETADC": Insn(adcs.setadc), "SETADCXX": Insn(adcs.setadcxx),
    **{f"{name}{dims}": Insn(adcs.counter_update(update, dims))
       for name, update in (("SETADC", "set"), ("INCADC", "add"), ("ADDRCR", "add_cr")) for dims in ("XY", "ZW")},
    "SETDMAREG": Insn(su.setdmareg), "ADDDMAREG": Insn(su.adddmareg), "SUBDMAREG": Insn(su.subdmareg),
    "MULDMAREG": Insn(su.muldmareg), "BITWOPDMAREG": Insn(su.bitwopdmareg), "SHIFTDMAREG": Insn(su.shiftdmareg),
    "CMPDMAREG": Insn(su.cmpdmareg), "DMANOP": Insn(su.dmanop), "FLUSHDMA": Insn(su.flushdma),
    "REG2FLOP": Insn(su.reg2flop), "STOREIND": Insn(su.storeind), "LOADIND": Insn(su.loadind),
    "LOADREG": Insn(su.loadreg), "STOREREG": Insn(su.storereg), "PACR_SETREG": Insn(packers.pacr_setreg),
    # XMOV has none: tt-llk's Blackhole kernels never issue it (ckernel_xmov.h drives the mover
    # through the TDMA-RISC registers instead)
    "ATGETM": Insn(lambda cop, t, f: sync.atgetm(cop.state.mutexes, t, f["Index"]),
                   unit_wait=lambda cop, t, f: sync.atgetm_wait(cop.state.mutexes, t, f["Index"])),
    "ATRELM": Insn(lambda cop, t, f: sync.atrelm(cop.state.mutexes, t, f["Index"]),
                   unit_wait=lambda cop, t, f: sync.atrelm_wait(f["Index"])),
}


def _rwcs_moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    lines = []
    for t, (old, new) in enumerate(zip(before["rwcs"], after["rwcs"])):
        a, b = counters.decode(old), counters.decode(new)
        moved = [f"{k} {a[k]} -> {b[k]}" for k in b if a[k] != b[k]]
        if moved:
            lines.append(f"RWC T{t}: " + ", ".join(moved))
    return lines


def _semaphores_moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    return [f"Semaphore {i}: Value {old[0]} -> {new[0]}, Max {old[1]} -> {new[1]}"
            for i, (old, new) in enumerate(zip(before["semaphores"].tolist(), after["semaphores"].tolist())) if old != new]


def _put_mask_hi(cop: Coprocessor, values: tuple[int, ...]) -> None:
    for mop, mask_hi in zip(cop.mop, values):
        mop.MaskHi = mask_hi


class Bound(NamedTuple):
    """One decoded word: what the Wait Gate and the backend need, extracted once."""

    mnemonic: str | None        # None: no encoding matches the word
    run: Executor | None        # None: tdbg does not model the instruction
    fields: dict[str, int]
    waits: bool                 # may wait at the Wait Gate for a Src bank or unit state
    frontend: bool              # MOP / MOP_CFG / REPLAY (or what the expanders would take as one)
    banks: tuple[int, ...]      # the Src registers (0 SrcA, 1 SrcB) whose bank it waits for
    unit_wait: UnitWait | None  # other unit state


class QueueFull(Exception):
    """A push found its thread's queue at the Wait Gate full: the pushing core must wait
    (TensixCoprocessor/README.md: a push into full FIFOs stalls the RISC-V core)."""

    def __init__(self, thread: int) -> None:
        super().__init__(f"thread T{thread} has its Wait Gate queue full")
        self.thread = thread


class Coprocessor:
    """The Tensix coprocessor model of one tile (see the module docstring)."""

    def __init__(self, state: TensixState, on_dst_write: Callable[[np.ndarray], None] | None = None,
                 on_l1_access: Callable[[int, int, list[tuple[int, int, bool]]], None] | None = None) -> None:
        self.state = state
        self.on_l1_access = on_l1_access
        self._l1_access: list[tuple[int, int, bool]] = []
        # (start, old bytes) of each L1 write, when kept; a start past L1 is a RISC-V address
        # (a local RAM written through ``mmio``)
        self.l1_journal: list[tuple[int, bytes]] | None = None
        self.mmio: MmioPort = DETACHED  # the tile's devices, for LOADREG / STOREREG / PACR_SETREG
        #: How an instruction's bytes reach L1: the tile's one write path (``Tile.write``, which
        #: journals them) once it installs it; a plain copy into ``state.l1`` until then.
        self.l1_write: Callable[[int, np.ndarray], None] = self._copy_to_l1
        self.isa = isa_of(state.profile)
        self._bound: dict[int, Bound] = {}
        self._frontend_ops = {self.isa.encoding(m).opcode for m in ("MOP", "MOP_CFG", "REPLAY")}
        self.on_dst_write = on_dst_write
        self.on_resume: Callable[[], None] | None = None
        #: Runs a word a queue releases instead of ``_execute`` if it can (True: done; the
        #: native push path's, ``tdbg.emu.native_matrix``); None: ``_execute`` runs them all.
        self.native_execute: Callable[[int, int], bool] | None = None
        spec = state.profile.tensix
        self.capacity = spec.wait_gate_capacity
        self.threads = threads = spec.threads
        self._others = tuple(tuple(t for t in range(threads) if t != first) for first in range(threads))
        self.dst_port = DstPort(state.dst, self._dst_written)
        self.rwc_bits = counters.storage(threads)   # every thread's RWCs, which ``rwcs`` view
        self.rwcs = [RWCs.from_buffer(row) for row in self.rwc_bits]
        self.semaphore_bits = np.zeros((spec.semaphores, 2), dtype=np.int32)   # Value, Max of each
        self.semaphores = [sync.Semaphore(row) for row in self.semaphore_bits]
        self.vector = sfpu.VectorUnit()
        self.unpacker_src_row = [[0] * threads for _ in range(2)]
        self.mop = [MopExpander(self.isa, state.mop_cfg[t]) for t in range(threads)]
        self.replay_bits = np.zeros((threads, REPLAY_WORDS), dtype=np.uint32)  # every thread's Replay Expander
        self.replay = [ReplayExpander(self.isa, row) for row in self.replay_bits]
        self.wait_gate: list[sync.LatchedWait | None] = [None] * threads
        self._queue: list[deque[int]] = [deque() for _ in range(threads)]
        self._written: list[np.ndarray] = []

    #: The architectural state (``TensixState.STATE``) and what is kept here; power-on: counters
    #: zero, empty queues and expanders, no latched wait, the Vector Unit's own power-on state.
    STATE = StateDescription("coprocessor", (
        part("tensix", "state"),
        array("rwcs", "rwc_bits", report=_rwcs_moved),
        array("semaphores", "semaphore_bits", report=_semaphores_moved),
        part("vector"),
        obj("unpacker_src_row", reset=lambda c: [[0] * c.threads for _ in range(2)]),
        array("replay", "replay_bits"),
        value("mask_hi", get=lambda c: tuple(m.MaskHi for m in c.mop), put=_put_mask_hi,
              reset=lambda c: (0,) * c.threads),
        obj("wait_gate", reset=lambda c: [None] * c.threads),
        obj("queue", "_queue", reset=lambda c: [deque() for _ in range(c.threads)]),
    ))

    def rwc(self, thread: int) -> RWCs:
        """Thread ``thread``'s RWCs (mutable)."""
        return self.rwcs[thread]

    def bound(self, word: int) -> Bound:
        """``word`` decoded (once per distinct word)."""
        b = self._bound.get(word)
        if b is None:
            frontend = word >> 24 in self._frontend_ops
            try:
                insn = self.isa.decode(word)
            except UnknownInstruction:
                b = Bound(None, _unknown(f"no {self.isa.name} instruction encodes {word:#010x}"), {}, False, frontend,
                          (), None)
            else:
                row = INSTRUCTIONS.get(insn.mnemonic)
                if row is None:
                    b = Bound(insn.mnemonic, None, insn.fields, False, frontend, (), None)
                else:
                    b = Bound(insn.mnemonic, row.run, insn.fields, bool(row.banks) or row.unit_wait is not None,
                              frontend, row.banks, row.unit_wait)
            self._bound[word] = b
        return b

    def mnemonic(self, word: int) -> str | None:
        """The mnemonic of ``word`` in the profile's table (None if no encoding matches)."""
        return self.bound(word).mnemonic

    # -- the frontend --------------------------------------------------------------------------
    def push(self, thread: int, word: int, expand_mop: bool = True) -> None:
        """A RISC-V core pushes ``word`` to thread ``thread``: expand it, queue it at the Wait
        Gate, run what can.  ``expand_mop=False``: the word enters after the MOP Expander (a
        push from RISCV B, PushTensixInstruction.md)."""
        b = self._bound.get(word)
        q = self._queue
        if (b is not None and not b.frontend and 0 <= thread < self.threads and self.wait_gate[thread] is None
                and not (any(q) or self.replay[thread].load_left)
                and not (b.waits and self._held(thread, b))):
            self._execute(thread, word, b)  # a known word, nothing queued, latched or held: run it now
            return
        if thread not in range(self.threads):
            raise ValueError(f"Tensix thread {thread} does not exist (0..{self.threads - 1})")
        if not 0 <= word < 1 << 32:
            raise ValueError(f"{word:#x} is not a 32-bit instruction word")
        if len(q[thread]) >= self.capacity:
            raise QueueFull(thread)
        if (b.frontend if b is not None else word >> 24 in self._frontend_ops) or self.replay[thread].load_left:
            try:
                for expanded in (self.mop[thread].feed(word) if expand_mop else (word,)):
                    self._queue[thread].extend(self.replay[thread].feed(expanded))
            except TensixEvent as e:
                raise self._tag(e, thread, word)
        else:  # MOPExpander.md and REPLAY.md pass every other word through unchanged
            self._queue[thread].append(word)
        self._run(first=thread)

    def resume(self) -> None:
        """Retry every thread's queued instructions (``on_resume`` first: not within a push)."""
        if self.on_resume is not None:
            self.on_resume()
        self._run(first=0)

    def run_expanded(self, thread: int, words: list[int]) -> None:
        """The rest of the words a push to ``thread`` expanded to, nothing queued or latched
        before them (the native push path ran the first ones): queued and run as ``push`` would."""
        self._queue[thread].extend(words)
        self._run(first=thread)

    def pending(self, thread: int) -> list[int]:
        """Words that reached thread ``thread``'s Wait Gate and have not passed it, oldest first."""
        return list(self._queue[thread])

    def queued(self, thread: int) -> int:
        """How many instructions wait at thread ``thread``'s Wait Gate."""
        return len(self._queue[thread])

    def waiting(self, thread: int) -> str | None:
        """Why the oldest queued instruction of ``thread`` is held, or None if nothing is."""
        if not self._queue[thread]:
            return None
        return self._held(thread, self.bound(self._queue[thread][0]))

    # -- RISC-V access to semaphores (SyncUnit.md) ---------------------------------------------
    def riscv_semaphore_read(self, index: int) -> int:
        return self.semaphores[index].Value

    def riscv_semaphore_write(self, index: int, value: int) -> None:
        sync.riscv_semaphore_write(self.semaphores, index, value)
        self.resume()

    # -- the Wait Gate and the backend -----------------------------------------------------------
    def _latch(self, thread: int, latch: sync.LatchedWait) -> None:
        """Latch a wait; one whose conditions are all met already is forgotten at once (WaitGate.md:
        the gate checks them every cycle, before the next instruction reaches it)."""
        self.wait_gate[thread] = latch if sync.unmet_conditions(latch, self.state, self.semaphores) else None

    def _settle(self) -> None:
        """Forget latched waits whose conditions are all met (WaitGate.md)."""
        for t, latch in enumerate(self.wait_gate):
            if latch is not None and not sync.unmet_conditions(latch, self.state, self.semaphores):
                self.wait_gate[t] = None

    def _held(self, thread: int, b: Bound) -> str | None:
        self._settle()
        return self._holds(thread, b)

    def settled_and_held(self) -> bool:
        """Whether no latched wait has its conditions met (``_settle`` would forget none) and
        every queue's oldest instruction is held: then a push to an idle thread of instructions
        that change none of what holds them (semaphores, mutexes, latched waits, the Src banks'
        ``AllowedClient``) runs only those (the native push path asks, ``tdbg.emu.native_push``)."""
        sems, state = self.semaphores, self.state
        if any(latch is not None and not sync.unmet_conditions(latch, state, sems) for latch in self.wait_gate):
            return False
        return all(not q or self._holds(t, self.bound(q[0])) is not None for t, q in enumerate(self._queue))

    def _holds(self, thread: int, b: Bound) -> str | None:
        mnemonic = b.mnemonic or ""
        latch = self.wait_gate[thread]
        if latch is not None and sync.blocked_by(mnemonic, latch.BlockMask):
            unmet = "; ".join(sync.unmet_conditions(latch, self.state, self.semaphores))
            return f"{mnemonic} held by the latched {latch.Opcode} (BlockMask {latch.BlockMask:#05x}): {unmet}"
        if b.unit_wait is not None:
            return b.unit_wait(self, thread, b.fields)
        state = self.state
        for i in b.banks:
            src, bank = (state.srca, state.src_banks.matrix_unit_srca) if i == 0 else (state.srcb, state.src_banks.matrix_unit_srcb)
            if src.allowed_client[bank] != SrcClient.MatrixUnit:
                return f"{mnemonic} waits for {src.name}[{bank}].AllowedClient == MatrixUnit ({mnemonic}.md)"
        return None

    def _run(self, first: int) -> None:
        queues, gate, native = self._queue, self.wait_gate, self.native_execute
        others = self._others[first]
        if not any(queues[t] for t in others):  # nothing another thread could release
            queue = queues[first]
            while queue:
                word = queue[0]
                b = self._bound.get(word) or self.bound(word)
                if (gate[first] is not None or b.waits) and self._held(first, b):
                    return
                queue.popleft()
                if native is None or not native(first, word):
                    self._execute(first, word, b)
            return
        # Threads issue concurrently (README.md): each pass gives every thread with work one
        # instruction, so one that waits on another (an UNPACR_NOP held until the Matrix Unit
        # frees a bank) goes as soon as it is released, not after the releasing thread has run
        # its whole queue.  ttsim v1.10.0 does the same: one instruction per thread per step
        # (libttsim.cpp:774-830); tt-llk's transpose_dest kernel needs it (its SrcB dummy-valid
        # UNPACR_NOP must land before the Matrix Unit's next SETRWC clears that bank).
        order = (first, *others)
        progress = True
        while progress:
            progress = False
            for t in order:
                queue = queues[t]
                if not queue:
                    continue
                word = queue[0]
                b = self._bound.get(word) or self.bound(word)
                if (gate[t] is not None or b.waits) and self._held(t, b):
                    continue
                queue.popleft()
                if native is None or not native(t, word):
                    self._execute(t, word, b)
                progress = True

    def _execute(self, thread: int, word: int, b: Bound) -> None:
        written = self._written
        try:
            if b.run is None:
                raise UnimplementedFunctionality(f"{b.mnemonic}: tdbg does not model this instruction")
            b.run(self, thread, b.fields)
        except TensixEvent as e:
            raise self._tag(e, thread, word)
        finally:
            if written:
                if self.on_dst_write is not None:
                    self.on_dst_write(written[0] if len(written) == 1 else np.concatenate(written))
                written.clear()
            if self._l1_access:
                if self.on_l1_access is not None:
                    self.on_l1_access(thread, word, list(self._l1_access))
                self._l1_access.clear()

    # -- L1 for the units (state.l1) -------------------------------------------------------------
    def _check_l1(self, start: int, size: int, page: str) -> None:
        if start < 0 or start + size > len(self.state.l1):
            raise UndefinedBehavior(f"{page}: L1 access {start:#x}..{start + size:#x} is past L1 ({len(self.state.l1):#x} bytes)")

    def read_l1(self, start: int, size: int) -> np.ndarray:
        """A copy of L1 bytes ``start .. start + size`` that an instruction reads."""
        self._check_l1(start, size, "L1 read")
        self.l1_read(start, start + size)
        return self.state.l1[start:start + size].copy()

    def l1_read(self, start: int, end: int) -> None:
        """Record that the running instruction read L1 ``start .. end``."""
        self._l1_access.append((start, end, False))

    def write_l1(self, start: int, data: np.ndarray) -> None:
        """Write bytes to L1 for the running instruction (through ``l1_write``; reported to
        ``on_l1_access``)."""
        self._check_l1(start, len(data), "L1 write")
        self.l1_write(start, data)
        self._l1_access.append((start, start + len(data), True))

    def _copy_to_l1(self, start: int, data: np.ndarray) -> None:
        if self.l1_journal is not None:
            self.l1_journal.append((start, self.state.l1[start:start + len(data)].tobytes()))
        self.state.l1[start:start + len(data)] = data

    @staticmethod
    def _tag(event: TensixEvent, thread: int, word: int) -> TensixEvent:
        event.thread, event.word = thread, word  # type: ignore[attr-defined]
        return event

    def _dst_written(self, rows: np.ndarray) -> None:
        self._written.append(rows)
