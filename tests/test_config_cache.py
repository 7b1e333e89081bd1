"""Config reads and the parameters instructions derive from config (ADDR_MOD entries, the MOV
format mode, the Dst base row) are cached; every write path must make the next instruction see
the new value.  Expected values are worked by hand from RWCs.md / MOVD2B (seed 001)."""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix import state_description
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def dst_after_movd2b(cop: Coprocessor, addr_mod: int = 0) -> int:
    """RWCs[0].Dst after a one-row MOVD2B that applies ADDR_MOD ``addr_mod``."""
    cop.rwc(0).Dst = 0
    cop.push(0, encode("MOVD2B", AddrMod=addr_mod))
    return cop.rwc(0).Dst


def test_setc16_changes_the_addr_mod_entry(cop: Coprocessor) -> None:
    # ADDR_MOD_DST_SEC0_DestIncr is ThreadConfig[thread][28] bits 9:0 (bh_cfg_fields.json)
    assert dst_after_movd2b(cop) == 0                       # cached: DestIncr 0
    cop.push(0, encode("SETC16", CfgIndex=28, NewValue=3))
    assert dst_after_movd2b(cop) == 3
    cop.push(0, encode("SETC16", CfgIndex=28, NewValue=5))
    assert dst_after_movd2b(cop) == 5


def test_debugger_set_and_restore_change_the_entry(cop: Coprocessor) -> None:
    snap = state_description.save(cop.state)
    cop.state.config.set("ADDR_MOD_DST_SEC5_DestIncr", 7, thread=0)
    assert dst_after_movd2b(cop, 5) == 7
    state_description.load(cop.state, snap)
    assert dst_after_movd2b(cop, 5) == 0
    cop.state.config.set("ADDR_MOD_DST_SEC5_DestIncr", 2, thread=0)
    assert dst_after_movd2b(cop, 5) == 2
    state_description.reset(cop.state)
    assert dst_after_movd2b(cop, 5) == 0


def test_config_writes_change_the_mov_mode(cop: Coprocessor) -> None:
    """MOVD2B with 16-bit Dst (Fp32_enabled 0) reads Dst16b; with Fp32_enabled 1, Dst32b.
    Dst32b[0][c] = DstBits[0][c] << 16 | DstBits[8][c]; Dst16b[0] = DstBits[0]."""
    cfg = cop.state.config
    cop.state.dst.bits[0] = 0x3F80                          # any Dst16b pattern
    cop.state.dst.ever_written[[0, 8]] = True
    cop.push(0, encode("MOVD2B"))
    first = cop.state.srcb.data[0, 0].copy()
    # RISC-V store: ALU_ACC_CTRL_Fp32_enabled is Config word 1 bit 29
    cfg.riscv_store(4 * 1, 4, 1 << 29)
    cop.state.dst.bits[0] = 0x0000
    cop.state.dst.bits[8] = 0xFFFF
    cop.push(0, encode("MOVD2B"))
    # 32-bit mode, BF16 style: ShuffleBF16(Dst32b >> 16) = ShuffleBF16(0x0000) = 0
    assert (cop.state.srcb.data[0, 0] == 0).all()
    assert (first == ((0x3F80 & 0xFF00) << 3 | 0x80)).all()  # ShuffleBF16(0x3F80), 16-bit mode
    # RMWCIB3 clears bit 29 again (byte 3 of word 1, bit 5 of that byte)
    cop.push(0, encode("RMWCIB3", Index4=1, Mask=1 << 5, NewValue=0))
    cop.state.dst.bits[0] = 0x3F80
    cop.push(0, encode("MOVD2B"))
    assert (cop.state.srcb.data[0, 0] == first).all()
    # WRCFG: GPR 4 -> Config[0][1] sets Fp32_enabled again
    cop.state.gprs[0, 4] = 1 << 29
    cop.push(0, encode("WRCFG", CfgIndex=1, InputReg=4))
    cop.state.dst.bits[0] = 0
    cop.push(0, encode("MOVD2B"))
    assert (cop.state.srcb.data[0, 0] == 0).all()


def test_dst_base_follows_setc16(cop: Coprocessor) -> None:
    # DEST_TARGET_REG_CFG_MATH_Offset is ThreadConfig[thread][1] bits 11:0: ZEROACC one row
    # marks Dst16b[Imm10 + Offset] undefined.
    cop.state.dst.ever_written[:] = True
    cop.push(0, encode("ZEROACC", Imm10=1))
    cop.push(0, encode("SETC16", CfgIndex=1, NewValue=16))
    cop.push(0, encode("ZEROACC", Imm10=1))
    assert np.flatnonzero(~cop.state.dst.ever_written).tolist() == [1, 17]


def test_a_word_is_decoded_once(cop: Coprocessor) -> None:
    word = encode("INCRWC", SrcAInc=1)
    cop.push(0, word)
    bound = cop.bound(word)
    cop.push(0, word)
    assert cop.bound(word) is bound and cop.rwc(0).SrcA == 2
    assert cop.mnemonic(word) == "INCRWC" and cop.mnemonic(0xFF000000) is None


# -- per-word invalidation (TensixConfig: a write forgets only what was read from its word) --------

def counting(cfg, key: str, compute):  # type: ignore[no-untyped-def]
    """``cfg.derived(key, compute)``, and how many times ``compute`` ran so far."""
    calls = []

    def run():  # type: ignore[no-untyped-def]
        calls.append(1)
        return compute()

    return lambda: (cfg.derived(key, run), len(calls))


def test_a_derived_value_outlives_writes_to_other_words(cop: Coprocessor) -> None:
    # ADDR_MOD_DST_SEC0_DestIncr: ThreadConfig[0][28]; THCON_SEC0_REG3_Base_address: Config word 76
    cfg = cop.state.config
    entry = counting(cfg, "incr", lambda: cfg.get("ADDR_MOD_DST_SEC0_DestIncr", thread=0))
    assert entry() == (0, 1)
    cfg.write_word(0, 76, 0x1234)                       # another Config word
    cop.push(0, encode("SETC16", CfgIndex=29, NewValue=7))  # another ThreadConfig word
    cop.push(1, encode("SETC16", CfgIndex=28, NewValue=7))  # the same word of another thread
    assert entry() == (0, 1)
    cop.push(0, encode("SETC16", CfgIndex=28, NewValue=3))
    assert entry() == (3, 2)


def test_a_config_field_follows_the_word_and_the_bank(cop: Coprocessor) -> None:
    # THCON_SEC0_REG3_Base_address is Config word 76 of the bank ThreadConfig[t].CFG_STATE_ID
    # (ThreadConfig word 0 bit 0) selects; RMWCIB, RISC-V stores and the other bank reach it.
    cfg = cop.state.config
    base = counting(cfg, "base", lambda: cfg.get("THCON_SEC0_REG3_Base_address", thread=0))
    assert base() == (0, 1)
    cfg.write_word(1, 76, 5)
    assert base() == (0, 1)                             # bank 1 is not thread 0's
    cop.push(0, encode("SETC16", CfgIndex=0, NewValue=1))   # thread 0 now uses bank 1
    assert base() == (5, 2)
    cop.push(0, encode("RMWCIB1", Index4=76, Mask=0xFF, NewValue=2))  # bank 1, byte 1
    assert base() == (0x205, 3)
    cfg.riscv_store((cfg.words_per_bank + 76) * 4, 4, 9)  # Config[1][76] through the RISC-V view
    assert base() == (9, 4)


def test_nested_derived_values_depend_on_what_the_inner_one_read(cop: Coprocessor) -> None:
    cfg = cop.state.config
    inner = counting(cfg, "inner", lambda: cfg.get("ADDR_MOD_DST_SEC0_DestIncr", thread=0))
    outer = counting(cfg, "outer", lambda: inner()[0] + 1)
    assert outer() == (1, 1) and inner() == (0, 1)
    cfg.set("ADDR_MOD_DST_SEC0_DestIncr", 4, thread=0)
    assert outer() == (5, 2) and inner() == (4, 2)
    outer2 = counting(cfg, "outer2", lambda: inner()[0] * 2)  # built on a cached inner value
    assert outer2() == (8, 1)
    cfg.set("ADDR_MOD_DST_SEC0_DestIncr", 1, thread=0)
    assert outer2() == (2, 2)


def test_global_and_reset_writes_reach_both_banks(cop: Coprocessor) -> None:
    # DEST_ACCESS_CFG_remap_addrs: global word 220 (one copy for both banks); STATE_RESET_EN
    # (word 4) clears the bank's words below GLOBAL_CFGREG_BASE_ADDR32 (180).
    cfg = cop.state.config
    remap = counting(cfg, "remap", lambda: cfg.get("DEST_ACCESS_CFG_remap_addrs", thread=1, bank=1))
    base = counting(cfg, "base", lambda: cfg.get("THCON_SEC0_REG3_Base_address", bank=0))
    cfg.write_word(0, 76, 3)
    assert remap() == (0, 1) and base() == (3, 1)
    cfg.write_word(0, 220, 2)
    assert remap() == (1, 2) and cop.state.dst.row16[8] == 32   # Adj16 follows: the Dst listener ran
    cfg.write_word(0, 4, 1)
    assert base() == (0, 2) and remap() == (1, 2)
