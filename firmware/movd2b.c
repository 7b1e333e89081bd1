/*
 * movd2b.c - write FP32 rows into Dst through the RISC-V window, then move
 * them to SrcB with MOVD2B, pushed both ways a T core can push:
 *   - TTI():     a .ttinsn word in the code stream (a compile-time constant)
 *   - TT_PUSH(): an ordinary sw of a run-time value to INSTRN_BUF_BASE
 *
 * Behaviour: PushTensixInstruction.md (both push forms, .ttinsn encoding),
 * seed 001 / MOVD2B.md (row move, BF16 conversion when Fp32_enabled and SrcA
 * format is FP32), SETRWC.md (reset RWCs), Dst.md "RISCV access to Dst"
 * (Store32, fmt 0), MemoryOrdering.md and TTSync.md (ordering).
 *
 * Dst32b[r][c] = r*16 + c + 1 (r < 8), all exact in BF16.
 * After the run SrcB bank 0 rows 0..7 hold those values as Src BF16
 * (sign, 7 mantissa bits, 3 zero bits, 8 exponent bits).
 * results[i] = the i-th Tensix instruction word pushed (npushed of them).
 */
#include "tensix.h"

#define CORE 0
#define ROWS 8

volatile uint32_t results[8];
volatile uint32_t npushed;

/* Record a word the firmware is about to push (the test checks the model got it). */
static void note(uint32_t word)
{
    results[npushed] = word;
    npushed = npushed + 1;
}

int main(void)
{
    /* 1. Dst data through the window, fmt 0 (FP32, swizzled). */
    tdbg_set_dst_access(CORE, TDBG_FMT_FP32, 0, 0);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < 16; c++)
            TDBG_DST32_F32(r, c) = (float)(r * 16 + c + 1);
    /* Window stores and pushes go to different regions: read the last
     * element back so every window store is processed before the pushes. */
    tdbg_consume(TDBG_DST32_U32(ROWS - 1, 15));

    /* 2. MOVD2B reads Dst32b when ALU_ACC_CTRL_Fp32_enabled is set; the SrcA
     * format keeps its reset value 0 (FP32), so SrcB gets BF16. */
    TDBG_CFG_SET(0, ALU_ACC_CTRL_Fp32_enabled, 1);

    /* 3. Reset the SrcA/SrcB/Dst RWCs and the fidelity phase (.ttinsn). */
    note(TT_OP_SETRWC(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    TTI(TT_OP_SETRWC(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0));

    /* 4. Row 0 -> SrcB row 0 (.ttinsn). */
    note(TT_OP_MOVD2B(0, 0, 0, 0, 0));
    TTI(TT_OP_MOVD2B(0, 0, 0, 0, 0));

    /* 5. Rows 1..3 one at a time, with sw (the row is a run-time value). */
    for (int r = 1; r < 4; r++) {
        uint32_t word = TT_OP_MOVD2B(r, 0, 0, r, 0);
        note(word);
        TT_PUSH(word);
    }

    /* 6. Rows 4..7 as one aligned block of four (.ttinsn). */
    note(TT_OP_MOVD2B(4, 1, 0, 4, 0));
    TTI(TT_OP_MOVD2B(4, 1, 0, 4, 0));

    /* 7. Wait until the coprocessor has executed everything we pushed. */
    tdbg_wait_coprocessor_done();
    return 0;
}
