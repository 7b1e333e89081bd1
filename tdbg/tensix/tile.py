"""``TensixState``: everything the coprocessor model holds for one tile.

This is the object the target layer bridges to and the session inspects: config, ``Dst``, the
RISC-V ``Dst`` window, ``SrcA`` / ``SrcB`` with their bank bits.
"""

from __future__ import annotations

import numpy as np

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
        self.gprs = np.zeros((3, 64), dtype=np.uint32)      # ScalarUnit GPRs[3][64]
        self.mop_cfg = np.zeros((3, 9), dtype=np.uint32)    # MOPExpander MopCfg[9] per thread

    def reset(self) -> None:
        """Back to the power-on state (all zero; Dst rows never written)."""
        self.config.config[:] = 0
        self.config.thread_config[:] = 0
        self.dst.bits[:] = 0
        self.dst.ever_written[:] = False
        self.dst.clear_unpredictable()
        self.dst.feature_disable = 0
        self.config.notify()
        self.srca.reset()
        self.srcb.reset()
        self.src_banks = SrcBankSelect()
        self.gprs[:] = 0
        self.mop_cfg[:] = 0
