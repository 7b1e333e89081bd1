/* frontend.c - the MOP Expander and the Replay Expander of tdbg.tensix.frontend (MOPExpander.md,
 * REPLAY.md), step for step, for the native push path (push.c): one pushed word expanded into the
 * words that reach the Wait Gate, as Coprocessor.push feeds it to them, without changing anything
 * (the expanders' new state is kept aside: tdbg_frontend_commit keeps it once push.c runs them).
 * The opcodes and field layouts are the profile's (tdbg.emu.native_push.Frontend fills them from
 * the Isa); the replay state is Coprocessor.replay_bits, worked on in place. */
#include <stdint.h>

#define MAXT 4
#define REPLAY_WORDS 35   /* tdbg.tensix.frontend.REPLAY_WORDS: ReplayBuffer[32], then the three below */
enum { LOAD_LEFT = 32, LOAD_INDEX = 33, LOAD_EXEC = 34 };
enum { MOP_TEMPLATE, MOP_COUNT1, MOP_MASK_LO, REPLAY_LOAD, REPLAY_EXEC, REPLAY_COUNT, REPLAY_INDEX, NFIELDS };
enum { E_LONG = -1, E_COUNT = -2 };   /* more words than the caller's room; a REPLAY Count wider than 6 bits */

struct fe {                 /* tdbg.emu.native_push.Frontend */
    uint32_t *mop_cfg;      /* TensixState.mop_cfg [threads][cfg_words] */
    uint32_t *replay;       /* Coprocessor.replay_bits [threads][REPLAY_WORDS] */
    int32_t cfg_words;
    int32_t mask_hi[MAXT];  /* MopExpander.MaskHi, as refresh read it */
    uint32_t mop_op, replay_op, nop_op;
    uint8_t lsb[NFIELDS], width[NFIELDS];
    uint32_t next[REPLAY_WORDS];    /* the Replay Expander's state after the last expansion */
};

struct out {
    uint32_t *words;
    int n, cap;
};

static uint32_t field(const struct fe *fe, uint32_t word, int f)
{
    return (word >> fe->lsb[f]) & ((1u << fe->width[f]) - 1);
}

static int emit(struct out *o, uint32_t word)
{
    if (o->n == o->cap)
        return E_LONG;
    o->words[o->n++] = word;
    return 0;
}

/* ReplayExpander.feed on the state s */
static int replay_feed(const struct fe *fe, uint32_t *s, uint32_t word, struct out *o)
{
    if (s[LOAD_LEFT]) {
        s[s[LOAD_INDEX] % 32] = word;
        s[LOAD_INDEX]++;
        s[LOAD_LEFT]--;
        return s[LOAD_EXEC] ? emit(o, word) : 0;
    }
    if (word >> 24 != fe->replay_op)
        return emit(o, word);
    uint32_t count = field(fe, word, REPLAY_COUNT), index = field(fe, word, REPLAY_INDEX);
    if (count > 63)
        return E_COUNT;   /* Python raises MissingSpecification */
    if (!count)
        count = 64;
    if (field(fe, word, REPLAY_LOAD)) {
        s[LOAD_LEFT] = count, s[LOAD_INDEX] = index, s[LOAD_EXEC] = field(fe, word, REPLAY_EXEC);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++)
        if (emit(o, s[(index + i) % 32]))
            return E_LONG;
    return 0;
}

/* _template0 (ExpandTemplate0 of MOPExpander.md), each word through the Replay Expander */
static int template0(const struct fe *fe, uint32_t *s, uint32_t mask, uint32_t count1, const uint32_t *cfg,
                     struct out *o)
{
    uint32_t flags = cfg[1], insn_b = cfg[2], a0 = cfg[3], a1 = cfg[4], a2 = cfg[5], a3 = cfg[6];
    uint32_t skip_a0 = cfg[7], skip_b = cfg[8];
    int has_b = flags & 1, has_a123 = flags & 2, err = 0;
    for (uint32_t j = 0; j < count1 + 1 && !err; j++) {
        if ((mask & 1) == 0) {
            err = replay_feed(fe, s, a0, o);
            if (has_a123 && !err)
                err = replay_feed(fe, s, a1, o);
            if (has_a123 && !err)
                err = replay_feed(fe, s, a2, o);
            if (has_a123 && !err)
                err = replay_feed(fe, s, a3, o);
            if (has_b && !err)
                err = replay_feed(fe, s, insn_b, o);
        } else {
            err = replay_feed(fe, s, skip_a0, o);
            if (has_b && !err)
                err = replay_feed(fe, s, skip_b, o);
        }
        mask >>= 1;
    }
    return err;
}

/* _template1 (ExpandTemplate1 of MOPExpander.md, with its documented hardware bug; IsNop: opcode nop) */
static int template1(const struct fe *fe, uint32_t *s, const uint32_t *cfg, struct out *o)
{
    uint32_t outer = cfg[0] & 127, inner = cfg[1] & 127;
    uint32_t start = cfg[2], end0 = cfg[3], end1 = cfg[4], loop_op = cfg[5], loop_op1 = cfg[6];
    uint32_t loop0_last = cfg[7], loop1_last = cfg[8], flip, nop = fe->nop_op;
    int err = 0;
    if (loop_op1 >> 24 == nop)
        flip = 0;
    else {
        flip = loop_op ^ loop_op1;
        inner *= 2;
    }
    if (outer == 1 && start >> 24 == nop && inner == 0 && end0 >> 24 != nop)
        outer += 128;
    for (uint32_t j = 0; j < outer && !err; j++) {
        if (start >> 24 != nop)
            err = replay_feed(fe, s, start, o);
        for (uint32_t i = 0; i < inner && !err; i++) {
            if (i != inner - 1)
                err = replay_feed(fe, s, loop_op, o);
            else if (j != outer - 1)
                err = replay_feed(fe, s, loop1_last, o);
            else
                err = replay_feed(fe, s, loop0_last, o);
            loop_op ^= flip;
        }
        if (end0 >> 24 != nop && !err) {
            err = replay_feed(fe, s, end0, o);
            if (end1 >> 24 != nop && !err)
                err = replay_feed(fe, s, end1, o);
        }
    }
    return err;
}

/* Coprocessor.push's expanders for thread t's word (mop: a MOP the MOP Expander takes, else the
 * word goes to the Replay Expander as it is): the words that reach the Wait Gate in out (at most
 * cap), their number; E_LONG or E_COUNT (nothing kept) */
int tdbg_frontend_expand(struct fe *fe, int t, uint32_t word, int mop, uint32_t *out, int cap)
{
    struct out o = {out, 0, cap};
    uint32_t *s = fe->next;
    const uint32_t *cfg = fe->mop_cfg + t * fe->cfg_words;
    int err;
    for (int i = 0; i < REPLAY_WORDS; i++)
        s[i] = fe->replay[t * REPLAY_WORDS + i];
    if (!mop)
        err = replay_feed(fe, s, word, &o);
    else if (field(fe, word, MOP_TEMPLATE))
        err = template1(fe, s, cfg, &o);
    else
        err = template0(fe, s, ((uint32_t)fe->mask_hi[t] << 16) | field(fe, word, MOP_MASK_LO),
                        field(fe, word, MOP_COUNT1), cfg, &o);
    return err ? err : o.n;
}

/* Keep the Replay Expander's state of the last expansion (of thread t); whether it is recording */
int tdbg_frontend_commit(struct fe *fe, int t)
{
    for (int i = 0; i < REPLAY_WORDS; i++)
        fe->replay[t * REPLAY_WORDS + i] = fe->next[i];
    return fe->next[LOAD_LEFT] != 0;
}
