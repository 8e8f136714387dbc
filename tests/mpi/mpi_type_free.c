/* mpi_type_free.c — MPI_Type_free while operations still use the type: the
 * handle goes at once, the type itself only when the last pending operation
 * using it is done (MPI 3.1, 4.1.9). Freed types are followed by new ones, so
 * that an implementation which reuses the storage at once delivers wrong data
 * (or crashes) instead of passing by luck. */
#include "mtest.h"

enum { NRECV = 4, N = 4096 };

/* Types created and committed after a free, to take whatever it released. */
static void decoys(MPI_Datatype d[NRECV])
{
    for (int k = 0; k < NRECV; k++) {
        CHECK_MPI(MPI_Type_vector(N / 2, 1, 5 + k, MPI_DOUBLE, &d[k]));
        CHECK_MPI(MPI_Type_commit(&d[k]));
    }
}

static void decoys_free(MPI_Datatype d[NRECV])
{
    for (int k = 0; k < NRECV; k++)
        CHECK_MPI(MPI_Type_free(&d[k]));
}

/* Several receives into strided types, all posted, their types freed (and
 * replaced), then the data comes. */
static void pending_receives(void)
{
    int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    static int buf[NRECV][N * (NRECV + 1)], out[N];
    MPI_Datatype t[NRECV], d[NRECV];
    MPI_Request rq[NRECV];
    for (int k = 0; k < NRECV; k++) {
        int stride = 2 + k; /* every receive its own layout */
        for (int i = 0; i < N * (NRECV + 1); i++)
            buf[k][i] = -1;
        CHECK_MPI(MPI_Type_vector(N, 1, stride, MPI_INT, &t[k]));
        CHECK_MPI(MPI_Type_commit(&t[k]));
        CHECK_MPI(MPI_Irecv(buf[k], 1, t[k], left, 10 + k, MPI_COMM_WORLD, &rq[k]));
        CHECK_MPI(MPI_Type_free(&t[k]));
        CHECK(t[k] == MPI_DATATYPE_NULL, "MPI_Type_free left handle %d", t[k]);
    }
    decoys(d);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every receive's type is gone before data moves */
    for (int k = 0; k < NRECV; k++) {
        for (int i = 0; i < N; i++)
            out[i] = mt_rank * 1000000 + k * 100000 + i;
        CHECK_MPI(MPI_Send(out, N, MPI_INT, right, 10 + k, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Waitall(NRECV, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NRECV; k++) {
        int stride = 2 + k, wrong = 0;
        for (int i = 0; i < N * (NRECV + 1); i++) {
            int want = i % stride == 0 && i / stride < N ? left * 1000000 + k * 100000 + i / stride
                                                         : -1;
            wrong += buf[k][i] != want;
        }
        CHECK(wrong == 0, "receive %d (stride %d): %d wrong elements", k, stride, wrong);
    }
    decoys_free(d);
}

/* A persistent send and a persistent receive of strided types whose handles
 * were freed keep working, start after start, until MPI_Request_free. */
static void persistent(void)
{
    int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    static int src[N * 3], dst[N * 3];
    MPI_Datatype st, rt, d[NRECV];
    MPI_Request rq[2];
    CHECK_MPI(MPI_Type_vector(N, 1, 3, MPI_INT, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &rt));
    CHECK_MPI(MPI_Type_commit(&rt));
    CHECK_MPI(MPI_Recv_init(dst, 1, rt, left, 20, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Send_init(src, 1, st, right, 20, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Type_free(&st));
    CHECK_MPI(MPI_Type_free(&rt));
    decoys(d);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N * 3; i++) {
            src[i] = i % 3 ? -2 : mt_rank * 1000000 + round * 100000 + i / 3;
            dst[i] = -1;
        }
        CHECK_MPI(MPI_Startall(2, rq));
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        int wrong = 0;
        for (int i = 0; i < N * 3; i++)
            wrong += dst[i] != (i % 2 == 0 && i / 2 < N ? left * 1000000 + round * 100000 + i / 2 : -1);
        CHECK(wrong == 0, "persistent round %d: %d wrong elements", round, wrong);
    }
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    decoys_free(d);
}

/* A nonblocking broadcast into a strided type freed before the wait. */
static void pending_collective(void)
{
    static int buf[N * 2];
    MPI_Datatype t, d[NRECV];
    MPI_Request rq;
    for (int i = 0; i < N * 2; i++)
        buf[i] = mt_rank == 0 ? (i % 2 ? -2 : 7 * i) : -1;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Ibcast(buf, 1, t, 0, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Type_free(&t));
    decoys(d);
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    int wrong = 0;
    for (int i = 0; i < N * 2; i++)
        wrong += buf[i] != (i % 2 ? (mt_rank == 0 ? -2 : -1) : 7 * i);
    CHECK(wrong == 0, "broadcast into a freed type: %d wrong elements", wrong);
    decoys_free(d);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_type_free");
    pending_receives();
    persistent();
    pending_collective();
    return mt_finish();
}
