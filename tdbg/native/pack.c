/* The packer's float format conversion in C: tdbg/tensix/pack_conversion.py's early cells (_fp32_fields /
 * _bf16_fields / _fp16_fields, then _round, _truncate or _tf32_to_fp16_blackhole), its late
 * float cells (_late_float, _float_bits, _store) and BFP (_bfp), step for step on int64_t as the
 * numpy code computes (the reference, whose docstrings give the facts and their evidence:
 * Packers/FormatConversion.md, ttsim v1.10.0).  tests/test_native.py runs both on every
 * configuration and random data and requires identical bytes.  Only what needs no stage between
 * the two conversions (no edge masking, ReLU, thresholding or histogram bins) comes here.
 *
 * plan[]: SOURCE (0 Dst32b FP32, 1 Dst16b BF16, 2 Dst16b FP16), EARLY (0 identity, 1 rounding,
 * 2 truncation, 3 rounding to TF32 then Blackhole's TF32 -> FP16), the intermediate's exponent
 * and mantissa bits, LATE (0 float, 1 BFP), the late type's exponent and mantissa bits (BFP: the
 * BF16 / E5M7 step), WIDEN (TF32 stored as FP32: 13), the datum bits in L1, the BFP magnitude
 * bits.  tdbg_gather is packers._gather of packers._positions, for the words.
 */
#include <stdint.h>

enum { SOURCE, EARLY, E_EBITS, E_MBITS, LATE, L_EBITS, L_MBITS, WIDEN, DATUM_BITS, MAG_BITS };
#define REBIAS 112 /* 127 - 15 */

typedef struct { int64_t sign, exp, man; } fields;

static inline int64_t emax_of(int ebits) { return ((int64_t)1 << ebits) - 1; }

/* _round: nearest, ties away from zero; NaN -> infinity (8-bit), saturation (5-bit); zeros +0 */
static inline fields round_to(fields x, int x_mbits, int ebits, int mbits)
{
    int drop = x_mbits - mbits;
    int64_t emax = emax_of(ebits), mmax = emax_of(mbits);
    fields r = x;
    if (drop > 0) {
        r.man = (x.man + ((int64_t)1 << (drop - 1))) >> drop;
        r.exp = x.exp + (r.man >> mbits);
        r.man &= mmax;
    } else {
        r.man = x.man << -drop;
    }
    if (ebits == 5) {
        if (r.exp > emax) {
            r.exp = emax;
            r.man = mmax;
        }
    } else if (x.exp == emax) {
        r.exp = emax;
        r.man = 0;
    }
    if (x.exp == 0)
        r.sign = r.exp = r.man = 0;
    return r;
}

/* packers._gather: Dst16b / Dst32b words at datum indexes (start + offsets[i]) & 0x3FFF (packers._positions:
 * row index >> 4, column index & 15) through the row map; a DstBits row never written (or undefined by
 * ZEROACC) reads as 0. */
static void tdbg_gather(const uint16_t *bits, const uint8_t *written, const int64_t *map, int wide,
                        int64_t start, const int64_t *offsets, int n, uint32_t *out)
{
    for (int i = 0; i < n; i++) {
        int64_t idx = (start + offsets[i]) & 0x3FFF;
        int64_t c = idx & 15;
        if (wide) {
            int64_t hi = map[idx >> 4];   /* a Dst32b row is a 10-bit index (Blackhole Dst.md) */
            uint32_t high = written[hi] ? bits[hi * 16 + c] : 0;
            uint32_t low = written[hi + 8] ? bits[(hi + 8) * 16 + c] : 0;
            out[i] = (high << 16) | low;
        } else {
            int64_t r = map[idx >> 4];
            out[i] = written[r] ? bits[r * 16 + c] : 0;
        }
    }
}

/* The words at in[0..n), or (bits not NULL) the n words tdbg_gather first writes there; returns 0, or
 * 1 when the numpy path must run (it raises the page's UndefinedBehavior). */
int tdbg_pack(uint32_t *in, int n, const int32_t *plan, uint8_t *data, uint8_t *exps, int32_t *max_exp,
              const uint16_t *bits, const uint8_t *written, const int64_t *map, int wide, int64_t start,
              const int64_t *offsets)
{
    if (bits)
        tdbg_gather(bits, written, map, wide, start, offsets, n, in);
    static const int src_mbits[3] = {23, 7, 10};
    int e_ebits = plan[E_EBITS], e_mbits = plan[E_MBITS], l_ebits = plan[L_EBITS], l_mbits = plan[L_MBITS];
    int64_t l_emax = emax_of(l_ebits), l_mmax = emax_of(l_mbits);
    int shift = l_mbits - e_mbits;
    int same = e_ebits == l_ebits && e_mbits == l_mbits;
    int bfp = plan[LATE] == 1, datum_bits = plan[DATUM_BITS], mag_bits = plan[MAG_BITS];
    int32_t top = -1;
    fields late[16];
    for (int i = 0; i < n; i++) {
        uint32_t w = in[i];
        fields x;
        if (plan[SOURCE] == 0) {
            uint32_t b = (w & 0x8000FFFFu) | (((w >> 16) & 0xFF) << 23) | (((w >> 24) & 0x7F) << 16);
            x.sign = b >> 31;
            x.exp = (b >> 23) & 0xFF;
            x.man = b & 0x7FFFFF;
        } else if (plan[SOURCE] == 1) {
            x.sign = (w >> 15) & 1;
            x.exp = w & 0xFF;
            x.man = (w >> 8) & 0x7F;
        } else {
            x.sign = (w >> 15) & 1;
            x.exp = w & 0x1F;
            x.man = (w >> 5) & 0x3FF;
        }
        int xm = src_mbits[plan[SOURCE]];
        if (plan[EARLY] == 1) {
            x = round_to(x, xm, e_ebits, e_mbits);
        } else if (plan[EARLY] == 2) {
            x.man >>= xm - e_mbits;
        } else if (plan[EARLY] == 3) { /* _tf32_to_fp16_blackhole(_round(x, TF32)) */
            x = round_to(x, xm, 8, 10);
            x.exp -= REBIAS;
            if (x.exp < 0) {
                x.exp = x.man = 0;
            } else if (x.exp > 31) {
                x.exp = 31;
                x.man = 1023;
            }
        }
        if (x.exp > top)
            top = (int32_t)x.exp;
        /* _late_float */
        fields y = x;
        if (!same) {
            y.man = shift >= 0 ? x.man << shift : x.man >> -shift;
            if (e_ebits == l_ebits) {
                if (shift < 0 && x.exp == 0)
                    y.man = 0;
            } else if (l_ebits == 8) {
                if (shift >= 0 && x.exp == 0 && x.man != 0)
                    return 1; /* a denormal, mishandled when the exponent widens */
                y.exp = x.exp == 0 ? 0 : x.exp + REBIAS;
                if (x.exp == 0)
                    y.man = 0;
            } else {
                if (x.exp == REBIAS && x.man != 0)
                    return 1; /* 2**-15 < |x| < 2**-14, mishandled when the exponent narrows */
                y.exp = x.exp - REBIAS;
                if (y.exp > l_emax) {
                    y.exp = l_emax;
                    y.man = l_mmax;
                } else if (y.exp <= 0) {
                    y.exp = y.man = 0;
                }
            }
        }
        if (!bfp) { /* _float_bits, _store */
            uint64_t v = (uint64_t)((y.sign << (l_ebits + l_mbits)) | (y.exp << l_mbits) | y.man) << plan[WIDEN];
            for (int k = 0; k < datum_bits / 8; k++)
                data[i * (datum_bits / 8) + k] = (uint8_t)(v >> (8 * k));
            continue;
        }
        late[i & 15] = y;
        if ((i & 15) != 15)
            continue;
        /* _bfp for the block of 16 ending here, then _store */
        int64_t shared = 0;
        for (int j = 0; j < 16; j++)
            if (late[j].exp > shared)
                shared = late[j].exp;
        exps[i >> 4] = (uint8_t)shared;
        int per = 8 / datum_bits;
        for (int j = 0; j < 16; j++) {
            int64_t sig = late[j].exp != 0 ? (1 << 7) | late[j].man : 0;
            int64_t s = 1 + shared - late[j].exp;
            if (s > 10)
                s = 10;
            int64_t mag = (sig + (((int64_t)1 << s) >> 1)) >> s;
            if (mag > 127)
                mag = 127;
            mag >>= 7 - mag_bits;
            int64_t sign = mag != 0 ? late[j].sign : 0;
            int64_t v = (sign << mag_bits) | mag;
            int at = (i - 15) + j;
            if (datum_bits >= 8) {
                data[at] = (uint8_t)v;
            } else {
                uint8_t *byte = &data[at / per];
                if (at % per == 0)
                    *byte = 0;
                *byte |= (uint8_t)(v << (datum_bits * (at % per)));
            }
        }
    }
    *max_exp = top;
    return 0;
}
