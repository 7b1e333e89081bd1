"""Config reads and the parameters instructions derive from config (ADDR_MOD entries, the MOV
format mode, the Dst base row) are cached; every write path must make the next instruction see
the new value.  Expected values are worked by hand from RWCs.md / MOVD2B (seed 001)."""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.profile import BLACKHOLE
from tdbg.tensix.tile import TensixState

encode = BLACKHOLE.isa.encode


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
    snap = cop.state.snapshot()
    cop.state.config.set("ADDR_MOD_DST_SEC5_DestIncr", 7, thread=0)
    assert dst_after_movd2b(cop, 5) == 7
    cop.state.restore(snap)
    assert dst_after_movd2b(cop, 5) == 0
    cop.state.config.set("ADDR_MOD_DST_SEC5_DestIncr", 2, thread=0)
    assert dst_after_movd2b(cop, 5) == 2
    cop.state.reset()
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
