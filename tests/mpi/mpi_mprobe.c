/* mpi_mprobe.c — matched probes. A message found by MPI_Mprobe is reserved:
 * a receive with MPI_ANY_SOURCE posted afterwards takes the next message,
 * not that one, and MPI_Mrecv gets exactly the probed message. Covers eager
 * and rendezvous-sized messages, Improbe + Imrecv polling, sends to oneself
 * (small and large), a non-contiguous receive type and MPI_PROC_NULL. */
#include "mtest.h"

#define BIG (1 << 18) /* doubles: 2 MiB, past any eager limit */

static void fill(double *a, int n, double base)
{
    for (int i = 0; i < n; i++)
        a[i] = base + i;
}

static int same(const double *a, int n, double base)
{
    for (int i = 0; i < n; i++)
        if (a[i] != base + i)
            return 0;
    return 1;
}

/* Rank 1 sends two small and then a big and a small message; rank 0 reserves
 * the first of each pair and lets an any-source receive compete for them. */
static void reserved_vs_any_source(void)
{
    double *big = malloc(BIG * sizeof *big);
    if (mt_rank == 1) {
        int a = 100, b = 200, c = 300;
        MPI_Request q[4];
        fill(big, BIG, 0.5);
        MPI_Isend(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(big, BIG, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &q[2]);
        MPI_Isend(&c, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    } else if (mt_rank == 0) {
        MPI_Message m = MPI_MESSAGE_NULL;
        MPI_Status st;
        int v = -1, count = -1, flag = -1;
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st));
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 5 && count == 1, "Mprobe status %d %d %d",
              st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "Mprobe gave no message");
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
        CHECK(v == 200, "the any-source receive took %d: the probed message was not reserved", v);
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Iprobe sees the reserved message");
        v = -1;
        CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
        CHECK(v == 100 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5, "Mrecv got %d from %d", v,
              st.MPI_SOURCE);
        CHECK(m == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");

        /* Rendezvous: its data moves only once Mrecv is called. */
        CHECK_MPI(MPI_Mprobe(1, 11, MPI_COMM_WORLD, &m, &st));
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == BIG, "Mprobe of the big message: count %d", count);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st));
        CHECK(v == 300, "the any-source receive after the big probe took %d", v);
        memset(big, 0, BIG * sizeof *big);
        CHECK_MPI(MPI_Mrecv(big, count, MPI_DOUBLE, &m, &st));
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == BIG && same(big, BIG, 0.5), "the big message arrived wrong (count %d)", count);
    }
    free(big);
}

/* Every other rank sends two messages to rank 0, which polls with Improbe
 * and receives each with Imrecv; per-sender order must hold. */
static void improbe_polling(void)
{
    if (mt_rank != 0) {
        int v[2] = {mt_rank * 10, mt_rank * 10 + 1};
        MPI_Send(&v[0], 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
        MPI_Send(&v[1], 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
        return;
    }
    int pending = 2 * (mt_size - 1), next[64] = {0};
    while (pending > 0) {
        int flag = 0, v = -1;
        MPI_Message m;
        MPI_Status st;
        MPI_Request r;
        CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &flag, &m, &st));
        if (!flag)
            continue;
        int src = st.MPI_SOURCE;
        CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK(st.MPI_SOURCE == src && v == src * 10 + next[src], "from %d got %d, want %d", src, v,
              src * 10 + next[src]);
        next[src]++;
        pending--;
    }
}

/* Sends to oneself: a small (buffered) and a large one (held by the sender). */
static void self_sends(void)
{
    double *big = malloc(BIG * sizeof *big), *back = malloc(BIG * sizeof *back);
    double small[8], strided[16];
    MPI_Request q[2];
    MPI_Message m;
    MPI_Status st;
    int count;
    fill(big, BIG, 7.0);
    fill(small, 8, 3.0);
    MPI_Isend(small, 8, MPI_DOUBLE, mt_rank, 30, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(big, BIG, MPI_DOUBLE, mt_rank, 31, MPI_COMM_WORLD, &q[1]);
    CHECK_MPI(MPI_Mprobe(mt_rank, 31, MPI_COMM_WORLD, &m, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == BIG, "self big: count %d", count);
    CHECK_MPI(MPI_Mrecv(back, BIG, MPI_DOUBLE, &m, MPI_STATUS_IGNORE));
    CHECK(same(back, BIG, 7.0), "self big arrived wrong");
    /* Into every other double of strided: a non-contiguous receive. */
    MPI_Datatype every_other;
    MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    memset(strided, 0, sizeof strided);
    CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_SOURCE == mt_rank, "self small from %d", st.MPI_SOURCE);
    CHECK_MPI(MPI_Mrecv(strided, 1, every_other, &m, &st));
    for (int i = 0; i < 8; i++)
        CHECK(strided[2 * i] == 3.0 + i && strided[2 * i + 1] == 0, "strided[%d] = %g", 2 * i,
              strided[2 * i]);
    MPI_Type_free(&every_other);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    free(big);
    free(back);
}

static void proc_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0, v = 5, count = -1;
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "Mprobe(PROC_NULL): %d %d", m,
          st.MPI_SOURCE);
    CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && count == 0 && v == 5,
          "Mrecv(NO_PROC): %d %d %d %d", m, st.MPI_SOURCE, count, v);
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d message %d", flag, m);
    MPI_Request r;
    CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC) source %d", st.MPI_SOURCE);
    /* Nothing pending with this tag: Improbe says so. */
    CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(!flag, "Improbe found a message nobody sent");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_mprobe");
    if (mt_size > 64) {
        if (mt_rank == 0)
            printf("mpi_mprobe: ok (skipped: at most 64 ranks)\n");
        MPI_Finalize();
        return 0;
    }
    if (mt_size >= 2)
        reserved_vs_any_source();
    MPI_Barrier(MPI_COMM_WORLD);
    improbe_polling();
    self_sends();
    proc_null();
    return mt_finish();
}
