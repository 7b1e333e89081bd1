/* sfpu_push.c - push the Tensix words at L1 PROG (count at PROG-4) one by one with sw, wait for
 * the coprocessor, then write 1 at PROG-8 and spin: the host clocks ttsim until it reads 1
 * (scripts/sfpu_predication_fixture.py builds it with the kit and runs it on libttsim). */
#include "tensix.h"
#define PROG 0x40000u
int main(void)
{
    volatile uint32_t *done = (volatile uint32_t *)(PROG - 8);
    volatile uint32_t *count = (volatile uint32_t *)(PROG - 4);
    volatile uint32_t *words = (volatile uint32_t *)PROG;
    uint32_t n = *count;
    for (uint32_t i = 0; i < n; i++) {
        TT_PUSH(words[i]);
        if ((i & 15) == 15)
            tdbg_wait_coprocessor_done();
    }
    tdbg_wait_coprocessor_done();
    *done = 1;
    for (;;)
        ;
}
