/* Test firmware: the Blackhole CSRs (BlackholeA0 BabyRISCV/CSRs.md) as firmware uses them
   (tt-metal's and tt-llk's start-up set cfg0 bits with csrrs/csrrc), and each mode one access
   tdbg stops on. */
#include "tensix.h"

volatile unsigned mode = 0xFF;   /* in .data: the test writes it before running */
volatile uint32_t result[16];

#define CSRR(csr) ({ uint32_t v; __asm__ volatile("csrr %0, " #csr : "=r"(v)); v; })

int main(void) {
    uint32_t v;
    switch (mode) {
    case 0:
        result[0] = CSRR(0x7c0);
        __asm__ volatile("li t1, 2\n csrrs zero, 0x7c0, t1\n li t1, 1\n slli t1, t1, 18\n csrrs zero, 0x7c0, t1\n"
                         "li t1, 8\n csrrs zero, 0x7c0, t1" ::: "t1");
        result[1] = CSRR(0x7c0);
        __asm__ volatile("li t1, 2\n csrrc zero, 0x7c0, t1" ::: "t1");
        result[2] = CSRR(0x7c0);
        result[3] = CSRR(mstatus);
        result[4] = CSRR(misa);
        result[5] = CSRR(mhartid);
        __asm__ volatile("csrw 0x7c3, %0" :: "r"(0x12345678u));
        result[6] = CSRR(0x7c3);
        __asm__ volatile("csrw mstatus, %0" :: "r"(0u));
        result[7] = CSRR(mstatus);
        result[8] = CSRR(cycle);
        result[9] = CSRR(mcycle);
        __asm__ volatile("csrw mcycle, %0" :: "r"(0xABCu));
        __asm__ volatile("csrrs %0, mcycleh, zero" : "=r"(v));   /* the high half: no read of the low one */
        result[10] = CSRR(mcycle) - 1350;                         /* one read: a microsecond at 1.35 GHz */
        __asm__ volatile("csrw 0x7c3, %0" :: "r"(5u));
        __asm__ volatile("csrrwi %0, 0x7c3, 7" : "=r"(v));
        result[11] = v;
        result[12] = CSRR(0x7c3);
        __asm__ volatile("csrw 0x7c3, %0" :: "r"(0x12345678u));
        break;
    case 1: result[0] = CSRR(0x7ff); break;                       /* a CSR the page does not list */
    case 2: result[0] = CSRR(minstret); break;                    /* tdbg counts no instructions */
    case 3: __asm__ volatile("li t1, 0x200\n csrrs zero, 0x7c0, t1" ::: "t1"); break;   /* SyncAllOps */
    case 4: __asm__ volatile("csrw mhartid, %0" :: "r"(1u)); break;
    case 5: __asm__ volatile(".word 0x1005252f" ::: "a0", "memory"); break;  /* lr.w a0, (a0): no Zalrsc */
    case 6: __asm__ volatile("li t1, 0x55\n csrw 0xbc2, t1" ::: "t1"); result[13] = CSRR(0xbc2); break;
    }
    return 0;
}
