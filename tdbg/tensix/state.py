"""``TensixState``: everything the coprocessor model holds for one tile.

This is the object the emulation layer (``tdbg.emu``) bridges to and the session inspects: config, ``Dst``, the
RISC-V ``Dst`` window, ``SrcA`` / ``SrcB`` with their bank bits, the ADCs, the unpackers' context
counters, the packer's streams and the Sync Unit's mutexes.  ``l1`` is L1 as a numpy byte array
(the emulated tile gives the coprocessor a view of its memory; standing alone it is its own).
"""

from __future__ import annotations

import copy

import numpy as np

from tdbg.tensix.adcs import Adcs
from tdbg.tensix.config import CfgTable, TensixConfig
from tdbg.tensix.dst import Dst
from tdbg.tensix.packers import PackerState
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.arch.profile import Profile
from tdbg.tensix.src import SrcBankSelect, SrcRegister
from tdbg.tensix.window import DstWindow


class TensixState:
    """The architectural state of one Tensix coprocessor."""

    def __init__(self, profile: Profile = BLACKHOLE) -> None:
        self.profile = profile
        spec = profile.tensix
        threads = spec.threads
        self.config = TensixConfig(CfgTable.load(profile.package, profile.cfg_table), threads)
        self.dst = Dst(self.config, spec.dst_rows, spec.dst_cols)
        # the RISC-V Dst window, where the generation has one
        self.window = DstWindow(self.dst, self.config, profile.window, threads) if profile.window else None
        self.srca = SrcRegister("SrcA", spec.src_banks, spec.src_rows, spec.src_cols)
        self.srcb = SrcRegister("SrcB", spec.src_banks, spec.src_rows, spec.src_cols)
        self.src_banks = SrcBankSelect()
        self.gprs = np.zeros((threads, spec.gprs), dtype=np.uint32)             # ScalarUnit GPRs[thread][64]
        self.mop_cfg = np.zeros((threads, spec.mop_cfg_words), dtype=np.uint32)  # MOPExpander MopCfg[9] per thread
        self.l1 = np.zeros(profile.l1_size, dtype=np.uint8)
        self.adcs = Adcs(threads)
        self.unpacker_context_counter = [[0] * threads for _ in range(2)]  # Unpackers[i].ContextCounter[thread]
        self.packer = PackerState()
        self.mutexes: list[int | None] = [None] * spec.mutexes   # ATGETM.md Mutex[i].HeldBy (a thread)

    def snapshot(self) -> dict[str, object]:
        """Copies of every array and bit of state (for checkpoints)."""
        dst = self.dst
        return {
            "config": self.config.config.copy(), "thread_config": self.config.thread_config.copy(),
            "dst_bits": dst.bits.copy(), "unpredictable": dst.unpredictable.copy(),
            "ever_written": dst.ever_written.copy(), "feature_disable": dst.feature_disable,
            "srca": self.srca.data.copy(), "srcb": self.srcb.data.copy(),
            "clients": (list(self.srca.allowed_client), list(self.srcb.allowed_client)),
            "banks": copy.deepcopy(self.src_banks), "gprs": self.gprs.copy(), "mop_cfg": self.mop_cfg.copy(),
            "fmts": (list(self.srca.fmt), list(self.srcb.fmt)),
            "units": copy.deepcopy((self.adcs, self.unpacker_context_counter, self.packer, self.mutexes)),
        }

    def restore(self, snap: dict[str, object]) -> None:
        """Put back a ``snapshot`` (arrays are copied in place, so views stay valid)."""
        dst = self.dst
        self.config.config[:] = snap["config"]
        self.config.thread_config[:] = snap["thread_config"]
        dst.bits[:] = snap["dst_bits"]
        dst.unpredictable[:] = snap["unpredictable"]
        dst._any_unpredictable = bool(dst.unpredictable.any())
        dst.ever_written[:] = snap["ever_written"]
        dst.feature_disable = snap["feature_disable"]  # type: ignore[assignment]
        self.config.notify()
        self.srca.data[:] = snap["srca"]
        self.srcb.data[:] = snap["srcb"]
        self.srca.allowed_client, self.srcb.allowed_client = (list(c) for c in snap["clients"])  # type: ignore[attr-defined]
        self.src_banks = copy.deepcopy(snap["banks"])  # type: ignore[assignment]
        self.gprs[:] = snap["gprs"]
        self.mop_cfg[:] = snap["mop_cfg"]
        self.srca.fmt, self.srcb.fmt = (list(f) for f in snap["fmts"])  # type: ignore[attr-defined]
        self.adcs, self.unpacker_context_counter, self.packer, self.mutexes = copy.deepcopy(snap["units"])  # type: ignore[misc]

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
        self.adcs.reset()
        self.unpacker_context_counter = [[0] * self.profile.tensix.threads for _ in range(2)]
        self.packer.reset()
        self.mutexes = [None] * len(self.mutexes)
