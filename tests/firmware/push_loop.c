/* push_loop.c - test firmware: a loop that reads a Tensix GPR (a device) and pushes a NOP each
   trip, for longer than a turn, storing nothing: it is busy (each push is an effect), not waiting. */
#include "tensix.h"

volatile uint32_t trips = 40000;   /* in .data: the test may change it */
volatile uint32_t done;

int main(void)
{
    volatile uint32_t *gpr = (volatile uint32_t *)0xFFE00000u;   /* REGFILE_BASE: this thread's GPR 0 */
    uint32_t seen = 0;
    for (uint32_t n = trips; n; n--) {
        seen += *gpr + trips;                                     /* a device and L1, every trip */
        TTI(0x02000000);                                          /* NOP */
    }
    done = 1 + seen;
    return 0;
}
