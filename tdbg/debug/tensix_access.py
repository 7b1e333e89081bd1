"""The Tensix side of the engine (``Session`` delegates to a ``TensixAccess``): ``Dst``, ``SrcA`` /
``SrcB``, the Vector Unit, config and the coprocessor's state, read as numpy arrays or typed
copies (``tdbg.debug.snapshots``) and written as the debugger's stores, on the current core's Tensix
thread; Tensix instructions issued by hand; the window trace and who wrote what."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tdbg.debug.target import Target
from tdbg.errors import SessionError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

    from tdbg.debug.snapshots import ConfigFieldValue, CoprocessorState, DstContents, VectorUnitState
    from tdbg.emu.core import Core
    from tdbg.emu.pushlog import WindowTrace
    from tdbg.emu.tile import Tile
    from tdbg.tensix import formats, view_in_force


def _dst_view(view: str) -> tuple[str, str]:
    """(storage, view) of a view name; raw16 (or raw) and raw32 are the raw bits, as in the
    shell's ``x ... as`` and ``--view``."""
    from tdbg.tensix import formats

    if view in ("raw16", "raw32"):
        return ("dst16" if view == "raw16" else "dst32"), "raw"
    storage = "dst32" if view in ("fp32", "int32", "tf32") else "dst16"
    formats.get_view(storage, view)  # a clear KeyError for unknown names
    return storage, view


def _rows(rows: int | slice | Sequence[int]) -> int | slice | np.ndarray:
    import numpy as np

    return rows if isinstance(rows, (int, slice)) else np.asarray(rows)


class TensixAccess:
    """What the engine offers of the coprocessor (over the target's ``tile``, on its ``current``
    core's thread)."""

    def __init__(self, target: Target) -> None:
        self.t = target

    @property
    def tile(self) -> Tile:
        return self.t.tile

    @property
    def current(self) -> str:
        return self.t.current

    @property
    def _tensix_core(self) -> Core:
        return self.tile.cores[self.current]

    # -- Dst and SrcA / SrcB ----------------------------------------------------------------------
    def dst(self, rows: int | slice | Sequence[int], view: str = "fp32") -> np.ndarray:
        """``Dst`` rows decoded in a view: ``fp32``/``int32``/``tf32``/``raw32`` read ``Dst32b``
        rows, ``bf16``/``fp16``/``fp8``/``int8``/``int16``/``raw16`` read ``Dst16b`` rows."""
        from tdbg.tensix import formats

        dst = self.tile.tensix.dst
        storage, name = _dst_view(view)
        bits = dst.read32(_rows(rows)) if storage == "dst32" else dst.read16(_rows(rows))
        return bits if name == "raw" else formats.get_view(storage, name).decode(bits)

    def set_dst(self, rows: int | slice | Sequence[int], values: ArrayLike, view: str = "fp32") -> None:
        """Write ``Dst`` rows from values in a view (the inverse of ``dst``)."""
        import numpy as np
        from tdbg.tensix import formats

        dst = self.tile.tensix.dst
        storage, name = _dst_view(view)
        bits = np.asarray(values) if name == "raw" else formats.get_view(storage, name).encode(values)
        (dst.write32 if storage == "dst32" else dst.write16)(_rows(rows), bits)

    def src(self, which: str, bank: int, rows: int | slice | Sequence[int] = slice(None), view: str = "raw") -> np.ndarray:
        """``SrcA``/``SrcB`` rows (19-bit values, or decoded: tf32, bf16, fp16, fp8, int8, int16)."""
        from tdbg.tensix import formats

        reg = {"srca": self.tile.tensix.srca, "srcb": self.tile.tensix.srcb}[which.lower()]
        bits = reg.read(bank, _rows(rows)).copy()
        return bits if view == "raw" else formats.get_view("src", view).decode(bits)

    def write_dst_element(self, storage: str, row: int, col: int, bits: int) -> None:
        """Store one datum of ``Dst16b`` (``storage`` "dst16"), ``Dst32b`` ("dst32") or ``DstBits``
        ("bits") as the debugger (``Tile.write_dst``); a row ZEROACC left undefined (or never
        written) is refused: one datum cannot define the rest of it."""
        try:
            self.tile.write_dst(storage, row, col, bits)
        except ValueError:
            name = {"dst16": "Dst16b", "dst32": "Dst32b", "bits": "DstBits"}[storage]
            raise SessionError(f"{name}[{row}][{col}] is undefined (ZEROACC, or never written).") from None

    def set_dst_bits(self, first_row: int, rows: ArrayLike) -> None:
        """Store whole ``DstBits`` rows (uint16, ``(n, 16)``) from ``first_row``, as stored (no
        ``Adj16``); each holds data from now on."""
        import numpy as np

        data = np.asarray(rows, dtype=np.uint16).reshape(-1, 16)
        self.tile.write_dst_bits(np.arange(first_row, first_row + len(data)), data)

    def write_src_element(self, which: str, bank: int, row: int, col: int, bits: int) -> None:
        """Store one datum of ``SrcA`` / ``SrcB`` (19 bits)."""
        reg = {"srca": self.tile.tensix.srca, "srcb": self.tile.tensix.srcb}[which]
        values = reg.read(bank, row).copy()
        values[col] = bits
        reg.write(bank, row, values)

    def dst_contents(self) -> DstContents:
        """``DstBits``, which rows hold data, and the row mapping in force, as a copy."""
        from tdbg.debug.snapshots import DstContents

        dst = self.tile.tensix.dst
        return DstContents(dst.bits.copy(), dst.ever_written.copy(), dst.row16, dst.row32,
                           int(dst.unpredictable.sum()) if dst._any_unpredictable else None)

    # -- how data is read, the Vector Unit, the coprocessor, config ----------------------------------
    def view_in_force(self, array: str) -> formats.View:
        """How the current core's thread reads ``array``'s data (``tdbg.tensix.view_in_force``):
        "dst16" / "dst32" by its window ``fmt``, "srca" / "srcb" by their unpacker format."""
        from tdbg.tensix import view_in_force

        tensix, thread = self.tile.tensix, self._tensix_core.thread
        if array in ("srca", "srcb"):
            return view_in_force.src_view(tensix, thread, array)  # type: ignore[arg-type]
        return view_in_force.dst_view(tensix, thread, array)  # type: ignore[arg-type]

    def dst_view_in_force(self) -> formats.View:
        """The view of ``Dst`` data the current thread's math configuration names, else its
        window's (``view_in_force.dst_view_in_force``)."""
        from tdbg.tensix import view_in_force

        return view_in_force.dst_view_in_force(self.tile.tensix, self._thread())

    def math_dst(self) -> view_in_force.MathDst:
        """What the current thread's math configuration says ``Dst`` holds."""
        from tdbg.tensix import view_in_force

        return view_in_force.math_dst(self.tile.tensix, self._thread())

    def vector_unit(self) -> VectorUnitState:
        """The Vector Unit (LRegs, lane predication, LaneConfig, LoadMacroConfig), as a copy."""
        from tdbg.debug.snapshots import VectorUnitState
        from tdbg.tensix import state_description

        vu = self.tile.coprocessor.vector
        return VectorUnitState(vu.lreg.copy(), vu.defined.copy(), vu.lane_flags.copy(), vu.use_lane_flags.copy(),
                               vu.stack.copy(), vu.stack_size.copy(), vu.lane_config.copy(), vu.enabled().copy(),
                               vu.template.copy(), vu.sequence.copy(), vu.misc.copy(), vu.macro_defined.copy(),
                               tuple(self.tile.coprocessor.rwc(t).Sp for t in self._tensix_threads()),
                               state_description.save(vu))

    def write_lreg_lane(self, reg: int, lane: int, bits: int) -> None:
        """Store the 32 bits of one lane of ``LReg[reg]``; the read-only constants (LReg.md:
        8, 9, 10, 15) are refused."""
        import numpy as np

        vu = self.tile.coprocessor.vector
        if reg in (8, 9, 10, 15):
            raise SessionError(f"LReg[{reg}] is a read-only constant (LReg.md).")
        vu.write(reg, bits & 0xFFFFFFFF, np.arange(len(vu.lreg[0])) == lane)

    def coprocessor_state(self) -> CoprocessorState:
        """A copy of what Tensix instructions change: ``Dst``, ``SrcA``/``SrcB``, config, each
        thread's RWCs and queue, semaphores, bank selection, the Vector Unit."""
        from tdbg.debug.snapshots import CoprocessorState, ThreadState
        from tdbg.tensix import state_description

        t, cop = self.tile.tensix, self.tile.coprocessor
        threads = tuple(ThreadState(cop.rwc(i).as_dict(), cop.waiting(i), len(cop.pending(i)))
                        for i in self._tensix_threads())
        banks = t.src_banks
        return CoprocessorState(
            self.dst_contents(), t.srca.data.copy(), t.srcb.data.copy(), t.config.config.copy(),
            t.config.thread_config.copy(), threads, tuple((s.Value, s.Max) for s in cop.semaphores),
            tuple(tuple(c.value for c in reg.allowed_client) for reg in (t.srca, t.srcb)),
            (banks.matrix_unit_srca, banks.matrix_unit_srcb, banks.unpacker[0], banks.unpacker[1]), self.vector_unit(),
            state_description.save(cop))

    def state_changes(self, before: CoprocessorState | VectorUnitState,
                      after: CoprocessorState | VectorUnitState) -> list[str]:
        """What changed between two copies of the coprocessor (or of the Vector Unit), as its
        state declaration (``Coprocessor.STATE``, ``VectorUnit.STATE``) reports it."""
        from tdbg.debug.snapshots import CoprocessorState
        from tdbg.tensix import state_description

        cop = self.tile.coprocessor
        return state_description.changes(cop if isinstance(before, CoprocessorState) else cop.vector,
                                         before.saved, after.saved)

    def cfg(self, name: str) -> int:
        """A config field by its ``cfg_defines.h`` name, as the current core's thread sees it."""
        try:
            return self.tile.tensix.config.get(name, thread=self._cfg_thread())
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def set_cfg(self, name: str, value: int) -> None:
        try:
            self.tile.tensix.config.set(name, value, thread=self._cfg_thread())
        except (KeyError, ValueError) as exc:
            raise SessionError(str(exc.args[0])) from None

    def _cfg_thread(self) -> int:
        """The current core's Tensix thread, whose bank a config field name means."""
        thread = self._tensix_core.thread
        if thread is None:
            raise SessionError(f"{self.current} has no Tensix thread, so no Config bank of its own (info cfg on it "
                               "shows both banks): select T0, T1 or T2")
        return thread

    def cfg_fields(self, pattern: str | None = None) -> list[ConfigFieldValue]:
        """Config fields whose ``cfg_defines.h`` name matches ``pattern`` (a glob or prefix;
        None: all), as the current core's thread sees them; on a core without a thread (B, NC)
        each field in both Config banks and each thread's ThreadConfig, as B's loads at
        ``TENSIX_CFG_BASE`` see them (BackendConfiguration.md; NC has no such window, and is
        shown the same state)."""
        from tdbg.debug.snapshots import ConfigFieldValue

        cfg, thread = self.tile.tensix.config, self._tensix_core.thread
        fields = list(cfg.fields(pattern))
        if not fields:
            return []
        if thread is None:
            return [ConfigFieldValue(f.name, cfg.get(f.name, thread=t, bank=b),
                                     f"ThreadConfig[{t}][{f.addr32}]" if f.thread else f"Config[{b}][{f.addr32}]",
                                     f.shamt, f.width)
                    for f in fields
                    for t, b in ([(t, 0) for t in self._tensix_threads()] if f.thread else [(0, 0), (0, 1)])]
        bank = cfg.state_id(thread)
        return [ConfigFieldValue(f.name, cfg.get(f.name, thread=thread),
                                 f"ThreadConfig[{thread}][{f.addr32}]" if f.thread else f"Config[{bank}][{f.addr32}]",
                                 f.shamt, f.width) for f in fields]

    def cfg_names(self) -> list[str]:
        """Every config field's ``cfg_defines.h`` name (for completion)."""
        return list(self.tile.tensix.config.table.fields)

    def _tensix_threads(self) -> list[int]:
        """The Tensix threads, in order (one per T core of the profile)."""
        return sorted(spec.thread for spec in self.tile.profile.cores if spec.thread is not None)

    def _thread(self) -> int:
        thread = self._tensix_core.thread
        if thread is None:
            raise SessionError(f"{self.current} has no Tensix thread: select T0, T1 or T2")
        return thread

    # -- the units as the current thread sees them, Tensix instructions ------------------------------
    def unpacker_status(self, which: int) -> list[tuple[str, str]]:
        """Unpacker ``which`` (0: SrcA / Dst, 1: SrcB) as the current core's thread sees it:
        configuration by field name, the next UNPACR's addresses, ADCs, banks."""
        from tdbg.tensix import unpackers

        return unpackers.status(self.tile.coprocessor, self._thread(), which)

    def packer_status(self) -> list[tuple[str, str]]:
        """The packer as the current core's thread sees it (configuration, next PACR, streams)."""
        from tdbg.tensix import packers

        return packers.status(self.tile.coprocessor, self._thread())

    def tensix(self, instruction: str | int) -> None:
        """Execute one Tensix instruction (text form or word) on the current thread, as if
        pushed; an event it raises comes back as the exception."""
        from tdbg.tensix.coprocessor import QueueFull
        from tdbg.tensix.isa import IsaError, isa_of

        try:
            word = instruction if isinstance(instruction, int) else isa_of(self.tile.profile).parse(instruction).word
        except IsaError as exc:
            raise SessionError(str(exc)) from None
        core = self._tensix_core
        try:
            self.tile.execute(core, core.thread if core.thread is not None else 0, core.pc, word, "debugger")
        except QueueFull as exc:
            raise SessionError(f"Cannot push: {exc}") from None

    # -- who wrote what, the window trace ---------------------------------------------------------
    def l1_accesses(self, seq: int):
        """The L1 ranges Tensix instructions read or wrote during push ``seq``."""
        return self.tile.l1_log.of_push(seq)

    def l1_writer(self, address: int):
        """The last Tensix instruction (still in the log) that wrote L1 ``address``, or None."""
        return self.tile.l1_log.writer(address)

    def dst_writer(self, row: int):
        """Who last wrote ``DstBits`` row ``row`` (a push, or a recorded window store)."""
        return self.tile.dst_writer(row)

    def observe_window(self, trace: bool | None = None, writers: bool | None = None) -> None:
        """Record Dst-window accesses (``trace``) and window-store writers (``writers``)."""
        self.tile.observe_window(trace, writers)

    @property
    def window_trace(self) -> WindowTrace | None:
        """The Dst-window accesses logged since the last ``clear_window_trace`` (None: tracing
        is off)."""
        return self.tile.window_trace

    def clear_window_trace(self) -> None:
        """Start the window trace's log afresh (it was shown)."""
        if self.tile.window_trace is not None:
            self.tile.window_trace.clear()

    @property
    def recording_window_writers(self) -> bool:
        return self.tile.record_window_writers
