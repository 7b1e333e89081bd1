/* spin_zb.c - a core that polls an L1 word nothing writes, through a Zba instruction: built at
 * the Blackhole ISA, flag * 3 is an sh1add, so every turn of the loop runs its trampoline. */
#include <stdint.h>

volatile uint32_t flag;

int main(void)
{
    while (flag * 3u != 7u)
        ;
    return 0;
}
