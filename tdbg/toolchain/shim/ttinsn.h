/* tdbg's shim for building tt-llk with stock clang: included before every tt-llk source.

   tt-llk's TTI_INSN (tt_llk_blackhole/common/inc/ckernel_ops.h) emits the SFPI GCC assembler
   directive ".ttinsn WORD", which stock LLVM does not know.  This assembler macro takes its
   place: .ttinsn assembles to the Tensix instruction rotated left by 2 (WormholeB0
   BabyRISCV/PushTensixInstruction.md: the low two bits of a pushed word are not 0b11, so the core
   tells it from a RISC-V instruction; tdbg's isa.ttinsn_to_word undoes the rotation).  The value
   may arrive sign-extended, hence the masks. */
#pragma once
__asm__(".macro .ttinsn word\n"
        "\t.word ((((\\word) << 2) | (((\\word) >> 30) & 3)) & 0xffffffff)\n"
        ".endm");
