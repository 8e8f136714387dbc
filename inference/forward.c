/*
 * forward.c — the context (engine.h) and the forward pass of the decoder
 * architectures of arch.c: embeddings, then per layer RMSNorm, Q/K/V (with
 * biases, per-head QK norm where the architecture has them), RoPE (adjacent
 * pairs or halves), the KV cache, causal attention with grouped K/V heads,
 * the output projection, and a SwiGLU MLP or a mixture of experts; the final
 * norm and the logits. Large products go through matmul.c on the pool,
 * each making its input as it quantizes it (the norms, the residual adds,
 * SwiGLU: no pass of one thread while the others wait); the attention job
 * shares out QK norm, RoPE and the cache writes before the heads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/err.h"
#include "inference/attn.h"
#include "inference/balance.h"
#include "inference/engine.h"
#include "inference/matmul.h"
#include "inference/mem.h"
#include "inference/shard.h"

enum { FAILED_TP = 1, FAILED_PP };

/* Tokens from which a batch's attention goes by blocks (attn.h) rather
 * than one dot product a position. */
#define ATT_BLOCKED_MIN 4

/* Tokens generated between two moves of a balanced split (balance.h):
 * each costs one all-gather of 16 bytes a rank */
#define BAL_PERIOD 8

struct inf_ctx {
    inf_model_t *m;
    inf_ctx_params_t p;
    inf_pool_t *pool;
    /* tensor parallel: this rank's slice (the whole model without tp) */
    const inf_tp_t *tp;
    inf_shard_t sh;
    const inf_pp_t *pp; /* pipeline parallel: this stage's layers sh.l0 .. */
    int failed; /* in this pass: FAILED_TP, a collective; FAILED_PP, passing the stream between stages */
    int moe_split; /* tp, a mixture of experts: INF_MOE_SLICE or INF_MOE_EXPERT */
    /* the weights as this rank multiplies by them: each layer's (of this
     * stage's) and the output; its own copies of its parts under tensor or
     * pipeline parallel (in wmem, inf_shard_weights), else the model's */
    inf_layer_t *lw;
    inf_w_t out;
    inf_region_t wmem;
    size_t *vcounts, *vdispls; /* tp, logits gathered: every rank's vocabulary rows */
    int pos; /* positions in the cache */
    /* the KV cache: [layer][this rank's n_head_kv][position][head_dim], so
     * that a head's rows follow one another (attn.h reads them in order) */
    const inf_type_t *kvt;
    size_t kv_row; /* bytes of one head's row */
    inf_region_t kv; /* both caches, huge pages advised, touched when made */
    uint8_t *kc, *vc;
    /* a batch's scratch */
    float *x, *x2, *xn, *q, *k, *v, *att, *tmp, *fa, *fb; /* x2: the residual stream's next x */
    float *logits;
    int n_logits; /* rows of logits the last decode left */
    inf_mm_scratch_t *mmq;
    float *scores; /* [threads][inf_attn_scratch()] */
    float *cosv, *sinv; /* [n_batch][n_rot / 2] */
    int *tpos;
    /* experts; macc: their weighted sum, this rank's share before the all-reduce */
    float *router, *selw, *ex, *ea, *eb, *eo, *macc;
    int *sel, *etok;
    /* balanced splits (tp_balance) of the MLP's hidden units (bal) and of
     * the output's vocabulary rows (vbal); the seconds their products took
     * in this period's single-token batches (t_) and in all of them (all_,
     * over all_tokens: timed under tensor parallel, balanced or not) */
    int bal_on, vbal_on, bal_tokens, all_tokens;
    inf_bal_t bal, vbal;
    double t_ffn, t_out, all_ffn, all_out;
    int64_t *bal_shared;
};

void inf_ctx_free(inf_ctx_t *c)
{
    if (!c)
        return;
    inf_pool_destroy(c->pool);
    inf_region_free(&c->kv);
    inf_mm_scratch_free(c->mmq);
    free(c->lw);
    inf_region_free(&c->wmem);
    free(c->vcounts);
    free(c->vdispls);
    inf_bal_free(&c->bal);
    inf_bal_free(&c->vbal);
    free(c->bal_shared);
    void *bufs[] = {c->x, c->x2, c->xn, c->q, c->k, c->v, c->att, c->tmp, c->fa, c->fb,
                    c->logits, c->scores, c->cosv, c->sinv, c->tpos, c->router, c->selw, c->ex, c->ea,
                    c->eb, c->eo, c->macc, c->sel, c->etok};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(c);
}

void inf_ctx_memory(const inf_ctx_t *c, size_t *weights, int *own, size_t *kv)
{
    *own = c->wmem.base != NULL;
    *weights = *own ? c->wmem.size : (size_t)c->m->weight_bytes;
    *kv = c->kv.size;
}

size_t inf_ctx_margin_bytes(const inf_ctx_t *c)
{
    if (!c->bal_on && !c->vbal_on)
        return 0;
    size_t b = 0;
    const inf_shard_t *s = &c->sh, even = inf_shard_of(c->m, c->tp->rank, c->tp->size, c->moe_split);
    for (int l = s->l0; c->bal_on && l < s->l0 + s->nl; l++) {
        const inf_w_t *g = &c->lw[l].w_gate, *u = &c->lw[l].w_up, *d = &c->lw[l].w_down;
        b += (size_t)(s->nfh - even.nf) * (g->row_bytes + u->row_bytes) +
             (size_t)d->ne[1] * (d->row_bytes - inf_row_bytes(d->type, even.nf));
    }
    if (c->vbal_on)
        b += (size_t)(s->nvh - even.nv) * c->out.row_bytes;
    return b;
}

inf_shard_t inf_ctx_shard(const inf_ctx_t *c)
{
    return c->sh;
}

int inf_ctx_tp_times(const inf_ctx_t *c, double *mlp, double *out)
{
    *mlp = c->all_tokens ? c->all_ffn / c->all_tokens : 0;
    *out = c->all_tokens ? c->all_out / c->all_tokens : 0;
    return c->all_tokens;
}

int inf_ctx_balance(const inf_ctx_t *c, int vocab, const int **bounds)
{
    const int on = vocab ? c->vbal_on : c->bal_on;
    const inf_bal_t *b = vocab ? &c->vbal : &c->bal;
    *bounds = on ? b->b : NULL;
    return on ? b->moves : -1;
}

/* The margins of balanced splits: the windows of the MLP's boundaries (a
 * dense MLP: the experts' split stays as it is) and of the vocabulary's (the
 * stage with the output), 0 where the split stays even. */
static void bal_windows(const inf_ctx_t *c, const inf_ctx_params_t *p, int *units, int *rows)
{
    const inf_model_t *m = c->m;
    const int on = c->tp && c->tp->allgather && p->tp_balance > 0;
    *units = on && !(m->arch->flags & INF_ARCH_MOE) ? inf_bal_window(m->hp.n_ff, c->sh.fblock, c->tp->size, p->tp_balance) : 0;
    *rows = on && (!c->pp || c->pp->stage == c->pp->stages - 1) ? inf_bal_window(m->hp.n_vocab, 1, c->tp->size, p->tp_balance)
                                                                   : 0;
}

/* c->tp, c->pp, c->moe_split and c->sh from p (c->m set). */
static int ctx_layout(inf_ctx_t *c, const inf_ctx_params_t *p, char *err, size_t errlen)
{
    const inf_model_t *m = c->m;
    const inf_hparams_t *hp = &m->hp;
    c->tp = p->tp && p->tp->size > 1 ? p->tp : NULL;
    if (c->tp && (m->arch->flags & INF_ARCH_MOE)) {
        c->moe_split = p->moe_split ? p->moe_split : INF_MOE_DEFAULT;
        if (c->moe_split != INF_MOE_SLICE && c->moe_split != INF_MOE_EXPERT)
            return inf_fail(err, errlen, "the experts' split must be INF_MOE_SLICE or INF_MOE_EXPERT, not %d", p->moe_split);
    }
    c->sh = c->tp ? inf_shard_of(m, c->tp->rank, c->tp->size, c->moe_split)
                  : (inf_shard_t){.nhk = hp->n_head_kv, .nf = hp->n_ff, .nfh = hp->n_ff, .fblock = 1, .nv = hp->n_vocab, .nvh = hp->n_vocab,
                                  .nx = hp->n_expert, .nfe = hp->n_ff_exp};
    if (!(p->tp_balance >= 0 && p->tp_balance < 0.5))
        return inf_fail(err, errlen, "the margin of a balanced split is a fraction of a rank's share from 0 to under 0.5, not %g",
                    p->tp_balance);
    c->sh.l0 = 0; /* every layer, unless pipeline stages split them */
    c->sh.nl = hp->n_layer;
    c->pp = p->pp && p->pp->stages > 1 ? p->pp : NULL;
    if (c->pp && (p->pp->stage < 0 || p->pp->stage >= p->pp->stages || p->pp->stages > hp->n_layer))
        return inf_fail(err, errlen, "%s: %d pipeline stages for a model of %d layers: at most one stage a layer", m->path,
                    p->pp->stages, hp->n_layer);
    if (c->pp)
        inf_shard_layers(m, c->pp->stage, c->pp->stages, &c->sh.l0, &c->sh.nl);
    /* a balanced split holds the margins around its share */
    int wu, wr;
    bal_windows(c, p, &wu, &wr);
    if (wu > 0)
        inf_bal_hold(hp->n_ff, wu, c->tp->rank, c->tp->size, c->sh.f0, c->sh.nf, &c->sh.fh0, &c->sh.nfh);
    if (wr > 0)
        inf_bal_hold(hp->n_vocab, wr, c->tp->rank, c->tp->size, c->sh.v0, c->sh.nv, &c->sh.vh0, &c->sh.nvh);
    return 0;
}

int inf_ctx_plan(inf_model_t *m, const inf_ctx_params_t *p, void (*need)(void *arg, const void *at, size_t len),
                 void *arg, char *err, size_t errlen)
{
    inf_ctx_t c = {.m = m};
    if (ctx_layout(&c, p, err, errlen))
        return -1;
    if (!(c.lw = calloc((size_t)m->hp.n_layer, sizeof *c.lw)))
        return inf_fail(err, errlen, "out of memory");
    inf_own_t o = {.need = need, .arg = arg}; /* counted, not copied: what a copy would read */
    inf_shard_weights(m, &c.sh, !c.pp || c.pp->stage == c.pp->stages - 1, &o, c.lw, &c.out);
    if (!c.pp || c.pp->stage == 0) /* the embeddings: a row a token, any row */
        need(arg, m->tok_embd.data, inf_w_bytes(&m->tok_embd));
    free(c.lw);
    return 0;
}

int inf_ctx_new(inf_model_t *m, const inf_ctx_params_t *p, inf_ctx_t **out, char *err, size_t errlen)
{
    *out = NULL;
    const inf_hparams_t *hp = &m->hp;
    inf_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return inf_fail(err, errlen, "out of memory");
    c->m = m;
    c->p = *p;
    if (c->p.n_ctx <= 0)
        c->p.n_ctx = hp->n_ctx_train < 4096 ? hp->n_ctx_train : 4096;
    if (c->p.n_batch <= 0)
        c->p.n_batch = 512;
    if (c->p.n_batch > c->p.n_ctx)
        c->p.n_batch = c->p.n_ctx;
    if (c->p.n_threads <= 0)
        c->p.n_threads = 1;
    if (!c->p.kv_type)
        c->p.kv_type = GGML_F16;
    c->kvt = inf_type(c->p.kv_type);
    if (ctx_layout(c, p, err, errlen)) {
        inf_ctx_free(c);
        return -1;
    }
    const int B = c->p.n_batch, E = hp->n_embd, HD = hp->n_head * hp->head_dim, KV = hp->n_head_kv * hp->head_dim,
              F = hp->n_ff, N = c->p.n_ctx;
    if (!c->kvt || (c->p.kv_type != GGML_F16 && c->p.kv_type != GGML_F32 && c->p.kv_type != GGML_Q8_0) ||
        hp->head_dim % c->kvt->block) {
        inf_ctx_free(c);
        return inf_fail(err, errlen, "the KV cache type must be F16, F32 or Q8_0 (Q8_0 needs heads of a multiple of 32)");
    }
    c->kv_row = inf_row_bytes(c->kvt, hp->head_dim);
    size_t kvb = (size_t)c->sh.nl * (size_t)c->sh.nhk * (size_t)N * c->kv_row;
    int nl = c->p.all_logits ? B : 1;
    int cols = E > HD ? E : HD;
    cols = cols > F ? cols : F;
    /* One mapping for both caches, touched now as llama.cpp clears its own:
     * a token's first write to a row then takes no page fault, and the
     * memory is taken before any work. */
    if (kvb > 0 && kvb <= SIZE_MAX / 2 && inf_region_alloc(&c->kv, 2 * kvb) == 0) {
        c->kc = c->kv.p;
        c->vc = c->kc + kvb;
        memset(c->kc, 0, 2 * kvb);
    }
    c->x = malloc((size_t)B * E * sizeof(float));
    c->x2 = malloc((size_t)B * E * sizeof(float));
    c->xn = malloc((size_t)B * cols * sizeof(float));
    c->q = malloc((size_t)B * HD * sizeof(float));
    c->k = malloc((size_t)B * KV * sizeof(float));
    c->v = malloc((size_t)B * KV * sizeof(float));
    c->att = malloc((size_t)B * HD * sizeof(float));
    c->tmp = malloc((size_t)B * E * sizeof(float));
    c->fa = malloc((size_t)B * F * sizeof(float));
    c->fb = malloc((size_t)B * F * sizeof(float));
    c->logits = malloc((size_t)nl * hp->n_vocab * sizeof(float));
    c->mmq = inf_mm_scratch_new(cols, B, c->p.n_threads);
    c->scores = malloc((size_t)c->p.n_threads * inf_attn_scratch(N, hp->head_dim) * sizeof(float));
    c->cosv = malloc((size_t)B * (hp->n_rot / 2 + 1) * sizeof(float));
    c->sinv = malloc((size_t)B * (hp->n_rot / 2 + 1) * sizeof(float));
    c->tpos = malloc((size_t)B * sizeof(int));
    int ok = (kvb == 0 || (c->kc && c->vc)) /* a rank with no heads has no cache */ && c->x && c->x2 && c->xn && c->q && c->k && c->v && c->att && c->tmp && c->fa && c->fb &&
             c->logits && c->mmq && c->scores && c->cosv && c->sinv && c->tpos;
    if (ok && (m->arch->flags & INF_ARCH_MOE)) {
        const int X = hp->n_expert, K = hp->n_expert_used;
        c->router = malloc((size_t)B * X * sizeof(float));
        c->selw = malloc((size_t)B * K * sizeof(float));
        c->sel = malloc((size_t)B * K * sizeof(int));
        c->etok = malloc((size_t)B * K * sizeof(int));
        c->ex = malloc((size_t)B * E * sizeof(float));
        c->ea = malloc((size_t)B * hp->n_ff_exp * sizeof(float));
        c->eb = malloc((size_t)B * hp->n_ff_exp * sizeof(float));
        c->eo = malloc((size_t)B * E * sizeof(float));
        c->macc = malloc((size_t)B * E * sizeof(float));
        ok = c->router && c->selw && c->sel && c->etok && c->ex && c->ea && c->eb && c->eo && c->macc;
    }
    if (!ok) {
        inf_ctx_free(c);
        return inf_fail(err, errlen, "out of memory for a context of %d positions (%.1f MiB of KV cache) and batches of %d", N,
                    2.0 * (double)kvb / 1048576.0, B);
    }
    if (!(c->lw = calloc((size_t)hp->n_layer, sizeof *c->lw))) {
        inf_ctx_free(c);
        return inf_fail(err, errlen, "out of memory");
    }
    if (c->tp || c->pp) {
        const int last = !c->pp || c->pp->stage == c->pp->stages - 1;
        inf_own_t o = {0};
        inf_shard_weights(m, &c->sh, last, &o, c->lw, &c->out);
        if (inf_region_alloc(&c->wmem, o.used ? o.used : 1)) {
            inf_ctx_free(c);
            return inf_fail(err, errlen, "out of memory for this rank's %.1f MiB of the weights", (double)o.used / 1048576.0);
        }
        o = (inf_own_t){.mem = c->wmem.p, .g = m->gguf};
        inf_shard_weights(m, &c->sh, last, &o, c->lw, &c->out);
    } else {
        for (int l = 0; l < hp->n_layer; l++)
            c->lw[l] = m->layers[l];
        c->out = m->output;
    }
    int wu, wr;
    bal_windows(c, p, &wu, &wr);
    if (wu > 0 || wr > 0) {
        const int n = c->tp->size;
        int *ef = malloc(((size_t)n + 1) * sizeof *ef), *ev = malloc(((size_t)n + 1) * sizeof *ev);
        for (int r = 0; ef && ev && r < n; r++) {
            const inf_shard_t s = inf_shard_of(m, r, n, c->moe_split);
            ef[r] = s.f0;
            ev[r] = s.v0;
        }
        if (ef && ev) {
            ef[n] = hp->n_ff;
            ev[n] = hp->n_vocab;
        }
        const int bad = !ef || !ev || !(c->bal_shared = calloc(2 * (size_t)n, sizeof *c->bal_shared)) ||
                        (wu > 0 && inf_bal_init(&c->bal, n, hp->n_ff, c->sh.fblock, ef, wu)) ||
                        (wr > 0 && inf_bal_init(&c->vbal, n, hp->n_vocab, 1, ev, wr));
        free(ef);
        free(ev);
        if (bad) {
            inf_ctx_free(c);
            return inf_fail(err, errlen, "out of memory");
        }
        c->bal_on = wu > 0;
        c->vbal_on = wr > 0;
    }
    if (c->tp && !c->p.local_logits) {
        c->vcounts = malloc((size_t)c->tp->size * sizeof *c->vcounts);
        c->vdispls = malloc((size_t)c->tp->size * sizeof *c->vdispls);
        if (!c->vcounts || !c->vdispls) {
            inf_ctx_free(c);
            return inf_fail(err, errlen, "out of memory");
        }
        for (int r = 0; r < c->tp->size; r++) {
            const inf_shard_t s = inf_shard_of(m, r, c->tp->size, c->moe_split);
            c->vcounts[r] = (size_t)s.nv;
            c->vdispls[r] = (size_t)s.v0;
        }
    }
    if (inf_pool_create(c->p.n_threads, &c->pool)) {
        inf_ctx_free(c);
        return inf_fail(err, errlen, "cannot start %d threads", c->p.n_threads);
    }
    *out = c;
    return 0;
}

int inf_ctx_pos(const inf_ctx_t *c)
{
    return c->pos;
}

int inf_ctx_size(const inf_ctx_t *c)
{
    return c->p.n_ctx;
}

const inf_model_t *inf_ctx_model(const inf_ctx_t *c)
{
    return c->m;
}

void inf_ctx_truncate(inf_ctx_t *c, int pos)
{
    if (pos >= 0 && pos < c->pos)
        c->pos = pos;
}

const float *inf_logits(const inf_ctx_t *c, int i)
{
    if (c->n_logits == 0)
        return NULL;
    if (i < 0)
        i = c->n_logits - 1;
    if (i >= c->n_logits)
        return NULL;
    return c->logits + (size_t)i * (size_t)c->m->hp.n_vocab;
}

/* ---- the pieces ---- */

static void rmsnorm(float *y, const float *x, const float *w, int n, float eps)
{
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (double)x[i] * x[i];
    const float s = 1.0f / sqrtf((float)(ss / n) + eps);
    for (int i = 0; i < n; i++)
        y[i] = x[i] * s * w[i];
}

/* cos and sin of each rotated pair at each position of the batch, as ggml
 * computes them: theta_i = pos / scale * base^(-2i / n_rot) / factor_i. */
static void rope_tables(inf_ctx_t *c, int n)
{
    const inf_hparams_t *hp = &c->m->hp;
    const int half = hp->n_rot / 2;
    const float theta_scale = powf(hp->rope_base, -2.0f / (float)hp->n_rot);
    for (int t = 0; t < n; t++) {
        float theta = (float)c->tpos[t] / hp->rope_scale;
        for (int i = 0; i < half; i++) {
            float th = c->m->rope_freqs ? theta / c->m->rope_freqs[i] : theta;
            c->cosv[t * half + i] = cosf(th);
            c->sinv[t * half + i] = sinf(th);
            theta *= theta_scale;
        }
    }
}

/* One head's vector at batch token t, rotated in place. */
static void rope_head(const inf_ctx_t *c, float *v, int t)
{
    const inf_hparams_t *hp = &c->m->hp;
    const int half = hp->n_rot / 2;
    const float *cs = c->cosv + t * half, *sn = c->sinv + t * half;
    const int neox = c->m->arch->rope == INF_ROPE_NEOX, step = neox ? 1 : 2, off = neox ? half : 1;
    for (int i = 0; i < half; i++) {
        float *a = v + i * step, *b = a + off, x0 = *a, x1 = *b;
        *a = x0 * cs[i] - x1 * sn[i];
        *b = x0 * sn[i] + x1 * cs[i];
    }
}

/* ---- attention: each thread a share of the heads, every token ----
 * With an F16 cache, Q and the attention weights are rounded to F16 before
 * their products with K and V, as llama.cpp computes them: then a quantized
 * model's logits equal llama.cpp's bit for bit (rounded only in F32 they
 * differ by about 1% after a few layers, each engine's 8-bit activations
 * rounding a little differently), which is what the reference tests hold
 * Bolt to. */

typedef struct att_job {
    inf_ctx_t *c;
    int layer, n;
} att_job_t;

/* Head hk of layer l's cache (keys or values) at position 0. */
static uint8_t *kv_head(const inf_ctx_t *c, uint8_t *cache, int l, int hk)
{
    return cache + ((size_t)(l - c->sh.l0) * (size_t)c->sh.nhk + (size_t)hk) * (size_t)c->p.n_ctx * c->kv_row;
}

/* Items: a key/value head with some of the query heads sharing it (all of
 * them, unless that leaves threads idle or passes INF_ATTN_NH). */
static void att_run(void *arg, int ith, int nth)
{
    att_job_t *j = arg;
    inf_ctx_t *c = j->c;
    const inf_hparams_t *hp = &c->m->hp;
    /* this rank's heads */
    const int G = hp->n_head / hp->n_head_kv, Hk = c->sh.nhk, H = Hk * G, D = hp->head_dim;
    if (Hk == 0)
        return;
    /* first the batch's heads, each token's Q and K heads shared out: QK
     * norm, RoPE, and the K and V heads into the cache */
    const inf_layer_t *L = &c->lw[j->layer];
    for (int it = ith; it < j->n * (H + Hk); it += nth) {
        const int t = it / (H + Hk), h = it % (H + Hk);
        if (h < H) {
            float *q = c->q + (size_t)t * H * D + (size_t)h * D;
            if (L->q_norm)
                rmsnorm(q, q, L->q_norm, D, hp->norm_eps);
            rope_head(c, q, t);
            continue;
        }
        const int hk = h - H;
        float *k = c->k + ((size_t)t * Hk + hk) * D;
        if (L->k_norm)
            rmsnorm(k, k, L->k_norm, D, hp->norm_eps);
        rope_head(c, k, t);
        const size_t at = (size_t)c->tpos[t] * c->kv_row;
        c->kvt->from_float(k, kv_head(c, c->kc, j->layer, hk) + at, D);
        c->kvt->from_float(c->v + ((size_t)t * Hk + hk) * D, kv_head(c, c->vc, j->layer, hk) + at, D);
    }
    inf_pool_barrier(c->pool);
    float *s = c->scores + (size_t)ith * inf_attn_scratch(c->p.n_ctx, D);
    int parts = (nth + Hk - 1) / Hk;
    parts = parts > G ? G : parts;
    int per = (G + parts - 1) / parts;
    per = per > INF_ATTN_NH ? INF_ATTN_NH : per;
    parts = (G + per - 1) / per;
    for (int it = ith; it < Hk * parts; it += nth) {
        const int hk = it / parts, g0 = (it % parts) * per, h = hk * G + g0;
        const inf_attn_t a = {.kt = c->kvt, .k = kv_head(c, c->kc, j->layer, hk), .v = kv_head(c, c->vc, j->layer, hk),
                              .kv_row = c->kv_row, .q = c->q + (size_t)h * D, .o = c->att + (size_t)h * D,
                              .nh = G - g0 < per ? G - g0 : per, .ld = H * D, .tpos = c->tpos, .n = j->n, .D = D,
                              .scale = 1.0f / sqrtf((float)D)};
        if (j->n < ATT_BLOCKED_MIN || inf_attn_blocked(&a, s) != 0)
            inf_attn_dots(&a, s);
    }
}

/* ---- the MLP and the experts ---- */

/* x2 = x + add: the residual stream moves on where this rank has no heads
 * (or no hidden units) to make the next product's input, which stores it. */
static void stream_add(inf_ctx_t *c, int n, const float *add)
{
    const size_t all = (size_t)n * (size_t)c->m->hp.n_embd;
    for (size_t i = 0; i < all; i++)
        c->x2[i] = c->x[i] + add[i];
}

/* x[0 .. n) summed over the ranks (tensor parallel). */
static void tp_sum(inf_ctx_t *c, float *x, size_t n)
{
    if (c->tp->allreduce_sum(c->tp->self, x, n))
        c->failed = FAILED_TP;
}

/* y of m (all of its rows, n tokens) from `cols` of this rank's columns of
 * x (ld cols): every rank's share of the sum, summed over the ranks. The
 * product's own time, from `since` (0: not counted), goes to the MLP's. */
static void partial_product(inf_ctx_t *c, const float *x, int cols, int n, const inf_mm_in_t *in, inf_mm_t *m,
                            double since)
{
    if (cols)
        inf_matmul(c->pool, x, cols, n, cols, in, m, 1, c->mmq);
    else
        memset(m->y, 0, (size_t)n * (size_t)m->ldy * sizeof(float));
    if (since > 0) {
        const double t = inf_now() - since;
        c->t_ffn += t;
        c->all_ffn += t;
    }
    if (c->tp)
        tp_sum(c, m->y, (size_t)n * (size_t)m->ldy);
}

/* The input of a product that normalises the residual stream x with
 * weights w, adding first the output of the last product when there is one
 * (x + add then becomes the stream, in x2). */
static inf_mm_in_t norm_in(const inf_ctx_t *c, const float *w, const float *add)
{
    return (inf_mm_in_t){.kind = INF_MM_IN_NORM, .add = add, .sum = add ? c->x2 : NULL, .w = w,
                         .eps = c->m->hp.norm_eps};
}

/* The residual stream after a product that stored it in x2. */
static void stream_swap(inf_ctx_t *c)
{
    float *t = c->x;
    c->x = c->x2;
    c->x2 = t;
}

/* Gate and up of the normalised x + add, down of silu(gate) * up into
 * tmp, which the caller adds to the stream. */
static void dense_ffn(inf_ctx_t *c, const inf_layer_t *L, int n, const float *add)
{
    const inf_hparams_t *hp = &c->m->hp;
    const int E = hp->n_embd, F = c->sh.nf, skip = c->sh.f0 - c->sh.fh0;
    const double t0 = c->tp && n == 1 ? inf_now() : 0;
    /* this rank's units of those it holds: rows of gate and up, columns of
     * down (the held ones, packed: a row's stride stays) */
    inf_mm_t gu[2] = {inf_mm_of(&L->w_gate, 0, c->fa, F, NULL), inf_mm_of(&L->w_up, 0, c->fb, F, NULL)};
    for (int i = 0; i < 2; i++)
        gu[i].w = (const uint8_t *)gu[i].w + (size_t)skip * gu[i].row_bytes;
    gu[0].rows = gu[1].rows = F;
    const inf_mm_in_t norm = norm_in(c, L->ffn_norm, add);
    if (F)
        inf_matmul(c->pool, c->x, E, n, E, &norm, gu, 2, c->mmq);
    else if (add)
        stream_add(c, n, add);
    if (add)
        stream_swap(c);
    inf_mm_t d = inf_mm_of(&L->w_down, 0, c->tmp, E, NULL);
    if (d.t)
        d.w = (const uint8_t *)d.w + inf_row_bytes(d.t, skip);
    const inf_mm_in_t swiglu = {.kind = INF_MM_IN_SWIGLU, .up = c->fb};
    partial_product(c, c->fa, F, n, &swiglu, &d, t0);
}

/* Softmax over the experts, the top k (ties to the lower index), their
 * weights renormalised when the model says; then each expert this rank
 * holds (its slice of each) once, over the tokens routed to it, their
 * weighted sum into macc, summed over the ranks. Every rank routes alike:
 * the stream they route is the same on all. */
static void moe_ffn(inf_ctx_t *c, const inf_layer_t *L, int n)
{
    const inf_hparams_t *hp = &c->m->hp;
    const int E = hp->n_embd, X = hp->n_expert, K = hp->n_expert_used;
    inf_mm_t r = inf_mm_of(&L->router, 0, c->router, X, NULL);
    inf_matmul(c->pool, c->xn, E, n, E, NULL, &r, 1, c->mmq);
    for (int t = 0; t < n; t++) {
        float *p = c->router + (size_t)t * X, max = -INFINITY;
        for (int e = 0; e < X; e++)
            max = p[e] > max ? p[e] : max;
        double sum = 0;
        for (int e = 0; e < X; e++) {
            p[e] = expf(p[e] - max);
            sum += p[e];
        }
        for (int e = 0; e < X; e++)
            p[e] = (float)(p[e] / sum);
        int *sel = c->sel + (size_t)t * K;
        float *w = c->selw + (size_t)t * K, wsum = 0;
        for (int k = 0; k < K; k++) {
            int best = -1;
            for (int e = 0; e < X; e++) {
                int taken = 0;
                for (int q = 0; q < k; q++)
                    taken |= sel[q] == e;
                if (!taken && (best < 0 || p[e] > p[best]))
                    best = e;
            }
            sel[k] = best;
            w[k] = p[best];
            wsum += w[k];
        }
        for (int k = 0; k < K; k++)
            w[k] = (hp->moe_norm ? w[k] / wsum : w[k]) * hp->moe_scale;
    }
    const int Fs = c->sh.nfe, x0 = c->sh.x0;
    memset(c->macc, 0, (size_t)n * (size_t)E * sizeof(float));
    for (int e = x0; Fs && e < x0 + c->sh.nx; e++) {
        int m = 0;
        for (int t = 0; t < n; t++)
            for (int k = 0; k < K; k++)
                if (c->sel[(size_t)t * K + k] == e) {
                    c->etok[m] = t * K + k;
                    memcpy(c->ex + (size_t)m * E, c->xn + (size_t)t * E, (size_t)E * sizeof(float));
                    m++;
                }
        if (!m)
            continue;
        /* this rank's experts from x0, or its slice of each */
        inf_mm_t gu[2] = {inf_mm_of(&L->gate_exps, e - x0, c->ea, Fs, NULL),
                          inf_mm_of(&L->up_exps, e - x0, c->eb, Fs, NULL)};
        inf_matmul(c->pool, c->ex, E, m, E, NULL, gu, 2, c->mmq);
        inf_swiglu.run(c->ea, c->ea, c->eb, m * Fs);
        inf_mm_t d = inf_mm_of(&L->down_exps, e - x0, c->eo, E, NULL);
        inf_matmul(c->pool, c->ea, Fs, m, Fs, NULL, &d, 1, c->mmq);
        for (int i = 0; i < m; i++) {
            const int t = c->etok[i] / K;
            const float w = c->selw[c->etok[i]];
            for (int d2 = 0; d2 < E; d2++)
                c->macc[(size_t)t * E + d2] += w * c->eo[(size_t)i * E + d2];
        }
    }
    if (c->tp)
        tp_sum(c, c->macc, (size_t)n * (size_t)E);
}

/* ---- one batch ---- */

/* Balanced splits: after a period of single-token batches, before the
 * next batch (whose logits the caller then reads by the split it computed
 * them by), what their products took on every rank to every rank, and the
 * splits moved. */
static void bal_move(inf_ctx_t *c)
{
    if (c->bal_tokens < BAL_PERIOD)
        return;
    /* ps a token, whole: the same numbers on every rank, in integers */
    const int64_t mine[2] = {(int64_t)(c->t_ffn / BAL_PERIOD * 1e12), (int64_t)(c->t_out / BAL_PERIOD * 1e12)};
    c->bal_tokens = 0;
    if (c->tp->allgather(c->tp->self, mine, c->bal_shared, sizeof mine)) {
        /* the group's collectives are broken: the split stays */
        c->failed = FAILED_TP;
        c->bal_on = c->vbal_on = 0;
        return;
    }
    const int r = c->tp->rank;
    if (c->bal_on && inf_bal_update(&c->bal, c->bal_shared, 2)) {
        c->sh.f0 = c->bal.b[r];
        c->sh.nf = c->bal.b[r + 1] - c->sh.f0;
    }
    if (c->vbal_on && inf_bal_update(&c->vbal, c->bal_shared + 1, 2)) {
        c->sh.v0 = c->vbal.b[r];
        c->sh.nv = c->vbal.b[r + 1] - c->sh.v0;
        for (int k = 0; c->vcounts && k < c->tp->size; k++) {
            c->vdispls[k] = (size_t)c->vbal.b[k];
            c->vcounts[k] = (size_t)(c->vbal.b[k + 1] - c->vbal.b[k]);
        }
    }
    c->t_ffn = c->t_out = 0;
}

static void batch(inf_ctx_t *c, const int32_t *tok, int n, int want_all)
{
    inf_model_t *m = c->m;
    const inf_hparams_t *hp = &m->hp;
    /* this rank's heads */
    const int E = hp->n_embd, D = hp->head_dim, G = hp->n_head / hp->n_head_kv, KV = c->sh.nhk * D,
              HD = KV * G;
    bal_move(c);
    if (c->failed)
        return;
    for (int t = 0; t < n; t++)
        c->tpos[t] = c->pos + t;
    c->n_logits = 0;
    c->pos += n;
    if (c->pp && c->pp->stage > 0) {
        /* the stream from the stage before */
        if (c->pp->recv(c->pp->self, c->x, (size_t)n * E)) {
            c->failed = FAILED_PP;
            return;
        }
    } else
        for (int t = 0; t < n; t++)
            m->tok_embd.type->to_float((const uint8_t *)m->tok_embd.data + (size_t)tok[t] * m->tok_embd.row_bytes,
                                       c->x + (size_t)t * E, E);
    rope_tables(c, n);
    /* the output of the last product, not yet added to the stream x: the
     * next product's input adds it as it normalises */
    const float *pending = NULL;
    for (int l = c->sh.l0; l < c->sh.l0 + c->sh.nl; l++) {
        const inf_layer_t *L = &c->lw[l]; /* this rank's heads' rows, its columns */
        inf_mm_t qkv[3] = {inf_mm_of(&L->wq, 0, c->q, HD, L->bq), inf_mm_of(&L->wk, 0, c->k, KV, L->bk),
                           inf_mm_of(&L->wv, 0, c->v, KV, L->bv)};
        const inf_mm_in_t norm = norm_in(c, L->attn_norm, pending);
        if (HD)
            inf_matmul(c->pool, c->x, E, n, E, &norm, qkv, 3, c->mmq);
        else if (pending)
            stream_add(c, n, pending);
        if (pending)
            stream_swap(c);
        att_job_t aj = {c, l, n};
        inf_pool_run(c->pool, att_run, &aj);
        inf_mm_t o = inf_mm_of(&L->wo, 0, c->tmp, E, NULL);
        partial_product(c, c->att, HD, n, NULL, &o, 0);
        if (m->arch->flags & INF_ARCH_MOE) {
            for (size_t i = 0; i < (size_t)n * E; i++)
                c->x[i] += c->tmp[i];
            for (int t = 0; t < n; t++)
                rmsnorm(c->xn + (size_t)t * E, c->x + (size_t)t * E, L->ffn_norm, E, hp->norm_eps);
            moe_ffn(c, L, n);
            pending = c->macc;
        } else {
            dense_ffn(c, L, n, c->tmp);
            pending = c->tmp;
        }
    }
    if (c->pp && c->pp->stage < c->pp->stages - 1) {
        /* the stream to the next stage */
        if (pending) {
            stream_add(c, n, pending);
            stream_swap(c);
        }
        if (!c->failed && c->pp->send(c->pp->self, c->x, (size_t)n * E))
            c->failed = FAILED_PP;
        c->bal_tokens += (c->bal_on || c->vbal_on) && n == 1; /* every rank alike, failed or not */
        c->all_tokens += c->tp && n == 1;
        return;
    }
    /* the logits: the last token's, or every token's */
    const int first = want_all ? 0 : n - 1, rows = n - first;
    const int V = hp->n_vocab;
    inf_mm_t out = inf_mm_of(&c->out, 0, c->logits + c->sh.v0, V, NULL);
    out.w = (const uint8_t *)out.w + (size_t)(c->sh.v0 - c->sh.vh0) * out.row_bytes; /* its rows of those it holds */
    out.rows = c->sh.nv;
    inf_mm_in_t norm = norm_in(c, m->output_norm, pending ? pending + (size_t)first * E : NULL);
    norm.sum = NULL; /* the stream ends here */
    const double t0 = c->tp && n == 1 ? inf_now() : 0;
    if (c->sh.nv)
        inf_matmul(c->pool, c->x + (size_t)first * E, E, rows, E, &norm, &out, 1, c->mmq);
    if (t0 > 0) {
        const double t = inf_now() - t0;
        c->t_out += t;
        c->all_out += t;
    }
    /* every rank the whole logits, to sample the same token */
    for (int t = 0; c->vcounts && t < rows && !c->failed; t++)
        if (c->tp->allgatherv(c->tp->self, c->logits + (size_t)t * V, c->vcounts, c->vdispls))
            c->failed = FAILED_TP;
    c->bal_tokens += (c->bal_on || c->vbal_on) && n == 1; /* every rank alike, failed or not */
    c->all_tokens += c->tp && n == 1;
    c->n_logits = rows;
}

int inf_decode(inf_ctx_t *c, const int32_t *tokens, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return inf_fail(err, errlen, "nothing to decode");
    if (c->pos + n > c->p.n_ctx)
        return inf_fail(err, errlen, "the context is full: %d positions used, %d more asked, %d in all (-c)", c->pos, n,
                    c->p.n_ctx);
    for (int i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= c->m->hp.n_vocab)
            return inf_fail(err, errlen, "token %d is outside the vocabulary of %d", tokens[i], c->m->hp.n_vocab);
    /* a pipeline's stages overlap when the prompt goes in pieces: each stage
     * starts on a piece as the one before passes it on (every stage cuts
     * alike: the counts alone decide). Up to 2 x stages pieces, of 64 tokens
     * at least: a smaller piece streams the weights once for fewer tokens
     * (a 129-token prompt on two stages, stories110M Q8_0: pieces of 33
     * tokens took 0.98 of one rank's time, of 65 0.89-0.94, one piece 1.2) */
    int step = c->p.n_batch;
    if (c->pp && !c->p.all_logits) {
        int pieces = n / 64 < 2 * c->pp->stages ? n / 64 : 2 * c->pp->stages;
        pieces = pieces < 1 ? 1 : pieces;
        const int u = c->p.n_ubatch > 0 ? c->p.n_ubatch : (n + pieces - 1) / pieces;
        step = u < step ? u : step;
    }
    for (int at = 0; at < n; at += step) {
        int k = n - at < step ? n - at : step;
        /* with all_logits, the logits of every batch would overwrite each other:
         * only the last batch's rows remain */
        batch(c, tokens + at, k, c->p.all_logits);
        if (c->failed == FAILED_PP) {
            c->failed = 0;
            return inf_fail(err, errlen, "pipeline parallel, stage %d of %d: passing the stream between the stages failed",
                        c->pp->stage, c->pp->stages);
        }
        if (c->failed) {
            c->failed = 0;
            return inf_fail(err, errlen, "tensor parallel, rank %d of %d: a collective between the ranks failed", c->tp->rank,
                        c->tp->size);
        }
    }
    return 0;
}
