/* external32.c — MPI_Pack_external and friends: data in MPI's portable
 * "external32" representation (MPI 3.1, 13.5.2): big-endian two's complement
 * integers and IEEE floats, byte-aligned, each predefined type in the
 * standard's fixed size (table 13.2: C long is 4 bytes, wchar_t 2, long
 * double 16 as IEEE binary128, MPI_Aint/MPI_Offset/MPI_Count 8).
 *
 * Every block of a flattened type carries a code (face_block.x32) saying how
 * its elements convert; the codes come from the predefined types. Narrowing
 * keeps the low-order bytes (the standard's advice: no error while the value
 * fits); widening extends the sign of signed types.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mpi/dtype.h"

_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "external32 has 8-byte MPI_Aint, MPI_Offset and MPI_Count: they convert as they are");

struct xdesc {
    size_t native, ext; /* bytes of one value here and in external32 */
    int is_signed;
};

static const struct xdesc DESC[FACE_X32_NCODES] = {
    [FACE_X32_COPY] = {1, 1, 0},
    [FACE_X32_SWAP2] = {2, 2, 0},
    [FACE_X32_SWAP4] = {4, 4, 0},
    [FACE_X32_SWAP8] = {8, 8, 0},
    [FACE_X32_LONG] = {sizeof(long), 4, 1},
    [FACE_X32_ULONG] = {sizeof(unsigned long), 4, 0},
    [FACE_X32_WCHAR] = {sizeof(wchar_t), 2, 0}, /* Unicode code points: no sign */
    [FACE_X32_LDOUBLE] = {sizeof(long double), 16, 1},
};

int face_x32_code(MPI_Datatype dt)
{
    switch (dt) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED:
    case MPI_C_BOOL: case MPI_CXX_BOOL: case MPI_INT8_T: case MPI_UINT8_T: case MPI_CHARACTER:
    case MPI_INTEGER1:
        return FACE_X32_COPY;
    case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT16_T: case MPI_UINT16_T:
    case MPI_INTEGER2:
        return FACE_X32_SWAP2;
    case MPI_INT: case MPI_UNSIGNED: case MPI_FLOAT: case MPI_INT32_T: case MPI_UINT32_T:
    case MPI_LOGICAL: case MPI_INTEGER: case MPI_REAL: case MPI_INTEGER4: case MPI_REAL4:
    case MPI_2INTEGER: case MPI_2REAL:
    /* complex types: each part on its own */
    case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX:
        return FACE_X32_SWAP4;
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_DOUBLE: case MPI_INT64_T:
    case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_DOUBLE_PRECISION:
    case MPI_INTEGER8: case MPI_REAL8: case MPI_2DOUBLE_PRECISION:
    case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16:
    case MPI_CXX_DOUBLE_COMPLEX:
        return FACE_X32_SWAP8;
    case MPI_LONG:
        return FACE_X32_LONG;
    case MPI_UNSIGNED_LONG:
        return FACE_X32_ULONG;
    case MPI_WCHAR:
        return FACE_X32_WCHAR;
    case MPI_LONG_DOUBLE: case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
        return FACE_X32_LDOUBLE;
    default: /* the pair types: dtype.c codes their parts */
        return FACE_X32_COPY;
    }
}

/* ---- one value ------------------------------------------------------------------------- */
static uint64_t load_native(const unsigned char *p, size_t n)
{
    uint8_t v1;
    uint16_t v2;
    uint32_t v4;
    uint64_t v8;
    switch (n) {
    case 1: memcpy(&v1, p, 1); return v1;
    case 2: memcpy(&v2, p, 2); return v2;
    case 4: memcpy(&v4, p, 4); return v4;
    default: memcpy(&v8, p, 8); return v8;
    }
}

static void store_native(unsigned char *p, uint64_t v, size_t n)
{
    uint8_t v1 = (uint8_t)v;
    uint16_t v2 = (uint16_t)v;
    uint32_t v4 = (uint32_t)v;
    switch (n) {
    case 1: memcpy(p, &v1, 1); break;
    case 2: memcpy(p, &v2, 2); break;
    case 4: memcpy(p, &v4, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static void store_be(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t load_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* long double (whatever its format here) to IEEE binary128: sign, 15-bit
 * exponent biased by 16383, 112-bit fraction; hi holds the top 64 bits. */
static void ldouble_put(const unsigned char *src, unsigned char *dst)
{
    long double x;
    memcpy(&x, src, sizeof x);
    uint64_t hi = signbit(x) ? UINT64_C(1) << 63 : 0, lo = 0;
    if (isnan(x)) {
        hi |= UINT64_C(0x7fff) << 48 | UINT64_C(1) << 47; /* a quiet NaN */
    } else if (isinf(x)) {
        hi |= UINT64_C(0x7fff) << 48;
    } else if (x != 0) {
        int e;
        long double m = frexpl(fabsl(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
        long exp = (long)e - 1 + 16383;
        long double f; /* the fraction bits, as a number below 2^112 */
        if (exp > 0) {
            f = ldexpl(2 * m - 1, 112); /* normal: 1.f 2^(exp - 16383) */
        } else {
            f = ldexpl(fabsl(x), 16494); /* subnormal: f 2^-16494 */
            exp = 0;
        }
        uint64_t fhi = (uint64_t)ldexpl(f, -64);
        lo = (uint64_t)(f - ldexpl((long double)fhi, 64));
        hi |= (uint64_t)exp << 48 | fhi;
    }
    store_be(dst, hi, 8);
    store_be(dst + 8, lo, 8);
}

static void ldouble_get(const unsigned char *src, unsigned char *dst)
{
    uint64_t hi = load_be(src, 8), lo = load_be(src + 8, 8);
    long exp = (long)(hi >> 48 & 0x7fff);
    uint64_t fhi = hi & ((UINT64_C(1) << 48) - 1);
    long double x;
    if (exp == 0x7fff)
        x = fhi || lo ? NAN : INFINITY;
    else if (exp == 0) /* subnormal (or zero) */
        x = ldexpl((long double)fhi, 64 - 16494) + ldexpl((long double)lo, -16494);
    else /* rounded to the precision long double has here */
        x = ldexpl(1 + ldexpl((long double)fhi, -48) + ldexpl((long double)lo, -112),
                   (int)(exp - 16383));
    if (hi >> 63)
        x = -x;
    memcpy(dst, &x, sizeof x);
}

static unsigned char *value_put(int code, const unsigned char *s, unsigned char *d)
{
    const struct xdesc *x = &DESC[code];
    if (code == FACE_X32_LDOUBLE)
        ldouble_put(s, d);
    else
        store_be(d, load_native(s, x->native), x->ext);
    return d + x->ext;
}

static const unsigned char *value_get(int code, const unsigned char *s, unsigned char *d)
{
    const struct xdesc *x = &DESC[code];
    if (code == FACE_X32_LDOUBLE) {
        ldouble_get(s, d);
    } else {
        uint64_t v = load_be(s, x->ext);
        if (x->is_signed && x->ext < 8 && (v >> (8 * x->ext - 1) & 1))
            v |= ~UINT64_C(0) << (8 * x->ext);
        store_native(d, v, x->native);
    }
    return s + x->ext;
}

/* ---- blocks and types ------------------------------------------------------------------ */
/* A block is a run of units: one value, or a pair's value and its int. */
struct unit {
    int code, pair;
    size_t native, ext;
};

static struct unit unit_of(int x32)
{
    struct unit u = {x32 & ~FACE_X32_PAIR, !!(x32 & FACE_X32_PAIR), 0, 0};
    u.native = DESC[u.code].native + (u.pair ? sizeof(int) : 0);
    u.ext = DESC[u.code].ext + (u.pair ? 4 : 0);
    return u;
}

static size_t type_x32_size(const struct face_type *t)
{
    size_t n = 0;
    for (int j = 0; j < t->nblocks; j++) {
        struct unit u = unit_of(t->blocks[j].x32);
        n += t->blocks[j].len / u.native * u.ext;
    }
    return n;
}

static void pack(const struct face_type *t, const char *src, size_t count, unsigned char *d)
{
    MPI_Aint ext = face_type_extent(t);
    for (size_t i = 0; i < count; i++, src += ext)
        for (int j = 0; j < t->nblocks; j++) {
            const struct face_block *b = &t->blocks[j];
            struct unit u = unit_of(b->x32);
            const unsigned char *s = (const unsigned char *)src + b->off;
            for (size_t k = 0; k < b->len / u.native; k++, s += u.native) {
                d = value_put(u.code, s, d);
                if (u.pair)
                    d = value_put(FACE_X32_SWAP4, s + DESC[u.code].native, d);
            }
        }
}

static void unpack(const struct face_type *t, const unsigned char *s, size_t count, char *dst)
{
    MPI_Aint ext = face_type_extent(t);
    for (size_t i = 0; i < count; i++, dst += ext)
        for (int j = 0; j < t->nblocks; j++) {
            const struct face_block *b = &t->blocks[j];
            struct unit u = unit_of(b->x32);
            unsigned char *d = (unsigned char *)dst + b->off;
            for (size_t k = 0; k < b->len / u.native; k++, d += u.native) {
                s = value_get(u.code, s, d);
                if (u.pair)
                    s = value_get(FACE_X32_SWAP4, s, d + DESC[u.code].native);
            }
        }
}

/* ---- the calls ------------------------------------------------------------------------- */
static int x32_args(const char *fn, const char *datarep, int count, MPI_Datatype dt,
                    struct face_type **t)
{
    int rc = face_check_init(fn);
    if (rc || (rc = face_type_check(MPI_COMM_NULL, dt, fn, t)))
        return rc;
    if (!datarep || strcmp(datarep, "external32"))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "data representation \"%s\" is not supported: the only one is "
                          "\"external32\"",
                          datarep ? datarep : "(null)");
    if (count < 0)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "count %d is negative", count);
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype dt, MPI_Aint *size)
{
    struct face_type *t = NULL;
    int rc = x32_args("MPI_Pack_external_size", datarep, incount, dt, &t);
    if (rc)
        return rc;
    if (!size)
        return face_error(MPI_COMM_NULL, "MPI_Pack_external_size", MPI_ERR_ARG,
                          "size pointer is NULL");
    *size = (MPI_Aint)((size_t)incount * type_x32_size(t));
    return MPI_SUCCESS;
}

/* Checks that `need` bytes from *position fit in a buffer of `size`. */
static int x32_room(const char *fn, const MPI_Aint *position, MPI_Aint size, size_t need,
                    const void *a, const void *b)
{
    if (!position || *position < 0 || *position > size)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "position %ld is outside the buffer of %ld bytes",
                          position ? (long)*position : -1L, (long)size);
    if (need > (size_t)(size - *position))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TRUNCATE,
                          "%zu bytes do not fit: %ld of the %ld-byte buffer are left", need,
                          (long)(size - *position), (long)size);
    if (need && (!a || !b))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_BUFFER, "a buffer is NULL");
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    const char *fn = "MPI_Pack_external";
    struct face_type *t = NULL;
    int rc = x32_args(fn, datarep, incount, dt, &t);
    if (rc)
        return rc;
    size_t need = (size_t)incount * type_x32_size(t);
    if ((rc = x32_room(fn, position, outsize, need, inbuf, outbuf)))
        return rc;
    pack(t, inbuf, (size_t)incount, (unsigned char *)outbuf + *position);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt)
{
    const char *fn = "MPI_Unpack_external";
    struct face_type *t = NULL;
    int rc = x32_args(fn, datarep, outcount, dt, &t);
    if (rc)
        return rc;
    size_t need = (size_t)outcount * type_x32_size(t);
    if ((rc = x32_room(fn, position, insize, need, inbuf, outbuf)))
        return rc;
    unpack(t, (const unsigned char *)inbuf + *position, (size_t)outcount, outbuf);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}
