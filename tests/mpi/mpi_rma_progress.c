/* mpi_rma_progress.c — passive-target progress (MPI 3.1, 11.7.3): a lock,
 * and the operations in its epoch, must complete while the target computes
 * and makes no MPI call. Rank 0 computes for BUSY seconds (a loop that only
 * reads the clock, with clock_gettime: not even MPI_Wtime) right after a
 * barrier; every other rank meanwhile locks rank 0's window (shared, then
 * exclusive), Puts, Gets, Fetch_and_ops, Accumulates and unlocks. Each must
 * be done in well under BUSY (they measure with MPI_Wtime); rank 0, back in
 * MPI, checks what they left in its window.
 * The standard lets an implementation delay passive-target operations until
 * the target calls MPI (11.7.3); Bolt promises it does not (issue 28), for
 * every window flavour. Open MPI 4.1 progresses a window of Win_allocate
 * (shared memory) but not one of Win_create (the origins wait the whole
 * BUSY, with osc/rdma and osc/ucx alike): that case is Bolt's alone. */
#include "mtest.h"

#include <time.h>

#define BUSY 1.0  /* seconds rank 0 computes */
#define BOUND 0.5 /* seconds the others may take: a target that does not
                   * progress makes them take BUSY */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Computes for BUSY seconds without any MPI call; returns a value so the
 * work is not optimised away. */
static double compute(void)
{
    volatile double x = 1.0;
    double t0 = now();
    while (now() - t0 < BUSY)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

/* Window layout on rank 0: [0] a counter, [1] a sum, [2] a constant 77
 * (nobody writes it), [2 + r] rank r's slot. */
static void progress(long *w, MPI_Win win, const char *flavor)
{
    if (mt_rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        for (int i = 0; i < mt_size + 2; i++)
            w[i] = i == 2 ? 77 : 0;
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double took = 0;
    if (mt_rank == 0) {
        double x = compute();
        CHECK(x > 1.0, "the computation gave %g", x);
    } else {
        double t0 = MPI_Wtime();
        long v = 1000 + mt_rank, one = 1, ticket = -1, got = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 2 + mt_rank, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK(got == 77, "%s: Get of rank 0's slot 2 gave %ld, expected 77", flavor, got);
        CHECK(ticket >= 0 && ticket < mt_size - 1, "%s: Fetch_and_op ticket %ld of %d", flavor, ticket, mt_size - 1);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        took = MPI_Wtime() - t0;
        CHECK(took < BOUND, "%s: lock, Put, Get, Fetch_and_op, unlock and an exclusive Accumulate on rank 0 took "
              "%.3f s while rank 0 computed for %.1f s without calling MPI (bound %.1f s): passive target does not "
              "progress without the target", flavor, took, BUSY, BOUND);
    }
    double worst = 0;
    MPI_Reduce(&took, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        long sum = 0;
        for (int r = 1; r < mt_size; r++) {
            sum += 1000 + r;
            CHECK(w[2 + r] == 1000 + r, "%s: rank %d's slot is %ld", flavor, r, w[2 + r]);
        }
        CHECK(w[0] == mt_size - 1 && w[1] == sum, "%s: counter %ld (expected %d), sum %ld (expected %ld)", flavor,
              w[0], mt_size - 1, w[1], sum);
        CHECK_MPI(MPI_Win_unlock(0, win));
        if (getenv("MT_VERBOSE"))
            printf("%s: the slowest origin took %.3f s while rank 0 computed for %.1f s\n", flavor, worst, BUSY);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_rma_progress");
    long *w;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((mt_size + 2) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    progress(w, win, "Win_allocate");
    CHECK_MPI(MPI_Win_free(&win));
#ifdef BOLT_MPI
    long *buf = calloc(mt_size + 2, sizeof *buf);
    CHECK_MPI(MPI_Win_create(buf, (mt_size + 2) * sizeof *buf, sizeof *buf, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    progress(buf, win, "Win_create");
    CHECK_MPI(MPI_Win_free(&win));
    free(buf);
#endif
    return mt_finish();
}
