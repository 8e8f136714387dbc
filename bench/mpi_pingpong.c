/* mpi_pingpong — point-to-point latency and bandwidth on the MPI API, so the
 * very same source builds with Bolt's boltcc and with Open MPI's and MPICH's
 * mpicc (bench/compare runs all three).
 *
 * Latency: half the round trip of a ping-pong between ranks 0 and 1.
 * Bandwidth: a window of WINDOW nonblocking sends from 0 to 1, then one ack.
 * memcpy: one thread copying the same size from the send buffer into the
 * window's receive buffers in turn, the bound a two-copy shared-memory path
 * is judged against.
 * Each size is measured REPEATS times (3 with a third argument "quick", of a
 * tenth the exchanges); the median is printed as CSV:
 *   bench,op,LABEL,ranks,bytes,us_per_message,MBps                            */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

/* One thread copying n bytes from the send buffer into the window's
 * receive buffers in turn, as the window's messages land: the bound a
 * two-copy path is judged against. (Copying into one buffer over and over
 * keeps both in cache up to a few MiB and measures the cache instead: about
 * 2x faster at 1-4 MiB here, see bench/README.md.) */
static double memcpy_rate(char **dst, const char *src, size_t n)
{
    int reps = n <= 65536 ? 2000 : n <= (1 << 20) ? 48 : 16;
    double t[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            memcpy(dst[i % WINDOW], src, n);
            __asm__ __volatile__("" ::"r"(dst[i % WINDOW]) : "memory"); /* keep every copy */
        }
        t[r] = (MPI_Wtime() - t0) / reps;
    }
    return (double)n / bench_median(t, REPEATS) / 1e6;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "mpi_pingpong: run with 2 ranks (mpirun -np 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t max = (size_t)16 << 20;
    if (argc > 1)
        max = (size_t)strtoull(argv[1], NULL, 0);
    const char *label = argc > 2 ? argv[2] : "mpi";
    int quick = argc > 3 && strcmp(argv[3], "quick") == 0, repeats = quick ? 3 : REPEATS;
    char *buf = malloc(max), *rbuf[WINDOW];
    memset(buf, 1, max);
    for (int i = 0; i < WINDOW; i++)
        rbuf[i] = bench_alloc_touched(max);
    for (size_t n = 1; n <= max; n *= 4) {
        int iters = n <= 65536 ? 500 : n <= (1 << 20) ? 30 : 4;
        if (quick)
            iters = iters / 10 > 1 ? iters / 10 : 1;
        double lat[REPEATS], bw[REPEATS];
        for (int r = 0; r < repeats && rank < 2; r++) {
            MPI_Request reqs[WINDOW];
            double t0 = 0;
            /* one warm-up exchange, then the timed ones */
            for (int i = -1; i < iters; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf[0], (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf[0], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            lat[r] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
            int reps = n <= 65536 ? 20 : 2;
            t0 = MPI_Wtime();
            for (int k = 0; k < reps; k++) {
                for (int i = 0; i < WINDOW; i++) {
                    if (rank == 0)
                        MPI_Isend(buf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[i]);
                    else
                        MPI_Irecv(rbuf[i], (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[i]);
                }
                MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
            }
            char ack = 0;
            if (rank == 0)
                MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            bw[r] = (MPI_Wtime() - t0) / (WINDOW * reps) * 1e6; /* us per message */
        }
        if (rank == 0) {
            double l = bench_median(lat, repeats), b = bench_median(bw, repeats);
            printf("bench,latency,%s,%d,%zu,%.3f,%.1f\n", label, size, n, l, (double)n / l);
            printf("bench,bandwidth,%s,%d,%zu,%.3f,%.1f\n", label, size, n, b, (double)n / b);
            if (n >= 4096)
                printf("bench,memcpy,%s,1,%zu,,%.1f\n", label, n, memcpy_rate(rbuf, buf, n));
            fflush(stdout);
        }
    }
    for (int i = 0; i < WINDOW; i++)
        free(rbuf[i]);
    free(buf);
    MPI_Finalize();
    return 0;
}
