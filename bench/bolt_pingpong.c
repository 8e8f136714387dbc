/* bolt_pingpong — point-to-point latency and bandwidth on Bolt's native API.
 *
 * Latency: half the round trip of a ping-pong between ranks 0 and 1.
 * Bandwidth: a window of nonblocking sends from 0 to 1, then one ack.
 * Each size is measured REPEATS times and the median is printed, as CSV:
 *   bench,op,transport,ranks,bytes,bolt_us,MBps                              */
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"
#include <string.h>

#include "bolt.h"

static void ok(int rc)
{
    if (rc != BOLT_OK) {
        fprintf(stderr, "bolt_pingpong: %s\n", bolt_error_message());
        bolt_abort(1, "benchmark failed");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    ok(bolt_init(&argc, &argv));
    bolt_comm_t w = bolt_comm_world();
    bolt_comm_rank(w, &rank);
    bolt_comm_size(w, &size);
    if (size < 2) {
        fprintf(stderr, "bolt_pingpong: run with boltrun -np 2\n");
        bolt_finalize();
        return 2;
    }
    size_t max = (size_t)16 << 20;
    if (argc > 1)
        max = (size_t)strtoull(argv[1], NULL, 0);
    /* As bench/mpi_pingpong.c does, so that the two compare the MPI face's
     * cost and nothing else: pages touched, a warm-up exchange, same counts. */
    char *buf = malloc(max), *rbuf[WINDOW];
    memset(buf, 1, max);
    for (int i = 0; i < WINDOW; i++)
        rbuf[i] = bench_alloc_touched(max);
    const char *tl = getenv("BOLT_TRANSPORTS") ? getenv("BOLT_TRANSPORTS") : "native";
    if (rank == 0)
        printf("bench,op,transport,ranks,bytes,bolt_us,MBps\n");
    for (size_t n = 1; n <= max; n *= 4) {
        int iters = n <= 65536 ? 500 : n <= (1 << 20) ? 30 : 4;
        double lat[REPEATS], bw[REPEATS];
        for (int r = 0; r < REPEATS && rank < 2; r++) {
            double t0 = 0;
            for (int i = -1; i < iters; i++) {
                if (i == 0)
                    t0 = bolt_wtime();
                if (rank == 0) {
                    ok(bolt_send(buf, n, 1, 1, w));
                    ok(bolt_recv(rbuf[0], n, 1, 1, w, NULL));
                } else {
                    ok(bolt_recv(rbuf[0], n, 0, 1, w, NULL));
                    ok(bolt_send(buf, n, 0, 1, w));
                }
            }
            lat[r] = (bolt_wtime() - t0) / iters / 2 * 1e6;
            bolt_request_t reqs[WINDOW];
            int reps = n <= 65536 ? 20 : 2;
            t0 = bolt_wtime();
            for (int k = 0; k < reps; k++) {
                for (int i = 0; i < WINDOW; i++) {
                    if (rank == 0)
                        ok(bolt_isend(buf, n, 1, 2, w, &reqs[i]));
                    else
                        ok(bolt_irecv(rbuf[i], n, 0, 2, w, &reqs[i]));
                }
                ok(bolt_waitall(WINDOW, reqs, NULL));
            }
            char ack = 0;
            if (rank == 0)
                ok(bolt_recv(&ack, 1, 1, 3, w, NULL));
            else
                ok(bolt_send(&ack, 1, 0, 3, w));
            bw[r] = (double)n * WINDOW * reps / (bolt_wtime() - t0) / 1e6;
        }
        if (rank == 0) {
            printf("bench,latency,%s,2,%zu,%.3f,\n", tl, n, bench_median(lat, REPEATS));
            printf("bench,bandwidth,%s,2,%zu,,%.1f\n", tl, n, bench_median(bw, REPEATS));
            fflush(stdout);
        }
    }
    free(buf);
    for (int i = 0; i < WINDOW; i++)
        free(rbuf[i]);
    ok(bolt_finalize());
    return 0;
}
