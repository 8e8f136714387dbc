/* op_extra.c — predefined operations on predefined types that Bolt's
 * collectives have no kernel for: MPI_SUM and MPI_PROD on long double
 * complex (C's and C++'s), MPI_MAXLOC and MPI_MINLOC on Fortran's pairs of
 * reals (MPI_2REAL, MPI_2DOUBLE_PRECISION: the index is a real too). Each
 * runs as a native user operation over opaque elements of the type's size;
 * it is made at its first use and freed at MPI_Finalize. */
#include <complex.h>

#include "mpi/coll.h"

/* Complex numbers as pairs of reals, the product written out as Bolt's
 * kernels for float and double complex do (no inf/NaN recovery), so that
 * every precision computes alike. */
static void sum_ldc(const void *in, void *inout, size_t n, bolt_datatype_t dt, void *user)
{
    const long double *a = in;
    long double *b = inout;
    (void)dt;
    (void)user;
    for (size_t i = 0; i < 2 * n; i++)
        b[i] = a[i] + b[i];
}

static void prod_ldc(const void *in, void *inout, size_t n, bolt_datatype_t dt, void *user)
{
    const long double *a = in;
    long double *b = inout;
    (void)dt;
    (void)user;
    for (size_t i = 0; i < n; i++) {
        long double xr = a[2 * i], xi = a[2 * i + 1], yr = b[2 * i], yi = b[2 * i + 1];
        b[2 * i] = xr * yr - xi * yi;
        b[2 * i + 1] = xr * yi + xi * yr;
    }
}

/* MAXLOC / MINLOC as MPI defines them: the better value wins; on a tie,
 * the lower index. */
#define LOC(NAME, T, BETTER)                                                                    \
    static void NAME(const void *in, void *inout, size_t n, bolt_datatype_t dt, void *user)     \
    {                                                                                           \
        const T *a = in;                                                                        \
        T *b = inout;                                                                           \
        (void)dt;                                                                               \
        (void)user;                                                                             \
        for (size_t k = 0; k < 2 * n; k += 2) {                                                 \
            if (a[k] BETTER b[k]) {                                                             \
                b[k] = a[k];                                                                    \
                b[k + 1] = a[k + 1];                                                            \
            } else if (a[k] == b[k] && a[k + 1] < b[k + 1]) {                                   \
                b[k + 1] = a[k + 1];                                                            \
            }                                                                                   \
        }                                                                                       \
    }
LOC(maxloc_2real, float, >)
LOC(minloc_2real, float, <)
LOC(maxloc_2double, double, >)
LOC(minloc_2double, double, <)

static struct extra {
    MPI_Op op;
    MPI_Datatype type;
    size_t esize;
    bolt_user_fn *fn;
    bolt_op_t native; /* BOLT_OP_NULL until first used */
} extras[] = {
    {MPI_SUM, MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex), sum_ldc, BOLT_OP_NULL},
    {MPI_PROD, MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex), prod_ldc, BOLT_OP_NULL},
    {MPI_SUM, MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double complex), sum_ldc, BOLT_OP_NULL},
    {MPI_PROD, MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double complex), prod_ldc, BOLT_OP_NULL},
    {MPI_MAXLOC, MPI_2REAL, 2 * sizeof(float), maxloc_2real, BOLT_OP_NULL},
    {MPI_MINLOC, MPI_2REAL, 2 * sizeof(float), minloc_2real, BOLT_OP_NULL},
    {MPI_MAXLOC, MPI_2DOUBLE_PRECISION, 2 * sizeof(double), maxloc_2double, BOLT_OP_NULL},
    {MPI_MINLOC, MPI_2DOUBLE_PRECISION, 2 * sizeof(double), minloc_2double, BOLT_OP_NULL},
};
#define NEXTRAS (sizeof extras / sizeof extras[0])

int face_op_extra(MPI_Op op, MPI_Datatype basic, bolt_op_t *nop, size_t *esize)
{
    *nop = BOLT_OP_NULL;
    /* every call of a reduction asks: the common answer at once */
    if (basic != MPI_C_LONG_DOUBLE_COMPLEX && basic != MPI_CXX_LONG_DOUBLE_COMPLEX && basic != MPI_2REAL &&
        basic != MPI_2DOUBLE_PRECISION)
        return BOLT_OK;
    for (size_t i = 0; i < NEXTRAS; i++) {
        struct extra *x = &extras[i];
        if (x->op != op || x->type != basic)
            continue;
        if (!x->native) {
            int rc = bolt_op_create(x->fn, 1, NULL, &x->native);
            if (rc)
                return rc;
        }
        *nop = x->native;
        *esize = x->esize;
        break;
    }
    return BOLT_OK;
}

void face_op_extra_finalize(void)
{
    for (size_t i = 0; i < NEXTRAS; i++)
        if (extras[i].native)
            bolt_op_free(&extras[i].native);
}
