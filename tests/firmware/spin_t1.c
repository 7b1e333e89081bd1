/* spin_t1.c: see spin_t0.c. */
#include "tensix.h"

#define FLAG (*(volatile uint32_t *)0x38000u)

volatile uint32_t results[1];

__attribute__((noinline)) void marker(void)
{
    results[0]++;                               /* marker: T1 */
}

int main(void)
{
    marker();
    for (volatile uint32_t i = 0; i < 1000; i++)
        ;
    FLAG = 1;                                   /* T1 sets the flag */
    return 0;
}
