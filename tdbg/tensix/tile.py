"""``TensixState``: everything the coprocessor model holds for one tile.

This is the object the target layer bridges to and the session inspects: config, ``Dst``, the
RISC-V ``Dst`` window, ``SrcA`` / ``SrcB`` with their bank bits.
"""

from __future__ import annotations

from tdbg.tensix.config import CfgTable, TensixConfig
from tdbg.tensix.dst import Dst
from tdbg.tensix.profile import BLACKHOLE, Profile
from tdbg.tensix.src import SrcBankSelect, SrcRegister
from tdbg.tensix.window import DstWindow


class TensixState:
    """The architectural state of one Tensix coprocessor."""

    def __init__(self, profile: Profile = BLACKHOLE) -> None:
        self.profile = profile
        self.config = TensixConfig(CfgTable.load(profile.cfg_table))
        self.dst = Dst(self.config)
        self.window = DstWindow(self.dst, self.config)
        self.srca = SrcRegister("SrcA")
        self.srcb = SrcRegister("SrcB")
        self.src_banks = SrcBankSelect()
