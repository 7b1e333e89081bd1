/* hang_t0.cpp, hang_t1.cpp, hang_t2.cpp - three cores in tt-llk's shapes that hang (load them
 * together: T0=hang_t0.cpp T1=hang_t1.cpp T2=hang_t2.cpp).  Each waits for what another core
 * would do only after its own wait:
 *   T0 (unpack) polls semaphore MATH_DONE, which T1 posts after its wait;
 *   T1 (math) takes mutex REG_RMW, then holds a MOVD2B behind a SEMWAIT on MATH_PACK, which T2
 *      posts after its wait; then it would release the mutex and post MATH_DONE;
 *   T2 (pack) asks for mutex REG_RMW, which T1 holds. */
#include "llk_sync.h"

volatile uint32_t results[1];

extern "C" int main(void)
{
    while (TDBG_SEMAPHORE(ckernel::semaphore::MATH_DONE) == 0)   /* T0 waits */
        ;
    results[0] = 1;
    return 0;
}
