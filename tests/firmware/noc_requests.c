/* noc_requests.c - BRISC makes the NoC requests a table in L1 lists, one after another, then
 * exits.  The table is at the address in ``table_at``: its entry count, then per entry the NoC,
 * the request's NOC_TARG_ADDR and coordinate, NOC_RET_ADDR and coordinate, NOC_CTRL and
 * NOC_AT_LEN_BE (a read returns to NOC_RET_ADDR; a write takes NOC_TARG_ADDR of this tile to
 * NOC_RET_ADDR).  An entry whose NoC is 2 is a store of its ctrl word to its targ address
 * instead (SOFT_RESET_0, say: a step the history records whole).  The tests fill the table:
 * tests/test_noc_requests.py, tests/test_fuzz_noc.py. */
#include "tensix.h"

struct request { uint32_t noc, targ, targ_xy, ret, ret_xy, ctrl, len; };

volatile uint32_t table_at = 0x5000u;

int main(void)
{
    volatile uint32_t *count = (volatile uint32_t *)table_at;
    volatile struct request *r = (volatile struct request *)(table_at + 4);
    for (uint32_t i = 0; i < *count; i++)
        if (r[i].noc == 2)
            *(volatile uint32_t *)r[i].targ = r[i].ctrl;
        else
            tdbg_noc_request(r[i].noc, 0, r[i].targ, r[i].targ_xy, r[i].ret, r[i].ret_xy, r[i].ctrl,
                             r[i].len, 0);
    return 0;
}
