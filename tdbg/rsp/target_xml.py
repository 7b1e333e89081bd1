"""The target description sent to GDB (``qXfer:features:read:target.xml``): RV32 with the 32
integer registers and ``pc`` (GDB's ``org.gnu.gdb.riscv.cpu`` feature), and the ``Dst16b``
rows as registers ``dst0``..``dst1023`` of 16 x uint16 in their own group (``p/x $dst3``),
fetched one at a time with ``p`` only when asked for."""

from __future__ import annotations

from tdbg.riscv import ABI_NAMES

REGISTER_COUNT = 33  # x0..x31, pc: what g / G carry
DST_ROWS = 1024     # registers 33.. are the Dst16b rows


def target_xml() -> str:
    regs = []
    for i, name in enumerate(ABI_NAMES):
        kind = "code_ptr" if name == "ra" else ("data_ptr" if name in ("sp", "gp", "tp", "fp") else "int")
        regs.append(f'<reg name="{name}" bitsize="32" type="{kind}" regnum="{i}"/>')
    regs.append('<reg name="pc" bitsize="32" type="code_ptr" regnum="32"/>')
    rows = [f'<reg name="dst{r}" bitsize="256" type="dst16row" regnum="{REGISTER_COUNT + r}" group="dst" save-restore="no"/>'
            for r in range(DST_ROWS)]
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n'
        "<target>\n<architecture>riscv:rv32</architecture>\n"
        '<feature name="org.gnu.gdb.riscv.cpu">\n' + "\n".join(regs) + "\n</feature>\n"
        '<feature name="org.tenstorrent.tdbg.dst">\n<vector id="dst16row" type="uint16" count="16"/>\n'
        + "\n".join(rows) + "\n</feature>\n</target>\n"
    )
