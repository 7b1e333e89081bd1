"""RV32 integer registers by the psABI names GDB uses (``x8`` is shown as ``fp``, also ``s0``),
shared by the core, the session, the expression language and the GDB stub."""

from __future__ import annotations

ABI_NAMES: tuple[str, ...] = tuple(
    "zero ra sp gp tp t0 t1 t2 fp s1 a0 a1 a2 a3 a4 a5 a6 a7 "
    "s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 t3 t4 t5 t6".split()
)
#: Every accepted name of each integer register: ``xN``, its ABI name, ``s0`` for ``fp``.
NUMBERS: dict[str, int] = {**{f"x{i}": i for i in range(32)}, **{n: i for i, n in enumerate(ABI_NAMES)}, "s0": 8}
RA, SP, FP = 1, 2, 8
