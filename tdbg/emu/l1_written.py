"""Which of a tile's L1 has been written since the tile was reset, so that a read of L1 nothing
wrote is named (``NeverWritten``, issue 33 item 6), as a read of DRAM nothing wrote is.

Written, by 16-byte granule (L1's alignment): what the loader placed (a firmware's code and
data, its ``.bss`` zeroed by the loader included), what a host or the debugger wrote (``restore``,
``set``, a tt-metal host's mailboxes, runtime arguments and kernels), what a core stored (a store
hook in C over L1, ``tdbg/native/l1track.c``), what a NoC request wrote into it and what a Tensix
unit wrote (packers, the Scalar Unit).  Power-on L1 (tdbg's zeros) is never written.

Checked: the reads a NoC request makes of L1 (the source of a write, a read's source) and a
Tensix unit's reads (an unpacker's tile, a packer's accumulation); a read is reported when no
granule it covers was written, once (the range then counts as written).  A core's own loads are
not checked: firmware polls and copies words nothing wrote as a matter of course (a mailbox field
the host leaves at zero, a struct's padding).  Without the native library (``TDBG_NATIVE=0``, or
no zig) a core's stores cannot be seen, so nothing in L1 is reported.
"""

from __future__ import annotations

import ctypes

import numpy as np
from unicorn import UC_HOOK_MEM_WRITE, Uc, UcError
from unicorn.unicorn_py3.unicorn import uc_hook_h, uclib

from tdbg.emu.host_memory import zeroed

SHIFT = 4   # 16-byte granules


class L1Written:
    """One byte per granule of L1, 1 once anything wrote it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.map = zeroed(size >> SHIFT)
        self.view = np.frombuffer(self.map, dtype=np.uint8)
        self._hook = _store_hook()
        self.tracked = self._hook is not None   # a core's stores are seen

    def mark(self, start: int, end: int) -> None:
        """``start .. end`` was written."""
        if end > start:
            self.view[max(start, 0) >> SHIFT:(min(end, self.size) + (1 << SHIFT) - 1) >> SHIFT] = 1

    def never_written(self, start: int, end: int) -> bool:
        """Nothing wrote any granule of ``start .. end`` (False when stores are not seen)."""
        if not self.tracked or start >= self.size or end <= start:
            return False
        return not self.map[start >> SHIFT:(min(end, self.size) + (1 << SHIFT) - 1) >> SHIFT].strip(b"\0")

    def track_stores(self, uc: Uc) -> None:
        """Mark the L1 each store of ``uc``'s core writes."""
        if self._hook is None:
            return
        handle = uc_hook_h()
        status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), UC_HOOK_MEM_WRITE, self._hook,
                                   ctypes.c_void_p(ctypes.addressof(self.map)), ctypes.c_uint64(0),
                                   ctypes.c_uint64(self.size - 1))
        if status:
            raise UcError(status)

    def saved(self) -> bytes:
        return self.map.raw

    def put(self, data: bytes) -> None:
        """The map holds ``data`` from its start and zeros after it."""
        ctypes.memmove(self.map, data, len(data))
        ctypes.memset(ctypes.addressof(self.map) + len(data), 0, len(self.map) - len(data))

    def reset(self) -> None:
        ctypes.memset(self.map, 0, len(self.map))


def _store_hook() -> ctypes.c_void_p | None:
    """The C store hook's address, or None without the native library."""
    from tdbg import native

    lib = native.library()
    return None if lib is None else ctypes.cast(lib.tdbg_l1_store, ctypes.c_void_p)
