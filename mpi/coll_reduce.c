/* coll_reduce.c — MPI reductions (reduce, allreduce, reduce_scatter, scan,
 * exscan, reduce_local) and the nonblocking collectives.
 *
 * A predefined op works on the one predefined type a datatype is made of:
 * count elements of the datatype are count * (size / basic size) native
 * elements, packed first when the datatype has holes. A user op sees whole
 * elements: the native call moves them as opaque blocks of `extent` bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"

/* What the native call sees of a predefined op on a contiguous type follows
 * from the op, the basic type and the size alone: face_red_setup keeps its
 * last such answer and red_fast serves the common case from it (a loop of
 * 4-byte reduces of 2 ranks spent ~200 instructions a call in the face, a
 * third of the native call's). Calls are serialised (profile.c). */
static struct {
    MPI_Datatype basic;
    size_t size;
    MPI_Op op;
    bolt_datatype_t ndt;
    bolt_op_t nop;
    size_t per;
} red_last;

static void red_keep(const struct face_red *r, MPI_Op op)
{
    if (r->packed || !r->t->contig)
        return;
    red_last.basic = r->t->basic;
    red_last.size = r->t->size;
    red_last.op = op;
    red_last.ndt = r->ndt;
    red_last.nop = r->nop;
    red_last.per = r->per;
}

/* face_red_setup's common case in one pass (face_coll_fast's, and the op
 * and basic type of its last answer); 0: face_red_setup decides. */
static inline __attribute__((always_inline)) int red_fast(MPI_Comm comm, MPI_Datatype dt,
                                                          int count, MPI_Op op,
                                                          struct face_comm **c,
                                                          struct face_red *r)
{
    struct face_type *t;
    if (!red_last.ndt || red_last.op != op || !face_coll_fast(comm, dt, count, c, &t) ||
        red_last.basic != t->basic || red_last.size != t->size)
        return 0;
    r->t = t;
    r->ndt = red_last.ndt;
    r->nop = red_last.nop;
    r->per = red_last.per;
    r->user = 0;
    r->packed = 0;
    return 1;
}

int face_red_setup(MPI_Comm comm, const char *fn, MPI_Datatype dt, int count, MPI_Op op,
                   struct face_comm **c, struct face_red *r)
{
    int rc = face_comm_check(comm, fn, c);
    memset(r, 0, sizeof *r);
    if (rc || (rc = face_type_check(comm, dt, fn, &r->t)))
        return rc;
    if (count < 0)
        return face_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
    if ((rc = face_op_native(comm, op, fn, &r->nop, &r->user)))
        return rc;
    /* Fortran's LOGICAL travels as an int: only the logical ops are its. */
    if (!r->user && r->t->basic == MPI_LOGICAL && op != MPI_LAND && op != MPI_LOR && op != MPI_LXOR)
        return face_error(comm, fn, MPI_ERR_OP, "operation %d is not defined on MPI_LOGICAL "
                          "(only MPI_LAND, MPI_LOR and MPI_LXOR are)", op);
    if (r->user) {
        MPI_Aint ext = face_type_extent(r->t);
        if (ext <= 0)
            return face_error(comm, fn, MPI_ERR_TYPE, "a user operation needs a datatype with a positive extent");
        r->ndt = bolt_type_bytes((size_t)ext);
        r->per = 1;
        face_op_set_call_type(dt, r->t->lb);
        return MPI_SUCCESS;
    }
    bolt_op_t xop;
    size_t xsize = 0;
    if ((rc = face_op_extra(op, r->t->basic, &xop, &xsize)))
        return face_native_error(comm, fn, rc);
    if (xop) { /* done by the face: opaque elements of the basic type's size */
        r->nop = xop;
        r->ndt = bolt_type_bytes(xsize);
        r->per = r->t->size / xsize;
        r->packed = !r->t->contig;
        red_keep(r, op);
        return MPI_SUCCESS;
    }
    bolt_datatype_t b = face_native_basic(r->t->basic);
    size_t bsize = b ? bolt_type_size(b) : 0;
    if (b >= BOLT_FLOAT_INT && b <= BOLT_LONG_DOUBLE_INT) {
        /* Value-index pairs keep their C layout (padding included) on the
         * native side: the type must be an array of them. */
        struct face_type *p = face_type_get(r->t->basic);
        size_t k = r->t->size / p->size;
        if (r->t->size % p->size || r->t->true_lb != 0 ||
            face_type_extent(r->t) != (MPI_Aint)(k * bsize))
            return face_error(comm, fn, MPI_ERR_TYPE,
                              "MAXLOC/MINLOC pairs must be laid out as a C array of pairs");
        r->ndt = b;
        r->per = k;
        return MPI_SUCCESS;
    }
    if (r->t->basic && !b)
        return face_error(comm, fn, MPI_ERR_OP, "operation %d is not defined on %s", op,
                          face_types[r->t->basic]->name);
    if (!b || bsize == 0 || r->t->size % bsize)
        return face_error(comm, fn, MPI_ERR_OP,
                          "predefined operations need a datatype made of one predefined type "
                          "(datatype %d is not)", dt);
    r->ndt = b;
    r->per = r->t->size / bsize;
    r->packed = !r->t->contig;
    red_keep(r, op);
    return MPI_SUCCESS;
}

/* Where the native call reads or writes count elements of buf. */
char *face_red_base(const struct face_red *r, const void *buf)
{
    return (char *)buf + (r->user ? r->t->lb : r->t->true_lb);
}

/* A packed copy of count elements (or NULL on failure). */
static void *red_pack(const struct face_red *r, const void *buf, size_t count)
{
    size_t bytes = count * r->t->size;
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        face_pack(r->t, buf, count, p);
    return p;
}

static int nomem(MPI_Comm comm, const char *fn)
{
    return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for packing a non-contiguous datatype");
}

typedef int (*red_fn)(const void *s, void *r, size_t n, bolt_datatype_t dt, bolt_op_t op,
                      bolt_comm_t comm);

/* Allreduce, scan and exscan share one shape: everyone sends, everyone receives. */
static int red_all(const char *fn, red_fn f, const void *sbuf, void *rbuf, int count,
                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    struct face_comm *c = NULL;
    struct face_red r;
    int rc = red_fast(comm, dt, count, op, &c, &r) ? MPI_SUCCESS
                                                   : face_red_setup(comm, fn, dt, count, op, &c, &r);
    int in_place = sbuf == MPI_IN_PLACE;
    if (rc)
        return rc;
    size_t n = (size_t)count;
    if (!r.packed) {
        rc = f(in_place ? BOLT_IN_PLACE : face_red_base(&r, sbuf), face_red_base(&r, rbuf), n * r.per, r.ndt,
               r.nop, c->native);
        return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
    }
    void *s = in_place ? NULL : red_pack(&r, sbuf, n), *o = red_pack(&r, rbuf, n);
    if ((!in_place && !s) || !o) {
        free(s);
        free(o);
        return nomem(comm, fn);
    }
    rc = f(in_place ? BOLT_IN_PLACE : s, o, n * r.per, r.ndt, r.nop, c->native);
    if (!rc)
        face_unpack(r.t, o, n, rbuf);
    free(s);
    free(o);
    return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
}

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_reduce(sbuf, rbuf, count, dt, op, 0, 1, comm, 0, NULL, "MPI_Allreduce");
    return red_all("MPI_Allreduce", bolt_allreduce, sbuf, rbuf, count, dt, op, comm);
}

int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (face_is_inter(comm)) /* defined on intracommunicators only */
        return face_check_intra(comm, face_comm_get(comm), "MPI_Scan");
    return red_all("MPI_Scan", bolt_scan, sbuf, rbuf, count, dt, op, comm);
}

int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (face_is_inter(comm)) /* defined on intracommunicators only */
        return face_check_intra(comm, face_comm_get(comm), "MPI_Exscan");
    return red_all("MPI_Exscan", bolt_exscan, sbuf, rbuf, count, dt, op, comm);
}

/* MPI_Reduce past the common case: intercommunicators, packing, user ops,
 * errors. Not inlined: its frame is the fast path's cost otherwise. */
static __attribute__((noinline)) int reduce_full(const void *sbuf, void *rbuf, int count,
                                                 MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_reduce(sbuf, rbuf, count, dt, op, root, 0, comm, 0, NULL, "MPI_Reduce");
    const char *fn = "MPI_Reduce";
    struct face_comm *c = NULL;
    struct face_red r;
    int rc = face_red_setup(comm, fn, dt, count, op, &c, &r);
    if (rc)
        return rc;
    if (root < 0 || root >= c->size)
        return face_error(comm, fn, MPI_ERR_ROOT, "root %d is out of range: the communicator has %d ranks",
                          root, c->size);
    int is_root = c->rank == root, in_place = is_root && sbuf == MPI_IN_PLACE;
    size_t n = (size_t)count;
    if (!r.packed) {
        rc = bolt_reduce(in_place ? BOLT_IN_PLACE : face_red_base(&r, sbuf),
                         is_root ? face_red_base(&r, rbuf) : NULL, n * r.per, r.ndt, r.nop, root,
                         c->native);
        return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
    }
    void *s = in_place ? NULL : red_pack(&r, sbuf, n), *o = is_root ? red_pack(&r, rbuf, n) : NULL;
    if ((!in_place && !s) || (is_root && !o)) {
        free(s);
        free(o);
        return nomem(comm, fn);
    }
    rc = bolt_reduce(in_place ? BOLT_IN_PLACE : s, o, n * r.per, r.ndt, r.nop, root, c->native);
    if (!rc && is_root)
        face_unpack(r.t, o, n, rbuf);
    free(s);
    free(o);
    return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
}

int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    struct face_comm *c;
    struct face_red r;
    if (!red_fast(comm, dt, count, op, &c, &r) || root < 0 || root >= c->size)
        return reduce_full(sbuf, rbuf, count, dt, op, root, comm);
    int is_root = c->rank == root;
    const void *in = is_root && sbuf == MPI_IN_PLACE ? BOLT_IN_PLACE : (const char *)sbuf + r.t->true_lb;
    int rc = bolt_reduce(in, is_root ? (char *)rbuf + r.t->true_lb : NULL, (size_t)count * r.per, r.ndt,
                         r.nop, root, c->native);
    return rc ? face_native_error(comm, "MPI_Reduce", rc) : MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    const char *fn = "MPI_Reduce_local";
    struct face_comm *c = NULL;
    struct face_red r;
    int rc = face_red_setup(MPI_COMM_SELF, fn, dt, count, op, &c, &r);
    if (rc)
        return rc;
    size_t n = (size_t)count;
    if (!r.packed) {
        rc = bolt_reduce_local(face_red_base(&r, in), face_red_base(&r, inout), n * r.per, r.ndt, r.nop);
        return rc ? face_native_error(MPI_COMM_SELF, fn, rc) : MPI_SUCCESS;
    }
    void *a = red_pack(&r, in, n), *b = red_pack(&r, inout, n);
    if (!a || !b) {
        free(a);
        free(b);
        return nomem(MPI_COMM_SELF, fn);
    }
    rc = bolt_reduce_local(a, b, n * r.per, r.ndt, r.nop);
    if (!rc)
        face_unpack(r.t, b, n, inout);
    free(a);
    free(b);
    return rc ? face_native_error(MPI_COMM_SELF, fn, rc) : MPI_SUCCESS;
}

int face_red_scatter_counts(MPI_Comm comm, const char *fn, const struct face_comm *c, const struct face_red *r,
                            const int *rcounts, int block, size_t **nc, size_t *total)
{
    *nc = NULL;
    *total = 0;
    if (block < 0 && !rcounts)
        return face_error(comm, fn, MPI_ERR_ARG, "recvcounts is NULL");
    size_t *n = malloc((size_t)c->size * sizeof *n);
    if (!n)
        return nomem(comm, fn);
    for (int i = 0; i < c->size; i++) {
        int k = block >= 0 ? block : rcounts[i];
        if (k < 0) {
            free(n);
            return face_error(comm, fn, MPI_ERR_COUNT, "recvcounts[%d] = %d is negative", i, k);
        }
        n[i] = (size_t)k * r->per;
        *total += (size_t)k;
    }
    *nc = n;
    return MPI_SUCCESS;
}

/* Reduce_scatter with per-rank counts; block variant passes equal counts. */
static int red_scatter(const char *fn, const void *sbuf, void *rbuf, const int *rcounts, int block,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    struct face_comm *c = NULL;
    struct face_red r;
    int n = block >= 0 ? block : 0;
    int rc = red_fast(comm, dt, n, op, &c, &r) ? MPI_SUCCESS : face_red_setup(comm, fn, dt, n, op, &c, &r);
    size_t *nc, total;
    if (rc || (rc = face_red_scatter_counts(comm, fn, c, &r, rcounts, block, &nc, &total)))
        return rc;
    size_t mine = block >= 0 ? (size_t)block : (size_t)rcounts[c->rank];
    int in_place = sbuf == MPI_IN_PLACE;
    if (!r.packed) {
        rc = bolt_reduce_scatter(in_place ? BOLT_IN_PLACE : face_red_base(&r, sbuf), face_red_base(&r, rbuf),
                                 nc, r.ndt, r.nop, c->native);
    } else {
        /* In place, the whole input vector is in rbuf. */
        void *s = red_pack(&r, in_place ? rbuf : sbuf, total), *o = malloc(total * r.t->size + 1);
        if (!s || !o)
            rc = BOLT_ERR_NOMEM;
        else if (!(rc = bolt_reduce_scatter(s, o, nc, r.ndt, r.nop, c->native)))
            face_unpack(r.t, o, mine, rbuf);
        free(s);
        free(o);
    }
    free(nc);
    return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
}

int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_reduce_scatter(sbuf, rbuf, rcounts, -1, dt, op, comm, 0, NULL,
                                         "MPI_Reduce_scatter");
    return red_scatter("MPI_Reduce_scatter", sbuf, rbuf, rcounts, -1, dt, op, comm);
}

int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_reduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, 0, NULL,
                                         "MPI_Reduce_scatter_block");
    if (rcount < 0)
        return face_error(comm, "MPI_Reduce_scatter_block", MPI_ERR_COUNT, "count %d is negative", rcount);
    return red_scatter("MPI_Reduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op, comm);
}

/* ---- nonblocking collectives ------------------------------------------------------------- */
/* They run on the user's buffers when the datatype is contiguous; a datatype
 * with holes goes through packed copies kept in the request (coll_in for
 * what is sent; tmp for what is received, unpacked at completion). */
int face_nb_request(MPI_Comm comm, const char *fn, MPI_Request *req, struct face_req **q)
{
    if (!req)
        return face_error(comm, fn, MPI_ERR_REQUEST, "request pointer is NULL");
    if (face_req_new(q, req))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request");
    (*q)->comm = comm;
    (*q)->kind = FACE_REQ_COLL;
    (*q)->active = 1;
    return MPI_SUCCESS;
}

/* The call could not start: the request goes (with its copies). */
static void nb_drop(MPI_Request *req)
{
    face_req_release(*req);
    *req = MPI_REQUEST_NULL;
}

int face_nb_started(MPI_Comm comm, const char *fn, MPI_Request *req, int rc)
{
    if (!rc)
        return MPI_SUCCESS;
    nb_drop(req);
    return face_native_error(comm, fn, rc);
}

/* count elements of buf, packed into the request's send copy. */
void *face_nb_pack_in(struct face_req *q, struct face_type *t, const void *buf, size_t count)
{
    size_t bytes = count * t->size;
    if (!(q->coll_in = malloc(bytes ? bytes : 1)))
        return NULL;
    face_pack(t, buf, count, q->coll_in);
    return q->coll_in;
}

/* The request's receive copy of count elements of dt: starts as a packed
 * copy of buf when `copy` (in place, or a broadcast root), and is unpacked
 * into buf at completion when `unpack`. */
void *face_nb_out(struct face_req *q, MPI_Datatype dt, struct face_type *t, void *buf,
                  size_t count, int copy, int unpack)
{
    size_t bytes = count * t->size;
    if (!(q->tmp = malloc(bytes ? bytes : 1)))
        return NULL;
    if (copy)
        face_pack(t, buf, count, q->tmp);
    if (unpack) {
        q->user_buf = buf;
        q->dt = dt;
        q->coll_count = count;
        face_type_hold(dt); /* MPI_Type_free before the wait must not take it */
        q->dt_held = 1;
    }
    return q->tmp;
}

int face_nb_nomem(MPI_Comm comm, const char *fn, MPI_Request *req)
{
    nb_drop(req);
    return nomem(comm, fn);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    struct face_comm *c = NULL;
    struct face_req *q = NULL;
    int rc = face_comm_check(comm, "MPI_Ibarrier", &c);
    if (rc || (rc = face_nb_request(comm, "MPI_Ibarrier", req, &q)))
        return rc;
    return face_nb_started(comm, "MPI_Ibarrier", req, bolt_ibarrier(c->native, &q->native));
}

int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_bcast(buf, count, dt, root, comm, 1, req, "MPI_Ibcast");
    const char *fn = "MPI_Ibcast";
    struct face_comm *c = NULL;
    struct face_type *t = NULL;
    struct face_req *q = NULL;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = face_type_check(comm, dt, fn, &t)))
        return rc;
    if (count < 0 || root < 0 || root >= c->size)
        return face_error(comm, fn, count < 0 ? MPI_ERR_COUNT : MPI_ERR_ROOT,
                          "count %d / root %d is invalid (the communicator has %d ranks)", count,
                          root, c->size);
    if ((rc = face_nb_request(comm, fn, req, &q)))
        return rc;
    char *p = (char *)buf + t->true_lb;
    if (!t->contig && !(p = face_nb_out(q, dt, t, buf, (size_t)count, c->rank == root, c->rank != root)))
        return face_nb_nomem(comm, fn, req);
    return face_nb_started(comm, fn, req,
                      bolt_ibcast(p, (size_t)count * t->size, BOLT_BYTE, root, c->native, &q->native));
}

typedef int (*nb_red_fn)(const void *s, void *r, size_t n, bolt_datatype_t dt, bolt_op_t op,
                         bolt_comm_t comm, bolt_request_t *req);

/* Reduce (root >= 0), or f (all-reduce, scan, exscan) when root < 0. */
static int nb_red(const char *fn, nb_red_fn f, const void *sbuf, void *rbuf, int count,
                  MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    struct face_comm *c = NULL;
    struct face_req *q = NULL;
    struct face_red r;
    int rc = face_red_setup(comm, fn, dt, count, op, &c, &r);
    if (rc)
        return rc;
    if (root >= c->size)
        return face_error(comm, fn, MPI_ERR_ROOT, "root %d is out of range", root);
    if ((rc = face_nb_request(comm, fn, req, &q)))
        return rc;
    int in_place = sbuf == MPI_IN_PLACE, gets = root < 0 || c->rank == root;
    const void *s = in_place ? BOLT_IN_PLACE : face_red_base(&r, sbuf);
    void *o = gets ? face_red_base(&r, rbuf) : NULL;
    if (r.packed) {
        if (!in_place && !(s = face_nb_pack_in(q, r.t, sbuf, (size_t)count)))
            return face_nb_nomem(comm, fn, req);
        /* Exscan leaves rank 0's buffer as it was: its copy starts as it. */
        int copy = in_place || f == bolt_iexscan;
        if (gets && !(o = face_nb_out(q, dt, r.t, rbuf, (size_t)count, copy, 1)))
            return face_nb_nomem(comm, fn, req);
    }
    if (r.user) {
        if ((rc = face_op_bind(op, dt, r.t->lb, &q->coll_op)))
            return face_nb_started(comm, fn, req, rc);
        r.nop = face_op_bound(q->coll_op);
    }
    size_t n = (size_t)count * r.per;
    if (root < 0)
        rc = f(s, o, n, r.ndt, r.nop, c->native, &q->native);
    else
        rc = bolt_ireduce(s, o, n, r.ndt, r.nop, root, c->native, &q->native);
    return face_nb_started(comm, fn, req, rc);
}

int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_reduce(sbuf, rbuf, count, dt, op, 0, 1, comm, 1, req, "MPI_Iallreduce");
    return nb_red("MPI_Iallreduce", bolt_iallreduce, sbuf, rbuf, count, dt, op, -1, comm, req);
}

int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
               MPI_Request *req)
{
    if (face_is_inter(comm)) /* defined on intracommunicators only */
        return face_check_intra(comm, face_comm_get(comm), "MPI_Iscan");
    return nb_red("MPI_Iscan", bolt_iscan, sbuf, rbuf, count, dt, op, -1, comm, req);
}

int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm)) /* defined on intracommunicators only */
        return face_check_intra(comm, face_comm_get(comm), "MPI_Iexscan");
    return nb_red("MPI_Iexscan", bolt_iexscan, sbuf, rbuf, count, dt, op, -1, comm, req);
}

int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_reduce(sbuf, rbuf, count, dt, op, root, 0, comm, 1, req, "MPI_Ireduce");
    if (root < 0)
        return face_error(comm, "MPI_Ireduce", MPI_ERR_ROOT, "root %d is negative", root);
    return nb_red("MPI_Ireduce", NULL, sbuf, rbuf, count, dt, op, root, comm, req);
}

typedef int (*nb_gather_fn)(const void *s, void *r, size_t n, bolt_datatype_t dt, bolt_comm_t c,
                            bolt_request_t *req);

/* to_each: the send buffer holds a block for every rank (all-to-all). */
static int nb_all(const char *fn, nb_gather_fn f, int to_each, const void *sbuf, int scount,
                  MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                  MPI_Request *req)
{
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_req *q = NULL;
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = face_type_check(comm, rdt, fn, &rt)))
        return rc;
    if (!in_place && (rc = face_type_check(comm, sdt, fn, &st)))
        return rc;
    if (rcount < 0 || (!in_place && scount < 0))
        return face_error(comm, fn, MPI_ERR_COUNT, "a count is negative");
    size_t each = (size_t)rcount * rt->size;
    if (!in_place && (size_t)scount * st->size != each)
        return face_error(comm, fn, MPI_ERR_TRUNCATE, "send and receive signatures differ (%zu and %zu bytes)",
                          (size_t)scount * st->size, each);
    if ((rc = face_nb_request(comm, fn, req, &q)))
        return rc;
    const void *s = in_place ? BOLT_IN_PLACE : (const char *)sbuf + st->true_lb;
    char *o = (char *)rbuf + rt->true_lb;
    size_t nsend = (size_t)scount * (to_each ? (size_t)c->size : 1);
    if (!in_place && !st->contig && !(s = face_nb_pack_in(q, st, sbuf, nsend)))
        return face_nb_nomem(comm, fn, req);
    /* Every rank's block: the whole receive buffer (in place: with ours in it). */
    if (!rt->contig &&
        !(o = face_nb_out(q, rdt, rt, rbuf, (size_t)rcount * (size_t)c->size, in_place, 1)))
        return face_nb_nomem(comm, fn, req);
    return face_nb_started(comm, fn, req, f(s, o, each, BOLT_BYTE, c->native, &q->native));
}

int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_allgather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, comm, 1, req,
                                    "MPI_Iallgather");
    return nb_all("MPI_Iallgather", bolt_iallgather, 0, sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
}

int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_alltoall(sbuf, scount, NULL, NULL, sdt, rbuf, rcount, NULL, NULL, rdt,
                                   comm, 1, req, "MPI_Ialltoall");
    return nb_all("MPI_Ialltoall", bolt_ialltoall, 1, sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
}
