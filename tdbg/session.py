"""The public Python API of tdbg: load firmware, run it, stop it, look at the tile.

The shell and the GDB stub are thin layers over ``Session``.  Example::

    s = Session("firmware/dst_fill.c")     # a .c file is built with the bundled toolchain
    s.break_at("main")
    stop = s.cont()
    s.read_u32(s.symbol("results").addr)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from tdbg.debuginfo import DebugInfo, Frame
from tdbg.riscv import NUMBERS as REGISTERS
from tdbg.emu.core import Core, Watch
from tdbg.emu.elf import ElfImage
from tdbg.emu.stops import Stop, StopKind
from tdbg.emu.tile import Checkpoint, Tile
from tdbg.emu.toolchain import build, demo_source
from tdbg.tensix import formats
from tdbg.tensix.events import TensixEvent
from tdbg.tensix.profile import BLACKHOLE, Profile



class SessionError(Exception):
    """A request the session cannot carry out; the message is one line for the user."""


@dataclass
class Breakpoint:
    number: int
    address: int
    enabled: bool = True
    temporary: bool = False
    hits: int = 0
    ignore_count: int = 0
    condition: str | None = None
    commands: list[str] = field(default_factory=list)
    location: str = ""          # what the user typed, for ``info breakpoints``


def _dst_view(view: str) -> tuple[str, str]:
    if view in ("raw16", "raw32"):
        return ("dst16" if view == "raw16" else "dst32"), "raw"
    storage = "dst32" if view in ("fp32", "int32", "tf32") else "dst16"
    formats.get_view(storage, view)  # a clear KeyError for unknown names
    return storage, view


def _rows(rows: int | slice | Sequence[int]) -> int | slice | np.ndarray:
    return rows if isinstance(rows, (int, slice)) else np.asarray(rows)


def load_program(path: str | Path) -> ElfImage:
    """An ELF, or a C file built with the bundled toolchain first."""
    path = Path(path)
    if path.suffix == ".c":
        path = build(path)
    return ElfImage.load(path)


class Session:
    """One debugging session over one tile."""

    HISTORY = 256  # single steps that reverse_stepi can undo

    def __init__(self, program: str | Path | None = None, profile: Profile = BLACKHOLE) -> None:
        self.tile = Tile(profile)
        self.current = "T0"
        self.breakpoints: dict[int, Breakpoint] = {}
        self.watchpoints: dict[int, Watch] = {}
        self.checkpoints: dict[int, Checkpoint] = {}
        self.debug: DebugInfo | None = None
        self._interpreter = None
        self._expr_context = None
        self.last_hits: list[Breakpoint] = []  # the breakpoints that made the last stop
        self.history: list[Checkpoint] = []
        self._next_number = 1
        self.load(demo_source() if program is None else program)

    # -- program -----------------------------------------------------------------------------------
    def load(self, program: str | Path) -> None:
        image = load_program(program)
        self.tile.load(image)
        self.debug = DebugInfo.load(image.path)

    @property
    def image(self) -> ElfImage:
        assert self.tile.image is not None
        return self.tile.image

    @property
    def core(self) -> Core:
        return self.tile.cores[self.current]

    def restart(self, checkpoint: int | None = None) -> None:
        """Back to the loaded state, or to checkpoint N; breakpoints and watchpoints stay."""
        self.history.clear()
        if checkpoint is None:
            self.tile.reset()
            return
        try:
            self.tile.restore(self.checkpoints[checkpoint])
        except KeyError:
            raise SessionError(f"No checkpoint number {checkpoint}.") from None

    def checkpoint(self) -> int:
        """Save the whole tile; returns the checkpoint's number."""
        number = max(self.checkpoints, default=0) + 1
        self.checkpoints[number] = self.tile.checkpoint()
        return number

    def reverse_stepi(self, count: int = 1) -> Stop:
        """Undo the last ``count`` single steps (tdbg records single steps, not ``continue``)."""
        if count > len(self.history):
            raise SessionError(f"Cannot go back {count} instruction{'s' if count > 1 else ''}: "
                               f"{len(self.history)} recorded (single steps since the last continue)")
        for _ in range(count):
            self.tile.restore(self.history.pop())
        return Stop(StopKind.STEP, self.current, self.core.pc, detail="reverse")

    # -- run control -------------------------------------------------------------------------------
    def cont(self, limit: int | None = None) -> Stop:
        """Run the current core until it stops (``limit``: at most that many instructions).

        A breakpoint whose ignore count is not used up, or whose condition is false, does not
        stop the run."""
        self.history.clear()
        while True:
            stop = self.core.resume(limit)
            if stop.kind is not StopKind.BREAKPOINT or self._breakpoint_stops(stop.pc):
                return stop

    def stepi(self, count: int = 1, record: bool = True) -> Stop:
        """Execute ``count`` instructions, recording each for ``reverse_stepi``; with
        ``record=False`` (the steps inside source-level stepping) nothing is copied and the
        recorded history ends here."""
        stop = None
        if not record:
            self.history.clear()
        for _ in range(count):
            if record:
                self.history.append(self.tile.checkpoint())
                del self.history[: -self.HISTORY]
            stop = self.core.step()
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def nexti(self, count: int = 1) -> Stop:
        """Like ``stepi``, but a call (``jal``/``jalr`` linking ``ra``) runs until it returns."""
        stop = None
        for _ in range(count):
            pc = self.core.pc
            word = int.from_bytes(self.read_memory(pc, 4), "little")
            if word & 0x7F in (0x6F, 0x67) and (word >> 7) & 0x1F == 1:
                sp = self.register("sp")
                stop, _ = self.run_until({pc + 4: lambda: self.register("sp") >= sp})
            else:
                stop = self.stepi()
            if stop.kind is not StopKind.STEP:
                return stop
        assert stop is not None
        return stop

    def run_until(self, targets: dict[int, Callable[[], bool]]) -> tuple[Stop, bool]:
        """Continue until the pc reaches one of ``targets`` with its condition true, using
        internal breakpoints (no numbers): returns (a STEP stop there, True); any other stop
        (a user breakpoint, watchpoint, event, ...) comes back as (it, False)."""
        self.history.clear()
        core = self.core
        user = core.breakpoints
        core.set_breakpoints(user | set(targets))
        try:
            while True:
                stop = core.resume()
                if stop.kind is not StopKind.BREAKPOINT:
                    return stop, False
                if stop.pc in user and self._breakpoint_stops(stop.pc):
                    return stop, False
                condition = targets.get(stop.pc)
                if condition is not None and condition():
                    return Stop(StopKind.STEP, stop.core, stop.pc), True
        finally:
            core.set_breakpoints(user)

    def landed_on_breakpoint(self, stop: Stop) -> Stop:
        """A step that lands on an enabled breakpoint reports it (and counts the hit), as GDB's
        source-level stepping does."""
        if stop.kind is StopKind.STEP and stop.pc in self.core.breakpoints and self._breakpoint_stops(stop.pc):
            return Stop(StopKind.BREAKPOINT, stop.core, stop.pc)
        return stop

    def interrupt(self) -> None:
        """Stop a running ``cont`` (safe to call from another thread)."""
        self.core.interrupt()

    def _breakpoint_stops(self, pc: int) -> bool:
        """Count a hit on the breakpoints at ``pc``; True if one of them stops the run (those
        are kept in ``last_hits`` for the stop report)."""
        stops = False
        self.last_hits = []
        for bp in list(self.breakpoints.values()):
            if bp.address != pc or not bp.enabled:
                continue
            if bp.condition is not None and not self.condition_true(bp):
                continue
            bp.hits += 1
            if bp.ignore_count > 0:
                bp.ignore_count -= 1
                continue
            stops = True
            self.last_hits.append(bp)
            if bp.temporary:
                self.delete(bp.number)
        return stops

    def condition_true(self, bp: Breakpoint) -> bool:
        """Evaluate a breakpoint condition (an error counts as true, so the user sees it)."""
        from tdbg.expr import ExprError, evaluate

        try:
            return bool(evaluate(bp.condition, self.expression_context()).raw)
        except (ExprError, SessionError):
            return True

    def expression_context(self):
        """The context ``tdbg.expr`` evaluates in (one per session: it keeps the history)."""
        if self._expr_context is None:
            from tdbg.expr_context import SessionContext

            self._expr_context = SessionContext(self)
        return self._expr_context

    def evaluate(self, text: str):
        """Evaluate a C expression (``tdbg.expr``) in the current core's innermost frame."""
        from tdbg.expr import evaluate

        return evaluate(text, self.expression_context())

    # -- breakpoints and watchpoints ----------------------------------------------------------
    def resolve(self, location: str | int) -> int:
        """An address from a number, ``FUNCTION`` (past its prologue when there is line
        information), ``FILE:LINE`` or ``LINE``."""
        if isinstance(location, int):
            return location
        if not (location.strip().isdigit() and self.debug is not None):  # LINE, as GDB reads it
            try:
                return int(location, 0)
            except ValueError:
                pass
        if self.debug is not None:
            from tdbg.stepping import resolve_location

            return resolve_location(self, self.debug, location)[0]
        try:
            return self.image.symbol(location).addr
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def frames(self) -> list[Frame]:
        """The current core's backtrace (innermost first); one frame without debug info."""
        core = self.core
        if self.debug is None:
            hit = self.image.symbol_at(core.pc)
            name = hit[0].name if hit else None
            return [Frame(0, core.pc, name, None, None, core.reg(2), core.reg(2), core.reg(8), {})]
        return self.debug.frames(core.pc, core.regs(), self.read_u32)

    def break_at(self, location: str | int, temporary: bool = False) -> Breakpoint:
        bp = Breakpoint(self._take_number(), self.resolve(location), temporary=temporary)
        self.breakpoints[bp.number] = bp
        self._sync_breakpoints()
        return bp

    def watch(self, address: int, length: int, kind: str = "write") -> Watch:
        if kind not in ("write", "read", "access"):
            raise SessionError(f"watch kind must be write, read or access, not {kind!r}")
        watch = Watch(self._take_number(), address, length, kind)
        self.watchpoints[watch.number] = watch
        self.core.add_watch(watch)
        return watch

    def watch_dst_row(self, row: int, kind: str = "write") -> Watch:
        """Watch ``Dst`` row ``row`` in the view the current core's window uses (Dst32b for
        fmt 0/1, else Dst16b): window accesses and Tensix instructions that write it stop."""
        if kind not in ("write", "access"):
            raise SessionError("Dst rows can be watched for writes (watch) or any access (awatch)")
        if not 0 <= row < 1024:
            raise SessionError(f"Dst row {row} out of range 0..1023")
        tensix = self.tile.tensix
        if tensix.window.ctrl(self.core.thread).fmt <= 1:
            high = int(tensix.dst.row32[row])
            rows, view = frozenset({high, high + 8}), "Dst32b"
        else:
            rows, view = frozenset({int(tensix.dst.row16[row])}), "Dst16b"
        profile = self.tile.profile
        assert profile.dst_window_base is not None
        watch = Watch(self._take_number(), profile.dst_window_base, profile.dst_window_size, kind, rows, view)
        self.watchpoints[watch.number] = watch
        self.core.add_watch(watch)
        return watch

    def delete(self, number: int) -> None:
        if number in self.breakpoints:
            del self.breakpoints[number]
            self._sync_breakpoints()
        elif number in self.watchpoints:
            del self.watchpoints[number]
            self.core.remove_watch(number)
        else:
            raise SessionError(f"No breakpoint number {number}.")

    def _take_number(self) -> int:
        number = self._next_number
        self._next_number += 1
        return number

    def _sync_breakpoints(self) -> None:
        addresses = {bp.address for bp in self.breakpoints.values() if bp.enabled}
        for core in self.tile.cores.values():
            core.set_breakpoints(addresses)

    def select_core(self, name: str) -> Core:
        """Make ``name`` (T0, T1, T2) the current core, creating it on first use."""
        name = name.upper()
        if name not in self.tile.cores:
            try:
                self.tile.add_core(name)
            except ValueError as exc:
                raise SessionError(str(exc)) from None
        self.current = name
        self._sync_breakpoints()
        return self.core

    # -- registers --------------------------------------------------------------------------------
    def register(self, name: str) -> int:
        """``pc`` or an integer register by ABI name or ``xN``."""
        if name == "pc":
            return self.core.pc
        try:
            return self.core.reg(REGISTERS[name])
        except KeyError:
            raise SessionError(f"Invalid register `{name}'") from None

    def set_register(self, name: str, value: int) -> None:
        if name == "pc":
            self.core.pc = value
        elif name in REGISTERS:
            self.core.set_reg(REGISTERS[name], value)
        else:
            raise SessionError(f"Invalid register `{name}'")

    # -- memory as the current core sees it ---------------------------------------------------
    def read_memory(self, address: int, size: int) -> bytes:
        """Bytes as the debugger sees them (devices read element by element as ``load``)."""
        data = self.tile.read(self.core, address, size)
        if data is None:
            raise SessionError(f"Cannot access memory at address {address:#x}")
        return data

    def read_u32(self, address: int) -> int:
        return int.from_bytes(self.read_memory(address, 4), "little")

    def read_value(self, address: int, size: int) -> int:
        """What a ``size``-byte load by the current core at ``address`` returns."""
        region = self.core.region_at(address)
        if region is None:
            return int.from_bytes(self.read_memory(address, size), "little")
        try:
            return region.load(self.core.thread, address - region.base, size)
        except TensixEvent as exc:
            raise SessionError(f"Cannot access memory at address {address:#x}: {exc}") from None

    def write_value(self, address: int, size: int, value: int) -> None:
        """Store as the current core's ``sb``/``sh``/``sw`` at ``address`` would."""
        value &= (1 << (8 * size)) - 1
        region = self.core.region_at(address)
        if region is not None:
            try:
                region.store(self.core.thread, address - region.base, size, value)
            except TensixEvent as exc:
                raise SessionError(f"Cannot write memory at address {address:#x}: {exc}") from None
            return
        self.write_memory(address, value.to_bytes(size, "little"))

    def write_memory(self, address: int, data: bytes) -> None:
        """Write plain memory (L1, local RAM) as the debugger does."""
        try:
            self.core.uc.mem_write(address, data)
        except Exception:
            raise SessionError(f"Cannot access memory at address {address:#x}") from None
        if self.image.is_executable(address):
            for core in self.tile.cores.values():
                core.uc.ctl_remove_cache(address, address + len(data))

    def symbolize(self, address: int) -> str:
        """``<main+4>`` for an address inside a known function or object, else ``""``."""
        hit = self.image.symbol_at(address)
        if hit is None:
            return ""
        sym, offset = hit
        return f"<{sym.name}+{offset}>" if offset else f"<{sym.name}>"

    # -- the Tensix side, for scripts -------------------------------------------------------------
    def dst(self, rows: int | slice | Sequence[int], view: str = "fp32") -> np.ndarray:
        """``Dst`` rows decoded in a view: ``fp32``/``int32``/``tf32``/``raw32`` read ``Dst32b``
        rows, ``bf16``/``fp16``/``fp8``/``int8``/``int16``/``raw16`` read ``Dst16b`` rows."""
        dst = self.tile.tensix.dst
        storage, name = _dst_view(view)
        bits = dst.read32(_rows(rows)) if storage == "dst32" else dst.read16(_rows(rows))
        return bits if name == "raw" else formats.get_view(storage, name).decode(bits)

    def set_dst(self, rows: int | slice | Sequence[int], values: ArrayLike, view: str = "fp32") -> None:
        """Write ``Dst`` rows from values in a view (the inverse of ``dst``)."""
        dst = self.tile.tensix.dst
        storage, name = _dst_view(view)
        bits = np.asarray(values) if name == "raw" else formats.get_view(storage, name).encode(values)
        (dst.write32 if storage == "dst32" else dst.write16)(_rows(rows), bits)

    def src(self, which: str, bank: int, rows: int | slice | Sequence[int] = slice(None), view: str = "raw") -> np.ndarray:
        """``SrcA``/``SrcB`` rows (19-bit values, or decoded: tf32, bf16, fp16, fp8, int8, int16)."""
        reg = {"srca": self.tile.tensix.srca, "srcb": self.tile.tensix.srcb}[which.lower()]
        bits = reg.read(bank, _rows(rows))
        return bits if view == "raw" else formats.get_view("src", view).decode(bits)

    def cfg(self, name: str) -> int:
        """A config field by its ``cfg_defines.h`` name, as the current core's thread sees it."""
        try:
            return self.tile.tensix.config.get(name, thread=self.core.thread)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def set_cfg(self, name: str, value: int) -> None:
        try:
            self.tile.tensix.config.set(name, value, thread=self.core.thread)
        except (KeyError, ValueError) as exc:
            raise SessionError(str(exc.args[0])) from None

    def tensix(self, instruction: str | int) -> None:
        """Execute one Tensix instruction (text form or word) on the current thread, as if
        pushed; an event it raises comes back as the exception."""
        from tdbg.tensix.isa import IsaError

        try:
            word = instruction if isinstance(instruction, int) else self.tile.profile.isa.parse(instruction).word
        except IsaError as exc:
            raise SessionError(str(exc)) from None
        self.tile.execute(self.core, self.core.pc, word, "debugger")

    def execute(self, line: str) -> str:
        """Run one shell command and return what the shell would print."""
        if self._interpreter is None:
            from tdbg.commands import Interpreter

            self._interpreter = Interpreter(self)
        return self._interpreter.capture(line)

    def symbol(self, name: str):
        try:
            return self.image.symbol(name)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None
