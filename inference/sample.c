/*
 * sample.c — the samplers (sample.h). Candidates are (token, logit) pairs;
 * each stage narrows or reweights them; the draw uses a splitmix64 stream
 * from the seed, so a seed gives the same text every run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inference/sample.h"

typedef struct {
    int32_t id;
    float logit, p;
} cand_t;

struct inf_sampler {
    inf_sampler_params_t p;
    int n_vocab;
    cand_t *c;
    uint64_t rng;
};

inf_sampler_t *inf_sampler_new(const inf_sampler_params_t *p, int n_vocab)
{
    inf_sampler_t *s = calloc(1, sizeof *s);
    if (!s || !(s->c = malloc((size_t)n_vocab * sizeof *s->c))) {
        free(s);
        return NULL;
    }
    s->p = *p;
    s->n_vocab = n_vocab;
    s->rng = p->seed;
    return s;
}

void inf_sampler_free(inf_sampler_t *s)
{
    if (s)
        free(s->c);
    free(s);
}

static uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int by_logit(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->logit != y->logit)
        return x->logit > y->logit ? -1 : 1;
    return x->id - y->id;
}

/* Whether a goes after b in by_logit's order (is the worse candidate). */
static int worse(const cand_t *a, const cand_t *b)
{
    return by_logit(a, b) > 0;
}

/* The heap h[0 .. k) with its worst candidate on top, from i down. */
static void sift(cand_t *h, int k, int i)
{
    for (;;) {
        int w = i, l = 2 * i + 1, r = l + 1;
        if (l < k && worse(&h[l], &h[w]))
            w = l;
        if (r < k && worse(&h[r], &h[w]))
            w = r;
        if (w == i)
            return;
        const cand_t t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

/* The k best of c[0 .. n) in by_logit's order into c[0 .. k), sorted, as a
 * sort of all n would leave them: the k best so far kept in a heap with the
 * worst on top, which one comparison sets almost every other token against
 * (sorting a 151,936-token vocabulary took most of a token's time at
 * --temp 0.8: Qwen3-0.6B 22.9 tokens/s). */
static void best_k(cand_t *c, int n, int k)
{
    for (int i = k / 2 - 1; i >= 0; i--)
        sift(c, k, i);
    for (int i = k; i < n; i++)
        if (worse(&c[0], &c[i])) {
            c[0] = c[i];
            sift(c, k, 0);
        }
    qsort(c, (size_t)k, sizeof *c, by_logit);
}

/* p from the logits (scaled by 1/temp) of the first n candidates */
static void softmax(cand_t *c, int n, float temp)
{
    float max = c[0].logit;
    for (int i = 1; i < n; i++)
        max = c[i].logit > max ? c[i].logit : max;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        c[i].p = expf((c[i].logit - max) / temp);
        sum += c[i].p;
    }
    for (int i = 0; i < n; i++)
        c[i].p = (float)(c[i].p / sum);
}

/* Whether token t is among the history's last repeat_last_n (from `from`). */
static int repeated(int32_t t, const int32_t *hist, int from, int nh)
{
    for (int i = from; i < nh; i++)
        if (hist[i] == t)
            return 1;
    return 0;
}

/* A logit under the repetition penalty: a positive one divided, a negative one multiplied. */
static float penalise(const inf_sampler_params_t *p, float v)
{
    return v > 0 ? v / p->repeat_penalty : v * p->repeat_penalty;
}

int inf_sampler_greedy(const inf_sampler_t *s)
{
    return s->p.temp <= 0;
}

int32_t inf_sample_greedy_range(const inf_sampler_t *s, const float *logits, int v0, int nv, const int32_t *hist, int nh,
                                float *logit)
{
    const inf_sampler_params_t *p = &s->p;
    const int pen = p->repeat_penalty != 1.0f && p->repeat_last_n != 0;
    const int from = p->repeat_last_n < 0 || nh < p->repeat_last_n ? 0 : nh - p->repeat_last_n;
    /* the largest logit of a token not penalised (the history is looked
     * at only for a new largest: a few times a vocabulary, not each token),
     * then each penalised token of the range with its penalised logit; ties
     * to the lower token, as one pass over every token would */
    int best = -1;
    float bv = -INFINITY;
    for (int i = v0; i < v0 + nv; i++)
        if ((best < 0 || logits[i] > bv) && !(pen && repeated(i, hist, from, nh))) {
            best = i;
            bv = logits[i];
        }
    for (int k = pen ? from : nh; k < nh; k++) {
        const int32_t t = hist[k];
        if (t < v0 || t >= v0 + nv || repeated(t, hist, from, k)) /* out of range, or seen already */
            continue;
        const float v = penalise(p, logits[t]);
        if (best < 0 || v > bv || (v == bv && t < best)) {
            best = t;
            bv = v;
        }
    }
    *logit = bv;
    return best;
}

int32_t inf_sample(inf_sampler_t *s, const float *logits, const int32_t *hist, int nh)
{
    const inf_sampler_params_t *p = &s->p;
    int n = s->n_vocab;
    if (p->temp <= 0) {
        float v;
        return inf_sample_greedy_range(s, logits, 0, n, hist, nh, &v);
    }
    cand_t *c = s->c;
    for (int i = 0; i < n; i++)
        c[i] = (cand_t){i, logits[i], 0};
    if (p->repeat_penalty != 1.0f && p->repeat_last_n != 0) {
        int from = p->repeat_last_n < 0 || nh < p->repeat_last_n ? 0 : nh - p->repeat_last_n;
        for (int i = from; i < nh; i++) {
            int32_t t = hist[i];
            if (t < 0 || t >= n)
                continue;
            /* once per token, however often it came */
            if (!repeated(t, hist, from, i))
                c[t].logit = penalise(p, c[t].logit);
        }
    }
    if (p->top_k > 0 && p->top_k < n) {
        best_k(c, n, p->top_k);
        n = p->top_k;
    } else
        qsort(c, (size_t)n, sizeof *c, by_logit);
    softmax(c, n, 1.0f);
    if (p->top_p < 1.0f) {
        double cum = 0;
        for (int i = 0; i < n; i++) {
            cum += c[i].p;
            if (cum >= p->top_p) {
                n = i + 1;
                break;
            }
        }
    }
    if (p->min_p > 0) {
        const float floor = p->min_p * c[0].p;
        int k = 1;
        while (k < n && c[k].p >= floor)
            k++;
        n = k;
    }
    softmax(c, n, p->temp);
    double r = (double)(next(&s->rng) >> 11) * 0x1.0p-53, cum = 0;
    for (int i = 0; i < n; i++) {
        cum += c[i].p;
        if (r < cum)
            return c[i].id;
    }
    return c[n - 1].id;
}
