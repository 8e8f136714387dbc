/*
 * reduce_kernels.c — inout[i] = in[i] op inout[i] for every builtin op and type,
 * and out[i] = a[i] op b[i] for the element-wise ones (integers, reals,
 * 16-bit floats, logical and bitwise ops).
 *
 * Plain loops over restrict pointers, so the compiler vectorizes them. GCC
 * vectorizes at -O2 only loops without an epilogue, so this file asks for its
 * dynamic cost model, and unrolled loops; on x86-64 Linux each kernel is also
 * cloned for AVX2 and picked at load time, so the default build uses AVX2
 * where the CPU has it without requiring -march.
 *
 * Each two-operand kernel has a second form (_w, "near") cloned for AVX-512
 * (x86-64-v4) as well, for data in this core's caches: bolt_reduce_local
 * (and so one-sided accumulates) up to COLL_NEAR_MAX bytes. On Zen 5,
 * AVX2 summed 8-256 KiB in L1/L2 at 1.3-1.6x the time of Open MPI's AVX-512
 * kernels, AVX-512 at 0.9-1.0x; but from memory (16 MiB) AVX-512 took 1.4-1.7x
 * AVX2's time, and the collectives' folds, whose pieces come from another
 * core's cache, went 1.1-1.3x slower with it at 256 KiB-1 MiB: they keep AVX2.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "unroll-loops")
#endif

#include <stdint.h>
#include <string.h>

#include "collectives/coll.h"

/* Not under a sanitizer: the clones' resolvers run while the library is
 * relocated, before the sanitizer's runtime is set up, and crash in its hooks. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&     \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define KERNEL __attribute__((target_clones("avx2", "default")))
#if __GNUC__ >= 11 /* the x86-64-v4 level */
#define KERNEL_NEAR __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define KERNEL_NEAR KERNEL
#endif
#else
#define KERNEL
#define KERNEL_NEAR
#endif

/* Signed integers are added and multiplied in unsigned arithmetic: overflow
 * wraps (as every MPI does) instead of being undefined. UW is at least int. */
#define KIO(ATTR, NAME, T, EXPR)                                                                \
    ATTR static void NAME(const void *restrict vin, void *restrict vio, size_t n)               \
    {                                                                                           \
        const T *restrict a = vin;                                                              \
        T *restrict b = vio;                                                                    \
        for (size_t i = 0; i < n; i++) {                                                        \
            T x = a[i], y = b[i];                                                               \
            b[i] = (T)(EXPR);                                                                   \
        }                                                                                       \
    }
/* Each op on a type: inout = in op inout, its near form, and out = a op b. */
#define KBIN(NAME, T, EXPR)                                                                     \
    KIO(KERNEL, NAME, T, EXPR)                                                                  \
    KIO(KERNEL_NEAR, NAME##_w, T, EXPR)                                                         \
    KERNEL static void NAME##_3(const void *restrict va, const void *restrict vb,               \
                                void *restrict vout, size_t n)                                  \
    {                                                                                           \
        const T *restrict a = va, *restrict b = vb;                                             \
        T *restrict o = vout;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                        \
            T x = a[i], y = b[i];                                                               \
            o[i] = (T)(EXPR);                                                                   \
        }                                                                                       \
    }

#define KINT(S, T, UW)                                                                          \
    KBIN(sum_##S, T, (UW)x + (UW)y)                                                             \
    KBIN(prod_##S, T, (UW)x *(UW)y)                                                             \
    KBIN(min_##S, T, x < y ? x : y)                                                             \
    KBIN(max_##S, T, x > y ? x : y)                                                             \
    KBIN(land_##S, T, (x != 0) & (y != 0))                                                      \
    KBIN(lor_##S, T, (x != 0) | (y != 0))                                                       \
    KBIN(lxor_##S, T, (x != 0) ^ (y != 0))                                                      \
    KBIN(band_##S, T, x &y)                                                                     \
    KBIN(bor_##S, T, x | y)                                                                     \
    KBIN(bxor_##S, T, x ^ y)

KINT(i8, int8_t, unsigned)
KINT(i16, int16_t, unsigned)
KINT(i32, int32_t, unsigned)
KINT(i64, int64_t, uint64_t)
KINT(u8, uint8_t, unsigned)
KINT(u16, uint16_t, unsigned)
KINT(u32, uint32_t, unsigned)
KINT(u64, uint64_t, uint64_t)

#define KFLT(S, T)                                                                              \
    KBIN(sum_##S, T, x + y)                                                                     \
    KBIN(prod_##S, T, x *y)                                                                     \
    KBIN(min_##S, T, x < y ? x : y)                                                             \
    KBIN(max_##S, T, x > y ? x : y)

KFLT(f32, float)
KFLT(f64, double)
KFLT(ld, long double)

KBIN(land_b, _Bool, x &&y)
KBIN(lor_b, _Bool, x || y)
KBIN(lxor_b, _Bool, x != y)

/* Complex numbers as pairs of reals; the product written out keeps it
 * vectorizable and free of the library's inf/NaN recovery. */
#define KCPLX(S, T)                                                                             \
    KERNEL static void sum_##S(const void *restrict vin, void *restrict vio, size_t n)          \
    {                                                                                           \
        const T *restrict a = vin;                                                              \
        T *restrict b = vio;                                                                    \
        for (size_t i = 0; i < 2 * n; i++)                                                      \
            b[i] = a[i] + b[i];                                                                 \
    }                                                                                           \
    KERNEL static void prod_##S(const void *restrict vin, void *restrict vio, size_t n)         \
    {                                                                                           \
        const T *restrict a = vin;                                                              \
        T *restrict b = vio;                                                                    \
        for (size_t i = 0; i < n; i++) {                                                        \
            T xr = a[2 * i], xi = a[2 * i + 1], yr = b[2 * i], yi = b[2 * i + 1];               \
            b[2 * i] = xr * yr - xi * yi;                                                       \
            b[2 * i + 1] = xr * yi + xi * yr;                                                   \
        }                                                                                       \
    }
KCPLX(cf, float)
KCPLX(cd, double)

/* ---- 16-bit floats: widened to float32, reduced, rounded to nearest even ---- */

static inline float f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, b;
    if (e == 0 && m == 0) {
        b = s;
    } else if (e == 0) { /* subnormal: normalize */
        e = 127 - 15 + 1;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        b = s | (e << 23) | ((m & 0x3ffu) << 13);
    } else if (e == 31) {
        b = s | 0x7f800000u | (m << 13);
    } else {
        b = s | ((e + 127 - 15) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline uint16_t f32_to_f16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    uint32_t s = (b >> 16) & 0x8000u, m = b & 0x7fffffu, E = (b >> 23) & 0xffu;
    int e = (int)E - 127 + 15;
    if (E == 0xff)
        return (uint16_t)(s | 0x7c00u | (m ? 0x200u | (m >> 13) : 0));
    if (e >= 31)
        return (uint16_t)(s | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)s;
        m |= 0x800000u;
        unsigned shift = (unsigned)(14 - e);
        uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1)))
            hm++;
        return (uint16_t)(s | hm);
    }
    uint32_t r = s | ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1)))
        r++; /* a carry into the exponent is the right rounding, up to inf */
    return (uint16_t)r;
}

static inline float bf16_to_f32(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline uint16_t f32_to_bf16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu))
        return (uint16_t)((b >> 16) | 0x40u); /* NaN stays a (quiet) NaN */
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

#define KHALF(S, TO, FROM)                                                                      \
    KBIN(sum_##S, uint16_t, FROM(TO(x) + TO(y)))                                                \
    KBIN(prod_##S, uint16_t, FROM(TO(x) * TO(y)))                                               \
    KBIN(min_##S, uint16_t, TO(x) < TO(y) ? x : y)                                              \
    KBIN(max_##S, uint16_t, TO(x) > TO(y) ? x : y)
KHALF(f16, f16_to_f32, f32_to_f16)
KHALF(bf16, bf16_to_f32, f32_to_bf16)

/* ---- MAXLOC / MINLOC on value-index pairs (MPI: ties take the lower index) ---- */

#define KLOC(S, T)                                                                              \
    struct pair_##S {                                                                           \
        T v;                                                                                    \
        int i;                                                                                  \
    };                                                                                          \
    static void maxloc_##S(const void *restrict vin, void *restrict vio, size_t n)              \
    {                                                                                           \
        const struct pair_##S *restrict a = vin;                                                \
        struct pair_##S *restrict b = vio;                                                      \
        for (size_t k = 0; k < n; k++) {                                                        \
            if (a[k].v > b[k].v)                                                                \
                b[k] = a[k];                                                                    \
            else if (a[k].v == b[k].v && a[k].i < b[k].i)                                       \
                b[k].i = a[k].i;                                                                \
        }                                                                                       \
    }                                                                                           \
    static void minloc_##S(const void *restrict vin, void *restrict vio, size_t n)              \
    {                                                                                           \
        const struct pair_##S *restrict a = vin;                                                \
        struct pair_##S *restrict b = vio;                                                      \
        for (size_t k = 0; k < n; k++) {                                                        \
            if (a[k].v < b[k].v)                                                                \
                b[k] = a[k];                                                                    \
            else if (a[k].v == b[k].v && a[k].i < b[k].i)                                       \
                b[k].i = a[k].i;                                                                \
        }                                                                                       \
    }
KLOC(float, float)
KLOC(double, double)
KLOC(long, long)
KLOC(int, int)
KLOC(short, short)
KLOC(ldouble, long double)

/* ---- the table: [op][type], NULL where MPI does not define the pair ---- */

#define INTROW(OP, X)                                                                           \
    [2] = OP##_i8##X, [3] = OP##_i16##X, [4] = OP##_i32##X, [5] = OP##_i64##X, [6] = OP##_u8##X, \
    [7] = OP##_u16##X, [8] = OP##_u32##X, [9] = OP##_u64##X
#define ARITHX(OP, X)                                                                           \
    INTROW(OP, X), [10] = OP##_f32##X, [11] = OP##_f64##X, [12] = OP##_f16##X,                  \
                   [13] = OP##_bf16##X, [14] = OP##_ld##X
#define LOGICX(OP, X) INTROW(OP, X), [17] = OP##_b##X
#define BITSX(OP, X) INTROW(OP, X), [1] = OP##_u8##X
#define LOCS(OP)                                                                                \
    [18] = OP##_float, [19] = OP##_double, [20] = OP##_long, [21] = OP##_int,                   \
    [22] = OP##_short, [23] = OP##_ldouble

/* The element-wise ops' rows of a table of kernels whose names end in X
 * (SUMX and PRODX: more entries of those rows), then the pairs' rows. */
#define CPLX(OP) , [15] = OP##_cf, [16] = OP##_cd
#define ROWS(X, SUMX, PRODX)                                                                    \
    [BOLT_SUM] = {ARITHX(sum, X) SUMX}, [BOLT_PROD] = {ARITHX(prod, X) PRODX},                  \
    [BOLT_MIN] = {ARITHX(min, X)}, [BOLT_MAX] = {ARITHX(max, X)},                               \
    [BOLT_LAND] = {LOGICX(land, X)}, [BOLT_LOR] = {LOGICX(lor, X)},                             \
    [BOLT_LXOR] = {LOGICX(lxor, X)}, [BOLT_BAND] = {BITSX(band, X)},                            \
    [BOLT_BOR] = {BITSX(bor, X)}, [BOLT_BXOR] = {BITSX(bxor, X)}
#define PAIRS [BOLT_MAXLOC] = {LOCS(maxloc)}, [BOLT_MINLOC] = {LOCS(minloc)}

static coll_kernel_fn *const kernels[BOLT_MINLOC + 1][COLL_DT_NBUILTIN] = {
    ROWS(, CPLX(sum), CPLX(prod)), PAIRS};
/* The near forms where there are (complex numbers and value-index pairs
 * take the others'). */
static coll_kernel_fn *const kernels_near[BOLT_MINLOC + 1][COLL_DT_NBUILTIN] = {
    ROWS(_w, CPLX(sum), CPLX(prod)), PAIRS};
static coll_kernel3_fn *const kernels3[BOLT_MINLOC + 1][COLL_DT_NBUILTIN] = {ROWS(_3, , )};

/* Whether (op, dt) indexes the tables (their entry may still be NULL). */
static int in_tables(bolt_op_t op, bolt_datatype_t dt)
{
    return op >= BOLT_SUM && op <= BOLT_MINLOC && dt != 0 && dt < COLL_DT_NBUILTIN;
}

coll_kernel_fn *coll_kernel(bolt_op_t op, bolt_datatype_t dt)
{
    return in_tables(op, dt) ? kernels[op][dt] : NULL;
}

coll_kernel_fn *coll_kernel_near(bolt_op_t op, bolt_datatype_t dt)
{
    return in_tables(op, dt) ? kernels_near[op][dt] : NULL;
}

coll_kernel3_fn *coll_kernel3(bolt_op_t op, bolt_datatype_t dt)
{
    return in_tables(op, dt) ? kernels3[op][dt] : NULL;
}
