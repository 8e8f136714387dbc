/*
 * q5_k.c — Q5_K: Q4_K's layout (8 sub-blocks of 32 under 6-bit scales and
 * mins) with a fifth bit per value: for the group of 64 number c, bit 2c of
 * qh[l] tops value l of its first sub-block, bit 2c + 1 value l of its
 * second. Dot type Q8_K (scalar; AVX2; NEON).
 */
#include "inference/types.h"
#include "inference/types/x86.h"
#include "inference/types/kq16.h"
#include "inference/types/kquant.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    uint16_t d, dmin;
    uint8_t scales[12];
    uint8_t qh[32];
    uint8_t qs[128];
} block_t;

static void q5_k_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 256; i++) {
        const float d = inf_f16_to_f32(x[i].d), dmin = inf_f16_to_f32(x[i].dmin);
        const uint8_t *q = x[i].qs, *qh = x[i].qh;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            for (int l = 0; l < 32; l++)
                *y++ = d * s0 * ((q[l] & 0xf) + ((qh[l] >> (2 * c)) & 1) * 16) - dmin * m0;
            for (int l = 0; l < 32; l++)
                *y++ = d * s1 * ((q[l] >> 4) + ((qh[l] >> (2 * c + 1)) & 1) * 16) - dmin * m1;
        }
    }
}

static void q5_k_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 256; i++, x += 256) {
        uint8_t q[256];
        kq_quantize(x, 31, &y[i].d, &y[i].dmin, y[i].scales, q);
        for (int l = 0; l < 32; l++)
            y[i].qh[l] = 0;
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < 32; l++) {
                uint8_t a = q[64 * c + l], b = q[64 * c + 32 + l];
                y[i].qs[32 * c + l] = (uint8_t)((a & 0xf) | ((b & 0xf) << 4));
                y[i].qh[l] |= (uint8_t)(((a >> 4) << (2 * c)) | ((b >> 4) << (2 * c + 1)));
            }
    }
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        const uint8_t *q = x[i].qs, *qh = x[i].qh;
        const int8_t *q8 = y[i].qs;
        int isum = 0, msum = 0;
        for (int c = 0; c < 4; c++, q += 32, q8 += 64) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            int a = 0, b = 0;
            for (int l = 0; l < 32; l++) {
                a += ((q[l] & 0xf) + ((qh[l] >> (2 * c)) & 1) * 16) * q8[l];
                b += ((q[l] >> 4) + ((qh[l] >> (2 * c + 1)) & 1) * 16) * q8[l + 32];
            }
            isum += a * s0 + b * s1;
            msum += m0 * (y[i].bsums[4 * c] + y[i].bsums[4 * c + 1]) + m1 * (y[i].bsums[4 * c + 2] + y[i].bsums[4 * c + 3]);
        }
        sum += y[i].d * (inf_f16_to_f32(x[i].d) * (float)isum - inf_f16_to_f32(x[i].dmin) * (float)msum);
    }
    *s = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    const __m256i low = _mm256_set1_epi8(0xf), sixteen = _mm256_set1_epi8(16);
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch(x + i, (int)sizeof(block_t));
        uint8_t sc[8], mn[8];
        kq_scales_mins(x[i].scales, sc, mn);
        int msum = 0;
        for (int j = 0; j < 8; j++)
            msum += mn[j] * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]);
        const uint8_t *q = x[i].qs;
        const int8_t *q8 = y[i].qs;
        const __m256i hb = _mm256_loadu_si256((const __m256i *)x[i].qh);
        __m256i isum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++, q += 32, q8 += 64) {
            __m256i b = _mm256_loadu_si256((const __m256i *)q);
            /* bit 2c (2c + 1) of each qh byte to 16 */
            __m256i m0 = _mm256_set1_epi8((char)(1 << (2 * c))), m1 = _mm256_set1_epi8((char)(2 << (2 * c)));
            __m256i h0 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, m0), m0), sixteen);
            __m256i h1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, m1), m1), sixteen);
            __m256i lo = _mm256_or_si256(_mm256_and_si256(b, low), h0);
            __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b, 4), low), h1);
            __m256i p0 = _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)q8));
            __m256i p1 = _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(q8 + 32)));
            p0 = _mm256_madd_epi16(p0, _mm256_set1_epi16(sc[2 * c]));
            p1 = _mm256_madd_epi16(p1, _mm256_set1_epi16(sc[2 * c + 1]));
            isum = _mm256_add_epi32(isum, _mm256_add_epi32(p0, p1));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * _cvtsh_ss(x[i].d)), _mm256_cvtepi32_ps(isum), acc);
        mins += y[i].d * _cvtsh_ss(x[i].dmin) * (float)msum;
    }
    *s = inf_hsum8(acc) - mins;
}
#endif

#if defined(__x86_64__)
/* Batches (AVX-512 VNNI): kq16.h's kernel, as Q4_K's; a row's 5-bit values
 * (the nibble and its bit of qh) unpacked to bytes 0..31, mins against the
 * tokens' sums. */
INF_T_AVX512VNNI static void gemm_unpack(const uint8_t *w, size_t row_bytes, int rm, int kn, kq16_rows_t *R)
{
    for (int i = 0; i < rm; i++)
        for (int b = 0; b < kn; b++) {
            const block_t *wb = (const block_t *)(w + (size_t)i * row_bytes) + b;
            kq16_put_nibbles(R, i, b, wb->d, wb->dmin, wb->scales, wb->qs, wb->qh);
        }
}

INF_T_AVX512VNNI static void gemm_run_avx512vnni(int cols, const void *w, size_t row_bytes, int nr, const void *xp,
                                                 int ldx, int nt, float *y, int ldy)
{
    (void)ldx;
    kq16_run(cols, w, row_bytes, sizeof(block_t), nr, xp, nt, y, ldy, gemm_unpack, 32, 1);
}

static const inf_gemm_t gemm_avx512vnni = {
    .group = KQ16_TOKENS, .group_bytes = kq16_group_bytes, .pack = kq16_pack, .run = gemm_run_avx512vnni};
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    /* generation keeps the AVX2 dot product; prompts take the batch kernel */
    {"avx2, avx512-vnni batch", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx2, &gemm_avx512vnni},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL},
#endif
    {NULL, 0, NULL, NULL}};

inf_type_t inf_type_q5_k = {.id = GGML_Q5_K, .name = "Q5_K", .block = 256, .bytes = 176, .dot_type = GGML_Q8_K,
                            .to_float = q5_k_to_float, .from_float = q5_k_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
