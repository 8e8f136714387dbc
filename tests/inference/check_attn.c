/*
 * check_attn.c — a prompt's attention by blocks (attn.h) against attention
 * written plainly in double: for an F16, F32 and Q8_0 cache, 1 to 70 tokens
 * (whole and partial blocks) at the start of the cache and after earlier
 * positions (over a chunk boundary too), each token seeing positions up to
 * its own and no further. The plain one rounds as the dot products do: the
 * queries and the probabilities to F16 against an F16 cache.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inference/attn.h"
#include "tests/check_run.h"

enum { D = 64, H = 3, CTX = 400, MAXN = 70 };

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float randu(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffffff) / 16777216.0f * 4.0f - 2.0f;
}

static const uint32_t cache_types[] = {GGML_F16, GGML_F32, GGML_Q8_0};

/* token t's output of head h, plainly */
static float round16(double x)
{
    return inf_f16_to_f32(inf_f32_to_f16((float)x));
}

/* token t's output of head h, plainly, and in slack what a probability
 * next to a rounding boundary of F16 (where the blocks' other order of sums
 * may take the other side) can move it by */
static void plain(const inf_type_t *kt, const uint8_t *k, const uint8_t *v, size_t kv_row, const float *q, int last,
                  double *out, double *slack)
{
    const int f16 = kt->id == GGML_F16;
    float qr[D], row[D];
    static double s[CTX];
    memcpy(qr, q, sizeof qr);
    if (f16)
        for (int d = 0; d < D; d++)
            qr[d] = inf_f16_to_f32(inf_f32_to_f16(qr[d]));
    double max = -INFINITY, sum = 0;
    for (int p = 0; p <= last; p++) {
        kt->to_float(k + (size_t)p * kv_row, row, D);
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
        kt->to_float(v + (size_t)p * kv_row, row, D);
        for (int d = 0; d < D; d++) {
            out[d] += w * row[d];
            slack[d] += flip * fabs(row[d]);
        }
    }
}

START_TEST(blocks_equal_plain_attention)
{
    const inf_type_t *kt = inf_type(cache_types[_i]);
    const size_t kv_row = inf_row_bytes(kt, (int64_t)H * D);
    uint8_t *k = malloc(kv_row * CTX), *v = malloc(kv_row * CTX);
    float *q = malloc(sizeof(float) * MAXN * H * D), *o = malloc(sizeof(float) * MAXN * H * D), row[H * D];
    float *scratch = malloc(sizeof(float) * inf_attn_scratch(CTX, D));
    for (int p = 0; p < CTX; p++) {
        for (int i = 0; i < H * D; i++)
            row[i] = randu();
        kt->from_float(row, k + (size_t)p * kv_row, H * D);
        for (int i = 0; i < H * D; i++)
            row[i] = randu();
        kt->from_float(row, v + (size_t)p * kv_row, H * D);
    }
    for (int i = 0; i < MAXN * H * D; i++)
        q[i] = 3 * randu();
    static const int starts[] = {0, 37, 250};
    int tpos[MAXN];
    for (int si = 0; si < 3; si++)
        for (int n = 1; n <= MAXN; n += n < 5 ? 1 : 13) {
            for (int t = 0; t < n; t++)
                tpos[t] = starts[si] + t;
            for (int i = 0; i < MAXN * H * D; i++)
                o[i] = NAN;
            for (int h = 0; h < H; h++) {
                const size_t hoff = inf_row_bytes(kt, (int64_t)h * D);
                const inf_attn_t a = {.kt = kt, .k = k + hoff, .v = v + hoff, .kv_row = kv_row, .q = q + h * D,
                                      .o = o + h * D, .ld = H * D, .tpos = tpos, .n = n, .D = D,
                                      .scale = 1.0f / sqrtf((float)D)};
                if (inf_attn_blocked(&a, scratch) != 0) {
                    ck_assert_msg(_i == 0 && si == 0 && n == 1, "no BLAS: blocks unavailable");
                    return; /* built without a BLAS: the engine takes the dot products */
                }
                for (int t = 0; t < n; t++) {
                    double want[D], slack[D];
                    plain(kt, k + hoff, v + hoff, kv_row, q + (size_t)t * H * D + h * D, tpos[t], want, slack);
                    for (int d = 0; d < D; d++) {
                        const float got = o[(size_t)t * H * D + h * D + d];
                        ck_assert_msg(fabs(got - want[d]) <= 1e-5 * (fabs(want[d]) + 1) + slack[d],
                                      "%s cache, start %d, %d tokens, head %d, token %d, [%d]: %.9g, plain %.9g",
                                      kt->name, starts[si], n, h, t, d, got, want[d]);
                    }
                }
            }
        }
    free(k);
    free(v);
    free(q);
    free(o);
    free(scratch);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inference attention");
    TCase *tc = tcase_create("blocks");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, blocks_equal_plain_attention, 0, 3);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
