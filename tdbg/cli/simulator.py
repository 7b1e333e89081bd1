"""``tdbg simulator DIR [--grid CHIP]``: write the folder ``TT_METAL_SIMULATOR`` names and print
the exports; ``--serve`` (what the folder's ``run.sh`` runs, under tt-umd) serves the host
dialled at ``NNG_SOCKET_ADDR`` on a session over the chip, with the tdbg options
``TDBG_SIMULATOR_ARGS`` carries (``-x FILE``, ``-ex CMD``, ``-q``, ``-nx``) run once the host has
written its first kernel, before it runs (so ``break kernel_main thread T1`` finds the kernel)
(``--trace-requests FILE``: one line per request received; ``--gdb-port N`` and ``--tty``:
the stops go to GDB or the user's terminal, ``tdbg.simulator.debuggers``).  At the end it says how
many requests it answered, and how fast, what each command's requests cost in parts (decoding,
answering, the reply), and how long the reads that ran the tiles ran them."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tdbg.arch.chips import CHIPS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdbg simulator",
        description="Write a folder for tt-metal's TT_METAL_SIMULATOR: the user's ttnn or tt-metal script then "
                    "runs its device work on tdbg (eval \"$(tdbg simulator DIR)\"; python script.py).",
        epilog="TDBG_SIMULATOR_ARGS='-ex \"break kernel_main thread T1\" -x checks.gdb' passes tdbg options to the "
               "serving session; '--gdb-port N': gdb-multiarch attaches there once the host has loaded its first "
               "kernel (the host waits); '--tty': the tdbg shell opens on the script's terminal at each stop "
               "(continue resumes the host, quit ends the device's run).")
    parser.add_argument("folder", metavar="DIR", type=Path, help="the folder to write (made if missing)")
    parser.add_argument("--grid", default="1x2", choices=sorted(CHIPS),
                        help="the chip shown to the host: 1x2 (two Tensix tiles, tt-metal's small simulation "
                             "descriptor; the default) or full (Blackhole's 140)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--simulator-remote", action="store_true",
                        help="with --serve: dial an NNG_SOCKET_ADDR that is not loopback (refused by default)")
    return parser


def _session_options(argv: list[str]) -> argparse.Namespace:
    from tdbg.cli.main import _InOrder, _port

    parser = argparse.ArgumentParser(prog="TDBG_SIMULATOR_ARGS", add_help=False)
    parser.add_argument("-ex", dest="sequence", action=_InOrder, default=[])
    parser.add_argument("-x", dest="sequence", action=_InOrder, default=[])
    parser.add_argument("-q", "-quiet", "--quiet", action="store_true")
    parser.add_argument("-nx", "--nx", action="store_true")
    parser.add_argument("-batch", "--batch", action="store_true")
    parser.add_argument("--simulator-remote", action="store_true")
    parser.add_argument("--trace-requests", metavar="FILE")
    parser.add_argument("--gdb-port", type=_port)
    parser.add_argument("--gdb-host", default="127.0.0.1")
    parser.add_argument("--allow-host-files", action="store_true")
    parser.add_argument("--tty", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from tdbg.arch import profile_for
    from tdbg.arch.chips import chip

    if not args.serve:
        from tdbg.simulator import folder

        try:
            exports = folder.write(args.folder, chip(args.grid, profile_for()), profile_for())
        except OSError as exc:
            print(f"tdbg simulator: cannot write {args.folder}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print("\n".join(exports))
        return 0
    return serve(args)


def serve(args: argparse.Namespace) -> int:
    """The server under tt-umd: stdin is not the user's; stdout and stderr are the script's."""
    from tdbg.commands import Interpreter
    from tdbg.commands.running import report_stop
    from tdbg.debug import StopKind
    from tdbg.errors import SessionError
    from tdbg.simulator import folder
    from tdbg.simulator.server import Server
    from tdbg.session import Session

    def out(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    try:
        options = _session_options(folder.options())
    except SystemExit:
        print("tdbg simulator: TDBG_SIMULATOR_ARGS takes -ex CMD, -x FILE, -q, -nx, -batch, --gdb-port N, --gdb-host H, "
              "--tty, --allow-host-files, --simulator-remote, --trace-requests FILE", file=sys.stderr)
        return 2
    address = os.environ.get("NNG_SOCKET_ADDR")
    if not address:
        print("tdbg simulator: NNG_SOCKET_ADDR is not set (tt-umd sets it when it runs run.sh)", file=sys.stderr)
        return 2
    try:
        session = Session.on_chip(args.grid)
    except SessionError as exc:
        print(f"tdbg simulator: {exc}", file=sys.stderr)
        return 1
    from tdbg.ttmetal import launches
    from tdbg.ttmetal.jit_output import JitOutput

    session.host_port.jit = JitOutput(session.profile)
    session.warning_listeners.append(lambda warning: out(f"tdbg: {warning}\n"))   # as the command line's
    launches.attach(session)
    interp = Interpreter(session, write=out)
    interp.state.confirm = False
    def on_stop(stop) -> bool:
        """A breakpoint is reported and the run goes on (its commands ran); any other stop halts."""
        x, y = session.tile_coord
        out(f"\n[Tile {x},{y}]")
        report_stop(interp, stop)
        return stop.kind is StopKind.BREAKPOINT

    session.host_port.on_stop = on_stop
    from tdbg.cli.main import _run_sequence

    # the commands run when the host has written its first kernel: its symbols are known then
    session.host_port.before_kernels = lambda: _run_sequence(options, session, interp)

    def on_hang(hang) -> None:
        """The hang, and the report of one tile of each way the tiles wait."""
        out(f"tdbg: {hang}\n")
        for tiles in hang.alike(hang.stops).values():
            where = tiles[0]
            session.select_tile(where)
            same = f" (and {len(tiles) - 1} more tiles that wait alike)" if len(tiles) > 1 else ""
            out(f"\n[Tile {where[0]},{where[1]}]{same}")
            report_stop(interp, hang.stops[where])

    server = Server(session)
    from tdbg.simulator.debuggers import attach

    try:
        ended = attach(session, server, on_stop, on_hang, lambda line: out(f"tdbg: {line}\n"), options.gdb_port,
                       options.gdb_host, options.tty, options.allow_host_files)
    except OSError as exc:
        print(f"tdbg simulator: cannot listen on {options.gdb_host}:{options.gdb_port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    trace = open(options.trace_requests, "w", buffering=1) if options.trace_requests else None
    if trace is not None:
        from tdbg.simulator.protocol import decode

        def line(raw: bytes) -> None:
            m = decode(raw)
            trace.write(f"{m.name} {m.core[0]},{m.core[1]} {m.address:#x} {m.size}"
                        f"{' ' + m.payload[:16].hex() if m.command == 0 else ''}\n")
        server.trace = line
    import gc

    gc.freeze()     # the session's objects live as long as the server: its collections need not walk them
    started = time.monotonic()
    try:
        return server.serve(address, args.simulator_remote or options.simulator_remote)
    except SessionError as exc:
        print(f"tdbg simulator: {exc}", file=sys.stderr)
        return 1
    finally:
        ended()
        if trace is not None:
            trace.close()
        took = time.monotonic() - started
        requests = sum(server.counts.values())
        if not options.quiet:
            print(f"tdbg simulator: {requests} requests in {took:.1f} s ({requests / max(took, 1e-9):.0f}/s): "
                  + ", ".join(f"{n} {name}" for name, n in sorted(server.counts.items())), file=sys.stderr)
            if server.seconds:
                print(f"tdbg simulator: per request: {server.describe_seconds()}", file=sys.stderr)
            runs = session.host_port.runs
            if runs:
                print(f"tdbg simulator: {len(runs)} reads ran the tiles, {sum(runs):.3f} s in all, the longest "
                      f"{max(runs) * 1e3:.1f} ms", file=sys.stderr)
