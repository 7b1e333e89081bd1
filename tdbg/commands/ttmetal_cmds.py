"""tt-metal's host role on the tile (``tdbg.ttmetal``): ``tt-metal boot``, ``tt-metal program``,
``info cb``, ``info waypoints``; ``tile cb N`` and ``watch cb N`` (in ``l1_cmds``, ``breakpoints``)
use ``cb_page`` and ``cb_register`` here."""

from __future__ import annotations

import re
import shlex
import sys

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.registry import INIT_HOOKS, CommandError, Registry, command, info_command
from tdbg.session import SessionError

TT_METAL = Registry("tt-metal")
CB_PAGE = re.compile(r"cb\s+(\d+)(?:\s+page\s+(\d+))?$")


@TT_METAL.command(
    "boot", usage="tt-metal boot [FIRMWARE-DIR]",
    help="Load Tenstorrent's Blackhole firmware on the five cores as tt-metal 0.81.1's host places it (each "
         "ELF's private-memory bytes at MEM_*_INIT_LOCAL_L1_BASE_SCRATCH) and make its boot the set-up: "
         "every core held, the watcher's state, core_info, the bank and logical-to-virtual tables, "
         "the launch messages, go_messages[0] = RUN_MSG_INIT, a jal to the firmware at BRISC's reset PC, "
         "BRISC released (the cores' earlier programs, the demo included, and the earlier set-up are dropped; "
         "a firmware folder that does not load leaves them as they were).  Then 'run' boots the tile: when every core waits "
         "for the host and go_messages[0].signal reads RUN_MSG_DONE the run ends, naming each core's "
         "wait.  FIRMWARE-DIR is a pre-compiled/<hash> folder (default: the ttnn wheel's, "
         "pre-compiled/11660721212704224774).",
    example="tt-metal boot", host_files=lambda args: bool(args.strip()))
def tt_metal_boot(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import boot

    words = _words(args)
    if len(words) > 1:
        raise CommandError("Usage: tt-metal boot [FIRMWARE-DIR]")
    boot.prepare(interp.session, words[0] if words else None)
    interp.out("tt-metal 0.81.1's firmware loaded on B, NC, T0, T1, T2 with its boot as the set-up "
               "('info setup'); 'run' boots it.")


@TT_METAL.command(
    "program", usage="tt-metal program FILE.toml [FIRMWARE-DIR]",
    help="Boot the firmware as 'tt-metal boot' does and run the tt-metal program FILE describes (buffers, CBs, "
         "kernels built by the kit, runtime arguments; tdbg.ttmetal.program.PROGRAM_FORMAT) when 'run' is given: "
         "the host writes the DRAM buffers, the kernel configuration buffer, launch[0] and the go message once the "
         "cores idle after the boot, and when they idle again with go_messages[0].signal = RUN_MSG_DONE it reads "
         "the buffers back (a buffer's 'dump' file gets its bytes).  The kernels' symbols are added where they "
         "run (break kernel_main thread T1); a hang stops with a report naming the CB waits, the other side of each "
         "(producer or consumer) and what it does, and the waypoints; a device ASSERT (a watcher build) stops naming "
         "its core, file and line ('info cb', 'info waypoints', 'tile cb N', 'watch cb N').  With 'dprint = true' in "
         "FILE the kernels are built with DPRINT on (clang needs C++23 for its format checks; tdbg's atomics for its "
         "lock) and each stop shows what they printed since the last, as tt-metal's print server shows it "
         "('0:0-0:NC: ...'); the host drains the buffer whenever every core waits, so a kernel waiting for "
         "room in it goes on; the lines come before the stop's report, in time order, and a message the host cannot "
         "read (firmware scribbling the buffer) is a 'warning: DPRINT:' line naming its header.  Tile slices, typed "
         "arrays and call stacks in a DPRINT are named, not decoded.  With 'watcher = true' the kernels are built "
         "with the watcher ('help info waypoints').  A wrong key in FILE is one line naming it and what it must be.",
    example="tt-metal program eltwise_add.toml", host_files=True)
def tt_metal_program(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import program

    words = _words(args)
    if not 1 <= len(words) <= 2:
        raise CommandError("Usage: tt-metal program FILE.toml [FIRMWARE-DIR]")
    host = program.prepare(interp.session, program.Program.load(words[0]), words[1] if len(words) > 1 else None)
    kernels = ", ".join(f"{k.name} on {'/'.join(k.cores)}" for k in host.program.kernels)
    interp.out(f"tt-metal program {words[0]}: {kernels}; 'run' boots the tile and runs it.")


def _show_prints(interp: Interpreter, stop: object) -> None:
    """At each stop, before its report, the DPRINT lines the kernels printed since the last one, as
    tt-metal's print server shows them in time order (the buffer drained now, as the server drains
    it), and a warning for a message the host cannot read (only a tt-metal program's host,
    ``tdbg.ttmetal.program``, has kernels that print)."""
    program = sys.modules.get("tdbg.ttmetal.program")
    host = interp.session.host
    if program is None or not isinstance(host, program.ProgramHost) or host.prints is None:
        return
    try:
        host.prints.drain(interp.session)
    except SessionError as exc:
        interp.out(f"DPRINT: the print buffer cannot be read: {exc}")
    for line in host.prints.unshown():
        interp.out(line.shown())


INIT_HOOKS.append(lambda interp: interp.state.output_hooks.append(_show_prints))


def program_host(interp: Interpreter):
    """The session's tt-metal program host, or a ``CommandError``."""
    from tdbg.ttmetal.program import ProgramHost

    host = interp.session.host
    if not isinstance(host, ProgramHost):
        raise CommandError("No tt-metal program is loaded ('tt-metal program FILE').")
    return host


@info_command("cb", usage="info cb [N]",
              help="The tt-metal program's circular buffers (or CB N): size, page size and data format; pages received "
                   "and acknowledged (the overlay stream registers tt-metal counts them in) and how many are in the CB; "
                   "the next page to read and to write; which kernel last pushed and popped, where; each core's read "
                   "and write pointers (and a TRISC's own counts); which core waits on it (cb_wait_front for pages, "
                   "cb_reserve_back for space) and where.  Where tdbg serves a tt-metal host: the CBs of the "
                   "selected tile's latest launch.",
              example="info cb 0")
def info_cb(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import cbs

    only = _cb_number(args) if args.strip() else None
    for state in _cb_states(interp, only):
        for line in state.describe(interp.session):
            interp.out(line)


def _cb_states(interp: Interpreter, only: int | None):
    """The CBs of the tt-metal program, or as a host tdbg serves launched them on the selected tile."""
    from tdbg.ttmetal import cbs, launches

    s = interp.session
    served = launches.of(s)
    if served is None:
        return cbs.states(s, program_host(interp), only)
    launch = served.last(s.tile_coord)
    if launch is None:
        x, y = s.tile_coord or (0, 0)
        raise CommandError(f"The host has launched no program on tile {x},{y} yet.")
    return cbs.states_of(s, served.cb_table(launch), launch.runs_kernel, [k.core for k in launch.kernels], only,
                         owner=f"Launch {launch.number} (tile {launch.tile[0]},{launch.tile[1]})")


@info_command("kernels", usage="info kernels",
              help="The tt-metal program's kernels: for each, the cores it runs on, its source, the compile-time "
                   "arguments, defines and named arguments it was built with and its NoC, where its code is in L1, a "
                   "Metal 2.0 kernel's dfb:: and tensor:: bindings, and its runtime (and common runtime) arguments as "
                   "the host launched them (NAME= for a named one, a buffer's address named; an argument L1 no "
                   "longer holds shows what it holds now); then the program's CBs.  Most wrong-argument bugs show "
                   "here before any stepping.  Where tdbg serves a tt-metal host (tdbg simulator): every launch "
                   "so far, in order (each go message to a tile), with the tile's NoC coordinate and each "
                   "kernel by processor: its name and source (the host's JIT build), its code, its runtime "
                   "and common runtime args as the host wrote them (decimal below 65536, else hex), the "
                   "launch's CBs.",
              example="info kernels")
def info_kernels(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import cbs, kernels

    if args.strip():
        raise CommandError("info kernels takes no argument.")
    if _served_kernels(interp):
        return
    host = program_host(interp)
    for k in kernels.launched(interp.session, host):
        cores = "-".join((k.cores[0], k.cores[-1])) if len(k.cores) > 1 else k.cores[0]
        interp.out(f"{cores:<5} {k.name} ({k.processor}{f', NoC {k.noc}' if k.noc is not None else ''})")
        if k.source is not None:
            interp.out(f"      source: {k.source}")
        for core, (at, size) in k.code.items():
            interp.out(f"      {core} code at {at:#x} ({size} bytes)")
        interp.out(f"      compile args: [{', '.join(map(str, k.compile_args))}]")
        if k.defines:
            interp.out("      defines: " + ", ".join(f"{name}={value}" for name, value in k.defines))
        if k.named_args:
            interp.out("      named args: " + ", ".join(f"{name}={value}" for name, value in k.named_args))
        if k.dfbs:
            interp.out("      dfbs: " + ", ".join(f"{name}=CB {cb}" for name, cb in k.dfbs))
        if k.sems:
            interp.out("      sems: " + ", ".join(f"{name}=semaphore {i} at {at:#x}" for name, i, at in k.sems))
        if k.tensors:
            interp.out("      tensors: " + ", ".join(f"{name}=buffer {buffer}" for name, buffer in k.tensors))
        interp.out(f"      runtime args at {k.args_at:#x}{_launched(k.args)}: [{_shown(k.args)}]")
        if k.common_args:
            interp.out(f"      common runtime args at {k.common_at:#x}{_launched(k.common_args)}: [{_shown(k.common_args)}]")
    for index, cb in sorted(host.program.cbs.items()):
        interp.out(f"CB {index}: {cbs.pages(cb.pages)} of {cb.page_size} bytes at {host.layout.cb_addresses[index]:#x} "
                   f"({cb.format})")


def _served_kernels(interp: Interpreter) -> bool:
    """``info kernels`` where tdbg serves a host (``tdbg simulator``): every launch so far; False
    when it serves none."""
    from tdbg.ttmetal import cbs, launches

    served = launches.of(interp.session)
    if served is None:
        return False
    if not served.log:
        interp.out("The host has launched no program yet.")
    for launch in served.log:
        x, y = launch.tile
        interp.out(f"Launch {launch.number} on tile {x},{y} (host id {launch.host_id}, kernel config at "
                   f"{launch.config_base:#x}):")
        for k in launch.kernels:
            interp.out(f"  {k.core:<3} {k.name}")
            source = k.binary.source if k.binary is not None else None
            if source is not None:
                interp.out(f"      source: {source}")
            size = k.text_size or (len(k.binary.text) if k.binary is not None else 0)
            interp.out(f"      code at {k.text_at:#x} ({size} bytes)")
            for what, at, words in (("runtime", k.rta_at, k.rtas), ("common runtime", k.crta_at, k.crtas)):
                if at is not None:
                    interp.out(f"      {what} args at {at:#x}: [{', '.join(map(_word, words))}]")
        for index, (cb, address) in sorted(served.cb_table(launch).items()):
            interp.out(f"  CB {index}: {cbs.pages(cb.pages)} of {cb.page_size} bytes at {address:#x} ({cb.format})")
    return True


def _word(value: int) -> str:
    """An argument: decimal below 65536, else hex (an address, mostly)."""
    return str(value) if value < 0x10000 else f"{value:#x}"


def _shown(args) -> str:
    """Runtime args as ``info kernels`` shows them: ``name=`` for a named one, a buffer's address
    with its name, ``[now N]`` where L1 no longer holds the word launched."""
    out = []
    for a in args:
        text = f"{a.value:#x} ({a.buffer})" if a.buffer else str(a.value)
        text = f"{a.name}={text}" if a.name else text
        out.append(f"{text} [now {a.now}]" if a.now is not None and a.now != a.value else text)
    return ", ".join(out)


def _launched(args) -> str:
    return "" if not args or args[0].now is not None else ", not launched yet"


@info_command("waypoints", usage="info waypoints",
              help="Each core's watcher waypoint (mailboxes.watcher.debug_waypoint: up to four characters a kernel "
                   "built with the watcher writes with WAYPOINT(\"...\"); 'X', the boot's value, until one does), with "
                   "the core's state and where it is; hang reports end with the same.  'watcher = true' in the "
                   "program file builds its kernels with the watcher as tt-metal's JIT build does (WATCHER_ENABLED; "
                   "the kit defines rta_count and crta_count, which watcher firmware would: no kernel edit): the "
                   "ttnn wheel's firmware is built without the watcher, so its own waypoints (between kernels) are "
                   "never written and the stack-usage check, which needs the watcher firmware's stack base, is off "
                   "(WATCHER_DISABLE_STACK_USAGE).  A tripped ASSERT in such a kernel (also get_arg_val past the "
                   "kernel's runtime arguments: DebugAssertRtaOutOfBounds) ends the run with a stop naming the "
                   "core, FILE:LINE and the assert type.",
              example="info waypoints")
def info_waypoints(interp: Interpreter, args: str) -> None:
    from tdbg.ttmetal import hang

    host = _booted_host(interp)
    s = interp.session
    for core, text in hang.waypoints(s, host).items():
        with s.on_core(core):
            pc = s.register("pc")
        interp.out(f"{core:<3} {text!r:<8} {s.core_state(core)}, at {s.describe_pc(core, pc)}")


def _booted_host(interp: Interpreter):
    from tdbg.ttmetal.boot import BootHost

    host = interp.session.host
    if not isinstance(host, BootHost):
        raise CommandError("No tt-metal firmware is loaded ('tt-metal boot' or 'tt-metal program FILE').")
    return host


def _cb_number(text: str) -> int:
    if not text.strip().isdigit():
        raise CommandError(f"A CB number, not {text.strip()!r}.")
    return int(text)


def buffer_page(interp: Interpreter, args: str) -> tuple[str, int, int, int] | None:
    """``NAME page P`` (``tile``, ``x``): page P of the program's DRAM buffer NAME: where it is in
    words (its bank and bank address) and the NoC endpoint and address that reach it; None when
    ``args`` is not that form."""
    from tdbg.ttmetal.device import dram_bank_xy

    words = args.split()
    program = getattr(interp.session.host, "program", None)
    if len(words) != 3 or words[1] != "page" or program is None or words[0] not in program.buffers:
        return None
    buffer = program.buffers[words[0]]
    if not words[2].isdigit() or int(words[2]) >= buffer.pages:
        raise CommandError(f"Buffer {buffer.name} has pages 0..{buffer.pages - 1}, not {words[2]}.")
    page = int(words[2])
    bank, at = buffer.placement().page(page)
    x, y = dram_bank_xy(0)[bank]
    return f"DRAM buffer {buffer.name} page {page} (bank {bank} {at:#x})", x, y, at


def cb_page(interp: Interpreter, args: str) -> tuple[int, str] | None:
    """``cb N [page P]`` (``tile``): the address of page P after the front of CB N and the L1
    format of its data; None when ``args`` is not that form."""
    from tdbg.ttmetal import cbs

    m = CB_PAGE.match(args.strip())
    if m is None:
        return None
    state = _cb_states(interp, int(m.group(1)))[0]
    fmt = cbs.L1_FORMATS.get(state.cb.format)
    if fmt is None:
        raise CommandError(f"CB {state.cb.index} holds {state.cb.format}, which 'tile' does not decode.")
    return state.page(int(m.group(2) or 0)), fmt


def cb_register(interp: Interpreter, args: str) -> tuple[int, str] | None:
    """``cb N`` (``watch``): CB N's pages-received register and how to name it; None when
    ``args`` is not that form."""
    from tdbg.ttmetal import cbs

    m = re.fullmatch(r"cb\s+(\d+)", args.strip())
    if m is None:
        return None
    cb = int(m.group(1))
    if cb >= interp.session.profile.overlay.streams - cbs.OPERAND_START_STREAM:
        raise CommandError(f"There is no CB {cb}.")
    return cbs.register_address(interp.session, cb, cbs.PAGES_RECEIVED), f"cb {cb} pages received"


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError as exc:
        raise CommandError(f"Bad arguments: {exc}.") from None


@command(
    "tt-metal", usage="tt-metal SUBCOMMAND",
    help="Play tt-metal 0.81.1's host for this tile (slow dispatch).\n"
         + "\n".join(f"  {c.usage}: {c.help}" for c in TT_METAL.commands.values()),
    example="tt-metal boot", host_files=TT_METAL.touches_host_files, complete=TT_METAL.complete_subcommand)
def tt_metal(interp: Interpreter, args: str) -> None:
    TT_METAL.dispatch(interp, args)
