/* The Vector Unit's FMA in C: tdbg/tensix/sfpu/numerics.py's fma (the reference, whose
 * docstring gives the model and its evidence: tt-isa-documentation Miscellaneous/FMA
 * fma_model_bh, ttsim v1.10.0 fma.cpp:102-190), lane by lane, step for step on int64_t as the
 * numpy code computes.  tests/test_native.py runs both on random and special operands and
 * requires identical bits.
 */
#include <stdint.h>

#define MAN 0x7FFFFFLL
#define SIGN 0x80000000LL

static inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* numerics._shift_out: m >> s with bit 0 set when bits were lost and something remains */
static inline int64_t shift_out(int64_t m, int64_t s)
{
    if (s > 40)
        s = 40;
    int64_t out = m >> s;
    return out | (out != 0 && (int64_t)((uint64_t)out << s) != m);
}

static uint32_t fma1(int64_t x, int64_t y, int64_t z)
{
    int64_t xe = (x >> 23) & 255, ye = (y >> 23) & 255, ze = (z >> 23) & 255;
    int64_t xm = xe != 0 ? (x & MAN) | 0x800000 : 0;
    int64_t ym = ye != 0 ? (y & MAN) | 0x800000 : 0;
    int64_t zm = (ze != 0 ? (z & MAN) | 0x800000 : 0) << 3;
    int64_t zs = z & SIGN, ps = (x ^ y) & SIGN;
    int64_t pm = xm * ym;
    pm = (pm >> 20) | ((pm & 0xFFFFF) != 0);
    int64_t pe = xe + ye - 127;
    int x_inf = xe == 255, y_inf = ye == 255, z_inf = ze == 255;
    int special = x_inf | y_inf | z_inf | (pe >= 255);
    int tiny = (pm == 0) | (pe < 0);
    int z_zero = zm == 0;
    int z_nan = z_inf & (zm != 0x4000000);
    int64_t re = pe > ze ? pe : ze;
    pm = shift_out(pm, re - pe);
    zm = shift_out(zm, re - ze);
    int64_t rs = pm >= zm ? ps : zs;
    int64_t rm = ps != zs ? (pm > zm ? pm - zm : zm - pm) : pm + zm;
    int64_t n = bit_length((uint64_t)rm) - 27;
    re += n;
    int low = re <= 0;
    n += low;
    if (low)
        re = 0;
    int64_t up = n > 0 ? n : 0;
    rm = n <= 0 ? (int64_t)((uint64_t)rm << -n) : ((rm >> up) | ((rm & (up | 1)) != 0));
    int64_t r = (re << 23) + ((rm >> 3) & MAN);
    r += ((rm & 7) + (r & 1)) > 4;
    if ((r >> 23) == 0)
        r = 0;
    int64_t result = re >= 255 ? rs | 0x7F800000 : rs | r;
    if (rm == 0)
        result = zs & ps;
    if (tiny)
        result = z_zero ? zs & ps : z;
    if (special) {
        int nan = (x_inf & ((xm != 0x800000) | (ym == 0))) | (y_inf & ((ym != 0x800000) | (xm == 0)))
                  | z_nan | (z_inf & (x_inf | y_inf) & (zs != ps));
        result = nan ? 0x7FC00000 : z_inf ? z : ps | 0x7F800000;
    }
    return (uint32_t)result;
}

/* out[i] = fma(x[i], y[i], z[i]) for i < n (FP32 bit patterns) */
void tdbg_fma(const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = fma1(x[i], y[i], z[i]);
}
