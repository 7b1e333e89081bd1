/*
 * dst_formats.c - one store and one load through the Dst window for each
 * window format (fmt 0..5) and the no_swizzle / unsigned_int settings that
 * change the conversion.
 *
 * Behaviour: BlackholeA0/TensixTile/TensixCoprocessor/Dst.md, "RISCV access to
 * Dst": Store32/Load32 (fmt 0, 1), Store16/Load16 (fmt 2, 3, 4),
 * Store8/Load8 (fmt 5).
 *
 * Case k uses window element k (address base + k * element size), stores
 * cases[k].value in mode cases[k].store, loads it back in mode cases[k].load,
 * then reads the raw storage of that element:
 *   results[2*k]     = the loaded value (lw / lhu / lbu, zero-extended)
 *   results[2*k + 1] = the raw Dst bits of the element: Dst32b via fmt 0 with
 *                      no_swizzle for 32-bit cases, Dst16b via fmt 4 with
 *                      no_swizzle for 16- and 8-bit cases.
 * ncases holds the number of cases.
 */
#include "tensix.h"

#define CORE 0

/* A window mode packed in a byte: fmt in bits 0-2, no_swizzle bit 3, unsigned_int bit 4. */
#define MODE(fmt, ns, ui) ((fmt) | ((ns) << 3) | ((ui) << 4))

struct dst_case {
    uint8_t store, load;
    uint32_t value;
};

static const struct dst_case cases[] = {
    /*  0 */ {MODE(0, 0, 0), MODE(0, 0, 0), 0x3F800000u},  /* 1.0f                     */
    /*  1 */ {MODE(0, 0, 0), MODE(0, 0, 0), 0xC0490FDBu},  /* -pi (FP32)                */
    /*  2 */ {MODE(0, 1, 0), MODE(0, 1, 0), 0x12345678u},  /* no swizzle: bits as-is   */
    /*  3 */ {MODE(1, 0, 0), MODE(1, 0, 0), 0xFFFFFFFBu},  /* int32 -5                 */
    /*  4 */ {MODE(1, 0, 0), MODE(1, 0, 0), 0x80000000u},  /* int32 min: clamped       */
    /*  5 */ {MODE(1, 0, 0), MODE(1, 0, 0), 100000u},      /* positive int32           */
    /*  6 */ {MODE(1, 1, 0), MODE(1, 1, 0), 0xFFFFFFFBu},  /* no swizzle: no s-m       */
    /*  7 */ {MODE(1, 1, 0), MODE(1, 0, 0), 0x80000000u},  /* raw -0 read as int32     */
    /*  8 */ {MODE(2, 0, 0), MODE(2, 0, 0), 0x3C00u},      /* fp16 1.0                 */
    /*  9 */ {MODE(2, 0, 0), MODE(2, 0, 0), 0xC248u},      /* fp16 -3.140625           */
    /* 10 */ {MODE(3, 0, 0), MODE(3, 0, 0), 0x3F80u},      /* bf16 1.0                 */
    /* 11 */ {MODE(3, 0, 0), MODE(3, 0, 0), 0xC049u},      /* bf16 -3.140625           */
    /* 12 */ {MODE(3, 1, 0), MODE(3, 1, 0), 0xC049u},      /* bf16, no swizzle         */
    /* 13 */ {MODE(4, 0, 0), MODE(4, 0, 0), 0xFFFEu},      /* int16 -2                 */
    /* 14 */ {MODE(4, 0, 0), MODE(4, 0, 0), 0x8000u},      /* int16 min: clamped       */
    /* 15 */ {MODE(4, 0, 0), MODE(4, 0, 0), 0x1234u},      /* positive int16           */
    /* 16 */ {MODE(4, 0, 1), MODE(4, 0, 1), 0xFFFEu},      /* uint16: no conversion    */
    /* 17 */ {MODE(4, 0, 1), MODE(4, 0, 0), 0x8003u},      /* stored raw, read signed  */
    /* 18 */ {MODE(4, 1, 0), MODE(4, 1, 0), 0xFFFEu},      /* no swizzle               */
    /* 19 */ {MODE(5, 0, 0), MODE(5, 0, 0), 0xFFu},        /* int8 -1                  */
    /* 20 */ {MODE(5, 0, 0), MODE(5, 0, 0), 0x80u},        /* int8 -128                */
    /* 21 */ {MODE(5, 0, 0), MODE(5, 0, 0), 200u},         /* 200 as int8 (-56)        */
    /* 22 */ {MODE(5, 0, 0), MODE(5, 0, 0), 5u},
    /* 23 */ {MODE(5, 0, 0), MODE(5, 0, 0), 0u},
    /* 24 */ {MODE(5, 0, 1), MODE(5, 0, 1), 200u},         /* uint8 200                */
    /* 25 */ {MODE(5, 0, 1), MODE(5, 0, 0), 200u},         /* stored unsigned, read s. */
    /* 26 */ {MODE(5, 1, 0), MODE(5, 1, 0), 0xFFu},        /* no swizzle               */
};

#define NCASES (sizeof cases / sizeof cases[0])

volatile uint32_t results[2 * NCASES];
volatile uint32_t ncases;

static void set_mode(uint8_t mode)
{
    tdbg_set_dst_access(CORE, mode & 7u, (mode >> 3) & 1u, (mode >> 4) & 1u);
}

static void store(uint8_t mode, unsigned k, uint32_t v)
{
    set_mode(mode);
    switch (mode & 7u) {
    case 0: case 1: TDBG_DST_U32[k] = v; break;              /* sw */
    case 5:         TDBG_DST_U8[k] = (uint8_t)v; break;      /* sb */
    default:        TDBG_DST_U16[k] = (uint16_t)v; break;    /* sh */
    }
}

static uint32_t load(uint8_t mode, unsigned k)
{
    set_mode(mode);
    switch (mode & 7u) {
    case 0: case 1: return TDBG_DST_U32[k];                  /* lw  */
    case 5:         return TDBG_DST_U8[k];                   /* lbu */
    default:        return TDBG_DST_U16[k];                  /* lhu */
    }
}

int main(void)
{
    for (unsigned k = 0; k < NCASES; k++) {
        const struct dst_case *c = &cases[k];
        store(c->store, k, c->value);
        results[2 * k] = load(c->load, k);
        /* Raw view of the same element: fmt 0 or fmt 4, both without swizzle. */
        results[2 * k + 1] = ((c->store & 7u) <= 1) ? load(MODE(0, 1, 0), k)
                                                    : load(MODE(4, 1, 0), k);
    }
    ncases = NCASES;
    return 0;
}
