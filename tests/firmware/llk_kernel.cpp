/* Test firmware in the shapes of tt-llk's kernels (written for tdbg's tests; no tt-llk code):
 * inline templates in namespaces, one source built as three ELFs (-DTRISC=0|1|2, as tt-llk's
 * COMPILE_FOR_TRISC), a RuntimeParams the host writes and the kernel reads through a const
 * reference, an assert that ends in a bare ebreak (as tt-llk's LLK_ASSERT under ENV_LLK_INFRA),
 * and, at -O2, a parameter only the caller's call site knows after a call (DW_OP_entry_value). */
#include <stdint.h>

#ifndef TRISC
#define TRISC 0
#endif

#define LLK_ASSERT(condition, message) \
    do { if (__builtin_expect(!(condition), 0)) { asm volatile("ebreak"); } } while (0)

enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4 };

struct RuntimeParams {
    uint32_t KT_DIM;
    uint32_t CT_DIM;
    uint32_t num_faces;
};

/* The host's inputs, outside .bss (crt0 clears that): restore params.bin binary &params */
__attribute__((section(".data.runtime_params"))) RuntimeParams params;

namespace ckernel {
volatile uint32_t dst_write_addr;
volatile uint32_t trace[16];

namespace math {
inline __attribute__((always_inline)) void set_dst_write_addr(uint32_t addr)
{
    dst_write_addr = addr;
}
}  // namespace math

template <typename T, int N>
struct Buffer {
    T data[N];
    int used;
    void push(T v) { data[used++] = v; }
};

class Counter {
public:
    uint32_t count;
    uint32_t step;
    void bump() { count += step; }
};

Buffer<uint32_t, 4> faces;
Counter counter = {0, 3};

template <MathFidelity fidelity, int transpose>
inline __attribute__((always_inline)) void _llk_math_matmul_(uint32_t tile, uint32_t kt)
{
    for (uint32_t k = 0; k < kt; k++) {
        math::set_dst_write_addr(tile * 64 + k * static_cast<uint32_t>(fidelity) + transpose);
        counter.bump();
    }
}
}  // namespace ckernel

__attribute__((noinline)) void record(uint32_t value)
{
    ckernel::trace[value & 15] = value;
}

__attribute__((noinline)) uint32_t combine(uint32_t a, uint32_t b)
{
    record(a + b);
    record(a);
    return a * 3;
}

__attribute__((noinline)) void run_kernel(const RuntimeParams& p)
{
    ckernel::faces.push(p.num_faces);
#if TRISC != 2
    ckernel::_llk_math_matmul_<MathFidelity::HiFi4, 0>(p.CT_DIM, p.KT_DIM);
#else
    ckernel::_llk_math_matmul_<MathFidelity::LoFi, 1>(p.CT_DIM, 1);
#endif
    uint32_t sum = combine(p.KT_DIM, 5);
    record(sum + p.num_faces);
    ckernel::math::set_dst_write_addr(sum);
}

extern "C" int main()
{
    LLK_ASSERT(params.num_faces == 1 || params.num_faces == 2 || params.num_faces == 4, "num_faces must be 1, 2, or 4");
#if TRISC == 0
    ckernel::trace[1] = 1;
#endif
#if TRISC != 2
    ckernel::trace[2] = 2;
#endif
    run_kernel(params);
    return 0;
}
