"""Register-window counters (RWCs), ``ApplyAddrMod``, ``SETRWC`` and ``INCRWC``.

Implements WormholeB0 ``TensixCoprocessor/RWCs.md``, ``SETRWC.md`` and ``INCRWC.md``.  Each
Tensix thread owns one ``RWCs`` record; every counter wraps at its width (``Dst`` 10 bits,
``SrcA`` / ``SrcB`` 6 bits, ``FidelityPhase`` 2 bits, ``ExtraAddrModBit`` 1 bit).

Blackhole differences (the Blackhole table has no RWC page, so RWCs.md is the reference):

* the Blackhole config has no ``ADDR_MOD_SET_Base``; ``ApplyAddrMod`` then selects the upper
  four ``ADDR_MOD_*_SEC`` entries by ``ExtraAddrModBit`` alone;
* it has ``ADDR_MOD_AB2_SEC{i}_SrcAIncr`` / ``_SrcBIncr`` (one bit each) that no page
  explains: applying an entry where one of them is set raises ``MissingSpecification``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from tdbg.tensix.config import TensixConfig
from tdbg.tensix.events import MissingSpecification

_WIDTH = {"Dst": 10, "Dst_Cr": 10, "SrcA": 6, "SrcA_Cr": 6, "SrcB": 6, "SrcB_Cr": 6,
          "FidelityPhase": 2, "ExtraAddrModBit": 1}


@dataclass
class RWCs:
    """One thread's counters (RWCs.md); assignments wrap to each counter's width."""

    Dst: int = 0
    Dst_Cr: int = 0
    SrcA: int = 0
    SrcA_Cr: int = 0
    SrcB: int = 0
    SrcB_Cr: int = 0
    FidelityPhase: int = 0
    ExtraAddrModBit: int = 0

    def __setattr__(self, name: str, value: int) -> None:
        super().__setattr__(name, value & ((1 << _WIDTH[name]) - 1))

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def apply_addr_mod(rwc: RWCs, config: TensixConfig, thread: int, addr_mod: int,
                   update_fidelity: bool = True) -> None:
    """``ApplyAddrMod`` (``ApplyPartialAddrMod`` when ``update_fidelity`` is false), RWCs.md."""
    index = addr_mod
    set_base = "ADDR_MOD_SET_Base" in config.table.fields and config.get("ADDR_MOD_SET_Base", thread=thread)
    if rwc.ExtraAddrModBit or set_base:
        index += 4

    def cfg(section: str, name: str) -> int:
        return config.get(f"ADDR_MOD_{section}_SEC{index}_{name}", thread=thread)

    if "ADDR_MOD_AB2_SEC0_SrcAIncr" in config.table.fields and (cfg("AB2", "SrcAIncr") or cfg("AB2", "SrcBIncr")):
        raise MissingSpecification(f"RWCs.md: no page defines ADDR_MOD_AB2_SEC{index}_SrcAIncr/SrcBIncr (set here)")

    for reg in ("SrcA", "SrcB"):
        incr = cfg("AB", f"{reg}Incr")
        if cfg("AB", f"{reg}Clear"):
            setattr(rwc, reg, 0)
            setattr(rwc, f"{reg}_Cr", 0)
        elif cfg("AB", f"{reg}CR"):
            setattr(rwc, f"{reg}_Cr", getattr(rwc, f"{reg}_Cr") + incr)
            setattr(rwc, reg, getattr(rwc, f"{reg}_Cr"))
        else:
            setattr(rwc, reg, getattr(rwc, reg) + incr)

    incr = cfg("DST", "DestIncr")
    if cfg("DST", "DestClear"):
        rwc.Dst = rwc.Dst_Cr = 0
    elif cfg("DST", "DestCToCR"):
        rwc.Dst += incr
        rwc.Dst_Cr = rwc.Dst
    elif cfg("DST", "DestCR"):
        rwc.Dst_Cr += incr
        rwc.Dst = rwc.Dst_Cr
    else:
        rwc.Dst += incr

    if update_fidelity:
        if cfg("DST", "FidelityClear"):
            rwc.FidelityPhase = 0
        else:
            rwc.FidelityPhase += cfg("DST", "FidelityIncr")

    if cfg("BIAS", "BiasClear"):
        rwc.ExtraAddrModBit = 0
    elif cfg("BIAS", "BiasIncr") & 3:
        rwc.ExtraAddrModBit += 1


def setrwc(rwc: RWCs, f: dict[str, int]) -> None:
    """The counter part of ``SETRWC`` (SETRWC.md); the bank flips are the Matrix Unit's."""
    if f["SrcA"]:
        rwc.SrcA = rwc.SrcA_Cr = f["SrcAVal"] + (rwc.SrcA_Cr if f["SrcACr"] else 0)
    if f["SrcB"]:
        rwc.SrcB = rwc.SrcB_Cr = f["SrcBVal"] + (rwc.SrcB_Cr if f["SrcBCr"] else 0)
    if f["Dst"] or f["DstCtoCr"]:
        value = f["DstVal"]
        if f["DstCtoCr"]:
            value += rwc.Dst
        elif f["DstCr"]:
            value += rwc.Dst_Cr
        rwc.Dst = rwc.Dst_Cr = value
    if f["Fidelity"]:
        rwc.FidelityPhase = 0


def incrwc(rwc: RWCs, f: dict[str, int]) -> None:
    """``INCRWC`` (INCRWC.md)."""
    for reg, inc, cr in (("SrcA", "SrcAInc", "SrcACr"), ("SrcB", "SrcBInc", "SrcBCr"), ("Dst", "DstInc", "DstCr")):
        if f[cr]:
            setattr(rwc, f"{reg}_Cr", getattr(rwc, f"{reg}_Cr") + f[inc])
            setattr(rwc, reg, getattr(rwc, f"{reg}_Cr"))
        else:
            setattr(rwc, reg, getattr(rwc, reg) + f[inc])
