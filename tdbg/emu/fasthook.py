"""Memory and code hooks registered straight with the Unicorn C library.

The Python binding wraps every hook call in two extra Python frames (an exception guard and an
argument adapter); on the Dst window path that is a third of the cost of an access, and on a
``.ttinsn`` push (a one-address code hook) it is 0.40 us of a 0.55 us hook (measured: a loop
with one hooked address, ``scripts/bench.py`` figure (d), 0.15 us with a raw hook).  A memory hook
added here receives the C arguments ``(handle, access, address, size, value, user_data)``, a code
hook ``(handle, address, size, user_data)``; neither may raise (ctypes would print and drop the
exception): each catches its own errors.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from unicorn import UC_HOOK_CODE, Uc, UcError
from unicorn.unicorn_py3.unicorn import HOOK_CODE_CFUNC, HOOK_MEM_ACCESS_CFUNC, uc_hook_h, uclib

RawMemHook = Callable[[int, int, int, int, int, int], None]
RawCodeHook = Callable[[int, int, int, int], None]


def add_mem_hook(uc: Uc, htype: int, hook: RawMemHook, begin: int, end: int) -> int:
    """Register ``hook`` for ``htype`` accesses in ``[begin, end]``; returns the handle for
    ``uc.hook_del``."""
    return _add(uc, htype, HOOK_MEM_ACCESS_CFUNC(hook), begin, end)


def add_code_hook(uc: Uc, hook: RawCodeHook, begin: int, end: int) -> int:
    """Register ``hook`` for the instructions at ``[begin, end]`` (``UC_HOOK_CODE``); returns the
    handle for ``uc.hook_del``."""
    return _add(uc, UC_HOOK_CODE, HOOK_CODE_CFUNC(hook), begin, end)


def _add(uc: Uc, htype: int, fptr: object, begin: int, end: int) -> int:
    handle = uc_hook_h()
    status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), htype, fptr, None, ctypes.c_uint64(begin), ctypes.c_uint64(end))
    if status:
        raise UcError(status)
    uc._callbacks[handle.value] = fptr  # the binding keeps it alive and drops it in hook_del
    return handle.value
