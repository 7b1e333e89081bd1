"""Vector Unit lane predication, the flag stack, cross-lane moves and configuration, worked from
the BlackholeA0 pages (VectorUnit.md, SFPSETCC, SFPENCC, SFPPUSHC, SFPPOPC, SFPCOMPC, SFPLE, SFPGT,
SFPMOV, SFPSWAP, SFPTRANSP, SFPSHFT2, SFPCONFIG)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sfpu_reference import LANES, encode, f32, lreg, run, set_lreg

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import NonContractualBehavior, UndefinedBehavior, UnpredictableValueUsed, UnsupportedFunctionality
from tdbg.tensix.state import TensixState

LT0, NE0, GTE0, EQ0 = 0, 2, 4, 6


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def enable_cc(cop: Coprocessor) -> None:
    run(cop, "SFPENCC", Mod1=10, Imm2=3)   # EI | RI: UseLaneFlagsForLaneEnable = LaneFlags = true


def flags(cop: Coprocessor) -> np.ndarray:
    return cop.vector.lane_flags.copy()


# -- predication ----------------------------------------------------------------------------------

def test_encc_modes(cop: Coprocessor) -> None:
    run(cop, "SFPENCC", Mod1=2, Imm2=1)                    # EI: Use = 1; LaneFlags = true
    assert cop.vector.use_lane_flags.all() and cop.vector.lane_flags.all()
    run(cop, "SFPENCC", Mod1=1 | 8, Imm2=0)                # EC: invert Use; RI: LaneFlags = 0
    assert not cop.vector.use_lane_flags.any() and not cop.vector.lane_flags.any()
    run(cop, "SFPENCC", Mod1=0)                            # Use as is; LaneFlags = true
    assert not cop.vector.use_lane_flags.any() and cop.vector.lane_flags.all()


@pytest.mark.parametrize(("mod1", "expected"), [
    (LT0, [True, False, False]), (NE0, [True, True, False]), (GTE0, [False, True, True]), (EQ0, [False, False, True]),
])
def test_setcc_compares_two_complement(cop: Coprocessor, mod1: int, expected: list[bool]) -> None:
    enable_cc(cop)
    set_lreg(cop, 1, np.resize([0xFFFFFFFF, 5, 0], 32))     # -1, 5, 0
    run(cop, "SFPSETCC", VC=1, Mod1=mod1)
    assert list(flags(cop)[:3]) == expected


def test_setcc_imm_clear_and_unconditional_mode(cop: Coprocessor) -> None:
    enable_cc(cop)
    run(cop, "SFPSETCC", Mod1=1, Imm1=0)                   # IMM_BIT0
    assert not flags(cop).any()
    run(cop, "SFPENCC", Mod1=2 | 8, Imm2=1 | 2)
    run(cop, "SFPSETCC", Mod1=8)                           # CLEAR
    assert not flags(cop).any()
    run(cop, "SFPENCC", Mod1=2 | 8, Imm2=2)                # Use false, flags true
    run(cop, "SFPSETCC", Mod1=1, Imm1=1)                   # Use false: LaneFlags = false
    assert not flags(cop).any()


def test_if_else_nesting_with_the_stack(cop: Coprocessor) -> None:
    # v = lane - 16;  if (v < 0) { r = 1; if (v >= -8) r = 2; } else r = 3
    set_lreg(cop, 1, (LANES - 16) & 0xFFFFFFFF)
    set_lreg(cop, 2, 0)
    enable_cc(cop)
    run(cop, "SFPPUSHC")                                   # save the outer state
    run(cop, "SFPSETCC", VC=1, Mod1=LT0)                   # if (v < 0)
    run(cop, "SFPLOADI", VD=2, Mod0=2, Imm16=1)
    run(cop, "SFPPUSHC")
    run(cop, "SFPIADD", VC=1, VD=3, Imm12=8, Mod1=1 | 8)   # v + 8 >= 0 (CC_GTE0), ANDed by enablement
    run(cop, "SFPLOADI", VD=2, Mod0=2, Imm16=2)
    run(cop, "SFPPOPC")
    run(cop, "SFPCOMPC")                                   # else
    run(cop, "SFPLOADI", VD=2, Mod0=2, Imm16=3)
    run(cop, "SFPPOPC")
    expected = np.where(LANES < 8, 1, np.where(LANES < 16, 2, 3))
    assert (lreg(cop, 2) == expected).all()
    assert cop.vector.stack_size.max() == 0 and cop.vector.lane_flags.all()


def test_stack_limits_are_undefined(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="empty"):
        run(cop, "SFPPOPC")
    for _ in range(8):
        run(cop, "SFPPUSHC")
    with pytest.raises(UndefinedBehavior, match="full"):
        run(cop, "SFPPUSHC")
    run(cop, "SFPPOPC", Mod1=13)                           # peek modes are fine on a full stack (Blackhole)
    assert cop.vector.stack_size.min() == 8


@given(st.integers(1, 12), st.lists(st.booleans(), min_size=32, max_size=32), st.lists(st.booleans(), min_size=32, max_size=32))
def test_popc_and_pushc_boolean_ops(mod1: int, a: list[bool], b: list[bool]) -> None:
    # BooleanOp(Mod1, A, B) of SFPPOPC.md, by its table
    table = {1: lambda a, b: b, 2: lambda a, b: not b, 3: lambda a, b: a and b, 4: lambda a, b: a or b,
             5: lambda a, b: a and not b, 6: lambda a, b: a or not b, 7: lambda a, b: not a and b,
             8: lambda a, b: not a or b, 9: lambda a, b: not a and not b, 10: lambda a, b: not a or not b,
             11: lambda a, b: a != b, 12: lambda a, b: a == b}
    cop = Coprocessor(TensixState())
    vu = cop.vector
    vu.lane_flags[:] = b
    run(cop, "SFPPUSHC")                                   # top = b
    vu.lane_flags[:] = a
    run(cop, "SFPPOPC", Mod1=mod1)                         # LaneFlags = BooleanOp(Mod1, LaneFlags, Top)
    assert list(vu.lane_flags) == [table[mod1](x, y) for x, y in zip(a, b)]
    run(cop, "SFPPUSHC", Mod1=mod1)                        # Top = BooleanOp(Mod1, Top, LaneFlags)
    top = [table[mod1](y, table[mod1](x, y)) for x, y in zip(a, b)]
    assert list(vu.stack[0, 0]) == top and vu.stack_size.max() == 1


def test_pushc_rewrites(cop: Coprocessor) -> None:
    vu = cop.vector
    with pytest.raises(UndefinedBehavior, match="empty"):
        run(cop, "SFPPUSHC", Mod1=14)
    run(cop, "SFPPUSHC")
    vu.lane_flags[:4] = True
    run(cop, "SFPPUSHC", Mod1=13)                          # invert LaneFlags, then top = current
    assert not vu.lane_flags[:4].any() and vu.lane_flags[4:].all() and (vu.stack[0, 0] == vu.lane_flags).all()
    run(cop, "SFPPUSHC", Mod1=15)                          # top = {false, true}
    assert not vu.stack[0, 0].any() and vu.stack[0, 1].all()


@pytest.mark.parametrize(("mnemonic", "expected"), [("SFPGT", [False, False, True]), ("SFPLE", [True, True, False])])
def test_gt_le(cop: Coprocessor, mnemonic: str, expected: list[bool]) -> None:
    # VD > VC (SFPGT) and VD <= VC (SFPLE) in the sign-magnitude order: -0 < +0
    set_lreg(cop, 1, np.resize([0x00000000, 0x80000001, 0x80000000], 32))   # VC: +0, -1, -0
    set_lreg(cop, 2, np.resize([0x80000000, 0x80000001, 0x00000000], 32))   # VD: -0, -1, +0
    run(cop, mnemonic, VC=1, VD=2, Mod1=1)                                 # SET_CC
    assert list(flags(cop)[:3]) == expected
    run(cop, "SFPPUSHC")
    cop.vector.stack[0, 0, :] = True
    run(cop, mnemonic, VC=1, VD=2, Mod1=2)                                 # MUTATE_STACK (and)
    assert list(cop.vector.stack[0, 0, :3]) == expected
    run(cop, mnemonic, VC=1, VD=2, Mod1=8)                                 # SET_VD: -1 / 0
    assert list(lreg(cop, 2)[:3]) == [0xFFFFFFFF if e else 0 for e in expected]


# -- moves ------------------------------------------------------------------------------------------

def test_mov_modes(cop: Coprocessor) -> None:
    set_lreg(cop, 1, f32(2.0))
    run(cop, "SFPMOV", VC=1, VD=2, Mod1=1)                                 # negate
    assert (lreg(cop, 2) == f32(-2.0)).all()
    enable_cc(cop)
    cop.vector.lane_flags[16:] = False
    run(cop, "SFPMOV", VC=9, VD=2, Mod1=0)                                 # enabled lanes only
    assert (lreg(cop, 2)[:16] == 0).all() and (lreg(cop, 2)[16:] == f32(-2.0)).all()
    run(cop, "SFPMOV", VC=10, VD=2, Mod1=2)                                # ALL_LANES_ENABLED
    assert (lreg(cop, 2) == f32(1.0)).all()
    cop.vector.lane_flags[:] = True
    run(cop, "SFPMOV", VC=15, VD=3, Mod1=8)                                # FROM_SPECIAL 15: LaneConfig
    assert (lreg(cop, 3) == 0).all()
    with pytest.raises(UnsupportedFunctionality, match="PRNG"):
        run(cop, "SFPMOV", VC=9, VD=3, Mod1=8)
    with pytest.raises(UnpredictableValueUsed, match="Sequence"):
        run(cop, "SFPMOV", VC=5, VD=3, Mod1=8)
    with pytest.raises(NonContractualBehavior):
        run(cop, "SFPMOV", VC=1, VD=3, Mod1=4)


def test_mov_carries_undefined(cop: Coprocessor) -> None:
    run(cop, "SFPMOV", VC=4, VD=5)                         # a copy of an undefined value is undefined
    assert not cop.vector.defined[5].any()
    with pytest.raises(UnpredictableValueUsed, match=r"LReg\[5\]"):
        run(cop, "SFPIADD", VC=5, VD=6, Mod1=1 | 4)


def test_swap_and_min_max(cop: Coprocessor) -> None:
    pattern = lambda *v: np.resize(v, 32).astype(np.uint32)  # noqa: E731  (lane l takes v[l % 3])
    c = pattern(f32(1.0), f32(-2.0), 0x80000000)
    d = pattern(f32(3.0), f32(-1.0), 0x00000000)
    lo, hi = pattern(f32(1.0), f32(-2.0), 0x80000000), pattern(f32(3.0), f32(-1.0), 0x00000000)  # -0 < +0
    set_lreg(cop, 1, c), set_lreg(cop, 2, d)
    run(cop, "SFPSWAP", VC=1, VD=2, Mod1=0)                # unconditional
    assert (lreg(cop, 1) == d).all() and (lreg(cop, 2) == c).all()
    set_lreg(cop, 1, c), set_lreg(cop, 2, d)
    run(cop, "SFPSWAP", VC=1, VD=2, Mod1=1)                # VD = min, VC = max
    assert (lreg(cop, 2) == lo).all() and (lreg(cop, 1) == hi).all()
    run(cop, "SFPSWAP", VC=1, VD=2, Mod1=2)                # lanes 0-15: VD = min; lanes 16-31: VD = max
    rows01 = LANES < 16
    assert (lreg(cop, 2) == np.where(rows01, lo, hi)).all() and (lreg(cop, 1) == np.where(rows01, hi, lo)).all()
    cop.vector.lane_config[:] = 256                        # EXCHANGE_SRCB_SRCC inverts every decision
    run(cop, "SFPSWAP", VC=1, VD=2, Mod1=2)
    assert (lreg(cop, 2) == np.where(rows01, hi, lo)).all() and (lreg(cop, 1) == np.where(rows01, lo, hi)).all()
    with pytest.raises(NonContractualBehavior):
        run(cop, "SFPSWAP", VC=1, VD=2, Mod1=10)


def test_swap_argmin_carries_indices(cop: Coprocessor) -> None:
    # ENABLE_DEST_INDEX: min/max in LReg[0..3], the same swap in LReg[4 + (V & 3)]
    set_lreg(cop, 0, f32(5.0)), set_lreg(cop, 1, f32(2.0)), set_lreg(cop, 4, 100), set_lreg(cop, 5, 101)
    cop.vector.lane_config[:] = 4
    run(cop, "SFPSWAP", VC=1, VD=0, Mod1=1)
    assert (lreg(cop, 0) == f32(2.0)).all() and (lreg(cop, 1) == f32(5.0)).all()
    assert (lreg(cop, 4) == 101).all() and (lreg(cop, 5) == 100).all()


def test_transpose_follows_the_page(cop: Coprocessor) -> None:
    # Transpose4: LReg[Base + i][j * 8 + c] <-> LReg[Base + j][i * 8 + c]; lanes 9 and 26 disabled
    # keep their values.
    for r in range(8):
        set_lreg(cop, r, r * 100 + LANES)
    enable_cc(cop)
    cop.vector.lane_flags[[9, 26]] = False
    before = cop.vector.lreg[:8].copy()
    run(cop, "SFPTRANSP")
    expected = before.copy()
    for base in (0, 4):
        for column in range(8):
            for i in range(4):
                for j in range(i):
                    if j * 8 + column not in (9, 26):
                        expected[base + i][j * 8 + column] = before[base + j][i * 8 + column]
                    if i * 8 + column not in (9, 26):
                        expected[base + j][i * 8 + column] = before[base + i][j * 8 + column]
    assert (cop.vector.lreg[:8] == expected).all()


def test_shft2_register_shuffles(cop: Coprocessor) -> None:
    for r in range(4):
        set_lreg(cop, r, r * 100 + LANES)
    set_lreg(cop, 6, 600 + LANES)
    run(cop, "SFPSHFT2", Mod1=0)                           # COPY4: L0..L2 = L1..L3, L3 = 0
    assert (lreg(cop, 0) == 100 + LANES).all() and (lreg(cop, 2) == 300 + LANES).all() and (lreg(cop, 3) == 0).all()
    run(cop, "SFPSHFT2", Mod1=1)                           # CHAINED_COPY4: L3 = old L0 eight lanes on
    assert (lreg(cop, 3)[:24] == 108 + LANES[:24]).all() and (lreg(cop, 3)[24:] == 0).all()
    run(cop, "SFPSHFT2", VC=6, Mod1=2)                     # SHFLROR1_AND_COPY4: L3 = VC rotated right
    ror = np.where(LANES & 7, LANES - 1, LANES + 7)
    assert (lreg(cop, 3) == 600 + ror).all()


def test_shft2_lane_moves_and_shifts(cop: Coprocessor) -> None:
    set_lreg(cop, 1, 100 + LANES)
    run(cop, "SFPSHFT2", VC=1, VD=2, Mod1=3)               # SHFLROR1
    assert (lreg(cop, 2) == 100 + np.where(LANES & 7, LANES - 1, LANES + 7)).all()
    run(cop, "SFPSHFT2", VC=1, VD=2, Mod1=4)               # SHFLSHR1: Blackhole fills zero
    assert (lreg(cop, 2) == np.where(LANES & 7, 99 + LANES, 0)).all()
    set_lreg(cop, 3, np.resize([4, -4 & 0xFFFFFFFF], 32))
    run(cop, "SFPSHFT2", VC=3, VD=2, Imm12=1, Mod1=5)      # SHFT_LREG: VB = 1, by VC
    assert lreg(cop, 2)[0] == 100 << 4 and lreg(cop, 2)[1] == 101 >> 4
    run(cop, "SFPSHFT2", VD=2, Imm12=0xFF1, Mod1=6)        # SHFT_IMM: VB = Imm12 & 15 = 1, by -15
    assert (lreg(cop, 2) == (100 + LANES) >> 15).all()
    with pytest.raises(UndefinedBehavior):
        run(cop, "SFPSHFT2", Mod1=7)


# -- SFPCONFIG ---------------------------------------------------------------------------------------

def test_config_lreg_constants_and_lane_config(cop: Coprocessor) -> None:
    set_lreg(cop, 0, np.resize(np.arange(8), 32) + f32(1.0))
    run(cop, "SFPCONFIG", VD=12)                           # LReg[12] = LReg[0] lanes 0-7, broadcast
    assert (lreg(cop, 12) == np.resize(np.arange(8), 32) + f32(1.0)).all()
    run(cop, "SFPCONFIG", VD=11, Mod1=1)                   # defaults: -1.0, 1/512, ...
    run(cop, "SFPCONFIG", VD=12, Mod1=1)
    assert (lreg(cop, 11) == f32(-1.0)).all() and (lreg(cop, 12) == f32(1 / 512)).all()
    run(cop, "SFPCONFIG", VD=15, Imm16=0x0102, Mod1=1)     # LaneConfig = Imm16
    assert (cop.vector.lane_config == 0x0102).all()
    run(cop, "SFPCONFIG", VD=15, Imm16=0x0100, Mod1=1 | 6)  # xor
    assert (cop.vector.lane_config == 0x0002).all()
    run(cop, "SFPCONFIG", VD=15, Imm16=0x0005, Mod1=1 | 8)  # lane mask: bits 0, 2 -> columns 0 and 1
    assert cop.vector.lane_config[0] == 5 and cop.vector.lane_config[9] == 5 and cop.vector.lane_config[2] == 2
    with pytest.raises(NonContractualBehavior):
        run(cop, "SFPCONFIG", VD=9)


def test_config_backdoor_switch_is_seen_late(cop: Coprocessor) -> None:
    # Changing DISABLE_BACKDOOR_LOAD, the next instruction may see either value: with VD >= 12 that
    # matters.
    run(cop, "SFPCONFIG", VD=15, Imm16=2, Mod1=1)
    with pytest.raises(UnpredictableValueUsed, match="DISABLE_BACKDOOR_LOAD"):
        run(cop, "SFPMOV", VC=9, VD=12)
    run(cop, "SFPCONFIG", VD=15, Imm16=0, Mod1=1)
    run(cop, "SFPNOP")
    run(cop, "SFPMOV", VC=9, VD=12)                        # now a template write
    assert (cop.vector.template[0] == encode("SFPMOV", VC=9, VD=12)).all()


def test_config_load_macro_state(cop: Coprocessor) -> None:
    set_lreg(cop, 0, 0x12345678)
    run(cop, "SFPCONFIG", VD=1)                            # InstructionTemplate[1] = LReg[0]
    run(cop, "SFPCONFIG", VD=5, Imm16=0xABCD, Mod1=1)      # Sequence[1] = Imm16
    run(cop, "SFPCONFIG", VD=8, Imm16=0x0F0F, Mod1=1)      # Misc = Imm16 (12 bits)
    run(cop, "SFPCONFIG", VD=8, Imm16=0x00F0, Mod1=1 | 2)  # Misc |= ...
    vu = cop.vector
    assert (vu.template[1] == 0x12345678).all() and (vu.sequence[1] == 0xABCD).all() and (vu.misc == 0xFFF).all()
    run(cop, "SFPMOV", VC=8, VD=3, Mod1=8)                 # and back through SFPMOV FROM_SPECIAL
    assert (lreg(cop, 3) == 0xFFF).all()


def test_enable_dest_index_erratum(cop: Coprocessor) -> None:
    # ttsim (TEN-2932): with ENABLE_DEST_INDEX, results most instructions write to LReg[4..7] are
    # undefined; LReg[0..3] are fine.
    set_lreg(cop, 1, 1)
    cop.vector.lane_config[:3] = 4
    run(cop, "SFPIADD", VC=1, VD=5, Imm12=1, Mod1=1 | 4)
    run(cop, "SFPIADD", VC=1, VD=2, Imm12=1, Mod1=1 | 4)
    assert (cop.vector.defined[5][:3] == 0).all() and (cop.vector.defined[5][3:] == 3).all()
    assert (lreg(cop, 2) == 2).all() and (cop.vector.defined[2] == 3).all()


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 0xF000))
def test_row_mask(row_mask: int) -> None:
    # IsLaneEnabled: LaneConfig[Lane & 7].ROW_MASK.Bit[Lane / 8]
    cop = Coprocessor(TensixState())
    cop.vector.lane_config[:8] = row_mask & 0xF000
    set_lreg(cop, 1, 0)
    run(cop, "SFPLOADI", VD=1, Mod0=2, Imm16=1)
    masked = (row_mask >> (12 + LANES // 8)) & 1 == 1
    assert (lreg(cop, 1) == np.where(masked, 0, 1)).all()


# -- MAD results and the stalling logic (BlackholeA0 SFPMAD.md, "Instruction scheduling") ---------

@pytest.mark.parametrize(("reader", "fields"), [
    ("SFPIADD", {"VC": 2, "VD": 1, "Mod1": 4}),                  # reads VD
    ("SFPSHFT", {"VC": 2, "VD": 1, "Mod1": 0}),                  # reads VD
    ("SFPAND", {"VB": 1, "VC": 2, "VD": 3, "Mod1": 1}),          # USE_VB: reads VB
    ("SFPOR", {"VB": 1, "VC": 2, "VD": 3, "Mod1": 1}),
    ("SFPSWAP", {"VC": 1, "VD": 2, "Mod1": 1}),                  # compares in its first cycle
    ("SFPSHFT2", {"VC": 1, "VD": 3, "Mod1": 3}),                 # SUBVEC_SHFLROR1 reads VC
    ("SFPSHFT2", {"VC": 2, "VD": 3, "Mod1": 6, "Imm12": 0x21}),  # SHFT_IMM reads VB = Imm12 & 15
])
def test_unstalled_read_after_mad_is_unpredictable(cop: Coprocessor, reader: str, fields: dict[str, int]) -> None:
    # A MAD sub-unit result takes two cycles; the stalling logic misses these reads, so issued on
    # the next cycle they see LReg[1]'s old value.  An SFPNOP in between makes them safe.
    for reg in range(4):
        set_lreg(cop, reg, f32(1.0 + reg))
    run(cop, "SFPMAD", VA=1, VB=2, VC=3, VD=1)
    with pytest.raises(UnpredictableValueUsed, match=rf"SFPMAD.md .*{reader}.*LReg\[1\]"):
        run(cop, reader, **fields)
    run(cop, "SFPMAD", VA=1, VB=2, VC=3, VD=1)
    run(cop, "SFPNOP")
    run(cop, reader, **fields)


def test_stalled_reads_after_mad_are_fine(cop: Coprocessor) -> None:
    for reg in range(4):
        set_lreg(cop, reg, f32(1.0 + reg))
    run(cop, "SFPMAD", VA=1, VB=2, VC=3, VD=1)
    run(cop, "SFPIADD", VC=1, VD=2, Imm12=1, Mod1=1 | 4)          # immediate form reads VC: stalled
    run(cop, "SFPADDI", VD=1, Imm16=0x3F80)
    run(cop, "SFPAND", VC=1, VD=2)                                 # reads VC and VD: stalled
    run(cop, "SFPMULI", VD=2, Imm16=0x4000)
    run(cop, "SFPIADD", VC=2, VD=1, Mod1=4)                        # reads LReg[1], which SFPMULI did not write
    assert cop.vector.mad_wrote == 0


def test_indirect_vd_is_assumed_to_write_every_lreg(cop: Coprocessor) -> None:
    for reg in range(8):
        set_lreg(cop, reg, f32(1.0))
    set_lreg(cop, 7, 5)
    run(cop, "SFPLUT", VD=0, Mod0=8)                              # INDIRECT_VD: LReg[LReg[7] & 15]
    with pytest.raises(UnpredictableValueUsed, match=r"SFPCONFIG.*LReg\[0\]"):
        run(cop, "SFPCONFIG", VD=0)                               # reads LReg[0]
