/*
 * check_types.c — every tensor type's kernels against plain references on
 * random data: quantizing then dequantizing keeps the values within the
 * type's error bound; a dot product equals the dot product of the
 * dequantized operands (computed in double) within float rounding; the
 * SIMD kernel this CPU uses equals the scalar one; and a batched matrix
 * product (batch kernels where the CPU has them, over 1 and 2 threads)
 * equals the scalar dot products, bias included, for every batch size.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "inference/matmul.h"
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
        /* the activations quantized for the length they are used at, as the
         * engine does (Q8_0P places an odd last block by the row's length) */
        d->from_float(y, qy, n);
        t->vec_dot(n, &got, qx, qy);
        t->vec_dot_scalar(n, &scal, qx, qy);
        BOLT_CHECK_EACH(fabs(got - w) <= 2e-5 * m + 1e-6, "%s (%s) n=%d: dot %.9g, dequantized %.9g", t->name, t->simd, n, got, w);
        BOLT_CHECK_EACH(fabs(scal - w) <= 2e-5 * m + 1e-6, "%s scalar n=%d: dot %.9g, dequantized %.9g", t->name, n, scal, w);
        BOLT_CHECK_EACH(fabs(got - scal) <= 1e-5 * m + 1e-6, "%s: %s %.9g against scalar %.9g", t->name, t->simd, got, scal);
    }
    (void)want;
    (void)mag;
    free(qx);
    free(qy);
}
END_TEST

/* One job of two matrices sharing an input, as Q, K and V do: one of the
 * type under test and one of another (Q4_K with Q6_K as in Q4_K_M files,
 * Q8_0 with Q4_K, ...), 37 and 21 rows (calls of 16, tiles of 4 and a
 * remainder), against 1 to 21 tokens (whole and partial groups), the output
 * wider than the rows and the input wider than its columns, through the
 * engine's matmul. */
enum { MM_COLS = 768, MM_MAXN = 21, MM_LDX = MM_COLS + 8 }; /* 3 pieces a token for 2 threads (matmul.c) */
enum { MM_TALL = 1001 }; /* rows of a single token's product: shares walked in quarters, a tail, stealing */

typedef struct {
    const inf_type_t *t;
    int rows, ldy;
    uint8_t *w;
    float *y, bias[MM_TALL];
} mm_case_t;

static void mm_case_init(mm_case_t *c, const inf_type_t *t, int rows)
{
    float row[MM_COLS];
    c->t = t;
    c->rows = rows;
    c->ldy = rows + 3;
    c->w = malloc(inf_row_bytes(t, MM_COLS) * rows);
    c->y = malloc(sizeof(float) * c->ldy * MM_MAXN);
    for (int r = 0; r < rows; r++) {
        for (int i = 0; i < MM_COLS; i++)
            row[i] = randn();
        t->from_float(row, c->w + inf_row_bytes(t, MM_COLS) * r, MM_COLS);
        c->bias[r] = randn();
    }
}

/* Every product of case c for n tokens against the scalar dot product. */
static void mm_case_check(const mm_case_t *c, const float *x, int n, int with_bias)
{
    const inf_type_t *t = c->t, *d = inf_type(t->dot_type);
    void *qx = malloc(inf_row_bytes(d, MM_COLS));
    for (int k = 0; k < n; k++) {
        d->from_float(x + (size_t)k * MM_LDX, qx, MM_COLS);
        for (int r = 0; r < c->rows; r++) {
            float want;
            t->vec_dot_scalar(MM_COLS, &want, c->w + inf_row_bytes(t, MM_COLS) * r,
                              d->id == GGML_F32 ? (const void *)(x + (size_t)k * MM_LDX) : qx);
            want += with_bias ? c->bias[r] : 0;
            const float got = c->y[(size_t)k * c->ldy + r];
            BOLT_CHECK_EACH(fabsf(got - want) <= 1e-5f * (fabsf(want) + 30), "%s (%s%s) n=%d token %d row %d: %.9g, scalar %.9g",
                            t->name, t->simd, t->gemm && n >= 4 ? ", batch kernel" : "", n, k, r, got, want);
        }
        for (int r = c->rows; r < c->ldy; r++)
            BOLT_CHECK_EACH(c->y[(size_t)k * c->ldy + r] == -12345, "%s n=%d: wrote past the rows", t->name, n);
    }
    for (int k = n; k < MM_MAXN; k++)
        BOLT_CHECK_EACH(c->y[(size_t)k * c->ldy] == -12345, "%s n=%d: wrote past the tokens", t->name, n);
    free(qx);
}

/* The float types' kernels read their rows from any address (a mapped
 * file's rows sit 32 bytes off; the F32 one aligns its loads with a masked
 * first piece) and nothing outside them: rows of every length up to 300, at
 * every start within a cache line, lie among bytes that are NaN or huge in
 * each type, and rows that end where an unreadable page begins; each equals
 * the scalar kernel. */
START_TEST(float_dots_read_any_alignment_and_no_further)
{
    const inf_type_t *t = inf_type(weight_types[_i]);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), es = t->bytes;
    uint8_t *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    ck_assert_int_eq(mprotect(m + page, page, PROT_NONE), 0);
    ck_assert_int_eq(mprotect(m + 3 * page, page, PROT_NONE), 0);
    float v[300];
    for (int n = 1; n <= 300; n++)
        for (int placed = 0; placed < 2; placed++) {
            uint8_t *x = m + page - n * es, *y = m + 3 * page - n * es;
            if (placed) { /* inside the page, among poison */
                memset(m, 0x7f, page);
                memset(m + 2 * page, 0x7f, page);
                x = m + 64 + (size_t)(n * 5) % 64 / es * es;
                y = m + 2 * page + 64 + (size_t)(n * 3) % 64 / es * es;
            }
            double mag = 0;
            for (int i = 0; i < n; i++) {
                v[i] = randn();
                mag += fabsf(v[i]);
            }
            t->from_float(v, x, n);
            for (int i = 0; i < n; i++)
                v[i] = randn();
            t->from_float(v, y, n);
            float got, want;
            t->vec_dot(n, &got, x, y);
            t->vec_dot_scalar(n, &want, x, y);
            BOLT_CHECK_EACH(fabsf(got - want) <= 1e-5 * mag * 3 + 1e-6, "%s (%s) n=%d at %u bytes past 64: %.9g, scalar %.9g",
                            t->name, t->simd, n, (unsigned)((uintptr_t)x % 64), got, want);
        }
    munmap(m, 4 * page);
}
END_TEST

/* A type's four-row product (where it has one: rows a quarter of a matrix
 * apart, walked side by side for one token) equals four dot products, for
 * rows of one and of several blocks and strides of whole rows; float rows
 * also at a start off a cache line and at strides that are not whole lines
 * (4 bytes more). */
START_TEST(four_row_products_equal_four_dots)
{
    const inf_type_t *t = inf_type(weight_types[_i]), *d = inf_type(t->dot_type);
    /* the AVX-512 kernels of F32, Q8_0, Q4_K and Q6_K have one */
    if ((t->id == GGML_Q8_0 || t->id == GGML_Q4_K || t->id == GGML_Q6_K) && !strcmp(t->simd, "avx512-vnni"))
        ck_assert_msg(t->vec_dot4 != NULL, "%s (%s): no four-row product", t->name, t->simd);
    if (t->id == GGML_F32 && !strcmp(t->simd, "avx512"))
        ck_assert_msg(t->vec_dot4 != NULL, "F32 (avx512): no four-row product");
    if (!t->vec_dot4)
        return;
    const int cols = 3 * 256, rows = 13, shifts = t->block == 1 ? 3 : 1;
    const size_t rb = inf_row_bytes(t, cols);
    uint8_t *w = calloc(1, rb * rows + 64), *qy = malloc(inf_row_bytes(d, cols));
    float v[3 * 256];
    for (int r = 0; r < rows; r++) {
        for (int i = 0; i < cols; i++)
            v[i] = randn();
        t->from_float(v, w + rb * r, cols);
    }
    for (int i = 0; i < cols; i++)
        v[i] = randn();
    /* every length for small blocks (odd and even counts of blocks; floats:
     * 1-80, then some), 1 and 3 blocks of 256 */
    for (int n = t->block; n <= cols;
         n += t->block == 1 && n >= 80 ? 61 : (t->block < 256 ? 1 : 2) * t->block) {
        d->from_float(v, qy, n);
        for (int stride = 1; stride <= 4; stride++)
            for (int r0 = 0; r0 + 3 * stride < rows; r0 += 2)
                for (int shift = 0; shift < shifts; shift++) {
                    const uint8_t *x = w + rb * r0 + (shift ? 12 : 0);
                    const size_t str = rb * stride + (shift == 2 ? 4 : 0);
                    float got[4], want, xd[3 * 256], yd[3 * 256];
                    t->vec_dot4(n, got, x, str, qy);
                    d->to_float(qy, yd, n);
                    for (int k = 0; k < 4; k++) {
                        t->vec_dot(n, &want, x + k * str, qy);
                        /* the same products, summed in another order: within
                         * a float rounding of each of 16 lanes' magnitudes */
                        t->to_float(x + k * str, xd, n);
                        double mag = 0;
                        for (int i = 0; i < n; i++)
                            mag += fabs((double)xd[i] * yd[i]);
                        BOLT_CHECK_EACH(fabs(got[k] - want) <= 1e-6 * mag + 1e-6,
                                        "%s (%s) n=%d, rows %d + k * %d (%zu bytes apart, start %u bytes into a line): "
                                        "k=%d gave %.9g, the dot product %.9g", t->name, t->simd, n, r0, stride, str,
                                        (unsigned)((uintptr_t)x % 64), k, got[k], want);
                    }
                }
    }
    free(w);
    free(qy);
}
END_TEST

/* Q8_0P, the activations of every Q8_0 product (a SIMD quantizer where the
 * CPU has one), holds Q8_0's reference quantization: the same bytes (+128)
 * and scales, halves rounded away from zero, a block of zeros all zeros. */
START_TEST(activations_quantize_as_the_reference)
{
    const inf_type_t *p = inf_type(INF_Q8_0P), *q = inf_type(GGML_Q8_0);
    enum { COLS = 32 * 13 };
    float x[COLS];
    uint8_t qp[COLS / 32 * 36];
    inf_block_q8_0 ref[COLS / 32];
    for (int trial = 0; trial < 4; trial++) {
        for (int i = 0; i < COLS; i++)
            x[i] = randn() * (trial == 3 ? 1e-30f : 1);
        for (int i = 32; i < 64; i++) /* a block of halves (led by 127: scale 1/16, exact) */
            x[i] = (i == 32 ? 127.0f : (float)(rand() % 253 - 126) + (rand() % 2 ? 0.5f : -0.5f)) / 16;
        for (int i = 96; i < 128; i++)
            x[i] = 0;
        for (int n = 32; n <= COLS; n += 32) {
            memset(qp, 0xa5, sizeof qp);
            p->from_float(x, qp, n);
            q->from_float(x, ref, n);
            for (size_t k = inf_row_bytes(p, n); k < sizeof qp; k++)
                BOLT_CHECK_EACH(qp[k] == 0xa5, "Q8_0P (%s) n=%d wrote byte %zu, past its row", p->simd, n, k);
            for (int b = 0; b < n / 32; b++) {
                const float d = inf_q8_0p_d(qp, b, n / 32), want = inf_f16_to_f32(ref[b].d);
                BOLT_CHECK_EACH(d == want, "Q8_0P (%s) n=%d block %d: scale %.9g, Q8_0's %.9g", p->simd, n, b, d, want);
                for (int l = 0; l < 32; l++)
                    BOLT_CHECK_EACH(qp[inf_q8_0p_q_at(b) + l] - 128 == ref[b].qs[l],
                                    "Q8_0P (%s) n=%d block %d [%d]: %d, Q8_0's %d (x %.9g)", p->simd, n, b, l,
                                    qp[inf_q8_0p_q_at(b) + l] - 128, ref[b].qs[l], x[32 * b + l]);
            }
        }
    }
}
END_TEST

/* Q8_K, the activations of the K-quants' products (a SIMD quantizer where
 * the CPU has one), as specified: the first value of the largest magnitude
 * maps to -127, the rest rounded to nearest (halves to even) and
 * saturated, the sums of each 16; a block of zeros all zeros. */
static void q8_k_plain(const float *x, inf_block_q8_k *y)
{
    float amax = 0, max = 0;
    for (int j = 0; j < 256; j++)
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    const float is = amax ? -127.0f / max : 0;
    for (int j = 0; j < 256; j++) {
        const float v = nearbyintf(is * x[j]);
        y->qs[j] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
    }
    for (int j = 0; j < 16; j++) {
        int sum = 0;
        for (int k = 0; k < 16; k++)
            sum += y->qs[16 * j + k];
        y->bsums[j] = (int16_t)sum;
    }
    y->d = amax ? 1 / is : 0;
}

START_TEST(k_activations_quantize_as_specified)
{
    const inf_type_t *t = inf_type(GGML_Q8_K);
    enum { BLOCKS = 5 };
    float x[256 * BLOCKS];
    inf_block_q8_k got[BLOCKS], want;
    for (int trial = 0; trial < 4; trial++) {
        for (int i = 0; i < 256 * BLOCKS; i++)
            x[i] = randn() * (trial == 3 ? 1e-30f : 1);
        /* block 1: halves at a scale of exactly 1 (led by -127, a +127
         * after it), block 2 zeros */
        for (int i = 256; i < 512; i++)
            x[i] = i == 300 ? -127.0f : i == 400 ? 127.0f : (float)(rand() % 253 - 126) + (rand() % 2 ? 0.5f : -0.5f);
        for (int i = 512; i < 768; i++)
            x[i] = 0;
        memset(got, 0xa5, sizeof got);
        t->from_float(x, got, 256 * BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
            q8_k_plain(x + 256 * b, &want);
            BOLT_CHECK_EACH(got[b].d == want.d, "Q8_K (%s) block %d: scale %.9g, %.9g specified", t->simd, b,
                            (double)got[b].d, (double)want.d);
            for (int j = 0; j < 256; j++)
                BOLT_CHECK_EACH(got[b].qs[j] == want.qs[j], "Q8_K (%s) block %d [%d]: %d, %d specified (x %.9g)", t->simd,
                                b, j, got[b].qs[j], want.qs[j], (double)x[256 * b + j]);
            for (int j = 0; j < 16; j++)
                BOLT_CHECK_EACH(got[b].bsums[j] == want.bsums[j], "Q8_K (%s) block %d: bsums[%d] %d, %d specified",
                                t->simd, b, j, got[b].bsums[j], want.bsums[j]);
        }
    }
}
END_TEST

START_TEST(matmul_equals_the_scalar_dot_products)
{
    const int nt = (int)(sizeof weight_types / sizeof weight_types[0]), threads = 1 + _i % 3;
    mm_case_t c[2];
    mm_case_init(&c[0], inf_type(weight_types[_i / 3]), 37);
    mm_case_init(&c[1], inf_type(weight_types[(_i / 3 + 2) % nt]), 21);
    inf_pool_t *pool;
    ck_assert_int_eq(inf_pool_create(threads, &pool), 0);
    float *x = malloc(sizeof(float) * MM_LDX * MM_MAXN);
    inf_mm_scratch_t *scratch = inf_mm_scratch_new(MM_COLS, MM_MAXN, threads);
    for (int i = 0; i < MM_LDX * MM_MAXN; i++)
        x[i] = randn();
    /* token 2: halves where the quantizers scale by 16 (each block of 32
     * led by 127/16), so a batch kernel's packing must round them as the
     * type's own quantizer does */
    for (int i = 0; i < MM_COLS; i++)
        x[2 * MM_LDX + i] = (i % 32 ? (float)(rand() % 201 - 100) + (rand() % 2 ? 0.5f : -0.5f) : 127.0f) / 16;
    for (int n = 1; n <= MM_MAXN; n++) {
        inf_mm_t m[2];
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < c[i].ldy * MM_MAXN; k++)
                c[i].y[k] = -12345;
            m[i] = (inf_mm_t){.w = c[i].w, .t = c[i].t, .row_bytes = inf_row_bytes(c[i].t, MM_COLS),
                              .rows = c[i].rows, .y = c[i].y, .ldy = c[i].ldy, .bias = n % 2 ? c[i].bias : NULL};
        }
        inf_matmul(pool, x, MM_LDX, n, MM_COLS, NULL, m, 2, scratch);
        for (int i = 0; i < 2; i++)
            mm_case_check(&c[i], x, n, n % 2);
    }
    /* a single token against tall matrices, as generation's are: every
     * thread's share long enough to walk in quarters (the last with rows
     * left over), threads done early taking over the rest of the others' */
    mm_case_t tall[2];
    mm_case_init(&tall[0], c[0].t, MM_TALL);
    mm_case_init(&tall[1], c[1].t, MM_TALL - 334);
    for (int rep = 0; rep < 20; rep++) {
        inf_mm_t m[2];
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < tall[i].ldy * MM_MAXN; k++)
                tall[i].y[k] = -12345;
            m[i] = (inf_mm_t){.w = tall[i].w, .t = tall[i].t, .row_bytes = inf_row_bytes(tall[i].t, MM_COLS),
                              .rows = tall[i].rows, .y = tall[i].y, .ldy = tall[i].ldy, .bias = rep % 2 ? tall[i].bias : NULL};
        }
        inf_matmul(pool, x + (size_t)(rep % MM_MAXN) * MM_LDX, MM_LDX, 1, MM_COLS, NULL, m, 2, scratch);
        for (int i = 0; i < 2; i++)
            mm_case_check(&tall[i], x + (size_t)(rep % MM_MAXN) * MM_LDX, 1, rep % 2);
    }
    inf_pool_destroy(pool);
    for (int i = 0; i < 2; i++) {
        free(c[i].w);
        free(c[i].y);
        free(tall[i].w);
        free(tall[i].y);
    }
    free(x);
    inf_mm_scratch_free(scratch);
}
END_TEST

/* A product given what to make of x (matmul.h's inf_mm_in_t) computes
 * exactly what the same product computes on the input made beforehand by
 * plain passes: RMSNorm of the residual stream x + add (stored into sum),
 * of x alone, and SwiGLU's silu(x) * up (the kernel swiglu_kernels_equal_the_reference checks); for single tokens (each thread
 * making its own copy), fewer tokens than threads and batches, on 1 to 3
 * threads. */
static void plain_input(const inf_mm_in_t *in, const float *x, int n, float *made, float *sum)
{
    for (int t = 0; t < n; t++) {
        const float *xt = x + (size_t)t * MM_LDX;
        float *y = made + (size_t)t * MM_LDX;
        if (in->kind == INF_MM_IN_SWIGLU) {
            inf_swiglu.run(y, xt, in->up + (size_t)t * MM_LDX, MM_COLS);
            continue;
        }
        double ss = 0;
        for (int i = 0; i < MM_COLS; i++) {
            const float h = in->add ? xt[i] + in->add[(size_t)t * MM_LDX + i] : xt[i];
            sum[(size_t)t * MM_LDX + i] = h;
            ss += (double)h * h;
        }
        const float s = 1.0f / sqrtf((float)(ss / MM_COLS) + in->eps);
        for (int i = 0; i < MM_COLS; i++)
            y[i] = sum[(size_t)t * MM_LDX + i] * s * in->w[i];
    }
}

START_TEST(matmul_makes_its_input_as_the_passes_it_replaces)
{
    const int threads = 1 + _i % 3;
    const size_t all = (size_t)MM_LDX * MM_MAXN;
    mm_case_t c[2];
    mm_case_init(&c[0], inf_type(weight_types[_i / 3]), 37);
    mm_case_init(&c[1], inf_type(GGML_Q6_K), 21);
    inf_pool_t *pool;
    ck_assert_int_eq(inf_pool_create(threads, &pool), 0);
    float *x = malloc(sizeof(float) * all), *add = malloc(sizeof(float) * all), *up = malloc(sizeof(float) * all);
    float *sum = malloc(sizeof(float) * all), *want_sum = malloc(sizeof(float) * all);
    float *made = malloc(sizeof(float) * all), *want[2], w[MM_COLS];
    inf_mm_scratch_t *scratch = inf_mm_scratch_new(MM_COLS, MM_MAXN, threads);
    for (size_t i = 0; i < all; i++) {
        x[i] = randn() * 3;
        add[i] = randn();
        up[i] = randn();
    }
    for (int i = 0; i < MM_COLS; i++)
        w[i] = 0.5f + randn() * 0.1f;
    for (int i = 0; i < 2; i++)
        want[i] = malloc(sizeof(float) * c[i].ldy * MM_MAXN);
    const int ns[] = {1, 2, 3, 5, MM_MAXN};
    const inf_mm_in_t ins[] = {{.kind = INF_MM_IN_NORM, .add = add, .sum = sum, .w = w, .eps = 1e-6f},
                               {.kind = INF_MM_IN_NORM, .w = w, .eps = 1e-5f},
                               {.kind = INF_MM_IN_SWIGLU, .up = up}};
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++)
        for (size_t v = 0; v < sizeof ns / sizeof ns[0]; v++) {
            const int n = ns[v];
            inf_mm_t m[2];
            for (int i = 0; i < 2; i++)
                m[i] = (inf_mm_t){.w = c[i].w, .t = c[i].t, .row_bytes = inf_row_bytes(c[i].t, MM_COLS),
                                  .rows = c[i].rows, .y = want[i], .ldy = c[i].ldy, .bias = c[i].bias};
            plain_input(&ins[k], x, n, made, want_sum);
            inf_matmul(pool, made, MM_LDX, n, MM_COLS, NULL, m, 2, scratch);
            for (int i = 0; i < 2; i++)
                m[i].y = c[i].y;
            for (size_t i = 0; i < all; i++)
                sum[i] = -12345;
            inf_matmul(pool, x, MM_LDX, n, MM_COLS, &ins[k], m, 2, scratch);
            for (int i = 0; i < 2; i++)
                for (int r = 0; r < c[i].ldy * n; r++)
                    if (r % c[i].ldy < c[i].rows)
                        BOLT_CHECK_EACH(c[i].y[r] == want[i][r],
                                        "%s (%s), %s, %d threads, n=%d: token %d row %d: %.9g, %.9g from the plain passes",
                                        c[i].t->name, c[i].t->simd, k == 2 ? "swiglu" : k ? "norm" : "norm of x + add",
                                        threads, n, r / c[i].ldy, r % c[i].ldy, (double)c[i].y[r], (double)want[i][r]);
            for (size_t i = 0; i < all; i++) {
                const int stored = ins[k].sum && i < (size_t)n * MM_LDX && i % MM_LDX < MM_COLS;
                BOLT_CHECK_EACH(sum[i] == (stored ? want_sum[i] : -12345), "n=%d, %d threads: the stream's [%zu] is %.9g",
                                n, threads, i, (double)sum[i]);
            }
        }
    inf_pool_destroy(pool);
    for (int i = 0; i < 2; i++) {
        free(c[i].w);
        free(c[i].y);
        free(want[i]);
    }
    free(x);
    free(add);
    free(up);
    free(sum);
    free(want_sum);
    free(made);
    inf_mm_scratch_free(scratch);
}
END_TEST

/* The SwiGLU kernels this CPU can run (AVX-512, AVX2, the portable one)
 * against the scalar reference (expf) on 1 to 40 values (partial registers)
 * and long rows, from -120 to 120 (exp(-x) past both ends of a float's
 * range), zeros and signed zeros: within 4 float ulps, or 1e-30 where the
 * result is about 0; a NaN in gives a NaN out, +-1e30 give 1e30 and 0. */
START_TEST(swiglu_kernels_equal_the_reference)
{
    const unsigned have = inf_cpu_mask();
    const unsigned caps[] = {INF_CPU_AVX512 | INF_CPU_AVX2, INF_CPU_AVX2, 0};
    enum { NMAX = 1100 };
    float x[NMAX], u[NMAX], got[NMAX + 1], want[NMAX];
    int tried = 0;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        if ((caps[c] & have) != caps[c])
            continue;
        inf_swiglu_select(caps[c]);
        tried++;
        for (int n = 1; n <= NMAX; n += n < 40 ? 1 : 353) {
            for (int i = 0; i < n; i++) {
                x[i] = i % 13 == 4 ? 40.0f * randn() : randn() * 3;
                u[i] = randn();
                if (i % 29 == 7)
                    x[i] = i % 2 ? -0.0f : 0.0f;
            }
            got[n] = 12345.0f; /* a partial register stores no further */
            inf_swiglu.run(got, x, u, n);
            inf_swiglu_scalar.run(want, x, u, n);
            for (int i = 0; i < n; i++)
                BOLT_CHECK_EACH(fabsf(got[i] - want[i]) <= 4 * FLT_EPSILON * fabsf(want[i]) + 1e-30f,
                                "swiglu %s, %d values: [%d] silu(%.9g) * %.9g = %.9g, reference %.9g", inf_swiglu.simd, n,
                                i, (double)x[i], (double)u[i], (double)got[i], (double)want[i]);
            BOLT_CHECK_EACH(got[n] == 12345.0f, "swiglu %s, %d values: wrote past the end", inf_swiglu.simd, n);
        }
        const float odd[] = {NAN, 1e30f, -1e30f};
        const float ones[] = {1, 1, 1};
        float out[3];
        inf_swiglu.run(out, odd, ones, 3);
        ck_assert_msg(isnan(out[0]), "swiglu %s: silu(NaN) is %.9g", inf_swiglu.simd, (double)out[0]);
        ck_assert_msg(out[1] == 1e30f, "swiglu %s: silu(1e30) is %.9g", inf_swiglu.simd, (double)out[1]);
        ck_assert_msg(out[2] == 0, "swiglu %s: silu(-1e30) is %.9g", inf_swiglu.simd, (double)out[2]);
    }
    ck_assert_int_ge(tried, 1);
    inf_swiglu_select(have);
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
    tcase_add_loop_test(tc, matmul_equals_the_scalar_dot_products, 0, 3 * nt);
    tcase_add_loop_test(tc, matmul_makes_its_input_as_the_passes_it_replaces, 0, 3 * nt);
    tcase_add_loop_test(tc, float_dots_read_any_alignment_and_no_further, 0, 3); /* F32, F16, BF16 */
    tcase_add_loop_test(tc, four_row_products_equal_four_dots, 0, nt);
    tcase_add_test(tc, activations_quantize_as_the_reference);
    tcase_add_test(tc, k_activations_quantize_as_specified);
    tcase_add_test(tc, swiglu_kernels_equal_the_reference);
    tcase_add_test(tc, half_conversions_are_exact);
    tcase_add_test(tc, unknown_types_are_refused);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
