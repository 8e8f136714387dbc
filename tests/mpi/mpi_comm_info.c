/* mpi_comm_info.c — MPI_Comm_idup, MPI_Comm_dup_with_info and a
 * communicator's hints (MPI 3.1, 6.4.2, 6.4.4). A nonblocking duplicate is
 * congruent with its parent and usable once complete; it inherits the
 * error handler, the topology and the attributes (through their copy
 * callbacks) as MPI_Comm_dup does; several may be pending at once, on one
 * communicator or on different ones started in different orders by
 * different ranks, and point-to-point traffic may run while one is pending
 * (a blocking duplicate in disguise deadlocks there); an intercommunicator's
 * duplicate is an intercommunicator between the same groups. */
#include "mtest.h"

static int copies, deletes;

static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1; /* the copy's value: one more */
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c, (void)k, (void)v, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void check_dup(MPI_Comm parent, MPI_Comm d, const char *what)
{
    int cmp = -1, sum = 0, one = 1, size = 0;
    CHECK(d != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (d == MPI_COMM_NULL)
        return;
    CHECK_MPI(MPI_Comm_compare(parent, d, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "%s: compare gave %d", what, cmp);
    CHECK_MPI(MPI_Comm_size(parent, &size));
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == size, "%s: allreduce over it gave %d", what, sum);
}

static void basic(void)
{
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
    CHECK(r != MPI_REQUEST_NULL, "no request");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, d, "idup of world");
    /* Completed by a test loop, this time. */
    MPI_Comm e = MPI_COMM_NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_idup(d, &e, &r));
    while (!flag)
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    check_dup(d, e, "idup of a duplicate, tested");
    /* Messages on the three do not mix. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size, v[3];
    MPI_Request rr[6];
    MPI_Comm cs[3] = {MPI_COMM_WORLD, d, e};
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Irecv(&v[i], 1, MPI_INT, prev, 0, cs[i], &rr[i]));
    int out[3] = {100 + mt_rank, 200 + mt_rank, 300 + mt_rank};
    for (int i = 2; i >= 0; i--)
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, 0, cs[i], &rr[3 + i]));
    CHECK_MPI(MPI_Waitall(6, rr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++)
        CHECK(v[i] == 100 * (i + 1) + prev, "communicator %d got %d", i, v[i]);
    CHECK_MPI(MPI_Comm_free(&e));
    CHECK_MPI(MPI_Comm_free(&d));
}

/* Pending at once: three on one communicator, waited in reverse; and two
 * communicators duplicated in opposite orders by even and odd ranks. */
static void overlapping(void)
{
    MPI_Comm d[3], a, b, da, db;
    MPI_Request r[3];
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &r[i]));
    for (int i = 2; i >= 0; i--)
        CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) {
        check_dup(MPI_COMM_WORLD, d[i], "one of three pending at once");
        for (int j = 0; j < i; j++) {
            int cmp = -1;
            CHECK_MPI(MPI_Comm_compare(d[i], d[j], &cmp));
            CHECK(cmp == MPI_CONGRUENT, "duplicates %d and %d: %d", i, j, cmp);
        }
    }
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_free(&d[i]));

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &b)); /* ranks reversed */
    if (mt_rank % 2 == 0) {
        CHECK_MPI(MPI_Comm_idup(a, &da, &r[0]));
        CHECK_MPI(MPI_Comm_idup(b, &db, &r[1]));
    } else {
        CHECK_MPI(MPI_Comm_idup(b, &db, &r[1]));
        CHECK_MPI(MPI_Comm_idup(a, &da, &r[0]));
    }
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    check_dup(a, da, "idup of a, in either order");
    check_dup(b, db, "idup of b, in either order");
    int rank = -1;
    CHECK_MPI(MPI_Comm_rank(db, &rank));
    CHECK(rank == mt_size - 1 - mt_rank, "the duplicate of the reversed communicator: rank %d",
          rank);
    MPI_Comm fr[4] = {a, b, da, db};
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Comm_free(&fr[i]));
}

/* While rank 0's duplicate is pending, it sends to rank 1, which only joins
 * the duplication once the message is in. */
static void traffic_meanwhile(void)
{
    enum { N = 1 << 16 }; /* beyond eager sizes: the receiver must be there */
    static int buf[N];
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request r;
    if (mt_rank == 0) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
        for (int i = 0; i < N; i++)
            buf[i] = i;
        if (mt_size > 1)
            CHECK_MPI(MPI_Send(buf, N, MPI_INT, 1, 9, MPI_COMM_WORLD));
    } else {
        if (mt_rank == 1)
            CHECK_MPI(MPI_Recv(buf, N, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mt_rank != 1 || buf[N - 1] == N - 1, "received %d", buf[N - 1]);
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, d, "idup with traffic meanwhile");
    CHECK_MPI(MPI_Comm_free(&d));
}

/* What a duplicate inherits: handler, attributes, topology. */
static void inherited(void)
{
    MPI_Comm p, d;
    MPI_Request r;
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    int kcopy, knull, kdup, flag = 0;
    void *v = NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &p));
    CHECK_MPI(MPI_Comm_set_errhandler(p, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_create_keyval(count_copy, count_delete, &kcopy, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knull, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    static char base[4];
    CHECK_MPI(MPI_Comm_set_attr(p, kcopy, base));
    CHECK_MPI(MPI_Comm_set_attr(p, knull, base));
    CHECK_MPI(MPI_Comm_set_attr(p, kdup, base + 2));
    copies = deletes = 0;
    CHECK_MPI(MPI_Comm_idup(p, &d, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(copies == 1, "copy callback ran %d times", copies);
    CHECK_MPI(MPI_Comm_get_attr(d, kcopy, &v, &flag));
    CHECK(flag && v == base + 1, "copied attribute: flag %d, value %p", flag, v);
    CHECK_MPI(MPI_Comm_get_attr(d, knull, &v, &flag));
    CHECK(!flag, "an attribute with MPI_COMM_NULL_COPY_FN was copied");
    CHECK_MPI(MPI_Comm_get_attr(d, kdup, &v, &flag));
    CHECK(flag && v == base + 2, "MPI_COMM_DUP_FN's copy: flag %d", flag);
    CHECK_MPI(MPI_Comm_get_errhandler(d, &h));
    CHECK(h == MPI_ERRORS_RETURN, "the handler was not inherited");
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(deletes == 1, "freeing the duplicate ran %d delete callbacks", deletes);

    /* The same through MPI_Comm_dup_with_info, whose hints change nothing. */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    copies = 0;
    CHECK_MPI(MPI_Comm_dup_with_info(p, info, &d));
    check_dup(p, d, "dup_with_info");
    CHECK(copies == 1, "dup_with_info: copy callback ran %d times", copies);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_dup_with_info(p, MPI_INFO_NULL, &d));
    check_dup(p, d, "dup_with_info with MPI_INFO_NULL");
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Comm_free(&p));
    CHECK_MPI(MPI_Comm_free_keyval(&kcopy));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));

    /* A ring's duplicate is a ring: its neighbourhood collective works. */
    int dims[1] = {mt_size}, periods[1] = {1}, topo = -1, nb[2] = {-1, -1}, me = mt_rank;
    MPI_Comm ring, dring;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    CHECK_MPI(MPI_Comm_idup(ring, &dring, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Topo_test(dring, &topo));
    CHECK(topo == MPI_CART, "the duplicate's topology: %d", topo);
    CHECK_MPI(MPI_Neighbor_allgather(&me, 1, MPI_INT, nb, 1, MPI_INT, dring));
    CHECK(nb[0] == (mt_rank + mt_size - 1) % mt_size && nb[1] == (mt_rank + 1) % mt_size,
          "neighbours on the duplicate ring: %d %d", nb[0], nb[1]);
    CHECK_MPI(MPI_Comm_free(&dring));
    CHECK_MPI(MPI_Comm_free(&ring));
}

/* An intercommunicator's duplicate is one too, between the same groups:
 * the two halves of the world, low ranks and high ranks. */
static void intercomm(void)
{
    if (mt_size < 2)
        return;
    int half = mt_size / 2, low = mt_rank < half, flag = 0, rsize = -1, sum = -1;
    MPI_Comm local, inter, d;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter));
    CHECK_MPI(MPI_Comm_idup(inter, &d, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_test_inter(d, &flag));
    CHECK_MPI(MPI_Comm_remote_size(d, &rsize));
    CHECK(flag && rsize == (low ? mt_size - half : half), "intercommunicator duplicate: flag %d, "
          "remote size %d", flag, rsize);
    /* Each group sums the other's world ranks. */
    int want = 0;
    for (int i = 0; i < mt_size; i++)
        want += (i < half) != low ? i : 0;
    CHECK_MPI(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == want, "allreduce over the duplicate gave %d, want %d", sum, want);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
}

/* Hints: get_info gives an info of the caller's to free; set_info takes a
 * live info only. */
static void hints(void)
{
    MPI_Info info, used = MPI_INFO_NULL;
    int n = -1, rc, cls = -1;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "color", "blue"));
    CHECK_MPI(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    CHECK(used != MPI_INFO_NULL, "get_info gave MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_get_nkeys(used, &n));
#ifdef BOLT_MPI
    /* Bolt acts on no communicator hint, and reports only hints it uses. */
    CHECK(n == 0, "Bolt reported %d hints", n);
#endif
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO, "set_info with MPI_INFO_NULL: class %d", cls);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_comm_info");
    basic();
    overlapping();
    traffic_meanwhile();
    inherited();
    intercomm();
    hints();
    return mt_finish();
}
