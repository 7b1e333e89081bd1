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

/* -- SFPLOAD / SFPSTORE (tdbg/tensix/sfpu/loadstore.py) ----------------------------------------
 * The common case only, which the Python caller has checked: every LaneConfig is zero, no lane
 * is held back by the backdoor (``active``), and for a store no bit-11 aliasing.  unpredictable
 * is Dst.unpredictable (bool[1024][16]), read only when any_unpredictable (Dst._any_unpredictable):
 * a load of such a cell goes back to Python (UnpredictableValueUsed), a store clears the rows it
 * writes, as Dst.write16 / write32 do.  Lane L moves Dst row (addr & ~3) + L / 8, column 2 * (L & 7) + (addr & 2 ?
 * 1 : 0); its lane is enabled when LaneFlags[L] or not UseLaneFlagsForLaneEnable[L], every lane
 * for INT32_ALL.  Returns -1 (nothing changed) where the Python path must run: it raises the
 * page's event (an undefined Dst row read, an LReg half never written) or keeps the unknown cells
 * of a row a store defines. */

enum { SRCB, FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM, INT8_COMP,
       LO16_ONLY, HI16_ONLY };
#define FULL 3

static inline uint32_t dst_decode_bf16(uint32_t x) { return (x & 0x8000) | ((x & 0xFF) << 7) | ((x >> 8) & 0x7F); }
static inline uint32_t dst_encode_bf16(uint32_t x) { return (x & 0x8000) | ((x & 0x7F) << 8) | ((x >> 7) & 0xFF); }
static inline uint32_t dst_encode_fp16(uint32_t x) { return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x >> 10) & 0x1F); }
static inline uint32_t dst_decode_fp32(uint32_t x) { return (dst_decode_bf16(x >> 16) << 16) | (x & 0xFFFF); }
static inline uint32_t dst_encode_fp32(uint32_t x) { return (dst_encode_bf16(x >> 16) << 16) | (x & 0xFFFF); }
static inline uint32_t flush_denormal(uint32_t x) { return (x & 0x7F800000) == 0 ? x & 0x80000000u : x; }

static inline uint32_t read_fp16(uint32_t x) /* ReadFP16 without ENABLE_FP16A_INF */
{
    uint32_t sign = x >> 15, man = (x >> 5) & 0x3FF, exp = x & 0x1F;
    exp = exp != 0 ? exp + 112 : 0;
    return (sign << 31) | (exp << 23) | (man << 13);
}

static inline uint32_t to_fp16(uint32_t x)
{
    int64_t exp = (int64_t)((x >> 23) & 0xFF) - 112;
    uint32_t sign = x >> 31, man = x & 0x7FFFFF;
    if (exp <= 0) {
        exp = 0;
        man = 0;
    } else if (exp > 31) {
        exp = 31;
        man = 0x7FFFFF;
    }
    return (sign << 15) | ((uint32_t)exp << 10) | (man >> 13);
}

static inline uint32_t load_datum(int mod0, uint32_t x) /* loadstore._load_datum */
{
    switch (mod0) {
    case FP16: return read_fp16(x);
    case BF16: return dst_decode_bf16(x) << 16;
    case FP32: case INT32: case INT32_ALL: case INT32_SM: return dst_decode_fp32(x);
    case INT8: return ((x >> 15) << 31) | ((x >> 5) & 0xFF);
    case INT8_COMP: return ((x >> 15) << 31) | ((x >> 5) & 0x3FF);
    case INT16: return ((x >> 15) << 31) | (x & 0x7FFF);
    case HI16: return x << 16;
    default: return x;
    }
}

static inline uint32_t store_datum(int mod0, uint32_t d) /* loadstore._store_datum */
{
    switch (mod0) {
    case INT32: case INT32_ALL: case INT32_SM: return dst_encode_fp32(d);
    case FP32: return dst_encode_fp32(flush_denormal(d));
    case FP16: return dst_encode_fp16(to_fp16(d));
    case BF16: return dst_encode_bf16(flush_denormal(d) >> 16);
    case INT8: case INT8_COMP: return dst_encode_fp16(((d >> 31) << 15) | (16 << 10) | (d & 0x3FF));
    case INT16: return ((d >> 31) << 15) | (d & 0x7FFF);
    case LO16: return (d << 16) | (d >> 16);
    case HI16: return d;
    case HI16_ONLY: return d >> 16;
    case ZERO: return 0;
    default: return d & 0xFFFF;
    }
}

static inline int wide_load(int mod0) { return mod0 == FP32 || mod0 == INT32 || mod0 == INT32_ALL || mod0 == INT32_SM; }

static inline int lane_on(int mod0, const uint8_t *lane_flags, const uint8_t *use_flags, int lane)
{
    return mod0 == INT32_ALL || lane_flags[lane] || !use_flags[lane];
}

/* SFPLOAD.md into LReg[vd] (vd < 8): lreg[17][32], defined[17][32]; 0, or -1 (module note) */
int tdbg_sfpload(int mod0, int addr, int vd, const uint16_t *bits, const uint8_t *written, const int64_t *map,
                 const uint8_t *unpredictable, int any_unpredictable,
                 const uint8_t *lane_flags, const uint8_t *use_flags, uint32_t *lreg, uint8_t *defined)
{
    int wide = wide_load(mod0), base = addr & ~3, odd = (addr & 2) != 0;
    int64_t r[4];
    for (int row = 0; row < 4; row++)
        r[row] = map[base + row];
    if (mod0 != ZERO)
        for (int lane = 0; lane < 32; lane++)
            if (lane_on(mod0, lane_flags, use_flags, lane)) {
                int64_t at = r[lane >> 3];
                if (!written[at] || (wide && !written[at + 8]))
                    return -1; /* reads an undefined row */
                int64_t cell = at * 16 + 2 * (lane & 7) + odd;
                if (any_unpredictable && (unpredictable[cell] || (wide && unpredictable[cell + 128])))
                    return -1; /* reads an unpredictable cell */
            }
    uint32_t *dest = lreg + vd * 32;
    uint8_t *flags = defined + vd * 32;
    for (int lane = 0; lane < 32; lane++) {
        if (!lane_on(mod0, lane_flags, use_flags, lane))
            continue;
        uint32_t x = 0;
        if (mod0 != ZERO) {
            int64_t at = r[lane >> 3] * 16 + 2 * (lane & 7) + odd;
            x = wide ? ((uint32_t)bits[at] << 16) | bits[at + 128] : bits[at];
        }
        uint32_t datum = mod0 == ZERO ? 0 : load_datum(mod0, x);
        if (mod0 == LO16_ONLY) {
            dest[lane] = (dest[lane] & 0xFFFF0000u) | (datum & 0xFFFF);
            flags[lane] |= 1;
        } else if (mod0 == HI16_ONLY) {
            dest[lane] = (dest[lane] & 0xFFFF) | (datum << 16);
            flags[lane] |= 2;
        } else {
            dest[lane] = datum;
            flags[lane] = FULL;
        }
    }
    return 0;
}

/* SFPSTORE.md from LReg[vd]: the lanes stored (0: none), or -1 (module note) */
int tdbg_sfpstore(int mod0, int addr, int vd, uint16_t *bits, const uint8_t *written, const int64_t *map,
                  uint8_t *unpredictable, int any_unpredictable,
                  const uint8_t *lane_flags, const uint8_t *use_flags, const uint32_t *lreg, const uint8_t *defined)
{
    int wide = wide_load(mod0) || mod0 == LO16 || mod0 == HI16, base = addr & ~3, odd = (addr & 2) != 0;
    int halves = mod0 == ZERO ? 0 : (mod0 == LO16_ONLY || mod0 == UINT16) ? 1 : mod0 == HI16_ONLY ? 2 : 3;
    int64_t r[4];
    int lanes = 0;
    for (int row = 0; row < 4; row++) {
        r[row] = map[base + row];
        if (!written[r[row]] || (wide && !written[r[row] + 8]))
            return -1; /* a row this store defines keeps unknown cells */
    }
    const uint32_t *src = lreg + vd * 32;
    const uint8_t *flags = defined + vd * 32;
    for (int lane = 0; lane < 32; lane++)
        if (lane_on(mod0, lane_flags, use_flags, lane)) {
            if ((flags[lane] & halves) != halves)
                return -1; /* an LReg half never written */
            lanes++;
        }
    if (!lanes)
        return 0;
    if (any_unpredictable)
        for (int row = 0; row < 4; row++)
            for (int c = 0; c < 16; c++) {
                unpredictable[r[row] * 16 + c] = 0;
                if (wide)
                    unpredictable[(r[row] + 8) * 16 + c] = 0;
            }
    for (int lane = 0; lane < 32; lane++) {
        if (!lane_on(mod0, lane_flags, use_flags, lane))
            continue;
        uint32_t v = store_datum(mod0, src[lane]);
        int64_t at = r[lane >> 3] * 16 + 2 * (lane & 7) + odd;
        if (wide) {
            bits[at] = (uint16_t)(v >> 16);
            bits[at + 128] = (uint16_t)v;
        } else {
            bits[at] = (uint16_t)v;
        }
    }
    return lanes;
}
