"""The tdbg shell on the user's terminal at a stop of a host's run (``TDBG_SIMULATOR_ARGS=--tty``).

``run.sh`` runs under tt-umd with stdin and stdout that are not the user's and no controlling
terminal (measured with ttnn 0.81.1's tt-umd: ``/dev/tty`` gives ENXIO there); the user's terminal
is the one its stderr, or else the script's (its parent's) standard streams, are
(``user_terminal``).  At a
stop the REPL (the prompt_toolkit shell ``tdbg`` runs) opens there, with the
whole session (every tile: ``select-tile``, ``thread X,Y:CORE``).  ``continue`` gives the device
back to the host; ``quit`` (or Ctrl-D) ends the device's run: the host's reads get no data and the
script ends with tt-umd's error.  ``run``, ``start``, ``starti``, ``kill`` and ``restart`` are
refused (the host owns the device's start); ``step``, ``next``, ``finish`` run the selected
tile while the host waits.
"""

from __future__ import annotations

import os
from typing import TextIO

from tdbg.commands import Interpreter
from tdbg.commands.registry import Command, CommandError
from tdbg.commands.running import ignore_crossings, report_stop
from tdbg.commands.session_cmds import Quit
from tdbg.debug import Stop
from tdbg.errors import SessionError
from tdbg.session import Session

#: Commands that would start the device over, which only the host does.
HOST_OWNED = {"run", "start", "starti", "kill", "restart"}


def user_terminal() -> str | None:
    """The user's terminal: the controlling one (``/dev/tty``), else the terminal of this
    process's or its parent's standard streams (stderr first); None when none is a terminal."""
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
        return "/dev/tty"
    except OSError:
        pass
    for fd in (2, 1, 0):
        if os.isatty(fd):
            return os.ttyname(fd)
    for fd in (2, 1, 0):
        try:
            path = os.readlink(f"/proc/{os.getppid()}/fd/{fd}")
        except OSError:
            continue
        if path.startswith("/dev/") and os.path.exists(path) and _is_terminal(path):
            return path
    return None


def _is_terminal(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


class HostResumes(BaseException):
    """``continue`` at the terminal: the REPL ends and the host's run goes on."""


class HostedInterpreter(Interpreter):
    """The shell of a device a host drives: ``continue [N]`` resumes the host."""

    def _run(self, cmd: Command, args: str) -> None:
        if cmd.name == "continue":
            ignore_crossings(self, args)
            raise HostResumes
        if cmd.name in HOST_OWNED:
            raise CommandError(f'"{cmd.name}": the host runs this device: '
                               '"continue" gives it back, "quit" ends its run')
        super()._run(cmd, args)


class TerminalShell:
    """The REPL on ``path`` (by default ``user_terminal()``), opened at each stop."""

    def __init__(self, session: Session, path: str | None = None) -> None:
        self.session, self.path = session, path
        self.streams: tuple[TextIO, TextIO] | None = None   # the terminal, to read and to write
        self.interp: HostedInterpreter | None = None

    def _open(self) -> HostedInterpreter:
        if self.interp is None:
            path = self.path or user_terminal()
            if path is None:
                raise SessionError("no terminal for the shell: neither /dev/tty nor the script's streams are one")
            try:   # (kept open for the run)
                self.streams = (open(os.open(path, os.O_RDONLY | os.O_NOCTTY)),
                                open(os.open(path, os.O_WRONLY | os.O_NOCTTY), "w", buffering=1))
            except OSError as exc:
                raise SessionError(f"no terminal for the shell ({path}: {exc.strerror or exc})") from None
            terminal = self.streams[1]
            self.interp = HostedInterpreter(self.session, write=lambda text: (terminal.write(text), terminal.flush()))
            self.interp.state.terminal = True
            self.interp.state.confirm = False
            try:
                size = os.get_terminal_size(terminal.fileno())
                self.interp.state.width, self.interp.state.height = size.columns, size.lines
            except OSError:
                pass
        return self.interp

    def stopped(self, stop: Stop | None) -> bool:
        """``stop`` reported on the terminal (None: reported already), then the shell until ``continue``
        (True) or ``quit`` (False)."""
        from tdbg.cli.repl import repl

        interp = self._open()
        if stop is not None:
            where = self.session.tile_coord
            interp.write(f"\n[Tile {where[0]},{where[1]}]" if where is not None else "")
            report_stop(interp, stop)
        interp.out('tdbg: the host waits: "continue" gives it the device back, "quit" ends the device\'s run')
        try:
            repl(interp, *self.streams)   # type: ignore[misc]
        except HostResumes:
            return True
        except Quit:
            pass
        interp.out("tdbg: quit: the device's run ends")
        return False
