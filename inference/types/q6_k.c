/*
 * q6_k.c — Q6_K: super-blocks of 256 six-bit values (0..63, less 32) in 16
 * sub-blocks of 16 with int8 scales under an F16 d. Each half of 128: the
 * low 4 bits of values l and l + 64 share ql[l] (l < 64), the top 2 bits of
 * values l, l + 32, l + 64, l + 96 share qh[l] (l < 32). Dot type Q8_K
 * (scalar; AVX2; NEON).
 */
#include <math.h>

#include "inference/types.h"
#include "inference/types/kq16.h"
#include "inference/types/kquant.h"
#include "inference/types/arm.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    uint8_t ql[128];
    uint8_t qh[64];
    int8_t scales[16];
    uint16_t d;
} block_t;

/* The 128 values (0..63) of half h of block x, in order. */
static void unpack_half(const block_t *x, int h, uint8_t q[128])
{
    const uint8_t *ql = x->ql + 64 * h, *qh = x->qh + 32 * h;
    for (int l = 0; l < 32; l++) {
        q[l] = (uint8_t)((ql[l] & 0xf) | ((qh[l] & 3) << 4));
        q[l + 32] = (uint8_t)((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4));
        q[l + 64] = (uint8_t)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
        q[l + 96] = (uint8_t)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
    }
}

static void q6_k_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 256; i++) {
        const float d = inf_f16_to_f32(x[i].d);
        for (int h = 0; h < 2; h++) {
            uint8_t q[128];
            unpack_half(&x[i], h, q);
            for (int l = 0; l < 128; l++)
                *y++ = d * x[i].scales[8 * h + l / 16] * (q[l] - 32);
        }
    }
}

static void q6_k_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 256; i++, x += 256) {
        float sc[16], smax = 0;
        for (int j = 0; j < 16; j++) {
            float amax = 0;
            for (int l = 0; l < 16; l++)
                amax = fmaxf(amax, fabsf(x[16 * j + l]));
            sc[j] = amax / 31;
            smax = fmaxf(smax, sc[j]);
        }
        y[i].d = inf_f32_to_f16(smax / 127);
        const float d = inf_f16_to_f32(y[i].d);
        uint8_t q[256];
        for (int j = 0; j < 16; j++) {
            int ls = d ? kq_round(sc[j] / d, -128, 127) : 0;
            y[i].scales[j] = (int8_t)ls;
            const float s = d * ls;
            for (int l = 0; l < 16; l++)
                q[16 * j + l] = (uint8_t)((s ? kq_round(x[16 * j + l] / s, -32, 31) : 0) + 32);
        }
        for (int h = 0; h < 2; h++) {
            uint8_t *ql = y[i].ql + 64 * h, *qh = y[i].qh + 32 * h;
            const uint8_t *v = q + 128 * h;
            for (int l = 0; l < 32; l++) {
                ql[l] = (uint8_t)((v[l] & 0xf) | ((v[l + 64] & 0xf) << 4));
                ql[l + 32] = (uint8_t)((v[l + 32] & 0xf) | ((v[l + 96] & 0xf) << 4));
                qh[l] = (uint8_t)((v[l] >> 4) | ((v[l + 32] >> 4) << 2) | ((v[l + 64] >> 4) << 4) | ((v[l + 96] >> 4) << 6));
            }
        }
    }
}

/* sum (q - 32) y = sum q y - 32 sum y, and the sums of y come with Q8_K */
static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        int isum = 0;
        for (int h = 0; h < 2; h++) {
            uint8_t q[128];
            unpack_half(&x[i], h, q);
            const int8_t *q8 = y[i].qs + 128 * h;
            for (int g = 0; g < 8; g++) {
                int a = 0;
                for (int l = 0; l < 16; l++)
                    a += q[16 * g + l] * q8[16 * g + l];
                isum += x[i].scales[8 * h + g] * (a - 32 * y[i].bsums[8 * h + g]);
            }
        }
        sum += y[i].d * inf_f16_to_f32(x[i].d) * (float)isum;
    }
    *s = sum;
}

#if defined(__x86_64__)
/* unpack_half's 128 values as four registers of 32, from the half's two
 * registers of low bits and one of high bits. */
__attribute__((target("avx2"))) static inline void unpack_half_avx2(__m256i l0, __m256i l1, __m256i hh, __m256i v[4])
{
    const __m256i low = _mm256_set1_epi8(0xf), three = _mm256_set1_epi8(3);
    v[0] = _mm256_or_si256(_mm256_and_si256(l0, low), _mm256_slli_epi16(_mm256_and_si256(hh, three), 4));
    v[1] = _mm256_or_si256(_mm256_and_si256(l1, low),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hh, 2), three), 4));
    v[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), low),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hh, 4), three), 4));
    v[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), low),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hh, 6), three), 4));
}

__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        __m256i isum = _mm256_setzero_si256();
        int off = 0;
        for (int g = 0; g < 16; g++)
            off += x[i].scales[g] * y[i].bsums[g];
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = x[i].ql + 64 * h, *qh = x[i].qh + 32 * h;
            const int8_t *q8 = y[i].qs + 128 * h;
            const int8_t *sc = x[i].scales + 8 * h;
            __m256i l0 = _mm256_loadu_si256((const __m256i *)ql), l1 = _mm256_loadu_si256((const __m256i *)(ql + 32));
            __m256i hh = _mm256_loadu_si256((const __m256i *)qh);
            __m256i v[4];
            unpack_half_avx2(l0, l1, hh, v);
            for (int k = 0; k < 4; k++) {
                /* 32 values = sub-blocks 2k and 2k + 1 of this half */
                __m256i p = _mm256_maddubs_epi16(v[k], _mm256_loadu_si256((const __m256i *)(q8 + 32 * k)));
                __m256i scl = _mm256_set_m128i(_mm_set1_epi16(sc[2 * k + 1]), _mm_set1_epi16(sc[2 * k]));
                isum = _mm256_add_epi32(isum, _mm256_madd_epi16(p, scl));
            }
        }
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(isum), _mm256_extracti128_si256(isum, 1));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
        int total = _mm_cvtsi128_si32(t) - 32 * off;
        sum += y[i].d * _cvtsh_ss(x[i].d) * (float)total;
    }
    *s = sum;
}

/* Generation (AVX-512 VNNI): a half's 128 values in two registers, straight
 * from 64 bytes of low bits (low nibbles: values 0-63; high: 64-127) and its
 * 32 bytes of high bits copied to both halves of a register, each half
 * shifted by its own count so that the two bits it wants land at bits 4-5.
 * Half the instructions of unpacking to 32-byte registers and joining them.
 * dpbusd sums the products 4 at a time; two registers' sums packed to int16
 * meet their scales in one dpwssd (fewer vector ops than maddubs and a scale
 * permute per register); the offset's scales against the sums of 16 in
 * one madd. */
/* One block's products (Q8_K activations) added to acc. */
INF_T_AVX512VNNI static inline __m512 block_avx512vnni(const block_t *x, const inf_block_q8_k *y, __m512 acc)
{
    /* dpbusd sums each 4 products of a 16-value sub-block (at most
     * 4 * 63 * 128, an int16); packs leaves each 128-bit lane k as A A B B
     * (dword pairs of sub-blocks 8h + k and 8h + 4 + k), to meet their
     * scales in one dpwssd (D: each scale in both halves of a dword) */
    const __m512i idx0 = _mm512_set_epi32(7, 7, 3, 3, 6, 6, 2, 2, 5, 5, 1, 1, 4, 4, 0, 0);
    const __m512i idx1 = _mm512_add_epi32(idx0, _mm512_set1_epi32(8));
    /* the top bits' shifts: left 4 and 2 for values 0-31 and 32-63 (bits
     * 0-1 and 2-3), right 0 and 2 for 64-95 and 96-127 (bits 4-5, 6-7) */
    const __m512i shl = _mm512_set_epi16(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                         4, 4, 4, 4, 4, 4);
    const __m512i shr = _mm512_set_epi16(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0);
    const __m512i m0f = _mm512_set1_epi8(0x0f), m30 = _mm512_set1_epi8(0x30);
    const __m128i sc = _mm_loadu_si128((const __m128i *)x->scales);
    const __m256i sc16 = _mm256_cvtepi8_epi16(sc);
    const __m256i o = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *)y->bsums));
    const __m512i D = _mm512_cvtepi8_epi16(_mm256_set_m128i(_mm_unpackhi_epi8(sc, sc), _mm_unpacklo_epi8(sc, sc)));
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m512i l = _mm512_loadu_si512((const void *)(x->ql + 64 * h));
        const __m512i hb = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x->qh + 32 * h)));
        /* ternary logic 0xf8: a | (b & c) */
        const __m512i v0 =
            _mm512_ternarylogic_epi32(_mm512_and_si512(l, m0f), _mm512_sllv_epi16(hb, shl), m30, 0xf8);
        const __m512i v1 = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(l, 4), m0f),
                                                     _mm512_srlv_epi16(hb, shr), m30, 0xf8);
        const __m512i A =
            _mm512_dpbusd_epi32(_mm512_setzero_si512(), v0, _mm512_loadu_si512((const void *)(y->qs + 128 * h)));
        const __m512i B = _mm512_dpbusd_epi32(_mm512_setzero_si512(), v1,
                                              _mm512_loadu_si512((const void *)(y->qs + 128 * h + 64)));
        isum = _mm512_dpwssd_epi32(isum, _mm512_packs_epi32(A, B), _mm512_permutexvar_epi32(h ? idx1 : idx0, D));
    }
    /* the -32 offset against the scaled sums, in lanes: the sums stay in
     * registers until the end */
    isum = _mm512_sub_epi32(isum, _mm512_slli_epi32(_mm512_zextsi256_si512(o), 5));
    return _mm512_fmadd_ps(_mm512_set1_ps(y->d * _cvtsh_ss(x->d)), _mm512_cvtepi32_ps(isum), acc);
}

INF_T_AVX512VNNI static void dot_avx512vnni(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    __m512 acc = _mm512_setzero_ps();
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        acc = block_avx512vnni(&x[i], &y[i], acc);
    }
    *s = _mm512_reduce_add_ps(acc);
}

/* Four rows stride bytes apart, a block of each in turn (types.h). */
INF_T_AVX512VNNI static void dot4_avx512vnni(int n, float s[4], const void *vx, size_t stride, const void *vy)
{
    const inf_block_q8_k *y = vy;
    const block_t *x0 = vx, *x1 = (const block_t *)((const uint8_t *)vx + stride),
                  *x2 = (const block_t *)((const uint8_t *)vx + 2 * stride),
                  *x3 = (const block_t *)((const uint8_t *)vx + 3 * stride);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int i = 0; i < n / 256; i++) {
        a0 = block_avx512vnni(&x0[i], &y[i], a0);
        a1 = block_avx512vnni(&x1[i], &y[i], a1);
        a2 = block_avx512vnni(&x2[i], &y[i], a2);
        a3 = block_avx512vnni(&x3[i], &y[i], a3);
    }
    inf_hsum16x4(a0, a1, a2, a3, s);
}

/* Batches (AVX-512 VNNI): kq16.h's kernel; a row's 6-bit values unpacked
 * to bytes less 32 (-32..31), sub-blocks of 16. */
INF_T_AVX512VNNI static void gemm_unpack(const uint8_t *w, size_t row_bytes, int rm, int kn, kq16_rows_t *R)
{
    const __m256i k32 = _mm256_set1_epi8(32);
    for (int i = 0; i < rm; i++)
        for (int b = 0; b < kn; b++) {
            const block_t *wb = (const block_t *)(w + (size_t)i * row_bytes) + b;
            const float d = _cvtsh_ss(wb->d);
            for (int h = 0; h < 2; h++) {
                __m256i v[4];
                unpack_half_avx2(_mm256_loadu_si256((const __m256i *)(wb->ql + 64 * h)),
                                 _mm256_loadu_si256((const __m256i *)(wb->ql + 64 * h + 32)),
                                 _mm256_loadu_si256((const __m256i *)(wb->qh + 32 * h)), v);
                for (int k = 0; k < 4; k++) {
                    const int at = 128 * h + 32 * k, e = at / 16; /* first value, its 16-value sub-block */
                    int lo, hi;
                    _mm256_storeu_si256((__m256i *)(R->w[i] + b * 256 + at), _mm256_sub_epi8(v[k], k32));
                    inf_sums16_u8(v[k], &lo, &hi);
                    R->corr[i][b * 16 + e] = -128 * (lo - 16 * 32);
                    R->corr[i][b * 16 + e + 1] = -128 * (hi - 16 * 32);
                    R->scale[i][b * 16 + e] = d * wb->scales[e];
                    R->scale[i][b * 16 + e + 1] = d * wb->scales[e + 1];
                }
            }
        }
}

INF_T_AVX512VNNI static void gemm_run_avx512vnni(int cols, const void *w, size_t row_bytes, int nr, const void *xp,
                                                 int ldx, int nt, float *y, int ldy)
{
    (void)ldx;
    kq16_run(cols, w, row_bytes, sizeof(block_t), nr, xp, nt, y, ldy, gemm_unpack, 16, 0);
}

static const inf_gemm_t gemm_avx512vnni = {
    .group = KQ16_TOKENS, .group_bytes = kq16_group_bytes, .pack = kq16_pack, .run = gemm_run_avx512vnni};
#elif defined(__aarch64__)
/* 16 values (0..63) times 16 activations, summed. */
static inline int32_t dot16_neon(uint8x16_t q, const int8_t *y)
{
    return vaddvq_s32(inf_neon_dot16(vdupq_n_s32(0), vreinterpretq_s8_u8(q), vld1q_s8(y)));
}

/* unpack_half in registers of 16: the half's lanes l and l + 32 of ql and
 * lane l of qh make values l, l + 32, l + 64 and l + 96 (groups k, k + 2,
 * k + 4 and k + 6 of 16, for l in 16k .. 16k + 15). */
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    const uint8x16_t low = vdupq_n_u8(0xf), three = vdupq_n_u8(3);
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        int isum = 0;
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = x[i].ql + 64 * h, *qh = x[i].qh + 32 * h;
            const int8_t *q8 = y[i].qs + 128 * h, *sc = x[i].scales + 8 * h;
            const int16_t *bs = y[i].bsums + 8 * h;
            for (int k = 0; k < 2; k++) {
                const uint8x16_t l0 = vld1q_u8(ql + 16 * k), l1 = vld1q_u8(ql + 32 + 16 * k), hh = vld1q_u8(qh + 16 * k);
                const uint8x16_t v0 = vorrq_u8(vandq_u8(l0, low), vshlq_n_u8(vandq_u8(hh, three), 4));
                const uint8x16_t v1 = vorrq_u8(vandq_u8(l1, low), vshlq_n_u8(vandq_u8(vshrq_n_u8(hh, 2), three), 4));
                const uint8x16_t v2 = vorrq_u8(vshrq_n_u8(l0, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hh, 4), three), 4));
                const uint8x16_t v3 = vorrq_u8(vshrq_n_u8(l1, 4), vshlq_n_u8(vshrq_n_u8(hh, 6), 4));
                isum += sc[k] * (dot16_neon(v0, q8 + 16 * k) - 32 * bs[k]);
                isum += sc[k + 2] * (dot16_neon(v1, q8 + 32 + 16 * k) - 32 * bs[k + 2]);
                isum += sc[k + 4] * (dot16_neon(v2, q8 + 64 + 16 * k) - 32 * bs[k + 4]);
                isum += sc[k + 6] * (dot16_neon(v3, q8 + 96 + 16 * k) - 32 * bs[k + 6]);
            }
        }
        sum += y[i].d * inf_f16_to_f32(x[i].d) * (float)isum;
    }
    *s = sum;
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx512vnni, &gemm_avx512vnni,
     dot4_avx512vnni, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

inf_type_t inf_type_q6_k = {.id = GGML_Q6_K, .name = "Q6_K", .block = 256, .bytes = 210, .dot_type = GGML_Q8_K,
                            .to_float = q6_k_to_float, .from_float = q6_k_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
