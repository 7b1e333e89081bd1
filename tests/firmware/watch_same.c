/* Test firmware: Dst row 1 written with new values and with the values it already holds, through
   the window and by a Tensix instruction (a watchpoint stops only on the changes). */
#include "tensix.h"

int main(void) {
    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    TDBG_DST32_F32(1, 0) = 1.0f;                        /* changes Dst32b[1][0] */
    TDBG_DST32_F32(1, 0) = 1.0f;                        /* the same value again */
    TDBG_DST32_F32(1, 0) = 2.0f;                        /* changes it */
    TDBG_CFG_SET(0, ALU_ACC_CTRL_Fp32_enabled, 1);      /* ZEROACC then addresses Dst32b rows */
    TTI(TT_OP_ZEROACC(1, 0, 0, 0, 0));                  /* clears Dst32b[1] */
    TTI(TT_OP_ZEROACC(1, 0, 0, 0, 0));                  /* clears it again: the same bits */
    return 0;
}
