"""Support commands: ``help``, ``handle``, ``thread``, ``info threads``, ``info`` (scripting
is ``scripting``)."""

from __future__ import annotations

from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import fits, line_width, wrap, wrap_lines
from tdbg.commands.registry import INFO, ROOT, CommandError, command, first_sentence, info_command
from tdbg.session import Policy
from tdbg.tensix.events import DEFAULT_POLICY_WARNS, Category


@command("help", aliases=("h",), usage="help [COMMAND]", help="List the commands, or show one command's usage, description and an example, filled to the line (set width).", example="help x")
def help_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    width = line_width(interp)

    def out(text: str) -> None:
        for line in wrap_lines(text, width):
            interp.out(line)

    if not words:
        interp.out("tdbg commands (help COMMAND for details):")
        listed = [(cmd.usage, first_sentence(cmd.help)) for name, cmd in sorted(ROOT.commands.items()) if not name.startswith("__")]
        columns = [f"  {usage:<40} {sentence}" for usage, sentence in listed]
        if not fits(columns, width):  # GDB's "NAME -- DOC" lines, filled to the line
            columns = [line for usage, sentence in listed for line in wrap(f"{usage} -- {sentence}", width, "  ", "      ")]
        for line in columns:
            interp.out(line)
        return
    if words[0] == "user-defined":
        interp.out("User-defined commands.\nThe commands in this class are those defined by the user.\n"
                   "Use the \"define\" command to define a command.\n\nList of commands:\n")
        for name, user in sorted(interp.user_commands.items()):
            out(f"{name} -- {(user.doc or 'User-defined.').splitlines()[0]}")
        return
    if words[0] in ("info", "i", "inf") and len(words) > 1:
        out(INFO.lookup(words[1]).help_text())
    elif words[0] in ("info", "i", "inf"):
        out(ROOT.lookup("info").help_text())
        interp.out("\nList of info subcommands:\n")
        for name in sorted(INFO.commands):
            cmd = INFO.commands[name]
            names = ", ".join(f"info {n}" for n in (name, *cmd.aliases))
            for line in wrap(first_sentence(cmd.help), width, f"{names} -- ", "  "):
                interp.out(line)
        interp.out('\nType "help info" followed by info subcommand name for full documentation.')
    elif words[0] in interp.user_commands:
        out(interp.user_commands[words[0]].doc or "User-defined.")
    else:
        out(ROOT.lookup(words[0]).help_text())


@command("handle", usage="handle CATEGORY stop|warn|ignore", help="Choose what an event of CATEGORY does: stop the run, print a warning and go on, or go on silently; every category stops by default but " + ", ".join(c.value for c in DEFAULT_POLICY_WARNS) + ", which warns.  Categories: " + ", ".join(c.value for c in Category) + " (NeverWritten: a NoC read of DRAM or another tile's L1 where nothing was written, e.g. 'NC read DRAM channel 4 0x30000000..0x30000800: no buffer there, never written', the buffer named when a tt-metal program's host knows it).", example="handle UnimplementedFunctionality warn")
def handle_cmd(interp: Interpreter, args: str) -> None:
    words = args.split()
    policies = interp.session.policy
    if not words:
        for category, policy in policies.items():
            interp.out(f"{category.value:<28} {policy.value}")
        return
    if len(words) != 2:
        raise CommandError("Usage: handle CATEGORY stop|warn|ignore")
    matches = [c for c in Category if c.value.lower().startswith(words[0].lower())] if words[0] != "all" else list(Category)
    if not matches:
        raise CommandError(f"Unknown category \"{words[0]}\"; one of {', '.join(c.value for c in Category)}.")
    try:
        policy = Policy(words[1].lower())
    except ValueError:
        raise CommandError(f"Unknown action \"{words[1]}\"; one of stop, warn, ignore.") from None
    for category in matches:
        interp.session.set_policy(category, policy)
        interp.out(f"{category.value:<28} {policy.value}")


@command("thread", usage="thread [N|CORE] | thread apply all|ID... [-ascending] [-q] [-c] [-s] COMMAND", help="Select the core the other commands act on, by GDB thread number (1 T0, 2 T1, 3 T2, 4 B) or name; without an argument, name the current one.  'thread apply' runs COMMAND on each core ('all': every core with firmware, the last thread first as GDB, or first with -ascending; or the thread numbers or core names given, in that order), each after a line 'Thread N (CORE):'; -q leaves that line out, -c goes on after a failing COMMAND showing its error, -s goes on silently; the current core is put back afterwards.", example="thread apply all bt")
def thread_cmd(interp: Interpreter, args: str) -> None:
    s = interp.session
    arg = args.strip()
    if arg.split(" ", 1)[0] == "apply":
        from tdbg.commands.escapes import thread_apply

        thread_apply(interp, arg[len("apply"):])
        return
    if arg:
        s.select_core(s.core_by_thread(arg))
        interp.state.plain_step = False
    core = s.current
    interp.out(f"[Current thread is {s.thread_id(core)} ({core})]")
    if arg and s.has_firmware(core):
        from tdbg.commands.location import describe_location

        interp.out(describe_location(interp, s.pc).splitlines()[0])


@info_command("threads", usage="info threads", help="List the cores (GDB threads) with their state (running, blocked and on what, parked, exited, held in reset, no firmware) and their own frame; * marks the current one.", example="info threads")
def info_threads(interp: Interpreter, args: str) -> None:
    from tdbg.commands.location import describe_location

    s = interp.session
    interp.out("  Id   Target Id                    Frame")
    last = interp.state.last_function
    for name in s.core_names:
        mark = "*" if name == s.current else " "
        target = f"Thread {s.thread_id(name)} ({name}) [{s.core_state(name)}]"
        where = ""
        if s.has_firmware(name):
            with s.on_core(name):
                where = describe_location(interp, s.pc).splitlines()[0]
        interp.out(f"{mark} {s.thread_id(name):<4} {target:<28} {where}".rstrip())
    interp.state.last_function = last


@command("info", aliases=("i", "inf"), usage="info SUBCOMMAND", help="Show things about the program and the tile; 'help info' lists the subcommands.", example="info registers pc")
def info_cmd(interp: Interpreter, args: str) -> None:
    INFO.dispatch(interp, args)
