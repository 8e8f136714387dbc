/*
 * check_sample.c — greedy sampling, whole and by slices of the vocabulary
 * (as the ranks of tensor parallel take it): the most likely token after the
 * repetition penalty (once per token in the last repeat_last_n, dividing a
 * positive logit and multiplying a negative one), the lower token on a tie;
 * the best of the slices' bests (the lower token on a tie, as MAXLOC) is the
 * whole vocabulary's. Sampling with top-k takes the k tokens a sort of the
 * whole vocabulary puts first (the lower token first on a tie): the same
 * token, seed for seed, as sampling without top-k from logits where every
 * other token is impossible.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "inference/sample.h"
#include "tests/check_run.h"

enum { V = 5000, H = 80 };

static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33);
}

/* The plain way: penalise a copy, then the first largest. */
static int32_t reference(const float *logits, const int32_t *hist, int nh, float penalty, int last_n)
{
    static float c[V];
    for (int i = 0; i < V; i++)
        c[i] = logits[i];
    const int from = last_n < 0 || nh < last_n ? 0 : nh - last_n;
    for (int i = from; i < nh && penalty != 1.0f && last_n != 0; i++) {
        int again = 0;
        for (int k = from; k < i; k++)
            again |= hist[k] == hist[i];
        if (!again && hist[i] >= 0 && hist[i] < V)
            c[hist[i]] = c[hist[i]] > 0 ? c[hist[i]] / penalty : c[hist[i]] * penalty;
    }
    int best = 0;
    for (int i = 1; i < V; i++)
        if (c[i] > c[best])
            best = i;
    return best;
}

START_TEST(greedy_whole_and_by_slices_equals_the_plain_way)
{
    static float logits[V];
    int32_t hist[H];
    const float penalties[] = {1.0f, 1.3f, 0.7f};
    const int lasts[] = {64, -1, 0, 5};
    for (int trial = 0; trial < 200; trial++) {
        /* few distinct values: ties everywhere; the history favours the top tokens */
        for (int i = 0; i < V; i++)
            logits[i] = (float)((int)(rnd() % 41) - 20) / 4.0f;
        for (int i = 0; i < H; i++) {
            int32_t t = (int32_t)(rnd() % V);
            for (int k = 0; k < V && i % 3 == 0; k++) /* a token with the largest logit */
                if (logits[(t + k) % V] == 5.0f) {
                    t = (t + k) % V;
                    break;
                }
            hist[i] = i % 17 == 0 ? -1 : t; /* and tokens out of the vocabulary, ignored */
        }
        const int nh = (int)(rnd() % (H + 1));
        for (size_t p = 0; p < sizeof penalties / sizeof *penalties; p++)
            for (size_t l = 0; l < sizeof lasts / sizeof *lasts; l++) {
                inf_sampler_params_t sp = {.temp = 0, .repeat_penalty = penalties[p], .repeat_last_n = lasts[l]};
                inf_sampler_t *s = inf_sampler_new(&sp, V);
                ck_assert(inf_sampler_greedy(s));
                const int32_t want = reference(logits, hist, nh, penalties[p], lasts[l]);
                ck_assert_int_eq(inf_sample(s, logits, hist, nh), want);
                for (int parts = 1; parts <= 5; parts++) {
                    int32_t best = -1;
                    float bv = 0;
                    for (int r = 0; r < parts; r++) {
                        const int v0 = V * r / parts, nv = V * (r + 1) / parts - v0;
                        float v;
                        const int32_t t = inf_sample_greedy_range(s, logits, v0, nv, hist, nh, &v);
                        ck_assert(t >= v0 && t < v0 + nv);
                        if (best < 0 || v > bv || (v == bv && t < best)) {
                            best = t;
                            bv = v;
                        }
                    }
                    ck_assert_msg(best == want, "trial %d, penalty %g, last %d, %d slices: %d, the plain way %d",
                                  trial, (double)penalties[p], lasts[l], parts, best, want);
                }
                inf_sampler_free(s);
            }
    }
}
END_TEST

typedef struct {
    float v;
    int id;
} ranked_t;

static int by_rank(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return x->id - y->id;
}

START_TEST(top_k_samples_what_a_whole_sort_keeps)
{
    static float logits[V], masked[V];
    static ranked_t r[V];
    const int ks[] = {1, 2, 7, 40, 333, V - 1};
    for (int trial = 0; trial < 30; trial++) {
        /* few distinct values: the k-th best ties with many others */
        for (int i = 0; i < V; i++) {
            logits[i] = (float)((int)(rnd() % 61) - 30) / 8.0f;
            r[i] = (ranked_t){logits[i], i};
        }
        qsort(r, V, sizeof *r, by_rank);
        for (size_t q = 0; q < sizeof ks / sizeof *ks; q++) {
            const int k = ks[q];
            for (int i = 0; i < V; i++)
                masked[i] = -INFINITY;
            for (int i = 0; i < k; i++)
                masked[r[i].id] = logits[r[i].id];
            const uint64_t seed = 1000u * (unsigned)trial + q;
            inf_sampler_params_t a = {.temp = 1.5f, .top_k = k, .top_p = 0.9f, .min_p = 0.01f, .repeat_penalty = 1.0f,
                                      .seed = seed};
            inf_sampler_params_t b = a;
            b.top_k = 0;
            inf_sampler_t *sa = inf_sampler_new(&a, V), *sb = inf_sampler_new(&b, V);
            for (int draw = 0; draw < 20; draw++) {
                const int32_t ta = inf_sample(sa, logits, NULL, 0), tb = inf_sample(sb, masked, NULL, 0);
                ck_assert_msg(ta == tb, "trial %d, top-k %d, draw %d: %d, the whole sort %d", trial, k, draw, ta, tb);
                ck_assert(masked[ta] > -INFINITY);
            }
            inf_sampler_free(sa);
            inf_sampler_free(sb);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inference sampling");
    TCase *tc = tcase_create("greedy");
    /* 600 top-k samplers over 5000 tokens: seconds under the sanitizers on a busy machine */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, greedy_whole_and_by_slices_equals_the_plain_way);
    tcase_add_test(tc, top_k_samples_what_a_whole_sort_keeps);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
