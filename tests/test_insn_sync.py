"""SETDVALID, CLEARDVALID, SETRWC flips, NOP, semaphores, STALLWAIT and SEMWAIT (their pages,
SyncUnit.md and WaitGate.md)."""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, UnimplementedFunctionality
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix import state_description
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode  # the words Blackhole firmware pushes (bh_encodings.json)

MU, UNP = SrcClient.MatrixUnit, SrcClient.Unpackers


@pytest.fixture
def cop() -> Coprocessor:
    return Coprocessor(TensixState())


def run(cop: Coprocessor, mnemonic: str, thread: int = 0, **fields: int) -> None:
    cop.push(thread, encode(mnemonic, **fields))


def test_setdvalid_hands_banks_over(cop: Coprocessor) -> None:
    cop.state.config.set("SRCA_SET_Base", 3, thread=1)
    run(cop, "SETDVALID", thread=1, FlipSrcA=1)
    assert cop.state.srca.allowed_client == [MU, UNP]
    assert cop.state.src_banks.unpacker == [1, 0]
    assert cop.unpacker_src_row[0][1] == 3 << 4
    run(cop, "SETDVALID", FlipSrcA=1, FlipSrcB=1)
    assert cop.state.srca.allowed_client == [MU, MU] and cop.state.srcb.allowed_client == [MU, UNP]
    assert cop.state.src_banks.unpacker == [0, 1]


def test_cleardvalid_flip_keep_and_reset(cop: Coprocessor) -> None:
    cop.state.srca.allowed_client[:] = [MU, MU]
    cop.state.srcb.allowed_client[:] = [MU, MU]
    run(cop, "CLEARDVALID", FlipSrcA=1)
    assert cop.state.srca.allowed_client == [UNP, MU] and cop.state.src_banks.matrix_unit_srca == 1
    run(cop, "CLEARDVALID", FlipSrcB=1, KeepReadingSameSrc=1)
    assert cop.state.srcb.allowed_client == [UNP, MU] and cop.state.src_banks.matrix_unit_srcb == 0
    cop.state.src_banks.unpacker[:] = [1, 1]
    run(cop, "CLEARDVALID", Reset=1, FlipSrcA=1)
    banks = cop.state.src_banks
    assert (banks.matrix_unit_srca, banks.matrix_unit_srcb, banks.unpacker) == (0, 0, [0, 0])
    assert cop.state.srca.allowed_client == [UNP, UNP] == cop.state.srcb.allowed_client


def test_setrwc_flip_respects_clr_dvalid_disable(cop: Coprocessor) -> None:
    cop.state.srca.allowed_client[:] = [MU, MU]
    cop.state.srcb.allowed_client[:] = [MU, MU]
    cop.state.config.set("CLR_DVALID_SrcB_Disable", 1, thread=0)
    run(cop, "SETRWC", FlipSrcA=1, FlipSrcB=1)
    assert cop.state.srca.allowed_client == [UNP, MU]      # given back, then flipped
    assert cop.state.srcb.allowed_client == [MU, MU]       # kept (disabled), still flipped
    assert (cop.state.src_banks.matrix_unit_srca, cop.state.src_banks.matrix_unit_srcb) == (1, 1)


def test_semaphores(cop: Coprocessor) -> None:
    run(cop, "SEMINIT", SemaphoreMask=0b101, NewValue=14, NewMax=3)
    sems = cop.semaphores
    assert [(s.Value, s.Max) for s in sems[:3]] == [(14, 3), (0, 0), (14, 3)]
    run(cop, "SEMPOST", SemaphoreMask=0b111)
    run(cop, "SEMPOST", SemaphoreMask=0b001)                # saturates at 15
    assert [s.Value for s in sems[:3]] == [15, 1, 15]
    run(cop, "SEMGET", SemaphoreMask=0b011)
    run(cop, "SEMGET", SemaphoreMask=0b010)                 # saturates at 0
    assert [s.Value for s in sems[:3]] == [14, 0, 15]
    cop.riscv_semaphore_write(1, 2)                         # even: post
    cop.riscv_semaphore_write(0, 1)                         # odd: get
    assert (cop.riscv_semaphore_read(0), cop.riscv_semaphore_read(1)) == (13, 1)


def test_semwait_holds_blocked_instructions_until_post(cop: Coprocessor) -> None:
    # SEMWAIT C0 (Value == 0) on semaphore 2, block mask B6 (Matrix Unit).
    run(cop, "SEMWAIT", SemaphoreMask=0b100, ConditionMask=1, BlockMask=1 << 6)
    run(cop, "SEMPOST", SemaphoreMask=0b001)           # Sync Unit (B1): passes
    assert cop.semaphores[0].Value == 1
    run(cop, "INCRWC", DstInc=1)                       # Matrix Unit: held
    run(cop, "SEMPOST", SemaphoreMask=0b010)           # queued behind it
    assert cop.rwc(0).Dst == 0 and len(cop.pending(0)) == 2
    assert "C0" in cop.waiting(0)
    run(cop, "SEMPOST", thread=1, SemaphoreMask=0b100)  # thread 1 releases thread 0
    assert cop.rwc(0).Dst == 1 and cop.semaphores[1].Value == 1 and cop.pending(0) == []
    assert cop.wait_gate[0] is None


def test_semwait_max_condition_and_riscv_release(cop: Coprocessor) -> None:
    # C1: Value >= Max.  Value 2, Max 2 -> wait; a RISC-V "get" brings Value to 1.
    run(cop, "SEMINIT", SemaphoreMask=1, NewValue=2, NewMax=2)
    run(cop, "SEMWAIT", SemaphoreMask=1, ConditionMask=2, BlockMask=1 << 1)
    run(cop, "SEMPOST", SemaphoreMask=1)
    assert cop.semaphores[0].Value == 2
    cop.riscv_semaphore_write(0, 1)
    assert cop.semaphores[0].Value == 2           # 2 - 1, then the queued SEMPOST: 2


def test_stallwait_on_srca_bank_condition(cop: Coprocessor) -> None:
    # Blackhole C7 is "srcA valid" (assembly.yaml wait_res; tt-llk p_stall::SRCA_VLD = 0x80):
    # the Wormhole page's C10, SrcA[MatrixUnit.SrcABank].AllowedClient != MatrixUnit.
    # B6 blocks MOVD2A.
    run(cop, "STALLWAIT", ConditionMask=1 << 7, BlockMask=1 << 6)
    cop.state.dst.write16(0, np.full(16, 0x3F))
    run(cop, "MOVD2A", DstRow=0, SrcRow=0)
    assert "C7" in cop.waiting(0)
    run(cop, "SETDVALID", thread=2, FlipSrcA=1)
    assert cop.waiting(0) is None and (cop.state.srca.data[0, 0] == 0x3F).all()


def test_stallwait_blackhole_srca_cleared_condition(cop: Coprocessor) -> None:
    # Blackhole C5 "srcA cleared" (p_stall::SRCA_CLR = 0x20) = the page's C8:
    # SrcA[Unpackers[0].SrcBank].AllowedClient != Unpackers.  SETDVALID hands bank 0 over.
    run(cop, "SETDVALID", thread=1, FlipSrcA=1)      # bank 0 -> MatrixUnit, unpacker to bank 1
    run(cop, "SETDVALID", thread=1, FlipSrcA=1)      # bank 1 -> MatrixUnit: unpacker's bank 0 busy
    run(cop, "STALLWAIT", ConditionMask=1 << 5, BlockMask=1 << 6)
    run(cop, "INCRWC", SrcAInc=1)
    assert "C5" in cop.waiting(0)
    run(cop, "CLEARDVALID", thread=1, FlipSrcA=1)   # the Matrix Unit gives bank 0 back
    assert cop.waiting(0) is None and cop.rwc(0).SrcA == 1


def test_stallwait_blackhole_trisc_cfg_bit_is_met(cop: Coprocessor) -> None:
    # Blackhole C10 is "trisc cfg" (p_stall::TRISC_CFG = 0x400), not the page's SrcA test:
    # RISC-V config requests are done at once here, so the latch is forgotten at once.
    run(cop, "STALLWAIT", ConditionMask=1 << 10, BlockMask=1 << 6)
    run(cop, "INCRWC", SrcAInc=1)
    assert cop.rwc(0).SrcA == 1 and cop.wait_gate[0] is None


def test_stallwait_default_masks_are_met_at_once(cop: Coprocessor) -> None:
    # ConditionMask 0 -> 0x0F on Blackhole (ThCon, unpackers, packer: always idle here);
    # BlockMask 0 -> B6.
    run(cop, "STALLWAIT")
    run(cop, "INCRWC", SrcAInc=1)
    assert cop.rwc(0).SrcA == 1 and cop.wait_gate[0] is None


def test_nop_only_blocked_by_all_bits(cop: Coprocessor) -> None:
    # All bits but B1, so that the next SEMWAIT (Sync Unit) still passes.
    run(cop, "SEMWAIT", SemaphoreMask=1, ConditionMask=1, BlockMask=0x1FD)
    run(cop, "NOP")
    assert cop.pending(0) == []
    run(cop, "SEMWAIT", SemaphoreMask=1, ConditionMask=1, BlockMask=0x1FF)
    run(cop, "NOP")
    assert len(cop.pending(0)) == 1


def test_semwait_without_condition_latches_stallwait(cop: Coprocessor) -> None:
    run(cop, "SEMWAIT", SemaphoreMask=1, BlockMask=1 << 1)
    # The latched STALLWAIT (the default conditions) is met at once and forgotten.
    run(cop, "SEMPOST", SemaphoreMask=1)
    assert cop.semaphores[0].Value == 1 and cop.wait_gate[0] is None


def test_unmodelled_instruction_names_itself(cop: Coprocessor) -> None:
    with pytest.raises(UnimplementedFunctionality, match="MPOOL3S1") as e:
        run(cop, "MPOOL3S1")
    assert e.value.thread == 0 and e.value.word == encode("MPOOL3S1")


def test_unknown_word(cop: Coprocessor) -> None:
    with pytest.raises(MissingSpecification, match="0xff000000"):
        cop.push(1, 0xFF000000)
    assert cop.pending(1) == []


def test_reset(cop: Coprocessor) -> None:
    run(cop, "SEMINIT", SemaphoreMask=1, NewValue=3)
    run(cop, "INCRWC", DstInc=5)
    state_description.reset(cop)
    assert cop.semaphores[0].Value == 0 and cop.rwc(0).Dst == 0


def test_threads_interleave_one_instruction_at_a_time(cop: Coprocessor) -> None:
    # README.md: the three threads issue concurrently, so an instruction another thread releases
    # goes before the releasing thread's next one (ttsim v1.10.0: one instruction per thread per
    # step; tt-llk's transpose_dest kernel relies on it).  SrcB bank 0 belongs to the Matrix
    # Unit, the unpacker fills bank 1.  Thread 0's UNPACR_NOP (clear, then set valid) waits for
    # the Matrix Unit's bank (UNPACR_NOP_ZEROSRC.md, WaitLikeUnpacr 0).  Thread 1 replays two
    # SETRWC FlipSrcB: the first frees bank 0 and moves the Matrix Unit to bank 1, which releases
    # the UNPACR_NOP (it gives bank 1 to the Matrix Unit); the second then frees bank 1 again.
    # Running thread 1 to the end first would instead leave bank 1 with the Matrix Unit.
    cop.state.srcb.allowed_client[:] = [MU, UNP]
    cop.state.src_banks.unpacker[1] = 1
    run(cop, "UNPACR_NOP", Unpacker_Select=1, Unpack_Pop=1, Set_Dvalid=1)
    assert cop.queued(0) == 1
    run(cop, "REPLAY", thread=1, Index=0, Count=2, Load=1)
    run(cop, "SETRWC", thread=1, FlipSrcB=1)
    run(cop, "SETRWC", thread=1, FlipSrcB=1)
    assert cop.queued(0) == 1                            # recording only: nothing ran
    run(cop, "REPLAY", thread=1, Index=0, Count=2)
    assert cop.queued(0) == cop.queued(1) == 0
    assert cop.state.srcb.allowed_client == [UNP, UNP]
    assert cop.state.src_banks.unpacker[1] == 0 and cop.state.src_banks.matrix_unit_srcb == 0
