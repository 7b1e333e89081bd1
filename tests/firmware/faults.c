/* Test firmware: each entry point makes one access the tile must stop on. */
#include "tensix.h"

volatile unsigned sink;
volatile unsigned mode = 0xFF;   /* in .data: the test writes it before running */
volatile unsigned counter;
volatile unsigned watched[4];

__attribute__((noinline)) void window_half_load_in_fp32(void) {
    tdbg_set_dst_access(0, TDBG_FMT_FP32, 0, 0);
    sink = *(volatile unsigned short *)TDBG_DST_BASE;   /* Load16 with fmt 0: undefined */
}

__attribute__((noinline)) void unmapped_load(void) {
    sink = *(volatile unsigned *)0x40000000u;            /* nothing is mapped there */
}

__attribute__((noinline)) void touch_watched(void) {
    watched[1] = 0x1234;
    sink = watched[2];
    *(volatile unsigned *)(TDBG_DST_BASE + 64) = 0x3F800000u;  /* Dst32b[1][0] = 1.0 */
}

__attribute__((noinline)) void spin(void) {
    for (;;) counter++;
}

int main(void) {
    switch (mode) {
    case 1: window_half_load_in_fp32(); break;
    case 2: unmapped_load(); break;
    case 3: touch_watched(); break;
    case 4: spin(); break;
    case 5: __asm__ volatile("ecall"); break;
    }
    return 0;
}
