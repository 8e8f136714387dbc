/* neighbor.c — neighbourhood collectives (MPI_Neighbor_allgather(v),
 * _alltoall(v,w) and their nonblocking MPI_Ineighbor_ forms) on Cartesian,
 * graph and distributed-graph communicators, and the exchange engine they
 * share with the intercommunicator collectives (intercoll.c).
 *
 * Each rank posts a receive from each in-neighbour and a send to each
 * out-neighbour, on the topology's private context (face_comm.nbr), and the
 * call (or its request) is done when all of them are: a struct face_multi.
 * Neighbours are in the standard's order (graph.c); MPI_PROC_NULL ones, off
 * the edge of a Cartesian grid, are skipped and their blocks left alone.
 *
 * Matching: on a graph the k-th message from a to b meets the k-th receive
 * b posts from a (MPI keeps order between a pair on one tag), which is what
 * repeated edges need. On a Cartesian grid a rank's -1 and +1 neighbours in a
 * dimension can be the same rank (a periodic extent of 1 or 2): what a rank
 * sends to its +1 neighbour must land in that rank's block from its -1
 * neighbour, so the tag says the direction, as in Open MPI: the send to the
 * neighbour at position k (2d or 2d+1) has tag k^1, the receive from it tag k. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

/* ---- the composite operation ------------------------------------------------------------ */

struct unpack {
    void *tmp;       /* packed bytes received */
    void *dst;       /* the user's elements */
    int count;
    MPI_Datatype dt; /* held until unpacked (MPI_Type_free may come first) */
};

struct face_multi {
    int n;
    bolt_request_t *reqs;
    int nun;
    struct unpack *un;
    int npk;
    void **pk;       /* packed copies of what is sent */
    void (*fin)(void *arg, int ok);
    void *arg;
};

static struct face_multi *multi_new(int nin, int nout)
{
    struct face_multi *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->reqs = calloc((size_t)(nin + nout + 1), sizeof *m->reqs);
    m->un = calloc((size_t)(nin + 1), sizeof *m->un);
    m->pk = calloc((size_t)(nout + 1), sizeof *m->pk);
    if (!m->reqs || !m->un || !m->pk) {
        face_multi_finish(m, 0);
        return NULL;
    }
    return m;
}

int face_multi_done(struct face_multi *m)
{
    for (int i = 0; i < m->n; i++) {
        int flag = 1;
        if (m->reqs[i])
            bolt_request_get_status(m->reqs[i], &flag, NULL);
        if (!flag)
            return 0;
    }
    return 1;
}

int face_multi_wait(struct face_multi *m)
{
    int first = BOLT_OK;
    /* Every part is waited for, failed or not: their buffers go with m. */
    for (int i = 0; i < m->n; i++) {
        bolt_status_t st;
        int rc = m->reqs[i] ? bolt_wait(&m->reqs[i], &st) : BOLT_OK;
        if (rc && !first)
            first = rc;
    }
    return first;
}

void face_multi_finish(struct face_multi *m, int ok)
{
    if (!m)
        return;
    for (int i = 0; i < m->nun; i++) {
        struct face_type *t = face_type_held(m->un[i].dt);
        if (ok && t)
            face_unpack(t, m->un[i].tmp, (size_t)m->un[i].count, m->un[i].dst);
        free(m->un[i].tmp);
        face_type_unhold(m->un[i].dt);
    }
    if (m->fin)
        m->fin(m->arg, ok);
    for (int i = 0; i < m->npk; i++)
        free(m->pk[i]);
    free(m->reqs);
    free(m->un);
    free(m->pk);
    free(m);
}

/* ---- the buffers of one side, per peer -------------------------------------------------- */

static void part(const struct face_side *s, int k, const struct face_type *t, char **buf,
                 int *count, MPI_Datatype *dt)
{
    *dt = s->layout == FACE_W ? s->types[k] : s->type;
    *count = s->layout == FACE_V || s->layout == FACE_W ? s->counts[k] : s->count;
    MPI_Aint off = 0;
    if (s->layout == FACE_BLOCKS)
        off = (MPI_Aint)k * s->count * face_type_extent(t);
    else if (s->layout == FACE_V)
        off = (MPI_Aint)s->displs[k] * face_type_extent(t);
    else if (s->layout == FACE_W)
        off = s->bdispls[k];
    *buf = s->buf + off;
}

/* Checks one side's arguments for its n blocks. */
static int side_check(MPI_Comm comm, const struct face_side *s, int n, const char *what,
                      const char *fn)
{
    if (s->buf == MPI_IN_PLACE)
        return face_error(comm, fn, MPI_ERR_BUFFER,
                          "%s is MPI_IN_PLACE: neighbourhood and intercommunicator collectives "
                          "have no in-place form",
                          what);
    if (n > 0 && (s->layout == FACE_V || s->layout == FACE_W) &&
        (!s->counts || (s->layout == FACE_V ? !s->displs : !s->bdispls || !s->types)))
        return face_error(comm, fn, MPI_ERR_ARG, "the counts, displacements or types of %s are NULL",
                          what);
    for (int k = 0; k < n; k++) {
        struct face_type *t;
        MPI_Datatype dt = s->layout == FACE_W ? s->types[k] : s->type;
        int count = s->layout == FACE_V || s->layout == FACE_W ? s->counts[k] : s->count;
        int rc = face_type_check(comm, dt, fn, &t);
        if (rc)
            return rc;
        if (count < 0)
            return face_error(comm, fn, MPI_ERR_COUNT, "the count of %s for block %d is %d",
                              what, k, count);
        if (count > 0 && t->size > 0 && !s->buf)
            return face_error(comm, fn, MPI_ERR_BUFFER, "%s is NULL", what);
        if (s->layout == FACE_SAME || s->layout == FACE_BLOCKS)
            break; /* one type, one count for all */
    }
    return MPI_SUCCESS;
}

/* Posts the receives, then the sends, into m. A native code. */
static int post(struct face_multi *m, const struct face_peers *n, const struct face_side *snd,
                const struct face_side *rcv)
{
    static char none; /* where zero bytes go */
    for (int k = 0; k < n->nin; k++) {
        char *buf;
        int count;
        MPI_Datatype dt;
        struct face_type *t = face_type_get(rcv->layout == FACE_W ? rcv->types[k] : rcv->type);
        if (n->in[k] == MPI_PROC_NULL)
            continue;
        part(rcv, k, t, &buf, &count, &dt);
        size_t bytes = (size_t)count * t->size;
        char *p = bytes == 0 ? &none : buf + t->true_lb;
        if (bytes > 0 && !t->contig) {
            struct unpack *u = &m->un[m->nun];
            if (!(u->tmp = malloc(bytes)))
                return BOLT_ERR_NOMEM;
            u->dst = buf;
            u->count = count;
            u->dt = dt;
            face_type_hold(dt);
            m->nun++;
            p = u->tmp;
        }
        int rc = bolt_irecv(p, bytes, n->in[k], n->dirtags ? k : 0, n->native, &m->reqs[m->n]);
        if (rc)
            return rc;
        m->n++;
    }
    const char *same = NULL; /* one packed copy serves every send of FACE_SAME */
    for (int k = 0; k < n->nout; k++) {
        char *buf;
        int count;
        MPI_Datatype dt;
        struct face_type *t = face_type_get(snd->layout == FACE_W ? snd->types[k] : snd->type);
        if (n->out[k] == MPI_PROC_NULL)
            continue;
        part(snd, k, t, &buf, &count, &dt);
        size_t bytes = (size_t)count * t->size;
        const char *p = bytes == 0 ? &none : buf + t->true_lb;
        if (bytes > 0 && !t->contig && same) {
            p = same;
        } else if (bytes > 0 && !t->contig) {
            if (!(m->pk[m->npk] = malloc(bytes)))
                return BOLT_ERR_NOMEM;
            face_pack(t, buf, (size_t)count, m->pk[m->npk]);
            p = m->pk[m->npk++];
            if (snd->layout == FACE_SAME)
                same = p;
        }
        int rc = bolt_isend(p, bytes, n->out[k], n->dirtags ? k ^ 1 : 0, n->native, &m->reqs[m->n]);
        if (rc)
            return rc;
        m->n++;
    }
    return BOLT_OK;
}

int face_exchange(MPI_Comm comm, const struct face_peers *n, const struct face_side *snd,
                  const struct face_side *rcv, MPI_Request *req, const char *fn)
{
    struct face_multi *m = NULL;
    int rc;
    if ((rc = side_check(comm, snd, n->nout, "sendbuf", fn)) ||
        (rc = side_check(comm, rcv, n->nin, "recvbuf", fn))) {
        if (n->fin)
            n->fin(n->arg, 0);
        return rc;
    }
    if (!(m = multi_new(n->nin, n->nout))) {
        if (n->fin)
            n->fin(n->arg, 0);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    m->fin = n->fin;
    m->arg = n->arg;
    int nrc = post(m, n, snd, rcv);
    if (nrc || !req) {
        /* Blocking, or a post failed: what was posted ends before m goes. */
        int wrc = face_multi_wait(m);
        nrc = nrc ? nrc : wrc;
        face_multi_finish(m, !nrc);
        if (nrc)
            return nrc == BOLT_ERR_NOMEM ? face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory")
                                         : face_native_error(comm, fn, nrc);
        return MPI_SUCCESS;
    }
    struct face_req *q;
    if (face_req_new(&q, req)) {
        face_multi_wait(m);
        face_multi_finish(m, 1); /* done, then: the program will find its data there */
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    q->comm = comm;
    q->kind = FACE_REQ_COLL;
    q->active = 1;
    q->multi = m;
    return MPI_SUCCESS;
}

/* The body of every neighbourhood collective: blocking when req is NULL. */
static int neighbor(MPI_Comm comm, const struct face_side *snd, const struct face_side *rcv,
                    int nb, MPI_Request *req, const char *fn)
{
    struct face_comm *c;
    struct face_nbrs n;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (nb && !req)
        return face_error(comm, fn, MPI_ERR_REQUEST, "request pointer is NULL");
    if ((rc = face_topo_neighbors(comm, c, fn, &n)))
        return rc;
    struct face_peers p = {c->nbr, n.nin, n.nout, n.in, n.out, c->cart != NULL, NULL, NULL};
    rc = face_exchange(comm, &p, snd, rcv, nb ? req : NULL, fn);
    free(n.in);
    free(n.out);
    return rc;
}

/* ---- the calls ---------------------------------------------------------------------------- */

static int allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                     MPI_Datatype rdt, MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_SAME, .buf = (char *)sbuf, .count = scount, .type = sdt};
    struct face_side r = {.layout = FACE_BLOCKS, .buf = rbuf, .count = rcount, .type = rdt};
    return neighbor(comm, &s, &r, nb, req, fn);
}

static int allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm,
                      int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_SAME, .buf = (char *)sbuf, .count = scount, .type = sdt};
    struct face_side r = {.layout = FACE_V, .buf = rbuf, .counts = rcounts, .displs = displs, .type = rdt};
    return neighbor(comm, &s, &r, nb, req, fn);
}

static int alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_BLOCKS, .buf = (char *)sbuf, .count = scount, .type = sdt};
    struct face_side r = {.layout = FACE_BLOCKS, .buf = rbuf, .count = rcount, .type = rdt};
    return neighbor(comm, &s, &r, nb, req, fn);
}

static int alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                     void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                     MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_V, .buf = (char *)sbuf, .counts = scounts, .displs = sdispls,
                     .type = sdt};
    struct face_side r = {.layout = FACE_V, .buf = rbuf, .counts = rcounts, .displs = rdispls, .type = rdt};
    return neighbor(comm, &s, &r, nb, req, fn);
}

static int alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm, int nb,
                     MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_W, .buf = (char *)sbuf, .counts = scounts, .bdispls = sdispls,
                     .types = sdts};
    struct face_side r = {.layout = FACE_W, .buf = rbuf, .counts = rcounts, .bdispls = rdispls,
                     .types = rdts};
    return neighbor(comm, &s, &r, nb, req, fn);
}

int PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    return allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0, NULL, "MPI_Neighbor_allgather");
}

int PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    return allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 1, req, "MPI_Ineighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rdt,
                             MPI_Comm comm)
{
    return allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, 0, NULL,
                      "MPI_Neighbor_allgatherv");
}

int PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rdt,
                              MPI_Comm comm, MPI_Request *req)
{
    return allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, 1, req,
                      "MPI_Ineighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm)
{
    return alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0, NULL, "MPI_Neighbor_alltoall");
}

int PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                            MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    return alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 1, req, "MPI_Ineighbor_alltoall");
}

int PMPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                            MPI_Datatype rdt, MPI_Comm comm)
{
    return alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, 0, NULL,
                     "MPI_Neighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype sdt, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rdt, MPI_Comm comm,
                             MPI_Request *req)
{
    return alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, 1, req,
                     "MPI_Ineighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    return alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm, 0, NULL,
                     "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                             MPI_Request *req)
{
    return alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm, 1, req,
                     "MPI_Ineighbor_alltoallw");
}
