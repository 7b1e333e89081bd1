"""``TensixState``: everything the coprocessor model holds for one tile.

This is the object the emulation layer (``tdbg.emu``) bridges to and the session inspects: config, ``Dst``, the
RISC-V ``Dst`` window, ``SrcA`` / ``SrcB`` with their bank bits, the ADCs, the unpackers' context
counters, the packer's streams and the Sync Unit's mutexes.  ``l1`` is L1 as a numpy byte array
(the emulated tile gives the coprocessor a view of its memory; standing alone it is its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tdbg.arch import profile_for
from tdbg.arch.profile import Profile
from tdbg.tensix.state_description import StateDescription, array, obj, ranges, rows_changed, value, words_changed
from tdbg.tensix.adcs import Adcs
from tdbg.tensix.config import CfgTable, TensixConfig
from tdbg.tensix.dst import Dst
from tdbg.tensix.packers import PackerState
from tdbg.tensix.src import SrcBankSelect, SrcClient, SrcRegister
from tdbg.tensix.window import DstWindow


def _rows_undefined(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    rows = np.flatnonzero(before["ever_written"] & ~after["ever_written"])
    return [f"DstBits rows now undefined: {ranges(rows)}"] if len(rows) else []


def _clients(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    if (before["srca_clients"], before["srcb_clients"]) == (after["srca_clients"], after["srcb_clients"]):
        return []
    return [f"AllowedClient: SrcA {[c.value for c in after['srca_clients']]}, "
            f"SrcB {[c.value for c in after['srcb_clients']]}"]


def _refresh(state: TensixState) -> None:
    state.dst.recount_unpredictable()
    state.config.notify()


class TensixState:
    """The architectural state of one Tensix coprocessor."""

    def __init__(self, profile: Profile | None = None) -> None:
        profile = profile or profile_for()
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

    #: Everything above but L1 (the tile's), the config table and the window (derived from config).
    #: Power-on: all zero, Dst rows never written, every Src bank the unpackers'.
    STATE = StateDescription("tensix", (
        array("dst_bits", "dst.bits", report=rows_changed("DstBits", "dst_bits")),
        array("unpredictable", "dst.unpredictable", reset=False),
        array("ever_written", "dst.ever_written", reset=False, report=_rows_undefined),
        value("feature_disable", "dst.feature_disable", reset=0),
        array("srca", "srca.data", report=rows_changed("SrcA", "srca")),
        array("srcb", "srcb.data", report=rows_changed("SrcB", "srcb")),
        array("config", "config.config", report=words_changed("Config", "config")),
        array("thread_config", "config.thread_config", report=words_changed("ThreadConfig", "thread_config")),
        obj("srca_clients", "srca.allowed_client", reset=lambda s: [SrcClient.Unpackers] * len(s.srca.data),
            report=_clients, copy=list),
        obj("srcb_clients", "srcb.allowed_client", reset=lambda s: [SrcClient.Unpackers] * len(s.srcb.data), copy=list),
        obj("srca_fmt", "srca.fmt", reset=lambda s: [0] * len(s.srca.data), copy=list),
        obj("srcb_fmt", "srcb.fmt", reset=lambda s: [0] * len(s.srcb.data), copy=list),
        obj("banks", "src_banks", reset=lambda s: SrcBankSelect()),
        array("gprs"),
        array("mop_cfg"),
        obj("adcs", reset=lambda s: Adcs(s.profile.tensix.threads)),
        obj("unpacker_context_counter", reset=lambda s: [[0] * s.profile.tensix.threads for _ in range(2)]),
        obj("packer", reset=lambda s: PackerState()),
        obj("mutexes", reset=lambda s: [None] * s.profile.tensix.mutexes, copy=list),
    ), after=_refresh)
