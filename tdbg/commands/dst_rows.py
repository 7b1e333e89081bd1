"""Dst row arguments (``A-B`` or ``N``) and the default view of the commands that read Dst
(``dst``, ``dump dst``, ``pack``), rows checked against the storage's rows before any work: BlackholeA0
``TensixCoprocessor/Dst.md`` gives ``Dst16b`` 1024 rows and ``Dst32b`` 512 distinct ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tdbg.commands.registry import CommandError
from tdbg.commands.values import evaluate_int
from tdbg.tensix.view_in_force import WINDOW_VIEW

if TYPE_CHECKING:
    from tdbg.commands.interpreter import Interpreter

STORAGE_ROWS = {"dst16": 1024, "dst32": 512}  # Dst32b rows 512..1023 alias 256..511 (Adj32)
STORAGE_NAME = {"dst16": "Dst16b", "dst32": "Dst32b"}


def dst_rows(interp: Interpreter, text: str, limit: int, what: str) -> np.ndarray:
    """``A-B`` or ``A`` as an array of row numbers below ``limit`` (``what``: the storage's
    name for the error, which gives the range)."""
    lo, _, hi = text.partition("-")
    first, last = evaluate_int(interp, lo), evaluate_int(interp, hi or lo)
    if not 0 <= first <= last < limit:
        raise CommandError(f"{what} rows {text} out of range 0..{limit - 1}.")
    return np.arange(first, last + 1)


def window_view(interp: Interpreter, option: str) -> str:
    """The current core's Dst window view (its thread's window ``fmt``), the default of the
    commands that read Dst; a core without a Tensix thread (B) has none: ``option`` says how
    to give one."""
    s = interp.session
    if s.core.thread is None:
        raise CommandError(f"{s.current} has no Dst window view: give {option}, or select T0, T1 or T2.")
    return WINDOW_VIEW.get(s.model.window.ctrl(s.core.thread).fmt, "fp32")
