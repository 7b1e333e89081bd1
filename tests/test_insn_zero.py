"""ZEROACC (ZEROACC.md) and ZEROSRC (ZEROSRC.md).

Row validity lives in ``Dst.ever_written`` per DstBits row.  With the default (identity) row
mapping, Dst16b[r] is DstBits[r] and Dst32b[r] is DstBits[((r & 0x1f8) << 1) | (r & 0x207)] and
the row 8 above it.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UndefinedBehavior
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)


@pytest.fixture
def cop() -> Coprocessor:
    c = Coprocessor(TensixState())
    c.state.dst.write16(slice(0, 1024), np.ones((1024, 16)))   # every row defined
    return c


def run(cop: Coprocessor, mnemonic: str, **fields: int) -> None:
    cop.push(0, encode(mnemonic, **fields))


def undefined(cop: Coprocessor) -> list[int]:
    return np.flatnonzero(~cop.state.dst.ever_written).tolist()


def test_one_row_16bit_with_offsets(cop: Coprocessor) -> None:
    # Row = Imm10 5 + MATH_Offset 32 + RWCs.Dst 2 + DEST_REGW_BASE 1 = 40 (Dst16b row 40).
    cop.state.config.set("DEST_TARGET_REG_CFG_MATH_Offset", 32, thread=0)
    cop.state.config.set("DEST_REGW_BASE_Base", 1, thread=0)
    cop.rwc(0).Dst = 2
    cop.state.config.set("ADDR_MOD_DST_SEC2_DestIncr", 1, thread=0)
    run(cop, "ZEROACC", Mode=0, Imm10=5, AddrMod=2)
    assert undefined(cop) == [40]
    assert cop.rwc(0).Dst == 3


def test_one_row_32bit(cop: Coprocessor) -> None:
    # Fp32_enabled: Dst32b row 9 = DstBits ((8 << 1) | 1) = 17 and 25.
    cop.state.config.set("ALU_ACC_CTRL_Fp32_enabled", 1, thread=0)
    run(cop, "ZEROACC", Mode=0, Imm10=9)
    assert undefined(cop) == [17, 25]


def test_one_row_ignores_revert(cop: Coprocessor) -> None:
    run(cop, "ZEROACC", Mode=0, Imm10=3, Revert=1)
    assert undefined(cop) == [3]


def test_16_rows(cop: Coprocessor) -> None:
    # 16-bit: Imm10 3 -> Dst16b rows 48..63.  Imm10 0x143 & 0xff = 0x43 = 67 >= 64: nothing.
    run(cop, "ZEROACC", Mode=1, Imm10=3)
    assert undefined(cop) == list(range(48, 64))
    run(cop, "ZEROACC", Mode=1, Imm10=0x143)
    assert undefined(cop) == list(range(48, 64))


def test_16_rows_32bit(cop: Coprocessor) -> None:
    # UseDst32b, Imm10 1: Dst32b rows 16..31 -> DstBits 32..63 (hi 32..39, 48..55; lo +8).
    run(cop, "ZEROACC", Mode=1, Imm10=1, UseDst32b=1)
    assert undefined(cop) == list(range(32, 64))
    run(cop, "ZEROACC", Mode=1, Imm10=32, UseDst32b=1)   # 32 >= 32: nothing more
    assert len(undefined(cop)) == 32


def test_half_and_all(cop: Coprocessor) -> None:
    # High half: Dst16b 512..1023 and Dst32b 256..511 (DstBits 512..1023).
    run(cop, "ZEROACC", Mode=2, Imm10=1)
    assert undefined(cop) == list(range(512, 1024))
    run(cop, "ZEROACC", Mode=3)
    assert undefined(cop) == list(range(1024))


def test_revert_outside_one_row_is_undefined(cop: Coprocessor) -> None:
    with pytest.raises(UndefinedBehavior, match="Revert"):
        run(cop, "ZEROACC", Mode=3, Revert=1)
    with pytest.raises(UndefinedBehavior, match="Revert"):
        run(cop, "ZEROACC", Mode=1, Revert=1)                 # 16 Dst16b rows


def test_blackhole_revert_redefines_16_dst32b_rows(cop: Coprocessor) -> None:
    # Blackhole's clear_zero_flags (the page's Revert) with 16 Dst32b rows un-assigns Undefined
    # (ZEROACC.md's comment; assembly.yaml; ttsim v1.10.0 marks exactly these rows valid): the
    # rows ZEROACC undefined read as their old bits again.  Dst32b rows 16..31: DstBits 32..63.
    cop.state.dst.bits[32:64] = 0x1234
    run(cop, "ZEROACC", Mode=1, Imm10=1, UseDst32b=1)
    assert undefined(cop) == list(range(32, 64))
    run(cop, "ZEROACC", Mode=1, Imm10=1, UseDst32b=1, Revert=1)
    assert undefined(cop) == []
    assert (cop.state.dst.bits[32:64] == 0x1234).all()


def test_half_mode_does_not_apply_addr_mod(cop: Coprocessor) -> None:
    cop.state.config.set("ADDR_MOD_DST_SEC0_DestIncr", 1, thread=0)
    run(cop, "ZEROACC", Mode=2)
    assert cop.rwc(0).Dst == 0


def test_on_dst_write_reports_zeroacc_rows() -> None:
    seen: list[list[int]] = []
    c = Coprocessor(TensixState(), on_dst_write=lambda rows: seen.append(rows.tolist()))
    c.push(0, encode("ZEROACC", Mode=1, Imm10=2))
    assert seen == [list(range(32, 48))]


def test_a_write_defines_the_row_again(cop: Coprocessor) -> None:
    run(cop, "ZEROACC", Mode=0, Imm10=0)
    cop.state.dst.write16(0, np.zeros(16))
    assert undefined(cop) == []


# -- ZEROSRC --------------------------------------------------------------------------------------

def test_zerosrc_both_banks_and_neg_inf() -> None:
    c = Coprocessor(TensixState())
    c.state.srca.data[:] = 1
    c.state.srcb.data[:] = 1
    c.push(0, encode("ZEROSRC", ClearSrcA=1, ClearSrcB=1, BothBanks=1, NegativeInfSrcA=1))
    assert (c.state.srca.data == 0x7FFFF).all()     # ~0u in 19 bits
    assert (c.state.srcb.data == 0).all()


def test_zerosrc_single_bank_choices() -> None:
    c = Coprocessor(TensixState())
    c.state.srca.data[:] = 1
    c.state.srcb.data[:] = 1
    banks = c.state.src_banks
    banks.matrix_unit_srca, banks.unpacker[0], banks.unpacker[1] = 1, 0, 1
    c.push(0, encode("ZEROSRC", ClearSrcA=1, SingleBankMatrixUnit=1))   # SrcA[MatrixUnit.SrcABank=1]
    c.push(0, encode("ZEROSRC", ClearSrcB=1))                           # SrcB[Unpackers[1].SrcBank=1]
    assert (c.state.srca.data[1] == 0).all() and (c.state.srca.data[0] == 1).all()
    assert (c.state.srcb.data[1] == 0).all() and (c.state.srcb.data[0] == 1).all()
