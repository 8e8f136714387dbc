/* datatype.c — builtin datatypes and opaque n-byte element types. */
#include <stdio.h>

#include "collectives/coll.h"
#include "runtime/errors.h"

struct pair_float { float v; int i; };
struct pair_double { double v; int i; };
struct pair_long { long v; int i; };
struct pair_int { int v; int i; };
struct pair_short { short v; int i; };
struct pair_ldouble { long double v; int i; };

static const struct {
    size_t size;
    const char *name;
} builtin[COLL_DT_NBUILTIN] = {
    [1] = {1, "byte"},
    [2] = {1, "int8"},
    [3] = {2, "int16"},
    [4] = {4, "int32"},
    [5] = {8, "int64"},
    [6] = {1, "uint8"},
    [7] = {2, "uint16"},
    [8] = {4, "uint32"},
    [9] = {8, "uint64"},
    [10] = {4, "float32"},
    [11] = {8, "float64"},
    [12] = {2, "float16"},
    [13] = {2, "bfloat16"},
    [14] = {sizeof(long double), "long double"},
    [15] = {2 * sizeof(float), "float complex"},
    [16] = {2 * sizeof(double), "double complex"},
    [17] = {sizeof(_Bool), "bool"},
    [18] = {sizeof(struct pair_float), "float_int"},
    [19] = {sizeof(struct pair_double), "double_int"},
    [20] = {sizeof(struct pair_long), "long_int"},
    [21] = {sizeof(struct pair_int), "2int"},
    [22] = {sizeof(struct pair_short), "short_int"},
    [23] = {sizeof(struct pair_ldouble), "long_double_int"},
};

bolt_datatype_t bolt_type_bytes(size_t n)
{
    /* The handle keeps n in its upper 56 bits. */
    if (n == 0 || n > (SIZE_MAX >> 8))
        return BOLT_DATATYPE_NULL;
    return ((bolt_datatype_t)n << 8) | COLL_DT_BYTES;
}

int coll_type_valid(bolt_datatype_t dt)
{
    if ((dt & 0xffu) == COLL_DT_BYTES)
        return (dt >> 8) != 0;
    return dt > 0 && dt < COLL_DT_NBUILTIN;
}

size_t bolt_type_size(bolt_datatype_t dt)
{
    if (!coll_type_valid(dt))
        return 0;
    if ((dt & 0xffu) == COLL_DT_BYTES)
        return (size_t)(dt >> 8);
    return builtin[dt].size;
}

const char *bolt_type_name(bolt_datatype_t dt)
{
    static _Thread_local char name[40];
    if (!coll_type_valid(dt))
        return "invalid";
    if ((dt & 0xffu) != COLL_DT_BYTES)
        return builtin[dt].name;
    snprintf(name, sizeof name, "bytes(%zu)", (size_t)(dt >> 8));
    return name;
}

int coll_type_check(bolt_datatype_t dt, const char *fn)
{
    if (coll_type_valid(dt))
        return BOLT_OK;
    return bolt_err_set(BOLT_ERR_ARG,
                        "%s: datatype %llu is not a Bolt datatype (use a BOLT_* builtin or "
                        "bolt_type_bytes)",
                        fn, (unsigned long long)dt);
}
