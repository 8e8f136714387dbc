/* mpi_complex.c — MPI_SUM and MPI_PROD on every C complex type (MPI 3.1,
 * 5.9.2: both are defined on the Complex group), through blocking, local and
 * nonblocking reductions, against a serial reference. The values are Gaussian integers
 * whose sums and products are exact in every precision, so results compare
 * exactly. */
#include <complex.h>

#include "mtest.h"

enum { N = 7 };

/* The value rank r contributes at element k: small sums; products of units
 * and of (1+i), whose powers stay exact. */
static long double complex value(int op_is_prod, int r, int k)
{
    static const long double complex units[4] = {1, I, -1, -I};
    if (!op_is_prod)
        return (long double)(r + 3 * k - 2) + (long double)(2 * r - k) * I;
    return (r + k) % 3 == 0 ? 1 + I : units[(r + 2 * k) % 4];
}

/* Compared by value: long double has padding bytes that memcmp would see. */
#define DEFINE_CHECK(NAME, T)                                                                   \
    static int NAME##_same(const T *a, const T *b)                                              \
    {                                                                                           \
        int ok = 1;                                                                             \
        for (int k = 0; k < N; k++)                                                             \
            ok &= a[k] == b[k];                                                                 \
        return ok;                                                                              \
    }                                                                                           \
    static void NAME(MPI_Datatype dt, const char *tname)                                        \
    {                                                                                           \
        MPI_Op ops[2] = {MPI_SUM, MPI_PROD};                                                    \
        for (int o = 0; o < 2; o++) {                                                           \
            T in[N], out[N], want[N], acc[N];                                                   \
            MPI_Request rq;                                                                     \
            for (int k = 0; k < N; k++) {                                                       \
                in[k] = (T)value(o, mt_rank, k);                                                \
                want[k] = (T)value(o, 0, k);                                                    \
                for (int r = 1; r < mt_size; r++)                                               \
                    want[k] = o ? want[k] * (T)value(o, r, k) : want[k] + (T)value(o, r, k);    \
            }                                                                                   \
            const char *oname = o ? "MPI_PROD" : "MPI_SUM";                                     \
            CHECK_MPI(MPI_Allreduce(in, out, N, dt, ops[o], MPI_COMM_WORLD));                   \
            CHECK(NAME##_same(out, want), "MPI_Allreduce %s on %s is wrong", oname, tname);     \
            memset(out, 0, sizeof out);                                                         \
            CHECK_MPI(MPI_Reduce(in, out, N, dt, ops[o], 0, MPI_COMM_WORLD));                   \
            CHECK(mt_rank != 0 || NAME##_same(out, want), "MPI_Reduce %s on %s is wrong",       \
                  oname, tname);                                                                \
            memset(out, 0, sizeof out);                                                         \
            CHECK_MPI(MPI_Iallreduce(in, out, N, dt, ops[o], MPI_COMM_WORLD, &rq));             \
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                        \
            CHECK(NAME##_same(out, want), "MPI_Iallreduce %s on %s is wrong", oname, tname);    \
            /* Reduce_local: acc = in op acc, with acc = value of rank + 1 */                   \
            for (int k = 0; k < N; k++)                                                         \
                acc[k] = (T)value(o, mt_rank + 1, k);                                           \
            CHECK_MPI(MPI_Reduce_local(in, acc, N, dt, ops[o]));                                \
            int wrong = 0;                                                                      \
            for (int k = 0; k < N; k++) {                                                       \
                T w = o ? (T)value(o, mt_rank, k) * (T)value(o, mt_rank + 1, k)                 \
                        : (T)value(o, mt_rank, k) + (T)value(o, mt_rank + 1, k);                \
                wrong += acc[k] != w;                                                           \
            }                                                                                   \
            CHECK(!wrong, "MPI_Reduce_local %s on %s: %d wrong", oname, tname, wrong);          \
        }                                                                                       \
    }

DEFINE_CHECK(check_float, float complex)
DEFINE_CHECK(check_double, double complex)
DEFINE_CHECK(check_long_double, long double complex)

#ifdef BOLT_MPI
/* MPI promises predefined operations on predefined types only; Bolt, as
 * MPICH, also applies them to a derived type made of one predefined type
 * (Open MPI refuses). In place, every other element of a buffer. */
#define DEFINE_STRIDED(NAME, T)                                                                 \
    static void NAME(MPI_Datatype dt, const char *tname)                                        \
    {                                                                                           \
        MPI_Op ops[2] = {MPI_SUM, MPI_PROD};                                                    \
        for (int o = 0; o < 2; o++) {                                                           \
            T buf[2 * N];                                                                       \
            MPI_Datatype vec;                                                                   \
            int wrong = 0;                                                                      \
            for (int k = 0; k < 2 * N; k++)                                                     \
                buf[k] = k % 2 ? (T)-7 : (T)value(o, mt_rank, k / 2);                           \
            CHECK_MPI(MPI_Type_vector(N, 1, 2, dt, &vec));                                      \
            CHECK_MPI(MPI_Type_commit(&vec));                                                   \
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, 1, vec, ops[o], MPI_COMM_WORLD));        \
            for (int k = 0; k < 2 * N; k++) {                                                   \
                T w = k % 2 ? (T)-7 : (T)value(o, 0, k / 2);                                    \
                for (int r = 1; r < mt_size && k % 2 == 0; r++)                                 \
                    w = o ? w * (T)value(o, r, k / 2) : w + (T)value(o, r, k / 2);              \
                wrong += buf[k] != w;                                                           \
            }                                                                                   \
            CHECK(!wrong, "MPI_Allreduce %s on a vector of %s: %d wrong",                       \
                  o ? "MPI_PROD" : "MPI_SUM", tname, wrong);                                    \
            CHECK_MPI(MPI_Type_free(&vec));                                                     \
        }                                                                                       \
    }
DEFINE_STRIDED(strided_float, float complex)
DEFINE_STRIDED(strided_double, double complex)
DEFINE_STRIDED(strided_long_double, long double complex)
#endif

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_complex");
    check_float(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
    check_float(MPI_C_COMPLEX, "MPI_C_COMPLEX");
    check_double(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
    check_long_double(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
#ifdef BOLT_MPI
    strided_float(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
    strided_double(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
    strided_long_double(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
#endif
    return mt_finish();
}
