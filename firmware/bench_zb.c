/*
 * bench_zb.c - a loop of `iterations` (2,000,000) trips whose hot path, built for the
 * Blackhole ISA (-mcpu=generic_rv32+m+zaamo+zba+zbb), uses Zba/Zbb: array indexing
 * (sh2add, sh1add), minu/maxu and zext.h; built for plain RV32IM it is the same C.
 * results[0..2] = the running sum, the largest and the smallest value seen.
 */
#include "tensix.h"

volatile uint32_t iterations = 2000000;
volatile uint32_t results[3];
uint32_t table[256];
uint16_t halves[256];

int main(void)
{
    uint32_t n = iterations, sum = 0, hi = 0, lo = ~0u;

    for (uint32_t i = 0; i < 256; i++) {
        table[i] = i * 2654435761u;
        halves[i] = (uint16_t)(i * 40503u);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = i & 255;
        uint32_t v = table[k] + halves[(k * 7) & 255];
        hi = v > hi ? v : hi;
        lo = v < lo ? v : lo;
        sum += (uint16_t)(sum ^ v) + v;
    }
    results[0] = sum;
    results[1] = hi;
    results[2] = lo;
    return 0;
}
