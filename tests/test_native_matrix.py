"""The Matrix Unit's words in the native push path (``tdbg/native/matrix_push.c``,
``tdbg.emu.native_matrix``) against the Python path (the reference, ``tdbg.native.disabled()``):
firmware pushing random MVMUL / ELWADD / ELWSUB / ELWMUL / MOVA2D / MOVB2D / MOVB2A (with bank
flips, broadcasts, both Dst widths, fidelity phases, ADDR_MOD entries, formats that name no style,
INT8 and FP16A_FORCE modes, masked columns, undefined and unpredictable Dst rows among them) on
random Src and Dst data, pushed straight to the hook and released from Python's Wait Gate queue
by another thread's SETDVALID, must stop at the same events and leave identical RWCs, Src,
``Dst`` (bits, flags, unpredictable cells, provenance) and push log; and C must have run most of
them.  tt-llk's matmul and eltwise kernels give their golden output with no MVMUL / ELW* left
to Python."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg import native
from tdbg.emu import native_matrix
from tdbg.session import Session
from tdbg.tensix.coprocessor import Bound, Coprocessor
from tdbg.tensix.state import TensixState
from tdbg.tensix.sfpu.movement import IMM16_IS_VALUE
from test_native_push import _encode, firmware, outcome

pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")

TABLE = TensixState().config.table
#: The opcodes of MVMUL, ELWADD, ELWSUB, ELWMUL, MOVA2D, MOVB2D, MOVB2A (bh_encodings.json).
MATRIX_OPS = (0x26, 0x28, 0x30, 0x27, 0x12, 0x13, 0x0B)
#: Data format codes for SrcAFmt: FP32 (TF32 style), FP16, TF32, BF16, and 15, which names none;
#: the common ones FP16 and BF16.
FORMATS, COMMON_FORMATS = (0, 1, 4, 5, 5, 5, 15), (1, 5)


def _field_write(rng: np.random.Generator, name: str) -> int:
    """A word giving config field ``name`` a random value: SETC16 for a ThreadConfig field,
    RMWCIB of the field's byte for a Config one."""
    f = TABLE.field(name)
    value = int(rng.integers(0, 1 << f.width))
    if f.thread:
        return _encode("SETC16", CfgIndex=f.addr32, NewValue=value << f.shamt)
    byte, shift = divmod(f.shamt, 8)
    mask = (((1 << f.width) - 1) << shift) & 0xFF
    return _encode(f"RMWCIB{byte}", Index4=f.addr32, NewValue=(value << shift) & mask, Mask=mask)


def random_matrix_words(rng: np.random.Generator, n: int, rare: bool = True) -> list[int]:
    """``n`` words, mostly the Matrix Unit's; a bank flip is followed by the SETDVALID that hands
    the Matrix Unit its next bank.  ``rare``: also the modes and config C leaves to Python (and
    SrcA counter moves, which take MVMUL's SrcA rows past 63 now and then: UndefinedBehavior)."""
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    out: list[int] = []
    for _ in range(n):
        k = rng.integers(0, 24)
        flip_a, flip_b = (r(1), r(1)) if rare and rng.integers(0, 10) == 0 else (0, 0)
        flips = {"FlipSrcA": flip_a, "FlipSrcB": flip_b}
        if k < 5:
            out.append(_encode("MVMUL", DstRow=r(10), AddrMod=r(3), BroadcastSrcBRow=r(1), **flips))
        elif k < 10:
            name = str(rng.choice(["ELWADD", "ELWSUB", "ELWMUL"]))
            last = {"dest_accum_en": r(1)} if name == "ELWMUL" else {"AddDst": r(1)}
            out.append(_encode(name, DstRow=r(10), AddrMod=r(3), BroadcastSrcBCol0=r(1), BroadcastSrcBRow=r(1),
                               **last, **flips))
        elif k < 11:
            out.append(_encode("MOVA2D", DstRow=r(10), Move8Rows=r(1), AddrMod=r(3), SrcRow=r(6), UseDst32bLo=r(1)))
        elif k < 12:
            out.append(_encode("MOVB2D", DstRow=r(10), BroadcastCol0=r(1), Broadcast1RowTo8=r(1), Move4Rows=r(1),
                               AddrMod=r(3), SrcRow=r(6), UseDst32bLo=r(1)))
        elif k < 13:
            out.append(_encode("MOVB2A", SrcBRow=r(6), Move4Rows=r(1), AddrMod=r(3), SrcARow=r(6)))
        elif k < 15:
            out.append(_encode("INCRWC", SrcAInc=r(4) if rare else 0, SrcBInc=r(4), DstInc=r(4)) if r(1) else
                       _encode("SETRWC", SrcA=r(1), SrcB=r(1), Dst=r(1), Fidelity=r(1), SrcAVal=r(4), SrcBVal=r(4),
                               DstVal=r(4)))
        elif k < 18:   # ADDR_MOD entries (the fidelity phase moves with FidelityIncr)
            name = ["ADDR_MOD_AB_SEC{}_SrcAIncr", "ADDR_MOD_DST_SEC{}_DestIncr", "ADDR_MOD_DST_SEC{}_FidelityIncr",
                    "ADDR_MOD_AB_SEC{}_SrcBIncr"][r(2) if rare else 1 + r(2) % 3].format(r(2))
            out.append(_field_write(rng, name))
        elif k < 20:
            choice = ["ALU_ACC_CTRL_Fp32_enabled", "FIDELITY_BASE_Phase", "DEST_TARGET_REG_CFG_MATH_Offset"]
            if rare:
                choice += ["ALU_ACC_CTRL_Zero_Flag_disabled_src", "ALU_ACC_CTRL_INT8_math_enabled", "FP16A_FORCE_Enable",
                           "DISABLE_IMPLIED_SRCA_FMT_Base", "ALU_FORMAT_SPEC_REG0_SrcA"]
            name = str(rng.choice(choice))
            word = _field_write(rng, name)
            if name == "DEST_TARGET_REG_CFG_MATH_Offset":
                word = _encode("SETC16", CfgIndex=TABLE.field(name).addr32, NewValue=16 * r(6))
            out.append(word)
        elif k < 21 and rare:   # a column masked for the moves (BLOCK_DEST_MOV), or not
            out.append(_encode("SFPCONFIG", Imm16=0x600 * r(1), VD=15, Mod1=IMM16_IS_VALUE))
        elif k < 22:
            out.append(_encode("ZEROACC", Imm10=r(10), AddrMod=r(3), Mode=0))
        else:
            out.append(_encode(["MOVD2A", "MOVD2B"][r(1)], DstRow=r(10), SrcRow=r(6), Move4Rows=r(1), AddrMod=r(3)))
        if flip_a or flip_b:
            out.append(_encode("SETDVALID", FlipSrcA=flip_a, FlipSrcB=flip_b))
    return out


def setup(seed: int, rare: bool, unpredictable: bool = False):  # noqa: ANN201 - outcome's setup
    """Random Src banks and formats (``rare``: also those C leaves to Python), ``Dst`` bits and
    defined rows (and some unpredictable cells)."""
    def fill(s: Session) -> None:
        rng = np.random.default_rng(seed + 100)
        state = s.tile.coprocessor.state
        for src in (state.srca, state.srcb):
            src.data[:] = rng.integers(0, 1 << 19, src.data.shape)
            src.fmt[:] = [int(rng.choice(FORMATS if rare else COMMON_FORMATS)) for _ in range(2)]
        dst = state.dst
        dst.bits[:] = rng.integers(0, 1 << 16, dst.bits.shape)
        dst.ever_written[:] = rng.random(dst.rows) < 0.9
        if unpredictable:   # as a bit-11 Dst16b write leaves them
            dst.unpredictable[rng.integers(0, dst.rows, 12), rng.integers(0, 16, 12)] = True
            dst._any_unpredictable = True
    return fill


class Counts:
    """The Matrix Unit words C ran off Python's queue, and those Python's ``_execute`` ran."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.queued = self.python = 0
        run_queued, execute = native_matrix.NativeMatrix.run_queued, Coprocessor._execute

        def counted(matrix: native_matrix.NativeMatrix, thread: int, word: int) -> bool:
            done = run_queued(matrix, thread, word)
            self.queued += done and word >> 24 in MATRIX_OPS
            return done

        def executed(cop: Coprocessor, thread: int, word: int, b: Bound) -> None:
            self.python += word >> 24 in MATRIX_OPS
            execute(cop, thread, word, b)
        monkeypatch.setattr(native_matrix.NativeMatrix, "run_queued", counted)
        monkeypatch.setattr(Coprocessor, "_execute", executed)


def native_matrix_words(s: Session) -> tuple[int]:
    """The Matrix Unit words C ran (pushed, expanded or off the queue: matrix_push.c's count)."""
    path = s.tile.push_path.native
    return (int(path.matrix.s.ran) if path is not None else 0,)


def assert_same(source: Path | dict[str, Path], fill, monkeypatch: pytest.MonkeyPatch) -> tuple[Counts, int]:  # noqa: ANN001
    """Both paths leave the same; what C ran (off the queue, and in all)."""
    with monkeypatch.context() as m:
        counts = Counts(m)
        got, _ = outcome(source, native_matrix_words, fill)   # type: ignore[arg-type]
    with native.disabled():
        want, _ = outcome(source, native_matrix_words, fill)   # type: ignore[arg-type]
    assert got[:-1] == want[:-1]
    return counts, got[-1]   # type: ignore[return-value]


@pytest.mark.parametrize("seed", range(4))
def test_random_matrix_words_native_equal_python(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pushed to the hook, the Matrix Unit's banks handed over by a SETDVALID first (the common
    modes only for seeds 0 and 1: C runs most words; the rare ones too for 2 and 3)."""
    rng = np.random.default_rng(seed)
    words = [_encode("SETDVALID", FlipSrcA=1, FlipSrcB=1), *random_matrix_words(rng, 150, rare=seed >= 2)]
    source = firmware(tmp_path, words, trips=2)
    counts, ran = assert_same(source, setup(seed, seed >= 2, unpredictable=seed == 3), monkeypatch)
    assert ran > (100 if seed < 2 else 40)
    if seed < 2:
        assert counts.python < ran / 4   # (ELWADD / ELWSUB in a fidelity phase but 0: Python's)


def _two_threads(tmp_path: Path, rng: np.random.Generator, trips: int, rare: bool) -> dict[str, Path]:
    """T1 hands its banks back (CLEARDVALID), latches a STALLWAIT on the Matrix Unit's banks and
    queues 40 words behind it each trip; T0 then hands it the banks (SETDVALID), which releases
    them in Python's Coprocessor._run, and says so; T1 waits for that before its next trip."""
    flag, ack = 0x100000, 0x100004
    stall = _encode("STALLWAIT", ConditionMask=(1 << 7) | (1 << 8), BlockMask=0x1FF)
    give_back = _encode("CLEARDVALID", FlipSrcA=1, FlipSrcB=1)
    body = ""
    for trip in range(1, trips + 1):
        words = [give_back, stall, *random_matrix_words(rng, 36, rare)][:42]
        body += "".join(f"    TTI({w:#010x}u);\n" for w in words)
        body += (f"    *(volatile unsigned *){flag:#x}u = {trip};\n"
                 f"    while (*(volatile unsigned *){ack:#x}u != {trip}) {{}}\n")
    t1 = tmp_path / "t1.c"
    t1.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  f"    TTI({_encode('SETDVALID', FlipSrcA=1, FlipSrcB=1):#010x}u);\n"
                  f"{body}    tdbg_wait_coprocessor_done();\n    return 0;\n}}\n")
    t0 = tmp_path / "t0.c"
    t0.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  f"    for (unsigned i = 1; i <= {trips}u; i++) {{\n"
                  f"        while (*(volatile unsigned *){flag:#x}u != i) {{}}\n"
                  f"        TTI({_encode('SETDVALID', FlipSrcA=1, FlipSrcB=1):#010x}u);\n"
                  f"        *(volatile unsigned *){ack:#x}u = i;\n    }}\n    return 0;\n}}\n")
    return {"T0": t0, "T1": t1}


@pytest.mark.parametrize("seed", range(3))
def test_words_released_from_the_queue(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The words queued behind T1's latched STALLWAIT run in C when T0's SETDVALID releases them
    (``Coprocessor.native_execute``), as Python runs them (the rare modes too for seed 2)."""
    cores = _two_threads(tmp_path, np.random.default_rng(seed), trips=6, rare=seed == 2)
    counts, _ = assert_same(cores, setup(seed, seed == 2), monkeypatch)
    assert counts.queued > (60 if seed < 2 else 20)
    if seed < 2:
        assert counts.python < counts.queued / 3   # (ELWADD / ELWSUB in a fidelity phase but 0: Python's)


@pytest.mark.parametrize("name", ["matmul_2x2x2", "matmul_random", "eltwise_add", "eltwise_mul_bcast_row",
                                  "eltwise_sub_bcast_col", "eltwise_add_bf16_fp32dest_2blocks"])
def test_ttllk_kernels_run_their_matrix_words_in_c(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tt-llk's kernels: the same output and push log on both paths, equal to tt-llk's golden, and
    no MVMUL / ELW* left to Python's ``_execute`` (C ran them pushed or off the queue)."""
    import ttllk_variants as tv
    from test_ttllk_kernels import run

    case = tv.case_or_skip(name)

    def state() -> tuple[object, ...]:
        s = run(case.variant, case.inputs)
        res, path = case.variant.buffers["Res"], s.tile.push_path
        dst = s.tile.tensix.dst
        return (s.read_memory(res.address, case.out_bytes), list(path.log), path.seq, dst.bits.tolist(),
                dst.ever_written.tolist(), path.provenance.seq.tolist(), native_matrix_words(s)[0])

    with monkeypatch.context() as m:
        counts = Counts(m)
        got = state()
    with native.disabled():
        want = state()
    assert got[:-1] == want[:-1]
    out = tv.decode(got[0], case.out_format)   # type: ignore[arg-type]
    if case.tolerance is None:
        assert (out == case.golden).all()
    else:
        assert np.isclose(out, case.golden, atol=case.tolerance[0], rtol=case.tolerance[1]).all()
    assert counts.python == 0 and got[-1] > 0
