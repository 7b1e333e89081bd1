/* noc_probe.c - test firmware (tdbg's kit, core B or NC): NoC commands through NoC 0 and NoC 1
 * command buffers at its own tile (NoC 0 (1,2)): a non-posted write L1->L1, a read, an atomic
 * increment, a posted write, on each NoC.  After each command it copies six NIU counters of both
 * NoCs into L1 at LOG.  Register offsets: tt-metal's blackhole noc_parameters.h, as ttsim v1.10.0
 * decodes them.  tests/data/noc_ttsim.json holds what ttsim measured for it. */
#include <stdint.h>
#define NOC(n)   (0xFFB20000u + (n) * 0x10000u)
#define REG(a)   (*(volatile uint32_t *)(a))
#define BUF(n, b) (NOC(n) + (b) * 0x800u)
#define ME       (1u | (2u << 6))          /* this tile's coordinate, x | y << 6 */
#define LOG      0x30000u                   /* per command: 12 words = 6 counters x 2 NoCs */
static const uint32_t counters[6] = {0x200, 0x204, 0x208, 0x21C, 0x228, 0x22C};
static uint32_t n_logged;

static void snapshot(void)
{
    volatile uint32_t *out = (volatile uint32_t *)(LOG + n_logged * 48);
    for (uint32_t noc = 0; noc < 2; noc++)
        for (uint32_t i = 0; i < 6; i++)
            out[noc * 6 + i] = REG(NOC(noc) + counters[i]);
    n_logged++;
}

static void issue(uint32_t noc, uint32_t buf, uint32_t targ, uint32_t ret, uint32_t len_be, uint32_t ctrl, uint32_t at_data)
{
    uint32_t b = BUF(noc, buf);
    REG(b + 0x00) = targ;      /* TARG_ADDR_LO */
    REG(b + 0x04) = 0;         /* TARG_ADDR_MID */
    REG(b + 0x08) = ME;        /* TARG_ADDR_HI: coordinate */
    REG(b + 0x0C) = ret;       /* RET_ADDR_LO */
    REG(b + 0x10) = 0;         /* RET_ADDR_MID */
    REG(b + 0x14) = ME;        /* RET_ADDR_HI */
    REG(b + 0x18) = 0;         /* PACKET_TAG */
    REG(b + 0x1C) = ctrl;      /* CTRL */
    REG(b + 0x20) = len_be;    /* AT_LEN_BE */
    REG(b + 0x28) = at_data;   /* AT_DATA */
    REG(b + 0x40) = 1;         /* CMD_CTRL: go */
    while (REG(b + 0x40)) {}   /* done when it reads 0 */
    snapshot();
}

int main(void)
{
    snapshot();                                                    /* 0: before anything */
    for (uint32_t noc = 0; noc < 2; noc++) {
        uint32_t o = noc * 0x4000;
        issue(noc, 0, 0x20000, 0x21000 + o, 64, 0x12, 0);          /* write, non-posted (WR | RESP_MARKED) */
        issue(noc, 1, 0x20000, 0x22000 + o, 64, 0x10, 0);          /* read (RESP_MARKED) */
        issue(noc, 2, 0x23000, 0x23100 + o, 0x107C, 0x11, 5);      /* atomic increment by 5, old value returned */
        issue(noc, 3, 0x20000, 0x28000 + o, 32, 0x02, 0);          /* write, posted */
    }
    REG(LOG - 4) = n_logged;
    REG(LOG - 8) = REG(NOC(0) + 0x44);                             /* NOC_NODE_ID, NoC 0 */
    REG(LOG - 12) = REG(NOC(1) + 0x44);                            /* NOC_NODE_ID, NoC 1 */
    REG(LOG - 16) = REG(NOC(0) + 0x148);                           /* NOC_ID_LOGICAL */
    return 0;
}
