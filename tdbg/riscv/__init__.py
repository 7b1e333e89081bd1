"""The baby RISC-V cores' side of the ISA, as the debugger names and shows it.

- ``registers``: the integer registers' ABI names and numbers.
- ``extensions``: the Blackhole instructions Unicorn lacks (Zba, Zbb, ``pack``/``brev8``,
  Zaamo, CSRs), executed by tdbg.
- ``disasm``: disassembly as GDB spells it, ``.ttinsn`` words as Tensix instructions.
"""
