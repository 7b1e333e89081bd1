/* The Matrix Unit's floating-point datapath (MVMUL, DOTPV, GAPOOL, ELWADD, ELWSUB, ELWMUL) and
 * GMPOOL, in C: the same arithmetic, step for step, as the numpy model in
 * tdbg/tensix/fpu_datapath.py (the reference; its docstring gives the facts and their evidence:
 * ttsim v1.10.0 tensix.cpp:1102-1375, measured) and tdbg/tensix/matrix_unit.py's GMPOOL
 * (GMPOOL.md).  tests/test_native.py runs both on random operands and requires identical bits.
 *
 * The arithmetic functions work on Dst in place: DstBits[1024][16] (uint16), one "ever written"
 * byte per DstBits row (a row never written, or undefined by ZEROACC, reads as 0), and the
 * current Dst16b (or Dst32b) row -> DstBits row map (Dst.md Adj16 / Adj32); Dst32b[r] is
 * DstBits[map[r]] << 16 | DstBits[map[r] + 8].  Only called while no Dst cell is unpredictable
 * (the Python caller takes the numpy path otherwise).
 *
 * Operand styles: 0 BF16, 1 TF32, 2 FP16 (matrix_unit.py's SrcAStyle).  Signed shifts are done
 * on int64_t as numpy does (arithmetic right shift); left shifts go through uint64_t.
 */
#include <stdint.h>

#define STYLE_BF16 0
#define STYLE_TF32 1
#define STYLE_FP16 2

typedef struct { int64_t sign, exp, man; } term;
typedef struct { int64_t sign, exp, man, zero; } operand_t;

static inline int64_t shl(int64_t x, int64_t n) { return (int64_t)((uint64_t)x << n); }

/* fpu_datapath.operand */
static inline operand_t operand(uint32_t v, int style, int flush)
{
    operand_t o;
    o.exp = v & (style == STYLE_FP16 ? 0x1F : 0xFF);
    o.man = ((v >> 8) & (style == STYLE_BF16 ? 0x3F8 : 0x3FF)) | 0x400;
    o.zero = flush && o.exp == 0;
    o.sign = (v >> 18) & 1;
    return o;
}

/* fpu_datapath.rebias */
static inline int64_t rebias(int exp8, int use32, int phase)
{
    int64_t adj = exp8 ? -127 : (use32 ? 127 - 30 : -15);
    return adj - ((phase & 1) ? 5 : 0) - ((phase & 2) ? 7 : 0);
}

/* fpu_datapath._shr_round: m >> d rounding half up (minus sign), 0 from limit on */
static inline int64_t shr_round(int64_t m, int64_t d, int64_t sign, int limit)
{
    if (d <= 0)
        return m;
    if (d >= limit)
        return 0;
    int64_t dd = d > 62 ? 62 : d;
    return (m + shl(1, dd - 1) - sign) >> dd;
}

static inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* fpu_datapath.accumulate: the terms added to dst; FP32-style result bits */
static uint32_t accumulate(const term *terms, int n, term dst, int use32, int exp8)
{
    int64_t top = dst.exp;
    for (int i = 0; i < n; i++)
        if (terms[i].exp > top)
            top = terms[i].exp;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        int64_t m = shr_round(terms[i].man, top - terms[i].exp, terms[i].sign, 31);
        if (!use32)
            m = (m + (1 << 12) - terms[i].sign) & ~(int64_t)0x1FFF;
        total += terms[i].sign == dst.sign ? m : -m;
    }
    int64_t m = shr_round(dst.man, top - dst.exp, 0, 31);
    if (!use32)
        m = (m + (1 << 12)) & ~(int64_t)0x1FFF;
    total += m;
    int64_t sign = dst.sign ^ (total < 0);
    int64_t mag = total < 0 ? -total : total;
    if (top <= 0 || mag == 0)
        return 0;
    int64_t lead = bit_length((uint64_t)mag) - 1;
    int keep = use32 ? 24 : exp8 ? 8 : 11;
    int64_t exp = top - (23 - lead);
    int64_t s = keep - 1 - lead;
    int64_t man = s < 0 ? (mag + shl(1, -s - 1)) >> -s : shl(mag, s);
    man = shl(man, 24 - keep);
    exp += man >> 24;
    man &= 0x7FFFFF;
    if (exp <= 0)
        return 0;
    uint32_t out;
    if (use32 || exp8)
        out = exp >= 255 ? (uint32_t)(sign << 31) | (255u << 23) : (uint32_t)((sign << 31) | (exp << 23) | man);
    else
        out = exp >= 32 ? (uint32_t)(sign << 31) | (31u << 23) | (0x3FFu << 13) : (uint32_t)((sign << 31) | (exp << 23) | man);
    return out;
}

/* formats.dst32_to_ieee / dst16_bf16_to_ieee / dst16_fp16_to_ieee, then fpu_datapath.dst_term */
static inline term dst_term(uint32_t bits, int use32, int exp8)
{
    uint32_t ieee;
    if (use32) {
        ieee = (bits & 0x8000FFFFu) | (((bits >> 16) & 0xFF) << 23) | (((bits >> 24) & 0x7F) << 16);
    } else if (exp8) {
        uint32_t b = (bits & 0x8000) | ((bits & 0xFF) << 7) | ((bits >> 8) & 0x7F);
        ieee = b << 16;
    } else {
        uint32_t h = (bits & 0x8000) | ((bits & 0x1F) << 10) | ((bits >> 5) & 0x3FF);
        ieee = ((h >> 15) << 31) | (((h >> 10) & 0x1F) << 23) | ((h & 0x3FF) << 13);
    }
    term t;
    t.exp = (ieee >> 23) & 0xFF;
    t.sign = ieee >> 31;
    t.man = t.exp == 0 ? 0 : (ieee & 0x7FFFFF) | 0x800000;
    return t;
}

/* fpu_datapath.to_dst: a result in the Dst32b or Dst16b (BF16 / FP16) layout */
static inline uint32_t to_dst(uint32_t r, int use32, int exp8)
{
    if (use32)
        return (r & 0x8000FFFFu) | (((r >> 23) & 0xFF) << 16) | (((r >> 16) & 0x7F) << 24);
    if (exp8) {
        uint32_t u = r >> 16;
        return (u & 0x8000) | ((u >> 7) & 0xFF) | ((u & 0x7F) << 8);
    }
    uint32_t h = ((r >> 31) << 15) | (((r >> 23) & 0x1F) << 10) | ((r >> 13) & 0x3FF);
    return (h & 0x8000) | ((h >> 10) & 0x1F) | ((h & 0x3FF) << 5);
}

/* Dst access (module comment): read as the Matrix Unit reads (undefined halves are 0), write
 * and mark defined. */
static inline uint32_t dst_read(const uint16_t *bits, const uint8_t *written, int64_t r, int c, int use32)
{
    if (!use32)
        return written[r] ? bits[r * 16 + c] : 0;
    uint32_t hi = written[r] ? bits[r * 16 + c] : 0;
    uint32_t lo = written[r + 8] ? bits[(r + 8) * 16 + c] : 0;
    return (hi << 16) | lo;
}

static inline void dst_write(uint16_t *bits, int64_t r, int c, uint32_t v, int use32)
{
    if (use32) {
        bits[r * 16 + c] = (uint16_t)(v >> 16);
        bits[(r + 8) * 16 + c] = (uint16_t)v;
    } else {
        bits[r * 16 + c] = (uint16_t)v;
    }
}

static inline void dst_defined(uint8_t *written, int64_t r, int use32)
{
    written[r] = 1;
    if (use32)
        written[r + 8] = 1;
}

/* fpu_datapath.products for one pair: the slices' product (12 bits), exponent and sign */
static inline term product(operand_t a, operand_t b, int phase, int64_t bias)
{
    term p;
    int64_t sa = (phase & 1) ? (a.man >> 1) & 31 : a.man >> 6;
    int64_t sb = (phase & 2) ? (b.man & 15) << 3 : b.man >> 4;
    p.sign = a.sign ^ b.sign;
    p.exp = a.exp + b.exp + bias;
    p.man = sa * sb;
    return p;
}

/* fpu_datapath._shr_round on 32-bit values, without branches (so loops over columns vectorize) */
static inline int32_t shr_round32(int32_t m, int32_t d, int limit)
{
    int32_t dd = d < 1 ? 1 : d > 30 ? 30 : d;
    int32_t shifted = (m + (1 << (dd - 1))) >> dd;
    return d <= 0 ? m : d >= limit ? 0 : shifted;
}

/* MVMUL.md (DOTPV.md, GAPOOL.md) as fpu_datapath.mvmul: Dst[out] += SrcB[b] @ SrcA[a..a+15]
 * for output i < n: SrcB row b + i * step * b_stride (b_stride 0 or 1; a, b: rows of 16), Dst
 * row dst_row + i * step (through map).  Products and group sums fit in 32 bits (12-bit
 * products, eight per group), so they are computed column-wise on int32_t. */
void tdbg_matmul(const uint32_t *a, const uint32_t *b, int b_stride, int n, int step,
                 uint16_t *bits, uint8_t *written, const int64_t *map, int dst_row,
                 int style, int phase, int use32)
{
    int exp8 = style != STYLE_FP16;
    int32_t bias = (int32_t)rebias(exp8, use32, phase);
    int32_t zexp = bias > 0 ? bias : 0;
    int32_t a_slice[16][16], a_exp[16][16], a_sign[16][16], a_zero[16][16];
    for (int k = 0; k < 16; k++)
        for (int c = 0; c < 16; c++) {
            operand_t o = operand(a[k * 16 + c], style, 1);
            a_slice[k][c] = (int32_t)((phase & 1) ? (o.man >> 1) & 31 : o.man >> 6);
            a_exp[k][c] = (int32_t)o.exp;
            a_sign[k][c] = (int32_t)o.sign;
            a_zero[k][c] = (int32_t)o.zero;
        }
    for (int i = 0; i < n; i++) {
        const uint32_t *brow = b + (int64_t)i * b_stride * step * 16;
        int32_t p_exp[16][16], p_man[16][16], p_sign[16][16];
        for (int k = 0; k < 16; k++) {
            operand_t ob = operand(brow[k], style, 1);
            int32_t b_slice = (int32_t)((phase & 2) ? (ob.man & 15) << 3 : ob.man >> 4);
            int32_t b_exp = (int32_t)ob.exp + bias, b_sign = (int32_t)ob.sign, b_zero = (int32_t)ob.zero;
            for (int c = 0; c < 16; c++) {
                int32_t zero = a_zero[k][c] | b_zero;
                p_exp[k][c] = zero ? zexp : a_exp[k][c] + b_exp;
                p_man[k][c] = zero ? 0 : a_slice[k][c] * b_slice;
                p_sign[k][c] = zero ? 0 : a_sign[k][c] ^ b_sign;
            }
        }
        int32_t top[2][16], total[2][16];
        for (int g = 0; g < 2; g++) {
            for (int c = 0; c < 16; c++) {
                top[g][c] = p_exp[g * 8][c];
                total[g][c] = 0;
            }
            for (int k = g * 8 + 1; k < g * 8 + 8; k++)
                for (int c = 0; c < 16; c++)
                    top[g][c] = p_exp[k][c] > top[g][c] ? p_exp[k][c] : top[g][c];
            for (int k = g * 8; k < g * 8 + 8; k++)
                for (int c = 0; c < 16; c++) {
                    int32_t aligned = shr_round32(p_man[k][c], top[g][c] - p_exp[k][c], 31);
                    total[g][c] += p_sign[k][c] ? -aligned : aligned;
                }
        }
        int64_t r = map[dst_row + i * step];
        for (int c = 0; c < 16; c++) {
            term groups[2];
            for (int g = 0; g < 2; g++) {
                int32_t t = total[g][c];
                if (top[g][c] > 0) {
                    groups[g].sign = t < 0;
                    groups[g].exp = top[g][c];
                    groups[g].man = shl(t < 0 ? -(int64_t)t : t, 13);
                } else {
                    groups[g].sign = groups[g].exp = groups[g].man = 0;
                }
            }
            term d = dst_term(dst_read(bits, written, r, c, use32), use32, exp8);
            dst_write(bits, r, c, to_dst(accumulate(groups, 2, d, use32, exp8), use32, exp8), use32);
        }
        dst_defined(written, r, use32);
    }
}

/* ELWADD.md / ELWSUB.md / ELWMUL.md as fpu_datapath.elwadd / elwmul on 8 rows: Dst[dst_row + i]
 * (+)= SrcA[a + i] op SrcB[b + i * b_stride] (b_stride 0 or 1; col0: SrcB column 0 for every
 * column).  kind 0 add, 1 sub, 2 mul; add_dst 0: the Dst value is not read. */
void tdbg_elw(const uint32_t *a, const uint32_t *b, int b_stride, int col0,
              uint16_t *bits, uint8_t *written, const int64_t *map, int dst_row,
              int kind, int style, int flush_b, int phase, int use32, int add_dst)
{
    int exp8 = style != STYLE_FP16;
    int64_t bias = rebias(exp8, use32, phase);
    int64_t zexp = bias > 0 ? bias : 0;
    for (int i = 0; i < 8; i++) {
        int64_t r = map[dst_row + i];
        const uint32_t *brow = b + (int64_t)i * b_stride * 16;
        for (int c = 0; c < 16; c++) {
            operand_t oa = operand(a[i * 16 + c], style, 1);
            operand_t ob = operand(brow[col0 ? 0 : c], style, flush_b);
            term t;
            if (kind == 2) {
                term p = product(oa, ob, phase, bias);
                if (oa.zero | ob.zero | (p.exp <= 0)) {
                    t.sign = 0;
                    t.exp = zexp;
                    t.man = 0;
                } else {
                    t.sign = p.sign;
                    t.exp = p.exp;
                    t.man = shl(p.man, 13);
                }
            } else {
                if (kind == 1)
                    ob.sign ^= 1;
                int64_t ea = oa.zero ? 0 : oa.exp, eb = ob.zero ? 0 : ob.exp;
                int64_t ma = oa.zero ? 0 : oa.man, mb = ob.zero ? 0 : ob.man;
                int64_t sa = oa.zero ? 0 : oa.sign, sb = ob.zero ? 0 : ob.sign;
                if (eb > ea || (eb == ea && mb > ma)) {
                    int64_t x;
                    x = sa; sa = sb; sb = x;
                    x = ea; ea = eb; eb = x;
                    x = ma; ma = mb; mb = x;
                }
                mb = shr_round(mb, ea - eb, 0, 12);
                t.sign = sa;
                t.man = shl(sa == sb ? ma + mb : ma - mb, 13);
                t.exp = ea;
                if (use32 && !exp8)
                    t.exp = ea != 0 ? ea + 127 - 15 : 127 - 30;
            }
            term d = {0, 0, 0};
            if (add_dst)
                d = dst_term(dst_read(bits, written, r, c, use32), use32, exp8);
            dst_write(bits, r, c, to_dst(accumulate(&t, 1, d, use32, exp8), use32, exp8), use32);
        }
        dst_defined(written, r, use32);
    }
}

/* GMPOOL.md's ReadDst (matrix_unit._gm_read_dst); styles: 0 BF16, 1 TF32, 2 FP16, 3 INT32/INT8 */
#define GM_INT 3

static inline void gm_read_dst(int64_t v, int style, int64_t out[3])
{
    out[0] = v >> 31;
    if (style == GM_INT) {
        out[1] = ((v >> 10) & 0x3F) + (((v >> 24) & 7) << 6);
        out[2] = v & 0x3FF;
    } else if (style == STYLE_FP16) {
        out[1] = ((v >> 16) & 0x1F) + 15;
        out[2] = (v >> 21) & 0x3FF;
    } else {
        int64_t man = ((v >> 24) & 0x7F) << 3;
        if (style == STYLE_TF32)
            man += (v >> 13) & 7;
        out[1] = ((v >> 16) & 0xFF) + 127;
        out[2] = man;
    }
}

/* GMPOOL.md's WriteDst (matrix_unit._gm_write_dst) */
static inline int64_t gm_write_dst(const int64_t d[3], int style)
{
    int64_t sign = d[0], exp = d[1], man = d[2];
    if (style == GM_INT)
        return (sign << 31) | ((exp & 7) << 10) | man;
    if (style == STYLE_FP16) {
        if ((exp & 0x3F) == 0)
            return 0;
        return (sign << 31) | (man << 21) | (((exp - 15) & 0x1F) << 16);
    }
    if (exp == 0)
        return 0;
    int64_t x = (sign << 31) | ((man & 0x3F8) << 21) | (((exp - 127) & 0xFF) << 16);
    if (style == STYLE_TF32)
        x += (man & 7) << 13;
    return x;
}

/* GMPOOL.md's ReadAndScaleSrc (matrix_unit._gm_read_scale_src) */
static inline void gm_read_scale_src(int64_t a, int style, int64_t b, int64_t out[3])
{
    int64_t a_exp = a & 0xFF, b_exp = b & 0xFF;
    if (b_exp == 0) {
        out[0] = 1; out[1] = 0x1FF; out[2] = 0x3FF;
        return;
    }
    if (a_exp == 0) {
        out[0] = out[1] = out[2] = 0;
        return;
    }
    int64_t man = (a >> 8) & 0x3FF;
    out[0] = a >> 18;
    if (style == GM_INT) {
        out[1] = 0;
        out[2] = man;
    } else if (style == STYLE_FP16) {
        out[1] = ((a_exp & 0x1F) + (b_exp & 0x1F)) & 0x1FF;
        out[2] = man;
    } else {
        out[1] = (a_exp + b_exp) & 0x1FF;
        out[2] = style == STYLE_BF16 ? man & 0x3F8 : man;
    }
}

static inline int64_t comparable(const int64_t d[3]) { return (d[0] ? -1 : 1) * ((d[1] << 10) + d[2]); }

/* GMPOOL.md's per-column loop (matrix_unit.gmpool): a[16][16] SrcA rows, b[16] the SrcB row,
 * block0[16] Dst row 0 as read (32-bit layout); top[16] the new Dst row 0. */
void tdbg_gmpool(const uint32_t *a, const uint32_t *b, const int64_t *block0, int64_t *top,
                 int a_style, int d_style, int argmax)
{
    static const int nonlinear[8] = {0, 3, 6, 1, 4, 7, 2, 5};
    for (int j = 0; j < 16; j++) {
        int64_t v = block0[j];
        int64_t best[3], x[3];
        gm_read_dst(v, d_style, best);
        int64_t index = v & 0xFF;
        int64_t phase = (v + 0x100) & 0xF00;
        for (int i_ = 0; i_ < 16; i_++) {
            int i = i_ < 8 ? i_ ^ 4 : i_;
            gm_read_scale_src(a[i * 16 + j], a_style, b[i], x);
            if (comparable(x) >= comparable(best)) {
                best[0] = x[0]; best[1] = x[1]; best[2] = x[2];
                if (i < 8)
                    index = ((phase >> 4) + nonlinear[i]) & 0xFF;
            }
        }
        if (argmax)
            top[j] = d_style == GM_INT ? (phase | index) : (gm_write_dst(best, d_style) | phase | index);
        else
            top[j] = gm_write_dst(best, d_style);
    }
}
