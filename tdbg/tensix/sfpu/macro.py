"""``SFPLOADMACRO`` (BlackholeA0 SFPLOADMACRO.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.tensix.events import UnimplementedFunctionality
from tdbg.tensix.sfpu.state import instruction

if TYPE_CHECKING:
    from tdbg.tensix.coprocessor import Coprocessor


@instruction("SFPLOADMACRO", "SFPLOADMACRO.md", ("VDHi", "Imm9", "AddrMod", "Mod0", "VDLo", "MacroIndex"), vd=None)
def sfploadmacro(cop: Coprocessor, thread: int, f: dict[str, int], active: np.ndarray | None) -> None:
    """``SFPLOADMACRO`` (BlackholeA0 SFPLOADMACRO.md)."""
    raise UnimplementedFunctionality("SFPLOADMACRO: tdbg does not model this instruction yet")
