/* mpi_graph.c — graph and distributed-graph topologies: MPI_Graph_create
 * (ranks past nnodes get MPI_COMM_NULL), Graphdims_get, Graph_get,
 * Graph_neighbors(_count) of every node, Graph_map and Cart_map (identity,
 * MPI_UNDEFINED past the grid), Dist_graph_create_adjacent with weights,
 * Dist_graph_create with and without weights (each edge named by some rank,
 * not always an end of it, reaches both its ends), Topo_test, Comm_dup keeping
 * the topology, and the errors: a query for another kind of topology is
 * MPI_ERR_TOPOLOGY, bad nodes, ranks and degrees fail. */
#include "mtest.h"

/* GCC 11 and later take the MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY sentinels,
 * constant addresses, for arrays of size 0 and warn at each call (with Open
 * MPI's mpi.h as with Bolt's): the standard says to pass them. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAXDEG 16

/* A symmetric graph with repeated edges and a self loop: node i is joined to
 * i-1 and i+1 (a ring: twice the same node with 2 nodes, itself twice with 1),
 * node 0 to node 1 once more, node 2 to itself. */
static int ring_graph(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        edges[e++] = (i + n - 1) % n;
        edges[e++] = (i + 1) % n;
        if (n > 1 && (i == 0 || i == 1))
            edges[e++] = 1 - i;
        if (i == 2)
            edges[e++] = 2;
        index[i] = e;
    }
    return e;
}

static void test_graph(void)
{
    int nnodes = mt_size > 1 ? mt_size - 1 : 1, index[8], edges[8 * 4], st;
    int nedges = ring_graph(nnodes, index, edges);
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 1, &g));
    if (mt_rank >= nnodes) {
        CHECK(g == MPI_COMM_NULL, "rank %d past the %d nodes got a communicator", mt_rank, nnodes);
#ifndef OPEN_MPI /* the standard's MPI_UNDEFINED; Open MPI 4 gives the rank */
        int r = 0;
        MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &r);
        CHECK(r == MPI_UNDEFINED, "Graph_map gave %d past the nodes", r);
#endif
        return;
    }
    int r = -1, nn = -1, ne = -1, gi[8], ge[32];
    MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &r);
    CHECK(r == mt_rank, "Graph_map gave %d to rank %d", r, mt_rank);
    MPI_Topo_test(g, &st);
    CHECK(st == MPI_GRAPH, "Topo_test on a graph: %d", st);
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == nnodes && ne == nedges, "Graphdims_get: %d nodes %d edges, want %d %d", nn, ne,
          nnodes, nedges);
    MPI_Graph_get(g, 8, 32, gi, ge);
    for (int i = 0; i < nnodes; i++)
        CHECK(gi[i] == index[i], "Graph_get index[%d] = %d, want %d", i, gi[i], index[i]);
    for (int e = 0; e < nedges; e++)
        CHECK(ge[e] == edges[e], "Graph_get edges[%d] = %d, want %d", e, ge[e], edges[e]);
    for (int v = 0; v < nnodes; v++) {
        int cnt = -1, nb[MAXDEG], first = v ? index[v - 1] : 0;
        MPI_Graph_neighbors_count(g, v, &cnt);
        CHECK(cnt == index[v] - first, "node %d has %d neighbours, want %d", v, cnt,
              index[v] - first);
        MPI_Graph_neighbors(g, v, MAXDEG, nb);
        for (int k = 0; k < cnt && k < MAXDEG; k++)
            CHECK(nb[k] == edges[first + k], "node %d: neighbour %d is %d, want %d", v, k, nb[k],
                  edges[first + k]);
    }
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(g, &d));
    MPI_Topo_test(d, &st);
    MPI_Graphdims_get(d, &nn, &ne);
    CHECK(st == MPI_GRAPH && nn == nnodes && ne == nedges, "the dup's topology: %d, %d, %d", st,
          nn, ne);
    /* A query for another kind of topology. */
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int in, out, w, cls = MPI_SUCCESS;
    MPI_Error_class(MPI_Dist_graph_neighbors_count(g, &in, &out, &w), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count on a graph: class %d", cls);
#ifndef OPEN_MPI /* Open MPI 4 does not check the node */
    CHECK(MPI_Graph_neighbors_count(g, nnodes, &in) != MPI_SUCCESS,
          "Graph_neighbors_count of node %d (of %d) succeeded", nnodes, nnodes);
#endif
    MPI_Comm_free(&d);
    MPI_Comm_free(&g);
}

static void test_cart_map(void)
{
    int dims[2] = {2, 2}, periods[2] = {0, 1}, r = -2;
    if (mt_size < 4)
        dims[0] = 1, dims[1] = mt_size;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r));
    int n = dims[0] * dims[1];
    if (mt_rank < n)
        CHECK(r == mt_rank, "Cart_map gave %d to rank %d", r, mt_rank);
#ifndef OPEN_MPI /* the standard's MPI_UNDEFINED past the grid; Open MPI 4 gives the rank */
    else
        CHECK(r == MPI_UNDEFINED, "Cart_map gave %d to rank %d, past the grid", r, mt_rank);
#endif
}

/* Rank i sends to i+1 (weight 10 i + 1), to i+2 (10 i + 2), and to i+1 again
 * (10 i + 3); it lists its sources in another order than they send. */
static void test_adjacent(void)
{
    int n = mt_size, i = mt_rank, st;
    int dst[3] = {(i + 1) % n, (i + 2) % n, (i + 1) % n}, dw[3] = {10 * i + 1, 10 * i + 2, 10 * i + 3};
    int p1 = (i + n - 1) % n, p2 = (i + 2 * n - 2) % n;
    int src[3] = {p2, p1, p1}, sw[3] = {10 * p2 + 2, 10 * p1 + 1, 10 * p1 + 3};
    MPI_Comm g;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, sw, 3, dst, dw,
                                             MPI_INFO_NULL, 0, &g));
    MPI_Topo_test(g, &st);
    CHECK(st == MPI_DIST_GRAPH, "Topo_test on a distributed graph: %d", st);
    int in = -1, out = -1, w = -1, s[MAXDEG], gsw[MAXDEG], d[MAXDEG], gdw[MAXDEG];
    MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
    CHECK(in == 3 && out == 3 && w, "neighbours count %d in, %d out, weighted %d", in, out, w);
    MPI_Dist_graph_neighbors(g, MAXDEG, s, gsw, MAXDEG, d, gdw);
    for (int k = 0; k < 3; k++) {
        CHECK(s[k] == src[k] && gsw[k] == sw[k], "source %d: %d (weight %d), want %d (%d)", k,
              s[k], gsw[k], src[k], sw[k]);
        CHECK(d[k] == dst[k] && gdw[k] == dw[k], "destination %d: %d (weight %d), want %d (%d)",
              k, d[k], gdw[k], dst[k], dw[k]);
    }
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int cls = MPI_SUCCESS, nn, ne;
    MPI_Error_class(MPI_Graphdims_get(g, &nn, &ne), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Graphdims_get on a distributed graph: class %d", cls);
    MPI_Comm_free(&g);
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Rank i names the edges i -> 2i+1 and (i+1) -> i (the second is not its
 * own to send): every rank must end up with exactly its in- and out-edges,
 * compared as sets of (peer, weight) since their order is the MPI's. */
static void test_create(int weighted)
{
    int n = mt_size, i = mt_rank;
    int srcs[2] = {i, (i + 1) % n}, deg[2] = {1, 1}, dsts[2] = {(2 * i + 1) % n, i};
    int w[2] = {100 * i + 1, 100 * i + 2};
    MPI_Comm g;
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, srcs, deg, dsts,
                                    weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    /* The reference: every rank's two edges, from the rule above. */
    int win[2 * 8][2], wout[2 * 8][2], nin = 0, nout = 0;
    for (int j = 0; j < n; j++) {
        int es[2][3] = {{j, (2 * j + 1) % n, 100 * j + 1}, {(j + 1) % n, j, 100 * j + 2}};
        for (int k = 0; k < 2; k++) {
            if (es[k][0] == i)
                wout[nout][0] = es[k][1], wout[nout++][1] = weighted ? es[k][2] : 0;
            if (es[k][1] == i)
                win[nin][0] = es[k][0], win[nin++][1] = weighted ? es[k][2] : 0;
        }
    }
    int in = -1, out = -1, isw = -1;
    MPI_Dist_graph_neighbors_count(g, &in, &out, &isw);
    CHECK(in == nin && out == nout && isw == weighted, "%d in, %d out, weighted %d; want %d %d %d",
          in, out, isw, nin, nout, weighted);
    if (in != nin || out != nout) {
        MPI_Comm_free(&g);
        return;
    }
    int s[MAXDEG], sw[MAXDEG], d[MAXDEG], dw[MAXDEG], gin[MAXDEG][2], gout[MAXDEG][2];
    MPI_Dist_graph_neighbors(g, MAXDEG, s, weighted ? sw : MPI_UNWEIGHTED, MAXDEG, d,
                             weighted ? dw : MPI_UNWEIGHTED);
    for (int k = 0; k < in; k++)
        gin[k][0] = s[k], gin[k][1] = weighted ? sw[k] : 0;
    for (int k = 0; k < out; k++)
        gout[k][0] = d[k], gout[k][1] = weighted ? dw[k] : 0;
    qsort(gin, (size_t)in, sizeof gin[0], cmp_pair);
    qsort(win, (size_t)nin, sizeof win[0], cmp_pair);
    qsort(gout, (size_t)out, sizeof gout[0], cmp_pair);
    qsort(wout, (size_t)nout, sizeof wout[0], cmp_pair);
    for (int k = 0; k < in; k++)
        CHECK(gin[k][0] == win[k][0] && gin[k][1] == win[k][1],
              "in-edge %d: from %d weight %d, want from %d weight %d", k, gin[k][0], gin[k][1],
              win[k][0], win[k][1]);
    for (int k = 0; k < out; k++)
        CHECK(gout[k][0] == wout[k][0] && gout[k][1] == wout[k][1],
              "out-edge %d: to %d weight %d, want to %d weight %d", k, gout[k][0], gout[k][1],
              wout[k][0], wout[k][1]);
    MPI_Comm_free(&g);
}

/* Wrong on every rank alike, so that no rank is left in a collective. */
static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int index[1] = {0}, edges[1] = {0}, cls = MPI_SUCCESS, k, cnt;
    MPI_Comm g = MPI_COMM_NULL;
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, mt_size + 1, index, edges, 0, &g) != MPI_SUCCESS,
          "Graph_create with more nodes than ranks succeeded");
    int bad = mt_size; /* not a rank */
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g) != MPI_SUCCESS,
          "Dist_graph_create_adjacent from rank %d succeeded", bad);
    int minus = -1;
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &mt_rank, &minus, NULL, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &g) != MPI_SUCCESS,
          "Dist_graph_create with degree -1 succeeded");
    MPI_Error_class(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &cnt), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Graph_neighbors_count without a topology: class %d", cls);
    MPI_Error_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &k, &k, &k), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count without a topology: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_graph");
    test_graph();
    test_cart_map();
    test_adjacent();
    test_create(0);
    test_create(1);
    test_errors();
    return mt_finish();
}
