/* unpack_pack.c - UNPACR and PACR for the native push path (tdbg/native/push.c runs them through
 * tdbg_units_run; tdbg.emu.native_units describes their config-derived state): the common case of
 * each, step for step with the Python function it mirrors, and the L1 bookkeeping of
 * tdbg.emu.tile.Tile.write and tdbg.emu.push_path.PushPath._l1_accessed.  Every check comes before
 * any effect: 0 (nothing done) wherever the Python path must run (it then raises the page's
 * event, or runs a mode not mirrored here), -1 while the config-derived state is not described.
 *
 * UNPACR (tdbg.tensix.unpackers.unpacr, plan, _write_out's _write_rows, _update_counters): an
 * uncompressed BF16 -> BF16, FP16 -> FP16 or FP32 -> TF32 / BF16 / FP16 run of whole datums
 * (no Tileize_mode, no FIFO wrap, no upsampling, column shift or Transpose) into SrcA / SrcB
 * whole rows, with ADC increments; FlipSrc only off a queue, all but the flip (the caller makes it:
 * tdbg.emu.native_matrix.run_queued), not UseContextCounter or Unpack_Src_Reg_Set_Upd (they write
 * state the Python objects hold).  PACR (tdbg.tensix.packers.pacr's native branch,
 * _output, _advance): nothing staged (PackConfig.native), no ZeroWrite / Flush, no L1
 * accumulation, tdbg_pack (pack.c) of the gathered Dst datums.
 *
 * L1 (Tile.write for a Tensix unit, Coprocessor.write_l1 / l1_read): a read of L1 nothing wrote
 * (tdbg.emu.l1_written), a write over loaded code (its replaced words, its translations), the
 * reverse-step journal and a tile whose L1 is still all zero (Tile.l1_zero) are the Python path's;
 * otherwise the bytes are written, their granules marked written, and each access logged in a
 * ring that is tdbg.emu.pushlog.L1Log's once the native path exists: the Python path's accesses
 * go into it too (tdbg_units_log), in the order made. */
#include <stdint.h>

#define MAXT 4
#define NSLOT (MAXT * 2 * 9)   /* UNPACR: [thread][unpacker][0: one context, 1 + ContextNumber] */
#define MAXCODE 64
#define L1_SHIFT 4             /* tdbg.emu.l1_written.SHIFT: 16-byte granules */
enum { K_UNPACR = 13, K_PACR = 14 };
enum { X, Y, Z, W };
enum { UNPACKER0, UNPACKER1, PACKERS };
enum { CV_BF16 = 1, CV_FP16 = 2, CV_FP32_TF32 = 3, CV_FP32_BF16 = 4, CV_FP32_FP16 = 5 };
enum { P_DATA, P_EXP, P_DATA_NEW, P_EXP_NEW, P_TPG_X, P_TPG_Y, P_TPG_Z };   /* packers.PACKER_REGS */
static const int64_t ADC_MASK[4] = {(1 << 18) - 1, (1 << 13) - 1, 0xFF, 0xFF};   /* adcs.MASKS */

struct uslot {          /* what one UNPACR reads from config (unpackers.UnpackConfig); known 1 */
    int32_t known, conv, width, out_shift, srca_set_ovrd, add_ctx;
    int64_t in_addr, x_dim, y_dim, z_dim, fifo_size, limit, out_base, y_stride, z_stride, w_stride, ctx_out;
};

struct pslot {          /* what one PACR of a thread reads (packers.PackConfig); known 1 */
    int32_t known, plan[10], datum_bits, bfp, read_32b, in_fmt, out_fmt, sub_header, yz_transposed;
    int64_t base0, x_stride, y_stride, z_stride, w_stride, dst_offset, base1, y_stride1, z_stride1, w_stride1;
    int64_t l1_dest_addr, exp_section_size, limit, fifo_size, reads_per_plane;
    int64_t addr_mod[4][2][5];   /* ADDR_MOD_PACK_SEC<m>: src, dst: Y clear, Y CR, Y incr, Z clear, Z incr */
};

struct l1rec {          /* one tdbg.emu.pushlog.L1Access */
    uint64_t seq;
    uint32_t start, end, word;
    uint8_t thread, write, pad[2];
};

struct units {
    int32_t ok;             /* refresh: no reverse-step journal, L1 written before */
    int32_t settled;        /* ... and no wait latched on any thread (UNPACR's Wait Gate check settles them) */
    int32_t src_ok[2];      /* the unpacker's SrcA / SrcB bank is the unpackers' (unpacr_wait) */
    int32_t bank[2];        /* SrcBankSelect.unpacker */
    int32_t src_row[2][MAXT];   /* Coprocessor.unpacker_src_row */
    int32_t tracked, ncode; /* L1Written.tracked; merged code ranges (Tile._code_index) */
    int64_t l1_size;
    int64_t code[MAXCODE][2];
    int64_t *adc, *adc_cr;  /* Adcs._value / _cr */
    int64_t *packer, *max_exp;  /* PackerState.regs, ExponentHistogram.regs */
    uint8_t *l1, *written;  /* L1, L1Written.map */
    uint32_t *srca, *srcb;  /* SrcA.data / SrcB.data [2][64][16] */
    uint16_t *dst_bits;     /* Dst.bits, ever_written, row16, row32 */
    uint8_t *ever_written;
    int64_t *row16, *row32;
    struct l1rec *ring;     /* the L1 log's native records: cap, the next slot, how many kept */
    uint32_t cap, head, count, pad;
    struct uslot u[NSLOT];
    struct pslot p[MAXT];
};

int tdbg_pack(uint32_t *in, int n, const int32_t *plan, uint8_t *data, uint8_t *exps, int32_t *max_exp,
              const uint16_t *bits, const uint8_t *written, const int64_t *map, int wide, int64_t start,
              const int64_t *offsets);

static inline int64_t adc_get(const struct units *s, int t, int unit, int ch, int dim)
{
    return s->adc[((t * 3 + unit) * 2 + ch) * 4 + dim];
}

/* Adcs.add */
static inline void adc_add(struct units *s, int t, int unit, int ch, int dim, int64_t inc)
{
    if (inc) {
        int64_t *v = &s->adc[((t * 3 + unit) * 2 + ch) * 4 + dim];
        *v = (*v + inc) & ADC_MASK[dim];
    }
}

/* L1Written.never_written (tracked: the native library is loaded) */
static int never_written(const struct units *s, int64_t start, int64_t end)
{
    if (!s->tracked || start >= s->l1_size || end <= start)
        return 0;
    int64_t stop = ((end < s->l1_size ? end : s->l1_size) + (1 << L1_SHIFT) - 1) >> L1_SHIFT;
    for (int64_t g = start >> L1_SHIFT; g < stop; g++)
        if (s->written[g])
            return 0;
    return 1;
}

/* Tile._over_code (the merged ranges overlap start .. end) */
static int over_code(const struct units *s, int64_t start, int64_t end)
{
    for (int i = 0; i < s->ncode; i++)
        if (s->code[i][0] < end && start < s->code[i][1])
            return 1;
    return 0;
}

/* PushPath._l1_accessed's L1Log.append */
static void log_access(struct units *s, uint64_t seq, int t, uint32_t word, int64_t start, int64_t end, int write)
{
    struct l1rec *x = &s->ring[s->head];
    x->seq = seq;
    x->start = (uint32_t)start;
    x->end = (uint32_t)end;
    x->word = word;
    x->thread = (uint8_t)t;
    x->write = (uint8_t)write;
    s->head = s->head + 1 == s->cap ? 0 : s->head + 1;
    if (s->count < s->cap)
        s->count++;
}

/* Coprocessor.write_l1 through Tile.write (a unit's, over no code, no journal, no watch), logged */
static void write_l1(struct units *s, uint64_t seq, int t, uint32_t word, int64_t start, const uint8_t *data, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        s->l1[start + i] = data ? data[i] : 0;
    int64_t stop = ((start + n < s->l1_size ? start + n : s->l1_size) + (1 << L1_SHIFT) - 1) >> L1_SHIFT;
    for (int64_t g = start >> L1_SHIFT; g < stop; g++)   /* L1Written.mark */
        s->written[g] = 1;
    log_access(s, seq, t, word, start, start + n, 1);
}

/* An L1 write the C path can make (Coprocessor._check_l1, Tile._over_code) */
static int writable(const struct units *s, int64_t start, int64_t n)
{
    return n <= 0 || (start >= 0 && start + n <= s->l1_size && !over_code(s, start, start + n));
}

/* -- UNPACR ------------------------------------------------------------------------------------ */
/* f = WhichUnpacker, MultiContextMode, ContextNumber, ContextADC, AllDatumsAreZero, Ch0YInc,
 * Ch0ZInc, Ch1YInc, Ch1ZInc, FlipSrc (tdbg.emu.native_units.UNPACR_FIELDS) */
static inline uint32_t src_tf32(uint32_t x)   /* unpackers._src_tf32 (Sign,Exp,Man -> Sign,Man,Exp) */
{
    return (x & 0x40000u) | ((x & 0x3FFu) << 8) | ((x & 0x3FC00u) >> 10);
}

/* unpackers.convert to Src for the mirrored conversions, then MASK19 */
static inline uint32_t convert(int conv, uint32_t b)
{
    switch (conv) {
    case CV_BF16:
        return src_tf32(b << 3) & 0x7FFFFu;
    case CV_FP16:
        return src_tf32(((b & 0x8000u) << 3) | (b & 0x7FFFu)) & 0x7FFFFu;
    case CV_FP32_TF32:
        return src_tf32(b >> 13) & 0x7FFFFu;
    case CV_FP32_BF16:
        b = ((b & 0x7F800000u) == 0 ? b & 0x80000000u : b) >> 16;
        return src_tf32(b << 3) & 0x7FFFFu;
    default: {   /* CV_FP32_FP16: unpackers.fp32_to_fp16 */
        uint32_t sign = (b >> 16) & 0x8000u;
        int32_t e = (int32_t)((b >> 23) & 0xFF) - 112;
        uint32_t h = e < 0 ? sign : e > 31 ? sign | 0x7FFFu : sign | ((uint32_t)e << 10) | ((b >> 13) & 0x3FFu);
        return src_tf32(((h & 0x8000u) << 3) | (h & 0x7FFFu)) & 0x7FFFFu;
    }
    }
}

static int unpacr(struct units *s, int t, const uint16_t *f, uint32_t word, uint64_t seq, int queued)
{
    int which = f[0], multi = f[1];
    const struct uslot *c = &s->u[(t * 2 + which) * 9 + (multi ? 1 + f[2] : 0)];
    if (f[9] && !queued)
        return 0;    /* FlipSrc pushed: Python's (the bank it hands over may release other words) */
    if (!c->known)
        return -1;   /* not described yet: learn */
    if (c->known != 1 || !(s->settled || queued) || !s->src_ok[which])
        return 0;
    int adc_t = multi ? f[3] : t, unit = which ? UNPACKER1 : UNPACKER0;
    /* plan */
    int64_t x_pos = adc_get(s, adc_t, unit, 0, X), y_pos = adc_get(s, adc_t, unit, 0, Y);
    int64_t x_end = adc_get(s, adc_t, unit, 1, X);
    int64_t z = adc_get(s, t, unit, 0, Z), w = adc_get(s, t, unit, 0, W);
    int64_t first = ((w * c->z_dim + z) * c->y_dim + y_pos) * c->x_dim + x_pos;
    int64_t count = x_end + 1 - x_pos, width = c->width;
    if (count <= 0)
        return 0;
    int64_t start_bits = c->in_addr * 8 + first * width;
    if (c->fifo_size && (start_bits + (count - 1) * width) >> 3 > c->limit * 16)
        return 0;   /* the FIFO wraps: per-datum addresses */
    int64_t lo = start_bits >> 3, hi = (start_bits + count * width + 7) >> 3;
    if (start_bits < 0 || lo + count * width / 8 > s->l1_size)
        return 0;   /* past L1: UndefinedBehavior */
    if (never_written(s, lo, hi))
        return 0;   /* NeverWritten */
    /* _out_address */
    int64_t addr = c->out_base + adc_get(s, t, unit, 1, Y) * c->y_stride + adc_get(s, t, unit, 1, Z) * c->z_stride
                 + adc_get(s, t, unit, 1, W) * c->w_stride;
    if (addr & ((1 << c->out_shift) - 1))
        return 0;   /* not aligned for OutDataFormat: UndefinedBehavior */
    addr >>= c->out_shift;
    if (c->ctx_out >= 0)
        addr = c->add_ctx ? addr + c->ctx_out : c->ctx_out;
    /* _write_out's _write_rows: whole rows, in order, no wrap */
    if ((addr | count) & 15)
        return 0;
    int64_t row = addr >> 4, n = count >> 4, first_row;
    if (which == 1)
        first_row = (row + s->src_row[1][t]) & 0x3F;
    else {
        if (row < 4)
            return 0;
        first_row = row - 4;
        if (c->srca_set_ovrd)
            first_row &= 0x3F;
        else if (first_row + n > 16)
            return 0;
        else
            first_row += s->src_row[0][t];
    }
    if (first_row + n > 64)
        return 0;
    /* effects: the L1 read logged, Src written, the counters */
    log_access(s, seq, t, word, lo, hi, 0);
    uint32_t *out = (which ? s->srcb : s->srca) + ((int64_t)s->bank[which] * 64 + first_row) * 16;
    const uint8_t *in = s->l1 + lo;
    for (int64_t i = 0; i < count; i++) {
        uint32_t b = width == 16 ? (uint32_t)in[2 * i] | (uint32_t)in[2 * i + 1] << 8
                                 : (uint32_t)in[4 * i] | (uint32_t)in[4 * i + 1] << 8
                                   | (uint32_t)in[4 * i + 2] << 16 | (uint32_t)in[4 * i + 3] << 24;
        out[i] = f[4] ? 0 : convert(c->conv, b);   /* AllDatumsAreZero */
    }
    if (f[5] || f[6] || f[7] || f[8]) {
        for (int k = 0; k < (adc_t == t ? 1 : 2); k++) {
            int u = k ? adc_t : t;
            adc_add(s, u, unit, 0, Y, f[5]);
            adc_add(s, u, unit, 0, Z, f[6]);
            adc_add(s, u, unit, 1, Y, f[7]);
            adc_add(s, u, unit, 1, Z, f[8]);
        }
    }
    return 1;
}

/* -- PACR -------------------------------------------------------------------------------------- */
/* f = Last, OvrdThreadId, ReadIntfSel, AddrCntContext, AddrMode (native_units.PACR_FIELDS) */

/* packers._new_address */
static int64_t new_address(const struct units *s, const struct pslot *c, int adc)
{
    int64_t addr = c->l1_dest_addr + (c->sub_header ? 0 : 1);
    int64_t yzw = c->base1 + adc_get(s, adc, PACKERS, 1, Y) * c->y_stride1 + adc_get(s, adc, PACKERS, 1, Z) * c->z_stride1
                + adc_get(s, adc, PACKERS, 1, W) * c->w_stride1;
    addr += yzw >> 4;
    if (addr > c->limit * 2 + 1)
        addr -= c->fifo_size * 2;
    return addr & 0xFFFFFFFF;
}

static int pacr(struct units *s, int t, const uint16_t *f, uint32_t word, uint64_t seq)
{
    const struct pslot *c = &s->p[t];
    if (!c->known)
        return -1;   /* not described yet: learn */
    if (c->known != 1)
        return 0;
    int adc = f[1] ? (f[3] < 3 ? f[3] : 0) : t;
    /* _start */
    int64_t x0 = adc_get(s, adc, PACKERS, 0, X), x1 = adc_get(s, adc, PACKERS, 1, X);
    int64_t n = x1 - x0 + 1;
    if (n <= 0 || n > 16)
        return 0;   /* UndefinedBehavior */
    int64_t addr = c->base0 + x0 * (c->x_stride & 0xF) + adc_get(s, adc, PACKERS, 0, Y) * c->y_stride
                 + adc_get(s, adc, PACKERS, 0, Z) * c->z_stride + adc_get(s, adc, PACKERS, 0, W) * c->w_stride;
    static const int64_t SIZE[4] = {4, 2, 1, 1}, MASK[4] = {3, 7, 0xF, 0xF};
    int64_t start = ((addr / SIZE[c->in_fmt & 3]) & ~MASK[c->in_fmt & 3]) + (x0 & MASK[c->in_fmt & 3]) + (c->dst_offset << 4);
    /* _offsets (DstAccessMode 0) */
    int64_t offsets[64];
    int total = 0;
    for (int k = 0; k < 4; k++)
        if ((f[2] ? f[2] : 0xF) >> k & 1)
            for (int i = 0; i < n; i++)
                offsets[total++] = k * 16 + i;
    if (c->bfp && total % 16)
        return 0;   /* BFP blocks spanning PACRs: the numpy path */
    uint32_t words[64];
    uint8_t data[256], exps[4];
    int32_t top;
    if (tdbg_pack(words, total, c->plan, data, exps, &top, s->dst_bits, s->ever_written,
                  c->read_32b ? s->row32 : s->row16, c->read_32b, start, offsets))
        return 0;   /* undefined data: the numpy path says so */
    int64_t nbytes = (int64_t)total * c->datum_bits / 8, nexps = c->bfp ? total / 16 : 0;
    /* _output's addresses, checked before any effect */
    int64_t *ps = s->packer;
    int64_t data_at = ps[P_DATA], exp_at = ps[P_EXP];
    int data_new = ps[P_DATA_NEW] != 0, exp_new = ps[P_EXP_NEW] != 0;
    if (data_new || exp_new) {
        int64_t a = new_address(s, c, adc);
        if (c->out_fmt & 2) {
            if (exp_new)
                exp_at = (a & 0x1FFFF) << 4, exp_new = 0;
            a += c->exp_section_size;
        }
        if (data_new)
            data_at = (a & 0x1FFFF) << 4, data_new = 0;
    }
    int64_t data_end = data_at + nbytes, exp_end = exp_at + nexps;
    int64_t data_pad = f[0] ? -data_end & 15 : 0, exp_pad = f[0] && c->bfp ? -exp_end & 15 : 0;
    if (!writable(s, data_at, nbytes) || !writable(s, exp_at, nexps) || !writable(s, data_end, data_pad)
        || !writable(s, exp_end, exp_pad))
        return 0;
    /* effects: the tile position generator, the histogram's maximum, the writes, the streams */
    int64_t tx = ps[P_TPG_X], ty = ps[P_TPG_Y], tz = ps[P_TPG_Z], r = c->reads_per_plane;
    int64_t sum = tx + total, lines = sum / 16;   /* packers._tpg_next */
    if (c->yz_transposed) {
        int64_t zz = tz + lines;
        tx = sum % 16, ty = ty + (r ? zz / r : 0), tz = r ? zz % r : zz;
    } else {
        int64_t yy = ty + lines;
        tx = sum % 16, ty = r ? yy % r : yy, tz = tz + (r ? yy / r : 0);
    }
    if (top > *s->max_exp)
        *s->max_exp = top;
    write_l1(s, seq, t, word, data_at, data, nbytes);
    data_at += nbytes;
    if (nexps) {
        write_l1(s, seq, t, word, exp_at, exps, nexps);
        exp_at += nexps;
    }
    if (f[0]) {   /* Last: zero padding to 16 bytes, fresh streams, the generator restarts */
        if (data_pad)
            write_l1(s, seq, t, word, data_at, 0, data_pad);
        if (exp_pad)
            write_l1(s, seq, t, word, exp_at, 0, exp_pad);
        data_at += data_pad, exp_at += exp_pad;
        data_new = exp_new = 1;
        tx = ty = tz = 0;
    }
    ps[P_DATA] = data_at, ps[P_EXP] = exp_at, ps[P_DATA_NEW] = data_new, ps[P_EXP_NEW] = exp_new;
    ps[P_TPG_X] = tx, ps[P_TPG_Y] = ty, ps[P_TPG_Z] = tz;
    /* _advance: Adcs.step_yz of both channels */
    for (int ch = 0; ch < 2; ch++) {
        const int64_t *m = c->addr_mod[f[4] & 3][ch];
        int i = ((adc * 3 + PACKERS) * 2 + ch) * 4;
        int64_t *v = s->adc, *cr = s->adc_cr;
        if (m[0])
            v[i + Y] = cr[i + Y] = 0;
        else if (m[1])
            cr[i + Y] = v[i + Y] = (cr[i + Y] + m[2]) & ADC_MASK[Y];
        else if (m[2])
            v[i + Y] = (v[i + Y] + m[2]) & ADC_MASK[Y];
        if (m[3])
            v[i + Z] = cr[i + Z] = 0;
        else if (m[4])
            v[i + Z] = (v[i + Z] + m[4]) & ADC_MASK[Z];
    }
    return 1;
}

/* push.c's run for K_UNPACR / K_PACR: 1 done, 0 the Python path's, -1 learn (module comment);
 * seq is the push's sequence number.  queued: a word Python's Wait Gate queue releases, whose
 * Wait Gate check (Coprocessor._run's _held, for UNPACR's unit wait) has just settled every
 * latched wait: another thread's latch left then does not make it the Python path's. */
int tdbg_units_run(struct units *s, int kind, int t, const uint16_t *f, uint32_t word, uint64_t seq, int queued)
{
    if (!s || !s->ok)
        return 0;
    return kind == K_UNPACR ? unpacr(s, t, f, word, seq, queued) : kind == K_PACR ? pacr(s, t, f, word, seq) : 0;
}

/* An L1 access the Python path made (PushPath._l1_accessed): logged in the same ring, so that
 * tdbg.emu.pushlog.L1Log keeps every access in the order made, whichever side made it */
void tdbg_units_log(struct units *s, uint64_t seq, int t, uint32_t word, int64_t start, int64_t end, int write)
{
    log_access(s, seq, t, word, start, end, write);
}

/* Whether the config-derived state of the entry's instruction is described (push.c's described) */
int tdbg_units_described(const struct units *s, int kind, int t, const uint16_t *f)
{
    if (!s)
        return 0;
    if (kind == K_UNPACR)
        return s->u[(t * 2 + f[0]) * 9 + (f[1] ? 1 + f[2] : 0)].known != 0;
    return s->p[t].known != 0;
}

uint32_t tdbg_units_size(void)
{
    return sizeof(struct units);
}
