/* pipeline_t1.c: the mover of the three-core pipeline (see pipeline_t0.c). */
#include "tensix.h"

volatile uint32_t results[1];   /* [0]: rows moved */

int main(void)
{
    TDBG_CFG_SET(0, ALU_ACC_CTRL_Fp32_enabled, 1);          /* MOVD2B reads Dst32b as FP32 */
    TTI(TT_OP_SEMWAIT(0x40, 1u << 0, 1));                    /* hold the matrix unit while sem 0 is 0 */
    TTI(TT_OP_SEMGET(1u << 0));
    TTI(TT_OP_SETRWC(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    for (int r = 0; r < 8; r++)
        TT_PUSH(TT_OP_MOVD2B(r, 0, 0, r, 0));
    for (int r = 0; r < 8; r++)
        TT_PUSH(TT_OP_MOVB2D(64 + r, 0, 0, 0, 0, r, 0));
    tdbg_wait_coprocessor_done();
    results[0] = 8;
    tdbg_semaphore_post(1);
    return 0;
}
