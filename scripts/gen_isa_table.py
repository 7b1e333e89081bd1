#!/usr/bin/env python3
"""Generate the instruction tables of the profiles: ``tdbg/arch/wormhole_b0/isa.json`` (Wormhole
B0) and ``tdbg/arch/blackhole/isa.json`` (Blackhole).

Wormhole B0: ``../shared/spec/encodings.json`` (the pinned ``Bits32.lua`` layouts plus the newer
upstream Wormhole additions) and, for each instruction, the "Syntax" section of its page for the
positional operand order of its ``TT_*`` macro.  Blackhole: ``bh_encodings.json`` (tt-llk's
``assembly.yaml``), with the field names and widths settled as ``bh_rows`` explains.  The package
never reads ``../shared`` at run time.  Rerun after the spec pack changes::

    python scripts/gen_isa_table.py [--spec DIR]

Output: one JSON object per instruction, sorted by opcode then name, with

* ``fields``: ``[name, lsb, width, signed]`` in lsb order;
* ``fixed``: ``[lsb, width, value]`` constant variant-selecting bits;
* ``select``: ``{field: [values]}`` for variants that share an opcode and are told apart by a
  field value rather than fixed bits (taken from the ``#define``s on their pages);
* ``syntax``: field names in the macro's argument order (constants skipped; several fields
  packed into one argument are listed as they appear), or ``null`` when the page has no
  parseable syntax;
* ``doc``: the pages that describe it;
* ``aliases`` (Blackhole only): ``{yaml_name: [lsb, width]}``, the names tt-llk's macros use
  for bit ranges that the table names after the Wormhole pages (a range may hold several page
  fields, e.g. ``clear_dvalid`` = ``FlipSrcA`` + ``FlipSrcB``).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SPEC = ROOT.parent / "shared" / "spec"
PINNED_DOCS = "tt-isa-documentation"
NEWER_DOCS = "tt-isa-documentation-newer"
PINNED_ARCH = "WormholeB0"
WORD_BITS = 24  # bits below the opcode byte

# Variants sharing an opcode without fixed bits: (field, page, #define names of the values that
# select the variant).  SFPSHFT2.md: SFPSHFT2_MOD1_SHFT_IMM is the mode that reads Imm12;
# SFPSTOCHRND_IntInt.md: the two INT32 modes are the ones that read UseImm5 / Imm5 / VB.
SELECT = {
    "SFPSHFT2b": ("Mod1", "SFPSHFT2.md", ["SFPSHFT2_MOD1_SHFT_IMM"]),
    "SFPSTOCHRNDi": ("Mod1", "SFPSTOCHRND_IntInt.md",
                     ["SFPSTOCHRND_MOD1_INT32_TO_UINT8", "SFPSTOCHRND_MOD1_INT32_TO_INT8"]),
}
COPROCESSOR = "WormholeB0/TensixTile/TensixCoprocessor"

CALL = re.compile(r"\b(TTI?_\w+)\s*(\()?")
TYPED_NAME = re.compile(r"/\*\s*\w+\s*\*/\s*\(?\s*([A-Za-z_]\w*)")


def syntax_code(page: str) -> str | None:
    """The code blocks of a page's ``## Syntax`` section, or None."""
    section = re.search(r"^## Syntax\s*$(.*?)(?=^## |\Z)", page, re.M | re.S)
    if section is None:
        return None
    return "\n".join(re.findall(r"```\w*\n(.*?)```", section.group(1), re.S))


def calls(code: str) -> list[list[str]]:
    """For each macro call in ``code``: the typed operand names, in argument order."""
    out = []
    for m in CALL.finditer(code):
        args: list[str] = []
        if m.group(2):
            depth, pos, start = 1, m.end(), m.end()
            while depth:
                ch = code[pos]
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                if (ch == "," and depth == 1) or depth == 0:
                    args.append(code[start:pos])
                    start = pos + 1
                pos += 1
        out.append([name for arg in args for name in TYPED_NAME.findall(arg)])
    return out


def parse_syntax(entry: dict, pages: list[Path]) -> list[str] | None:
    """Field names in positional order from the best-fitting call on the entry's pages.

    A call fits when every name it uses is a field of the entry; among fitting calls the one
    naming the most fields wins (pages list one call per variant, e.g. ``ADDDMAREG``).
    """
    fields = {f["name"] for f in entry["fields"]}
    best: list[str] | None = None
    for page in pages:
        if not page.exists():
            continue
        code = syntax_code(page.read_text())
        for names in calls(code or ""):
            if set(names) <= fields and len(set(names)) == len(names):
                if best is None or len(names) > len(best):
                    best = names
    return best


def defines(page: Path) -> dict[str, int]:
    return {m[1]: int(m[2], 0) for m in re.finditer(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)", page.read_text())}


def check(entry: dict) -> None:
    """Fields and fixed bits lie below the opcode and do not overlap."""
    used = 0
    spans = [(f["lsb"], f["width"], f["name"]) for f in entry["fields"]]
    spans += [(x["lsb"], x["width"], "fixed") for x in entry.get("fixed", [])]
    for lsb, width, what in spans:
        mask = ((1 << width) - 1) << lsb
        assert lsb + width <= WORD_BITS and not used & mask, (entry["name"], what)
        used |= mask
    lower = [f["name"].lower() for f in entry["fields"]]
    assert len(set(lower)) == len(lower), entry["name"]


def collect(spec: Path) -> list[tuple[dict, str]]:
    """(entry, docs root) for every Wormhole B0 instruction, duplicates merged."""
    src = json.loads((spec / "encodings.json").read_text())
    kept: list[tuple[dict, str]] = [(e, PINNED_DOCS) for e in src["instructions"]]
    for e in src["newer_upstream"]["added_instructions"]:
        if PINNED_ARCH in e["arch"].split("+"):
            kept.append((e, NEWER_DOCS))
    by_name: dict[str, tuple[dict, str]] = {}
    for item in kept:
        name = item[0]["name"]
        if name in by_name:  # Bits32.lua defines SEMINIT twice; identical bodies are one entry
            old = by_name[name][0]
            assert (old["opcode"], old["fields"], old.get("fixed")) == (
                item[0]["opcode"], item[0]["fields"], item[0].get("fixed")), f"conflicting {name}"
            continue
        by_name[name] = item
    return list(by_name.values())


def build_wormhole(spec: Path) -> dict:
    src = json.loads((spec / "encodings.json").read_text())
    rows = []
    for entry, docs in collect(spec):
        check(entry)
        pages = [spec / docs / p for p in entry["doc_pages"]]
        syntax = parse_syntax(entry, pages)
        # RMWCIB: opcode 0xB3 + Index1; the page spells the four opcodes TT_RMWCIB0..3.
        opcodes = entry.get("opcodes", [entry["opcode"]])
        names = [entry["name"] + str(i) for i in range(len(opcodes))] if "opcodes" in entry else [entry["name"]]
        for name, opcode in zip(names, opcodes):
            row = {
                "name": name,
                "opcode": opcode,
                "fields": [[f["name"], f["lsb"], f["width"], bool(f.get("signed"))] for f in entry["fields"]],
                "fixed": [[x["lsb"], x["width"], x["value"]] for x in entry.get("fixed", [])],
                "syntax": syntax,
                "doc": [f"{docs}/{p}" for p in entry["doc_pages"]],
            }
            if name in SELECT:
                field, page, macros = SELECT[name]
                values = defines(spec / PINNED_DOCS / COPROCESSOR / page)
                row["select"] = {field: sorted(values[m] for m in macros)}
            rows.append(row)
    finish(rows)
    return {
        "source": {
            "file": "shared/spec/encodings.json",
            "pinned": src["source"]["commit"],
            "newer": src["newer_upstream"]["commit"],
        },
        "instructions": rows,
    }


def finish(rows: list[dict]) -> None:
    """Sort by opcode then name; mnemonics must differ ignoring case."""
    rows.sort(key=lambda r: (r["opcode"], r["name"]))
    lower = [r["name"].lower() for r in rows]
    assert len(set(lower)) == len(lower), "mnemonics must differ ignoring case"


# -- Blackhole -----------------------------------------------------------------------------------
#
# bh_encodings.json gives each field's start bit and, as width, the gap to the next field (an
# upper bound where reserved bits follow).  Each field of the Blackhole table is either
#
# * a Wormhole page field, where the Blackhole bits mean what the page says (the semantics modules
#   cite the Wormhole pages and read fields by the pages' names); the YAML name stays accepted as
#   an alias of the same bit range, and one YAML range may hold several page fields
#   (``clear_dvalid`` = ``FlipSrcA`` at +0 and ``FlipSrcB`` at +1), the rest of the range staying
#   reserved (``instr_mod`` of MOVD2B: bit 12 reserved, ``Move4Rows`` at +1); or
# * the YAML field itself (sanitised name), where no page names those bits.
#
# Widths, in order of precedence: WIDTH below (each with its evidence); ttsim's Blackhole decoder
# (``TTSIM_WIDTH``: tenstorrent/ttsim data/bh/tensix_isa.json, the hi:lo of every field its
# decoder extracts, copied here as numbers, so the generator needs nothing beyond ../shared); the
# Wormhole field of the same name at the same start bit; else the YAML upper bound.

# name -> page field, or [(page field, offset in the YAML range, width), ...].
_FLIP = [("FlipSrcA", 0, 1), ("FlipSrcB", 1, 1)]
_MOV4 = [("Move4Rows", 1, 1)]            # instr_mod 2 = move 4 rows (p_movd2a / p_movd2b), bit 12 unused
_MOV8 = [("Move8Rows", 1, 1)]            # instr_mod 2 = move 8 rows (p_mova2d)
_MOV = {"dst": "DstRow", "addr_mode": "AddrMod", "src": "SrcRow", "dest_32b_lo": "UseDst32bLo"}
_MATH = {"dst": "DstRow", "addr_mode": "AddrMod", "clear_dvalid": _FLIP}
_U = [("U0", 0, 1), ("U1", 1, 1), ("PK", 2, 1)]     # CntSetMask: unpacker0, unpacker1, packer0 (YAML)


def _adc(x: str, y: str, kind: str, bitmask: bool) -> dict:
    """SETADCXY / ADDRCRXY / INCADCXY and the ZW forms: ``Ch0_X`` is X0 (or Z0) and so on."""
    m: dict = {f"Ch{c}_{a}": f"{n}{c}{kind}" for c in (0, 1) for a, n in (("X", x), ("Y", y))}
    m["CntSetMask"] = _U
    if bitmask:
        m["BitMask"] = [(f"{x}0", 0, 1), (f"{y}0", 1, 1), (f"{x}1", 2, 1), (f"{y}1", 3, 1)]
    return m


_DMAREG = {"OpARegIndex": "LeftReg", "OpBRegIndex": "RightReg", "ResultRegIndex": "ResultReg"}

MAP: dict[str, dict] = {
    # MOPExpander.md / MOP.md / MOP_CFG.md; REPLAY.md
    "MOP": {"zmask_lo16_or_loop_count": "MaskLo", "loop_count": "Count1", "mop_type": "Template"},
    "MOP_CFG": {"zmask_hi16": "MaskHi"},
    "REPLAY": {"load_mode": "Load", "execute_while_loading": "Exec", "len": "Count", "start_idx": "Index"},
    # Matrix Unit data movement (MOVD2A.md, MOVD2B.md, MOVA2D.md, MOVB2D.md, MOVDBGA2D.md, MOVB2A.md)
    "MOVD2A": {**_MOV, "instr_mod": _MOV4}, "MOVD2B": {**_MOV, "instr_mod": _MOV4},
    "MOVA2D": {**_MOV, "instr_mod": _MOV8}, "MOVDBGA2D": {**_MOV, "instr_mod": _MOV8},
    # p_movb2d: 1 = broadcast column 0, 2 = broadcast one row to 8, 4 = move 4 rows
    "MOVB2D": {**_MOV, "movb2d_instr_mod": [("BroadcastCol0", 0, 1), ("Broadcast1RowTo8", 1, 1), ("Move4Rows", 2, 1)]},
    "MOVB2A": {"srcb": "SrcBRow", "instr_mod": _MOV4, "addr_mode": "AddrMod", "srca": "SrcARow"},
    # ZEROACC.md; ttsim remaps clear_mode | use_32_bit_mode << 2 to the Wormhole Mode/UseDst32b,
    # and clear_zero_flags un-assigns Undefined (sets rows valid), as the page's Revert does.
    "ZEROACC": {"where": "Imm10", "addr_mode": "AddrMod", "clear_zero_flags": "Revert",
                "use_32_bit_mode": "UseDst32b", "clear_mode": "Mode"},
    # ZEROSRC.md; ttsim: bank_mask 1 = both banks, else write_mode 1 = the Matrix Unit's bank
    "ZEROSRC": {"src_mask": [("ClearSrcA", 0, 1), ("ClearSrcB", 1, 1)], "bank_mask": "BothBanks",
                "write_mode": "SingleBankMatrixUnit", "zero_val": "NegativeInfSrcA"},
    # arithmetic (ELWADD.md ...); p_elwise: instr_mod19 1 = SrcB column broadcast, 2 = row broadcast
    "ELWADD": {**_MATH, "instr_mod19": [("BroadcastSrcBCol0", 0, 1), ("BroadcastSrcBRow", 1, 1)], "dest_accum_en": "AddDst"},
    "ELWSUB": {**_MATH, "instr_mod19": [("BroadcastSrcBCol0", 0, 1), ("BroadcastSrcBRow", 1, 1)], "dest_accum_en": "AddDst"},
    # ELWMUL.md always accumulates (ttsim: "ELWMUL forces accumulation, independent of dest_accum_en")
    "ELWMUL": {**_MATH, "instr_mod19": [("BroadcastSrcBCol0", 0, 1), ("BroadcastSrcBRow", 1, 1)]},
    "MVMUL": {**_MATH, "instr_mod19": "BroadcastSrcBRow"},
    "DOTPV": dict(_MATH),
    "GMPOOL": {"dst": "DstRow", "max_pool_index_en": "ArgMax", "pool_addr_mode": "AddrMod", "clear_dvalid": _FLIP},
    "GAPOOL": {"dst": "DstRow", "pool_addr_mode": "AddrMod", "clear_dvalid": _FLIP},
    # CLEARDVALID.md (YAML: bit 0 resets, bit 1 "clear dvalid but don't switch bank"); SETDVALID.md
    "CLEARDVALID": {"reset": [("Reset", 0, 1), ("KeepReadingSameSrc", 1, 1)], "cleardvalid": _FLIP},
    "SETDVALID": {"setvalid": _FLIP},
    # SETRWC.md / INCRWC.md (p_setrwc: SET_A 1, SET_B 2, SET_D 4, SET_F 8; CR_A 1, CR_B 2, CR_D 4)
    "SETRWC": {"BitMask": [("SrcA", 0, 1), ("SrcB", 1, 1), ("Dst", 2, 1), ("Fidelity", 3, 1)],
               "rwc_a": "SrcAVal", "rwc_b": "SrcBVal", "rwc_d": "DstVal",
               "rwc_cr": [("SrcACr", 0, 1), ("SrcBCr", 1, 1), ("DstCr", 2, 1), ("DstCtoCr", 3, 1)],
               "clear_ab_vld": _FLIP},
    "INCRWC": {"rwc_a": "SrcAInc", "rwc_b": "SrcBInc", "rwc_d": "DstInc",
               "rwc_cr": [("SrcACr", 0, 1), ("SrcBCr", 1, 1), ("DstCr", 2, 1)]},
    # Sync Unit (STALLWAIT.md, SEMWAIT.md, SEMINIT.md, SEMPOST.md, SEMGET.md, ATGETM.md, ATRELM.md)
    "STALLWAIT": {"wait_res": "ConditionMask", "stall_res": "BlockMask"},
    "SEMWAIT": {"wait_sem_cond": "ConditionMask", "sem_sel": "SemaphoreMask", "stall_res": "BlockMask"},
    "SEMINIT": {"sem_sel": "SemaphoreMask", "init_value": "NewValue", "max_value": "NewMax"},
    "SEMPOST": {"sem_sel": "SemaphoreMask"}, "SEMGET": {"sem_sel": "SemaphoreMask"},
    "ATGETM": {"mutex_index": "Index"}, "ATRELM": {"mutex_index": "Index"},
    # Configuration Unit (SETC16.md, WRCFG.md, RDCFG.md, RMWCIB.md)
    "SETC16": {"setc16_value": "NewValue", "setc16_reg": "CfgIndex"},
    "WRCFG": {"CfgReg": "CfgIndex", "wr128b": "Is128Bit", "GprAddress": "InputReg"},
    "RDCFG": {"CfgReg": "CfgIndex", "GprAddress": "ResultReg"},
    **{f"RMWCIB{i}": {"CfgRegAddr": "Index4", "Data": "NewValue", "Mask": "Mask"} for i in range(4)},
    # Vector Unit loads and stores (SFPLOAD.md, SFPSTORE.md, SFPLOADI.md, SFPLUT.md; the newer
    # Bits32.lua's Blackhole SFPLOADMACRO splits dest_reg_addr and lreg_ind)
    "SFPLOAD": {"dest_reg_addr": "Imm10", "sfpu_addr_mode": "AddrMod", "instr_mod0": "Mod0", "lreg_ind": "VD"},
    "SFPSTORE": {"dest_reg_addr": "Imm10", "sfpu_addr_mode": "AddrMod", "instr_mod0": "Mod0", "lreg_ind": "VD"},
    "SFPLOADMACRO": {"dest_reg_addr": [("VDHi", 0, 1), ("Imm9", 1, 9)], "sfpu_addr_mode": "AddrMod",
                     "instr_mod0": "Mod0", "lreg_ind": [("VDLo", 0, 2), ("MacroIndex", 2, 2)]},
    "SFPLOADI": {"imm16": "Imm16", "instr_mod0": "Mod0", "lreg_ind": "VD"},
    "SFPLUT": {"instr_mod0": "Mod0", "lreg_ind": "VD"},
    # the newer Bits32.lua's Blackhole SFPSTOCHRND (Imm5 of the IntInt variant at 16)
    "SFP_STOCH_RND": {"instr_mod1": [("Mod1", 0, 3), ("UseImm5", 3, 1)], "lreg_dest": "VD", "lreg_src_c": "VC", "lreg_src_b": "VB",
                      "imm8_math": "Imm5", "rnd_mode": "RoundingMode"},
    # ADCs (SETADC.md, SETADCXX.md, SETADCXY.md, SETADCZW.md, INCADC*.md, ADDRCR*.md)
    "SETADC": {"Value": "NewValue", "DimensionIndex": "XYZW", "ChannelIndex": "Channel", "CntSetMask": _U},
    "SETADCXX": {"x_start": "X0Val", "x_end2": "X1Val", "CntSetMask": _U},
    "SETADCXY": _adc("X", "Y", "Val", True), "SETADCZW": _adc("Z", "W", "Val", True),
    "ADDRCRXY": _adc("X", "Y", "Inc", True), "ADDRCRZW": _adc("Z", "W", "Inc", True),
    "INCADCXY": _adc("X", "Y", "Inc", False), "INCADCZW": _adc("Z", "W", "Inc", False),
    # UNPACR_Regular.md: the Wormhole UNPACR layout has the same bits (encodings.json
    # UNPACR_Regular: RowSearch 2, UseContextCounter 3, AllDatumsAreZero 4, FlipSrc 6,
    # MultiContextMode 7, ContextADC 8, ContextNumber 10, Ch0ZInc 15, Ch0YInc 17, Ch1ZInc 19,
    # Ch1YInc 21, WhichUnpacker 23).  ttsim v1.10.0 tensix.cpp UNPACR (BH) adds AddrMode bits 1:0
    # to ch0_z, 3:2 to ch0_y, 5:4 to ch1_z, 7:6 to ch1_y, takes OvrdThreadId as the page's
    # MultiContextMode (context = UNPACK_MISC_CFG_CfgContextOffset, *_cntx config), SetDatValid as
    # FlipSrc and ZeroWrite2 as AllDatumsAreZero.  Last, SearchCacheFlush, srcb_bcast and
    # CfgContextCntInc keep the YAML names (the Wormhole variants select on bits 1 and 13).
    "UNPACR": {"RowSearch": "RowSearch", "AutoIncContextID": "UseContextCounter", "ZeroWrite2": "AllDatumsAreZero",
               "SetDatValid": "FlipSrc", "OvrdThreadId": "MultiContextMode", "AddrCntContextId": "ContextADC",
               "CfgContextId": "ContextNumber", "Unpack_block_selection": "WhichUnpacker",
               "AddrMode": [("Ch0ZInc", 0, 2), ("Ch0YInc", 2, 2), ("Ch1ZInc", 4, 2), ("Ch1YInc", 6, 2)]},
    # Scalar Unit arithmetic (ADDDMAREG.md ...): OpBisConst selects the immediate form, which the
    # Lua splits into ``...i`` variants with a fixed bit 23
    **{n: dict(_DMAREG) for n in ("ADDDMAREG", "SUBDMAREG", "MULDMAREG")},
    **{n: {**_DMAREG, "OpSel": "Mode"} for n in ("BITWOPDMAREG", "SHIFTDMAREG", "CMPDMAREG")},
}

# The Vector Unit's arithmetic: YAML role -> page name, used where the reference layout (the newer
# Bits32.lua's Blackhole entry, else the Wormhole one) has a field of that name at the same bit.
SFPU_ROLES = {"instr_mod1": "Mod1", "lreg_dest": "VD", "lreg_c": "VC", "lreg_src_c": "VC", "lreg_src_b": "VB",
              "lreg_src_a": "VA", "config_dest": "VD", "imm16_math": "Imm16",
              "imm12_math": ("Imm12", "Imm8", "Imm2", "Imm1", "VB")}

# Widths that neither ttsim's decoder nor the Wormhole layout settle: (instruction, YAML name).
WIDTH = {
    # YAML description of wait_res: bits 0..12 (thcon ... CfgExu bit 12); p_stall::CFGEXU = 0x1000;
    # the newer Bits32.lua's STALLWAIT_BH: ConditionMask 13 bits (ttsim decodes only 11:0).
    ("STALLWAIT", "wait_res"): 13,
    # ttsim's frontend reads REPLAY bits 0, 1, 13:4, 23:14 and calls bits 3:2 unused.
    ("REPLAY", "execute_while_loading"): 1,
    ("REPLAY", "len"): 10,
    ("REPLAY", "start_idx"): 10,
    # ttsim's MOP_CFG reads bits 15:0 and calls 23:16 unused; MOP_CFG.md: MaskHi is 16 bits.
    ("MOP_CFG", "zmask_hi16"): 16,
    # DOTPV and MOVDBGA2D: ttsim leaves them unsupported; the same fields of the family it decodes
    # (ELWADD, MOVA2D) are 10-bit dst and 3-bit addr_mode.
    ("DOTPV", "dst"): 10, ("DOTPV", "addr_mode"): 3,
    ("MOVDBGA2D", "dst"): 10,
}

# ttsim data/bh/tensix_isa.json: widths of the fields its decoder extracts where they are
# narrower than the YAML gap (0: the decoder does not extract that field).
TTSIM_WIDTH: dict[str, dict[str, int]] = {
    "ADDDMAREG": {"ResultRegIndex": 6}, "MULDMAREG": {"ResultRegIndex": 6},
    "ADDRCRXY": {"BitMask": 4, "Ch1_Y": 3}, "ADDRCRZW": {"BitMask": 4, "Ch1_Y": 3},
    "SETADCXY": {"BitMask": 4, "Ch1_Y": 3}, "SETADCZW": {"BitMask": 4, "Ch1_Y": 3},
    "INCADCXY": {"Ch1_Y": 3}, "INCADCZW": {"Ch1_Y": 3}, "SETADCXX": {"x_end2": 10},
    "ATGETM": {"mutex_index": 16}, "ATRELM": {"mutex_index": 16},
    "CLEARDVALID": {"reset": 2}, "SETDVALID": {"setvalid": 2},
    "ELWADD": {"dst": 10, "addr_mode": 3}, "ELWMUL": {"dst": 10, "addr_mode": 3}, "ELWSUB": {"dst": 10, "addr_mode": 3},
    "MVMUL": {"dst": 10, "addr_mode": 3, "instr_mod19": 1},
    "GAPOOL": {"dst": 10, "pool_addr_mode": 3, "instr_mod19": 1},
    "GMPOOL": {"dst": 10, "pool_addr_mode": 3, "instr_mod19": 1},
    "GATESRCRST": {"reset srcb gate control": 1},
    "INCRWC": {"rwc_cr": 3}, "SETRWC": {"BitMask": 4},
    "MOVA2D": {"dst": 10}, "MOVB2D": {"dst": 10}, "MOVD2A": {"dst": 10}, "MOVD2B": {"dst": 10},
    "MOVB2A": {"srcb": 6, "srca": 6},
    "PACR": {"Concat": 1, "CfgContext": 2}, "REG2FLOP": {"FlopIndex": 7},
    "RDCFG": {"CfgReg": 11, "GprAddress": 6}, "WRCFG": {"CfgReg": 11, "GprAddress": 6},
    "SEMGET": {"sem_sel": 8}, "SEMINIT": {"sem_sel": 8}, "SEMPOST": {"sem_sel": 8}, "SEMWAIT": {"sem_sel": 8},
    "SFPABS": {"imm12_math": 0}, "SFPADD": {"lreg_src_a": 4}, "SFPAND": {"imm12_math": 4},
    "SFPARECIP": {"imm12_math": 4}, "SFPCAST": {"lreg_src_c": 4},
    "SFPCOMPC": {"instr_mod1": 0, "lreg_c": 0, "imm12_math": 0}, "SFPENCC": {"imm12_math": 2, "lreg_c": 0},
    "SFPEXEXP": {"imm12_math": 0}, "SFPEXMAN": {"imm12_math": 0}, "SFPGT": {"imm12_math": 0},
    "SFPLE": {"imm12_math": 0}, "SFPLOAD": {"dest_reg_addr": 10}, "SFPLOADMACRO": {"dest_reg_addr": 10},
    "SFPLUT": {"dest_reg_addr": 0}, "SFPLUTFP32": {"lreg_dest": 4}, "SFPLZ": {"imm12_math": 0},
    "SFPMAD": {"lreg_src_a": 4}, "SFPMOV": {"imm12_math": 0}, "SFPMUL": {"lreg_src_a": 4},
    "SFPMUL24": {"lreg_src_a": 4}, "SFPNOT": {"instr_mod1": 0, "imm12_math": 0},
    "SFPOR": {"imm12_math": 4}, "SFPPOPC": {"lreg_c": 0, "imm12_math": 0},
    "SFPPUSHC": {"lreg_c": 0, "imm12_math": 0}, "SFPSETCC": {"imm12_math": 1}, "SFPSETEXP": {"imm12_math": 8},
    "SFPSETSGN": {"imm12_math": 1}, "SFPSTORE": {"dest_reg_addr": 10}, "SFPSWAP": {"imm12_math": 0},
    "SFPTRANSP": {"instr_mod1": 0, "lreg_c": 0, "imm12_math": 0}, "SFPXOR": {"instr_mod1": 0, "imm12_math": 0},
    "SFP_STOCH_RND": {"rnd_mode": 2}, "STALLWAIT": {"wait_res": 12}, "UNPACR": {"CfgContextCntInc": 1},
    "UNPACR_NOP": {"Set_Dvalid": 1}, "ZEROACC": {"where": 10, "clear_mode": 2}, "ZEROSRC": {"zero_val": 1},
}

# Page fields in bits no YAML field covers: (lsb, width), each with its evidence.
EXTRA = {
    # newer Bits32.lua SFPLUTFP32_BH; Blackhole SFPLUTFP32.md: read only by the automatic stalling
    # logic (tdbg has none), the computation uses Mod1
    "SFPLUTFP32": [("Mod1Mirror", 16, 4)],
}

# Blackhole instructions whose page is a Wormhole page of another name.
BH_PAGE = {**{f"RMWCIB{i}": "RMWCIB" for i in range(4)}, "SFP_STOCH_RND": "SFPSTOCHRND", "UNPACR": "UNPACR_Regular"}
# Newer Bits32.lua Blackhole entries whose Blackhole (YAML) name differs.
BH_LUA = {"SFPSTOCHRND_BH": "SFP_STOCH_RND", "SFPSTOCHRNDi_BH": "SFP_STOCH_RND"}


def sanitise(name: str) -> str:
    """A YAML field name as an identifier (``Mov block selection`` -> ``Mov_block_selection``)."""
    return re.sub(r"\W", "_", name.strip())


def _base(name: str) -> str:
    """A Wormhole variant's base name: ``...i`` / ``_Immediate`` (immediate forms) and SFPSHFT2b
    (SFPSHFT2.md: SFPSHFT2_MOD1_SHFT_IMM reads Imm12 where the other modes read VB)."""
    return re.sub(r"(i|_Immediate|(?<=SFPSHFT2)b)$", "", name)


def references(spec: Path) -> tuple[dict, dict, set]:
    """Page layouts ``{name: {field: (lsb, width)}}``: the Wormhole entries (variants merged under
    their base name as well), and the newer Bits32.lua's Blackhole-only entries by Blackhole name;
    and the (instruction, field) pairs the Wormhole layouts call signed."""
    src = json.loads((spec / "encodings.json").read_text())
    wh: dict[str, dict] = {}
    bh: dict[str, dict] = {}
    signed: set[tuple[str, str]] = set()
    for e in src["instructions"] + src["newer_upstream"]["added_instructions"]:
        layout = {f["name"]: (f["lsb"], f["width"]) for f in e["fields"]}
        signed |= {(_base(e["name"]), f["name"]) for f in e["fields"] if f.get("signed")}
        if PINNED_ARCH in e.get("arch", PINNED_ARCH).split("+"):
            for name in {e["name"], _base(e["name"])}:
                wh.setdefault(name, {}).update(layout)
        else:
            bh.setdefault(BH_LUA.get(e["name"], e["name"].removesuffix("_BH")), {}).update(layout)
    return wh, bh, signed


def bh_width(insn: str, yaml: dict, page: str | None, ref: dict[str, tuple[int, int]]) -> tuple[int, str]:
    """The settled width of one YAML field and where it comes from."""
    name = yaml["name"]
    if (insn, name) in WIDTH:
        return WIDTH[insn, name], "WIDTH"
    w = TTSIM_WIDTH.get(insn, {}).get(name)
    if w:
        return w, "ttsim"
    if page in ref and ref[page][0] == yaml["lsb"] and ref[page][1] <= yaml["width"]:
        return ref[page][1], "wormhole"
    return yaml["width"], "yaml"


def bh_rows(spec: Path) -> list[dict]:
    """The Blackhole table (see the comment above ``MAP``)."""
    src = json.loads((spec / "bh_encodings.json").read_text())
    wh = json.loads((spec / "encodings.json").read_text())
    docs = {e["name"]: [f"{root}/{page}" for page in e["doc_pages"]]
            for root, entries in ((PINNED_DOCS, wh["instructions"]), (NEWER_DOCS, wh["newer_upstream"]["added_instructions"]))
            for e in entries if PINNED_ARCH in e.get("arch", PINNED_ARCH)}
    wh_refs, bh_refs, signed = references(spec)
    rows = []
    for e in src["instructions"]:
        name = e["name"]
        ref = bh_refs.get(name) or wh_refs.get(BH_PAGE.get(name, name), {})
        mapping = dict(MAP.get(name, {}))
        if name.startswith("SFP") and name not in MAP:
            for y in e["fields"]:
                roles = SFPU_ROLES.get(y["name"])
                for page in (roles,) if isinstance(roles, str) else roles or ():
                    if ref.get(page, (None,))[0] == y["lsb"]:
                        mapping[y["name"]] = page
                        break
        fields, aliases = [], {}
        for y in e["fields"]:
            target = mapping.get(y["name"])
            width, _ = bh_width(name, y, target if isinstance(target, str) else None, ref)
            if isinstance(target, list):
                for page, off, w in target:
                    assert off + w <= width, (name, y["name"], page)
                    fields.append([page, y["lsb"] + off, w, False])
                aliases[sanitise(y["name"])] = [y["lsb"], width]
            else:
                page = BH_PAGE.get(name, name)
                fields.append([target or sanitise(y["name"]), y["lsb"], width, (page, target) in signed])
                if target and target.lower() != y["name"].lower():
                    aliases[sanitise(y["name"])] = [y["lsb"], width]
        for page, lsb, width in EXTRA.get(name, ()):
            assert ref.get(page) == (lsb, width), (name, page)
            fields.append([page, lsb, width, False])
        # the codec ignores case, so a YAML range named like a page field (CLEARDVALID ``reset`` and
        # ``Reset``) is reached through the page fields only
        aliases = {a: r for a, r in aliases.items() if a.lower() not in {f[0].lower() for f in fields}}
        names = [f[0].lower() for f in fields] + [a.lower() for a in aliases]
        assert len(set(names)) == len(names), (name, names)
        unused = set(mapping) - {y["name"] for y in e["fields"]}
        assert not unused, (name, unused)
        for f in fields:  # a page name must be the page's
            if f[0] not in {sanitise(y["name"]) for y in e["fields"]}:
                assert f[0] in ref, (name, f[0], sorted(ref))
        page = BH_PAGE.get(name, name)
        row = {
            "name": name,
            "opcode": e["opcode"],
            "fields": sorted(fields, key=lambda f: f[1]),
            "fixed": [],
            "aliases": aliases,
            "syntax": [sanitise(y["name"]) for y in sorted(e["fields"], key=lambda y: -y["lsb"])],
            "doc": [f"tt-llk tt_llk_blackhole/instructions/assembly.yaml: {name}"]
                   + docs.get(page, docs.get(page + "_Regular", [])),
        }
        check(row | {"fields": [{"name": f[0], "lsb": f[1], "width": f[2]} for f in fields]})
        rows.append(row)
    finish(rows)
    opcodes = [r["opcode"] for r in rows]
    assert len(set(opcodes)) == len(opcodes), "one Blackhole instruction per opcode"
    return rows


def build_blackhole(spec: Path) -> dict:
    src = json.loads((spec / "bh_encodings.json").read_text())
    return {"source": {"file": "shared/spec/bh_encodings.json", **{k: src["source"][k] for k in ("repo", "path", "commit")}},
            "instructions": bh_rows(spec)}


def dump(table: dict) -> str:
    """Deterministic compact JSON, one instruction per line."""
    def enc(obj: object) -> str:
        return json.dumps(obj, separators=(",", ":"), sort_keys=True)
    lines = ",\n".join(enc(r) for r in table["instructions"])
    return f'{{"source":{enc(table["source"])},\n"instructions":[\n{lines}\n]}}\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    args = parser.parse_args()
    for arch, table in (("wormhole_b0", build_wormhole(args.spec)), ("blackhole", build_blackhole(args.spec))):
        out = ROOT / "tdbg" / "arch" / arch / "isa.json"
        out.write_text(dump(table))
        rows = table["instructions"]
        aliases = sum(len(r.get("aliases", {})) for r in rows)
        print(f"wrote {out.relative_to(ROOT)}: {len(rows)} instructions, {aliases} aliases")


if __name__ == "__main__":
    main()
