/* mpi_neighbor.c — neighbourhood collectives against a serial reference, on
 * every kind of topology: a periodic and a non-periodic Cartesian grid, a
 * periodic ring (whose -1 and +1 neighbours are one rank at 2 ranks, itself
 * at 1), an irregular graph with repeated edges and a self loop, a
 * distributed graph with weights and repeated edges, and one made by
 * MPI_Dist_graph_create with MPI_UNWEIGHTED. On each: Neighbor_allgather(v),
 * _alltoall(v,w), blocking and nonblocking (Wait, a Test loop, two at once
 * under Waitall), with derived datatypes that leave holes.
 *
 * The reference: what rank s sends in its block k is val(s, k, e). On a
 * graph, the m-th time s appears among r's in-neighbours, r receives the
 * block s sends to the m-th appearance of r among its out-neighbours. On a
 * grid, the block from the -1 neighbour (position 2d) is the one that rank
 * sent to its +1 neighbour (2d+1), and the other way round. Blocks from
 * MPI_PROC_NULL are left as they were. */
#include "mtest.h"

/* GCC 11 and later take the MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY sentinels,
 * constant addresses, for arrays of size 0 and warn at each call (with Open
 * MPI's mpi.h as with Bolt's): the standard says to pass them. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* Open MPI 4.1's nonblocking neighbourhood alltoalls on a grid lose the
 * direction when a rank's -1 and +1 neighbours are one rank (a periodic
 * extent of 1 or 2), and swap those blocks; its blocking ones, and the
 * standard, keep it. On Open MPI 4 those checks are skipped. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#define SKIP_NB_DEGENERATE_GRIDS 1
#else
#define SKIP_NB_DEGENERATE_GRIDS 0
#endif

#define MAXDEG 16
#define CNT 2      /* elements per block in the fixed-size calls */
#define HOLE -7    /* what the untouched parts of a receive buffer hold */

static int val(int s, int k, int e) { return 10000 * s + 100 * k + e; }
/* alltoallv's and alltoallw's counts: differ by sender and block. */
static int vcount(int s, int k) { return 1 + (s + k) % 3; }

struct topo {
    const char *name;
    MPI_Comm comm;
    int cart;
    int nin, nout, in[MAXDEG], out[MAXDEG];
    int allout[8][MAXDEG], alloutdeg[8]; /* every rank's out-neighbours */
};

/* The block k that in-neighbour position i of t's rank r receives. */
static int source_block(const struct topo *t, int r, int i)
{
    int s = t->in[i];
    if (t->cart)
        return i ^ 1;
    int m = 0;
    for (int j = 0; j < i; j++)
        m += t->in[j] == s;
    for (int k = 0; k < t->alloutdeg[s]; k++)
        if (t->allout[s][k] == r && m-- == 0)
            return k;
    return -1; /* the graph is not consistent: the checks will say so */
}

static void learn(struct topo *t)
{
    int st, r;
    MPI_Topo_test(t->comm, &st);
    MPI_Comm_rank(t->comm, &r);
    t->cart = st == MPI_CART;
    if (st == MPI_CART) {
        int nd;
        MPI_Cartdim_get(t->comm, &nd);
        t->nin = t->nout = 2 * nd;
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]);
        memcpy(t->out, t->in, sizeof t->in);
    } else if (st == MPI_GRAPH) {
        MPI_Graph_neighbors_count(t->comm, r, &t->nin);
        t->nout = t->nin;
        MPI_Graph_neighbors(t->comm, r, MAXDEG, t->in);
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &w);
        MPI_Dist_graph_neighbors(t->comm, MAXDEG, t->in, MPI_UNWEIGHTED, MAXDEG, t->out,
                                 MPI_UNWEIGHTED);
    }
    MPI_Allgather(&t->nout, 1, MPI_INT, t->alloutdeg, 1, MPI_INT, t->comm);
    MPI_Allgather(t->out, MAXDEG, MPI_INT, t->allout, MAXDEG, MPI_INT, t->comm);
}

/* An int every other int: count of them leave holes between. */
static MPI_Datatype strided(void)
{
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t);
    MPI_Type_commit(&t);
    return t;
}

static void fill(int *b, int n) { for (int i = 0; i < n; i++) b[i] = HOLE; }

/* Neighbor_allgather into blocks of CNT ints every other int (derived
 * type), blocking or not. */
static void check_allgather(const struct topo *t, int r, int nb)
{
    int sb[CNT], rb[MAXDEG * CNT * 2];
    MPI_Datatype st = strided();
    for (int e = 0; e < CNT; e++)
        sb[e] = val(r, 99, e);
    fill(rb, MAXDEG * CNT * 2);
    if (nb) {
        MPI_Request q;
        CHECK_MPI(MPI_Ineighbor_allgather(sb, CNT, MPI_INT, rb, CNT, st, t->comm, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(q == MPI_REQUEST_NULL, "Wait left the request");
    } else {
        CHECK_MPI(MPI_Neighbor_allgather(sb, CNT, MPI_INT, rb, CNT, st, t->comm));
    }
    for (int i = 0; i < t->nin; i++)
        for (int e = 0; e < 2 * CNT; e++) {
            int want = e % 2 || t->in[i] == MPI_PROC_NULL ? HOLE : val(t->in[i], 99, e / 2);
            CHECK(rb[i * 2 * CNT + e] == want, "%s: %sallgather block %d int %d: %d, want %d",
                  t->name, nb ? "I" : "", i, e, rb[i * 2 * CNT + e], want);
        }
    MPI_Type_free(&st);
}

/* Neighbor_allgatherv: block i of CNT ints at displs[i] = 3 i + 1. */
static void check_allgatherv(const struct topo *t, int r, int nb)
{
    int sb[CNT], rb[3 * MAXDEG + 4], counts[MAXDEG], displs[MAXDEG];
    for (int e = 0; e < CNT; e++)
        sb[e] = val(r, 98, e);
    for (int i = 0; i < t->nin; i++)
        counts[i] = CNT, displs[i] = 3 * i + 1;
    fill(rb, 3 * MAXDEG + 4);
    if (nb) {
        MPI_Request q;
        int flag = 0;
        CHECK_MPI(MPI_Ineighbor_allgatherv(sb, CNT, MPI_INT, rb, counts, displs, MPI_INT, t->comm,
                                           &q));
        while (!flag)
            CHECK_MPI(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Neighbor_allgatherv(sb, CNT, MPI_INT, rb, counts, displs, MPI_INT, t->comm));
    }
    for (int x = 0; x < 3 * t->nin + 1; x++) {
        int i = (x - 1) / 3, e = (x - 1) % 3, want = HOLE;
        if (x > 0 && e < CNT && t->in[i] != MPI_PROC_NULL)
            want = val(t->in[i], 98, e);
        CHECK(rb[x] == want, "%s: %sallgatherv int %d: %d, want %d", t->name, nb ? "I" : "", x,
              rb[x], want);
    }
}

/* Neighbor_alltoall: CNT ints per block, received as a strided type. */
static void check_alltoall(const struct topo *t, int r, int nb)
{
    int sb[MAXDEG * CNT], rb[MAXDEG * CNT * 2];
    MPI_Datatype st = strided();
    for (int k = 0; k < t->nout; k++)
        for (int e = 0; e < CNT; e++)
            sb[k * CNT + e] = val(r, k, e);
    fill(rb, MAXDEG * CNT * 2);
    if (nb) {
        MPI_Request q;
        CHECK_MPI(MPI_Ineighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, st, t->comm, &q));
        MPI_Type_free(&st); /* the pending call keeps what it needs */
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Neighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, st, t->comm));
        MPI_Type_free(&st);
    }
    for (int i = 0; i < t->nin; i++)
        for (int e = 0; e < 2 * CNT; e++) {
            int want = e % 2 || t->in[i] == MPI_PROC_NULL
                           ? HOLE
                           : val(t->in[i], source_block(t, r, i), e / 2);
            CHECK(rb[i * 2 * CNT + e] == want, "%s: %salltoall block %d int %d: %d, want %d",
                  t->name, nb ? "I" : "", i, e, rb[i * 2 * CNT + e], want);
        }
}

/* Neighbor_alltoallv with counts by sender and block and gaps between the
 * blocks; then Neighbor_alltoallw with the same data, every other receive
 * block of the strided type at byte displacements, and two of the
 * nonblocking ones pending at once. */
static void check_alltoallvw(const struct topo *t, int r, int nb)
{
    int sb[MAXDEG * 4], scounts[MAXDEG], sdispls[MAXDEG], rcounts[MAXDEG], rdispls[MAXDEG];
    int rb[MAXDEG * 8], rb2[MAXDEG * 8];
    MPI_Aint sbd[MAXDEG], rbd[MAXDEG];
    MPI_Datatype stypes[MAXDEG], rtypes[MAXDEG], st = strided();
    for (int k = 0, at = 0; k < t->nout; k++) {
        scounts[k] = vcount(r, k);
        sdispls[k] = at;
        sbd[k] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        stypes[k] = MPI_INT;
        for (int e = 0; e < scounts[k]; e++)
            sb[at + e] = val(r, k, e);
        at += scounts[k];
    }
    for (int i = 0; i < t->nin; i++) {
        int s = t->in[i];
        rcounts[i] = s == MPI_PROC_NULL ? 3 : vcount(s, source_block(t, r, i));
        rdispls[i] = 8 * i / 2 + 1; /* 4 i + 1: room for 3 and a gap */
        rbd[i] = (MPI_Aint)(8 * i) * (MPI_Aint)sizeof(int);
        rtypes[i] = i % 2 ? st : MPI_INT;
    }
    fill(rb, MAXDEG * 8);
    fill(rb2, MAXDEG * 8);
    if (nb) {
        MPI_Request q[2];
        CHECK_MPI(MPI_Ineighbor_alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls,
                                          MPI_INT, t->comm, &q[0]));
        CHECK_MPI(MPI_Ineighbor_alltoallw(sb, scounts, sbd, stypes, rb2, rcounts, rbd, rtypes,
                                          t->comm, &q[1]));
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    } else {
        CHECK_MPI(MPI_Neighbor_alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls,
                                         MPI_INT, t->comm));
        CHECK_MPI(MPI_Neighbor_alltoallw(sb, scounts, sbd, stypes, rb2, rcounts, rbd, rtypes,
                                         t->comm));
    }
    for (int i = 0; i < t->nin; i++) {
        int s = t->in[i], k = s == MPI_PROC_NULL ? -1 : source_block(t, r, i);
        for (int x = 0; x < 4; x++) {
            int want = x < 1 || x > rcounts[i] || k < 0 ? HOLE : val(s, k, x - 1);
            CHECK(rb[4 * i + x] == want, "%s: %salltoallv block %d int %d: %d, want %d", t->name,
                  nb ? "I" : "", i, x, rb[4 * i + x], want);
        }
        for (int x = 0; x < 8; x++) {
            int step = i % 2 ? 2 : 1, e = x / step, want = HOLE;
            if (k >= 0 && x % step == 0 && e < rcounts[i])
                want = val(s, k, e);
            CHECK(rb2[8 * i + x] == want, "%s: %salltoallw block %d int %d: %d, want %d", t->name,
                  nb ? "I" : "", i, x, rb2[8 * i + x], want);
        }
    }
    MPI_Type_free(&st);
}

/* A grid where some rank's -1 and +1 neighbours in a dimension are one rank. */
static int degenerate(const struct topo *t)
{
    int any = 0, mine = 0;
    for (int d = 0; t->cart && d < t->nin / 2; d++)
        mine |= t->in[2 * d] != MPI_PROC_NULL && t->in[2 * d] == t->in[2 * d + 1];
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, t->comm);
    return any;
}

static void check(struct topo *t)
{
    int r;
    if (t->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(t->comm, &r);
    learn(t);
    int skip = SKIP_NB_DEGENERATE_GRIDS && degenerate(t);
    for (int nb = 0; nb < 2; nb++) {
        check_allgather(t, r, nb);
        check_allgatherv(t, r, nb);
        if (nb && skip)
            continue;
        check_alltoall(t, r, nb);
        check_alltoallvw(t, r, nb);
    }
    MPI_Comm_free(&t->comm);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_neighbor");
    int n = mt_size, i = mt_rank;

    int dims2[2] = {0, 0}, per2[2] = {1, 1}, nper2[2] = {0, 1}, dims3[3] = {0, 0, 0},
        per3[3] = {0, 0, 0}, ring = n, one = 1;
    MPI_Dims_create(n, 2, dims2);
    MPI_Dims_create(n, 3, dims3);
    struct topo torus = {.name = "periodic grid"}, grid = {.name = "non-periodic grid"}, cube = {.name = "3-D grid"},
                rng = {.name = "ring"};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &torus.comm);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, nper2, 0, &grid.comm);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, per3, 0, &cube.comm);
    MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, &one, 0, &rng.comm);
    check(&torus);
    check(&grid);
    check(&cube);
    check(&rng);

    /* Irregular, symmetric as a multigraph: a ring, 0 and 1 joined once
     * more, 2 joined to itself, and 0 joined to every rank past 3. */
    int index[8], edges[64], e = 0;
    for (int v = 0; v < n; v++) {
        edges[e++] = (v + 1) % n;
        if (v == 0 || v == 1) /* the extra 0-1 edge, in the middle of their lists */
            edges[e++] = n > 1 ? 1 - v : 0;
        edges[e++] = (v + n - 1) % n;
        if (v == 2)
            edges[e++] = 2;
        for (int u = 4; v == 0 && u < n; u++)
            edges[e++] = u;
        if (v >= 4)
            edges[e++] = 0;
        index[v] = e;
    }
    struct topo graph = {.name = "graph"};
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph.comm));
    check(&graph);

    /* Weighted, with a repeated edge: i sends to i+1, i+3, i+1. */
    int dst[3] = {(i + 1) % n, (i + 3) % n, (i + 1) % n}, dw[3] = {1, 2, 3};
    int src[3] = {(i + n - 1) % n, (i + 3 * n - 3) % n, (i + n - 1) % n}, sw[3] = {3, 2, 1};
    struct topo adj = {.name = "weighted distributed graph"};
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, sw, 3, dst, dw,
                                             MPI_INFO_NULL, 0, &adj.comm));
    check(&adj);

    /* Each rank names the edges i -> 2i+1 and (i+1) -> i: the MPI orders them. */
    int srcs[2] = {i, (i + 1) % n}, deg[2] = {1, 1}, dsts[2] = {(2 * i + 1) % n, i};
    struct topo made = {.name = "unweighted distributed graph"};
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, srcs, deg, dsts, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &made.comm));
    check(&made);

    /* A rank with no neighbours at all takes part and gets nothing. */
    struct topo lonely = {.name = "empty distributed graph"};
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &lonely.comm));
    check(&lonely);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* No topology: an error (Bolt's class MPI_ERR_TOPOLOGY; Open MPI 4 differs). */
    int x = 0, y[8], cls = MPI_SUCCESS;
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "Neighbor_allgather without a topology succeeded");
#ifndef OPEN_MPI
    CHECK(cls == MPI_ERR_TOPOLOGY, "Neighbor_allgather without a topology: class %d", cls);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish();
}
