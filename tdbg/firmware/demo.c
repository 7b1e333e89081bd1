/*
 * demo.c - a short program to step through in tdbg.
 *
 * Try:  break fill_row / run / next / step / finish / info locals,
 *       x/16wf dst[0]  (FP32 rows),  x/16h dst[0] as bf16  (after the switch),
 *       x/4wx &results
 *
 * Dst window behaviour: BlackholeA0/.../TensixCoprocessor/Dst.md "RISCV access
 * to Dst"; MOVD2B: seed 001 / MOVD2B.md; pushing: PushTensixInstruction.md.
 *
 * results[0] = bits of Dst32b[1][2] read back in FP32      (1.5f = 0x3FC00000)
 * results[1] = Dst16b[0][1] read in BF16 (lhu)              (0.25 = 0x3E80)
 * results[2] = number of rows filled                        (4)
 * results[3] = sum of i*i for i < 5                         (30)
 */
#include "tensix.h"

/* Built like -O0 (the rest of the firmware is -O1) so every line and local
 * stays visible while stepping. */
#define STEPPABLE __attribute__((optnone, noinline))

volatile uint32_t results[4];

/* Write 16 FP32 values start, start+step, ... into Dst32b row `row`. */
static STEPPABLE void fill_row(int row, float start, float step)
{
    float value = start;
    for (int col = 0; col < 16; col++) {
        TDBG_DST32_F32(row, col) = value;
        value += step;
    }
}

STEPPABLE int main(void)
{
    int rows = 0;

    /* Window in FP32 (fmt 0) for core T0. */
    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    for (int r = 0; r < 4; r++) {
        fill_row(r, (float)r, 0.25f);
        rows++;
    }
    results[0] = TDBG_DST32_U32(1, 2);

    /* Same Dst storage seen as BF16 (fmt 3): one 16-bit element at a time. */
    tdbg_set_dst_access(0, TDBG_FMT_BF16, 0, 0);
    results[1] = TDBG_DST16_U16(0, 1);

    /* Move Dst row 0 into SrcB row 0 (two .ttinsn words in the code). */
    TTI(TT_OP_SETRWC(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    TTI(TT_OP_MOVD2B(0, 0, 0, 0, 0));
    tdbg_wait_coprocessor_done();

    /* A small loop to `next` through. */
    int total = 0;
    for (int i = 0; i < 5; i++)
        total += i * i;

    results[2] = rows;
    results[3] = total;
    return 0;
}
