/* mpi_window — windowed streaming on the MPI API, as the OSU Micro-Benchmarks'
 * osu_bw, osu_bibw and osu_mbw_mr measure it: ranks pair up (rank i with
 * i + n/2; n even), and for each window the sender posts WINDOW_OSU
 * nonblocking sends of one buffer while the receiver has as many receives
 * posted, then
 *   bw:   the receiver answers with a 4-byte reply once all have landed
 *         (one way; bandwidth and message rate are the same figure);
 *   bibw: both sides send and receive a window at once, no reply;
 *   cpu:  bw's pattern, but what is reported is CPU time (the thread's
 *         clock, so a rank preempted on a busy machine does not count):
 *         cpu_isend_post and cpu_irecv_post, the posting of a window's
 *         sends and receives, and cpu_isend_wait, the sender's Waitall,
 *         per message: the per-message cost of request, matching and ring
 *         cell, which the message rate is made of.
 * Each repeat times `iters` windows after two warm-up windows, on the
 * senders, between barriers; the slowest pair counts. Median of the repeats
 * as microseconds per message per pair (so n/2 / us is the job's message
 * rate in millions per second, and bytes / us a pair's MB/s each way). CSV:
 *   bench,op,window,LABEL,ranks,bytes,us_per_message,pairs
 * The same source builds with Bolt's libmpi and with Open MPI's and MPICH's
 * mpicc (bench/compare runs them). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

#define WINDOW_OSU 64 /* OSU's default window */
enum { TAG_DATA = 100, TAG_REPLY = 101 };

/* One window of `size` bytes between this rank and `peer`. */
static void window(int op_bibw, int sender, int peer, char *s, char *r, int size, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (op_bibw) {
        for (int j = 0; j < WINDOW_OSU; j++)
            MPI_Irecv(r, size, MPI_CHAR, peer, TAG_DATA, w, &req[WINDOW_OSU + j]);
        for (int j = 0; j < WINDOW_OSU; j++)
            MPI_Isend(s, size, MPI_CHAR, peer, TAG_DATA, w, &req[j]);
        MPI_Waitall(2 * WINDOW_OSU, req, MPI_STATUSES_IGNORE);
    } else if (sender) {
        for (int j = 0; j < WINDOW_OSU; j++)
            MPI_Isend(s, size, MPI_CHAR, peer, TAG_DATA, w, &req[j]);
        MPI_Waitall(WINDOW_OSU, req, MPI_STATUSES_IGNORE);
        MPI_Recv(r, 4, MPI_CHAR, peer, TAG_REPLY, w, MPI_STATUS_IGNORE);
    } else {
        for (int j = 0; j < WINDOW_OSU; j++)
            MPI_Irecv(r, size, MPI_CHAR, peer, TAG_DATA, w, &req[j]);
        MPI_Waitall(WINDOW_OSU, req, MPI_STATUSES_IGNORE);
        MPI_Send(s, 4, MPI_CHAR, peer, TAG_REPLY, w);
    }
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* bw's window with the CPU time of posting and of the sender's Waitall
 * added to post[0..1] (sender, receiver) and wait. */
static void window_cpu(int sender, int peer, char *s, char *r, int size, MPI_Request *req,
                       double *post, double *wait)
{
    MPI_Comm w = MPI_COMM_WORLD;
    double t0 = cpu_now();
    for (int j = 0; j < WINDOW_OSU; j++) {
        if (sender)
            MPI_Isend(s, size, MPI_CHAR, peer, TAG_DATA, w, &req[j]);
        else
            MPI_Irecv(r, size, MPI_CHAR, peer, TAG_DATA, w, &req[j]);
    }
    double t1 = cpu_now();
    *post += t1 - t0;
    MPI_Waitall(WINDOW_OSU, req, MPI_STATUSES_IGNORE);
    if (sender) {
        *wait += cpu_now() - t1;
        MPI_Recv(r, 4, MPI_CHAR, peer, TAG_REPLY, w, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(s, 4, MPI_CHAR, peer, TAG_REPLY, w);
    }
}

/* The cpu op at one size: medians over the repeats of the slowest pair's
 * microseconds per message, printed as three rows. */
static void measure_cpu(int rank, int n, int sender, int peer, char *s, char *r, size_t bytes,
                        MPI_Request *req, int iters, int repeats, const char *label)
{
    double t[3][16];
    for (int k = 0; k < repeats; k++) {
        double post = 0, wait = 0, dummy = 0, mine[3], worst[3];
        for (int i = 0; i < 2; i++) /* warm-up */
            window_cpu(sender, peer, s, r, (int)bytes, req, &dummy, &dummy);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < iters; i++)
            window_cpu(sender, peer, s, r, (int)bytes, req, &post, &wait);
        double per = 1e6 / ((double)iters * WINDOW_OSU);
        mine[0] = sender ? post * per : 0;
        mine[1] = sender ? wait * per : 0;
        mine[2] = sender ? 0 : post * per;
        MPI_Allreduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (int j = 0; j < 3; j++)
            t[j][k] = worst[j];
    }
    static const char *const rows[3] = {"cpu_isend_post", "cpu_isend_wait", "cpu_irecv_post"};
    for (int j = 0; rank == 0 && j < 3; j++)
        printf("bench,%s,window,%s,%d,%zu,%.4f,%d\n", rows[j], label, n, bytes,
               bench_median(t[j], repeats), n / 2);
}

static void usage(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "mpi_window: %s\nusage: mpi_window [-m MAX_BYTES] [-l LABEL] [-o bw|bibw|cpu|all] "
                "[-f SIZE_FACTOR] [-q]   (an even number of ranks: i sends to i + n/2)\n",
                why);
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    int rank, n, opt, quick = 0, ops = 7; /* bit 0: bw, bit 1: bibw, bit 2: cpu */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t max = (size_t)4 << 20, factor = 4;
    const char *label = "mpi";
    char *end;
    while ((opt = getopt(argc, argv, "m:l:o:f:q")) != -1) {
        switch (opt) {
        case 'm':
            max = (size_t)strtoull(optarg, &end, 0);
            if (*end || max < 1 || max > (size_t)1 << 30)
                usage(rank, "-m wants a byte count from 1 to 1 GiB");
            break;
        case 'l': label = optarg; break;
        case 'o':
            ops = !strcmp(optarg, "bw") ? 1 : !strcmp(optarg, "bibw") ? 2 : !strcmp(optarg, "cpu") ? 4
                : !strcmp(optarg, "all") ? 7 : 0;
            if (!ops)
                usage(rank, "-o wants bw, bibw, cpu or all");
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
    if (n < 2 || n % 2)
        usage(rank, "run with an even number of ranks (pairs i, i + n/2)");
    int pairs = n / 2, sender = rank < pairs, peer = sender ? rank + pairs : rank - pairs;
    char *s = bench_alloc_touched(max), *r = bench_alloc_touched(max);
    MPI_Request *req = malloc(sizeof *req * 2 * WINDOW_OSU);
    if (!s || !r || !req) {
        fprintf(stderr, "mpi_window: rank %d: cannot allocate 2 x %zu bytes (lower -m)\n", rank, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(s, 'a' + rank, max);
    int repeats = quick ? 3 : 7;
    for (int op = 0; op < 3; op++) {
        if (!(ops & (1 << op)))
            continue;
        for (size_t bytes = 1; bytes <= max; bytes *= factor) {
            int iters = bytes <= 8192 ? 40 : bytes <= (1 << 20) ? 8 : 2;
            if (quick)
                iters = iters / 8 > 1 ? iters / 8 : 1;
            if (op == 2) {
                /* the per-message cost of small messages only */
                if (bytes <= 4096)
                    measure_cpu(rank, n, sender, peer, s, r, bytes, req, iters * 4, repeats, label);
                continue;
            }
            double t[16];
            for (int k = 0; k < repeats; k++) {
                for (int i = 0; i < 2; i++) /* warm-up */
                    window(op, sender, peer, s, r, (int)bytes, req);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++)
                    window(op, sender, peer, s, r, (int)bytes, req);
                double mine = sender ? (MPI_Wtime() - t0) / ((double)iters * WINDOW_OSU) * 1e6 : 0, worst;
                MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[k] = worst;
            }
            if (rank == 0) {
                printf("bench,%s,window,%s,%d,%zu,%.4f,%d\n", op ? "bibw" : "bw", label, n, bytes,
                       bench_median(t, repeats), pairs);
                fflush(stdout);
            }
        }
    }
    free(req);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
