"""RWCs, ApplyAddrMod, SETRWC and INCRWC (RWCs.md, SETRWC.md, INCRWC.md), worked by hand."""

from __future__ import annotations

import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def run(cop: Coprocessor, mnemonic: str, thread: int = 0, **fields: int) -> None:
    cop.push(thread, encode(mnemonic, **fields))


def thread_cfg(cop: Coprocessor, thread: int = 0, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=thread)


def test_setrwc_sets_counter_and_cr(cop: Coprocessor) -> None:
    run(cop, "SETRWC", SrcA=1, SrcAVal=5, SrcB=1, SrcBVal=9, Dst=1, DstVal=12)
    r = cop.rwc(0)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (5, 5, 9, 9, 12, 12)
    # SrcACr: SrcAVal += SrcA_Cr -> 3 + 5 = 8; DstCr: 1 + Dst_Cr (12) = 13.
    run(cop, "SETRWC", SrcA=1, SrcAVal=3, SrcACr=1, Dst=1, DstVal=1, DstCr=1)
    assert (r.SrcA, r.SrcA_Cr, r.Dst, r.Dst_Cr) == (8, 8, 13, 13)
    # Only thread 0 moved.
    assert cop.rwc(1).as_dict() == dict.fromkeys(r.as_dict(), 0)


def test_setrwc_dst_c_to_cr_and_fidelity(cop: Coprocessor) -> None:
    run(cop, "INCRWC", DstInc=7)                       # Dst = 7, Dst_Cr = 0
    cop.rwc(0).FidelityPhase = 2
    # DstCtoCr alone (Dst bit clear) still fires: DstVal 2 + Dst 7 = 9 into both.
    run(cop, "SETRWC", DstVal=2, DstCtoCr=1, Fidelity=1)
    r = cop.rwc(0)
    assert (r.Dst, r.Dst_Cr, r.FidelityPhase) == (9, 9, 0)


def test_incrwc_plain_and_cr(cop: Coprocessor) -> None:
    run(cop, "SETRWC", SrcA=1, SrcAVal=4, SrcB=1, SrcBVal=4, Dst=1, DstVal=4)
    run(cop, "INCRWC", SrcAInc=3, SrcBInc=2, SrcBCr=1, DstInc=5)
    r = cop.rwc(0)
    # SrcA: 4 + 3; SrcB_Cr: 4 + 2 = 6 -> SrcB; Dst: 4 + 5, Dst_Cr untouched.
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (7, 4, 6, 6, 9, 4)


def test_counters_wrap_at_their_widths(cop: Coprocessor) -> None:
    # SrcA is 6 bits: 60 + 15 = 75 -> 11.  Dst is 10 bits: 1020 + 15 = 1035 -> 11.
    r = cop.rwc(0)
    r.SrcA, r.Dst = 60, 1020
    run(cop, "INCRWC", SrcAInc=15, DstInc=15)
    assert (r.SrcA, r.Dst) == (11, 11)


def test_addr_mod_increments_via_config(cop: Coprocessor) -> None:
    # ADDR_MOD section 2: SrcA += 16, SrcB += 8, Dst += 32, Fidelity += 1.
    thread_cfg(cop, ADDR_MOD_AB_SEC2_SrcAIncr=16, ADDR_MOD_AB_SEC2_SrcBIncr=8,
               ADDR_MOD_DST_SEC2_DestIncr=32, ADDR_MOD_DST_SEC2_FidelityIncr=1)
    # ZEROACC mode 16_ROWS with Imm10 = 0xff only applies AddrMod (RWCs.md).
    for _ in range(3):
        run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=2)
    r = cop.rwc(0)
    # 3 x 16 = 48; 3 x 8 = 24; 3 x 32 = 96; fidelity 3.
    assert (r.SrcA, r.SrcB, r.Dst, r.FidelityPhase) == (48, 24, 96, 3)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=2)
    assert (r.SrcA, r.FidelityPhase) == (0, 0)  # 64 & 63, 4 & 3


def test_addr_mod_cr_clear_and_c_to_cr(cop: Coprocessor) -> None:
    r = cop.rwc(0)
    r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr = 10, 2, 10, 2, 100, 40
    thread_cfg(cop, ADDR_MOD_AB_SEC0_SrcAIncr=4, ADDR_MOD_AB_SEC0_SrcACR=1,
               ADDR_MOD_AB_SEC0_SrcBIncr=4, ADDR_MOD_AB_SEC0_SrcBClear=1,
               ADDR_MOD_DST_SEC0_DestIncr=8, ADDR_MOD_DST_SEC0_DestCToCR=1)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=0)
    # SrcA_Cr 2 + 4 = 6 -> SrcA; SrcB cleared with its Cr; Dst 100 + 8 = 108 -> Dst_Cr.
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (6, 6, 0, 0, 108, 108)
    thread_cfg(cop, ADDR_MOD_DST_SEC1_DestIncr=8, ADDR_MOD_DST_SEC1_DestCR=1, ADDR_MOD_DST_SEC1_FidelityClear=1)
    r.FidelityPhase = 3
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=1)
    # DestCR: Dst_Cr 108 + 8 = 116 -> Dst; FidelityClear.
    assert (r.Dst, r.Dst_Cr, r.FidelityPhase) == (116, 116, 0)
    thread_cfg(cop, ADDR_MOD_DST_SEC3_DestClear=1, ADDR_MOD_DST_SEC3_DestIncr=5)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=3)
    assert (r.Dst, r.Dst_Cr) == (0, 0)


def test_bias_selects_upper_sections(cop: Coprocessor) -> None:
    # Section 1 sets ExtraAddrModBit (BiasIncr & 3); then AddrMod 1 means section 5.
    thread_cfg(cop, ADDR_MOD_BIAS_SEC1_BiasIncr=1, ADDR_MOD_DST_SEC1_DestIncr=1,
               ADDR_MOD_DST_SEC5_DestIncr=100, ADDR_MOD_BIAS_SEC5_BiasClear=1)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=1)
    r = cop.rwc(0)
    assert (r.Dst, r.ExtraAddrModBit) == (1, 1)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=1)       # section 5: +100, bias cleared
    assert (r.Dst, r.ExtraAddrModBit) == (101, 0)
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=1)       # back to section 1
    assert (r.Dst, r.ExtraAddrModBit) == (102, 1)


def test_bias_incr_without_low_bits_does_nothing(cop: Coprocessor) -> None:
    thread_cfg(cop, ADDR_MOD_BIAS_SEC0_BiasIncr=4)          # 4 & 3 == 0
    run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=0)
    assert cop.rwc(0).ExtraAddrModBit == 0


def test_blackhole_ab2_fields_are_unspecified(cop: Coprocessor) -> None:
    thread_cfg(cop, ADDR_MOD_AB2_SEC0_SrcAIncr=1)
    with pytest.raises(MissingSpecification, match="ADDR_MOD_AB2_SEC0"):
        run(cop, "ZEROACC", Mode=1, Imm10=0xFF, AddrMod=0)


def test_per_thread_addr_mod_config(cop: Coprocessor) -> None:
    thread_cfg(cop, 1, ADDR_MOD_DST_SEC0_DestIncr=4)
    run(cop, "ZEROACC", thread=0, Mode=1, Imm10=0xFF)
    run(cop, "ZEROACC", thread=1, Mode=1, Imm10=0xFF)
    assert (cop.rwc(0).Dst, cop.rwc(1).Dst) == (0, 4)


def test_an_addr_mod_entry_is_each_configs_own() -> None:
    """``entry_in_force`` is taken from another config of the table only when the words it reads
    hold the same there (the field read by ``get`` is the reference): a config whose entry differs
    gets its own, one whose words match another's gets the same, and a write changes it."""
    from tdbg.tensix.rwc import entry_in_force

    for incr, clear in [(3, 0), (5, 0), (3, 0), (3, 1), (5, 1), (3, 0)]:
        c = TensixState().config
        c.set("ADDR_MOD_DST_SEC1_DestIncr", incr)
        c.set("ADDR_MOD_DST_SEC1_DestClear", clear)
        want = [c.get(f"ADDR_MOD_DST_SEC1_{n}", thread=0) for n in ("DestIncr", "DestClear")]
        assert want == [incr, clear]
        assert list(entry_in_force(c, 0, 1, 0)[6:8]) == want      # DestIncr, DestClear: fields 7 and 8
        c.set("ADDR_MOD_DST_SEC1_DestIncr", incr + 1)
        assert entry_in_force(c, 0, 1, 0)[6] == incr + 1
