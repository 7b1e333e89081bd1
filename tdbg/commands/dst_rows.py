"""Dst row arguments (``A-B`` or ``N``) and the default view of the commands that read Dst
(``dst``, ``dump dst``, ``pack``), rows checked against the storage's rows before any work (the
profile's ``TensixSpec.storage_rows``: on Blackhole 1024 ``Dst16b`` rows, 512 distinct ``Dst32b``
ones).  The view rule is ``tdbg.tensix.view_in_force``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.commands.registry import CommandError
from tdbg.commands.values import evaluate_int

if TYPE_CHECKING:
    import numpy as np

    from tdbg.commands.interpreter import Interpreter
    from tdbg.tensix import formats

STORAGE_NAME = {"dst16": "Dst16b", "dst32": "Dst32b", "bits": "DstBits"}


def storage_rows(interp: Interpreter, storage: str) -> int:
    """The rows of ``storage`` ("dst16", "dst32", "bits", "src") on the session's tile."""
    return interp.session.profile.tensix.storage_rows(storage)


def dst_rows(interp: Interpreter, text: str, limit: int, what: str) -> np.ndarray:
    """``A-B`` or ``A`` as an array of row numbers below ``limit`` (``what``: the storage's
    name for the error, which gives the range)."""
    import numpy as np

    lo, _, hi = text.partition("-")
    first, last = evaluate_int(interp, lo), evaluate_int(interp, hi or lo)
    if not 0 <= first <= last < limit:
        raise CommandError(f"{what} rows {text} out of range 0..{limit - 1}.")
    return np.arange(first, last + 1)


def default_view(interp: Interpreter, option: str) -> formats.View:
    """The view of Dst data in force (``Session.dst_view_in_force``), the default of the
    commands that read Dst.  It is the current core's Tensix thread's, whose config bank holds
    the configuration in force; a core without one (B) has none: ``option`` says how to give a
    view."""
    if interp.session.tensix_thread is None:
        raise CommandError(f"{interp.session.current} has no Dst view in force: give {option}, or select T0, T1 or T2.")
    return interp.session.dst_view_in_force()


def note_other_view(interp: Interpreter, view: formats.View) -> None:
    """Say in one line when an explicit ``view`` reads other data than the math configuration
    says Dst holds (``help dst`` names the fields in full)."""
    if interp.session.tensix_thread is None:
        return
    math = interp.session.math_dst()
    if math.differs(view):
        assert math.view is not None
        asked = view.name if view.name != "raw" else f"raw{view.width}"
        interp.out(f"Note: the math configuration says {math.view.name} ({math.fields()}), not {asked}.")
