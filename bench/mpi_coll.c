/* mpi_coll — blocking collective latency on the MPI API: every blocking
 * collective (sum of floats where there is a reduction, root 0 where there is
 * a root), from 4 B to MAX bytes per rank, timed two ways:
 *   loop:    a tight loop of calls; the slowest rank's mean (a collective
 *            takes as long as its slowest rank); median of the repeats;
 *   barrier: a barrier before each call, each call timed on every rank and
 *            averaged over the calls and then over the ranks, as the OSU
 *            Micro-Benchmarks do (ranks may be asleep when a call starts);
 *            median of the repeats.
 * Sizes are per rank's block: all-gather, all-to-all, gather and scatter move
 * n blocks of it; reduce-scatter(-block) splits it over the ranks.
 * The same source builds with Bolt's libmpi and with Open MPI's and MPICH's
 * mpicc (bench/compare runs them). CSV:
 *   bench,op,mode,LABEL,ranks,bytes,us,algorithm
 * (Bolt names the algorithm its selection picked; other MPIs print "-"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

enum {
    ALLREDUCE, BCAST, REDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, GATHER, GATHERV,
    SCATTER, SCATTERV, REDUCE_SCATTER, REDUCE_SCATTER_V, SCAN, BARRIER, NOPS
};
/* reduce_scatter is MPI_Reduce_scatter_block (the name earlier tables used);
 * reduce_scatter_v is MPI_Reduce_scatter with equal counts. */
static const char *const names[NOPS] = {
    "allreduce", "bcast",   "reduce",  "allgather", "allgatherv",     "alltoall",         "alltoallv",
    "gather",    "gatherv", "scatter", "scatterv",  "reduce_scatter", "reduce_scatter_v", "scan",
    "barrier"};
/* the name bolt_coll_algorithm knows the operation by */
static const char *const algo_names[NOPS] = {
    "allreduce", "bcast",   "reduce",  "allgather", "allgatherv",           "alltoall",       "alltoallv",
    "gather",    "gatherv", "scatter", "scatterv",  "reduce_scatter_block", "reduce_scatter", "scan",
    "barrier"};

struct coll_args {
    float *a, *b;
    int count, n;
    int *counts, *displs; /* n entries: count each, block i at i * count */
};

static void run(int op, const struct coll_args *c)
{
    int cnt = c->count, part = c->count / c->n > 0 ? c->count / c->n : 1;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (op) {
    case ALLREDUCE: MPI_Allreduce(c->a, c->b, cnt, MPI_FLOAT, MPI_SUM, w); break;
    case BCAST: MPI_Bcast(c->a, cnt, MPI_FLOAT, 0, w); break;
    case REDUCE: MPI_Reduce(c->a, c->b, cnt, MPI_FLOAT, MPI_SUM, 0, w); break;
    case ALLGATHER: MPI_Allgather(c->a, cnt, MPI_FLOAT, c->b, cnt, MPI_FLOAT, w); break;
    case ALLGATHERV:
        MPI_Allgatherv(c->a, cnt, MPI_FLOAT, c->b, c->counts, c->displs, MPI_FLOAT, w);
        break;
    case ALLTOALL: MPI_Alltoall(c->a, cnt, MPI_FLOAT, c->b, cnt, MPI_FLOAT, w); break;
    case ALLTOALLV:
        MPI_Alltoallv(c->a, c->counts, c->displs, MPI_FLOAT, c->b, c->counts, c->displs, MPI_FLOAT, w);
        break;
    case GATHER: MPI_Gather(c->a, cnt, MPI_FLOAT, c->b, cnt, MPI_FLOAT, 0, w); break;
    case GATHERV: MPI_Gatherv(c->a, cnt, MPI_FLOAT, c->b, c->counts, c->displs, MPI_FLOAT, 0, w); break;
    case SCATTER: MPI_Scatter(c->a, cnt, MPI_FLOAT, c->b, cnt, MPI_FLOAT, 0, w); break;
    case SCATTERV: MPI_Scatterv(c->a, c->counts, c->displs, MPI_FLOAT, c->b, cnt, MPI_FLOAT, 0, w); break;
    case REDUCE_SCATTER: MPI_Reduce_scatter_block(c->a, c->b, part, MPI_FLOAT, MPI_SUM, w); break;
    case REDUCE_SCATTER_V: {
        /* counts of `part` each: the same data as the block form */
        int *rc = c->counts + c->n;
        MPI_Reduce_scatter(c->a, c->b, rc, MPI_FLOAT, MPI_SUM, w);
        break;
    }
    case SCAN: MPI_Scan(c->a, c->b, cnt, MPI_FLOAT, MPI_SUM, w); break;
    default: MPI_Barrier(w); break;
    }
}

/* One repeat of `iters` calls in `mode`: microseconds per call. */
static double measure(int op, const struct coll_args *c, int iters, int barrier_mode)
{
    double mine, all;
    if (!barrier_mode) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run(op, c);
        mine = (MPI_Wtime() - t0) / iters * 1e6;
        /* a collective takes as long as its slowest rank */
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return all;
    }
    double sum = 0;
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        run(op, c);
        sum += MPI_Wtime() - t0;
    }
    mine = sum / iters * 1e6;
    /* OSU's figure: each rank's mean, averaged over the ranks */
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all / c->n;
}

static void usage(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "mpi_coll: %s\nusage: mpi_coll [-m MAX_BYTES] [-l LABEL] [-o OP,OP...|all] "
                "[-t loop|barrier|both] [-f SIZE_FACTOR] [-q]\n  ops: allreduce bcast reduce "
                "allgather allgatherv alltoall alltoallv gather gatherv scatter scatterv "
                "reduce_scatter reduce_scatter_v scan barrier\n",
                why);
    MPI_Finalize();
    exit(2);
}

/* Whether `want` ("all" or a comma-separated list) names op exactly. */
static int wanted(const char *want, const char *op)
{
    if (strcmp(want, "all") == 0)
        return 1;
    size_t k = strlen(op);
    for (const char *p = want; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == k && strncmp(p, op, k) == 0)
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, n, opt, quick = 0, modes = 3; /* bit 0: loop, bit 1: barrier */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t max = (size_t)64 << 20, factor = 4;
    const char *label = "mpi", *only = "all";
    char *end;
    while ((opt = getopt(argc, argv, "m:l:o:t:f:q")) != -1) {
        switch (opt) {
        case 'm':
            max = (size_t)strtoull(optarg, &end, 0);
            if (*end || max < 4)
                usage(rank, "-m wants a byte count of at least 4");
            break;
        case 'l': label = optarg; break;
        case 'o': only = optarg; break;
        case 't':
            modes = !strcmp(optarg, "loop") ? 1 : !strcmp(optarg, "barrier") ? 2 : !strcmp(optarg, "both") ? 3 : 0;
            if (!modes)
                usage(rank, "-t wants loop, barrier or both");
            break;
        case 'f':
            factor = (size_t)strtoull(optarg, &end, 0);
            if (*end || factor < 2)
                usage(rank, "-f wants a size factor of at least 2");
            break;
        case 'q': quick = 1; break;
        default: usage(rank, "unknown option");
        }
    }
    if (optind < argc)
        usage(rank, "unexpected argument (options only)");
    for (const char *p = only; strcmp(only, "all") && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int known = 0;
        for (int op = 0; op < NOPS; op++)
            known |= strlen(names[op]) == len && !strncmp(p, names[op], len);
        if (!known) {
            char why[160];
            snprintf(why, sizeof why, "-o: '%.*s' is not an operation of this benchmark", (int)len, p);
            usage(rank, why);
        }
        p += len + (e != NULL);
    }
    /* n blocks of up to max bytes each way, for the gathers and all-to-alls */
    size_t room = max * (size_t)n + 64;
    float *a = bench_alloc_touched(room), *b = bench_alloc_touched(room);
    int *counts = malloc(sizeof(int) * 3 * (size_t)n);
    if (!a || !b || !counts) {
        fprintf(stderr, "mpi_coll: rank %d: cannot allocate 2 x %zu bytes (lower -m)\n", rank, room);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < room / sizeof(float); i++)
        a[i] = (float)(rank + i % 7);
    struct coll_args c = {.a = a, .b = b, .n = n, .counts = counts, .displs = counts + 2 * n};
    int reps_max = quick ? 3 : REPEATS;
    for (int op = 0; op < NOPS; op++) {
        if (!wanted(only, names[op]))
            continue;
        for (size_t bytes = 4; bytes <= max; bytes *= factor) {
            if (op == BARRIER && bytes > 4)
                break;
            if ((op == REDUCE_SCATTER || op == REDUCE_SCATTER_V) && bytes < 4 * (size_t)n)
                continue;
            c.count = (int)(bytes / sizeof(float));
            int part = c.count / n > 0 ? c.count / n : 1;
            for (int i = 0; i < n; i++) {
                counts[i] = c.count;
                counts[n + i] = part;
                c.displs[i] = i * c.count;
            }
            int iters = bytes <= 65536 ? 200 : bytes <= (1 << 20) ? 20 : bytes <= (16 << 20) ? 3 : 2;
            if (quick)
                iters = iters / 40 > 2 ? iters / 40 : 2;
            int repeats = bytes > (16 << 20) && reps_max > 5 ? 5 : reps_max;
            for (int mode = 0; mode < 2; mode++) {
                if (!(modes & (1 << mode)))
                    continue;
                double t[REPEATS];
                run(op, &c); /* warm-up */
                for (int r = 0; r < repeats; r++)
                    t[r] = measure(op, &c, iters, mode);
                if (rank == 0) {
                    printf("bench,%s,%s,%s,%d,%zu,%.3f,%s\n", names[op], mode ? "barrier" : "loop", label,
                           n, bytes, bench_median(t, repeats), algo(algo_names[op], bytes));
                    fflush(stdout);
                }
            }
        }
    }
    free(counts);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
