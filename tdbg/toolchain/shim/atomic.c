/* tdbg's shim: the 4-byte atomics clang calls for std::atomic<uint32_t> (tt-metal's DPRINT buffer
   lock) where it emits no instructions itself: LLVM inlines RISC-V atomics only with both Zaamo and
   Zalrsc, and Blackhole's cores have Zaamo alone (SFPI GCC's -mcpu=tt-bh inlines amoswap.w).  Every
   access here is sequentially consistent, as the strongest order a caller may ask for. */
typedef unsigned int uint32_t;

uint32_t __atomic_exchange_4(volatile void *ptr, uint32_t value, int order)
{
    uint32_t old;
    (void)order;
    __asm__ volatile("amoswap.w.aqrl %0, %2, (%1)" : "=r"(old) : "r"(ptr), "r"(value) : "memory");
    return old;
}

uint32_t __atomic_load_4(const volatile void *ptr, int order)
{
    uint32_t value;
    (void)order;
    __asm__ volatile("fence rw, rw\n\tlw %0, 0(%1)\n\tfence r, rw" : "=r"(value) : "r"(ptr) : "memory");
    return value;
}

void __atomic_store_4(volatile void *ptr, uint32_t value, int order)
{
    (void)order;
    __asm__ volatile("fence rw, w\n\tsw %1, 0(%0)\n\tfence rw, rw" : : "r"(ptr), "r"(value) : "memory");
}
