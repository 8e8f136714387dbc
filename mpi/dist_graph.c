/* dist_graph.c — distributed-graph topologies: MPI_Dist_graph_create_adjacent
 * (each rank names its own in- and out-edges), MPI_Dist_graph_create (each
 * rank names any edges; they are sent to both their ends) and the queries.
 * The new communicator has comm_old's group in comm_old's order (reorder is
 * ignored, see graph.c). */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

/* weights as given: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (only for no edges), or
 * n non-negative weights. */
static int weights_ok(MPI_Comm comm, const int *w, int n, const char *what, const char *fn)
{
    if (w == MPI_UNWEIGHTED || (w == MPI_WEIGHTS_EMPTY && n == 0))
        return MPI_SUCCESS;
    if (n > 0 && (!w || w == MPI_WEIGHTS_EMPTY))
        return face_error(comm, fn, MPI_ERR_ARG,
                          "%s is %s for %d edges: give the weights or MPI_UNWEIGHTED", what,
                          w ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return face_error(comm, fn, MPI_ERR_ARG, "%s[%d] = %d: weights are non-negative",
                              what, i, w[i]);
    return MPI_SUCCESS;
}

static int ranks_ok(MPI_Comm comm, const struct face_comm *c, const int *r, int n,
                    const char *what, const char *fn)
{
    if (n < 0 || (n > 0 && !r))
        return face_error(comm, fn, MPI_ERR_ARG, "%s: %d ranks, or a NULL array", what, n);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= c->size)
            return face_error(comm, fn, MPI_ERR_RANK, "%s[%d] = %d is not a rank of 0..%d", what,
                              i, r[i], c->size - 1);
    return MPI_SUCCESS;
}

/* Arguments differ between ranks, so a fault found on one rank alone would
 * leave the others waiting in the collective part: every rank learns
 * whether any failed, and fails too. */
static int agree(MPI_Comm comm, int rc, const char *fn)
{
    int bad = rc != MPI_SUCCESS, any = 0;
    MPI_Errhandler keep = face_comm_get(comm)->errh;
    face_comm_get(comm)->errh = MPI_ERRORS_RETURN;
    int arc = PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    face_comm_get(comm)->errh = keep;
    if (rc)
        return rc; /* already raised */
    if (arc)
        return face_error(comm, fn, arc, "cannot agree on the arguments: %s", bolt_error_message());
    if (any)
        return face_error(comm, fn, MPI_ERR_ARG, "another rank's arguments are invalid");
    return MPI_SUCCESS;
}

/* A communicator like comm_old, with g (taken) as its topology. */
static int make(MPI_Comm comm_old, struct face_graph *g, MPI_Comm *out, const char *fn)
{
    struct face_comm *c = face_comm_get(comm_old);
    MPI_Comm h;
    int rc = face_comm_split(comm_old, 0, c->rank, &h, fn);
    if (rc) {
        face_graph_free(g);
        return rc;
    }
    face_comm_get(h)->graph = g; /* freed with the communicator */
    if ((rc = face_topo_attach(h, fn)))
        PMPI_Comm_free(&h);
    *out = h;
    return rc;
}

static struct face_graph *graph_new(int indegree, int outdegree, int weighted)
{
    struct face_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->kind = MPI_DIST_GRAPH;
    g->indegree = indegree;
    g->outdegree = outdegree;
    g->weighted = weighted;
    g->sources = malloc((size_t)(indegree + 1) * sizeof(int));
    g->destinations = malloc((size_t)(outdegree + 1) * sizeof(int));
    g->sourceweights = malloc((size_t)(indegree + 1) * sizeof(int));
    g->destweights = malloc((size_t)(outdegree + 1) * sizeof(int));
    if (!g->sources || !g->destinations || !g->sourceweights || !g->destweights) {
        face_graph_free(g);
        return NULL;
    }
    return g;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm_old, fn, &c);
    (void)info;
    (void)reorder;
    if (rc || (rc = face_check_intra(comm_old, c, fn)))
        return rc;
    if (!comm_dist_graph)
        rc = face_error(comm_old, fn, MPI_ERR_ARG, "comm_dist_graph pointer is NULL");
    if (!rc && !(rc = ranks_ok(comm_old, c, sources, indegree, "sources", fn)) &&
        !(rc = ranks_ok(comm_old, c, destinations, outdegree, "destinations", fn)) &&
        !(rc = weights_ok(comm_old, sourceweights, indegree, "sourceweights", fn)))
        rc = weights_ok(comm_old, destweights, outdegree, "destweights", fn);
    if ((rc = agree(comm_old, rc, fn)))
        return rc;
    int weighted = sourceweights != MPI_UNWEIGHTED;
    struct face_graph *g = graph_new(indegree, outdegree, weighted);
    if (!g) /* a rank short of memory this early fails the job's collective below too */
        return face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
    /* no edges: the arrays may be NULL, which memcpy may not be given */
    if (indegree > 0)
        memcpy(g->sources, sources, (size_t)indegree * sizeof(int));
    if (outdegree > 0)
        memcpy(g->destinations, destinations, (size_t)outdegree * sizeof(int));
    for (int i = 0; i < indegree; i++)
        g->sourceweights[i] = weighted ? sourceweights[i] : 1;
    for (int i = 0; i < outdegree; i++)
        g->destweights[i] = weighted && destweights != MPI_UNWEIGHTED ? destweights[i] : 1;
    return make(comm_old, g, comm_dist_graph, fn);
}

/* Each edge (s, d, w) goes to s as out-edge (0, d, w) and to d as in-edge
 * (1, s, w). The all-to-all delivers them ordered by the rank that named
 * them, then by its order, at both ends: so the k-th edge from s to d is the
 * k-th in both s's destinations and d's sources. */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create";
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm_old, fn, &c), nedges = 0;
    (void)info;
    (void)reorder;
    if (rc || (rc = face_check_intra(comm_old, c, fn)))
        return rc;
    if (!comm_dist_graph)
        rc = face_error(comm_old, fn, MPI_ERR_ARG, "comm_dist_graph pointer is NULL");
    if (!rc && !(rc = ranks_ok(comm_old, c, sources, n, "sources", fn)) && n > 0 && !degrees)
        rc = face_error(comm_old, fn, MPI_ERR_ARG, "degrees is NULL");
    for (int i = 0; !rc && i < n; i++) {
        if (degrees[i] < 0)
            rc = face_error(comm_old, fn, MPI_ERR_ARG, "degrees[%d] = %d is negative", i,
                            degrees[i]);
        nedges += degrees[i];
    }
    if (!rc && !(rc = ranks_ok(comm_old, c, destinations, nedges, "destinations", fn)))
        rc = weights_ok(comm_old, weights, nedges, "weights", fn);
    if ((rc = agree(comm_old, rc, fn)))
        return rc;
    int size = c->size, weighted = weights != MPI_UNWEIGHTED;
    int *cnt = calloc(4 * (size_t)size, sizeof(int)), *out = malloc(6 * (size_t)nedges * sizeof(int) + 1);
    int *in = NULL;
    struct face_graph *g = NULL;
    if (!cnt || !out) {
        rc = face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
        goto done;
    }
    int *scnt = cnt, *sdis = cnt + size, *rcnt = cnt + 2 * size, *rdis = cnt + 3 * size;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            scnt[sources[i]] += 3;
            scnt[destinations[e]] += 3;
        }
    for (int r = 1; r < size; r++)
        sdis[r] = sdis[r - 1] + scnt[r - 1];
    int *fill = rdis; /* scratch for now: where each rank's next triple goes */
    memcpy(fill, sdis, (size_t)size * sizeof(int));
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            int *o = out + fill[s];
            o[0] = 0, o[1] = d, o[2] = w;
            fill[s] += 3;
            o = out + fill[d];
            o[0] = 1, o[1] = s, o[2] = w;
            fill[d] += 3;
        }
    if ((rc = PMPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm_old)))
        goto done;
    int total = 0;
    for (int r = 0; r < size; r++) {
        rdis[r] = total;
        total += rcnt[r];
    }
    if (!(in = malloc((size_t)total * sizeof(int) + 1))) {
        rc = face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
        goto done;
    }
    if ((rc = PMPI_Alltoallv(out, scnt, sdis, MPI_INT, in, rcnt, rdis, MPI_INT, comm_old)))
        goto done;
    int indeg = 0, outdeg = 0;
    for (int t = 0; t < total; t += 3)
        *(in[t] ? &indeg : &outdeg) += 1;
    if (!(g = graph_new(indeg, outdeg, weighted))) {
        rc = face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
        goto done;
    }
    indeg = outdeg = 0;
    for (int t = 0; t < total; t += 3) {
        if (in[t]) {
            g->sources[indeg] = in[t + 1];
            g->sourceweights[indeg++] = in[t + 2];
        } else {
            g->destinations[outdeg] = in[t + 1];
            g->destweights[outdeg++] = in[t + 2];
        }
    }
    rc = make(comm_old, g, comm_dist_graph, fn);
done:
    free(cnt);
    free(out);
    free(in);
    return rc;
}

static int dist_check(MPI_Comm comm, const char *fn, struct face_comm **c)
{
    int rc = face_comm_check(comm, fn, c);
    if (rc)
        return rc;
    if (!(*c)->graph || (*c)->graph->kind != MPI_DIST_GRAPH)
        return face_error(comm, fn, MPI_ERR_TOPOLOGY,
                          "the communicator has no distributed-graph topology: make one with "
                          "MPI_Dist_graph_create or MPI_Dist_graph_create_adjacent");
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    const char *fn = "MPI_Dist_graph_neighbors_count";
    struct face_comm *c;
    int rc = dist_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!indegree || !outdegree || !weighted)
        return face_error(comm, fn, MPI_ERR_ARG, "indegree, outdegree or weighted pointer is NULL");
    *indegree = c->graph->indegree;
    *outdegree = c->graph->outdegree;
    *weighted = c->graph->weighted;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    const char *fn = "MPI_Dist_graph_neighbors";
    struct face_comm *c;
    int rc = dist_check(comm, fn, &c);
    if (rc)
        return rc;
    const struct face_graph *g = c->graph;
    int ni = maxindegree < g->indegree ? maxindegree : g->indegree;
    int no = maxoutdegree < g->outdegree ? maxoutdegree : g->outdegree;
    if (maxindegree < 0 || maxoutdegree < 0 || (ni > 0 && !sources) || (no > 0 && !destinations))
        return face_error(comm, fn, MPI_ERR_ARG,
                          "maxindegree = %d, maxoutdegree = %d or an array is invalid",
                          maxindegree, maxoutdegree);
    /* As much as the arrays hold; weights only where there are some to give. */
    int sw = g->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
             sourceweights != MPI_WEIGHTS_EMPTY;
    int dw = g->weighted && destweights && destweights != MPI_UNWEIGHTED &&
             destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < ni; i++) {
        sources[i] = g->sources[i];
        if (sw)
            sourceweights[i] = g->sourceweights[i];
    }
    for (int i = 0; i < no; i++) {
        destinations[i] = g->destinations[i];
        if (dw)
            destweights[i] = g->destweights[i];
    }
    return MPI_SUCCESS;
}
