/* push.c - the .ttinsn push path for the common instructions, as a Unicorn code hook in C
 * (tdbg.emu.native_push registers it with uc_hook_add, one hook per .ttinsn address, whose user
 * data is that address's entry).  It runs, without a Python frame, what the Python path
 * (tdbg.emu.push_path.PushPath.push, tdbg.tensix.coprocessor.Coprocessor.push) would do for a
 * word the expanders pass through while every queue is empty and no wait is latched: log the
 * push, run the instruction, note the Dst rows it marked (provenance).  Anything else (a word
 * not mirrored here, state the Python side has not described to the C side yet, a stop asked
 * from another thread) goes to the Python hook, which is the reference.
 *
 * Mirrored instructions (each function names what it mirrors, step for step):
 *   NOP, INCRWC, SETRWC without bank flips, ZEROACC in ZEROACC_MODE_ONE_ROW, MOVD2A and MOVD2B
 *   with 16-bit Dst and no column masked; with every LaneConfig zero: SFPLOAD, SFPSTORE (but
 *   MOD0_FMT_INT32_ALL), SFPLOADI, SFPMAD (no indirect register), SFPSETCC, SFPENCC, each with
 *   VD < 12 (no backdoor load) and the fields their pages define; UNPACR and PACR in their common
 *   modes (tdbg/native/unpack_pack.c, tdbg.emu.native_units); the control and sync words
 *   (tdbg/native/ctrl.c, tdbg.emu.native_ctrl); MVMUL, ELWADD, ELWSUB, ELWMUL, MOVA2D, MOVB2D,
 *   MOVB2A in their common modes (tdbg/native/matrix_push.c, tdbg.emu.native_matrix).  A word a
 *   T core stores to INSTRN_BUF_BASE runs the same way (tdbg_push_word, on the word table's
 *   entry; from the region's memory hook, tdbg_store_hook); so does one Python's Wait Gate queue releases, of the kinds that read only what
 *   Python describes for it (tdbg_run_queued, the Coprocessor's native_execute).
 * MOP and REPLAY (frontend.c expands them) run the words they expand to as these, and hand the
 * rest of the expansion to Python at the first word that is not one of them (run_frontend). */
#include <stdint.h>

#define MAXT 4
/* one thread's counters as tdbg.tensix.rwc.RWCs declares them (ctypes bit fields, low bits first) */
struct rwc {
    uint32_t dst : 10, dst_cr : 10, srca : 6, srca_cr : 6;
    uint32_t srcb : 6, srcb_cr : 6, fid : 2, extra : 1, sp : 10;
};
/* ... which the instructions below work on unpacked, one int32_t each */
#define NRWC 9
enum { R_DST, R_DST_CR, R_SRCA, R_SRCA_CR, R_SRCB, R_SRCB_CR, R_FID, R_EXTRA, R_SP };
static const int32_t MASK[NRWC] = {0x3FF, 0x3FF, 0x3F, 0x3F, 0x3F, 0x3F, 3, 1, 0x3FF};

static void unpack(const struct rwc *x, int32_t *r)
{
    r[R_DST] = x->dst, r[R_DST_CR] = x->dst_cr, r[R_SRCA] = x->srca, r[R_SRCA_CR] = x->srca_cr;
    r[R_SRCB] = x->srcb, r[R_SRCB_CR] = x->srcb_cr, r[R_FID] = x->fid, r[R_EXTRA] = x->extra, r[R_SP] = x->sp;
}

static void pack(const int32_t *r, struct rwc *x)
{
    x->dst = (uint32_t)r[R_DST], x->dst_cr = (uint32_t)r[R_DST_CR], x->srca = (uint32_t)r[R_SRCA];
    x->srca_cr = (uint32_t)r[R_SRCA_CR], x->srcb = (uint32_t)r[R_SRCB], x->srcb_cr = (uint32_t)r[R_SRCB_CR];
    x->fid = (uint32_t)r[R_FID], x->extra = (uint32_t)r[R_EXTRA], x->sp = (uint32_t)r[R_SP];
}

enum { K_UNKNOWN = 0, K_NOP = 1, K_INCRWC = 2, K_SETRWC = 3, K_ZEROACC_ROW = 4, K_MOVD2A = 5, K_MOVD2B = 6,
       K_SFPLOAD = 7, K_SFPSTORE = 8, K_SFPLOADI = 9, K_SFPMAD = 10, K_SFPSETCC = 11, K_SFPENCC = 12,
       K_UNPACR = 13, K_PACR = 14, K_MOP = 15, K_REPLAY = 16,
       K_SETC16 = 17, K_SETADCXX = 25, K_SEMGET = 28, K_SETADC = 29,   /* 17-29: ctrl.c's */
       K_MVMUL = 32, K_MOVB2A = 38, K_PYTHON = 255 };   /* 32-38: matrix_push.c's */
#define NROWS 16    /* the most DstBits rows one instruction writes (an MVMUL to Dst32b) */
enum { S_NONE = 0, S_BF16 = 1, S_FP16 = 2, S_TF32 = 3 };   /* tdbg.arch.data_formats styles */
enum { MODE_PYTHON = 0, MODE_FAST = 1 };
enum { V_STALE = 0, V_VALID = 1 };

struct rec {            /* one push log record (tdbg.emu.pushlog.PushRecord; via 0 "ttinsn", 1 "store") */
    uint64_t seq;
    uint32_t pc, word;
    uint8_t core, thread, via, pad[5];
};

typedef void (*code_hook)(void *uc, uint64_t address, uint32_t size, void *user);
struct cop;
typedef void (*refresh_fn)(struct cop *cop);
struct core;
typedef void (*handover_fn)(struct core *k, uint32_t start, uint32_t end);
struct entry;
typedef void (*describe_fn)(struct core *k, struct entry *e);
struct fe;

struct cop {            /* one tile's coprocessor, as far as the native path reads and writes it */
    int32_t valid;      /* V_VALID: what follows describes the model now; V_STALE once seq moved
                         * without this path (a Python push or window access): the next mirrored
                         * word refreshes */
    int32_t mode;       /* MODE_FAST, or MODE_PYTHON for the whole run (a watchpoint is set) */
    refresh_fn refresh; /* the Python side fills this struct (valid or not) */
    struct rwc *rwc;    /* [thread] (tdbg.tensix.rwc.storage) */
    uint8_t *ever_written;  /* Dst.ever_written, per DstBits row */
    int64_t *row16, *row32; /* Dst.row16 / Dst.row32 */
    int64_t *prov_seq;      /* DstProvenance.seq, per DstBits row */
    uint64_t seq;           /* PushPath.seq */
    uint64_t seen;          /* seq when this path last pushed or looked */
    /* per thread: MathConfig fields ZEROACC reads (known: 1) */
    int32_t math_known[MAXT], dst_base[MAXT], use32[MAXT];
    /* per thread, ExtraAddrModBit, AddrMod: the ADDR_MOD entry ApplyAddrMod uses, [14] = 1 known,
     * 2 no page defines it (the Python path raises MissingSpecification), 0 not described */
    int16_t addr_mod[MAXT][2][8][16];
    int32_t thread_ok;  /* bit t: nothing queued at any Wait Gate, no wait latched for T<t>, no replay loading */
    /* the MOVs: MathConfig per thread (fp16a_force, implied, srca_fmt), the Src banks the Matrix
     * Unit reads and their implied formats, each format's style */
    int32_t fp16a_force[MAXT], implied[MAXT], srca_fmt[MAXT];
    int32_t bank_a, bank_b, fmt_a, fmt_b;
    int32_t style[16];
    uint16_t *dst_bits;         /* Dst.bits [rows][16] */
    uint32_t *srca, *srcb;      /* SrcA.data / SrcB.data [2][64][16] */
    uint32_t *lane_config;      /* VectorUnit.lane_config [32] */
    /* the Vector Unit: lreg [17][32], defined [17][32], full [17], flags {mad_wrote,
     * backdoor_changed}, lane_flags / use_lane_flags [32]; Dst.unpredictable [rows][16], Dst.alias_flag */
    uint32_t *lreg;
    uint8_t *defined, *full;
    int64_t *vu_flags;
    uint8_t *lane_flags, *use_flags, *unpredictable, *alias;
    /* per thread (known: 1): the SFPU address's config (loadstore.address) and MOD0_FMT_SRCB resolved */
    int32_t sfpu_known[MAXT], sfpu_offset[MAXT], sfpu_dst_base[MAXT], sfpu_sp_base[MAXT], srcb_mod0[MAXT];
    /* the log's native records: a ring of cap records, count kept, head the next slot */
    struct rec *ring;
    uint32_t cap, limit, head, count;
    uint64_t total, per_thread[MAXT];
    void *units;        /* UNPACR / PACR's state (unpack_pack.c's struct units), or NULL */
    /* thread_ok's bits for the words that release nothing (releases_nothing) while every
     * queued instruction is held (Coprocessor.settled_and_held) */
    int32_t held_ok;
    /* MOP and REPLAY: the expanders (frontend.c), the words they expand to and the entries of
     * those words (a table of 2^n, open addressing; Python's describe fills them), the words
     * learn should describe, and the Python path that takes over the rest of an expansion */
    struct fe *fe;
    uint32_t *expanded, *wanted;
    uint32_t expanded_cap, wanted_cap, nwanted, words_mask;
    struct entry *words;
    handover_fn handover;
    void *ctrl;         /* the control and sync words' state (ctrl.c's struct ctrl), or NULL */
    int32_t via;        /* the log's via of the push being run (tdbg_push_word's: 1, "store") */
    void *matrix;       /* the Matrix Unit words' state (matrix_push.c's struct matrix), or NULL */
    int32_t queued;     /* running a word off Python's queue (tdbg_run_queued): its bank flips are
                         * the caller's */
    struct shared *shared;  /* the kinds and fields of the words described so far, or NULL */
    uint32_t words_used;    /* the word table's entries claimed */
};

struct core {           /* one core's side of it */
    struct cop *cop;
    code_hook fallback;     /* the core's Python code hook (tdbg.emu.core.Core._code_hook) */
    code_hook learn;        /* the same, then describe the entry (a word not seen yet) */
    int32_t thread, index;  /* the thread its .ttinsn words push to, its number in the log */
    int32_t hooks;          /* entries and exits (Core._hooks' protocol) */
    int32_t stop_asked;     /* Core._stop_asked, as the asking thread set it */
    uint64_t pushes;        /* pushes it made here (Core._polling: a push breaks a poll) */
    describe_fn describe;   /* describe an entry (and the words a push wants) before C runs it */
    int32_t shared_ok;      /* its entries may take their kind and fields from cop->shared (a T
                             * core: the thread its words go to is known) */
};

struct entry {          /* one hooked .ttinsn address */
    struct core *core;
    uint32_t word, kind;
    uint16_t f[12];     /* the fields the kind needs, in the order tdbg.emu.native_push packs them */
};

/* The kind and fields of each word described so far (tdbg.emu.native_push.SharedWords): a function
 * of the word and the profile's encodings alone, so one table serves every tile and session of
 * the process with those encodings; the config-derived values stay per tile (struct cop).  Open
 * addressing, 2^n slots, filled to three quarters at most; a slot's core is non-NULL once used. */
struct shared {
    struct entry *slots;
    uint32_t mask, used;
};

static struct entry *shared_slot(const struct shared *s, uint32_t word)
{
    uint32_t i = (word * 2654435761u) & s->mask;
    while (__atomic_load_n(&s->slots[i].core, __ATOMIC_ACQUIRE) && s->slots[i].word != word)
        i = (i + 1) & s->mask;
    return &s->slots[i];
}

/* The entry's kind and fields from the table if it holds its word (1), as Python's describe gives
 * them (a MOP or REPLAY with no expander here is Python's); else 0 */
static int shared_fill(const struct cop *c, struct entry *e)
{
    if (!c->shared)
        return 0;
    const struct entry *x = shared_slot(c->shared, e->word);
    if (!__atomic_load_n(&x->core, __ATOMIC_ACQUIRE))
        return 0;
    for (int i = 0; i < 12; i++)
        e->f[i] = x->f[i];
    e->kind = (x->kind == K_MOP || x->kind == K_REPLAY) && !c->fe ? K_PYTHON : x->kind;
    return 1;
}

/* Python's describe keeps an entry's kind and fields (the word's) in the table; 0 when it is full.
 * A slot is published whole (its mark stored last) and never changes after (the word's kind and
 * fields are the word's) */
int32_t tdbg_shared_put(struct shared *s, const struct entry *e)
{
    struct entry *x = shared_slot(s, e->word);
    if (x->core)
        return 1;
    if (4 * (s->used + 1) > 3 * (s->mask + 1))
        return 0;
    s->used++;
    x->word = e->word;
    x->kind = e->kind;
    for (int i = 0; i < 12; i++)
        x->f[i] = e->f[i];
    __atomic_store_n(&x->core, (struct core *)s, __ATOMIC_RELEASE);   /* (a used slot's mark) */
    return 1;
}

/* The table's kind and fields of e's word into e (1), or 0 if it holds none */
int32_t tdbg_shared_get(const struct shared *s, struct entry *e)
{
    const struct entry *x = shared_slot(s, e->word);
    if (!__atomic_load_n(&x->core, __ATOMIC_ACQUIRE))
        return 0;
    e->kind = x->kind;
    for (int i = 0; i < 12; i++)
        e->f[i] = x->f[i];
    return 1;
}

/* tdbg.tensix.rwc._advance */
static void advance(int32_t *r, int counter, int32_t inc, int cr)
{
    if (cr)
        r[counter] = r[counter + 1] = (r[counter + 1] + inc) & MASK[counter];
    else if (inc)
        r[counter] = (r[counter] + inc) & MASK[counter];
}

/* tdbg.tensix.rwc.apply_addr_mod; the entry is known (the caller checked) */
static void apply_addr_mod(int32_t *r, const int16_t *e, int update_fidelity)
{
    int16_t a_incr = e[0], a_clear = e[1], a_cr = e[2], b_incr = e[3], b_clear = e[4], b_cr = e[5];
    int16_t d_incr = e[6], d_clear = e[7], d_ctocr = e[8], d_cr = e[9], f_clear = e[10], f_incr = e[11];
    int16_t bias_clear = e[12], bias_incr = e[13];
    if (a_clear)
        r[R_SRCA] = r[R_SRCA_CR] = 0;
    else if (a_cr || a_incr)
        advance(r, R_SRCA, a_incr, a_cr);
    if (b_clear)
        r[R_SRCB] = r[R_SRCB_CR] = 0;
    else if (b_cr || b_incr)
        advance(r, R_SRCB, b_incr, b_cr);
    if (d_clear)
        r[R_DST] = r[R_DST_CR] = 0;
    else if (d_ctocr) {
        r[R_DST] = (r[R_DST] + d_incr) & MASK[R_DST];
        r[R_DST_CR] = r[R_DST];
    } else if (d_cr || d_incr)
        advance(r, R_DST, d_incr, d_cr);
    if (!update_fidelity)
        ;
    else if (f_clear)
        r[R_FID] = 0;
    else if (f_incr)
        r[R_FID] = (r[R_FID] + f_incr) & MASK[R_FID];
    if (bias_clear)
        r[R_EXTRA] = 0;
    else if (bias_incr & 3)
        r[R_EXTRA] = (r[R_EXTRA] + 1) & MASK[R_EXTRA];
}

/* tdbg.tensix.rwc.incrwc: f = SrcAInc, SrcACr, SrcBInc, SrcBCr, DstInc, DstCr */
static void incrwc(int32_t *r, const uint16_t *f)
{
    advance(r, R_SRCA, f[0], f[1]);
    advance(r, R_SRCB, f[2], f[3]);
    advance(r, R_DST, f[4], f[5]);
}

/* tdbg.tensix.rwc.setrwc (tdbg.tensix.matrix_unit.setrwc without FlipSrcA / FlipSrcB):
 * f = SrcA, SrcAVal, SrcACr, SrcB, SrcBVal, SrcBCr, Dst, DstCtoCr, DstVal, DstCr, Fidelity */
static void setrwc(int32_t *r, const uint16_t *f)
{
    if (f[0])
        r[R_SRCA] = r[R_SRCA_CR] = (f[1] + (f[2] ? r[R_SRCA_CR] : 0)) & MASK[R_SRCA];
    if (f[3])
        r[R_SRCB] = r[R_SRCB_CR] = (f[4] + (f[5] ? r[R_SRCB_CR] : 0)) & MASK[R_SRCB];
    if (f[6] || f[7]) {
        int32_t value = f[8];
        if (f[7])
            value += r[R_DST];
        else if (f[9])
            value += r[R_DST_CR];
        r[R_DST] = r[R_DST_CR] = value & MASK[R_DST];
    }
    if (f[10])
        r[R_FID] = 0;
}

/* tdbg.tensix.matrix_unit.zeroacc, ZEROACC_MODE_ONE_ROW: f = Imm10, AddrMod; the DstBits rows
 * it marked go to rows (DstPort.undefine / undefine_row); -1 (nothing done) while the
 * MathConfig or the ADDR_MOD entry is not described */
static int zeroacc_row(struct cop *c, int t, int32_t *r, const uint16_t *f, int64_t *rows)
{
    const int16_t *am = c->addr_mod[t][r[R_EXTRA]][f[1] & 7];
    if (!c->math_known[t] || am[14] != 1)
        return am[14] == 2 ? 0 : -1;   /* not described yet: learn */
    int64_t row = (f[0] + r[R_DST] + c->dst_base[t]) & 0x3FF;
    if (c->use32[t]) {
        rows[0] = c->row32[row];
        rows[1] = rows[0] + 8;
    } else
        rows[0] = c->row16[row];
    for (int i = 0; i < 2 && rows[i] >= 0; i++)
        c->ever_written[rows[i]] = 0;
    apply_addr_mod(r, am, 1);
    return 1;
}

/* tdbg.tensix.matrix_unit._movd2src with 16-bit Dst (use32 false) and no column masked
 * (mov_columns None): f = DstRow, SrcRow, Move4Rows, AddrMod, UseDst32bLo; 0 (nothing done) for
 * every other case, which the Python path runs (or raises), -1 while the config it reads is not
 * described */
static int movd2src(struct cop *c, int t, int32_t *r, const uint16_t *f, int to_srcb)
{
    int style;
    if (!c->math_known[t])
        return -1;   /* not described yet: learn */
    if (c->fp16a_force[t])
        style = S_FP16;
    else {
        if (c->use32[t])
            return 0;
        int fmt = c->implied[t] ? (to_srcb ? c->fmt_b : c->fmt_a) : c->srca_fmt[t];
        if (fmt < 0 || fmt > 15 || c->style[fmt] == S_NONE)
            return 0;
        style = c->style[fmt];
    }
    if (f[4] || style == S_TF32)
        return 0;   /* UndefinedBehavior with 16-bit Dst (unless every column is masked) */
    if (!to_srcb) {
        for (int i = 0; i < 8; i++)
            if (c->lane_config[i] & 0x600)
                return 0;
    }
    const int16_t *am = c->addr_mod[t][r[R_EXTRA]][f[3] & 7];
    if (am[14] != 1)
        return am[14] == 2 ? 0 : -1;   /* not described yet: learn */
    int64_t dst_row = f[0] + r[R_DST] + c->dst_base[t];
    int32_t src_row = f[1] + (to_srcb ? r[R_SRCB] : r[R_SRCA]);
    int n;
    if (f[2]) {
        n = 4;
        dst_row &= 0x3FC;
        src_row &= 0x3C;
    } else {
        n = 1;
        dst_row &= 0x3FF;
        src_row &= 0x3F;
    }
    uint32_t *target = (to_srcb ? c->srcb : c->srca) + ((int64_t)c->bank_a * 64 + src_row) * 16;
    for (int i = 0; i < n; i++) {
        int64_t bits = c->row16[(dst_row + i) & 0x3FF];
        const uint16_t *in = c->dst_bits + bits * 16;
        int defined = c->ever_written[bits];
        for (int col = 0; col < 16; col++) {
            uint32_t x = defined ? in[col] : 0;
            target[i * 16 + col] = style == S_BF16 ? ((x & 0xFF00u) << 3) | (x & 0xFFu)   /* shuffle_bf16 */
                                                   : ((x & 0xFFE0u) << 3) | (x & 0x1Fu);  /* shuffle_fp16 */
        }
    }
    apply_addr_mod(r, am, 1);
    return 1;
}

/* -- the Vector Unit (tdbg.tensix.sfpu), every LaneConfig zero, every lane active ---------------- */
#define FULL 3
enum { M_FP16 = 1, M_BF16 = 2, M_FP32 = 3, M_INT32_ALL = 10 };
int tdbg_sfpload(int mod0, int addr, int vd, const uint16_t *bits, const uint8_t *written, const int64_t *map,
                 const uint8_t *unpredictable, int any_unpredictable,
                 const uint8_t *lane_flags, const uint8_t *use_flags, uint32_t *lreg, uint8_t *defined);
int tdbg_sfpstore(int mod0, int addr, int vd, uint16_t *bits, const uint8_t *written, const int64_t *map,
                  uint8_t *unpredictable, int any_unpredictable,
                  const uint8_t *lane_flags, const uint8_t *use_flags, const uint32_t *lreg, const uint8_t *defined);
void tdbg_fma(const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *out, int n);

static inline int lane_on(const struct cop *c, int lane) /* VectorUnit.enabled, LaneConfig zero */
{
    return c->lane_flags[lane] || !c->use_flags[lane];
}

/* VectorUnit.read's check: LReg[reg] defined in every enabled lane (of mask, when given) */
static int readable(const struct cop *c, int reg, const uint8_t *mask)
{
    if (c->full[reg])
        return 1;
    for (int lane = 0; lane < 32; lane++)
        if (lane_on(c, lane) && (!mask || mask[lane]) && c->defined[reg * 32 + lane] != FULL)
            return 0;
    return 1;
}

static void recount(struct cop *c, int reg) /* full[reg] = every lane FULL */
{
    int full = 1;
    for (int lane = 0; lane < 32; lane++)
        full &= c->defined[reg * 32 + lane] == FULL;
    c->full[reg] = (uint8_t)full;
}

/* VectorUnit.write of a FULL value in the enabled lanes (corrupts_4_to_7 None: LaneConfig zero) */
static void write_lreg(struct cop *c, int reg, const uint32_t *value, const uint8_t *on)
{
    for (int lane = 0; lane < 32; lane++)
        if (on[lane])
            c->lreg[reg * 32 + lane] = value[lane];
    if (c->full[reg])
        return;
    for (int lane = 0; lane < 32; lane++)
        if (on[lane])
            c->defined[reg * 32 + lane] = FULL;
    recount(c, reg);
}

/* VectorUnit.write_half */
static void write_half(struct cop *c, int reg, uint32_t value, const uint8_t *on, int high)
{
    uint32_t keep = high ? 0x0000FFFFu : 0xFFFF0000u;
    for (int lane = 0; lane < 32; lane++)
        if (on[lane]) {
            c->lreg[reg * 32 + lane] = (c->lreg[reg * 32 + lane] & keep) | (value & ~keep);
            c->defined[reg * 32 + lane] |= high ? 2 : 1;
        }
    recount(c, reg);
}

/* loadstore.resolve_mod0 and loadstore.address (not MOD0_FMT_INT32_ALL) */
static int sfpu_addr(const struct cop *c, int t, const int32_t *r, int imm10, int *mod0)
{
    if (*mod0 == 0)
        *mod0 = c->srcb_mod0[t];
    int dst = (r[R_DST] + c->sfpu_dst_base[t]) & 0x3FF;
    return (imm10 + c->sfpu_offset[t] + dst + ((r[R_SP] + c->sfpu_sp_base[t]) & 3)) & 0x3FF;
}

/* The Vector Unit instructions: the ``instruction`` wrapper of tdbg.tensix.sfpu.vector_unit (its
 * checks made when the entry was described: fields, VD < 12; here: mad_wrote cleared or set,
 * backdoor_changed cleared, LaneConfig zero) around loadstore.sfpload, sfpstore, sfploadi,
 * mad.sfpmad, predication.sfpsetcc, sfpencc.  Every check comes before any effect: 0 or -1
 * (nothing done, as run's) where the Python path must run.  SFPLOAD f = Imm10, AddrMod, Mod0, VD; SFPSTORE
 * the same; SFPLOADI Mod0, Imm16, VD; SFPMAD Mod1, VA, VB, VC, VD; SFPSETCC Mod1, VC, Imm1, VD;
 * SFPENCC Mod1, Imm2, VD. */
static int vector(struct cop *c, int t, int32_t *r, struct entry *e, int64_t *rows_written)   /* rows: as run's */
{
    const uint16_t *f = e->f;
    uint8_t on[32];
    int any = 0;
    for (int i = 0; i < 32; i++)
        if (c->lane_config[i])
            return 0;
    for (int lane = 0; lane < 32; lane++)
        any |= on[lane] = (uint8_t)lane_on(c, lane);
    switch (e->kind) {
    case K_SFPLOAD: case K_SFPSTORE: {
        const int16_t *am = c->addr_mod[t][r[R_EXTRA]][f[1] & 7];
        if (!c->sfpu_known[t] || am[14] != 1)
            return am[14] == 2 ? 0 : -1;   /* not described yet: learn */
        int mod0 = f[2];
        int addr = sfpu_addr(c, t, r, f[0], &mod0);
        int wide = mod0 == M_FP32 || mod0 == 4 || mod0 == 12 || (e->kind == K_SFPSTORE && (mod0 == 7 || mod0 == 9));
        const int64_t *map = wide ? c->row32 : c->row16;
        if (e->kind == K_SFPLOAD) {
            if (tdbg_sfpload(mod0, addr, f[3], c->dst_bits, c->ever_written, map, c->unpredictable, 1,
                             c->lane_flags, c->use_flags, c->lreg, c->defined))
                return 0;
            recount(c, f[3]);
        } else {
            if (c->alias[0])
                return 0;
            int stored = tdbg_sfpstore(mod0, addr, f[3], c->dst_bits, c->ever_written, map, c->unpredictable, 1,
                                       c->lane_flags, c->use_flags, c->lreg, c->defined);
            if (stored < 0)
                return 0;
            if (stored) {   /* DstPort.notify of the four rows' DstBits rows */
                int base = addr & ~3;
                for (int i = 0; i < 4; i++) {
                    rows_written[i] = map[(base + i) & 0x3FF];
                    if (wide)
                        rows_written[4 + i] = rows_written[i] + 8;
                }
            }
        }
        apply_addr_mod(r, am, 0);
        break;
    }
    case K_SFPLOADI: {
        int mod0 = f[0], vd = f[2];
        uint32_t imm = f[1], value;
        if (vd >= 8)
            break;
        if (mod0 == 8) {
            write_half(c, vd, imm << 16, on, 1);
            break;
        }
        if (mod0 == 10) {
            write_half(c, vd, imm, on, 0);
            break;
        }
        if (mod0 == 0)
            value = imm << 16;
        else if (mod0 == 1)
            value = ((imm >> 15) << 31) | ((((imm >> 10) & 0x1F) + 112) << 23) | ((imm & 0x3FF) << 13);
        else if (mod0 == 4)
            value = imm & 0x8000 ? imm - 0x10000 : imm;
        else
            value = imm;
        uint32_t v[32];
        for (int lane = 0; lane < 32; lane++)
            v[lane] = value;
        write_lreg(c, vd, v, on);
        break;
    }
    case K_SFPMAD: {
        int mod1 = f[0], va = f[1], vb = f[2], vc = f[3], vd = f[4];
        if (any) {
            if (!readable(c, va, 0) || !readable(c, vb, 0) || !readable(c, vc, 0))
                return 0;
            uint32_t a[32], b[32], cc[32], d[32];
            for (int lane = 0; lane < 32; lane++) {
                a[lane] = c->lreg[va * 32 + lane] ^ (mod1 & 1 ? 0x80000000u : 0);
                b[lane] = c->lreg[vb * 32 + lane];
                cc[lane] = c->lreg[vc * 32 + lane] ^ (mod1 & 2 ? 0x80000000u : 0);
            }
            tdbg_fma(a, b, cc, d, 32);
            if (vd < 8)
                write_lreg(c, vd, d, on);
        }
        c->vu_flags[0] = 1 << vd;   /* mad_wrote: _mad_writes without INDIRECT_VD */
        c->vu_flags[1] = 0;
        return 1;
    }
    case K_SFPSETCC: {
        int mod1 = f[0], vc = f[1];
        if (!(mod1 & 9) && !readable(c, vc, c->use_flags))
            return 0;
        for (int lane = 0; lane < 32; lane++) {
            if (!on[lane])
                continue;
            int flag;
            if (mod1 & 8)
                flag = 0;
            else if (mod1 & 1)
                flag = f[2] != 0;
            else {
                int32_t x = (int32_t)c->lreg[vc * 32 + lane];
                flag = mod1 == 0 ? x < 0 : mod1 == 2 ? x != 0 : mod1 == 4 ? x >= 0 : x == 0;
            }
            c->lane_flags[lane] = (uint8_t)(flag && c->use_flags[lane]);
        }
        break;
    }
    case K_SFPENCC: {
        int mod1 = f[0], imm = f[1];
        for (int lane = 0; lane < 32; lane++) {
            if (mod1 & 2)
                c->use_flags[lane] = (uint8_t)(imm & 1);
            else if (mod1 & 1)
                c->use_flags[lane] = (uint8_t)!c->use_flags[lane];
            c->lane_flags[lane] = (uint8_t)(mod1 & 8 ? (imm & 2) != 0 : 1);
        }
        break;
    }
    default:
        return 0;
    }
    c->vu_flags[0] = 0;   /* mad_wrote */
    c->vu_flags[1] = 0;   /* backdoor_changed */
    return 1;
}

int tdbg_units_run(void *units, int kind, int t, const uint16_t *f, uint32_t word, uint64_t seq, int queued);
int tdbg_ctrl_run(void *ctrl, int kind, int t, const uint16_t *f);
int tdbg_units_described(const void *units, int kind, int t, const uint16_t *f);
int tdbg_matrix_run(void *matrix, int kind, int t, const int32_t *r, const uint16_t *f, int64_t *rows, int may_flip);
int tdbg_matrix_described(const void *matrix, int t);

static int is_matrix(uint32_t kind)
{
    return kind >= K_MVMUL && kind <= K_MOVB2A;
}

/* tdbg.emu.pushlog.PushLog.append for a native push (PushPath.execute's log step) */
static void log_push(struct cop *c, struct core *k, uint32_t pc, uint32_t word)
{
    struct rec *x = &c->ring[c->head];
    x->seq = c->seq;
    x->pc = pc;
    x->word = word;
    x->core = (uint8_t)k->index;
    x->thread = (uint8_t)k->thread;
    x->via = (uint8_t)c->via;
    c->head = c->head + 1 == c->cap ? 0 : c->head + 1;
    if (c->count < c->cap)
        c->count++;
    c->total++;
    c->per_thread[k->thread]++;
}

/* Coprocessor._execute of one entry's instruction on thread t: 1 if done, with the DstBits rows
 * it wrote in rows; nothing done where the Python path must run: 0, or -1 when it should then
 * describe the config-derived values the instruction reads (a config write forgot them).  The
 * instructions' functions return the same; seq is the push's PushPath.seq (UNPACR / PACR log
 * their L1 accesses at it). */
static int execute(struct cop *c, int t, const struct entry *e, int64_t *rows, uint64_t seq)
{
    int done;
    int32_t r[NRWC];
    unpack(&c->rwc[t], r);
    switch (e->kind) {
    case K_NOP:
        done = 1;
        break;
    case K_INCRWC:
        incrwc(r, e->f);
        done = 1;
        break;
    case K_SETRWC:
        setrwc(r, e->f);
        done = 1;
        break;
    case K_ZEROACC_ROW:
        done = zeroacc_row(c, t, r, e->f, rows);
        break;
    case K_MOVD2A: case K_MOVD2B:
        done = movd2src(c, t, r, e->f, e->kind == K_MOVD2B);
        break;
    case K_UNPACR: case K_PACR:
        done = tdbg_units_run(c->units, e->kind, t, e->f, e->word, seq, c->queued);
        break;
    case K_SFPLOAD: case K_SFPSTORE: case K_SFPLOADI: case K_SFPMAD: case K_SFPSETCC: case K_SFPENCC:
        done = vector(c, t, r, (struct entry *)e, rows);
        break;
    case K_MVMUL: case K_MVMUL + 1: case K_MVMUL + 2: case K_MVMUL + 3: case K_MVMUL + 4: case K_MVMUL + 5:
    case K_MOVB2A: {    /* f[1]: AddrMod */
        const int16_t *am = c->addr_mod[t][r[R_EXTRA]][e->f[1] & 7];
        if (!c->matrix || am[14] != 1)
            return c->matrix && !am[14] ? -1 : 0;
        done = tdbg_matrix_run(c->matrix, (int)e->kind, t, r, e->f, rows, c->queued);
        if (done > 0)
            apply_addr_mod(r, am, 1);
        break;
    }
    default:
        if (e->kind < K_SETC16 || e->kind > K_SETADC || !c->ctrl)
            return 0;
        return tdbg_ctrl_run(c->ctrl, (int)e->kind, t, e->f);   /* (no counter moves) */
    }
    if (done > 0)
        pack(r, &c->rwc[t]);
    return done;
}

/* Whether the kind changes nothing that holds an instruction at the Wait Gate (semaphores,
 * mutexes, latched waits, the Src banks and their AllowedClient: Coprocessor._holds): then
 * Coprocessor._run, another thread's queue held, runs the word and nothing else (not so
 * SEMINIT, SEMPOST, SEMGET) */
static int releases_nothing(uint32_t kind)
{
    return (kind >= K_NOP && kind <= K_SFPENCC) || (kind >= K_SETC16 && kind <= K_SETADCXX) || kind == K_SETADC
        || is_matrix(kind);   /* (no bank flip: those are Python's) */
}

/* Whether thread t may run the kind now: nothing queued (thread_ok), or only held words */
static int may_run(const struct cop *c, int t, uint32_t kind)
{
    return ((c->thread_ok | (releases_nothing(kind) ? c->held_ok : 0)) >> t) & 1;
}

static void no_rows(int64_t *rows)
{
    for (int i = 0; i < NROWS; i++)
        rows[i] = -1;
}

/* PushPath._dst_written of the rows an instruction wrote */
static void provenance(struct cop *c, const int64_t *rows)
{
    for (int i = 0; i < NROWS; i++)
        if (rows[i] >= 0)
            c->prov_seq[rows[i]] = (int64_t)c->seq;
}

/* PushPath.execute and Coprocessor.push's direct path for one entry: the instruction, then the
 * log record, PushPath.seq and the provenance of the DstBits rows it wrote; execute's return */
static int run(struct cop *c, struct core *k, struct entry *e, uint32_t pc)
{
    int64_t rows[NROWS];
    if (!may_run(c, k->thread, e->kind))
        return 0;
    no_rows(rows);
    int done = execute(c, k->thread, e, rows, c->seq + 1);
    if (done <= 0)
        return done;
    c->seen = ++c->seq;
    log_push(c, k, pc, e->word);
    provenance(c, rows);
    k->pushes++;
    return 1;
}

int tdbg_frontend_expand(struct fe *fe, int t, uint32_t word, int mop, uint32_t *out, int cap);
int tdbg_frontend_commit(struct fe *fe, int t);
static int described(const struct cop *c, int t, const struct entry *e);
struct entry *tdbg_word_entry(struct cop *c, uint32_t word);

/* The table's entry of an expanded word (NULL: not described yet); the slot it has or would get */
static struct entry *word_slot(struct cop *c, uint32_t word)
{
    uint32_t i = (word * 2654435761u) & c->words_mask;
    while (c->words[i].core && c->words[i].word != word)
        i = (i + 1) & c->words_mask;
    return &c->words[i];
}

static void want(struct cop *c, uint32_t word)
{
    if (c->nwanted < c->wanted_cap)
        c->wanted[c->nwanted++] = word;
}

/* PushPath.execute and Coprocessor.push for a MOP or REPLAY entry: its expansion (frontend.c),
 * the log record and PushPath.seq, then Coprocessor._run of the words it expanded to (nothing is
 * queued or latched: one after the other) as execute runs them, until one it does not run, which
 * Python's Coprocessor.run_expanded takes over with the rest (handover).  Nothing done (0) for
 * what Python raises or an expansion past the buffer; -1 (learn) when a word is not described
 * (the table's entry, or the config its instruction reads) */
static int run_frontend(struct cop *c, struct core *k, struct entry *e, uint32_t pc)
{
    int t = k->thread;
    if (!may_run(c, t, K_NOP))   /* the expanders change nothing that holds another thread */
        return 0;
    int n = tdbg_frontend_expand(c->fe, t, e->word, e->kind == K_MOP, c->expanded, (int)c->expanded_cap);
    if (n < 0)
        return 0;
    c->nwanted = 0;
    for (int i = 0; i < n; i++) {
        struct entry *x = word_slot(c, c->expanded[i]);
        if (x->kind == K_UNKNOWN && c->shared && shared_slot(c->shared, c->expanded[i])->core) {
            x = tdbg_word_entry(c, c->expanded[i]);   /* (claimed, then its kind and fields) */
            if (x)
                shared_fill(c, x);
        }
        if (!x || !x->core || x->kind == K_UNKNOWN || !described(c, t, x))
            want(c, c->expanded[i]);
    }
    if (c->nwanted)
        return -1;
    if (tdbg_frontend_commit(c->fe, t)) {
        c->thread_ok &= ~(1 << t);   /* recording: the words pushed next are Python's */
        c->held_ok &= ~(1 << t);
    }
    c->seen = ++c->seq;
    log_push(c, k, pc, e->word);
    k->pushes++;
    for (int i = 0; i < n; i++) {
        int64_t rows[NROWS];
        struct entry *x = word_slot(c, c->expanded[i]);
        no_rows(rows);
        if (!may_run(c, t, x->kind) || execute(c, t, x, rows, c->seq) <= 0) {
            c->handover(k, (uint32_t)i, (uint32_t)n);
            c->valid = V_STALE;   /* Python ran words: the next push refreshes */
            c->seen = c->seq;
            break;
        }
        provenance(c, rows);
    }
    return 1;
}

/* Whether the config-derived values the entry's instruction reads are described (else the Python
 * path that runs it should describe them: learn) */
static int described(const struct cop *c, int t, const struct entry *e)
{
    if (e->kind == K_UNPACR || e->kind == K_PACR)
        return tdbg_units_described(c->units, e->kind, t, e->f);
    int at = e->kind == K_ZEROACC_ROW || is_matrix(e->kind) ? 1 : e->kind == K_MOVD2A || e->kind == K_MOVD2B ? 3
           : e->kind == K_SFPLOAD || e->kind == K_SFPSTORE ? 1 : -1;
    if (at < 0)
        return 1;
    if (!c->addr_mod[t][0][e->f[at] & 7][14] || !c->addr_mod[t][1][e->f[at] & 7][14])
        return 0;   /* (either ExtraAddrModBit: the counters are not read before a refresh) */
    if (is_matrix(e->kind))
        return c->matrix && tdbg_matrix_described(c->matrix, t);
    return e->kind == K_SFPLOAD || e->kind == K_SFPSTORE ? c->sfpu_known[t] : c->math_known[t];
}

/* What the hook does with an entry of core k (a .ttinsn's, or the word table's for a stored word):
 * the description refreshed if stale, the entry described first if need be (its first visit, or
 * the config-derived values it reads forgotten), then run: 1 done; 0, or -1 (learn), as run's */
static int attempt(struct cop *c, struct core *k, struct entry *e, uint32_t pc)
{
    int done = 0;
    if (e->kind == K_UNPACR && e->f[9])
        return 0;   /* FlipSrc pushed: Python's (unpack_pack.c's unpacr), before a refresh is asked */
    if (c->seq != c->seen) {    /* Python pushed (or traced a window access) since */
        c->valid = V_STALE;
        c->seen = c->seq;
    }
    if (c->valid != V_VALID || (c->count == c->cap && c->cap < c->limit))
        c->refresh(c);
    if (e->kind == K_UNKNOWN && c->valid == V_VALID
        && !(k->shared_ok && shared_fill(c, e) && (e->kind == K_PYTHON || described(c, k->thread, e))))
        k->describe(k, e);   /* (a word of the table's: only what its config reads, if that) */
    for (int tries = 0; tries < 2; tries++) {
        if (c->valid != V_VALID || e->kind == K_PYTHON || (c->count == c->cap && c->cap < c->limit))
            break;
        done = e->kind == K_MOP || e->kind == K_REPLAY ? run_frontend(c, k, e, pc) : run(c, k, e, pc);
        if (done >= 0 || tries)
            break;
        k->describe(k, e);  /* what it reads (or the words it expands to) not described yet */
    }
    return done;
}

void tdbg_push_hook(void *uc, uint64_t address, uint32_t size, void *user)
{
    struct entry *e = (struct entry *)user;
    struct core *k = e->core;
    struct cop *c = k->cop;
    int done = 0;
    __atomic_add_fetch(&k->hooks, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&k->stop_asked, __ATOMIC_SEQ_CST) && c->mode == MODE_FAST && e->kind != K_PYTHON) {
        done = attempt(c, k, e, (uint32_t)address);
        if (done > 0) {
            __atomic_add_fetch(&k->hooks, 1, __ATOMIC_SEQ_CST);
            return;
        }
    }
    __atomic_add_fetch(&k->hooks, 1, __ATOMIC_SEQ_CST);
    (e->kind == K_UNKNOWN || done < 0 ? k->learn : k->fallback)(uc, address, size, user);
}

/* PushPath.push of a word a T core's store pushed (tdbg.emu.devices.instruction_push: the core's
 * Python hook runs the store), as the hook runs an entry, the word's in the table: 1 done, else
 * nothing done (the Python path pushes it) */
int32_t tdbg_push_word(struct core *k, uint32_t word, uint32_t pc)
{
    struct cop *c = k->cop;
    if (__atomic_load_n(&k->stop_asked, __ATOMIC_SEQ_CST) || c->mode != MODE_FAST || !c->words)
        return 0;
    struct entry *x = tdbg_word_entry(c, word);
    if (!x || x->kind == K_PYTHON)
        return 0;
    c->via = 1;
    int done = attempt(c, k, x, pc);
    c->via = 0;
    return done > 0;
}

typedef void (*mem_hook)(void *uc, int32_t type, uint64_t address, int32_t size, int64_t value, void *user);
typedef int32_t (*reg_read_fn)(void *uc, int32_t regid, void *value);

struct store {          /* a T core's INSTRN_BUF_BASE region (tdbg.emu.native_push.StoreHook) */
    struct core *core;  /* NULL: every store is the Python hook's */
    mem_hook fallback;  /* the region's Python hook (tdbg.emu.core.Core._map_device's) */
    reg_read_fn reg_read;   /* uc_reg_read */
    int32_t pc_reg;     /* UC_RISCV_REG_PC (a memory hook reads the storing instruction's) */
};

/* UC_HOOK_MEM_WRITE over the region: an aligned sw pushes its word as the device would
 * (tdbg.emu.devices.instruction_push.InstructionPush.store, by tdbg_push_word: the stop asked,
 * the mode, watchpoints and the entry checked there); anything else, or a word C declines, is the
 * region's Python hook's, which the hook then calls.  Entries and exits counted as
 * tdbg_push_hook counts them (Core._ask_stop). */
void tdbg_store_hook(void *uc, int32_t type, uint64_t address, int32_t size, int64_t value, void *user)
{
    struct store *s = (struct store *)user;
    struct core *k = s->core;
    if (k && size == 4 && !(address & 3)) {
        uint64_t pc = 0;
        int done;
        __atomic_add_fetch(&k->hooks, 1, __ATOMIC_SEQ_CST);
        done = !s->reg_read(uc, s->pc_reg, &pc) && tdbg_push_word(k, (uint32_t)value, (uint32_t)pc);
        __atomic_add_fetch(&k->hooks, 1, __ATOMIC_SEQ_CST);
        if (done)
            return;
    }
    s->fallback(uc, type, address, size, value, 0);
}

/* Whether a word of the kind may run off Python's Wait Gate queue here: it reads only the
 * counters, Dst, Src, LaneConfig, the config-derived values (described per thread) and the Src
 * banks Python describes before each such word (tdbg.emu.native_matrix.NativeMatrix.banks; for
 * UNPACR / PACR the units' state, tdbg.emu.native_units.NativeUnits.refresh); and costs Python
 * more than the call (measured: NOP, INCRWC, SETRWC 0.2-0.5 us in Python, 1.4 us through the
 * call; ZEROACC 2.5 against 1.5, MOVD2A 10 against 2.5, MOVA2D 18 against 1.5; UNPACR, PACR
 * 30-60 us in Python's _execute) */
static int runs_queued(uint32_t kind)
{
    return (kind >= K_ZEROACC_ROW && kind <= K_MOVD2B) || is_matrix(kind) || kind == K_UNPACR || kind == K_PACR;
}

/* Coprocessor._execute of a word thread t's Wait Gate queue releases in Python's Coprocessor._run
 * (the Wait Gate let it pass; the push that brought it was logged), as execute runs it (but a
 * Matrix Unit word's bank flips, which the caller makes: tdbg.emu.native_matrix), with the
 * provenance of the rows it wrote at PushPath.seq (PushPath._dst_written): 1 done; 0 not done now
 * (the Python path runs it), -1 not done: its entry (the word table's) or the config it reads is
 * to be described first, -2 never (a kind that does not run off the queue here) */
int32_t tdbg_run_queued(struct cop *c, int t, uint32_t word)
{
    if (c->mode != MODE_FAST || !c->words || t < 0 || t >= MAXT)
        return 0;
    struct entry *x = tdbg_word_entry(c, word);
    if (!x)
        return 0;
    if (x->kind == K_UNKNOWN && !shared_fill(c, x))
        return -1;
    if (!runs_queued(x->kind))
        return -2;
    if (!described(c, t, x))
        return -1;
    int64_t rows[NROWS];
    no_rows(rows);
    c->queued = 1;
    int done = execute(c, t, x, rows, c->seq);
    c->queued = 0;
    if (done > 0)
        provenance(c, rows);
    return done;
}

/* Core._ask_stop's first half for the native hook: set the flag, then read the entries and exits
 * (a full barrier between, as the GIL gives the Python hook) */
int32_t tdbg_ask_stop(struct core *k)
{
    __atomic_store_n(&k->stop_asked, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&k->hooks, __ATOMIC_SEQ_CST);
}

/* The table's entry for word (claimed for it if it has none); NULL when the table is full */
struct entry *tdbg_word_entry(struct cop *c, uint32_t word)
{
    struct entry *x = word_slot(c, word);
    if (!x->core) {
        if (4 * (c->words_used + 1) > 3 * (c->words_mask + 1))
            return 0;
        c->words_used++;
        x->core = (struct core *)c;   /* (a claimed entry's mark) */
        x->word = word;
        x->kind = K_UNKNOWN;
    }
    return x;
}

/* sizeof of struct cop (0), core (1), entry (2), rec (3): tdbg.emu.native_push checks its ctypes
 * layouts against them */
uint32_t tdbg_push_size(int which)
{
    return which == 0 ? sizeof(struct cop) : which == 1 ? sizeof(struct core) : which == 2 ? sizeof(struct entry)
         : sizeof(struct rec);
}
