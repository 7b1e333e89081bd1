"""``info lregs``, ``info sfpu``, the LReg lanes ``stepi`` and ``tensix`` report as changed."""

from __future__ import annotations

import numpy as np

from tdbg.session import Session
from tdbg.commands import execute
from examples import EXAMPLES


def test_tensix_reports_lanes_and_info_lregs_marks_them() -> None:
    s = Session()
    out = execute(s, "tensix SFPLOADI VD=3 Mod0=0 Imm16=0x4040")
    assert "LReg[3] lanes changed: 0-31" in out
    execute(s, "tensix SFPENCC Mod1=10 Imm2=3")
    execute(s, "tensix SFPLOADI VD=1 Mod0=4 Imm16=0xfffe")
    assert "LaneFlags changed in lanes 16-31" in execute(s, "tensix SFPIADD VC=15 VD=2 Imm12=-32 Mod1=1")
    out = execute(s, "info lregs 2-3")
    assert "LReg[2]:" in out and "LReg[3]:" in out
    assert "0x40400000*" in out and " 3* " in out                    # hex and fp32 views, changed
    assert "-32*" in out and "30*" in out                             # int view: 2 * lane - 32
    out = execute(s, "info lregs /f 4 10")
    assert "LReg[4]: <undef> in all 32 lanes\n" in out                # never written: one line
    assert "LReg[10] (constant 1.0):" in out and "hex" not in out
    assert "Bad format" in execute(s, "info lregs /q", check=False)
    assert "out of range" in execute(s, "info lregs 17", check=False)


def test_info_sfpu_shows_predication() -> None:
    s = Session()
    execute(s, "tensix SFPENCC Mod1=10 Imm2=3")
    execute(s, "tensix SFPIADD VC=15 VD=2 Imm12=-16 Mod1=1")           # LaneFlags = 2 * lane - 16 < 0
    execute(s, "tensix SFPPUSHC")
    # Imm16 as value and lane mask: bit 12 selects column 6 ((Lane & 7) * 2) and is ROW_MASK bit 0 there
    execute(s, "tensix SFPCONFIG VD=15 Imm16=0x1000 Mod1=9")
    out = execute(s, "info sfpu")
    assert "Enabled lanes:             11111101 00000000 00000000 00000000" in out
    assert "LaneFlags:                 11111111 00000000 00000000 00000000" in out
    assert "[0] LaneFlags 11111111 00000000" in out
    assert "LaneConfig 0x01000 in lanes 6, 14, 22, 30" in out


def test_stepi_over_a_push_shows_changed_lanes() -> None:
    s = Session(EXAMPLES / "sfpu_kernels.c")
    execute(s, "break main")
    execute(s, "run")
    s.set_dst(slice(0, 64), np.linspace(-1, 1, 1024, dtype=np.float32).reshape(64, 16), view="fp32")
    seen = [execute(s, "stepi") for _ in range(40)]
    assert any("LaneFlags changed in lanes 0-31" in out for out in seen)   # the first SFPENCC
    assert any("LReg[0] lanes changed: 0-31" in out for out in seen)       # the first SFPLOAD


def test_x_examines_lreg_lanes() -> None:
    s = Session()
    execute(s, "tensix SFPLOADI VD=3 Mod0=0 Imm16=0x4040")            # 3.0 in every lane
    execute(s, "tensix SFPLOADI VD=4 Mod0=8 Imm16=0x4040")            # high halves only
    out = execute(s, "x/32wf lreg[3]")
    assert out.splitlines()[0] == "lreg[3][0]:\t3\t3\t3\t3" and len(out.splitlines()) == 8
    assert execute(s, "x/3wx lreg[3][31]").splitlines() == [
        "lreg[3][31]:\t0x40400000", "lreg[4][0]:\t<high only>\t<high only>"]
    assert execute(s, "x").strip() == "lreg[4][2]:\t<high only>"         # a bare x goes on
    assert execute(s, "x/4wd lreg[15]").strip() == "lreg[15][0]:\t0\t2\t4\t6"
    assert "units of w" in execute(s, "x/2hx lreg[3]", check=False)
    assert "out of range" in execute(s, "x/2wx lreg[17]", check=False)


def test_lregs_in_expressions() -> None:
    s = Session()
    execute(s, "tensix SFPLOADI VD=3 Mod0=0 Imm16=0x4040")            # 3.0 in every lane
    assert execute(s, "p lreg[3][5]").strip() == "$1 = 3"
    assert execute(s, "p/x lregbits[3][5]").strip() == "$2 = 0x40400000"
    assert execute(s, "p $lreg3[5] * 2").strip() == "$3 = 6"
    assert execute(s, "p lreg[3]").strip() == "$4 = {3 <repeats 32 times>}"
    assert execute(s, "whatis lreg[3][0]").strip() == "type = float"
    execute(s, "set var lreg[3][5] = 1.5")
    assert s.tile.coprocessor.vector.lreg[3][5] == 0x3FC00000 and (np.delete(s.tile.coprocessor.vector.lreg[3], 5) == 0x40400000).all()
    assert execute(s, "p $lreg3").strip() == "$5 = {3, 3, 3, 3, 3, 1.5, 3 <repeats 26 times>}"
    # an undefined lane: reading it is refused, writing it defines that lane alone
    assert "LReg[4] lane 2 is undefined" in execute(s, "p lreg[4][2]", check=False)
    execute(s, "set var lregbits[4][2] = 7")
    assert s.tile.coprocessor.vector.defined[4][2] == 3 and s.tile.coprocessor.vector.defined[4][3] == 0
    assert execute(s, "p lregbits[4][2]").strip() == "$6 = 7"
    assert "never written" in execute(s, "p $lreg4", check=False)
    assert "read-only constant" in execute(s, "set var lreg[10][0] = 2", check=False)
    assert "read-only" in execute(s, "set var $lreg3 = 1", check=False)
    assert "out of range" in execute(s, "p lreg[17][0]", check=False)
    assert "out of range" in execute(s, "p lreg[3][32]", check=False)
    # Dst keeps refusing one element of an undefined row (it cannot define the rest of the row)
    assert "undefined" in execute(s, "set var dst[0][0] = 1.0", check=False)
