/*
 * dst_fill.c - fill a 32x32 FP32 tile in Dst through the RISC-V window, read it
 * back, then read the same bytes again through the BF16 view.
 *
 * Behaviour: BlackholeA0/TensixTile/TensixCoprocessor/Dst.md, "RISCV access to
 * Dst" (Store32/Load32 for fmt 0, Load16 for fmt 3) and the Dst16b/Dst32b
 * storage mapping (Adj32) at the top of that page.
 *
 * Results (read by symbol):
 *   results[r*16 + c], r < 64, c < 16: bits of the float loaded back from
 *       Dst32b[r][c] in fmt 0; equal to the bits of r*0.5 + c - 3.0.
 *   results_bf16[R*16 + c], R < 128: the 16-bit value loaded with lhu from
 *       Dst16b[R][c] in fmt 3 (same 4 KiB of window addresses).
 */
#include "tensix.h"

#define CORE      0            /* runs on T0: RISC_DEST_ACCESS_CTRL_SEC0 */
#define ROWS      64           /* 32x32 tile = 1024 floats = 64 Dst32b rows */
#define COLS      16

volatile uint32_t results[ROWS * COLS];
volatile uint16_t results_bf16[2 * ROWS * COLS];

/* Exactly representable in FP32 and in BF16 (at most 7 significant bits). */
static float tile_value(int row, int col)
{
    return (float)row * 0.5f + (float)col - 3.0f;
}

int main(void)
{
    /* fmt 0 with swizzling: plain IEEE FP32 on the CPU side. */
    tdbg_set_dst_access(CORE, TDBG_FMT_FP32, 0, 0);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            TDBG_DST32_F32(r, c) = tile_value(r, c);

    for (int i = 0; i < ROWS * COLS; i++)
        results[i] = TDBG_DST_U32[i];

    /* Same storage seen as BF16: one config store, then 16-bit loads. */
    tdbg_set_dst_access(CORE, TDBG_FMT_BF16, 0, 0);
    for (int i = 0; i < 2 * ROWS * COLS; i++)
        results_bf16[i] = TDBG_DST_U16[i];

    return 0;
}
