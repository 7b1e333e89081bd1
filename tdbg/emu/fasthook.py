"""Memory hooks registered straight with the Unicorn C library.

The Python binding wraps every hook call in two extra Python frames (an exception guard and an
argument adapter); on the Dst window path that is a third of the cost of an access.  A hook
added here receives the C arguments ``(handle, access, address, size, value, user_data)`` and
must not raise (ctypes would print and drop the exception): it catches its own errors.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from unicorn import Uc, UcError
from unicorn.unicorn_py3.unicorn import HOOK_MEM_ACCESS_CFUNC, uc_hook_h, uclib

RawMemHook = Callable[[int, int, int, int, int, int], None]


def add_mem_hook(uc: Uc, htype: int, hook: RawMemHook, begin: int, end: int) -> int:
    """Register ``hook`` for ``htype`` accesses in ``[begin, end]``; returns the handle for
    ``uc.hook_del``."""
    fptr = HOOK_MEM_ACCESS_CFUNC(hook)
    handle = uc_hook_h()
    status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), htype, fptr, None, ctypes.c_uint64(begin), ctypes.c_uint64(end))
    if status:
        raise UcError(status)
    uc._callbacks[handle.value] = fptr  # the binding keeps it alive and drops it in hook_del
    return handle.value
