/*
 * bench_fpu.c - `iterations` trips of four .ttinsn pushes of Matrix Unit arithmetic:
 * ELWADD (Dst += SrcA + SrcB, 8 rows), MVMUL (8 rows), ELWADD into other rows, INCRWC.
 * SETDVALID first hands a SrcA and a SrcB bank to the Matrix Unit.  Measures pushed Tensix
 * instructions per second (scripts/bench.py figure (d)).  results[0] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 2000;
volatile uint32_t results[1];

int main(void)
{
    uint32_t n = iterations;

    TTI(TT_OP_SETDVALID(1, 1));
    for (uint32_t i = 0; i < n; i++) {
        TTI(TT_OP_ELWADD(0, 0, 0, 0, 1, 0, 0));                  /* Dst rows 0-7 += SrcA + SrcB */
        TTI(TT_OP_MVMUL(8, 0, 0, 0, 0));                         /* Dst rows 8-15 += SrcB @ SrcA */
        TTI(TT_OP_ELWADD(16, 0, 0, 0, 0, 0, 0));                 /* Dst rows 16-23 = SrcA + SrcB */
        TTI(TT_OP_INCRWC(0, 0, 0, 0, 0, 0));
    }
    results[0] = n;
    return 0;
}
