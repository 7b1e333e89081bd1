"""MOP and REPLAY in the native push path (``tdbg/native/frontend.c`` and ``push.c``'s
``run_frontend``) against the Python path (``tdbg.native.disabled()``): firmware writing random
``MopCfg`` templates (both templates, masks, loop counts, NOP slots, flipped loop words) of the
words ``test_native_push`` mixes, recording and replaying them (with and without Exec, a REPLAY
inside a template; a recording that a template begins), must stop at the same events and leave
identical state, push log and provenance; and the native path must have run some MOP and REPLAY
pushes itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg import native
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.session import Session
from test_native_push import _encode, outcome, random_words

pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")

MOP_CFG_BASE = BLACKHOLE.devices_of("mop config")[0].base
NOP = _encode("NOP")


def _slot(rng: np.random.Generator, pool: list[int]) -> int:
    """A template slot: a NOP now and then (template 1 skips those), else a word of the pool."""
    return NOP if rng.integers(0, 4) == 0 else int(rng.choice(pool))


def _mop_cfg(cfg: list[int]) -> list[str]:
    """The stores of MopCfg[0..8] (MOPExpander.md "Configuration")."""
    return [f"*(volatile unsigned *){MOP_CFG_BASE + 4 * i:#x}u = {v:#010x}u;" for i, v in enumerate(cfg)]


def random_program(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` steps of C (the replay buffer and MopCfg filled first): MopCfg stores, MOP_CFG,
    MOPs, REPLAY loads (the words recorded pushed next) and replays, and plain words between."""
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    pool = random_words(rng, 40)
    lines: list[str] = []
    tti = lambda word: lines.append(f"TTI({word:#010x}u);")  # noqa: E731
    tti(_encode("REPLAY", Index=0, Count=32, Load=1))   # every slot and MopCfg word filled first
    for _ in range(32):
        tti(int(rng.choice(pool)))
    lines += _mop_cfg([_slot(rng, pool) for _ in range(9)])
    for _ in range(n):
        k = rng.integers(0, 10)
        if k < 2:   # a template
            replay = _encode("REPLAY", Index=r(5), Count=1 + r(3))
            cfg = [r(3) | r(9) << 7 * int(rng.integers(0, 4) == 0), r(3) | r(9) << 7 * int(rng.integers(0, 4) == 0),
                   *(replay if rng.integers(0, 8) == 0 else _slot(rng, pool) for _ in range(7))]
            if rng.integers(0, 3) == 0:
                cfg[1] = r(2)   # template 0's Flags
            lines += _mop_cfg(cfg)
        elif k < 5:
            if rng.integers(0, 2):
                tti(_encode("MOP", Template=1))
            else:
                if rng.integers(0, 3) == 0:
                    tti(_encode("MOP_CFG", MaskHi=r(16)))
                tti(_encode("MOP", Template=0, Count1=r(6), MaskLo=r(16)))
        elif k < 6:   # record (Count 0: 64 words; past 63: an event)
            count = int(rng.choice([1, 2, 3, 5, 8, 0])) if rng.integers(0, 16) else 70
            tti(_encode("REPLAY", Index=r(10), Count=count, Load=1, Exec=r(1)))
            for _ in range(count or 64 if count < 64 else 8):
                tti(int(rng.choice(pool)))
        elif k < 8:
            tti(_encode("REPLAY", Index=r(10), Count=int(rng.choice([1, 2, 4, 7, 0])) if rng.integers(0, 16) else 64))
        else:
            tti(int(rng.choice(pool)))
    return lines


def firmware(tmp_path: Path, lines: list[str], trips: int) -> Path:
    body = "".join(f"        {line}\n" for line in lines)
    source = tmp_path / "frontend.c"
    source.write_text('#include "tensix.h"\n'
                      f"int main(void)\n{{\n    for (int i = 0; i < {trips}; i++) {{\n{body}    }}\n    return 0;\n}}\n")
    return source


def native_frontend_pushes(source: Path) -> int:
    """MOP and REPLAY pushes the native path logged itself."""
    s = Session(source)
    for _ in range(500):
        if s.cont().kind.name == "EXITED":
            break
    path = s.tile.push_path.native
    assert path is not None
    return int(np.isin(path.ring_records()["word"] >> 24, (1, 4)).sum())


def assert_native_equals_python(source: Path | dict[str, Path], ran: bool = True) -> None:
    """Both paths stop at the same events with the same state, push log and provenance; with
    ``ran``, the native path pushed some MOP or REPLAY itself."""
    got, _ = outcome(source)   # type: ignore[arg-type]
    with native.disabled():
        want, _ = outcome(source)   # type: ignore[arg-type]
    assert got == want
    if ran:
        assert native_frontend_pushes(source) > 0   # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(4))
def test_random_mops_and_replays_native_equal_python(tmp_path: Path, seed: int) -> None:
    source = firmware(tmp_path, random_program(np.random.default_rng(seed), 60), trips=6)
    assert_native_equals_python(source)


def test_a_long_expansion_is_pythons(tmp_path: Path) -> None:
    """A template past the expansion buffer (127 x 254 words) goes to Python whole."""
    inc, inc2 = _encode("INCRWC", DstInc=1), _encode("INCRWC", SrcAInc=1)
    cfg = [127, 127, NOP, NOP, NOP, inc, inc2, inc, inc2]
    source = firmware(tmp_path, [*_mop_cfg(cfg), f"TTI({_encode('MOP', Template=1):#010x}u);"], trips=2)
    assert_native_equals_python(source, ran=False)


def test_a_template_that_records(tmp_path: Path) -> None:
    """A template whose words begin a recording (with Exec) and replay it: the Replay Expander's
    state moves within the expansion, and the pushes after it are recorded too."""
    inc, inc2 = _encode("INCRWC", DstInc=1), _encode("INCRWC", SrcAInc=3)
    load = _encode("REPLAY", Index=30, Count=3, Load=1, Exec=1)
    cfg = [2, 2, load, inc, NOP, inc2, inc, _encode("REPLAY", Index=30, Count=3), inc2]
    lines = [*_mop_cfg(cfg), f"TTI({_encode('MOP', Template=1):#010x}u);", f"TTI({inc2:#010x}u);",
             f"TTI({_encode('REPLAY', Index=31, Count=2):#010x}u);"]
    source = firmware(tmp_path, lines, trips=40)
    assert_native_equals_python(source)


@pytest.mark.parametrize("cfg01", [(1, 0), (1 | 3 << 7, 0 | 5 << 7), (3, 1)])
def test_template1_hardware_bug_and_count_bits(tmp_path: Path, cfg01: tuple[int, int]) -> None:
    """ExpandTemplate1's documented bug (one outer iteration, NOP start, no inner loop, an end
    word: 129 iterations) and the loop counts' 7 bits."""
    inc, inc2 = _encode("INCRWC", DstInc=1), _encode("INCRWC", SrcBInc=1)
    cfg = [*cfg01, NOP, inc, inc2, inc2, NOP, inc, inc]
    # 21 trips: 128 iterations more or less in each MOP C runs shows in the 10-bit Dst counter
    source = firmware(tmp_path, [*_mop_cfg(cfg), f"TTI({_encode('MOP', Template=1):#010x}u);"], trips=21)
    assert_native_equals_python(source)


def test_template0_mask_hi_flags_and_skips(tmp_path: Path) -> None:
    """ExpandTemplate0 past 16 iterations (MaskHi's bits, as MOP_CFG set them; then zeros), each
    Flags value, the skip words."""
    words = [_encode("INCRWC", DstInc=1), _encode("INCRWC", SrcAInc=1), _encode("INCRWC", SrcBInc=1),
             _encode("INCRWC", DstInc=5), _encode("INCRWC", SrcAInc=3), _encode("INCRWC", SrcBInc=7)]
    lines = []
    for flags, mask_hi in ((3, 0xA5F0), (1, 0x0F0F), (2, 0xFFFF), (0, 0x1234)):
        lines += _mop_cfg([0, flags, *words, _encode("SETRWC", Dst=1, DstVal=3)])
        lines += [f"TTI({_encode('MOP_CFG', MaskHi=mask_hi):#010x}u);"]
        lines += [f"TTI({_encode('MOP', Template=0, Count1=count1, MaskLo=0x9C3B):#010x}u);" for count1 in (40, 20, 63, 5)]
    source = firmware(tmp_path, lines, trips=7)
    assert_native_equals_python(source)


def test_pushes_while_another_thread_is_held(tmp_path: Path) -> None:
    """T1's matrix-unit words held behind its SEMWAIT (queued at its Wait Gate) while T0 pushes
    MOPs, REPLAYs and plain words (the native path runs those that release nothing:
    ``Coprocessor.settled_and_held``), then T0's SEMINIT lets T1's queue go."""
    flag = 0x100000   # an L1 word both cores see: T1 has queued its words
    held = [_encode("SEMWAIT", BlockMask=0x40, SemaphoreMask=1, ConditionMask=1), _encode("MOVD2B", DstRow=3),
            _encode("ZEROACC", Imm10=7, Mode=0), _encode("INCRWC", DstInc=2)]
    t1 = tmp_path / "t1.c"
    t1.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  + "".join(f"    TTI({w:#010x}u);\n" for w in held)
                  + f"    *(volatile unsigned *){flag:#x}u = 1;\n    tdbg_wait_coprocessor_done();\n    return 0;\n}}\n")
    program = random_program(np.random.default_rng(5), 50)
    t0 = tmp_path / "t0.c"
    body = "".join(f"        {line}\n" for line in program)
    t0.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  f"    while (!*(volatile unsigned *){flag:#x}u) {{}}\n"
                  f"    for (int i = 0; i < 6; i++) {{\n{body}    }}\n"
                  f"    TTI({_encode('SEMINIT', SemaphoreMask=1, NewValue=1, NewMax=1):#010x}u);\n    return 0;\n}}\n")
    cores = {"T0": t0, "T1": t1}
    assert_native_equals_python(cores)


@pytest.mark.parametrize("name", ["eltwise_mul_fp32_2blocks", "matmul_2x2x2", "reduce_scalar_sum", "transpose_dest"])
def test_ttllk_kernels_native_equal_python(name: str) -> None:
    """tt-llk's kernels (their MOPs and REPLAYs) leave the same output, state and push log on
    both paths."""
    import ttllk_variants as tv
    from test_ttllk_kernels import run

    case = tv.case_or_skip(name)

    def state() -> tuple[object, ...]:
        s = run(case.variant, case.inputs)
        res, tile = case.variant.buffers["Res"], s.tile
        path, cop = tile.push_path, tile.coprocessor
        return (s.read_memory(res.address, case.out_bytes), cop.state.dst.bits.tolist(), cop.rwc_bits.tolist(),
                cop.replay_bits.tolist(), list(path.log), path.provenance.seq.tolist(), path.seq)

    got = state()
    with native.disabled():
        want = state()
    assert got == want
