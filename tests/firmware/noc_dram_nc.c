/* noc_dram_nc.c - NCRISC's part (see noc_dram_b.c): wait for BRISC's increment of SEM_NC, read the
 * tile back from DRAM into L1 BACK over NoC 1, then increment SEM_T0 over NoC 1 for TRISC0.
 * Built with -DBROKEN it forgets that last increment: TRISC0 then waits for ever. */
#include "tensix.h"

#define BACK    0x38000u
#define DRAM    0x10000u
#define SEM_NC  0x2F000u
#define SEM_T0  0x2F010u

int main(void)
{
    while (*(volatile uint32_t *)SEM_NC == 0) {}
    uint32_t me = tdbg_noc_reg(1, TDBG_NOC_ID_LOGICAL);
    uint32_t reads = tdbg_noc_reg(1, TDBG_NOC_STATUS(TDBG_NIU_MST_RD_RESP_RECEIVED));
    tdbg_noc_request(1, 0, DRAM, TDBG_NOC_XY(17, 14), BACK, me, TDBG_NOC_CMD_RESP_MARKED, 2048, 0);
    while (tdbg_noc_reg(1, TDBG_NOC_STATUS(TDBG_NIU_MST_RD_RESP_RECEIVED)) == reads) {}
#ifndef BROKEN
    tdbg_noc_request(1, 1, SEM_T0, me, 0x2F110u, me, TDBG_NOC_CMD_AT | TDBG_NOC_CMD_RESP_MARKED, TDBG_NOC_AT_INCREMENT(1), 1);
#endif
    return 0;
}
