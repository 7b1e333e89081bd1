/* hang_t1.cpp: see hang_t0.cpp. */
#include "llk_sync.h"

volatile uint32_t results[1];

extern "C" int main(void)
{
    ckernel::t6_mutex_acquire(ckernel::mutex::REG_RMW);                                 /* T1 takes the mutex */
    TTI(TT_OP_SEMWAIT(0x40, 1u << ckernel::semaphore::MATH_PACK, 1));      /* T1 latches the wait */
    TTI(TT_OP_MOVD2B(0, 0, 0, 0, 0));                                      /* T1 pushes the MOVD2B */
    tdbg_wait_coprocessor_done();
    ckernel::t6_mutex_release(ckernel::mutex::REG_RMW);                                 /* T1 releases the mutex */
    TTI(TT_OP_SEMPOST(1u << ckernel::semaphore::MATH_DONE));               /* T1 posts MATH_DONE */
    results[0] = 1;
    return 0;
}
