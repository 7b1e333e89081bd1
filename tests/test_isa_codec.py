"""Tensix instruction codec: hand-worked words from the pages, round trips, text forms, errors."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdbg.tensix.isa import (
    RESERVED,
    EncodeError,
    Encoding,
    Isa,
    IsaError,
    ParseError,
    UnknownInstruction,
    is_ttinsn,
    ttinsn_to_word,
    word_to_ttinsn,
)
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.isa import isa_of

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT.parent / "shared" / "spec"
WH = Isa.load("tdbg.arch.wormhole_b0")     # Wormhole B0 (Bits32.lua), kept for a future profile
BH = isa_of(BLACKHOLE)               # Blackhole (tt-llk assembly.yaml)
TABLES = (WH, BH)
ALL = [(t, m) for t in TABLES for m in t.mnemonics()]
# The Wormhole table's functions, as the worked Wormhole examples below use them.
decode, encode, encoding, field_names, mnemonics, parse = (
    WH.decode, WH.encode, WH.encoding, WH.field_names, WH.mnemonics, WH.parse)


def reference_word(enc: Encoding, values: dict[str, int]) -> int:
    """Second, deliberately naive encoder: opcode << 24 plus each field, fixed and reserved bit."""
    word = enc.opcode << 24
    for f in enc.fields:
        word |= (values.get(f.name, 0) % (1 << f.width)) << f.lsb
    for lsb, _, value in enc.fixed:
        word |= value << lsb
    return word | values.get(RESERVED, 0)


def banned(table: Isa, enc: Encoding) -> dict[str, set[int]]:
    """Field values that select a more specific sibling variant (so cannot encode ``enc``)."""
    out: dict[str, set[int]] = {}
    for sib in table.by_opcode[enc.opcode]:
        if sib.name != enc.name and sib.specificity > enc.specificity:
            for field, values in sib.select:
                out.setdefault(field, set()).update(values)
    return out


def fields_strategy(table: Isa, enc: Encoding) -> st.SearchStrategy[dict[str, int]]:
    select, avoid = dict(enc.select), banned(table, enc)
    parts: dict[str, st.SearchStrategy[int]] = {}
    for f in enc.fields:
        if f.name in select:
            parts[f.name] = st.sampled_from(select[f.name])
        elif f.signed:
            parts[f.name] = st.integers(-(1 << (f.width - 1)), (1 << (f.width - 1)) - 1)
        else:
            bad = avoid.get(f.name, set())
            parts[f.name] = st.integers(0, (1 << f.width) - 1).filter(lambda v, bad=bad: v not in bad)
    parts[RESERVED] = st.integers(0, (1 << 24) - 1).map(lambda r: r & enc.reserved_mask)
    return st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if k != RESERVED or v})


# --- hand-worked words -------------------------------------------------------------------------

def test_movd2b_worked_example() -> None:
    # MOVD2B.md / spec README check: opcode 0x0A, DstRow[0:10], Move4Rows bit 13,
    # AddrMod[15:17], SrcRow[17:23], UseDst32bLo bit 23.
    #   0x0A << 24  = 0x0A00_0000
    #   1 << 23     = 0x0080_0000   UseDst32bLo
    #   5 << 17     = 0x000A_0000   SrcRow
    #   2 << 15     = 0x0001_0000   AddrMod
    #   1 << 13     = 0x0000_2000   Move4Rows
    #   16          = 0x0000_0010   DstRow
    #   sum         = 0x0A8B_2010;  .ttinsn = rotl32(.., 2) = 0x2A2C_8040
    word = encode("MOVD2B", UseDst32bLo=1, SrcRow=5, AddrMod=2, Move4Rows=1, DstRow=16)
    assert word == 0x0A8B2010
    inst = decode(0x0A8B2010)
    assert inst.mnemonic == "MOVD2B"
    assert inst.fields == {"DstRow": 16, "Move4Rows": 1, "AddrMod": 2, "SrcRow": 5, "UseDst32bLo": 1}
    assert list(inst.fields) == ["DstRow", "Move4Rows", "AddrMod", "SrcRow", "UseDst32bLo"]
    assert inst.text() == "MOVD2B UseDst32bLo=1 SrcRow=5 AddrMod=2 Move4Rows=1 DstRow=16"
    assert inst.word == 0x0A8B2010
    assert inst.spec.opcode == 0x0A
    assert word_to_ttinsn(word) == 0x2A2C8040
    assert ttinsn_to_word(0x2A2C8040) == word


def test_ttinsn_examples_from_memory_map() -> None:
    # memory_map.md: TT_OP_NOP = 0x02000000 -> RISC-V word 0x08000000; MOVD2B all 0 -> 0x28000000.
    assert encode("NOP") == 0x02000000
    assert word_to_ttinsn(0x02000000) == 0x08000000
    assert encode("MOVD2B") == 0x0A000000
    assert word_to_ttinsn(0x0A000000) == 0x28000000
    assert decode(ttinsn_to_word(0x08000000)).mnemonic == "NOP"
    assert is_ttinsn(0x08000000) and is_ttinsn(0x28000000)
    assert not is_ttinsn(0x00000013)  # addi x0, x0, 0: low bits 0b11
    with pytest.raises(ValueError):
        word_to_ttinsn(0xC0000000)  # PushTensixInstruction.md: IMM32 < 0xC0000000
    with pytest.raises(ValueError):
        ttinsn_to_word(0x00000013)


@pytest.mark.parametrize(
    ("word", "text"),
    [
        # SETDMAREG_Immediate: ResultHalfReg[0:7], bit 7 = 0, NewValue[8:24]
        (0x45 << 24 | 0x1234 << 8 | 5, "SETDMAREG_Immediate NewValue=4660 ResultHalfReg=5"),
        # SETDMAREG_Special: bit 7 = 1, InputSource[11:15] = 2, ResultSize[22:24] = 3
        (0x45 << 24 | 3 << 22 | 2 << 11 | 1 << 7 | 9,
         "SETDMAREG_Special ResultSize=3 WhichPackers=0 InputSource=2 InputHalfReg=0 ResultHalfReg=9"),
        # RMWCIB: opcode 0xB3 + Index1, so RMWCIB2 is 0xB5; Mask[16:24] NewValue[8:16] Index4[0:8]
        (0xB5FF1203, "RMWCIB2 Mask=255 NewValue=18 Index4=3"),
        # UNPACR_NOP_ZEROSRC: bits [0:2] = 1, NegativeInfSrcA bit 2, WhichUnpacker bit 23
        (0x43800005, "UNPACR_NOP_ZEROSRC WhichUnpacker=1 WaitLikeUnpacr=0 BothBanks=0 NegativeInfSrcA=1"),
        # UNPACR_NOP_SETDVALID: bits [0:3] = 7
        (0x43000007, "UNPACR_NOP_SETDVALID WhichUnpacker=0"),
        # STOREIND: bit 23 = 1 -> L1; bits 23,22 = 0,1 -> MMIO; 0,0 -> Src
        (0x66800000, "STOREIND_L1 Size=0 OffsetHalfReg=0 OffsetIncrement=0 DataReg=0 AddrReg=0"),
        (0x66400000, "STOREIND_MMIO OffsetHalfReg=0 OffsetIncrement=0 DataReg=0 AddrReg=0"),
        (0x66200000, "STOREIND_Src StoreToSrcB=1 OffsetHalfReg=0 OffsetIncrement=0 DataReg=0 AddrReg=0"),
        # SFPIADD Imm12 (signed) at [12:24]: -1 is 0xFFF
        (0x79FFF000, "SFPIADD Imm12=-1 VC=0 VD=0 Mod1=0"),
        # SFPSHFT2: Mod1 = SFPSHFT2_MOD1_SHFT_IMM (6) is the Imm12 variant
        (0x94FFE016, "SFPSHFT2b Imm12=-2 VD=1 Mod1=6"),
        (0x94003215, "SFPSHFT2 VB=3 VC=2 VD=1 Mod1=5"),
        # SFPSTOCHRND: Mod1 4 / 5 are the INT32 -> INT8 modes with UseImm5 / Imm5 / VB
        (0x8E1F000C, "SFPSTOCHRNDi StochasticRounding=0 Imm5=31 VB=0 VC=0 VD=0 UseImm5=1 Mod1=4"),
        (0x8E200001, "SFPSTOCHRND StochasticRounding=1 VC=0 VD=0 Mod1=1"),
        # ZEROACC bit 17 is covered by nothing: kept as _reserved so the word round-trips
        (0x10020000, "ZEROACC UseDst32b=0 Mode=0 AddrMod=0 Imm10=0 Revert=0 _reserved=0x20000"),
    ],
)
def test_decode_worked_words(word: int, text: str) -> None:
    inst = decode(word)
    assert inst.text() == text
    assert inst.word == word
    assert parse(text) == inst


@pytest.mark.parametrize("word", [0x14000000, 0xFF000000, 0x43000006, 0x43000041, 0x4A000000, 0x41800000])
def test_unknown_words(word: int) -> None:
    # 0x14 TRNSPSRCA has no Lua layout; UNPACR_NOP bits [0:3] = 6 and ZEROSRC with bit 6 set match
    # no variant; PACR_SETREG needs bits 1, 8..11, 23 set; PACR needs bit 23 clear.
    with pytest.raises(UnknownInstruction) as err:
        decode(word)
    assert err.value.word == word
    assert f"0x{word:08x}" in str(err.value)


def test_unknown_opcodes_everywhere() -> None:
    for table in TABLES:
        known = {table.encoding(m).opcode for m in table.mnemonics()}
        for op in set(range(256)) - known:
            with pytest.raises(UnknownInstruction):
                table.decode(op << 24)
        with pytest.raises(UnknownInstruction):
            table.decode(1 << 32)


# --- table shape -------------------------------------------------------------------------------

def test_table_contents() -> None:
    wh = mnemonics()
    # 118 pinned layouts, RMWCIB as four opcodes (+3), NOP, MOVB2A, RDCFG and six UNPACR_NOP_*.
    assert len(wh) == 118 + 3 + 9
    assert {"RMWCIB0", "RMWCIB3", "NOP", "MOVB2A", "RDCFG", "UNPACR_NOP_SETREG"} <= set(wh)
    assert "SEMINIT" in wh and not any(m.endswith("_BH") for m in wh)
    assert [encoding(f"RMWCIB{i}").opcode for i in range(4)] == [0xB3, 0xB4, 0xB5, 0xB6]
    bh = BH.mnemonics()
    # all 137 instructions of assembly.yaml, one per opcode
    assert len(bh) == 137 and len({BH.encoding(m).opcode for m in bh}) == 137
    assert {"SFPLE", "SFPGT", "SFPMUL24", "SFPARECIP", "CFGSHIFTMASK", "MOVD2B", "RMWCIB3"} <= set(bh)
    assert not any(m.endswith("_BH") for m in bh)


def test_positional_orders() -> None:
    assert field_names("MOVD2B") == ["UseDst32bLo", "SrcRow", "AddrMod", "Move4Rows", "DstRow"]
    assert field_names("sfploadmacro") == ["MacroIndex", "VDLo", "Mod0", "AddrMod", "Imm9", "VDHi"]
    assert field_names("ADDDMAREGi") == ["ResultReg", "RightImm6", "LeftReg"]
    # ATSWAP.md has no syntax for SingleDataReg: it follows the page's operands
    assert field_names("ATSWAP") == ["Mask", "DataReg", "AddrReg", "SingleDataReg"]
    assert encoding("ATSWAP").syntax == ("Mask", "DataReg", "AddrReg")
    assert field_names("NOP") == []
    # Blackhole: the TT_OP_* macro order (assembly.yaml fields, msb first), then the aliases
    assert BH.encoding("MOVD2B").order == ("UseDst32bLo", "SrcRow", "AddrMod", "instr_mod", "DstRow")
    assert BH.field_names("SFPLOAD")[:4] == ["VD", "Mod0", "AddrMod", "Imm10"]


def test_variants_never_tie() -> None:
    """Co-matching variants of one opcode always differ in specificity (the decode rule)."""
    for table in TABLES:
        for op, encs in table.by_opcode.items():
            bits = 0
            for e in encs:
                bits |= e.fixed_mask
                for name, _ in e.select:
                    bits |= e.field(name).mask
            positions = [b for b in range(24) if bits >> b & 1]
            for combo in itertools.product((0, 1), repeat=len(positions)):
                word = op << 24 | sum(v << b for v, b in zip(combo, positions))
                hits = sorted((e.specificity for e in encs if e.matches(word)), reverse=True)
                assert len(hits) < 2 or hits[0] > hits[1], (table, hex(word))


def test_tables_are_generated_from_spec() -> None:
    if not (SPEC / "encodings.json").exists():
        pytest.skip(f"{SPEC} not present (../shared/spec)")
    spec = importlib.util.spec_from_file_location("gen_isa_table", ROOT / "scripts" / "gen_isa_table.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    arch = ROOT / "tdbg" / "arch"
    assert gen.dump(gen.build_wormhole(SPEC)) == (arch / "wormhole_b0" / "isa.json").read_text(), "rerun scripts/gen_isa_table.py"
    assert gen.dump(gen.build_blackhole(SPEC)) == (arch / "blackhole" / "isa.json").read_text(), "rerun scripts/gen_isa_table.py"


# --- round trips -------------------------------------------------------------------------------

def test_every_instruction_extremes() -> None:
    """All fields zero, then all fields at their maximum (-1 for signed), for every instruction."""
    for table, m in ALL:
        enc = table.encoding(m)
        sel, avoid = dict(enc.select), banned(table, enc)
        low = {f.name: sel[f.name][0] if f.name in sel else 0 for f in enc.fields}
        high = {f.name: sel[f.name][-1] if f.name in sel else -1 if f.signed else (1 << f.width) - 1
                for f in enc.fields}
        for values in (low, high):
            values = {k: v for k, v in values.items() if v not in avoid.get(k, ())}
            word = table.encode(m, **values)
            assert word == reference_word(enc, values)
            inst = table.decode(word)
            assert inst.mnemonic == m and inst.word == word


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_encode_decode_roundtrip(data: st.DataObject) -> None:
    table, name = data.draw(st.sampled_from(ALL))
    enc = table.encoding(name)
    values = data.draw(fields_strategy(table, enc))
    word = table.encode(enc.name, **values)
    assert word == reference_word(enc, values)
    inst = table.decode(word)
    assert inst.mnemonic == enc.name
    assert inst.fields == {f.name: values[f.name] for f in enc.fields} | (
        {RESERVED: values[RESERVED]} if RESERVED in values else {})
    assert inst.word == word
    assert table.parse(inst.text()) == inst
    if RESERVED not in values:
        positional = ", ".join(str(_range_value(enc, n, word)) for n in enc.order)
        assert table.parse(f"{enc.name} {positional}") == inst
        assert table.parse(f"{enc.name.lower()}({positional})") == inst


def _range_value(enc: Encoding, name: str, word: int) -> int:
    """The value of field or alias ``name`` in ``word`` (signed fields as signed)."""
    f = enc.resolve(name)
    return f.check((word & f.mask) >> f.lsb)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 0xBF), st.integers(0, (1 << 24) - 1))
def test_decode_encode_roundtrip(table: Isa, opcode: int, operands: int) -> None:
    word = opcode << 24 | operands
    try:
        inst = table.decode(word)
    except UnknownInstruction:
        return
    assert table.encode(inst.mnemonic, **inst.fields) == word
    assert inst.word == word


# --- text --------------------------------------------------------------------------------------

def test_parse_forms_agree() -> None:
    named = parse("MOVD2B UseDst32bLo=1 SrcRow=5 AddrMod=2 Move4Rows=1 DstRow=16")
    assert parse("movd2b dstrow=0x10 srcrow = 0b101 ADDRMOD=2 move4rows=1 usedst32blo=1") == named
    assert parse("MOVD2B 1, 5, 2, 1, 16") == named
    assert parse("MovD2B(1, 0x5, 0b10, 1, 16)") == named
    assert parse("  MOVD2B   1 5 2 1 16  ") == named
    assert parse("MOVD2B") == decode(0x0A000000)
    assert parse("nop") == parse("NOP()") == decode(0x02000000)
    assert parse("SFPIADD Imm12=-0x1") == decode(0x79FFF000)
    assert parse("SFPSHFT2b VD=1") == decode(0x94000016)  # Mod1 defaults to its selecting value


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", ["expected"]),
        ("FOO 1", ["unknown", "FOO"]),
        ("MOVD2B 1, 2", ["5 operands", "UseDst32bLo"]),
        ("MOVD2B SrcRow=64", ["SrcRow", "6-bit"]),
        ("MOVD2B Bogus=1", ["Bogus", "DstRow"]),
        ("MOVD2B SrcRow=1 5 2 1 1", ["either"]),
        ("MOVD2B SrcRow=1 srcrow=2", ["twice"]),
        ("MOVD2B SrcRow=x", ["bad value", "SrcRow"]),
        ("MOVD2B SrcRow=-1", ["SrcRow", "0..63"]),
        ("MOVD2B(1, 2, 3, 1, 4", ["')'"]),
        ("NOP 1", ["0 operands"]),
        ("SFPSHFT2 Mod1=6", ["SFPSHFT2b", "Mod1"]),
        ("MOVD2B _reserved=1", ["_reserved", "unused"]),
        ("MOVD2B 1\nNOP", ["one instruction"]),
    ],
)
def test_parse_errors_are_one_line(text: str, words: list[str]) -> None:
    with pytest.raises(ParseError) as err:
        parse(text)
    msg = str(err.value)
    assert msg and "\n" not in msg
    for w in words:
        assert w in msg


def test_encode_errors() -> None:
    with pytest.raises(EncodeError, match=r"DstRow.*10-bit"):
        encode("MOVD2B", DstRow=1024)
    with pytest.raises(EncodeError, match="Imm12"):
        encode("SFPIADD", Imm12=-2049)
    with pytest.raises(EncodeError, match="unknown"):
        encode("NOPE")
    with pytest.raises(EncodeError, match="not an integer"):
        encode("MOVD2B", DstRow="1")
    assert encode("MOVD2B", dstrow=True) == 0x0A000001
    with pytest.raises(IsaError):
        BH.decode(-1)

