"""The NoC: ``info noc``."""

from __future__ import annotations

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, info_command


@info_command("noc", usage="info noc [0|1|requests]",
              help="Show this tile's NIUs: each command buffer the run used (target and return addresses and "
                   "coordinates, NOC_CTRL, length), the counters that moved (NIU_MST_*), the configuration registers; "
                   "and the NoC requests the run made, oldest first (kind, length, who issued it, from where to "
                   "where; of a long run, the newest ten thousand or more).  A request is done when NOC_CMD_CTRL is "
                   "written (tdbg models no NoC latency).",
              example="info noc 0")
def info_noc(interp: Interpreter, args: str) -> None:
    status = interp.session.noc_status()
    which = args.strip()
    sections = {"0": ["NoC 0"], "1": ["NoC 1"], "requests": ["requests"], "": list(status)}.get(which)
    if sections is None:
        raise CommandError("info noc takes 0, 1 or requests.")
    for name in sections:
        lines = status[name]
        interp.out(f"{'NoC requests' if name == 'requests' else name}:" + ("" if lines else " none"))
        for line in lines:
            interp.out(f"  {line}")
