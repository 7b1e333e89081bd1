"""Tensix backend configuration: ``Config[2][CFG_STATE_SIZE*4]`` and ``ThreadConfig[threads][THD_STATE_SIZE]``.

Implements BlackholeA0 ``BackendConfiguration.md``: fields by their ``cfg_defines.h`` name,
global fields (``addr32 >= GLOBAL_CFGREG_BASE_ADDR32``) shared by both banks, the bank reset of a
write to ``STATE_RESET_EN``, and the RISC-V view at ``TENSIX_CFG_BASE`` (``Config``, then
``ConfigDualWrite``, then ``ThreadConfig`` as ``{uint16_t Value, Padding;}``; RISC-V reads any
width, writes ``Config`` with ``sw`` only and never writes ``ThreadConfig``).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from tdbg.tensix.events import UndefinedBehavior


@dataclass(frozen=True)
class CfgField:
    """One ``cfg_defines.h`` field: ``(Word[addr32] & mask) >> shamt`` (wider fields span words)."""

    name: str
    addr32: int
    shamt: int
    width: int
    thread: bool      # in ThreadConfig (the THREAD section) rather than Config
    is_global: bool   # addr32 >= GLOBAL_CFGREG_BASE_ADDR32: one copy shared by both banks

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.shamt

    @property
    def words(self) -> int:
        """Number of consecutive words the field spans."""
        return (self.shamt + self.width + 31) // 32


class CfgTable:
    """The generated field table of one architecture profile (package data)."""

    def __init__(self, data: dict) -> None:
        self.constants: dict[str, int] = data["constants"]
        self.fields: dict[str, CfgField] = {row[0]: CfgField(*row) for row in data["fields"]}
        self.cfg_state_size = self.constants["CFG_STATE_SIZE"]
        self.thd_state_size = self.constants["THD_STATE_SIZE"]
        self.global_base = self.constants["GLOBAL_CFGREG_BASE_ADDR32"]

    @classmethod
    @cache
    def load(cls, package: str, filename: str = "cfg.json") -> CfgTable:
        """The table in package data file ``filename`` of ``package`` (an architecture's)."""
        return cls(json.loads(resources.files(package).joinpath(filename).read_text()))

    def field(self, name: str) -> CfgField:
        try:
            return self.fields[name]
        except KeyError:
            raise KeyError(f"no config field named {name!r}") from None

    def match(self, pattern: str) -> list[CfgField]:
        """Fields whose name matches a glob (case-insensitive); a plain name matches as a prefix."""
        if not any(ch in pattern for ch in "*?["):
            pattern += "*"
        pattern = pattern.upper()
        return [f for name, f in self.fields.items() if fnmatch.fnmatchcase(name.upper(), pattern)]


#: What ``TensixConfig.derived(..., shared=True)`` computed, for every config of the same table:
#: (table, key) -> [(the word ids read, their values, the value)], the newest last.
_SHARED: dict[tuple[CfgTable, object], list[tuple[tuple[int, ...], tuple[int, ...], object]]] = {}
SHARED_KEPT = 4   # values kept per key


class TensixConfig:
    """Config and ThreadConfig state, readable and writable by field name or by word.

    Field reads (``get``) and the parameters instructions derive from config (``derived``) are
    cached per configuration word: each cached value remembers the words it was read from (for
    a Config field of a thread, also the thread's ``CFG_STATE_ID`` word, which picks the bank),
    and a write forgets only the values read from the word it wrote.  Writes in bulk (restore,
    reset) call ``notify``, which forgets everything.
    """

    STATE_RESET_EN = "STATE_RESET_EN"

    def __init__(self, table: CfgTable, threads: int) -> None:
        self.table = table
        self.threads = threads
        self.words_per_bank = table.cfg_state_size * 4
        self.config = np.zeros((2, self.words_per_bank), dtype=np.uint32)
        self.thread_config = np.zeros((threads, table.thd_state_size), dtype=np.uint16)
        self._reset_addr32 = table.field(self.STATE_RESET_EN).addr32
        self._state_id = table.field("CFG_STATE_ID_StateID")
        self._thread_base = 2 * self.words_per_bank   # word ids: Config[b][a] = b * words + a, then ThreadConfig
        self._listeners: list[tuple[Callable[[], None], frozenset[int] | None]] = []
        self._fields: dict[tuple[str, int, int | None], tuple[int, tuple[int, ...]]] = {}  # ``get``: (value, words)
        self._derived: dict[object, tuple[object, frozenset[int]]] = {}                  # ``derived``: (value, words)
        self._dependents: dict[int, set[tuple[bool, object]]] = {}  # word id -> (is derived, key) read from it
        self._reading: list[set[int]] = []   # the words read by each ``derived`` computation under way

    # -- change notification ---------------------------------------------------------------
    def on_change(self, callback: Callable[[], None], fields: Iterable[str] | None = None) -> None:
        """Call ``callback()`` after every write (caches derived from config refresh there);
        with ``fields``, only after a write to a word holding one of them (in either bank, for
        a Config field, or for any thread; also any thread's ``CFG_STATE_ID`` word)."""
        words = None
        if fields is not None:
            ids = {self._thread_id(t, self._state_id.addr32) for t in range(self.threads)}
            for name in fields:
                f = self.table.field(name)
                for i in range(f.words):
                    ids |= ({self._thread_id(t, f.addr32) for t in range(self.threads)} if f.thread
                            else {b * self.words_per_bank + f.addr32 + i for b in (0, 1)})
            words = frozenset(ids)
        self._listeners.append((callback, words))

    def notify(self) -> None:
        """Forget cached reads and tell listeners the state changed (called by whoever writes
        ``config`` / ``thread_config`` in bulk: restore, reset)."""
        self._fields.clear()
        self._derived.clear()
        self._dependents.clear()
        for callback, _ in self._listeners:
            callback()

    def _changed(self, word: int) -> None:
        """Word ``word`` (an id) was written: forget what was read from it, tell listeners."""
        for is_derived, key in self._dependents.pop(word, ()):
            (self._derived if is_derived else self._fields).pop(key, None)  # type: ignore[call-overload]
        for callback, words in self._listeners:
            if words is None or word in words:
                callback()

    def words_written(self, words: Iterable[int]) -> None:
        """Words (ids: ``Config[b][a]``, then ``ThreadConfig``) that a native write changed
        (``tdbg/native/ctrl.c``, by ``write_word``'s rules): what each write does after it writes."""
        for word in words:
            self._changed(word)

    def _thread_id(self, thread: int, addr32: int) -> int:
        return self._thread_base + thread * self.table.thd_state_size + addr32

    def _depend(self, key: tuple[bool, object], words: Iterable[int]) -> None:
        dependents = self._dependents
        for w in words:
            entry = dependents.get(w)
            if entry is None:
                dependents[w] = {key}
            else:
                entry.add(key)

    def derived(self, key: object, compute: Callable[[], object], shared: bool = False) -> object:
        """``compute()``, cached under ``key`` until a write to a word it read (parameters that
        instructions derive from config, e.g. an ``ADDR_MOD`` entry).  ``compute`` must read
        config through ``get`` (or ``derived``).  ``shared``: the value is a pure function of
        the words it read, and an immutable one: a value computed under ``key`` by any config of
        this table whose words held what they hold here is taken (``_SHARED``: a session after
        another, a program launched again, decode nothing)."""
        hit = self._derived.get(key)
        if hit is None:
            hit = self._recall(key) if shared else None
            if hit is None:
                self._reading.append(set())
                try:
                    value = compute()
                finally:
                    words = frozenset(self._reading.pop())
                hit = (value, words)
                if shared:
                    self._remember(key, hit)
            self._derived[key] = hit
            self._depend((True, key), hit[1])
        if self._reading:
            self._reading[-1].update(hit[1])
        return hit[0]

    def _word(self, word: int) -> int:
        """The value of word ``word`` (an id: ``Config[b][a]``, then ``ThreadConfig``)."""
        nw = self.words_per_bank
        if word < self._thread_base:
            return self.config.item(word // nw, word % nw)
        word -= self._thread_base
        return self.thread_config.item(word // self.table.thd_state_size, word % self.table.thd_state_size)

    def _recall(self, key: object) -> tuple[object, frozenset[int]] | None:
        for words, values, value in reversed(_SHARED.get((self.table, key), ())):
            if tuple(map(self._word, words)) == values:
                return value, frozenset(words)
        return None

    def _remember(self, key: object, hit: tuple[object, frozenset[int]]) -> None:
        words = tuple(sorted(hit[1]))
        kept = _SHARED.setdefault((self.table, key), [])
        kept.append((words, tuple(map(self._word, words)), hit[0]))
        del kept[:-SHARED_KEPT]

    # -- words -------------------------------------------------------------------------------
    def write_word(self, bank: int, addr32: int, value: int, *, via_rmwcib: bool = False) -> None:
        """Write ``Config[bank][addr32]`` as a Tensix or RISC-V write does.

        Global words land in both banks; any write to ``STATE_RESET_EN`` other than by RMWCIB
        zeroes ``Config[bank][0..GLOBAL_CFGREG_BASE_ADDR32-1]``.
        """
        self._check_addr32(addr32)
        value &= 0xFFFFFFFF
        nw = self.words_per_bank
        if addr32 >= self.table.global_base:
            self.config[:, addr32] = value
            self._changed(addr32)
            self._changed(nw + addr32)
        elif addr32 == self._reset_addr32 and not via_rmwcib:
            self.config[bank, : self.table.global_base] = 0
            for a in range(self.table.global_base):
                self._changed(bank * nw + a)
        else:
            self.config[bank, addr32] = value
            self._changed(bank * nw + addr32)

    def write_thread_word(self, thread: int, addr32: int, value: int) -> None:
        """Write ``ThreadConfig[thread][addr32].Value`` (what SETC16 does)."""
        if not 0 <= addr32 < self.table.thd_state_size:
            raise IndexError(f"ThreadConfig index {addr32} out of range 0..{self.table.thd_state_size - 1}")
        self.thread_config[thread, addr32] = value & 0xFFFF
        self._changed(self._thread_id(thread, addr32))

    def _check_addr32(self, addr32: int) -> None:
        if not 0 <= addr32 < self.words_per_bank:
            raise IndexError(f"Config index {addr32} out of range 0..{self.words_per_bank - 1}")

    # -- fields by name ------------------------------------------------------------------------
    def state_id(self, thread: int) -> int:
        """``ThreadConfig[thread].CFG_STATE_ID_StateID``: the Config bank the thread uses."""
        f = self._state_id
        return (self.thread_config.item(thread, f.addr32) & f.mask) >> f.shamt

    def bank_of(self, thread: int, bank: int | None) -> int:
        return self.state_id(thread) if bank is None else bank

    def get(self, name: str, *, thread: int = 0, bank: int | None = None) -> int:
        """Read a field: ``ThreadConfig[thread]`` for THREAD fields, else ``Config[bank]``
        (default: the bank selected by the thread's ``CFG_STATE_ID_StateID``); cached until a
        write to a word it was read from."""
        key = (name, thread, bank)
        hit = self._fields.get(key)
        if hit is None:
            hit = self._fields[key] = self._read(name, thread, bank)
            self._depend((False, key), hit[1])
        if self._reading:
            self._reading[-1].update(hit[1])
        return hit[0]

    def _read(self, name: str, thread: int, bank: int | None) -> tuple[int, tuple[int, ...]]:
        """The field's value and the ids of the words it was read from."""
        f = self.table.field(name)
        if f.thread:
            return (self.thread_config.item(thread, f.addr32) & f.mask) >> f.shamt, (self._thread_id(thread, f.addr32),)
        b = self.bank_of(thread, bank)
        first = b * self.words_per_bank + f.addr32
        if f.words == 1:
            raw, words = self.config.item(b, f.addr32), (first,)
        else:
            raw = 0
            for i in range(f.words):
                raw |= self.config.item(b, f.addr32 + i) << (32 * i)
            words = tuple(range(first, first + f.words))
        if bank is None:
            words += (self._thread_id(thread, self._state_id.addr32),)
        return (raw & f.mask) >> f.shamt, words

    def set(self, name: str, value: int, *, thread: int = 0, bank: int | None = None) -> None:
        """Write a field (read-modify-write of its word(s)), with the word-write semantics."""
        f = self.table.field(name)
        if not 0 <= value < (1 << f.width):
            raise ValueError(f"{name} is {f.width} bits wide; {value} does not fit")
        if f.thread:
            old = int(self.thread_config[thread, f.addr32])
            self.write_thread_word(thread, f.addr32, (old & ~f.mask) | (value << f.shamt))
            return
        b = self.bank_of(thread, bank)
        old = 0
        for i in range(f.words):
            old |= int(self.config[b, f.addr32 + i]) << (32 * i)
        new = (old & ~f.mask) | (value << f.shamt)
        for i in range(f.words):
            self.write_word(b, f.addr32 + i, (new >> (32 * i)) & 0xFFFFFFFF)

    def fields(self, pattern: str | None = None) -> Iterator[CfgField]:
        yield from (self.table.match(pattern) if pattern else self.table.fields.values())

    # -- the RISC-V view at TENSIX_CFG_BASE ----------------------------------------------------
    def riscv_load(self, offset: int, size: int) -> int:
        """What ``lw``/``lh``/``lb`` (unsigned bits) at ``TENSIX_CFG_BASE + offset`` returns."""
        word = self._riscv_word(offset)
        shift = 8 * (offset & 3 & ~(size - 1))
        return (word >> shift) & ((1 << (8 * size)) - 1)

    def _riscv_word(self, offset: int) -> int:
        index = offset >> 2
        nw = self.words_per_bank
        if index < 2 * nw:
            return int(self.config[index // nw, index % nw])
        if index < 3 * nw:  # ConfigDualWrite reads as Config[0]
            return int(self.config[0, index - 2 * nw])
        index -= 3 * nw
        if index < self.threads * self.table.thd_state_size:  # {uint16_t Value, Padding;}
            return int(self.thread_config[index // self.table.thd_state_size, index % self.table.thd_state_size])
        raise UndefinedBehavior(f"BackendConfiguration.md: offset {offset:#x} is past ThreadConfig")

    def riscv_store(self, offset: int, size: int, value: int) -> None:
        """A RISC-V store at ``TENSIX_CFG_BASE + offset``: ``sw`` to Config or ConfigDualWrite only."""
        index = offset >> 2
        nw = self.words_per_bank
        if index >= 3 * nw:
            raise UndefinedBehavior(
                f"BackendConfiguration.md: RISC-V cannot store to ThreadConfig (offset {offset:#x}); push SETC16"
            )
        if size != 4:
            raise UndefinedBehavior(f"BackendConfiguration.md: RISC-V writes Config with sw only, not a {size}-byte store")
        if index < 2 * nw:
            self.write_word(index // nw, index % nw, value)
        else:  # ConfigDualWrite: both banks at once
            for bank in (0, 1):
                self.write_word(bank, index - 2 * nw, value)
