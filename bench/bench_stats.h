/* bench_stats.h — what every benchmark here reports: medians of repeats. */
#ifndef BOLT_BENCH_STATS_H
#define BOLT_BENCH_STATS_H

#include <stdlib.h>
#include <string.h>

/* Repeats per size, and the window of messages in flight for bandwidth. */
#define REPEATS 11
#define WINDOW 16

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v in place and returns its median. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

/* n bytes with every page touched before timing. (The barrier keeps the
 * compiler from turning malloc + memset(0) into calloc, which touches
 * nothing: the first timed use of each page then paid its fault.) */
static inline void *bench_alloc_touched(size_t n)
{
    void *p = malloc(n);
    __asm__ __volatile__("" ::"r"(p) : "memory");
    if (p)
        memset(p, 0, n);
    return p;
}

#endif
