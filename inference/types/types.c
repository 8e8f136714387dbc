/*
 * types.c — the registry of tensor types, the CPU's features, and the half
 * and bfloat16 conversions every type shares.
 */
#include <stdlib.h>
#include <string.h>

#include "inference/types.h"

/* Branch-free, by exponent rebiasing in float arithmetic (the FP16
 * library's method): a normal half's bits moved into a float's and scaled
 * by 2^-112 gives its value; a subnormal is read as a float in [0.5, 1)
 * less 0.5. */
float inf_f16_to_f32(uint16_t h)
{
    const uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, two_w = w + w;
    uint32_t nb = (two_w >> 4) + (0xe0u << 23), db = (two_w >> 17) | (126u << 23);
    float norm, den;
    memcpy(&norm, &nb, 4);
    memcpy(&den, &db, 4);
    norm *= 0x1.0p-112f;
    den -= 0.5f;
    uint32_t r;
    if (two_w < (1u << 27))
        memcpy(&r, &den, 4);
    else
        memcpy(&r, &norm, 4);
    r |= sign;
    float f;
    memcpy(&f, &r, 4);
    return f;
}

uint16_t inf_f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, man = u & 0x7fffff;
    if (exp == 0xff) /* inf, nan (keep it a nan) */
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* subnormal or zero */
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent, up to inf: right */
    return (uint16_t)(sign | half);
}

uint16_t inf_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 64); /* a quiet nan */
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static inf_cpu_t cpu;
static int cpu_read;
int inf_prefetch_weights = 1;

const inf_cpu_t *inf_cpu(void)
{
    if (cpu_read)
        return &cpu;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    cpu.avx2 = __builtin_cpu_supports("avx2");
    cpu.fma = __builtin_cpu_supports("fma");
    cpu.f16c = cpu.avx2; /* every AVX2 CPU has F16C */
    cpu.avx512f = __builtin_cpu_supports("avx512f");
    cpu.avx512bw = __builtin_cpu_supports("avx512bw");
    cpu.avx512vl = __builtin_cpu_supports("avx512vl");
    cpu.avx512vnni = __builtin_cpu_supports("avx512vnni");
    cpu.avxvnni = __builtin_cpu_supports("avxvnni");
    inf_prefetch_weights = !__builtin_cpu_is("amd");
#elif defined(__aarch64__)
    cpu.neon = 1;
#if defined(__ARM_FEATURE_DOTPROD)
    cpu.dotprod = 1;
#endif
#endif
    /* INF_SIMD=scalar|avx2|avx-vnni|avx512 caps what is used (tests,
     * comparisons); avx-vnni: AVX2 with the 256-bit VNNI, no AVX-512 */
    const char *pf = getenv("INF_PREFETCH");
    if (pf && (!strcmp(pf, "0") || !strcmp(pf, "1")))
        inf_prefetch_weights = pf[0] == '1';
    const char *cap = getenv("INF_SIMD");
    if (cap && !strcmp(cap, "scalar"))
        memset(&cpu, 0, sizeof cpu);
    else if (cap && !strcmp(cap, "avx2"))
        cpu.avx512f = cpu.avx512bw = cpu.avx512vl = cpu.avx512vnni = cpu.avxvnni = 0;
    else if (cap && !strcmp(cap, "avx-vnni"))
        cpu.avx512f = cpu.avx512bw = cpu.avx512vl = cpu.avx512vnni = 0;
    cpu_read = 1;
    return &cpu;
}

unsigned inf_cpu_mask(void)
{
    const inf_cpu_t *c = inf_cpu();
    return (c->avx2 && c->fma && c->f16c ? INF_CPU_AVX2 : 0) | (c->avx512f ? INF_CPU_AVX512 : 0) |
           (c->avxvnni ? INF_CPU_AVXVNNI : 0) | (c->avx512vnni && c->avx512vl && c->avx512bw ? INF_CPU_AVX512VNNI : 0) |
           (c->neon ? INF_CPU_NEON : 0);
}

static inf_type_t *const all[] = {&inf_type_f32, &inf_type_f16,  &inf_type_bf16, &inf_type_q8_0, &inf_type_q4_0,
                                  &inf_type_q4_k, &inf_type_q5_k, &inf_type_q6_k, &inf_type_q8_k,
                                  &inf_type_q8_kn, &inf_type_q8_0p};
static int scalar_only;

void inf_types_force_scalar(int on)
{
    scalar_only = on;
}

const inf_type_t *inf_type(uint32_t id)
{
    static int selected;
    if (!selected) {
        const unsigned have = inf_cpu_mask();
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            for (const inf_kernel_t *k = all[i]->kernels; k && k->name; k++)
                if ((k->needs & ~have) == 0) {
                    if (k->dot)
                        all[i]->vec_dot = k->dot;
                    if (k->quantize)
                        all[i]->from_float = k->quantize;
                    all[i]->gemm = k->gemm;
                    all[i]->vec_dot4 = k->dot4;
                    all[i]->simd = k->name;
                    break;
                }
            if (all[i]->select)
                all[i]->select(all[i], have);
        }
        inf_softmax_select(have);
        inf_swiglu_select(have);
        selected = 1;
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]->id == id) {
            if (scalar_only && all[i]->vec_dot != all[i]->vec_dot_scalar) {
                static inf_type_t copy[sizeof all / sizeof all[0]];
                copy[i] = *all[i];
                copy[i].vec_dot = copy[i].vec_dot_scalar;
                copy[i].gemm = NULL;
                copy[i].vec_dot4 = NULL;
                copy[i].simd = "scalar";
                return &copy[i];
            }
            return all[i];
        }
    return NULL;
}
