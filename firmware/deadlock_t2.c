/* deadlock_t2.c: see deadlock_t0.c. */
#include "tensix.h"

volatile uint32_t results[1];   /* [0]: 1 once the wait is over (never) */

int main(void)
{
    while (TDBG_SEMAPHORE(0) == 0)
        ;
    results[0] = 1;
    tdbg_semaphore_post(2);
    return 0;
}
