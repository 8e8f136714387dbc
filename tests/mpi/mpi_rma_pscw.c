/* mpi_rma_pscw.c — general active-target synchronisation (MPI 3.1, 11.5.2):
 * post/start/complete/wait with groups. Ring neighbours exchange through
 * Put and Get over several rounds (each round's data must be the round's);
 * all ranks accumulate into rank 0, which polls with Win_test (false while
 * an origin has not completed: the origins are held back until rank 0 has
 * seen it false, then true once all have); rank 0 reads every other rank
 * with Get in one access epoch; empty groups are valid epochs. */
#include "mtest.h"

enum { ROUNDS = 5, SLOTS = 4 };

static int val(int round, int r, int i)
{
    return 10000 * round + 100 * r + i;
}

/* The group of the distinct ranks among a and b in MPI_COMM_WORLD. */
static MPI_Group pair_group(int a, int b)
{
    MPI_Group world, g;
    int ranks[2] = {a, b};
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    CHECK_MPI(MPI_Group_incl(world, a == b ? 1 : 2, ranks, &g));
    MPI_Group_free(&world);
    return g;
}

/* Each round: post to and start on {prev, next}; Put my values into next's
 * slot 0 and prev's slot 1 (slot 1: from the right), Get next's slot 2
 * (what it wrote there before posting); complete; wait. */
static void ring(void)
{
    int prev = (mt_rank + mt_size - 1) % mt_size, next = (mt_rank + 1) % mt_size;
    int w[SLOTS];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Group nb = pair_group(prev, next);
    for (int round = 0; round < ROUNDS; round++) {
        w[0] = w[1] = -1;
        w[2] = val(round, mt_rank, 2);
        w[3] = -3;
        CHECK_MPI(MPI_Win_post(nb, 0, win));
        CHECK_MPI(MPI_Win_start(nb, 0, win));
        int a = val(round, mt_rank, 0), b = val(round, mt_rank, 1), got = -7;
        if (mt_size > 1) {
            CHECK_MPI(MPI_Put(&a, 1, MPI_INT, next, 0, 1, MPI_INT, win));
            CHECK_MPI(MPI_Put(&b, 1, MPI_INT, prev, 1, 1, MPI_INT, win));
            CHECK_MPI(MPI_Get(&got, 1, MPI_INT, next, 2, 1, MPI_INT, win));
        } else { /* alone: my own neighbour both ways */
            CHECK_MPI(MPI_Put(&a, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
            CHECK_MPI(MPI_Put(&b, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            CHECK_MPI(MPI_Get(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, win));
        }
        CHECK_MPI(MPI_Win_complete(win));
        CHECK(got == val(round, next, 2), "round %d: Get of rank %d's slot 2 gave %d, expected %d", round, next, got,
              val(round, next, 2));
        CHECK_MPI(MPI_Win_wait(win));
        CHECK(w[0] == val(round, prev, 0), "round %d: slot 0 (from rank %d) is %d, expected %d", round, prev, w[0],
              val(round, prev, 0));
        CHECK(w[1] == val(round, next, 1), "round %d: slot 1 (from rank %d) is %d, expected %d", round, next, w[1],
              val(round, next, 1));
        CHECK(w[2] == val(round, mt_rank, 2) && w[3] == -3, "round %d: slots 2 and 3 changed to %d %d", round, w[2],
              w[3]);
    }
    MPI_Group_free(&nb);
    CHECK_MPI(MPI_Win_free(&win));
}

/* All to one: rank 0 exposes its window to every other rank, which each
 * add their rank + 1 to every slot. Win_test is false while any origin has
 * not completed: they start only after rank 0 has tested once (and said so
 * by a message). */
static void all_to_one(void)
{
    long w[SLOTS] = {0, 0, 0, 0};
    MPI_Win win;
    MPI_Group world, others, root;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0;
    MPI_Group_excl(world, 1, &zero, &others);
    MPI_Group_incl(world, 1, &zero, &root);
    CHECK_MPI(MPI_Win_create(w, sizeof w, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int round = 0; round < ROUNDS; round++) {
        if (mt_rank == 0) {
            for (int i = 0; i < SLOTS; i++)
                w[i] = round;
            CHECK_MPI(MPI_Win_post(others, 0, win));
            int flag = -1;
            CHECK_MPI(MPI_Win_test(win, &flag));
            CHECK(mt_size == 1 || flag == 0, "round %d: Win_test said the exposure epoch is over before any of "
                  "%d origins started", round, mt_size - 1);
            if (mt_size > 1 && flag) { /* the origins would wait for a post that is over */
                fprintf(stderr, "mpi_rma_pscw: Win_test is broken: stopping the job rather than hanging\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (int r = 1; r < mt_size; r++)
                MPI_Send(&round, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
            long polls = 0;
            while (!flag) {
                CHECK_MPI(MPI_Win_test(win, &flag));
                polls++;
            }
            long want = round; /* and each other rank r adds r + 1 */
            for (int r = 1; r < mt_size; r++)
                want += r + 1;
            for (int i = 0; i < SLOTS; i++)
                CHECK(w[i] == want, "round %d: after %ld Win_test polls slot %d is %ld, expected %ld", round, polls,
                      i, w[i], want);
        } else {
            int go;
            MPI_Recv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(go == round, "round %d: go message says %d", round, go);
            CHECK_MPI(MPI_Win_start(root, 0, win));
            long add[SLOTS];
            for (int i = 0; i < SLOTS; i++)
                add[i] = mt_rank + 1;
            CHECK_MPI(MPI_Accumulate(add, SLOTS, MPI_LONG, 0, 0, SLOTS, MPI_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Win_complete(win));
        }
    }
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Group_free(&world);
    MPI_Group_free(&others);
    MPI_Group_free(&root);
}

/* One to all: rank 0 reads every other rank's window in one access epoch;
 * the others expose theirs and wait. */
static void one_to_all(void)
{
    double w[SLOTS];
    for (int i = 0; i < SLOTS; i++)
        w[i] = mt_rank + i / 8.0;
    MPI_Win win;
    MPI_Group world, others, root;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0;
    MPI_Group_excl(world, 1, &zero, &others);
    MPI_Group_incl(world, 1, &zero, &root);
    CHECK_MPI(MPI_Win_create(w, sizeof w, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (mt_rank == 0) {
        double *all = malloc((size_t)mt_size * SLOTS * sizeof *all);
        CHECK_MPI(MPI_Win_start(others, 0, win));
        for (int r = 1; r < mt_size; r++)
            CHECK_MPI(MPI_Get(all + r * SLOTS, SLOTS, MPI_DOUBLE, r, 0, SLOTS, MPI_DOUBLE, win));
        CHECK_MPI(MPI_Win_complete(win));
        for (int r = 1; r < mt_size; r++)
            for (int i = 0; i < SLOTS; i++)
                CHECK(all[r * SLOTS + i] == r + i / 8.0, "Get from rank %d slot %d: %g, expected %g", r, i,
                      all[r * SLOTS + i], r + i / 8.0);
        free(all);
    } else {
        CHECK_MPI(MPI_Win_post(root, MPI_MODE_NOPUT, win));
        CHECK_MPI(MPI_Win_wait(win));
    }
    /* Empty groups: an epoch with nobody. */
    CHECK_MPI(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    CHECK_MPI(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
    CHECK_MPI(MPI_Win_complete(win));
    int flag = 0;
    CHECK_MPI(MPI_Win_test(win, &flag));
    CHECK(flag, "Win_test of an exposure epoch to the empty group is false");
    if (!flag)
        CHECK_MPI(MPI_Win_wait(win));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Group_free(&world);
    MPI_Group_free(&others);
    MPI_Group_free(&root);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_rma_pscw");
    ring();
    all_to_one();
    one_to_all();
    return mt_finish();
}
