/*
 * tensix.h - tdbg's own minimal header for firmware running on a T core
 * (TRISC0/1/2) of a Blackhole Tensix tile.
 *
 * Written for tdbg from the facts in the reference pack:
 *   addresses    tt-isa-documentation-newer/BlackholeA0/TensixTile/BabyRISCV/README.md
 *                (memory map), shared/spec/memory_map.md
 *   Dst window   .../BlackholeA0/TensixTile/TensixCoprocessor/Dst.md,
 *                section "RISCV access to Dst"
 *   config       .../BlackholeA0/TensixTile/TensixCoprocessor/BackendConfiguration.md,
 *                field positions from shared/spec/bh_cfg_fields.json
 *   pushes       tt-isa-documentation/WormholeB0/TensixTile/BabyRISCV/PushTensixInstruction.md
 *   ordering     .../WormholeB0/TensixTile/BabyRISCV/MemoryOrdering.md, TTSync.md
 *   encodings    shared/spec/bh_encodings.json (tt-llk's Blackhole assembly.yaml):
 *                opcode and field start bits; fields named as on the Wormhole pages
 */
#ifndef TDBG_TENSIX_H
#define TDBG_TENSIX_H

#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Address map (T core view)                                                 */
/* ------------------------------------------------------------------------ */

#define TDBG_L1_BASE            0x00000000u
#define TDBG_L1_SIZE            (1536u * 1024u)
#define TDBG_LOCAL_MEM_BASE     0xFFB00000u     /* private data RAM, 4 KiB on T cores */
#define TDBG_LOCAL_MEM_SIZE     0x1000u
#define TDBG_DST_BASE           0xFFBD8000u     /* RISC-V window onto Dst (T0/T1/T2) */
#define TDBG_DST_SIZE           0x8000u
#define INSTRN_BUF_BASE         0xFFE40000u     /* sw here pushes a Tensix instruction */
#define PC_BUF_BASE             0xFFE80000u
#define TENSIX_CFG_BASE         0xFFEF0000u
#define RISCV_DEBUG_REG_DBG_FEATURE_DISABLE 0xFFB12068u

/* TTSync registers (TTSync.md) and Tensix semaphores (SyncUnit.md). */
#define TDBG_COPROCESSOR_DONE_CHECK  (PC_BUF_BASE + 4u)
#define TDBG_MOP_EXPANDER_DONE_CHECK (PC_BUF_BASE + 8u)
#define TDBG_SEMAPHORE_ADDR(i)       (PC_BUF_BASE + 0x20u + 4u * (i))

/* ------------------------------------------------------------------------ */
/* Backend configuration layout, Blackhole (BackendConfiguration.md):        */
/*   uint32_t Config[2][CFG_STATE_SIZE*4];                                   */
/*   uint32_t ConfigDualWrite[CFG_STATE_SIZE*4];                             */
/*   struct { uint16_t Value, Padding; } ThreadConfig[3][THD_STATE_SIZE];    */
/* ------------------------------------------------------------------------ */

#define CFG_STATE_SIZE          56
#define THD_STATE_SIZE          68
#define TDBG_CFG_BANK_WORDS     (CFG_STATE_SIZE * 4)            /* 224 */
#define GLOBAL_CFGREG_BASE_ADDR32 180

/* Byte address of Config[bank][addr32]; bank 1 starts at +0x380. */
#define TDBG_CFG_ADDR(bank, addr32) \
    (TENSIX_CFG_BASE + 4u * ((uint32_t)(bank) * TDBG_CFG_BANK_WORDS + (uint32_t)(addr32)))
/* ConfigDualWrite[addr32]: one store updates both banks. */
#define TDBG_CFG_DUAL_ADDR(addr32) \
    (TENSIX_CFG_BASE + 4u * (2u * TDBG_CFG_BANK_WORDS + (uint32_t)(addr32)))
/* ThreadConfig[thread][addr32] (read-only for RISC-V; SETC16 writes it). */
#define TDBG_THREAD_CFG_ADDR(thread, addr32) \
    (TENSIX_CFG_BASE + 4u * (3u * TDBG_CFG_BANK_WORDS) + \
     4u * ((uint32_t)(thread) * THD_STATE_SIZE + (uint32_t)(addr32)))

#define TDBG_CFG_WORD(bank, addr32)  (*(volatile uint32_t *)TDBG_CFG_ADDR(bank, addr32))

/* Field positions (bh_cfg_fields.json). Config fields unless noted. */
#define RISC_DEST_ACCESS_CTRL_SEC0_no_swizzle_ADDR32    3
#define RISC_DEST_ACCESS_CTRL_SEC0_no_swizzle_SHAMT     14
#define RISC_DEST_ACCESS_CTRL_SEC0_no_swizzle_MASK      0x4000u
#define RISC_DEST_ACCESS_CTRL_SEC0_unsigned_int_ADDR32  3
#define RISC_DEST_ACCESS_CTRL_SEC0_unsigned_int_SHAMT   15
#define RISC_DEST_ACCESS_CTRL_SEC0_unsigned_int_MASK    0x8000u
#define RISC_DEST_ACCESS_CTRL_SEC0_fmt_ADDR32           3
#define RISC_DEST_ACCESS_CTRL_SEC0_fmt_SHAMT            16
#define RISC_DEST_ACCESS_CTRL_SEC0_fmt_MASK             0x70000u
#define RISC_DEST_ACCESS_CTRL_SEC1_no_swizzle_ADDR32    3
#define RISC_DEST_ACCESS_CTRL_SEC1_no_swizzle_SHAMT     19
#define RISC_DEST_ACCESS_CTRL_SEC1_no_swizzle_MASK      0x80000u
#define RISC_DEST_ACCESS_CTRL_SEC1_unsigned_int_ADDR32  3
#define RISC_DEST_ACCESS_CTRL_SEC1_unsigned_int_SHAMT   20
#define RISC_DEST_ACCESS_CTRL_SEC1_unsigned_int_MASK    0x100000u
#define RISC_DEST_ACCESS_CTRL_SEC1_fmt_ADDR32           3
#define RISC_DEST_ACCESS_CTRL_SEC1_fmt_SHAMT            21
#define RISC_DEST_ACCESS_CTRL_SEC1_fmt_MASK             0xE00000u
#define RISC_DEST_ACCESS_CTRL_SEC2_no_swizzle_ADDR32    3
#define RISC_DEST_ACCESS_CTRL_SEC2_no_swizzle_SHAMT     24
#define RISC_DEST_ACCESS_CTRL_SEC2_no_swizzle_MASK      0x1000000u
#define RISC_DEST_ACCESS_CTRL_SEC2_unsigned_int_ADDR32  3
#define RISC_DEST_ACCESS_CTRL_SEC2_unsigned_int_SHAMT   25
#define RISC_DEST_ACCESS_CTRL_SEC2_unsigned_int_MASK    0x2000000u
#define RISC_DEST_ACCESS_CTRL_SEC2_fmt_ADDR32           3
#define RISC_DEST_ACCESS_CTRL_SEC2_fmt_SHAMT            26
#define RISC_DEST_ACCESS_CTRL_SEC2_fmt_MASK             0x1C000000u

#define DEST_ACCESS_CFG_swizzle_32b_ADDR32              220     /* GLOBAL */
#define DEST_ACCESS_CFG_swizzle_32b_SHAMT               0
#define DEST_ACCESS_CFG_swizzle_32b_MASK                0x1u
#define DEST_ACCESS_CFG_remap_addrs_ADDR32              220     /* GLOBAL */
#define DEST_ACCESS_CFG_remap_addrs_SHAMT               1
#define DEST_ACCESS_CFG_remap_addrs_MASK                0x2u

#define ALU_FORMAT_SPEC_REG_SrcA_val_ADDR32             0
#define ALU_FORMAT_SPEC_REG_SrcA_val_SHAMT              0
#define ALU_FORMAT_SPEC_REG_SrcA_val_MASK               0xFu
#define ALU_FORMAT_SPEC_REG_SrcA_override_ADDR32        0
#define ALU_FORMAT_SPEC_REG_SrcA_override_SHAMT         4
#define ALU_FORMAT_SPEC_REG_SrcA_override_MASK          0x10u
#define ALU_FORMAT_SPEC_REG0_SrcA_ADDR32                1
#define ALU_FORMAT_SPEC_REG0_SrcA_SHAMT                 17
#define ALU_FORMAT_SPEC_REG0_SrcA_MASK                  0x1E0000u
#define ALU_ACC_CTRL_Fp32_enabled_ADDR32                1
#define ALU_ACC_CTRL_Fp32_enabled_SHAMT                 29
#define ALU_ACC_CTRL_Fp32_enabled_MASK                  0x20000000u
#define ALU_ACC_CTRL_INT8_math_enabled_ADDR32           1
#define ALU_ACC_CTRL_INT8_math_enabled_SHAMT            31
#define ALU_ACC_CTRL_INT8_math_enabled_MASK             0x80000000u
#define STATE_RESET_EN_ADDR32                           4
#define STATE_RESET_EN_SHAMT                            0
#define STATE_RESET_EN_MASK                             0x1u
#define DEST_REGW_BASE_Base_ADDR32                      6
#define DEST_REGW_BASE_Base_SHAMT                       0
#define DEST_REGW_BASE_Base_MASK                        0xFFFFu

/* ThreadConfig fields. */
#define CFG_STATE_ID_StateID_ADDR32                     0
#define CFG_STATE_ID_StateID_SHAMT                      0
#define CFG_STATE_ID_StateID_MASK                       0x1u
#define DEST_TARGET_REG_CFG_MATH_Offset_ADDR32          1
#define DEST_TARGET_REG_CFG_MATH_Offset_SHAMT           0
#define DEST_TARGET_REG_CFG_MATH_Offset_MASK            0xFFFu

/* Bit 11 of DBG_FEATURE_DISABLE makes Dst16b alias the high half of Dst32b. */
#define TDBG_DBG_FEATURE_DST16_ALIASES_DST32            (1u << 11)

/* ------------------------------------------------------------------------ */
/* Ordering helpers (MemoryOrdering.md)                                      */
/* ------------------------------------------------------------------------ */

/* An instruction that reads v, so a load result must have arrived before the
 * following memory operation is issued. */
static inline void tdbg_consume(uint32_t v)
{
    __asm__ volatile("add zero, zero, %0" : : "r"(v) : "memory");
}

/* Store a Config word and make sure the write has been processed before any
 * later access (sw, then lw of the same address, then use the loaded value). */
static inline void tdbg_cfg_write(uint32_t bank, uint32_t addr32, uint32_t value)
{
    volatile uint32_t *p = (volatile uint32_t *)TDBG_CFG_ADDR(bank, addr32);
    *p = value;
    tdbg_consume(*p);
}

/* Read-modify-write one field of Config[bank]. */
static inline void tdbg_cfg_set_field(uint32_t bank, uint32_t addr32, uint32_t shamt,
                                      uint32_t mask, uint32_t value)
{
    uint32_t w = TDBG_CFG_WORD(bank, addr32);
    w = (w & ~mask) | ((value << shamt) & mask);
    tdbg_cfg_write(bank, addr32, w);
}
#define TDBG_CFG_SET(bank, FIELD, value)                                        \
    tdbg_cfg_set_field((bank), FIELD##_ADDR32, FIELD##_SHAMT, FIELD##_MASK, (value))

/* ------------------------------------------------------------------------ */
/* Dst window (Dst.md "RISCV access to Dst")                                 */
/* ------------------------------------------------------------------------ */

/* Values of RISC_DEST_ACCESS_CTRL_SEC[core].fmt: the shape of the window. */
enum tdbg_dst_fmt {
    TDBG_FMT_FP32  = 0,   /* float / uint32_t Dst32b[512][16], sw/lw            */
    TDBG_FMT_INT32 = 1,   /* int32_t Dst32b[512][16], two's complement <-> s-m  */
    TDBG_FMT_FP16  = 2,   /* __fp16 Dst16b[1024][16], sh/lhu                    */
    TDBG_FMT_BF16  = 3,   /* __bf16 Dst16b[1024][16], sh/lhu                    */
    TDBG_FMT_INT16 = 4,   /* int16_t / uint16_t Dst16b[1024][16], sh/lhu        */
    TDBG_FMT_INT8  = 5,   /* int8_t / uint8_t Dst16b[1024][16], sb/lbu          */
};

/* Base pointers, one per element type. */
#define TDBG_DST_U32  ((volatile uint32_t *)TDBG_DST_BASE)
#define TDBG_DST_F32  ((volatile float    *)TDBG_DST_BASE)
#define TDBG_DST_I32  ((volatile int32_t  *)TDBG_DST_BASE)
#define TDBG_DST_U16  ((volatile uint16_t *)TDBG_DST_BASE)
#define TDBG_DST_I16  ((volatile int16_t  *)TDBG_DST_BASE)
#define TDBG_DST_U8   ((volatile uint8_t  *)TDBG_DST_BASE)
#define TDBG_DST_I8   ((volatile int8_t   *)TDBG_DST_BASE)

/* One element: row and column of the view that fmt selects (16 columns). */
#define TDBG_DST32_U32(row, col)  (TDBG_DST_U32[(row) * 16 + (col)])
#define TDBG_DST32_F32(row, col)  (TDBG_DST_F32[(row) * 16 + (col)])
#define TDBG_DST32_I32(row, col)  (TDBG_DST_I32[(row) * 16 + (col)])
#define TDBG_DST16_U16(row, col)  (TDBG_DST_U16[(row) * 16 + (col)])
#define TDBG_DST16_I16(row, col)  (TDBG_DST_I16[(row) * 16 + (col)])
#define TDBG_DST16_U8(row, col)   (TDBG_DST_U8[(row) * 16 + (col)])
#define TDBG_DST16_I8(row, col)   (TDBG_DST_I8[(row) * 16 + (col)])

/* Set fmt / no_swizzle / unsigned_int of RISC_DEST_ACCESS_CTRL_SEC[core] in
 * Config bank 0 (word 3). The three cores' fields sit 5 bits apart. */
static inline void tdbg_set_dst_access(unsigned core, unsigned fmt, unsigned no_swizzle,
                                       unsigned unsigned_int)
{
    uint32_t sh = (core == 2) ? RISC_DEST_ACCESS_CTRL_SEC2_no_swizzle_SHAMT
                : (core == 1) ? RISC_DEST_ACCESS_CTRL_SEC1_no_swizzle_SHAMT
                              : RISC_DEST_ACCESS_CTRL_SEC0_no_swizzle_SHAMT;
    /* no_swizzle at sh, unsigned_int at sh+1, fmt (3 bits) at sh+2 */
    uint32_t mask = 0x1Fu << sh;
    uint32_t bits = ((no_swizzle & 1u) | ((unsigned_int & 1u) << 1) | ((fmt & 7u) << 2)) << sh;
    uint32_t w = TDBG_CFG_WORD(0, RISC_DEST_ACCESS_CTRL_SEC0_fmt_ADDR32);
    tdbg_cfg_write(0, RISC_DEST_ACCESS_CTRL_SEC0_fmt_ADDR32, (w & ~mask) | bits);
}

/* ------------------------------------------------------------------------ */
/* Tensix instruction words, Blackhole layouts (bh_encodings.json)          */
/* ------------------------------------------------------------------------ */

#define TT_OP(opcode, params)   (((uint32_t)(opcode) << 24) + (uint32_t)(params))
/* One operand field: value masked to its width, shifted to its lsb. */
#define TT_F(v, lsb, width)     ((((uint32_t)(v)) & ((1u << (width)) - 1u)) << (lsb))

#define TT_OP_NOP TT_OP(0x02, 0)     /* no operands (Blackhole encodings list) */

#define TT_OP_SETRWC(SrcA, SrcB, Dst, Fidelity, SrcAVal, SrcBVal, DstVal, SrcACr, SrcBCr, \
                     DstCr, DstCtoCr, FlipSrcA, FlipSrcB)                                \
    TT_OP(0x37, TT_F(SrcA, 0, 1) + TT_F(SrcB, 1, 1) + TT_F(Dst, 2, 1) +                  \
                TT_F(Fidelity, 3, 1) + TT_F(SrcAVal, 6, 4) + TT_F(SrcBVal, 10, 4) +      \
                TT_F(DstVal, 14, 4) + TT_F(SrcACr, 18, 1) + TT_F(SrcBCr, 19, 1) +        \
                TT_F(DstCr, 20, 1) + TT_F(DstCtoCr, 21, 1) + TT_F(FlipSrcA, 22, 1) +     \
                TT_F(FlipSrcB, 23, 1))

#define TT_OP_INCRWC(SrcAInc, SrcBInc, DstInc, SrcACr, SrcBCr, DstCr)                     \
    TT_OP(0x38, TT_F(SrcAInc, 6, 4) + TT_F(SrcBInc, 10, 4) + TT_F(DstInc, 14, 4) +       \
                TT_F(SrcACr, 18, 1) + TT_F(SrcBCr, 19, 1) + TT_F(DstCr, 20, 1))

#define TT_OP_MOVD2A(DstRow, Move4Rows, AddrMod, SrcRow, UseDst32bLo)                     \
    TT_OP(0x08, TT_F(DstRow, 0, 10) + TT_F(Move4Rows, 13, 1) + TT_F(AddrMod, 14, 3) +    \
                TT_F(SrcRow, 17, 6) + TT_F(UseDst32bLo, 23, 1))

#define TT_OP_MOVD2B(DstRow, Move4Rows, AddrMod, SrcRow, UseDst32bLo)                     \
    TT_OP(0x0A, TT_F(DstRow, 0, 10) + TT_F(Move4Rows, 13, 1) + TT_F(AddrMod, 14, 3) +    \
                TT_F(SrcRow, 17, 6) + TT_F(UseDst32bLo, 23, 1))

#define TT_OP_MOVA2D(DstRow, Move8Rows, AddrMod, SrcRow, UseDst32bLo)                     \
    TT_OP(0x12, TT_F(DstRow, 0, 10) + TT_F(Move8Rows, 13, 1) + TT_F(AddrMod, 14, 3) +    \
                TT_F(SrcRow, 17, 6) + TT_F(UseDst32bLo, 23, 1))

#define TT_OP_MOVB2D(DstRow, BroadcastCol0, Broadcast1RowTo8, Move4Rows, AddrMod, SrcRow, \
                     UseDst32bLo)                                                         \
    TT_OP(0x13, TT_F(DstRow, 0, 10) + TT_F(BroadcastCol0, 11, 1) +                       \
                TT_F(Broadcast1RowTo8, 12, 1) + TT_F(Move4Rows, 13, 1) +                 \
                TT_F(AddrMod, 14, 3) + TT_F(SrcRow, 17, 6) + TT_F(UseDst32bLo, 23, 1))

/* Blackhole moves UseDst32b to bit 18 (use_32_bit_mode) and Revert to 17 (clear_zero_flags). */
#define TT_OP_ZEROACC(Imm10, AddrMod, Revert, Mode, UseDst32b)                            \
    TT_OP(0x10, TT_F(Imm10, 0, 10) + TT_F(AddrMod, 14, 3) + TT_F(Revert, 17, 1) +        \
                TT_F(UseDst32b, 18, 1) + TT_F(Mode, 19, 2))

#define TT_OP_ZEROSRC(ClearSrcA, ClearSrcB, BothBanks, SingleBankMatrixUnit,              \
                      NegativeInfSrcA)                                                    \
    TT_OP(0x11, TT_F(ClearSrcA, 0, 1) + TT_F(ClearSrcB, 1, 1) + TT_F(BothBanks, 2, 1) +  \
                TT_F(SingleBankMatrixUnit, 3, 1) + TT_F(NegativeInfSrcA, 4, 1))

#define TT_OP_SETC16(NewValue, CfgIndex)                                                  \
    TT_OP(0xB2, TT_F(NewValue, 0, 16) + TT_F(CfgIndex, 16, 8))

#define TT_OP_WRCFG(CfgIndex, Is128Bit, InputReg)                                         \
    TT_OP(0xB0, TT_F(CfgIndex, 0, 11) + TT_F(Is128Bit, 15, 1) + TT_F(InputReg, 16, 6))

#define TT_OP_SEMINIT(SemaphoreMask, NewValue, NewMax)                                    \
    TT_OP(0xA3, TT_F(SemaphoreMask, 2, 8) + TT_F(NewValue, 16, 4) + TT_F(NewMax, 20, 4))
#define TT_OP_SEMPOST(SemaphoreMask)  TT_OP(0xA4, TT_F(SemaphoreMask, 2, 8))
#define TT_OP_SEMGET(SemaphoreMask)   TT_OP(0xA5, TT_F(SemaphoreMask, 2, 8))
/* Blackhole SEMWAIT: ConditionMask (wait_sem_cond: 1 = while Value == 0, 2 = while Value == Max),
 * SemaphoreMask (sem_sel), BlockMask (stall_res: the instructions it holds). */
#define TT_OP_SEMWAIT(BlockMask, SemaphoreMask, ConditionMask)                             \
    TT_OP(0xA6, TT_F(ConditionMask, 0, 2) + TT_F(SemaphoreMask, 2, 8) + TT_F(BlockMask, 15, 9))

/* Blackhole STALLWAIT: 13-bit ConditionMask (wait_res), BlockMask (stall_res). */
#define TT_OP_STALLWAIT(ConditionMask, BlockMask)                                         \
    TT_OP(0xA2, TT_F(ConditionMask, 0, 13) + TT_F(BlockMask, 15, 9))

#define TT_OP_ELWADD(DstRow, AddrMod, BroadcastSrcBCol0, BroadcastSrcBRow, AddDst,        \
                     FlipSrcA, FlipSrcB)                                                  \
    TT_OP(0x28, TT_F(DstRow, 0, 10) + TT_F(AddrMod, 14, 3) +                             \
                TT_F(BroadcastSrcBCol0, 19, 1) + TT_F(BroadcastSrcBRow, 20, 1) +         \
                TT_F(AddDst, 21, 1) + TT_F(FlipSrcA, 22, 1) + TT_F(FlipSrcB, 23, 1))

#define TT_OP_MVMUL(DstRow, AddrMod, BroadcastSrcBRow, FlipSrcA, FlipSrcB)                \
    TT_OP(0x26, TT_F(DstRow, 0, 10) + TT_F(AddrMod, 14, 3) +                             \
                TT_F(BroadcastSrcBRow, 19, 1) + TT_F(FlipSrcA, 22, 1) + TT_F(FlipSrcB, 23, 1))

#define TT_OP_SETDVALID(FlipSrcA, FlipSrcB)                                               \
    TT_OP(0x57, TT_F(FlipSrcA, 0, 1) + TT_F(FlipSrcB, 1, 1))

/* Vector Unit (SFPU), BlackholeA0 SFP*.md pages. */
#define TT_OP_SFPLOAD(VD, Mod0, AddrMod, Imm10)                                           \
    TT_OP(0x70, TT_F(Imm10, 0, 10) + TT_F(AddrMod, 13, 3) + TT_F(Mod0, 16, 4) + TT_F(VD, 20, 4))
#define TT_OP_SFPLOADI(VD, Mod0, Imm16)                                                   \
    TT_OP(0x71, TT_F(Imm16, 0, 16) + TT_F(Mod0, 16, 4) + TT_F(VD, 20, 4))
#define TT_OP_SFPSTORE(VD, Mod0, AddrMod, Imm10)                                          \
    TT_OP(0x72, TT_F(Imm10, 0, 10) + TT_F(AddrMod, 13, 3) + TT_F(Mod0, 16, 4) + TT_F(VD, 20, 4))
#define TT_OP_SFPMAD(VA, VB, VC, VD, Mod1)                                                \
    TT_OP(0x84, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4) + TT_F(VB, 12, 4) + TT_F(VA, 16, 4))
#define TT_OP_SFPADD(VA, VB, VC, VD, Mod1)                                                \
    TT_OP(0x85, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4) + TT_F(VB, 12, 4) + TT_F(VA, 16, 4))
#define TT_OP_SFPMUL(VA, VB, VC, VD, Mod1)                                                \
    TT_OP(0x86, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4) + TT_F(VB, 12, 4) + TT_F(VA, 16, 4))
#define TT_OP_SFPMOV(VC, VD, Mod1)                                                        \
    TT_OP(0x7C, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4))
#define TT_OP_SFPSETCC(Imm1, VC, VD, Mod1)                                                \
    TT_OP(0x7B, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4) + TT_F(Imm1, 12, 1))
#define TT_OP_SFPENCC(Imm2, VD, Mod1)                                                     \
    TT_OP(0x8A, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(Imm2, 12, 2))
#define TT_OP_SFPPUSHC(VD, Mod1)   TT_OP(0x87, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4))
#define TT_OP_SFPPOPC(VD, Mod1)    TT_OP(0x88, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4))
#define TT_OP_SFPCOMPC(VD)         TT_OP(0x8B, TT_F(VD, 4, 4))
#define TT_OP_SFPIADD(Imm12, VC, VD, Mod1)                                                \
    TT_OP(0x79, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4) + TT_F(Imm12, 12, 12))
#define TT_OP_SFPSWAP(VC, VD, Mod1)                                                       \
    TT_OP(0x92, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(VC, 8, 4))
#define TT_OP_SFPCONFIG(Imm16, VD, Mod1)                                                  \
    TT_OP(0x91, TT_F(Mod1, 0, 4) + TT_F(VD, 4, 4) + TT_F(Imm16, 8, 16))
#define TT_OP_SFPNOP TT_OP(0x8F, 0)

/* Unpackers (UNPACR_Regular.md names; tt-llk's Blackhole names in bh_isa.json aliases): Last 0,
 * FlipSrc 6 (SetDatValid), MultiContextMode 7 (OvrdThreadId), ContextADC 8, ContextNumber 10,
 * Ch0ZInc 15, Ch0YInc 17, Ch1ZInc 19, Ch1YInc 21, WhichUnpacker 23. */
#define TT_OP_UNPACR(WhichUnpacker, Ch1YInc, Ch1ZInc, Ch0YInc, Ch0ZInc, MultiContextMode,   \
                     FlipSrc, Last)                                                       \
    TT_OP(0x42, TT_F(Last, 0, 1) + TT_F(FlipSrc, 6, 1) + TT_F(MultiContextMode, 7, 1) +   \
                TT_F(Ch0ZInc, 15, 2) + TT_F(Ch0YInc, 17, 2) + TT_F(Ch1ZInc, 19, 2) +     \
                TT_F(Ch1YInc, 21, 2) + TT_F(WhichUnpacker, 23, 1))

/* Blackhole UNPACR_NOP: Unpack_Pop 1 clears (Src_ClrVal_Ctrl 0: zero, 1: -inf), Set_Dvalid then
 * gives the bank to the matrix unit. */
#define TT_OP_UNPACR_NOP(Unpacker_Select, Set_Dvalid, Src_ClrVal_Ctrl, Unpack_Pop)        \
    TT_OP(0x43, TT_F(Unpack_Pop, 0, 2) + TT_F(Src_ClrVal_Ctrl, 2, 2) +                   \
                TT_F(Set_Dvalid, 8, 1) + TT_F(Unpacker_Select, 23, 1))

/* Blackhole PACR: ReadIntfSel (0: all four Dst read interfaces), AddrMode (ADDR_MOD_PACK_SEC). */
#define TT_OP_PACR(AddrMode, ZeroWrite, ReadIntfSel, Flush, Last)                          \
    TT_OP(0x41, TT_F(Last, 0, 1) + TT_F(Flush, 1, 1) + TT_F(ReadIntfSel, 8, 4) +         \
                TT_F(ZeroWrite, 12, 1) + TT_F(AddrMode, 15, 2))

/* SETDMAREG_Immediate.md: the 16-bit half register ResultHalfReg of this thread's GPRs = NewValue. */
#define TT_OP_SETDMAREG(NewValue, ResultHalfReg)                                           \
    TT_OP(0x45, TT_F(ResultHalfReg, 0, 7) + TT_F(NewValue, 8, 16))

/* ADCs (ADCs.md): CntSetMask bit 0 unpacker 0, bit 1 unpacker 1, bit 2 the packers. */
#define TDBG_ADC_U0 1u
#define TDBG_ADC_U1 2u
#define TDBG_ADC_PK 4u
#define TT_OP_SETADCXX(CntSetMask, X0Val, X1Val)                                           \
    TT_OP(0x5E, TT_F(X0Val, 0, 10) + TT_F(X1Val, 10, 10) + TT_F(CntSetMask, 21, 3))
#define TT_OP_SETADCXY(CntSetMask, Y1Val, X1Val, Y0Val, X0Val, BitMask)                    \
    TT_OP(0x51, TT_F(BitMask, 0, 4) + TT_F(X0Val, 6, 3) + TT_F(Y0Val, 9, 3) +             \
                TT_F(X1Val, 12, 3) + TT_F(Y1Val, 15, 3) + TT_F(CntSetMask, 21, 3))
#define TT_OP_SETADCZW(CntSetMask, W1Val, Z1Val, W0Val, Z0Val, BitMask)                    \
    TT_OP(0x54, TT_F(BitMask, 0, 4) + TT_F(Z0Val, 6, 3) + TT_F(W0Val, 9, 3) +             \
                TT_F(Z1Val, 12, 3) + TT_F(W1Val, 15, 3) + TT_F(CntSetMask, 21, 3))

/* ------------------------------------------------------------------------ */
/* Pushing instructions (PushTensixInstruction.md)                           */
/* ------------------------------------------------------------------------ */

/* .ttinsn encoding: the instruction word rotated left by 2. Words below
 * 0xC0000000 (every valid Tensix instruction) end in 0b00/0b01/0b10. */
#define ROTL2(w) ((((uint32_t)(w)) << 2) | (((uint32_t)(w)) >> 30))

/* Push a compile-time constant as one .ttinsn word in the code stream. zig's
 * assembler has no .ttinsn directive, so emit the encoded word with .word. */
#define TTI(word) __asm__ volatile(".word %0" : : "i"(ROTL2(word)) : "memory")

/* Push any (run-time) value with an ordinary sw to INSTRN_BUF_BASE. */
#define TT_PUSH(word) (*(volatile uint32_t *)INSTRN_BUF_BASE = (uint32_t)(word))

/* ------------------------------------------------------------------------ */
/* TTSync (TTSync.md): block until this thread's coprocessor work is done.   */
/* ------------------------------------------------------------------------ */

/* Store first (orders it after earlier pushes), load, then use the result so
 * nothing later starts before the load returns. */
static inline void tdbg_wait_done_at(uint32_t addr)
{
    volatile uint32_t *p = (volatile uint32_t *)addr;
    *p = 0;
    tdbg_consume(*p);
}
/* Tensix semaphores seen from RISC-V (SyncUnit.md): a load reads Value; a store of an even
 * value is a post (increment), of an odd value a get (decrement). */
#define TDBG_SEMAPHORE(i)  (*(volatile uint32_t *)TDBG_SEMAPHORE_ADDR(i))
static inline void tdbg_semaphore_post(unsigned i) { TDBG_SEMAPHORE(i) = 0; }
static inline void tdbg_semaphore_get(unsigned i) { TDBG_SEMAPHORE(i) = 1; }

static inline void tdbg_wait_coprocessor_done(void) { tdbg_wait_done_at(TDBG_COPROCESSOR_DONE_CHECK); }
static inline void tdbg_wait_mop_expander_done(void) { tdbg_wait_done_at(TDBG_MOP_EXPANDER_DONE_CHECK); }

/* ------------------------------------------------------------------------ */
/* The NoC (WormholeB0 NoC/MemoryMap.md; Blackhole offsets: tt-metal's      */
/* blackhole noc_parameters.h).  A request: fill a command buffer, write 1  */
/* to NOC_CMD_CTRL; coordinates are x | y << 6 in *_ADDR_HI.                 */
/* ------------------------------------------------------------------------ */
#define TDBG_NOC_REGS(noc)          (0xFFB20000u + 0x10000u * (noc))
#define TDBG_NOC_CMD_BUF(noc, buf)  (TDBG_NOC_REGS(noc) + 0x800u * (buf))
#define TDBG_NOC_TARG_ADDR_LO 0x00u
#define TDBG_NOC_TARG_ADDR_MID 0x04u
#define TDBG_NOC_TARG_ADDR_HI 0x08u
#define TDBG_NOC_RET_ADDR_LO  0x0Cu
#define TDBG_NOC_RET_ADDR_MID 0x10u
#define TDBG_NOC_RET_ADDR_HI  0x14u
#define TDBG_NOC_PACKET_TAG   0x18u
#define TDBG_NOC_CTRL         0x1Cu
#define TDBG_NOC_AT_LEN_BE    0x20u
#define TDBG_NOC_AT_DATA      0x28u
#define TDBG_NOC_CMD_CTRL     0x40u
#define TDBG_NOC_ID_LOGICAL   0x148u
#define TDBG_NOC_STATUS(i)    (0x200u + 4u * (i))
#define TDBG_NIU_MST_ATOMIC_RESP_RECEIVED 0x0u
#define TDBG_NIU_MST_WR_ACK_RECEIVED      0x1u
#define TDBG_NIU_MST_RD_RESP_RECEIVED     0x2u
#define TDBG_NOC_CMD_AT           0x1u       /* NOC_CTRL request types and flags */
#define TDBG_NOC_CMD_WR           0x2u
#define TDBG_NOC_CMD_RESP_MARKED  0x10u
#define TDBG_NOC_AT_INCREMENT(by) (0x1000u | (31u << 2))   /* Atomics.md: full 32-bit increment */
#define TDBG_NOC_XY(x, y)         ((uint32_t)(x) | ((uint32_t)(y) << 6))

static inline uint32_t tdbg_noc_reg(unsigned noc, uint32_t offset)
{
    return *(volatile uint32_t *)(TDBG_NOC_REGS(noc) + offset);
}

/* One request on command buffer `buf` of NoC `noc`; returns once it is issued. */
static inline void tdbg_noc_request(unsigned noc, unsigned buf, uint32_t targ, uint32_t targ_xy, uint32_t ret,
                                    uint32_t ret_xy, uint32_t ctrl, uint32_t len_be, uint32_t at_data)
{
    volatile uint32_t *b = (volatile uint32_t *)TDBG_NOC_CMD_BUF(noc, buf);
    while (b[TDBG_NOC_CMD_CTRL / 4]) {}
    b[TDBG_NOC_TARG_ADDR_LO / 4] = targ;
    b[TDBG_NOC_TARG_ADDR_MID / 4] = 0;
    b[TDBG_NOC_TARG_ADDR_HI / 4] = targ_xy;
    b[TDBG_NOC_RET_ADDR_LO / 4] = ret;
    b[TDBG_NOC_RET_ADDR_MID / 4] = 0;
    b[TDBG_NOC_RET_ADDR_HI / 4] = ret_xy;
    b[TDBG_NOC_PACKET_TAG / 4] = 0;
    b[TDBG_NOC_CTRL / 4] = ctrl;
    b[TDBG_NOC_AT_LEN_BE / 4] = len_be;
    b[TDBG_NOC_AT_DATA / 4] = at_data;
    b[TDBG_NOC_CMD_CTRL / 4] = 1;
}

#endif /* TDBG_TENSIX_H */
