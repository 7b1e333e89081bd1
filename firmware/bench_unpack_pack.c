/*
 * bench_unpack_pack.c - `iterations` trips of six .ttinsn pushes that move faces between L1 and
 * the register files: UNPACR (unpacker 0: the BF16 face at 0x30000 -> SrcA rows 0..15), UNPACR
 * (unpacker 1: the BF16 face at 0x30200 -> SrcB rows 0..15), then three PACRs and a Last PACR
 * that pack Dst rows 0..15 (one face, four rows each) as BF16 to 0x31000.  Measures pushed
 * Tensix instructions per second (scripts/bench.py figure (d)).  results[0] = iterations.
 *
 * Single core (T0), no math thread: the UNPACRs do not set FlipSrc, so both banks stay with the
 * unpackers (an UNPACR waits while its bank belongs to the matrix unit, UNPACR_Regular.md).
 * Every trip reads and writes the same places, so no ADC reset is pushed: the UNPACRs increment
 * no counter (Ch0/Ch1 Y/Z increments 0), the first three PACRs step Dst by four rows
 * (ADDR_MOD_PACK_SEC0) and the Last one clears the Y/Z counters (SEC1) and ends the output
 * stream, so the next PACR starts again at L1_Dest_addr (OutputAddressGenerator.md).
 * Configuration as in eltwise_t0.c / eltwise_t2.c, with BF16 everywhere.  Before the loop the
 * firmware writes its inputs: A[i] = 0x3F80 + i, B[i] = 0xBF80 + i (BF16 bits, i = 0..255).
 */
#include "tensix.h"

#define A_ADDR 0x30000u
#define B_ADDR 0x30200u
#define OUT_ADDR 0x31000u
#define BF16 5u
#define SEC0 64u    /* THCON_SEC0 (unpacker 0; packer words 68..70), see eltwise_t0.c */
#define SEC1 112u   /* THCON_SEC1 (unpacker 1) */

volatile uint32_t iterations = 2000;
volatile uint32_t results[1];

static void cfg(uint32_t addr32, uint32_t value) { tdbg_cfg_write(0, addr32, value); }

static void configure_unpackers(void)
{
    for (uint32_t sec = SEC0; sec <= SEC1; sec += SEC1 - SEC0) {
        cfg(sec + 0, BF16 | 1u << 4 | 256u << 16);  /* TileDescriptor: BF16, uncompressed, XDim 256 */
        cfg(sec + 1, 1u | 4u << 16);                /* YDim 1, ZDim 4 */
        cfg(sec + 8, BF16);                         /* REG2_Out_data_format */
        cfg(sec + 9, 1);                            /* REG2_Disable_zero_compress_cntx0 */
    }
    cfg(SEC0 + 12, A_ADDR / 16 - 1);    /* REG3_Base_address: InAddr = (Base + 1) * 16 */
    cfg(SEC1 + 12, B_ADDR / 16 - 1);
    cfg(SEC0 + 20, 64);                 /* Dest_cntx0_address: SrcA row (64 / 16) - 4 = 0 */
    cfg(SEC0 + 22, 256);                /* Tile_x_dim_cntx0 */
    TTI(TT_OP_SETC16(1u << 2, 5));      /* SRCA_SET_SetOvrdWithAddr */
    TTI(TT_OP_SETADCXX(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 255));                  /* 256 datums each */
    TTI(TT_OP_SETADCXY(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 0, 0, 0, 0xA));          /* Y0 = Y1 = 0 */
    TTI(TT_OP_SETADCZW(TDBG_ADC_U0 | TDBG_ADC_U1, 0, 0, 0, 0, 0xF));          /* Z, W = 0 */
}

static void configure_packer(void)
{
    tdbg_cfg_set_field(0, 1, 25, 0xFu << 25, BF16);      /* ALU_FORMAT_SPEC_REG2_Dstacc: BF16 */
    cfg(24, 0xFFFF);                    /* PCK_EDGE_OFFSET_SEC0_mask: every column */
    cfg(28, 16u << 8);                  /* PACK_COUNTERS_SEC0_pack_reads_per_xy_plane 16 */
    cfg(12, 32u << 16);                 /* PCK0_ADDR_CTRL_XY_REG_0_Ystride: 32 bytes, one row */
    cfg(68, 0);                         /* Exp_section_size 0: BF16 has none */
    cfg(69, OUT_ADDR / 16 - 1);         /* L1_Dest_addr: the stream starts at (addr + 1) * 16 */
    cfg(70, 1u | BF16 << 4 | BF16 << 8);    /* uncompressed, Out and In data format BF16 */
    TTI(TT_OP_SETC16(0x104, 37));       /* ADDR_MOD_PACK_SEC0: Ysrc += 4, Ydst += 4 */
    TTI(TT_OP_SETC16(0x2820, 38));      /* SEC1: clear Ysrc, Ydst, Zsrc */
    TTI(TT_OP_SETADCXX(TDBG_ADC_PK, 0, 15));                 /* 16 datums per read interface */
}

int main(void)
{
    uint32_t n = iterations;
    volatile uint16_t *a = (volatile uint16_t *)A_ADDR, *b = (volatile uint16_t *)B_ADDR;

    for (uint32_t i = 0; i < 256; i++) {
        a[i] = 0x3F80 + i;
        b[i] = 0xBF80 + i;
    }
    configure_unpackers();
    configure_packer();
    for (uint32_t i = 0; i < n; i++) {
        TTI(TT_OP_UNPACR(0, 0, 0, 0, 0, 1, 0, 1));  /* A -> SrcA, no FlipSrc */
        TTI(TT_OP_UNPACR(1, 0, 0, 0, 0, 1, 0, 1));  /* B -> SrcB */
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));             /* Dst rows 0..3 */
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));             /* 4..7 */
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));             /* 8..11 */
        TTI(TT_OP_PACR(1, 0, 0, 0, 1));             /* 12..15, Last: back to OUT_ADDR */
    }
    tdbg_wait_coprocessor_done();
    results[0] = n;
    return 0;
}
