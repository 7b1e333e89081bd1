/*
 * release_triscs.c - firmware for RISCV B that releases the three TRISCs, as tt-llk's BRISC
 * start-up does: load it with TRISC firmware (tdbg B=release_triscs.c T0=... T1=... T2=...);
 * the TRISCs stay in soft reset until B clears their bits in SOFT_RESET_0 (bits 12, 13, 14;
 * TileControlDebugStatus.md / SoftReset.md; address and reset value from bh_cfg_fields.json
 * tile_regs).  Each TRISC then starts at its reset PC (the loader sets TRISCn_RESET_PC to its
 * ELF's entry with TRISC_RESET_PC_OVERRIDE, as a host does).
 *
 * results[0] = SOFT_RESET_0 as B found it, results[1] = what B wrote.
 */
#include <stdint.h>

#define RISCV_DEBUG_REG_SOFT_RESET_0  0xFFB121B0u
#define SOFT_RESET_TRISCS             (7u << 12)

volatile uint32_t results[2];

int main(void)
{
    volatile uint32_t *soft_reset = (volatile uint32_t *)RISCV_DEBUG_REG_SOFT_RESET_0;
    uint32_t value = *soft_reset;
    results[0] = value;
    results[1] = value & ~SOFT_RESET_TRISCS;
    *soft_reset = results[1];
    return 0;
}
