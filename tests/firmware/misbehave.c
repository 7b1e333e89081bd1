/* Test firmware: each mode does one thing the baby RISC-V does differently from a plain RV32
   emulator (BabyRISCV/README.md "Faults / exceptions", "Instruction set", "Frontend"). */
#include "tensix.h"

volatile unsigned mode = 0xFF;   /* in .data: the test writes it before running */
volatile unsigned pair[2] = {0xAAAAAAAAu, 0xBBBBBBBBu};
volatile unsigned sink;
volatile unsigned after;         /* 1 once the instruction under test has been passed */

__attribute__((noinline)) void illegal(void) {
    __asm__ volatile(".word 0xFFFFFFFF");        /* no RV32 instruction */
    after = 1;
}

__attribute__((noinline)) void wait_for_interrupt(void) {
    __asm__ volatile("wfi");
    after = 1;
}

__attribute__((noinline)) void misaligned_store(void) {
    /* one misaligned sw (C would split a misaligned store it can see): rounded down to pair[0] */
    __asm__ volatile("sw %0, 2(%1)" : : "r"(0x11223344u), "r"(pair) : "memory");
    after = 1;
}

__attribute__((noinline)) void misaligned_load(void) {
    unsigned value;
    __asm__ volatile("lw %0, 6(%1)" : "=r"(value) : "r"(pair) : "memory");   /* rounded down: pair[1] */
    sink = value;
    after = 1;
}

__attribute__((noinline)) void run_local_ram(void) {
    ((void (*)(void))TDBG_LOCAL_MEM_BASE)();
    after = 1;
}

__attribute__((noinline)) void run_dst_window(void) {
    ((void (*)(void))TDBG_DST_BASE)();
    after = 1;
}

__attribute__((noinline)) void misaligned_device_load(void) {
    unsigned value;
    __asm__ volatile("lw %0, 2(%1)" : "=r"(value) : "r"(TDBG_DST_BASE) : "memory");
    sink = value;
    after = 1;
}

__attribute__((noinline)) void float_add(void) {
    __asm__ volatile(".word 0x00B57553");        /* F: fadd.s fa0, fa0, fa1 (tdbg runs no F) */
    after = 1;
}

/* No call-frame information, and s0 pointing just past a T core's 4 KiB local RAM (inside B's
   8 KiB): the unwinder must stop at the T core's end, not read B's range. */
void no_frame_info(void);
__asm__(".text\n.globl no_frame_info\n.type no_frame_info, @function\nno_frame_info:\n"
        "  li s0, 0xFFB01010\n  .word 0xFFFFFFFF\n  ret\n.size no_frame_info, . - no_frame_info\n");

int main(void) {
    switch (mode) {
    case 1: illegal(); break;
    case 2: wait_for_interrupt(); break;
    case 3: misaligned_store(); break;
    case 4: misaligned_load(); break;
    case 5: run_local_ram(); break;
    case 6: run_dst_window(); break;
    case 7: misaligned_device_load(); break;
    case 8: float_add(); break;
    case 9: no_frame_info(); break;
    }
    return 0;
}
