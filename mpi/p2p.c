/* p2p.c — MPI point-to-point: sends, receives, probes, counts.
 *
 * Contiguous data goes straight from and to the user's buffer; other
 * datatypes are packed into a temporary buffer (sends) or unpacked from one
 * when the receive completes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"
#include "runtime/memcopy.h"

void face_unpack_partial(const struct face_type *t, const void *src, size_t bytes, void *dst);

enum { PM_SEND, PM_SSEND, PM_RSEND, PM_BSEND, PM_RECV };

void face_status_set(MPI_Status *st, const bolt_status_t *ns, int base)
{
    if (STATUS_IGNORED(st))
        return;
    st->MPI_SOURCE = ns->source >= 0 ? ns->source - base : ns->source;
    st->MPI_TAG = ns->tag;
    st->MPI_ERROR = face_class_of_native(ns->error);
    st->bolt_cancelled = 0;
    st->bolt_bytes = ns->bytes;
}

void face_status_empty(MPI_Status *st)
{
    if (STATUS_IGNORED(st))
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->bolt_cancelled = 0;
    st->bolt_bytes = 0;
}

void face_status_proc_null(MPI_Status *st)
{
    if (STATUS_IGNORED(st))
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->bolt_cancelled = 0;
    st->bolt_bytes = 0;
}

/* Checks the arguments every send and receive share. */
static int check_p2p(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, int peer,
                     int tag, int is_recv, const char *fn, struct face_comm **c,
                     struct face_type **t)
{
    int rc = face_comm_check(comm, fn, c);
    if (rc)
        return rc;
    if (count < 0)
        return face_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
    if ((rc = face_type_check(comm, dt, fn, t)) ||
        (rc = face_check_rank(comm, *c, peer, is_recv, fn)) ||
        (rc = face_check_tag(comm, tag, is_recv, fn)))
        return rc;
    if (!buf && count > 0 && (*t)->size > 0 && (*t)->contig && (*t)->true_lb == 0)
        return face_error(comm, fn, MPI_ERR_BUFFER, "buffer is NULL but count is %d", count);
    return MPI_SUCCESS;
}

int face_p2p_start(struct face_req *q, const char *fn)
{
    struct face_comm *c = face_comm_get(q->comm);
    struct face_type *t = face_type_held(q->dt); /* a persistent request's may be freed */
    size_t bytes = (size_t)q->count * t->size;
    int rc, peer = q->peer >= 0 ? q->peer + q->peer_base : q->peer;
    q->native = BOLT_REQUEST_NULL;
    q->cancelled = 0;
    if (q->peer == MPI_PROC_NULL) {
        q->proc_null = 1;
        return MPI_SUCCESS;
    }
    q->proc_null = 0;
    if (q->pmode == PM_RECV) {
        void *dst;
        if (face_type_contig_span(t, (size_t)q->count) || bytes == 0) {
            dst = (char *)q->pbuf + t->true_lb;
        } else {
            if (!(q->tmp = malloc(bytes)))
                return face_error(q->comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes to unpack into", bytes);
            dst = q->tmp;
        }
        q->kind = FACE_REQ_RECV;
        q->user_buf = q->pbuf;
        rc = bolt_irecv(dst, bytes, peer, q->tag, c->native, &q->native);
    } else {
        const void *src;
        if (face_type_contig_span(t, (size_t)q->count) || bytes == 0) {
            src = (const char *)q->pbuf + t->true_lb;
        } else {
            if (!(q->tmp = malloc(bytes)))
                return face_error(q->comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes to pack into", bytes);
            face_pack(t, q->pbuf, (size_t)q->count, q->tmp);
            src = q->tmp;
        }
        q->kind = FACE_REQ_SEND;
        if (q->pmode == PM_BSEND) {
            /* Copy into the attached buffer; the user's buffer is free at once. */
            void *block;
            if ((rc = face_bsend_reserve(bytes, &block))) {
                free(q->tmp);
                q->tmp = NULL;
                return face_error(q->comm, fn, MPI_ERR_BUFFER,
                                  "the buffer attached with MPI_Buffer_attach has no room for "
                                  "%zu more bytes (plus MPI_BSEND_OVERHEAD)", bytes);
            }
            bolt_mem_copy(block, src, bytes);
            free(q->tmp);
            q->tmp = NULL;
            q->bsend_block = block;
            src = block;
        }
        if (q->pmode == PM_SSEND)
            rc = bolt_issend(src, bytes, peer, q->tag, c->native, &q->native);
        else
            rc = bolt_isend(src, bytes, peer, q->tag, c->native, &q->native);
    }
    if (rc) {
        free(q->tmp);
        q->tmp = NULL;
        if (q->bsend_block) {
            face_bsend_release(q->bsend_block);
            q->bsend_block = NULL;
        }
        return face_native_error(q->comm, fn, rc);
    }
    return MPI_SUCCESS;
}

/* Ends an operation whose native request has completed with status ns. */
int face_req_complete(struct face_req *q, const bolt_status_t *ns, int native_rc, MPI_Status *st,
                      const char *fn)
{
    if (q->proc_null) {
        face_status_proc_null(st);
        return MPI_SUCCESS;
    }
    /* The request holds its type: its handle may be freed by now. */
    if (q->kind == FACE_REQ_RECV && q->tmp) {
        struct face_type *t = face_type_held(q->dt);
        if (t && ns->bytes)
            face_unpack_partial(t, q->tmp, ns->bytes, q->user_buf);
    } else if (q->kind == FACE_REQ_COLL && q->tmp && q->user_buf && !native_rc) {
        struct face_type *t = face_type_held(q->dt);
        if (t)
            face_unpack(t, q->tmp, q->coll_count, q->user_buf);
    } else if (q->coll_plan && !native_rc) {
        face_plan_unpack(q);
    }
    if (q->multi) { /* a neighbourhood collective: its parts are done */
        face_multi_finish(q->multi, !native_rc);
        q->multi = NULL;
    }
    if (q->tmp || q->coll_in || q->coll_op) { /* point-to-point has none of them, mostly */
        face_plan_free(q);
        free(q->tmp);
        q->tmp = NULL;
        free(q->coll_in);
        q->coll_in = NULL;
        face_op_unbind(q->coll_op);
        q->coll_op = NULL;
    }
    if (q->bsend_block) {
        face_bsend_release(q->bsend_block);
        q->bsend_block = NULL;
    }
    face_status_set(st, ns, q->peer_base);
    if (q->cancelled && ns->source == BOLT_ANY_SOURCE && !STATUS_IGNORED(st))
        st->bolt_cancelled = 1;
    if (native_rc) {
        int rc = face_native_error(q->comm, fn, native_rc);
        if (q->finish_fn) /* it cleans up */
            q->finish_fn(q, 0);
        q->finish_fn = NULL;
        return rc;
    }
    if (q->finish_fn) {
        int rc = q->finish_fn(q, 1);
        q->finish_fn = NULL;
        return rc;
    }
    return MPI_SUCCESS;
}

/* ---- blocking calls ------------------------------------------------------------------ */

/* The common case, checked inline (a send or receive is on the critical path
 * of every ping-pong): MPI initialized, a live communicator, a committed
 * contiguous datatype, a rank of the communicator (or MPI_ANY_SOURCE for a
 * receive), a valid tag, a buffer when there are bytes. Sets *c and the data's
 * span. Anything else, every error included, returns 0 and takes check_p2p,
 * which says what is wrong. */
static inline int p2p_fast(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, int peer,
                           int tag, int is_recv, struct face_comm **c, char **p, size_t *bytes)
{
    struct face_comm *cc = face_comm_get(comm);
    struct face_type *t = face_type_get(dt);
    if (!face_initialized || face_finalized || !cc || !t || !t->committed || !t->contig ||
        count < 0 || (!buf && count > 0))
        return 0;
    if ((unsigned)peer >= (unsigned)cc->peers && !(is_recv && peer == MPI_ANY_SOURCE))
        return 0;
    if ((tag < 0 || tag > BOLT_TAG_UB) && !(is_recv && tag == MPI_ANY_TAG))
        return 0;
    *c = cc;
    *p = (char *)buf + t->true_lb;
    *bytes = (size_t)count * t->size;
    return 1;
}

static int blocking(int pmode, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                    MPI_Comm comm, MPI_Status *st, const char *fn)
{
    struct face_comm *c = NULL;
    struct face_type *t = NULL;
    char *p = NULL;
    size_t bytes = 0;
    int rc, direct = pmode != PM_BSEND &&
                     p2p_fast(comm, buf, count, dt, peer, tag, pmode == PM_RECV, &c, &p, &bytes);
    if (!direct) {
        if ((rc = check_p2p(comm, buf, count, dt, peer, tag, pmode == PM_RECV, fn, &c, &t)))
            return rc;
        if (peer == MPI_PROC_NULL) {
            face_status_proc_null(st);
            return MPI_SUCCESS;
        }
        bytes = (size_t)count * t->size;
        p = (char *)buf + t->true_lb;
        direct = (face_type_contig_span(t, (size_t)count) || bytes == 0) && pmode != PM_BSEND;
    }
    /* The common case, straight to the native call: nothing to allocate. */
    if (direct) {
        bolt_status_t ns;
        int np = face_native_peer(c, peer);
        if (pmode == PM_RECV) {
            rc = bolt_recv(p, bytes, np, tag, c->native, &ns);
            if (rc == BOLT_OK || rc == BOLT_ERR_TRUNCATE)
                face_status_set(st, &ns, c->peer_base);
        } else if (pmode == PM_SSEND) {
            rc = bolt_ssend(p, bytes, np, tag, c->native);
        } else {
            rc = bolt_send(p, bytes, np, tag, c->native);
        }
        return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
    }
    struct face_req q = {0};
    q.comm = comm;
    q.count = count;
    q.dt = dt;
    q.pmode = pmode;
    q.pbuf = buf;
    q.peer = peer;
    q.peer_base = c->peer_base;
    q.tag = tag;
    if ((rc = face_p2p_start(&q, fn)))
        return rc;
    bolt_status_t ns;
    int nrc = bolt_wait(&q.native, &ns);
    return face_req_complete(&q, &ns, nrc, st, fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return blocking(PM_SEND, (void *)buf, count, dt, dest, tag, comm, NULL, "MPI_Send");
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return blocking(PM_SSEND, (void *)buf, count, dt, dest, tag, comm, NULL, "MPI_Ssend");
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    /* A ready send is a standard send whose receive is known to be posted. */
    return blocking(PM_RSEND, (void *)buf, count, dt, dest, tag, comm, NULL, "MPI_Rsend");
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibsend(buf, count, dt, dest, tag, comm, &r);
    if (rc)
        return rc;
    return PMPI_Request_free(&r); /* delivered from the attached buffer in the background */
}

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return blocking(PM_RECV, buf, count, dt, source, tag, comm, status, "MPI_Recv");
}

/* ---- nonblocking and persistent calls ---------------------------------------------- */
static int make_req(int pmode, int persistent, void *buf, int count, MPI_Datatype dt, int peer,
                    int tag, MPI_Comm comm, MPI_Request *req, const char *fn)
{
    struct face_comm *c = NULL;
    struct face_type *t = NULL;
    struct face_req *q = NULL;
    char *p = NULL;
    size_t bytes = 0;
    /* Contiguous data, valid arguments, a send that needs no attached buffer:
     * straight to the native call (the rest goes through face_p2p_start). */
    int fast = !persistent && pmode != PM_BSEND && req &&
               p2p_fast(comm, buf, count, dt, peer, tag, pmode == PM_RECV, &c, &p, &bytes);
    int rc;
    if (!fast && (rc = check_p2p(comm, buf, count, dt, peer, tag, pmode == PM_RECV, fn, &c, &t)))
        return rc;
    if (!req)
        return face_error(comm, fn, MPI_ERR_REQUEST, "request pointer is NULL");
    if (fast && pmode != PM_RECV && pmode != PM_SSEND) {
        /* Copied out at once (most small sends): complete, so the request
         * all such sends share (face_req_sent) and none of its own to
         * make, wait on or release. */
        int sent = 0;
        rc = bolt_send_now(p, bytes, face_native_peer(c, peer), tag, c->native, &sent);
        if (rc) {
            *req = MPI_REQUEST_NULL;
            return face_native_error(comm, fn, rc);
        }
        if (sent)
            return face_req_sent(req) ? face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request")
                                      : MPI_SUCCESS;
    }
    if ((rc = face_req_new(&q, req)))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request");
    q->comm = comm;
    q->count = count;
    q->dt = dt;
    q->pmode = pmode;
    q->pbuf = buf;
    q->peer = peer;
    q->peer_base = c->peer_base;
    q->tag = tag;
    q->persistent = persistent;
    q->kind = pmode == PM_RECV ? FACE_REQ_RECV : FACE_REQ_SEND;
    if (!fast) {
        /* It may unpack at completion, or start again: keep the type. (A
         * contiguous one taken by the fast path is not looked at again.) */
        face_type_hold(dt);
        q->dt_held = 1;
    }
    if (persistent)
        return MPI_SUCCESS; /* inactive until MPI_Start */
    q->active = 1;
    if (fast) {
        q->native = BOLT_REQUEST_NULL;
        int np = face_native_peer(c, peer);
        if (pmode == PM_RECV) {
            q->user_buf = buf;
            rc = bolt_irecv(p, bytes, np, tag, c->native, &q->native);
        } else if (pmode == PM_SSEND) {
            rc = bolt_issend(p, bytes, np, tag, c->native, &q->native);
        } else {
            rc = bolt_isend(p, bytes, np, tag, c->native, &q->native); /* not at once (above) */
        }
        if (rc) {
            face_req_release(*req);
            *req = MPI_REQUEST_NULL;
            return face_native_error(comm, fn, rc);
        }
        return MPI_SUCCESS;
    }
    if ((rc = face_p2p_start(q, fn))) {
        face_req_release(*req);
        *req = MPI_REQUEST_NULL;
    }
    return rc;
}

#define NB(name, mode, persistent, cbuf)                                                       \
    int PMPI_##name(cbuf void *buf, int count, MPI_Datatype dt, int peer, int tag,             \
                    MPI_Comm comm, MPI_Request *req)                                           \
    {                                                                                          \
        return make_req(mode, persistent, (void *)buf, count, dt, peer, tag, comm, req,        \
                        "MPI_" #name);                                                          \
    }
NB(Isend, PM_SEND, 0, const)
NB(Issend, PM_SSEND, 0, const)
NB(Irsend, PM_RSEND, 0, const)
NB(Ibsend, PM_BSEND, 0, const)
NB(Irecv, PM_RECV, 0, )
NB(Send_init, PM_SEND, 1, const)
NB(Ssend_init, PM_SSEND, 1, const)
NB(Rsend_init, PM_RSEND, 1, const)
NB(Bsend_init, PM_BSEND, 1, const)
NB(Recv_init, PM_RECV, 1, )

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
                  MPI_Status *status)
{
    MPI_Request rr, sr;
    int rc = PMPI_Irecv(rbuf, rcount, rdt, source, rtag, comm, &rr);
    if (rc)
        return rc;
    if ((rc = PMPI_Isend(sbuf, scount, sdt, dest, stag, comm, &sr))) {
        PMPI_Cancel(&rr);
        PMPI_Wait(&rr, MPI_STATUS_IGNORE);
        return rc;
    }
    int rc2 = PMPI_Wait(&sr, MPI_STATUS_IGNORE);
    rc = PMPI_Wait(&rr, status);
    return rc ? rc : rc2;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                          int rtag, MPI_Comm comm, MPI_Status *status)
{
    struct face_comm *c = NULL;
    struct face_type *t = NULL;
    const char *fn = "MPI_Sendrecv_replace";
    int rc = check_p2p(comm, buf, count, dt, dest, stag, 0, fn, &c, &t);
    if (rc || (rc = face_check_rank(comm, c, source, 1, fn)) || (rc = face_check_tag(comm, rtag, 1, fn)))
        return rc;
    /* Send a packed copy, receive into the user's buffer. */
    size_t bytes = (size_t)count * t->size;
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", bytes);
    face_pack(t, buf, (size_t)count, copy);
    rc = PMPI_Sendrecv(copy, (int)bytes, MPI_BYTE, dest, stag, buf, count, dt, source, rtag, comm,
                       status);
    free(copy);
    return rc;
}

/* ---- probes and counts ------------------------------------------------------------------ */
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Probe", &c);
    if (rc || (rc = face_check_rank(comm, c, source, 1, "MPI_Probe")) ||
        (rc = face_check_tag(comm, tag, 1, "MPI_Probe")))
        return rc;
    if (source == MPI_PROC_NULL) {
        face_status_proc_null(status);
        return MPI_SUCCESS;
    }
    bolt_status_t ns;
    if ((rc = bolt_probe(face_native_peer(c, source), tag, c->native, &ns)))
        return face_native_error(comm, "MPI_Probe", rc);
    face_status_set(status, &ns, c->peer_base);
    return MPI_SUCCESS;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Iprobe", &c);
    if (rc || (rc = face_check_rank(comm, c, source, 1, "MPI_Iprobe")) ||
        (rc = face_check_tag(comm, tag, 1, "MPI_Iprobe")))
        return rc;
    if (!flag)
        return face_error(comm, "MPI_Iprobe", MPI_ERR_ARG, "flag pointer is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        face_status_proc_null(status);
        return MPI_SUCCESS;
    }
    bolt_status_t ns;
    if ((rc = bolt_iprobe(face_native_peer(c, source), tag, c->native, flag, &ns)))
        return face_native_error(comm, "MPI_Iprobe", rc);
    if (*flag)
        face_status_set(status, &ns, c->peer_base);
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    struct face_type *t = face_type_get(dt);
    if (!status || status == MPI_STATUS_IGNORE || !count)
        return face_error(MPI_COMM_NULL, "MPI_Get_count", MPI_ERR_ARG, "status or count pointer is NULL");
    if (!t)
        return face_error(MPI_COMM_NULL, "MPI_Get_count", MPI_ERR_TYPE, "datatype %d is not a live datatype", dt);
    if (t->size == 0)
        *count = status->bolt_bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (status->bolt_bytes % t->size)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(status->bolt_bytes / t->size);
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    struct face_type *t = face_type_get(dt);
    if (!status || status == MPI_STATUS_IGNORE || !count)
        return face_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_ARG, "status or count pointer is NULL");
    if (!t)
        return face_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_TYPE, "datatype %d is not a live datatype", dt);
    size_t bytes = status->bolt_bytes, n = 0;
    if (t->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    /* Whole elements, then the basic elements of the part of one more. */
    size_t per = 0;
    for (int j = 0; j < t->nblocks; j++)
        per += t->blocks[j].esize ? t->blocks[j].len / t->blocks[j].esize : 0;
    n = bytes / t->size * per;
    bytes %= t->size;
    for (int j = 0; j < t->nblocks && bytes; j++) {
        size_t e = t->blocks[j].esize;
        size_t take = t->blocks[j].len < bytes ? t->blocks[j].len : bytes;
        if (!e) { /* the index of a pair: no element of its own */
            bytes -= take;
            continue;
        }
        if (take % e) {
            *count = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        n += take / e;
        bytes -= take;
    }
    *count = (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    MPI_Count n;
    int rc = PMPI_Get_elements_x(status, dt, &n);
    if (rc == MPI_SUCCESS && count)
        *count = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return face_error(MPI_COMM_NULL, "MPI_Test_cancelled", MPI_ERR_ARG, "status or flag pointer is NULL");
    *flag = status->bolt_cancelled;
    return MPI_SUCCESS;
}
