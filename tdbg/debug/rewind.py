"""Going back: checkpoints of the whole tile (``tdbg.debug.checkpoints``) with what the host
knew then, and the undo records of single steps (``reverse_stepi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdbg.debug.checkpoints import CheckpointError
from tdbg.debug.run_control import RunControl
from tdbg.debug.target import Target
from tdbg.debug.tensix_access import TensixAccess
from tdbg.emu.stops import Stop, StopKind
from tdbg.errors import SessionError

if TYPE_CHECKING:
    from tdbg.debug.snapshots import DstContents


class Rewind:
    """Checkpoints and reverse steps of the selected tile."""

    def __init__(self, target: Target, run: RunControl, tensix: TensixAccess) -> None:
        self.t, self.run, self.tensix = target, run, tensix

    def checkpoint(self) -> int:
        """Save the whole tile (L1 compressed); returns the checkpoint's number.  Refused when
        the checkpoints would hold more than ``checkpoint_budget`` bytes."""
        host = self.run.host
        try:
            return self.t.checkpoints.save(host.saved() if host is not None else None)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def restore(self, number: int) -> None:
        """Back to checkpoint ``number`` (the host too); breakpoints and watchpoints stay."""
        self.t.history.clear()
        try:
            saved = self.t.checkpoints.restore(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None
        if self.run.host is not None and saved is not None:
            self.run.host.resumed(saved)
        self.t.started = True

    @property
    def checkpoint_budget(self) -> int:
        """Bytes all checkpoints may hold."""
        return self.t.checkpoints.budget

    @checkpoint_budget.setter
    def checkpoint_budget(self, nbytes: int) -> None:
        self.t.checkpoints.budget = nbytes

    def checkpoint_memory(self, number: int | None = None) -> int:
        """Bytes held by checkpoint ``number``, or by all of them (``info checkpoints``)."""
        try:
            return self.t.checkpoints.memory(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def checkpoint_pc(self, number: int, core: str | None = None) -> int | None:
        """Where ``core`` (default: the current one) was in checkpoint ``number``; None when
        the core had not been created then."""
        try:
            return self.t.checkpoints.pc(number, core or self.t.current)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def delete_checkpoint(self, number: int) -> None:
        try:
            self.t.checkpoints.delete(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None

    def checkpoint_dst(self, number: int) -> DstContents:
        """``Dst`` as checkpoint ``number`` holds it, through today's row mapping."""
        try:
            bits, written = self.t.checkpoints.dst_storage(number)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None
        return self.tensix.dst_contents().with_storage(bits, written)

    def reverse_stepi(self, count: int = 1) -> Stop:
        """Undo the last ``count`` single steps (tdbg records single steps, not ``continue``)."""
        history = self.t.history
        if count > len(history):
            raise SessionError(f"Cannot go back {count} instruction{'s' if count > 1 else ''}: "
                               f"{len(history)} recorded (single steps since the last continue)")
        for _ in range(count):
            self.t.current = history.undo(self.t.tile).core
        return Stop(StopKind.STEP, self.t.current, self.t.core.pc, detail="reverse")
