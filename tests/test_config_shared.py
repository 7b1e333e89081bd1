"""Values derived from config that ``TensixConfig.derived`` shares between configs of a table
(``shared=True``: a session after another reads no field again) are each config's own: a config
gets what ``get`` reads in it (the reference), one whose words agree with another's the same, and
a write changes it.  ``rwc.entry_in_force`` and ``packers.addr_mod_pack``: tests/test_insn_rwc.py,
tests/test_unpack_pack_cache.py."""

from __future__ import annotations

from tdbg.tensix import config
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.matrix_unit import math_config
from tdbg.tensix.sfpu import loadstore
from tdbg.tensix.state import TensixState

#: (ALU_ACC_CTRL_Fp32_enabled, DEST_TARGET_REG_CFG_MATH_Offset, DEST_SP_BASE_Base, SFPU_DEST_FMT_Base)
CASES = [(0, 16, 0, 5), (1, 16, 0, 5), (0, 16, 0, 5), (0, 32, 3, 1), (1, 32, 3, 1), (0, 16, 0, 5)]


def test_math_config_and_the_sfpu_bases_are_each_configs_own() -> None:
    config._SHARED.clear()
    for fp32, offset, sp, fmt in CASES:
        cop = Coprocessor(TensixState())
        cfg = cop.state.config
        for name, v in (("ALU_ACC_CTRL_Fp32_enabled", fp32), ("DEST_TARGET_REG_CFG_MATH_Offset", offset),
                        ("DEST_SP_BASE_Base", sp), ("SFPU_DEST_FMT_Enable", 1), ("SFPU_DEST_FMT_Base", fmt)):
            cfg.set(name, v, thread=1)
        get = lambda name: cfg.get(name, thread=1)  # noqa: E731
        m = math_config(cop, 1)
        assert (m.fp32_dst, m.math_offset) == (bool(get("ALU_ACC_CTRL_Fp32_enabled")), get("DEST_TARGET_REG_CFG_MATH_Offset"))
        assert loadstore.address_bases(cop, 1) == (get("DEST_TARGET_REG_CFG_MATH_Offset"), get("DEST_REGW_BASE_Base"),
                                                   get("DEST_SP_BASE_Base"))
        fmt_b = loadstore.BF16 if get("SFPU_DEST_FMT_Base") in loadstore._SRCB_8BIT_EXP else loadstore.FP16
        assert loadstore.resolve_mod0(cop, 1, loadstore.SRCB) == fmt_b
        cfg.set("DEST_TARGET_REG_CFG_MATH_Offset", offset + 1, thread=1)
        assert math_config(cop, 1).math_offset == offset + 1 and loadstore.address_bases(cop, 1)[0] == offset + 1
