/* matrix_push.c - the Matrix Unit's common words for the native push path (tdbg/native/push.c
 * runs them through tdbg_matrix_run, on a .ttinsn push or on a word Python's Wait Gate queue
 * releases; tdbg.emu.native_matrix describes the state they read).  Each mirrors its function of
 * tdbg.tensix.matrix_unit step for step, with the arithmetic of tdbg/native/fpu.c that the
 * Python functions call themselves; every check comes before any effect: 0 (nothing done)
 * wherever the Python path must run (it then raises the page's event, holds the word at the
 * Wait Gate, or takes its numpy path).
 *
 *   MVMUL, ELWADD, ELWSUB, ELWMUL (with FlipSrcA / FlipSrcB only off a queue, the flips left to
 *     the caller: they change what holds words at the Wait Gate), in the BF16 / FP16 / TF32 styles
 *     (not INT8), ELW* in the datapath's cases (ELWMUL, or fidelity phase 0), MVMUL with
 *     ALU_ACC_CTRL_Zero_Flag_disabled_src 0 (matrix_unit._elw, _matmul);
 *   MOVA2D, MOVB2D, MOVB2A with no column masked (LaneConfig BLOCK_DEST_MOV: mov_columns None)
 *     (matrix_unit.mova2d, movb2d, movb2a, _src2dst);
 * each while its Src banks are the Matrix Unit's (Coprocessor._holds: else the Wait Gate holds
 * it), Dst16b does not alias Dst32b (bit 11 mode) and no Dst cell it writes is unpredictable
 * (matrix_unit._native: the Python path writes those through Dst, which clears the marks).
 * The caller applies the ADDR_MOD entry (its own apply_addr_mod) once this returns 1. */
#include <stdint.h>

#define MAXT 4
enum { K_MVMUL = 32, K_ELWADD = 33, K_ELWSUB = 34, K_ELWMUL = 35, K_MOVA2D = 36, K_MOVB2D = 37, K_MOVB2A = 38 };
enum { R_DST, R_DST_CR, R_SRCA, R_SRCA_CR, R_SRCB, R_SRCB_CR, R_FID, R_EXTRA, R_SP };   /* push.c's */
enum { S_NONE = 0, S_BF16 = 1, S_FP16 = 2, S_TF32 = 3 };   /* push.c's style codes */
enum { STYLE_BF16 = 0, STYLE_TF32 = 1, STYLE_FP16 = 2 };   /* fpu.c's */
#define NROWS 16
#define FLIPS_AT 10     /* tdbg.emu.native_matrix.FLIPS_AT */

void tdbg_matmul(const uint32_t *a, const uint32_t *b, int b_stride, int n, int step,
                 uint16_t *bits, uint8_t *written, const int64_t *map, int dst_row,
                 int style, int phase, int use32);
void tdbg_elw(const uint32_t *a, const uint32_t *b, int b_stride, int col0,
              uint16_t *bits, uint8_t *written, const int64_t *map, int dst_row,
              int kind, int style, int flush_b, int phase, int use32, int add_dst);

struct matrix {
    /* per thread (known: 1): matrix_unit.MathConfig's fields these words read */
    int32_t known[MAXT], fp16a_force[MAXT], int8_math[MAXT], fp32_dst[MAXT], zero_flag_disabled[MAXT];
    int32_t fidelity_base[MAXT], implied[MAXT], srca_fmt[MAXT], dst_base[MAXT];
    /* the Src banks the Matrix Unit reads, their implied formats and bit 0 / 1: SrcA's / SrcB's
     * AllowedClient is the Matrix Unit (described anew before each word C runs off a queue) */
    int32_t bank_a, bank_b, fmt_a, fmt_b, ready;
    int32_t style[16];          /* each format's style (push.c's codes; S_NONE: no data format) */
    int32_t tf32;               /* DataFormat.TF32 */
    uint16_t *bits;             /* Dst.bits [rows][16] */
    uint8_t *written, *unpredictable, *alias;   /* Dst.ever_written, Dst.unpredictable, Dst.alias_flag */
    int64_t *row16, *row32;     /* Dst.row16 / Dst.row32 */
    uint32_t *srca, *srcb;      /* SrcA.data / SrcB.data [2][64][16] */
    uint32_t *lane_config;      /* VectorUnit.lane_config [32] */
    uint64_t ran;               /* the words run here (for the tests and benchmarks) */
};

/* _Ctx.srca_fmt's style (push.c's code; S_NONE: MissingSpecification, Python's) */
static int fmt_style(const struct matrix *m, int t, int from_srcb, int *fmt)
{
    *fmt = m->implied[t] ? (from_srcb ? m->fmt_b : m->fmt_a) : m->srca_fmt[t];
    return *fmt < 0 || *fmt > 15 ? S_NONE : m->style[*fmt];
}

/* _Ctx.math_style as fpu.c's style: -1 for INT8 or no data format (Python's) */
static int math_style(const struct matrix *m, int t, int *use32)
{
    int fmt;
    *use32 = 0;
    if (m->fp16a_force[t])
        return STYLE_FP16;
    if (m->int8_math[t])
        return -1;
    int s = fmt_style(m, t, 0, &fmt);
    *use32 = m->fp32_dst[t];
    return s == S_BF16 ? STYLE_BF16 : s == S_FP16 ? STYLE_FP16 : s == S_TF32 ? STYLE_TF32 : -1;
}

/* The DstBits rows of n Dst rows from dst_row on, step apart (matrix_unit._bits_rows; 32-bit:
 * the high halves, then the low) into rows; 0 when one of their cells is unpredictable */
static int dst_rows(const struct matrix *m, int dst_row, int n, int step, int use32, int64_t *rows)
{
    for (int i = 0; i < n; i++) {
        int64_t r = (use32 ? m->row32 : m->row16)[dst_row + i * step];
        rows[i] = r;
        if (use32)
            rows[n + i] = r + 8;
    }
    for (int i = 0; i < (use32 ? 2 * n : n); i++) {
        const uint64_t *u = (const uint64_t *)(m->unpredictable + rows[i] * 16);
        if (u[0] | u[1])
            return 0;
    }
    return 1;
}

static int masked(const struct matrix *m)  /* _Ctx.mov_columns is not None */
{
    for (int i = 0; i < 8; i++)
        if (m->lane_config[i] & 0x600)
            return 1;
    return 0;
}

/* matrix_unit._matmul for MVMUL: f = DstRow, AddrMod, BroadcastSrcBRow */
static int mvmul(struct matrix *m, int t, const int32_t *r, const uint16_t *f, int64_t *rows)
{
    int use32, style = math_style(m, t, &use32);
    int broadcast = f[2], num_rows = broadcast ? 7 : 8, step = broadcast ? 2 : 1, n = broadcast ? 4 : 8;
    int a_row = r[R_SRCA] & 0x38;
    if (style < 0 || m->zero_flag_disabled[t] || a_row + 16 > 64)
        return 0;   /* INT8, UnimplementedFunctionality, UndefinedBehavior: Python's */
    int b_row = r[R_SRCB] & (broadcast ? 0x3F : 0x38);
    int dst_row = (f[0] + r[R_DST] + m->dst_base[t]) & (0x400 - num_rows);
    if (!dst_rows(m, dst_row, n, step, use32, rows))
        return 0;
    tdbg_matmul(m->srca + ((int64_t)m->bank_a * 64 + a_row) * 16, m->srcb + ((int64_t)m->bank_b * 64 + b_row) * 16,
                broadcast ? 0 : 1, n, step, m->bits, m->written, use32 ? m->row32 : m->row16, dst_row, style,
                (r[R_FID] + m->fidelity_base[t]) & 3, use32);
    return 1;
}

/* matrix_unit._elw: f = DstRow, AddrMod, BroadcastSrcBCol0, BroadcastSrcBRow, AddDst (ELWMUL:
 * always accumulating, dest_accum_en ignored); kind 0 add, 1 sub, 2 mul (fpu.c's) */
static int elw(struct matrix *m, int t, const int32_t *r, const uint16_t *f, int kind, int64_t *rows)
{
    int use32, style = math_style(m, t, &use32);
    int phase = (r[R_FID] + m->fidelity_base[t]) & 3;
    if (style < 0 || (kind != 2 && phase))
        return 0;   /* INT8, or the page's float code (not the datapath): Python's */
    int a_row = r[R_SRCA] & 0x38, b_row = r[R_SRCB] & (f[3] ? 0x3F : 0x38);
    int dst_row = (f[0] + r[R_DST] + m->dst_base[t]) & 0x3F8;
    if (!dst_rows(m, dst_row, 8, 1, use32, rows))
        return 0;
    tdbg_elw(m->srca + ((int64_t)m->bank_a * 64 + a_row) * 16, m->srcb + ((int64_t)m->bank_b * 64 + b_row) * 16,
             f[3] ? 0 : 1, f[2], m->bits, m->written, use32 ? m->row32 : m->row16, dst_row, kind, style,
             !m->zero_flag_disabled[t], phase, use32, kind == 2 ? 1 : f[4]);
    return 1;
}

/* matrix_unit._src2dst: n rows of Src values (src: their first, rows src_step apart; col0: column
 * 0 for every column) to Dst rows dst_row.. (DstPort.write16 / write32, all columns) */
static int src2dst(struct matrix *m, int t, const uint32_t *src, int src_step, int col0, int n, int dst_row,
                   int lo, int from_srcb, int64_t *rows)
{
    int fmt, style = fmt_style(m, t, from_srcb, &fmt);
    if (style == S_NONE)
        return 0;   /* MissingSpecification */
    int use8 = !m->fp16a_force[t] && style != S_FP16, tf32 = fmt == m->tf32, wide = tf32 || lo;
    if (!dst_rows(m, dst_row, n, 1, wide, rows))
        return 0;
    for (int i = 0; i < n; i++) {
        const uint32_t *row = src + (int64_t)i * src_step * 16;
        int64_t hi = rows[i];
        for (int c = 0; c < 16; c++) {
            uint32_t v = row[col0 ? 0 : c];
            if (!m->zero_flag_disabled[t] && !(v & 0xFF))
                v = 0;
            uint32_t v16 = use8 ? ((v & (1u << 18)) >> 3) | ((v & (0x7Fu << 11)) >> 3) | (v & 0xFF)    /* RemoveLowMantissa */
                                : ((v & (1u << 18)) >> 3) | ((v & (0x3FFu << 8)) >> 3) | (v & 0x1F);  /* RemoveHighExponent */
            v16 &= 0xFFFF;
            if (tf32) {
                uint32_t low = ((v >> 8) & 7) << 13;
                m->bits[hi * 16 + c] = (uint16_t)v16;
                m->bits[(hi + 8) * 16 + c] = (uint16_t)(lo ? low | v16 : low);
            } else if (lo)   /* the high half kept (an undefined one reads 0: DstPort.read32) */
                m->bits[hi * 16 + c] = m->written[hi] ? m->bits[hi * 16 + c] : 0, m->bits[(hi + 8) * 16 + c] = (uint16_t)v16;
            else
                m->bits[hi * 16 + c] = (uint16_t)v16;
        }
        m->written[hi] = 1;
        if (wide)
            m->written[hi + 8] = 1;
    }
    return 1;
}

/* matrix_unit.mova2d: f = DstRow, AddrMod, Move8Rows, SrcRow, UseDst32bLo */
static int mova2d(struct matrix *m, int t, const int32_t *r, const uint16_t *f, int64_t *rows)
{
    int dst_row = f[0] + r[R_DST] + m->dst_base[t], src_row = f[3] + r[R_SRCA], n = f[2] ? 8 : 1;
    dst_row &= f[2] ? 0x3F8 : 0x3FF;
    src_row &= f[2] ? 0x38 : 0x3F;
    return src2dst(m, t, m->srca + ((int64_t)m->bank_a * 64 + src_row) * 16, 1, 0, n, dst_row, f[4], 0, rows);
}

/* matrix_unit.movb2d: f = DstRow, AddrMod, BroadcastCol0, Broadcast1RowTo8, Move4Rows, SrcRow, UseDst32bLo */
static int movb2d(struct matrix *m, int t, const int32_t *r, const uint16_t *f, int64_t *rows)
{
    int dst_row = f[0] + r[R_DST] + m->dst_base[t], src_row = f[5] + r[R_SRCB], n, step = 1;
    if (f[3])
        n = 8, dst_row &= 0x3F8, src_row &= 0x3F, step = 0;
    else if (f[4])
        n = 4, dst_row &= 0x3FC, src_row &= 0x3C;
    else
        n = 1, dst_row &= 0x3FF, src_row &= 0x3F;
    return src2dst(m, t, m->srcb + ((int64_t)m->bank_b * 64 + src_row) * 16, step, f[2], n, dst_row, f[6], 1, rows);
}

/* matrix_unit.movb2a: f = SrcARow, AddrMod, Move4Rows, SrcBRow (no Dst row written) */
static void movb2a(struct matrix *m, int t, const int32_t *r, const uint16_t *f)
{
    int n = f[2] ? 4 : 1, mask = f[2] ? 0x3C : 0x3F;
    int a_row = (f[0] + r[R_SRCA]) & mask, b_row = (f[3] + r[R_SRCB]) & mask;
    const uint32_t *in = m->srcb + ((int64_t)m->bank_b * 64 + b_row) * 16;
    uint32_t *out = m->srca + ((int64_t)m->bank_a * 64 + a_row) * 16;
    for (int i = 0; i < n * 16; i++)
        out[i] = !m->zero_flag_disabled[t] && !(in[i] & 0xFF) ? 0 : in[i];
}

/* Whether thread t's MathConfig is described (else the Python side should: learn) */
int tdbg_matrix_described(const struct matrix *m, int t)
{
    return m->known[t];
}

/* The word of kind on thread t with the counters r (unpacked, not moved here): 1 done, the
 * DstBits rows it wrote in rows (-1 past them); 0 (nothing done) where the Python path must run,
 * -1 while thread t's MathConfig is not described.  f[FLIPS_AT], f[FLIPS_AT + 1]: FlipSrcA,
 * FlipSrcB, which only may_flip lets run, all but the flip (the caller makes it). */
int tdbg_matrix_run(struct matrix *m, int kind, int t, const int32_t *r, const uint16_t *f, int64_t *rows,
                    int may_flip)
{
    if ((f[FLIPS_AT] || f[FLIPS_AT + 1]) && !may_flip)
        return 0;   /* a bank flip: Python's (it may release other words) */
    int need = kind == K_MOVA2D ? 1 : kind == K_MOVB2D || kind == K_MOVB2A ? 2 : 3;
    if (!m->known[t])
        return -1;  /* not described yet: learn */
    if ((m->ready & need) != need || m->alias[0])
        return 0;   /* the Wait Gate holds it, or Dst16b aliases Dst32b: Python's */
    if (kind >= K_MOVA2D && masked(m))
        return 0;   /* a column masked */
    int done;
    switch (kind) {
    case K_MVMUL:
        done = mvmul(m, t, r, f, rows);
        break;
    case K_ELWADD: case K_ELWSUB: case K_ELWMUL:
        done = elw(m, t, r, f, kind - K_ELWADD, rows);
        break;
    case K_MOVA2D:
        done = mova2d(m, t, r, f, rows);
        break;
    case K_MOVB2D:
        done = movb2d(m, t, r, f, rows);
        break;
    case K_MOVB2A:
        movb2a(m, t, r, f);
        done = 1;
        break;
    default:
        return 0;
    }
    m->ran += done;
    return done;
}

/* sizeof(struct matrix): tdbg.emu.native_matrix checks its ctypes layout against it */
uint32_t tdbg_matrix_size(void)
{
    return sizeof(struct matrix);
}
