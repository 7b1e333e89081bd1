"""Vector Unit (SFPU) state and its ``Dst`` data movement: ``SFPLOAD`` and ``SFPSTORE``.

Implements WormholeB0 ``TensixCoprocessor/LReg.md``, the lane predication of ``VectorUnit.md``,
the ``LaneConfig`` bits of ``SFPCONFIG.md``, ``SFPLOAD.md`` and ``SFPSTORE.md``.  The Vector
Unit is shared by the three threads (``TensixCoprocessor/README.md``: ``LReg`` exists once).

``LReg[0..7]``, ``LReg[11..14]`` and ``LReg[16]`` have no documented power-on value: tdbg keeps
a defined flag per 16-bit half of every lane, set by writes; ``SFPSTORE`` reading a half that
was never written raises ``UnpredictableValueUsed``.  ``LReg[8]`` (0.8373 as FP32),
``LReg[9]`` (0), ``LReg[10]`` (1.0) and ``LReg[15]`` (``2 * lane``) are the read-only
constants.  ``LaneConfig``, ``LaneFlags`` and ``UseLaneFlagsForLaneEnable`` start at zero /
false (``SFPCONFIG.md`` gives false as ``DISABLE_BACKDOOR_LOAD``'s default); only instructions
tdbg does not model change them.  With ``DISABLE_BACKDOOR_LOAD`` false, an instruction with
``VD >= 12`` writes ``LoadMacroConfig``, which is not modelled (``UnimplementedFunctionality``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import (
    UndefinedBehavior,
    UnimplementedFunctionality,
    UnpredictableValueUsed,
)
from tdbg.tensix.rwc import apply_addr_mod

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

LANES = 32
MOD0_FMT_SRCB, MOD0_FMT_FP16, MOD0_FMT_BF16, MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT8, MOD0_FMT_UINT16, \
    MOD0_FMT_HI16, MOD0_FMT_INT16, MOD0_FMT_LO16, MOD0_FMT_INT32_ALL, MOD0_FMT_ZERO, MOD0_FMT_INT32_SM, \
    MOD0_FMT_INT8_COMP, MOD0_FMT_LO16_ONLY, MOD0_FMT_HI16_ONLY = range(16)
_DST32_MODES = {MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL, MOD0_FMT_INT32_SM}
# SFPSTORE: halves of LReg a mode reads (bit 0: low 16 bits, bit 1: high 16 bits).
_STORE_HALVES = {MOD0_FMT_ZERO: 0, MOD0_FMT_LO16_ONLY: 1, MOD0_FMT_UINT16: 1, MOD0_FMT_HI16_ONLY: 2}
# LaneConfig bits (SFPCONFIG.md).
ENABLE_FP16A_INF, DISABLE_BACKDOOR_LOAD, ENABLE_DEST_INDEX, CAPTURE_DEFAULT_DEST_INDEX = 1, 2, 4, 8
BLOCK_DEST_WR_FROM_SFPU, BLOCK_SFPU_RD_FROM_DEST, DEST_RD_COL_EXCHANGE, DEST_WR_COL_EXCHANGE = 16, 32, 64, 128
ROW_MASK_SHIFT = 12
# SrcBFmt codes that resolve MOD0_FMT_SRCB to MOD0_FMT_BF16: FP32 TF32 BF16 BFP8 BFP4 BFP2 INT32
# INT16 (data format codes of Packers/FormatConversion.md).
_SRCB_8BIT_EXP = {0, 4, 5, 6, 7, 15, 8, 9}


class VectorUnit:
    """``LReg[17][32]`` and the per-lane configuration and predication state."""

    def __init__(self) -> None:
        self.lreg = np.zeros((17, LANES), dtype=np.uint32)
        self.defined = np.zeros((17, LANES, 2), dtype=bool)   # [reg][lane][low half, high half]
        self.lane_config = np.zeros(LANES, dtype=np.uint32)
        self.lane_flags = np.zeros(LANES, dtype=bool)
        self.use_lane_flags = np.zeros(LANES, dtype=bool)
        self.reset()

    def reset(self) -> None:
        self.lreg[:] = 0
        self.defined[:] = False
        self.lreg[8] = np.float32(0.8373).view(np.uint32)
        self.lreg[10] = np.float32(1.0).view(np.uint32)
        self.lreg[15] = np.arange(LANES) * 2
        self.defined[[8, 9, 10, 15]] = True
        self.lane_config[:] = 0
        self.lane_flags[:] = False
        self.use_lane_flags[:] = False

    def lane_enabled(self, lane: int) -> bool:
        """``IsLaneEnabled`` (VectorUnit.md)."""
        if int(self.lane_config[lane & 7]) >> (ROW_MASK_SHIFT + lane // 8) & 1:
            return False
        return bool(self.lane_flags[lane]) if self.use_lane_flags[lane] else True


# -- conversions (SFPLOAD.md / SFPSTORE.md supporting definitions) -------------------------------

def unshuffle_bf16(x: int) -> int:
    return (x & 0x8000) | ((x & 0xFF) << 7) | ((x & 0x7F00) >> 8)


def unshuffle_fp32(x: int) -> int:
    return (unshuffle_bf16(x >> 16) << 16) | (x & 0xFFFF)


def bf16_shuffle(x: int) -> int:
    return (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)


def fp32_shuffle(x: int) -> int:
    return (bf16_shuffle(x >> 16) << 16) | (x & 0xFFFF)


def fp16_shuffle(x: int) -> int:
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)


def read_fp16(x: int, fp16a_inf: bool) -> int:
    """``ReadFP16`` (SFPLOAD.md): Dst16 FP16 to FP32 bits."""
    sign, man, exp = x >> 15, (x >> 5) & 0x3FF, x & 0x1F
    if fp16a_inf and exp == 0x1F and man == 0x3FF:
        exp, man = 255, 0
    elif exp:
        exp += 112
    return (sign << 31) | (exp << 23) | (man << 13)


def sign_mag_to_twos_comp(x: int) -> int:
    mag = x & 0x7FFFFFFF
    return (-mag & 0xFFFFFFFF) if x & 0x80000000 else mag


def to_sign_mag(x: int) -> int:
    sign = x & 0x80000000
    mag = (-x & 0xFFFFFFFF) if sign else x
    return sign | (mag & 0x7FFFFFFF)


def to_fp16(x: int) -> int:
    """``ToFP16`` (SFPSTORE.md): flush underflow, saturate overflow, truncate the mantissa."""
    sign, exp, man = x >> 31, ((x >> 23) & 0xFF) - 112, x & 0x7FFFFF
    if exp <= 0:
        exp, man = 0, 0
    elif exp > 31:
        exp, man = 31, 0x7FFFFF
    return (sign << 15) | (exp << 10) | (man >> 13)


def to_bf16(x: int) -> int:
    """``ToBF16`` (SFPSTORE.md): flush denormals, truncate the mantissa."""
    if x & 0x7F800000 == 0:
        x &= 0x80000000
    return x >> 16


def sign_mag11_to_fp16(x: int) -> int:
    return ((x >> 31) << 15) | (16 << 10) | (x & 0x3FF)


def _load_datum(mod0: int, dst16: int, dst32: int, old: int, fp16a_inf: bool) -> int:
    """The ``Datum`` of SFPLOAD.md for one lane."""
    if mod0 == MOD0_FMT_FP16:
        return read_fp16(dst16, fp16a_inf)
    if mod0 in (MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL):
        return unshuffle_fp32(dst32)
    return {
        MOD0_FMT_BF16: lambda: unshuffle_bf16(dst16) << 16,
        MOD0_FMT_INT32_SM: lambda: sign_mag_to_twos_comp(unshuffle_fp32(dst32)),
        MOD0_FMT_INT8: lambda: ((dst16 >> 15) << 31) | ((dst16 >> 5) & 0x7F),
        MOD0_FMT_INT8_COMP: lambda: sign_mag_to_twos_comp(((dst16 >> 15) << 31) | ((dst16 >> 5) & 0x3FF)),
        MOD0_FMT_LO16_ONLY: lambda: (old & 0xFFFF0000) | dst16,
        MOD0_FMT_HI16_ONLY: lambda: (dst16 << 16) | (old & 0xFFFF),
        MOD0_FMT_INT16: lambda: ((dst16 >> 15) << 31) | (dst16 & 0x7FFF),
        MOD0_FMT_UINT16: lambda: dst16,
        MOD0_FMT_LO16: lambda: dst16,
        MOD0_FMT_HI16: lambda: dst16 << 16,
        MOD0_FMT_ZERO: lambda: 0,
    }[mod0]()


def _store_datum(mod0: int, d: int) -> int:
    """The value SFPSTORE.md writes (a Dst32b word for ``_DST32_MODES``, LO16, HI16)."""
    if mod0 in (MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL):
        return fp32_shuffle(d)
    return {
        MOD0_FMT_FP16: lambda: fp16_shuffle(to_fp16(d)),
        MOD0_FMT_BF16: lambda: bf16_shuffle(to_bf16(d)),
        MOD0_FMT_INT32_SM: lambda: fp32_shuffle(to_sign_mag(d)),
        MOD0_FMT_INT8: lambda: fp16_shuffle(sign_mag11_to_fp16(d)),
        MOD0_FMT_INT8_COMP: lambda: fp16_shuffle(sign_mag11_to_fp16(to_sign_mag(d))),
        MOD0_FMT_LO16_ONLY: lambda: d & 0xFFFF,
        MOD0_FMT_UINT16: lambda: d & 0xFFFF,
        MOD0_FMT_HI16_ONLY: lambda: d >> 16,
        MOD0_FMT_INT16: lambda: ((d >> 31) << 15) | (d & 0x7FFF),
        MOD0_FMT_LO16: lambda: ((d << 16) | (d >> 16)) & 0xFFFFFFFF,
        MOD0_FMT_HI16: lambda: d,
        MOD0_FMT_ZERO: lambda: 0,
    }[mod0]()


# -- the instructions ------------------------------------------------------------------------------

def _resolve(cop: Coprocessor, thread: int, mod0: int) -> int:
    """Resolve ``MOD0_FMT_SRCB`` (SFPLOAD.md / SFPSTORE.md)."""
    if mod0 != MOD0_FMT_SRCB:
        return mod0
    get = cop.state.config.get
    if get("ALU_ACC_CTRL_SFPU_Fp32_enabled", thread=thread):
        return MOD0_FMT_FP32
    if get("ALU_FORMAT_SPEC_REG_SrcB_override", thread=thread):
        fmt = get("ALU_FORMAT_SPEC_REG_SrcB_val", thread=thread)
    else:
        fmt = get("ALU_FORMAT_SPEC_REG1_SrcB", thread=thread)
    return MOD0_FMT_BF16 if fmt in _SRCB_8BIT_EXP else MOD0_FMT_FP16


def _addr(cop: Coprocessor, thread: int, imm10: int, mod0: int) -> int:
    get = cop.state.config.get
    addr = imm10 + get("DEST_TARGET_REG_CFG_MATH_Offset", thread=thread)
    rel = cop.rwcs[thread].Dst + get("DEST_REGW_BASE_Base", thread=thread)
    return (addr + (rel & 3 if mod0 == MOD0_FMT_INT32_ALL else rel)) & 0x3FF


def _lane_cell(vu: VectorUnit, lane: int, addr: int, exchange_bit: int) -> tuple[int, int]:
    row = (addr & ~3) + lane // 8
    col = (lane & 7) * 2 + (1 if addr & 2 or int(vu.lane_config[lane & 7]) & exchange_bit else 0)
    return row, col


def _check_backdoor(vu: VectorUnit, vd: int, page: str) -> None:
    if vd >= 12 and not np.all(vu.lane_config & DISABLE_BACKDOOR_LOAD):
        raise UnimplementedFunctionality(
            f"{page}: VD={vd} with LaneConfig.DISABLE_BACKDOOR_LOAD false writes LoadMacroConfig "
            "(SFPCONFIG.md), which tdbg does not model")


def _addr_mod(cop: Coprocessor, thread: int, f: dict[str, int], page: str) -> None:
    """``ApplyPartialAddrMod(AddrMod)``.  Blackhole's ``AddrMod`` (``sfpu_addr_mode``, bits
    15:13) is 3 bits; modes 4-7 are not modelled here yet (ttsim applies ``ADDR_MOD_*_SEC4..7``
    for them, without the fidelity phase, as for the low four)."""
    if f["AddrMod"] > 3:
        raise UnimplementedFunctionality(f"{page}: AddrMod {f['AddrMod']} (Blackhole's modes 4-7)")
    apply_addr_mod(cop.rwcs[thread], cop.state.config, thread, f["AddrMod"], update_fidelity=False)


def sfpload(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SFPLOAD`` (SFPLOAD.md): 32 datums from even or odd columns of four ``Dst`` rows to
    ``LReg[VD]``; reading an undefined row is undefined behaviour (ZEROACC.md)."""
    vu, dst, vd = cop.vector, cop.state.dst, f["VD"]
    _check_backdoor(vu, vd, "SFPLOAD.md")
    mod0 = _resolve(cop, thread, f["Mod0"])
    addr = _addr(cop, thread, f["Imm10"], mod0)
    halves = {MOD0_FMT_LO16_ONLY: 0, MOD0_FMT_HI16_ONLY: 1}.get(mod0, slice(None))
    if vd < 8:
        new = {}
        for lane in range(LANES):
            if int(vu.lane_config[lane]) & BLOCK_SFPU_RD_FROM_DEST:
                continue
            if not (vu.lane_enabled(lane) or mod0 == MOD0_FMT_INT32_ALL):
                continue
            row, col = _lane_cell(vu, lane, addr, DEST_RD_COL_EXCHANGE)
            d16 = d32 = 0
            if mod0 in _DST32_MODES:
                bits = cop.dst_port.bits_rows32(np.array([row]))
                if not dst.ever_written[bits].all():
                    raise UndefinedBehavior(f"SFPLOAD.md / ZEROACC.md: Dst32b row {row} is undefined")
                d32 = int(dst.get32(row, col))
            elif mod0 != MOD0_FMT_ZERO:
                if not dst.ever_written[dst.row16[row]]:
                    raise UndefinedBehavior(f"SFPLOAD.md / ZEROACC.md: Dst16b row {row} is undefined")
                d16 = int(dst.get16(row, col))
            new[lane] = (_load_datum(mod0, d16, d32, int(vu.lreg[vd, lane]),
                                     bool(int(vu.lane_config[lane]) & ENABLE_FP16A_INF)), row, col)
        for lane, (datum, row, col) in new.items():
            vu.lreg[vd, lane] = datum
            vu.defined[vd, lane, halves] = True
            lc = int(vu.lane_config[lane])
            if vd < 4 and lc & ENABLE_DEST_INDEX and lc & CAPTURE_DEFAULT_DEST_INDEX:
                vu.lreg[vd + 4, lane] = (row << 4) | col
                vu.defined[vd + 4, lane] = True
    _addr_mod(cop, thread, f, "SFPLOAD.md")


def sfpstore(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SFPSTORE`` (SFPSTORE.md): ``LReg[VD]`` to even or odd columns of four ``Dst`` rows.

    A store always leaves the other eight columns of each row unwritten, so storing to an
    undefined row is undefined behaviour (ZEROACC.md)."""
    vu, dst, vd = cop.vector, cop.state.dst, f["VD"]
    _check_backdoor(vu, vd, "SFPSTORE.md")
    mod0 = _resolve(cop, thread, f["Mod0"])
    addr = _addr(cop, thread, f["Imm10"], mod0)
    wide = mod0 in _DST32_MODES | {MOD0_FMT_LO16, MOD0_FMT_HI16}
    halves = _STORE_HALVES.get(mod0, 3)
    cells = []
    for lane in range(LANES):
        if int(vu.lane_config[lane]) & BLOCK_DEST_WR_FROM_SFPU:
            continue
        if not (vu.lane_enabled(lane) or mod0 == MOD0_FMT_INT32_ALL):
            continue
        if halves and not all(vu.defined[vd, lane, h] for h in (0, 1) if halves >> h & 1):
            raise UnpredictableValueUsed(f"SFPSTORE.md / LReg.md: LReg[{vd}] lane {lane} was never written")
        row, col = _lane_cell(vu, lane, addr, DEST_WR_COL_EXCHANGE)
        cells.append((row, col, _store_datum(mod0, int(vu.lreg[vd, lane]))))
    if not cells:
        _addr_mod(cop, thread, f, "SFPSTORE.md")
        return
    rows = np.unique([r for r, _, _ in cells])
    bits = cop.dst_port.bits_rows32(rows) if wide else cop.dst_port.bits_rows16(rows)
    if not dst.ever_written[bits].all():
        raise UndefinedBehavior(f"SFPSTORE.md / ZEROACC.md: a partial write to undefined Dst row(s) {rows.tolist()}")
    for row, col, value in cells:
        (dst.set32 if wide else dst.set16)(row, col, value)
    cop.dst_port.notify(bits)
    _addr_mod(cop, thread, f, "SFPSTORE.md")
