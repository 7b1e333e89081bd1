"""The unpackers (tdbg.tensix.unpackers) against UNPACR_Regular.md and the newer UNPACR_NOP pages.

Expected values come from ``unpack_reference`` (a scalar transliteration of the page's
functional model, one datum at a time) or are worked by hand from the page in the comments;
Blackhole's choices (module docstring of tdbg.tensix.unpackers) are restated where a test needs
them.  Configuration goes through the config fields by name, as firmware writes it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unpack_reference as ref
from tdbg.tensix.adcs import PACKERS, UNPACKER0, UNPACKER1
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior, UnimplementedFunctionality
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode
ADC_KEYS = ("ch0_x", "ch0_y", "ch0_z", "ch0_w", "ch1_x", "ch1_y", "ch1_z", "ch1_w")


def make_cop() -> Coprocessor:
    return Coprocessor(TensixState())


def cfg(cop: Coprocessor, thread: int = 0, **fields: int) -> None:
    for name, value in fields.items():
        cop.state.config.set(name, value, thread=thread)


def tile_descriptor(in_fmt: int, x: int, y: int = 1, z: int = 1, w: int = 1, uncompressed: int = 1,
                    no_bfp_exp: int = 0) -> int:
    """UNPACR_Regular.md "Configuration": InDataFormat 0, IsUncompressed 4, NoBFPExpSection 5,
    XDim 16, YDim 32, ZDim 48, WDim 64."""
    return in_fmt | uncompressed << 4 | no_bfp_exp << 5 | x << 16 | y << 32 | z << 48 | w << 64


def configure(cop: Coprocessor, s: ref.Setup, thread: int = 0) -> None:
    """The config fields and ADCs that make one UNPACR (MultiContextMode off) do ``s``."""
    u = s.which
    sec = f"THCON_SEC{u}_"
    cfg(cop, thread, **{
        f"{sec}REG0_TileDescriptor": tile_descriptor(s.in_fmt, s.x_dim, s.y_dim, s.z_dim, s.w_dim,
                                                     no_bfp_exp=int(s.no_bfp_exp_section)),
        f"{sec}REG2_Out_data_format": s.out_fmt, f"{sec}REG3_Base_address": s.base, f"{sec}REG7_Offset_address": s.offset,
        f"{sec}REG2_Force_shared_exp": int(s.force_shared_exp), f"UNP{u}_FORCED_SHARED_EXP_shared_exp": s.shared_exp,
        f"{sec}REG2_Tileize_mode": int(s.tileize), f"{sec}REG2_Haloize_mode": int(s.transpose),
        f"{sec}REG2_Upsample_rate": s.upsample_rate, f"{sec}REG2_Upsample_and_interleave": int(s.upsample_interleave),
        f"UNP{u}_ADDR_BASE_REG_1_Base": s.out_base, f"UNP{u}_ADDR_CTRL_XY_REG_1_Ystride": s.y_stride,
        f"UNP{u}_ADDR_CTRL_ZW_REG_1_Zstride": s.z_stride, f"UNP{u}_ADDR_CTRL_ZW_REG_1_Wstride": s.w_stride,
        "SRCA_SET_SetOvrdWithAddr": int(s.set_ovrd),
    })
    if u == 0:
        cfg(cop, thread, THCON_SEC0_REG2_Unpack_If_Sel=int(s.to_dst))
    if s.tileize:
        stride = s.row_stride
        cfg(cop, thread, **{f"{sec}REG2_Shift_amount_cntx0": (stride >> 4) & 15,
                            f"{sec}REG2_Shift_amount_cntx1": (stride >> 8) & 15,
                            f"{sec}REG2_Shift_amount_cntx2": (stride >> 12) & 15})
    elif u == 0:
        cfg(cop, thread, THCON_SEC0_REG2_Shift_amount_cntx0=s.col_shift)
    unit = UNPACKER1 if u else UNPACKER0
    adc = dict.fromkeys(ADC_KEYS, 0) | s.adc
    for key, value in adc.items():
        ch, dim = int(key[2]), "xyzw".index(key[4])
        cop.state.adcs.set(thread, unit, ch, dim, value)


def unpacr(cop: Coprocessor, which: int = 0, thread: int = 0, **fields: int) -> None:
    cop.push(thread, encode("UNPACR", WhichUnpacker=which, Last=1, **fields))


def written(cop: Coprocessor, target: str, bank: int = 0) -> np.ndarray:
    state = cop.state
    if target == "SrcA":
        return state.srca.data[bank]
    if target == "SrcB":
        return state.srcb.data[bank]
    if target == "Dst16b":
        return state.dst.read16(np.arange(1024))
    return state.dst.read32(np.arange(512))


def check_against_reference(cop: Coprocessor, l1: bytes, s: ref.Setup) -> dict:
    expected = ref.unpack(l1, s)
    for (target, row, col), value in expected.items():
        got = int(written(cop, target)[row, col])
        assert got == value, f"{target}[{row}][{col}] = {got:#x}, page says {value:#x}"
    return expected


# -- FormatConversion, hand-worked ---------------------------------------------------------------

def test_bf16_to_srca_and_dst_by_hand() -> None:
    # BF16 1.0 = 0x3F80.  WriteSrcBF16: WriteSrcTF32(0x3F80 << 3 = 0x1FC00): exponent bits
    # 17:10 = 0x7F to 7:0, mantissa 0: Src 0x0007F.  WriteDstBF16: exponent 0x7F to 7:0: 0x007F.
    cop = make_cop()
    l1 = cop.state.l1
    l1[0x1000:0x1002] = [0x80, 0x3F]
    s = ref.Setup(base=0x1000 // 16 - 1, x_dim=16, adc={"ch1_x": 0}, ctx_out_addr=None, out_base=0, y_stride=0)
    configure(cop, s)
    cop.state.config.set("UNP0_ADDR_BASE_REG_1_Base", 128)   # OutAddr 128 >> 1 = 64: SrcA row 4 - 4 = 0
    unpacr(cop)
    assert int(cop.state.srca.data[0, 0, 0]) == 0x0007F
    cfg(cop, THCON_SEC0_REG2_Unpack_If_Sel=1, SRCA_SET_SetOvrdWithAddr=0)
    unpacr(cop)
    assert int(cop.state.dst.read16(0)[0]) == 0x007F


@pytest.mark.parametrize("datum, exp, bf16", [
    (0x40, 127, 0x3F80),   # sign 0, Mag 0x80: no leading zero -> exponent 127, mantissa 0: 1.0
    (0xA0, 127, 0xBF00),   # sign 1, Mag 0x40: one leading zero -> exponent 126: -0.5
    (0x7F, 127, 0x3FFE),   # Mag 0xFE: exponent 127, mantissa 0x7E: 1.984375
    (0x01, 127, 0x3C80),   # Mag 0x02: six leading zeros -> exponent 121, mantissa 0: 2**-6
    (0x80, 127, 0xFF80),   # sign 1, Mag 0: -inf (BFP8ToBF16)
    (0x00, 200, 0x0000),
    (0x01, 3, 0x7E80),     # exponent 3 - 6 wraps to 253 (uint8_t)
])
def test_bfp8_to_bf16_by_hand(datum: int, exp: int, bf16: int) -> None:
    cop = make_cop()
    l1 = cop.state.l1
    # one 16-datum block: exponent section (16 bytes: 1 exponent rounded up) then the datums
    l1[0x2000] = exp
    l1[0x2010:0x2020] = datum
    s = ref.Setup(in_fmt=ref.BFP8, out_fmt=ref.BFP8, x_dim=16, base=0x2000 // 16 - 1, adc={"ch1_x": 15})
    configure(cop, s)
    # an 8-bit OutDataFormat: OutAddr counts datums (64 = 4 rows, the rows the unpacker skips)
    cfg(cop, THCON_SEC0_REG2_Unpack_If_Sel=1, SRCA_SET_SetOvrdWithAddr=0, UNP0_ADDR_BASE_REG_1_Base=64)
    unpacr(cop)
    # Dst16b BF16: sign 15, mantissa 14:8, exponent 7:0
    dst = (bf16 & 0x8000) | ((bf16 & 0x7F) << 8) | ((bf16 >> 7) & 0xFF)
    assert (cop.state.dst.read16(0) == dst).all()


# -- FormatConversion and the main loop against the scalar reference -------------------------------

SRC_PAIRS = [(ref.FP32, ref.TF32), (ref.FP32, ref.BF16), (ref.FP32, ref.FP16), (ref.BF16, ref.BF16),
             (ref.BFP8, ref.BFP8), (ref.BFP4, ref.BFP4), (ref.BFP2, ref.BFP2), (ref.FP16, ref.FP16),
             (ref.BFP8A, ref.BFP8A), (ref.BFP4A, ref.BFP4A), (ref.BFP2A, ref.BFP2A), (ref.FP8, ref.FP8),
             (ref.INT8, ref.INT8), (ref.INT16, ref.INT16)]
DST_PAIRS = [(ref.FP32, ref.FP32), (ref.FP32, ref.TF32), (ref.FP32, ref.BF16), (ref.FP32, ref.FP16),
             (ref.BF16, ref.BF16), (ref.BFP8, ref.BFP8), (ref.BFP4, ref.BFP4), (ref.FP16, ref.FP16),
             (ref.BFP8A, ref.BFP8A), (ref.INT32, ref.INT32), (ref.INT16, ref.INT16), (ref.TF32, ref.TF32)]


def random_l1(rng: np.random.Generator, in_fmt: int, size: int) -> np.ndarray:
    data = rng.integers(0, 256, size, dtype=np.uint8)
    if in_fmt == ref.FP8:
        data &= 0x7E | 0x80  # the page's FP8 (Blackhole's all-ones case is tested by hand)
    return data


@settings(max_examples=60, deadline=None)
@given(pair=st.sampled_from(SRC_PAIRS + [p + ("dst",) for p in DST_PAIRS]), seed=st.integers(0, 2**32 - 1),
       faces=st.integers(1, 4), face=st.integers(0, 3), which=st.integers(0, 1))
def test_unpack_matches_the_page(pair: tuple, seed: int, faces: int, face: int, which: int) -> None:
    in_fmt, out_fmt, *dst = pair
    to_dst = bool(dst)
    which = 0 if to_dst else which
    face = min(face, faces - 1)
    rng = np.random.default_rng(seed)
    cop = make_cop()
    l1 = cop.state.l1
    base = 0x10000
    l1[base:base + 8192] = random_l1(rng, in_fmt, 8192)
    bfp = in_fmt in ref.BFP
    if in_fmt in (ref.BFP8A, ref.BFP4A, ref.BFP2A):
        l1[base:base + 64] = rng.integers(7, 32, 64)  # exponents that stay 5-bit (else undefined)
    elif bfp:
        l1[base:base + 64] = rng.integers(0, 256, 64)
    out_fmt_bytes = 4 if out_fmt in (ref.FP32, ref.TF32, ref.INT32) else 2 if out_fmt in (ref.FP16, ref.BF16, ref.INT16) else 1
    s = ref.Setup(which=which, in_fmt=in_fmt, out_fmt=out_fmt, x_dim=256, y_dim=1, z_dim=faces,
                  base=base // 16 - 1, to_dst=to_dst, set_ovrd=not to_dst and which == 0,
                  out_base=64 * out_fmt_bytes if which == 0 else 0, z_stride=0,
                  adc={"ch0_z": face, "ch1_x": 255})
    configure(cop, s)
    unpacr(cop, which)
    expected = check_against_reference(cop, bytes(l1), s)
    assert len(expected) == 256


def test_fp8_blackhole_patterns() -> None:
    # E5M2: low seven bits all ones -> FP16 0x7FFF pattern (Blackhole); E4M3 (Unp_LF8_4b_exp):
    # 0x38 = exponent 7, mantissa 0 -> FP16 exponent 15: 1.0; 0x7F -> exponent 23, mantissa 7 << 7 | 0x7F.
    cop = make_cop()
    l1 = cop.state.l1
    l1[0x1000:0x1004] = [0x7F, 0xFF, 0x38, 0x00]
    s = ref.Setup(in_fmt=ref.FP8, out_fmt=ref.FP8, x_dim=4, base=0x1000 // 16 - 1, adc={"ch1_x": 1}, out_base=64)
    configure(cop, s)
    unpacr(cop)
    # WriteSrcFP16(0x7FFF): sign 0, exponent 31 at 4:0, mantissa 0x3FF at 17:8
    assert list(cop.state.srca.data[0, 0, :2]) == [0x3FF1F, 0x7FF1F]
    cfg(cop, THCON_SEC0_REG1_Unp_LF8_4b_exp=1)
    cop.state.adcs.set(0, UNPACKER0, 0, 0, 2)
    cop.state.adcs.set(0, UNPACKER0, 1, 0, 3)
    unpacr(cop)
    assert list(cop.state.srca.data[0, 0, :2]) == [0x0000F, 0]


# -- address generation --------------------------------------------------------------------------

def test_faces_of_a_bf16_tile_go_to_srca_rows_0_to_15() -> None:
    # A 32x32 BF16 tile = 4 faces of 256 datums at 0x30000; each UNPACR reads face Z (first
    # datum Z * XDim * YDim) and Ch0ZInc moves to the next face.
    cop = make_cop()
    l1 = cop.state.l1
    tile = np.arange(1024, dtype=np.uint16) | 0x4000
    l1[0x30000:0x30800] = tile.view(np.uint8)
    s = ref.Setup(x_dim=256, z_dim=4, base=0x30000 // 16 - 1, out_base=128, adc={"ch1_x": 255})
    configure(cop, s)
    for face in range(4):
        cop.state.srca.allowed_client[:] = [SrcClient.Unpackers] * 2
        unpacr(cop, Ch0ZInc=1)
        bits = tile[face * 256:(face + 1) * 256].astype(np.int64)
        assert (cop.state.srca.data[0, :16].ravel() == ref_src_bf16(bits)).all()
    assert cop.state.adcs.get(0, UNPACKER0, 0, 2) == 4


def ref_src_bf16(bits: np.ndarray) -> np.ndarray:
    return np.array([ref.write_src_bf16(int(b)) for b in bits])


def test_bfp8_tile_exponent_section_and_faces() -> None:
    # 1024 BFP8 datums: 64 exponents, rounded up to whole 16-byte rows: the data starts 64
    # bytes after InAddr; face 2's exponents are bytes 32..47 of the section.
    cop = make_cop()
    l1 = cop.state.l1
    base = 0x40000
    l1[base:base + 64] = np.arange(64) + 100
    l1[base + 64:base + 64 + 1024] = 0x40                     # 1.0 * 2**(exp - 127)
    s = ref.Setup(in_fmt=ref.BFP8, out_fmt=ref.BFP8, x_dim=256, z_dim=4, base=base // 16 - 1, out_base=64,
                  adc={"ch0_z": 2, "ch1_x": 255})
    configure(cop, s)
    unpacr(cop)
    exps = (np.arange(256) // 16 + 32 + 100)
    assert (cop.state.srca.data[0, :16].ravel() == ref_src_bf16(exps << 7)).all()


def test_srcb_rows_and_flip_hands_the_bank_over_with_its_format() -> None:
    cop = make_cop()
    l1 = cop.state.l1
    l1[0x1000:0x1200] = 0x11
    s = ref.Setup(which=1, x_dim=256, base=0x1000 // 16 - 1, y_stride=32, adc={"ch1_x": 255, "ch1_y": 16})
    configure(cop, s)
    unpacr(cop, 1, FlipSrc=1)
    # OutAddr = 16 * 32 bytes >> 1 = 256 datums: SrcB rows 16..31 of bank 0
    assert (cop.state.srcb.data[0, 16:32] == ref.write_src_bf16(0x1111)).all()
    assert not cop.state.srcb.data[0, :16].any()
    assert cop.state.srcb.allowed_client == [SrcClient.MatrixUnit, SrcClient.Unpackers]
    assert cop.state.srcb.fmt[0] == ref.BF16 and cop.state.src_banks.unpacker[1] == 1


def test_unpacr_waits_for_its_bank() -> None:
    cop = make_cop()
    s = ref.Setup(x_dim=16, base=0x1000 // 16 - 1, out_base=128, adc={"ch1_x": 15})
    configure(cop, s)
    cop.state.srca.allowed_client[0] = SrcClient.MatrixUnit
    unpacr(cop)
    assert "SrcA[0].AllowedClient == Unpackers" in cop.waiting(0)
    cop.push(1, encode("SETRWC", FlipSrcA=1))   # the Matrix Unit gives bank 0 back
    assert cop.waiting(0) is None


def test_tileize_and_upsampling_and_transpose_against_reference() -> None:
    rng = np.random.default_rng(7)
    for extra in ({"tileize": True, "row_stride": 128, "row_len": 32},
                  {"upsample_rate": 1}, {"upsample_rate": 2, "upsample_interleave": True},
                  {"transpose": True}):
        cop = make_cop()
        l1 = cop.state.l1
        l1[0x8000:0x9000] = rng.integers(0, 256, 4096, dtype=np.uint8)
        s = ref.Setup(x_dim=64, base=0x8000 // 16 - 1, out_base=128, adc={"ch1_x": 63}, **extra)
        configure(cop, s)
        unpacr(cop)
        check_against_reference(cop, bytes(l1), s)


def test_multi_context_mode_as_llk_configures_it() -> None:
    # tt-llk's unpack_A: OvrdThreadId (MultiContextMode), CfgContextOffset_0 = 1 selects
    # Base_cntx1_address, Tile_x_dim_cntx1 and Dest_cntx1_address (64, with add_dest_addr_cntr).
    cop = make_cop()
    l1 = cop.state.l1
    l1[0x31000:0x31200] = np.arange(256, dtype=np.uint16).view(np.uint8)
    cfg(cop, THCON_SEC0_REG0_TileDescriptor=tile_descriptor(ref.BF16, 256), THCON_SEC0_REG2_Out_data_format=ref.BF16,
        THCON_SEC0_REG3_Base_cntx1_address=0x31000 // 16 - 1, THCON_SEC0_REG5_Tile_x_dim_cntx1=256,
        THCON_SEC0_REG2_Disable_zero_compress_cntx1=1, THCON_SEC0_REG5_Dest_cntx1_address=64,
        UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr=1, SRCA_SET_SetOvrdWithAddr=1, UNPACK_MISC_CFG_CfgContextOffset_0=1)
    cop.state.adcs.set(0, UNPACKER0, 1, 0, 255)
    cop.push(0, 0x420080C1)   # the word datacopy pushes: MultiContextMode, FlipSrc, Ch0ZInc 1, Last
    assert (cop.state.srca.data[0, :16].ravel() == ref_src_bf16(np.arange(256))).all()
    assert cop.state.srca.allowed_client[0] == SrcClient.MatrixUnit


def test_unmodelled_and_undefined_unpacks_stop() -> None:
    cop = make_cop()
    cfg(cop, THCON_SEC0_REG0_TileDescriptor=tile_descriptor(ref.BF16, 16, uncompressed=0))
    with pytest.raises(UnimplementedFunctionality, match="decompression"):
        unpacr(cop)
    cfg(cop, THCON_SEC0_REG0_TileDescriptor=tile_descriptor(ref.BF16, 16), THCON_SEC0_REG2_Out_data_format=ref.FP16)
    with pytest.raises(UndefinedBehavior, match="must be equal"):
        unpacr(cop)
    with pytest.raises(MissingSpecification, match="srcb_bcast"):
        unpacr(cop, srcb_bcast=1)


# -- UNPACR_NOP ----------------------------------------------------------------------------------

def test_unpacr_nop_clear_and_set_dvalid() -> None:
    # datacopy's 0x43800101: Unpacker_Select 1, Set_Dvalid, Unpack_Pop 1 (clear): SrcB's
    # unpacker bank becomes zero and goes to the Matrix Unit with THCON_SEC1 Out_data_format.
    cop = make_cop()
    cop.state.srcb.data[:] = 5
    cfg(cop, THCON_SEC1_REG2_Out_data_format=ref.BFP8)
    cop.push(0, 0x43800101)
    assert not cop.state.srcb.data[0].any() and (cop.state.srcb.data[1] == 5).all()
    assert cop.state.srcb.allowed_client[0] == SrcClient.MatrixUnit and cop.state.srcb.fmt[0] == ref.BFP8
    # negative infinity, both banks (Bank_Clr_Ctrl), SrcA: all 19 bits set (UNPACR_NOP_ZEROSRC.md)
    cop.push(0, encode("UNPACR_NOP", Unpacker_Select=0, Unpack_Pop=1, Src_ClrVal_Ctrl=1, Bank_Clr_Ctrl=1))
    assert (cop.state.srca.data == 0x7FFFF).all()
    with pytest.raises(UnimplementedFunctionality, match="overlay"):
        cop.push(0, encode("UNPACR_NOP", Unpack_Pop=0))


def test_unpacr_nop_clear_waits_for_the_matrix_units_bank() -> None:
    cop = make_cop()
    cop.state.srca.allowed_client[0] = SrcClient.MatrixUnit
    cop.push(0, encode("UNPACR_NOP", Unpacker_Select=0, Unpack_Pop=1))
    assert "UNPACR_NOP waits for SrcA[0]" in cop.waiting(0)


# -- ADC instructions ----------------------------------------------------------------------------

def test_adc_instructions() -> None:
    cop = make_cop()
    adcs = cop.state.adcs
    cop.push(1, encode("SETADCXY", U0=1, PK=1, X0=1, Y1=1, X0Val=5, Y1Val=3))
    assert adcs.get(1, UNPACKER0, 0, 0) == 5 and adcs.get(1, PACKERS, 1, 1) == 3 and adcs.get(1, UNPACKER1, 0, 0) == 0
    cop.push(1, encode("INCADCXY", U0=1, X0Inc=2, Y0Inc=1))
    assert adcs.get(1, UNPACKER0, 0, 0) == 7 and adcs.get(1, UNPACKER0, 0, 1) == 1
    assert int(adcs.cr[1, UNPACKER0, 0, 0]) == 5       # INCADC leaves X_Cr
    cop.push(1, encode("ADDRCRXY", U0=1, X0=1, X0Inc=4))
    assert adcs.get(1, UNPACKER0, 0, 0) == 9           # X_Cr 5 + 4, X = X_Cr
    cop.push(1, encode("SETADCZW", U1=1, Z0=1, W1=1, Z0Val=2, W1Val=6))
    assert adcs.get(1, UNPACKER1, 0, 2) == 2 and adcs.get(1, UNPACKER1, 1, 3) == 6
    cop.push(1, encode("SETADCXX", PK=1, X0Val=1, X1Val=15))
    assert adcs.get(1, PACKERS, 0, 0) == 1 and adcs.get(1, PACKERS, 1, 0) == 15
    cop.push(1, encode("SETADC", U1=1, Channel=1, XYZW=1, NewValue=(3 << 16) | 9))   # ThreadOverride 3: thread 2
    assert adcs.get(2, UNPACKER1, 1, 1) == 9 & 0x1FFF
    cop.push(0, encode("SETADC", U0=1, XYZW=2, NewValue=0x1FF))                    # Z wraps at 8 bits
    assert adcs.get(0, UNPACKER0, 0, 2) == 0xFF


# -- Blackhole: the bank's implied format, the tile-relative ZEROACC ------------------------------

def test_mova2d_reads_the_format_the_unpacker_gave_the_bank() -> None:
    # Src 0x0007F: BF16 style (8-bit exponent) keeps exponent 0x7F; FP16 style keeps the low 5
    # exponent bits (MOVA2D.md RemoveHighExponent): 0x1F.  The config says BF16, the bank FP16.
    cop = make_cop()
    cfg(cop, ALU_FORMAT_SPEC_REG0_SrcA=ref.BF16)
    cop.state.srca.data[0, 0:8] = 0x7F
    cop.state.srca.allowed_client[0] = SrcClient.MatrixUnit
    cop.state.srca.fmt[0] = ref.FP16
    cop.push(0, encode("MOVA2D", Move8Rows=1))
    assert (cop.state.dst.read16(0) == 0x1F).all()
    cfg(cop, DISABLE_IMPLIED_SRCA_FMT_Base=1)             # back to the config's SrcA format
    cop.push(0, encode("MOVA2D", Move8Rows=1))
    assert (cop.state.dst.read16(0) == 0x7F).all()


@pytest.mark.parametrize("absolute, offset, rows", [(0, 512, range(544, 560)), (1, 512, range(32, 48)),
                                                     (0, 0, range(32, 48))])
def test_zeroacc_16_rows_is_tile_relative(absolute: int, offset: int, rows: range) -> None:
    # ZEROACC Mode 1, Imm10 2: rows 32..47, moved by 512 rows when (MATH_Offset + RWCs.Dst) & 512
    # unless DEST_ACCESS_CFG_zeroacc_absolute_tile_mode (ttsim v1.10.0 ZEROACC).
    cop = make_cop()
    cop.state.dst.write16(np.arange(1024), np.ones((1024, 16), dtype=np.uint16))
    cfg(cop, DEST_TARGET_REG_CFG_MATH_Offset=offset, DEST_ACCESS_CFG_zeroacc_absolute_tile_mode=absolute)
    cop.push(0, encode("ZEROACC", Mode=1, Imm10=2))
    undefined = np.flatnonzero(~cop.state.dst.ever_written)
    assert list(undefined) == list(rows)


# -- mutexes and the Scalar Unit ------------------------------------------------------------------

def test_atgetm_holds_other_threads_until_atrelm() -> None:
    # ATGETM.md / ATRELM.md: a mutex held by T0 holds T2's ATGETM (and what follows it) at the
    # Wait Gate; T0's ATRELM releases it and T2 then holds it.
    cop = make_cop()
    cop.push(0, encode("ATGETM", Index=0))
    cop.push(2, encode("ATGETM", Index=0))
    cop.push(2, encode("SETDMAREG", RegIndex16b=0, Payload_SigSel=7))
    assert "held by T0" in cop.waiting(2) and cop.state.gprs[2, 0] == 0
    cop.push(1, encode("ATRELM", Index=0))            # not the holder: no change
    assert cop.waiting(2)
    cop.push(0, encode("ATRELM", Index=0))
    assert cop.waiting(2) is None and cop.state.mutexes[0] == 2 and cop.state.gprs[2, 0] == 7
    cop.push(1, encode("ATGETM", Index=1))            # index 1 is invalid: waits forever
    assert "waits forever" in cop.waiting(1)


def test_scalar_unit_gprs() -> None:
    # SETDMAREG_Immediate.md writes a 16-bit half; ADDDMAREG / MULDMAREG (low 16 bits of each) /
    # SHIFTDMAREG / CMPDMAREG / BITWOPDMAREG per their pages; the immediate forms (OpBisConst)
    # take RightReg as the number.
    cop = make_cop()
    g = cop.state.gprs[1]
    cop.push(1, encode("SETDMAREG", RegIndex16b=2, Payload_SigSel=0x1234))      # GPR 1 low half
    cop.push(1, encode("SETDMAREG", RegIndex16b=3, Payload_SigSel=0x3FFF, Payload_SigSelSize=3))  # high: 0xFFFF
    assert g[1] == 0xFFFF1234
    cop.push(1, encode("ADDDMAREG", LeftReg=1, RightReg=5, ResultReg=2, OpBisConst=1))
    assert g[2] == 0xFFFF1239
    cop.push(1, encode("MULDMAREG", LeftReg=1, RightReg=1, ResultReg=3))
    assert g[3] == (0x1234 * 0x1234) & 0xFFFFFFFF
    cop.push(1, encode("SHIFTDMAREG", LeftReg=1, RightReg=4, ResultReg=4, Mode=1, OpBisConst=1))
    assert g[4] == 0x0FFFF123
    cop.push(1, encode("CMPDMAREG", LeftReg=4, RightReg=1, ResultReg=5, Mode=1))   # 0x0FFFF123 < 0xFFFF1234
    assert g[5] == 1
    cop.push(1, encode("BITWOPDMAREG", LeftReg=1, RightReg=4, ResultReg=6, Mode=2))
    assert g[6] == 0xFFFF1234 ^ 0x0FFFF123
    with pytest.raises(UndefinedBehavior, match="Mode 3"):
        cop.push(1, encode("BITWOPDMAREG", LeftReg=1, RightReg=4, ResultReg=6, Mode=3))


def test_storeind_and_loadind_move_gprs_through_l1() -> None:
    # STOREIND_L1.md: address GPRs[AddrReg] * 16 + the 16-bit half OffsetIndex, post-incremented
    # by AutoIncSpec (3: +16); Size 1 (RegSizeSel): 32 bits.  LOADIND.md reads it back.
    cop = make_cop()
    g = cop.state.gprs[0]
    g[10], g[11], g[20] = 0x2000 // 16, 0xCAFEF00D, 0
    cop.push(0, encode("STOREIND", MemHierSel=1, RegSizeSel=1, AddrRegIndex=10, DataRegIndex=11,
                       OffsetIndex=40, AutoIncSpec=3))
    assert bytes(cop.state.l1[0x2000:0x2004]) == (0xCAFEF00D).to_bytes(4, "little")
    assert g.view(np.uint16)[40] == 16
    cop.push(0, encode("LOADIND", SizeSel=1, AddrRegIndex=10, DataRegIndex=12, OffsetIndex=41))
    assert g[12] == 0xCAFEF00D


@pytest.mark.parametrize("address", [0x16E000, 0x17FFF0])
def test_unpacr_reads_all_of_blackholes_l1(address: int) -> None:
    # BlackholeA0 BabyRISCV/README.md "Memory map": L1 is 1536 KiB (0x180000); Wormhole's 1464 KiB
    # (0x16E000) ends earlier.  BF16 1.0 read from the top 72 KiB lands in SrcA as 0x0007F (as in
    # test_bf16_to_srca_and_dst_by_hand).
    cop = make_cop()
    cop.state.l1[address:address + 2] = [0x80, 0x3F]
    configure(cop, ref.Setup(base=address // 16 - 1, x_dim=8, adc={"ch1_x": 0}, out_base=0, y_stride=0))
    cop.state.config.set("UNP0_ADDR_BASE_REG_1_Base", 128)
    unpacr(cop)
    assert int(cop.state.srca.data[0, 0, 0]) == 0x0007F


def test_unpacr_past_l1_and_storeind_at_its_top() -> None:
    cop = make_cop()
    configure(cop, ref.Setup(base=0x180000 // 16 - 1, x_dim=16, out_base=0, y_stride=0))
    with pytest.raises(UndefinedBehavior, match="past L1"):
        unpacr(cop)
    g = cop.state.gprs[0]                       # STOREIND_L1.md: GPRs[AddrReg] * 16 + offset
    g[10], g[11], g[20] = 0x17FFF0 // 16, 0x12345678, 0
    cop.push(0, encode("STOREIND", MemHierSel=1, RegSizeSel=1, AddrRegIndex=10, DataRegIndex=11, OffsetIndex=40))
    assert bytes(cop.state.l1[0x17FFF0:0x17FFF4]) == (0x12345678).to_bytes(4, "little")
