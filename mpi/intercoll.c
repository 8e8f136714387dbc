/* intercoll.c — collectives on intercommunicators (MPI 3.1, 5.2.2 and the
 * intercommunicator paragraph of each collective), blocking and nonblocking.
 *
 * Rooted ones move data between the root and the other group: root is
 * MPI_ROOT at the root, MPI_PROC_NULL at the rest of its group, and the
 * root's rank in the remote group there. All-to-all ones move it between
 * each process and every process of the other group: what arrives is the
 * remote group's data. Each is one exchange (neighbor.c) on the
 * intercommunicator's collective twin (face_comm.nbr), straight between the
 * processes concerned: linear, the root sending to (or hearing from) each
 * remote process itself, which suits the coupling of two codes that
 * intercommunicators are for. Reductions receive the remote operands and
 * combine them in rank order once all are in (red_end), as the standard
 * orders non-commutative operations. The barrier moves no data: one over
 * both groups (coll.c, on the native communicator) lets no process out
 * before the other group is in. Scan and exscan are not defined here. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"

enum { ALL = -1, NONE = -2 }; /* xchg: every remote process, or none */

static const struct face_side none = {.layout = FACE_SAME, .type = MPI_BYTE};

static int begin(MPI_Comm comm, int nb, MPI_Request *req, const char *fn, struct face_comm **c)
{
    int rc = face_comm_check(comm, fn, c);
    if (!rc && nb && !req)
        rc = face_error(comm, fn, MPI_ERR_REQUEST, "request pointer is NULL");
    return rc;
}

/* One exchange: blocks from remote rank `from` and to remote rank `to`
 * (ALL: block k with remote rank k; NONE: nothing). fin (if set) runs once,
 * whatever happens. */
static int xchg(MPI_Comm comm, struct face_comm *c, int from, int to, const struct face_side *snd,
                const struct face_side *rcv, void (*fin)(void *, int), void *arg, int nb,
                MPI_Request *req, const char *fn)
{
    int *every = malloc(((size_t)c->peers + 1) * sizeof *every), one[2];
    if (!every) {
        if (fin)
            fin(arg, 0);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int j = 0; j < c->peers; j++)
        every[j] = c->peer_base + j;
    one[0] = c->peer_base + from;
    one[1] = c->peer_base + to;
    struct face_peers p = {c->nbr,
                           from == ALL ? c->peers : from == NONE ? 0 : 1,
                           to == ALL ? c->peers : to == NONE ? 0 : 1,
                           from == ALL ? every : &one[0],
                           to == ALL ? every : &one[1],
                           0,
                           fin,
                           arg};
    int rc = face_exchange(comm, &p, snd, rcv, nb ? req : NULL, fn);
    free(every);
    return rc;
}

static int check_root(MPI_Comm comm, const struct face_comm *c, int root, const char *fn)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peers))
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_ROOT,
                      "root %d is invalid on an intercommunicator: it is MPI_ROOT at the root, "
                      "MPI_PROC_NULL at the rest of the root's group, and the root's rank in the "
                      "remote group (0..%d) in the other group",
                      root, c->peers - 1);
}

/* The rooted shape: at_root is the root's side (one block per remote
 * process), at_leaf the single block of each process of the other group. */
static int rooted(MPI_Comm comm, int root, int root_sends, const struct face_side *at_root,
                  const struct face_side *at_leaf, int nb, MPI_Request *req, const char *fn)
{
    struct face_comm *c = NULL;
    int rc = begin(comm, nb, req, fn, &c);
    if (rc || (rc = check_root(comm, c, root, fn)))
        return rc;
    if (root == MPI_PROC_NULL) /* nothing to do, but a request to complete */
        return xchg(comm, c, NONE, NONE, &none, &none, NULL, NULL, nb, req, fn);
    if (root == MPI_ROOT)
        return root_sends ? xchg(comm, c, NONE, ALL, at_root, &none, NULL, NULL, nb, req, fn)
                          : xchg(comm, c, ALL, NONE, &none, at_root, NULL, NULL, nb, req, fn);
    return root_sends ? xchg(comm, c, root, NONE, &none, at_leaf, NULL, NULL, nb, req, fn)
                      : xchg(comm, c, NONE, root, at_leaf, &none, NULL, NULL, nb, req, fn);
}

static int all_to_all(MPI_Comm comm, const struct face_side *snd, const struct face_side *rcv, int nb,
               MPI_Request *req, const char *fn)
{
    struct face_comm *c = NULL;
    int rc = begin(comm, nb, req, fn, &c);
    return rc ? rc : xchg(comm, c, ALL, ALL, snd, rcv, NULL, NULL, nb, req, fn);
}

int face_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, int nb,
                     MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_SAME, .buf = buf, .count = count, .type = dt};
    return rooted(comm, root, 1, &s, &s, nb, req, fn);
}

int face_inter_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                      MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_SAME, .buf = (char *)sbuf, .count = scount, .type = sdt};
    struct face_side r = {.layout = rcounts ? FACE_V : FACE_BLOCKS, .buf = rbuf, .count = rcount,
                          .type = rdt, .counts = rcounts, .displs = displs};
    return rooted(comm, root, 0, &r, &s, nb, req, fn);
}

int face_inter_scatter(const void *sbuf, int scount, const int *scounts, const int *displs,
                       MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = scounts ? FACE_V : FACE_BLOCKS, .buf = (char *)sbuf,
                          .count = scount, .type = sdt, .counts = scounts, .displs = displs};
    struct face_side r = {.layout = FACE_SAME, .buf = rbuf, .count = rcount, .type = rdt};
    return rooted(comm, root, 1, &s, &r, nb, req, fn);
}

int face_inter_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm,
                         int nb, MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = FACE_SAME, .buf = (char *)sbuf, .count = scount, .type = sdt};
    struct face_side r = {.layout = rcounts ? FACE_V : FACE_BLOCKS, .buf = rbuf, .count = rcount,
                          .type = rdt, .counts = rcounts, .displs = displs};
    return all_to_all(comm, &s, &r, nb, req, fn);
}

int face_inter_alltoall(const void *sbuf, int scount, const int *scounts, const int *sdispls,
                        MPI_Datatype sdt, void *rbuf, int rcount, const int *rcounts,
                        const int *rdispls, MPI_Datatype rdt, MPI_Comm comm, int nb,
                        MPI_Request *req, const char *fn)
{
    struct face_side s = {.layout = scounts ? FACE_V : FACE_BLOCKS, .buf = (char *)sbuf,
                          .count = scount, .type = sdt, .counts = scounts, .displs = sdispls};
    struct face_side r = {.layout = rcounts ? FACE_V : FACE_BLOCKS, .buf = rbuf, .count = rcount,
                          .type = rdt, .counts = rcounts, .displs = rdispls};
    return all_to_all(comm, &s, &r, nb, req, fn);
}

int face_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                         const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                         const int *rdispls, const MPI_Datatype *rdts, MPI_Comm comm, int nb,
                         MPI_Request *req, const char *fn)
{
    struct face_comm *c = NULL;
    int rc = begin(comm, nb, req, fn, &c);
    if (rc)
        return rc;
    if (!sdispls || !rdispls)
        return face_error(comm, fn, MPI_ERR_ARG, "sdispls or rdispls is NULL");
    /* MPI_Alltoallw's byte displacements are ints; an exchange's, MPI_Aint. */
    MPI_Aint *d = malloc(2 * ((size_t)c->peers + 1) * sizeof *d);
    if (!d)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int j = 0; j < c->peers; j++) {
        d[j] = sdispls[j];
        d[c->peers + j] = rdispls[j];
    }
    struct face_side s = {.layout = FACE_W, .buf = (char *)sbuf, .counts = scounts,
                          .bdispls = d, .types = sdts};
    struct face_side r = {.layout = FACE_W, .buf = rbuf, .counts = rcounts,
                          .bdispls = d + c->peers, .types = rdts};
    rc = xchg(comm, c, ALL, ALL, &s, &r, NULL, NULL, nb, req, fn);
    free(d);
    return rc;
}

/* ---- reductions ------------------------------------------------------------------------- */

/* A reduction's state until its exchange ends: the operands come as the
 * native op sees them (face_red: packed for a predefined op on a type with
 * holes, else the elements' own bytes), nblocks of them `block` bytes apart,
 * the result's part `skip` bytes into each. */
struct red_end {
    struct face_red r;
    MPI_Datatype dt;          /* held until the end */
    struct face_call_op *bound; /* a user op, bound to dt: MPI_Op_free may come first */
    bolt_op_t nop;
    size_t esize;             /* bytes of one element, as the op sees them */
    size_t block, skip;
    int nblocks, count;       /* count elements of the result go to rbuf (NULL: none) */
    char *blocks;
    void *packed;             /* what is sent, packed */
    void *rbuf;
};

/* Combines the operands in rank order (b0 op (b1 op ...)) into rbuf. */
static void red_end(void *arg, int ok)
{
    struct red_end *e = arg;
    if (ok && e->rbuf && e->nblocks > 0 && e->count > 0) {
        char *acc = e->blocks + (size_t)(e->nblocks - 1) * e->block + e->skip;
        size_t n = (size_t)e->count * e->r.per;
        for (int i = e->nblocks - 2; i >= 0; i--)
            bolt_reduce_local(e->blocks + (size_t)i * e->block + e->skip, acc, n, e->r.ndt, e->nop);
        if (e->r.packed)
            face_unpack(e->r.t, acc, (size_t)e->count, e->rbuf);
        else
            memcpy(face_red_base(&e->r, e->rbuf), acc, (size_t)e->count * e->esize);
    }
    face_op_unbind(e->bound);
    if (e->r.t)
        face_type_unhold(e->dt);
    free(e->blocks);
    free(e->packed);
    free(e);
}

/* Checks a reduction's arguments: nsend elements of sbuf to send (0: none),
 * nblocks operands of nrecv elements to receive, count elements of result.
 * *out holds them, *raw what is sent as the op sees it; on an error (raised)
 * *out is NULL. */
static int red_begin(MPI_Comm comm, const void *sbuf, size_t nsend, void *rbuf, int count,
                     MPI_Datatype dt, MPI_Op op, int nblocks, size_t nrecv, const char *fn,
                     struct red_end **out, const char **raw)
{
    struct face_comm *c = NULL;
    struct red_end *e = calloc(1, sizeof *e);
    int rc;
    *out = NULL;
    if (!e)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = face_red_setup(comm, fn, dt, count, op, &c, &e->r))) {
        free(e);
        return rc;
    }
    e->r.t = NULL; /* not held yet */
    struct face_type *t = face_type_get(dt);
    e->esize = e->r.per * bolt_type_size(e->r.ndt);
    size_t most = (nsend > nrecv ? nsend : nrecv) * e->esize;
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        rc = face_error(comm, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE: reductions on intercommunicators have no in-place form");
    else if (most > INT_MAX)
        rc = face_error(comm, fn, MPI_ERR_COUNT,
                        "%zu bytes in one message: more than an intercommunicator reduction moves",
                        most);
    else if ((nsend && t->size && !sbuf) || (nblocks && count && t->size && !rbuf))
        rc = face_error(comm, fn, MPI_ERR_BUFFER, "%s is NULL", nsend && !sbuf ? "sendbuf" : "recvbuf");
    if (rc) {
        free(e);
        return rc;
    }
    face_type_hold(dt);
    e->r.t = t;
    e->dt = dt;
    e->nblocks = nblocks;
    e->count = count;
    e->rbuf = nblocks ? rbuf : NULL;
    e->block = nrecv * e->esize;
    e->nop = e->r.nop;
    *raw = nsend ? face_red_base(&e->r, sbuf) : NULL;
    if (e->r.user && face_op_bind(op, dt, t->lb, &e->bound))
        rc = face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for the operation");
    else if (e->bound)
        e->nop = face_op_bound(e->bound);
    if (!rc && !(e->blocks = malloc(e->block * (size_t)nblocks + 1)))
        rc = face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    if (!rc && nsend && e->r.packed) {
        if (!(e->packed = malloc(nsend * t->size)))
            rc = face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
        else
            face_pack(t, sbuf, nsend, e->packed);
        *raw = e->packed;
    }
    if (rc) {
        red_end(e, 0);
        return rc;
    }
    *out = e;
    return MPI_SUCCESS;
}

static struct face_side bytes_side(enum face_layout l, const void *p, size_t bytes)
{
    return (struct face_side){.layout = l, .buf = (char *)p, .count = (int)bytes,
                              .type = MPI_BYTE};
}

/* Reduce (root as in the rooted collectives) or, with everyone set, allreduce. */
int face_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, int everyone, MPI_Comm comm, int nb, MPI_Request *req,
                      const char *fn)
{
    struct face_comm *c = NULL;
    struct red_end *e;
    const char *raw;
    int rc = begin(comm, nb, req, fn, &c);
    if (rc || (!everyone && (rc = check_root(comm, c, root, fn))))
        return rc;
    if (!everyone && root == MPI_PROC_NULL)
        return xchg(comm, c, NONE, NONE, &none, &none, NULL, NULL, nb, req, fn);
    int gets = everyone || root == MPI_ROOT, sends = everyone || root != MPI_ROOT;
    if ((rc = red_begin(comm, sends ? sbuf : NULL, sends ? (size_t)count : 0, gets ? rbuf : NULL,
                        count, dt, op, gets ? c->peers : 0, (size_t)count, fn, &e, &raw)))
        return rc;
    struct face_side s = bytes_side(FACE_SAME, raw, (size_t)count * e->esize);
    struct face_side r = bytes_side(FACE_BLOCKS, e->blocks, e->block);
    return xchg(comm, c, gets ? ALL : NONE, everyone ? ALL : sends ? root : NONE, sends ? &s : &none,
                gets ? &r : &none, red_end, e, nb, req, fn);
}

/* Each remote process's count of the result, for the blocking
 * reduce-scatter: every process tells the other group its own. */
static int remote_counts(MPI_Comm comm, struct face_comm *c, int mine, int **theirs, const char *fn)
{
    if (!(*theirs = malloc(((size_t)c->peers + 1) * sizeof **theirs)))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    struct face_side s = {.layout = FACE_SAME, .buf = (char *)&mine, .count = 1, .type = MPI_INT};
    struct face_side r = {.layout = FACE_BLOCKS, .buf = (char *)*theirs, .count = 1, .type = MPI_INT};
    int rc = xchg(comm, c, ALL, ALL, &s, &r, NULL, NULL, 0, NULL, fn);
    if (rc) {
        free(*theirs);
        *theirs = NULL;
    }
    return rc;
}

/* Reduce_scatter (block < 0: rcounts) and reduce_scatter_block: the
 * reduction of the remote group's vectors (n elements, the sum of this
 * group's counts, and of the other's) is spread over this group. Blocking,
 * each process first learns the remote counts and sends each remote process
 * its part; nonblocking, it cannot wait for them, so with per-process counts
 * whole vectors travel and each process keeps its part. */
int face_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int block,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int nb, MPI_Request *req,
                              const char *fn)
{
    struct face_comm *c = NULL;
    struct red_end *e;
    const char *raw;
    int rc = begin(comm, nb, req, fn, &c), *theirs = NULL;
    if (rc)
        return rc;
    if (block < 0 && !rcounts)
        return face_error(comm, fn, MPI_ERR_ARG, "recvcounts is NULL");
    size_t n = 0, before = 0;
    for (int i = 0; i < c->size; i++) {
        int k = block >= 0 ? block : rcounts[i];
        if (k < 0)
            return face_error(comm, fn, MPI_ERR_COUNT, "recvcounts[%d] = %d is negative", i, k);
        before += i < c->rank ? (size_t)k : 0;
        n += (size_t)k;
    }
    int mine = block >= 0 ? block : rcounts[c->rank], whole = nb && block < 0;
    if (block >= 0 && n % (size_t)c->peers)
        return face_error(comm, fn, MPI_ERR_COUNT,
                          "recvcount %d times the %d processes of this group is %zu elements, "
                          "which the %d of the remote group cannot share equally",
                          block, c->size, n, c->peers);
    if (block < 0 && !nb) {
        size_t sum = 0;
        if ((rc = remote_counts(comm, c, mine, &theirs, fn)))
            return rc;
        for (int j = 0; j < c->peers; j++)
            sum += (size_t)theirs[j];
        if (sum != n) {
            free(theirs);
            return face_error(comm, fn, MPI_ERR_COUNT,
                              "the recvcounts of this group add up to %zu elements and the remote "
                              "group's to %zu: they must be equal",
                              n, sum);
        }
    }
    if ((rc = red_begin(comm, sbuf, n, rbuf, mine, dt, op, c->peers, whole ? n : (size_t)mine, fn,
                        &e, &raw))) {
        free(theirs);
        return rc;
    }
    e->skip = whole ? before * e->esize : 0;
    int *bc = NULL;
    struct face_side s = bytes_side(FACE_SAME, raw, n * e->esize);
    if (block >= 0) {
        s = bytes_side(FACE_BLOCKS, raw, n / (size_t)c->peers * e->esize);
    } else if (!nb) {
        if (!(bc = malloc(2 * (size_t)c->peers * sizeof *bc))) {
            free(theirs);
            red_end(e, 0);
            return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
        }
        for (int j = 0, off = 0; j < c->peers; off += bc[j++]) {
            bc[j] = theirs[j] * (int)e->esize;
            bc[c->peers + j] = off;
        }
        s.layout = FACE_V;
        s.counts = bc;
        s.displs = bc + c->peers;
    }
    struct face_side r = bytes_side(FACE_BLOCKS, e->blocks, e->block);
    rc = xchg(comm, c, ALL, ALL, &s, &r, red_end, e, nb, req, fn);
    free(bc);
    free(theirs);
    return rc;
}
