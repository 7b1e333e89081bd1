"""The Matrix Unit's measured datapath (tdbg/tensix/fpu_datapath.py): cases where it and the
pages' ``float`` code round differently.  Every expected ``DstBits`` word was measured on
Tenstorrent's simulator ttsim v1.10.0 with the same Src/Dst contents and config
(one probe firmware pushed the instruction, a ttsim harness seeded Src/Dst and dumped
``DstBits``); the comments work each one by hand.

Src BF16 layout: sign 18, mantissa 17:11, exponent 7:0 (so 1.0 = 0x0007F).  Src FP16: sign 18,
mantissa 17:8, exponent 4:0.  Dst16b BF16: sign 15, mantissa 14:8, exponent 7:0.  Dst16b FP16:
sign 15, mantissa 14:5, exponent 4:0.  Dst32b row 0 is ``DstBits`` rows 0 (sign, mantissa
22:16, exponent) and 8 (mantissa 15:0).
"""

from __future__ import annotations

import numpy as np
import pytest

from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import UnimplementedFunctionality
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode
ONE = 0x0007F


def bf16_src(bits: int) -> int:
    """IEEE BF16 bits -> the 19-bit Src BF16 layout."""
    return ((bits >> 15) << 18) | ((bits & 0x7F) << 11) | ((bits >> 7) & 0xFF)


@pytest.fixture
def cop(datapath: str) -> Coprocessor:
    """A coprocessor, once with the native datapath and once with the numpy model."""
    c = Coprocessor(TensixState())
    c.state.srca.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    c.state.srcb.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    for name in ("DISABLE_IMPLIED_SRCA_FMT_Base", "DISABLE_IMPLIED_SRCB_FMT_Base"):
        c.state.config.set(name, 1, thread=0)
    c.state.config.set("ALU_FORMAT_SPEC_REG0_SrcA", 5)           # BF16
    return c


def bits(cop: Coprocessor, row: int) -> int:
    return int(cop.state.dst.bits[row, 0])


def test_mvmul_aligns_each_group_of_eight_products(cop: Coprocessor) -> None:
    # Dst[0][0] = 1.0 * 1.0 + 7 * (1.0 * 1.5 * 2**-10).  The float sum 1.01025390625 rounds to
    # BF16 1.0078125.  The datapath aligns the seven small products (5-bit by 7-bit significand
    # slices: 24 * 64 = 1536 at exponent -10, against 16 * 64 = 1024) to the group's largest
    # exponent, rounding half up:
    # 1536 / 2**10 -> 2 each, total 1024 + 14 = 1038, i.e. 1.013671875, which rounds (8 bits,
    # half up: 129.75) to 130 / 128 = 1.015625: BF16 0x3F82, DstBits 0x027F.
    cop.state.srca.data[0, 0, 0] = ONE
    cop.state.srca.data[0, 1:8, 0] = bf16_src(0x3AC0)
    cop.state.srcb.data[0, 0, :] = ONE
    cop.push(0, encode("MVMUL", DstRow=0))
    assert bits(cop, 0) == 0x027F


def test_mvmul_into_dst32_keeps_the_aligned_sum(cop: Coprocessor) -> None:
    # The same into a 32-bit Dst: 1038 / 1024 exactly = 1 + 0x1C000 / 2**23: DstBits 0x017F
    # (mantissa 22:16 = 1, exponent 0x7F) and 0xC000 (mantissa 15:0).  float32 would keep
    # 1.01025390625 (mantissa 0x15000).
    cop.state.config.set("ALU_ACC_CTRL_Fp32_enabled", 1)
    cop.state.srca.data[0, 0, 0] = ONE
    cop.state.srca.data[0, 1:8, 0] = bf16_src(0x3AC0)
    cop.state.srcb.data[0, 0, :] = ONE
    cop.push(0, encode("MVMUL", DstRow=0))
    assert (bits(cop, 0), bits(cop, 8)) == (0x017F, 0xC000)


def test_elwmul_rounds_the_aligned_product_before_the_sum(cop: Coprocessor) -> None:
    # Dst BF16 1.0 += 1.0 * 1.984375 * 2**-9 (0x3B7E).  float: 1.00387573... -> 128.496 / 128
    # -> 1.0.  Datapath (16-bit Dst): the product aligned to Dst's exponent is 2**23 * 0.0038757
    # = 32512, rounded to a multiple of 2**13: 32768; 2**23 + 32768 keeps 8 bits as 128.5 ->
    # 129 (half up): 1.0078125 = BF16 0x3F81, DstBits 0x017F.
    cop.state.srca.data[0, 0, 0] = ONE
    cop.state.srcb.data[0, 0, 0] = bf16_src(0x3B7E)
    cop.state.dst.write16(0, np.full(16, 0x007F))
    cop.push(0, encode("ELWMUL", DstRow=0))
    assert bits(cop, 0) == 0x017F


def test_elwmul_second_fidelity_phase(cop: Coprocessor) -> None:
    # HiFi2's second pass (FidelityPhase 1: SrcA significand bits 5..1) onto Dst BF16 1.0:
    # SrcA 1.9921875 (0x3FFF: significand 0x7F8, bits 5..1 = 28) * SrcB 0.20703125 (0x3E54:
    # top seven significand bits 0x6A = 106): 28 * 106 = 2968 at 2**(127 + 124 - 127 - 5 - 10):
    # 0.0113220..., aligned to 1.0 and rounded to 2**13 steps (94976 -> 98304), 2**23 + 98304 ->
    # 129.5 -> 130: 1.015625 = DstBits 0x027F (float: 1.01132 -> 129.449 -> 0x017F).
    cop.state.config.set("FIDELITY_BASE_Phase", 1, thread=0)
    cop.state.srca.data[0, 0, 0] = bf16_src(0x3FFF)
    cop.state.srcb.data[0, 0, 0] = bf16_src(0x3E54)
    cop.state.dst.write16(0, np.full(16, 0x007F))
    cop.push(0, encode("ELWMUL", DstRow=0))
    assert bits(cop, 0) == 0x027F


def test_elwsub_into_dst32_drops_an_operand_twelve_places_down(cop: Coprocessor) -> None:
    # 1.0 - 1.25 * 2**-20 into Dst32b: float32 holds 0.99999880790710449 exactly, but the
    # datapath aligns SrcB's 11-bit significand 20 places right (12 or more: nothing left), so
    # the result is 1.0: DstBits 0x007F and 0x0000.
    cop.state.config.set("ALU_ACC_CTRL_Fp32_enabled", 1)
    cop.state.srca.data[0, 0, 0] = ONE
    cop.state.srcb.data[0, 0, 0] = bf16_src(0x35A0)
    cop.push(0, encode("ELWSUB", DstRow=0))
    assert (bits(cop, 0), bits(cop, 8)) == (0x007F, 0x0000)


def test_elwadd_fp16(cop: Coprocessor) -> None:
    # FP16: 1.0 + 1.5 * 2**-10: the smaller significand 0x600 shifted 10 places, half up: 2;
    # 0x400 + 2 -> 1 + 2**-9: DstBits mantissa 2 << 5 | exponent 15 = 0x004F.
    cop.state.config.set("ALU_FORMAT_SPEC_REG0_SrcA", 1)
    cop.state.srca.data[0, 0, 0] = 15
    cop.state.srcb.data[0, 0, 0] = (0x200 << 8) | 5
    cop.push(0, encode("ELWADD", DstRow=0))
    assert bits(cop, 0) == 0x004F


def test_mvmul_with_srcb_denormals_kept_is_not_modelled(cop: Coprocessor) -> None:
    cop.state.config.set("ALU_ACC_CTRL_Zero_Flag_disabled_src", 1)
    with pytest.raises(UnimplementedFunctionality, match="Zero_Flag_disabled_src"):
        cop.push(0, encode("MVMUL", DstRow=0))
