/* cutil.c — inputs and serial references for the collectives tests. */
#include <math.h>

#include "cutil.h"

int crank, csize;
long cchecks;
char ccase[256];
bolt_op_t cmatmul;

/* float -> binary16 for the small exact values used here. */
static uint16_t f16(float f)
{
    if (f == 0)
        return 0;
    uint16_t s = f < 0 ? 0x8000 : 0;
    int e;
    float m = frexpf(fabsf(f), &e); /* f = m * 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)(m * 2048.0f) & 0x3ff; /* drop the implicit bit */
    return (uint16_t)(s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)mant);
}

static uint16_t bf16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return (uint16_t)(b >> 16);
}

struct pf { float v; int i; };
struct pd { double v; int i; };
struct pl { long v; int i; };
struct p2 { int v; int i; };
struct ps { short v; int i; };
struct pld { long double v; int i; };

/* Small exact values: products only of +-1, 2 and 0.5 (powers of two). */
static double val(bolt_op_t op, int rank, size_t i, unsigned seed)
{
    unsigned h = (unsigned)rank * 2654435761u + (unsigned)i * 40503u + seed * 97u;
    h ^= h >> 13;
    if (op == BOLT_PROD) {
        static const double t[] = {1, -1, 2, 0.5, 1, 1};
        return t[h % 6];
    }
    if (op == BOLT_LAND || op == BOLT_LOR || op == BOLT_LXOR)
        return (double)(h % 3 == 0 ? 0 : h % 3);
    return (double)((int)(h % 11) - 5);
}

void cfill(void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op, int rank, unsigned seed)
{
    size_t es = bolt_type_size(dt);
    memset(buf, 0, count * es);
    for (size_t i = 0; i < count; i++) {
        double v = val(op, rank, i, seed);
        char *p = (char *)buf + i * es;
        int idx = (int)((rank * 3 + i) % 7);
        if (dt == BOLT_BYTE || dt == BOLT_UINT8) *(uint8_t *)p = (uint8_t)(int)(v * 37);
        else if (dt == BOLT_INT8) *(int8_t *)p = (int8_t)(v * 11);
        else if (dt == BOLT_INT16) *(int16_t *)p = (int16_t)(v * 3000);
        else if (dt == BOLT_INT32) *(int32_t *)p = (int32_t)(v * 400000000);
        else if (dt == BOLT_INT64) *(int64_t *)p = (int64_t)(v * 1e18);
        else if (dt == BOLT_UINT16) *(uint16_t *)p = (uint16_t)(int)(v * 9000);
        else if (dt == BOLT_UINT32) *(uint32_t *)p = (uint32_t)(int64_t)(v * 900000000);
        else if (dt == BOLT_UINT64) *(uint64_t *)p = (uint64_t)(int64_t)(v * 3e18);
        else if (dt == BOLT_FLOAT32) *(float *)p = (float)v;
        else if (dt == BOLT_FLOAT64) *(double *)p = v;
        else if (dt == BOLT_FLOAT16) *(uint16_t *)p = f16((float)v);
        else if (dt == BOLT_BFLOAT16) *(uint16_t *)p = bf16((float)v);
        else if (dt == BOLT_LONG_DOUBLE) *(long double *)p = v;
        else if (dt == BOLT_C_FLOAT_COMPLEX || dt == BOLT_C_DOUBLE_COMPLEX) {
            /* Gaussian integers; products of units and (1+i) stay exact */
            static const double pre[] = {1, 0, 1, -1}, pim[] = {0, 1, 1, 0};
            double re = v, im = val(op, rank + 17, i, seed);
            if (op == BOLT_PROD) {
                unsigned k = (unsigned)(rank + i + seed) % 4;
                re = pre[k];
                im = pim[k];
            }
            if (dt == BOLT_C_FLOAT_COMPLEX) {
                ((float *)p)[0] = (float)re;
                ((float *)p)[1] = (float)im;
            } else {
                ((double *)p)[0] = re;
                ((double *)p)[1] = im;
            }
        } else if (dt == BOLT_BOOL) *(_Bool *)p = v != 0;
        else if (dt == BOLT_FLOAT_INT) { ((struct pf *)p)->v = (float)v; ((struct pf *)p)->i = idx; }
        else if (dt == BOLT_DOUBLE_INT) { ((struct pd *)p)->v = v; ((struct pd *)p)->i = idx; }
        else if (dt == BOLT_LONG_INT) { ((struct pl *)p)->v = (long)v; ((struct pl *)p)->i = idx; }
        else if (dt == BOLT_2INT) { ((struct p2 *)p)->v = (int)v; ((struct p2 *)p)->i = idx; }
        else if (dt == BOLT_SHORT_INT) { ((struct ps *)p)->v = (short)v; ((struct ps *)p)->i = idx; }
        else if (dt == BOLT_LONG_DOUBLE_INT) { ((struct pld *)p)->v = v; ((struct pld *)p)->i = idx; }
        else { /* opaque elements (the matrix type): small uint32 words */
            for (size_t k = 0; k < es; k++)
                p[k] = (char)((rank * 7 + (int)i * 5 + (int)k * 3 + (int)seed) % 5);
        }
    }
}

void cref(void *out, size_t count, bolt_datatype_t dt, bolt_op_t op, int nranks, unsigned seed,
          int upto)
{
    size_t bytes = count * bolt_type_size(dt);
    void *tmp = xmalloc(bytes);
    cfill(out, count, dt, op, 0, seed);
    for (int r = 1; r < upto && r < nranks; r++) {
        cfill(tmp, count, dt, op, r, seed);
        OK(bolt_reduce_local(out, tmp, count, dt, op)); /* tmp = acc op x_r */
        memcpy(out, tmp, bytes);
    }
    free(tmp);
}

long cdiff(const void *a, const void *b, size_t count, bolt_datatype_t dt)
{
    size_t es = bolt_type_size(dt);
    for (size_t i = 0; i < count; i++) {
        const char *x = (const char *)a + i * es, *y = (const char *)b + i * es;
        /* Floating values by value: the sign of a zero result depends on the
         * order of operations (and long double has 6 bytes of padding). */
        if (dt == BOLT_LONG_DOUBLE) {
            if (*(const long double *)x != *(const long double *)y)
                return (long)i;
        } else if (dt == BOLT_FLOAT32 || dt == BOLT_C_FLOAT_COMPLEX) {
            for (size_t k = 0; k < es / sizeof(float); k++)
                if (((const float *)x)[k] != ((const float *)y)[k])
                    return (long)i;
        } else if (dt == BOLT_FLOAT64 || dt == BOLT_C_DOUBLE_COMPLEX) {
            for (size_t k = 0; k < es / sizeof(double); k++)
                if (((const double *)x)[k] != ((const double *)y)[k])
                    return (long)i;
        } else if (dt == BOLT_FLOAT16 || dt == BOLT_BFLOAT16) {
            uint16_t u = *(const uint16_t *)x, v = *(const uint16_t *)y;
            if (u != v && ((u | v) & 0x7fff) != 0)
                return (long)i;
        } else if (dt == BOLT_LONG_DOUBLE_INT) {
            if (((const struct pld *)x)->v != ((const struct pld *)y)->v ||
                ((const struct pld *)x)->i != ((const struct pld *)y)->i)
                return (long)i;
        } else if (memcmp(x, y, es) != 0) {
            return (long)i;
        }
    }
    return -1;
}

static void matmul(const void *in, void *inout, size_t count, bolt_datatype_t dt, void *user)
{
    (void)dt;
    (void)user;
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (size_t k = 0; k < count; k++, a += 4, b += 4) {
        uint32_t r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        uint32_t r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0;
        b[1] = r1;
        b[2] = r2;
        b[3] = r3;
    }
}

void cmatmul_create(void)
{
    OK(bolt_op_create(matmul, 0, NULL, &cmatmul));
}

bolt_datatype_t cmat_type(void)
{
    return bolt_type_bytes(16);
}
