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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/attn.h"
#include "inference/engine.h"
#include "inference/matmul.h"
#include "inference/mem.h"

/* Tokens from which a batch's attention goes by blocks (attn.h) rather
 * than one dot product a position. */
#define ATT_BLOCKED_MIN 4

struct inf_ctx {
    inf_model_t *m;
    inf_ctx_params_t p;
    inf_pool_t *pool;
    /* tensor parallel: this rank's slice (the whole model without tp) */
    const inf_tp_t *tp;
    inf_shard_t sh;
    const inf_pp_t *pp; /* pipeline parallel: this stage's layers sh.l0 .. */
    int tp_failed; /* a collective failed in this pass (2: passing the stream between stages) */
    int moe_split; /* tp, a mixture of experts: INF_MOE_SLICE or INF_MOE_EXPERT */
    /* the weights as this rank multiplies by them: each layer's (of this
     * stage's) and the output; its own copies of its parts under tensor or
     * pipeline parallel (in wmem, own_weights), else the model's */
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
};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

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
    void *bufs[] = {c->x, c->x2, c->xn, c->q, c->k, c->v, c->att, c->tmp, c->fa, c->fb,
                    c->logits, c->scores, c->cosv, c->sinv, c->tpos, c->router, c->selw, c->ex, c->ea,
                    c->eb, c->eo, c->macc, c->sel, c->etok};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(c);
}

/* [*a, *a + *na): share r of n of `units` units of `per` items each,
 * shared out as evenly as they come, clipped to `all` items. */
static void share_of(int units, int per, int all, int r, int n, int *a, int *na)
{
    const int lo = units * r / n * per, hi = units * (r + 1) / n * per;
    *a = lo < all ? lo : all;
    *na = (hi < all ? hi : all) - *a;
}

/* The slices of rank r of n. A slice of the attention's output product
 * (and of the MLP's down product) takes columns of its rows, which must fall
 * on the weight type's blocks: key/value heads go in units of the fewest
 * whose query columns fill whole blocks of every layer's output weights,
 * hidden units in whole blocks of every down weight, each shared out as
 * evenly as they come (a rank may get none). Experts: all of them, a slice
 * of each (split INF_MOE_SLICE, as the dense MLP), or a share of them whole. */
static inf_shard_t shard_of(const inf_model_t *m, int r, int n, int split)
{
    const inf_hparams_t *hp = &m->hp;
    const int Hk = hp->n_head_kv, G = hp->n_head / Hk, D = hp->head_dim, F = hp->n_ff, V = hp->n_vocab;
    int bo = 1, bd = 1, be = 1;
    for (int l = 0; l < hp->n_layer; l++) {
        bo = m->layers[l].wo.type->block > bo ? m->layers[l].wo.type->block : bo;
        if (m->layers[l].w_down.type)
            bd = m->layers[l].w_down.type->block > bd ? m->layers[l].w_down.type->block : bd;
        if (m->layers[l].down_exps.type)
            be = m->layers[l].down_exps.type->block > be ? m->layers[l].down_exps.type->block : be;
    }
    int u = 1;
    while (u < Hk && (u * G * D) % bo)
        u++;
    const int units = (Hk + u - 1) / u, fb = F / bd;
    inf_shard_t s = {0};
    const int a = units * r / n * u, b = units * (r + 1) / n * u;
    s.hk0 = a < Hk ? a : Hk;
    s.nhk = (b < Hk ? b : Hk) - s.hk0;
    s.f0 = fb * r / n * bd;
    s.nf = (r == n - 1 ? F : fb * (r + 1) / n * bd) - s.f0;
    s.v0 = (int)((int64_t)V * r / n);
    s.nv = (int)((int64_t)V * (r + 1) / n) - s.v0;
    s.x0 = 0;
    s.nx = hp->n_expert;
    s.fe0 = 0;
    s.nfe = hp->n_ff_exp;
    if (hp->n_expert && split == INF_MOE_EXPERT)
        share_of(hp->n_expert, 1, hp->n_expert, r, n, &s.x0, &s.nx);
    else if (hp->n_expert)
        share_of((hp->n_ff_exp + be - 1) / be, be, hp->n_ff_exp, r, n, &s.fe0, &s.nfe);
    return s;
}

/* Bytes of a weight (every expert of one). */
static uint64_t w_bytes(const inf_w_t *w)
{
    if (!w->type)
        return 0;
    return (uint64_t)w->row_bytes * (uint64_t)w->ne[1] * (uint64_t)(w->ne[2] > 1 ? w->ne[2] : 1);
}

/* ---- this rank's weights (tensor and pipeline parallel) ----
 * Each rank copies the parts of the weights it multiplies by into memory of
 * its own (one region, huge pages advised: anonymous memory streams faster
 * than a file's pages here) and lets the file's pages go as it copies
 * (gguf_release), so that it holds its shard, not the model: of its layers,
 * the rows of Q, K, V, gate and up and the columns of the attention's output
 * and of down that it takes, its experts (or their slices), its rows of the
 * output. The columns are packed row after row: sliced in place, a rank
 * streamed strided runs of every row (Qwen3-0.6B Q4_K_M on two ranks 95 ->
 * 142 tokens/s). The embedding table stays mapped (a token reads a row). */

typedef struct own {
    inf_ctx_t *c;
    uint8_t *mem; /* NULL: counting (and telling need what would be read) */
    size_t used;
    void (*need)(void *arg, const void *at, size_t len);
    void *arg;
} own_t;

/* dst: experts [e0, e0 + ne) of src (ne 1 for a matrix), rows [r0, r0 +
 * rows) of each and columns [c0, c0 + nc), dense; only counted when
 * o->mem is NULL. */
static void own_part(own_t *o, inf_w_t *dst, const inf_w_t *src, int64_t e0, int64_t ne, int64_t r0, int64_t rows,
                     int64_t c0, int64_t nc)
{
    *dst = *src;
    if (!src->type)
        return; /* a tensor this architecture lacks */
    dst->ne[0] = nc;
    dst->ne[1] = rows;
    dst->ne[2] = src->ne[2] > 1 ? ne : 1;
    dst->row_bytes = inf_row_bytes(src->type, nc);
    dst->data = NULL;
    const size_t bytes = dst->row_bytes * (size_t)rows * (size_t)ne, at = o->used;
    if (!bytes)
        return;
    o->used += (bytes + 4095) & ~(size_t)4095;
    const size_t skip = inf_row_bytes(src->type, c0);
    for (int64_t e = 0; !o->mem && o->need && e < ne; e++)
        for (int64_t r = 0; r < rows; r++)
            o->need(o->arg, (const uint8_t *)src->data + (size_t)((e0 + e) * src->ne[1] + r0 + r) * src->row_bytes + skip,
                    dst->row_bytes);
    if (!o->mem)
        return;
    uint8_t *d = o->mem + at;
    for (int64_t e = 0; e < ne; e++)
        for (int64_t r = 0; r < rows; r++)
            memcpy(d + (size_t)(e * rows + r) * dst->row_bytes,
                   (const uint8_t *)src->data + (size_t)((e0 + e) * src->ne[1] + r0 + r) * src->row_bytes + skip,
                   dst->row_bytes);
    dst->data = d;
    gguf_release(o->c->m->gguf, src->data, w_bytes(src));
}

/* The views c->lw and c->out: the model's own weights, or (o not NULL)
 * this rank's copies of its parts of them. The router too: every rank
 * routes alike only if each computes the same scores, and an F32 product's
 * sums can depend on its rows' alignment (the BLAS's), which is the same in
 * every rank's copy. */
static void own_weights(inf_ctx_t *c, own_t *o)
{
    const inf_model_t *m = c->m;
    const inf_hparams_t *hp = &m->hp;
    const inf_shard_t *s = &c->sh;
    const int E = hp->n_embd, G = hp->n_head / hp->n_head_kv, D = hp->head_dim, q0 = s->hk0 * G * D,
              HD = s->nhk * G * D, k0 = s->hk0 * D, KV = s->nhk * D;
    const int last = !c->pp || c->pp->stage == c->pp->stages - 1;
    for (int l = s->l0; l < s->l0 + s->nl; l++) {
        const inf_layer_t *L = &m->layers[l];
        inf_layer_t *W = &c->lw[l];
        *W = *L; /* the norms and biases: the model's */
        if (!o)
            continue;
        own_part(o, &W->wq, &L->wq, 0, 1, q0, HD, 0, E);
        own_part(o, &W->wk, &L->wk, 0, 1, k0, KV, 0, E);
        own_part(o, &W->wv, &L->wv, 0, 1, k0, KV, 0, E);
        own_part(o, &W->wo, &L->wo, 0, 1, 0, E, q0, HD);
        W->bq = L->bq ? L->bq + q0 : NULL;
        W->bk = L->bk ? L->bk + k0 : NULL;
        W->bv = L->bv ? L->bv + k0 : NULL;
        own_part(o, &W->w_gate, &L->w_gate, 0, 1, s->f0, s->nf, 0, E);
        own_part(o, &W->w_up, &L->w_up, 0, 1, s->f0, s->nf, 0, E);
        own_part(o, &W->w_down, &L->w_down, 0, 1, 0, E, s->f0, s->nf);
        own_part(o, &W->router, &L->router, 0, 1, 0, hp->n_expert, 0, E);
        own_part(o, &W->gate_exps, &L->gate_exps, s->x0, s->nx, s->fe0, s->nfe, 0, E);
        own_part(o, &W->up_exps, &L->up_exps, s->x0, s->nx, s->fe0, s->nfe, 0, E);
        own_part(o, &W->down_exps, &L->down_exps, s->x0, s->nx, 0, E, s->fe0, s->nfe);
    }
    c->out = m->output;
    if (o && last)
        own_part(o, &c->out, &m->output, 0, 1, s->v0, s->nv, 0, E);
}

/* The layers of stage s of n: cut where the bytes so far come nearest to
 * s / n of all (the output weights counted after the last layer), every
 * stage at least one layer. */
static void stage_layers(const inf_model_t *m, int s, int n, int *l0, int *nl)
{
    const int L = m->hp.n_layer;
    uint64_t *cum = calloc((size_t)L + 1, sizeof *cum);
    int *cut = calloc((size_t)n + 1, sizeof *cut);
    if (!cum || !cut) { /* by count */
        *l0 = L * s / n;
        *nl = L * (s + 1) / n - *l0;
        free(cum);
        free(cut);
        return;
    }
    for (int l = 0; l < L; l++) {
        const inf_layer_t *y = &m->layers[l];
        const inf_w_t *ws[] = {&y->wq, &y->wk, &y->wv, &y->wo, &y->w_gate, &y->w_up, &y->w_down,
                               &y->router, &y->gate_exps, &y->up_exps, &y->down_exps};
        uint64_t b = 0;
        for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
            b += w_bytes(ws[i]);
        cum[l + 1] = cum[l] + b;
    }
    const double all = (double)(cum[L] + w_bytes(&m->output));
    cut[n] = L;
    for (int k = 1; k < n; k++) {
        const double want = all * k / n;
        int best = cut[k - 1] + 1;
        for (int l = best; l <= L - (n - k); l++)
            if (fabs((double)cum[l] - want) < fabs((double)cum[best] - want))
                best = l;
        cut[k] = best;
    }
    *l0 = cut[s];
    *nl = cut[s + 1] - cut[s];
    free(cum);
    free(cut);
}

void inf_ctx_memory(const inf_ctx_t *c, size_t *weights, int *own, size_t *kv)
{
    *own = c->wmem.base != NULL;
    *weights = *own ? c->wmem.size : (size_t)c->m->weight_bytes;
    *kv = c->kv.size;
}

inf_shard_t inf_ctx_shard(const inf_ctx_t *c)
{
    return c->sh;
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
            return fail(err, errlen, "the experts' split must be INF_MOE_SLICE or INF_MOE_EXPERT, not %d", p->moe_split);
    }
    c->sh = c->tp ? shard_of(m, c->tp->rank, c->tp->size, c->moe_split)
                  : (inf_shard_t){0, hp->n_head_kv, 0, hp->n_ff, 0, hp->n_vocab, 0, hp->n_expert, 0, hp->n_ff_exp, 0, 0};
    c->sh.l0 = 0; /* every layer, unless pipeline stages split them */
    c->sh.nl = hp->n_layer;
    c->pp = p->pp && p->pp->stages > 1 ? p->pp : NULL;
    if (c->pp && (p->pp->stage < 0 || p->pp->stage >= p->pp->stages || p->pp->stages > hp->n_layer))
        return fail(err, errlen, "%s: %d pipeline stages for a model of %d layers: at most one stage a layer", m->path,
                    p->pp->stages, hp->n_layer);
    if (c->pp)
        stage_layers(m, c->pp->stage, c->pp->stages, &c->sh.l0, &c->sh.nl);
    return 0;
}

int inf_ctx_plan(inf_model_t *m, const inf_ctx_params_t *p, void (*need)(void *arg, const void *at, size_t len),
                 void *arg, char *err, size_t errlen)
{
    inf_ctx_t c = {.m = m};
    if (ctx_layout(&c, p, err, errlen))
        return -1;
    if (!(c.lw = calloc((size_t)m->hp.n_layer, sizeof *c.lw)))
        return fail(err, errlen, "out of memory");
    own_t o = {.c = &c, .need = need, .arg = arg};
    if (c.tp || c.pp)
        own_weights(&c, &o);
    else {
        const inf_w_t *w[] = {&m->output};
        need(arg, w[0]->data, w_bytes(w[0]));
        for (int l = 0; l < m->hp.n_layer; l++) {
            const inf_layer_t *L = &m->layers[l];
            const inf_w_t *ws[] = {&L->wq, &L->wk, &L->wv, &L->wo, &L->w_gate, &L->w_up, &L->w_down,
                                   &L->router, &L->gate_exps, &L->up_exps, &L->down_exps};
            for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
                if (ws[i]->type)
                    need(arg, ws[i]->data, w_bytes(ws[i]));
        }
    }
    if (!c.pp || c.pp->stage == 0) /* the embeddings: a row a token, any row */
        need(arg, m->tok_embd.data, w_bytes(&m->tok_embd));
    free(c.lw);
    return 0;
}

int inf_ctx_new(inf_model_t *m, const inf_ctx_params_t *p, inf_ctx_t **out, char *err, size_t errlen)
{
    *out = NULL;
    const inf_hparams_t *hp = &m->hp;
    inf_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return fail(err, errlen, "out of memory");
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
        return fail(err, errlen, "the KV cache type must be F16, F32 or Q8_0 (Q8_0 needs heads of a multiple of 32)");
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
        return fail(err, errlen, "out of memory for a context of %d positions (%.1f MiB of KV cache) and batches of %d", N,
                    2.0 * (double)kvb / 1048576.0, B);
    }
    if (!(c->lw = calloc((size_t)hp->n_layer, sizeof *c->lw))) {
        inf_ctx_free(c);
        return fail(err, errlen, "out of memory");
    }
    if (c->tp || c->pp) {
        own_t o = {.c = c};
        own_weights(c, &o);
        if (inf_region_alloc(&c->wmem, o.used ? o.used : 1)) {
            inf_ctx_free(c);
            return fail(err, errlen, "out of memory for this rank's %.1f MiB of the weights", (double)o.used / 1048576.0);
        }
        o = (own_t){.c = c, .mem = c->wmem.p};
        own_weights(c, &o);
    } else
        own_weights(c, NULL);
    if (c->tp && !c->p.local_logits) {
        c->vcounts = malloc((size_t)c->tp->size * sizeof *c->vcounts);
        c->vdispls = malloc((size_t)c->tp->size * sizeof *c->vdispls);
        if (!c->vcounts || !c->vdispls) {
            inf_ctx_free(c);
            return fail(err, errlen, "out of memory");
        }
        for (int r = 0; r < c->tp->size; r++) {
            const inf_shard_t s = shard_of(m, r, c->tp->size, c->moe_split);
            c->vcounts[r] = (size_t)s.nv;
            c->vdispls[r] = (size_t)s.v0;
        }
    }
    if (inf_pool_create(c->p.n_threads, &c->pool)) {
        inf_ctx_free(c);
        return fail(err, errlen, "cannot start %d threads", c->p.n_threads);
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

/* y of m (all of its rows, n tokens) from `cols` of this rank's columns of
 * x (ld cols): every rank's share of the sum, summed over the ranks. */
static void partial_product(inf_ctx_t *c, const float *x, int cols, int n, const inf_mm_in_t *in, inf_mm_t *m)
{
    if (cols)
        inf_matmul(c->pool, x, cols, n, cols, in, m, 1, c->mmq);
    else
        memset(m->y, 0, (size_t)n * (size_t)m->ldy * sizeof(float));
    if (c->tp && c->tp->allreduce_sum(c->tp->self, m->y, (size_t)n * (size_t)m->ldy))
        c->tp_failed = 1;
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
    const int E = hp->n_embd, F = c->sh.nf;
    inf_mm_t gu[2] = {inf_mm_of(&L->w_gate, 0, c->fa, F, NULL), inf_mm_of(&L->w_up, 0, c->fb, F, NULL)};
    const inf_mm_in_t norm = norm_in(c, L->ffn_norm, add);
    if (F)
        inf_matmul(c->pool, c->x, E, n, E, &norm, gu, 2, c->mmq);
    else if (add)
        stream_add(c, n, add);
    if (add)
        stream_swap(c);
    inf_mm_t d = inf_mm_of(&L->w_down, 0, c->tmp, E, NULL);
    const inf_mm_in_t swiglu = {.kind = INF_MM_IN_SWIGLU, .up = c->fb};
    partial_product(c, c->fa, F, n, &swiglu, &d);
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
    if (c->tp && c->tp->allreduce_sum(c->tp->self, c->macc, (size_t)n * (size_t)E))
        c->tp_failed = 1;
}

/* ---- one batch ---- */

static void batch(inf_ctx_t *c, const int32_t *tok, int n, int want_all)
{
    inf_model_t *m = c->m;
    const inf_hparams_t *hp = &m->hp;
    /* this rank's heads */
    const int E = hp->n_embd, D = hp->head_dim, G = hp->n_head / hp->n_head_kv, KV = c->sh.nhk * D,
              HD = KV * G;
    for (int t = 0; t < n; t++)
        c->tpos[t] = c->pos + t;
    c->n_logits = 0;
    c->pos += n;
    if (c->pp && c->pp->stage > 0) {
        /* the stream from the stage before */
        if (c->pp->recv(c->pp->self, c->x, (size_t)n * E)) {
            c->tp_failed = 2;
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
        partial_product(c, c->att, HD, n, NULL, &o);
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
        for (size_t i = 0; pending && i < (size_t)n * E; i++)
            c->x[i] += pending[i];
        if (!c->tp_failed && c->pp->send(c->pp->self, c->x, (size_t)n * E))
            c->tp_failed = 2;
        return;
    }
    /* the logits: the last token's, or every token's */
    const int first = want_all ? 0 : n - 1, rows = n - first;
    const int V = hp->n_vocab;
    inf_mm_t out = inf_mm_of(&c->out, 0, c->logits + c->sh.v0, V, NULL);
    inf_mm_in_t norm = norm_in(c, m->output_norm, pending ? pending + (size_t)first * E : NULL);
    norm.sum = NULL; /* the stream ends here */
    if (c->sh.nv)
        inf_matmul(c->pool, c->x + (size_t)first * E, E, rows, E, &norm, &out, 1, c->mmq);
    /* every rank the whole logits, to sample the same token */
    for (int t = 0; c->vcounts && t < rows && !c->tp_failed; t++)
        if (c->tp->allgatherv(c->tp->self, c->logits + (size_t)t * V, c->vcounts, c->vdispls))
            c->tp_failed = 1;
    c->n_logits = rows;
}

int inf_decode(inf_ctx_t *c, const int32_t *tokens, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return fail(err, errlen, "nothing to decode");
    if (c->pos + n > c->p.n_ctx)
        return fail(err, errlen, "the context is full: %d positions used, %d more asked, %d in all (-c)", c->pos, n,
                    c->p.n_ctx);
    for (int i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= c->m->hp.n_vocab)
            return fail(err, errlen, "token %d is outside the vocabulary of %d", tokens[i], c->m->hp.n_vocab);
    /* a pipeline's stages overlap when the prompt goes in pieces: each stage
     * starts on a piece as the one before passes it on (every stage cuts
     * alike: the counts alone decide) */
    int step = c->p.n_batch;
    if (c->pp && !c->p.all_logits) {
        const int u = c->p.n_ubatch > 0 ? c->p.n_ubatch : (n + 2 * c->pp->stages - 1) / (2 * c->pp->stages);
        step = u < step ? u : step;
    }
    for (int at = 0; at < n; at += step) {
        int k = n - at < step ? n - at : step;
        /* with all_logits, the logits of every batch would overwrite each other:
         * only the last batch's rows remain */
        batch(c, tokens + at, k, c->p.all_logits);
        if (c->tp_failed == 2) {
            c->tp_failed = 0;
            return fail(err, errlen, "pipeline parallel, stage %d of %d: passing the stream between the stages failed",
                        c->pp->stage, c->pp->stages);
        }
        if (c->tp_failed) {
            c->tp_failed = 0;
            return fail(err, errlen, "tensor parallel, rank %d of %d: a collective between the ranks failed", c->tp->rank,
                        c->tp->size);
        }
    }
    return 0;
}
