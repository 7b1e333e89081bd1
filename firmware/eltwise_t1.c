/* eltwise_t1.c: the math thread of the three-core eltwise kernel (see eltwise_t0.c). */
#include "tensix.h"

volatile uint32_t results[1];   /* [0]: faces added */

#define ELWADD_ROWS(dst, flip) TT_OP_ELWADD((dst), 0, 0, 0, 0, (flip), (flip))

int main(void)
{
    TTI(TT_OP_SEMINIT(1u << 2, 0, 1));                                  /* semaphore 2: 0 of 1 */
    for (int face = 0; face < 4; face++) {
        /* MOVA2D and ELWADD wait at the Wait Gate until the unpackers give them the banks. */
        TT_PUSH(TT_OP_MOVA2D(64 + 16 * face, 1, 0, 0, 0));              /* SrcA rows 0..7 */
        TT_PUSH(TT_OP_MOVA2D(64 + 16 * face + 8, 1, 0, 8, 0));          /* SrcA rows 8..15 */
        TT_PUSH(ELWADD_ROWS(16 * face, 0));                              /* rows 0..7 (RWCs 0) */
        TTI(TT_OP_SETRWC(1, 1, 0, 0, 8, 8, 0, 0, 0, 0, 0, 0, 0));        /* SrcA = SrcB = 8 */
        TT_PUSH(ELWADD_ROWS(16 * face + 8, 1));                          /* rows 8..15, give the banks back */
        TTI(TT_OP_SETRWC(1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    }
    TTI(TT_OP_SEMPOST(1u << 2));                                        /* the tile is in Dst */
    tdbg_wait_coprocessor_done();
    results[0] = 4;
    return 0;
}
