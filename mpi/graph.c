/* graph.c — graph (MPI_Graph_create) and distributed-graph
 * (MPI_Dist_graph_create, _adjacent) topologies, their queries, and what
 * every topology shares: the neighbour lists the neighbourhood collectives
 * use, the private context they run on, copy on MPI_Comm_dup and free.
 *
 * Reorder is ignored, as in cart.c and most MPIs: a rank of the new
 * communicator is its rank in the old one. So is the info argument, which
 * only carries hints. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

/* ---- what every topology shares ------------------------------------------------------ */

static int *ints_dup(const int *a, int n)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (p && n > 0)
        memcpy(p, a, (size_t)n * sizeof(int));
    return p;
}

void face_graph_free(struct face_graph *g)
{
    if (!g)
        return;
    free(g->index);
    free(g->edges);
    free(g->sources);
    free(g->destinations);
    free(g->sourceweights);
    free(g->destweights);
    free(g);
}

/* A graph's copy; NULL when out of memory. */
static struct face_graph *graph_dup(const struct face_graph *g)
{
    struct face_graph *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *g;
    int nedges = g->kind == MPI_GRAPH && g->nnodes > 0 ? g->index[g->nnodes - 1] : 0;
    d->index = g->index ? ints_dup(g->index, g->nnodes) : NULL;
    d->edges = g->edges ? ints_dup(g->edges, nedges) : NULL;
    d->sources = g->sources ? ints_dup(g->sources, g->indegree) : NULL;
    d->destinations = g->destinations ? ints_dup(g->destinations, g->outdegree) : NULL;
    d->sourceweights = g->sourceweights ? ints_dup(g->sourceweights, g->indegree) : NULL;
    d->destweights = g->destweights ? ints_dup(g->destweights, g->outdegree) : NULL;
    if ((g->index && !d->index) || (g->edges && !d->edges) || (g->sources && !d->sources) ||
        (g->destinations && !d->destinations) || (g->sourceweights && !d->sourceweights) ||
        (g->destweights && !d->destweights)) {
        face_graph_free(d);
        return NULL;
    }
    return d;
}

int face_topo_attach(MPI_Comm comm, const char *fn)
{
    struct face_comm *c = face_comm_get(comm);
    int rc = bolt_comm_dup(c->native, &c->nbr);
    return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
}

int face_topo_copy(const struct face_comm *from, struct face_comm *to, int with_nbr)
{
    if (!from->cart && !from->graph)
        return MPI_SUCCESS;
    /* Collective: every rank dups before any can fail on its own memory. */
    int rc = with_nbr ? bolt_comm_dup(from->nbr, &to->nbr) : BOLT_OK;
    if (rc)
        return face_class_of_native(rc);
    if (from->cart &&
        !(to->cart = face_cart_new(from->cart->ndims, from->cart->dims, from->cart->periods)))
        return MPI_ERR_NO_MEM;
    if (from->graph && !(to->graph = graph_dup(from->graph)))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

void face_topo_free(struct face_comm *c)
{
    if (c->cart) {
        free(c->cart->dims);
        free(c->cart->periods);
        free(c->cart);
        c->cart = NULL;
    }
    face_graph_free(c->graph);
    c->graph = NULL;
    if (c->nbr)
        bolt_comm_free(&c->nbr);
}

int face_topo_neighbors(MPI_Comm comm, struct face_comm *c, const char *fn, struct face_nbrs *n)
{
    const struct face_graph *g = c->graph;
    const int *in = NULL, *out = NULL;
    n->in = n->out = NULL;
    if (c->cart) {
        n->nin = n->nout = 2 * c->cart->ndims;
    } else if (g && g->kind == MPI_GRAPH) {
        int first = c->rank ? g->index[c->rank - 1] : 0;
        n->nin = n->nout = g->index[c->rank] - first;
        in = out = g->edges + first;
    } else if (g) {
        n->nin = g->indegree;
        n->nout = g->outdegree;
        in = g->sources;
        out = g->destinations;
    } else {
        return face_error(comm, fn, MPI_ERR_TOPOLOGY,
                          "the communicator has no topology: neighbourhood collectives need a "
                          "Cartesian, graph or distributed-graph communicator");
    }
    n->in = malloc((size_t)(n->nin + 1) * sizeof(int));
    n->out = malloc((size_t)(n->nout + 1) * sizeof(int));
    if (!n->in || !n->out) {
        free(n->in);
        free(n->out);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    if (c->cart) {
        face_cart_neighbors(c->cart, c->rank, n->in);
        memcpy(n->out, n->in, (size_t)n->nout * sizeof(int));
    } else {
        memcpy(n->in, in, (size_t)n->nin * sizeof(int));
        memcpy(n->out, out, (size_t)n->nout * sizeof(int));
    }
    return MPI_SUCCESS;
}

/* ---- graphs --------------------------------------------------------------------------- */

static int graph_args(MPI_Comm comm, struct face_comm *c, int nnodes, const int *index,
                      const int *edges, const char *fn)
{
    if (nnodes < 0 || nnodes > c->size)
        return face_error(comm, fn, MPI_ERR_ARG,
                          "nnodes = %d: the graph must have 0..%d nodes (the communicator's size)",
                          nnodes, c->size);
    if (nnodes > 0 && (!index || !edges))
        return face_error(comm, fn, MPI_ERR_ARG, "index or edges is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return face_error(comm, fn, MPI_ERR_ARG,
                              "index[%d] = %d: index holds running totals of the degrees, so it "
                              "never decreases (nor starts below 0)", i, index[i]);
    for (int e = 0; nnodes > 0 && e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return face_error(comm, fn, MPI_ERR_ARG, "edges[%d] = %d is not a node of 0..%d", e,
                              edges[e], nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm_old, fn, &c);
    (void)reorder;
    if (rc || (rc = face_check_intra(comm_old, c, fn)))
        return rc;
    if (!comm_graph)
        return face_error(comm_old, fn, MPI_ERR_ARG, "comm_graph pointer is NULL");
    /* Every rank passes the same graph: every rank finds the same fault. */
    if ((rc = graph_args(comm_old, c, nnodes, index, edges, fn)))
        return rc;
    MPI_Comm h;
    if ((rc = face_comm_split(comm_old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank, &h, fn)))
        return rc;
    *comm_graph = h;
    if (h == MPI_COMM_NULL)
        return MPI_SUCCESS;
    struct face_graph *g = calloc(1, sizeof *g);
    if (g) {
        g->kind = MPI_GRAPH;
        g->nnodes = nnodes;
        g->index = ints_dup(index, nnodes);
        g->edges = ints_dup(edges, index[nnodes - 1]);
        face_comm_get(h)->graph = g; /* freed with the communicator */
    }
    if (!g || !g->index || !g->edges)
        rc = face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
    else
        rc = face_topo_attach(h, fn);
    if (rc)
        PMPI_Comm_free(comm_graph);
    return rc;
}

static int graph_check(MPI_Comm comm, const char *fn, struct face_comm **c)
{
    int rc = face_comm_check(comm, fn, c);
    if (rc)
        return rc;
    if (!(*c)->graph || (*c)->graph->kind != MPI_GRAPH)
        return face_error(comm, fn, MPI_ERR_TOPOLOGY,
                          "the communicator has no graph topology: make one with MPI_Graph_create");
    return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    const char *fn = "MPI_Graphdims_get";
    struct face_comm *c;
    int rc = graph_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!nnodes || !nedges)
        return face_error(comm, fn, MPI_ERR_ARG, "nnodes or nedges pointer is NULL");
    *nnodes = c->graph->nnodes;
    *nedges = c->graph->index[c->graph->nnodes - 1];
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    const char *fn = "MPI_Graph_get";
    struct face_comm *c;
    int rc = graph_check(comm, fn, &c);
    if (rc)
        return rc;
    const struct face_graph *g = c->graph;
    int ni = maxindex < g->nnodes ? maxindex : g->nnodes;
    int ne = maxedges < g->index[g->nnodes - 1] ? maxedges : g->index[g->nnodes - 1];
    if (maxindex < 0 || maxedges < 0 || (ni > 0 && !index) || (ne > 0 && !edges))
        return face_error(comm, fn, MPI_ERR_ARG, "maxindex = %d, maxedges = %d or an array is "
                          "invalid", maxindex, maxedges);
    /* As much as the arrays hold: the standard sizes them by maxindex, maxedges. */
    if (ni > 0)
        memcpy(index, g->index, (size_t)ni * sizeof(int));
    if (ne > 0)
        memcpy(edges, g->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    const char *fn = "MPI_Graph_neighbors_count";
    struct face_comm *c;
    int rc = graph_check(comm, fn, &c);
    if (rc)
        return rc;
    if (rank < 0 || rank >= c->graph->nnodes)
        return face_error(comm, fn, MPI_ERR_RANK, "rank %d is not a node of 0..%d", rank,
                          c->graph->nnodes - 1);
    if (!nneighbors)
        return face_error(comm, fn, MPI_ERR_ARG, "nneighbors pointer is NULL");
    *nneighbors = c->graph->index[rank] - (rank ? c->graph->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    const char *fn = "MPI_Graph_neighbors";
    int n, rc = PMPI_Graph_neighbors_count(comm, rank, &n);
    if (rc)
        return rc;
    if (maxneighbors < 0 || (maxneighbors > 0 && n > 0 && !neighbors))
        return face_error(comm, fn, MPI_ERR_ARG, "maxneighbors = %d or neighbors is invalid",
                          maxneighbors);
    const struct face_graph *g = face_comm_get(comm)->graph;
    if (maxneighbors < n)
        n = maxneighbors;
    if (n > 0)
        memcpy(neighbors, g->edges + (rank ? g->index[rank - 1] : 0), (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* The rank this process would have in the graph: reorder is never done. */
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    const char *fn = "MPI_Graph_map";
    struct face_comm *c;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!newrank)
        return face_error(comm, fn, MPI_ERR_ARG, "newrank pointer is NULL");
    if ((rc = graph_args(comm, c, nnodes, index, edges, fn)))
        return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
