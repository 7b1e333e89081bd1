/* eltwise_t2.c: the pack thread of the three-core eltwise kernel (see eltwise_t0.c). */
#include "tensix.h"

#define SUM_ADDR 0x50000u
#define COPY_ADDR 0x52000u
#define FP32 0u
#define BF16 5u
#define BFP8 6u
#ifndef SUM_FORMAT          /* -DSUM_FORMAT=... -DCOPY_FORMAT=...: other output formats */
#define SUM_FORMAT FP32
#define COPY_FORMAT BFP8
#endif
#define EXP_SECTIONS(fmt) (((fmt) & 3) >= 2 && (fmt) != 10 && (fmt) != 14 ? 4u : 0u)  /* BFP: 4 faces */

volatile uint32_t results[1];   /* [0]: tiles packed */

static void cfg(uint32_t addr32, uint32_t value) { tdbg_cfg_write(0, addr32, value); }

/* THCON_SEC0_REG1 word 70: Disable_zero_compress 0, Out_data_format 7:4, In_data_format 11:8. */
static void packer_formats(uint32_t out_fmt, uint32_t out_addr, uint32_t exp_sections)
{
    cfg(68, exp_sections << 16);        /* Exp_section_size (16-byte units before the data) */
    cfg(69, out_addr / 16 - 1);         /* L1_Dest_addr: the stream starts at (addr + 1) * 16 */
    cfg(70, 1u | out_fmt << 4 | BF16 << 8);
}

/* tt-llk's pack MOP for one tile: four PACRs per face (each four Dst rows, all read
 * interfaces), ADDR_MOD_PACK_SEC2 moves to the next face, SEC1 ends the tile with Last. */
__attribute__((noinline)) static void pack_tile(void)   /* a function to break in */
{
    for (int face = 0; face < 3; face++) {
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));
        TTI(TT_OP_PACR(0, 0, 0, 0, 0));
        TTI(TT_OP_PACR(2, 0, 0, 0, 0));
    }
    TTI(TT_OP_PACR(0, 0, 0, 0, 0));
    TTI(TT_OP_PACR(0, 0, 0, 0, 0));
    TTI(TT_OP_PACR(0, 0, 0, 0, 0));
    TTI(TT_OP_PACR(1, 0, 0, 0, 1));
}

int main(void)
{
    tdbg_cfg_set_field(0, 1, 25, 0xFu << 25, BF16);      /* ALU_FORMAT_SPEC_REG2_Dstacc: the intermediate format BF16 */
    cfg(24, 0xFFFF);                    /* PCK_EDGE_OFFSET_SEC0_mask: every column */
    cfg(28, 16u << 8);                  /* PACK_COUNTERS_SEC0_pack_reads_per_xy_plane 16 */
    cfg(12, 32u << 16);                 /* PCK0_ADDR_CTRL_XY_REG_0_Ystride: 32 bytes, one row */
    cfg(13, 512u | 2048u << 16);        /* Zstride: a face (16 rows); Wstride: a tile */
    TTI(TT_OP_SETC16(0x104, 37));       /* ADDR_MOD_PACK_SEC0: Ysrc += 4, Ydst += 4 */
    TTI(TT_OP_SETC16(0x2820, 38));      /* SEC1: clear Ysrc, Ydst, Zsrc */
    TTI(TT_OP_SETC16(0x1120, 39));      /* SEC2: clear Ysrc, Ydst += 4, Zsrc += 1 */
    TTI(TT_OP_SETADCXX(TDBG_ADC_PK, 0, 15));                 /* 16 datums per read interface */
    packer_formats(SUM_FORMAT, SUM_ADDR, EXP_SECTIONS(SUM_FORMAT));
    TTI(TT_OP_SEMWAIT(1, 1u << 2, 1));  /* hold the PACRs (block bit B0) while semaphore 2 is 0 */
    pack_tile();                        /* Dst rows 0..63 (A + B) as FP32 */
    tdbg_wait_coprocessor_done();       /* those PACRs have run before the packer is reconfigured */
    packer_formats(COPY_FORMAT, COPY_ADDR, EXP_SECTIONS(COPY_FORMAT));
    TTI(TT_OP_SETDMAREG(64, 2 * 60));   /* GPR 60 = 64, then DEST_TARGET_REG_CFG_PACK_SEC0_Offset */
    TTI(TT_OP_WRCFG(180, 0, 60));       /* (a global word, 180) = 64: pack from Dst row 64 */
    pack_tile();                        /* Dst rows 64..127 (A) as BFP8 */
    TTI(TT_OP_SEMGET(1u << 2));
    tdbg_wait_coprocessor_done();
    results[0] = 2;
    return 0;
}
