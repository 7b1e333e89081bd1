"""Memory hooks registered straight with the Unicorn C library.

The Python binding wraps every hook call in two extra Python frames (an exception guard and an
argument adapter); on the Dst window path that is a third of the cost of an access.  A hook
added here is called with the C arguments ``(access, address, size, value)`` and must not
raise: ``guard`` turns an unexpected exception into a recorded error and a stop.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from unicorn import Uc, UcError
from unicorn.unicorn_py3.unicorn import HOOK_MEM_ACCESS_CFUNC, uc_hook_h, uclib

MemHook = Callable[[int, int, int, int], None]  # (access, address, size, value)


def add_mem_hook(uc: Uc, htype: int, hook: MemHook, begin: int, end: int, on_error: Callable[[BaseException], None]) -> int:
    """Register ``hook`` for ``htype`` accesses in ``[begin, end]``; returns the handle for
    ``uc.hook_del``."""

    def call(handle: int, access: int, address: int, size: int, value: int, key: int) -> None:
        try:
            hook(access, address, size, value)
        except BaseException as exc:  # a bug in tdbg: report it as a stop, never lose it
            on_error(exc)

    fptr = HOOK_MEM_ACCESS_CFUNC(call)
    handle = uc_hook_h()
    status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), htype, fptr, None, ctypes.c_uint64(begin), ctypes.c_uint64(end))
    if status:
        raise UcError(status)
    uc._callbacks[handle.value] = fptr  # the binding keeps it alive and drops it in hook_del
    return handle.value
