"""Why a tile hangs: for each blocked core, the instruction that holds it, where that instruction
(and the wait it is held by) was pushed, the semaphores or mutex involved by their tt-llk names
(``tdbg.symbols.llk_names``), and which cores' firmware would release it, with those cores' states.

What releases what (SyncUnit.md, SEMPOST.md, SEMGET.md, SEMWAIT.md, ATGETM.md, ATRELM.md): a
``SEMWAIT`` C0 (``Value == 0``) or a poll reading a semaphore as 0 ends with a post (``SEMPOST``,
or a RISC-V store of an even value to ``SemaphoreAccess[i]``); C1 (``Value >= Max``) with a get
(``SEMGET``, a store of an odd value); a semaphore polled with another value changes with either;
a mutex held by thread T with T's ``ATRELM``.  The posts and gets each firmware can make are found
in its code: its ``.ttinsn`` words, and its stores to a semaphore (or of a constant instruction
word to ``INSTRN_BUF_BASE``) whose address is a constant of the straight-line code before them
(``lui`` / ``auipc`` / ``addi`` / ``li``; what is known is forgotten at every branch target and
call).  The code searched is every core's firmware and the code a host loaded beside it (a
tt-metal kernel, given by its ELF at the address it runs at); a semaphore's name comes from the
first of their DWARFs that names it.  A release computed at run time is not found: the report then
says no core's code makes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tdbg.emu.code_patches import PatchKind
from tdbg.emu.states import CoreState
from tdbg.emu.devices.device import Wait
from tdbg.emu.stops import CoreWait
from tdbg.symbols.llk_names import llk_names
from tdbg.tensix import sync
from tdbg.tensix.isa import IsaError, isa_of

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.emu.pushlog import PushRecord
    from tdbg.emu.tile import Tile

#: the code a host loaded beside each core's firmware (its ELFs, moved to where they run)
Kernels = Mapping[str, Sequence["ElfImage"]]


@dataclass(frozen=True)
class Push:
    """A pushed Tensix instruction and where its core pushed it."""

    text: str
    core: str
    pc: int


@dataclass(frozen=True)
class Release:
    """An instruction in a core's code (its firmware or a kernel) that would end a wait."""

    core: str
    pc: int
    what: str          # "SEMPOST", "a store to semaphore 2", "ATRELM 3"
    state: str         # the core's state now: "blocked", "exited", ...


@dataclass(frozen=True)
class Need:
    """What would end a wait: ``what`` (``a post of semaphore 1 (MATH_PACK)``) and the
    instructions in the firmware that make it."""

    what: str
    releases: list[Release] = field(default_factory=list)


@dataclass(frozen=True)
class WaitReport:
    """One blocked core: its wait, the held instruction and the latched wait holding it (with
    where each was pushed), and what would release it."""

    wait: CoreWait
    reason: str                        # the wait's words, semaphores named
    held: Push | None = None
    latch: Push | None = None
    needs: list[Need] = field(default_factory=list)


def detail_lines(report: WaitReport, site: Callable[[str, int], str], searched: str = "firmware") -> list[str]:
    """A report's lines after its wait's: where the held instruction and the wait latched before
    it were pushed, and what would release it, each release by its core and state (``site``
    names a core's pc; a core's further releases of the same kind folded into its line);
    ``searched``: what code the releases were looked for in, for "no core's ... makes one"."""
    lines = []
    if report.held is not None:
        lines.append(f"    {report.held.text.split()[0]} was pushed by {report.held.core} at "
                     f"{site(report.held.core, report.held.pc)}")
    if report.latch is not None:
        lines.append(f"    the {report.latch.text} holding it was pushed by {report.latch.core} at "
                     f"{site(report.latch.core, report.latch.pc)}")
    for need in report.needs:
        if not need.releases:
            lines.append(f"    it needs {need.what}: no core's {searched} makes one")
            continue
        lines.append(f"    it needs {need.what}, made by:")
        folded: dict[tuple[str, str], list[Release]] = {}
        for release in need.releases:
            folded.setdefault((release.core, release.what), []).append(release)
        for (core, what), same in folded.items():
            also = f"; also at {', '.join(f'{r.pc:#010x}' for r in same[1:])}" if len(same) > 1 else ""
            lines.append(f"      {core} ({same[0].state}): {what} at {site(core, same[0].pc)}{also}")
    return lines


def explain(tile: Tile, waits: tuple[CoreWait, ...], kernels: Kernels | None = None) -> list[WaitReport]:
    """A report for each blocked core of a deadlock (or a scheduler-locked wait); ``kernels``:
    the code hosts loaded beside the firmware, searched for releases and names too."""
    scan = _Scanner(tile, kernels or {})
    return [_explain(tile, scan, w) for w in waits]


def _images(tile: Tile, kernels: Kernels, core: str | None) -> list[ElfImage]:
    """Every core's code (``core``'s first): its kernels, then its firmware."""
    cores = list(dict.fromkeys([*tile.programs, *kernels]))
    order = ([core] if core in cores else []) + [c for c in cores if c != core]
    return [image for c in order
            for image in [*kernels.get(c, ()), *([tile.programs[c].image] if c in tile.programs else [])]]


def _named(tile: Tile, kernels: Kernels, kind: str, index: int, core: str | None) -> str:
    for image in _images(tile, kernels, core):
        names = llk_names(image)
        found = (names.semaphores if kind == "semaphore" else names.mutexes).get(index)
        if found:
            return f"{kind} {index} ({found})"
    return f"{kind} {index}"


def _explain(tile: Tile, scan: _Scanner, cw: CoreWait) -> WaitReport:
    wait = cw.wait if isinstance(cw.wait, Wait) else None
    profile = tile.profile
    cop = tile.coprocessor
    if wait is not None and wait.address is not None:
        index = profile.semaphore_at(wait.address)
        if index is not None:
            device = profile.device_at(wait.address)
            name = _named(tile, scan.kernels, "semaphore", index, cw.core)
            reason = cw.reason.replace(device.name, name) if device else cw.reason
            value = cop.semaphores[index].Value
            return WaitReport(cw, reason, needs=[_semaphore_need(tile, scan, index, cw.core, post=value < 15, get=value > 0)])
        return WaitReport(cw, cw.reason)
    if wait is None or wait.thread is None or not cop.pending(wait.thread):
        return WaitReport(cw, cw.reason)
    thread = wait.thread
    queued = cop.pending(thread)
    word = queued[0]
    b = cop.bound(word)
    mnemonic = b.mnemonic or f"{word:#010x}"
    held_record = _push_of_oldest(tile, thread, queued)
    held = Push(tile.describe_word(word), held_record.core, held_record.pc) if held_record else None
    latch = cop.wait_gate[thread]
    if latch is not None and sync.blocked_by(b.mnemonic or "", latch.BlockMask):
        latch_record = _push_before(tile, thread, latch.Opcode, held_record.seq if held_record else None)
        latch_push = Push(latch.Opcode, latch_record.core, latch_record.pc) if latch_record else None
        needs = []
        if latch.Opcode == "SEMWAIT":
            for index, sem in enumerate(cop.semaphores):
                if latch.SemaphoreMask >> index & 1:
                    post = bool(latch.ConditionMask & 1 and sem.Value == 0)
                    get = bool(latch.ConditionMask & 2 and sem.Value >= sem.Max)
                    if post or get:
                        needs.append(_semaphore_need(tile, scan, index, cw.core, post, get))
        return WaitReport(cw, cw.reason, held, latch_push, needs)
    if mnemonic == "ATGETM":
        index = b.fields.get("Index", 0)
        mutexes = tile.tensix.mutexes
        holder = mutexes[index] if index < len(mutexes) else None
        name = _named(tile, scan.kernels, "mutex", index, cw.core)
        releases = [r for r in scan.releases(("ATRELM", index)) if holder is not None and tile.cores[r.core].thread == holder]
        need = Need(f"{name} released by T{holder}'s thread (ATRELM)" if holder is not None else f"{name}", releases)
        return WaitReport(cw, cw.reason, held, None, [need])
    return WaitReport(cw, cw.reason, held)


def _semaphore_need(tile: Tile, scan: _Scanner, index: int, core: str, post: bool, get: bool) -> Need:
    name = _named(tile, scan.kernels, "semaphore", index, core)
    kinds = [k for k, wanted in (("post", post), ("get", get)) if wanted]
    what = f"a {' or a '.join(kinds)} of {name}"
    releases = [r for k in kinds for r in scan.releases((k, index))]
    return Need(what, releases)


def _push_of_oldest(tile: Tile, thread: int, queued: list[int]) -> PushRecord | None:
    """The push record of the oldest queued word of ``thread``: the queue is the thread's newest
    pushes when no MOP / REPLAY expanded them; otherwise the newest push of that word."""
    records = [r for r in tile.pushes.last(len(tile.pushes)) if r.thread == thread and r.via != "debugger"]
    tail = records[-len(queued):]
    if len(tail) == len(queued) and [r.word for r in tail] == queued:
        return tail[0]
    return next((r for r in reversed(records) if r.word == queued[0]), None)


def _push_before(tile: Tile, thread: int, opcode: str, seq: int | None) -> PushRecord | None:
    """The newest push of ``opcode`` by ``thread`` before push ``seq`` (the wait that latched)."""
    cop = tile.coprocessor
    for r in reversed(tile.pushes.last(len(tile.pushes))):
        if r.thread == thread and (seq is None or r.seq < seq) and cop.mnemonic(r.word) == opcode:
            return r
    return None


# -- what each firmware can release ------------------------------------------------------------

class _Scanner:
    """The posts, gets and mutex releases in each core's code (computed once per report)."""

    def __init__(self, tile: Tile, kernels: Kernels) -> None:
        self.tile, self.kernels = tile, kernels
        self._found: dict[tuple[str, int], list[Release]] | None = None

    def releases(self, key: tuple[str, int]) -> list[Release]:
        if self._found is None:
            self._found = {}
            for core in dict.fromkeys([*self.tile.programs, *self.kernels]):
                state = _state(self.tile, core)
                for pc, kind, index, what in _sync_actions(self.tile, self.kernels, core):
                    self._found.setdefault((kind, index), []).append(Release(core, pc, what, state))
        return self._found.get(key, [])


def _state(tile: Tile, core: str) -> str:
    state = tile.cores[core].state
    return "blocked" if state is CoreState.BLOCKED else state.value


def _sync_actions(tile: Tile, kernels: Kernels, core: str) -> list[tuple[int, str, int, str]]:
    """(pc, "post" | "get" | "ATRELM", index, how) for each release in ``core``'s code: its
    kernels' (searched where they run: the ``.ttinsn`` words the tile found in the loaded code)
    and its firmware's."""
    isa = isa_of(tile.profile)
    out: list[tuple[int, str, int, str]] = []

    def tensix(pc: int, word: int, how: str) -> None:
        try:
            insn = isa.decode(word)
        except IsaError:
            return
        name, fields = insn.mnemonic, insn.fields
        if name in ("SEMPOST", "SEMGET"):
            for i in range(8):
                if fields.get("SemaphoreMask", 0) >> i & 1:
                    out.append((pc, "post" if name == "SEMPOST" else "get", i, f"{name}{how}"))
        elif name == "ATRELM":
            out.append((pc, "ATRELM", fields.get("Index", 0), f"ATRELM {fields.get('Index', 0)}{how}"))

    codes = [(image.segments, sorted(image.replaced)) for image in kernels.get(core, ())]
    program = tile.programs.get(core)
    if program is not None:
        codes.append((program.segments, sorted(program.replaced)))
    profile = tile.profile
    for segments, words in codes:
        for pc in words:
            patch = tile.code.at.get(pc)
            if patch is not None and patch.kind is PatchKind.TTINSN:
                tensix(pc, patch.insn, "")  # type: ignore[arg-type]
        for pc, address, value in _constant_stores(segments):
            index = profile.semaphore_at(address & ~3)
            if index is not None:
                kinds = ["post", "get"] if value is None else ["get" if value & 1 else "post"]
                name = _named(tile, kernels, "semaphore", index, core)
                for kind in kinds:
                    out.append((pc, kind, index, f"a store to {name}"))
            elif address == profile.instrn_buf_base and value is not None:
                tensix(pc, value, " (stored to INSTRN_BUF_BASE)")
    return out


def _constant_stores(segments: list) -> list[tuple[int, int, int | None]]:
    """(pc, address, value or None) of each RV32I store in executable ``segments`` whose address
    is a constant on every path to it: a forward data-flow over the code (``lui`` / ``auipc`` /
    ``addi`` make constants, a join keeps the registers every path agrees on, a call leaves only
    the callee-saved ones, RISC-V psABI)."""
    words: dict[int, int] = {}
    for seg in segments:
        if seg.executable:
            data = seg.data
            for off in range(0, len(data) - 3, 4):
                words[seg.vaddr + off] = int.from_bytes(data[off:off + 4], "little")
    successors: dict[int, list[tuple[int, bool]]] = {}   # pc -> (next pc, through a call)
    reached: set[int] = set()
    for pc, w in words.items():
        op, rd = w & 0x7F, (w >> 7) & 31
        if op == 0x63:
            nxt = [(pc + 4, False), (pc + _imm_b(w), False)]
        elif op == 0x6F:
            nxt = [(pc + _imm_j(w), False)] if rd == 0 else [(pc + 4, True)]
        elif op == 0x67:
            nxt = [] if rd == 0 else [(pc + 4, True)]
        else:
            nxt = [(pc + 4, False)]
        successors[pc] = [(n, call) for n, call in nxt if n in words]
        reached.update(n for n, _ in successors[pc])
    state: dict[int, dict[int, int]] = {pc: {} for pc in words if pc not in reached}
    work = list(state)
    while work:
        pc = work.pop()
        after = _transfer(pc, words[pc], state[pc])
        for nxt, call in successors[pc]:
            into = {r: v for r, v in after.items() if r in _CALLEE_SAVED} if call else after
            old = state.get(nxt)
            merged = into if old is None else {r: v for r, v in old.items() if into.get(r) == v}
            if old is None or merged != old:
                state[nxt] = merged
                work.append(nxt)
    out = []
    for pc, known in state.items():
        w = words[pc]
        if w & 0x7F == 0x23 and (w >> 12) & 7 <= 2:   # sb / sh / sw
            rs1, rs2 = (w >> 15) & 31, (w >> 20) & 31
            base = 0 if rs1 == 0 else known.get(rs1)
            if base is not None:
                out.append((pc, (base + _imm_s(w)) & 0xFFFF_FFFF, 0 if rs2 == 0 else known.get(rs2)))
    return sorted(out)


_CALLEE_SAVED = frozenset({2, 8, 9, *range(18, 28)})   # sp, s0-s11
_WRITES_RD = frozenset({0x37, 0x17, 0x13, 0x33, 0x03, 0x2F, 0x73, 0x6F, 0x67})


def _transfer(pc: int, w: int, known: dict[int, int]) -> dict[int, int]:
    """The constant registers after the instruction ``w`` at ``pc``."""
    op, rd, rs1 = w & 0x7F, (w >> 7) & 31, (w >> 15) & 31
    if op not in _WRITES_RD or rd == 0:
        return known
    value: int | None = None
    if op == 0x37:                                   # lui
        value = w & 0xFFFF_F000
    elif op == 0x17:                                 # auipc
        value = (pc + (w & 0xFFFF_F000)) & 0xFFFF_FFFF
    elif op == 0x13 and (w >> 12) & 7 == 0:          # addi (li, mv)
        base = 0 if rs1 == 0 else known.get(rs1)
        if base is not None:
            value = (base + _imm_i(w)) & 0xFFFF_FFFF
    out = dict(known)
    if value is None:
        out.pop(rd, None)
    else:
        out[rd] = value
    return out


def _sign(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _imm_i(w: int) -> int:
    return _sign(w >> 20, 12)


def _imm_s(w: int) -> int:
    return _sign(((w >> 25) << 5) | ((w >> 7) & 31), 12)


def _imm_b(w: int) -> int:
    return _sign(((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 63) << 5) | (((w >> 8) & 15) << 1), 13)


def _imm_j(w: int) -> int:
    return _sign(((w >> 31) << 20) | (((w >> 12) & 255) << 12) | (((w >> 20) & 1) << 11) | (((w >> 21) & 1023) << 1), 21)
