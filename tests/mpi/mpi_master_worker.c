/* mpi_master_worker.c — a task farm as codes write it: rank 0 hands out
 * tasks, polls for results with MPI_Iprobe(MPI_ANY_SOURCE) between bits of
 * its own work, sizes each result with MPI_Get_count before receiving it,
 * sends the next task to whoever answered, and a stop tag ends the workers.
 * Results vary in length. Alone, rank 0 does every task itself. */
#include "mtest.h"

#define NTASKS 60
enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

/* Task t's result: t % 7 + 2 ints, value k = t * 100 + k * k. The first
 * value says which task it was, as a real result would carry its key. */
static int result_len(int t) { return t % 7 + 2; }

static void compute(int t, int *out)
{
    out[0] = t;
    for (int k = 1; k < result_len(t); k++)
        out[k] = t * 100 + k * k;
}

static int check_result(const int *r, int len)
{
    int t = r[0];
    if (t < 0 || t >= NTASKS || len != result_len(t))
        return -1;
    for (int k = 1; k < len; k++)
        if (r[k] != t * 100 + k * k)
            return -1;
    return t;
}

static void master(void)
{
    int done[NTASKS] = {0}, next = 0, finished = 0, active = 0, polls = 0, buf[16];
    if (mt_size == 1) {
        for (int t = 0; t < NTASKS; t++) {
            compute(t, buf);
            done[check_result(buf, result_len(t))]++;
        }
        finished = NTASKS;
    }
    for (int w = 1; w < mt_size; w++) {
        if (next < NTASKS) {
            MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
            next++;
            active++;
        } else {
            MPI_Send(NULL, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    double busy = 0;
    while (active > 0) {
        int flag = 0, len = -1;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            busy += 1e-3 * (polls++ % 13); /* the master's own work between polls */
            continue;
        }
        MPI_Get_count(&st, MPI_INT, &len);
        CHECK(len >= 2 && len <= 16, "result of %d ints from %d", len, st.MPI_SOURCE);
        int w = st.MPI_SOURCE;
        MPI_Recv(buf, 16, MPI_INT, w, TAG_RESULT, MPI_COMM_WORLD, &st);
        int t = check_result(buf, len);
        CHECK(t >= 0, "a wrong result from rank %d (task %d, %d ints)", w, buf[0], len);
        if (t >= 0)
            done[t]++;
        finished++;
        if (next < NTASKS) {
            MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
            next++;
        } else {
            MPI_Send(NULL, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
            active--;
        }
    }
    (void)busy;
    CHECK(finished == NTASKS, "%d of %d tasks finished", finished, NTASKS);
    for (int t = 0; t < NTASKS; t++)
        CHECK(done[t] == 1, "task %d was done %d times", t, done[t]);
}

static int worker(void)
{
    int n = 0, t, out[16];
    for (;;) {
        MPI_Status st;
        MPI_Recv(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        CHECK(st.MPI_TAG == TAG_TASK, "unexpected tag %d", st.MPI_TAG);
        compute(t, out);
        MPI_Send(out, result_len(t), MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_master_worker");
    int mine = 0, total = 0;
    if (mt_rank == 0)
        master();
    else
        mine = worker();
    /* Every task was done by some worker (or by rank 0 alone). */
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (mt_rank == 0)
        CHECK(total == (mt_size == 1 ? 0 : NTASKS), "workers report %d tasks", total);
    return mt_finish();
}
