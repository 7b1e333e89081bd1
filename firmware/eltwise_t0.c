/*
 * eltwise_t0.c, eltwise_t1.c, eltwise_t2.c - one 32x32 tile through the whole coprocessor, as a
 * real kernel's unpack -> math -> pack threads move it (load them together:
 * tdbg T0=eltwise_t0.c T1=eltwise_t1.c T2=eltwise_t2.c, with the inputs restored into L1).
 *
 * Inputs in L1: A at 0x30000, a BF16 tile (4 faces of 16x16 datums, face by face, row-major in
 * a face); B at 0x40000, a BFP8 tile (64 shared exponents, one per 16 datums, then 1024
 * sign-magnitude bytes).  Outputs: A + B as FP32 at 0x50000 (4096 bytes); A as BFP8 at 0x52000
 * (64 exponents, then 1024 bytes).
 *
 * T0 (unpack): configures both unpackers, then for each face unpacks A's face into SrcA
 *    (unpacker 0) and B's face into SrcB (unpacker 1), each UNPACR giving its bank to the
 *    matrix unit (FlipSrc) and moving to the next face (Ch0ZInc).  UNPACR waits at the Wait Gate
 *    while its bank still belongs to the matrix unit, so the banks hand the faces over.
 * T1 (math): for each face copies SrcA into Dst rows 64.. (MOVA2D) and adds SrcA + SrcB into Dst
 *    rows 0.. (ELWADD; the second one gives both banks back), then posts semaphore 2.
 * T2 (pack): waits for semaphore 2 at its Wait Gate (SEMWAIT), packs Dst rows 0..63 as FP32,
 *    then (once those are done: TTSync) rows 64..127 as BFP8, then takes the semaphore.
 *
 * Configuration as tt-llk writes it (bh_cfg.json word numbers, Config bank 0): the unpackers in
 * MultiContextMode with context 0, the packer with one tile per Last PACR.  Pages: UNPACR_Regular.md,
 * PACR.md, Packers/*.md, ADCs.md, MOVA2D.md, ELWADD.md, SEMWAIT.md, TTSync.md.
 */
#include "tensix.h"

#define A_ADDR 0x30000u
#define B_ADDR 0x40000u
#define BF16 5u
#define BFP8 6u
#ifndef A_FORMAT            /* -DA_FORMAT=... -DA_OUT_FORMAT=... -DB_FORMAT=...: other L1 formats */
#define A_FORMAT BF16
#define A_OUT_FORMAT BF16
#define B_FORMAT BFP8
#endif
#define SEC0 64u    /* THCON_SEC0 (unpacker 0): TileDescriptor 64..67, REG2 72/73, Base_address 76, */
                    /* REG5 Dest_cntx0_address 84 (bits 15:0), Tile_x_dim_cntx0 86 (bits 15:0)      */
#define SEC1 112u   /* THCON_SEC1 (unpacker 1): the same words, 48 further on                        */

volatile uint32_t results[1];   /* [0]: faces unpacked from each input */

static void cfg(uint32_t addr32, uint32_t value) { tdbg_cfg_write(0, addr32, value); }

/* A face of 256 datums per XY plane, four planes (faces): TileDescriptor (UNPACR_Regular.md,
 * "Configuration"): InDataFormat 3:0, IsUncompressed 4, XDim 31:16, YDim 39:32, ZDim 55:48;
 * WDim (bits 71:64) stays 0, which means 1. */
static void tile_descriptor(uint32_t sec, uint32_t fmt)
{
    cfg(sec + 0, fmt | 1u << 4 | 256u << 16);
    cfg(sec + 1, 1u | 4u << 16);
}

int main(void)
{
    tile_descriptor(SEC0, A_FORMAT);
    tile_descriptor(SEC1, B_FORMAT);
    cfg(SEC0 + 8, A_OUT_FORMAT);        /* REG2_Out_data_format: SrcA holds BF16 */
    cfg(SEC1 + 8, B_FORMAT);            /* SrcB holds BFP8 (as BF16): the bank's implied format */
    cfg(SEC0 + 9, 1);                   /* REG2_Disable_zero_compress_cntx0: not compressed */
    cfg(SEC1 + 9, 1);
    cfg(SEC0 + 12, A_ADDR / 16 - 1);    /* REG3_Base_address: InAddr = (Base + 1) * 16 */
    cfg(SEC1 + 12, B_ADDR / 16 - 1);
    cfg(SEC0 + 20, 64);                 /* Dest_cntx0_address: SrcA row (64 / 16) - 4 = 0 */
    cfg(SEC0 + 22, 256);                /* Tile_x_dim_cntx0: unpacker 0's XDim in this mode */
    TTI(TT_OP_SETC16(1u << 2, 5));      /* SRCA_SET_SetOvrdWithAddr: SrcA rows from the address */
    TTI(TT_OP_SETADCXX(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 255));                  /* 256 datums each */
    TTI(TT_OP_SETADCXY(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 0, 0, 0, 0xA));          /* Y0 = Y1 = 0 */
    TTI(TT_OP_SETADCZW(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 0, 0, 0, 0xF));          /* Z, W = 0 */
    for (int face = 0; face < 4; face++) {
        TTI(TT_OP_UNPACR(0, 0, 0, 0, 1, 1, 1, 1));   /* A's face -> SrcA, next face */
        TTI(TT_OP_UNPACR(1, 0, 0, 0, 1, 1, 1, 1));   /* B's face -> SrcB, next face */
    }
    tdbg_wait_coprocessor_done();
    results[0] = 4;
    return 0;
}
