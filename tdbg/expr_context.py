"""The bridge between the expression evaluator (``tdbg.expr``) and a ``Session``: registers,
memory as the current core sees it, symbols with their DWARF types, ``Dst``/``Src``/config,
the value history and convenience variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tdbg import debuginfo
from tdbg.expr import VOID, CType, ExprError, SymbolInfo, Value, function_type
from tdbg.riscv import ABI_NAMES

from tdbg.session import SessionError

if TYPE_CHECKING:
    from tdbg.session import Session


class SessionContext:
    """``tdbg.expr.EvalContext`` over a session's current core and innermost frame."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self._history: list[Value] = []
        self._convenience: dict[str, Value] = {}

    # registers
    def register(self, name: str) -> int:
        return self.s.register(name)

    def set_register(self, name: str, value: int) -> None:
        self.s.set_register(name, value)

    # symbols
    def symbol(self, name: str) -> SymbolInfo:
        s = self.s
        info = s.debug
        if info is not None:
            frame = s.frames()[0]
            for v in info.locals_at(frame):
                if v.name == name:
                    return self._variable(v)
            try:
                return self._variable(info.global_variable(name))
            except KeyError:
                pass
        sym = s.image.symbols.get(name)
        if sym is None:
            raise KeyError(name)
        if sym.kind == "func":
            try:
                fn = info.function(name) if info is not None else None
            except KeyError:  # code without debug information (crt0, compiler-rt)
                fn = None
            ret = info.return_type(fn) if fn is not None and info is not None else None
            return SymbolInfo(sym.addr, True, function_type(ret or VOID, None) if fn else None)
        return SymbolInfo(sym.addr)

    def _variable(self, v: debuginfo.Variable) -> SymbolInfo:
        if v.register is not None:
            return SymbolInfo(0, ctype=v.type, register=ABI_NAMES[v.register])
        if v.addr is None:
            raise KeyError(v.name)
        return SymbolInfo(v.addr, ctype=v.type)

    def symbolize(self, address: int) -> str | None:
        text = self.s.symbolize(address)
        return text[1:-1] if text else None

    def lookup_type(self, name: str) -> CType | None:
        info = self.s.debug
        return info.lookup_type(name) if info is not None else None

    # memory (a device access that is undefined says which rule it breaks)
    def read_memory(self, address: int, size: int) -> bytes:
        try:
            if size in (1, 2, 4) and self.s.core.region_at(address) is not None:
                return self.s.read_value(address, size).to_bytes(size, "little")
            return self.s.read_memory(address, size)
        except SessionError as exc:
            raise ExprError(str(exc)) from None

    def write_memory(self, address: int, data: bytes) -> None:
        try:
            if len(data) in (1, 2, 4) and self.s.core.region_at(address) is not None:
                self.s.write_value(address, len(data), int.from_bytes(data, "little"))
            else:
                self.s.write_memory(address, data)
        except SessionError as exc:
            raise ExprError(str(exc)) from None

    # Tensix
    def _check(self, row: int, col: int, rows: int = 1024) -> None:
        if not (0 <= row < rows and 0 <= col < 16):
            raise IndexError(f"index out of range (rows 0..{rows - 1}, columns 0..15)")

    def dst16(self, row: int, col: int) -> int:
        self._check(row, col)
        return int(self.s.tile.tensix.dst.read16(row)[col])

    def set_dst16(self, row: int, col: int, value: int) -> None:
        self._check(row, col)
        dst = self.s.tile.tensix.dst
        values = dst.read16(row).copy()
        values[col] = value & 0xFFFF
        dst.write16(row, values)

    def dst32(self, row: int, col: int) -> int:
        self._check(row, col)
        return int(self.s.tile.tensix.dst.read32(row)[col])

    def set_dst32(self, row: int, col: int, value: int) -> None:
        self._check(row, col)
        dst = self.s.tile.tensix.dst
        values = dst.read32(row).copy()
        values[col] = value & 0xFFFFFFFF
        dst.write32(row, values)

    def src(self, which: str, bank: int, row: int, col: int) -> int:
        if bank not in (0, 1):
            raise IndexError("bank must be 0 or 1")
        self._check(row, col, 64)
        return int(self.s.src(which, bank, row)[col])

    def set_src(self, which: str, bank: int, row: int, col: int, value: int) -> None:
        if bank not in (0, 1):
            raise IndexError("bank must be 0 or 1")
        self._check(row, col, 64)
        reg = self.s.tile.tensix.srca if which == "srca" else self.s.tile.tensix.srcb
        values = reg.read(bank, row).copy()
        values[col] = value
        reg.write(bank, row, values)

    def cfg(self, name: str) -> int:
        try:
            return self.s.tile.tensix.config.get(name, thread=self.s.core.thread)
        except KeyError:
            raise KeyError(f'No config field "{name}".') from None

    def set_cfg(self, name: str, value: int) -> None:
        try:
            self.s.tile.tensix.config.set(name, value, thread=self.s.core.thread)
        except KeyError:
            raise KeyError(f'No config field "{name}".') from None

    # history and convenience variables
    def history(self) -> Sequence[Value]:
        return self._history

    def record(self, value: Value) -> int:
        """Add ``value`` to the history; returns its number ``$N``."""
        self._history.append(value)
        return len(self._history)

    def convenience(self, name: str) -> Value | None:
        return self._convenience.get(name)

    def set_convenience(self, name: str, value: Value) -> None:
        self._convenience[name] = value
