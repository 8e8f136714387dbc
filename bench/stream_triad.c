/*
 * stream_triad.c — a STREAM-style triad (a[i] = b[i] + s * c[i] over three
 * float arrays far larger than the caches) on T threads: the memory
 * bandwidth a generating LLM can use, for bench/llm-compare's roofline.
 * Prints the best of REPS passes in GB/s (12 bytes an element: two reads,
 * one write).
 *
 *   stream_triad THREADS [MiB_PER_ARRAY REPS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    float *a, *b, *c;
    size_t lo, hi;
} part_t;

static void *triad(void *v)
{
    part_t *p = v;
    for (size_t i = p->lo; i < p->hi; i++)
        p->a[i] = p->b[i] + 3.0f * p->c[i];
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int th = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 3 ? atoi(argv[3]) : 10;
    size_t n = (size_t)(argc > 2 ? atoi(argv[2]) : 256) << 18; /* MiB -> floats */
    if (th < 1 || th > 256 || n == 0)
        return 2;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    if (!a || !b || !c)
        return 1;
    for (size_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
    }
    pthread_t t[256];
    part_t p[256];
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int k = 0; k < th; k++) {
            p[k] = (part_t){a, b, c, n * (size_t)k / (size_t)th, n * (size_t)(k + 1) / (size_t)th};
            pthread_create(&t[k], NULL, triad, &p[k]);
        }
        for (int k = 0; k < th; k++)
            pthread_join(t[k], NULL);
        double gbs = 12.0 * (double)n / (now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
    }
    printf("%.2f\n", best);
    free(a);
    free(b);
    free(c);
    return 0;
}
