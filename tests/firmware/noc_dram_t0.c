/* noc_dram_t0.c - TRISC0's part (see noc_dram_b.c): wait for NCRISC's increment of SEM_T0, then
 * copy the tile that came back from DRAM to OUT and store the sum of its words at SUM. */
#include "tensix.h"

#define BACK    0x38000u
#define OUT     0x40000u
#define SUM     0x2F020u
#define SEM_T0  0x2F010u

int main(void)
{
    while (*(volatile uint32_t *)SEM_T0 == 0) {}
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 512; i++) {
        uint32_t w = ((volatile uint32_t *)BACK)[i];
        ((volatile uint32_t *)OUT)[i] = w;
        sum += w;
    }
    *(volatile uint32_t *)SUM = sum;
    return 0;
}
