/* pipeline_t2.c: the consumer of the three-core pipeline (see pipeline_t0.c). */
#include "tensix.h"

volatile float results[1];      /* [0]: the sum of the rows read */

static float bf16(uint16_t bits)
{
    union { uint32_t u; float f; } v = { (uint32_t)bits << 16 };
    return v.f;
}

int main(void)
{
    while (TDBG_SEMAPHORE(1) == 0)
        ;
    tdbg_set_dst_access(2, TDBG_FMT_BF16, 0, 0);
    float sum = 0.0f;
    for (int r = 64; r < 72; r++)
        for (int c = 0; c < 16; c++)
            sum += bf16(TDBG_DST16_U16(r, c));
    results[0] = sum;
    return sum == 8256.0f ? 0 : 1;   /* 1 + 2 + ... + 128 */
}
