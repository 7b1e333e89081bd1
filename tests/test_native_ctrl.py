"""The control and sync words in the native push path (``tdbg/native/ctrl.c``,
``tdbg.emu.native_ctrl``) against the Python path (``tdbg.native.disabled()``): firmware pushing
random SETC16 / WRCFG / RMWCIB config writes (to the bank select, the ADDR_MOD entries, global
words, ``STATE_RESET_EN``, past the config), SETDMAREG, the SETADC forms (a ThreadOverride too), semaphores and met
waits, mixed with ``test_native_push``'s words and in MOP templates, must stop at the same
events and leave identical config (and no stale cached read of it), GPRs, ADCs, semaphores,
Wait Gates and queues besides what ``test_native_push.outcome`` compares; the native path must
have run the control words itself, and an unmet wait stays Python's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg import native
from tdbg.session import Session
from tdbg.tensix.coprocessor import Bound, Coprocessor
from tdbg.tensix.state import TensixState
from test_native_frontend import _mop_cfg
from test_native_push import _encode, firmware, outcome, random_words

pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")

TABLE = TensixState().config.table
WORDS, THD = TABLE.cfg_state_size * 4, TABLE.thd_state_size
RESET = TABLE.field("STATE_RESET_EN").addr32
#: The opcodes of the words ctrl.c runs (bh_encodings.json): SETC16, WRCFG, RMWCIB0-3, SETDMAREG,
#: SETADCXY, SETADCZW, SETADCXX, SEMINIT, SEMPOST, SEMGET, STALLWAIT, SEMWAIT, SETADC.
CTRL_OPS = (0xB2, 0xB0, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0x45, 0x51, 0x54, 0x5E, 0xA3, 0xA4, 0xA5, 0xA2, 0xA6, 0x50)
#: Fields whose cached reads must agree with the words (a write from C forgets them too).
CHECKED = [f.name for f in TABLE.fields.values() if f.name.startswith(("ADDR_MOD", "ALU_", "DEST_", "UNPACK_"))][:300]


def _config_index(rng: np.random.Generator) -> int:
    """A Config word: mostly low ones, some global, the bank reset, now and then past the end."""
    k = rng.integers(0, 10)
    return (RESET if k == 0 else int(rng.integers(TABLE.global_base, WORDS)) if k < 3
            else WORDS + int(rng.integers(0, 8)) if k == 3 else int(rng.integers(0, 64)))


def random_ctrl_words(rng: np.random.Generator, n: int) -> list[int]:
    """GPRs and semaphores 4-7 given values first (the waits on them are met), then ``n`` words:
    the control and sync words, and ``test_native_push``'s."""
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    out = [_encode("SEMINIT", SemaphoreMask=0xF0, NewValue=5, NewMax=15)]
    out += [_encode("SETDMAREG", RegIndex16b=i, Payload_SigSel=r(14), Payload_SigSelSize=r(2)) for i in range(0, 128, 3)]
    pool = random_words(rng, 40)
    for _ in range(n):
        k = rng.integers(0, 22)
        if k < 3:
            index = int(rng.choice([0, r(6), THD + r(2)])) if rng.integers(0, 4) == 0 else TABLE.field(
                f"ADDR_MOD_AB_SEC{r(3)}_SrcAIncr").addr32
            out.append(_encode("SETC16", CfgIndex=index, NewValue=r(1) if index == 0 else r(16) & 0x3FFF))
        elif k < 6:
            out.append(_encode("WRCFG", CfgIndex=_config_index(rng) & 0x7FF, Is128Bit=r(1), InputReg=r(6)))
        elif k < 9:
            out.append(_encode(f"RMWCIB{r(2)}", Index4=_config_index(rng) & 0xFF, NewValue=r(8), Mask=r(8)))
        elif k < 11:
            out.append(_encode("SETDMAREG", RegIndex16b=r(7), Payload_SigSel=r(14), Payload_SigSelSize=r(2),
                               SetSignalsMode=int(rng.integers(0, 8) == 0)))
        elif k < 13:
            name = str(rng.choice(["SETADCXY", "SETADCZW"]))
            dims = ("X", "Y") if name == "SETADCXY" else ("Z", "W")
            out.append(_encode(name, **{f"{d}{ch}": r(1) for d in dims for ch in (0, 1)},
                               **{f"{d}{ch}Val": r(3) for d in dims for ch in (0, 1)}, U0=r(1), U1=r(1), PK=r(1)))
        elif k < 14:
            out.append(_encode("SETADCXX", X0Val=r(10), X1Val=r(10), U0=r(1), U1=r(1), PK=r(1)) if r(1) else
                       _encode("SETADC", NewValue=r(18), XYZW=r(2), Channel=r(1), U0=r(1), U1=r(1), PK=r(1)))
        elif k < 16:
            name = str(rng.choice(["SEMPOST", "SEMGET", "SEMINIT"]))
            extra = {"NewValue": r(4), "NewMax": r(4)} if name == "SEMINIT" else {}
            out.append(_encode(name, SemaphoreMask=r(4), **extra))   # semaphores 0-3
        elif k < 18:   # met: no Src condition (the banks are the unpackers' since reset), semaphores 4-7
            if rng.integers(0, 2):
                out.append(_encode("STALLWAIT", ConditionMask=r(5) | r(2) << 5 | r(4) << 9, BlockMask=r(9)))
            else:
                out.append(_encode("SEMWAIT", ConditionMask=r(2), SemaphoreMask=r(4) << 4, BlockMask=r(9)))
        else:
            out.append(int(rng.choice(pool)))
    return out


def template_words(rng: np.random.Generator) -> list[int]:
    """Seven control words C runs (none declined) for a MOP template (its ZEROACC's ADDR_MOD 1
    among what they write)."""
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    pool = [_encode("SETC16", CfgIndex=TABLE.field("ADDR_MOD_AB_SEC1_SrcAIncr").addr32, NewValue=r(6)),
            _encode("WRCFG", CfgIndex=8 + r(5), InputReg=r(6)), _encode("RMWCIB1", Index4=8 + r(5), NewValue=r(8), Mask=r(8)),
            _encode("SETDMAREG", RegIndex16b=r(7), Payload_SigSel=r(14)),
            _encode("SETADCXY", X0=1, Y1=1, X0Val=r(3), Y1Val=r(3), U0=1, PK=r(1)),
            _encode("SEMPOST", SemaphoreMask=r(4)), _encode("STALLWAIT", ConditionMask=r(4), BlockMask=r(9))]
    return [int(w) for w in rng.choice(pool, 7)]


def ctrl_state(s: Session) -> tuple[object, ...]:
    cop = s.tile.coprocessor
    state = cop.state
    cfg = state.config
    cached = [[cfg.get(name, thread=t) == cfg._read(name, t, None)[0] for name in CHECKED] for t in range(3)]
    return (cfg.config.tolist(), cfg.thread_config.tolist(), state.gprs.tolist(), state.adcs.value.tolist(),
            state.adcs.cr.tolist(), cop.semaphore_bits.tolist(), [repr(g) for g in cop.wait_gate],
            [cop.pending(t) for t in range(3)], cached)


def native_records(source: Path | dict[str, Path]) -> np.ndarray:
    """The pushes the native path logged itself in a run of ``source`` to its end."""
    s = Session(source)
    for _ in range(500):
        if s.cont().kind.name == "EXITED":
            break
    path = s.tile.push_path.native
    assert path is not None
    return path.ring_records()


def native_ctrl_pushes(source: Path | dict[str, Path]) -> int:
    """The control and sync words the native path logged itself."""
    return int(np.isin(native_records(source)["word"] >> 24, CTRL_OPS).sum())


def python_ctrl_words(source: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The control and sync words the Python path executed (pushed or expanded)."""
    executed = []
    run = Coprocessor._execute

    def execute(cop: Coprocessor, thread: int, word: int, b: Bound) -> None:
        executed.append(word >> 24)
        run(cop, thread, word, b)
    with monkeypatch.context() as m:
        m.setattr(Coprocessor, "_execute", execute)
        outcome(source)
    return int(np.isin(executed, CTRL_OPS).sum())


def assert_same(source: Path | dict[str, Path]) -> tuple[object, ...]:
    got, _ = outcome(source, ctrl_state)   # type: ignore[arg-type]
    with native.disabled():
        want, _ = outcome(source, ctrl_state)   # type: ignore[arg-type]
    assert got == want
    assert all(all(row) for row in got[-1])   # (no cached read of config is stale)
    return got


@pytest.mark.parametrize("seed", range(4))
def test_random_control_words_native_equal_python(tmp_path: Path, seed: int) -> None:
    source = firmware(tmp_path, random_ctrl_words(np.random.default_rng(seed), 150), trips=3)
    assert_same(source)
    assert native_ctrl_pushes(source) > 100


def test_words_pushed_by_stores(tmp_path: Path) -> None:
    """The same words pushed by ``sw`` to INSTRN_BUF_BASE (``TT_PUSH``), one in two, MOPs among
    them: the native path runs the stored words too (``tdbg_push_word``), logged as stores."""
    rng = np.random.default_rng(11)
    words = random_ctrl_words(rng, 120)
    mop = [*_mop_cfg([1, 1, *template_words(rng)]), f"TT_PUSH({_encode('MOP', Template=1):#010x}u);"]
    lines = [*mop, *(f"TT_PUSH({w:#010x}u);" if i % 2 else f"TTI({w:#010x}u);" for i, w in enumerate(words)), *mop]
    source = tmp_path / "stores.c"
    body = "".join(f"        {line}\n" for line in lines)
    source.write_text(f'#include "tensix.h"\nint main(void)\n{{\n    for (int i = 0; i < 3; i++) {{\n{body}    }}\n'
                      "    return 0;\n}\n")
    assert_same(source)
    stored = native_records(source)
    assert (stored["via"] == 1).sum() > 100 and (stored[stored["via"] == 1]["word"] >> 24 == 1).sum() > 0   # (MOP)


def test_control_words_in_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A MOP whose template holds control words (run by push.c's run_frontend), between config
    writes that change what the template's ZEROACC reads."""
    rng = np.random.default_rng(7)
    lines = []
    for _ in range(12):
        words = template_words(rng)
        lines += _mop_cfg([1, 1, *words])
        lines += [f"TTI({_encode('MOP', Template=1):#010x}u);", f"TTI({_encode('ZEROACC', Imm10=3, AddrMod=1):#010x}u);"]
    source = tmp_path / "templates.c"
    body = "".join(f"        {line}\n" for line in lines)
    source.write_text(f'#include "tensix.h"\nint main(void)\n{{\n    for (int i = 0; i < 2; i++) {{\n{body}    }}\n'
                      "    return 0;\n}\n")
    assert_same(source)
    assert python_ctrl_words(source, monkeypatch) == 0
    with native.disabled():
        assert python_ctrl_words(source, monkeypatch) > 100


def test_an_unmet_wait_is_pythons(tmp_path: Path) -> None:
    """STALLWAIT C7 (SrcA of the Matrix Unit's bank not valid: unmet since reset) and SEMWAIT on
    semaphore 0 (Value 0) latch in Python; the words behind them queue (C runs none of them
    while the queue holds any), and the core ends with them pending."""
    words = [_encode("NOP"), _encode("SETC16", CfgIndex=9, NewValue=5), _encode("STALLWAIT", ConditionMask=1 << 7, BlockMask=1 << 6),
             _encode("SETC16", CfgIndex=10, NewValue=6), _encode("INCRWC", DstInc=1), _encode("SEMPOST", SemaphoreMask=2),
             _encode("SETDMAREG", RegIndex16b=3, Payload_SigSel=9)]
    source = firmware(tmp_path, words)
    got = assert_same(source)
    pending = got[-2]
    assert pending[0] == words[4:]   # INCRWC held by the latch, the rest behind it
    assert native_ctrl_pushes(source) == 1   # the first SETC16 only
    semwait = [_encode("NOP"), _encode("SEMWAIT", ConditionMask=1, SemaphoreMask=1, BlockMask=1 << 7), _encode("SETC16", CfgIndex=9, NewValue=1),
               _encode("SEMPOST", SemaphoreMask=2)]
    source = firmware(tmp_path, semwait)
    assert assert_same(source)[-2][0] == semwait[2:]
    assert native_ctrl_pushes(source) == 0


def test_semaphores_while_another_thread_waits(tmp_path: Path) -> None:
    """T1's words held behind its SEMWAIT on semaphore 0 while T0 pushes control words (those
    that release nothing run in C with T1's queue held; SEMPOST / SEMGET / SEMINIT are Python's
    then), until T0's SEMINIT of semaphore 0 lets T1 go."""
    flag = 0x100000   # an L1 word both cores see: T1 has queued its words
    held = [_encode("SEMWAIT", BlockMask=0x40, SemaphoreMask=1, ConditionMask=1), _encode("ZEROACC", Imm10=7, Mode=0),
            _encode("SETC16", CfgIndex=12, NewValue=3), _encode("SEMPOST", SemaphoreMask=4)]
    t1 = tmp_path / "t1.c"
    t1.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  + "".join(f"    TTI({w:#010x}u);\n" for w in held)
                  + f"    *(volatile unsigned *){flag:#x}u = 1;\n    tdbg_wait_coprocessor_done();\n    return 0;\n}}\n")
    body = "".join(f"        TTI({w:#010x}u);\n" for w in random_ctrl_words(np.random.default_rng(3), 60))
    t0 = tmp_path / "t0.c"
    t0.write_text('#include "tensix.h"\nint main(void)\n{\n'
                  f"    while (!*(volatile unsigned *){flag:#x}u) {{}}\n"
                  f"    for (int i = 0; i < 3; i++) {{\n{body}    }}\n"
                  f"    TTI({_encode('SEMINIT', SemaphoreMask=1, NewValue=1, NewMax=2):#010x}u);\n    return 0;\n}}\n")
    cores = {"T0": t0, "T1": t1}
    assert_same(cores)
    assert native_ctrl_pushes(cores) > 0


@pytest.mark.parametrize("name", ["eltwise_mul_fp32_2blocks", "matmul_2x2x2"])
def test_ttllk_kernels_leave_the_same_control_state(name: str) -> None:
    """tt-llk's kernels (their config writes, semaphores and waits) leave the same output and
    control state on both paths."""
    import ttllk_variants as tv
    from test_ttllk_kernels import run

    case = tv.case_or_skip(name)

    def state() -> tuple[object, ...]:
        s = run(case.variant, case.inputs)
        res, path = case.variant.buffers["Res"], s.tile.push_path
        return (s.read_memory(res.address, case.out_bytes), list(path.log), path.seq, ctrl_state(s))

    got = state()
    with native.disabled():
        want = state()
    assert got == want
    assert all(all(row) for row in got[-1][-1])


def test_stored_words_are_pushed_by_the_c_store_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A T core's ``sw`` to INSTRN_BUF_BASE goes to push.c's store hook (``NativeCore.hook_stores``),
    which pushes the word in C, or hands it to the region's Python hook: the words it declines
    (Python's, SETC16 among them), a 2-byte store (UndefinedBehavior, PushTensixInstruction.md) and
    a misaligned one; everything as the Python path leaves it, and the device's Python store ran
    only for what C declined."""
    from tdbg.emu.devices.instruction_push import InstructionPush
    from tdbg.emu.native_push import NativeCore
    words = random_words(np.random.default_rng(5), 150)
    lines = [f"TTI({_encode('NOP'):#010x}u);", *(f"TT_PUSH({w:#010x}u);" for w in words),
             f"*(volatile uint16_t *)INSTRN_BUF_BASE = {_encode('NOP') & 0xFFFF:#x};",
             f"*(volatile uint32_t *)(INSTRN_BUF_BASE + 2) = {_encode('NOP'):#010x}u;"]
    source = tmp_path / "stores.c"
    body = "".join(f"        {line}\n" for line in lines)
    source.write_text(f'#include "tensix.h"\nint main(void)\n{{\n    for (int i = 0; i < 2; i++) {{\n{body}    }}\n'
                      "    return 0;\n}\n")
    python_stores = []
    store = InstructionPush.store

    def counted(self: InstructionPush, core: object, offset: int, size: int, value: int) -> None:
        python_stores.append(value)
        store(self, core, offset, size, value)  # type: ignore[arg-type]
    monkeypatch.setattr(InstructionPush, "store", counted)
    got = assert_same(source)
    python_stores.clear()
    stored = native_records(source)
    in_c, with_hook = int((stored["via"] == 1).sum()), len(python_stores)   # (logged as stores)
    python_stores.clear()
    monkeypatch.setattr(NativeCore, "hook_stores", lambda self: setattr(self.core, "_instrn_hook", None))
    assert (native_records(source)["via"] == 1).sum() == in_c   # (C pushed the same, called by Python)
    assert in_c > 100 and with_hook == len(python_stores) - in_c   # no Python frame for those
