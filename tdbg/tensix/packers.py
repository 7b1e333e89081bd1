"""The packer: ``PACR`` (``Dst`` to L1), its address generators and the stages around the format
conversion (which is ``tdbg.tensix.pack_conversion``, seed 002).

Implements WormholeB0 ``TensixCoprocessor/PACR.md``, ``Packers/README.md``,
``Packers/InputAddressGenerator.md``, ``Packers/OutputAddressGenerator.md`` (streams,
``NeedsNewAddress``, 16-byte output with zero padding on ``Last`` / ``Flush``, the FIFO wrap),
``Packers/EdgeMasking.md`` (with its tile position generator), ``Packers/ReLU.md``,
``Packers/Downsampling.md``, ``Packers/ExponentThresholding.md``,
``Packers/ExponentHistogram.md`` and ``CLREXPHIST.md``.  Undefined ``Dst`` rows read as zero
(ZEROACC.md).  A ``PACR`` moves all its datums with numpy: gather from ``Dst``, mask, convert,
write.  Its configuration is decoded once per configuration change (``read_config``,
``TensixConfig.derived``); when nothing is staged between the conversions, one call of the
native ``tdbg_pack`` gathers and converts (``pack_conversion.pack_words``; the numpy path stays
the reference, tests/test_native.py).

Blackhole has one packer with four ``Dst`` read interfaces (tt-llk: ``NUM_PACKERS = 1``; the
PACR field the Wormhole page calls ``PackerMask`` is ``ReadIntfSel``).  Where the pages are
silent (evidence: ttsim v1.10.0 ``tensix.cpp`` PACR at 1978, tt-llk's assembly.yaml
descriptions; checked side by side with ttsim: tt-llk's datacopy and the kit's eltwise firmware
packing FP32, BF16, BFP8, BFP4 and BFP2 tiles match it byte for byte):

* Packer 0's configuration is ``THCON_SEC0_REG1_*``, ``PCK0_ADDR_*``,
  ``DEST_TARGET_REG_CFG_PACK_SEC0_*``; ``PCK_EDGE_TILE_ROW_SET_SELECT_select`` bits 1:0.
* ``ReadIntfSel`` selects interfaces (0 means all four); each active interface ``k`` moves
  ``Channel[1].X - Channel[0].X + 1`` (at most 16) datums from ``Dst`` row ``start + k``: ttsim
  reads ``count * popcount`` datums (tensix.cpp:2189), rows ``+0..+3`` for masks 0/1/3/15,
  ``+0, +2`` for ``0b0101`` and ``+1, +3`` for ``0b1010`` (tensix.cpp:2277-2279).
* ``DstAccessMode`` 1 (strided: tt-llk's untilize sets it with ``DEST_ACCESS_CFG_remap_addrs`` and
  ``swizzle_32b``) moves interface ``k`` to ``Dst`` row ``start + 16 * k`` ("remap and swizzle
  cause stride to be 16 rows and not 8", ttsim tensix.cpp:2271-2275, which accepts it only with
  both fields set, as tdbg does); tt-llk's pack_untilize kernels match ttsim byte for byte.
* The output address adds ``YZW_Addr >> 4`` (bytes to 16-byte units) where the Wormhole page
  adds ``YZW_Addr & ~0xf`` (tensix.cpp:2223).
* The tile position generator restarts after a ``Last`` or ``Flush`` PACR (``packer_valid``,
  tensix.cpp:2199, 2582).
* ``Pack_L1_Acc`` (the page names it, with no arithmetic; tensix.cpp:1914-1976): FP32 adds in float32 with denormal
  inputs and results flushed to signed zero and any NaN made ``0x7FC00000``; BF16 adds exactly
  and rounds to nearest even, +inf + -inf is ``0x7FC0``, denormal inputs flush to signed zero, a
  NaN input counts as a huge finite value (at least 2**128, as FloatBitPatterns.md reads BF16),
  results below the normal range become signed zero and above it signed infinity; FP16 reads
  every exponent as normal (no inf/NaN), adds in float32, rounds to nearest even, saturates to
  ``0x7FFF`` and flushes underflow to signed ``0x7FFF``-or-zero as ttsim does.  Other L1 formats
  raise ``UnimplementedFunctionality``.

Not modelled (``UnimplementedFunctionality``): compression (``Disable_zero_compress`` clear),
L1 as packer input (``Source_interface_selection``), ``Add_l1_dest_addr_offset``, the strided
``DstAccessMode`` without remap and swizzle, ``RowPadZero``, ``CtxtCtrl``; ``CfgContext`` and
``Downsample_rate`` are Blackhole-only with no description (``MissingSpecification``).
``PACR_SETREG`` is modelled as ``pacr_setreg`` says.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from tdbg import native
from tdbg.arch import data_formats
from tdbg.tensix import mmio
from tdbg.tensix import pack_conversion as conversion
from tdbg.tensix.adcs import PACKERS, X
from tdbg.tensix.events import MissingSpecification, TensixEvent, UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.pack_conversion import Floats, Ints, PackerConfig

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

PAGE = "PACR.md"
_FIVE_BIT = data_formats.having(lambda f: f.five_bit_exponent)  # FP16, BFP8a, BFP4a, FP8, BFP2a (ReLU.md)


def _slot(i: int, kind: type = int) -> property:
    """Item ``i`` of the object's ``regs`` (an ``array('q')``, which the native push path writes
    in place) as an attribute of type ``kind``."""
    return property(lambda self: kind(self.regs[i]), lambda self, v: self.regs.__setitem__(i, int(v)))


@dataclass
class ExponentHistogram:
    """``ExponentHistogram[32]`` and ``ExponentHistogramMaxExponent`` (ExponentHistogram.md)."""

    bins: np.ndarray = field(default_factory=lambda: np.zeros(32, dtype=np.uint8))
    regs: array = field(default_factory=lambda: array("q", [0]))   # max_exponent
    max_exponent = _slot(0)

    def reset(self) -> None:
        self.bins[:] = 0
        self.max_exponent = 0


#: ``PackerState.regs``: the streams' addresses and flags, the tile position generator.
PACKER_REGS = ("data_address", "exp_address", "data_needs_new", "exp_needs_new", "tpg_x", "tpg_y", "tpg_z")


@dataclass
class PackerState:
    """The packer's own state: the output streams (OutputAddressGenerator.md), the tile
    position generator (EdgeMasking.md), the exponent histogram, and ``PACR_SETREG``'s
    ``Packers.SetRegBase[2]`` / ``SetRegHiScaler[4]`` with the raw TDMA-RISC words they were set
    from (TDMA-RISC.md; ``tdbg.emu.devices.tdma_risc``), and the raw word of the unpackers'
    ``UnpackRegAddrRaw`` that register file also holds.  No page gives their power-on values:
    zero, as tdbg's config (the streams need new addresses).  The streams and the tile position
    generator are kept in ``regs`` (``PACKER_REGS``)."""

    regs: array = field(default_factory=lambda: array("q", [0, 0, 1, 1, 0, 0, 0]))
    histogram: ExponentHistogram = field(default_factory=ExponentHistogram)
    set_reg_base: list[int] = field(default_factory=lambda: [0, 0])
    set_reg_hi_scaler: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    scaler2_raw: int = 0
    unpack_reg_addr_raw: int = 0
    data_address = _slot(0)
    exp_address = _slot(1)
    data_needs_new = _slot(2, bool)
    exp_needs_new = _slot(3, bool)

    @property
    def tpg(self) -> list[int]:
        """The tile position generator's X, Y, Z."""
        return self.regs[4:7].tolist()

    @tpg.setter
    def tpg(self, value: list[int]) -> None:
        self.regs[4:7] = array("q", value)


class PackConfig(NamedTuple):
    """What a ``PACR`` of one thread reads from config (cached until the next config write)."""

    conversion: PackerConfig
    in_fmt: int
    out_fmt: int
    read_32b: bool
    base0: int
    x_stride: int
    y_stride: int
    z_stride: int
    w_stride: int
    dst_offset: int
    base1: int
    y_stride1: int
    z_stride1: int
    w_stride1: int
    l1_dest_addr: int
    sub_header: bool
    exp_section_size: int
    limit: int
    fifo_size: int
    l1_acc: bool
    edge_select: int
    row_set_mapping: tuple[int, ...]   # TILE_ROW_SET_MAPPING_<edge_select>: the EdgeMask of each row
    edge_masks: tuple[int, ...]
    edge_mode: bool
    reads_per_plane: int
    yz_transposed: bool
    relu_mode: int
    relu_threshold: float
    exp_threshold_en: bool
    exp_threshold: int
    downsample_mask: int
    acc_stats: bool
    keeps_all: bool     # the EdgeMasks the row set maps to and Downsample_mask are 0xFFFF: nothing dropped
    plain: bool         # keeps_all, no ReLU, no exponent threshold, no histogram bins: nothing staged
    native: tuple[np.ndarray, conversion.PackFormat] | None  # plain, and ``tdbg_pack`` has the cells: its plan


def read_config(cop: Coprocessor, thread: int) -> PackConfig:
    """What a ``PACR`` of ``thread`` reads from config, cached until a write to a word it reads
    (a kernel that moves ``L1_Dest_addr`` for every tile only has that word read again)."""
    cfg = cop.state.config

    def with_address() -> PackConfig:
        rest: PackConfig = cfg.derived(("PACR without L1_Dest_addr", thread), lambda: _read_config(cop, thread),  # type: ignore[assignment]
                                       shared=True)
        return rest._replace(l1_dest_addr=cfg.get("THCON_SEC0_REG1_L1_Dest_addr", thread=thread))

    return cfg.derived(("PACR", thread), with_address, shared=True)  # type: ignore[return-value]


def _unmodelled(get, names: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    for name, what in names.items():
        if get(name):
            raise UnimplementedFunctionality(f"PACR: {name} ({what}) is not modelled")


def _read_config(cop: Coprocessor, thread: int) -> PackConfig:
    cfg = cop.state.config

    def get(name: str) -> int:
        return cfg.get(name, thread=thread)

    sec = "THCON_SEC0_REG1_"
    override = f"{sec}All_pack_disable_zero_compress"
    if get(f"{override}_ovrd") and override not in cfg.table.fields:
        raise MissingSpecification(f"PACR: {override}_ovrd = 1, and Blackhole's config table (bh_cfg_fields.json) has "
                                   f"no {override} value for it to select (Wormhole B0's has)")
    compressed = not (get(override) & 1 if get(f"{override}_ovrd") else get(f"{sec}Disable_zero_compress"))
    if compressed:
        raise UnimplementedFunctionality("Packers/Compression.md: packing with compression (Disable_zero_compress = 0) "
                                         "is not modelled")
    _unmodelled(get, {f"{sec}Source_interface_selection": "L1 as the packer's input",
                      f"{sec}Add_l1_dest_addr_offset": "a TDMA-RISC address offset",
                      "PCK_EDGE_TILE_FACE_SET_SELECT_enable": "face-set edge masks"})
    if get(f"{sec}Downsample_rate"):
        raise MissingSpecification(f"PACR: Blackhole's {sec}Downsample_rate (no page describes it)")
    in_fmt = get(f"{sec}In_data_format")
    edge_select = get("PCK_EDGE_TILE_ROW_SET_SELECT_select") & 3
    intermediate = get("ALU_FORMAT_SPEC_REG_Dstacc_val") if get("ALU_FORMAT_SPEC_REG_Dstacc_override") \
        else get("ALU_FORMAT_SPEC_REG2_Dstacc")
    raw = get("STACC_RELU_ReluThreshold")
    if intermediate in _FIVE_BIT:  # ParseFP16
        e, m = (raw >> 10) & 0x1F, raw & 0x3FF
        threshold = 0.0 if e == 0 else float(np.ldexp(1 + m / 1024, e - 15))
    else:  # ParseBF16
        threshold = float(np.array([raw << 16], dtype=np.uint32).view(np.float32)[0])
    if raw >> 15:
        threshold = -threshold if threshold else -0.0
    c = PackConfig(
        conversion=PackerConfig.from_config(cfg, 0, thread), in_fmt=in_fmt, out_fmt=get(f"{sec}Out_data_format"),
        read_32b=bool(get("PCK_DEST_RD_CTRL_Read_32b_data")),
        base0=get("PCK0_ADDR_BASE_REG_0_Base"), x_stride=get("PCK0_ADDR_CTRL_XY_REG_0_Xstride"),
        y_stride=get("PCK0_ADDR_CTRL_XY_REG_0_Ystride"), z_stride=get("PCK0_ADDR_CTRL_ZW_REG_0_Zstride"),
        w_stride=get("PCK0_ADDR_CTRL_ZW_REG_0_Wstride"), dst_offset=get("DEST_TARGET_REG_CFG_PACK_SEC0_Offset"),
        base1=get("PCK0_ADDR_BASE_REG_1_Base"), y_stride1=get("PCK0_ADDR_CTRL_XY_REG_1_Ystride"),
        z_stride1=get("PCK0_ADDR_CTRL_ZW_REG_1_Zstride"), w_stride1=get("PCK0_ADDR_CTRL_ZW_REG_1_Wstride"),
        l1_dest_addr=0, sub_header=bool(get(f"{sec}Sub_l1_tile_header_size")),  # read_config adds L1_Dest_addr
        exp_section_size=get(f"{sec}Exp_section_size"),
        limit=get("THCON_SEC0_REG9_Pack_0_2_limit_address"), fifo_size=get("THCON_SEC0_REG9_Pack_0_2_fifo_size"),
        l1_acc=bool(get(f"{sec}Pack_L1_Acc")),
        edge_select=edge_select,
        row_set_mapping=tuple(get(f"TILE_ROW_SET_MAPPING_{edge_select}_row_set_mapping_{i}") for i in range(16)),
        edge_masks=tuple(get(f"PCK_EDGE_OFFSET_SEC{i}_mask") for i in range(4)), edge_mode=bool(get("PCK_EDGE_MODE_mode")),
        reads_per_plane=get("PACK_COUNTERS_SEC0_pack_reads_per_xy_plane"),
        yz_transposed=bool(get("PACK_COUNTERS_SEC0_pack_yz_transposed")),
        relu_mode=get("STACC_RELU_ApplyRelu") & 3, relu_threshold=threshold,
        exp_threshold_en=bool(get(f"{sec}Exp_threshold_en")), exp_threshold=get(f"{sec}Exp_threshold"),
        downsample_mask=get(f"{sec}Downsample_mask") or 0xFFFF,
        acc_stats=any(cfg.get("ENABLE_ACC_STATS_Enable", thread=t) for t in range(cfg.threads)),
        keeps_all=False, plain=False, native=None,
    )
    keeps_all = c.downsample_mask == 0xFFFF and all(c.edge_masks[m] == 0xFFFF for m in c.row_set_mapping)
    plain = keeps_all and not c.relu_mode and not c.exp_threshold_en and not c.acc_stats
    return c._replace(keeps_all=keeps_all, plain=plain, native=conversion.native_cells(c.conversion) if plain else None)


# -- the input side ------------------------------------------------------------------------------

def _interfaces(mask: int) -> list[int]:
    return [k for k in range(4) if (mask or 0xF) >> k & 1]


@cache
def _offsets(read_intf_sel: int, strided: bool, n: int) -> np.ndarray:
    """Datum offsets from the first datum: ``n`` per active read interface, interface ``k`` 16
    datums (one row) on, or 256 (16 rows) with ``DstAccessMode`` (module docstring)."""
    k = np.array(_interfaces(read_intf_sel), dtype=np.int64) * (256 if strided else 16)
    offsets = (k[:, None] + np.arange(n, dtype=np.int64)[None, :]).ravel()
    offsets.flags.writeable = False
    return offsets


def _positions(cop: Coprocessor, c: PackConfig, adc: int, f: dict[str, int]) -> tuple[np.ndarray, int]:
    """Datum indexes into ``Dst`` (InputAddressGenerator.md, Blackhole's read interfaces)."""
    adcs = cop.state.adcs
    x0 = adcs.get(adc, PACKERS, 0, X)
    if f["Flush"]:
        return np.zeros(0, dtype=np.int64), 0
    if f["ZeroWrite"] and f["ReadIntfSel"] == 0:  # assembly.yaml: x_end + 1 zero datums
        return np.zeros(adcs.get(adc, PACKERS, 1, X) + 1, dtype=np.int64), 0
    start, n = _start(cop, c, adc)
    return (start + _offsets(f["ReadIntfSel"], bool(f["DstAccessMode"]), n)) & 0x3FFF, x0


def _start(cop: Coprocessor, c: PackConfig, adc: int) -> tuple[int, int]:
    """(the first datum's index into ``Dst`` before the 14-bit wrap, datums per read interface)
    of a PACR that reads ``Dst`` (InputAddressGenerator.md)."""
    x0, y0, z0, w0, x1 = cop.state.adcs.channels(adc, PACKERS)[:5]
    n = x1 - x0 + 1
    if not 0 < n <= 16:
        raise UndefinedBehavior(f"PACR (assembly.yaml): Channel[1].X - Channel[0].X + 1 = {n}; it must be 1..16")
    addr = c.base0 + x0 * (c.x_stride & 0xF) + y0 * c.y_stride + z0 * c.z_stride + w0 * c.w_stride
    size, mask = ((4, 3), (2, 7), (1, 0xF), (1, 0xF))[c.in_fmt & 3]
    return ((addr // size) & ~mask) + (x0 & mask) + (c.dst_offset << 4), n


def _gather(cop: Coprocessor, c: PackConfig, idx: np.ndarray) -> np.ndarray:
    """``Dst16b`` / ``Dst32b`` bits at the datum indexes (undefined ``DstBits`` rows read as zero).  A
    ``Dst32b`` row stays a 10-bit index (BlackholeA0 Dst.md: ``Adj32`` maps it to ``DstBits``;
    rows 512 and up are the upper half, where tt-llk's second SyncHalf block is; ttsim v1.10.0
    tensix.cpp:2214, 602 agrees), not Wormhole's 512-row wrap."""
    dst = cop.state.dst
    rows, cols = idx >> 4, idx & 15
    if not c.read_32b:
        r = dst.row16[rows]
        return np.where(dst.ever_written[r], dst.bits[r, cols], 0).astype(np.uint16)
    hi = dst.row32[rows]
    written = dst.ever_written
    high = np.where(written[hi], dst.bits[hi, cols], 0).astype(np.uint32)
    return (high << 16) | np.where(written[hi + 8], dst.bits[hi + 8, cols], 0).astype(np.uint32)


def _pack_native(lib, cop: Coprocessor, c: PackConfig, start: int, offsets: np.ndarray):  # type: ignore[no-untyped-def]
    """``_gather`` of ``_positions`` and the conversion, by ``conversion.pack_words``; None
    where that cannot run."""
    plan, fmt = c.native  # type: ignore[misc]
    n = len(offsets)
    if n > conversion.SCRATCH or (fmt.is_bfp and n % conversion.BLOCK):
        return None
    dst, address = cop.state.dst, native.address
    return conversion.pack_words(lib, n, plan, fmt, (address(dst.bits), address(dst.ever_written),
                                                     address(dst.row32 if c.read_32b else dst.row16), c.read_32b,
                                                     start, address(offsets)))


# -- the stages between the early and the late conversion ----------------------------------------

def _edge_keep(c: PackConfig, tpg: list[int], cols: np.ndarray) -> tuple[np.ndarray | None, list[int]]:
    """Per datum (``Dst`` column ``cols``), whether its EdgeMask bit keeps it
    (EdgeMasking.md; None: every EdgeMask keeps everything), and the tile position generator
    after them."""
    x0, y0, z0 = tpg
    n = len(cols)
    r = c.reads_per_plane
    keep = None
    if not c.keeps_all:
        lines = (x0 + np.arange(n, dtype=np.int64)) // 16
        if c.yz_transposed:
            y = y0 + ((z0 + lines) // r if r else 0)
        else:
            y = (y0 + lines) % r if r else y0 + lines
        row_map = np.array(c.row_set_mapping, dtype=np.int64)
        masks = np.array(c.edge_masks, dtype=np.int64)
        edge = masks[row_map[y & 15]]
        keep = (edge >> cols & 1).astype(bool)
    return keep, _tpg_next(c, tpg, n)


def _tpg_next(c: PackConfig, tpg: list[int], n: int) -> list[int]:
    """The tile position generator after ``n`` datums (EdgeMasking.md)."""
    x0, y0, z0 = tpg
    r = c.reads_per_plane
    total = x0 + n
    lines_total = total // 16
    if c.yz_transposed:
        zz = z0 + lines_total
        new = [total % 16, y0 + (zz // r if r else 0), zz % r if r else zz]
    else:
        yy = y0 + lines_total
        new = [total % 16, yy % r if r else yy, z0 + (yy // r if r else 0)]
    return new


def _float_value(d: Floats) -> np.ndarray:
    bias = (1 << (d.t.ebits - 1)) - 1
    mag = np.ldexp(1.0 + d.man / float(1 << d.t.mbits), d.exp - bias)
    mag = np.where(d.exp == 0, 0.0, mag)
    return np.where(d.sign != 0, -mag, mag)


def _stage(cop: Coprocessor, c: PackConfig, keep: np.ndarray | None, datums: conversion.Datums) -> conversion.Datums:
    """Edge masking (``keep`` None: nothing masked), ReLU, exponent thresholding and the
    histogram, on early-converted datums."""
    if isinstance(datums, Ints):
        if keep is not None and not keep.all():
            if c.edge_mode:
                raise MissingSpecification("Packers/EdgeMasking.md: -inf for an integer intermediate format")
            datums = replace(datums, bits=np.where(keep, datums.bits, 0))
        if c.relu_mode == 1 and datums.name != "UINT8":  # sign-magnitude: negative -> 0
            sign_bit = {"INT32": 31, "INT16": 15}.get(datums.name, 7)
            datums = replace(datums, bits=np.where(datums.bits >> sign_bit & 1, 0, datums.bits))
        elif c.relu_mode > 1:
            raise UndefinedBehavior("Packers/ReLU.md: threshold ReLU with an integer intermediate format")
        _histogram(cop, c, datums)
        return datums
    if keep is None and not c.relu_mode and not c.exp_threshold_en:
        _histogram(cop, c, datums)
        return datums
    sign, exp, man = datums.sign, datums.exp, datums.man
    if keep is not None and not keep.all():
        if c.edge_mode:
            if datums.t.ebits != 8:
                raise MissingSpecification(f"Packers/EdgeMasking.md: -inf in {datums.t.name}, which has no infinity")
            sign, exp, man = np.where(keep, sign, 1), np.where(keep, exp, datums.t.emax), np.where(keep, man, 0)
        else:
            sign, exp, man = np.where(keep, sign, 0), np.where(keep, exp, 0), np.where(keep, man, 0)
    if c.relu_mode:
        value = _float_value(Floats(datums.t, sign, exp, man))
        t = c.relu_threshold
        if c.relu_mode >= 2 and np.signbit(t):
            raise UndefinedBehavior("Packers/ReLU.md: a threshold <= -0")
        zero = value <= (t if c.relu_mode == 2 else 0)
        if c.relu_mode == 3:
            clamp = ~zero & (value > t)
            tb = _encode_threshold(datums.t, t)
            sign, exp, man = (np.where(clamp, tb[0], sign), np.where(clamp, tb[1], exp), np.where(clamp, tb[2], man))
        sign, exp, man = np.where(zero, 0, sign), np.where(zero, 0, exp), np.where(zero, 0, man)
    if c.exp_threshold_en:
        if c.in_fmt == 11:
            raise UndefinedBehavior("Packers/ExponentThresholding.md: BFP2a (hardware bug)")
        low = exp < c.exp_threshold
        sign, exp, man = np.where(low, 0, sign), np.where(low, 0, exp), np.where(low, 0, man)
    out = Floats(datums.t, sign, exp, man)
    _histogram(cop, c, out)
    return out


def _encode_threshold(t: conversion.FloatType, value: float) -> tuple[int, int, int]:
    """``value`` (already a value of type ``t``: the threshold is BF16 or FP16) in ``t``'s fields."""
    if value == 0:
        return 0, 0, 0
    m, e = np.frexp(value)  # value = m * 2**e, m in [0.5, 1)
    bias = (1 << (t.ebits - 1)) - 1
    exp = int(e) - 1 + bias
    man = int(round((m * 2 - 1) * (1 << t.mbits)))
    if not 0 < exp <= t.emax:
        raise MissingSpecification(f"Packers/ReLU.md: the threshold {value} is not a {t.name} value")
    return 0, exp, man


def _histogram(cop: Coprocessor, c: PackConfig, d: conversion.Datums) -> None:
    """ExponentHistogram.md ``Update`` for every datum (INT8 exponents are unspecified: skipped)."""
    hist = cop.state.packer.histogram
    if isinstance(d, Floats):
        exps = d.exp
    elif d.name == "INT32":
        exps = (d.bits >> 23) & 0xFF
    elif d.name == "INT16":
        exps = d.bits & 0xFF
    else:
        return
    if not len(exps):
        return
    if c.acc_stats:
        counts = np.bincount(exps & 31, minlength=32)
        hist.bins[:] = np.minimum(hist.bins.astype(np.int64) + counts, 255)
    hist.max_exponent = max(hist.max_exponent, int(exps.max()))


# -- L1 accumulation -----------------------------------------------------------------------------

def _ftz32(u: np.ndarray) -> np.ndarray:
    return np.where(u & 0x7FFFFFFF < 0x800000, u & 0x80000000, u)


def _acc_fp32(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        s = (_ftz32(old).astype(np.uint32).view(np.float32) + _ftz32(new).astype(np.uint32).view(np.float32)).view(np.uint32)
    s = s.astype(np.int64)
    return np.where(s & 0x7FFFFFFF > 0x7F800000, 0x7FC00000, _ftz32(s))


def _acc_bf16(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    def value(b: np.ndarray) -> np.ndarray:
        b = np.where(b & 0x7FFF < 0x80, b & 0x8000, b)
        sign = np.where(b & 0x8000, -1.0, 1.0)
        exp, man = (b >> 7) & 0xFF, b & 0x7F
        mag = np.where(exp == 0, 0.0, np.ldexp(1 + man / 128.0, exp - 127))
        return sign * mag
    both_inf = ((old == 0x7F80) & (new == 0xFF80)) | ((old == 0xFF80) & (new == 0x7F80))
    with np.errstate(all="ignore"):
        s = value(old) + value(new)
    a = np.abs(s)
    sign = np.where(np.signbit(s), 0x8000, 0)
    frac, e = np.frexp(np.where(a > 0, a, 1.0))
    exp = e.astype(np.int64) - 1 + 127
    scaled = frac * 256  # 8 significant bits: 1.mmmmmmm
    mant = np.rint(scaled).astype(np.int64)  # nearest even
    exp = np.where(mant == 256, exp + 1, exp)
    mant = np.where(mant == 256, 128, mant)
    out = sign | (exp << 7) | (mant & 0x7F)
    out = np.where((a == 0) | (exp <= 0), sign, np.where(exp >= 255, sign | 0x7F80, out))
    return np.where(both_inf, 0x7FC0, out)


def _acc_fp16(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    def value(b: np.ndarray) -> np.ndarray:
        e = (b >> 10) & 0x1F
        mag = np.where(e == 0, 0.0, np.ldexp(1 + (b & 0x3FF) / 1024.0, e - 15))
        return np.where(b & 0x8000, -mag, mag).astype(np.float32)
    s = (value(old) + value(new)).astype(np.float32)
    sign = np.where(np.signbit(s), 0x8000, 0)
    a = np.abs(s.astype(np.float64))
    frac, e = np.frexp(np.where(a > 0, a, 1.0))
    exp = e.astype(np.int64) - 1 + 15
    mant = np.rint(frac * 2048).astype(np.int64)
    exp = np.where(mant == 2048, exp + 1, exp)
    mant = np.where(mant == 2048, 1024, mant)
    packed = (exp << 10) + (mant & 0x3FF)
    cancel = a == 0
    huge_in = (((old >> 10) & 31) >= 30)
    out = np.where(packed < 0x8000, sign | packed, sign | 0x7FFF)
    out = np.where(exp < 0, sign | 0x7FFF, np.where(exp == 0, sign, out))
    return np.where(cancel, sign | np.where(huge_in, 0x7FFF, 0), out)


_ACC = {0: (4, _acc_fp32), 5: (2, _acc_bf16), 1: (2, _acc_fp16)}


# -- PACR ------------------------------------------------------------------------------------------

def _refused(cop: Coprocessor, f: dict[str, int]) -> None:
    """Raise for the fields tdbg does not model (the module docstring's list)."""
    for name, what in (("CtxtCtrl", "RTL context flops"), ("RowPadZero", "row zero padding")):
        if f[name]:
            raise UnimplementedFunctionality(f"PACR: {name}={f[name]} ({what}) is not modelled")
    if f["DstAccessMode"] and not (cop.state.config.get("DEST_ACCESS_CFG_remap_addrs")
                                   and cop.state.config.get("DEST_ACCESS_CFG_swizzle_32b")):
        raise UnimplementedFunctionality("PACR: DstAccessMode=1 without DEST_ACCESS_CFG remap_addrs and swizzle_32b "
                                         "is not modelled (ttsim v1.10.0 refuses it too, tensix.cpp:1997-2002)")
    if f["CfgContext"]:
        raise MissingSpecification(f"PACR: Blackhole's CfgContext={f['CfgContext']} (no page describes the contexts)")


def pacr(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``PACR`` (module docstring)."""
    if f["CtxtCtrl"] or f["RowPadZero"] or f["DstAccessMode"] or f["CfgContext"]:
        _refused(cop, f)
    state = cop.state
    c = read_config(cop, thread)
    adc = thread
    if f["OvrdThreadId"]:
        adc = f["AddrCntContext"] if f["AddrCntContext"] < 3 else 0
    ps = state.packer
    zeros = bool(f["ZeroWrite"] or f["Flush"])
    lib = native.library() if c.native is not None and not zeros else None
    if lib is not None:  # nothing staged: gathered and packed in C
        start, n = _start(cop, c, adc)
        offsets = _offsets(f["ReadIntfSel"], bool(f["DstAccessMode"]), n)
        done = _pack_native(lib, cop, c, start, offsets)
        if done is not None:
            data, exps, top = done
            ps.tpg = _tpg_next(c, ps.tpg, len(offsets))
            ps.histogram.max_exponent = max(ps.histogram.max_exponent, top)
            _output(cop, c, f, c.native[1], data, exps, adc)  # type: ignore[index]
            _advance(cop, thread, adc, f)
            return
    idx, _ = _positions(cop, c, adc, f)
    n = len(idx)
    bits = np.zeros(n, dtype=np.uint32 if c.read_32b else np.uint16) if zeros else _gather(cop, c, idx)
    keep, ps.tpg = _edge_keep(c, ps.tpg, idx & 15)
    if c.downsample_mask != 0xFFFF:
        select = (c.downsample_mask >> (np.arange(n) % 16) & 1).astype(bool)
        bits = bits[select]
        keep = np.ones(n, dtype=bool)[select] if keep is None else keep[select]
    out_fmt = c.conversion.output_format
    if out_fmt.is_bfp and len(bits) % conversion.BLOCK:
        raise UnimplementedFunctionality(f"PACR: {len(bits)} datums to {out_fmt.name}: BFP blocks that span "
                                         "PACR instructions are not modelled")
    plain = conversion.pack_plain(bits, len(bits), c.conversion) if c.plain else None
    if plain is None:
        packed = conversion.pack(bits, c.conversion, lambda d: _stage(cop, c, keep, d))
    else:  # nothing staged: the histogram's maximum is all _stage would have done (ExponentHistogram.md)
        packed, top = plain
        ps.histogram.max_exponent = max(ps.histogram.max_exponent, top)
    _output(cop, c, f, packed.fmt, np.frombuffer(packed.data, dtype=np.uint8),
            np.frombuffer(packed.exponents, dtype=np.uint8) if packed.exponents else None, adc)
    _advance(cop, thread, adc, f)


def _new_address(cop: Coprocessor, c: PackConfig, adc: int) -> int:
    """OutputAddressGenerator.md: the 16-byte unit address for fresh streams."""
    _, y, z, w = cop.state.adcs.channels(adc, PACKERS)[4:]
    addr = c.l1_dest_addr + (0 if c.sub_header else 1)
    yzw = c.base1 + y * c.y_stride1 + z * c.z_stride1 + w * c.w_stride1
    addr += yzw >> 4
    if addr > c.limit * 2 + 1:
        addr -= c.fifo_size * 2
    return addr & 0xFFFFFFFF


def _output(cop: Coprocessor, c: PackConfig, f: dict[str, int], fmt: conversion.PackFormat, data: np.ndarray,
            exps: np.ndarray | None, adc: int) -> None:
    """OutputAddressGenerator.md: stream addresses, L1 writes (or accumulation), padding; ``data``
    and ``exps`` (BFP, else None or empty) are the packed bytes in format ``fmt``."""
    ps = cop.state.packer
    if ps.data_needs_new or ps.exp_needs_new:
        addr = _new_address(cop, c, adc)
        if c.out_fmt & 2:  # formats narrower than 16 bits have an exponent stream address
            if ps.exp_needs_new:
                ps.exp_address, ps.exp_needs_new = (addr & 0x1FFFF) << 4, False
            addr += c.exp_section_size
        if ps.data_needs_new:
            ps.data_address, ps.data_needs_new = (addr & 0x1FFFF) << 4, False
    if c.l1_acc and len(data):
        if c.out_fmt not in _ACC:
            raise UnimplementedFunctionality(f"PACR: L1 accumulation into {fmt.name}")
        size, acc = _ACC[c.out_fmt]
        old = cop.read_l1(ps.data_address, len(data)).view(f"<u{size}").astype(np.int64)
        new = data.view(f"<u{size}").astype(np.int64)
        data = acc(old, new).astype(f"<u{size}").view(np.uint8)
    cop.write_l1(ps.data_address, data)
    ps.data_address += len(data)
    if exps is not None and len(exps):
        cop.write_l1(ps.exp_address, exps)
        ps.exp_address += len(exps)
    if f["Last"] or f["Flush"]:
        for name in ("data_address", "exp_address"):
            end = getattr(ps, name)
            pad = -end % 16
            if pad and (name == "data_address" or fmt.is_bfp):
                cop.write_l1(end, np.zeros(pad, dtype=np.uint8))
                setattr(ps, name, end + pad)
        ps.data_needs_new = ps.exp_needs_new = True
        ps.tpg = [0, 0, 0]


def _addr_mod_pack(cop: Coprocessor, thread: int, m: int) -> tuple[tuple[int, int, int, int, int], ...]:
    """``ADDR_MOD_PACK_SEC<m>``: (Y clear, Y CR, Y incr, Z clear, Z incr) for the src and dst sides."""
    cfg = cop.state.config

    def get(name: str) -> int:
        return cfg.get(f"ADDR_MOD_PACK_SEC{m}_{name}", thread=thread)

    return tuple((get(f"Y{side}Clear"), get(f"Y{side}CR"), get(f"Y{side}Incr"), get(f"Z{side}Clear"), get(f"Z{side}Incr"))
                 for side in ("src", "dst"))


def addr_mod_pack(cop: Coprocessor, thread: int, m: int) -> tuple[tuple[int, int, int, int, int], ...]:
    """``_addr_mod_pack``, cached until a write to its config word, and taken from another config
    of the table whose words it read hold the same (``TensixConfig.derived``'s ``shared``: a
    session after another reads no field again)."""
    return cop.state.config.derived(("ADDR_MOD_PACK", thread, m), lambda: _addr_mod_pack(cop, thread, m),  # type: ignore[return-value]
                                    shared=True)


def _advance(cop: Coprocessor, thread: int, adc: int, f: dict[str, int]) -> None:
    """The ``AddrMod`` updates of both address generators (``ADDR_MOD_PACK_SEC[AddrMode]``)."""
    cop.state.adcs.step_yz(adc, PACKERS, addr_mod_pack(cop, thread, f["AddrMode"]))


def pacr_setreg(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``PACR_SETREG`` (PACR_SETREG.md): one 32-bit MMIO write through ``Coprocessor.mmio``,
    ``Addr = 0xFFB00000 + SetRegBase[AddrSel] + (AddrMid << 12)``, ``Value32 = Value10 +
    (((Value10 * SetRegHiScaler[Out_data_format & 3]) & 0x1ffff) << 12)`` with packer 0's
    ``THCON_SEC0_REG1_Out_data_format`` of the thread's state; below ``0xFFB11000``
    ``UndefinedBehavior``, at or above ``0xFFB80000`` dropped.  The page orders the write after
    every earlier ``PACR``'s late format conversion: in tdbg a ``PACR`` has finished when it
    executed, so the write happens now.  Its flush of the buffers before L1 is a no-op when no
    output is pending (tdbg writes each ``PACR``'s bytes at once and pads on ``Last`` / ``Flush``);
    a partly filled 16-byte output stream (a ``PACR`` without ``Last`` / ``Flush`` before it)
    raises ``UnimplementedFunctionality``, since the page does not say where the next ``PACR``
    then writes.  ``SetRegBase`` / ``SetRegHiScaler`` are set through TDMA-RISC
    (``tdbg.emu.devices.tdma_risc``).

    Blackhole (tt-llk's assembly.yaml; no page; ttsim v1.10.0 has no ``PACR_SETREG``): the
    fields move.  ``StreamId`` (bits 7:2) is the page's ``AddrMid``, and the YAML's address
    ``{12'hFFB, REG_ADDR[11:10], StreamId, REG_ADDR[9:0], 2'b00}`` is the page's; ``AddrSel``
    is 2 bits (9:8) choosing among 4 preprogrammed addresses, where TDMA-RISC.md sets only
    ``SetRegBase[0..1]``, so ``AddrSel`` 2 and 3 raise ``MissingSpecification``; the page's
    ``Value10`` is bits 21:12, which the YAML calls ``Unused`` while saying "Max register value
    is limited to 10-bit": tdbg takes it from there.  ``ModeSel`` = 1 (bit 22, "programs into
    Packer local flops the 32-bit wrdata, used by the normal flavor") is described by no page:
    ``MissingSpecification``; so are ``Push`` or ``Flush`` clear (the page fixes both at 1, the
    YAML says both must be 1 for the write).  ``DisableStall`` (a stall chicken bit) and ``Last``
    ("Not used") have no effect here.  tt-llk's Blackhole kernels never issue it."""
    if f["ModeSel"]:
        raise MissingSpecification("PACR_SETREG: Blackhole's ModeSel=1 (the packer's 32-bit write-data flops; "
                                   "no page describes them)")
    if not (f["Push"] and f["Flush"]):
        raise MissingSpecification(f"PACR_SETREG: Push={f['Push']} Flush={f['Flush']} (PACR_SETREG.md fixes both at 1)")
    if f["AddrSel"] > 1:
        raise MissingSpecification(f"PACR_SETREG: Blackhole's AddrSel={f['AddrSel']} (TDMA-RISC.md sets only "
                                   "SetRegBase[0] and [1])")
    out_fmt = cop.state.config.get("THCON_SEC0_REG1_Out_data_format", thread=thread)
    ps = cop.state.packer
    if (not ps.data_needs_new and ps.data_address % 16) or (not ps.exp_needs_new and ps.exp_address % 16):
        raise UnimplementedFunctionality("PACR_SETREG: flushing a partly filled packer output buffer (an earlier "
                                         "PACR without Last or Flush) is not modelled")
    value10 = f["Unused"]
    value32 = value10 + (((value10 * ps.set_reg_hi_scaler[out_fmt & 3]) & 0x1FFFF) << 12)
    window = cop.state.profile.tensix
    address = mmio.register_address(window, ps.set_reg_base[f["AddrSel"]] + (f["StreamId"] << 12), "PACR_SETREG.md")
    if address < window.setreg_limit:
        cop.mmio.store(thread, address, value32)


def clrexphist(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``CLREXPHIST`` (CLREXPHIST.md): reset the exponent histogram."""
    cop.state.packer.histogram.reset()


# -- status (``info pack``) ------------------------------------------------------------------------

def status(cop: Coprocessor, thread: int) -> list[tuple[str, str]]:
    """The packer as thread ``thread`` sees it: configuration decoded by field name, where a
    PACR with every read interface and AddrMode 0 would read and write, the streams, the ADCs."""
    state, ps = cop.state, cop.state.packer
    lines: list[tuple[str, str]] = []
    try:
        c = read_config(cop, thread)
    except TensixEvent as event:
        c = None
        lines.append(("configuration", f"a PACR would stop: {event}"))
    if c is not None:
        try:
            lines.append(("conversion", c.conversion.describe()))
        except TensixEvent as event:
            lines.append(("conversion", f"a PACR would stop: {event}"))
        lines.append(("Dst reads", f"{'Dst32b' if c.read_32b else 'Dst16b'}, base {c.base0:#x}, strides X {c.x_stride} "
                      f"Y {c.y_stride} Z {c.z_stride} W {c.w_stride} (bytes), DEST_TARGET_REG_CFG_PACK_SEC0_Offset {c.dst_offset}"))
        try:
            idx, _ = _positions(cop, c, thread, {"Flush": 0, "ZeroWrite": 0, "ReadIntfSel": 0, "DstAccessMode": 0})
            rows = np.unique(idx >> 4)
            lines.append(("next PACR", f"{len(idx)} datums from Dst rows {', '.join(str(int(r)) for r in rows)}"))
        except TensixEvent as event:
            lines.append(("next PACR", f"would stop: {event}"))
        if ps.data_needs_new:
            addr = _new_address(cop, c, thread)
            exp = f", exponents at {(addr & 0x1FFFF) << 4:#x}" if c.out_fmt & 2 else ""
            data = addr + (c.exp_section_size if c.out_fmt & 2 else 0)
            lines.append(("output", f"a new tile: data at {(data & 0x1FFFF) << 4:#x}{exp} (L1_Dest_addr {c.l1_dest_addr:#x})"))
        else:
            exp = f", exponents continue at {ps.exp_address:#x}" if c.out_fmt & 2 else ""
            lines.append(("output", f"continues at {ps.data_address:#x}{exp} (until a Last or Flush PACR)"))
        masks = ", ".join(f"SEC{i} {m:#06x}" for i, m in enumerate(c.edge_masks))
        lines.append(("edge masks", f"{masks}; row set {c.edge_select}; {'-inf' if c.edge_mode else 'zero'} where masked"))
        relu = ("off", "x <= 0 -> 0", f"x <= {c.relu_threshold} -> 0", f"clamp to 0..{c.relu_threshold}")[c.relu_mode]
        lines.append(("stages", f"ReLU {relu}; exponent threshold "
                      + (str(c.exp_threshold) if c.exp_threshold_en else "off")
                      + f"; downsample mask {c.downsample_mask:#06x}; L1 accumulation {'on' if c.l1_acc else 'off'}"))
    lines.append(("tile position", f"X {ps.tpg[0]}, Y {ps.tpg[1]}, Z {ps.tpg[2]}; exponent histogram max {ps.histogram.max_exponent}"))
    for ch in (0, 1):
        vals = " ".join(f"{'XYZW'[d]}={state.adcs.get(thread, PACKERS, ch, d)}" for d in range(4))
        crs = " ".join(f"{'XYZW'[d]}_Cr={int(state.adcs.cr[thread, PACKERS, ch, d])}" for d in range(4))
        lines.append((f"ADC T{thread} Channel[{ch}]", f"{vals}  {crs}"))
    return lines
