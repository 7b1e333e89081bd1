"""The native push path's control and sync words (``tdbg/native/ctrl.c``): which words it runs,
the model state it reads and writes in place (``addresses``, ``refresh``) and what a config
write it makes tells Python (``_written``).

Measured (tt-llk's datacopy, ``scripts/bench.py`` figure (g)): these words were 100 of its 120
Python pushes, 40 us each with what they trigger (the hook, the log, the coprocessor's dispatch,
the config's invalidation); in C a config write costs the ``_written`` callback (a few us), the
others a fraction of a microsecond.

What the C side declines (the Python path runs it, raising its event or latching its wait): an
index past the config (``UndefinedBehavior``), a ``WRCFG`` of ``STATE_RESET_EN`` (the bank
reset), ``SETDMAREG``'s special mode, and a ``STALLWAIT`` / ``SEMWAIT`` whose conditions are not
all met (``Coprocessor._latch`` keeps no met latch: WaitGate.md).  A config write from C tells
``TensixConfig.words_written`` the words it wrote, which forgets what was read from them and calls
the config's listeners, as a Python write does (``NativePush.config_changed`` among them: the C
side's config-derived values).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from tdbg import native
from tdbg.native import address
from tdbg.tensix import sync

if TYPE_CHECKING:
    from tdbg.emu.native_push import Cop
    from tdbg.emu.tile import Tile

K_SETC16, K_WRCFG, K_RMWCIB, K_SETDMAREG, K_STALLWAIT, K_SEMWAIT = 17, 18, 19, 20, 21, 22
K_SETADCXY, K_SETADCZW, K_SETADCXX, K_SEMINIT, K_SEMPOST, K_SEMGET, K_SETADC = 23, 24, 25, 26, 27, 28, 29
_ADC2 = ("0", "1")
#: What each kind's C function reads, in its order (ctrl.c); RMWCIB's fourth is the byte it writes.
FIELDS = {
    K_SETC16: ("NewValue", "CfgIndex"),
    K_WRCFG: ("CfgIndex", "Is128Bit", "InputReg"),
    K_RMWCIB: ("Index4", "NewValue", "Mask"),
    K_SETDMAREG: ("RegIndex16b", "SetSignalsMode", "Payload_SigSel", "Payload_SigSelSize"),
    K_STALLWAIT: ("ConditionMask", "BlockMask"),
    K_SEMWAIT: ("ConditionMask", "SemaphoreMask", "BlockMask"),
    K_SETADCXY: ("X0", "Y0", "X1", "Y1", "X0Val", "Y0Val", "X1Val", "Y1Val", "U0", "U1", "PK"),
    K_SETADCZW: ("Z0", "W0", "Z1", "W1", "Z0Val", "W0Val", "Z1Val", "W1Val", "U0", "U1", "PK"),
    K_SETADCXX: ("X0Val", "X1Val", "U0", "U1", "PK"),
    K_SEMINIT: ("SemaphoreMask", "NewValue", "NewMax"),
    K_SEMPOST: ("SemaphoreMask",),
    K_SEMGET: ("SemaphoreMask",),
    K_SETADC: ("NewValue", "XYZW", "Channel", "U0", "U1", "PK"),
}
_KINDS = {"SETC16": K_SETC16, "WRCFG": K_WRCFG, "SETDMAREG": K_SETDMAREG, "STALLWAIT": K_STALLWAIT,
          "SEMWAIT": K_SEMWAIT, "SETADCXY": K_SETADCXY, "SETADCZW": K_SETADCZW, "SETADCXX": K_SETADCXX,
          "SEMINIT": K_SEMINIT, "SEMPOST": K_SEMPOST, "SEMGET": K_SEMGET, "SETADC": K_SETADC,
          **{f"RMWCIB{i}": K_RMWCIB for i in range(4)}}

_P, _I32 = ctypes.c_void_p, ctypes.c_int32
WRITTEN = ctypes.CFUNCTYPE(None, _P)


def kind(mnemonic: str | None, f: dict[str, int]) -> int | None:
    """The entry kind of a control or sync word (None: not one ctrl.c runs)."""
    k = _KINDS.get(mnemonic or "")
    if k is None or k == K_SETDMAREG and f["SetSignalsMode"]:
        return None
    return k


def values(k: int, mnemonic: str, f: dict[str, int]) -> list[int]:
    """The entry's fields for kind ``k`` (``FIELDS``; RMWCIB<i> adds i; SETADC's 18-bit NewValue
    is two, its low 16 bits and its ThreadOverride)."""
    out = [f[name] for name in FIELDS[k]]
    if k == K_SETADC:
        return [out[0] & 0xFFFF, out[0] >> 16, *out[1:]]
    return out + [int(mnemonic[-1])] if k == K_RMWCIB else out


class Ctrl(ctypes.Structure):
    """``struct ctrl`` of ctrl.c."""

    _fields_ = [("config", _P), ("thread_config", _P), ("gprs", _P), ("adc", _P), ("adc_cr", _P), ("sems", _P),
                *((n, _I32) for n in ("words", "thd", "global_base", "reset_addr", "state_addr", "state_shamt",
                                      "state_mask", "nsem", "default_conditions", "threads", "src_unmet", "nwritten")),
                ("written_ids", _I32 * 8), ("written", _P)]


class NativeCtrl:
    """A tile's ``Ctrl`` (module docstring)."""

    def __init__(self, tile: Tile, lib: ctypes.CDLL, c: Cop) -> None:
        if lib.tdbg_ctrl_size() != ctypes.sizeof(Ctrl):
            raise native.NativeError(f"tdbg/native/ctrl.c's struct ctrl is not {ctypes.sizeof(Ctrl)} bytes: "
                                     "the two sides disagree")
        self.tile, self.c = tile, c
        cop = tile.coprocessor
        self.config = config = cop.state.config
        self.s = s = Ctrl()
        state_id = config.table.field("CFG_STATE_ID_StateID")
        s.words, s.thd, s.global_base = config.words_per_bank, config.table.thd_state_size, config.table.global_base
        s.reset_addr = config.table.field(config.STATE_RESET_EN).addr32
        s.state_addr, s.state_shamt, s.state_mask = state_id.addr32, state_id.shamt, state_id.mask
        s.nsem, s.default_conditions = len(cop.semaphore_bits), cop.state.profile.sync.default_conditions
        s.threads = cop.threads
        self._written_fptr = WRITTEN(self._written)
        s.written = ctypes.cast(self._written_fptr, _P).value
        self._owners: tuple = ()
        self._held: tuple = ()

    def addresses(self) -> None:
        """The arrays the C side works on (a run starts; ``refresh`` when their owners change)."""
        s, cop = self.s, self.tile.coprocessor
        state = cop.state
        self._owners = (state.adcs,)
        self._held = (self.config.config, self.config.thread_config, state.gprs, cop.semaphore_bits)
        s.config, s.thread_config, s.gprs, s.sems = (address(a) for a in self._held)
        s.adc, s.adc_cr = state.adcs._value.buffer_info()[0], state.adcs._cr.buffer_info()[0]

    def refresh(self) -> None:
        """Describe what Python pushes change (``NativePush.refresh``): the STALLWAIT conditions on
        the Src banks that are unmet now (only Python's instructions move a bank's AllowedClient)."""
        state = self.tile.coprocessor.state
        if self._owners != (state.adcs,):
            self.addresses()
        self.s.src_unmet = sync.unmet_src_conditions(state)

    def _written(self, _: int) -> None:
        """C wrote config words: Python forgets what was read from them; the rest of what the C
        side was told stays true (``valid`` kept: ``NativePush.config_changed`` clears it for the
        writes C does not see)."""
        s, c = self.s, self.c
        valid = c.valid
        try:
            self.config.words_written(s.written_ids[:s.nwritten])
        except BaseException:   # noqa: BLE001 - a C callback must not raise: forget every cached read instead
            self.config.notify()
        c.valid = valid
