/* Test firmware, built for the Blackhole ISA (-mcpu=generic_rv32+m+zaamo+zba+zbb): every
   Zba / Zbb / xttzbkb instruction on each pair of inputs the test writes, each result stored;
   register aliasings (rd = rs1, rd = rs2, all three the same) as the compiler would use them. */
#include "tensix.h"

#define N 16
volatile uint32_t in_a[N] = {1}, in_b[N] = {1};   /* in .data: the test writes them before running */
volatile uint32_t out[32][N];
volatile uint32_t copied[64];               /* code the firmware copies into L1 and calls */

#define R(k, op) do { uint32_t a = in_a[i], b = in_b[i], r; \
    __asm__ volatile(op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); out[k][i] = r; } while (0)
#define U(k, op) do { uint32_t a = in_a[i], r; __asm__ volatile(op " %0, %1" : "=r"(r) : "r"(a)); out[k][i] = r; } while (0)
#define WORD(k, w) do { register uint32_t a0 __asm__("a0") = in_a[i]; register uint32_t a1 __asm__("a1") = in_b[i]; \
    __asm__ volatile(".word " #w : "+r"(a0) : "r"(a1)); out[k][i] = a0; } while (0)

__attribute__((noinline)) uint32_t times_three(uint32_t x) {   /* sh1add x, x, x */
    uint32_t r = x;
    __asm__ volatile("sh1add %0, %0, %0" : "+r"(r));
    return r;
}

__attribute__((noinline)) uint32_t index_add(uint32_t base, uint32_t i) {  /* sh2add rd = rs2 */
    __asm__ volatile("sh2add %0, %1, %0" : "+r"(base) : "r"(i));
    return base;
}

__attribute__((noinline)) uint32_t clz_in_place(uint32_t x) {
    __asm__ volatile("clz %0, %0" : "+r"(x));
    return x;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        R(0, "sh1add"); R(1, "sh2add"); R(2, "sh3add"); R(3, "andn"); R(4, "orn"); R(5, "xnor");
        R(6, "min"); R(7, "minu"); R(8, "max"); R(9, "maxu"); R(10, "rol"); R(11, "ror");
        U(12, "clz"); U(13, "ctz"); U(14, "cpop"); U(15, "sext.b"); U(16, "sext.h"); U(17, "zext.h");
        U(18, "orc.b"); U(19, "rev8");
        { uint32_t a = in_a[i], r; __asm__ volatile("rori %0, %1, 7" : "=r"(r) : "r"(a)); out[20][i] = r; }
        WORD(21, 0x08b54533);      /* pack a0, a0, a1 */
        WORD(22, 0x68755513);      /* brev8 a0, a0 */
        out[23][i] = times_three(in_a[i]);
        out[24][i] = index_add(in_a[i], in_b[i]);
        out[25][i] = clz_in_place(in_a[i]);
    }
    /* a function of our own copied into L1 at run time: classified when it first traps */
    const uint32_t code[] = {0x20b54533u /* sh2add a0, a0, a1 */, 0x00008067u /* ret */};
    copied[0] = code[0];
    copied[1] = code[1];
    uint32_t (*fn)(uint32_t, uint32_t) = (uint32_t (*)(uint32_t, uint32_t))(uintptr_t)copied;
    out[26][0] = fn(in_a[0], in_b[0]);
    out[26][1] = fn(in_a[1], in_b[1]);
    return 0;
}
