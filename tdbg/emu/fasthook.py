"""Memory and code hooks registered straight with the Unicorn C library, and registers read
from it in one call.

The Python binding wraps every hook call in two extra Python frames (an exception guard and an
argument adapter); on the Dst window path that is a third of the cost of an access, and on a
``.ttinsn`` push (a one-address code hook) it is 0.40 us of a 0.55 us hook (measured: a loop
with one hooked address, ``scripts/bench.py`` figure (d), 0.15 us with a raw hook).  A memory hook
added here receives the C arguments ``(handle, access, address, size, value, user_data)``, a code
hook ``(handle, address, size, user_data)``; neither may raise (ctypes would print and drop the
exception): each catches its own errors.  ``RegisterFile`` reads consecutive registers with one
``uc_reg_read_batch`` (and writes them with one ``uc_reg_write_batch``) (measured: 3 us for the 32 RISC-V ``x`` registers, against 30 us through
the binding's ``reg_read``, one call each; ``tdbg.emu.idle`` reads them at every turn of a loop
it watches); ``Register`` reads one (measured: the PC in 0.67 us against the binding's 1.05 us; a
stepi reads it six times).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

from unicorn import UC_CTL_IO_WRITE, UC_CTL_TB_REMOVE_CACHE, UC_HOOK_CODE, UC_HOOK_INTR, Uc, UcError
from unicorn.unicorn_py3.unicorn import (HOOK_CODE_CFUNC, HOOK_INTR_CFUNC, HOOK_MEM_ACCESS_CFUNC, HOOK_MEM_INVALID_CFUNC,
                                         uc_hook_h, uclib)

RawMemHook = Callable[[int, int, int, int, int, int], None]
RawCodeHook = Callable[[int, int, int, int], None]


def add_mem_hook(uc: Uc, htype: int, hook: RawMemHook, begin: int, end: int) -> int:
    """Register ``hook`` for ``htype`` accesses in ``[begin, end]``; returns the handle for
    ``uc.hook_del``."""
    return _add(uc, htype, HOOK_MEM_ACCESS_CFUNC(hook), begin, end)


def add_mem_hook_fptr(uc: Uc, htype: int, fptr: object, begin: int, end: int) -> int:
    """``add_mem_hook`` of a hook's C pointer already made (``HOOK_MEM_ACCESS_CFUNC``)."""
    return _add(uc, htype, fptr, begin, end)


def add_code_hook(uc: Uc, hook: RawCodeHook, begin: int, end: int) -> int:
    """Register ``hook`` for the instructions at ``[begin, end]`` (``UC_HOOK_CODE``); returns the
    handle for ``uc.hook_del``."""
    return _add(uc, UC_HOOK_CODE, HOOK_CODE_CFUNC(hook), begin, end)


def add_unmapped_hook(uc: Uc, htype: int, hook: Callable[[int, int, int, int, int, int], bool]) -> int:
    """Register ``hook`` for ``htype`` (unmapped or protected accesses) at every address; it
    returns whether the access may go on.  (The binding's ``hook_add`` makes some twenty
    functions a call: a core's build spent a tenth of its time collecting them.)"""
    return _add(uc, htype, HOOK_MEM_INVALID_CFUNC(hook), 1, 0)


def add_interrupt_hook(uc: Uc, hook: Callable[[int, int, int], None]) -> int:
    """Register ``hook(handle, intno, user_data)`` for ``UC_HOOK_INTR``."""
    return _add(uc, UC_HOOK_INTR, HOOK_INTR_CFUNC(hook), 1, 0)


def code_hook_fptr(hook: RawCodeHook) -> object:
    """``hook`` as a C code-hook pointer that several ``add_code_hook_fptr`` calls can share."""
    return HOOK_CODE_CFUNC(hook)


def add_code_hook_fptr(uc: Uc, fptr: object, begin: int, end: int) -> int:
    """``add_code_hook`` of a pointer made once by ``code_hook_fptr``."""
    return _add(uc, UC_HOOK_CODE, fptr, begin, end)


def _add(uc: Uc, htype: int, fptr: object, begin: int, end: int) -> int:
    handle = uc_hook_h()
    status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), htype, fptr, None, ctypes.c_uint64(begin), ctypes.c_uint64(end))
    if status:
        raise UcError(status)
    uc._callbacks[handle.value] = fptr  # the binding keeps it alive and drops it in hook_del
    return handle.value


#: ``uc_ctl``'s code for dropping the translations of a range (two arguments, written).
_REMOVE_CACHE = (UC_CTL_IO_WRITE << 30) | (2 << 26) | UC_CTL_TB_REMOVE_CACHE


def remove_cache(uc: Uc, begin: int, end: int) -> None:
    """``uc.ctl_remove_cache(begin, end)`` in one C call (measured: 0.75 us against the
    binding's 1.85 us; a core does it at every stop)."""
    status = uclib.uc_ctl(uc._uch, _REMOVE_CACHE, ctypes.c_uint64(begin), ctypes.c_uint64(end))
    if status:
        raise UcError(status)


class RegisterFile:
    """``count`` consecutive 32-bit registers of ``uc`` from Unicorn register id ``first``."""

    def __init__(self, uc: Uc, first: int, count: int) -> None:
        self._uch, self._count = uc._uch, count
        self._ids = (ctypes.c_int * count)(*range(first, first + count))
        self._values = (ctypes.c_uint32 * count)()
        base = ctypes.addressof(self._values)
        self._slots = (ctypes.c_void_p * count)(*(base + 4 * i for i in range(count)))

    def read(self) -> list[int]:
        status = uclib.uc_reg_read_batch(self._uch, self._ids, self._slots, self._count)
        if status:
            raise UcError(status)
        return list(self._values)

    def write(self, values: Sequence[int]) -> None:
        """Set the registers to ``values`` (each taken modulo 2**32), in one call."""
        self._values[:] = [v & 0xFFFFFFFF for v in values]
        status = uclib.uc_reg_write_batch(self._uch, self._ids, self._slots, self._count)
        if status:
            raise UcError(status)


class Register:
    """One 32-bit register of ``uc`` (Unicorn register id ``reg``)."""

    def __init__(self, uc: Uc, reg: int) -> None:
        self._uch, self._reg = uc._uch, reg
        self._value = ctypes.c_uint32()
        self._ref = ctypes.byref(self._value)

    def read(self) -> int:
        status = uclib.uc_reg_read(self._uch, self._reg, self._ref)
        if status:
            raise UcError(status)
        return self._value.value
