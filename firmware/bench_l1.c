/*
 * bench_l1.c - the loop of bench_window.c on an ordinary array in L1, the
 * baseline for the cost of window accesses.
 * results[0] = sum of the loaded values (mod 2**32), results[1] = iterations.
 */
#include "tensix.h"

volatile uint32_t iterations = 100000;
volatile uint32_t results[2];
static volatile uint32_t l1_buf[256];

int main(void)
{
    volatile uint32_t *buf = l1_buf;
    uint32_t n = iterations, sum = 0;

    for (uint32_t i = 0; i < n; i++) {
        buf[i & 255] = i;
        sum += buf[i & 255];
    }
    results[0] = sum;
    results[1] = n;
    return 0;
}
