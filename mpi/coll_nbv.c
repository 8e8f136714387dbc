/* coll_nbv.c — the nonblocking rooted and v-collectives: Igather(v),
 * Iscatter(v), Iallgatherv, Ialltoallv, Ireduce_scatter(_block), over the
 * native nonblocking collectives on bytes.
 *
 * As with the other nonblocking collectives (coll_reduce.c), contiguous
 * datatypes are used in place; a type with holes is packed into the
 * request's send copy (coll_in) at the call, and received into its tmp,
 * unpacked at completion. A v-variant's blocks lie packed end to end in tmp,
 * each unpacked to its own displacement: the request's unpack plan.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"

/* ---- the unpack plan -------------------------------------------------------------------- */

struct face_unpack_part {
    MPI_Datatype dt;
    size_t count;
    void *user;
    size_t off;
};

struct face_unpack_plan {
    int n, cap;
    struct face_unpack_part part[];
};

int face_plan_add(struct face_req *q, MPI_Datatype dt, size_t count, void *user, size_t off)
{
    struct face_unpack_plan *p = q->coll_plan;
    if (!p || p->n == p->cap) {
        int cap = p ? 2 * p->cap : 8;
        struct face_unpack_plan *np = realloc(p, sizeof *p + (size_t)cap * sizeof p->part[0]);
        if (!np)
            return MPI_ERR_NO_MEM;
        if (!p)
            np->n = 0;
        np->cap = cap;
        q->coll_plan = p = np;
    }
    /* MPI_Type_free before the wait must not take the type from under us. */
    face_type_hold(dt);
    p->part[p->n++] = (struct face_unpack_part){dt, count, user, off};
    return MPI_SUCCESS;
}

void face_plan_unpack(struct face_req *q)
{
    struct face_unpack_plan *p = q->coll_plan;
    for (int i = 0; p && i < p->n; i++) {
        struct face_type *t = face_type_held(p->part[i].dt);
        if (t)
            face_unpack(t, (char *)q->tmp + p->part[i].off, p->part[i].count, p->part[i].user);
    }
}

void face_plan_free(struct face_req *q)
{
    struct face_unpack_plan *p = q->coll_plan;
    for (int i = 0; p && i < p->n; i++)
        face_type_unhold(p->part[i].dt);
    free(p);
    q->coll_plan = NULL;
}

/* A v-variant's packed receive blocks (v->tmp) go to the request, each to be
 * unpacked at its displacement at completion. Nothing to do for a contiguous
 * type: the native call writes into the user's buffer. */
static int nb_vrecv(MPI_Comm comm, const char *fn, MPI_Request *req, struct face_req *q, int n,
                    void *rbuf, const int *counts, const int *displs, MPI_Datatype rdt,
                    struct face_type *rt, struct face_vbuf *v)
{
    if (!v->tmp)
        return MPI_SUCCESS;
    q->tmp = v->tmp;
    v->tmp = NULL;
    MPI_Aint ext = face_type_extent(rt);
    for (int i = 0; i < n; i++)
        if (counts[i] && face_plan_add(q, rdt, (size_t)counts[i],
                                       (char *)rbuf + (MPI_Aint)displs[i] * ext, v->bd[i]))
            return face_nb_nomem(comm, fn, req);
    return MPI_SUCCESS;
}

/* A packed send copy (v->tmp, when the type has holes) goes to the request. */
static void nb_vsend(struct face_req *q, struct face_vbuf *v)
{
    if (v->tmp) {
        q->coll_in = v->tmp;
        v->tmp = NULL;
    }
}

/* Where the native call reads count elements of t from buf: the user's
 * buffer for a contiguous type, else the request's packed copy (NULL: no
 * memory). */
static const void *nb_in(struct face_req *q, struct face_type *t, const void *buf, size_t count)
{
    if (t->contig || count * t->size == 0)
        return (const char *)buf + t->true_lb;
    return face_nb_pack_in(q, t, buf, count);
}

/* Where the native call writes count elements of t: the user's buffer, or
 * the request's receive copy, unpacked into buf at completion. copy: the
 * copy starts as a packed copy of buf (in place). */
static void *nb_recv(struct face_req *q, MPI_Datatype dt, struct face_type *t, void *buf,
                     size_t count, int copy)
{
    if (t->contig || count * t->size == 0)
        return (char *)buf + t->true_lb;
    return face_nb_out(q, dt, t, buf, count, copy, 1);
}

/* ---- gather and scatter ---------------------------------------------------------------------- */

int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_gather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, comm, 1,
                                 req, "MPI_Igather");
    const char *fn = "MPI_Igather";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    int rc = face_comm_check(comm, fn, &c), in_place = sbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root, sends = !(is_root && in_place);
    if (is_root && (rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)))
        return rc;
    if (sends && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st)))
        return rc;
    size_t each = is_root ? (size_t)rcount * rt->size : (size_t)scount * st->size;
    if (is_root && sends && (rc = face_check_match(comm, fn, (size_t)scount * st->size, each)))
        return rc;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        return rc;
    const void *s = sends ? nb_in(q, st, sbuf, (size_t)scount) : BOLT_IN_PLACE;
    /* In place, the root's own block is in rbuf: the copy starts with it. */
    void *o = is_root ? nb_recv(q, rdt, rt, rbuf, (size_t)rcount * (size_t)c->size, in_place) : NULL;
    if (!s || (is_root && !o))
        return face_nb_nomem(comm, fn, req);
    return face_nb_started(comm, fn, req,
                           bolt_igather(s, o, each, BOLT_BYTE, root, c->native, &q->native));
}

int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_scatter(sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root, comm, 1,
                                  req, "MPI_Iscatter");
    const char *fn = "MPI_Iscatter";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    int rc = face_comm_check(comm, fn, &c), in_place = rbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root, gets = !(is_root && in_place);
    if (is_root && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st)))
        return rc;
    if (gets && (rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)))
        return rc;
    size_t each = is_root ? (size_t)scount * st->size : (size_t)rcount * rt->size;
    if (is_root && gets && (rc = face_check_match(comm, fn, each, (size_t)rcount * rt->size)))
        return rc;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        return rc;
    const void *s = is_root ? nb_in(q, st, sbuf, (size_t)scount * (size_t)c->size) : NULL;
    void *o = gets ? nb_recv(q, rdt, rt, rbuf, (size_t)rcount, 0) : BOLT_IN_PLACE;
    if ((is_root && !s) || !o)
        return face_nb_nomem(comm, fn, req);
    return face_nb_started(comm, fn, req,
                           bolt_iscatter(s, o, each, BOLT_BYTE, root, c->native, &q->native));
}

int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                  const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_gather(sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root, comm, 1,
                                 req, "MPI_Igatherv");
    const char *fn = "MPI_Igatherv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    struct face_vbuf rv;
    face_vbuf_none(&rv);
    int rc = face_comm_check(comm, fn, &c), in_place = sbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root, sends = !(is_root && in_place);
    if (sends && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st)))
        return rc;
    size_t sbytes = sends ? (size_t)scount * st->size : 0;
    /* In place, the root's own block must be in the packed copy: pack it all. */
    if (is_root && ((rc = face_coll_type(comm, rdt, 0, fn, &c, &rt)) ||
                    (rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, displs, rt, in_place, &rv))))
        return rc;
    if (is_root && sends && (rc = face_check_match(comm, fn, sbytes, rv.bc[root])))
        goto out;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    const void *s = sends ? nb_in(q, st, sbuf, (size_t)scount) : BOLT_IN_PLACE;
    if (!s) {
        rc = face_nb_nomem(comm, fn, req);
        goto out;
    }
    if (is_root && (rc = nb_vrecv(comm, fn, req, q, c->size, rbuf, rcounts, displs, rdt, rt, &rv)))
        goto out;
    rc = face_nb_started(comm, fn, req, bolt_igatherv(s, sbytes, rv.p, rv.bc, rv.bd, BOLT_BYTE, root,
                                                      c->native, &q->native));
out:
    face_vbuf_free(&rv);
    return rc;
}

int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_scatter(sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, 1,
                                  req, "MPI_Iscatterv");
    const char *fn = "MPI_Iscatterv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    struct face_vbuf sv;
    face_vbuf_none(&sv);
    int rc = face_comm_check(comm, fn, &c), in_place = rbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root, gets = !(is_root && in_place);
    if (gets && (rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)))
        return rc;
    size_t rbytes = gets ? (size_t)rcount * rt->size : 0;
    if (is_root && ((rc = face_coll_type(comm, sdt, 0, fn, &c, &st)) ||
                    (rc = face_vbuf_make(comm, fn, c->size, sbuf, scounts, displs, st, 1, &sv))))
        return rc;
    if (is_root && gets && (rc = face_check_match(comm, fn, sv.bc[root], rbytes)))
        goto out;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    nb_vsend(q, &sv);
    void *o = gets ? nb_recv(q, rdt, rt, rbuf, (size_t)rcount, 0) : BOLT_IN_PLACE;
    if (!o) {
        rc = face_nb_nomem(comm, fn, req);
        goto out;
    }
    rc = face_nb_started(comm, fn, req, bolt_iscatterv(sv.p, sv.bc, sv.bd, o, rbytes, BOLT_BYTE,
                                                       root, c->native, &q->native));
out:
    face_vbuf_free(&sv);
    return rc;
}

/* ---- everyone to everyone ----------------------------------------------------------------------- */

int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm,
                     MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_allgather(sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, comm, 1, req,
                                    "MPI_Iallgatherv");
    const char *fn = "MPI_Iallgatherv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    struct face_vbuf rv;
    face_vbuf_none(&rv);
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, 0, fn, &c, &rt);
    if (rc || (!in_place && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st))))
        return rc;
    /* In place, this rank's block is in rbuf: the packed copy starts with it. */
    if ((rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, displs, rt, in_place, &rv)))
        return rc;
    size_t sbytes = rv.bc[c->rank];
    if (!in_place && (rc = face_check_match(comm, fn, (size_t)scount * st->size, sbytes)))
        goto out;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    const void *s = in_place ? BOLT_IN_PLACE : nb_in(q, st, sbuf, (size_t)scount);
    if (!s) {
        rc = face_nb_nomem(comm, fn, req);
        goto out;
    }
    if ((rc = nb_vrecv(comm, fn, req, q, c->size, rbuf, rcounts, displs, rdt, rt, &rv)))
        goto out;
    rc = face_nb_started(comm, fn, req, bolt_iallgatherv(s, sbytes, rv.p, rv.bc, rv.bd, BOLT_BYTE,
                                                         c->native, &q->native));
out:
    face_vbuf_free(&rv);
    return rc;
}

int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                    void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                    MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_alltoall(sbuf, 0, scounts, sdispls, sdt, rbuf, 0, rcounts, rdispls, rdt,
                                   comm, 1, req, "MPI_Ialltoallv");
    const char *fn = "MPI_Ialltoallv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    struct face_vbuf sv, rv;
    face_vbuf_none(&sv);
    face_vbuf_none(&rv);
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, 0, fn, &c, &rt);
    if (rc || (!in_place && (rc = face_coll_type(comm, sdt, 0, fn, &c, &st))))
        return rc;
    /* In place, what is sent is in rbuf: the packed copy starts with it. */
    if ((rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, rdispls, rt, in_place, &rv)))
        return rc;
    if (!in_place && (rc = face_vbuf_make(comm, fn, c->size, sbuf, scounts, sdispls, st, 1, &sv)))
        goto out;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    nb_vsend(q, &sv);
    if ((rc = nb_vrecv(comm, fn, req, q, c->size, rbuf, rcounts, rdispls, rdt, rt, &rv)))
        goto out;
    rc = face_nb_started(comm, fn, req,
                         bolt_ialltoallv(in_place ? BOLT_IN_PLACE : sv.p, in_place ? rv.bc : sv.bc,
                                         in_place ? rv.bd : sv.bd, rv.p, rv.bc, rv.bd, BOLT_BYTE,
                                         c->native, &q->native));
out:
    face_vbuf_free(&sv);
    face_vbuf_free(&rv);
    return rc;
}

/* ---- reduce-scatter ------------------------------------------------------------------------------ */

/* Per-rank counts (block < 0) or block elements for every rank. */
static int nb_red_scatter(const char *fn, const void *sbuf, void *rbuf, const int *rcounts,
                          int block, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    struct face_comm *c = NULL;
    struct face_req *q = NULL;
    struct face_red r;
    int rc = face_red_setup(comm, fn, dt, block >= 0 ? block : 0, op, &c, &r);
    size_t *nc, total;
    if (rc || (rc = face_red_scatter_counts(comm, fn, c, &r, rcounts, block, &nc, &total)))
        return rc;
    if ((rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    size_t mine = block >= 0 ? (size_t)block : (size_t)rcounts[c->rank];
    int in_place = sbuf == MPI_IN_PLACE;
    const void *s = in_place ? BOLT_IN_PLACE : face_red_base(&r, sbuf);
    void *o = face_red_base(&r, rbuf);
    if (r.packed) {
        /* In place, the whole input vector is in rbuf; this rank's part of
         * the result lands at the start of the receive copy. */
        s = face_nb_pack_in(q, r.t, in_place ? rbuf : sbuf, total);
        o = s ? face_nb_out(q, dt, r.t, rbuf, total, 0, 1) : NULL;
        if (!o) {
            rc = face_nb_nomem(comm, fn, req);
            goto out;
        }
        q->coll_count = mine;
    }
    if (r.user) {
        if ((rc = face_op_bind(op, dt, r.t->lb, &q->coll_op))) {
            rc = face_nb_started(comm, fn, req, rc);
            goto out;
        }
        r.nop = face_op_bound(q->coll_op);
    }
    rc = face_nb_started(comm, fn, req,
                         bolt_ireduce_scatter(s, o, nc, r.ndt, r.nop, c->native, &q->native));
out:
    free(nc);
    return rc;
}

int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_reduce_scatter(sbuf, rbuf, rcounts, -1, dt, op, comm, 1, req,
                                         "MPI_Ireduce_scatter");
    return nb_red_scatter("MPI_Ireduce_scatter", sbuf, rbuf, rcounts, -1, dt, op, comm, req);
}

int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_reduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, 1, req,
                                         "MPI_Ireduce_scatter_block");
    if (rcount < 0)
        return face_error(comm, "MPI_Ireduce_scatter_block", MPI_ERR_COUNT, "count %d is negative",
                          rcount);
    return nb_red_scatter("MPI_Ireduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op, comm, req);
}
