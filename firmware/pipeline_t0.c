/*
 * pipeline_t0.c, pipeline_t1.c, pipeline_t2.c - three cores handing work to each other through
 * the coprocessor, as a real kernel's unpack -> math -> pack threads do (load them together:
 * tdbg T0=pipeline_t0.c T1=pipeline_t1.c T2=pipeline_t2.c).
 *
 * T0 (producer): writes Dst32b rows 0..7 through the window (FP32: row r, column c holds
 *    r*16 + c + 1), hands SrcB to the matrix unit as an unpacker would (SETDVALID, SrcASrcB.md),
 *    then posts semaphore 0 (a RISC-V store, SyncUnit.md).
 * T1 (mover):    its Tensix thread waits at the Wait Gate for semaphore 0 (SEMWAIT, held while
 *    its Value is 0), takes it (SEMGET), moves rows 0..7 to SrcB (MOVD2B: BF16, as the SrcA format
 *    is FP32) and back into Dst16b rows 64..71 (MOVB2D: BF16 into Dst16b), waits for its thread with
 *    a TTSync load (TTSync.md: the core stalls while the thread has instructions in flight), then
 *    posts semaphore 1.
 * T2 (consumer): polls semaphore 1 until it is not 0 (a polling loop: the core waits), then reads
 *    Dst16b rows 64..71 through the window as BF16 and adds them up into results[0]; exits with 0 when
 *    the sum is right (every value r*16 + c + 1 <= 128 is exact in BF16).
 *
 * Facts: Dst.md "RISCV access to Dst" (fmt 0 stores/loads), SETDVALID.md, SEMWAIT.md / SEMGET.md (Blackhole
 * field layout from bh_encodings.json), MOVD2B.md / MOVB2D.md, TTSync.md, SyncUnit.md.
 */
#include "tensix.h"

#define ROWS 8

volatile uint32_t results[1];   /* [0]: rows produced */

int main(void)
{
    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < 16; c++)
            TDBG_DST32_F32(r, c) = (float)(r * 16 + c + 1);
    tdbg_consume(TDBG_DST32_U32(ROWS - 1, 15));   /* every window store done before the post */
    TTI(TT_OP_SETDVALID(0, 1));
    results[0] = ROWS;
    tdbg_semaphore_post(0);
    return 0;
}
