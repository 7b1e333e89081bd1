/*
 * deadlock_t0.c, deadlock_t1.c, deadlock_t2.c - three cores that wait for each other and never
 * get what they wait for (load them together: tdbg T0=deadlock_t0.c T1=deadlock_t1.c
 * T2=deadlock_t2.c).  tdbg must stop with a deadlock naming every wait, and no core may write
 * its results[0].
 *
 * T0 polls semaphore 2, which only T2 would post after its own wait.
 * T1 latches a SEMWAIT on semaphore 1 (nobody posts it), pushes a MOVD2B behind it and waits
 * for its thread with a TTSync load.
 * T2 polls semaphore 0, which only T0 would post after its own wait.
 */
#include "tensix.h"

volatile uint32_t results[1];   /* [0]: 1 once the wait is over (never) */

int main(void)
{
    while (TDBG_SEMAPHORE(2) == 0)
        ;
    results[0] = 1;
    tdbg_semaphore_post(0);
    return 0;
}
