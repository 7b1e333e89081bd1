"""Scalar Unit (ThCon) instructions: the GPR arithmetic, ``SETDMAREG``, GPR <-> L1 and config.

Implements WormholeB0 ``TensixCoprocessor/ScalarUnit.md`` (``GPRs[3][64]``, each thread its own)
and the pages ``SETDMAREG_Immediate.md``, ``SETDMAREG_Special.md``, ``ADDDMAREG.md``,
``SUBDMAREG.md``, ``MULDMAREG.md``, ``BITWOPDMAREG.md``, ``SHIFTDMAREG.md``, ``CMPDMAREG.md``,
``DMANOP.md``, ``FLUSHDMA.md``, ``REG2FLOP_Configuration.md``, ``STOREIND_L1.md``,
``LOADIND.md``, ``LOADREG.md``, ``STOREREG.md``.  The model is synchronous, so ``FLUSHDMA``'s
conditions (memory requests and unpacker / packer work of this thread) are always met, and the
delayed results of ``LOADIND`` and ``LOADREG`` are written at once (so ``STALLWAIT`` /
``FLUSHDMA`` C0, "wait for the read", is always met too).

Blackhole encodings (tt-llk's assembly.yaml; the bits are the Wormhole ones under other names):

* ``SETDMAREG``: ``RegIndex16b`` is ``ResultHalfReg``; ``SetSignalsMode`` selects the Special
  form; the immediate ``NewValue`` is ``Payload_SigSel | Payload_SigSelSize << 14`` (bits 23:8,
  as ttsim v1.10.0 SETDMAREG assembles it); in the Special form ``Payload_SigSel`` holds
  ``InputHalfReg`` (2:0), ``InputSource`` (6:3) and ``WhichPackers`` (10:7) and
  ``Payload_SigSelSize`` is ``ResultSize``.
* the DMAREG arithmetic: ``OpBisConst`` (bit 23) selects the page's immediate variant, whose
  ``RightImm6`` (``RightImm5`` for SHIFTDMAREG) is the ``RightReg`` field.
* ``REG2FLOP``: ``TargetSel`` 0 is the page's Configuration form (``RegIndex`` = ``InputReg``,
  ``FlopIndex`` = ``ThConCfgIndex``); the YAML's other targets, ``ContextId_2`` and
  ``ByteOffset`` have no page, so nonzero values raise ``MissingSpecification``.
* ``STOREIND``: ``MemHierSel`` 1 is the L1 form with the page's 2-bit ``Size`` in bits 22:21
  (``SizeSel``, ``RegSizeSel``); the Src and MMIO forms are not modelled.
* ``LOADIND``: the Wormhole layout (``SizeSel`` = ``Size``, ``OffsetIndex`` = ``OffsetHalfReg``).
* ``LOADREG`` / ``STOREREG``: ``RegAddr`` is ``AddrLo``, ``TdmaDataRegIndex`` is ``ResultReg`` /
  ``DataReg`` (the Wormhole bits).  The access goes through ``Coprocessor.mmio``: the devices
  the Blackhole memory map makes available to the coprocessor (``tdbg.tensix.mmio``).  ttsim
  v1.10.0 has no ``LOADREG`` and lets ``STOREREG`` reach only the NoC overlay (tensix.cpp:3366);
  tdbg follows the pages.

Not modelled (``UnimplementedFunctionality``): MMIO ``STOREIND``, ``STOREIND`` to Src, the
``SETDMAREG`` Special sources that read packer state tdbg does not keep (tile sizes, zero flags).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix import mmio
from tdbg.tensix.events import MissingSpecification, UndefinedBehavior, UnimplementedFunctionality

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

_M32 = 0xFFFFFFFF


def _half_regs(cop: Coprocessor, thread: int) -> np.ndarray:
    """``(uint16_t*)&GPRs[thread][0]`` as a writable view."""
    return cop.state.gprs[thread].view(np.uint16)


def setdmareg(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``SETDMAREG`` (SETDMAREG_Immediate.md, SETDMAREG_Special.md)."""
    half = _half_regs(cop, thread)
    if not f["SetSignalsMode"]:
        half[f["RegIndex16b"]] = f["Payload_SigSel"] | f["Payload_SigSelSize"] << 14
        return
    payload = f["Payload_SigSel"]
    source, input_half, size = (payload >> 3) & 0xF, payload & 7, f["Payload_SigSelSize"]
    if source not in (6, 7, 9):
        raise UnimplementedFunctionality(
            f"SETDMAREG_Special.md: InputSource {source} reads packer tile sizes / zero flags tdbg does not keep")
    hist = cop.state.packer.histogram
    if source == 9:
        values = np.array([hist.max_exponent, 0, 0, 0], dtype=np.uint32)
    else:
        values = hist.bins[(source - 6) * 16:(source - 5) * 16].copy().view(np.uint32)
    result = f["RegIndex16b"]
    if size == 0:
        half[result] = values.view(np.uint16)[input_half]
    elif size == 1:
        cop.state.gprs[thread, result >> 1] = values[input_half >> 1]
    elif size == 2:
        base = (result >> 1) & 0x3C
        cop.state.gprs[thread, base:base + 4] = values
    else:
        raise UnimplementedFunctionality("SETDMAREG_Special.md: ResultSize 3 (tile header) of an exponent histogram")


def _right(cop: Coprocessor, thread: int, f: dict[str, int], mask: int = _M32) -> int:
    if f["OpBisConst"]:
        return f["RightReg"] & mask
    return int(cop.state.gprs[thread, f["RightReg"]]) & mask


def _binary(page: str, op, right_mask: int = _M32):  # type: ignore[no-untyped-def]
    def run(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
        left = int(cop.state.gprs[thread, f["LeftReg"]])
        cop.state.gprs[thread, f["ResultReg"]] = op(left, _right(cop, thread, f, right_mask), f, page) & _M32
    run.__doc__ = f"``{page[:-3]}`` ({page})."
    return run


def _mode(f: dict[str, int], page: str, table: tuple) -> object:  # type: ignore[type-arg]
    if f["Mode"] >= len(table):
        raise UndefinedBehavior(f"{page}: Mode {f['Mode']} is not defined")
    return table[f["Mode"]]


adddmareg = _binary("ADDDMAREG.md", lambda a, b, f, p: a + b)
subdmareg = _binary("SUBDMAREG.md", lambda a, b, f, p: a - b)
muldmareg = _binary("MULDMAREG.md", lambda a, b, f, p: (a & 0xFFFF) * (b & 0xFFFF))
bitwopdmareg = _binary("BITWOPDMAREG.md", lambda a, b, f, p: _mode(f, p, (a & b, a | b, a ^ b)))
shiftdmareg = _binary("SHIFTDMAREG.md", lambda a, b, f, p: _mode(f, p, (a << b, a >> b)), right_mask=0x1F)
cmpdmareg = _binary("CMPDMAREG.md", lambda a, b, f, p: int(_mode(f, p, (a > b, a < b, a == b))))  # type: ignore[call-overload]


def dmanop(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``DMANOP`` (DMANOP.md): no effect."""


def flushdma(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``FLUSHDMA`` (FLUSHDMA.md): its conditions are always met in the synchronous model."""


def reg2flop(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``REG2FLOP`` with ``TargetSel`` 0 (REG2FLOP_Configuration.md): GPRs to ``THCON_*`` config."""
    if f["TargetSel"]:
        raise UnimplementedFunctionality(f"REG2FLOP: TargetSel {f['TargetSel']} (only the configuration form is modelled)")
    for name in ("ContextId_2", "ByteOffset"):
        if f[name]:
            raise MissingSpecification(f"REG2FLOP_Configuration.md: Blackhole's {name}={f[name]} (no page describes it)")
    cfg = cop.state.config
    thcon = cfg.table.constants["THCON_CFGREG_BASE_ADDR32"]
    index = f["FlopIndex"]
    if index >= cfg.table.global_base - thcon:
        raise UndefinedBehavior(f"REG2FLOP_Configuration.md: ThConCfgIndex {index} is past the THCON_ section")
    bank = cfg.state_id(thread)
    gprs = cop.state.gprs[thread]
    if f["SizeSel"] == 0:
        for i in range(4):
            cfg.write_word(bank, thcon + (index & ~3) + i, int(gprs[(f["RegIndex"] & ~3) + i]))
    else:
        cfg.write_word(bank, thcon + index, int(gprs[f["RegIndex"]]))


def _indirect_address(cop: Coprocessor, thread: int, addr_reg: int, offset_half: int, increment: int, page: str) -> int:
    """The L1 address of STOREIND_L1.md / LOADIND.md, and the offset's post-increment.  The
    offset is one of the thread's 128 16-bit GPR halves (the pages' ``OffsetHalfReg`` is u7);
    Blackhole's ``OffsetIndex`` field is 8 bits wide (bh_encodings.json) and no page says
    what 128..255 select: ``MissingSpecification``."""
    half = _half_regs(cop, thread)
    if offset_half >= len(half):
        raise MissingSpecification(f"{page}: OffsetIndex {offset_half} is past the {len(half)} 16-bit GPR halves "
                                   f"(the page's OffsetHalfReg is u7; Blackhole's field is 8 bits)")
    address = int(cop.state.gprs[thread, addr_reg]) * 16 + int(half[offset_half])
    if address >= cop.state.profile.l1_size:   # "Address must be in L1"
        raise UndefinedBehavior(f"{page}: L1 address {address:#x} is past L1")
    half[offset_half] = (int(half[offset_half]) + (0, 2, 4, 16)[increment]) & 0xFFFF
    return address


def storeind(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``STOREIND`` to L1 (STOREIND_L1.md)."""
    if not f["MemHierSel"]:
        raise UnimplementedFunctionality("STOREIND: the Src and MMIO forms are not modelled")
    size = f["SizeSel"] << 1 | f["RegSizeSel"]
    address = _indirect_address(cop, thread, f["AddrRegIndex"], f["OffsetIndex"], f["AutoIncSpec"], "STOREIND_L1.md")
    gprs = cop.state.gprs[thread]
    reg = f["DataRegIndex"] & (0x3F if size else 0x3C)
    if size == 0:
        start, data = address & ~15, gprs[reg:reg + 4].tobytes()
    else:
        width = (4, 2, 1)[size - 1]
        start, data = address & ~(width - 1), int(gprs[reg]).to_bytes(4, "little")[:width]
    cop.write_l1(start, np.frombuffer(data, dtype=np.uint8))


def loadind(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``LOADIND`` (LOADIND.md): L1 to GPRs (the delayed write happens at once)."""
    size = f["SizeSel"]
    address = _indirect_address(cop, thread, f["AddrRegIndex"], f["OffsetIndex"], f["AutoIncSpec"], "LOADIND.md")
    gprs = cop.state.gprs[thread]
    reg = f["DataRegIndex"] & (0x3F if size else 0x3C)
    if size == 0:
        gprs[reg:reg + 4] = cop.read_l1(address & ~15, 16).view(np.uint32)
        return
    width = (4, 2, 1)[size - 1]
    data = int.from_bytes(cop.read_l1(address & ~(width - 1), width).tobytes(), "little")
    keep = _M32 & ~((1 << (8 * width)) - 1)
    gprs[reg] = (int(gprs[reg]) & keep) | data


def loadreg(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``LOADREG`` (LOADREG.md): a 32-bit MMIO read into a GPR (the delayed write happens at once)."""
    address = mmio.register_address(cop.state.profile.tensix, f["RegAddr"] << 2, "LOADREG.md")
    cop.state.gprs[thread, f["TdmaDataRegIndex"]] = cop.mmio.load(thread, address) & _M32


def storereg(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
    """``STOREREG`` (STOREREG.md): a GPR written to a 32-bit MMIO address."""
    address = mmio.register_address(cop.state.profile.tensix, f["RegAddr"] << 2, "STOREREG.md")
    cop.mmio.store(thread, address, int(cop.state.gprs[thread, f["TdmaDataRegIndex"]]))
