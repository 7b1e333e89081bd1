/*
 * sfpu_kernels.c - two Vector Unit (SFPU) kernels over an FP32 tile in Dst, with lane predication.
 *
 * Input: Dst32b rows 0-63 (a 32x32 FP32 tile; the test or the debugger writes it).
 *   relu:  Dst32b rows  64-127 = max(x, 0)
 *   elu:   Dst32b rows 128-191 = x >= 0 ? x : e^x - 1, with e^x - 1 a degree-7 Taylor polynomial
 *          (Horner, one SFPMAD per coefficient) evaluated only in the lanes where x < 0.
 * Each SFPLOAD moves 32 values: four rows, the even (Imm10 bit 1 clear) or odd columns.
 * results[0] = the number of 32-value groups done.
 */
#include "tensix.h"

volatile uint32_t results[1];

/* FP32 bits of 1/k!, k = 2..7 */
static const uint32_t inverse_factorial[] = {
    0x3F000000u, 0x3E2AAAABu, 0x3D2AAAABu, 0x3C088889u, 0x3AB60B61u, 0x39500D01u,
};

#define FP32 3                      /* MOD0_FMT_FP32 */
#define LT0 0                       /* SFPSETCC_MOD1_LREG_LT0 */
#define LCONST_0 9                  /* LReg[9] = 0, LReg[10] = 1.0 */
#define LCONST_1 10

static void load_fp32(uint32_t lreg, uint32_t bits)
{
    TT_PUSH(TT_OP_SFPLOADI(lreg, 8, bits >> 16));      /* SFPLOADI_MOD0_UPPER */
    TT_PUSH(TT_OP_SFPLOADI(lreg, 10, bits & 0xFFFF));  /* SFPLOADI_MOD0_LOWER */
}

static void all_lanes(void)
{
    TT_PUSH(TT_OP_SFPENCC(3, 0, 10));   /* UseLaneFlagsForLaneEnable = LaneFlags = true */
}

static void relu(uint32_t addr)
{
    TT_PUSH(TT_OP_SFPLOAD(0, FP32, 0, addr));
    TT_PUSH(TT_OP_SFPSETCC(0, 0, 0, LT0));             /* if (x < 0) */
    TT_PUSH(TT_OP_SFPLOADI(0, 0, 0));                  /*   x = 0.0 */
    all_lanes();
    TT_PUSH(TT_OP_SFPSTORE(0, FP32, 0, addr + 64));
}

static void elu(uint32_t addr)
{
    TT_PUSH(TT_OP_SFPLOAD(0, FP32, 0, addr));          /* L0 = x, and the result where x >= 0 */
    TT_PUSH(TT_OP_SFPSETCC(0, 0, 0, LT0));             /* if (x < 0) */
    load_fp32(1, inverse_factorial[5]);                /*   p = 1/7! */
    for (int k = 4; k >= 0; k--) {
        load_fp32(2, inverse_factorial[k]);
        TT_PUSH(TT_OP_SFPMAD(1, 0, 2, 1, 0));          /*   p = p * x + 1/(k+2)! */
    }
    TT_PUSH(TT_OP_SFPMAD(1, 0, LCONST_1, 1, 0));       /*   p = p * x + 1 */
    TT_PUSH(TT_OP_SFPMUL(1, 0, LCONST_0, 0, 0));       /*   x = p * x */
    all_lanes();
    TT_PUSH(TT_OP_SFPSTORE(0, FP32, 0, addr + 128));
}

int main(void)
{
    uint32_t groups = 0;
    all_lanes();
    for (uint32_t row = 0; row < 64; row += 4) {
        for (uint32_t odd = 0; odd <= 2; odd += 2) {
            relu(row + odd);
            elu(row + odd);
            groups++;
        }
    }
    tdbg_wait_coprocessor_done();
    results[0] = groups;
    return 0;
}
