/*
 * shard.c — how tensor, expert and pipeline parallel cut a model (shard.h):
 * each rank's part of it, and its own copy of the weights of that part.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inference/engine.h"
#include "inference/shard.h"

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
inf_shard_t inf_shard_of(const inf_model_t *m, int r, int n, int split)
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
    s.fh0 = s.f0;
    s.nfh = s.nf;
    s.fblock = bd;
    s.v0 = (int)((int64_t)V * r / n);
    s.nv = (int)((int64_t)V * (r + 1) / n) - s.v0;
    s.vh0 = s.v0;
    s.nvh = s.nv;
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
uint64_t inf_w_bytes(const inf_w_t *w)
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
 * and of down that it takes (of the MLP, every hidden unit it holds: its
 * share and the margins a balanced split moves within), its experts (or their slices), its rows of the
 * output. The columns are packed row after row: sliced in place, a rank
 * streamed strided runs of every row (Qwen3-0.6B Q4_K_M on two ranks 95 ->
 * 142 tokens/s). The embedding table stays mapped (a token reads a row). */


/* dst: experts [e0, e0 + ne) of src (ne 1 for a matrix), rows [r0, r0 +
 * rows) of each and columns [c0, c0 + nc), dense; only counted when
 * o->mem is NULL. */
static void own_part(inf_own_t *o, inf_w_t *dst, const inf_w_t *src, int64_t e0, int64_t ne, int64_t r0, int64_t rows,
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
    gguf_release(o->g, src->data, inf_w_bytes(src));
}

/* lw[l] for the layers of s and *out (when `last`): the copies of this
 * rank's parts of the model's weights, into o->mem (or only counted). The
 * router too: every rank routes alike only if each computes the same
 * scores, and an F32 product's sums can depend on its rows' alignment (the
 * BLAS's), which is the same in every rank's copy. */
void inf_shard_weights(const inf_model_t *m, const inf_shard_t *s, int last, inf_own_t *o, inf_layer_t *lw, inf_w_t *out)
{
    const inf_hparams_t *hp = &m->hp;
    const int E = hp->n_embd, G = hp->n_head / hp->n_head_kv, D = hp->head_dim, q0 = s->hk0 * G * D,
              HD = s->nhk * G * D, k0 = s->hk0 * D, KV = s->nhk * D;
    for (int l = s->l0; l < s->l0 + s->nl; l++) {
        const inf_layer_t *L = &m->layers[l];
        inf_layer_t *W = &lw[l];
        *W = *L; /* the norms and biases: the model's */
        own_part(o, &W->wq, &L->wq, 0, 1, q0, HD, 0, E);
        own_part(o, &W->wk, &L->wk, 0, 1, k0, KV, 0, E);
        own_part(o, &W->wv, &L->wv, 0, 1, k0, KV, 0, E);
        own_part(o, &W->wo, &L->wo, 0, 1, 0, E, q0, HD);
        W->bq = L->bq ? L->bq + q0 : NULL;
        W->bk = L->bk ? L->bk + k0 : NULL;
        W->bv = L->bv ? L->bv + k0 : NULL;
        own_part(o, &W->w_gate, &L->w_gate, 0, 1, s->fh0, s->nfh, 0, E);
        own_part(o, &W->w_up, &L->w_up, 0, 1, s->fh0, s->nfh, 0, E);
        own_part(o, &W->w_down, &L->w_down, 0, 1, 0, E, s->fh0, s->nfh);
        own_part(o, &W->router, &L->router, 0, 1, 0, hp->n_expert, 0, E);
        own_part(o, &W->gate_exps, &L->gate_exps, s->x0, s->nx, s->fe0, s->nfe, 0, E);
        own_part(o, &W->up_exps, &L->up_exps, s->x0, s->nx, s->fe0, s->nfe, 0, E);
        own_part(o, &W->down_exps, &L->down_exps, s->x0, s->nx, 0, E, s->fe0, s->nfe);
    }
    *out = m->output;
    if (last)
        own_part(o, out, &m->output, 0, 1, s->vh0, s->nvh, 0, E);
}

/* The layers of stage s of n: cut where the bytes so far come nearest to
 * s / n of all (the output weights counted after the last layer), every
 * stage at least one layer. */
void inf_shard_layers(const inf_model_t *m, int s, int n, int *l0, int *nl)
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
            b += inf_w_bytes(ws[i]);
        cum[l + 1] = cum[l] + b;
    }
    const double all = (double)(cum[L] + inf_w_bytes(&m->output));
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

