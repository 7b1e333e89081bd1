"""tt-metal's host role on the tile (``tdbg.ttmetal``): ``tt-metal boot``."""

from __future__ import annotations

import shlex

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import CommandError, Registry, command
from tdbg.session import SessionError

TT_METAL = Registry("tt-metal")


@TT_METAL.command(
    "boot", usage="tt-metal boot [FIRMWARE-DIR]",
    help="Load Tenstorrent's Blackhole firmware on the five cores as tt-metal 0.81.1's host places it (each "
         "ELF's private-memory bytes at MEM_*_INIT_LOCAL_L1_BASE_SCRATCH) and make its boot the set-up: "
         "every core held, the watcher's state, core_info, the bank and logical-to-virtual tables, "
         "the launch messages, go_messages[0] = RUN_MSG_INIT, a jal to the firmware at BRISC's reset PC, "
         "BRISC released (earlier set-up is dropped).  Then 'run' boots the tile: when every core waits "
         "for the host and go_messages[0].signal reads RUN_MSG_DONE the run ends, naming each core's "
         "wait.  FIRMWARE-DIR is a pre-compiled/<hash> folder (default: the ttnn wheel's, "
         "pre-compiled/11660721212704224774).",
    example="tt-metal boot")
def tt_metal_boot(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import boot

    words = _words(args)
    if len(words) > 1:
        raise CommandError("Usage: tt-metal boot [FIRMWARE-DIR]")
    try:
        boot.prepare(interp.session, words[0] if words else None)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    interp.out("tt-metal 0.81.1's firmware loaded on B, NC, T0, T1, T2 with its boot as the set-up "
               "('info setup'); 'run' boots it.")


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError as exc:
        raise CommandError(f"Bad arguments: {exc}.") from None


@command(
    "tt-metal", usage="tt-metal SUBCOMMAND",
    help="Play tt-metal 0.81.1's host for this tile (slow dispatch).\n"
         + "\n".join(f"  {c.usage}: {c.help}" for c in TT_METAL.commands.values()),
    example="tt-metal boot")
def tt_metal(interp: Interpreter, args: str) -> None:
    word, _, rest = args.strip().partition(" ")
    if not word:
        interp.out('"tt-metal" must be followed by a subcommand:')
        for cmd in TT_METAL.commands.values():
            interp.out(f"  {cmd.usage}")
        return
    TT_METAL.lookup(word).handler(interp, rest.strip())
