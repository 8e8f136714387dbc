/*
 * bolt_allreduce.c — time per call of bolt_allreduce (float32 sum) at 4 B,
 * 64 KiB, 1 MiB and 16 MiB: the median of REPEATS timings, each the slowest
 * rank's mean over a batch of calls. The algorithm is the one
 * BOLT_ALLREDUCE_ALGO selects (run once per algorithm:
 * `boltrun -np 4 -x BOLT_ALLREDUCE_ALGO=ring bench/bolt_allreduce [BYTES...]`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_stats.h"
#include "bolt.h"

int main(int argc, char **argv)
{
    size_t sizes[16] = {4, 64 << 10, 1 << 20, 16 << 20}, nsizes = 4;
    int rank, size;
    if (bolt_init(&argc, &argv) != BOLT_OK)
        return 1;
    bolt_comm_t w = bolt_comm_world();
    bolt_comm_rank(w, &rank);
    bolt_comm_size(w, &size);
    const char *algo = getenv("BOLT_ALLREDUCE_ALGO");
    if (argc > 1) /* sizes in bytes instead of the default ones */
        for (nsizes = 0; nsizes < 16 && (int)nsizes + 1 < argc; nsizes++)
            sizes[nsizes] = strtoull(argv[nsizes + 1], NULL, 0);
    for (size_t k = 0; k < nsizes; k++) {
        size_t bytes = sizes[k], count = bytes / 4;
        float *in = malloc(bytes), *out = malloc(bytes);
        if (!in || !out)
            return 1;
        for (size_t i = 0; i < count; i++)
            in[i] = (float)(i % 100) * 0.5f + (float)rank;
        int iters = bytes <= 4096 ? 200 : bytes <= (1 << 20) ? 20 : 3;
        double t[REPEATS];
        bolt_allreduce(in, out, count, BOLT_FLOAT32, BOLT_SUM, w); /* warm-up */
        for (int r = 0; r < REPEATS; r++) {
            bolt_barrier(w);
            double t0 = bolt_wtime();
            for (int i = 0; i < iters; i++)
                if (bolt_allreduce(in, out, count, BOLT_FLOAT32, BOLT_SUM, w) != BOLT_OK) {
                    fprintf(stderr, "allreduce: %s\n", bolt_error_message());
                    return 1;
                }
            double mine = (bolt_wtime() - t0) / iters, slowest;
            bolt_allreduce(&mine, &slowest, 1, BOLT_FLOAT64, BOLT_MAX, w);
            t[r] = slowest;
        }
        if (rank == 0)
            printf("allreduce np %d %-13s %9zu B  %10.1f us  (auto would pick %s)\n", size,
                   algo && *algo ? algo : "auto", bytes, bench_median(t, REPEATS) * 1e6,
                   bolt_coll_algorithm("allreduce", bytes, w));
        free(in);
        free(out);
    }
    bolt_finalize();
    return 0;
}
