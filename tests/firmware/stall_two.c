/* stall_two.c - one core whose wait names two conditions: a MOVD2B held by a STALLWAIT on
 * SrcA and SrcB valid (Blackhole wait_res bits 7 and 8), which no unpacker ever makes, then a
 * TTSync load that waits for it. */
#include "tensix.h"

volatile uint32_t results[1];

int main(void)
{
    TTI(TT_OP_STALLWAIT((1u << 7) | (1u << 8), 0x40));
    TTI(TT_OP_MOVD2B(0, 0, 0, 0, 0));
    tdbg_wait_coprocessor_done();
    results[0] = 1;
    return 0;
}
