/*
 * bench_mov.c - `iterations` trips of four .ttinsn pushes that move rows between Dst and
 * SrcA / SrcB: MOVD2B (4 rows), MOVD2A (4 rows), ZEROACC (one row), INCRWC.  Measures pushed
 * Tensix instructions per second (scripts/bench.py figure (d)).  results[0] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 5000;
volatile uint32_t results[1];

int main(void)
{
    uint32_t n = iterations;

    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 16; c++)
            TDBG_DST32_F32(r, c) = (float)(r * 16 + c + 1);
    tdbg_consume(TDBG_DST32_U32(0, 0));
    for (uint32_t i = 0; i < n; i++) {
        TTI(TT_OP_MOVD2B(0, 1, 0, 4, 0));                        /* Dst rows 0-3 -> SrcB rows 4-7 */
        TTI(TT_OP_MOVD2A(4, 1, 0, 8, 0));                        /* Dst rows 4-7 -> SrcA rows 8-11 */
        TTI(TT_OP_ZEROACC(12, 0, 0, 0, 0));                      /* Dst16b[12] undefined */
        TTI(TT_OP_INCRWC(0, 0, 0, 0, 0, 0));
    }
    results[0] = n;
    return 0;
}
