"""Who gets the stops of a host's run (``TDBG_SIMULATOR_ARGS``): GDB through the stub
(``--gdb-port N``: ``tdbg.rsp.hosted``), the shell on the user's terminal (``--tty``:
``tdbg.simulator.terminal``), else the serving session's report on stderr (a breakpoint's stop
reported and the run goes on, any other halts the device)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdbg.debug import Stop
from tdbg.errors import SessionError
from tdbg.session import Session

if TYPE_CHECKING:
    from tdbg.debug.hostport import Hang
    from tdbg.simulator.server import Server


def attach(session: Session, server: Server, report: Callable[[Stop], bool], report_hang: Callable[[Hang], None],
           note: Callable[[str], None], gdb_port: int | None = None, gdb_host: str = "127.0.0.1",
           tty: bool = False, allow_host_files: bool = False) -> Callable[[], None]:
    """Give ``session``'s stops (its ``host_port``'s) and ``server``'s hangs to GDB or the
    terminal's shell, ``report`` / ``report_hang`` otherwise; what to call at the host's end.
    A ``gdb_host`` that is not loopback is warned about, as ``tdbg --gdb-host`` warns."""
    port = session.host_port
    assert port is not None
    gdb = None
    if gdb_port is not None:
        from tdbg.simulator.server import is_loopback
        from tdbg.rsp.hosted import HostedGdb

        if not is_loopback(gdb_host):
            note(f"warning: the GDB stub listens on {gdb_host}, not loopback: anyone who can reach it controls the "
                 "device, with no authentication")
        gdb = HostedGdb(session, gdb_port, gdb_host, note=note, allow_host_files=allow_host_files,
                        host_gone=server.gone.is_set)
        before = port.before_kernels

        def first_kernel() -> None:   # the commands first (they may set breakpoints), then GDB
            if before is not None:
                before()
            gdb.attach()

        port.before_kernels = first_kernel
        port.on_code = gdb.libraries

        def idle() -> None:   # GDB's Ctrl-C while the host computes
            stop = gdb.interrupted()
            if stop is not None and not gdb.stopped(stop):
                port.halt(stop)

        server.idle = idle
    shells = []
    if tty:
        from tdbg.simulator.terminal import TerminalShell

        shells.append(TerminalShell(session))

    def on_shell(stop: Stop | None) -> bool | None:
        """The terminal's shell at ``stop`` (None: reported already): True continues; None
        when there is no terminal (said once, and the run goes on as without ``--tty``)."""
        if not shells:
            return None
        try:
            return shells[0].stopped(stop)
        except SessionError as exc:
            note(f"{exc}; stops are reported on stderr")
            shells.clear()
            return None

    def stopped(stop: Stop) -> bool:
        if gdb is not None and gdb.attached:
            return gdb.stopped(stop)
        resumed = on_shell(stop)
        return report(stop) if resumed is None else resumed

    def hung(hang: Hang) -> None:
        """Reported; the device is halted (``tdbg.debug.hostport.Hang``), a debugger sees it first."""
        report_hang(hang)
        if gdb is not None and gdb.attached:
            where, stop = next(iter(hang.stops.items()))
            session.select_tile(where)
            gdb.stopped(stop, f"tdbg: {hang}\n")
        else:
            on_shell(None)

    port.on_stop = stopped
    server.on_hang = hung
    return gdb.ended if gdb is not None else (lambda: None)
