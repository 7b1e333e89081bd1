/*
 * bench_loop.c - a tight register-only loop of `iterations` (60,000,000)
 * trips: measures raw emulation speed with no MMIO and no breakpoints.
 * results[0] = sum of i for i < iterations (mod 2**32), results[1] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 60000000;
volatile uint32_t results[2];

int main(void)
{
    uint32_t n = iterations, sum = 0;

    for (uint32_t i = 0; i < n; i++) {
        __asm__ volatile("" : "+r"(sum));    /* keep the loop: no closed form */
        sum += i;
    }
    results[0] = sum;
    results[1] = n;
    return 0;
}
