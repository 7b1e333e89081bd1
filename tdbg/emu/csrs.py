"""One baby RISC-V core's CSRs, as BlackholeA0 ``BabyRISCV/CSRs.md`` gives them (the table is
the profile's ``csrs``).

Zicsr's rules (The RISC-V Instruction Set Manual, volume I, "Zicsr"): ``csrrw[i]`` with
``rd = x0`` does not read the CSR, ``csrrs``/``csrrc[i]`` with ``rs1 = x0`` (``uimm = 0``) do not
write it.  A CSR the page does not list is no instruction the core implements
(``UndefinedBehavior``, as a write to the read-only ``mhartid``); one whose behaviour belongs to
a part tdbg does not execute stops with ``UnimplementedFunctionality`` naming it.

``mcycle``/``cycle`` (and the ``h`` halves) read the tile clock that the wall clock registers
read (``TileRegisters``: tdbg counts no cycles; a read of the low half costs a microsecond of
tile time, so a wait built on the counter ends), plus what the firmware wrote.
"""

from __future__ import annotations

from collections.abc import Callable

from tdbg.riscv.extensions import CsrInsn
from tdbg.tensix.state_description import StateDescription, obj, value
from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality, UnsupportedFunctionality
from tdbg.arch.profile import CsrSpec, Profile

_PAGE = "BabyRISCV/CSRs.md"


class CsrFile:
    """The CSR state of core ``core``; ``clock`` reads the tile clock (``advance``: as a read of
    the low half does)."""

    def __init__(self, profile: Profile, core: str, clock: Callable[[bool], int]) -> None:
        self.core = core
        self.specs: dict[int, CsrSpec] = {c.number: c for c in profile.csrs}
        self.cfg0_fields = profile.cfg0_fields
        self.cfg0_modelled = profile.cfg0_modelled
        self.clock = clock
        self.values: dict[int, int] = {}
        self.cycle_offset = 0
        CsrFile.STATE.reset(self)

    #: The CSRs kept as storage (their reset values) and what the firmware wrote to the counters.
    STATE = StateDescription("CSRs", (
        obj("values", reset=lambda c: {n: s.value for n, s in c.specs.items() if s.kind in ("scratch", "cfg0") or s.scratch_on},
            copy=dict),
        value("cycle_offset", reset=0),
    ))

    def execute(self, insn: CsrInsn, source: int, check: bool = True) -> int | None:
        """Run ``insn`` with ``source`` (``x[rs1]`` or the immediate): the value for ``rd``
        (None when the CSR is not read).  ``check=False``: a cfg0 write tdbg does not model is
        kept anyway (the ``handle`` policy let the run go on)."""
        spec = self.specs.get(insn.csr)
        if spec is None:
            raise UndefinedBehavior(f"{_PAGE}: CSR {insn.csr:#x} is not one the baby RISC-V recognises; "
                                    f'BabyRISCV/README.md "Faults / exceptions": the instruction executes as some other instruction')
        kind = spec.kind if not (spec.kind == "unmodelled" and self.core in spec.scratch_on) else "scratch"
        if kind == "unmodelled":
            raise UnimplementedFunctionality(f"{_PAGE}: {spec.name} ({insn.csr:#x}): {spec.why}")
        old = self._read(spec, kind, advance=insn.reads) if insn.reads or insn.writes else 0
        if insn.writes:
            new = source if insn.op == "w" else old | source if insn.op == "s" else old & ~source & 0xFFFF_FFFF
            self._write(spec, kind, new & 0xFFFF_FFFF, check)
        return old if insn.reads else None

    def _read(self, spec: CsrSpec, kind: str, advance: bool) -> int:
        if kind in ("constant", "readonly"):
            return spec.value
        if kind == "cycle":
            return (self.clock(advance) + self.cycle_offset) & 0xFFFF_FFFF
        if kind == "cycleh":
            return ((self.clock(False) + self.cycle_offset) >> 32) & 0xFFFF_FFFF
        return self.values[spec.number]

    def _write(self, spec: CsrSpec, kind: str, value: int, check: bool) -> None:
        if kind == "readonly":
            raise UndefinedBehavior(f"{_PAGE}: {spec.name} is read-only; a write executes as some other instruction")
        if kind == "constant":
            return                                  # "Non-conformant, as not writable"
        if kind in ("cycle", "cycleh"):
            now = self.clock(False) + self.cycle_offset
            shift = 0 if kind == "cycle" else 32
            wanted = (now & ~(0xFFFF_FFFF << shift)) | (value << shift)
            self.cycle_offset = wanted - self.clock(False)
            return
        if kind == "cfg0" and check:
            extra = value & ~self.cfg0_modelled & ~self.values[spec.number]
            if extra:
                names = ", ".join(name for bit, width, name in self.cfg0_fields if extra >> bit & ((1 << width) - 1))
                raise UnsupportedFunctionality(f"{_PAGE}: cfg0 {names} ({value:#x}) changes behaviour tdbg does not model "
                                               f"(ttsim v1.10.0 accepts only DisBp, DisLowCash, DisTriscCache and "
                                               f"DisLowCachePeriodicFlush: riscv_impl.h:1173)")
        self.values[spec.number] = value
