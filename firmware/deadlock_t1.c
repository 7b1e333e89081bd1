/* deadlock_t1.c: see deadlock_t0.c. */
#include "tensix.h"

volatile uint32_t results[1];   /* [0]: 1 once the wait is over (never) */

int main(void)
{
    TTI(TT_OP_SEMWAIT(0x40, 1u << 1, 1));    /* hold the matrix unit while semaphore 1 is 0 */
    TTI(TT_OP_MOVD2B(0, 0, 0, 0, 0));
    tdbg_wait_coprocessor_done();
    results[0] = 1;
    return 0;
}
