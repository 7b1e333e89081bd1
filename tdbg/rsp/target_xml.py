"""The target description sent to GDB (``qXfer:features:read:target.xml``): RV32 with the 32
integer registers and ``pc`` (GDB's ``org.gnu.gdb.riscv.cpu`` feature), and the ``Dst16b``
rows as registers ``dst0``..``dst1023`` of 16 x uint16 in their own group (``p/x $dst3``),
fetched one at a time with ``p`` only when asked for; and the memory map
(``qXfer:memory-map:read``) drawn from the profile's ``MemoryMap``."""

from __future__ import annotations

from collections.abc import Iterable

from tdbg.arch.memory_map import MemoryMap
from tdbg.riscv.registers import ABI_NAMES

REGISTER_COUNT = 33  # x0..x31, pc: what g / G carry; registers 33.. are the Dst16b rows


def target_xml(dst_rows: int) -> str:
    """The description of a tile whose ``Dst16b`` has ``dst_rows`` rows (the profile's)."""
    regs = []
    for i, name in enumerate(ABI_NAMES):
        kind = "code_ptr" if name == "ra" else ("data_ptr" if name in ("sp", "gp", "tp", "fp") else "int")
        regs.append(f'<reg name="{name}" bitsize="32" type="{kind}" regnum="{i}"/>')
    regs.append('<reg name="pc" bitsize="32" type="code_ptr" regnum="32"/>')
    rows = [f'<reg name="dst{r}" bitsize="256" type="dst16row" regnum="{REGISTER_COUNT + r}" group="dst" save-restore="no"/>'
            for r in range(dst_rows)]
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n'
        "<target>\n<architecture>riscv:rv32</architecture>\n"
        '<feature name="org.gnu.gdb.riscv.cpu">\n' + "\n".join(regs) + "\n</feature>\n"
        '<feature name="org.tenstorrent.tdbg.dst">\n<vector id="dst16row" type="uint16" count="16"/>\n'
        + "\n".join(rows) + "\n</feature>\n</target>\n"
    )


def memory_map_xml(memory_map: MemoryMap, viewers: Iterable[str]) -> str:
    """GDB's memory map (``gdb-memory-map.dtd``): the ranges any of ``viewers`` (the cores) has
    a region at, merged where they overlap or touch (GDB refuses overlapping regions), each
    ``ram`` (GDB's other types are ROM and flash; a device's registers are read and written as
    the core's loads and stores would).  GDB refuses an address outside every range itself."""
    ranges = sorted((region.base, region.end) for viewer in viewers for region in memory_map.regions(viewer))
    merged: list[list[int]] = []
    for base, end in ranges:
        if merged and base <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([base, end])
    entries = "".join(f'<memory type="ram" start="{base:#x}" length="{end - base:#x}"/>\n' for base, end in merged)
    return ('<?xml version="1.0"?>\n<!DOCTYPE memory-map PUBLIC "+//IDN gnu.org//DTD GDB Memory Map V1.0//EN" '
            '"http://sourceware.org/gdb/gdb-memory-map.dtd">\n<memory-map>\n' + entries + "</memory-map>\n")
