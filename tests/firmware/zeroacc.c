/* Test firmware: a window store, then a Tensix instruction that writes the same Dst row. */
#include "tensix.h"

__attribute__((noinline)) void after_store(void) { __asm__ volatile("" ::: "memory"); }

int main(void) {
    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    TDBG_DST32_F32(1, 0) = 1.0f;                        /* Dst32b[1][0]: DstBits rows 1 and 9 */
    after_store();
    TDBG_CFG_SET(0, ALU_ACC_CTRL_Fp32_enabled, 1);      /* ZEROACC then addresses Dst32b rows */
    TTI(TT_OP_ZEROACC(1, 0, 0, 0, 0));                  /* one row: Dst32b[1] becomes undefined */
    return 0;
}
