/* mpi_type_misc.c — the rest of the datatype calls: MPI_Type_match_size and
 * the Fortran kind types MPI_Type_create_f90_integer/real/complex (MPI 3.1,
 * 17.1.9: a kind per precision and range, the same handle for the same
 * arguments, predefined so not freeable, usable in messages and
 * reductions); the MPI_Count queries (_x); and MPI-1's names that MPI 3.0
 * removed but older codes still call (MPI_Address, MPI_Type_extent,
 * MPI_Type_lb, MPI_Type_ub, MPI_Type_hvector, MPI_Type_hindexed,
 * MPI_Type_struct), each the same as its replacement. */
/* Open MPI declares the MPI-1 names only when asked this way. */
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0
#include "mtest.h"

static int type_size(MPI_Datatype t)
{
    int s = -1;
    MPI_Type_size(t, &s);
    return s;
}

static void match_size(void)
{
    static const struct {
        int cls, size;
    } ok[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
              {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},
              {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int ni, na, nd, comb;
        CHECK_MPI(MPI_Type_match_size(ok[i].cls, ok[i].size, &t));
        CHECK(type_size(t) == ok[i].size, "class %d size %d: a type of %d bytes", ok[i].cls,
              ok[i].size, type_size(t));
        MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_NAMED, "class %d size %d: not a named type (%d)", ok[i].cls,
              ok[i].size, comb);
    }
    MPI_Datatype t;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) != MPI_SUCCESS, "a 3-byte integer");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t) != MPI_SUCCESS, "a 2-byte real");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t) != MPI_SUCCESS, "a 4-byte complex");
}

static void f90_kinds(void)
{
    /* SELECTED_INT_KIND: range 10^r */
    static const int ir[][2] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}};
    for (size_t i = 0; i < sizeof ir / sizeof *ir; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL, t2 = MPI_DATATYPE_NULL;
        CHECK_MPI(MPI_Type_create_f90_integer(ir[i][0], &t));
        CHECK(type_size(t) == ir[i][1], "f90 integer r=%d: %d bytes, expected %d", ir[i][0],
              type_size(t), ir[i][1]);
        CHECK_MPI(MPI_Type_create_f90_integer(ir[i][0], &t2));
        CHECK(t == t2, "f90 integer r=%d: two calls gave two handles", ir[i][0]);
    }
    /* SELECTED_REAL_KIND: p digits, range 10^r */
    static const int rr[][3] = {{6, MPI_UNDEFINED, 4},   {7, MPI_UNDEFINED, 8},
                                {15, MPI_UNDEFINED, 8},  {MPI_UNDEFINED, 37, 4},
                                {MPI_UNDEFINED, 38, 8},  {MPI_UNDEFINED, 307, 8},
                                {6, 100, 8},             {3, 10, 4}};
    for (size_t i = 0; i < sizeof rr / sizeof *rr; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL, c = MPI_DATATYPE_NULL;
        CHECK_MPI(MPI_Type_create_f90_real(rr[i][0], rr[i][1], &t));
        CHECK(type_size(t) == rr[i][2], "f90 real p=%d r=%d: %d bytes, expected %d", rr[i][0],
              rr[i][1], type_size(t), rr[i][2]);
        CHECK_MPI(MPI_Type_create_f90_complex(rr[i][0], rr[i][1], &c));
        CHECK(type_size(c) == 2 * rr[i][2], "f90 complex p=%d r=%d: %d bytes, expected %d",
              rr[i][0], rr[i][1], type_size(c), 2 * rr[i][2]);
    }
    MPI_Datatype a, b, c;
    CHECK_MPI(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &a));
    CHECK_MPI(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &b));
    CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 200, &c));
    CHECK(a == b, "f90 real (10, -): two calls gave two handles");
    /* usable at once (predefined: committed) in a reduction and a message */
    double x = 1.5 + mt_rank, sum = 0;
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, a, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == 1.5 * mt_size + mt_size * (mt_size - 1) / 2.0, "f90 real sum %g", sum);
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    double got = -1;
    CHECK_MPI(MPI_Sendrecv(&x, 1, c, to, 1, &got, 1, c, from, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == 1.5 + from, "f90 real message: %g from rank %d", got, from);
    /* predefined: freeing one is an error and leaves it usable */
    CHECK(MPI_Type_free(&b) != MPI_SUCCESS, "an f90 type was freed");
    CHECK(type_size(a) == 8, "the f90 type after a refused free: %d bytes", type_size(a));
#ifdef BOLT_MPI /* beyond Bolt's kinds; Open MPI has 16-byte reals, and 16-byte integers vary */
    int cls = 0;
    MPI_Error_class(MPI_Type_create_f90_integer(19, &a), &cls);
    CHECK(cls == MPI_ERR_ARG, "f90 integer r=19: class %d", cls);
    MPI_Error_class(MPI_Type_create_f90_real(16, MPI_UNDEFINED, &a), &cls);
    CHECK(cls == MPI_ERR_ARG, "f90 real p=16: class %d", cls);
    MPI_Error_class(MPI_Type_create_f90_complex(MPI_UNDEFINED, 400, &a), &cls);
    CHECK(cls == MPI_ERR_ARG, "f90 complex r=400: class %d", cls);
    MPI_Error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &a), &cls);
    CHECK(cls == MPI_ERR_ARG, "f90 real with neither p nor r: class %d", cls);
#endif
}

static void count_queries(void)
{
    MPI_Datatype v, r;
    MPI_Count lb, ext, size, n;
    MPI_Aint alb, aext;
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_create_resized(v, -16, 200, &r));
    CHECK_MPI(MPI_Type_commit(&r));
    CHECK_MPI(MPI_Type_get_extent_x(r, &lb, &ext));
    CHECK(lb == -16 && ext == 200, "get_extent_x: lb %lld extent %lld", lb, ext);
    CHECK_MPI(MPI_Type_get_true_extent_x(r, &lb, &ext));
    MPI_Type_get_true_extent(r, &alb, &aext);
    CHECK(lb == 0 && ext == 10 * 8 && lb == alb && ext == aext,
          "get_true_extent_x: lb %lld extent %lld", lb, ext);
    CHECK_MPI(MPI_Type_size_x(r, &size));
    CHECK(size == 6 * 8, "size_x %lld", size);
    /* a message of 2 whole elements and 3 doubles of a third */
    double buf[128] = {0};
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(buf, 15, MPI_DOUBLE, mt_rank, 2, buf + 16, 3, r, mt_rank, 2,
                           MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_elements_x(&st, r, &n));
    CHECK(n == 15, "get_elements_x: %lld basic elements", n);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
}

static void mpi1_names(void)
{
    double x[4];
    MPI_Aint a1, a2, e, lb, ub;
    CHECK_MPI(MPI_Address(&x[2], &a1));
    CHECK_MPI(MPI_Get_address(&x[2], &a2));
    CHECK(a1 == a2, "MPI_Address %ld, MPI_Get_address %ld", (long)a1, (long)a2);
    MPI_Datatype v, r;
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    CHECK_MPI(MPI_Type_create_resized(v, -8, 100, &r));
    CHECK_MPI(MPI_Type_extent(r, &e));
    CHECK_MPI(MPI_Type_lb(r, &lb));
    CHECK_MPI(MPI_Type_ub(r, &ub));
    CHECK(e == 100 && lb == -8 && ub == 92, "MPI-1 bounds: extent %ld lb %ld ub %ld", (long)e,
          (long)lb, (long)ub);
    /* the MPI-1 constructors build what their replacements do */
    MPI_Datatype old[3], neu[3];
    int bl[3] = {1, 2, 1};
    MPI_Aint dp[3] = {0, 12, 40};
    MPI_Datatype ts[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_hvector(3, 2, 20, MPI_INT, &old[0]));
    CHECK_MPI(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &neu[0]));
    CHECK_MPI(MPI_Type_hindexed(3, bl, dp, MPI_SHORT, &old[1]));
    CHECK_MPI(MPI_Type_create_hindexed(3, bl, dp, MPI_SHORT, &neu[1]));
    CHECK_MPI(MPI_Type_struct(3, bl, dp, ts, &old[2]));
    CHECK_MPI(MPI_Type_create_struct(3, bl, dp, ts, &neu[2]));
    unsigned char src[256], p1[128], p2[128];
    for (int i = 0; i < 256; i++)
        src[i] = (unsigned char)(i * 5 + 1);
    for (int k = 0; k < 3; k++) {
        int s1, s2, pos1 = 0, pos2 = 0;
        MPI_Aint e1, e2, l1, l2;
        MPI_Type_commit(&old[k]);
        MPI_Type_commit(&neu[k]);
        MPI_Type_size(old[k], &s1);
        MPI_Type_size(neu[k], &s2);
        MPI_Type_get_extent(old[k], &l1, &e1);
        MPI_Type_get_extent(neu[k], &l2, &e2);
        CHECK(s1 == s2 && e1 == e2 && l1 == l2, "MPI-1 constructor %d: size %d/%d extent %ld/%ld",
              k, s1, s2, (long)e1, (long)e2);
        MPI_Pack(src, 1, old[k], p1, sizeof p1, &pos1, MPI_COMM_WORLD);
        MPI_Pack(src, 1, neu[k], p2, sizeof p2, &pos2, MPI_COMM_WORLD);
        CHECK(pos1 == pos2 && !memcmp(p1, p2, (size_t)pos1),
              "MPI-1 constructor %d packs other bytes", k);
        MPI_Type_free(&old[k]);
        MPI_Type_free(&neu[k]);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_type_misc");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    match_size();
    f90_kinds();
    count_queries();
    mpi1_names();
    return mt_finish();
}
