"""MOP / MOP_CFG expansion (MOPExpander.md) and REPLAY (REPLAY.md).

Expanded sequences are observed through the backend with INCRWC / SEMPOST words whose effect
identifies them, or directly on the expanders' output.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification
from tdbg.tensix.frontend import MopExpander, ReplayExpander
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)

NOP = encode("NOP")
A0, A1, A2, A3, B, SKIP_A, SKIP_B = (encode("SEMPOST", SemaphoreMask=1 << i) for i in range(7))


def expand(cfg: list[int], word: int, mask_hi: int = 0) -> list[int]:
    exp = MopExpander(isa_of(BLACKHOLE), np.array(cfg, dtype=np.uint32), MaskHi=mask_hi)
    return list(exp.feed(word))


def test_template0_mask_selects_a_or_skip() -> None:
    # Flags 3: HasB and HasA123.  Count1 2 -> 3 iterations; mask 0b010 -> A, skip, A.
    cfg = [0, 3, B, A0, A1, A2, A3, SKIP_A, SKIP_B]
    out = expand(cfg, encode("MOP", Template=0, Count1=2, MaskLo=0b010))
    assert out == [A0, A1, A2, A3, B, SKIP_A, SKIP_B, A0, A1, A2, A3, B]


def test_template0_flags_and_mask_hi() -> None:
    # Flags 0: just A0 / SkipA0.  Count1 17 -> 18 iterations; MaskHi bit 0 is mask bit 16.
    cfg = [0, 0, B, A0, A1, A2, A3, SKIP_A, SKIP_B]
    out = expand(cfg, encode("MOP", Template=0, Count1=17), mask_hi=1)
    assert out == [A0] * 16 + [SKIP_A] + [A0]


def test_template1_loops() -> None:
    # Outer 2, inner 3, StartOp A0, EndOp0 A1, EndOp1 A2, LoopOp B, LoopOp1 NOP,
    # Loop0Last SKIP_A (last inner of last outer), Loop1Last SKIP_B (last inner otherwise).
    cfg = [2, 3, A0, A1, A2, B, NOP, SKIP_A, SKIP_B]
    out = expand(cfg, encode("MOP", Template=1))
    assert out == [A0, B, B, SKIP_B, A1, A2, A0, B, B, SKIP_A, A1, A2]


def test_template1_alternating_loop_op() -> None:
    # LoopOp1 not a NOP: inner count doubles and the loop alternates LoopOp / LoopOp1;
    # StartOp / EndOp0 NOP are skipped (and then EndOp1 is not used).
    cfg = [1, 2, NOP, NOP, A2, A0, A1, SKIP_A, SKIP_B]
    out = expand(cfg, encode("MOP", Template=1))
    assert out == [A0, A1, A0, SKIP_A]


def test_template1_hardware_bug() -> None:
    # Outer 1, StartOp NOP, inner 0, EndOp0 not NOP: the outer count becomes 129.
    cfg = [1, 0, NOP, A1, NOP, B, NOP, SKIP_A, SKIP_B]
    assert expand(cfg, encode("MOP", Template=1)) == [A1] * 129


def test_mop_cfg_is_consumed_and_sets_mask_hi() -> None:
    exp = MopExpander(isa_of(BLACKHOLE), np.zeros(9, dtype=np.uint32))
    assert list(exp.feed(encode("MOP_CFG", MaskHi=0xBEEF))) == [] and exp.MaskHi == 0xBEEF
    assert list(exp.feed(B)) == [B]


def test_mop_through_push_per_thread() -> None:
    c = Coprocessor(TensixState())
    inc = encode("INCRWC", SrcAInc=1)
    c.state.mop_cfg[1] = [0, 0, 0, inc, 0, 0, 0, NOP, 0]
    c.push(1, encode("MOP", Template=0, Count1=4, MaskLo=0b00100))
    assert c.rwc(1).SrcA == 4 and c.rwc(0).SrcA == 0


def test_replay_load_exec_and_replay() -> None:
    r = ReplayExpander(isa_of(BLACKHOLE))
    # Load 2 at index 31 without exec: nothing comes out; slots 31 and 0 are filled.
    assert list(r.feed(encode("REPLAY", Index=31, Count=2, Load=1))) == []
    assert list(r.feed(A0)) == [] and list(r.feed(A1)) == []
    assert r.buffer[31] == A0 and r.buffer[0] == A1
    assert list(r.feed(encode("REPLAY", Index=31, Count=2))) == [A0, A1]
    # Load with Exec passes the instructions on as well.
    assert list(r.feed(encode("REPLAY", Index=5, Count=1, Load=1, Exec=1))) == []
    assert list(r.feed(B)) == [B] and r.buffer[5] == B


def test_replay_count_zero_means_64() -> None:
    r = ReplayExpander(isa_of(BLACKHOLE))
    out = list(r.feed(encode("REPLAY", Index=0, Count=0)))
    assert len(out) == 64


def test_replay_records_a_replay_word_verbatim() -> None:
    # While loading, the next incoming words are recorded whatever they are.
    r = ReplayExpander(isa_of(BLACKHOLE))
    inner = encode("REPLAY", Index=0, Count=3)
    list(r.feed(encode("REPLAY", Index=1, Count=1, Load=1)))
    assert list(r.feed(inner)) == [] and r.buffer[1] == inner


def test_mop_can_emit_replay() -> None:
    c = Coprocessor(TensixState())
    inc = encode("INCRWC", DstInc=3)
    c.push(0, encode("REPLAY", Index=4, Count=1, Load=1))
    c.push(0, inc)                                         # recorded only
    assert c.rwc(0).Dst == 0
    c.state.mop_cfg[0] = [0, 0, 0, encode("REPLAY", Index=4, Count=1), 0, 0, 0, 0, 0]
    c.push(0, encode("MOP", Template=0, Count1=1))          # two REPLAYs -> two INCRWCs
    assert c.rwc(0).Dst == 6


def test_expander_words_reaching_the_backend() -> None:
    # A MOP word that the MOP Expander itself emits is not expanded again.
    c = Coprocessor(TensixState())
    c.state.mop_cfg[0, 3] = encode("MOP", Template=1)
    with pytest.raises(MissingSpecification, match="MOPExpander"):
        c.push(0, encode("MOP", Template=0))
