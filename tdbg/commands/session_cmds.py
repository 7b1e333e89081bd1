"""Ending the session: ``quit``."""

from __future__ import annotations

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import command
from tdbg.commands.values import evaluate_int


class Quit(SystemExit):
    """Raised by ``quit``: ends the REPL, a script and ``tdbg`` itself.

    ``code`` is the exit status the user asked for, or None for the usual one (1 if a
    command failed).  Being a ``SystemExit``, it passes through the interpreter's error
    handling, and exits cleanly wherever nothing catches it.
    """


@command("quit", aliases=("q",), usage="quit [EXPR]", help="Exit tdbg (in a script or -batch, end it there), with status EXPR when given.", example="quit")
def quit_cmd(interp: Interpreter, args: str) -> None:
    raise Quit(evaluate_int(interp, args.strip()) if args.strip() else None)
