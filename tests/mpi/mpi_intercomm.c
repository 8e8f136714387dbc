/* mpi_intercomm.c — intercommunicators: MPI_Intercomm_create (the leaders
 * meeting over a peer communicator), the local and remote groups,
 * point-to-point between the groups in every mode, merge, dup, split,
 * create, compare, names and attributes, and bad input. Collectives over
 * intercommunicators are in mpi_intercoll.c.
 *
 * The groups: A the even world ranks, B the odd ones (local rank = world
 * rank / 2); remote rank j of A is world rank 2j + 1, of B world rank 2j.
 * With one rank there is no second group: only the bad input is checked. */
#include "mtest.h"

static MPI_Group world_group;
static int color, L, R, lr; /* my group (0 = A), its size, the remote size, my local rank */

static int remote_world(int j) { return 2 * j + 1 - color; }

/* World rank of rank i of group g. */
static int world_of(MPI_Group g, int i)
{
    int w = -1;
    MPI_Group_translate_ranks(g, 1, &i, world_group, &w);
    return w;
}

static int copies;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void check_groups(MPI_Comm ic)
{
    MPI_Group g, rg;
    int flag = -1, s, r, rs, gs;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag == 1, "test_inter says %d", flag);
    MPI_Comm_size(ic, &s);
    MPI_Comm_rank(ic, &r);
    CHECK_MPI(MPI_Comm_remote_size(ic, &rs));
    CHECK(s == L && r == lr && rs == R, "size %d rank %d remote size %d, not %d %d %d", s, r, rs,
          L, lr, R);
    CHECK_MPI(MPI_Comm_group(ic, &g));
    CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
    MPI_Group_size(g, &gs);
    CHECK(gs == L, "local group of %d", gs);
    for (int i = 0; i < gs; i++)
        CHECK(world_of(g, i) == 2 * i + color, "local rank %d is world %d", i, world_of(g, i));
    MPI_Group_size(rg, &gs);
    CHECK(gs == R, "remote group of %d", gs);
    for (int j = 0; j < gs; j++)
        CHECK(world_of(rg, j) == remote_world(j), "remote rank %d is world %d", j, world_of(rg, j));
    MPI_Group_free(&g);
    MPI_Group_free(&rg);
}

/* Every process sends each remote one a message; each receives them with
 * wildcards. Group A meanwhile talks on a communicator of its own made
 * before the intercommunicator (so the groups' next contexts differed). */
static void wildcards(MPI_Comm ic, MPI_Comm extra)
{
    MPI_Request *q = malloc((size_t)R * sizeof *q), lq[2];
    int *out = malloc((size_t)R * sizeof *out), *seen = calloc((size_t)R, sizeof *seen);
    int lin = -1, lout = 1000 + lr;
    if (extra != MPI_COMM_NULL) {
        MPI_Irecv(&lin, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, extra, &lq[0]);
        MPI_Isend(&lout, 1, MPI_INT, (lr + 1) % L, 3, extra, &lq[1]);
    }
    for (int j = 0; j < R; j++) {
        out[j] = mt_rank * 100 + j;
        MPI_Isend(&out[j], 1, MPI_INT, j, 10 + lr, ic, &q[j]);
    }
    for (int k = 0; k < R; k++) {
        MPI_Status st;
        int v = -1, n = -1;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        int j = st.MPI_SOURCE;
        CHECK(j >= 0 && j < R && !seen[j], "message from remote rank %d", j);
        if (j >= 0 && j < R) {
            seen[j] = 1;
            CHECK(st.MPI_TAG == 10 + j && v == remote_world(j) * 100 + lr && n == 1,
                  "from remote %d: tag %d value %d count %d", j, st.MPI_TAG, v, n);
        }
    }
    MPI_Waitall(R, q, MPI_STATUSES_IGNORE);
    /* No process goes on to send more before every wildcard receive is done. */
    CHECK_MPI(MPI_Barrier(ic));
    if (extra != MPI_COMM_NULL) {
        MPI_Waitall(2, lq, MPI_STATUSES_IGNORE);
        CHECK(lin == 1000 + (lr + L - 1) % L, "the local communicator got %d", lin);
    }
    free(q);
    free(out);
    free(seen);
}

/* Local rank i < min(L, R) pairs with remote rank i, in every mode. */
static void pairs(MPI_Comm ic)
{
    int p = lr, in = -1, me = mt_rank, them = remote_world(p), tok = 0;
    MPI_Status st;
    if (lr >= (L < R ? L : R))
        return;
    if (color == 0) {
        CHECK_MPI(MPI_Ssend(&me, 1, MPI_INT, p, 1, ic));
        /* ready send: B sends once A's receive is posted */
        MPI_Request q;
        MPI_Irecv(&in, 1, MPI_INT, p, 21, ic, &q);
        MPI_Send(&tok, 1, MPI_INT, p, 20, ic);
        CHECK_MPI(MPI_Wait(&q, &st));
        CHECK(in == them && st.MPI_SOURCE == p, "rsend gave %d from %d", in, st.MPI_SOURCE);
        /* buffered */
        int size = 64 + MPI_BSEND_OVERHEAD;
        char *buf = malloc((size_t)size);
        MPI_Buffer_attach(buf, size);
        CHECK_MPI(MPI_Bsend(&me, 1, MPI_INT, p, 22, ic));
        MPI_Buffer_detach(&buf, &size);
        free(buf);
        /* a vector of every other int, received as contiguous ints by B */
        int v[6] = {me, -1, me + 1, -1, me + 2, -1};
        MPI_Datatype vec;
        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        CHECK_MPI(MPI_Send(v, 1, vec, p, 23, ic));
        MPI_Type_free(&vec);
        /* probe what B sends */
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 30, ic, &flag, &st));
        CHECK(st.MPI_SOURCE == p, "iprobe found remote %d", st.MPI_SOURCE);
        CHECK_MPI(MPI_Probe(p, 30, ic, &st));
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, st.MPI_SOURCE, 30, ic, &st));
        CHECK(in == them, "probed message %d", in);
        MPI_Send(&me, 1, MPI_INT, p, 31, ic);
    } else {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 1, ic, &st));
        CHECK(in == them && st.MPI_SOURCE == p, "ssend gave %d from %d", in, st.MPI_SOURCE);
        MPI_Recv(&tok, 1, MPI_INT, p, 20, ic, MPI_STATUS_IGNORE);
        CHECK_MPI(MPI_Rsend(&me, 1, MPI_INT, p, 21, ic));
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, p, 22, ic, &st));
        CHECK(in == them, "bsend gave %d", in);
        int v[3] = {-1, -1, -1};
        CHECK_MPI(MPI_Recv(v, 3, MPI_INT, p, 23, ic, &st));
        CHECK(v[0] == them && v[1] == them + 1 && v[2] == them + 2, "vector gave %d %d %d", v[0],
              v[1], v[2]);
        MPI_Send(&me, 1, MPI_INT, p, 30, ic);
        MPI_Message msg;
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 31, ic, &msg, &st));
        CHECK(st.MPI_SOURCE == p, "mprobe found remote %d", st.MPI_SOURCE);
        CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st));
        CHECK(in == them && st.MPI_SOURCE == p, "mrecv gave %d from %d", in, st.MPI_SOURCE);
    }
    /* both ways at once */
    in = -1;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, p, 40, &in, 1, MPI_INT, p, 40, ic, &st));
    CHECK(in == them && st.MPI_SOURCE == p, "sendrecv gave %d from %d", in, st.MPI_SOURCE);
    in = me;
    CHECK_MPI(MPI_Sendrecv_replace(&in, 1, MPI_INT, p, 41, MPI_ANY_SOURCE, 41, ic, &st));
    CHECK(in == them && st.MPI_SOURCE == p, "sendrecv_replace gave %d from %d", in, st.MPI_SOURCE);
    /* persistent, started twice */
    MPI_Request q[2];
    int got = -1;
    MPI_Recv_init(&got, 1, MPI_INT, p, 42, ic, &q[0]);
    MPI_Send_init(&me, 1, MPI_INT, p, 42, ic, &q[1]);
    for (int round = 0; round < 2; round++) {
        got = -1;
        MPI_Status sts[2];
        CHECK_MPI(MPI_Startall(2, q));
        CHECK_MPI(MPI_Waitall(2, q, sts));
        CHECK(got == them && sts[0].MPI_SOURCE == p, "persistent round %d gave %d from %d", round,
              got, sts[0].MPI_SOURCE);
    }
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    /* nonblocking synchronous */
    got = -1;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 43, ic, &q[0]);
    MPI_Issend(&me, 1, MPI_INT, p, 43, ic, &q[1]);
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, q, sts));
    CHECK(got == them && sts[0].MPI_SOURCE == p, "issend gave %d from %d", got, sts[0].MPI_SOURCE);
}

static void proc_null(MPI_Comm ic)
{
    MPI_Status st;
    int v = 5, n = -1;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, ic));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && n == 0 && v == 5, "recv from MPI_PROC_NULL: %d %d",
          st.MPI_SOURCE, n);
}

/* Merged: the group passing high = 0 first, each in its order. */
static void merge(MPI_Comm ic)
{
    for (int low = 0; low < 2; low++) {
        MPI_Comm m;
        MPI_Group g;
        int s, r, flag = -1, la = low == 0 ? (mt_size + 1) / 2 : mt_size / 2;
        CHECK_MPI(MPI_Intercomm_merge(ic, color != low, &m));
        MPI_Comm_test_inter(m, &flag);
        MPI_Comm_size(m, &s);
        MPI_Comm_rank(m, &r);
        CHECK(flag == 0 && s == mt_size, "merged: inter %d size %d", flag, s);
        CHECK(r == (color == low ? lr : la + lr), "merged (group %d low): rank %d", low, r);
        MPI_Comm_group(m, &g);
        for (int i = 0; i < s; i++) {
            int w = i < la ? 2 * i + low : 2 * (i - la) + 1 - low;
            CHECK(world_of(g, i) == w, "merged rank %d is world %d, not %d", i, world_of(g, i), w);
        }
        MPI_Group_free(&g);
        int sum = -1;
        MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, m);
        CHECK(sum == mt_size * (mt_size - 1) / 2, "allreduce on the merged communicator: %d", sum);
        MPI_Comm_free(&m);
    }
}

static void dup_compare_attrs(MPI_Comm ic, MPI_Comm local)
{
    MPI_Comm d;
    int key, cmp = -1, flag = 0;
    void *val = NULL;
    static int tagged = 42;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    CHECK_MPI(MPI_Comm_set_attr(ic, key, &tagged));
    CHECK_MPI(MPI_Comm_set_name(ic, "between A and B"));
    copies = 0;
    CHECK_MPI(MPI_Comm_dup(ic, &d));
    check_groups(d);
    CHECK(copies == 1, "%d attribute copies", copies);
    CHECK_MPI(MPI_Comm_get_attr(d, key, &val, &flag));
    CHECK(flag && val == &tagged, "the duplicate's attribute: flag %d", flag);
    CHECK_MPI(MPI_Comm_get_name(ic, name, &len));
    CHECK(!strcmp(name, "between A and B"), "name '%s'", name);
    MPI_Comm_compare(ic, d, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "dup compares as %d", cmp);
    MPI_Comm_compare(ic, ic, &cmp);
    CHECK(cmp == MPI_IDENT, "itself compares as %d", cmp);
    MPI_Comm_compare(ic, local, &cmp);
    CHECK(cmp == MPI_UNEQUAL, "the local communicator compares as %d", cmp);
    MPI_Comm_compare(ic, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_UNEQUAL, "the world compares as %d", cmp);
    /* The duplicate's messages stay apart from the original's. */
    if (lr < (L < R ? L : R)) {
        int a = -1, b = -1, one = 1, two = 2;
        if (color == 0) {
            MPI_Send(&one, 1, MPI_INT, lr, 5, d);
            MPI_Send(&two, 1, MPI_INT, lr, 5, ic);
        } else {
            MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, MPI_STATUS_IGNORE);
            MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d, MPI_STATUS_IGNORE);
            CHECK(a == 2 && b == 1, "contexts mixed: original got %d, duplicate %d", a, b);
        }
    }
    MPI_Comm_free(&d);
    MPI_Comm_delete_attr(ic, key);
    MPI_Comm_free_keyval(&key);
}

/* Split by local rank parity, keys reversing the order; a color with no
 * process in the other group gives MPI_COMM_NULL. */
static void split(MPI_Comm ic)
{
    MPI_Comm sp;
    int c2 = lr % 2;
    CHECK_MPI(MPI_Comm_split(ic, c2, -lr, &sp));
    if (R <= c2) {
        CHECK(sp == MPI_COMM_NULL, "color %d has no remote process, yet a communicator came", c2);
        return;
    }
    CHECK(sp != MPI_COMM_NULL, "no communicator for color %d", c2);
    if (sp == MPI_COMM_NULL)
        return;
    /* members of a color, highest local rank first */
    int top = (L - 1) % 2 == c2 ? L - 1 : L - 2, rtop = (R - 1) % 2 == c2 ? R - 1 : R - 2;
    int s, r, rs, nl = (L - c2 + 1) / 2, nr = (R - c2 + 1) / 2;
    MPI_Group g, rg;
    MPI_Comm_size(sp, &s);
    MPI_Comm_rank(sp, &r);
    MPI_Comm_remote_size(sp, &rs);
    CHECK(s == nl && rs == nr && r == (top - lr) / 2, "split: size %d remote %d rank %d", s, rs, r);
    MPI_Comm_group(sp, &g);
    MPI_Comm_remote_group(sp, &rg);
    for (int i = 0; i < s; i++)
        CHECK(world_of(g, i) == 2 * (top - 2 * i) + color, "split rank %d is world %d", i,
              world_of(g, i));
    for (int j = 0; j < rs; j++)
        CHECK(world_of(rg, j) == remote_world(rtop - 2 * j), "split remote %d is world %d", j,
              world_of(rg, j));
    CHECK(world_of(g, r) == mt_rank, "my split rank %d is world %d", r, world_of(g, r));
    /* point-to-point on it: rank k with remote rank k */
    if (r < rs) {
        int got = -1;
        MPI_Sendrecv(&mt_rank, 1, MPI_INT, r, 0, &got, 1, MPI_INT, r, 0, sp, MPI_STATUS_IGNORE);
        CHECK(got == world_of(rg, r), "split partner sent %d", got);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&rg);
    MPI_Comm_free(&sp);
}

/* Each group keeps all but its last member (a group of one keeps it). */
static void create(MPI_Comm ic)
{
    MPI_Group g, sub;
    MPI_Comm cr;
    int last = L - 1;
    MPI_Comm_group(ic, &g);
    if (L > 1)
        MPI_Group_excl(g, 1, &last, &sub);
    else
        MPI_Group_incl(g, 1, &last, &sub);
    CHECK_MPI(MPI_Comm_create(ic, sub, &cr));
    int in = L == 1 || lr < L - 1;
    CHECK(in == (cr != MPI_COMM_NULL), "created communicator %d for local rank %d", cr, lr);
    if (cr != MPI_COMM_NULL) {
        int s, rs, flag;
        MPI_Comm_test_inter(cr, &flag);
        MPI_Comm_size(cr, &s);
        MPI_Comm_remote_size(cr, &rs);
        CHECK(flag && s == (L > 1 ? L - 1 : 1) && rs == (R > 1 ? R - 1 : 1),
              "created: inter %d size %d remote %d", flag, s, rs);
        MPI_Comm_free(&cr);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&g);
}

/* World ranks 0 and 1, each a group of its own (MPI_COMM_SELF), meet over
 * the world; merged with 1 high, 0 comes first. */
static void self_pair(void)
{
    MPI_Comm ic, m;
    int other = 1 - mt_rank, s = -1, rs = -1, got = -1, r = -1;
    if (mt_rank > 1)
        return;
    CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, other, 11, &ic));
    MPI_Comm_size(ic, &s);
    MPI_Comm_remote_size(ic, &rs);
    CHECK(s == 1 && rs == 1, "a pair of selves: sizes %d and %d", s, rs);
    CHECK_MPI(MPI_Sendrecv(&mt_rank, 1, MPI_INT, 0, 0, &got, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE));
    CHECK(got == other, "the other self sent %d", got);
    CHECK_MPI(MPI_Intercomm_merge(ic, mt_rank, &m));
    MPI_Comm_rank(m, &r);
    CHECK(r == mt_rank, "merged selves: rank %d", r);
    MPI_Comm_free(&m);
    MPI_Comm_free(&ic);
}

/* Calls that must fail, with MPI_ERRORS_RETURN. */
static void bad_input(MPI_Comm ic)
{
    MPI_Comm x = MPI_COMM_NULL;
    int rc, cls = -1, v = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Each process its own group, leading it: a remote leader past the peer's ranks. */
    rc = MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, mt_size, 9, &x);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK || cls == MPI_ERR_ARG, "remote leader out of range: class %d", cls);
    rc = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &x);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "merging an intracommunicator: class %d", cls);
    if (ic == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    rc = MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 9, &x);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "an intercommunicator as local_comm: class %d", cls);
    int dims[1] = {1}, periods[1] = {0};
    rc = MPI_Cart_create(ic, 1, dims, periods, 0, &x);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Cart_create on an intercommunicator: class %d", cls);
    rc = MPI_Send(&v, 1, MPI_INT, R, 0, ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "send to remote rank %d of %d: class %d", R, R, cls);
    rc = MPI_Recv(&v, 1, MPI_INT, R + 3, 0, ic, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "receive from remote rank %d: class %d", R + 3, cls);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_intercomm");
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm ic = MPI_COMM_NULL, local, extra = MPI_COMM_NULL;
    if (mt_size < 2) {
        if (mt_rank == 0)
            printf("mpi_intercomm: one rank, one group: only bad input is checked\n");
    } else {
        color = mt_rank % 2;
        lr = mt_rank / 2;
        L = color == 0 ? (mt_size + 1) / 2 : mt_size / 2;
        R = mt_size - L;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &local));
        if (color == 0)
            MPI_Comm_dup(local, &extra);
        CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 7, &ic));
        int flag = -1;
        MPI_Comm_test_inter(local, &flag);
        CHECK(flag == 0, "the local communicator is an intercommunicator? %d", flag);
        check_groups(ic);
        wildcards(ic, extra);
        pairs(ic);
        proc_null(ic);
        merge(ic);
        dup_compare_attrs(ic, local);
        split(ic);
        create(ic);
        self_pair();
    }
    bad_input(ic);
    if (ic != MPI_COMM_NULL) {
        CHECK_MPI(MPI_Comm_free(&ic));
        CHECK(ic == MPI_COMM_NULL, "Comm_free left %d", ic);
        MPI_Comm_free(&local);
    }
    if (extra != MPI_COMM_NULL)
        MPI_Comm_free(&extra);
    MPI_Group_free(&world_group);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish();
}
