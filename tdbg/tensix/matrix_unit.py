"""Matrix Unit (FPU) instructions.

Each function implements the functional model of the WormholeB0 page it names (``MOVD2B`` per
seed 001, ``MOVB2A`` per the newer page), after the Wait Gate: the waits for ``AllowedClient``
are the Coprocessor's (``waits_for``).  Data formats come from the thread's Config bank
(``CFG_STATE_ID_StateID``); ``SrcAFmt`` codes are the 4-bit data format encoding of
``Packers/FormatConversion.md``.  Undefined ``Dst`` rows (``ZEROACC``) read as the instruction's
identity (see ``dst_access``).  Floating-point arithmetic is the measured datapath of ``fpu_datapath``
(``fpu_numerics`` for what the pages alone define).

``LaneConfig[Column / 2].BLOCK_DEST_MOV`` masks columns of ``MOVD2A`` / ``MOVA2D`` / ``MOVB2D`` /
``MOVB2A`` as their pages say; ``MOVD2B`` follows seed 001, which has no such mask (although
``SFPCONFIG.md`` lists MOVD2B among the users of ``BLOCK_DEST_MOV``), and writes
``SrcB[MatrixUnit.SrcABank]`` exactly as the seed does (the SrcA bank bit, not the SrcB one).
Blackhole fields no Wormhole page has (tt-llk's names, ``tdbg/arch/blackhole/isa.json``): ELWMUL's
``dest_accum_en`` is ignored (ELWMUL.md always accumulates; ttsim: "ELWMUL forces accumulation,
independent of dest_accum_en"); GMPOOL's and GAPOOL's ``instr_mod19`` selects 1x16 (0) or 16x16
(1) pooling (tt-llk ``p_gpool``), and the pages describe what tt-llk selects, 16x16 (ttsim
accepts only 1), so 0 raises ``MissingSpecification``; DOTPV's ``instr_mod19`` and
``dest_accum_en`` are described nowhere, so nonzero values raise ``MissingSpecification``.

Blackhole's implied Src formats (ttsim v1.10.0 tensix.cpp:698, 756, 953, 1021, 1433, 1608): while ``ThreadConfig.DISABLE_IMPLIED_SRCA_FMT_Base`` is 0 (its reset value),
``SrcAFmt`` is the format the unpacker gave the bank the instruction reads (``SrcRegister.fmt``,
set when ``UNPACR`` / ``UNPACR_NOP`` hands the bank over): ``SrcA[MatrixUnit.SrcABank]`` for
MOVD2A, MOVA2D and the arithmetic, ``SrcB[MatrixUnit.SrcBBank]`` for MOVD2B, MOVB2D and MOVB2A;
set to 1, the config's ``ALU_FORMAT_SPEC_REG*_SrcA`` decides as on the pages.

``ZEROACC``'s 16-row mode on Blackhole is tile-relative unless
``DEST_ACCESS_CFG_zeroacc_absolute_tile_mode`` is set (ttsim tensix.cpp:865, 876): the block index
moves by 32 blocks (512 rows) when ``(DEST_TARGET_REG_CFG_MATH_Offset + RWCs.Dst) & 512``, by 16
``Dst32b`` blocks when ``& 0x300`` with ``UseDst32b``.

``ShuffleTF32`` is ``formats.shuffle_tf32``, which keeps the sign and high mantissa with mask
``0x7f800`` (the seed's comment and the Src TF32 layout) where the seed's listing has ``0x3fc000``.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from tdbg import native
from tdbg.arch import data_formats
from tdbg.native import address
from tdbg.tensix import fpu_datapath as dp, fpu_numerics as fx
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.formats import shuffle_bf16, shuffle_fp16, shuffle_tf32
from tdbg.tensix.rwc import apply_addr_mod
from tdbg.tensix.rwc import setrwc as set_counters
from tdbg.tensix.src import MASK19, SrcClient

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

# Each data format's style (the MOV* and ELW* pages' BF16 / FP16 / TF32 sets: tdbg.arch.data_formats).
_FORMAT_STYLE = {code: f.style for code, f in data_formats.FORMATS.items()}
_EXP8 = data_formats.having(lambda f: f.style != "FP16")
TF32 = data_formats.DataFormat.TF32
COLS = np.arange(16)        # a Dst row's columns (the Matrix Unit's width: the pages' 16 lanes)


class MathConfig(NamedTuple):
    """The config fields the Matrix Unit's instructions read on every execution, for one thread
    (read once per configuration write: ``TensixConfig.derived``)."""

    fp16a_force: bool           # FP16A_FORCE_Enable
    int8_math: bool             # ALU_ACC_CTRL_INT8_math_enabled
    fp32_dst: bool              # ALU_ACC_CTRL_Fp32_enabled
    zero_flag_disabled_src: bool  # ALU_ACC_CTRL_Zero_Flag_disabled_src
    implied: bool               # Blackhole: SrcAFmt is the bank's implied format (module docstring)
    srca_fmt: int               # ALU_FORMAT_SPEC_REG_SrcA_val if overridden, else ALU_FORMAT_SPEC_REG0_SrcA
    fidelity_base: int          # FIDELITY_BASE_Phase
    dst_base: int               # DEST_TARGET_REG_CFG_MATH_Offset + DEST_REGW_BASE_Base
    math_offset: int            # DEST_TARGET_REG_CFG_MATH_Offset
    clr_dvalid_disable: tuple[bool, bool]  # CLR_DVALID_SrcA_Disable, CLR_DVALID_SrcB_Disable
    src_set_base: tuple[int, int]          # SRCA_SET_Base, SRCB_SET_Base
    zeroacc_tile_relative: bool  # Blackhole: DEST_ACCESS_CFG_zeroacc_absolute_tile_mode is 0 (ZEROACC)


def _math_config(cop: Coprocessor, thread: int) -> MathConfig:
    config = cop.state.config

    def get(name: str) -> int:
        return config.get(name, thread=thread)

    return MathConfig(
        fp16a_force=bool(get("FP16A_FORCE_Enable")), int8_math=bool(get("ALU_ACC_CTRL_INT8_math_enabled")),
        fp32_dst=bool(get("ALU_ACC_CTRL_Fp32_enabled")),
        zero_flag_disabled_src=bool(get("ALU_ACC_CTRL_Zero_Flag_disabled_src")),
        implied="DISABLE_IMPLIED_SRCA_FMT_Base" in config.table.fields and not get("DISABLE_IMPLIED_SRCA_FMT_Base"),
        srca_fmt=get("ALU_FORMAT_SPEC_REG_SrcA_val") if get("ALU_FORMAT_SPEC_REG_SrcA_override")
        else get("ALU_FORMAT_SPEC_REG0_SrcA"),
        fidelity_base=get("FIDELITY_BASE_Phase"),
        dst_base=get("DEST_TARGET_REG_CFG_MATH_Offset") + get("DEST_REGW_BASE_Base"),
        math_offset=get("DEST_TARGET_REG_CFG_MATH_Offset"),
        clr_dvalid_disable=(bool(get("CLR_DVALID_SrcA_Disable")), bool(get("CLR_DVALID_SrcB_Disable"))),
        src_set_base=(get("SRCA_SET_Base"), get("SRCB_SET_Base")),
        zeroacc_tile_relative="DEST_ACCESS_CFG_zeroacc_absolute_tile_mode" in config.table.fields
        and not get("DEST_ACCESS_CFG_zeroacc_absolute_tile_mode"),
    )


def math_config(cop: Coprocessor, thread: int) -> MathConfig:
    """The thread's ``MathConfig`` (derived once per config change; shared with the configs whose
    words it read hold the same: ``TensixConfig.derived``'s ``shared``)."""
    return cop.state.config.derived(("MathConfig", thread), lambda: _math_config(cop, thread),  # type: ignore[return-value]
                                    shared=True)


class _Ctx:
    """What one instruction of one thread reads: its config, RWCs and unit state."""

    __slots__ = ("cop", "thread", "page", "state", "rwc", "port", "banks", "math")

    def __init__(self, cop: Coprocessor, thread: int, page: str) -> None:
        self.cop, self.thread, self.page = cop, thread, page
        self.state = state = cop.state
        self.rwc = cop.rwcs[thread]
        self.port = cop.dst_port
        self.banks = state.src_banks
        self.math = math_config(cop, thread)

    def srca_fmt(self, from_srcb: bool = False) -> int:
        """``SrcAFmt``: the implied format of the bank read (``from_srcb``: the Matrix Unit's
        SrcB bank), else ``ALU_FORMAT_SPEC_REG_SrcA_val`` / ``ALU_FORMAT_SPEC_REG0_SrcA``."""
        if self.math.implied:
            fmt = (self.state.srcb.fmt[self.banks.matrix_unit_srcb] if from_srcb
                   else self.state.srca.fmt[self.banks.matrix_unit_srca])
        else:
            fmt = self.math.srca_fmt
        if fmt not in _FORMAT_STYLE:
            raise MissingSpecification(f"{self.page}: SrcAFmt {fmt} names no data format")
        return fmt

    def style(self, fmt: int) -> str:
        return _FORMAT_STYLE[fmt]  # type: ignore[index]

    def math_style(self) -> tuple[str, bool]:
        """``SrcAStyle`` and ``UseDst32b`` of the arithmetic pages (ELWADD.md, MVMUL.md)."""
        m = self.math
        if m.fp16a_force:
            return "FP16", False
        if m.int8_math:
            return "INT8", True
        return self.style(self.srca_fmt()), m.fp32_dst

    def dst_row(self, row: int) -> int:
        """``DstRow`` plus ``DEST_TARGET_REG_CFG_MATH_Offset``, ``RWCs.Dst`` and ``DEST_REGW_BASE_Base``."""
        return row + self.rwc.Dst + self.math.dst_base

    def fidelity_phase(self) -> int:
        return (self.rwc.FidelityPhase + self.math.fidelity_base) & 3

    def mov_columns(self) -> np.ndarray | None:
        """Columns not masked by ``LaneConfig[Column / 2].BLOCK_DEST_MOV.Bit[Column & 1]``
        (None: no column is masked)."""
        lane_config = self.cop.vector.lane_config
        if not np.count_nonzero(lane_config[:8] & 0x600):
            return None
        block = (lane_config[COLS // 2] >> 9) & 3
        return (block >> (COLS & 1) & 1) == 0

    def flip_banks(self, f: dict[str, int]) -> None:
        """The "possibly flip source banks" step shared by SETRWC and the arithmetic pages."""
        if f["FlipSrcA"]:
            if not self.math.clr_dvalid_disable[0]:
                self.state.srca.allowed_client[self.banks.matrix_unit_srca] = SrcClient.Unpackers
            self.banks.matrix_unit_srca ^= 1
        if f["FlipSrcB"]:
            if not self.math.clr_dvalid_disable[1]:
                self.state.srcb.allowed_client[self.banks.matrix_unit_srcb] = SrcClient.Unpackers
            self.banks.matrix_unit_srcb ^= 1

    def addr_mod(self, addr_mod: int) -> None:
        apply_addr_mod(self.rwc, self.state.config, self.thread, addr_mod)


# -- Dst -> Src ---------------------------------------------------------------------------------

def _movd2src(cop: Coprocessor, thread: int, f: dict[str, int], to_srcb: bool) -> None:
    page = "MOVD2B.md (seed 001)" if to_srcb else "MOVD2A.md"
    c = _Ctx(cop, thread, page)
    m = c.math
    if m.fp16a_force:
        use32, style = False, "FP16"
    else:
        use32, style = m.fp32_dst or m.int8_math, c.style(c.srca_fmt(from_srcb=to_srcb))
    dst_row = c.dst_row(f["DstRow"])
    src_row = f["SrcRow"] + (c.rwc.SrcB if to_srcb else c.rwc.SrcA)
    if f["Move4Rows"]:
        n, dst_row, src_row = 4, dst_row & 0x3FC, src_row & 0x3C
    else:
        n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
    cols = None if to_srcb else c.mov_columns()
    lo = f["UseDst32bLo"]
    if (cols is None or cols.any()) and not use32 and (lo or style == "TF32"):
        why = "UseDst32bLo with 16-bit Dst" if lo else "TF32 style with 16-bit Dst"
        raise UndefinedBehavior(f"{page}: {why}")
    dst = c.state.dst
    rows = dst.four_rows[dst_row >> 2] if n == 4 else dst.one_row[dst_row]
    if use32:
        v = c.port.read32(rows)
        if lo:
            v = (v << np.uint32(16)) | (v & np.uint32(0xFFFF))
        if style == "BF16":
            out = shuffle_bf16(v >> 16)
        elif style == "FP16":
            out = shuffle_fp16(v >> 16)
        elif not lo:
            out = shuffle_tf32(v >> 13)
        else:
            out = v & np.uint32(0x1FFF)
    else:
        v = c.port.read16(rows)
        out = shuffle_bf16(v) if style == "BF16" else shuffle_fp16(v)
    target = cop.state.srcb if to_srcb else cop.state.srca
    block = target.data[c.banks.matrix_unit_srca, src_row:src_row + n]
    if cols is None:
        block[:] = out
    else:
        block[:, cols] = out[:, cols]
    c.addr_mod(f["AddrMod"])


def movd2a(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``MOVD2A`` (MOVD2A.md)."""
    _movd2src(cop, thread, f, to_srcb=False)


def movd2b(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``MOVD2B`` (seed 001, MOVD2B.md)."""
    _movd2src(cop, thread, f, to_srcb=True)


# -- Src -> Dst ---------------------------------------------------------------------------------

def remove_low_mantissa(x: np.ndarray) -> np.ndarray:
    """``RemoveLowMantissa`` (MOVA2D.md): Src BF16/TF32 to Dst16 BF16 (drop 3 low mantissa bits)."""
    return (((x & (1 << 18)) >> 3) | ((x & (0x7F << 11)) >> 3) | (x & 0xFF)).astype(np.uint16)


def remove_high_exponent(x: np.ndarray) -> np.ndarray:
    """``RemoveHighExponent`` (MOVA2D.md): Src FP16 to Dst16 FP16 (keep 5 low exponent bits)."""
    return (((x & (1 << 18)) >> 3) | ((x & (0x3FF << 8)) >> 3) | (x & 0x1F)).astype(np.uint16)


def _src2dst(c: _Ctx, f: dict[str, int], vals: np.ndarray, rows: np.ndarray, from_srcb: bool) -> None:
    """The shared conversion and write of MOVA2D.md / MOVB2D.md."""
    fmt = c.srca_fmt(from_srcb)
    use8 = not c.math.fp16a_force and fmt in _EXP8
    if not c.math.zero_flag_disabled_src:
        vals = np.where(vals & 0xFF == 0, 0, vals).astype(np.uint32)
    val16 = (remove_low_mantissa(vals) if use8 else remove_high_exponent(vals)).astype(np.uint32)
    cols = c.mov_columns()
    if fmt == TF32:
        low = ((vals >> 8) & 7) << 13
        if f["UseDst32bLo"]:
            low |= val16
        c.port.write32(rows, (val16 << 16) | low, cols)
    elif f["UseDst32bLo"]:
        c.port.write32(rows, (c.port.read32(rows) & np.uint32(0xFFFF0000)) | val16, cols)
    else:
        c.port.write16(rows, val16, cols)
    c.addr_mod(f["AddrMod"])


def mova2d(cop: Coprocessor, thread: int, f: dict[str, int], page: str = "MOVA2D.md") -> None:
    """``MOVA2D`` (MOVA2D.md); ``MOVDBGA2D`` (MOVDBGA2D.md) is the same move, which the Wait Gate
    does not hold for ``SrcA`` (the coprocessor leaves it out of the instructions that wait)."""
    c = _Ctx(cop, thread, page)
    dst_row, src_row = c.dst_row(f["DstRow"]), f["SrcRow"] + c.rwc.SrcA
    if f["Move8Rows"]:
        n, dst_row, src_row = 8, dst_row & 0x3F8, src_row & 0x38
    else:
        n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
    vals = cop.state.srca.data[c.banks.matrix_unit_srca, src_row:src_row + n]
    _src2dst(c, f, vals, dst_row + np.arange(n), from_srcb=False)


def movb2d(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``MOVB2D`` (MOVB2D.md), with row and column-0 broadcasts."""
    c = _Ctx(cop, thread, "MOVB2D.md")
    dst_row, src_row = c.dst_row(f["DstRow"]), f["SrcRow"] + c.rwc.SrcB
    if f["Broadcast1RowTo8"]:
        n, dst_row, src_row = 8, dst_row & 0x3F8, src_row & 0x3F
        src_rows = np.full(8, src_row)
    elif f["Move4Rows"]:
        n, dst_row, src_row = 4, dst_row & 0x3FC, src_row & 0x3C
        src_rows = src_row + np.arange(4)
    else:
        n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
        src_rows = np.array([src_row])
    vals = cop.state.srcb.data[c.banks.matrix_unit_srcb][src_rows]
    if f["BroadcastCol0"]:
        vals = np.repeat(vals[:, :1], 16, axis=1)
    _src2dst(c, f, vals, dst_row + np.arange(n), from_srcb=True)


def movb2a(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``MOVB2A`` (newer MOVB2A.md)."""
    c = _Ctx(cop, thread, "MOVB2A.md")
    a_row, b_row = f["SrcARow"] + c.rwc.SrcA, f["SrcBRow"] + c.rwc.SrcB
    if f["Move4Rows"]:
        n, a_row, b_row = 4, a_row & 0x3C, b_row & 0x3C
    else:
        n, a_row, b_row = 1, a_row & 0x3F, b_row & 0x3F
    vals = cop.state.srcb.data[c.banks.matrix_unit_srcb, b_row:b_row + n]
    if not c.math.zero_flag_disabled_src:
        vals = np.where(vals & 0xFF == 0, 0, vals)
    cols = c.mov_columns()
    block = cop.state.srca.data[c.banks.matrix_unit_srca, a_row:a_row + n]
    if cols is None:
        block[:] = vals
    else:
        block[:, cols] = vals[:, cols]
    c.addr_mod(f["AddrMod"])


# -- clearing and bank handover -----------------------------------------------------------------

ZEROACC_MODE_ONE_ROW, ZEROACC_MODE_16_ROWS, ZEROACC_MODE_HALF_OF_DST, ZEROACC_MODE_ALL_OF_DST = 0, 1, 2, 3


def zeroacc(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``ZEROACC`` (ZEROACC.md): mark 1, 16, 512 or 1024 ``Dst16b`` rows (or the ``Dst32b``
    equivalent) undefined.

    ``Revert`` (Blackhole's ``clear_zero_flags``, bit 17) un-assigns Undefined instead, as the page
    describes; the page calls that undefined behaviour, but on Blackhole it is defined for 16
    ``Dst32b`` rows: assembly.yaml ("the targeted zero flags are cleared instead of set: dest data
    previously marked as zero is treated as initialized"), tt-llk's unpack-to-Dst datacopy issues
    it after each face (a hardware-bug workaround), and ttsim v1.10.0 accepts exactly that mode
    (tensix.cpp:843-845, 875-889: the rows become valid, their data unchanged).  Other modes with
    ``Revert`` stay ``UndefinedBehavior``."""
    c = _Ctx(cop, thread, "ZEROACC.md")
    mode, imm = f["Mode"], f["Imm10"]
    if mode == ZEROACC_MODE_ONE_ROW:
        row = c.dst_row(imm) & 0x3FF
        dst = c.port.dst
        if c.math.fp32_dst or c.math.int8_math:
            hi = int(dst.row32[row])
            c.port.undefine(np.array([hi, hi + 8]))
        else:
            c.port.undefine_row(int(dst.row16[row]))
        c.addr_mod(f["AddrMod"])
        return
    rows16 = rows32 = np.arange(0)
    if f["Revert"] and not (mode == ZEROACC_MODE_16_ROWS and f["UseDst32b"]):
        raise UndefinedBehavior("ZEROACC.md: Revert with a mode other than ZEROACC_MODE_ONE_ROW")
    elif mode == ZEROACC_MODE_16_ROWS:
        imm &= 0xFF
        if c.math.zeroacc_tile_relative:
            offset = c.math.math_offset + c.rwc.Dst
            if offset & (0x300 if f["UseDst32b"] else 0x200):
                imm += 16 if f["UseDst32b"] else 32
        if f["UseDst32b"]:
            rows32 = imm * 16 + np.arange(16) if imm < 32 else rows32
        else:
            rows16 = imm * 16 + np.arange(16) if imm < 64 else rows16
    elif mode == ZEROACC_MODE_HALF_OF_DST:
        n = c.port.dst.rows // 2          # Dst16b rows in half of Dst (and Dst32b rows in all of it)
        rows16, rows32 = n * (imm & 1) + np.arange(n), n // 2 * (imm & 1) + np.arange(n // 2)
    else:
        rows16, rows32 = np.arange(c.port.dst.rows), np.arange(c.port.dst.rows // 2)
    bits_rows = np.concatenate([c.port.bits_rows16(rows16), c.port.bits_rows32(rows32)])  # a row may repeat
    if f["Revert"]:
        c.port.define(bits_rows)
    else:
        c.port.undefine(bits_rows)
    if mode == ZEROACC_MODE_16_ROWS:
        c.addr_mod(f["AddrMod"])


def zerosrc(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``ZEROSRC`` (ZEROSRC.md): zero (or -inf, SrcA only) whole banks."""
    banks = cop.state.src_banks
    neg_inf = MASK19 if f["NegativeInfSrcA"] else 0
    for reg, clear, mu_bank, unp_bank, value in (
        (cop.state.srca, f["ClearSrcA"], banks.matrix_unit_srca, banks.unpacker[0], neg_inf),
        (cop.state.srcb, f["ClearSrcB"], banks.matrix_unit_srcb, banks.unpacker[1], 0),
    ):
        if not clear:
            continue
        chosen = (0, 1) if f["BothBanks"] else (mu_bank,) if f["SingleBankMatrixUnit"] else (unp_bank,)
        for bank in chosen:
            reg.data[bank] = value


def setdvalid(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SETDVALID`` (SETDVALID.md): the Unpackers' banks go to the Matrix Unit."""
    c = _Ctx(cop, thread, "SETDVALID.md")
    for i, (reg, flip) in enumerate(((cop.state.srca, f["FlipSrcA"]), (cop.state.srcb, f["FlipSrcB"]))):
        if flip:
            reg.allowed_client[c.banks.unpacker[i]] = SrcClient.MatrixUnit
            c.banks.unpacker[i] ^= 1
            cop.unpacker_src_row[i][thread] = c.math.src_set_base[i] << 4


def cleardvalid(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``CLEARDVALID`` (CLEARDVALID.md): the Matrix Unit's banks go back to the Unpackers."""
    state, banks = cop.state, cop.state.src_banks
    if f["Reset"]:
        banks.matrix_unit_srca = banks.matrix_unit_srcb = 0
        banks.unpacker[:] = [0, 0]
        state.srca.allowed_client[:] = [SrcClient.Unpackers] * 2
        state.srcb.allowed_client[:] = [SrcClient.Unpackers] * 2
        return
    if f["FlipSrcA"]:
        state.srca.allowed_client[banks.matrix_unit_srca] = SrcClient.Unpackers
        if not f["KeepReadingSameSrc"]:
            banks.matrix_unit_srca ^= 1
    if f["FlipSrcB"]:
        state.srcb.allowed_client[banks.matrix_unit_srcb] = SrcClient.Unpackers
        if not f["KeepReadingSameSrc"]:
            banks.matrix_unit_srcb ^= 1


def setrwc(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SETRWC`` (SETRWC.md): counters, then the optional bank flips."""
    set_counters(cop.rwcs[thread], f)
    if f["FlipSrcA"] or f["FlipSrcB"]:
        _Ctx(cop, thread, "SETRWC.md").flip_banks(f)


def trnspsrcb(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``TRNSPSRCB`` (TRNSPSRCB.md): transpose ``SrcB[MatrixUnit.SrcBBank]`` rows 16..31."""
    block = cop.state.srcb.data[cop.state.src_banks.matrix_unit_srcb, 16:32]
    block[:] = block.T.copy()


# -- arithmetic ---------------------------------------------------------------------------------

def _read_dst_float(c: _Ctx, rows: np.ndarray, use32: bool, style: str) -> np.ndarray:
    if use32:
        return fx.read_dst_fp32(c.port.read32(rows), c.page)
    bits = c.port.read16(rows)
    return fx.read_dst_fp16(bits) if style == "FP16" else fx.read_dst_bf16(bits, c.page)


def _write_dst_float(c: _Ctx, rows: np.ndarray, x: np.ndarray, use32: bool, style: str) -> None:
    if use32:
        c.port.write32(rows, fx.write_dst_fp32(x, c.page))
    elif style == "FP16":
        c.port.write16(rows, fx.write_dst_fp16(x, c.page))
    else:
        c.port.write16(rows, fx.write_dst_bf16(x, c.page))


def _elw(cop: Coprocessor, thread: int, f: dict[str, int], page: str, kind: str, add_dst: bool) -> None:
    """The functional model shared by ELWADD.md, ELWSUB.md and ELWMUL.md (``kind`` ``add`` /
    ``sub`` / ``mul``); floating-point results as the measured datapath rounds them
    (``fpu_datapath``, or its C twin ``tdbg/native/fpu.c``), except ``ELWADD`` / ``ELWSUB`` in a
    fidelity phase other than 0, which follow the page's ``float`` code and its divisions (ttsim
    refuses them: tensix.cpp:1652)."""
    c = _Ctx(cop, thread, page)
    style, use32 = c.math_style()
    a_row = c.rwc.SrcA & 0x38
    b_row = c.rwc.SrcB & (0x3F if f["BroadcastSrcBRow"] else 0x38)
    dst_row = c.dst_row(f["DstRow"]) & 0x3F8
    phase = c.fidelity_phase()
    srca, srcb = cop.state.srca.data, cop.state.srcb.data
    a_bank, b_bank = c.banks.matrix_unit_srca, c.banks.matrix_unit_srcb
    datapath = style != "INT8" and (kind == "mul" or not phase)
    lib = _native(c) if datapath else None
    if lib is not None:
        bits, written, rows_map = _dst_pointers(c, use32)
        lib.tdbg_elw(address(srca) + (a_bank * 64 + a_row) * 64, address(srcb) + (b_bank * 64 + b_row) * 64,
                     0 if f["BroadcastSrcBRow"] else 1, f["BroadcastSrcBCol0"], bits, written, rows_map, dst_row,
                     _KIND[kind], _STYLE[style], not c.math.zero_flag_disabled_src, phase, use32, add_dst)
        c.port.notify(_bits_rows(c, dst_row, 8, 1, use32))
        c.flip_banks(f)
        c.addr_mod(f["AddrMod"])
        return
    rows = dst_row + np.arange(8)
    a = srca[a_bank, a_row:a_row + 8]
    b_rows = np.full(8, b_row) if f["BroadcastSrcBRow"] else b_row + np.arange(8)
    b = srcb[b_bank][b_rows]
    if f["BroadcastSrcBCol0"]:
        b = np.repeat(b[:, :1], 16, axis=1)
    with np.errstate(all="ignore"):
        if style == "INT8":
            if kind == "mul":
                ai, bi = _int8_fidelity(a, b, phase)
                result = ai * bi
            else:
                result = fx.read_src_int8(a) + (-1 if kind == "sub" else 1) * fx.read_src_int8(b)
            if add_dst:
                result = fx.saturate_add_int32(result, fx.read_dst_int32(c.port.read32(rows)))
            c.port.write32(rows, fx.write_dst_int32(result))
        elif not datapath:
            x, y = fx.read_src_float(a, style, page), fx.read_src_float(b, style, page)
            result = _fidelity_divide(fx.ftz(x - y if kind == "sub" else x + y), phase)
            if add_dst:
                result = fx.ftz(result + _read_dst_float(c, rows, use32, style))
            _write_dst_float(c, rows, result, use32, style)
        else:
            exp8 = style != "FP16"
            oa, ob = dp.operand(a, style), dp.operand(b, style, flush=not c.math.zero_flag_disabled_src)
            dst = _dst_term(c, rows, use32, exp8, add_dst)
            if kind == "mul":
                out = dp.elwmul(oa, ob, dst, phase, exp8, use32)
            else:
                if kind == "sub":
                    ob = ob._replace(sign=ob.sign ^ 1)
                out = dp.elwadd(oa, ob, dst, exp8, use32)
            _write_dst_bits(c, rows, dp.to_dst(out, use32, exp8), use32)
    c.flip_banks(f)
    c.addr_mod(f["AddrMod"])


_KIND = {"add": 0, "sub": 1, "mul": 2}
_STYLE = {"BF16": 0, "TF32": 1, "FP16": 2}


def flip_banks(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """The "possibly flip source banks" step of ``f`` (MVMUL.md, ELWADD.md: the native push path
    ran the rest of the instruction, ``tdbg.emu.native_matrix``)."""
    _Ctx(cop, thread, "").flip_banks(f)


def _native(c: _Ctx) -> ctypes.CDLL | None:
    """The native datapath (``tdbg.native``) when it can run this instruction: it writes ``Dst``
    in place, so only while no ``Dst`` cell is unpredictable (``Dst.md`` bit-11 mode)."""
    dst = c.state.dst
    if dst.alias16 or dst._any_unpredictable:
        return None
    return native.library()


def _dst_pointers(c: _Ctx, use32: bool) -> tuple[int, int, int]:
    """``DstBits``, the per-row ever-written flags and the current row map, for ``tdbg.native``."""
    dst = c.state.dst
    return address(dst.bits), address(dst.ever_written), address(dst.row32 if use32 else dst.row16)


def _bits_rows(c: _Ctx, dst_row: int, n: int, step: int, use32: bool) -> np.ndarray:
    """The ``DstBits`` rows of ``n`` Dst rows from ``dst_row`` on, ``step`` apart."""
    dst = c.state.dst
    if not use32:
        return dst.row16[dst_row:dst_row + n * step:step]
    hi = dst.row32[dst_row:dst_row + n * step:step]
    return np.concatenate([hi, hi + 8])


def _dst_term(c: _Ctx, rows: np.ndarray, use32: bool, exp8: bool, accumulate: bool = True) -> dp.Term:
    """The ``Dst`` rows as the datapath's accumulator input (zero when not accumulating)."""
    if not accumulate:
        z = np.zeros((len(rows), 16), dtype=np.int64)
        return dp.Term(z, z, z)
    return dp.dst_term(c.port.read32(rows) if use32 else c.port.read16(rows), use32, exp8)


def _write_dst_bits(c: _Ctx, rows: np.ndarray, bits: np.ndarray, use32: bool) -> None:
    if use32:
        c.port.write32(rows, bits)
    else:
        c.port.write16(rows, bits)


def _fidelity_divide(x: np.ndarray, phase: int) -> np.ndarray:
    if phase & 1:
        x = fx.ftz(x / fx.F32(32))
    if phase & 2:
        x = fx.ftz(x / fx.F32(128))
    return x


def elwadd(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``ELWADD`` (ELWADD.md): ``Dst (+)= SrcA + SrcB``."""
    _elw(cop, thread, f, "ELWADD.md", "add", bool(f["AddDst"]))


def elwsub(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``ELWSUB`` (ELWSUB.md): ``Dst (+)= SrcA - SrcB``."""
    _elw(cop, thread, f, "ELWSUB.md", "sub", bool(f["AddDst"]))


def _int8_fidelity(a: np.ndarray, b: np.ndarray, phase: int) -> tuple[np.ndarray, np.ndarray]:
    """The magnitude bits of integer "8" operands a fidelity phase consumes (ELWMUL.md)."""
    a = fx.read_src_int8(a & (0x41FFF if phase & 1 else 0x4E0FF))
    b = fx.read_src_int8(b & (0x40FFF if phase & 2 else 0x7F0FF))
    return a, b


def elwmul(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``ELWMUL`` (ELWMUL.md): ``Dst += SrcA * SrcB`` for one fidelity phase."""
    _elw(cop, thread, f, "ELWMUL.md", "mul", add_dst=True)


def _matmul(cop: Coprocessor, thread: int, f: dict[str, int], page: str, num_rows: int, broadcast: bool) -> None:
    """The functional model of MVMUL.md (also DOTPV.md and GAPOOL.md), floating point as the
    measured datapath rounds it (``fpu_datapath``)."""
    c = _Ctx(cop, thread, page)
    style, use32 = c.math_style()
    a_row = c.rwc.SrcA & 0x38
    if a_row + 16 > 64:
        raise UndefinedBehavior(f"{page}: SrcA rows {a_row}..{a_row + 15} run past row 63")
    b_row = c.rwc.SrcB & (0x3F if broadcast else 0x38)
    dst_row = c.dst_row(f["DstRow"]) & (0x400 - num_rows)
    phase = c.fidelity_phase()
    srca, srcb = cop.state.srca.data, cop.state.srcb.data
    a_bank, b_bank = c.banks.matrix_unit_srca, c.banks.matrix_unit_srcb
    step = 2 if broadcast else 1
    if style != "INT8":
        if c.math.zero_flag_disabled_src:
            raise UnimplementedFunctionality(f"{page}: ALU_ACC_CTRL_Zero_Flag_disabled_src=1 (SrcB exponent-0 data kept) "
                                             "is not modelled (ttsim v1.10.0 refuses it too: tensix.cpp:1449)")
        lib = _native(c)
        if lib is not None:
            n = len(range(0, num_rows, step))
            bits, written, rows_map = _dst_pointers(c, use32)
            lib.tdbg_matmul(address(srca) + (a_bank * 64 + a_row) * 64, address(srcb) + (b_bank * 64 + b_row) * 64,
                            0 if broadcast else 1, n, step, bits, written, rows_map, dst_row, _STYLE[style], phase, use32)
            c.port.notify(_bits_rows(c, dst_row, n, step, use32))
            c.flip_banks(f)
            c.addr_mod(f["AddrMod"])
            return
    a = srca[a_bank, a_row:a_row + 16]
    b_rows = np.full(num_rows, b_row) if broadcast else b_row + np.arange(num_rows)
    b = srcb[b_bank][b_rows]
    out_i = np.arange(0, num_rows, step)
    rows = dst_row + out_i
    if style == "INT8":
        ai, bi = _int8_fidelity(a, b, phase)
        product = (bi @ ai)[out_i]
        c.port.write32(rows, fx.write_dst_int32(
            fx.saturate_add_int32(product, fx.read_dst_int32(c.port.read32(rows)))))
    else:
        exp8 = style != "FP16"
        out = dp.mvmul(dp.operand(a, style), dp.operand(b[out_i], style), _dst_term(c, rows, use32, exp8),
                       phase, exp8, use32)
        _write_dst_bits(c, rows, dp.to_dst(out, use32, exp8), use32)
    c.flip_banks(f)
    c.addr_mod(f["AddrMod"])


def mvmul(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``MVMUL`` (MVMUL.md): ``Dst += SrcB @ SrcA`` for one fidelity phase."""
    broadcast = bool(f["BroadcastSrcBRow"])
    _matmul(cop, thread, f, "MVMUL.md", 7 if broadcast else 8, broadcast)


def dotpv(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``DOTPV`` (DOTPV.md): MVMUL without the row broadcast."""
    for name in ("instr_mod19", "dest_accum_en"):
        if f.get(name):
            raise MissingSpecification(f"DOTPV.md: Blackhole's {name}={f[name]} (no page describes it)")
    _matmul(cop, thread, f, "DOTPV.md", 8, False)


def _pool_16x16(f: dict[str, int], page: str) -> None:
    """Blackhole's ``instr_mod19`` must select the 16x16 pooling the page describes."""
    if f.get("instr_mod19", 1) != 1:
        raise MissingSpecification(f"{page}: Blackhole's instr_mod19={f['instr_mod19']} (1x16 pooling; no page describes it)")


def gapool(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``GAPOOL`` (GAPOOL.md): MVMUL on a 4-row ``SrcB`` / ``Dst`` block."""
    _pool_16x16(f, "GAPOOL.md")
    _matmul(cop, thread, f, "GAPOOL.md", 4, False)


# -- GMPOOL -------------------------------------------------------------------------------------

_NONLINEAR_I_TRANSFORM = (0, 3, 6, 1, 4, 7, 2, 5)


def _gm_read_dst(v: int, style: str) -> tuple[int, int, int]:
    """``ReadDst`` of GMPOOL.md: (Sign, Exponent (9 bits), MagOrMan (10 bits))."""
    sign = v >> 31
    if style == "INT32":
        return sign, ((v >> 10) & 0x3F) + (((v >> 24) & 7) << 6), v & 0x3FF
    if style == "FP16":
        return sign, ((v >> 16) & 0x1F) + 15, (v >> 21) & 0x3FF
    man = ((v >> 24) & 0x7F) << 3
    if style == "TF32":
        man += (v >> 13) & 7
    return sign, ((v >> 16) & 0xFF) + 127, man


def _gm_write_dst(d: tuple[int, int, int], style: str) -> int:
    """``WriteDst`` of GMPOOL.md (exponents wrap at 9 bits)."""
    sign, exp, man = d
    if style == "INT32":
        return (sign << 31) | ((exp & 7) << 10) | man
    if style == "FP16":
        if exp & 0x3F == 0:
            return 0
        return (sign << 31) | (man << 21) | (((exp - 15) & 0x1F) << 16)
    if exp == 0:
        return 0
    x = (sign << 31) | ((man & 0x3F8) << 21) | (((exp - 127) & 0xFF) << 16)
    if style == "TF32":
        x += (man & 7) << 13
    return x


def _gm_read_scale_src(a: int, style: str, b: int) -> tuple[int, int, int]:
    """``ReadAndScaleSrc`` of GMPOOL.md."""
    a_exp, b_exp = a & 0xFF, b & 0xFF
    if b_exp == 0:
        return 1, 0x1FF, 0x3FF
    if a_exp == 0:
        return 0, 0, 0
    man = (a >> 8) & 0x3FF
    if style == "INT8":
        return a >> 18, 0, man
    if style == "FP16":
        return a >> 18, ((a_exp & 0x1F) + (b_exp & 0x1F)) & 0x1FF, man
    return a >> 18, (a_exp + b_exp) & 0x1FF, man & 0x3F8 if style == "BF16" else man


def _comparable(d: tuple[int, int, int]) -> int:
    return (-1 if d[0] else 1) * ((d[1] << 10) + d[2])


_GM_STYLE = {"BF16": 0, "TF32": 1, "FP16": 2, "INT8": 3, "INT32": 3}


def _gm_columns(a: np.ndarray, b: np.ndarray, block0: np.ndarray, a_style: str, d_style: str, argmax: int) -> np.ndarray:
    """GMPOOL.md's loop over the columns: the new ``Dst`` row 0 from ``SrcA`` rows ``a``, the
    ``SrcB`` row ``b`` and ``Dst`` row 0 as read (``block0``, 32-bit layout); ``tdbg_gmpool`` of
    ``tdbg/native/fpu.c`` is the same loop in C."""
    top = np.zeros(16, dtype=np.int64)
    for j in range(16):
        v = int(block0[j])
        best = _gm_read_dst(v, d_style)
        index = v & 0xFF
        phase = (v + 0x100) & 0xF00
        for i_ in range(16):
            i = i_ ^ 4 if i_ < 8 else i_
            x = _gm_read_scale_src(int(a[i, j]), a_style, int(b[i]))
            if _comparable(x) >= _comparable(best):
                best = x
                if i < 8:
                    index = ((phase >> 4) + _NONLINEAR_I_TRANSFORM[i]) & 0xFF
        if argmax:
            top[j] = phase | index if d_style == "INT32" else _gm_write_dst(best, d_style) | phase | index
        else:
            top[j] = _gm_write_dst(best, d_style)
    return top


def gmpool(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``GMPOOL`` (GMPOOL.md): column-wise max of 16 scaled ``SrcA`` rows into one ``Dst`` row,
    zeroing the next three, with the optional ``ArgMax`` index."""
    _pool_16x16(f, "GMPOOL.md")
    c = _Ctx(cop, thread, "GMPOOL.md")
    argmax = f["ArgMax"]
    if c.math.fp16a_force:
        a_style, d_style, use32 = "FP16", "FP16", False
    elif c.math.int8_math:
        a_style, d_style, use32 = "INT8", "INT32", True
    else:
        a_style = c.style(c.srca_fmt())
        use32 = c.math.fp32_dst
        if a_style == "TF32":
            d_style = "INT32" if argmax else "TF32" if use32 else "BF16"
        elif argmax and use32:
            d_style = a_style
        else:
            d_style = "TF32" if use32 else a_style
    a_row, b_row = c.rwc.SrcA & 0x30, c.rwc.SrcB & 0x38
    rows = (c.dst_row(f["DstRow"]) & 0x3FC) + np.arange(4)
    a = cop.state.srca.data[c.banks.matrix_unit_srca, a_row:a_row + 16]
    b = cop.state.srcb.data[c.banks.matrix_unit_srcb, b_row]
    if use32:
        block = c.port.read32(rows, undefined=0xFFFFFFFF).astype(np.int64)
    else:
        block = c.port.read16(rows[:1], undefined=0xFFFF).astype(np.int64) << 16
    lib = native.library()
    if lib is not None:
        top = np.empty(16, dtype=np.int64)
        block0 = np.ascontiguousarray(block[0])
        lib.tdbg_gmpool(a.ctypes.data, b.ctypes.data, block0.ctypes.data, top.ctypes.data,
                        _GM_STYLE[a_style], _GM_STYLE[d_style], argmax)
    else:
        top = _gm_columns(a.astype(np.int64), b.astype(np.int64), block[0], a_style, d_style, argmax)
    if use32:
        rest = ((block[1:] + 0x100) & 0xF00) if argmax else np.zeros((3, 16), dtype=np.int64)
        c.port.write32(rows, np.vstack([top, rest]).astype(np.uint32))
    else:
        c.port.write16(rows, np.vstack([top >> 16, np.zeros((3, 16), dtype=np.int64)]).astype(np.uint16))
    c.flip_banks(f)
    c.addr_mod(f["AddrMod"])
