/* mpi_barrier_exit — when each rank leaves a barrier, and what that does to a
 * rooted collective timed after it (the OSU way: barrier, then the call
 * timed on every rank and averaged over ranks).
 *
 *   mpi_barrier_exit [-o bcast|scatter|gather|none] [-m BYTES] [-n ITERS]
 *
 * Every rank reads CLOCK_MONOTONIC (one clock for all ranks of a host) at
 * its barrier's entry, at its exit and at the call's end; rank 0 prints each
 * rank's mean of the three, relative to rank 0's barrier entry of the same
 * iteration, then the call's time averaged over the ranks and an
 * iteration's length (rank 0's entry to its next). Ranks of one host only.
 * The same source builds with Bolt's libmpi and with Open MPI's and MPICH's
 * mpicc, so the three are compared side by side (bench/README, thirty-second
 * session). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, opt, bytes = 4, iters = 20000, warm = 1000;
    const char *op = "bcast";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "o:m:n:")) != -1) {
        if (opt == 'o')
            op = optarg;
        else if (opt == 'm')
            bytes = atoi(optarg);
        else if (opt == 'n')
            iters = atoi(optarg);
        else
            break;
    }
    int kind = !strcmp(op, "bcast") ? 0 : !strcmp(op, "scatter") ? 1 : !strcmp(op, "gather") ? 2
               : !strcmp(op, "none") ? 3 : -1;
    if (kind < 0 || bytes < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_barrier_exit [-o bcast|scatter|gather|none] [-m BYTES >= 1] [-n ITERS >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    char *all = calloc((size_t)bytes, (size_t)size), *mine = calloc((size_t)bytes, 1);
    double *t = malloc(sizeof *t * 3 * (size_t)(iters + warm));
    double *every = rank == 0 ? malloc(sizeof *every * 3 * (size_t)(iters + warm) * (size_t)size) : NULL;
    if (!all || !mine || !t || (rank == 0 && !every)) {
        fprintf(stderr, "mpi_barrier_exit: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < iters + warm; i++) {
        double *ti = t + 3 * (size_t)i;
        ti[0] = now();
        MPI_Barrier(MPI_COMM_WORLD);
        ti[1] = now();
        if (kind == 0)
            MPI_Bcast(all, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        else if (kind == 1)
            MPI_Scatter(all, bytes, MPI_CHAR, mine, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        else if (kind == 2)
            MPI_Gather(mine, bytes, MPI_CHAR, all, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        ti[2] = now();
    }
    MPI_Gather(t, 3 * (iters + warm), MPI_DOUBLE, every, 3 * (iters + warm), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const size_t per = 3 * (size_t)(iters + warm);
        double call = 0, period = 0;
        printf("%s of %d B, %d ranks, %d iterations; us from rank 0's barrier entry:\n", op, bytes, size, iters);
        for (int r = 0; r < size; r++) {
            double in = 0, out = 0, done = 0;
            for (int i = warm; i < iters + warm; i++) {
                const double *x = every + (size_t)r * per + 3 * (size_t)i, ref = every[3 * (size_t)i];
                in += x[0] - ref;
                out += x[1] - ref;
                done += x[2] - ref;
                call += x[2] - x[1];
            }
            printf("rank %d: enters %+.3f, leaves %+.3f, done %+.3f\n", r, in / iters * 1e6, out / iters * 1e6,
                   done / iters * 1e6);
        }
        for (int i = warm; i + 1 < iters + warm; i++)
            period += every[3 * (size_t)(i + 1)] - every[3 * (size_t)i];
        printf("the call averaged over ranks %.3f us; an iteration %.3f us\n", call / iters / size * 1e6,
               period / (iters - 1) * 1e6);
    }
    free(all);
    free(mine);
    free(t);
    free(every);
    MPI_Finalize();
    return 0;
}
