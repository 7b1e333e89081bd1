"""Packer format conversion: ``Dst`` datums to the byte stream a packer writes to L1.

Implements WormholeB0 ``TensixCoprocessor/Packers/FormatConversion.md`` (seed 002): the early
conversion (``Dst`` datum to an intermediate format, its first table), the late conversion
(intermediate to L1 format, its second table, with its denormal and NaN tables), the "Final L1
output format" list, and the "Configuring the conversions" section, which maps the page's
variables to config fields.  BFP layouts follow ``FloatBitPatterns.md`` ("BFP"); ``Dst`` bit
layouts are BlackholeA0 ``Dst.md``.  Everything is integer bit arithmetic on numpy int64 arrays.

Choices where the page is silent:

* L1 layout: datums in order, each little-endian; FP32 / TF32 / BF16 / FP16 / FP8 in the IEEE
  field order (sign, exponent, mantissa); INT32 / INT16 / INT8 sign-magnitude.  BFP4 puts the
  earlier datum of a pair in the low nibble, BFP2 the earliest of four in bits 1:0.
* Rounding (ties away from zero) that carries out of the top exponent: 8-bit exponents become
  infinity (exponent 255, mantissa 0); E5M6 saturates to its largest magnitude (no infinity in
  5-bit types).
* Flushes in the late conversion (denormals, and magnitudes up to 2**-15 when the exponent
  narrows) keep the sign; only the early rounding cells turn -0 into +0, as the page says.
  Saturation in the late conversion gives exponent and mantissa all ones, sign kept (the FP16
  pattern FloatBitPatterns.md calls infinity-like).
* BFP rounding: the shared exponent is the largest exponent of the 16 datums after conversion
  to BF16 / E5M7; each magnitude is the datum's significand (implicit one included) shifted
  right by one more than its exponent's distance to the shared one, rounded to nearest with
  ties away from zero, clamped to 127 if rounding overflows.  Denormals count as zero.  A datum
  whose final magnitude is zero gets sign 0, since sign 1 with magnitude 0 reads back as
  -2**128 / -Inf (BFP) or -2**16 (BFPa).
* INT8 shift-round-saturate gives sign 0 when the magnitude is 0 (as ``SFPSTOCHRND`` does);
  UINT8 saturates negative values to 0.
* An intermediate must match ``LateFromFormat``: the late conversion reads the type the early
  conversion produced.  BFP8 there names E8M6 or BF16 (the latter from ``Read_raw``), BFP8a
  names E5M6 or E5M7.  Anything else is ``UndefinedBehavior``.

Not modelled: stochastic rounding (``UnsupportedFunctionality``: the pages give no PRNG or
distribution for the packers), ``INT_DESCALE_Mode = 1`` (``MissingSpecification``: the page
leaves its index ``z`` unspecified), and Packer 0 reading datums from L1 (only ``Dst`` input).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tdbg import native
from tdbg.arch.data_formats import L1_FORMATS, DataFormat
from tdbg.native import address
from tdbg.tensix.config import TensixConfig
from tdbg.tensix.events import MissingSpecification, TensixEvent, UndefinedBehavior, UnsupportedFunctionality
from tdbg.tensix.formats import dst32_to_ieee

I64 = NDArray[np.int64]

PAGE = "Packers/FormatConversion.md"
BLOCK = 16  # datums sharing one BFP exponent


#: The 4-bit data type codes of ``IntermediateFormat`` / ``In_data_format`` /
#: ``Out_data_format`` (FormatConversion.md, last table: ``tdbg.arch.data_formats``).
Fmt = DataFormat
_CODES = frozenset(Fmt)
_LATE_TO_ONLY = frozenset({Fmt.BFP4A, Fmt.BFP4, Fmt.BFP2A, Fmt.BFP2})  # (‡) in that table


def _fmt_name(code: int) -> str:
    return Fmt(code).name if code in _CODES else f"code {code}"


# -- float types -------------------------------------------------------------------------------

@dataclass(frozen=True)
class FloatType:
    """A float type of the conversion tables: ``ebits`` exponent bits, ``mbits`` mantissa bits."""

    name: str
    ebits: int
    mbits: int

    @property
    def emax(self) -> int:
        return (1 << self.ebits) - 1

    @property
    def mmax(self) -> int:
        return (1 << self.mbits) - 1


FP32 = FloatType("FP32", 8, 23)
TF32 = FloatType("TF32", 8, 10)
BF16 = FloatType("BF16", 8, 7)
E8M6 = FloatType("E8M6", 8, 6)
FP16 = FloatType("FP16", 5, 10)
E5M7 = FloatType("E5M7", 5, 7)
E5M6 = FloatType("E5M6", 5, 6)
FP8 = FloatType("FP8", 5, 2)

_REBIAS = 127 - 15  # 8-bit exponent minus 5-bit exponent for the same value


@dataclass(frozen=True)
class Floats:
    """Float datums as separate sign, biased exponent and mantissa fields."""

    t: FloatType
    sign: I64
    exp: I64
    man: I64


@dataclass(frozen=True)
class Ints:
    """Integer datums: ``name`` is INT32 / INT16 / INT8 / UINT8, ``bits`` its L1 bit pattern."""

    name: str
    bits: I64


Datums = Floats | Ints


# -- output formats ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PackFormat:
    """An L1 output format ("Final L1 output format" of FormatConversion.md), by its L1 name
    (``tdbg.arch.data_formats.L1_FORMATS``)."""

    name: str
    code: Fmt               # LateToFormat
    datum_bits: int         # bits per datum in the data stream
    exp_bits: int           # BFP shared exponent width (0: not a BFP format)
    description: str
    unsigned: bool = False  # UINT8: code INT8 with Read_unsigned

    @property
    def is_bfp(self) -> bool:
        return self.exp_bits != 0


FORMATS: dict[str, PackFormat] = {
    f.name: PackFormat(f.name, f.format, f.facts.datum_bits, f.facts.shared_exponent, f.description, f.unsigned)
    for f in L1_FORMATS.values()
}


def format_by_name(name: str) -> PackFormat:
    """The output format called ``name`` (case-insensitive); ValueError lists the valid names."""
    try:
        return FORMATS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown pack format {name!r}; valid: {', '.join(FORMATS)}") from None


def _output_format(code: int, unsigned: bool) -> PackFormat:
    for f in FORMATS.values():
        if f.code == code and f.unsigned == (unsigned and code == Fmt.INT8):
            return f
    raise UndefinedBehavior(f"{PAGE}: LateToFormat {_fmt_name(code)} is not a data type")


# -- configuration -----------------------------------------------------------------------------

# Packers[i].Config[StateID] fields (SETDMAREG_Special.md notes).
_PACKER_SEC = ("THCON_SEC0_REG1", "THCON_SEC0_REG8", "THCON_SEC1_REG1", "THCON_SEC1_REG8")

DST_FORMATS = ("fp32", "int32", "bf16", "fp16", "int16")  # the early table's columns


@dataclass(frozen=True)
class PackerConfig:
    """The variables of FormatConversion.md "Configuring the conversions".

    ``intermediate_format`` / ``late_from_format`` / ``late_to_format`` are 4-bit ``Fmt`` codes
    (raw ints, so unassigned codes reach ``pack`` and raise there).  ``shift_amount`` is
    ``ShiftAmount`` (its low five bits are used), ``None`` when ``INT_DESCALE_Mode`` makes it
    per-datum.  ``stochastic`` asks for stochastic rounding.
    """

    read_32b_data: bool
    read_raw: bool
    read_unsigned: bool
    round_10b_mant: bool
    intermediate_format: int
    late_from_format: int
    late_to_format: int
    shift_amount: int | None = 0
    stochastic: bool = False

    @classmethod
    def from_config(cls, config: TensixConfig, packer: int = 0, thread: int = 0) -> PackerConfig:
        """Read the fields the page names, in the bank ``thread``'s ``CFG_STATE_ID`` selects.

        The stochastic flag is ``ALU_ROUNDING_MODE_Packer_srnd_en`` (the page names no field).
        """
        if not 0 <= packer < 4:
            raise ValueError(f"packer {packer} out of range 0..3")

        def get(name: str) -> int:
            return config.get(name, thread=thread)

        if get("ALU_FORMAT_SPEC_REG_Dstacc_override"):
            intermediate = get("ALU_FORMAT_SPEC_REG_Dstacc_val")
        else:
            intermediate = get("ALU_FORMAT_SPEC_REG2_Dstacc")
        shift: int | None = 0
        if get("INT_DESCALE_Enable"):
            shift = None if get("INT_DESCALE_Mode") else get("INT_DESCALE_VALUES_SEC0_Value")
        sec = _PACKER_SEC[packer]
        return cls(
            read_32b_data=bool(get("PCK_DEST_RD_CTRL_Read_32b_data")),
            read_raw=bool(get("PCK_DEST_RD_CTRL_Read_int8")),
            read_unsigned=bool(get("PCK_DEST_RD_CTRL_Read_unsigned")),
            round_10b_mant=bool(get("PCK_DEST_RD_CTRL_Round_10b_mant")),
            intermediate_format=intermediate,
            late_from_format=get(f"{sec}_In_data_format"),
            late_to_format=get(f"{sec}_Out_data_format"),
            shift_amount=shift,
            stochastic=bool(get("ALU_ROUNDING_MODE_Packer_srnd_en")),
        )

    @classmethod
    def for_output(cls, fmt: str | PackFormat, dst: str, *, rounding: bool = True,
                   shift_amount: int = 0) -> PackerConfig:
        """A documented configuration packing ``Dst`` data of type ``dst`` (``DST_FORMATS``)
        to ``fmt``, as the page's "Configuring the conversions" recommends.

        ``rounding`` picks the early rounding cell where the page offers one on that path
        (else identity or truncation; the late conversion still saturates / truncates, and BFP
        always rounds); for INT8 / UINT8 it picks shift-round-saturate over raw low bits.
        """
        f = fmt if isinstance(fmt, PackFormat) else format_by_name(fmt)
        d = dst.strip().lower()
        path = _for_output_path(f, d, rounding)
        if path is None:
            valid = [x for x in DST_FORMATS if _for_output_path(f, x, rounding)]
            raise ValueError(f"{PAGE} has no path from Dst {dst} to {f.name}; "
                             f"Dst formats that pack to {f.name}: {', '.join(valid)}")
        intermediate, raw, late_from = path
        return cls(read_32b_data=d in ("fp32", "int32"), read_raw=raw, read_unsigned=f.unsigned,
                   round_10b_mant=False, intermediate_format=intermediate,
                   late_from_format=late_from, late_to_format=f.code, shift_amount=shift_amount)

    @property
    def output_format(self) -> PackFormat:
        """The L1 format written (``LateToFormat``; UINT8 when the intermediate is unsigned)."""
        return _output_format(self.late_to_format, self.read_unsigned)

    def describe(self) -> str:
        """The conversions selected, e.g. ``FP32/INT32 -> TF32 (rounding); TF32 -> fp16``."""
        early = _early_step(self)
        _late_step(self, early.target)
        return (f"{early.source} -> {early.target} ({early.how}); "
                f"{early.target} -> {self.output_format.name}")


def _for_output_path(f: PackFormat, dst: str, rounding: bool) -> tuple[Fmt, bool, Fmt] | None:
    """(IntermediateFormat, Read_raw, LateFromFormat) of ``PackerConfig.for_output``."""
    name = f.name
    bfp8 = name in ("bfp8", "bfp4", "bfp2")
    bfp8a = name in ("bfp8a", "bfp4a", "bfp2a")
    if dst in ("fp32", "int32"):
        if name == "fp32" or name == "fp8" or bfp8a or (name == "fp16" and not rounding):
            return Fmt.FP32, True, Fmt.FP32
        if name == "tf32" or name == "fp16":  # FP32 -> FP16 rounds via TF32
            return Fmt.TF32, False, Fmt.TF32
        if name == "bf16":
            return Fmt.BF16, not rounding, Fmt.BF16
        if bfp8:  # BF16 by truncation; the BFP step rounds
            return Fmt.BFP8, True, Fmt.BFP8
        if name in ("int8", "uint8"):
            return Fmt.INT8, not rounding, Fmt.INT8
        return (Fmt.INT32, False, Fmt.INT32) if name == "int32" else None
    if dst == "bf16":
        if name == "tf32" and rounding:
            return Fmt.TF32, False, Fmt.TF32
        if name in ("fp32", "tf32", "bf16", "fp16", "fp8") or bfp8a:
            return Fmt.BF16, not rounding, Fmt.BF16
        if bfp8:
            return Fmt.BFP8, True, Fmt.BFP8
        return (Fmt.INT8, True, Fmt.INT8) if name == "int8" else None
    if dst == "fp16":
        if name in ("fp32", "tf32", "bf16", "fp16") or bfp8:
            return Fmt.FP16, not rounding, Fmt.FP16
        if name == "fp8":
            return Fmt.FP8, True, Fmt.FP8
        if bfp8a:  # E5M7 by truncation; the BFP step rounds
            return Fmt.BFP8A, True, Fmt.BFP8A
        return (Fmt.INT8, True, Fmt.INT8) if name == "int8" else None
    if dst == "int16":
        return (Fmt.INT16, False, Fmt.INT16) if name == "int16" else None
    return None


# -- early conversion --------------------------------------------------------------------------

@dataclass(frozen=True)
class _Early:
    """One cell of the early table: ``source`` column, ``target`` row, ``how`` the cell says."""

    source: str
    target: str
    how: str
    run: Callable[[I64], Datums]
    native: tuple[int, ...] | None = None  # float cells: what ``tdbg_pack`` (tdbg/native/pack.c) runs

    @property
    def rounds(self) -> bool:
        return self.how in ("rounding", "shift, round, saturate")


def _fp32_fields(b: I64) -> Floats:
    """Conventional FP32 bits (after undoing the Dst32 shuffle)."""
    return Floats(FP32, b >> 31, (b >> 23) & 0xFF, b & 0x7FFFFF)


def _bf16_fields(b: I64) -> Floats:
    """Dst16 BF16: sign 15, mantissa 14:8, exponent 7:0."""
    return Floats(BF16, b >> 15, b & 0xFF, (b >> 8) & 0x7F)


def _fp16_fields(b: I64) -> Floats:
    """Dst16 FP16: sign 15, mantissa 14:5, exponent 4:0."""
    return Floats(FP16, b >> 15, b & 0x1F, (b >> 5) & 0x3FF)


def _round(x: Floats, t: FloatType) -> Floats:
    """An early "Rounding" cell: nearest, ties away from zero; denormals and -0 become +0;
    with an 8-bit exponent NaN becomes infinity.  A carry out of the top exponent gives
    infinity (8-bit) or saturates (5-bit, no infinity)."""
    drop = x.t.mbits - t.mbits
    if drop > 0:  # round the mantissa; a carry moves the exponent
        man = (x.man + (1 << (drop - 1))) >> drop
        exp = x.exp + (man >> t.mbits)
        man &= t.mmax
    else:
        man, exp = x.man << -drop, x.exp
    if t.ebits == 5:
        over = exp > t.emax
        exp = np.where(over, t.emax, exp)
        man = np.where(over, t.mmax, man)
    elif np.count_nonzero(x.exp == t.emax):  # 8-bit exponent: NaN becomes infinity
        special = x.exp == t.emax
        exp = np.where(special, t.emax, exp)
        man = np.where(special, 0, man)
    zero = x.exp == 0
    if not np.count_nonzero(zero):
        return Floats(t, x.sign, exp, man)
    return Floats(t, np.where(zero, 0, x.sign), np.where(zero, 0, exp), np.where(zero, 0, man))


def _tf32_to_fp16_blackhole(x: Floats) -> Floats:
    """Blackhole's TF32 -> FP16 step of its FP32-Dst-to-FP16 early cell (``_early_step``): the
    exponent rebiased by 112; below FP16's range a zero of the same sign, above it exponent 31
    and mantissa 1023 (sign kept); exponent 0 keeps its mantissa (ttsim v1.10.0
    tensix.cpp:2418-2429 does not flush it, where the WH page's late TF32 -> FP16 calls that
    range mishandled)."""
    exp = x.exp - _REBIAS
    under, over = exp < 0, exp > FP16.emax
    return Floats(FP16, x.sign, np.where(under, 0, np.where(over, FP16.emax, exp)),
                  np.where(under, 0, np.where(over, FP16.mmax, x.man)))


def _truncate(x: Floats, t: FloatType) -> Floats:
    """An early "Truncation" cell: drop the low mantissa bits (denormals, NaN may change class)."""
    return Floats(t, x.sign, x.exp, x.man >> (x.t.mbits - t.mbits))


def _shift_round_saturate(b: I64, shift: int, unsigned: bool) -> Ints:
    """INT32 -> INT8 / UINT8: magnitude shifted right by ``shift & 31``, rounded to nearest with
    ties away from zero on the shifted-out bits, saturated to 127 (sign kept, cleared for 0) or
    to 0..255 (negative values to 0)."""
    s = shift & 31
    sign = b >> 31
    mag = ((b & 0x7FFFFFFF) + ((1 << s) >> 1)) >> s
    if unsigned:
        return Ints("UINT8", np.where(sign != 0, 0, np.minimum(mag, 255)))
    mag = np.minimum(mag, 127)
    return Ints("INT8", np.where(mag != 0, sign << 7, 0) | mag)


def _early_step(cfg: PackerConfig) -> _Early:
    """The early table cell ``cfg`` selects (FormatConversion.md "Configuring the conversions")."""
    code = cfg.intermediate_format
    if code not in _CODES or code in _LATE_TO_ONLY:
        raise UndefinedBehavior(f"{PAGE}: IntermediateFormat {_fmt_name(code)} is not valid "
                                "(unassigned, or a BFP4/BFP2 type only LateToFormat may name)")
    f, raw = Fmt(code), cfg.read_raw
    if cfg.read_32b_data:
        src, fields, source_type, code = "FP32/INT32", _fp32_fields, FP32, 0
    elif f in (Fmt.FP16, Fmt.BFP8A, Fmt.FP8):
        src, fields, source_type, code = "FP16", _fp16_fields, FP16, 2
    else:
        src, fields, source_type, code = "BF16", _bf16_fields, BF16, 1

    def floats(target: FloatType, how: str) -> _Early:
        op = _round if how == "rounding" else _truncate
        return _Early(src, target.name, how, lambda b: op(fields(b), target),
                      (code, 1 if how == "rounding" else 2, target.ebits, target.mbits))

    def identity() -> _Early:
        return _Early(src, source_type.name, "identity", fields, (code, 0, source_type.ebits, source_type.mbits))

    def undefined(why: str) -> UndefinedBehavior:
        width = 32 if cfg.read_32b_data else 16
        return UndefinedBehavior(f"{PAGE}: early conversion of {width}-bit Dst data with "
                                 f"IntermediateFormat {f.name}, Read_raw={int(raw)}: {why}")

    if f == Fmt.BF16 and cfg.round_10b_mant and cfg.late_to_format == Fmt.FP16:
        if raw or cfg.late_from_format != Fmt.TF32:
            raise undefined("Round_10b_mant=1 with a late conversion to FP16 is defined only "
                            "with Read_raw=0 and a TF32 -> FP16 late conversion")
        return floats(TF32, "rounding")
    if cfg.read_32b_data:
        if f == Fmt.INT32:
            return _Early(src, "INT32", "identity or bitcast", lambda b: Ints("INT32", b))
        if f == Fmt.FP32:
            return identity() if raw or not cfg.round_10b_mant else floats(TF32, "rounding")
        if f == Fmt.TF32:
            return identity() if raw else floats(TF32, "rounding")
        if f == Fmt.BF16:
            return floats(BF16, "truncation" if raw else "rounding")
        if f == Fmt.BFP8:
            return floats(BF16, "truncation") if raw else floats(E8M6, "rounding")
        if f == Fmt.INT8:
            return _early_int8(cfg, src)
        if f == Fmt.FP16 and cfg.round_10b_mant and not raw:
            # Blackhole only (the Wormhole page's table says No): tt-llk packs FP32 Dst data to
            # FP16 this way ("the gasket converts": data_format_inference.py infer_pack_in), and
            # ttsim v1.10.0 accepts it only with Round_10b_mant (tensix.cpp:2197-2201): round to
            # TF32 (tensix.cpp:2309-2316, as the TF32 cell), then narrow the exponent.
            return _Early(src, "FP16", "rounding", lambda b: _tf32_to_fp16_blackhole(_round(fields(b), TF32)),
                          (code, 3, FP16.ebits, FP16.mbits))
        raise undefined("the table says No")
    if f == Fmt.INT16:
        return _Early("INT16", "INT16", "identity", lambda b: Ints("INT16", b))
    if f == Fmt.TF32 or (f == Fmt.FP32 and cfg.round_10b_mant):
        if raw:
            raise undefined("rounding to TF32 needs Read_raw=0")
        return floats(TF32, "rounding")
    if f == Fmt.BF16:
        return identity() if raw else floats(BF16, "rounding")
    if f == Fmt.BFP8:
        return identity() if raw else floats(E8M6, "rounding")
    if f == Fmt.FP16:
        return identity() if raw else floats(FP16, "rounding")
    if f == Fmt.BFP8A:
        return floats(E5M7, "truncation") if raw else floats(E5M6, "rounding")
    if f == Fmt.FP8 and raw:
        return floats(FP8, "truncation")
    if f == Fmt.INT8 and raw and not cfg.read_unsigned:
        return _Early("BF16/FP16", "INT8", "sign bit only",
                      lambda b: Ints("INT8", (b >> 15) << 7))
    raise undefined("the table says No, or the page gives no configuration for it")


def _early_int8(cfg: PackerConfig, src: str) -> _Early:
    """FP32 / INT32 -> INT8 or UINT8 (``Read_unsigned``): raw low bits or shift-round-saturate."""
    name = "UINT8" if cfg.read_unsigned else "INT8"
    if cfg.read_raw:
        if cfg.read_unsigned:  # low 8 bits of mantissa / magnitude
            return _Early(src, name, "low bits", lambda b: Ints(name, b & 0xFF))
        return _Early(src, name, "sign and low bits",  # sign, low 7 bits of mantissa / magnitude
                      lambda b: Ints(name, ((b >> 31) << 7) | (b & 0x7F)))
    shift = cfg.shift_amount
    if shift is None:
        raise MissingSpecification(
            f"{PAGE}: INT_DESCALE_Mode=1 takes ShiftAmount from INT_DESCALE_VALUES_SEC"
            "[(z & 63) >> 2] 'for some value z' the page does not specify")
    return _Early(src, name, "shift, round, saturate",
                  lambda b: _shift_round_saturate(b, shift, cfg.read_unsigned))


# -- late conversion ---------------------------------------------------------------------------

def _late_float(x: Floats, t: FloatType) -> Floats:
    """Late float -> float: exponent rebias, saturation when the exponent narrows, mantissa
    truncation when it narrows, per the page's denormal and NaN tables."""
    shift = t.mbits - x.t.mbits
    if x.t == t:
        return x
    man = x.man << shift if shift >= 0 else x.man >> -shift
    sign, exp = x.sign, x.exp
    rule = f"{PAGE}: late {x.t.name} -> {t.name}"
    if x.t.ebits == t.ebits:
        if shift < 0:  # mantissa narrows: denormals flushed
            man = np.where(x.exp == 0, 0, man)
    elif t.ebits == 8:  # exponent widens
        if shift >= 0 and ((x.exp == 0) & (x.man != 0)).any():  # a denormal
            raise UndefinedBehavior(f"{rule}: denormal inputs are mishandled when the exponent "
                                    "widens and the mantissa does not narrow")
        exp = np.where(x.exp == 0, 0, x.exp + _REBIAS)
        man = np.where(x.exp == 0, 0, man)
    else:  # exponent narrows 8 -> 5: saturate, then truncate
        if ((x.exp == _REBIAS) & (x.man != 0)).any():
            raise UndefinedBehavior(f"{rule}: inputs with 2**-15 < |x| < 2**-14 are mishandled")
        exp = x.exp - _REBIAS
        sat = exp > t.emax  # includes infinity and NaN
        tiny = exp <= 0     # |x| <= 2**-15, denormals, zero
        exp = np.where(sat, t.emax, np.where(tiny, 0, exp))
        man = np.where(sat, t.mmax, np.where(tiny, 0, man))
    return Floats(t, sign, exp, man)


def _bfp(x: Floats, mag_bits: int) -> tuple[I64, I64]:
    """BF16 / E5M7 datums -> (sign-magnitude BFP datums, one shared exponent per 16).

    Rounds to BFP8 / BFP8a (nearest, ties away from zero, clamped at 127), then truncates to
    ``mag_bits`` magnitude bits (7, 3 or 1); see the module docstring for the choices.
    """
    exp = x.exp.reshape(-1, BLOCK)
    normal = exp != 0
    shared = exp.max(axis=1)
    sig = np.where(normal, (1 << 7) | x.man.reshape(-1, BLOCK), 0)
    shift = np.minimum(1 + shared[:, None] - exp, 10)
    mag = np.minimum((sig + ((1 << shift) >> 1)) >> shift, 127) >> (7 - mag_bits)
    sign = np.where(mag != 0, x.sign.reshape(-1, BLOCK), 0)
    return ((sign << mag_bits) | mag).ravel(), shared


@dataclass(frozen=True)
class _Late:
    fmt: PackFormat
    run: Callable[[Datums], tuple[bytes, bytes]]
    native: tuple[int, ...] | None = None  # float and BFP cells: what ``tdbg_pack`` runs


_FLOAT_OUT = {Fmt.FP32: FP32, Fmt.TF32: TF32, Fmt.BF16: BF16, Fmt.FP16: FP16, Fmt.FP8: FP8}
# LateFromFormat -> the intermediate types it may describe (footnote † for the BFP8 codes).
_LATE_FROM = {
    Fmt.FP32: ("FP32",), Fmt.TF32: ("TF32",), Fmt.BF16: ("BF16",), Fmt.BFP8: ("E8M6", "BF16"),
    Fmt.FP16: ("FP16",), Fmt.BFP8A: ("E5M6", "E5M7"), Fmt.FP8: ("FP8",),
    Fmt.INT32: ("INT32",), Fmt.INT16: ("INT16",), Fmt.INT8: ("INT8", "UINT8"),
}


def _store(values: I64, bits: int) -> bytes:
    """Datums of ``bits`` (2, 4, 8, 16, 32) bits each, little-endian, earliest datum lowest."""
    if bits >= 8:
        return values.astype(f"<u{bits // 8}").tobytes()
    per = 8 // bits
    v = values.reshape(-1, per) << (bits * np.arange(per))
    return v.sum(axis=1).astype(np.uint8).tobytes()


def _float_bits(x: Floats) -> I64:
    return (x.sign << (x.t.ebits + x.t.mbits)) | (x.exp << x.t.mbits) | x.man


def _late_step(cfg: PackerConfig, intermediate: str) -> _Late:
    """The late table cell for ``intermediate`` -> ``LateToFormat``, checked against
    ``LateFromFormat``."""
    out = cfg.output_format
    code = cfg.late_from_format
    rule = f"{PAGE}: late {intermediate} -> {out.name}"
    if code not in _LATE_FROM:
        raise UndefinedBehavior(f"{PAGE}: LateFromFormat {_fmt_name(code)} is not valid there")
    if intermediate not in _LATE_FROM[Fmt(code)]:
        raise UndefinedBehavior(f"{PAGE}: LateFromFormat {Fmt(code).name} does not describe the "
                                f"{intermediate} the early conversion produces")
    if intermediate.startswith(("INT", "UINT")):
        if out.code != Fmt(code):
            raise UndefinedBehavior(f"{rule}: the table says No")
        return _Late(out, lambda d: (_store(d.bits, out.datum_bits), b""))
    if out.code in (Fmt.INT32, Fmt.INT16, Fmt.INT8):
        raise UndefinedBehavior(f"{rule}: the table says No")
    if out.code == Fmt.TF32 and intermediate == "FP32":
        raise UndefinedBehavior(f"{rule}: the table says No (use the early conversion)")
    if out.is_bfp:
        step = BF16 if out.exp_bits == 8 else E5M7
        mag_bits = out.datum_bits - 1

        def run_bfp(d: Datums) -> tuple[bytes, bytes]:
            data, exps = _bfp(_late_float(d, step), mag_bits)
            return _store(data, out.datum_bits), exps.astype(np.uint8).tobytes()

        return _Late(out, run_bfp, (1, step.ebits, step.mbits, 0, out.datum_bits, mag_bits))
    t = _FLOAT_OUT[out.code]
    widen = 23 - t.mbits if t is TF32 else 0  # TF32 is stored as FP32 with 13 zero bits

    def run_float(d: Datums) -> tuple[bytes, bytes]:
        return _store(_float_bits(_late_float(d, t)) << widen, out.datum_bits), b""

    return _Late(out, run_float, (0, t.ebits, t.mbits, widen, out.datum_bits, 0))


# -- pack --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PackedData:
    """What a packer writes: ``data`` (the datum stream) and ``exponents`` (BFP formats: one
    byte per 16 datums, a separate stream in L1; empty otherwise)."""

    fmt: PackFormat
    data: bytes
    exponents: bytes


def _dst_input(dst_bits: ArrayLike, wide: bool) -> I64:
    """Dst32b words (``wide``) or Dst16b words, flattened, as conventional-layout int64."""
    a = np.asarray(dst_bits)
    if a.dtype.kind not in "iu":
        raise TypeError(f"Dst bit patterns must be integers, not {a.dtype}")
    b = a.astype(np.int64).ravel()
    width = 32 if wide else 16
    if a.dtype.itemsize * 8 > width or a.dtype.kind == "i":  # uint16 / uint32 words always fit
        if b.size and (b.min() < 0 or b.max() >> width):
            raise ValueError(f"Dst{width}b bit pattern does not fit in {width} bits")
    return dst32_to_ieee(b.astype(np.uint32)).astype(np.int64) if wide else b


@lru_cache(maxsize=64)
def _steps(cfg: PackerConfig) -> tuple[_Early, _Late]:
    """The early and late table cells ``cfg`` selects (once per configuration)."""
    early = _early_step(cfg)
    late = _late_step(cfg, early.target)
    if cfg.stochastic and (early.rounds or late.fmt.is_bfp):
        raise UnsupportedFunctionality(f"{PAGE}: stochastic rounding (the pages give no PRNG or "
                                       "distribution for the packers)")
    return early, late


@lru_cache(maxsize=64)
def _native_plan(cfg: PackerConfig) -> tuple[np.ndarray, PackFormat] | None:
    """``tdbg_pack``'s plan for ``cfg`` (tdbg/native/pack.c) and the output format, None where
    it has no such cells."""
    early, late = _steps(cfg)
    if early.native is None or late.native is None:
        return None
    plan = np.array(early.native + late.native, dtype=np.int32)
    plan.flags.writeable = False
    return plan, late.fmt


def native_cells(cfg: PackerConfig) -> tuple[np.ndarray, PackFormat] | None:
    """``_native_plan``, None also where the page leaves ``cfg`` undefined (``pack`` says so)."""
    try:
        return _native_plan(cfg)
    except TensixEvent:
        return None


SCRATCH = 1024  # datums of the native path's buffers: words in, data (up to 32 bits each), exponents, the maximum
_scratch = np.zeros(SCRATCH * 4 + SCRATCH * 4 + SCRATCH // 16 + 4, dtype=np.uint8)
_WORDS = _scratch[:4 * SCRATCH].view(np.uint32)
_DATA = _scratch[4 * SCRATCH:8 * SCRATCH]
_EXPS = _scratch[8 * SCRATCH:8 * SCRATCH + SCRATCH // 16]
_TOP = _scratch[8 * SCRATCH + SCRATCH // 16:].view(np.int32)
#: Where the words ``pack_words`` converts are.
WORDS = address(_scratch)


_GIVEN = (None, None, None, 0, 0, None)


def pack_words(lib, n: int, plan: np.ndarray, fmt: PackFormat,  # type: ignore[no-untyped-def]
               gather: tuple[int | None, int | None, int | None, bool, int, int | None] = _GIVEN,
               ) -> tuple[np.ndarray, np.ndarray | None, int] | None:
    """``tdbg_pack`` (``tdbg/native/pack.c``) of the ``n`` (at most ``SCRATCH``; BFP: whole
    blocks) words at ``WORDS``, or of those it gathers there first from ``Dst`` (``gather``:
    the addresses of ``bits``, ``ever_written`` and the row map, wide, the first index and the
    address of the offsets: ``packers._gather`` of ``packers._positions``), with the cells
    ``plan`` (``native_cells``): the data bytes, the exponent bytes (BFP, else None), both views
    of a buffer the next call overwrites, and the largest intermediate exponent (-1: no
    datums); None for data the page leaves undefined."""
    base = WORDS
    if lib.tdbg_pack(base, n, address(plan), base + 4 * SCRATCH, base + 8 * SCRATCH, base + 8 * SCRATCH + SCRATCH // 16,
                     *gather):
        return None
    return _DATA[:n * fmt.datum_bits // 8], _EXPS[:n // 16] if fmt.is_bfp else None, int(_TOP[0])


def pack_plain(dst_words: np.ndarray, n: int, cfg: PackerConfig) -> tuple[PackedData, int] | None:
    """``pack`` of ``n`` datums with nothing between the conversions (no ``stage``), by
    ``pack_words``: the packed data and the largest intermediate exponent (-1: no datums); None
    when that cannot run (no native library, integer cells, more than 1024 datums, or data the
    page leaves undefined: ``pack`` then says so).  ``dst_words``: uint16 or uint32 words, as
    ``pack`` takes them."""
    lib = native.library()
    if lib is None or n > SCRATCH or dst_words.dtype not in (np.uint16, np.uint32):
        return None
    found = _native_plan(cfg)
    if found is None:
        return None
    plan, fmt = found
    if fmt.is_bfp and n % BLOCK:
        return None
    _WORDS[:n] = dst_words.ravel()
    done = pack_words(lib, n, plan, fmt)
    if done is None:
        return None
    data, exps, top = done
    return PackedData(fmt, data.tobytes(), b"" if exps is None else exps.tobytes()), top


def pack(dst_bits: ArrayLike, cfg: PackerConfig, stage: Callable[[Datums], Datums] | None = None) -> PackedData:
    """Convert ``Dst`` datums (flattened in order) as the packer configured by ``cfg`` would.

    ``dst_bits`` are Dst32b words (``cfg.read_32b_data``) or Dst16b words, in Dst bit layout.
    BFP formats need a multiple of 16 datums.  ``stage`` sees the datums between the early and
    the late conversion (the packer's edge masking, ReLU, thresholding and histogram,
    ``tdbg.tensix.packers``).  Raises ``UndefinedBehavior`` for configurations or data the page
    leaves undefined, ``UnsupportedFunctionality`` for stochastic rounding.
    """
    early, late = _steps(cfg)
    bits = _dst_input(dst_bits, cfg.read_32b_data)
    if late.fmt.is_bfp and bits.size % BLOCK:
        raise ValueError(f"{late.fmt.name} packs blocks of {BLOCK} datums; got {bits.size}")
    datums = early.run(bits)
    if stage is not None:
        datums = stage(datums)
    data, exponents = late.run(datums)
    return PackedData(late.fmt, data, exponents)
