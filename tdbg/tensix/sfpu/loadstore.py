"""``SFPLOAD``, ``SFPSTORE`` and ``SFPLOADI``: moving data between ``Dst`` (or an immediate) and
``LReg``.

Implements BlackholeA0 ``SFPLOAD.md`` and ``SFPSTORE.md`` (the ``MOD0_FMT_*`` conversions, the
``MOD0_FMT_SRCB`` resolution with ``SFPU_DEST_FMT``, the address: ``Imm10``, the thread's
``DEST_TARGET_REG_CFG_MATH_Offset``, ``RWCs.Dst + DEST_REGW_BASE_Base`` and the stack pointer
``RWCs.Sp + DEST_SP_BASE_Base``, which ``MOD0_FMT_INT32_ALL`` moves by ``SFPU_STACK_Incr``) and
``SFPLOADI.md`` (shared with Wormhole).  ``AddrMod`` is 3 bits on Blackhole and selects
``ADDR_MOD_*_SEC0..7`` (``ApplyPartialAddrMod``: no fidelity phase; ttsim v1.10.0
tensix.cpp:3465 applies the 3-bit ``sfpu_addr_mode`` the same way).  Blackhole's
``MOD0_FMT_INT32_SM`` and ``MOD0_FMT_INT8_COMP`` no longer convert between sign-magnitude and two's
complement, and ``MOD0_FMT_FP32`` stores flush denormals to a zero of their sign.

Lane ``L`` moves ``Dst`` row ``(Addr & ~3) + L / 8``, column ``2 * (L & 7)`` (``+ 1`` when
``Addr & 2`` or the lane's ``DEST_RD_COL_EXCHANGE`` / ``DEST_WR_COL_EXCHANGE``).  Reading a ``Dst``
row that was never written (or that ``ZEROACC`` made undefined) is undefined behaviour (ZEROACC.md);
a store to such a row defines the cells it writes and leaves the row's other cells unpredictable
(BlackholeA0 Dst.md: ``DstBits`` has no power-on value), so reading those later is
``UnpredictableValueUsed``.  Only the pages say
how ``RWCs.Sp`` changes (these two instructions); no page says whether ``SETRWC``, ``INCRWC`` or
an ``ADDR_MOD`` touch it, so nothing else does here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg import native
from tdbg.arch import data_formats
from tdbg.tensix.events import UndefinedBehavior, UnpredictableValueUsed
from tdbg.tensix.rwc import apply_addr_mod
from tdbg.tensix.sfpu.vector_unit import (
    ALL,
    BLOCK_DEST_WR_FROM_SFPU,
    BLOCK_SFPU_RD_FROM_DEST,
    CAPTURE_DEFAULT_DEST_INDEX,
    DEST_RD_COL_EXCHANGE,
    DEST_WR_COL_EXCHANGE,
    ENABLE_DEST_INDEX,
    ENABLE_FP16A_INF,
    FULL,
    LANE,
    VectorUnit,
    instruction,
)

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

U32 = np.uint32
(SRCB, FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM, INT8_COMP,
 LO16_ONLY, HI16_ONLY) = range(16)
LOAD32 = frozenset({FP32, INT32, INT32_ALL, INT32_SM})   # SFPLOAD reads Dst32b in these modes
STORE32 = LOAD32 | {LO16, HI16}                           # SFPSTORE writes Dst32b in these
# SrcBFmt codes that resolve MOD0_FMT_SRCB to BF16: FP32 TF32 BF16 BFP8 BFP4 BFP2 INT32 INT16,
# the formats with an 8-bit exponent (every style but FP16's; tdbg.arch.data_formats).
_SRCB_8BIT_EXP = data_formats.having(lambda f: f.style != "FP16")
ROW = LANE // 8
PAIR = (LANE & 7) * 2
FIELDS = ("Imm10", "AddrMod", "Mod0")


def dst_decode_bf16(x: np.ndarray) -> np.ndarray:
    """``DstDecodeBF16`` (BlackholeA0 Dst.md): Sign,Man(7),Exp(8) to Sign,Exp,Man."""
    return (x & 0x8000) | ((x & 0xFF) << 7) | ((x >> 8) & 0x7F)


def dst_encode_bf16(x: np.ndarray) -> np.ndarray:
    """``DstEncodeBF16`` (BlackholeA0 Dst.md)."""
    return (x & 0x8000) | ((x & 0x7F) << 8) | ((x >> 7) & 0xFF)


def dst_encode_fp16(x: np.ndarray) -> np.ndarray:
    """``DstEncodeFP16`` (BlackholeA0 Dst.md): Sign,Exp(5),Man(10) to Sign,Man,Exp."""
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x >> 10) & 0x1F)


def dst_decode_fp32(x: np.ndarray) -> np.ndarray:
    """``DstDecodeFP32`` (BlackholeA0 Dst.md): ``DstDecodeBF16`` of the high half."""
    return (dst_decode_bf16(x >> 16) << 16) | (x & 0xFFFF)


def dst_encode_fp32(x: np.ndarray) -> np.ndarray:
    """``DstEncodeFP32`` (BlackholeA0 Dst.md)."""
    return (dst_encode_bf16(x >> 16) << 16) | (x & 0xFFFF)


def read_fp16(x: np.ndarray, inf: np.ndarray) -> np.ndarray:
    """``ReadFP16`` (SFPLOAD.md): Dst FP16 to FP32 bits; with ``ENABLE_FP16A_INF`` the largest
    magnitude is infinity; denormals keep their bits."""
    sign, man, exp = x >> 15, (x >> 5) & 0x3FF, x & 0x1F
    big = inf & (exp == 0x1F) & (man == 0x3FF)
    exp = np.where(big, 255, np.where(exp != 0, exp + 112, 0))
    man = np.where(big, 0, man)
    return (sign << 31) | (exp << 23) | (man << 13)


def to_fp16(x: np.ndarray) -> np.ndarray:
    """``ToFP16`` (SFPSTORE.md): flush underflow to a signed zero, saturate overflow, truncate."""
    sign, exp, man = x >> 31, ((x >> 23) & 0xFF).astype(np.int64) - 112, x & 0x7FFFFF
    under, over = exp <= 0, exp > 31
    exp = np.where(under, 0, np.where(over, 31, exp)).astype(U32)
    man = np.where(under, 0, np.where(over, 0x7FFFFF, man)).astype(U32)
    return (sign << 15) | (exp << 10) | (man >> 13)


def flush_denormal(x: np.ndarray) -> np.ndarray:
    """``ToFP32`` (SFPSTORE.md): a denormal becomes a zero of its sign."""
    return np.where(x & 0x7F800000 == 0, x & 0x80000000, x).astype(U32)


def resolve_mod0(cop: Coprocessor, thread: int, mod0: int) -> int:
    """``MOD0_FMT_SRCB`` resolved (SFPLOAD.md / SFPSTORE.md, Blackhole's ``SFPU_DEST_FMT``)."""
    if mod0 != SRCB:
        return mod0

    def resolve() -> int:
        get = cop.state.config.get
        if get("ALU_ACC_CTRL_SFPU_Fp32_enabled", thread=thread):
            return FP32
        if get("SFPU_DEST_FMT_Enable", thread=thread):
            fmt = get("SFPU_DEST_FMT_Base", thread=thread)
        elif get("ALU_FORMAT_SPEC_REG_SrcB_override", thread=thread):
            fmt = get("ALU_FORMAT_SPEC_REG_SrcB_val", thread=thread)
        else:
            fmt = get("ALU_FORMAT_SPEC_REG1_SrcB", thread=thread)
        return BF16 if fmt in _SRCB_8BIT_EXP else FP16

    return cop.state.config.derived(("SFPU MOD0_FMT_SRCB", thread), resolve, shared=True)  # type: ignore[return-value]


def address_bases(cop: Coprocessor, thread: int) -> tuple[int, int, int]:
    """The config ``address`` adds: ``DEST_TARGET_REG_CFG_MATH_Offset``, ``DEST_REGW_BASE_Base``,
    ``DEST_SP_BASE_Base`` of the thread (read once per config change; like ``resolve_mod0``'s,
    shared with the configs whose words hold the same: ``TensixConfig.derived``'s ``shared``)."""
    get = cop.state.config.get

    def bases() -> tuple[int, int, int]:
        return (get("DEST_TARGET_REG_CFG_MATH_Offset", thread=thread), get("DEST_REGW_BASE_Base", thread=thread),
                get("DEST_SP_BASE_Base", thread=thread))

    return cop.state.config.derived(("SFPU address", thread), bases, shared=True)  # type: ignore[return-value]


def address(cop: Coprocessor, thread: int, imm10: int, mod0: int, store: bool) -> int:
    """``Addr`` of SFPLOAD.md / SFPSTORE.md, moving ``RWCs.Sp`` for ``MOD0_FMT_INT32_ALL``."""
    get = cop.state.config.get
    rwc = cop.rwcs[thread]
    offset, dst_base, sp_base = address_bases(cop, thread)
    dst = (rwc.Dst + dst_base) & 0x3FF
    if mod0 == INT32_ALL:
        incr = get("SFPU_STACK_Incr", thread=thread)
        if not store and rwc.Sp:
            rwc.Sp -= incr
        addr = imm10 + offset + ((rwc.Sp + sp_base) & 0x3FF) + (dst & 3)
        if store:
            rwc.Sp += incr
    else:
        addr = imm10 + offset + dst + ((rwc.Sp + sp_base) & 3)
    return addr & 0x3FF


def _addr_mod(cop: Coprocessor, thread: int, addr_mod: int) -> None:
    """``ApplyPartialAddrMod`` (RWCs.md): ``ADDR_MOD_*_SEC<AddrMod>`` without the fidelity phase."""
    apply_addr_mod(cop.rwcs[thread], cop.state.config, thread, addr_mod, update_fidelity=False)


def _cells(config: np.ndarray, addr: int, exchange: int) -> tuple[np.ndarray, np.ndarray]:
    """Each lane's ``Dst`` row offset (0..3) and column (``exchange``: the lane's column-exchange
    ``LaneConfig`` bit)."""
    odd = (addr & 2) != 0
    if np.count_nonzero(config[:8] & exchange):
        return ROW, PAIR + (odd | ((config[LANE & 7] & exchange) != 0))
    return ROW, PAIR + odd


def _check_rows(cop: Coprocessor, rows: np.ndarray, lanes: np.ndarray, wide: bool, what: str) -> np.ndarray:
    """The ``DstBits`` rows behind ``rows`` (4 Dst rows), refusing undefined ones that ``lanes`` touch."""
    port, dst = cop.dst_port, cop.state.dst
    bits = port.bits_rows32(rows) if wide else port.bits_rows16(rows)
    valid = dst.ever_written[bits]
    if np.count_nonzero(valid) < len(valid):
        used = np.unique(ROW[lanes])
        bad = [int(rows[r]) for r in used if not valid[r] or (wide and not valid[r + 4])]
        if bad:
            raise UndefinedBehavior(f"{what} / ZEROACC.md: Dst{'32' if wide else '16'}b row {bad[0]} is undefined")
    return bits


def _dst_lanes(vu: VectorUnit, mod0: int, active: np.ndarray | None, block: int) -> np.ndarray:
    """The lanes an SFPLOAD/SFPSTORE moves between ``Dst`` and an LReg: every lane for
    ``INT32_ALL``, else the enabled ones; within ``active``; not those whose LaneConfig sets the
    ``block`` bit."""
    lanes = ALL if mod0 == INT32_ALL else vu.enabled()
    if active is not None:
        lanes = lanes & active
    config = vu.lane_config
    if np.count_nonzero(config):
        lanes = lanes & ((config & block) == 0)
    return lanes


@instruction("SFPLOAD", "SFPLOAD.md", FIELDS, affected=False)
def sfpload(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLOAD`` (BlackholeA0 SFPLOAD.md)."""
    vu, dst, vd = cop.vector, cop.state.dst, f["VD"]
    mod0 = resolve_mod0(cop, thread, f["Mod0"])
    addr = address(cop, thread, f["Imm10"], mod0, store=False)
    if vd < 8 and _native_ok(cop, active):
        lib, row_map = native.library(), dst.row32 if mod0 in LOAD32 else dst.row16
        if lib is not None and not lib.tdbg_sfpload(
                mod0, addr, vd, native.address(dst.bits), native.address(dst.ever_written), native.address(row_map),
                native.address(dst.unpredictable), dst._any_unpredictable, native.address(vu.lane_flags),
                native.address(vu.use_lane_flags), native.address(vu.lreg), native.address(vu.defined)):
            vu.full[vd] = not np.count_nonzero(vu.defined[vd] != FULL)
            _addr_mod(cop, thread, f["AddrMod"])
            return
    if vd < 8:
        config = vu.lane_config
        lanes = _dst_lanes(vu, mod0, active, BLOCK_SFPU_RD_FROM_DEST)
        rows = dst.four_rows[addr >> 2]
        row, col = _cells(config, addr, DEST_RD_COL_EXCHANGE)
        if mod0 == ZERO:
            datum = np.zeros(32, dtype=U32)
        else:
            wide = mod0 in LOAD32
            bits = _check_rows(cop, rows, lanes, wide, "SFPLOAD.md")
            if dst._any_unpredictable and dst.unpredictable[bits].reshape(-1, 4, 16)[:, row, col][:, lanes].any():
                raise UnpredictableValueUsed(f"Dst.md: SFPLOAD reads Dst cells of rows {rows.tolist()} that hold no "
                                             "defined value (never written, or garbage of a bit-11 Dst16b write)")
            x = (dst.read32(rows) if wide else dst.read16(rows).astype(U32))[row, col]
            datum = _load_datum(mod0, x, config)
        if mod0 == LO16_ONLY:
            vu.write_half(vd, datum, lanes, high=False)
        elif mod0 == HI16_ONLY:
            vu.write_half(vd, datum << 16, lanes, high=True)
        else:
            vu.write(vd, datum, lanes)
        if vd < 4 and np.count_nonzero(config):
            capture = lanes & ((config & (ENABLE_DEST_INDEX | CAPTURE_DEFAULT_DEST_INDEX))
                               == ENABLE_DEST_INDEX | CAPTURE_DEFAULT_DEST_INDEX)
            if np.count_nonzero(capture):
                vu.write(vd + 4, (rows[row] << 4) | col, capture)
    _addr_mod(cop, thread, f["AddrMod"])


def _native_ok(cop: Coprocessor, active: np.ndarray | None) -> bool:
    """Whether ``tdbg_sfpload`` / ``tdbg_sfpstore`` (tdbg/native/sfpu.c, the same steps in C) may
    move the lanes: every lane active, no LaneConfig bit set."""
    return active is None and not np.count_nonzero(cop.vector.lane_config)


def _load_datum(mod0: int, x: np.ndarray, config: np.ndarray) -> np.ndarray:
    """The ``Datum`` of SFPLOAD.md for every lane, from its Dst16b or Dst32b value ``x``."""
    if mod0 == FP16:
        return read_fp16(x, (config & ENABLE_FP16A_INF) != 0)
    if mod0 == BF16:
        return dst_decode_bf16(x) << 16
    if mod0 in (FP32, INT32, INT32_ALL, INT32_SM):
        return dst_decode_fp32(x)
    if mod0 == INT8:      # SignMag9ToSignMag32
        return ((x >> 15) << 31) | ((x >> 5) & 0xFF)
    if mod0 == INT8_COMP:  # SignMag11ToSignMag32
        return ((x >> 15) << 31) | ((x >> 5) & 0x3FF)
    if mod0 == INT16:      # SignMag16ToSignMag32
        return ((x >> 15) << 31) | (x & 0x7FFF)
    if mod0 == HI16:
        return x << 16
    return x                # UINT16, LO16, LO16_ONLY, HI16_ONLY (placed by the caller)


# SFPSTORE: halves of LReg a mode reads (1: low 16 bits, 2: high 16 bits).
_STORE_HALVES = {ZERO: 0, LO16_ONLY: 1, UINT16: 1, HI16_ONLY: 2}


def _store_datum(mod0: int, d: np.ndarray) -> np.ndarray:
    """What SFPSTORE.md writes for ``LReg`` value ``d`` (Dst32b words for ``STORE32``)."""
    if mod0 in (INT32, INT32_ALL, INT32_SM):
        return dst_encode_fp32(d)
    if mod0 == FP32:
        return dst_encode_fp32(flush_denormal(d))
    if mod0 == FP16:
        return dst_encode_fp16(to_fp16(d))
    if mod0 == BF16:  # ToBF16: flush denormals to a signed zero, truncate
        return dst_encode_bf16(flush_denormal(d) >> 16)
    if mod0 in (INT8, INT8_COMP):  # SignMag11ToFP16: fixed exponent 16
        return dst_encode_fp16(((d >> 31) << 15) | (16 << 10) | (d & 0x3FF))
    if mod0 == INT16:
        return ((d >> 31) << 15) | (d & 0x7FFF)
    if mod0 == LO16:
        return (d << 16) | (d >> 16)
    if mod0 == HI16:
        return d
    if mod0 == HI16_ONLY:
        return d >> 16
    if mod0 == ZERO:
        return np.zeros_like(d)
    return d & 0xFFFF  # LO16_ONLY, UINT16


@instruction("SFPSTORE", "SFPSTORE.md", FIELDS, affected=False)
def sfpstore(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPSTORE`` (BlackholeA0 SFPSTORE.md)."""
    vu, dst, vd = cop.vector, cop.state.dst, f["VD"]
    mod0 = resolve_mod0(cop, thread, f["Mod0"])
    addr = address(cop, thread, f["Imm10"], mod0, store=True)
    wide = mod0 in STORE32
    if _native_ok(cop, active) and not dst.alias16:
        lib = native.library()
        stored = -1 if lib is None else lib.tdbg_sfpstore(
            mod0, addr, vd, native.address(dst.bits), native.address(dst.ever_written),
            native.address(dst.row32 if wide else dst.row16), native.address(dst.unpredictable), dst._any_unpredictable,
            native.address(vu.lane_flags), native.address(vu.use_lane_flags), native.address(vu.lreg), native.address(vu.defined))
        if stored >= 0:
            if stored:
                rows = dst.four_rows[addr >> 2]   # the four Dst rows of Addr & ~3
                cop.dst_port.notify(cop.dst_port.bits_rows32(rows) if wide else cop.dst_port.bits_rows16(rows))
            _addr_mod(cop, thread, f["AddrMod"])
            return
    config = vu.lane_config
    lanes = _dst_lanes(vu, mod0, active, BLOCK_DEST_WR_FROM_SFPU)
    if np.count_nonzero(lanes):
        halves = _STORE_HALVES.get(mod0, 3)
        if halves and not vu.full[vd] and (lanes & ((vu.defined[vd] & halves) != halves)).any():
            lane = int(np.argmax(lanes & ((vu.defined[vd] & halves) != halves)))
            raise UnpredictableValueUsed(f"SFPSTORE.md / LReg.md: LReg[{vd}] lane {lane} was never written")
        rows = dst.four_rows[addr >> 2]
        row, col = _cells(config, addr, DEST_WR_COL_EXCHANGE)
        values = _store_datum(mod0, vu.lreg[vd])
        bits = cop.dst_port.bits_rows32(rows) if wide else cop.dst_port.bits_rows16(rows)
        fresh = ~dst.ever_written[bits]
        if wide:
            block = dst.read32(rows)
            block[row[lanes], col[lanes]] = values[lanes]
            dst.write32(rows, block)
        elif dst.alias16:  # a Dst16b write there leaves garbage in the written cells only
            for lane in np.flatnonzero(lanes):
                dst.set16(int(rows[row[lane]]), int(col[lane]), int(values[lane]))
        else:
            block = dst.read16(rows)
            block[row[lanes], col[lanes]] = values[lanes]
            dst.write16(rows, block)
        if np.count_nonzero(fresh):  # the cells of an undefined row this store does not write stay unknown
            written = np.zeros((4, 16), dtype=bool)
            written[row[lanes], col[lanes]] = True
            garbage = fresh[:, None] & ~(np.concatenate([written, written]) if wide else written)
            if garbage.any():
                dst.unpredictable[bits] |= garbage
                dst._any_unpredictable = True
        cop.dst_port.notify(bits)
    _addr_mod(cop, thread, f["AddrMod"])


# SFPLOADI.md Mod0 values.
FLOATB, FLOATA, USHORT, SHORT, UPPER, LOWER = 0, 1, 2, 4, 8, 10


@instruction("SFPLOADI", "SFPLOADI.md", ("Mod0", "Imm16"), affected=False)
def sfploadi(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLOADI`` (SFPLOADI.md): an immediate into every enabled lane of ``LReg[VD]``, VD < 8."""
    vu, vd, mod0, imm = cop.vector, f["VD"], f["Mod0"], f["Imm16"]
    if mod0 not in (FLOATB, FLOATA, USHORT, SHORT, UPPER, LOWER):
        raise UndefinedBehavior(f"SFPLOADI.md: Mod0 {mod0} is not a SFPLOADI_MOD0_* value")
    if vd >= 8:
        return
    lanes = vu.lanes(active)
    if mod0 == UPPER:
        vu.write_half(vd, imm << 16, lanes, high=True)
    elif mod0 == LOWER:
        vu.write_half(vd, imm, lanes, high=False)
    else:
        if mod0 == FLOATB:
            value = imm << 16
        elif mod0 == FLOATA:  # FP16toFP32: rebias the exponent, nothing else
            value = ((imm >> 15) << 31) | ((((imm >> 10) & 0x1F) + 112) << 23) | ((imm & 0x3FF) << 13)
        elif mod0 == SHORT:
            value = imm - 0x10000 if imm & 0x8000 else imm
        else:
            value = imm
        vu.write(vd, value & 0xFFFFFFFF, lanes)
