"""The unpackers: ``UNPACR`` (L1 to ``SrcA`` / ``SrcB`` / ``Dst``) and ``UNPACR_NOP``.

Implements WormholeB0 ``TensixCoprocessor/UNPACR_Regular.md`` (its functional model: context
selection, the tile descriptor, input addresses with the BFP exponent section, datum count and
first datum from the ADCs, row stride and ``Tileize_mode``, output addresses, upsampling, the
``SrcA`` 4-row skip and ``Transpose``, the counter updates and ``FlipSrc``; ``FormatConversion``
and its helpers), ``UNPACR_IncrementContextCounter.md``, ``UNPACR_FlushCache.md`` (no cache is
modelled) and the newer ``Unpackers/README.md``, ``Unpackers/FormatConversion.md``,
``UNPACR_NOP_ZEROSRC.md``, ``UNPACR_NOP_SETDVALID.md``, ``UNPACR_NOP_Nop.md``.  Each instruction
works on whole arrays: datum addresses, L1 bytes, conversion and Src / Dst writes are numpy.
What an UNPACR reads from config is decoded once per configuration change (``read_config``,
``TensixConfig.derived``), with its input addresses and, for formats of at most 16 bits, its
conversion as a table of ``convert`` over every datum once the conversion is in use
(``conversion_table``): per instruction, the ADCs, a slice of L1, one lookup and one write.

Blackhole, where the pages are silent (evidence: ttsim v1.10.0 ``tensix.cpp`` UNPACR at 2650 /
UNPACR_NOP at 3049, tt-llk's assembly.yaml descriptions; checked side by side with ttsim by
running the kit's eltwise firmware with BF16, FP32, BFP8, BFP4 and BFP2 inputs: the unpacked
and packed tiles matched byte for byte):

* The encoding names are the page's (``tdbg/arch/blackhole/isa.json``); ``Last`` (ttsim requires 1) and
  ``srcb_bcast`` (no page; nonzero raises ``MissingSpecification``) are Blackhole-only.
* ``SrcA`` rows wrap at 64 under ``SRCA_SET_SetOvrdWithAddr`` (tensix.cpp:3005 masks the row
  with 63; the page calls row >= 64 undefined).
* With ``Tileize_mode`` a "row" of input is 32 datums for formats wider than 8 bits (16 for the
  rest): ``unpack_row_width``, tensix.cpp:2749.
* ``FP8`` input: ``THCON_SEC[u]_REG1_Unp_LF8_4b_exp`` selects E4M3 (to FP16: exponent + 8,
  mantissa << 7, ``0x7F`` pattern for exponent 15 mantissa 7; zero exponent stays zero,
  tensix.cpp:2957); in E5M2 a datum whose low seven bits are all ones becomes FP16 ``0x?FFF``
  (all mantissa bits set, tensix.cpp:2966).
* ``FP32ToFP16`` (named, not defined, by the page): rebias (exponent - 112); below FP16's range
  a signed zero; above it exponent 31 with all mantissa bits (saturation); else the mantissa
  truncated to 10 bits, no rounding (tensix.cpp:2912).
* When ``FlipSrc`` gives a bank to the Matrix Unit, the bank remembers ``OutDataFormat``
  (``src_a_format`` / ``src_b_format``, tensix.cpp:3039, 3106): the implied format the Matrix
  Unit uses unless ``DISABLE_IMPLIED_SRCA_FMT_Base`` / ``DISABLE_IMPLIED_SRCB_FMT_Base`` is set.
* ``UNPACR_NOP`` (assembly.yaml): ``Unpack_Pop`` 1 clears (``Src_ClrVal_Ctrl`` 0: zero, 1:
  negative infinity, SrcA only, as the page's ``NegativeInfSrcA``; 2 "one" and 3 "the value of
  ``UNP[u]_NOP_REG_CLR_VAL``" have no bit-level definition: ``MissingSpecification``),
  ``Bank_Clr_Ctrl`` is the page's ``BothBanks``, ``Stall_Clr_Cntrl`` its ``WaitLikeUnpacr``,
  ``Set_Dvalid`` then gives the bank to the Matrix Unit as ``UNPACR_NOP_SETDVALID.md`` does (ttsim:
  clear, then set valid); ``Clr_to1_fmt_Ctrl`` 3 with ``Unpack_Pop`` 1 only gives the bank away;
  ``Unpack_Pop`` 2 does nothing (UNPACR_NOP_Nop.md); 0 and 3 pop NoC overlay streams, which tdbg
  does not model (``UnimplementedFunctionality``).

Not modelled (``UnimplementedFunctionality``): decompression (``IsUncompressed`` false),
``RowSearch``, and the overlay pops.  Reads past L1 raise ``UndefinedBehavior`` as
``ReadL1Bytes`` says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from tdbg.arch import data_formats
from tdbg.tensix.adcs import UNPACKER0, UNPACKER1, Y, Z
from tdbg.tensix.events import MissingSpecification, TensixEvent, UndefinedBehavior, UnimplementedFunctionality
from tdbg.tensix.src import MASK19, SrcClient

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

PAGE = "UNPACR_Regular.md"

# Data format codes (Unpackers/FormatConversion.md, last table: tdbg.arch.data_formats)
F = data_formats.DataFormat
FP32, FP16, BFP8A, BFP4A, TF32, BF16, BFP8, BFP4, INT32, INT16, FP8, BFP2A, INT8, BFP2 = (
    F.FP32, F.FP16, F.BFP8A, F.BFP4A, F.TF32, F.BF16, F.BFP8, F.BFP4, F.INT32, F.INT16, F.FP8, F.BFP2A, F.INT8, F.BFP2)
#: Datum size in bits (``DatumSizeBytes`` * 8).
DATUM_BITS = {code: f.datum_bits for code, f in data_formats.FORMATS.items()}
BFP_FORMATS = data_formats.having(lambda f: f.bfp)
TILEIZE_WIDE_ROW = 32    # Blackhole tileize row of datums wider than 8 bits (ttsim unpack_row_width)


def format_name(code: int) -> str:
    return data_formats.name(code)


# -- configuration -----------------------------------------------------------------------------

class UnpackConfig(NamedTuple):
    """What one ``UNPACR`` reads from config for (thread, unpacker, context, mode)."""

    context: int
    uncompressed: bool
    in_fmt: int
    out_fmt: int
    x_dim: int
    y_dim: int
    z_dim: int
    w_dim: int
    no_bfp_exp_section: bool
    blobs_per_xy_plane: int
    digest_size: int
    base: int                 # THCON_SEC[u] Base (16-byte units)
    offset: int
    force_shared_exp: bool
    shared_exp: int
    limit: int                # Unpack_limit_address, fifo_size (16-byte units)
    fifo_size: int
    tileize: bool
    row_stride_tileize: int   # bytes
    to_dst: bool
    transpose: bool
    out_base: int             # UNP[u]_ADDR_BASE_REG_1_Base
    y_stride: int
    z_stride: int
    w_stride: int
    ctx_out_addr: int | None  # Dest_cntx[ctx & 3] (unpacker 0 in multi-context mode)
    add_dest_addr_cntr: bool
    upsample_rate: int
    upsample_interleave: bool
    col_shift: int
    src_reg_set_upd: bool
    context_count: int
    int8_unsigned: bool
    lf8_4b_exp: bool
    srca_set_ovrd: bool
    src_row_base: int         # SRCA_SET_Base / SRCB_SET_Base << 4
    width: int                # datum bits (0: InDataFormat is no data type)
    in_addr: int              # InAddr in bytes, past the BFP exponent section (``read_config`` adds it)
    exp_start: int            # where the exponent section starts (bytes)
    conversion: tuple[int, int, bool, bool, bool]  # what ``convert`` reads: ``conversion_table``'s key


def descriptor(value: int) -> dict[str, int]:
    """The ``TileDescriptor`` fields (UNPACR_Regular.md "Configuration" table) of a 128-bit value."""
    def bits(lsb: int, width: int) -> int:
        return (value >> lsb) & ((1 << width) - 1)
    return {"InDataFormat": bits(0, 4), "IsUncompressed": bits(4, 1), "NoBFPExpSection": bits(5, 1),
            "BlobsPerXYPlane": bits(8, 3), "XDim": bits(16, 16), "YDim": bits(32, 8), "ZDim": bits(48, 8),
            "WDim": bits(64, 8), "BlobsYStart": bits(80, 32), "DigestSize": bits(120, 8)}


def _context_field(sec: str, reg: str, name: str, ctx: int) -> str:
    return f"THCON_SEC{sec}_REG{reg}_{name}_cntx{ctx}"


def read_config(cop: Coprocessor, thread: int, which: int, multi: bool, context: int) -> UnpackConfig:
    """The configuration one ``UNPACR`` of ``thread`` on unpacker ``which`` uses (cached until
    a write to a word it reads: a kernel that moves the input address for every tile only has
    the address words read again, the rest stays cached apart)."""
    cfg = cop.state.config
    key = (thread, which, multi, context)

    def with_addresses() -> UnpackConfig:
        rest: UnpackConfig = cfg.derived(("UNPACR without addresses", *key), lambda: _read_config(cop, *key),  # type: ignore[assignment]
                                         shared=True)
        return _with_addresses(rest, **_addresses(cop, *key))

    return cfg.derived(("UNPACR", *key), with_addresses, shared=True)  # type: ignore[return-value]


def _addresses(cop: Coprocessor, thread: int, which: int, multi: bool, context: int) -> dict[str, int]:
    """The context's ``Base`` and ``Offset`` (UNPACR_Regular.md "Configuration")."""
    def get(name: str) -> int:
        return cop.state.config.get(name, thread=thread)

    sec = f"THCON_SEC{which}_"
    if multi and context != 0:
        reg = "3" if context < 4 else "4"
        return {"base": get(f"{sec}REG{reg}_Base_cntx{context}_address"),
                "offset": get(f"{sec}REG7_Offset_cntx{context & 3}_address") if context & 3 else get(f"{sec}REG7_Offset_address")}
    return {"base": get(f"{sec}REG3_Base_address"), "offset": get(f"{sec}REG7_Offset_address")}


def _with_addresses(c: UnpackConfig, base: int, offset: int) -> UnpackConfig:
    """``c`` with the context's ``Base`` and ``Offset`` and the input addresses they give
    (UNPACR_Regular.md: InAddr, the BFP exponent section before the datums)."""
    in_addr = (base + (offset & 0xFFFF) + 1 + c.digest_size) * 16
    exp_start = in_addr
    if c.in_fmt in BFP_FORMATS and not c.force_shared_exp and (c.in_fmt in (BFP8, BFP8A) or not c.no_bfp_exp_section):
        exponents = -(-(c.x_dim * c.y_dim * c.z_dim * c.w_dim) // 16)
        in_addr += -(-exponents // 16) * 16
    return c._replace(base=base, offset=offset, in_addr=in_addr, exp_start=exp_start)


def _read_config(cop: Coprocessor, thread: int, which: int, multi: bool, context: int) -> UnpackConfig:
    """Everything but ``base`` and ``offset`` and the addresses they give (``_with_addresses``),
    which are 0 here."""
    cfg = cop.state.config

    def get(name: str) -> int:
        return cfg.get(name, thread=thread)

    u = str(which)
    sec = f"THCON_SEC{u}_"
    desc = descriptor(get(f"{sec}REG0_TileDescriptor"))
    if multi:
        uncompressed = bool(get(_context_field(u, "2", "Disable_zero_compress", context)))
        x_dim = get(_context_field(u, "5", "Tile_x_dim", context & 3)) if which == 0 else desc["XDim"]
    else:
        uncompressed, x_dim = bool(desc["IsUncompressed"]), desc["XDim"]
    if multi and get(f"{sec}REG2_Ovrd_data_format"):
        in_fmt = get(f"{sec}REG7_Unpack_data_format_cntx{context}")
        out_fmt = get(f"{sec}REG7_Unpack_out_data_format_cntx{context}")
    else:
        in_fmt, out_fmt = desc["InDataFormat"], get(f"{sec}REG2_Out_data_format")
    if which == 0:
        to_dst = bool(get(_context_field(u, "2", "Unpack_if_sel", context)) if multi else get(f"{sec}REG2_Unpack_If_Sel"))
        transpose = bool(get(f"{sec}REG2_Haloize_mode"))
    else:
        to_dst = transpose = False
    tileize = bool(get(f"{sec}REG2_Tileize_mode"))
    shifts = [get(f"{sec}REG2_Shift_amount_cntx{i}") for i in range(4)]
    unp = f"UNP{u}_"
    int8_unsigned = bool(get("ALU_FORMAT_SPEC_REG0_SrcBUnsigned" if which else "ALU_FORMAT_SPEC_REG0_SrcAUnsigned"))
    lf8_4b_exp = bool(get(f"{sec}REG1_Unp_LF8_4b_exp"))
    return UnpackConfig(
        context=context, uncompressed=uncompressed, in_fmt=in_fmt, out_fmt=out_fmt, x_dim=x_dim,
        y_dim=desc["YDim"], z_dim=desc["ZDim"] or 1, w_dim=desc["WDim"] or 1,
        no_bfp_exp_section=bool(desc["NoBFPExpSection"]), blobs_per_xy_plane=desc["BlobsPerXYPlane"],
        digest_size=desc["DigestSize"], base=0, offset=0,
        force_shared_exp=bool(get(f"{sec}REG2_Force_shared_exp")), shared_exp=get(f"{unp}FORCED_SHARED_EXP_shared_exp"),
        limit=get(f"{sec}REG2_Unpack_limit_address"), fifo_size=get(f"{sec}REG2_Unpack_fifo_size"),
        tileize=tileize, row_stride_tileize=(shifts[0] << 4) | (shifts[1] << 8) | (shifts[2] << 12),
        to_dst=to_dst, transpose=transpose,
        out_base=get(f"{unp}ADDR_BASE_REG_1_Base"), y_stride=get(f"{unp}ADDR_CTRL_XY_REG_1_Ystride"),
        z_stride=get(f"{unp}ADDR_CTRL_ZW_REG_1_Zstride"), w_stride=get(f"{unp}ADDR_CTRL_ZW_REG_1_Wstride"),
        ctx_out_addr=get(f"{sec}REG5_Dest_cntx{context & 3}_address") if multi and which == 0 else None,
        add_dest_addr_cntr=bool(get(f"{unp}ADD_DEST_ADDR_CNTR_add_dest_addr_cntr")),
        upsample_rate=get(f"{sec}REG2_Upsample_rate"), upsample_interleave=bool(get(f"{sec}REG2_Upsample_and_interleave")),
        col_shift=0 if tileize or which == 1 else shifts[context & 3],
        src_reg_set_upd=bool(get(f"{sec}REG2_Unpack_Src_Reg_Set_Upd")), context_count=get(f"{sec}REG2_Context_count"),
        int8_unsigned=int8_unsigned, lf8_4b_exp=lf8_4b_exp,
        srca_set_ovrd=bool(get("SRCA_SET_SetOvrdWithAddr")),
        src_row_base=get("SRCB_SET_Base" if which else "SRCA_SET_Base") << 4,
        width=DATUM_BITS.get(in_fmt, 0), in_addr=0, exp_start=0,
        conversion=(in_fmt, out_fmt, to_dst, int8_unsigned, lf8_4b_exp),
    )


_CONTEXT_OFFSET = ("UNPACK_MISC_CFG_CfgContextOffset_0", "UNPACK_MISC_CFG_CfgContextOffset_1")


def context_of(cop: Coprocessor, thread: int, f: dict[str, int]) -> tuple[int, int]:
    """(``WhichContext``, ``WhichADC``) of UNPACR_Regular.md."""
    which = f["WhichUnpacker"]
    if not f["MultiContextMode"]:
        return 0, thread
    base = cop.state.unpacker_context_counter[which][thread] if f["UseContextCounter"] else f["ContextNumber"]
    context = (base + cop.state.config.get(_CONTEXT_OFFSET[which], thread=thread)) & 7
    if which == 1 and context >= 2:
        raise UndefinedBehavior(f"{PAGE}: unpacker 1 in MultiContextMode with WhichContext {context} >= 2")
    if f["ContextADC"] == 3:
        raise UndefinedBehavior(f"{PAGE}: ContextADC 3")
    return context, f["ContextADC"]


# -- format conversion ---------------------------------------------------------------------------

def _src_tf32(x: np.ndarray) -> np.ndarray:
    """``WriteSrcTF32``: 19-bit Sign,Exp,Man -> Src's Sign,Man,Exp."""
    return (x & 0x40000) | ((x & 0x3FF) << 8) | ((x & 0x3FC00) >> 10)


def _src_bf16(x: np.ndarray) -> np.ndarray:
    return _src_tf32(x << 3)


def _src_fp16(x: np.ndarray) -> np.ndarray:
    return _src_tf32(((x & 0x8000) << 3) | (x & 0x7FFF))


def _dst_bf16(x: np.ndarray) -> np.ndarray:
    """``WriteDstBF16``: Sign,Exp,Man -> Sign,Man,Exp."""
    return (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)


def _dst_fp16(x: np.ndarray) -> np.ndarray:
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)


def _dst_fp32(x: np.ndarray) -> np.ndarray:
    """``WriteDstFP32``: ``WriteDstBF16`` of the high half, low half unchanged."""
    return (_dst_bf16(x >> 16) << 16) | (x & 0xFFFF)


_CLZ8 = np.array([8 - v.bit_length() for v in range(256)], dtype=np.int64)


def _clz8(m: np.ndarray) -> np.ndarray:
    """Leading zeros of 8-bit values (``stdc_leading_zeros_uc``)."""
    return _CLZ8[m]


def bfp8_to_bf16(bits: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """``BFP8ToBF16``: sign and 7-bit magnitude with a shared exponent, normalised (the
    exponent wraps at 8 bits as the page's ``uint8_t`` does)."""
    sign = (bits >> 7) & 1
    mag = (bits << 1) & 0xFF
    lz = _clz8(mag)
    norm = (mag << lz) & 0xFF
    e = (exp.astype(np.int64) - lz) & 0xFF
    out = (sign << 15) | (e << 7) | (norm & 0x7E)
    return np.where(mag == 0, np.where(sign != 0, 0xFF80, 0), out)


def bfp8a_to_fp16(bits: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """``BFP8aToFP16`` (an exponent that leaves 5 bits is undefined)."""
    sign = (bits >> 7) & 1
    mag = (bits << 1) & 0xFF
    lz = _clz8(mag)
    norm = (mag << lz) & 0xFF
    e = (exp.astype(np.int64) - lz) & 0xFF
    if np.any((e & 0xE0) & (mag != 0)):
        raise UndefinedBehavior(f"{PAGE}: BFP8aToFP16 exponent does not fit in 5 bits")
    out = (sign << 15) | (e << 10) | ((norm & 0x7E) << 3)
    return np.where(mag == 0, np.where(sign != 0, 0xFC00, 0), out)


def fp32_to_fp16(bits: np.ndarray) -> np.ndarray:
    """``FP32ToFP16`` (the page names it; module docstring: ttsim's rebias, saturate, truncate)."""
    sign = (bits >> 16) & 0x8000
    e = ((bits >> 23) & 0xFF).astype(np.int64) - 112
    man = (bits >> 13) & 0x3FF
    return np.where(e < 0, sign, np.where(e > 31, sign | 0x7FFF, sign | (e << 10) | man))


def fp8_to_fp16(bits: np.ndarray, e4m3: bool) -> np.ndarray:
    """FP8 to FP16: the page's ``DatumBits <<= 8`` (E5M2) with Blackhole's all-ones case, or
    Blackhole's E4M3 (module docstring)."""
    if e4m3:
        sign, e, m = (bits >> 7) & 1, (bits >> 3) & 0xF, bits & 7
        pad = np.where((e == 15) & (m == 7), 0x7F, 0)
        return (sign << 15) | (np.where(e != 0, e + 8, 0) << 10) | (m << 7) | pad
    return np.where(bits & 0x7F == 0x7F, (bits << 8) | 0xFF, bits << 8)


def convert(c: UnpackConfig, bits: np.ndarray, exps: np.ndarray | None) -> tuple[np.ndarray, int]:
    """``FormatConversion`` of UNPACR_Regular.md for whole arrays: (values, width), where width
    is 19 (Src), 16 (``Dst16b``) or 32 (``Dst32b``)."""
    in_fmt, out_fmt, to_dst = c.in_fmt, c.out_fmt, c.to_dst
    b = bits.astype(np.int64)

    def undefined(why: str) -> UndefinedBehavior:
        return UndefinedBehavior(f"{PAGE} FormatConversion: InDataFormat {format_name(in_fmt)}, "
                                 f"OutDataFormat {format_name(out_fmt)}{' to Dst' if to_dst else ''}: {why}")

    kind: str
    if in_fmt == FP32:
        if out_fmt == FP32:
            if to_dst:
                return _dst_fp32(b), 32
            raise undefined("FP32 is not a Src type")
        if out_fmt == TF32:
            return (_dst_fp32(b), 32) if to_dst else (_src_tf32(b >> 13), 19)
        if out_fmt == BF16:
            b = np.where(b & 0x7F800000 == 0, b & 0x80000000, b) >> 16
            kind = "BF16"
        elif out_fmt == FP16:
            b, kind = fp32_to_fp16(b), "FP16"
        else:
            raise undefined("no conversion from FP32")
    else:
        if in_fmt != out_fmt:
            raise undefined("the formats must be equal")
        if in_fmt in (BFP8, BFP4, BFP2):
            assert exps is not None
            b, kind = bfp8_to_bf16(b << (8 - DATUM_BITS[in_fmt]), exps), "BF16"
        elif in_fmt in (BFP8A, BFP4A, BFP2A):
            assert exps is not None
            b, kind = bfp8a_to_fp16(b << (8 - DATUM_BITS[in_fmt]), exps), "FP16"
        elif in_fmt == FP8:
            b, kind = fp8_to_fp16(b, c.lf8_4b_exp), "FP16"
        elif in_fmt == INT8:
            sign = 0 if c.int8_unsigned else b & 0x80
            mag = b - sign
            b, kind = np.where(mag != 0, mag | (16 << 10), 0) | (sign << 8), "FP16"
        elif in_fmt in (TF32, INT32):
            if to_dst:
                return _dst_fp32(b), 32
            raise undefined(f"{format_name(in_fmt)} cannot go to Src")
        elif in_fmt == INT16:
            return (b, 16) if to_dst else (((b & 0xFF00) << 3) | (b & 0xFF), 19)
        elif in_fmt in (BF16, FP16):
            kind = format_name(in_fmt)
        else:
            raise undefined("not a data type")
    if kind == "BF16":
        return (_dst_bf16(b), 16) if to_dst else (_src_bf16(b), 19)
    return (_dst_fp16(b), 16) if to_dst else (_src_fp16(b), 19)


#: UNPACRs of one conversion before its table is built: a table costs 1 to 4 ms (``convert`` of
#: 65 536 datums), what 200 to 800 face-sized UNPACRs save by it (about 5 us each).
TABLE_AFTER = 256
_TABLES: dict[tuple[int, int, bool, bool, bool], tuple[np.ndarray, int] | None] = {}   # built (None: cannot be)
_USES: dict[tuple[int, int, bool, bool, bool], int] = {}                              # not yet built


def conversion_table(c: UnpackConfig) -> tuple[np.ndarray, int] | None:
    """``convert`` for ``c``'s formats as a table, built once per conversion and process after
    its ``TABLE_AFTER``-th use: (the values of every datum ``InDataFormat`` can hold, BFP:
    indexed ``exponent << DatumBits | datum``; the width), so one lookup converts an UNPACR's
    datums.  None before that and where a table cannot stand for ``convert``: formats wider
    than 16 bits, BFP*a (``BFP8aToFP16`` is undefined for some exponents: ``convert`` says so
    per datum), and conversions the page leaves undefined (``convert`` says so at the
    instruction)."""
    key = c.conversion
    if key in _TABLES:
        return _TABLES[key]
    uses = _USES[key] = _USES.get(key, 0) + 1
    if uses < TABLE_AFTER:
        return None
    table = _TABLES[key] = _table(c)
    return table


def _table(c: UnpackConfig) -> tuple[np.ndarray, int] | None:
    if not 0 < c.width <= 16 or c.in_fmt in (BFP8A, BFP4A, BFP2A):
        return None
    datums = np.arange(1 << c.width, dtype=np.int64)
    exps = None
    if c.in_fmt in BFP_FORMATS:
        exps = np.repeat(np.arange(256, dtype=np.int64), len(datums))
        datums = np.tile(datums, 256)
    try:
        values, width = convert(c, datums, exps)
    except TensixEvent:
        return None
    table = (values & MASK19 if width == 19 else values).astype(np.uint32)  # what a Src write keeps
    table.flags.writeable = False
    return table, width


# -- L1 reads ------------------------------------------------------------------------------------

def read_datums(l1: np.ndarray, bit_addr: np.ndarray, width: int) -> np.ndarray:
    """``ReadL1Bytes`` of ``width``-bit datums at the given bit addresses (little-endian, the
    lowest bits first)."""
    byte = bit_addr >> 3
    if width >= 8:
        n = width // 8
        out = np.zeros(len(byte), dtype=np.int64)
        for k in range(n):
            out |= l1[byte + k].astype(np.int64) << (8 * k)
        return out
    return (l1[byte].astype(np.int64) >> (bit_addr & 7)) & ((1 << width) - 1)


# -- UNPACR ----------------------------------------------------------------------------------------

def unpacr_wait(cop: Coprocessor, thread: int, f: dict[str, int]) -> str | None:
    """Why an ``UNPACR`` waits at the Wait Gate: its unpacker's bank is not the unpackers'."""
    if f["CfgContextCntInc"] or f["SearchCacheFlush"]:
        return None
    which = f["WhichUnpacker"]
    reg = cop.state.srcb if which else cop.state.srca
    bank = cop.state.src_banks.unpacker[which]
    if reg.allowed_client[bank] != SrcClient.Unpackers:
        return f"UNPACR waits for {reg.name}[{bank}].AllowedClient == Unpackers ({PAGE})"
    return None


class Plan(NamedTuple):
    """Where one ``UNPACR`` reads: its context, configuration, datums and L1 bit addresses."""

    context: int
    which_adc: int
    config: UnpackConfig
    first: int                       # FirstDatum
    width: int                       # datum bits
    count: int                       # datums
    start_bit: int                   # the first datum's bit address
    bit_addr: np.ndarray | None      # per datum; None: whole bytes from start_bit on (no Tileize_mode, no FIFO wrap)
    exp_addr: np.ndarray | None      # per datum, BFP from L1

    def addresses(self) -> np.ndarray:
        """Every datum's bit address."""
        if self.bit_addr is not None:
            return self.bit_addr
        return self.start_bit + np.arange(self.count, dtype=np.int64) * self.width

    def data_range(self) -> tuple[int, int]:
        """The L1 bytes ``[lo, hi)`` the datums are read from (count > 0)."""
        if self.bit_addr is None:
            return self.start_bit >> 3, (self.start_bit + self.count * self.width + 7) >> 3
        return int(self.bit_addr.min()) >> 3, (int(self.bit_addr.max()) + self.width + 7) >> 3


def plan(cop: Coprocessor, thread: int, f: dict[str, int]) -> Plan:
    """The input side of UNPACR_Regular.md's model: context, first datum, datum count, input
    addresses (the BFP exponent section, ``Tileize_mode``'s row stride, the FIFO wrap)."""
    which = f["WhichUnpacker"]
    multi = bool(f["MultiContextMode"])
    context, which_adc = context_of(cop, thread, f)
    c = read_config(cop, thread, which, multi, context)
    if not c.uncompressed:
        raise UnimplementedFunctionality(f"{PAGE}: decompression (IsUncompressed false) is not modelled")
    width = c.width
    if not width:
        raise UndefinedBehavior(f"{PAGE}: InDataFormat {c.in_fmt} is not a data type")
    unit = UNPACKER1 if which else UNPACKER0
    x_pos, y_pos, _, _, x_end = cop.state.adcs.channels(which_adc, unit)[:5]
    _, _, z, w = cop.state.adcs.channels(thread, unit)[:4]
    first = ((w * c.z_dim + z) * c.y_dim + y_pos) * c.x_dim + x_pos
    count = max(x_end + 1 - x_pos, 0)
    in_addr, exp_start = c.in_addr, c.exp_start
    bfp = c.in_fmt in BFP_FORMATS
    if c.tileize:
        if width < 8:
            raise UndefinedBehavior(f"{PAGE}: Tileize_mode with {width}-bit datums")
        row_len, stride_bits = (TILEIZE_WIDE_ROW if width > 8 else 16), c.row_stride_tileize * 8
    else:
        row_len, stride_bits = 16, 16 * width
    start_bits = in_addr * 8 + first * width
    if (c.tileize or c.transpose) and start_bits % 128:
        raise UndefinedBehavior(f"{PAGE}: Tileize_mode / Transpose need InAddr_Datums 16-byte aligned")
    limit = cop.state.profile.l1_size      # ReadL1Bytes: "Address must be in L1"
    i = None
    bit_addr = None
    if c.tileize or width < 8 or (c.fifo_size and (start_bits + (count - 1) * width) >> 3 > c.limit * 16):
        i = np.arange(count, dtype=np.int64)
        bit_addr = start_bits + (i % row_len) * width + (i // row_len) * stride_bits
        if c.fifo_size:
            bit_addr = _wrap(c, bit_addr >> 3) * 8 + (bit_addr & 7)
        if count and (bit_addr.min() < 0 or (bit_addr.max() >> 3) + (width + 7) // 8 > limit):
            raise UndefinedBehavior(f"{PAGE}: ReadL1Bytes past L1 (addresses {int(bit_addr.min()) >> 3:#x}.."
                                    f"{int(bit_addr.max()) >> 3:#x})")
    elif count and (start_bits < 0 or (start_bits >> 3) + count * width // 8 > limit):  # whole bytes, in order
        raise UndefinedBehavior(f"{PAGE}: ReadL1Bytes past L1 (addresses {start_bits >> 3:#x}.."
                                f"{(start_bits >> 3) + (count - 1) * width // 8:#x})")
    exp_addr = None
    if bfp and not c.force_shared_exp:
        exp_addr = exp_start + (first + (np.arange(count, dtype=np.int64) if i is None else i)) // 16
        if c.fifo_size:
            exp_addr = _wrap(c, exp_addr)
        if count and (exp_addr.min() < 0 or exp_addr.max() + 1 > limit):
            raise UndefinedBehavior(f"{PAGE}: ReadL1Bytes past L1 (addresses {int(exp_addr.min()):#x}..{int(exp_addr.max()):#x})")
    return Plan(context, which_adc, c, first, width, count, start_bits, bit_addr, exp_addr)


def _wrap(c: UnpackConfig, addr: np.ndarray) -> np.ndarray:
    """The input FIFO's wrap of byte addresses (``Unpack_limit_address``, ``Unpack_fifo_size``)."""
    return np.where(addr > c.limit * 16, addr - c.fifo_size * 16, addr)


_WORD = {16: "<u2", 32: "<u4"}   # L1 words of 16- and 32-bit datums


def unpacr(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``UNPACR`` (UNPACR_Regular.md, UNPACR_IncrementContextCounter.md, UNPACR_FlushCache.md)."""
    which = f["WhichUnpacker"]
    if f["CfgContextCntInc"]:
        _increment_context_counter(cop, thread, which)
        return
    if f["SearchCacheFlush"]:
        return  # UNPACR_FlushCache.md: the cache is not modelled
    if f["srcb_bcast"]:
        raise MissingSpecification("UNPACR: Blackhole's srcb_bcast (no page describes it)")
    if f["RowSearch"]:
        raise UnimplementedFunctionality(f"{PAGE}: RowSearch (decompression row search) is not modelled")
    p = plan(cop, thread, f)
    c, l1 = p.config, cop.state.l1
    if p.bit_addr is None:  # a plain run of whole datums: one slice of L1
        lo = p.start_bit >> 3
        datums = l1[lo:lo + p.count * (p.width >> 3)]
        if p.width > 8:
            datums = datums.view(_WORD[p.width])
    else:
        datums = read_datums(l1, p.bit_addr, p.width)
    exps = None
    if c.in_fmt in BFP_FORMATS:
        if p.exp_addr is None:
            exps = np.full(len(datums), c.shared_exp, dtype=np.int64)
        else:
            exps = l1[p.exp_addr].astype(np.int64)
            if len(datums):
                cop.l1_read(int(p.exp_addr.min()), int(p.exp_addr.max()) + 1)
    if len(datums):
        cop.l1_read(*p.data_range())
    table = conversion_table(c)
    if table is None:
        values, out_width = convert(c, datums, exps)
        if out_width == 19:
            values &= MASK19
    else:
        values = table[0].take(datums if exps is None else (exps << c.width) | datums)
        out_width = table[1]
    if f["AllDatumsAreZero"]:
        values = np.zeros_like(values)
    _write_out(cop, thread, which, c, values, out_width)
    _update_counters(cop, thread, which, p.which_adc, f, c, bool(f["MultiContextMode"]))


def _out_address(state_adcs, thread: int, which: int, c: UnpackConfig) -> int:  # type: ignore[no-untyped-def]
    _, y, z, w = state_adcs.channels(thread, UNPACKER1 if which else UNPACKER0)[4:]
    addr = c.out_base + y * c.y_stride + z * c.z_stride + w * c.w_stride
    if c.out_fmt in (FP32, TF32, INT32):
        if addr & 3:
            raise UndefinedBehavior(f"{PAGE}: output address {addr} not 4-aligned for a 32-bit OutDataFormat")
        addr >>= 2
    elif c.out_fmt in (FP16, BF16, INT16):
        if addr & 1:
            raise UndefinedBehavior(f"{PAGE}: output address {addr} not 2-aligned for a 16-bit OutDataFormat")
        addr >>= 1
    if c.ctx_out_addr is not None:
        addr = addr + c.ctx_out_addr if (c.to_dst or c.add_dest_addr_cntr) else c.ctx_out_addr
    return addr


def _write_out(cop: Coprocessor, thread: int, which: int, c: UnpackConfig, values: np.ndarray, width: int) -> None:
    """The output half of the main loop: upsampling, then SrcA / SrcB / Dst positions (Src
    ``values`` are 19-bit)."""
    state = cop.state
    if c.to_dst and (c.col_shift or c.transpose):
        raise UndefinedBehavior(f"{PAGE}: unpacking to Dst with a column shift or Transpose")
    out0 = _out_address(state.adcs, thread, which, c)
    zeroes = (1 << c.upsample_rate) - 1
    n = len(values)
    if not zeroes and not c.to_dst and not c.col_shift and not c.transpose and not (out0 | n) & 15 \
            and _write_rows(cop, thread, which, c, values, out0 >> 4, n >> 4):
        return
    step = zeroes + 1
    pos = out0 + np.arange(n, dtype=np.int64) * step
    if zeroes and not c.upsample_interleave:  # zero datums after each datum
        pos = out0 + np.arange(n * step, dtype=np.int64)
        values = np.concatenate([values[:, None], np.zeros((n, zeroes), dtype=values.dtype)], axis=1).ravel()
    rows, cols = pos >> 4, pos & 15
    bank = state.src_banks.unpacker[which]
    if which == 1:
        rows = (rows + cop.unpacker_src_row[1][thread]) & 0x3F
        state.srcb.data[bank, rows, cols] = values
        return
    if not c.to_dst:
        keep = (rows >= 4) & (cols >= c.col_shift)
        rows, cols, values = rows[keep] - 4, cols[keep] - c.col_shift, values[keep]
        if c.srca_set_ovrd:
            rows = rows & 0x3F  # Blackhole wraps (module docstring)
        else:
            if len(rows) and rows.max() >= 16:
                raise UndefinedBehavior(f"{PAGE}: SrcA row {int(rows.max())} >= 16 without SRCA_SET_SetOvrdWithAddr")
            rows = rows + cop.unpacker_src_row[0][thread]
        if c.transpose:
            rows, cols = (rows & ~0xF) | cols, rows & 0xF
        state.srca.data[bank, rows, cols] = values
        return
    rows = (rows - 4) & (0xF if c.srca_set_ovrd else 0x3FF)
    uniq = np.unique(rows)
    port = cop.dst_port
    block = (port.read32(uniq) if width == 32 else port.read16(uniq)).astype(np.int64)
    block[np.searchsorted(uniq, rows), cols] = values
    if width == 32:
        port.write32(uniq, block.astype(np.uint32))
    else:
        port.write16(uniq, block.astype(np.uint16))


def _write_rows(cop: Coprocessor, thread: int, which: int, c: UnpackConfig, values: np.ndarray, row: int, n: int) -> bool:
    """``_write_out`` for whole rows of Src, when they land in order without wrapping (a plain
    tile): ``n`` rows from output row ``row`` on; False when they do not."""
    state = cop.state
    bank = state.src_banks.unpacker[which]
    if which == 1:
        first = (row + cop.unpacker_src_row[1][thread]) & 0x3F
        target = state.srcb.data
    else:
        if row < 4:  # rows below 4 are skipped
            return False
        first = row - 4
        if c.srca_set_ovrd:
            first &= 0x3F
        elif first + n > 16:
            return False  # the general path says which row is out of range
        else:
            first += cop.unpacker_src_row[0][thread]
        target = state.srca.data
    if first + n > 64:
        return False
    target[bank, first:first + n] = values.reshape(n, 16)
    return True


def _update_counters(cop: Coprocessor, thread: int, which: int, which_adc: int, f: dict[str, int],
                     c: UnpackConfig, multi: bool) -> None:
    state = cop.state
    if multi and f["UseContextCounter"]:
        nxt = (c.context + 1) & 7
        state.unpacker_context_counter[which][thread] = 0 if nxt >= 1 << c.context_count else nxt
    unit = UNPACKER1 if which else UNPACKER0
    for t in {thread, which_adc} if f["Ch0YInc"] or f["Ch0ZInc"] or f["Ch1YInc"] or f["Ch1ZInc"] else ():
        state.adcs.add(t, unit, 0, Y, f["Ch0YInc"])
        state.adcs.add(t, unit, 0, Z, f["Ch0ZInc"])
        state.adcs.add(t, unit, 1, Y, f["Ch1YInc"])
        state.adcs.add(t, unit, 1, Z, f["Ch1ZInc"])
    if f["FlipSrc"]:
        _flip(cop, thread, which, c.out_fmt, c.src_row_base)
    elif c.src_reg_set_upd:
        cop.unpacker_src_row[which][thread] = (cop.unpacker_src_row[which][thread] + 16 + c.src_row_base) & 0x3F


def flip_src(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``_update_counters``' FlipSrc step alone, for an ``UNPACR`` whose other effects were made
    elsewhere (the native push path runs the rest: ``tdbg.emu.native_matrix.run_queued``)."""
    which = f["WhichUnpacker"]
    c = read_config(cop, thread, which, bool(f["MultiContextMode"]), context_of(cop, thread, f)[0])
    _flip(cop, thread, which, c.out_fmt, c.src_row_base)


def _flip(cop: Coprocessor, thread: int, which: int, out_fmt: int, row_base: int) -> None:
    """Give the unpacker's bank to the Matrix Unit, with its implied format."""
    state = cop.state
    reg = state.srcb if which else state.srca
    bank = state.src_banks.unpacker[which]
    reg.allowed_client[bank] = SrcClient.MatrixUnit
    reg.fmt[bank] = out_fmt
    state.src_banks.unpacker[which] ^= 1
    cop.unpacker_src_row[which][thread] = row_base


def _increment_context_counter(cop: Coprocessor, thread: int, which: int) -> None:
    """UNPACR_IncrementContextCounter.md."""
    state = cop.state
    count = state.config.get(f"THCON_SEC{which}_REG2_Context_count", thread=thread)
    nxt = (state.unpacker_context_counter[which][thread] + 1) & 7
    state.unpacker_context_counter[which][thread] = 0 if nxt >= 1 << count else nxt


# -- UNPACR_NOP ------------------------------------------------------------------------------------

def _nop_mode(f: dict[str, int]) -> str:
    pop = f["Unpack_Pop"]
    if pop == 2:
        return "nop"
    if pop != 1:
        return "overlay"
    return "setdvalid" if f["Clr_to1_fmt_Ctrl"] == 3 else "clear"


def unpacr_nop_wait(cop: Coprocessor, thread: int, f: dict[str, int]) -> str | None:
    """UNPACR_NOP_ZEROSRC.md: the clear waits for its bank (``WaitLikeUnpacr``: the unpacker's,
    else the Matrix Unit's) to be the unpackers'."""
    if _nop_mode(f) != "clear":
        return None
    which = f["Unpacker_Select"]
    banks = cop.state.src_banks
    reg = cop.state.srcb if which else cop.state.srca
    if f["Stall_Clr_Cntrl"]:
        bank = banks.unpacker[which]
    else:
        bank = banks.matrix_unit_srcb if which else banks.matrix_unit_srca
    if reg.allowed_client[bank] != SrcClient.Unpackers:
        return f"UNPACR_NOP waits for {reg.name}[{bank}].AllowedClient == Unpackers (UNPACR_NOP_ZEROSRC.md)"
    return None


def unpacr_nop(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``UNPACR_NOP`` (module docstring: the Blackhole fields on the newer pages' modes)."""
    mode = _nop_mode(f)
    which = f["Unpacker_Select"]
    if mode == "nop":
        return
    if mode == "overlay":
        raise UnimplementedFunctionality(f"UNPACR_NOP: Unpack_Pop {f['Unpack_Pop']} pops a NoC overlay stream (not modelled)")
    state = cop.state
    cfg = state.config
    if mode == "clear":
        value_ctrl = f["Src_ClrVal_Ctrl"]
        if value_ctrl >= 2:
            raise MissingSpecification(f"UNPACR_NOP: Src_ClrVal_Ctrl {value_ctrl} (clear to one / to "
                                       "UNP_NOP_REG_CLR_VAL) has no bit-level definition")
        if value_ctrl and which:
            raise UndefinedBehavior("UNPACR_NOP_ZEROSRC.md: negative infinity is for SrcA only")
        reg = state.srcb if which else state.srca
        bank = state.src_banks.unpacker[which]
        for b in ((0, 1) if f["Bank_Clr_Ctrl"] else (bank,)):
            reg.data[b] = MASK19 if value_ctrl else 0
        if not f["Set_Dvalid"]:
            return
    base = cfg.get("SRCB_SET_Base" if which else "SRCA_SET_Base", thread=thread) << 4
    out_fmt = cfg.get(f"THCON_SEC{which}_REG2_Out_data_format", thread=thread)
    _flip(cop, thread, which, out_fmt, base)


# -- status (``info unpack``) ----------------------------------------------------------------------

def status(cop: Coprocessor, thread: int, which: int) -> list[tuple[str, str]]:
    """Unpacker ``which`` as thread ``thread`` sees it: the configuration a tt-llk style UNPACR
    (MultiContextMode, ContextNumber 0) would use, decoded by field name, where it would read and
    write, the ADCs, the banks; a configuration it cannot use is reported as such."""
    state = cop.state
    unit = UNPACKER1 if which else UNPACKER0
    reg = state.srcb if which else state.srca
    banks = state.src_banks
    lines: list[tuple[str, str]] = []
    offset = state.config.get(f"UNPACK_MISC_CFG_CfgContextOffset_{which}", thread=thread)
    counter = state.unpacker_context_counter[which][thread]
    lines.append(("context", f"CfgContextOffset_{which} = {offset}, ContextCounter = {counter}"))
    fields = {"WhichUnpacker": which, "MultiContextMode": 1, "UseContextCounter": 0, "ContextNumber": 0, "ContextADC": 0}
    try:
        p = plan(cop, thread, fields)
    except TensixEvent as event:
        lines.append(("next UNPACR", f"would stop: {event}"))
    else:
        c = p.config
        lines.append(("formats", f"InDataFormat {format_name(c.in_fmt)} -> OutDataFormat {format_name(c.out_fmt)}"
                      + (" (to Dst)" if c.to_dst else "")))
        lines.append(("tile", f"XDim {c.x_dim}, YDim {c.y_dim}, ZDim {c.z_dim}, WDim {c.w_dim}"
                      + (", Tileize_mode" if c.tileize else "") + (", Transpose" if c.transpose else "")))
        lines.append(("input", f"Base {c.base:#x} + Offset {c.offset:#x} -> InAddr {(c.base + (c.offset & 0xFFFF) + 1) * 16:#x}"
                      + (f", shared exponent {c.shared_exp} (Force_shared_exp)" if c.force_shared_exp else "")))
        n = p.count
        if n:
            lo, hi = p.data_range()
            text = f"{n} datums from FirstDatum {p.first}: L1 {lo:#x}..{hi:#x}"
            if p.exp_addr is not None:
                text += f", exponents {int(p.exp_addr.min()):#x}..{int(p.exp_addr.max()) + 1:#x}"
        else:
            text = "0 datums (Channel[1].X < Channel[0].X)"
        lines.append(("next UNPACR", text))
        try:
            out = _out_address(state.adcs, thread, which, c)
            lines.append(("output", f"OutAddr {out} (datums): "
                          + ("Dst" if c.to_dst else reg.name) + f" row {out // 16 - (0 if which else 4)}"
                          + ("" if which or c.to_dst else f" (rows below 4 are skipped; SetOvrdWithAddr {int(c.srca_set_ovrd)})")))
        except TensixEvent as event:
            lines.append(("output", f"would stop: {event}"))
    for ch in (0, 1):
        vals = " ".join(f"{'XYZW'[d]}={state.adcs.get(thread, unit, ch, d)}" for d in range(4))
        crs = " ".join(f"{'XYZW'[d]}_Cr={int(state.adcs.cr[thread, unit, ch, d])}" for d in range(4))
        lines.append((f"ADC T{thread} Channel[{ch}]", f"{vals}  {crs}"))
    bank = banks.unpacker[which]
    lines.append(("bank", f"SrcBank {bank}, SrcRow[T{thread}] {cop.unpacker_src_row[which][thread]}"))
    for b in (0, 1):
        lines.append((f"{reg.name}[{b}]", f"AllowedClient {reg.allowed_client[b].value}, implied format {format_name(reg.fmt[b])}"))
    return lines
