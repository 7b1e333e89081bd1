"""Register-window counters (RWCs), ``ApplyAddrMod``, ``SETRWC`` and ``INCRWC``.

Implements WormholeB0 ``TensixCoprocessor/RWCs.md``, ``SETRWC.md`` and ``INCRWC.md``.  Each
Tensix thread owns one ``RWCs`` record; every counter wraps at its width (``Dst`` 10 bits,
``SrcA`` / ``SrcB`` 6 bits, ``FidelityPhase`` 2 bits, ``ExtraAddrModBit`` 1 bit).

Blackhole differences (the Blackhole table has no RWC page, so RWCs.md is the reference):

* ``AddrMod`` is 3 bits (tt-llk's assembly.yaml: "3-bit index of cfg register ADDR_MOD_REG";
  ttsim applies ``ADDR_MOD_*_SEC0..7`` by it directly) and the config has
  ``ADDR_MOD_*_SEC0..7``; with no ``ADDR_MOD_SET_Base``, ``ExtraAddrModBit`` still adds 4 as on
  Wormhole, and an index past 7 (``AddrMod`` 4-7 with ``ExtraAddrModBit``) raises
  ``MissingSpecification`` (ttsim rejects any nonzero bias on Blackhole);
* the Vector Unit's ``Sp`` (10 bits, as the ``uint10_t`` sums of BlackholeA0 SFPLOAD.md use it),
  which only ``SFPLOAD`` / ``SFPSTORE`` with ``MOD0_FMT_INT32_ALL`` move;
* it has ``ADDR_MOD_AB2_SEC{i}_SrcAIncr`` / ``_SrcBIncr`` (one bit each) that no page
  explains: applying an entry where one of them is set raises ``MissingSpecification``.

An entry's fields are read once per config change (``TensixConfig.derived``).
"""

from __future__ import annotations

import ctypes

import numpy as np

from tdbg.tensix.config import TensixConfig
from tdbg.tensix.events import MissingSpecification

#: The counters and their widths, in their storage order (C bit fields, low bits first).
_WIDTH = {"Dst": 10, "Dst_Cr": 10, "SrcA": 6, "SrcA_Cr": 6, "SrcB": 6, "SrcB_Cr": 6,
          "FidelityPhase": 2, "ExtraAddrModBit": 1, "Sp": 10}
NAMES = tuple(_WIDTH)
_CR = {name: name + "_Cr" for name in ("Dst", "SrcA", "SrcB")}


class RWCs(ctypes.Structure):
    """One thread's counters (RWCs.md): unsigned bit fields, so an assignment wraps to the
    counter's width.  ``storage`` holds every thread's; ``RWCs.from_buffer`` of a row views one
    (the native push path, ``tdbg/native/push.c``, declares the same ``struct rwc``)."""

    _fields_ = [(name, ctypes.c_uint32, width) for name, width in _WIDTH.items()]

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in NAMES}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RWCs) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return "RWCs(" + ", ".join(f"{k}={v}" for k, v in self.as_dict().items()) + ")"


#: 32-bit words of one thread's ``RWCs``.
WORDS = ctypes.sizeof(RWCs) // 4


def storage(threads: int) -> np.ndarray:
    """Zeroed counters of ``threads`` threads: ``(threads, WORDS)`` uint32, one row per thread."""
    return np.zeros((threads, WORDS), dtype=np.uint32)


def decode(row: np.ndarray) -> dict[str, int]:
    """The counters of one saved ``storage`` row."""
    return RWCs.from_buffer_copy(np.ascontiguousarray(row, dtype=np.uint32).tobytes()).as_dict()


def _entry(config: TensixConfig, thread: int, index: int) -> tuple[int, ...]:
    """The fields of ``ADDR_MOD_*_SEC<index>`` that ``ApplyAddrMod`` reads, in its order."""
    def cfg(section: str, name: str) -> int:
        return config.get(f"ADDR_MOD_{section}_SEC{index}_{name}", thread=thread)

    if "ADDR_MOD_AB2_SEC0_SrcAIncr" in config.table.fields and (cfg("AB2", "SrcAIncr") or cfg("AB2", "SrcBIncr")):
        raise MissingSpecification(f"RWCs.md: no page defines ADDR_MOD_AB2_SEC{index}_SrcAIncr/SrcBIncr (set here)")
    return (cfg("AB", "SrcAIncr"), cfg("AB", "SrcAClear"), cfg("AB", "SrcACR"),
            cfg("AB", "SrcBIncr"), cfg("AB", "SrcBClear"), cfg("AB", "SrcBCR"),
            cfg("DST", "DestIncr"), cfg("DST", "DestClear"), cfg("DST", "DestCToCR"), cfg("DST", "DestCR"),
            cfg("DST", "FidelityClear"), cfg("DST", "FidelityIncr"), cfg("BIAS", "BiasClear"), cfg("BIAS", "BiasIncr"))


def _entry_in_force(config: TensixConfig, thread: int, addr_mod: int, extra: int) -> tuple[int, ...]:
    """The entry ``ApplyAddrMod`` uses for ``addr_mod`` with ``ExtraAddrModBit`` ``extra``."""
    index = addr_mod
    if extra or ("ADDR_MOD_SET_Base" in config.table.fields and config.get("ADDR_MOD_SET_Base", thread=thread)):
        index += 4
    if index > 7:
        raise MissingSpecification(f"RWCs.md: AddrMod {addr_mod} with ExtraAddrModBit selects entry {index}; "
                                   "no page says what a 3-bit AddrMod does with the bias")
    return _entry(config, thread, index)


def entry_in_force(config: TensixConfig, thread: int, addr_mod: int, extra: int) -> tuple[int, ...]:
    """The fields of the ``ADDR_MOD`` entry ``ApplyAddrMod`` uses (``apply_addr_mod``; derived once
    per config change, and taken from another config of the table whose words it read hold the
    same: a pure function of them, ``TensixConfig.derived``'s ``shared``); raises
    ``MissingSpecification`` as ``_entry_in_force`` does."""
    return config.derived(("ADDR_MOD", thread, addr_mod, extra),   # type: ignore[return-value]
                          lambda: _entry_in_force(config, thread, addr_mod, extra), shared=True)


def _advance(rwc: RWCs, counter: str, inc: int, cr: bool) -> None:
    """The counter step RWCs.md's instructions share: with ``cr``, ``X_Cr += inc; X = X_Cr``;
    else ``X += inc`` (each wrapping at the counter's width)."""
    if cr:
        name = _CR[counter]
        setattr(rwc, name, getattr(rwc, name) + inc)
        setattr(rwc, counter, getattr(rwc, name))
    elif inc:
        setattr(rwc, counter, getattr(rwc, counter) + inc)


def apply_addr_mod(rwc: RWCs, config: TensixConfig, thread: int, addr_mod: int,
                   update_fidelity: bool = True) -> None:
    """``ApplyAddrMod`` (``ApplyPartialAddrMod`` when ``update_fidelity`` is false), RWCs.md."""
    extra = rwc.ExtraAddrModBit
    (a_incr, a_clear, a_cr, b_incr, b_clear, b_cr, d_incr, d_clear, d_ctocr, d_cr,
     f_clear, f_incr, bias_clear, bias_incr) = entry_in_force(config, thread, addr_mod, extra)
    if a_clear:
        rwc.SrcA = rwc.SrcA_Cr = 0
    elif a_cr or a_incr:
        _advance(rwc, "SrcA", a_incr, a_cr)
    if b_clear:
        rwc.SrcB = rwc.SrcB_Cr = 0
    elif b_cr or b_incr:
        _advance(rwc, "SrcB", b_incr, b_cr)

    if d_clear:
        rwc.Dst = rwc.Dst_Cr = 0
    elif d_ctocr:
        rwc.Dst += d_incr
        rwc.Dst_Cr = rwc.Dst
    elif d_cr or d_incr:
        _advance(rwc, "Dst", d_incr, d_cr)

    if update_fidelity:
        if f_clear:
            rwc.FidelityPhase = 0
        elif f_incr:
            rwc.FidelityPhase += f_incr

    if bias_clear:
        rwc.ExtraAddrModBit = 0
    elif bias_incr & 3:
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
    _advance(rwc, "SrcA", f["SrcAInc"], f["SrcACr"])
    _advance(rwc, "SrcB", f["SrcBInc"], f["SrcBCr"])
    _advance(rwc, "Dst", f["DstInc"], f["DstCr"])
