"""The bridge between the expression evaluator (``tdbg.expr``) and the engine: registers,
memory as the current core sees it, symbols with their DWARF types, ``Dst``/``Src``/config,
the value history and convenience variables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from tdbg.expr import FLOAT, INT, UINT16, UINT32, CType, ExprError, SymbolInfo, Value, array_of
from tdbg.symbols.cxxnames import demangle, remove_params, scoped_names
from tdbg.expr.values import PrintSettings
from tdbg.debug.frames import Backtrace, FrameView
from tdbg.debug.memory import Memory
from tdbg.debug.programs import Programs
from tdbg.debug.target import Target
from tdbg.debug.tensix_access import TensixAccess
from tdbg.errors import SessionError
from tdbg.riscv.registers import ABI_NAMES, NUMBERS as REGISTERS
from tdbg.tensix import formats
from tdbg.tensix.sfpu.vector_unit import FULL

if TYPE_CHECKING:
    from tdbg.symbols import debuginfo


_RAW_STORAGE = {"dstbits": "dst16", "dst32bits": "dst32", "srcabits": "src", "srcbbits": "src"}


class SessionContext:
    """``tdbg.expr.EvalContext`` over the target's current core and its selected frame
    (``frames``: GDB's frame selection and hidden inline frames)."""

    def __init__(self, target: Target, programs: Programs, memory: Memory, tensix: TensixAccess,
                 backtrace: Backtrace) -> None:
        self.t, self.programs, self.memory, self.coprocessor = target, programs, memory, tensix
        self.frames = FrameView(target, programs, backtrace)
        self._history: list[Value] = []
        self._convenience: dict[str, Value] = {}

    # registers, as the selected frame has them (a caller's are those its callee saved)
    def register(self, name: str) -> int:
        try:
            value = self.t.register(name)
        except SessionError:
            raise KeyError(name) from None  # not a register: a convenience variable
        frame = self.frames.selected()
        if frame.level == 0 or self.programs.debug is None:
            return value
        if name == "pc":
            return frame.pc
        return frame.regs.get(REGISTERS[name], value)

    def set_register(self, name: str, value: int) -> None:
        self.t.set_register(name, value)

    # symbols
    def symbol(self, name: str) -> SymbolInfo:
        info = self.programs.debug
        if info is not None:
            frame = self.frames.selected()
            if frame.level:   # a frame in other code (the firmware under a kernel): its own DWARF
                info = self.programs.debug_info_at(self.t.current, frame.lookup_pc) or info
            for v in info.locals_at(frame, self.frames.caller(frame)):
                if v.name == name:
                    return self._variable(v)
            for scoped in scoped_names(frame.function, name):   # C++: the frame's namespaces first
                try:
                    return self._variable(info.global_variable(scoped))
                except KeyError:
                    pass
                fn = info.function_named(scoped)
                if fn is not None:
                    return SymbolInfo(fn.low, True, info.function_type(fn))
        image = self.programs.image
        sym = image.symbols.get(name) or next(
            (sym for sym in image.symbols.values() if remove_params(demangle(sym.name) or "") == name), None)
        if sym is None:
            raise KeyError(name)
        if sym.kind == "func":
            try:
                fn = info.function(name) if info is not None else None
            except KeyError:  # code without debug information (crt0, compiler-rt)
                fn = None
            return SymbolInfo(sym.addr, True, info.function_type(fn) if fn is not None and info is not None else None)
        return SymbolInfo(sym.addr)

    def _variable(self, v: debuginfo.Variable) -> SymbolInfo:
        if v.register is not None:
            return SymbolInfo(0, ctype=v.type, register=ABI_NAMES[v.register])
        if v.value is not None:
            return SymbolInfo(0, ctype=v.type, value=v.value)
        if v.pieces:
            data, missing = self.assemble(v, self.frames.selected())
            return SymbolInfo(0, ctype=v.type, value=data, unavailable=missing)
        if v.addr is None:   # optimized out: GDB's value is <optimized out>, not an unknown name
            return SymbolInfo(0, ctype=v.type, value=b"", unavailable=((0, v.type.size),))
        return SymbolInfo(v.addr, ctype=v.type)

    def variable_value(self, v: debuginfo.Variable, frame: debuginfo.Frame) -> Value:
        """The value of a variable the debug information computes, or holds in a register or
        in pieces, in ``frame`` (not an lvalue); an optimized-out one is all unavailable."""
        from tdbg.expr.evaluator import computed

        if v.register is not None:
            return computed(v.type, frame.regs.get(v.register, self.t.register(f"x{v.register}")))
        if v.value is not None:
            return computed(v.type, v.value)
        if v.pieces:
            return computed(v.type, *self.assemble(v, frame))
        return computed(v.type, b"", ((0, v.type.size),))

    def assemble(self, v: debuginfo.Variable, frame: debuginfo.Frame) -> tuple[bytes, tuple[tuple[int, int], ...]]:
        """The bytes of a variable with a composite location (DWARF 5 section 2.6.1.2: its pieces
        laid end to end from the object's first bit, each ``bits`` long, from bit ``offset`` of
        its source) and the byte ranges that an empty piece leaves out."""
        bits = known = at = 0
        for piece in v.pieces:
            source = self._piece_source(piece, frame)
            mask = (1 << piece.bits) - 1
            if source is not None:
                bits |= ((source >> piece.offset) & mask) << at
                known |= mask << at
            at += piece.bits
        size = v.type.size
        missing: list[tuple[int, int]] = []
        for byte in range(size):
            if (known >> (8 * byte)) & 0xFF != 0xFF:
                if missing and missing[-1][1] == byte:
                    missing[-1] = (missing[-1][0], byte + 1)
                else:
                    missing.append((byte, byte + 1))
        return (bits & ((1 << 8 * size) - 1)).to_bytes(size, "little"), tuple(missing)

    def _piece_source(self, piece: debuginfo.Piece, frame: debuginfo.Frame) -> int | None:
        """The bits a piece is taken from, as an integer (None: an empty piece)."""
        if piece.register is not None:
            return frame.regs.get(piece.register, self.t.register(f"x{piece.register}"))
        if isinstance(piece.value, bytes):
            return int.from_bytes(piece.value, "little")
        if piece.value is not None:
            return piece.value
        if piece.addr is not None:
            return int.from_bytes(self.read_memory(piece.addr, (piece.offset + piece.bits + 7) // 8), "little")
        return None

    @property
    def print_settings(self) -> PrintSettings:
        return self.programs.print_settings

    def symbolize(self, address: int) -> str | None:
        text = self.programs.symbolize(address, self.programs.print_settings.demangle)
        return text[1:-1] if text else None

    def lookup_type(self, name: str) -> CType | None:
        info = self.programs.debug
        return info.lookup_type(name) if info is not None else None

    # memory (a device access that is undefined says which rule it breaks)
    def read_memory(self, address: int, size: int) -> bytes:
        try:
            if size in (1, 2, 4):   # as the core's load of that size (a device's element)
                return self.memory.read_value(address, size).to_bytes(size, "little")
            return self.memory.read_memory(address, size)
        except SessionError as exc:
            raise ExprError(str(exc)) from None

    def write_memory(self, address: int, data: bytes) -> None:
        try:
            self.memory.write_memory(address, data)   # a device's elements as the core's stores
        except SessionError as exc:
            raise ExprError(str(exc)) from None

    # Tensix: data in its format in force (tdbg.tensix.view_in_force), or raw bits
    def _view(self, array: str) -> formats.View:
        if array in ("dst", "dst32"):
            return self.coprocessor.view_in_force("dst16" if array == "dst" else "dst32")
        if array in ("srca", "srcb"):
            return self.coprocessor.view_in_force(array)
        return formats.get_view(_RAW_STORAGE[array], "raw")

    def tensix_type(self, array: str) -> CType:
        if array.startswith("lreg"):
            return FLOAT if array == "lreg" else UINT32
        view = self._view(array)
        if view.name == "raw":
            return UINT16 if view.storage == "dst16" else UINT32
        return INT if view.name.startswith("int") else FLOAT

    def _element(self, array: str, indices: tuple[int, ...]) -> tuple[np.ndarray, int, bool]:
        """(the row's bits, the column, whether the element is defined) of an element."""
        *where, row, col = indices
        src = array.startswith("src")
        tensix = self.t.tile.profile.tensix
        rows = tensix.storage_rows("src" if src else "dst32" if array.startswith("dst32") else "dst16")
        cols = tensix.src_cols if src else tensix.dst_cols
        if src and not 0 <= where[0] < tensix.src_banks:
            raise IndexError(f"bank must be 0..{tensix.src_banks - 1}")
        if not (0 <= row < rows and 0 <= col < cols):
            raise IndexError(f"index out of range (rows 0..{rows - 1}, columns 0..{cols - 1})")
        if src:
            return self.coprocessor.src(array[:4], where[0], row), col, True
        dst = self.coprocessor.dst_contents()
        if array == "dstbits":
            return dst.bits[row], col, True
        storage = "dst32" if array.startswith("dst32") else "dst16"
        one = np.array([row])
        return dst.lanes(storage, one)[0], col, bool(dst.defined(storage, one)[0, 0])

    def tensix(self, array: str, indices: tuple[int, ...]) -> int | float:
        if array.startswith("lreg"):
            bits = self._lreg_lane(*indices)
            return float(np.uint32(bits).view(np.float32)) if array == "lreg" else bits
        bits, col, defined = self._element(array, indices)
        view = self._view(array)
        if view.name != "raw" and not defined:
            storage = "Dst32b" if array == "dst32" else "Dst16b"
            raise ValueError(f"{storage}[{indices[0]}][{indices[1]}] is undefined (ZEROACC, or never written).")
        value = view.decode(bits[col])
        return float(value) if view.name != "raw" and value.dtype.kind == "f" else int(value)

    def set_tensix(self, array: str, indices: tuple[int, ...], value: int | float) -> None:
        """Store one element through the session (``Session.write_dst_element`` and its
        siblings), which keeps ``Dst``'s validity: a store into an undefined row is refused."""
        if array.startswith("lreg"):
            reg, lane = indices
            self._lreg_lane(reg, lane, check_defined=False)
            bits = int(np.float32(value).view(np.uint32)) if array == "lreg" else int(value) & 0xFFFFFFFF
            self._write(lambda: self.coprocessor.write_lreg_lane(reg, lane, bits))
            return
        _, col, _ = self._element(array, indices)
        view = self._view(array)
        try:
            bits = int(view.encode(value & ((1 << view.width) - 1) if view.name == "raw" else value))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{value} does not fit {array} ({view.description}): {exc}.") from None
        *where, row, _ = indices
        if array.startswith("src"):
            self._write(lambda: self.coprocessor.write_src_element(array[:4], where[0], row, col, bits))
        else:
            storage = "bits" if array == "dstbits" else "dst32" if array.startswith("dst32") else "dst16"
            self._write(lambda: self.coprocessor.write_dst_element(storage, row, col, bits))

    @staticmethod
    def _write(store: Callable[[], None]) -> None:
        try:
            store()
        except SessionError as exc:
            raise ValueError(str(exc)) from None

    def cfg(self, name: str) -> int:
        try:
            return self.coprocessor.cfg(name)
        except SessionError:
            raise KeyError(f'No config field "{name}".') from None

    def set_cfg(self, name: str, value: int) -> None:
        self.cfg(name)   # an unknown field is a KeyError, a value too wide a ValueError
        self._write(lambda: self.coprocessor.set_cfg(name, value))

    # history and convenience variables
    def history(self) -> Sequence[Value]:
        return self._history

    def record(self, value: Value) -> int:
        """Add ``value`` to the history; returns its number ``$N``."""
        self._history.append(value)
        return len(self._history)

    # the Vector Unit's LRegs: lreg[N][LANE] (FP32), lregbits[N][LANE] (the bits), $lregN
    def _lreg_lane(self, reg: int, lane: int, check_defined: bool = True) -> int:
        vu = self.coprocessor.vector_unit()
        if not (0 <= reg < len(vu.lreg) and 0 <= lane < len(vu.lreg[0])):
            raise IndexError(f"index out of range (LRegs 0..{len(vu.lreg) - 1}, lanes 0..{len(vu.lreg[0]) - 1})")
        if check_defined and vu.defined[reg, lane] != FULL:
            raise ValueError(f"LReg[{reg}] lane {lane} is undefined (never written).")
        return int(vu.lreg[reg, lane])

    def convenience(self, name: str) -> Value | None:
        if name.startswith("lreg") and name[4:].isdigit():
            return self._lreg(int(name[4:]))
        return self._convenience.get(name)

    def _lreg(self, reg: int) -> Value:
        """``$lregN``: ``LReg[N]`` as ``float[32]`` (lane order), a value, not an lvalue
        (``lreg[N][LANE]`` is the assignable element); refused while a lane is undefined."""
        vu = self.coprocessor.vector_unit()
        if not 0 <= reg < len(vu.lreg):
            raise ExprError(f"$lreg{reg}: the LRegs are $lreg0 .. $lreg{len(vu.lreg) - 1}")
        if (vu.defined[reg] != FULL).any():
            lanes = np.flatnonzero(vu.defined[reg] != FULL).tolist()
            raise ExprError(f"LReg[{reg}] lane{'s' if len(lanes) > 1 else ''} {', '.join(map(str, lanes[:8]))}"
                            f"{' ...' if len(lanes) > 8 else ''} never written (undefined); see x/32wx lreg[{reg}]")
        return Value(array_of(FLOAT, len(vu.lreg[reg])), vu.lreg[reg].astype("<u4").tobytes())

    def set_convenience(self, name: str, value: Value) -> None:
        if name.startswith("lreg") and name[4:].isdigit():
            raise ExprError(f"${name} is read-only (an LReg changes only by Vector Unit instructions: tensix SFPLOADI ...)")
        self._convenience[name] = value
