/*
 * check_types.c — every tensor type's kernels against plain references on
 * random data: quantizing then dequantizing keeps the values within the
 * type's error bound; a dot product equals the dot product of the
 * dequantized operands (computed in double) within float rounding; and the
 * SIMD kernel this CPU uses equals the scalar one.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inference/types.h"
#include "tests/check_run.h"

#define N 4096

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* roughly normal, a few large values among them as real weights have */
static float randn(void)
{
    float s = 0;
    for (int i = 0; i < 4; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        s += (float)((rng >> 40) & 0xffffff) / 16777216.0f - 0.5f;
    }
    return s * 1.7f;
}

static const uint32_t weight_types[] = {GGML_F32, GGML_F16, GGML_BF16, GGML_Q8_0, GGML_Q4_0, GGML_Q4_K, GGML_Q5_K, GGML_Q6_K};
/* relative RMS error of a quantize-dequantize round trip */
static double bound(uint32_t t)
{
    switch (t) {
    case GGML_F32: return 0;
    case GGML_F16: return 1e-3;
    case GGML_BF16: return 8e-3;
    case GGML_Q8_0: return 0.01;
    case GGML_Q6_K: return 0.03;
    case GGML_Q5_K: return 0.06;
    case GGML_Q4_K: return 0.12;
    default: return 0.15; /* Q4_0 */
    }
}

static double rel_rms(const float *a, const float *b, int n)
{
    double e = 0, r = 0;
    for (int i = 0; i < n; i++) {
        e += (double)(a[i] - b[i]) * (a[i] - b[i]);
        r += (double)a[i] * a[i];
    }
    return sqrt(e / r);
}

START_TEST(round_trip_within_the_types_bound)
{
    const inf_type_t *t = inf_type(weight_types[_i]);
    ck_assert_ptr_nonnull(t);
    float x[N], back[N];
    for (int i = 0; i < N; i++)
        x[i] = randn();
    void *q = malloc(inf_row_bytes(t, N));
    t->from_float(x, q, N);
    t->to_float(q, back, N);
    double e = rel_rms(x, back, N);
    ck_assert_msg(e <= bound(t->id), "%s: round-trip error %.4g over its bound %.4g", t->name, e, bound(t->id));
    /* and a second round trip changes nothing more than rounding */
    void *q2 = malloc(inf_row_bytes(t, N));
    float back2[N];
    t->from_float(back, q2, N);
    t->to_float(q2, back2, N);
    ck_assert_msg(rel_rms(back, back2, N) <= bound(t->id) / 4 + 1e-7, "%s: not stable under requantization", t->name);
    free(q);
    free(q2);
}
END_TEST

START_TEST(dot_equals_the_dequantized_dot)
{
    const inf_type_t *t = inf_type(weight_types[_i]), *d = inf_type(t->dot_type);
    float x[N], y[N], xd[N], yd[N];
    for (int i = 0; i < N; i++) {
        x[i] = randn();
        y[i] = randn();
    }
    void *qx = malloc(inf_row_bytes(t, N)), *qy = malloc(inf_row_bytes(d, N));
    t->from_float(x, qx, N);
    d->from_float(y, qy, N);
    t->to_float(qx, xd, N);
    d->to_float(qy, yd, N);
    double want = 0, mag = 0;
    for (int i = 0; i < N; i++) {
        want += (double)xd[i] * yd[i];
        mag += fabs((double)xd[i] * yd[i]);
    }
    for (int lengths = 0; lengths < 3; lengths++) {
        /* whole rows, and rows of one and of a few blocks */
        int n = lengths == 0 ? N : lengths == 1 ? (t->block > d->block ? t->block : d->block) : 3 * 256;
        double w = 0, m = 0;
        for (int i = 0; i < n; i++) {
            w += (double)xd[i] * yd[i];
            m += fabs((double)xd[i] * yd[i]);
        }
        float got, scal;
        t->vec_dot(n, &got, qx, qy);
        t->vec_dot_scalar(n, &scal, qx, qy);
        ck_assert_msg(fabs(got - w) <= 2e-5 * m + 1e-6, "%s (%s) n=%d: dot %.9g, dequantized %.9g", t->name, t->simd, n, got, w);
        ck_assert_msg(fabs(scal - w) <= 2e-5 * m + 1e-6, "%s scalar n=%d: dot %.9g, dequantized %.9g", t->name, n, scal, w);
        ck_assert_msg(fabs(got - scal) <= 1e-5 * m + 1e-6, "%s: %s %.9g against scalar %.9g", t->name, t->simd, got, scal);
    }
    (void)want;
    (void)mag;
    free(qx);
    free(qy);
}
END_TEST

START_TEST(half_conversions_are_exact)
{
    /* every half round-trips through float exactly */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = inf_f16_to_f32((uint16_t)h);
        if (isnan(f))
            continue;
        ck_assert_msg(inf_f32_to_f16(f) == h, "half 0x%04x -> %g -> 0x%04x", h, f, inf_f32_to_f16(f));
    }
    ck_assert_uint_eq(inf_f32_to_f16(65520.0f), 0x7c00); /* rounds to inf */
    ck_assert_uint_eq(inf_f32_to_f16(1.0f + 0x1p-11f), 0x3c00); /* ties to even */
    ck_assert_uint_eq(inf_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    ck_assert_uint_eq(inf_f32_to_f16(0x1p-25f), 0x0000);
    ck_assert_uint_eq(inf_f32_to_f16(0x1.8p-25f), 0x0001);
    ck_assert(isnan(inf_f16_to_f32(inf_f32_to_f16(NAN))));
    ck_assert_uint_eq(inf_f32_to_bf16(1.0f), 0x3f80);
    ck_assert_float_eq(inf_bf16_to_f32(0x4049), 3.140625f);
}
END_TEST

START_TEST(unknown_types_are_refused)
{
    ck_assert_ptr_null(inf_type(GGML_Q2_K));
    ck_assert_ptr_null(inf_type(999));
    size_t bytes;
    ck_assert_int_eq(gguf_type_block(GGML_Q4_K, &bytes), 256);
    ck_assert_uint_eq(bytes, 144);
    ck_assert_uint_eq(inf_row_bytes(inf_type(GGML_Q6_K), 512), 420);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inference types");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 60);
    int nt = (int)(sizeof weight_types / sizeof weight_types[0]);
    tcase_add_loop_test(tc, round_trip_within_the_types_bound, 0, nt);
    tcase_add_loop_test(tc, dot_equals_the_dequantized_dot, 0, nt);
    tcase_add_test(tc, half_conversions_are_exact);
    tcase_add_test(tc, unknown_types_are_refused);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
