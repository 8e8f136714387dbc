/*
 * dgemm_probe.c — the rate of DGEMM on this process, in the shape of HPL's
 * trailing update (C -= A B with A m x k, B k x n): the NB probe of --auto
 * and the peak the benchmark compares against (--dgemm-peak).
 */
#include <stdlib.h>

#include "hpl_port/blas.h"
#include "hpl_port/probe.h"

static void fill(double *a, size_t n, unsigned seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = 0.5 - (double)(x >> 11) * 0x1.0p-53;
    }
}

int hpl_dgemm_rate(int m, int n, int k, int reps, double *best_gflops)
{
    double *a = malloc((size_t)m * (size_t)k * sizeof(double));
    double *b = malloc((size_t)k * (size_t)n * sizeof(double));
    double *c = malloc((size_t)m * (size_t)n * sizeof(double));
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return hpl_error(BOLT_ERR_NOMEM, "DGEMM probe: out of memory for %d x %d x %d", m, n, k);
    }
    fill(a, (size_t)m * (size_t)k, 1);
    fill(b, (size_t)k * (size_t)n, 2);
    fill(c, (size_t)m * (size_t)n, 3);
    double best = 0;
    /* one call first: threads started, pages touched, caches warm */
    for (int r = 0; r <= reps; r++) {
        double t = bolt_wtime();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, a, m, b, k, 1.0, c, m);
        t = bolt_wtime() - t;
        double gf = 2.0 * m * (double)n * k / t / 1e9;
        if (r > 0 && gf > best)
            best = gf;
    }
    free(a);
    free(b);
    free(c);
    *best_gflops = best;
    return 0;
}
