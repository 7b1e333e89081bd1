/* RISCV B firmware that uses B's whole 8 KiB of local data RAM for its stack (BlackholeA0
 * BabyRISCV/README.md "Local Data RAM"; the kit's tdbg.ld gives every core 4 KiB, the TRISCs'
 * size): main moves sp to the top, 0xFFB02000, and calls deep(), whose frames of more than
 * 512 bytes each go below the first 4 KiB. */
volatile int sink;

__attribute__((noinline)) int deep(int n) {
    volatile char frame[512];                       /* every byte written: the frame keeps them */
    for (int i = 0; i < 512; i++)
        frame[i] = (char)n;
    if (n == 0) {
        sink = 1;                                   /* the deepest call */
        return frame[511];
    }
    return deep(n - 1) + frame[511];
}

__attribute__((noinline)) int run(void) {
    return deep(12);                                /* 13 calls: about 7 KiB */
}

/* sp to the top of B's 8 KiB, run(), then sp back (no frame of its own). */
__attribute__((naked, noinline)) int on_whole_ram(void) {
    __asm__ volatile(
        "mv t1, sp\n"
        "li sp, 0xFFB02000\n"
        "addi sp, sp, -16\n"
        "sw ra, 12(sp)\n"
        "sw t1, 8(sp)\n"
        "call run\n"
        "lw ra, 12(sp)\n"
        "lw t1, 8(sp)\n"
        "mv sp, t1\n"
        "ret\n");
}

int main(void) {
    return on_whole_ram() == 78 ? 0 : 1;
}
