/* noc_dram_b.c - BRISC's part of a tile's trip through DRAM (with noc_dram_nc.c, noc_dram_t0.c):
 * it releases NCRISC and TRISC0 (SOFT_RESET_0 bits 18 and 12), sends the 2048-byte tile at L1
 * TILE to DRAM (bank coordinate 17,14 = channel 4 translated) over NoC 0, non-posted, and once
 * that is acknowledged tells NCRISC by an atomic increment of SEM_NC (this tile's L1) over NoC 0. */
#include "tensix.h"

#define TILE    0x30000u
#define DRAM    0x10000u
#define SEM_NC  0x2F000u
#define SOFT_RESET_0 (*(volatile uint32_t *)0xFFB121B0u)

int main(void)
{
    SOFT_RESET_0 &= ~((1u << 18) | (1u << 12));
    uint32_t me = tdbg_noc_reg(0, TDBG_NOC_ID_LOGICAL);
    uint32_t acks = tdbg_noc_reg(0, TDBG_NOC_STATUS(TDBG_NIU_MST_WR_ACK_RECEIVED));
    tdbg_noc_request(0, 0, TILE, me, DRAM, TDBG_NOC_XY(17, 14), TDBG_NOC_CMD_WR | TDBG_NOC_CMD_RESP_MARKED, 2048, 0);
    while (tdbg_noc_reg(0, TDBG_NOC_STATUS(TDBG_NIU_MST_WR_ACK_RECEIVED)) == acks) {}
    tdbg_noc_request(0, 1, SEM_NC, me, 0x2F100u, me, TDBG_NOC_CMD_AT, TDBG_NOC_AT_INCREMENT(1), 1);
    return 0;
}
