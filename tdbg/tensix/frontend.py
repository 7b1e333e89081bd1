"""The per-thread frontend expanders: MOP Expander (``MOP``, ``MOP_CFG``) and Replay Expander.

Implements WormholeB0 ``TensixCoprocessor/MOPExpander.md`` (with ``MOP.md``, ``MOP_CFG.md``) and
``REPLAY.md``.  Both work on raw instruction words and look only at the opcode (bits 31:24) and
the fields of ``MOP`` / ``MOP_CFG`` / ``REPLAY``; everything else passes through.  ``MopCfg``
lives in ``TensixState.mop_cfg`` (it is written by RISC-V stores); ``MaskHi`` lives here, the
replay buffer with its recording state in ``Coprocessor.replay_bits`` (a row per thread, which
the native push path's copy of these expanders, ``tdbg/native/frontend.c``, works on in place),
one expander of each per thread.  The layouts of
``MOP`` / ``MOP_CFG`` / ``REPLAY`` are the profile's (``Isa``).

Blackhole's ``REPLAY`` has 10-bit ``Index`` and ``Count`` (tt-llk's assembly.yaml: "the hardware
will only use the log2(replay_buffer_depth) LSBs"; ttsim: a 32-entry buffer, ``len`` 1..32,
``start_idx`` < 32).  ``Index`` wraps modulo 32 as the page's model does; a ``Count`` above the
Wormhole page's 6 bits raises ``MissingSpecification`` (the sources disagree about it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from tdbg.tensix.events import MissingSpecification
from tdbg.tensix.isa import Isa


def _opcode(word: int) -> int:
    return word >> 24


@dataclass
class MopExpander:
    """One thread's MOP Expander; ``mop_cfg`` is that thread's row of ``TensixState.mop_cfg``."""

    isa: Isa
    mop_cfg: np.ndarray
    MaskHi: int = 0

    def feed(self, word: int) -> Iterator[int]:
        """The words the expander emits for one incoming word."""
        op = _opcode(word)
        mop, mop_cfg = self.isa.encoding("MOP"), self.isa.encoding("MOP_CFG")
        if op == mop_cfg.opcode:
            self.MaskHi = mop_cfg.unpack(word)["MaskHi"]
        elif op == mop.opcode:
            f = mop.unpack(word)
            cfg = [int(x) for x in self.mop_cfg]
            nop = self.isa.encoding("NOP").opcode
            if f["Template"]:
                yield from _template1(cfg, nop)
            else:
                yield from _template0((self.MaskHi << 16) | f["MaskLo"], f["Count1"], cfg)
        else:
            yield word


def _template0(mask: int, count1: int, cfg: list[int]) -> Iterator[int]:
    """``ExpandTemplate0`` of MOPExpander.md."""
    flags, insn_b, a0, a1, a2, a3, skip_a0, skip_b = cfg[1:9]
    has_b, has_a123 = flags & 1, flags & 2
    for _ in range(count1 + 1):
        if mask & 1 == 0:
            yield a0
            if has_a123:
                yield a1
                yield a2
                yield a3
            if has_b:
                yield insn_b
        else:
            yield skip_a0
            if has_b:
                yield skip_b
        mask >>= 1


def _template1(cfg: list[int], nop: int) -> Iterator[int]:
    """``ExpandTemplate1`` of MOPExpander.md, including its documented hardware bug; ``IsNop``
    is plain ``NOP`` only (opcode ``nop``; not ``DMANOP`` / ``SFPNOP``)."""

    def _is_nop(word: int) -> bool:
        return _opcode(word) == nop

    outer, inner = cfg[0] & 127, cfg[1] & 127
    start, end0, end1, loop_op, loop_op1, loop0_last, loop1_last = cfg[2:9]
    if _is_nop(loop_op1):
        flip = 0
    else:
        flip = loop_op ^ loop_op1
        inner *= 2
    if outer == 1 and _is_nop(start) and inner == 0 and not _is_nop(end0):
        outer += 128
    for j in range(outer):
        if not _is_nop(start):
            yield start
        for i in range(inner):
            if i != inner - 1:
                yield loop_op
            elif j != outer - 1:
                yield loop1_last
            else:
                yield loop0_last
            loop_op ^= flip
        if not _is_nop(end0):
            yield end0
            if not _is_nop(end1):
                yield end1


#: One thread's Replay Expander state in ``Coprocessor.replay_bits`` (which the native push path,
#: ``tdbg/native/frontend.c``, reads and writes in place): ReplayBuffer[32], then these.
LOAD_LEFT, LOAD_INDEX, LOAD_EXEC = 32, 33, 34
REPLAY_WORDS = 35


@dataclass
class ReplayExpander:
    """One thread's Replay Expander (REPLAY.md): ``ReplayBuffer[32]`` and the recording state,
    kept in ``bits`` (a row of ``REPLAY_WORDS``)."""

    isa: Isa
    bits: np.ndarray = field(default_factory=lambda: np.zeros(REPLAY_WORDS, dtype=np.uint32))

    @property
    def buffer(self) -> np.ndarray:
        return self.bits[:32]

    @property
    def load_left(self) -> int:
        """Instructions still to record."""
        return int(self.bits[LOAD_LEFT])

    @property
    def load_index(self) -> int:
        """Where the next recorded instruction goes."""
        return int(self.bits[LOAD_INDEX])

    @property
    def load_exec(self) -> bool:
        """Also pass recorded instructions on."""
        return bool(self.bits[LOAD_EXEC])

    def feed(self, word: int) -> Iterator[int]:
        """The words the expander emits for one incoming word."""
        bits = self.bits
        if bits[LOAD_LEFT]:
            bits[int(bits[LOAD_INDEX]) % 32] = word
            bits[LOAD_INDEX] += 1
            bits[LOAD_LEFT] -= 1
            if bits[LOAD_EXEC]:
                yield word
            return
        replay = self.isa.encoding("REPLAY")
        if _opcode(word) != replay.opcode:
            yield word
            return
        f = replay.unpack(word)
        if f["Count"] > 63:
            raise MissingSpecification(f"REPLAY.md: Count {f['Count']} is wider than the page's 6 bits")
        count = f["Count"] or 64
        if f["Load"]:
            bits[LOAD_LEFT], bits[LOAD_INDEX], bits[LOAD_EXEC] = count, f["Index"], f["Exec"]
        else:
            for i in range(count):
                yield int(bits[(f["Index"] + i) % 32])
