/* mpi_comm_create.c — MPI_Comm_create where processes pass different,
 * disjoint groups (MPI 2.2 on, MPI 3.1 6.4.2): one communicator per group,
 * each member gets its group's, in the group's order; a process outside the
 * group it passes gets MPI_COMM_NULL. */
#include "mtest.h"

/* World ranks of parity `par` in decreasing order, without `skip`. */
static int members(int par, int skip, int *out)
{
    int n = 0;
    for (int r = mt_size - 1; r >= 0; r--)
        if (r % 2 == par && r != skip)
            out[n++] = r;
    return n;
}

static void disjoint_groups(void)
{
    /* Evens and odds, each group listed backwards; from 3 ranks on, the last
     * rank is in neither and passes the group of the other parity. */
    int skip = mt_size >= 3 ? mt_size - 1 : -1;
    int par = mt_rank == skip ? (mt_rank + 1) % 2 : mt_rank % 2;
    int *ranks = malloc((size_t)mt_size * sizeof *ranks), n = members(par, skip, ranks);
    MPI_Group world, g;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Group_incl(world, n, ranks, &g));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    if (mt_rank == skip) {
        CHECK(c == MPI_COMM_NULL, "world rank %d is not in the group it passed, yet got a "
              "communicator", mt_rank);
    } else if (c == MPI_COMM_NULL) {
        CHECK(0, "world rank %d got MPI_COMM_NULL for its own group", mt_rank);
    } else {
        int size = -1, rank = -1, pos = -1, sum = -1, want = 0;
        for (int i = 0; i < n; i++) {
            want += ranks[i];
            if (ranks[i] == mt_rank)
                pos = i;
        }
        CHECK_MPI(MPI_Comm_size(c, &size));
        CHECK_MPI(MPI_Comm_rank(c, &rank));
        CHECK(size == n, "the communicator of group %d has %d ranks, the group %d", par, size, n);
        CHECK(rank == pos, "rank %d in the new communicator, %d in the group", rank, pos);
        /* Only the group's members meet in it. */
        CHECK_MPI(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == want, "the world ranks of the communicator add up to %d, the group's to %d",
              sum, want);
        MPI_Group cg;
        int cmp = -1;
        CHECK_MPI(MPI_Comm_group(c, &cg));
        CHECK_MPI(MPI_Group_compare(cg, g, &cmp));
        CHECK(cmp == MPI_IDENT, "the communicator's group compares %d to the one passed", cmp);
        CHECK_MPI(MPI_Group_free(&cg));
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&world));
    free(ranks);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_comm_create");
    disjoint_groups();
    return mt_finish();
}
