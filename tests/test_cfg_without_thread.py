"""``info cfg`` on a core with no Tensix thread (B, NC; issue 33 item 9): it used to end in
``internal error: TypeError('only 0-dimensional arrays ...')``.  B's loads at
``TENSIX_CFG_BASE`` see both Config banks and every thread's ThreadConfig
(BackendConfiguration.md), so the command shows each (on NC, which has no such window, too); a field name meant as a thread's bank
(``set cfg``, ``$cfg``-style reads) is refused in one line.  The field's word and bits are
bh_cfg_fields.json's (``ALU_FORMAT_SPEC_REG0_SrcA``: word 1, bits 20:17)."""

from __future__ import annotations

from tdbg.session import Session
from tdbg.toolchain.zig import firmware_dir
from tdbg.commands import execute

FW = firmware_dir()


def test_info_cfg_on_b_shows_both_banks_and_every_thread() -> None:
    s = Session({"T0": FW / "demo.c", "B": FW / "demo.c", "NC": FW / "demo.c"})
    execute(s, "set cfg ALU_FORMAT_SPEC_REG0_SrcA = 3")           # T0's bank: CFG_STATE_ID 0
    for core in ("B", "NC"):
        execute(s, f"thread {core}")
        assert execute(s, "info cfg ALU_FORMAT_SPEC_REG0_SrcA").splitlines()[-2:] == [
            "ALU_FORMAT_SPEC_REG0_SrcA                        = 0x3 (3)  Config[0][1] bits 20:17",
            "ALU_FORMAT_SPEC_REG0_SrcA                        = 0x0 (0)  Config[1][1] bits 20:17"]
        assert execute(s, "info cfg CFG_STATE_ID_StateID").splitlines() == [
            f"CFG_STATE_ID_StateID                             = 0x0 (0)  ThreadConfig[{t}][0] bits 0:0" for t in range(3)]
        if core == "B":                        # NC has no TENSIX_CFG_BASE window (memory_map.md)
            assert execute(s, "x/1wx 0xFFEF0004").split()[-1] == f"{3 << 17:#010x}"      # what its load reads
        assert execute(s, "set cfg ALU_FORMAT_SPEC_REG0_SrcA = 1", check=False).strip() == (
            f"{core} has no Tensix thread, so no Config bank of its own (info cfg on it shows both banks): "
            "select T0, T1 or T2")
