/* mpi_group.c — groups (size, rank, incl/excl, ranges, translation, set
 * operations and their order, compare) and communicators made from them with
 * MPI_Comm_create (collective over the parent) and MPI_Comm_create_group
 * (collective over the group only). */
#include "mtest.h"

static int group_size(MPI_Group g)
{
    int s = -1;
    MPI_Group_size(g, &s);
    return s;
}

/* World ranks of g's members, in order, into out (at most mt_size). */
static void members(MPI_Group g, int *out)
{
    MPI_Group world;
    int n = group_size(g), in[64];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, out);
    MPI_Group_free(&world);
}

static void test_groups(void)
{
    MPI_Group world, evens, odds, rev, u, x, d, g;
    int n = mt_size, r, cmp, m[64];
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK(group_size(world) == n, "world group size %d", group_size(world));
    MPI_Group_rank(world, &r);
    CHECK(r == mt_rank, "world group rank %d", r);

    /* evens by a range, odds by exclusion of the evens. */
    int range[1][3] = {{0, n - 1, 2}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, range, &evens));
    CHECK(group_size(evens) == (n + 1) / 2, "evens size %d", group_size(evens));
    CHECK_MPI(MPI_Group_range_excl(world, 1, range, &odds));
    CHECK(group_size(odds) == n / 2, "odds size %d", group_size(odds));
    MPI_Group_rank(evens, &r);
    CHECK(r == (mt_rank % 2 == 0 ? mt_rank / 2 : MPI_UNDEFINED), "rank in evens %d", r);
    MPI_Group_rank(odds, &r);
    CHECK(r == (mt_rank % 2 == 1 ? mt_rank / 2 : MPI_UNDEFINED), "rank in odds %d", r);

    /* Reversed world: incl with a permutation is SIMILAR (IDENT at 1 rank). */
    int perm[64];
    for (int i = 0; i < n; i++)
        perm[i] = n - 1 - i;
    CHECK_MPI(MPI_Group_incl(world, n, perm, &rev));
    MPI_Group_compare(world, rev, &cmp);
    CHECK(cmp == (n == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed compares as %d", cmp);
    MPI_Group_compare(world, world, &cmp);
    CHECK(cmp == MPI_IDENT, "world vs world %d", cmp);
    if (n > 1) {
        MPI_Group_compare(world, evens, &cmp);
        CHECK(cmp == MPI_UNEQUAL, "world vs evens %d", cmp);
    }
    members(rev, m);
    for (int i = 0; i < n; i++)
        CHECK(m[i] == n - 1 - i, "rev member %d is %d", i, m[i]);

    /* Translation: PROC_NULL stays, non-members are MPI_UNDEFINED. */
    int in[3] = {0, MPI_PROC_NULL, n - 1}, out[3];
    CHECK_MPI(MPI_Group_translate_ranks(world, 3, in, evens, out));
    CHECK(out[0] == 0 && out[1] == MPI_PROC_NULL, "translate gave %d %d", out[0], out[1]);
    CHECK(out[2] == ((n - 1) % 2 == 0 ? (n - 1) / 2 : MPI_UNDEFINED), "translate last %d", out[2]);

    /* Set operations keep group1's order, then group2's new members. */
    CHECK_MPI(MPI_Group_union(odds, rev, &u));
    CHECK(group_size(u) == n, "union size %d", group_size(u));
    members(u, m);
    for (int i = 0; i < n / 2; i++)
        CHECK(m[i] == 2 * i + 1, "union[%d] = %d (odds first)", i, m[i]);
    for (int i = n / 2, want = n - 1; i < n; i++, want--) {
        while (want % 2 == 1)
            want--; /* rev's members not in odds, in rev's order */
        CHECK(m[i] == want, "union[%d] = %d, want %d", i, m[i], want);
    }
    CHECK_MPI(MPI_Group_intersection(rev, evens, &x));
    CHECK(group_size(x) == (n + 1) / 2, "intersection size %d", group_size(x));
    members(x, m);
    for (int i = 1; i < group_size(x); i++)
        CHECK(m[i] < m[i - 1], "intersection not in rev's order at %d", i);
    CHECK_MPI(MPI_Group_difference(world, evens, &d));
    MPI_Group_compare(d, odds, &cmp);
    CHECK(cmp == MPI_IDENT, "world - evens vs odds: %d", cmp);
    MPI_Group_free(&d);
    CHECK_MPI(MPI_Group_difference(evens, world, &d));
    CHECK(group_size(d) == 0, "evens - world has %d members", group_size(d));
    MPI_Group_compare(d, MPI_GROUP_EMPTY, &cmp);
    CHECK(cmp == MPI_IDENT, "empty difference vs MPI_GROUP_EMPTY: %d", cmp);
    MPI_Group_rank(MPI_GROUP_EMPTY, &r);
    CHECK(r == MPI_UNDEFINED, "rank in the empty group %d", r);

    /* Excl of a list, and incl of nothing. */
    int first = 0;
    CHECK_MPI(MPI_Group_excl(world, 1, &first, &g));
    CHECK(group_size(g) == n - 1, "excl size %d", group_size(g));
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Group_incl(world, 0, NULL, &g));
    CHECK(group_size(g) == 0, "incl of none: %d", group_size(g));
    CHECK(g != MPI_GROUP_NULL, "incl of none gave MPI_GROUP_NULL");
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL, "Group_free did not reset the handle");

    /* Errors come back as values under MPI_ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad = n, cls = MPI_SUCCESS, rc = MPI_Group_incl(world, 1, &bad, &g);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "incl of rank %d gave class %d", bad, cls);
#ifdef BOLT_MPI /* Open MPI does not check that the ranks are distinct */
    int dup[2] = {0, 0};
    rc = n > 1 ? MPI_Group_incl(world, 2, dup, &g) : MPI_ERR_RANK;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "incl with a repeated rank gave class %d", cls);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Group_free(&u);
    MPI_Group_free(&x);
    MPI_Group_free(&d);
    MPI_Group_free(&rev);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
}

/* A communicator's ranks must be what the group says, and it must carry messages. */
static void check_comm(MPI_Comm c, MPI_Group g, const char *what)
{
    int r, s, gr, m[64];
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    MPI_Group_rank(g, &gr);
    CHECK(s == group_size(g) && r == gr, "%s: rank %d of %d, group says %d of %d", what, r, s, gr,
          group_size(g));
    MPI_Group cg;
    int cmp;
    MPI_Comm_group(c, &cg);
    MPI_Group_compare(cg, g, &cmp);
    CHECK(cmp == MPI_IDENT, "%s: the communicator's group compares as %d", what, cmp);
    members(g, m);
    MPI_Group_free(&cg);
    /* A ring: each member sends its world rank to the next. */
    int right = (r + 1) % s, left = (r + s - 1) % s, got = -1;
    MPI_Sendrecv(&mt_rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE);
    CHECK(got == m[left], "%s: from the left got world rank %d, want %d", what, got, m[left]);
}

static void test_comms(void)
{
    MPI_Group world, rev, odds;
    MPI_Comm c;
    int n = mt_size, perm[64];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++)
        perm[i] = n - 1 - i;
    MPI_Group_incl(world, n, perm, &rev);

    /* Comm_create: the order is the group's. */
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    CHECK(c != MPI_COMM_NULL, "Comm_create of the whole (reversed) world gave MPI_COMM_NULL");
    if (c != MPI_COMM_NULL) {
        check_comm(c, rev, "Comm_create(rev)");
        MPI_Comm_free(&c);
    }
    int range[1][3] = {{1, n - 1, 2}};
    if (n > 1)
        MPI_Group_range_incl(world, 1, range, &odds);
    else
        odds = MPI_GROUP_EMPTY;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, odds, &c));
    CHECK((c != MPI_COMM_NULL) == (mt_rank % 2 == 1), "Comm_create(odds) on rank %d gave %s",
          mt_rank, c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (c != MPI_COMM_NULL) {
        check_comm(c, odds, "Comm_create(odds)");
        MPI_Comm_free(&c);
    }

    /* Comm_create_group: only the members call it. The evens, reversed,
     * build theirs while the odds build another with the same tag; then the
     * first half of the world, while the others do nothing. */
    int ne = 0, evens_rev[64];
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == 0)
            evens_rev[ne++] = i;
    MPI_Group mine;
    if (mt_rank % 2 == 0)
        MPI_Group_incl(world, ne, evens_rev, &mine);
    else
        MPI_Group_incl(world, n / 2, (int[]){1, 3, 5, 7, 9, 11, 13, 15}, &mine);
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 42, &c));
    CHECK(c != MPI_COMM_NULL, "Comm_create_group gave MPI_COMM_NULL to a member");
    if (c != MPI_COMM_NULL) {
        check_comm(c, mine, "Comm_create_group(evens reversed / odds)");
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&mine);

    int half = (n + 1) / 2;
    if (mt_rank < half) {
        int low[64];
        for (int i = 0; i < half; i++)
            low[i] = i;
        MPI_Group_incl(world, half, low, &mine);
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 5, &c));
        if (c != MPI_COMM_NULL) {
            check_comm(c, mine, "Comm_create_group(first half)");
            /* A collective on it involves only the members. */
            int sum = 0, one = 1;
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
            CHECK(sum == half, "allreduce over the first half gave %d", sum);
            MPI_Comm_free(&c);
        }
        MPI_Group_free(&mine);
    }
    /* World traffic still matches after all that. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&rev);
    if (odds != MPI_GROUP_EMPTY)
        MPI_Group_free(&odds);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_group");
    if (mt_size > 16) {
        if (mt_rank == 0)
            printf("mpi_group: ok (skipped: at most 16 ranks)\n");
        MPI_Finalize();
        return 0;
    }
    test_groups();
    test_comms();
    return mt_finish();
}
