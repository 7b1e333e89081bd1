/*
 * bench_sfpu.c - `iterations` trips of six .ttinsn pushes of Vector Unit (SFPU) work, a ReLU-like
 * step over 32 lanes: SFPLOAD (Dst -> LReg[0]), SFPMAD (LReg[1] = x * 1.0 + 1.0), SFPSETCC
 * (x < 0), SFPLOADI (LReg[1] = 0 where enabled), SFPENCC (all lanes again), SFPSTORE (LReg[1] ->
 * Dst).  Before the loop an SFPLOADI and SFPSTORE give the Dst cells a value and SFPENCC turns
 * lane predication on.  Measures pushed Tensix instructions per second (scripts/bench.py
 * figure (d)).  results[0] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 2000;
volatile uint32_t results[1];

#define FP32 3          /* MOD0_FMT_FP32 */
#define LCONST_1 10     /* LReg[10] = 1.0 */

int main(void)
{
    uint32_t n = iterations;

    TTI(TT_OP_SFPLOADI(0, 0, 0x3F80));                  /* LReg[0] = 1.0 (BF16 immediate) */
    TTI(TT_OP_SFPSTORE(0, FP32, 0, 0));
    TTI(TT_OP_SFPENCC(3, 0, 10));                       /* UseLaneFlagsForLaneEnable = LaneFlags = true */
    for (uint32_t i = 0; i < n; i++) {
        TTI(TT_OP_SFPLOAD(0, FP32, 0, 0));
        TTI(TT_OP_SFPMAD(0, LCONST_1, LCONST_1, 1, 0));
        TTI(TT_OP_SFPSETCC(0, 1, 0, 0));                /* SFPSETCC_MOD1_LREG_LT0 */
        TTI(TT_OP_SFPLOADI(1, 0, 0));
        TTI(TT_OP_SFPENCC(3, 0, 10));
        TTI(TT_OP_SFPSTORE(1, FP32, 0, 0));
    }
    results[0] = n;
    return 0;
}
