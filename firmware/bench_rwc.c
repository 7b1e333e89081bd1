/*
 * bench_rwc.c - `iterations` trips of four .ttinsn pushes that only move RWCs and mark Dst
 * rows undefined: ZEROACC (one row), INCRWC, NOP, SETRWC (Dst back to 0).  Measures pushed
 * Tensix instructions per second (scripts/bench.py figure (d)).  results[0] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 20000;
volatile uint32_t results[1];

int main(void)
{
    uint32_t n = iterations;

    for (uint32_t i = 0; i < n; i++) {
        TTI(TT_OP_ZEROACC(3, 0, 0, 0, 0));                       /* Dst16b[3] undefined */
        TTI(TT_OP_INCRWC(1, 1, 4, 0, 0, 0));                     /* SrcA += 1, SrcB += 1, Dst += 4 */
        TTI(TT_OP_NOP);
        TTI(TT_OP_SETRWC(1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)); /* SrcA = SrcB = Dst = 0 */
    }
    results[0] = n;
    return 0;
}
