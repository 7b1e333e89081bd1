"""The packer (tdbg.tensix.packers): PACR's address generators and the stages around the format
conversion, against PACR.md and Packers/*.md.

Expected L1 bytes are worked from the pages here (conversion cells whose result is exact: BF16
identity, BF16 widened to FP32, BFP8 blocks of one exponent), never taken from tdbg.  Blackhole's
read interfaces and output address follow the choices in tdbg.tensix.packers' docstring.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tdbg.tensix.adcs import PACKERS, X, Y, Z
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UnimplementedFunctionality
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode
FP32, BF16, BFP8 = 0, 5, 6
OUT = 0x50000


def bf16(x: float) -> int:
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    assert u & 0xFFFF == 0
    return u >> 16


def dst_bf16(v: int) -> int:
    """IEEE BF16 -> Dst16b BF16 (sign 15, mantissa 14:8, exponent 7:0), Dst.md."""
    return (v & 0x8000) | ((v & 0x7F80) >> 7) | ((v & 0x7F) << 8)


def cfg(cop: Coprocessor, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=2)


def packer_setup(out_fmt: int = BF16, **extra: int) -> Coprocessor:
    """Packer configuration as tt-llk's datacopy has it (BF16 Dst16b), output at OUT."""
    cop = Coprocessor(TensixState())
    fields = dict(ALU_FORMAT_SPEC_REG2_Dstacc=BF16, THCON_SEC0_REG1_In_data_format=BF16,
        THCON_SEC0_REG1_Out_data_format=out_fmt, THCON_SEC0_REG1_Disable_zero_compress=1,
        THCON_SEC0_REG1_L1_Dest_addr=OUT // 16 - 1, PCK_EDGE_OFFSET_SEC0_mask=0xFFFF,
        PACK_COUNTERS_SEC0_pack_reads_per_xy_plane=16, PCK0_ADDR_CTRL_XY_REG_0_Ystride=32,
        PCK0_ADDR_CTRL_ZW_REG_0_Zstride=512,
        ADDR_MOD_PACK_SEC0_YsrcIncr=4, ADDR_MOD_PACK_SEC0_YdstIncr=4,
        ADDR_MOD_PACK_SEC1_YsrcClear=1, ADDR_MOD_PACK_SEC1_YdstClear=1, ADDR_MOD_PACK_SEC1_ZsrcClear=1,
        ADDR_MOD_PACK_SEC2_YsrcClear=1, ADDR_MOD_PACK_SEC2_YdstIncr=4, ADDR_MOD_PACK_SEC2_ZsrcIncr=1)
    cfg(cop, **(fields | extra))
    cop.state.adcs.set(2, PACKERS, 1, X, 15)  # SETADCXX: x_end 15
    return cop


def pack_tile(cop: Coprocessor) -> None:
    """tt-llk's pack MOP for one 32x32 tile: per face three PACRs (AddrMode 0), one with
    AddrMode 2 (next face), the very last with AddrMode 1 and Last."""
    for face in range(4):
        for i in range(4):
            last = face == 3 and i == 3
            mode = 1 if last else (2 if i == 3 else 0)
            cop.push(2, encode("PACR", AddrMode=mode, Last=int(last)))


def fill_tile(cop: Coprocessor) -> np.ndarray:
    """Dst16b rows 0..63 with distinct exact BF16 values; returns them as IEEE BF16, row-major."""
    values = ((np.arange(1024) % 251 + 1) * np.where(np.arange(1024) % 3 == 0, -1, 1)).astype(np.float32)
    ieee = (values.view(np.uint32) >> 16).astype(np.int64)
    assert ((values.view(np.uint32) & 0xFFFF) == 0).all()
    cop.state.dst.write16(np.arange(64), np.array([dst_bf16(int(v)) for v in ieee]).reshape(64, 16))
    return ieee


def test_bf16_tile_packs_face_by_face() -> None:
    cop = packer_setup()
    ieee = fill_tile(cop)
    pack_tile(cop)
    out = cop.state.l1[OUT:OUT + 2048].view(np.uint16)
    assert (out == ieee).all()
    assert cop.state.adcs.get(2, PACKERS, 0, Y) == 0 and cop.state.adcs.get(2, PACKERS, 0, Z) == 0


def test_bf16_to_fp32_widens() -> None:
    # Late BF16 -> FP32: same exponent, mantissa << 16 (FormatConversion.md).
    cop = packer_setup(FP32)
    ieee = fill_tile(cop)
    pack_tile(cop)
    assert (cop.state.l1[OUT:OUT + 4096].view(np.uint32) == ieee << 16).all()


def test_bfp8_exponent_section_then_data() -> None:
    # Exp_section_size 4: the exponent stream starts at the tile's address, the data 4 * 16
    # bytes later.  Row r holds 16 values 2**(r - 20) * (1 + k/8): one exponent per row (the
    # shared one), magnitudes (0x80 | k << 4) >> 1 = 0x40 | k << 3, exact (FloatBitPatterns.md).
    cop = packer_setup(BFP8, THCON_SEC0_REG1_Exp_section_size=4)
    rows = []
    for r in range(64):
        k = np.arange(16) % 8
        vals = (1 + k / 8) * 2.0 ** (r - 20) * np.where(np.arange(16) >= 8, -1, 1)
        rows.append(vals.astype(np.float32))
    ieee = (np.array(rows).view(np.uint32) >> 16).astype(np.int64)
    cop.state.dst.write16(np.arange(64), np.vectorize(dst_bf16)(ieee))
    pack_tile(cop)
    exps = cop.state.l1[OUT:OUT + 64]
    assert list(exps) == [127 + r - 20 for r in range(64)]
    data = cop.state.l1[OUT + 64:OUT + 64 + 1024].reshape(64, 16).astype(np.int64)
    k = np.arange(16) % 8
    expected = (0x40 | k << 3) | np.where(np.arange(16) >= 8, 0x80, 0)
    assert (data == expected).all()


def test_streams_continue_until_last_then_restart() -> None:
    cop = packer_setup()
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", AddrMode=0))               # rows 0..3 to OUT
    cop.push(2, encode("PACR", AddrMode=0, Last=1))       # rows 4..7 appended, then a new tile
    cop.push(2, encode("PACR", AddrMode=1))               # rows 8..11 back at OUT
    out = cop.state.l1[OUT:OUT + 256].view(np.uint16)
    assert (out[:64] == ieee[128:192]).all() and (out[64:128] == ieee[64:128]).all()


def test_last_pads_to_16_bytes_with_zeros() -> None:
    # One interface, 5 datums (Channel[1].X 4): 10 bytes, then 6 bytes of zero padding.
    cop = packer_setup()
    cop.state.l1[OUT:OUT + 32] = 0xAA
    ieee = fill_tile(cop)
    cop.state.adcs.set(2, PACKERS, 1, X, 4)
    cop.push(2, encode("PACR", ReadIntfSel=1, Last=1))
    out = cop.state.l1[OUT:OUT + 32]
    assert (out[:10].view(np.uint16) == ieee[:5]).all()
    assert (out[10:16] == 0).all() and (out[16:] == 0xAA).all()


def test_read_interfaces_pick_rows() -> None:
    # ReadIntfSel 0b1010: interfaces 1 and 3 read rows start + 1 and start + 3.
    cop = packer_setup()
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", ReadIntfSel=0b1010, Last=1))
    out = cop.state.l1[OUT:OUT + 64].view(np.uint16)
    assert (out[:16] == ieee[16:32]).all() and (out[16:] == ieee[48:64]).all()


def test_strided_dst_access_reads_rows_16_apart() -> None:
    # Blackhole's DstAccessMode 1 (tt-llk's untilize, with DEST_ACCESS_CFG remap_addrs and
    # swizzle_32b): interface k reads Dst row start + 16 * k (the rule ttsim v1.10.0 applies,
    # tensix.cpp:2271-2275; tt-llk's pack_untilize kernels match ttsim with it).  Interfaces 0
    # and 1: Dst16b rows 0 and 16.  Without remap and swizzle it is not modelled.
    cop = packer_setup()
    with pytest.raises(UnimplementedFunctionality, match="DstAccessMode"):
        cop.push(2, encode("PACR", DstAccessMode=1, Last=1))
    cop = packer_setup(DEST_ACCESS_CFG_remap_addrs=1, DEST_ACCESS_CFG_swizzle_32b=1)
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", DstAccessMode=1, ReadIntfSel=0b0011, Last=1))
    out = cop.state.l1[OUT:OUT + 64].view(np.uint16)
    assert (out[:16] == ieee[0:16]).all() and (out[16:] == ieee[256:272]).all()


def test_edge_mask_relu_downsampling_zero_write() -> None:
    cop = packer_setup(PCK_EDGE_OFFSET_SEC0_mask=0x00FF)
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", ReadIntfSel=1, Last=1))
    out = cop.state.l1[OUT:OUT + 32].view(np.uint16)
    assert (out[:8] == ieee[:8]).all() and (out[8:] == 0).all()      # EdgeMask bit clear: 0

    cop = packer_setup(STACC_RELU_ApplyRelu=1)
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", ReadIntfSel=1, Last=1))
    out = cop.state.l1[OUT:OUT + 32].view(np.uint16).astype(np.int64)
    assert (out == np.where(ieee[:16] & 0x8000, 0, ieee[:16])).all()  # ZERO_RELU: x <= 0 -> 0

    cop = packer_setup(THCON_SEC0_REG1_Downsample_mask=0x5555)
    ieee = fill_tile(cop)
    cop.push(2, encode("PACR", ReadIntfSel=0b11, Last=1))           # 32 datums, every other kept
    out = cop.state.l1[OUT:OUT + 32].view(np.uint16)
    assert (out == ieee[0:32:2]).all()

    cop = packer_setup()
    fill_tile(cop)
    cop.state.l1[OUT:OUT + 128] = 0xAA
    cop.push(2, encode("PACR", ZeroWrite=1, Last=1))   # assembly.yaml: ReadIntfSel 0 -> x_end + 1 zeros
    assert (cop.state.l1[OUT:OUT + 32] == 0).all() and (cop.state.l1[OUT + 32:OUT + 128] == 0xAA).all()


def test_l1_accumulation_fp32() -> None:
    # THCON_SEC0_REG1_Pack_L1_Acc: L1 += datum; 1.5 + 2.25 = 3.75 exactly.
    cop = packer_setup(FP32, THCON_SEC0_REG1_Pack_L1_Acc=1)
    cop.state.l1[OUT:OUT + 64] = np.full(16, 1.5, dtype=np.float32).view(np.uint8)
    cop.state.dst.write16(0, np.full(16, dst_bf16(bf16(2.25))))
    cop.push(2, encode("PACR", ReadIntfSel=1, Last=1))
    assert (cop.state.l1[OUT:OUT + 64].view(np.float32) == 3.75).all()


def test_undefined_dst_rows_pack_as_zero() -> None:
    # ZEROACC.md: rows marked undefined read as zero for the packer.
    cop = packer_setup()
    fill_tile(cop)
    cop.push(2, encode("ZEROACC", Mode=3))
    cop.push(2, encode("PACR", Last=1))
    assert (cop.state.l1[OUT:OUT + 128] == 0).all()


def test_compression_is_not_modelled() -> None:
    cop = packer_setup(THCON_SEC0_REG1_Disable_zero_compress=0)
    with pytest.raises(UnimplementedFunctionality, match="compression"):
        cop.push(2, encode("PACR", Last=1))


def dst_fp32(ieee: int) -> int:
    """IEEE FP32 -> Dst32b FP32 bit layout (BlackholeA0 Dst.md Load32's swizzle, inverted)."""
    return (ieee & 0x8000FFFF) | ((ieee & 0x007F0000) << 8) | ((ieee & 0x7F800000) >> 7)


def test_dst32b_rows_past_511_are_the_upper_half() -> None:
    # BlackholeA0 Dst.md: a Dst32b row stays a 10-bit index, Adj32(512) = DstBits row 512 (the
    # upper half, where tt-llk's second SyncHalf block of a 32-bit Dst is), not row 0.
    cop = packer_setup(FP32, ALU_FORMAT_SPEC_REG2_Dstacc=FP32, THCON_SEC0_REG1_In_data_format=FP32,
                       PCK_DEST_RD_CTRL_Read_32b_data=1, DEST_TARGET_REG_CFG_PACK_SEC0_Offset=512)
    one, two_and_half = struct.unpack("<2I", struct.pack("<2f", 1.0, 2.5))
    cop.state.dst.write32(0, np.full(16, dst_fp32(one), dtype=np.uint32))
    cop.state.dst.write32(512, np.full(16, dst_fp32(two_and_half), dtype=np.uint32))
    cop.push(2, encode("PACR", ReadIntfSel=1, Last=1))
    assert (cop.state.l1[OUT:OUT + 64].view(np.float32) == 2.5).all()
