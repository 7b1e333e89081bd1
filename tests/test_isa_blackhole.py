"""The Blackhole instruction table: against bh_encodings.json, hand-worked TT_OP_* words, and
the words real Blackhole kernels push (tt-llk's, built from the ttnn wheel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ttllk_variants as tv

from tdbg.emu.elf import ElfImage
from tdbg.tensix.isa import RESERVED, ttinsn_to_word, isa_of
from tdbg.arch.blackhole import BLACKHOLE

SHARED = Path(__file__).resolve().parents[2] / "shared"
BH = isa_of(BLACKHOLE)


def _yaml() -> list[dict]:
    path = SHARED / "spec" / "bh_encodings.json"
    if not path.exists():
        pytest.skip("../shared/spec/bh_encodings.json not present")
    return json.loads(path.read_text())["instructions"]


def test_every_assembly_yaml_instruction_round_trips() -> None:
    """Each instruction, each YAML field set to the largest value the table accepts for that
    name (its settled width, never wider than the YAML's gap): the word is opcode << 24 plus the
    values at the YAML start bits, and it decodes back to the instruction."""
    entries = _yaml()
    assert len(entries) == 137
    for e in entries:
        enc = BH.encoding(e["name"])
        assert enc.opcode == e["opcode"]
        values, word = {}, e["opcode"] << 24
        for f in e["fields"]:
            name = f["name"].replace(" ", "_")
            r = enc.resolve(name)
            assert r.lsb == f["lsb"] and 1 <= r.width <= f["width"], (e["name"], name)
            values[name] = (1 << r.width) - 1
            word |= values[name] << f["lsb"]
        assert BH.encode(e["name"], **values) == word, e["name"]
        insn = BH.decode(word)
        assert insn.mnemonic == e["name"] and insn.word == word
        assert BH.parse(insn.text()).word == word


@pytest.mark.parametrize(
    ("word", "text"),
    [
        # TT_OP_MOVD2B(dest_32b_lo, src, addr_mode, instr_mod, dst) = 0x0a << 24 | dest_32b_lo << 23 |
        # src << 17 | addr_mode << 14 | instr_mod << 12 | dst; (0, 4, 1, p_movd2b::MOV_4_ROWS = 2, 8):
        # 0x0a000000 + 0x80000 + 0x4000 + 0x2000 + 8
        (0x0A086008, "MOVD2B UseDst32bLo=0 SrcRow=4 AddrMod=1 Move4Rows=1 DstRow=8"),
        # TT_OP_ZEROACC(clear_mode, use_32_bit_mode, clear_zero_flags, addr_mode, where) =
        # 0x10 << 24 | clear_mode << 19 | use_32_bit_mode << 18 | clear_zero_flags << 17 |
        # addr_mode << 14 | where; (p_zeroacc::CLR_16 = 1, 1, 0, 3, 2): 0x10000000 + 0x80000 +
        # 0x40000 + 0xc000 + 2
        (0x100CC002, "ZEROACC Mode=1 UseDst32b=1 Revert=0 AddrMod=3 Imm10=2"),
        # TT_OP_SETRWC(clear_ab_vld, rwc_cr, rwc_d, rwc_b, rwc_a, BitMask) = 0x37 << 24 |
        # clear_ab_vld << 22 | rwc_cr << 18 | rwc_d << 14 | rwc_b << 10 | rwc_a << 6 | BitMask;
        # (p_setrwc::CLR_AB = 3, 0, 8, 0, 0, p_setrwc::SET_ABD = 7): 0x37000000 + 0xc00000 + 0x20000 + 7
        (0x37C20007, "SETRWC FlipSrcB=1 FlipSrcA=1 DstCtoCr=0 DstCr=0 SrcBCr=0 SrcACr=0 DstVal=8 "
                     "SrcBVal=0 SrcAVal=0 Fidelity=0 Dst=1 SrcB=1 SrcA=1"),
        # TT_OP_STALLWAIT(stall_res, wait_res) = 0xa2 << 24 | stall_res << 15 | wait_res;
        # (p_stall::STALL_MATH | STALL_SFPU = 0x140, p_stall::SRCA_VLD = 0x80): 0xa2a00080
        (0xA2A00080, "STALLWAIT BlockMask=320 ConditionMask=128"),
        # TT_OP_SEMWAIT(stall_res, sem_sel, wait_sem_cond) = 0xa6 << 24 | stall_res << 15 |
        # sem_sel << 2 | wait_sem_cond; (STALL_MATH = 0x40, SEMAPHORE_1 = 2, STALL_ON_ZERO = 1)
        (0xA6200009, "SEMWAIT BlockMask=64 SemaphoreMask=2 ConditionMask=1"),
        # TT_OP_SFPLOAD(lreg_ind, instr_mod0, sfpu_addr_mode, dest_reg_addr) = 0x70 << 24 |
        # lreg_ind << 20 | instr_mod0 << 16 | sfpu_addr_mode << 13 | dest_reg_addr; (3, 0, 5, 16)
        (0x7030A010, "SFPLOAD VD=3 Mod0=0 AddrMod=5 Imm10=16"),
        # TT_OP_REPLAY(start_idx, len, execute_while_loading, load_mode) = 0x04 << 24 |
        # start_idx << 14 | len << 4 | execute_while_loading << 1 | load_mode; (0, 16, 1, 1)
        (0x04000103, "REPLAY Index=0 Count=16 Exec=1 Load=1"),
        # TT_OP_ELWADD(clear_dvalid, dest_accum_en, instr_mod19, addr_mode, dst) = 0x28 << 24 |
        # clear_dvalid << 22 | dest_accum_en << 21 | instr_mod19 << 19 | addr_mode << 14 | dst;
        # (3, 0, p_elwise::SRCB_BCAST_ROW = 2, 2, 0): 0x28000000 + 0xc00000 + 0x100000 + 0x8000
        (0x28D08000, "ELWADD FlipSrcB=1 FlipSrcA=1 AddDst=0 BroadcastSrcBRow=1 BroadcastSrcBCol0=0 AddrMod=2 DstRow=0"),
        # TT_OP_MOVB2D(dest_32b_lo, src, addr_mode, movb2d_instr_mod, dst) = 0x13 << 24 | ... |
        # movb2d_instr_mod << 11 | dst; (0, 0, 0, p_movb2d::MOV_4_ROWS_D0_BRCST = 5, 0)
        (0x13002800, "MOVB2D UseDst32bLo=0 SrcRow=0 AddrMod=0 Move4Rows=1 Broadcast1RowTo8=0 BroadcastCol0=1 DstRow=0"),
    ],
)
def test_tt_op_macro_words(word: int, text: str) -> None:
    insn = BH.decode(word)
    assert insn.text() == text
    assert insn.word == word and BH.parse(text).word == word


def test_yaml_names_are_aliases() -> None:
    assert BH.encode("MOVD2B", src=0, dst=4, addr_mode=1) == BH.encode("MOVD2B", SrcRow=0, DstRow=4, AddrMod=1)
    assert BH.parse("tensix MOVD2B src=0 dst=4 addr_mode=1".split(" ", 1)[1]).word == 0x0A004004
    # one YAML range over several page fields: clear_dvalid = FlipSrcA + FlipSrcB
    assert BH.parse("ELWADD clear_dvalid=3").fields["FlipSrcB"] == 1
    # positional operands follow the TT_OP_* macro: MOVD2B(dest_32b_lo, src, addr_mode, instr_mod, dst)
    assert BH.parse("MOVD2B 0, 4, 1, 2, 8").word == 0x0A086008


def test_real_kernels_push_blackhole_words() -> None:
    """Every ``.ttinsn`` word of the suite's tt-llk kernels decodes, with no reserved bits set."""
    seen: set[str] = set()
    for make in tv.CASES.values():
        for path in tv.build_or_skip(make().variant).values():
            for address, riscv_word in ElfImage.load(path).ttinsn.items():
                insn = BH.decode(ttinsn_to_word(riscv_word))
                assert RESERVED not in insn.fields, (path, hex(address), insn.text())
                seen.add(insn.mnemonic)
    # sync, config, RWCs, address counters, unpack, the matrix unit's moves and pools, pack
    assert {"SETC16", "SETRWC", "SEMINIT", "SEMWAIT", "STALLWAIT", "MOP", "WRCFG", "CFGSHIFTMASK", "SETADCXX",
            "UNPACR", "UNPACR_NOP", "MOVA2D", "MVMUL", "GMPOOL", "TRNSPSRCB", "PACR", "ZEROACC"} <= seen
