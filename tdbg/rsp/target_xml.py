"""The target description sent to GDB (``qXfer:features:read:target.xml``): RV32 with the 32
integer registers and ``pc`` (GDB's ``org.gnu.gdb.riscv.cpu`` feature)."""

from __future__ import annotations

from tdbg.target.core import ABI_NAMES

REGISTER_COUNT = 33  # x0..x31, pc


def target_xml() -> str:
    regs = []
    for i, name in enumerate(ABI_NAMES):
        kind = "code_ptr" if name == "ra" else ("data_ptr" if name in ("sp", "gp", "tp", "fp") else "int")
        regs.append(f'<reg name="{name}" bitsize="32" type="{kind}" regnum="{i}"/>')
    regs.append('<reg name="pc" bitsize="32" type="code_ptr" regnum="32"/>')
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n'
        "<target>\n<architecture>riscv:rv32</architecture>\n"
        '<feature name="org.gnu.gdb.riscv.cpu">\n' + "\n".join(regs) + "\n</feature>\n</target>\n"
    )
