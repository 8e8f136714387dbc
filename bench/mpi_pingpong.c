/* mpi_pingpong — the same measurement as bolt_pingpong, written against the
 * MPI API so it builds with Open MPI's and MPICH's mpicc (and, once the MPI
 * face exists, with Bolt's boltcc): ping-pong latency and windowed bandwidth,
 * median of REPEATS, CSV bench,op,transport,ranks,bytes,us,MBps. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t max = (size_t)16 << 20;
    if (argc > 1)
        max = (size_t)strtoull(argv[1], NULL, 0);
    const char *label = argc > 2 ? argv[2] : "mpi";
    char *buf = calloc(1, max), *rbuf[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        rbuf[i] = calloc(1, max);
    for (size_t n = 1; n <= max; n *= 4) {
        int iters = n <= 65536 ? 200 : n <= (1 << 20) ? 20 : 4;
        double lat[REPEATS], bw[REPEATS];
        for (int r = 0; r < REPEATS && rank < 2; r++) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (rank == 0) {
                    MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf[0], (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf[0], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            lat[r] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
            MPI_Request reqs[WINDOW];
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
            bw[r] = (double)n * WINDOW * reps / (MPI_Wtime() - t0) / 1e6;
        }
        if (rank == 0) {
            printf("bench,latency,%s,%d,%zu,%.2f,\n", label, size, n, bench_median(lat, REPEATS));
            printf("bench,bandwidth,%s,%d,%zu,,%.1f\n", label, size, n, bench_median(bw, REPEATS));
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return 0;
}
