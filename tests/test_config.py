"""Config / ThreadConfig by name and the RISC-V view (BlackholeA0 BackendConfiguration.md,
addresses from bh_cfg_fields.json)."""

from __future__ import annotations

import pytest

from tdbg.tensix.events import UndefinedBehavior
from tdbg.tensix.state import TensixState

NW = 224  # CFG_STATE_SIZE 56 * 4 words per bank (Blackhole)


def test_field_round_trip_and_word_bits(tensix: TensixState) -> None:
    cfg = tensix.config
    cfg.set("RISC_DEST_ACCESS_CTRL_SEC1_fmt", 5)  # word 3, shamt 21, 3 bits
    assert cfg.config[0, 3] == 5 << 21
    assert cfg.get("RISC_DEST_ACCESS_CTRL_SEC1_fmt") == 5
    assert cfg.get("RISC_DEST_ACCESS_CTRL_SEC1_fmt", bank=1) == 0
    with pytest.raises(ValueError, match="3 bits"):
        cfg.set("RISC_DEST_ACCESS_CTRL_SEC1_fmt", 8)
    with pytest.raises(KeyError, match="NO_SUCH"):
        cfg.get("NO_SUCH_FIELD")


def test_global_fields_write_both_banks(tensix: TensixState) -> None:
    tensix.config.set("DEST_ACCESS_CFG_remap_addrs", 1, bank=0)  # word 220 >= 180
    assert tensix.config.config[0, 220] == tensix.config.config[1, 220] == 2


def test_state_reset_clears_the_bank_below_global(tensix: TensixState) -> None:
    cfg = tensix.config
    cfg.config[1, :] = 0xFFFFFFFF
    cfg.set("STATE_RESET_EN", 1, bank=1)
    assert not cfg.config[1, :180].any()
    assert (cfg.config[1, 180:] == 0xFFFFFFFF).all()
    cfg.config[0, 10] = 1
    cfg.write_word(0, 4, 1, via_rmwcib=True)  # RMWCIB does not reset
    assert cfg.config[0, 10] == 1 and cfg.config[0, 4] == 1


def test_thread_fields_and_state_id(tensix: TensixState) -> None:
    cfg = tensix.config
    cfg.set("DEST_TARGET_REG_CFG_MATH_Offset", 0x123, thread=2)
    assert cfg.get("DEST_TARGET_REG_CFG_MATH_Offset", thread=2) == 0x123
    assert cfg.get("DEST_TARGET_REG_CFG_MATH_Offset", thread=0) == 0
    cfg.set("CFG_STATE_ID_StateID", 1, thread=2)
    cfg.set("ALU_ACC_CTRL_Fp32_enabled", 1, thread=2)  # lands in bank 1
    assert cfg.get("ALU_ACC_CTRL_Fp32_enabled", bank=1) == 1
    assert cfg.get("ALU_ACC_CTRL_Fp32_enabled", bank=0) == 0


def test_wide_field(tensix: TensixState) -> None:
    cfg = tensix.config
    cfg.set("THCON_SEC0_REG0_TileDescriptor", (0xA << 96) | 0xB)  # 128 bits over words 64..67
    assert cfg.config[0, 64] == 0xB and cfg.config[0, 67] == 0xA
    assert cfg.get("THCON_SEC0_REG0_TileDescriptor") == (0xA << 96) | 0xB


def test_riscv_view_layout(tensix: TensixState) -> None:
    cfg = tensix.config
    # Config[1][3] is at 4 * (224 + 3) = 0x38C
    cfg.riscv_store(0x38C, 4, 0x12345678)
    assert cfg.config[1, 3] == 0x12345678
    assert cfg.riscv_load(0x38C, 4) == 0x12345678
    assert cfg.riscv_load(0x38E, 2) == 0x1234 and cfg.riscv_load(0x38D, 1) == 0x56
    # ConfigDualWrite[3] at 4 * (448 + 3) writes both banks; reads Config[0]
    cfg.riscv_store(4 * (2 * NW + 3), 4, 7)
    assert cfg.config[0, 3] == cfg.config[1, 3] == 7
    # ThreadConfig[1][1] at 4 * (672 + 68 + 1): {uint16_t Value, Padding}
    cfg.set("DEST_TARGET_REG_CFG_MATH_Offset", 0x2AB, thread=1)
    assert cfg.riscv_load(4 * (3 * NW + 68 + 1), 4) == 0x2AB


def test_riscv_store_rules(tensix: TensixState) -> None:
    cfg = tensix.config
    with pytest.raises(UndefinedBehavior, match="sw only"):
        cfg.riscv_store(0, 2, 1)
    with pytest.raises(UndefinedBehavior, match="ThreadConfig"):
        cfg.riscv_store(4 * 3 * NW, 4, 1)


def test_config_write_changes_window_view(tensix: TensixState) -> None:
    # word 3 bank 0 at offset 0xC: fmt for SEC0 at bits 18:16
    tensix.config.riscv_store(0xC, 4, 3 << 16)
    assert tensix.window.ctrl(0).fmt == 3


def test_glob_match(tensix: TensixState) -> None:
    names = [f.name for f in tensix.config.fields("risc_dest_access_ctrl_sec0*")]
    assert names == ["RISC_DEST_ACCESS_CTRL_SEC0_no_swizzle", "RISC_DEST_ACCESS_CTRL_SEC0_unsigned_int", "RISC_DEST_ACCESS_CTRL_SEC0_fmt"]
