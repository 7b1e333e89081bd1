"""SrcA / SrcB state (SrcASrcB.md, seed 004)."""

from __future__ import annotations

import numpy as np

from tdbg.tensix import state_description
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState


def test_shape_width_and_reset(tensix: TensixState) -> None:
    for reg in (tensix.srca, tensix.srcb):
        assert reg.data.shape == (2, 64, 16)
        assert reg.allowed_client == [SrcClient.Unpackers, SrcClient.Unpackers]
        reg.write(1, 63, np.full(16, 0xFFFFFFFF))
        assert (reg.read(1, 63) == 0x7FFFF).all()  # 19 bits
        reg.allowed_client[0] = SrcClient.MatrixUnit
        state_description.reset(tensix)
        assert not reg.data.any() and reg.allowed_client[0] is SrcClient.Unpackers
    banks = tensix.src_banks
    assert (banks.matrix_unit_srca, banks.matrix_unit_srcb, banks.unpacker) == (0, 0, [0, 0])
