"""The Vector Unit's state (``LReg``, lane predication, ``LaneConfig``, ``LoadMacroConfig``) and
the dispatch every Vector Unit instruction shares.

Implements WormholeB0 ``LReg.md`` (the Blackhole page says the functionality is identical) and
the Blackhole ``VectorUnit.md`` (lane predication masks, the flag stack of eight entries per lane)
and ``SFPCONFIG.md`` (``LaneConfig`` bits, ``LoadMacroConfig``).  One Vector Unit serves the three
threads (``TensixCoprocessor/README.md``).

Power-on values: ``LReg[0..7]``, ``LReg[11..14]``, ``LReg[16]`` and ``LoadMacroConfig`` have none
in the pages (``SoftReset.md`` gives values only on leaving the Vector Unit's soft reset, which
nothing releases here), so tdbg keeps a defined flag per 16-bit half of every lane, set by
writes, and an instruction that uses an undefined value raises ``UnpredictableValueUsed``; moves
(``SFPMOV``, ``SFPTRANSP``, ``SFPSWAP`` without comparison, ``SFPSHFT2`` lane moves) carry the flag
along instead, as a copy of an unknown value is just as unknown.  ``LReg[8]`` (0.8373), ``LReg[9]``
(0), ``LReg[10]`` (1.0) and ``LReg[15]`` (``2 * lane``) are the read-only constants.
``LaneFlags``, ``UseLaneFlagsForLaneEnable`` (false, BlackholeA0 ``VectorUnit.md``: "initially
``false``") and ``LaneConfig`` (zero: ``SFPCONFIG.md`` calls a false ``DISABLE_BACKDOOR_LOAD`` the
default) start defined.  ttsim v1.10.0 powers on with the flags in use and all true (tensix.cpp
``tensix_init``), so a flag set before any ``SFPENCC`` predicates there and not here: the page
rules (tests/test_sfpu_predication.py measures both; from the same start the two agree).

Every instruction goes through ``instruction``: fields the page does not define must be zero
(else ``MissingSpecification``); with ``VD >= 12`` a lane whose ``LaneConfig.DISABLE_BACKDOOR_LOAD``
is false takes the instruction word as ``LoadMacroConfig.InstructionTemplate[VD - 12]`` instead of
executing it (``SFPCONFIG.md``), and the instruction right after an ``SFPCONFIG`` that changed
that bit raises ``UnpredictableValueUsed`` if its ``VD >= 12`` (``SFPCONFIG.md``: it may see either
value).  The instruction right after a MAD sub-unit instruction raises ``UnpredictableValueUsed``
if it reads an ``LReg`` that instruction writes in one of the ways the automatic stalling logic
misses (BlackholeA0 ``SFPMAD.md`` "Instruction scheduling": the result takes two cycles, and
issued on the next cycle the reader sees the old value; tdbg has no cycles, so either may
happen).  With ``LaneConfig.ENABLE_DEST_INDEX`` set, a result most instructions write to
``LReg[4..7]`` is undefined: ttsim v1.10.0 tensix.cpp:4932-4942 (erratum TEN-2932; loads, stores,
``SFPCONFIG``, ``SFPSWAP``, ``SFPTRANSP``, ``SFPLOADMACRO`` are not affected).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tdbg.tensix.state_description import StateDescription, array, lanes_changed, ranges, value
from tdbg.tensix.events import MissingSpecification, UnpredictableValueUsed

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

LANES = 32
LANE = np.arange(LANES)
ALL = np.ones(LANES, dtype=bool)
FULL = 3              # defined bits: 1 = low 16 bits, 2 = high 16 bits
STACK_DEPTH = 8       # FlagStack capacity (SFPPUSHC.md)

# LaneConfig bits (SFPCONFIG.md).
ENABLE_FP16A_INF, DISABLE_BACKDOOR_LOAD, ENABLE_DEST_INDEX, CAPTURE_DEFAULT_DEST_INDEX = 1, 2, 4, 8
BLOCK_DEST_WR_FROM_SFPU, BLOCK_SFPU_RD_FROM_DEST, DEST_RD_COL_EXCHANGE, DEST_WR_COL_EXCHANGE = 16, 32, 64, 128
EXCHANGE_SRCB_SRCC = 256
ROW_MASK_SHIFT = 12

#: LReg[8], LReg[9], LReg[10] (LReg.md); LReg[15] is 2 * lane.
CONSTANTS = {8: np.float32(0.8373).view(np.uint32), 9: np.uint32(0), 10: np.float32(1.0).view(np.uint32)}
_CONSTANT_LREGS = (8, 9, 10, 15)


def _power_on_lreg(vu: VectorUnit) -> np.ndarray:
    lreg = np.zeros_like(vu.lreg)
    for r, constant in CONSTANTS.items():
        lreg[r] = constant
    lreg[15] = LANE * 2
    return lreg


def _power_on_defined(vu: VectorUnit) -> np.ndarray:
    defined = np.zeros_like(vu.defined)
    defined[list(_CONSTANT_LREGS)] = FULL
    return defined


def _lregs_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """One line per LReg whose lanes changed (value or defined flags)."""
    moved = (before["lreg"] != after["lreg"]) | (before["defined"] != after["defined"])
    return [f"LReg[{reg}] lanes changed: {ranges(np.flatnonzero(moved[reg]))}"
            for reg in np.flatnonzero(moved.any(axis=1))]

Body = Callable[["Coprocessor", int, dict[str, int], np.ndarray | None], None]
Executor = Callable[["Coprocessor", int, dict[str, int]], None]

#: Executors by mnemonic, filled by ``instruction`` (each is a row of the Coprocessor's ``INSTRUCTIONS``).
EXECUTE: dict[str, Executor] = {}


class VectorUnit:
    """``LReg[17][32]``, the per-lane predication state and configuration."""

    def __init__(self) -> None:
        self.lreg = np.zeros((17, LANES), dtype=np.uint32)
        self.defined = np.zeros((17, LANES), dtype=np.uint8)        # FULL bits per lane
        self.full = np.zeros(17, dtype=bool)                          # every lane FULL
        self.lane_config = np.zeros(LANES, dtype=np.uint32)
        self.lane_flags = np.zeros(LANES, dtype=bool)
        self.use_lane_flags = np.zeros(LANES, dtype=bool)
        self.stack = np.zeros((STACK_DEPTH, 2, LANES), dtype=bool)  # [entry][LaneFlags, UseLaneFlags]
        self.stack_size = np.zeros(LANES, dtype=np.int8)
        self.template = np.zeros((4, LANES), dtype=np.uint32)        # LoadMacroConfig.InstructionTemplate
        self.sequence = np.zeros((4, LANES), dtype=np.uint32)        # LoadMacroConfig.Sequence
        self.misc = np.zeros(LANES, dtype=np.uint32)                 # LoadMacroConfig.Misc (12 bits)
        self.macro_defined = np.zeros((9, LANES), dtype=bool)        # templates 0-3, sequences 4-7, Misc 8
        # mad_wrote, backdoor_changed (properties): where the native push path reaches them
        self.flags = np.zeros(2, dtype=np.int64)
        self._flags = memoryview(self.flags)      # (scalar access at a third of numpy's cost)
        self.corrupts_4_to_7: np.ndarray | None = None  # ENABLE_DEST_INDEX lanes, while an affected insn runs
        VectorUnit.STATE.reset(self)

    #: Power-on: the constants (module docstring), everything else zero and undefined.
    STATE = StateDescription("vector unit", (
        array("lreg", reset=_power_on_lreg, report=_lregs_changed),
        array("defined", reset=_power_on_defined),
        array("full", reset=lambda vu: [r in _CONSTANT_LREGS for r in range(len(vu.full))]),
        array("lane_flags", reset=False, report=lanes_changed("LaneFlags", "lane_flags")),
        array("use_lane_flags", reset=False, report=lanes_changed("UseLaneFlagsForLaneEnable", "use_lane_flags")),
        array("stack", reset=False),
        array("stack_size", report=lanes_changed("FlagStack depth", "stack_size")),
        array("lane_config", report=lanes_changed("LaneConfig", "lane_config")),
        array("template"),
        array("sequence"),
        array("misc"),
        array("macro_defined", reset=False),
        value("backdoor_changed", reset=False),
        value("mad_wrote", reset=0),
        value("corrupts_4_to_7", reset=None),
    ))

    @property
    def mad_wrote(self) -> int:
        """LRegs (bit mask) the last instruction wrote in the MAD sub-unit."""
        return self._flags[0]

    @mad_wrote.setter
    def mad_wrote(self, value: int) -> None:
        self._flags[0] = value

    @property
    def backdoor_changed(self) -> bool:
        """The last instruction was an SFPCONFIG that changed ``DISABLE_BACKDOOR_LOAD``."""
        return bool(self._flags[1])

    @backdoor_changed.setter
    def backdoor_changed(self, value: bool) -> None:
        self._flags[1] = value

    # -- lanes --------------------------------------------------------------------------------
    def enabled(self) -> np.ndarray:
        """``IsLaneEnabled`` for every lane (VectorUnit.md): not masked by
        ``LaneConfig[Lane & 7].ROW_MASK.Bit[Lane / 8]``, and ``LaneFlags`` where
        ``UseLaneFlagsForLaneEnable``."""
        on = self.lane_flags | ~self.use_lane_flags
        if np.count_nonzero(self.lane_config):  # (count_nonzero: a fifth of ndarray.any's cost on 32 lanes)
            on &= (self.lane_config[LANE & 7] >> (ROW_MASK_SHIFT + LANE // 8)) & 1 == 0
        return on

    def lanes(self, active: np.ndarray | None) -> np.ndarray:
        """Enabled lanes among ``active`` (None: every lane is active)."""
        on = self.enabled()
        return on if active is None else on & active

    def config_bit(self, bit: int) -> np.ndarray:
        """``LaneConfig[Lane] & bit`` as a bool per lane."""
        return (self.lane_config & bit) != 0

    # -- LReg ---------------------------------------------------------------------------------
    def read(self, reg: int, lanes: np.ndarray, page: str) -> np.ndarray:
        """``LReg[reg]`` (a copy) for an instruction that uses its value in ``lanes``."""
        if not self.full[reg]:
            bad = lanes & (self.defined[reg] != FULL)
            if np.count_nonzero(bad):
                raise UnpredictableValueUsed(
                    f"{page} / LReg.md: LReg[{reg}] lane {int(np.argmax(bad))} was never written")
        return self.lreg[reg].copy()

    def write(self, reg: int, value: np.ndarray | int, lanes: np.ndarray, defined: np.ndarray | int = FULL) -> None:
        """``LReg[reg][lane] = value[lane]`` in ``lanes``; ``defined`` carries a moved value's flags."""
        np.copyto(self.lreg[reg], value, where=lanes, casting="unsafe")
        if defined is FULL and self.full[reg] and (self.corrupts_4_to_7 is None or not 4 <= reg < 8):
            return  # every lane was defined and stays so
        flags = self.defined[reg]
        np.copyto(flags, defined, where=lanes, casting="unsafe")
        if 4 <= reg < 8 and self.corrupts_4_to_7 is not None:
            flags[lanes & self.corrupts_4_to_7] = 0
        self.full[reg] = not np.count_nonzero(flags != FULL)

    def write_half(self, reg: int, value: np.ndarray | int, lanes: np.ndarray, high: bool) -> None:
        """Write the high or low 16 bits of ``LReg[reg]`` in ``lanes``, keeping the other half."""
        keep = np.uint32(0x0000FFFF if high else 0xFFFF0000)
        merged = (self.lreg[reg] & keep) | (np.asarray(value, dtype=np.uint32) & ~keep)
        np.copyto(self.lreg[reg], merged, where=lanes)
        self.defined[reg][lanes] |= 2 if high else 1
        self.full[reg] = not np.count_nonzero(self.defined[reg] != FULL)

    def writable(self, reg: int) -> bool:
        """``vd < 8 || vd == 16``: the LRegs instructions write."""
        return reg < 8 or reg == 16

    def gather(self, regs: np.ndarray, lanes: np.ndarray, page: str) -> np.ndarray:
        """``LReg[regs[lane]][lane]`` for a per-lane register index (``INDIRECT_VA`` modes)."""
        bad = lanes & (self.defined[regs, LANE] != FULL)
        if bad.any():
            lane = int(np.argmax(bad))
            raise UnpredictableValueUsed(f"{page} / LReg.md: LReg[{int(regs[lane])}] lane {lane} was never written")
        return self.lreg[regs, LANE]

    def scatter(self, regs: np.ndarray, value: np.ndarray, lanes: np.ndarray) -> None:
        """``LReg[regs[lane]][lane] = value[lane]`` in ``lanes`` where that LReg is writable
        (``INDIRECT_VD`` modes)."""
        for reg in np.unique(regs[lanes]):
            if self.writable(int(reg)):
                self.write(int(reg), value, lanes & (regs == reg))

    def indirect(self, lanes: np.ndarray, page: str) -> np.ndarray:
        """``LReg[7].u32 & 15``, the register index of the ``INDIRECT`` modes."""
        return (self.read(7, lanes, page) & 15).astype(np.intp)

    # -- the flag stack -------------------------------------------------------------------------
    def top(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(``Top.LaneFlags``, ``Top.UseLaneFlagsForLaneEnable``, non-empty) per lane."""
        size = self.stack_size.astype(np.intp)
        index = np.maximum(size - 1, 0)
        return self.stack[index, 0, LANE], self.stack[index, 1, LANE], size > 0

    def set_top(self, flags: np.ndarray, use: np.ndarray, lanes: np.ndarray) -> None:
        """Replace the top entry in ``lanes`` (whose stacks must not be empty)."""
        index = self.stack_size.astype(np.intp)[lanes] - 1
        self.stack[index, 0, LANE[lanes]] = flags[lanes]
        self.stack[index, 1, LANE[lanes]] = use[lanes]


ALL_LREGS = (1 << 17) - 1
#: MAD sub-unit instructions (their pages: "Instruction scheduling: as per SFPMAD") and the field
#: holding ``INDIRECT_VD`` (8): with it the stalling logic assumes every LReg is written.
MAD_UNIT = {"SFPMAD": "Mod1", "SFPADD": "Mod1", "SFPMUL": "Mod1", "SFPADDI": "Mod1", "SFPMULI": "Mod1",
            "SFPMUL24": "Mod1", "SFPLUT": "Mod0", "SFPLUTFP32": "Mod1"}


def _mad_writes(name: str, f: dict[str, int]) -> int:
    return ALL_LREGS if f[MAD_UNIT[name]] & 8 and f["VD"] != 16 else 1 << f["VD"]


def _shft2_reads(f: dict[str, int]) -> int:
    mod1, vc = f["Mod1"], f["VC"]
    if mod1 == 2:                 # SUBVEC_SHFLROR1_AND_COPY4: LReg[0..3] and VC
        return 0xF | 1 << vc
    if mod1 in (3, 4):            # SUBVEC_SHFLROR1, SUBVEC_SHFLSHR1: VC
        return 1 << vc
    if mod1 in (5, 6):            # SHFT_LREG, SHFT_IMM: VB = Imm12 & 15 (the logic thinks VD)
        return 1 << (f["Imm12"] & 15)
    return 0


#: The reads SFPMAD.md's list of stalling-logic bugs says go undetected, by instruction (bit masks).
UNSTALLED_READS: dict[str, Callable[[dict[str, int]], int]] = {
    "SFPAND": lambda f: 1 << f["VB"] if f["Mod1"] & 1 else 0,
    "SFPOR": lambda f: 1 << f["VB"] if f["Mod1"] & 1 else 0,
    "SFPIADD": lambda f: 0 if f["Mod1"] & 1 else 1 << f["VD"],
    "SFPSHFT": lambda f: 0 if f["Mod1"] & 5 == 5 else 1 << f["VD"],
    "SFPCONFIG": lambda f: 1 if f["VD"] < 4 or not f["Mod1"] & 1 else 0,
    "SFPSWAP": lambda f: (1 << f["VC"] | 1 << f["VD"]) if f["Mod1"] else 0,
    "SFPSHFT2": _shft2_reads,
}


def instruction(name: str, page: str, fields: Iterable[str], *, vd: str | None = "VD",
                affected: bool = True) -> Callable[[Body], Body]:
    """Register ``body(cop, thread, f, active)`` as ``name``'s executor (see the module
    docstring).  ``fields``: the page fields it reads; ``vd``: the field that can select the
    backdoor (None: the instruction has none); ``affected``: subject to erratum TEN-2932.
    ``active`` is None (every lane executes) or the lanes whose ``DISABLE_BACKDOOR_LOAD`` let a
    ``VD >= 12`` instruction execute."""
    allowed = frozenset(fields) | ({vd} if vd else set())
    unstalled = UNSTALLED_READS.get(name)
    mad = name in MAD_UNIT

    def register(body: Body) -> Body:
        def run(cop: Coprocessor, thread: int, f: dict[str, int]) -> None:
            for key in f.keys() - allowed:
                if f[key]:
                    raise MissingSpecification(f"{page}: {name} with {key}={f[key]:#x}; no Blackhole page defines those bits")
            vu = cop.vector
            if vu.mad_wrote:
                hit = vu.mad_wrote & unstalled(f) if unstalled else 0
                vu.mad_wrote = 0
                if hit:
                    regs = ", ".join(str(r) for r in range(17) if hit >> r & 1)
                    raise UnpredictableValueUsed(
                        f"SFPMAD.md (Instruction scheduling): {name} right after a MAD sub-unit instruction reads "
                        f"LReg[{regs}], which it writes, in a way the automatic stalling misses; on the next "
                        "cycle it would read the old value (put an SFPNOP between them)")
            if mad:
                vu.mad_wrote = _mad_writes(name, f)
            active = None
            if vd is not None and f[vd] >= 12:
                if vu.backdoor_changed:
                    vu.backdoor_changed = False
                    raise UnpredictableValueUsed(
                        f"SFPCONFIG.md: {name} with {vd}={f[vd]} right after an SFPCONFIG that changed "
                        "LaneConfig.DISABLE_BACKDOOR_LOAD may see its old or new value")
                execute = vu.config_bit(DISABLE_BACKDOOR_LOAD)
                backdoor = ~execute
                if backdoor.any():
                    vu.template[f[vd] - 12, backdoor] = cop.isa.encode(name, **f)
                    vu.macro_defined[f[vd] - 12, backdoor] = True
                if not execute.any():
                    return
                active = execute
            vu.backdoor_changed = False
            if affected and np.count_nonzero(vu.lane_config):
                hazard = vu.config_bit(ENABLE_DEST_INDEX)
                vu.corrupts_4_to_7 = hazard if np.count_nonzero(hazard) else None
                try:
                    body(cop, thread, f, active)
                finally:
                    vu.corrupts_4_to_7 = None
            else:
                body(cop, thread, f, active)

        run.__doc__ = body.__doc__
        EXECUTE[name] = run
        return body

    return register
