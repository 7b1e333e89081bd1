/* tdbg's start stub for tt-llk test kernels built with clang.

   tt-llk's _start (tests/helpers/src/trisc.cpp) is a naked C++ function whose first statements
   set gp and sp (boot.h do_crt0); clang accepts only assembly in a naked function, so the kernel
   is built with -Dnaked= -D_start=_start_c and this stub, linked first in .init (the ELF's entry),
   sets gp and sp before jumping to it. */
    .section .init, "ax"
    .global _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    j _start_c
