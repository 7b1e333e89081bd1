"""``tdbg`` command line: open firmware, run ``-ex``/``-x`` commands, then the REPL (or exit
with ``-batch``); ``--rsp-stdio`` / ``--gdb-port`` serve the GDB remote protocol instead;
``tdbg build ...`` builds firmware (tdbg/cli/build.py)."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg import __version__

if TYPE_CHECKING:
    from tdbg.commands import Interpreter
    from tdbg.session import Session


class _InOrder(argparse.Action):
    """``-ex CMD`` and ``-x FILE`` kept in one list in command-line order, as commands."""

    def __call__(self, parser, namespace, value, option_string=None) -> None:  # type: ignore[override]
        getattr(namespace, self.dest).append(value if option_string == "-ex" else f"source {value}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdbg",
        description="A GDB-like debugger for Tensix tile firmware (Blackhole T cores, Dst window, Tensix instructions).",
        epilog="tdbg build FILE.c [-o FILE.elf] [-- FLAG ...] builds firmware; tdbg build --print-flags prints "
               "the compiler flags for a Makefile (tdbg build --help).",
    )
    parser.add_argument("programs", nargs="*", metavar="[CORE=]FIRMWARE",
                        help="firmware ELF, or a .c file to build, for a core: T0=unpack.elf T1=math.elf T2=pack.elf "
                             "[B=brisc.elf]; a bare FIRMWARE is T0's (default: the bundled demo on T0)")
    parser.add_argument("-ex", dest="sequence", action=_InOrder, default=[], metavar="CMD", help="run CMD (repeatable; -ex and -x run in the order given, as in GDB)")
    parser.add_argument("-x", dest="sequence", action=_InOrder, default=[], metavar="FILE", help="run the commands in FILE (repeatable; a failing command ends that file)")
    parser.add_argument("-batch", "--batch", action="store_true", help="run the commands and exit (status 1 if any failed)")
    parser.add_argument("-q", "-quiet", "--quiet", action="store_true", help="no banner")
    parser.add_argument("--rsp-stdio", action="store_true", help="serve the GDB remote protocol on stdin/stdout (target remote | tdbg --rsp-stdio FW)")
    parser.add_argument("--gdb-port", type=int, metavar="N", help="serve the GDB remote protocol on TCP port N (127.0.0.1 unless --gdb-host)")
    parser.add_argument("--gdb-host", default="127.0.0.1", help="address to listen on with --gdb-port")
    parser.add_argument("--version", action="version", version=f"tdbg {__version__}")
    return parser


def programs(args: list[str]) -> dict[str, str]:
    """``CORE=FILE`` arguments by core name; a bare FILE is T0's."""
    out: dict[str, str] = {}
    for arg in args:
        core, sep, path = arg.partition("=")
        if not sep or "/" in core or "." in core:
            core, path = "T0", arg
        core = core.upper()
        if core in out:
            raise ValueError(f"two firmware files for {core}: {out[core]} and {path}")
        out[core] = path
    return out


def run_interruptibly(session: Session, action: Callable[[], bool]) -> bool:
    """Run ``action`` in a worker thread so Ctrl-C can stop a running core (the main thread
    keeps handling signals while Unicorn runs) without losing any state.  What the action
    raises past the interpreter (``quit``) is raised again here.

    The main thread waits on an event, not ``Thread.join``: on Python 3.11 a join interrupted
    by Ctrl-C marks the still-running worker as finished."""
    result: list[bool | BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(action())
        except BaseException as exc:  # noqa: BLE001  (re-raised in the calling thread)
            result.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    interrupted = False
    while True:
        try:
            if done.wait(0.05):
                break
            if interrupted:  # again: a request that came between two emulator runs is lost
                session.interrupt()
        except KeyboardInterrupt:
            interrupted = True
            session.interrupt()
    if isinstance(result[0], BaseException):
        raise result[0]
    return bool(result[0])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["build"]:
        from tdbg.cli import build

        return build.main(argv[1:])
    args = build_parser().parse_args(argv)
    from tdbg.commands import Interpreter
    from tdbg.commands.session_cmds import Quit
    from tdbg.session import Session, SessionError
    from tdbg.emu.elf import ElfLoadError
    from tdbg.emu.toolchain import ToolchainError

    try:
        session = Session(programs(args.programs) or None)
    except (SessionError, ElfLoadError, ToolchainError, OSError, ValueError) as exc:
        print(f"tdbg: {exc}", file=sys.stderr)
        return 1
    if args.rsp_stdio or args.gdb_port is not None:
        from tdbg.rsp.server import serve_stdio, serve_tcp

        if args.rsp_stdio:
            serve_stdio(session)
        else:
            serve_tcp(session, args.gdb_port, args.gdb_host, ready=lambda port: print(f"tdbg: listening on {args.gdb_host}:{port}", file=sys.stderr, flush=True))
        return 0
    interp = Interpreter(session, write=lambda text: (sys.stdout.write(text), sys.stdout.flush()))
    if not args.quiet and not args.batch:
        loaded = ", ".join(f"{p.image.path.name} on {name}" for name, p in session.tile.programs.items())
        print(f"tdbg {__version__}: {loaded} (a {session.tile.profile.name.capitalize()} Tensix tile); "
              f"current core {session.current}.  Type \"help\".")
    try:
        return _run(args, session, interp)
    except Quit as stop:
        return (1 if interp.failed else 0) if stop.code is None else stop.code


def _run(args: argparse.Namespace, session: Session, interp: Interpreter) -> int:
    """The ``-x`` scripts and ``-ex`` commands in command-line order, then the REPL or the
    piped lines; the exit status."""
    ok = True
    for command in args.sequence:  # -ex commands count as typed unless -batch, as in GDB
        ok = run_interruptibly(session, lambda c=command: interp.execute(c, from_tty=not args.batch)) and ok
    if args.batch:
        return 0 if ok and not interp.failed else 1
    if sys.stdin.isatty():
        from tdbg.cli.repl import repl

        repl(interp)
    else:
        for line in sys.stdin:
            run_interruptibly(session, lambda l=line: interp.execute(l))
    return 0 if not interp.failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
