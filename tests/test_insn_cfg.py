"""SETC16, WRCFG, RDCFG and RMWCIB0-3 (their pages; Blackhole field addresses), CFGSHIFTMASK (tt-llk's
assembly.yaml pseudocode, worked by hand)."""

from __future__ import annotations

import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def run(cop: Coprocessor, mnemonic: str, thread: int = 0, **fields: int) -> None:
    cop.push(thread, encode(mnemonic, **fields))


def test_setc16_writes_thread_config(cop: Coprocessor) -> None:
    addr = cop.state.config.table.field("FP16A_FORCE_Enable").addr32
    run(cop, "SETC16", thread=2, CfgIndex=addr, NewValue=0xBEEF)
    assert cop.state.config.thread_config[2, addr] == 0xBEEF
    assert cop.state.config.thread_config[0, addr] == 0
    assert cop.state.config.get("FP16A_FORCE_Enable", thread=2) == 1     # bit 0 of 0xBEEF


def test_setc16_out_of_range(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="THD_STATE_SIZE"):
        run(cop, "SETC16", CfgIndex=68)         # THD_STATE_SIZE is 68 on Blackhole


def test_wrcfg_32_and_128(cop: Coprocessor) -> None:
    cop.state.gprs[0, 5] = 0x11223344
    cop.state.gprs[0, 8:12] = [1, 2, 3, 4]
    run(cop, "WRCFG", InputReg=5, CfgIndex=10)
    # Is128Bit: CfgIndex 22 & ~3 = 20, InputReg 9 & ~3 = 8 -> words 20..23 = GPRs 8..11.
    run(cop, "WRCFG", InputReg=9, CfgIndex=22, Is128Bit=1)
    bank = cop.state.config.config[0]
    assert bank[10] == 0x11223344 and list(bank[20:24]) == [1, 2, 3, 4]


def test_wrcfg_uses_the_threads_bank(cop: Coprocessor) -> None:
    cop.state.config.set("CFG_STATE_ID_StateID", 1, thread=1)
    cop.state.gprs[1, 0] = 7
    run(cop, "WRCFG", thread=1, InputReg=0, CfgIndex=3)
    assert cop.state.config.config[1, 3] == 7 and cop.state.config.config[0, 3] == 0


def test_wrcfg_global_words_land_in_both_banks(cop: Coprocessor) -> None:
    cop.state.gprs[0, 0] = 9
    run(cop, "WRCFG", InputReg=0, CfgIndex=180)     # GLOBAL_CFGREG_BASE_ADDR32
    assert list(cop.state.config.config[:, 180]) == [9, 9]


def test_wrcfg_bounds(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="CFG_STATE_SIZE"):
        run(cop, "WRCFG", CfgIndex=224)             # CFG_STATE_SIZE 56 * 4


def test_rdcfg(cop: Coprocessor) -> None:
    cop.state.config.config[0, 17] = 0xCAFEF00D
    run(cop, "RDCFG", ResultReg=63, CfgIndex=17)
    assert cop.state.gprs[0, 63] == 0xCAFEF00D
    with pytest.raises(UndefinedBehavior):
        run(cop, "RDCFG", CfgIndex=300)


def test_rmwcib_masks_one_byte(cop: Coprocessor) -> None:
    # Byte 2 of 0x11223344 is 0x22; (0xF5 & 0x0F) | (0x22 & 0xF0) = 0x25 -> 0x11253344.
    cop.state.config.config[0, 40] = 0x11223344
    run(cop, "RMWCIB2", Index4=40, Mask=0x0F, NewValue=0xF5)
    assert cop.state.config.config[0, 40] == 0x11253344
    run(cop, "RMWCIB0", Index4=40, Mask=0xFF, NewValue=0x99)
    assert cop.state.config.config[0, 40] == 0x11253399


def test_state_reset_en_by_wrcfg_not_by_rmwcib(cop: Coprocessor) -> None:
    reset = cop.state.config.table.field("STATE_RESET_EN").addr32
    cop.state.config.config[0, 0] = 5
    run(cop, "RMWCIB0", Index4=reset, Mask=1, NewValue=1)
    assert cop.state.config.config[0, 0] == 5
    run(cop, "WRCFG", InputReg=0, CfgIndex=reset)
    assert cop.state.config.config[0, 0] == 0


def _scratch(cop: Coprocessor, which: int, value: int) -> None:
    cop.state.config.set(f"SCRATCH_SEC{which}_val", value)


def test_cfgshiftmask_adds_the_threads_scratch_as_pack_untilize_does(cop: Coprocessor) -> None:
    # tt-llk llk_pack_untilize.h: TTI_CFGSHIFTMASK(1, 0b011, 32 - 1, 0, 0b11, L1_Dest_addr_ADDR32):
    # full mask, no shift, old unmasked, ADD of SCRATCH_SEC[thread] (T2 -> SCRATCH_SEC2_val).
    addr = cop.state.config.table.field("THCON_SEC0_REG1_L1_Dest_addr").addr32
    cop.state.config.config[:, addr] = 0x5000
    _scratch(cop, 2, 0x40)
    _scratch(cop, 0, 0x999)
    for _ in range(2):
        run(cop, "CFGSHIFTMASK", thread=2, disable_mask_on_old_val=1, operation=3, mask_width=31,
            right_cshift_amt=0, scratch_sel=3, CfgReg=addr)
    assert cop.state.config.config[0, addr] == 0x5080


@pytest.mark.parametrize(("operation", "expected"), [
    # mask: 8 ones rotated right by 4 = 0xF000000F; scratch 0x12345678 rotated right by 4 =
    # 0x81234567, & mask = 0x80000007; old 0xFFFF0000 & ~mask = 0x0FFF0000.
    (0, 0x8FFF0007),        # OR
    (1, 0x00000000),        # AND
    (2, 0x8FFF0007),        # XOR
    (3, 0x8FFF0007),        # ADD (no carries here)
])
def test_cfgshiftmask_operations_with_mask_and_rotation(cop: Coprocessor, operation: int, expected: int) -> None:
    _scratch(cop, 1, 0x12345678)
    cop.state.config.config[:, 40] = 0xFFFF0000
    run(cop, "CFGSHIFTMASK", operation=operation, mask_width=7, right_cshift_amt=4, scratch_sel=1, CfgReg=40)
    assert cop.state.config.config[0, 40] == expected


def test_cfgshiftmask_add_wraps_and_unnamed_operations_stop(cop: Coprocessor) -> None:
    _scratch(cop, 0, 0x10)
    cop.state.config.config[:, 40] = 0xFFFFFFF8
    run(cop, "CFGSHIFTMASK", operation=3, mask_width=31, disable_mask_on_old_val=1, CfgReg=40)
    assert cop.state.config.config[0, 40] == 0x8            # 32-bit register: the carry is lost
    with pytest.raises(MissingSpecification, match="operation 7"):
        run(cop, "CFGSHIFTMASK", operation=7, CfgReg=40)
