#!/usr/bin/env python3
"""Generate ``tdbg/data/riscv_csr_names.json``: the name binutils' disassembler gives each of
the 4096 CSR numbers in ``csrrc a0,N,t1`` (no alias hides the name) (the RISC-V privileged and
unprivileged specs' CSR names, as GDB 13 /
binutils 2.40 print them for an RV32 ELF with Zicsr), so tdbg spells CSR instructions as GDB
does.  Needs Debian's ``gdb-multiarch`` and the bundled zig::

    python scripts/gen_csr_names.py
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tdbg" / "data" / "riscv_csr_names.json"


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        source = Path(d, "csrs.S")
        source.write_text(".globl _start\n_start:\n" + "".join(f".word 0x{n << 20 | 6 << 15 | 3 << 12 | 10 << 7 | 0x73:08x}\n"
                                                                for n in range(4096)))
        elf = Path(d, "csrs.elf")
        subprocess.run(["python3", "-m", "ziglang", "cc", "-target", "riscv32-freestanding-none", "-mcpu=generic_rv32+m",
                        "-nostdlib", "-o", str(elf), str(source)], check=True)
        # Zicsr as Tenstorrent's ELFs name it: I version 2.0 still included it.
        elf.write_bytes(elf.read_bytes().replace(b"rv32i2p1_m2p0", b"rv32i2p0_m2p0"))
        out = subprocess.run(["gdb-multiarch", "-q", "-batch", "-nx", "-ex", "x/4096i _start", str(elf)],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    names = {}
    for n, line in enumerate(out):
        m = re.search(r"\tcsrrc\ta0,([^,]+),t1$", line)
        if m and not m.group(1).startswith("0x"):
            names[f"{n:#05x}"] = m.group(1)
    OUT.write_text(json.dumps({"source": "gdb-multiarch 13.1 (binutils 2.40), x/i of csrr a0,N", "names": names},
                              indent=0, sort_keys=True) + "\n")
    print(f"{len(names)} names -> {OUT}")


if __name__ == "__main__":
    main()
