/* Test firmware (T0): Tensix instructions that reach MMIO devices (LOADREG.md, STOREREG.md,
 * PACR_SETREG.md), aimed at this core's own local data RAM through its slow-access window
 * (0xFFB18000 on Blackhole), with PACR_SETREG's base and scaler set through TDMA-RISC. */
#include "tensix.h"

#define TT_OP_STOREREG(DataReg, RegAddr) TT_OP(0x67, TT_F(RegAddr, 0, 18) + TT_F(DataReg, 18, 6))
#define TT_OP_LOADREG(ResultReg, RegAddr) TT_OP(0x68, TT_F(RegAddr, 0, 18) + TT_F(ResultReg, 18, 6))
#define TT_OP_PACR_SETREG(AddrSel, Value10, AddrMid)                                     \
    TT_OP(0x4A, TT_F(1, 1, 1) + TT_F(AddrMid, 2, 6) + TT_F(AddrSel, 8, 2) +              \
                TT_F(Value10, 12, 10) + TT_F(1, 23, 1))
#define REG_ADDR(a) (((a) - 0xFFB00000u) >> 2)
#define GPR(i) (*(volatile uint32_t *)(0xFFE00000u + 4u * (i)))
#define LOCAL(off) (*(volatile uint32_t *)(TDBG_LOCAL_MEM_BASE + (off)))
#define TDMA(off) (*(volatile uint32_t *)(0xFFB11000u + (off)))

volatile uint32_t result[3];

int main(void) {
    GPR(5) = 0xCAFEF00Du;
    TTI(TT_OP_STOREREG(5, REG_ADDR(0xFFB18100u)));   /* T0 local RAM + 0x100 */
    tdbg_wait_coprocessor_done();
    result[0] = LOCAL(0x100);

    LOCAL(0x108) = 0x12345678u;
    TTI(TT_OP_LOADREG(6, REG_ADDR(0xFFB19108u)));    /* the same RAM, seen again at +0x1000 */
    tdbg_wait_coprocessor_done();
    result[1] = GPR(6);

    TDMA(0x38) = 0x104u >> 2;                        /* SetRegBase[0] = 0x104 */
    TDMA(0x3C) = 2u;                                 /* SetRegHiScaler[0] = 2 */
    TTI(TT_OP_PACR_SETREG(0, 0x155, 0x18));          /* 0xFFB00000 + 0x104 + (0x18 << 12) */
    tdbg_wait_coprocessor_done();
    result[2] = LOCAL(0x104);
    return 0;
}
