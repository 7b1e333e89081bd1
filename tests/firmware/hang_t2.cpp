/* hang_t2.cpp: see hang_t0.cpp. */
#include "llk_sync.h"

volatile uint32_t results[1];

extern "C" int main(void)
{
    ckernel::t6_mutex_acquire(ckernel::mutex::REG_RMW);                                 /* T2 asks for the mutex */
    tdbg_wait_coprocessor_done();
    tdbg_semaphore_post(ckernel::semaphore::MATH_PACK);                    /* T2 posts MATH_PACK */
    ckernel::t6_mutex_release(ckernel::mutex::REG_RMW);
    results[0] = 1;
    return 0;
}
