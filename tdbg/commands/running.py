"""Run control: ``run``, ``start``, ``continue``, ``stepi``, ``nexti``, ``kill``, ``restart``,
and the GDB-style line printed at every stop."""

from __future__ import annotations

from collections.abc import Callable
from tdbg.arch.profile import Coord

from tdbg.debug.asserts import llk_assert
from tdbg.commands import settings
from tdbg.commands.hang_report import all_backtraces, out_fitted, report_waits
from tdbg.commands.interpreter import Interpreter, ScriptAborted, error_message
from tdbg.commands.location import describe_location, qualify_line
from tdbg.commands.registry import CommandError, command, info_command
from tdbg.commands.values import evaluate_int
from tdbg.debug import Stop, StopKind
from tdbg.session import Breakpoint, RunStatus
from tdbg.expr import INT, Value


def count_arg(interp: Interpreter, args: str, default: int = 1) -> int:
    if not args:
        return default
    n = evaluate_int(interp, args)
    if n < 1:
        raise CommandError(f"Argument must be positive, not {n}.")
    return n


def require_running(interp: Interpreter) -> None:
    """Run control needs a program that has not ended; a tile that has not started yet starts
    (an embedded target is running from its reset: ``stepi`` and ``continue`` start it)."""
    if interp.session.status is RunStatus.EXITED:
        raise CommandError("The program is not being run.")


def run_and_report(interp: Interpreter, action) -> Stop:
    """Run ``action()`` (a session run-control call), then print the stop the way GDB does."""
    before = interp.session.current
    interp.state.resumes += 1
    stop = action()
    device_output(interp, stop)
    if stop.core != before and stop.core in interp.session.core_names and stop.kind is not StopKind.EXITED:
        interp.out(f"[Switching to {thread_label(interp, stop.core)}]")
    report_stop(interp, stop)
    return stop


def device_output(interp: Interpreter, stop: Stop) -> None:
    """What the device printed during the run (``output_hooks``: DPRINT), before anything about the
    stop, as a program's output comes before GDB's report of its stop."""
    for hook in interp.state.output_hooks:
        hook(interp, stop)


def report_stop(interp: Interpreter, stop: Stop) -> None:
    """Print ``stop`` as GDB does (``STOP_REPORTS``: one report per kind of stop), after what the
    device printed, the ``hook-stop`` and the warnings the run let pass; then tell the session's
    listeners and run the commands of the breakpoints that made it (GDB's ``silent`` first:
    nothing printed)."""
    s = interp.session
    device_output(interp, stop)
    if stop.kind is not StopKind.EXITED:
        try:
            interp.run_hook("hook-stop")   # GDB runs it before the stop is shown
        except ScriptAborted:
            raise
        except Exception as exc:           # GDB prints the error, and the stop is still reported
            interp.error(f"Error while running hook_stop:\n{error_message(exc)}")
    for warning in s.take_warnings():
        interp.out(f"warning: {warning.event} (pc {warning.pc:#010x}, {warning.core})")
    # (also where list goes on, printed or not; an ended program has no frame to show, GDB's rule)
    where = "" if stop.kind is StopKind.EXITED else describe_location(interp, stop.pc)
    hits: list[Breakpoint] = []
    if stop.kind is StopKind.BREAKPOINT:  # a temporary one is already deleted: the session kept it
        hits = [bp for bp in s.last_hits if bp.at(stop.core, stop.pc)] or [bp for bp in s.breakpoints.values() if bp.at(stop.core, stop.pc)]
    commands = [line for bp in hits for line in bp.commands]
    if commands[:1] == ["silent"]:  # GDB: no announcement, no source line, no displays
        interp.state.silent_stop = True
        try:
            s.announce(stop)
        finally:
            interp.state.silent_stop = False
        run_breakpoint_commands(interp, commands[1:])
        return
    report = STOP_REPORTS.get(stop.kind, _where_only)
    report(interp, stop, where, hits)
    s.announce(stop)
    if stop.kind is StopKind.BREAKPOINT:
        run_breakpoint_commands(interp, commands)


# -- one report per kind of stop: (interp, stop, its location line(s), the breakpoints it hit) --------

def _where_only(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out(where)


def _exited(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    if interp.session.status is not RunStatus.EXITED:   # one core ended, the others have not
        interp.out(f"[{thread_label(interp, stop.core)} {stop.detail.split(' ', 1)[1]}]")
    else:
        interp.out(exit_line(interp))


def _scope(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out(f"Watchpoint {stop.watch.number} deleted because the program has left the block in")
    interp.out("which its expression is valid.")
    interp.out(where)


def _deadlock(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out("Program stopped: deadlock: no core can run.")
    report_waits(interp, stop)
    all_backtraces(interp, stop)
    interp.out("")
    out_fitted(interp, where)


def _host(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    out_fitted(interp, stop.detail)
    for line in stop.report:
        out_fitted(interp, line)


def _blocked(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out(f"Program stopped: {stop.core} waits (scheduler-locking {interp.session.scheduler_locking}: "
               f"the other cores do not run)")
    report_waits(interp, stop)
    interp.out(where)


def _breakpoint(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    title = "Temporary breakpoint" if hits and hits[0].temporary else "Breakpoint"
    interp.out("")
    interp.out(f"{who_hit(interp, stop, title)} {location_number(hits[0], stop, interp.session.tile_coord) if hits else '?'}, {where}")


_WATCH_TITLES = {"write": "Hardware watchpoint", "read": "Hardware read watchpoint",
                 "access": "Hardware access (read/write) watchpoint"}


def _watchpoint(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    watch = stop.watch
    interp.out("")
    interp.out(f"{who_hit(interp, stop, _WATCH_TITLES[watch.kind])} {watch.number}: "
               f"{interp.state.watch_expr.get(watch.number, hex(watch.address))}")
    interp.out("")
    show = fmt_bits if watch.dst_rows else fmt_value  # Dst data reads best as bits
    if stop.access is None or stop.access.write:
        interp.out(f"Old value = {show(stop.old)}")
        interp.out(f"New value = {show(stop.new)}")
    else:
        interp.out(f"Value = {show(stop.old)}")
    if stop.detail:
        interp.out(stop.detail)
    interp.out(where)


def _event(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out(f"Program stopped: {stop.describe()}")
    interp.out(f"Instruction: {instruction_at(interp, stop)}")
    interp.out(where)
    category, after = stop.category.value if stop.category else "CATEGORY", stop.pc + 4  # type: ignore[union-attr]
    interp.out(f'To go on: "handle {category} warn" then continue (it is reported and passed), or skip '
               f'the instruction: "jump *{after:#x}" or "set $pc = {after:#x}".')


def _interrupted(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out("Program received signal SIGINT, Interrupt.")
    interp.out(where)


def _ebreak(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out("Program received signal SIGTRAP, Trace/breakpoint trap.")
    failed = llk_assert(interp.session, stop)
    if failed is not None:
        interp.out(failed.describe())
    interp.out(where)


def _ecall(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out(f"Program stopped: ecall ({stop.detail})")
    interp.out(where)


def _fault(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out("")
    interp.out(f"Program stopped: {stop.describe()}")
    interp.out(where)


def _limit(interp: Interpreter, stop: Stop, where: str, hits: list[Breakpoint]) -> None:
    interp.out(f"Instruction limit reached: {where}")


StopReport = Callable[[Interpreter, Stop, str, list[Breakpoint]], None]
#: What the shell prints for each kind of stop (any other kind: its location only).
STOP_REPORTS: dict[StopKind, StopReport] = {
    StopKind.EXITED: _exited, StopKind.SCOPE: _scope, StopKind.DEADLOCK: _deadlock, StopKind.BLOCKED: _blocked,
    StopKind.BREAKPOINT: _breakpoint, StopKind.WATCHPOINT: _watchpoint, StopKind.EVENT: _event,
    StopKind.INTERRUPTED: _interrupted, StopKind.EBREAK: _ebreak, StopKind.ECALL: _ecall, StopKind.FAULT: _fault,
    StopKind.LIMIT: _limit, StopKind.HOST: _host,
}


def location_number(bp: Breakpoint, stop: Stop, tile: Coord | None = None) -> str:
    """GDB's number for the location a stop is at: ``1``, or ``1.2`` for a breakpoint with
    several locations (on a chip: ``tile``'s location, the stop's tile)."""
    if len(bp.locations) == 1:
        return str(bp.number)
    index = next((i for i, loc in enumerate(bp.locations, 1)
                  if loc.core == stop.core and loc.address == stop.pc and loc.tile == tile), 0)
    return f"{bp.number}.{index}" if index else str(bp.number)


def who_hit(interp: Interpreter, stop: Stop, title: str) -> str:
    """GDB's ``Breakpoint`` title, or ``Thread 2 (T1) hit Breakpoint`` when several cores run."""
    if len(interp.session.programs) > 1:
        return f"{thread_label(interp, stop.core)} hit {title}"
    return title


def thread_label(interp: Interpreter, core: str) -> str:
    """GDB's ``Thread N (NAME)`` for a core (threads are numbered in the profile's order)."""
    names = interp.session.core_names
    label = interp.session.core_label(core)
    return f"Thread {names.index(core) + 1} ({label})" if core in names else core


def exit_line(interp: Interpreter) -> str:
    """What GDB prints when the program has ended: one core's exit code, or each core's end."""
    s = interp.session
    loaded = list(s.programs)
    if len(loaded) == 1 and loaded[0] in s.exit_codes:
        # an exit status: 8 bits, as the GDB stub reports it, in GDB's octal ("0%o"); also $_exitcode
        code = s.exit_codes[loaded[0]] & 0xFF
        interp.session.expression_context().set_convenience("_exitcode", Value(INT, code))
        return f"[Inferior 1 ({loaded[0]}) exited {'normally' if code == 0 else f'with code 0{code:o}'}]"
    return f"[All cores finished: {s.finish_summary()}]"


def run_breakpoint_commands(interp: Interpreter, commands: list[str]) -> None:
    """Run the ``commands`` of the breakpoints that made a stop, after it, as GDB does: a
    failing command ends them (its error is shown), and so does a command that resumes the
    program (GDB ignores the rest).  That resumption reports its own stop, whose commands are
    queued rather than run inside this call, so a breakpoint hit a million times does not nest
    a million calls."""
    pending: list[list[str]] = interp.state.bp_pending
    if commands:
        pending.append(commands)
    if interp.state.bp_running:
        return
    interp.state.bp_running = True
    try:
        while pending:
            block = pending.pop(0)
            resumes = interp.state.resumes
            try:
                interp.run_block(block, until=lambda: interp.state.resumes != resumes)
            except ScriptAborted:
                interp.failed = True
            except Exception as exc:  # noqa: BLE001  (shown like any failing command)
                interp.error(error_message(exc))
    finally:
        interp.state.bp_running = False
        pending.clear()


def instruction_at(interp: Interpreter, stop: Stop) -> str:
    """The instruction a stop is about: the core's, and the Tensix instruction it pushed when
    the event came from the coprocessor."""

    s = interp.session
    try:
        text = s.disassembler()(stop.pc, s.read_u32(stop.pc)).render(s.symbolize).replace("\t", " ")
    except Exception:
        text = "(unreadable)"
    last = s.pushes.last(1)
    if stop.access is None and last and last[0].pc == stop.pc:
        text += f" pushing {s.describe_word(last[0].word)}"
    return text


def fmt_value(value: int | None) -> str:
    return "<unreadable>" if value is None else str(value)


def fmt_bits(value: int | None) -> str:
    return "<unreadable>" if value is None else f"{value:#x}"


def restart_query(interp: Interpreter) -> None:
    """GDB's question before ``run``, ``start`` or ``starti`` on a started program (yes without
    asking under ``set confirm off`` and ``-batch``; printed and answered yes when the input is
    not a terminal); no: "Program not restarted."."""
    if interp.session.status is RunStatus.STOPPED and not interp.query(
            "The program being debugged has been started already.\nStart it from the beginning? "):
        raise CommandError("Program not restarted.")


@command("run", aliases=("r",), usage="run", help="Start every core's firmware and run until something stops the cores or every core has exited or parked.  On a started tile it asks first, as GDB does (\"Start it from the beginning? (y or n)\"; yes in -batch and scripts), then puts the tile back in its loaded state and writes the set-up again: the memory written before the first run (restore, set var, a GDB client's writes; 'info setup' lists it, 'set replay-setup off' leaves it out).  GDB's hooks run around it (define hook-run, hookpost-run).", example="run")
def run_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    restart_query(interp)
    _warn_dropped_writes(interp)
    s.start_over()  # a tile that has not run yet keeps what was restored into it
    run_and_report(interp, s.cont)


def _warn_dropped_writes(interp: Interpreter) -> None:
    """Starting over drops what was written after the program finished: say so."""
    if interp.session.written_after_exit:
        interp.out("warning: memory written after the program finished is not kept: it starts from the loaded state.")


@command("start", usage="start", help="Start the firmware from its entry point (as run does: asked on a started tile, the set-up written again) and stop at the beginning of main (a temporary breakpoint).", example="start")
def start_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    restart_query(interp)
    _warn_dropped_writes(interp)
    s.start_over()
    location = "main"
    bp = s.break_at(location, temporary=True)
    interp.out(f"Temporary breakpoint {bp.number} at {bp.address:#x}")
    run_and_report(interp, s.cont)


@command("starti", usage="starti", help="Start the firmware (from its loaded state if the tile has run already) and stop at the first instruction of the current core, before anything runs.", example="starti")
def starti_cmd(interp: Interpreter, args: str) -> None:
    restart_query(interp)
    _warn_dropped_writes(interp)
    stop = interp.session.starti()
    interp.out("")
    interp.out("Program stopped.")
    interp.state.plain_step = False
    interp.out(describe_location(interp, stop.pc))


@command("jump", aliases=("j",), usage="jump LOCATION", help="Resume the current core at LOCATION (LINE, FILE:LINE, FUNCTION or *ADDRESS) instead of where it stopped, e.g. past an instruction an event stopped.", example="jump *0x6084")
def jump_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    text = args.strip()
    if not text:
        raise CommandError("Argument required (starting address).")
    s = interp.session
    address = s.resolve(qualify_line(interp, text))
    s.set_register("pc", address)
    interp.out(f"Continuing at {address:#x}.")
    run_and_report(interp, s.cont)


@command("continue", aliases=("c", "cont", "fg"), usage="continue [N]", help="Resume every core (only the current one with 'set scheduler-locking on') until something stops them or every core has exited or parked; with N, ignore the breakpoint it stopped at N-1 more times.  A tile that has not run yet starts.", example="continue", repeatable=True)
def continue_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    ignore_crossings(interp, args)
    run_and_report(interp, interp.session.cont)


def ignore_crossings(interp: Interpreter, args: str) -> None:
    """``continue N``: the breakpoint the run stopped at ignores its next N-1 crossings."""
    s = interp.session
    n = count_arg(interp, args)
    stop = s.last_stop
    if n > 1 and stop is not None and stop.kind is StopKind.BREAKPOINT:
        for bp in s.breakpoints.values():
            if bp.at(stop.core, stop.pc):
                bp.ignore_count = n - 1
                interp.out(f"Will ignore next {n - 1} crossings of breakpoint {bp.number}.  Continuing.")


@command("stepi", aliases=("si",), usage="stepi [N]", help="Execute N machine instructions (default 1) of the current core, entering calls (a tile that has not run yet starts; a core that waits lets the others run, unless scheduler-locking is on).", example="stepi 4", repeatable=True)
def stepi_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    n = count_arg(interp, args)
    interp.state.plain_step = True
    run_and_report(interp, lambda: interp.session.stepi(n))


@command("nexti", aliases=("ni",), usage="nexti [N]", help="Execute N machine instructions, stepping over calls (jal/jalr that link ra).", example="nexti", repeatable=True)
def nexti_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    n = count_arg(interp, args)
    interp.state.plain_step = True
    run_and_report(interp, lambda: interp.session.nexti(n))


@command("kill", aliases=("k",), usage="kill", help="Stop the firmware and put the tile back in its loaded state with the set-up written again (see run); breakpoints stay.  On a started tile it asks first, as GDB does.", example="kill")
def kill_cmd(interp: Interpreter, args: str) -> None:
    if interp.session.status is RunStatus.STOPPED and not interp.query("Kill the program being debugged? "):
        raise CommandError("Not confirmed.")
    interp.session.restart()
    interp.out("[Inferior 1 killed]")


@command("restart", usage="restart [N]", help="Put the tile back in its loaded state, or in checkpoint N (CPU context, memory, Dst, SrcA/SrcB, config, RWCs), ready to continue; breakpoints stay.", example="restart 1")
def restart_cmd(interp: Interpreter, args: str) -> None:
    interp.session.restart(evaluate_int(interp, args.strip()) if args.strip() else None)
    interp.out(describe_location(interp, interp.session.pc))


@command("checkpoint", usage="checkpoint", help="Save the whole tile (every core's registers, L1, local RAM, Dst, SrcA/SrcB, config, RWCs, coprocessor queues) as a numbered checkpoint for 'restart N' and 'dst diff checkpoint N'.", example="checkpoint")
def checkpoint_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    n = s.checkpoint()
    interp.out(f"Checkpoint {n} at {describe_location(interp, s.pc).splitlines()[0]}")


@command("reverse-stepi", aliases=("rsi",), usage="reverse-stepi [N]", help="Go back N instructions (default 1) over the single steps recorded since the last continue: each stepi keeps what it can change (registers; the bytes a store overwrites; the coprocessor state when it touches a device), within 'set history-memory' bytes.", example="reverse-stepi", repeatable=True)
def reverse_stepi_cmd(interp: Interpreter, args: str) -> None:
    require_running(interp)
    n = count_arg(interp, args)
    report_stop(interp, interp.session.reverse_stepi(n))


@info_command("checkpoints", usage="info checkpoints", help="List the checkpoints with the pc of the current core in each and the memory each holds (L1 compressed), then their total against the checkpoint memory budget ('delete checkpoint N' frees one).", example="info checkpoints")
def info_checkpoints(interp: Interpreter, args: str) -> None:
    s = interp.session
    total = f"the checkpoint memory budget is {size_text(s.checkpoint_budget)}"
    if not s.checkpoints:
        interp.out(f"No checkpoints; {total}.")
        return
    for n in s.checkpoints:
        pc = s.checkpoint_pc(n)
        where = describe_location(interp, pc).splitlines()[0] if pc is not None else "(core not created then)"
        interp.out(f"{n:>3}  {where}  ({size_text(s.checkpoint_memory(n))})")
    count = len(s.checkpoints)
    interp.out(f"{count} checkpoint{'s' if count > 1 else ''} hold{'s' if count == 1 else ''} {size_text(s.checkpoint_memory())}; {total}.")


def size_text(nbytes: int) -> str:
    """A memory size for people: bytes, KiB or MiB."""
    if nbytes < 1 << 10:
        return f"{nbytes} bytes"
    return f"{nbytes / (1 << 10):.1f} KiB" if nbytes < 1 << 20 else f"{nbytes / (1 << 20):.1f} MiB"


@info_command("setup", usage="info setup", help="The set-up every run, start and kill writes again after putting the tile back in its loaded state: the memory written while the program was not started (restore, set var, a GDB client's writes), in order; 'delete setup' forgets it, 'set replay-setup off' leaves it out.", example="info setup")
def info_setup(interp: Interpreter, args: str) -> None:
    s = interp.session
    if not s.setup:
        interp.out("No set-up: nothing was written before the program started.")
        return
    state = "written again by run, start and kill" if s.replay_setup else "not written again (set replay-setup off)"
    interp.out(f"Set-up, {state}:")
    for i, write in enumerate(s.setup, 1):
        interp.out(f"{i:>3}: {len(write.data)} byte{'s' if len(write.data) != 1 else ''} at {write.address:#010x} ({write.core})")


def _set_replay(interp: Interpreter, text: str) -> None:
    interp.session.replay_setup = settings.parse_bool(text)


settings.setting("replay-setup", help="Whether run, start and kill write the set-up again ('info setup').",
                 show=lambda interp: f"Writing the set-up again at each run is {settings.on_off(interp.session.replay_setup)}.",
                 set=_set_replay)
