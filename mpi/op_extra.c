/* op_extra.c — predefined operations on predefined types that Bolt's
 * collectives have no kernel for: MPI_SUM and MPI_PROD on long double
 * complex. Each runs as a native user operation over opaque elements of the
 * type's size; it is made at its first use and freed at MPI_Finalize. */
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

static struct extra {
    MPI_Op op;
    MPI_Datatype type;
    size_t esize;
    bolt_user_fn *fn;
    bolt_op_t native; /* BOLT_OP_NULL until first used */
} extras[] = {
    {MPI_SUM, MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex), sum_ldc, BOLT_OP_NULL},
    {MPI_PROD, MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex), prod_ldc, BOLT_OP_NULL},
};
#define NEXTRAS (sizeof extras / sizeof extras[0])

int face_op_extra(MPI_Op op, MPI_Datatype basic, bolt_op_t *nop, size_t *esize)
{
    *nop = BOLT_OP_NULL;
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
