"""A second, scalar implementation of UNPACR_Regular.md written from the page, one datum at a
time, for the tests to compare the vectorized unpacker against.

It follows the page's functional model literally (double addresses, the per-datum loop,
``FormatConversion`` with its helpers) for the uncompressed case; the Blackhole choices that the
page does not make are passed in (``srca_row_mask``: 63 on Blackhole, ``None`` for the page's
undefined rows >= 64; ``row_len``: the datums per L1 row, 16 on the page).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

FP32, FP16, BFP8A, BFP4A, TF32, BF16, BFP8, BFP4, INT32, INT16, FP8, BFP2A, INT8, BFP2 = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15)
SIZE = {BFP2: 0.25, BFP2A: 0.25, BFP4: 0.5, BFP4A: 0.5, BFP8: 1, BFP8A: 1, FP8: 1, INT8: 1,
        FP16: 2, BF16: 2, INT16: 2, FP32: 4, TF32: 4, INT32: 4}
BFP = {BFP8, BFP8A, BFP4, BFP4A, BFP2, BFP2A}


class Undefined(Exception):
    pass


def read_l1_bytes(l1: bytes, addr: float, num_bytes: float) -> int:
    bit_addr = int(addr * 8)
    result = 0
    for i in range(int(num_bytes * 8)):
        in_byte = l1[(bit_addr + i) // 8]
        result |= ((in_byte >> ((bit_addr + i) & 7)) & 1) << i
    return result


def leading_zeros8(x: int) -> int:
    n = 0
    for bit in range(7, -1, -1):
        if x >> bit & 1:
            break
        n += 1
    return n


def bfp8_to_bf16(datum: int, exp: int) -> int:
    sign = datum >> 7
    mag = (datum << 1) & 0xFF
    if mag == 0:
        return 0xFF80 if sign else 0
    lz = leading_zeros8(mag)
    mag = (mag << lz) & 0xFF
    exp = (exp - lz) & 0xFF
    return (sign << 15) | (exp << 7) | (mag & 0x7E)


def bfp8a_to_fp16(datum: int, exp: int) -> int:
    sign = datum >> 7
    mag = (datum << 1) & 0xFF
    if mag == 0:
        return 0xFC00 if sign else 0
    lz = leading_zeros8(mag)
    mag = (mag << lz) & 0xFF
    exp = (exp - lz) & 0xFF
    if exp & 0xE0:
        raise Undefined("BFP8aToFP16")
    return (sign << 15) | (exp << 10) | ((mag & 0x7E) << 3)


def write_dst_fp16(x: int) -> int:
    return (x & 0x8000) | ((x & 0x03FF) << 5) | ((x & 0x7C00) >> 10)


def write_dst_bf16(x: int) -> int:
    return (x & 0x8000) | ((x & 0x007F) << 8) | ((x & 0x7F80) >> 7)


def write_dst_fp32(x: int) -> int:
    return (write_dst_bf16(x >> 16) << 16) | (x & 0xFFFF)


def write_src_tf32(x: int) -> int:
    return (x & 0x40000) | ((x & 0x003FF) << 8) | ((x & 0x3FC00) >> 10)


def write_src_bf16(x: int) -> int:
    return write_src_tf32(x << 3)


def write_src_fp16(x: int) -> int:
    return write_src_tf32(((x & 0x8000) << 3) | (x & 0x7FFF))


def fp32_to_fp16(x: int) -> int:
    """The FP32ToFP16 Blackhole uses (tdbg's choice from ttsim, restated)."""
    sign = (x >> 31) << 15
    e = ((x >> 23) & 0xFF) - 112
    if e < 0:
        return sign
    if e > 31:
        return sign | 0x7FFF
    return sign | (e << 10) | ((x >> 13) & 0x3FF)


def format_conversion(in_fmt: int, out_fmt: int, bits: int, exp: int, to_dst: bool, int8_unsigned: bool = False) -> int:
    if in_fmt == FP32:
        if out_fmt == FP32:
            pass
        elif out_fmt == TF32:
            return write_dst_fp32(bits) if to_dst else write_src_tf32(bits >> 13)
        elif out_fmt == BF16:
            if not bits & 0x7F800000:
                bits &= 0x80000000
            bits >>= 16
            in_fmt = BF16
        elif out_fmt == FP16:
            bits = fp32_to_fp16(bits)
            in_fmt = FP16
        else:
            raise Undefined("out")
    else:
        if in_fmt != out_fmt:
            raise Undefined("in != out")
        if in_fmt == FP8:
            bits, in_fmt = bits << 8, FP16
        elif in_fmt == BFP8:
            bits, in_fmt = bfp8_to_bf16(bits, exp), BF16
        elif in_fmt == BFP4:
            bits, in_fmt = bfp8_to_bf16(bits << 4, exp), BF16
        elif in_fmt == BFP2:
            bits, in_fmt = bfp8_to_bf16(bits << 6, exp), BF16
        elif in_fmt == BFP8A:
            bits, in_fmt = bfp8a_to_fp16(bits, exp), FP16
        elif in_fmt == BFP4A:
            bits, in_fmt = bfp8a_to_fp16(bits << 4, exp), FP16
        elif in_fmt == BFP2A:
            bits, in_fmt = bfp8a_to_fp16(bits << 6, exp), FP16
        elif in_fmt == INT8:
            sign = 0 if int8_unsigned else bits & 0x80
            bits -= sign
            if bits:
                bits |= 16 << 10
            bits |= sign << 8
            in_fmt = FP16
        elif in_fmt == TF32:
            if to_dst:
                return write_dst_fp32(bits)
            raise Undefined("TF32 in")
    if in_fmt == INT16:
        return bits if to_dst else ((bits & 0xFF00) << 3) | (bits & 0xFF)
    if in_fmt in (INT32, FP32):
        if to_dst:
            return write_dst_fp32(bits)
        raise Undefined("32-bit to Src")
    if in_fmt == BF16:
        return write_dst_bf16(bits) if to_dst else write_src_bf16(bits)
    if in_fmt == FP16:
        return write_dst_fp16(bits) if to_dst else write_src_fp16(bits)
    raise Undefined("format")


@dataclass
class Setup:
    """The page's inputs for one uncompressed, single-context UNPACR (MultiContextMode false
    unless ``context`` is given)."""

    which: int = 0
    in_fmt: int = BF16
    out_fmt: int = BF16
    x_dim: int = 256
    y_dim: int = 1
    z_dim: int = 1
    w_dim: int = 1
    base: int = 0            # Base_address (16-byte units)
    offset: int = 0
    no_bfp_exp_section: bool = False
    force_shared_exp: bool = False
    shared_exp: int = 0
    tileize: bool = False
    row_stride: int = 0      # bytes, when tileize
    row_len: int = 16
    to_dst: bool = False
    transpose: bool = False
    out_base: int = 0
    y_stride: int = 0
    z_stride: int = 0
    w_stride: int = 0
    ctx_out_addr: int | None = None
    add_dest_addr_cntr: bool = False
    upsample_rate: int = 0
    upsample_interleave: bool = False
    col_shift: int = 0
    set_ovrd: bool = True    # SRCA_SET_SetOvrdWithAddr
    src_row: int = 0         # Unpackers[which].SrcRow[thread]
    srca_row_mask: int | None = 63
    adc: dict[str, int] = field(default_factory=dict)   # ch0_x, ch0_y, ch0_z, ch0_w, ch1_x, ch1_y, ch1_z, ch1_w
    zero: bool = False


def unpack(l1: bytes, s: Setup) -> dict[tuple[str, int, int], int]:
    """The writes one UNPACR makes: {(target, row, col): value}, target "SrcA" / "SrcB" /
    "Dst16b" / "Dst32b"."""
    a = {k: 0 for k in ("ch0_x", "ch0_y", "ch0_z", "ch0_w", "ch1_x", "ch1_y", "ch1_z", "ch1_w")} | s.adc
    size = SIZE[s.in_fmt]
    in_addr = (s.base + (s.offset & 0xFFFF) + 1) * 16
    in_addr_exponents = None
    if s.in_fmt in BFP and not s.force_shared_exp:
        in_addr_exponents = float(in_addr)
        if s.in_fmt in (BFP8, BFP8A) or not s.no_bfp_exp_section:
            num = s.x_dim * s.y_dim * s.z_dim * s.w_dim
            in_addr += math.ceil(math.ceil(num / 16) / 16) * 16
    first = ((a["ch0_w"] * s.z_dim + a["ch0_z"]) * s.y_dim + a["ch0_y"]) * s.x_dim + a["ch0_x"]
    count = a["ch1_x"] + 1 - a["ch0_x"]
    if in_addr_exponents is not None:
        in_addr_exponents += first / 16
    datums_addr = in_addr + first * size
    row_stride = s.row_stride if s.tileize else size * 16
    out = s.out_base + a["ch1_y"] * s.y_stride + a["ch1_z"] * s.z_stride + a["ch1_w"] * s.w_stride
    if s.out_fmt in (FP32, TF32, INT32):
        out >>= 2
    elif s.out_fmt in (FP16, BF16, INT16):
        out >>= 1
    if s.ctx_out_addr is not None:
        out = out + s.ctx_out_addr if (s.to_dst or s.add_dest_addr_cntr) else s.ctx_out_addr
    zeroes = (1 << s.upsample_rate) - 1
    writes: dict[tuple[str, int, int], int] = {}
    i = 0
    while i < count:
        bits = read_l1_bytes(l1, datums_addr, size)
        datums_addr += size
        i += 1
        if i % s.row_len == 0:
            datums_addr -= size * s.row_len
            datums_addr += row_stride
        exp = 0
        if s.in_fmt in BFP:
            if s.force_shared_exp:
                exp = s.shared_exp
            else:
                exp = read_l1_bytes(l1, math.floor(in_addr_exponents), 1)
                in_addr_exponents += 1 / 16
        datum = format_conversion(s.in_fmt, s.out_fmt, bits, exp, s.to_dst)
        if s.zero:
            datum = 0
        for k in range(zeroes + 1):
            if not (s.upsample_interleave and k != 0):
                row, col = out // 16, out & 15
                if s.which == 1:
                    writes["SrcB", (row + s.src_row) & 0x3F, col] = datum & 0x7FFFF
                elif not s.to_dst:
                    if row >= 4 and col >= s.col_shift:
                        row, col = row - 4, col - s.col_shift
                        if s.set_ovrd:
                            if row >= 64:
                                if s.srca_row_mask is None:
                                    raise Undefined("row")
                                row &= s.srca_row_mask
                        else:
                            if row >= 16:
                                raise Undefined("row")
                            row += s.src_row
                        if s.transpose:
                            row, col = (row & ~0xF) | col, row & 0xF
                        writes["SrcA", row, col] = datum & 0x7FFFF
                else:
                    row = (row - 4) & (15 if s.set_ovrd else 0x3FF)
                    writes["Dst32b" if s.out_fmt in (FP32, TF32, INT32) else "Dst16b", row, col] = datum
            datum = 0
            out += 1
    return writes
