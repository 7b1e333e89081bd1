"""The native push path (``tdbg.emu.native_push``, ``tdbg/native/push.c``) against the Python
path (the reference, ``tdbg.native.disabled()``): firmware pushing random sequences of the
instructions it mirrors, mixed with ones it leaves to Python (bank flips, other ZEROACC modes,
SETC16 writes to the ADDR_MOD entries, LaneConfig masking MOVD2A's columns, modes and fields of
the Vector Unit's instructions it does not mirror), must stop at the same events and leave
identical RWCs, Src, ``Dst`` (bits, flags, unpredictable cells, provenance), Vector Unit and push
log; and the native path must have run some of them."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tdbg import native
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.emu import native_push
from tdbg.emu.pushlog import PushLog
from tdbg.emu.stops import StopKind
from tdbg.emu.tile import Policy
from tdbg.session import Session
from tdbg.tensix import rwc as counters
from tdbg.tensix.events import Category
from tdbg.tensix.isa import isa_of
from tdbg.tensix.sfpu.movement import IMM16_IS_VALUE
from tdbg.tensix.state import TensixState

ISA = isa_of(BLACKHOLE)
pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")


def _encode(mnemonic: str, **fields: int) -> int:
    return ISA.encode(mnemonic, **fields)


def random_words(rng: np.random.Generator, n: int) -> list[int]:
    """``n`` words: mostly what the native path mirrors, some it does not."""
    table = TensixState().config.table
    out = []
    for _ in range(n):
        k = rng.integers(0, 24)
        r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
        if k < 3:
            out.append(_encode("NOP"))
        elif k < 7:
            out.append(_encode("INCRWC", SrcAInc=r(4), SrcBInc=r(4), DstInc=r(4), SrcACr=r(1), SrcBCr=r(1), DstCr=r(1)))
        elif k < 11:
            flips = r(1) if rng.integers(0, 4) == 0 else 0
            out.append(_encode("SETRWC", SrcA=r(1), SrcB=r(1), Dst=r(1), Fidelity=r(1), SrcAVal=r(4), SrcBVal=r(4),
                               DstVal=r(4), SrcACr=r(1), SrcBCr=r(1), DstCr=r(1), DstCtoCr=r(1), FlipSrcA=flips, FlipSrcB=0))
        elif k < 17:
            mode = 0 if rng.integers(0, 6) else 1
            out.append(_encode("ZEROACC", Imm10=r(10), AddrMod=r(3), Revert=0, UseDst32b=r(1), Mode=mode))
        elif k < 20:
            out.append(_encode(["MOVD2A", "MOVD2B"][r(1)], DstRow=r(10), SrcRow=r(6), Move4Rows=r(1), AddrMod=r(3),
                               UseDst32bLo=int(rng.integers(0, 8) == 0)))
        elif k < 21:   # a column masked for MOVD2A (BLOCK_DEST_MOV), or not: SFPCONFIG of LaneConfig
            out.append(_encode("SFPCONFIG", Imm16=0x600 * r(1), VD=15, Mod1=IMM16_IS_VALUE))
        else:   # an ADDR_MOD entry's word, as tt-llk's addr_mod_t::set writes it
            name = ["ADDR_MOD_AB_SEC{}_SrcAIncr", "ADDR_MOD_DST_SEC{}_DestIncr", "ADDR_MOD_BIAS_SEC{}_BiasIncr"][r(2) % 3]
            field = table.field(name.format(r(3)))
            out.append(_encode("SETC16", CfgIndex=field.addr32, NewValue=r(16) & 0x3FFF))
    return out


def random_vector_words(rng: np.random.Generator, n: int) -> list[int]:
    """LRegs 0-7 and some Dst rows given values, then ``n`` Vector Unit words (loads, stores,
    immediates, MADs, predication; some with modes the native path leaves to Python), with some
    counter moves between."""
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    out = [_encode("SFPLOADI", VD=vd, Mod0=0, Imm16=r(16)) for vd in range(8)]
    out += [_encode("SFPSTORE", VD=r(3), Mod0=int(rng.choice([1, 2, 3])), Imm10=4 * i, AddrMod=0) for i in range(16)]
    for _ in range(n):
        k = rng.integers(0, 16)
        vd = r(3) if rng.integers(0, 8) else r(4)
        if k < 3:
            out.append(_encode("SFPLOAD", VD=vd, Mod0=r(4), Imm10=r(6), AddrMod=r(3)))
        elif k < 6:
            out.append(_encode("SFPSTORE", VD=vd, Mod0=r(4), Imm10=r(6), AddrMod=r(3)))
        elif k < 8:
            out.append(_encode("SFPLOADI", VD=vd, Mod0=int(rng.choice([0, 1, 2, 4, 8, 10, 3])), Imm16=r(16)))
        elif k < 11:
            out.append(_encode("SFPMAD", VA=r(4), VB=r(4), VC=r(4), VD=vd, Mod1=r(4) if rng.integers(0, 4) else r(2)))
        elif k < 13:
            out.append(_encode("SFPSETCC", VC=r(4), VD=vd, Mod1=r(4), Imm1=r(1)))
        elif k < 14:
            out.append(_encode("SFPENCC", VD=vd, Mod1=r(4), Imm2=r(2)))
        elif k < 15:
            out.append(_encode("INCRWC", DstInc=r(2), SrcAInc=r(2)))
        else:
            out.append(_encode("SETRWC", Dst=1, DstVal=r(2)))
    return out


def firmware(tmp_path: Path, words: list[int], trips: int = 1) -> Path:
    body = "".join(f"        TTI({w:#010x}u);\n" for w in words)
    source = tmp_path / "pushes.c"
    source.write_text('#include "tensix.h"\n'
                      f"int main(void)\n{{\n    for (int i = 0; i < {trips}; i++) {{\n{body}    }}\n    return 0;\n}}\n")
    return source


def outcome(source: Path, extra: Callable[[Session], tuple] = lambda s: (),
            setup: Callable[[Session], None] = lambda s: None) -> tuple[object, ...]:
    """What a run of ``source`` leaves (stops, state, log, provenance; and ``extra`` of the session)
    and how many pushes the native path made; ``setup`` gives the session's model state first."""
    s = Session(source)
    setup(s)
    stops = []
    for _ in range(500):   # an event (an ADDR_MOD entry no page defines) stops the core: go on
        stop = s.cont()
        stops.append((stop.kind, stop.pc, stop.describe()))
        if stop.kind is StopKind.EXITED:
            break
    tile = s.tile
    path = tile.push_path
    ran = path.native.total if path.native is not None else 0
    state, vu = tile.coprocessor.state, tile.coprocessor.vector
    vector = [getattr(vu, name).tolist() for name in ("lreg", "defined", "full", "lane_flags", "use_lane_flags")]
    return ((stops, vector, vu.mad_wrote, vu.backdoor_changed, state.dst.unpredictable.tolist(),
             state.srca.data.tolist(), state.srcb.data.tolist(), tile.coprocessor.rwc_bits.tolist(),
             state.dst.ever_written.tolist(), state.dst.bits.tolist(),
             path.provenance.seq.tolist(), list(path.log), path.log.total, path.log.per_thread, path.seq,
             path.log.last(3), path.log.last(3000), [path.log.by_seq(q) for q in range(1, path.seq + 1, 97)],
             [path.dst_writer(r) for r in range(0, 1024, 37)], tile.coprocessor.replay_bits.tolist(),
             [m.MaskHi for m in tile.coprocessor.mop], [tile.coprocessor.pending(t) for t in range(3)], *extra(s)), ran)


@pytest.mark.parametrize("seed", range(3))
def test_random_pushes_native_equal_python(tmp_path: Path, seed: int) -> None:
    source = firmware(tmp_path, random_words(np.random.default_rng(seed), 120), trips=3)   # again: learnt
    got, ran = outcome(source)
    with native.disabled():
        want, _ = outcome(source)
    assert got == want
    assert ran > 0   # the native path pushed some of them


@pytest.mark.parametrize("seed", range(3))
def test_random_vector_unit_pushes_native_equal_python(tmp_path: Path, seed: int) -> None:
    source = firmware(tmp_path, random_vector_words(np.random.default_rng(seed), 100), trips=3)
    got, ran = outcome(source)
    with native.disabled():
        want, _ = outcome(source)
    assert got == want
    assert ran > 0


def test_the_log_ring_grows_and_wraps_as_the_python_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PushLog.__init__, "__defaults__", (2500,))   # past the ring's first size, then wrapping
    words = [_encode("INCRWC", SrcAInc=1, DstInc=2), _encode("NOP"),
             _encode("ZEROACC", Imm10=5, Mode=0), _encode("SETRWC", Dst=1, DstVal=3)]
    source = firmware(tmp_path, words, trips=1000)
    got, ran = outcome(source)
    with native.disabled():
        want, _ = outcome(source)
    assert got == want
    assert ran > 3000 and len(got[11]) == 2500


def test_a_checkpoint_restores_the_native_log_and_counters(tmp_path: Path) -> None:
    words = [_encode("INCRWC", SrcAInc=1, DstInc=3), _encode("ZEROACC", Imm10=9, Mode=0)]
    s = Session(firmware(tmp_path, words, trips=50))
    s.cont()
    assert s.tile.push_path.native is not None and s.tile.push_path.native.total
    rwcs, log = s.tile.coprocessor.rwc_bits.copy(), list(s.tile.push_path.log)
    mark = s.checkpoint()
    for _ in range(5):
        s.tensix("INCRWC DstInc=1")
    s.restart(mark)
    assert s.tile.coprocessor.rwc_bits.tolist() == rwcs.tolist()
    assert list(s.tile.push_path.log) == log


def test_interrupts_never_push_twice(tmp_path: Path) -> None:
    """Ctrl-C from another thread while the C hook pushes (Core._ask_stop's protocol): every
    push happens once, however often the run is stopped and resumed."""
    trips = 2_000_000
    s = Session(firmware(tmp_path, [_encode("INCRWC", DstInc=1)], trips=trips))
    stops: list[StopKind] = []
    done = threading.Event()

    def ctrl_c() -> None:
        while not done.wait(0.005):
            s.interrupt()

    asker = threading.Thread(target=ctrl_c)
    asker.start()
    try:
        for _ in range(10_000):
            stop = s.cont()
            stops.append(stop.kind)
            s.clear_interrupt()
            if stop.kind is StopKind.EXITED:
                break
    finally:
        done.set()
        asker.join()
    assert stops[-1] is StopKind.EXITED and StopKind.INTERRUPTED in stops
    path = s.tile.push_path
    assert path.native is not None and path.native.total > trips // 2
    assert path.log.total == trips and path.seq == trips            # one push per trip
    assert s.tile.coprocessor.rwcs[0].Dst == trips & 0x3FF         # INCRWC DstInc=1, 10 bits


def test_a_config_write_is_learnt_again(tmp_path: Path) -> None:
    """A config write forgets the derived values (ADDR_MOD entries, MathConfig); the next
    ZEROACC pushed through Python describes them again, and those after it run natively."""
    table = TensixState().config.table
    setc16 = _encode("SETC16", CfgIndex=table.field("ADDR_MOD_DST_SEC1_DestIncr").addr32, NewValue=2)
    zeroacc = [_encode("ZEROACC", Imm10=i, AddrMod=1, Mode=0) for i in range(3)]
    trips = 50
    source = firmware(tmp_path, [setc16, *zeroacc], trips=trips)
    got, ran = outcome(source)
    with native.disabled():
        want, _ = outcome(source)
    assert got == want
    assert ran >= 2 * (trips - 1)   # two of the three ZEROACCs of each trip after the first


def _replay_past_an_event(tmp_path: Path) -> Path:
    """A 64-word replay of a 32-word recording (REPLAY.md: ``Index`` wraps) whose first word,
    ``XMOV``, tdbg does not model: 63 words stay queued behind the event, more than the Wait
    Gate holds, so the next push stalls until they go."""
    inc = _encode("INCRWC", DstInc=1)
    words = [_encode("REPLAY", Index=0, Count=32, Load=1), _encode("XMOV"), *[inc] * 31,
             _encode("REPLAY", Index=0, Count=0), _encode("NOP")]
    return firmware(tmp_path, words)


@pytest.mark.parametrize("python", [False, True])
def test_the_words_queued_behind_an_event_run_when_the_run_goes_on(tmp_path: Path, python: bool) -> None:
    """WaitGate.md: instructions leave the Wait Gate in push order, the gate checking every
    cycle; an event is tdbg's stop, so once it is continued the queued words run (no new push
    needed) and the next push does not stall: both XMOVs stop at the replay, 62 INCRWCs run."""
    with native.disabled() if python else contextlib.nullcontext():
        s = Session(_replay_past_an_event(tmp_path))
        stops = [s.cont() for _ in range(3)]
    assert [st.kind for st in stops] == [StopKind.EVENT, StopKind.EVENT, StopKind.EXITED]
    assert stops[0].pc == stops[1].pc and "XMOV" in stops[1].describe()
    cop = s.tile.coprocessor
    assert counters.decode(cop.rwc_bits[0])["Dst"] == 62 and cop.queued(0) == 0


def test_the_words_queued_behind_an_event_let_through_run_at_once(tmp_path: Path) -> None:
    """An event the policy lets through (a warning) does not leave its queue behind either."""
    s = Session(_replay_past_an_event(tmp_path))
    s.tile.policy[Category.UnimplementedFunctionality] = Policy.WARN
    assert s.cont().kind is StopKind.EXITED
    assert len(s.tile.warnings) == 2 and counters.decode(s.tile.coprocessor.rwc_bits[0])["Dst"] == 62


def _config(values: dict[str, int]) -> Callable[[Session], None]:
    """A setup that sets Config fields (thread 0's bank) before the run."""
    def setup(s: Session) -> None:
        for name, v in values.items():
            s.tile.tensix.config.set(name, v, thread=0)
    return setup


#: Two configs the same words read differently: the ADDR_MOD entries ZEROACC / MOVD2A / SFPLOAD
#: apply, and the Dst row size ZEROACC clears (MathConfig)
CONFIGS = ({"ADDR_MOD_DST_SEC1_DestIncr": 3, "ADDR_MOD_AB_SEC2_SrcAIncr": 1, "ALU_ACC_CTRL_Fp32_enabled": 0},
           {"ADDR_MOD_DST_SEC1_DestIncr": 7, "ADDR_MOD_AB_SEC2_SrcAIncr": 5, "ALU_ACC_CTRL_Fp32_enabled": 1,
            "ADDR_MOD_DST_SEC3_DestCR": 1})


@pytest.mark.parametrize("seed", range(2))
def test_the_shared_word_table_keeps_no_session_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      seed: int) -> None:
    """A word's kind and fields are the profile's table's (``SharedWords``) across sessions, but
    what its instruction reads from config is each session's: a session under another config,
    whose words all come from the table (no word decoded for it), leaves what the Python path
    leaves under that config."""
    monkeypatch.setattr(native_push.SharedWords, "_tables", {})
    rng = np.random.default_rng(seed)
    words = [w for w in random_words(rng, 160) if ISA.decode(w).mnemonic != "SETC16"]
    words += random_vector_words(rng, 40)
    source = firmware(tmp_path, words, trips=2)
    first, ran_first = outcome(source, setup=_config(CONFIGS[0]))
    kinds = []
    monkeypatch.setattr(native_push, "_kind", lambda m, f, _k=native_push._kind: kinds.append(m) or _k(m, f))
    second, ran_second = outcome(source, setup=_config(CONFIGS[1]))
    assert kinds == []   # every word's description the first session's
    with native.disabled():
        want_first, _ = outcome(source, setup=_config(CONFIGS[0]))
        want_second, _ = outcome(source, setup=_config(CONFIGS[1]))
    assert first == want_first and second == want_second
    assert first != second   # (the configs matter)
    assert ran_first > 0 and ran_second > 0


def test_each_instruction_set_has_its_own_word_table() -> None:
    """A word means what its profile's encodings say: the table is per ``Isa``."""
    from tdbg.tensix.isa import Isa
    wormhole = Isa.load("tdbg.arch.wormhole_b0")
    assert native_push.SharedWords.of(ISA) is native_push.SharedWords.of(ISA)
    assert native_push.SharedWords.of(wormhole) is not native_push.SharedWords.of(ISA)
