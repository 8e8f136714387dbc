/* mpi_consts.c — constants, types and handles of MPI 3.1's mpi.h that C codes
 * use: the predefined attribute callbacks (with their standard types, and the
 * dup ones callable), window attribute keys, flavors and models, darray,
 * type-class and topology-weight constants; and the Fortran and C++
 * datatypes usable from C, which must work in messages and in the
 * reductions MPI defines on them. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#include "mtest.h"

/* Distinct values, pairwise. */
static int distinct(const int *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (v[i] == v[j])
                return 0;
    return 1;
}

static void callbacks(void)
{
    /* Each constant has the type the standard gives it. */
    MPI_Copy_function *cf = MPI_NULL_COPY_FN;
    MPI_Delete_function *df = MPI_NULL_DELETE_FN;
    MPI_Comm_copy_attr_function *ccf = MPI_COMM_NULL_COPY_FN;
    MPI_Comm_delete_attr_function *cdf = MPI_COMM_NULL_DELETE_FN;
    MPI_Type_copy_attr_function *tcf = MPI_TYPE_NULL_COPY_FN;
    MPI_Type_delete_attr_function *tdf = MPI_TYPE_NULL_DELETE_FN;
    MPI_Win_copy_attr_function *wcf = MPI_WIN_NULL_COPY_FN;
    MPI_Win_delete_attr_function *wdf = MPI_WIN_NULL_DELETE_FN;
    (void)cf; (void)df; (void)ccf; (void)cdf; (void)tcf; (void)tdf; (void)wcf; (void)wdf;
    cf = MPI_DUP_FN;
    ccf = MPI_COMM_DUP_FN;
    tcf = MPI_TYPE_DUP_FN;
    wcf = MPI_WIN_DUP_FN;

    /* The dup callbacks copy the value; codes may call them. */
    int x = 5, flag = 0;
    void *out = NULL;
    CHECK_MPI(ccf(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &x, &out, &flag));
    CHECK(flag && out == &x, "MPI_COMM_DUP_FN: flag %d, value %p for %p", flag, out, (void *)&x);
    flag = 0;
    out = NULL;
    CHECK_MPI(cf(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &x, &out, &flag));
    CHECK(flag && out == &x, "MPI_DUP_FN: flag %d", flag);
    flag = 0;
    CHECK_MPI(tcf(MPI_INT, 0, NULL, &x, &out, &flag));
    CHECK(flag && out == &x, "MPI_TYPE_DUP_FN: flag %d", flag);
    flag = 0;
    CHECK_MPI(wcf(MPI_WIN_NULL, 0, NULL, &x, &out, &flag));
    CHECK(flag && out == &x, "MPI_WIN_DUP_FN: flag %d", flag);

    /* On keyvals: the dup ones copy to a duplicate, the null ones do not. */
    int kdup, kold, knull;
    MPI_Comm c;
    void *v = NULL;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kold, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, &x));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kold, &flag));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, &x));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_get_attr(c, kdup, &v, &flag));
    CHECK(flag && v == &x, "MPI_COMM_DUP_FN did not copy the attribute");
    CHECK_MPI(MPI_Comm_get_attr(c, kold, &v, &flag));
    CHECK(flag && v == &flag, "MPI_DUP_FN did not copy the attribute");
    CHECK_MPI(MPI_Comm_get_attr(c, knull, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied the attribute");
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup));
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kold));
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, knull));
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Comm_free_keyval(&kold));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
}

static void other_constants(void)
{
    int win_keys[] = {MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR,
                      MPI_WIN_MODEL};
    int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
                     MPI_WIN_FLAVOR_SHARED};
    int models[] = {MPI_WIN_SEPARATE, MPI_WIN_UNIFIED};
    int distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE,
                      MPI_DISTRIBUTE_DFLT_DARG};
    int classes[] = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX};
    CHECK(distinct(win_keys, 5), "window attribute keys are not distinct");
    CHECK(distinct(flavors, 4), "window flavors are not distinct");
    CHECK(distinct(models, 2), "window models are not distinct");
    CHECK(distinct(distribs, 4), "MPI_DISTRIBUTE_* are not distinct");
    CHECK(distinct(classes, 3), "MPI_TYPECLASS_* are not distinct");
    int *uw = MPI_UNWEIGHTED, *we = MPI_WEIGHTS_EMPTY;
    CHECK(uw != we, "MPI_UNWEIGHTED == MPI_WEIGHTS_EMPTY");
#ifdef BOLT_MPI
    /* Optional types whose kinds C lacks on some platform Bolt runs on: they
     * exist, as MPI_DATATYPE_NULL (Open MPI leaves some out of its C header). */
    MPI_Datatype optional[] = {MPI_INTEGER16, MPI_REAL2, MPI_REAL16, MPI_COMPLEX4, MPI_COMPLEX32};
    for (int i = 0; i < 5; i++)
        CHECK(optional[i] == MPI_DATATYPE_NULL, "optional type %d is not MPI_DATATYPE_NULL", i);
#endif
}

/* The Fortran and C++ types with the C type of the same layout. */
static const struct {
    MPI_Datatype dt;
    const char *name;
    int size;
} types[] = {
    {MPI_CHARACTER, "MPI_CHARACTER", 1},
    {MPI_LOGICAL, "MPI_LOGICAL", sizeof(int)},
    {MPI_INTEGER, "MPI_INTEGER", sizeof(int)},
    {MPI_REAL, "MPI_REAL", sizeof(float)},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", sizeof(double)},
    {MPI_COMPLEX, "MPI_COMPLEX", 2 * sizeof(float)},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 2 * sizeof(double)},
    {MPI_2REAL, "MPI_2REAL", 2 * sizeof(float)},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double)},
    {MPI_2INTEGER, "MPI_2INTEGER", 2 * sizeof(int)},
    {MPI_INTEGER1, "MPI_INTEGER1", 1},
    {MPI_INTEGER2, "MPI_INTEGER2", 2},
    {MPI_INTEGER4, "MPI_INTEGER4", 4},
    {MPI_INTEGER8, "MPI_INTEGER8", 8},
    {MPI_REAL4, "MPI_REAL4", 4},
    {MPI_REAL8, "MPI_REAL8", 8},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(bool)},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(float complex)},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(double complex)},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double complex)},
};
#define NTYPES (int)(sizeof types / sizeof types[0])

/* Size and name as the standard says; 3 elements around the ring, byte for byte. */
static void sizes_and_messages(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    for (int i = 0; i < NTYPES; i++) {
        int size = -1, len = 0;
        char name[MPI_MAX_OBJECT_NAME] = "";
        unsigned char out[3 * 32], in[3 * 32];
        CHECK_MPI(MPI_Type_size(types[i].dt, &size));
        CHECK(size == types[i].size, "%s: MPI_Type_size %d, want %d", types[i].name, size,
              types[i].size);
        CHECK_MPI(MPI_Type_get_name(types[i].dt, name, &len));
        CHECK(!strcmp(name, types[i].name), "%s is named '%s'", types[i].name, name);
        if (size != types[i].size)
            continue;
        for (int b = 0; b < 3 * size; b++) {
            out[b] = (unsigned char)(mt_rank * 31 + b * 7 + i);
            in[b] = 0;
        }
        /* bool travels as 0 or 1, whatever the bytes around it */
        if (types[i].dt == MPI_CXX_BOOL)
            for (int b = 0; b < 3; b++)
                out[b] = (unsigned char)((mt_rank + b) % 2);
        CHECK_MPI(MPI_Sendrecv(out, 3, types[i].dt, right, i, in, 3, types[i].dt, left, i,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int wrong = 0;
        for (int b = 0; b < 3 * size; b++) {
            unsigned char want = types[i].dt == MPI_CXX_BOOL
                                     ? (unsigned char)((left + b) % 2)
                                     : (unsigned char)(left * 31 + b * 7 + i);
            wrong += in[b] != want;
        }
        CHECK(!wrong, "%s: %d bytes wrong after a message", types[i].name, wrong);
    }
}

#define SUM_OF_RANKS (mt_size * (mt_size - 1) / 2)

/* MPI_SUM (and MPI_PROD for the complex ones) as in C on the same layout. */
#define CHECK_SUM(DT, T, NAME)                                                                  \
    do {                                                                                        \
        T v[2] = {(T)mt_rank, (T)(2 * mt_rank + 1)}, r[2] = {0, 0};                             \
        CHECK_MPI(MPI_Allreduce(v, r, 2, DT, MPI_SUM, MPI_COMM_WORLD));                         \
        CHECK(r[0] == (T)SUM_OF_RANKS && r[1] == (T)(2 * SUM_OF_RANKS + mt_size),               \
              "MPI_SUM on %s is wrong", NAME);                                                  \
    } while (0)

#define CHECK_CPROD(DT, T, NAME)                                                                \
    do {                                                                                        \
        T v = mt_rank % 2 ? (T)I : (T)1, r = 0, want = 1;                                       \
        for (int k = 0; k < mt_size; k++)                                                       \
            want *= k % 2 ? (T)I : (T)1;                                                        \
        CHECK_MPI(MPI_Allreduce(&v, &r, 1, DT, MPI_PROD, MPI_COMM_WORLD));                      \
        CHECK(r == want, "MPI_PROD on %s is wrong", NAME);                                      \
    } while (0)

static void reductions(void)
{
    CHECK_SUM(MPI_INTEGER, int, "MPI_INTEGER");
    CHECK_SUM(MPI_REAL, float, "MPI_REAL");
    CHECK_SUM(MPI_DOUBLE_PRECISION, double, "MPI_DOUBLE_PRECISION");
    CHECK_SUM(MPI_INTEGER1, int8_t, "MPI_INTEGER1");
    CHECK_SUM(MPI_INTEGER2, int16_t, "MPI_INTEGER2");
    CHECK_SUM(MPI_INTEGER4, int32_t, "MPI_INTEGER4");
    CHECK_SUM(MPI_INTEGER8, int64_t, "MPI_INTEGER8");
    CHECK_SUM(MPI_REAL4, float, "MPI_REAL4");
    CHECK_SUM(MPI_REAL8, double, "MPI_REAL8");
    CHECK_SUM(MPI_COMPLEX, float complex, "MPI_COMPLEX");
    CHECK_SUM(MPI_DOUBLE_COMPLEX, double complex, "MPI_DOUBLE_COMPLEX");
    CHECK_SUM(MPI_COMPLEX8, float complex, "MPI_COMPLEX8");
    CHECK_SUM(MPI_COMPLEX16, double complex, "MPI_COMPLEX16");
    CHECK_SUM(MPI_CXX_FLOAT_COMPLEX, float complex, "MPI_CXX_FLOAT_COMPLEX");
    CHECK_SUM(MPI_CXX_DOUBLE_COMPLEX, double complex, "MPI_CXX_DOUBLE_COMPLEX");
    CHECK_SUM(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex, "MPI_CXX_LONG_DOUBLE_COMPLEX");
    CHECK_CPROD(MPI_COMPLEX, float complex, "MPI_COMPLEX");
    CHECK_CPROD(MPI_DOUBLE_COMPLEX, double complex, "MPI_DOUBLE_COMPLEX");
    CHECK_CPROD(MPI_CXX_FLOAT_COMPLEX, float complex, "MPI_CXX_FLOAT_COMPLEX");
    CHECK_CPROD(MPI_CXX_DOUBLE_COMPLEX, double complex, "MPI_CXX_DOUBLE_COMPLEX");
    CHECK_CPROD(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex, "MPI_CXX_LONG_DOUBLE_COMPLEX");

    /* Logical ops: Fortran's LOGICAL (.TRUE. is 1 with gfortran) and C++'s bool. */
    int l = mt_rank == 0, land = -1, lor = -1;
    CHECK_MPI(MPI_Allreduce(&l, &land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&l, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(!land == (mt_size > 1) && lor, "MPI_LOGICAL: LAND %d, LOR %d", land, lor);
    bool bv = mt_rank == 0, band = false, bor = false;
    CHECK_MPI(MPI_Allreduce(&bv, &band, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&bv, &bor, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(band == (mt_size == 1) && bor, "MPI_CXX_BOOL: LAND %d, LOR %d", band, bor);

    /* Fortran's MAXLOC/MINLOC pairs: the index is of the value's type. The
     * highest value is on the middle rank and on the last (the lower index
     * wins the tie); the lowest on rank 0. */
    int mid = mt_size / 2, top = mt_size - 1;
    int hi = mt_rank == mid || mt_rank == top;
    float r2[2] = {hi ? 100.0f : (float)mt_rank, (float)mt_rank}, rmax[2], rmin[2];
    CHECK_MPI(MPI_Allreduce(r2, rmax, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(r2, rmin, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(rmax[0] == 100.0f && rmax[1] == (float)mid, "MPI_2REAL MAXLOC (%g, %g)", rmax[0], rmax[1]);
    CHECK(rmin[0] == (mt_size == 1 ? 100.0f : 0.0f) && rmin[1] == 0.0f, "MPI_2REAL MINLOC (%g, %g)",
          rmin[0], rmin[1]);
    double d2[2] = {hi ? 100.0 : (double)mt_rank, (double)mt_rank}, dmax[2], dmin[2];
    CHECK_MPI(MPI_Allreduce(d2, dmax, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(d2, dmin, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(dmax[0] == 100.0 && dmax[1] == (double)mid, "MPI_2DOUBLE_PRECISION MAXLOC (%g, %g)",
          dmax[0], dmax[1]);
    CHECK(dmin[1] == 0.0, "MPI_2DOUBLE_PRECISION MINLOC index %g", dmin[1]);
    int i2[2] = {hi ? 100 : mt_rank, mt_rank}, imax[2], imin[2];
    CHECK_MPI(MPI_Allreduce(i2, imax, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(i2, imin, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(imax[0] == 100 && imax[1] == mid, "MPI_2INTEGER MAXLOC (%d, %d)", imax[0], imax[1]);
    CHECK(imin[1] == 0, "MPI_2INTEGER MINLOC index %d", imin[1]);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_consts");
    callbacks();
    other_constants();
    sizes_and_messages();
    reductions();
    return mt_finish();
}
