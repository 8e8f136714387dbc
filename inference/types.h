/*
 * types.h — the tensor types the engine computes with: each type's block
 * layout and kernels (types/<type>.c, one file a type, each with its scalar
 * kernels and the SIMD ones of the CPUs it has them for).
 *
 * Weights stay in their type. A matrix product quantizes the activations
 * once into the weight type's dot type (Q8_0 for Q8_0 and Q4_0, Q8_K for
 * Q5_K and Q6_K, Q8_K in Q4_K's nibble order for Q4_K, Q8_0 in pairs for
 * Q8_0, F32 for the float types) and takes dot products of a
 * weight row with an activation row, integer arithmetic inside blocks.
 */
#ifndef INF_TYPES_H
#define INF_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inference/gguf.h"

/* Half and bfloat16 conversions, exact (round to nearest even). */
float inf_f16_to_f32(uint16_t h);
uint16_t inf_f32_to_f16(float f);
static inline float inf_bf16_to_f32(uint16_t h)
{
    union {
        uint32_t u;
        float f;
    } v = {.u = (uint32_t)h << 16};
    return v.f;
}
uint16_t inf_f32_to_bf16(float f);

/* Dot product of n elements: x in the weight type, y in its dot type. */
typedef void inf_vec_dot_fn(int n, float *s, const void *x, const void *y);
/* Four dot products of rows x, x + stride, x + 2 stride and x + 3 stride
 * (bytes) with the same y, walked a block of each at a time: rows far apart
 * are four sequential streams, which one core's prefetchers keep further
 * ahead of than one (bench/README, twelfth session). */
typedef void inf_vec_dot4_fn(int n, float s[4], const void *x, size_t stride, const void *y);
struct inf_cpu;

/* What a kernel needs of the CPU (a mask of these). */
enum {
    INF_CPU_AVX2 = 1 << 0,       /* with FMA and F16C */
    INF_CPU_AVX512 = 1 << 1,     /* F */
    INF_CPU_AVXVNNI = 1 << 2,
    INF_CPU_AVX512VNNI = 1 << 3, /* with VL and BW */
    INF_CPU_NEON = 1 << 4,
};

/* Products for a batch of tokens (prompts), where a kernel has them: the
 * activations packed `group` tokens at a time in a layout of the kernel's
 * own, then tiles of a few weight rows against a group held in registers,
 * so that each load feeds several multiply-adds. */
typedef struct inf_gemm {
    int group;                       /* tokens a packed group */
    size_t (*group_bytes)(int cols); /* bytes of one packed group (a multiple of 64) */
    /* packs nt <= group tokens (rows of x, ld ldx) into one group, zeros
     * after; NULL: the kernel reads x as it is */
    void (*pack)(const float *x, int ldx, int nt, int cols, void *dst);
    /* y[t * ldy + r] = row r of w . token t, for r < nr and t < nt; xp holds
     * the nt tokens' groups one after another (64-byte aligned), or is x
     * itself (rows of ldx floats) for a kernel that does not pack */
    void (*run)(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt, float *y,
                int ldy);
    int whole; /* 1: run takes a thread's whole share at once (it blocks for the caches itself) */
} inf_gemm_t;
/* F32 batches through the BLAS's SGEMM (types/f32_sgemm.c), where built with one. */
extern const inf_gemm_t inf_gemm_sgemm;
/* F16 and BF16 weights' batches through SGEMM: rows widened to F32 a block
 * at a time. */
extern const inf_gemm_t inf_gemm_sgemm_f16, inf_gemm_sgemm_bf16;
/* Tells the BLAS to run each call on the calling thread alone (the engine's
 * pool splits the work), once. */
void inf_sgemm_one_thread(void);

/* A type's SIMD kernels, best first, ended by a NULL name: the registry
 * takes the first whose needs the CPU meets, else the scalar ones. */
typedef struct inf_kernel {
    const char *name;
    unsigned needs;
    inf_vec_dot_fn *dot;    /* NULL for an activation type */
    const inf_gemm_t *gemm; /* or NULL: batches take dot products one by one */
    inf_vec_dot4_fn *dot4;  /* or NULL: a single token's rows go one at a time */
    /* an activation type's quantizer for this CPU (no dot product of its
     * own), to the same bytes as its reference from_float; or NULL */
    void (*quantize)(const float *x, void *y, int64_t n);
} inf_kernel_t;

/* Q8_K with its 32-value sub-blocks in the order 0 2 1 3 4 6 5 7 and sums
 * of 32, not 16 (bsums[j]: sub-block j's, natural order): Q4_K's 64 bytes of nibbles hold sub-blocks
 * 0 and 2 in their low halves and 1 and 3 in their high ones, so a kernel
 * that takes 64 bytes at once finds the activations it needs side by side.
 * An engine-only number, no ggml type: never a tensor's. */
enum { INF_Q8_KN = 0x10000 | GGML_Q8_K };
/* Where sub-block j of 32 sits in a Q8_KN block (in units of 32 bytes). */
static inline int inf_q8_kn_at(int j)
{
    return (j & 4) | ((j & 1) << 1) | ((j >> 1) & 1); /* bits 0 and 1 swapped */
}

/* Q8_0P, Q8_0's activation type: Q8_0's blocks (the same values and
 * F16-rounded scales) two at a time, the pair's 64 values stored plus 128
 * (unsigned bytes: the side of dpbusd that takes them) followed by the two
 * scales as floats; a row's odd last block alone, its 32 bytes then its
 * scale. 36 bytes a block, as one register of 64 bytes and one 8-byte load
 * for the scales of two. An engine-only number. */
enum { INF_Q8_0P = 0x10000 | GGML_Q8_0 };
/* Where block b's 32 values (each + 128) and its scale are, in a row of nb
 * blocks. */
static inline size_t inf_q8_0p_q_at(int b)
{
    return 36 * (size_t)(b & ~1) + 32 * (size_t)(b & 1);
}
static inline size_t inf_q8_0p_d_at(int b, int nb)
{
    return 36 * (size_t)(b & ~1) + ((b | 1) < nb ? 64 + 4 * (size_t)(b & 1) : 32);
}
static inline float inf_q8_0p_d(const void *y, int b, int nb)
{
    float d;
    memcpy(&d, (const uint8_t *)y + inf_q8_0p_d_at(b, nb), sizeof d);
    return d;
}

typedef struct inf_type {
    uint32_t id;           /* ggml's type number (INF_Q8_KN: the engine's own) */
    const char *name;
    int block;             /* elements a block */
    size_t bytes;          /* bytes a block */
    uint32_t dot_type;     /* the activations' type for vec_dot */
    void (*to_float)(const void *x, float *y, int64_t n);
    void (*from_float)(const float *x, void *y, int64_t n); /* quantize (reference) */
    inf_vec_dot_fn *vec_dot;        /* the best this CPU has */
    inf_vec_dot_fn *vec_dot_scalar; /* the portable one, tested against it */
    const char *simd;               /* which vec_dot is in use: "scalar", "avx2", ... */
    const inf_kernel_t *kernels;    /* the SIMD ones, best first */
    const inf_gemm_t *gemm;         /* the chosen kernel's batch products, or NULL */
    inf_vec_dot4_fn *vec_dot4;      /* the chosen kernel's four-row products, or NULL */
    /* for what more a type picks by CPU (F16's conversions), or NULL */
    void (*select)(struct inf_type *self, unsigned have);
    int activations_only; /* Q8_K, Q8_KN, Q8_0P: no weights come in it */
} inf_type_t;

/* The type, or NULL when the engine cannot compute with it. */
const inf_type_t *inf_type(uint32_t id);
/* Bytes of a row of n elements (n a multiple of the block). */
static inline size_t inf_row_bytes(const inf_type_t *t, int64_t n)
{
    return (size_t)(n / t->block) * t->bytes;
}
/* F16 keys against F32 queries (the attention): the best kernel this CPU has. */
void inf_dot_f16_f32(int n, float *s, const void *x, const float *y);
/* y += a x for F16 x (the attention's values); x rounded to F16 in place. */
void inf_f16_axpy(int n, float a, const void *x, float *y);
void inf_round_to_f16(float *x, int n);
/* A generated token's attention against one key/value head of an F16 cache
 * (types/f16_attn.c): its np rows (position p's D halves at k + p * D)
 * against the nq query heads sharing it (D floats apart in q, already
 * rounded to F16). scores: s[g * lds + p] = scale * (key p . query g).
 * mix: o[g * ldo + d] = sum over p of s[g * lds + p] * value p [d]. */
typedef struct inf_f16_attn {
    const char *simd;
    void (*scores)(int np, int D, const uint16_t *k, const float *q, int nq, float scale, float *s, int lds);
    void (*mix)(int np, int D, const uint16_t *v, const float *s, int lds, int nq, float *o, int ldo);
} inf_f16_attn_t;
extern inf_f16_attn_t inf_f16_attn;            /* the best this CPU has (set with the types) */
extern const inf_f16_attn_t inf_f16_attn_scalar; /* the portable one, for the tests */
void inf_f16_attn_select(unsigned have);
/* The attention's softmax of a row of n scores in place, each result rounded
 * to F16 when f16 (types/softmax.c): the best this CPU has, and the portable
 * one the tests hold it to. */
typedef struct inf_softmax {
    const char *simd;
    void (*run)(float *s, int n, int f16);
} inf_softmax_t;
extern inf_softmax_t inf_softmax;
extern const inf_softmax_t inf_softmax_scalar;
void inf_softmax_select(unsigned have);
/* The MLP's gate, y[i] = silu(x[i]) * u[i] (types/swiglu.c): the best this
 * CPU has, and the portable one (expf) the tests hold it to. */
typedef struct inf_swiglu {
    const char *simd;
    void (*run)(float *y, const float *x, const float *u, int n);
} inf_swiglu_t;
extern inf_swiglu_t inf_swiglu;
extern const inf_swiglu_t inf_swiglu_scalar;
void inf_swiglu_select(unsigned have);
/* Forces the scalar kernels everywhere (tests, INF_SIMD=scalar). */
void inf_types_force_scalar(int on);

/* Each type's table (types/<type>.c). */
extern inf_type_t inf_type_f32, inf_type_f16, inf_type_bf16, inf_type_q8_0, inf_type_q4_0, inf_type_q4_k,
    inf_type_q5_k, inf_type_q6_k, inf_type_q8_k, inf_type_q8_kn, inf_type_q8_0p;

/* The K-quants' activation block: 256 values, their scale, and the sums of
 * each 16 (which the mins of Q4_K/Q5_K need). */
typedef struct {
    float d;
    int8_t qs[256];
    int16_t bsums[16];
} inf_block_q8_k;

typedef struct {
    uint16_t d;
    int8_t qs[32];
} inf_block_q8_0;

/* CPU features, read once. */
typedef struct inf_cpu {
    int avx2, fma, f16c, avx512f, avx512bw, avx512vl, avx512vnni, avxvnni;
    int neon, dotprod;
} inf_cpu_t;
const inf_cpu_t *inf_cpu(void);
/* The same as a mask of INF_CPU_*. */
unsigned inf_cpu_mask(void);

#endif
