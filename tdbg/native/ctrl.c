/* ctrl.c - the control and sync words for the native push path (tdbg/native/push.c runs them
 * through tdbg_ctrl_run; tdbg.emu.native_ctrl describes the state they read and write): each
 * step for step with the Python function it mirrors.  Every check comes before any effect: 0
 * (nothing done) wherever the Python path must run (it then raises the page's event, or latches
 * the wait).
 *
 *   SETC16, WRCFG, RMWCIB0-3 (tdbg.tensix.cfg_insns; TensixConfig.write_word's rules: a global
 *     word lands in both banks; a write to STATE_RESET_EN other than by RMWCIB is Python's);
 *     the ids of the words written go to Python (written), which forgets what was derived from
 *     them and tells the config's listeners, as TensixConfig._changed does;
 *   SETDMAREG with SetSignalsMode 0 (tdbg.tensix.scalar_unit.setdmareg);
 *   SETADC (but a ThreadOverride naming no thread), SETADCXY, SETADCZW, SETADCXX
 *     (tdbg.tensix.adcs.setadc, counter_update "set", setadcxx);
 *   SEMINIT, SEMPOST, SEMGET (tdbg.tensix.sync); STALLWAIT and SEMWAIT whose conditions are all
 *     met now (sync.unmet_conditions empty: Coprocessor._latch latches nothing), else Python's. */
#include <stdint.h>

enum { K_SETC16 = 17, K_WRCFG = 18, K_RMWCIB = 19, K_SETDMAREG = 20, K_STALLWAIT = 21, K_SEMWAIT = 22,
       K_SETADCXY = 23, K_SETADCZW = 24, K_SETADCXX = 25, K_SEMINIT = 26, K_SEMPOST = 27, K_SEMGET = 28,
       K_SETADC = 29 };
enum { X, Y, Z, W };
static const int64_t ADC_MASK[4] = {(1 << 18) - 1, (1 << 13) - 1, 0xFF, 0xFF};   /* adcs.MASKS */
#define MAXSEM 8

struct ctrl;
typedef void (*written_fn)(struct ctrl *s);

struct ctrl {
    uint32_t *config;           /* TensixConfig.config [2][words] */
    uint16_t *thread_config;    /* TensixConfig.thread_config [threads][thd] */
    uint16_t *gprs;             /* TensixState.gprs [threads][64] as 16-bit halves */
    int64_t *adc, *adc_cr;      /* Adcs._value / _cr */
    int32_t *sems;              /* Coprocessor.semaphore_bits [n][2]: Value, Max */
    int32_t words, thd, global_base, reset_addr;     /* CFG_STATE_SIZE*4, THD_STATE_SIZE, ... */
    int32_t state_addr, state_shamt, state_mask;     /* CFG_STATE_ID_StateID in ThreadConfig */
    int32_t nsem, default_conditions;                /* SyncSpec.default_conditions */
    int32_t threads;
    int32_t src_unmet;          /* refresh: the STALLWAIT condition bits the Src banks leave unmet */
    int32_t nwritten, written_ids[8];                /* the config word ids a write changed */
    written_fn written;         /* Python: forget what was read from them (TensixConfig._changed) */
};

static int bank_of(const struct ctrl *s, int t)    /* TensixConfig.state_id */
{
    return (s->thread_config[t * s->thd + s->state_addr] & s->state_mask) >> s->state_shamt;
}

/* TensixConfig.write_word (the caller checked addr and, but for RMWCIB, STATE_RESET_EN) */
static void write_word(struct ctrl *s, int bank, int addr, uint32_t value)
{
    if (addr >= s->global_base) {
        s->config[addr] = s->config[s->words + addr] = value;
        s->written_ids[s->nwritten++] = addr;
        s->written_ids[s->nwritten++] = s->words + addr;
    } else {
        s->config[bank * s->words + addr] = value;
        s->written_ids[s->nwritten++] = bank * s->words + addr;
    }
}

/* cfg_insns.setc16: f = NewValue, CfgIndex */
static int setc16(struct ctrl *s, int t, const uint16_t *f)
{
    if (f[1] >= s->thd)
        return 0;   /* UndefinedBehavior */
    s->thread_config[t * s->thd + f[1]] = f[0];
    s->written_ids[s->nwritten++] = 2 * s->words + t * s->thd + f[1];
    return 1;
}

/* cfg_insns.wrcfg: f = CfgIndex, Is128Bit, InputReg */
static int wrcfg(struct ctrl *s, int t, const uint16_t *f)
{
    int base = f[1] ? f[0] & ~3 : f[0], reg = f[1] ? f[2] & ~3 : f[2], n = f[1] ? 4 : 1;
    if (f[0] >= s->words || base + n > s->words)
        return 0;   /* UndefinedBehavior (or write_word's IndexError) */
    for (int i = 0; i < n; i++)
        if (base + i == s->reset_addr)
            return 0;   /* the bank reset: Python's */
    int bank = bank_of(s, t);
    const uint32_t *gprs = (const uint32_t *)s->gprs + t * 64;
    for (int i = 0; i < n; i++)
        write_word(s, bank, base + i, gprs[reg + i]);
    return 1;
}

/* cfg_insns.rmwcib: f = Index4, NewValue, Mask, the byte (RMWCIB<index1>) */
static int rmwcib(struct ctrl *s, int t, const uint16_t *f)
{
    if (f[0] >= s->words)
        return 0;   /* UndefinedBehavior */
    int bank = bank_of(s, t), shift = 8 * f[3];
    uint32_t old = s->config[bank * s->words + f[0]];
    uint32_t byte = (f[1] & f[2]) | ((old >> shift) & ~(uint32_t)f[2] & 0xFF);
    write_word(s, bank, f[0], (old & ~(0xFFu << shift)) | (byte << shift));
    return 1;
}

/* Adcs.set of Ch.D and Ch.D_Cr */
static void adc_set(struct ctrl *s, int t, int unit, int ch, int dim, int64_t value)
{
    int i = ((t * 3 + unit) * 2 + ch) * 4 + dim;
    s->adc[i] = s->adc_cr[i] = value & ADC_MASK[dim];
}

/* adcs.counter_update("set", dims): f = the four flags (D0 ch 0, D1 ch 0, D0 ch 1, D1 ch 1), their
 * values in the same order, U0, U1, PK; dim the first of the two dims */
static void setadc2(struct ctrl *s, int t, const uint16_t *f, int dim)
{
    for (int u = 0; u < 3; u++)
        if (f[8 + u])
            for (int ch = 0; ch < 2; ch++)
                for (int d = 0; d < 2; d++)
                    if (f[ch * 2 + d])
                        adc_set(s, t, u, ch, dim + d, f[4 + ch * 2 + d]);
}

/* Whether a latch's conditions are all met (sync.unmet_conditions empty): f = ConditionMask, and
 * for SEMWAIT SemaphoreMask (else -1) */
static int met(const struct ctrl *s, int conditions, int semaphores)
{
    if (semaphores < 0)
        return !((conditions ? conditions : s->default_conditions) & s->src_unmet);
    for (int i = 0; i < s->nsem; i++)
        if (semaphores >> i & 1) {
            int32_t value = s->sems[2 * i], max = s->sems[2 * i + 1];
            if ((conditions & 1 && value == 0) || (conditions & 2 && value >= max))
                return 0;
        }
    return 1;
}

/* The instruction of kind on thread t: 1 done, 0 (nothing done) where the Python path must run */
int tdbg_ctrl_run(struct ctrl *s, int kind, int t, const uint16_t *f)
{
    int done = 1;
    s->nwritten = 0;
    switch (kind) {
    case K_SETC16:
        done = setc16(s, t, f);
        break;
    case K_WRCFG:
        done = wrcfg(s, t, f);
        break;
    case K_RMWCIB:
        done = rmwcib(s, t, f);
        break;
    case K_SETDMAREG:   /* f = RegIndex16b, SetSignalsMode (0), Payload_SigSel, Payload_SigSelSize */
        s->gprs[t * 128 + f[0]] = (uint16_t)(f[2] | f[3] << 14);
        break;
    case K_STALLWAIT:   /* f = ConditionMask, BlockMask */
        done = met(s, f[0], -1);
        break;
    case K_SEMWAIT:     /* f = ConditionMask, SemaphoreMask, BlockMask (sync.semwait_latch) */
        done = f[0] ? met(s, f[0], f[1]) : met(s, 0, -1);
        break;
    case K_SETADCXY: case K_SETADCZW:
        setadc2(s, t, f, kind == K_SETADCXY ? X : Z);
        break;
    case K_SETADC: {    /* f = NewValue's low 16 bits, its high 2 (ThreadOverride), XYZW, Channel, U0, U1, PK */
        int which = f[1] ? f[1] - 1 : t;
        if (which >= s->threads)
            return 0;   /* UndefinedBehavior */
        for (int u = 0; u < 3; u++)
            if (f[4 + u])
                adc_set(s, which, u, f[3], f[2], (int64_t)f[1] << 16 | f[0]);
        break;
    }
    case K_SETADCXX:    /* f = X0Val, X1Val, U0, U1, PK */
        for (int u = 0; u < 3; u++)
            if (f[2 + u]) {
                adc_set(s, t, u, 0, X, f[0]);
                adc_set(s, t, u, 1, X, f[1]);
            }
        break;
    case K_SEMINIT:     /* f = SemaphoreMask, NewValue, NewMax */
        for (int i = 0; i < s->nsem; i++)
            if (f[0] >> i & 1)
                s->sems[2 * i] = f[1], s->sems[2 * i + 1] = f[2];
        break;
    case K_SEMPOST:     /* f = SemaphoreMask: saturating at 15 */
        for (int i = 0; i < s->nsem; i++)
            if (f[0] >> i & 1 && s->sems[2 * i] < 15)
                s->sems[2 * i]++;
        break;
    case K_SEMGET:      /* saturating at 0 */
        for (int i = 0; i < s->nsem; i++)
            if (f[0] >> i & 1 && s->sems[2 * i] > 0)
                s->sems[2 * i]--;
        break;
    default:
        return 0;
    }
    if (done && s->nwritten)
        s->written(s);
    return done;
}

/* sizeof(struct ctrl): tdbg.emu.native_ctrl checks its ctypes layout against it */
uint32_t tdbg_ctrl_size(void)
{
    return sizeof(struct ctrl);
}
