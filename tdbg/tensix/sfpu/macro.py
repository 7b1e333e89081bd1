"""``SFPLOADMACRO`` (BlackholeA0 SFPLOADMACRO.md): an ``SFPLOAD``, then up to four instructions
scheduled on the Simple, MAD, Round and Store sub-units for later cycles.

The ``SFPLOAD`` part runs exactly, with ``VD = VDHi << 2 | VDLo`` and ``Imm10 = Imm9 << 1 | VDHi``
as the page defines them.  A macro that schedules nothing (``Sequence[MacroIndex] & 7`` zero in
every sub-unit byte of every lane) is then complete.  Scheduling stops with
``UnsupportedFunctionality``, after the load: the scheduled instructions run on cycles counted
from the ``SFPLOADMACRO`` (or from the threads' later Vector Unit instructions), alongside the
instructions the threads issue on those cycles, which they displace on a shared sub-unit, and an
``SFPMAD`` or ``SFPSWAP`` among them takes two cycles without the automatic stall; what a
scheduled instruction reads therefore depends on the pipeline's cycle-by-cycle timing, which tdbg
does not model (ttsim v1.10.0 refuses the instruction outright, tensix.cpp:4385-4386; tt-llk's
SFPU kernels have a ``DISABLE_SFPLOADMACRO`` form without it).  ``Sequence`` bits ``1`` in the
low three bits of a sub-unit byte are ``UndefinedBehavior`` (the page's ``case 1``); a
``Sequence`` never written by ``SFPCONFIG`` has no power-on value (``UnpredictableValueUsed``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import UndefinedBehavior, UnpredictableValueUsed, UnsupportedFunctionality
from tdbg.tensix.sfpu.loadstore import sfpload
from tdbg.tensix.sfpu.vector_unit import instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor

SUB_UNITS = ("Simple", "MAD", "Round", "Store")
_WHAT = {2: "SFPNOP", 3: "SFPSTORE", 4: "InstructionTemplate[0]", 5: "InstructionTemplate[1]",
         6: "InstructionTemplate[2]", 7: "InstructionTemplate[3]"}


@instruction("SFPLOADMACRO", "SFPLOADMACRO.md", ("VDHi", "Imm9", "AddrMod", "Mod0", "VDLo", "MacroIndex"), vd=None)
def sfploadmacro(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLOADMACRO`` (BlackholeA0 SFPLOADMACRO.md; see the module docstring)."""
    vu, index = cop.vector, f["MacroIndex"]
    vd = f["VDHi"] << 2 | f["VDLo"]
    sfpload(cop, thread, {"VD": vd, "Mod0": f["Mod0"], "AddrMod": f["AddrMod"], "Imm10": f["Imm9"] << 1 | f["VDHi"]}, None)
    if not vu.macro_defined[4 + index].all():
        raise UnpredictableValueUsed(f"SFPLOADMACRO.md: the load into LReg[{vd}] ran; LoadMacroConfig.Sequence[{index}], "
                                     "which says what to schedule, was never written (SFPCONFIG VD 4-7)")
    sequence = vu.sequence[index]
    scheduled = []
    for i, unit in enumerate(SUB_UNITS):
        kinds = {int(k) for k in (sequence >> np.uint32(8 * i)) & 7}
        if 1 in kinds:
            raise UndefinedBehavior(f"SFPLOADMACRO.md: Sequence[{index}] schedules case 1 on the {unit} sub-unit")
        kinds.discard(0)
        scheduled += [f"{_WHAT[k]} on {unit}" for k in sorted(kinds)]
    if scheduled:
        raise UnsupportedFunctionality(
            f"SFPLOADMACRO.md: the load into LReg[{vd}] ran; macro {index} schedules {', '.join(scheduled)}, which run "
            "on later cycles alongside the threads' own Vector Unit instructions, and tdbg has no cycle model of the "
            "sub-unit pipeline (tt-llk kernels have a DISABLE_SFPLOADMACRO form)")
