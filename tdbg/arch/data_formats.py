"""The Tensix data formats: every fact tdbg uses about each 4-bit data format code, in one table.

The codes are those of ``IntermediateFormat`` / ``In_data_format`` / ``Out_data_format`` /
``ALU_FORMAT_SPEC_*`` (WormholeB0 ``Packers/FormatConversion.md`` and the newer
``Unpackers/FormatConversion.md``, last table; 12 and 13 name no format).  Blackhole and
Wormhole B0 use the same codes (tt-metal's ``tensix_types.h`` ``DataFormat`` for both, ttnn
0.81.1 wheel), so this table belongs to no one architecture's profile; a generation with other
codes would give its profile a table of its own.

Per format (``FormatFacts``): its name as the pages spell it, its datum size in L1, the width of
the exponent a BFP block shares, the Matrix Unit's data style (the MOV* and ELW* pages: "BF16"
style for ``FP32 BF16 BFP8 BFP4 BFP2 INT32 INT16``, "FP16" for ``FP16 FP8 BFP8a BFP4a BFP2a
INT8``, "TF32" for ``TF32``), whether it is an integer type, the type its data lands as in
``SrcA`` / ``SrcB`` (WormholeB0 ``SrcASrcB.md`` "Data types": FP32 and TF32 as TF32, the BF16
family as BF16, the FP16 family as FP16, FP8, Integer "8", Integer "16"; Integer "32" is no Src
type) and in ``Dst16b`` (BlackholeA0 ``Dst.md`` "Data types": the FP16 family, FP8 included, as
FP16, the BF16 family as BF16, INT16 and INT8 as themselves; FP32, TF32 and INT32 are no
``Dst16b`` type).  ``L1_FORMATS`` are the names the debugger reads and packs L1 data by.

A new data format is one row of ``FORMATS`` (and of ``L1_FORMATS`` when L1 data can have it).
``TT_METAL_FORMATS`` names them as tt-metal and tt-llk do, with the codes they give them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum


class DataFormat(IntEnum):
    """The 4-bit data format codes."""

    FP32 = 0
    FP16 = 1
    BFP8A = 2
    BFP4A = 3
    TF32 = 4
    BF16 = 5
    BFP8 = 6
    BFP4 = 7
    INT32 = 8
    INT16 = 9
    FP8 = 10
    BFP2A = 11
    INT8 = 14
    BFP2 = 15


@dataclass(frozen=True)
class FormatFacts:
    """What one data format is (module docstring)."""

    format: DataFormat
    name: str                   # the pages' spelling ("BFP8a")
    datum_bits: int             # bits of one datum in L1 (``DatumSizeBytes`` * 8)
    shared_exponent: int        # BFP: bits of the exponent 16 datums share; 0 for the others
    style: str                  # the Matrix Unit's style: "BF16", "FP16" or "TF32"
    integer: bool
    src_type: str | None        # the view its data has in SrcA / SrcB (None: no Src type)
    dst16_type: str | None      # the view its data has in Dst16b (None: no Dst16b type)

    @property
    def bfp(self) -> bool:
        return self.shared_exponent != 0

    @property
    def five_bit_exponent(self) -> bool:
        """A float type with FP16's 5-bit exponent (ReLU.md's ``ParseFP16`` formats)."""
        return self.style == "FP16" and not self.integer


F = DataFormat
FORMATS: dict[DataFormat, FormatFacts] = {f.format: f for f in (
    FormatFacts(F.FP32, "FP32", 32, 0, "BF16", False, "tf32", None),
    FormatFacts(F.FP16, "FP16", 16, 0, "FP16", False, "fp16", "fp16"),
    FormatFacts(F.BFP8A, "BFP8a", 8, 5, "FP16", False, "fp16", "fp16"),
    FormatFacts(F.BFP4A, "BFP4a", 4, 5, "FP16", False, "fp16", "fp16"),
    FormatFacts(F.TF32, "TF32", 32, 0, "TF32", False, "tf32", None),
    FormatFacts(F.BF16, "BF16", 16, 0, "BF16", False, "bf16", "bf16"),
    FormatFacts(F.BFP8, "BFP8", 8, 8, "BF16", False, "bf16", "bf16"),
    FormatFacts(F.BFP4, "BFP4", 4, 8, "BF16", False, "bf16", "bf16"),
    FormatFacts(F.INT32, "INT32", 32, 0, "BF16", True, None, None),
    FormatFacts(F.INT16, "INT16", 16, 0, "BF16", True, "int16", "int16"),
    FormatFacts(F.FP8, "FP8", 8, 0, "FP16", False, "fp8", "fp16"),
    FormatFacts(F.BFP2A, "BFP2a", 2, 5, "FP16", False, "fp16", "fp16"),
    FormatFacts(F.INT8, "INT8", 8, 0, "FP16", True, "int8", "int8"),
    FormatFacts(F.BFP2, "BFP2", 2, 8, "BF16", False, "bf16", "bf16"),
)}


def facts(code: int) -> FormatFacts | None:
    """The format with code ``code`` (None for a code that names none)."""
    try:
        return FORMATS[DataFormat(code)]
    except ValueError:
        return None


def name(code: int) -> str:
    """``code``'s name as the pages spell it, or ``code N``."""
    f = facts(code)
    return f.name if f else f"code {code}"


def having(predicate: Callable[[FormatFacts], bool]) -> frozenset[DataFormat]:
    """The formats for which ``predicate(FormatFacts)`` holds."""
    return frozenset(f.format for f in FORMATS.values() if predicate(f))


@dataclass(frozen=True)
class L1Format:
    """A name L1 data is read and packed by (``x ... as NAME``, ``tile ADDR as NAME``, ``pack``):
    a data format, read as unsigned for ``uint8`` (code INT8 with ``Read_unsigned``, Packers)."""

    name: str
    format: DataFormat
    description: str
    unsigned: bool = False

    @property
    def facts(self) -> FormatFacts:
        return FORMATS[self.format]


L1_FORMATS: dict[str, L1Format] = {f.name: f for f in (
    L1Format("fp32", F.FP32, "IEEE 754 FP32"),
    L1Format("tf32", F.TF32, "FP32 with a 10-bit mantissa, low 13 bits zero"),
    L1Format("bf16", F.BF16, "FP32 with a 7-bit mantissa"),
    L1Format("fp16", F.FP16, "FP16, no NaN, all-ones magnitude is infinity-like"),
    L1Format("fp8", F.FP8, "e5m2, FP16 bit patterns"),
    L1Format("bfp8", F.BFP8, "sign, 7-bit magnitude; 8-bit exponent per 16"),
    L1Format("bfp4", F.BFP4, "sign, 3-bit magnitude; 8-bit exponent per 16"),
    L1Format("bfp2", F.BFP2, "sign, 1-bit magnitude; 8-bit exponent per 16"),
    L1Format("bfp8a", F.BFP8A, "sign, 7-bit magnitude; 5-bit exponent per 16"),
    L1Format("bfp4a", F.BFP4A, "sign, 3-bit magnitude; 5-bit exponent per 16"),
    L1Format("bfp2a", F.BFP2A, "sign, 1-bit magnitude; 5-bit exponent per 16"),
    L1Format("int32", F.INT32, "sign, 31-bit magnitude"),
    L1Format("int16", F.INT16, "sign, 15-bit magnitude (or opaque 16 bits)"),
    L1Format("int8", F.INT8, "sign, 7-bit magnitude"),
    L1Format("uint8", F.INT8, "unsigned 0..255", unsigned=True),
)}


def tile_bytes(format: DataFormat, datums: int = 1024) -> int:
    """Bytes ``datums`` of ``format`` take in L1 (a 32x32 tile by default): the datums, and for
    a BFP format first one exponent byte per 16 datums (64 for a tile: 1088 bytes of BFP8)."""
    f = FORMATS[format]
    return datums * f.datum_bits // 8 + (datums // 16 if f.bfp else 0)


@dataclass(frozen=True)
class TtMetalFormat:
    """A data format as tt-metal's (and tt-llk's) ``DataFormat`` enum names it (``tensix_types.h``,
    ttnn 0.81.1 wheel; tt-llk's ``format_config.py`` ``BLACKHOLE_DATA_FORMAT_ENUM_VALUES``): its
    value there, and the 4-bit format whose L1 layout its data has (the unsigned integers and
    FP8 e4m3 have values of their own beyond the 4-bit codes)."""

    code: int
    layout: DataFormat


TT_METAL_FORMATS: dict[str, TtMetalFormat] = {
    "Float32": TtMetalFormat(0, F.FP32), "Float16": TtMetalFormat(1, F.FP16), "Bfp8": TtMetalFormat(2, F.BFP8A),
    "Tf32": TtMetalFormat(4, F.TF32), "Float16_b": TtMetalFormat(5, F.BF16), "Bfp8_b": TtMetalFormat(6, F.BFP8),
    "Bfp4_b": TtMetalFormat(7, F.BFP4), "Int32": TtMetalFormat(8, F.INT32), "UInt16": TtMetalFormat(9, F.INT16),
    "Int8": TtMetalFormat(14, F.INT8), "Bfp2_b": TtMetalFormat(15, F.BFP2), "UInt32": TtMetalFormat(24, F.INT32),
    "Fp8_e4m3": TtMetalFormat(26, F.FP8), "UInt8": TtMetalFormat(30, F.INT8),
}
