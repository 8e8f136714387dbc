/* mpi_coll — collective latency on the MPI API: all-reduce (sum of floats),
 * broadcast, all-gather, reduce-scatter-block and barrier, from 4 B to MAX
 * bytes per rank, median of REPEATS. The same source builds with Bolt's
 * libmpi and with Open MPI's and MPICH's mpicc (bench/compare runs them).
 * CSV: bench,op,LABEL,ranks,bytes,us,algorithm (Bolt names the algorithm
 * its selection picked; other MPIs print "-"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

#ifdef BOLT_MPI
#include <bolt.h>
static const char *algo(const char *op, size_t bytes)
{
    const char *a = bolt_coll_algorithm(op, bytes, bolt_comm_world());
    return a ? a : "-";
}
#else
static const char *algo(const char *op, size_t bytes) { (void)op, (void)bytes; return "-"; }
#endif

enum { ALLREDUCE, BCAST, ALLGATHER, REDUCE_SCATTER, BARRIER, NOPS };
static const char *const names[NOPS] = {"allreduce", "bcast", "allgather", "reduce_scatter", "barrier"};

static void run(int op, float *a, float *b, int count, int n)
{
    switch (op) {
    case ALLREDUCE: MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(a, count, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(a, count, MPI_FLOAT, b, count, MPI_FLOAT, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER:
        MPI_Reduce_scatter_block(a, b, count / n > 0 ? count / n : 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    default: MPI_Barrier(MPI_COMM_WORLD); break;
    }
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t max = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
    const char *label = argc > 2 ? argv[2] : "mpi";
    const char *only = argc > 3 ? argv[3] : "all";
    /* all-gather receives n times the per-rank size */
    size_t room = max * (size_t)n + 64;
    float *a = bench_alloc_touched(room), *b = bench_alloc_touched(room);
    for (size_t i = 0; i < max / sizeof(float); i++)
        a[i] = (float)(rank + i % 7);
    for (int op = 0; op < NOPS; op++) {
        if (strcmp(only, "all") && !strstr(only, names[op]))
            continue;
        for (size_t bytes = 4; bytes <= max; bytes *= 4) {
            if (op == BARRIER && bytes > 4)
                break;
            if (op == REDUCE_SCATTER && bytes < 4 * (size_t)n)
                continue;
            int count = (int)(bytes / sizeof(float));
            int iters = bytes <= 65536 ? 200 : bytes <= (1 << 20) ? 20 : bytes <= (16 << 20) ? 3 : 2;
            int repeats = bytes > (16 << 20) ? 5 : REPEATS;
            double t[REPEATS];
            run(op, a, b, count, n); /* warm-up */
            for (int r = 0; r < repeats; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++)
                    run(op, a, b, count, n);
                double dt = (MPI_Wtime() - t0) / iters * 1e6, worst;
                /* a collective takes as long as its slowest rank */
                MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[r] = worst;
            }
            if (rank == 0) {
                printf("bench,%s,%s,%d,%zu,%.3f,%s\n", names[op], label, n, bytes,
                       bench_median(t, repeats), algo(names[op], bytes));
                fflush(stdout);
            }
        }
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
