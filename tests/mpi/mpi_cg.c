/* mpi_cg.c — conjugate gradient on the 1-D Poisson matrix tridiag(-1, 2, -1),
 * rows distributed in blocks (uneven when the ranks do not divide N): a halo
 * exchange of one value each side (MPI_PROC_NULL at the ends) for every
 * matrix-vector product and MPI_Allreduce for the dot products. The solution
 * must match the known one, the iteration count must be the same on every
 * rank and close to a serial run's (sums in another order may move it by one
 * or two, on any MPI stack). */
#include "mtest.h"

#define N 203
#define TOL 1e-10

/* A smooth solution; no libm, so any mpicc links it as it is. */
static double x_true(int i)
{
    double t = (double)i / N;
    return t * (1 - t) * (1 + 2 * t) + 0.01 * ((i * 7) % 5);
}

static double absd(double v) { return v < 0 ? -v : v; }

/* y = A x on rows lo..hi-1; x has one ghost each side: x[-1], x[n]. */
static void matvec(const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i] - x[i - 1] - x[i + 1];
}

static double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
    double s = 0, g = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    if (comm == MPI_COMM_NULL)
        return s;
    MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
    return g;
}

/* CG on rows lo..lo+n-1 of N; comm NULL means serial (n == N). Returns the
 * iteration count; x gets the solution. */
static int cg(int lo, int n, double *x, MPI_Comm comm, int left, int right)
{
    double *b = malloc(sizeof(double) * (n + 2)), *r = malloc(sizeof(double) * n);
    double *p = calloc(n + 2, sizeof(double)), *ap = malloc(sizeof(double) * n);
    double *xt = calloc(n + 2, sizeof(double));
    /* b = A x_true, from x_true's values including the neighbours' rows. */
    for (int i = -1; i <= n; i++) {
        int g = lo + i;
        xt[i + 1] = g < 0 || g >= N ? 0 : x_true(g);
    }
    matvec(xt + 1, b, n);
    for (int i = 0; i < n; i++) {
        x[i] = 0;
        r[i] = b[i];
        p[i + 1] = r[i];
    }
    double rs = dot(r, r, n, comm), stop = TOL * TOL * rs; /* |r| <= TOL |b| */
    int it = 0;
    while (rs > stop && it < 2 * N) {
        /* Halo: p[-1] from the left neighbour, p[n] from the right. */
        p[0] = p[n + 1] = 0;
        if (comm != MPI_COMM_NULL) {
            MPI_Sendrecv(&p[1], 1, MPI_DOUBLE, left, 0, &p[n + 1], 1, MPI_DOUBLE, right, 0, comm,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(&p[n], 1, MPI_DOUBLE, right, 1, &p[0], 1, MPI_DOUBLE, left, 1, comm,
                         MPI_STATUS_IGNORE);
        }
        matvec(p + 1, ap, n);
        double alpha = rs / dot(p + 1, ap, n, comm);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i + 1];
            r[i] -= alpha * ap[i];
        }
        double rs_new = dot(r, r, n, comm);
        for (int i = 0; i < n; i++)
            p[i + 1] = r[i] + rs_new / rs * p[i + 1];
        rs = rs_new;
        it++;
    }
    free(b);
    free(r);
    free(p);
    free(ap);
    free(xt);
    return it;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_cg");
    /* Block rows, the first N % size ranks one more. */
    int base = N / mt_size, extra = N % mt_size;
    int n = base + (mt_rank < extra), lo = mt_rank * base + (mt_rank < extra ? mt_rank : extra);
    int left = mt_rank == 0 ? MPI_PROC_NULL : mt_rank - 1;
    int right = mt_rank == mt_size - 1 ? MPI_PROC_NULL : mt_rank + 1;
    double *x = malloc(sizeof(double) * (n ? n : 1)), *xs = malloc(sizeof(double) * N);
    int it = cg(lo, n, x, MPI_COMM_WORLD, left, right);

    int lo_it, hi_it;
    MPI_Allreduce(&it, &lo_it, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&it, &hi_it, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo_it == hi_it, "ranks disagree on the iteration count: %d..%d", lo_it, hi_it);
    int serial_it = cg(0, N, xs, MPI_COMM_NULL, MPI_PROC_NULL, MPI_PROC_NULL);
    CHECK(abs(it - serial_it) <= 2, "%d iterations, serially %d", it, serial_it);
    CHECK(it > 10 && it <= N, "%d iterations for N = %d", it, N);

    double err = 0, gerr = 0;
    for (int i = 0; i < n; i++) {
        double d = absd(x[i] - x_true(lo + i));
        if (d > err)
            err = d;
    }
    MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(gerr < 1e-6, "solution error %g after %d iterations", gerr, it);
    if (mt_rank == 0 && getenv("MPI_CG_VERBOSE"))
        printf("mpi_cg: %d iterations (serial %d), max error %.3g\n", it, serial_it, gerr);
    free(x);
    free(xs);
    return mt_finish();
}
