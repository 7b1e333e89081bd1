/* spin_t0.c, spin_t1.c - two cores whose order must not depend on host time.
 * T0 computes for a long time (far longer than a tenth of a second of host time), then calls
 * marker(); T1 calls marker() at once.  With -DSPIN, T0 instead spins on an L1 word that only
 * T1 writes (after its marker), then calls marker(). */
#include "tensix.h"

#define FLAG (*(volatile uint32_t *)0x38000u)

volatile uint32_t results[2];

__attribute__((noinline)) void marker(void)
{
    results[0]++;                               /* marker: T0 */
}

int main(void)
{
#ifdef SPIN
    while (FLAG == 0)                           /* T0 spins */
        ;
#else
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 15000000u; i++)    /* T0 computes */
        sum += i ^ results[1];
    results[1] = sum;
#endif
    marker();
    return 0;
}
