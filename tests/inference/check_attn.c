/*
 * check_attn.c — attention (attn.h) both ways against attention written
 * plainly in double, for an F16, F32 and Q8_0 cache laid out as the engine
 * lays it (each key/value head's rows one after another), with several
 * query heads sharing a key/value head (GQA):
 * - in blocks: 1 to 70 tokens (whole and partial blocks);
 * - by dot products: 1 to 3 tokens, through the best kernels this CPU has
 *   and through the scalar ones, for 1 to 5 query heads a call (the SIMD
 *   kernels' groups of heads, whole and partial), heads 64 wide and 40 wide
 *   (not a whole number of AVX-512 registers: the scalar kernels take those);
 * at the start of the cache and after earlier positions (over a chunk
 * boundary too), each token seeing positions up to its own and no further;
 * and the softmax's SIMD kernels against its scalar one.
 * The plain one rounds as the engine does: the queries and the
 * probabilities to F16 against an F16 cache.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inference/attn.h"
#include "tests/check_run.h"

enum { DMAX = 64, NHMAX = 5, CTX = 400, MAXN = 70 };

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float randu(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffffff) / 16777216.0f * 4.0f - 2.0f;
}

static float round16(double x)
{
    return inf_f16_to_f32(inf_f32_to_f16((float)x));
}

/* One head's cache (keys and values of CTX positions) and the queries of
 * MAXN tokens for NHMAX heads, random. */
typedef struct {
    const inf_type_t *kt;
    int D;
    size_t row;
    uint8_t *k, *v;
    float *q, *o;
} fixture_t;

static fixture_t make(uint32_t type, int D)
{
    fixture_t f = {.kt = inf_type(type), .D = D};
    f.row = inf_row_bytes(f.kt, D);
    f.k = malloc(f.row * CTX);
    f.v = malloc(f.row * CTX);
    f.q = malloc(sizeof(float) * MAXN * NHMAX * DMAX);
    f.o = malloc(sizeof(float) * MAXN * NHMAX * DMAX);
    float row[DMAX];
    for (int p = 0; p < CTX; p++) {
        for (int i = 0; i < D; i++)
            row[i] = randu();
        f.kt->from_float(row, f.k + (size_t)p * f.row, D);
        for (int i = 0; i < D; i++)
            row[i] = randu();
        f.kt->from_float(row, f.v + (size_t)p * f.row, D);
    }
    for (int i = 0; i < MAXN * NHMAX * DMAX; i++)
        f.q[i] = 3 * randu();
    return f;
}

static void unmake(fixture_t *f)
{
    free(f->k);
    free(f->v);
    free(f->q);
    free(f->o);
}

/* a query's output, plainly, and in slack what a probability next to a
 * rounding boundary of F16 (where another order of sums may take the other
 * side) can move it by */
static void plain(const fixture_t *f, const float *q, int last, double *out, double *slack)
{
    const int D = f->D, f16 = f->kt->id == GGML_F16;
    float qr[DMAX], row[DMAX];
    static double s[CTX];
    memcpy(qr, q, sizeof(float) * (size_t)D);
    if (f16)
        for (int d = 0; d < D; d++)
            qr[d] = round16(qr[d]);
    double max = -INFINITY, sum = 0;
    for (int p = 0; p <= last; p++) {
        f->kt->to_float(f->k + (size_t)p * f->row, row, D);
        double dot = 0;
        for (int d = 0; d < D; d++)
            dot += (double)qr[d] * row[d];
        s[p] = dot / sqrt((double)D);
        max = s[p] > max ? s[p] : max;
    }
    for (int p = 0; p <= last; p++)
        sum += s[p] = exp(s[p] - max);
    for (int d = 0; d < D; d++)
        out[d] = slack[d] = 0;
    for (int p = 0; p <= last; p++) {
        double w = s[p] / sum, flip = 0;
        if (f16) {
            flip = fabs(round16(w * (1 + 1e-5)) - round16(w * (1 - 1e-5)));
            w = round16(w);
        }
        f->kt->to_float(f->v + (size_t)p * f->row, row, D);
        for (int d = 0; d < D; d++) {
            out[d] += w * row[d];
            slack[d] += flip * fabs(row[d]);
        }
    }
}

/* Attention of n tokens from position start for nh heads, blocked or by
 * dot products, against the plain one. Returns 0, or -1 when the build
 * has no BLAS for the blocks. */
static int check_run(fixture_t *f, int blocked, int start, int n, int nh, const char *kernels)
{
    const int D = f->D, ld = NHMAX * DMAX;
    int tpos[MAXN];
    for (int t = 0; t < n; t++)
        tpos[t] = start + t;
    for (int i = 0; i < MAXN * NHMAX * DMAX; i++)
        f->o[i] = NAN;
    float *scratch = malloc(sizeof(float) * inf_attn_scratch(CTX, D));
    const inf_attn_t a = {.kt = f->kt, .k = f->k, .v = f->v, .kv_row = f->row, .q = f->q, .o = f->o, .nh = nh,
                          .ld = ld, .tpos = tpos, .n = n, .D = D, .scale = 1.0f / sqrtf((float)D)};
    if (blocked) {
        if (inf_attn_blocked(&a, scratch) != 0) {
            free(scratch);
            return -1;
        }
    } else {
        inf_attn_dots(&a, scratch);
    }
    free(scratch);
    for (int t = 0; t < n; t++)
        for (int h = 0; h < nh; h++) {
            double want[DMAX], slack[DMAX];
            plain(f, f->q + (size_t)t * ld + h * D, tpos[t], want, slack);
            for (int d = 0; d < D; d++) {
                const float got = f->o[(size_t)t * ld + h * D + d];
                ck_assert_msg(fabs(got - want[d]) <= 1e-5 * (fabs(want[d]) + 1) + slack[d],
                              "%s cache, %s, D %d, start %d, %d tokens, head %d of %d, token %d, [%d]: %.9g, "
                              "plain %.9g",
                              f->kt->name, kernels, D, start, n, h, nh, t, d, got, want[d]);
            }
            /* nothing written past the heads asked for */
            if (h == nh - 1 && nh < NHMAX)
                ck_assert_msg(isnan(f->o[(size_t)t * ld + nh * D]), "%s: head %d written", kernels, nh);
        }
    return 0;
}

static const uint32_t cache_types[] = {GGML_F16, GGML_F32, GGML_Q8_0};
static const int starts[] = {0, 37, 250};

START_TEST(blocks_equal_plain_attention)
{
    fixture_t f = make(cache_types[_i], DMAX);
    for (int si = 0; si < 3; si++)
        for (int n = 1; n <= MAXN; n += n < 5 ? 1 : 13)
            for (int nh = 1; nh <= 2; nh++)
                if (check_run(&f, 1, starts[si], n, nh, "blocks") != 0) {
                    ck_assert_msg(_i == 0 && si == 0 && n == 1, "no BLAS: blocks unavailable");
                    unmake(&f);
                    return; /* built without a BLAS: the engine takes the dot products */
                }
    unmake(&f);
}
END_TEST

START_TEST(dot_products_equal_plain_attention)
{
    inf_type(GGML_F16); /* the registry picks the kernels on first use */
    const inf_f16_attn_t best = inf_f16_attn;
    for (int wide = 0; wide < 2; wide++) {
        const int D = wide ? DMAX : 40; /* Q8_0 needs whole blocks of 32 */
        if (!wide && cache_types[_i] == GGML_Q8_0)
            continue;
        fixture_t f = make(cache_types[_i], D);
        for (int kern = 0; kern < 2; kern++) {
            inf_f16_attn = kern ? inf_f16_attn_scalar : best;
            for (int si = 0; si < 3; si++)
                for (int n = 1; n <= 3; n++)
                    for (int nh = 1; nh <= NHMAX; nh++)
                        check_run(&f, 0, starts[si], n, nh, inf_f16_attn.simd);
        }
        inf_f16_attn = best;
        unmake(&f);
    }
}
END_TEST

/* The softmax kernels this CPU can run (AVX-512, AVX2, the portable one)
 * against the scalar reference (expf, a double sum) on rows of 1 to 40
 * scores (partial registers) and long ones, spread from -60 to 60 with some
 * far below the rest (exp under FLT_MIN) and ties; rounded to F16 or not:
 * within a few float ulps, or one F16 step where rounding to F16 can fall
 * either side of a tie, and summing to 1; a NaN score gives NaNs. */
START_TEST(softmax_kernels_equal_the_reference)
{
    const unsigned have = inf_cpu_mask();
    const unsigned caps[] = {INF_CPU_AVX512 | INF_CPU_AVX2, INF_CPU_AVX2, 0};
    enum { NMAX = 1500 };
    float *x = malloc(NMAX * sizeof *x), *got = malloc(NMAX * sizeof *got), *want = malloc(NMAX * sizeof *want);
    int tried = 0;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        if ((caps[c] & have) != caps[c])
            continue;
        inf_softmax_select(caps[c]);
        tried++;
        for (int n = 1; n <= NMAX; n += n < 40 ? 1 : 487)
            for (int f16 = 0; f16 < 2; f16++) {
                for (int i = 0; i < n; i++) {
                    x[i] = 30.0f * randu();
                    if (i % 7 == 3)
                        x[i] = x[i - 1]; /* ties */
                    if (i % 11 == 5)
                        x[i] -= 200.0f; /* exp far under FLT_MIN */
                }
                memcpy(got, x, (size_t)n * sizeof *x);
                memcpy(want, x, (size_t)n * sizeof *x);
                inf_softmax.run(got, n, f16);
                inf_softmax_scalar.run(want, n, f16);
                double sum = 0;
                for (int i = 0; i < n; i++) {
                    const double w = want[i], step = f16 ? ldexp(fmax(fabs(w), 6.1e-5), -10) : 0;
                    ck_assert_msg(fabs(got[i] - w) <= 1e-6 * fabs(w) + 1e-30 + step,
                                  "softmax %s, %d scores, f16 %d, [%d] of %.9g: %.9g, reference %.9g",
                                  inf_softmax.simd, n, f16, i, (double)x[i], (double)got[i], w);
                    sum += got[i];
                }
                ck_assert_msg(fabs(sum - 1) <= (f16 ? ldexp(n, -11) : 1e-5), "softmax %s, %d scores, f16 %d: sums to %.9g",
                              inf_softmax.simd, n, f16, sum);
            }
        /* a NaN among the scores (an overflow upstream) is not hidden: every result is NaN, as the
         * reference's (the clamp under exp must not turn it into a number) */
        for (int n = 3; n <= 37; n += 17) {
            for (int i = 0; i < n; i++)
                got[i] = randu();
            got[n / 2] = NAN;
            inf_softmax.run(got, n, 0);
            for (int i = 0; i < n; i++)
                ck_assert_msg(isnan(got[i]), "softmax %s, a NaN among %d scores: [%d] is %.9g", inf_softmax.simd, n, i,
                              (double)got[i]);
        }
    }
    inf_softmax_select(have);
    ck_assert_int_ge(tried, 1);
    free(x);
    free(got);
    free(want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inference attention");
    TCase *tc = tcase_create("attention");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, blocks_equal_plain_attention, 0, 3);
    tcase_add_loop_test(tc, dot_products_equal_plain_attention, 0, 3);
    tcase_add_test(tc, softmax_kernels_equal_the_reference);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
