"""``tdbg`` command line: open firmware, run ``-ex``/``-x`` commands, then the REPL (or exit
with ``-batch``); ``--rsp-stdio`` / ``--gdb-port`` serve the GDB remote protocol instead;
``tdbg build ...`` builds firmware (tdbg/cli/build.py); ``tdbg toolchain sfpi-standin TTNN_DIR``
installs the SFPI stand-in (tdbg/cli/toolchain.py); ``tdbg simulator DIR`` makes tdbg tt-metal's
simulator (tdbg/cli/simulator.py).

Ctrl-C (SIGINT) interrupts the running command and nothing else: it never raises between
commands, so a script goes on after it however many arrive.  Bad arguments (a port out of
range, an address that cannot be listened on, a script that is not a UTF-8 text file) get one
line naming what is wrong."""

from __future__ import annotations

import argparse
import os
import signal
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import tdbg
from tdbg.debug.hostfiles import read_script

#: The model calls no BLAS routine (its matrix unit works bit by bit in integers), but OpenBLAS starts a
#: worker thread per CPU when numpy is imported and they spin: 50-90 ms of CPU per tdbg process
#: (measured, ``import numpy`` alone: 131 ms CPU against 82 ms with one thread).  Set before numpy is
#: imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

INIT_FILE = ".tdbginit"
#: -batch's exit status beyond GDB's 1 (a command failed), past 2 (a bad command line: argparse): what a run ended in
BATCH_DEADLOCK = 3
BATCH_DEVICE_ASSERT = 4

if TYPE_CHECKING:
    from tdbg.commands import Interpreter
    from tdbg.debug import Stop
    from tdbg.session import Session


class _InOrder(argparse.Action):
    """``-ex CMD`` and ``-x FILE`` kept in one list in command-line order: (option, value)."""

    def __call__(self, parser, namespace, value, option_string=None) -> None:  # type: ignore[override]
        getattr(namespace, self.dest).append((option_string, value))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdbg",
        description="A GDB-like debugger for Tensix tile firmware (Blackhole T cores, Dst window, Tensix instructions).",
        epilog="tdbg build FILE.c [-o FILE.elf] [-- FLAG ...] builds firmware; tdbg build --print-flags prints "
               "the compiler flags for a Makefile (tdbg build --help).  tdbg simulator DIR writes a folder for "
               "tt-metal's TT_METAL_SIMULATOR: your ttnn script then runs on tdbg (tdbg simulator --help).",
    )
    parser.add_argument("programs", nargs="*", metavar="[CORE=]FIRMWARE",
                        help="firmware ELF, or a .c file to build, for a core: T0=unpack.elf T1=math.elf T2=pack.elf "
                             "[B=brisc.elf]; a bare FIRMWARE is T0's (default: the bundled demo on T0)")
    parser.add_argument("-ex", dest="sequence", action=_InOrder, default=[], metavar="CMD", help="run CMD (repeatable; -ex and -x run in the order given, as in GDB)")
    parser.add_argument("-x", dest="sequence", action=_InOrder, default=[], metavar="FILE", help="run the commands in FILE (repeatable; a failing command ends that file)")
    parser.add_argument("-batch", "--batch", action="store_true",
                        help=f"run the commands and exit: status 1 if a command failed (as GDB), {BATCH_DEADLOCK} if a run "
                             f"ended in a deadlock (a tt-metal hang too), {BATCH_DEVICE_ASSERT} if a tt-metal kernel's ASSERT "
                             "tripped; the highest of these that happened (2: a bad command line)")
    parser.add_argument("-q", "-quiet", "--quiet", action="store_true", help="no banner")
    parser.add_argument("-nx", "--nx", action="store_true", help=f"do not run the commands in ~/{INIT_FILE} (read before -ex and -x, as GDB reads ~/.gdbinit)")
    parser.add_argument("--rsp-stdio", action="store_true", help="serve the GDB remote protocol on stdin/stdout (target remote | tdbg --rsp-stdio FW)")
    parser.add_argument("--gdb-port", type=_port, metavar="N", help="serve the GDB remote protocol on TCP port N (0: any free port; on 127.0.0.1 unless --gdb-host)")
    parser.add_argument("--gdb-host", default="127.0.0.1", help="address to listen on with --gdb-port; anything but loopback lets other machines control the tile (a warning says so)")
    parser.add_argument("--allow-host-files", action="store_true", help="let GDB's monitor run commands that read or write files on this host (source, dump, restore, file, ...); refused by default")
    parser.add_argument("--tt-metal-boot", nargs="?", const="", metavar="FIRMWARE-DIR",
                        help="load Tenstorrent's Blackhole firmware on the five cores with tt-metal 0.81.1's boot as "
                             "the set-up ('run' boots it; 'help tt-metal boot'); FIRMWARE-DIR: a pre-compiled/<hash> "
                             "folder, default the ttnn wheel's")
    parser.add_argument("--version", action=_Version, nargs=0, help="show program's version number and exit")
    return parser


class _Version(argparse.Action):
    """argparse's ``version`` action, the version looked up only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"tdbg {tdbg.__version__}")
        parser.exit()


def _port(text: str) -> int:
    try:
        port = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0..65535")
    return port


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


def catch_sigint(session: Session) -> None:
    """From now on Ctrl-C interrupts what ``session`` runs instead of raising
    ``KeyboardInterrupt`` (the REPL's prompt reads Ctrl-C as a key and discards the line)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda signum, frame: session.interrupt())


def main(argv: list[str] | None = None) -> int:
    """The command line; a Ctrl-C before the shell takes SIGINT over (while the libraries load,
    the firmware is read or built) ends tdbg with one line and status 130, as a shell reports
    SIGINT, not a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("tdbg: interrupted while starting", file=sys.stderr)
        return 130


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["build"]:
        from tdbg.cli import build

        return build.main(argv[1:])
    if argv[:1] == ["simulator"]:
        from tdbg.cli import simulator

        return simulator.main(argv[1:])
    if argv[:1] == ["toolchain"]:
        from tdbg.cli import toolchain

        return toolchain.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.rsp_stdio or args.gdb_port is not None) and (args.sequence or args.batch):
        parser.error("-ex, -x and -batch are the shell's: with --rsp-stdio or --gdb-port, "
                     "send commands from GDB with 'monitor CMD'")
    from tdbg.commands import Interpreter
    from tdbg.commands.session_cmds import Quit
    from tdbg.session import Session, SessionError
    from tdbg.toolchain.zig import ToolchainError

    if args.tt_metal_boot is not None and args.programs:
        parser.error("--tt-metal-boot loads the five cores' firmware itself: give no FIRMWARE")
    try:
        if args.tt_metal_boot is not None:
            from tdbg.ttmetal import boot

            session = Session({})
            boot.prepare(session, args.tt_metal_boot or None)
        else:
            session = Session(programs(args.programs) or None)
    except (SessionError, ToolchainError, OSError, ValueError) as exc:   # a bad ELF is a SessionError
        print(f"tdbg: {exc}", file=sys.stderr)
        return 1
    for warning in session.load_warnings:
        print(f"tdbg: {warning}", file=sys.stderr)
    session.warning_listeners.append(lambda warning: print(f"tdbg: {warning}", file=sys.stderr, flush=True))
    if args.rsp_stdio or args.gdb_port is not None:
        return _serve(args, session)
    interp = Interpreter(session, write=lambda text: (sys.stdout.write(text), sys.stdout.flush()))
    interp.state.confirm = not args.batch            # GDB: -batch answers every query yes, unasked
    interp.state.terminal = sys.stdin.isatty()
    interp.state.pagination = not args.batch         # GDB: -batch never pages
    if sys.stdout.isatty():  # GDB's width and height: the terminal's
        interp.state.width = shutil.get_terminal_size().columns
        if sys.stdin.isatty() and not args.batch:
            interp.state.height = shutil.get_terminal_size().lines
    catch_sigint(session)
    if not args.quiet and not args.batch:
        loaded = ", ".join(f"{image.path.name} on {name}" for name, image in session.programs.items())
        print(f"tdbg {tdbg.__version__}: {loaded} (a {session.profile.name.capitalize()} Tensix tile); "
              f"current core {session.current}.  Type \"help\".")
    worst = [0]   # -batch: the highest batch_status of the stops the runs ended in
    if args.batch:
        session.stop_listeners.append(lambda stop: worst.__setitem__(0, max(worst[0], batch_status(stop))))
    try:
        status = _run(args, session, interp)
        return max(worst[0], status)
    except Quit as stop:
        return max(worst[0], 1 if interp.failed else 0) if stop.code is None else stop.code
    finally:
        _ignore_sigint()


def _ignore_sigint() -> None:
    """Only exiting is left: a Ctrl-C now must not kill the process (Python puts back SIGINT's
    default action while it shuts down, but leaves an ignored signal ignored)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve(args: argparse.Namespace, session: Session) -> int:
    """The GDB stub on stdio or TCP; one line for an address that cannot be listened on."""
    from tdbg.rsp.server import serve_stdio, serve_tcp
    from tdbg.simulator.server import is_loopback

    if args.rsp_stdio:  # GDB's child: a terminal's Ctrl-C reaching it interrupts, as GDB's 0x03 does
        catch_sigint(session)
        try:
            serve_stdio(session, args.allow_host_files)
        finally:
            _ignore_sigint()
        return 0
    host = args.gdb_host
    if not is_loopback(host):
        print(f"tdbg: warning: listening on {host}, not loopback: anyone who can reach port {args.gdb_port} there "
              f"controls the tile, with no authentication (host-file commands stay refused"
              f"{'' if not args.allow_host_files else ', except that --allow-host-files allows them'}).",
              file=sys.stderr, flush=True)
    try:
        serve_tcp(session, args.gdb_port, host, allow_host_files=args.allow_host_files,
                  ready=lambda port: print(f"tdbg: listening on {host}:{port}", file=sys.stderr, flush=True))
    except OSError as exc:
        print(f"tdbg: cannot listen on {host}:{args.gdb_port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C in tdbg's own terminal ends the stub
        print("tdbg: interrupted; the GDB stub ends.", file=sys.stderr)
        return 130
    finally:
        _ignore_sigint()
    return 0


def _source(session: Session, interp: Interpreter, name: str, lines: list[str]) -> bool:
    """Run a ``-x`` file as ``source`` does (the first failing line ends it); each line starts
    with no Ctrl-C pending, so one Ctrl-C stops the command it came during, not the rest."""
    from tdbg.commands.interpreter import ScriptAborted

    def feed() -> Iterator[str]:
        for line in lines:
            session.clear_interrupt()
            yield line

    try:
        interp.source_lines(feed(), name)
    except ScriptAborted:
        interp.failed = True
        return False
    return True


def init_file() -> Path:
    """The init file: ``~/.tdbginit`` (``$HOME``), as GDB's ``~/.gdbinit``."""
    return Path.home() / INIT_FILE


def batch_status(stop: Stop) -> int:
    """What ``stop`` makes ``-batch``'s exit status at least: a deadlock, a device ASSERT (only a
    tt-metal program, ``tdbg.ttmetal.program``, has one), else 0."""
    from tdbg.debug import StopKind

    if stop.kind is StopKind.DEADLOCK:
        return BATCH_DEADLOCK
    program = sys.modules.get("tdbg.ttmetal.program")
    return BATCH_DEVICE_ASSERT if program is not None and program.device_assert(stop) else 0


def _run_sequence(args: argparse.Namespace, session: Session, interp: Interpreter) -> bool:
    """The init file (unless ``-nx``), then the ``-x`` scripts and ``-ex`` commands in
    command-line order; False if any failed."""
    ok = True
    init = init_file()
    if not args.nx and init.is_file():   # its failing command ends it, as GDB's; the session goes on
        try:
            lines = read_script(str(init))
        except ValueError as exc:
            print(f"tdbg: {exc}", file=sys.stderr)
            lines = []
        session.run_breakable(lambda: _source(session, interp, str(init), lines))
    for option, value in args.sequence:  # -ex commands count as typed unless -batch, as in GDB
        if option == "-ex":
            ok = session.run_breakable(lambda c=value: interp.execute(c, from_tty=not args.batch)) and ok
            continue
        try:
            lines = read_script(value)
        except ValueError as exc:
            print(f"tdbg: {exc}", file=sys.stderr)
            interp.failed = ok = False
            continue
        ok = session.run_breakable(lambda n=value, l=lines: _source(session, interp, n, l)) and ok
    return ok


def _run(args: argparse.Namespace, session: Session, interp: Interpreter) -> int:
    """The init file (unless ``-nx``), the ``-x`` scripts and ``-ex`` commands in command-line
    order, then the REPL or the piped lines; the exit status."""
    ok = _run_sequence(args, session, interp)
    if args.batch:
        return 0 if ok and not interp.failed else 1
    if sys.stdin.isatty():
        from tdbg.cli.repl import repl

        repl(interp)
    else:  # piped lines, as GDB reads them: a block (if, while, define ...) takes its lines from here
        piped = iter(sys.stdin)
        interp.read_line = lambda prompt: next(piped, None)
        for line in piped:
            session.run_breakable(lambda l=line: interp.execute(l))
    return 0 if not interp.failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
