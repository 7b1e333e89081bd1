/*
 * bench_window.c - `iterations` stores + loads through the Dst window in fmt 0
 * (Dst.md "RISCV access to Dst", Store32/Load32). Compare with bench_l1.c,
 * which runs the same loop on an L1 array.
 * results[0] = sum of the loaded values (mod 2**32), results[1] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 100000;
volatile uint32_t results[2];

int main(void)
{
    volatile uint32_t *buf = TDBG_DST_U32;   /* 256 elements = Dst32b rows 0..15 */
    uint32_t n = iterations, sum = 0;

    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    for (uint32_t i = 0; i < n; i++) {
        buf[i & 255] = i;
        sum += buf[i & 255];
    }
    results[0] = sum;
    results[1] = n;
    return 0;
}
