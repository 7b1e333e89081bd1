"""tdbg's commands: one module per family, each declaring its commands once (``registry``).

Importing this package registers them all; ``Interpreter`` runs them, ``execute(session, line)``
runs one line in a session's own shell (the engine never imports its shell, as ``bdb`` never
imports its UI).
"""

from tdbg.commands import (  # noqa: F401  (registration)
    breakpoints,
    data,
    dst_cmds,
    escapes,
    examine,
    files,
    frame_cmds,
    l1_cmds,
    machine,
    noc_cmds,
    remap_cmds,
    running,
    scripting,
    session_cmds,
    settings,
    sfpu_cmds,
    source_cmds,
    support,
    symbols,
    tensix_cmds,
    ttmetal_cmds,
)
from tdbg.commands.interpreter import Interpreter, execute
from tdbg.commands.registry import ROOT, CommandError

__all__ = ["Interpreter", "ROOT", "CommandError", "execute"]
