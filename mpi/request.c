/* request.c — MPI requests: the handle table, waits, tests, persistent
 * requests and cancellation. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"
#include "runtime/memzero.h"
#include "runtime/thread.h"

int face_req_complete(struct face_req *q, const bolt_status_t *ns, int native_rc, MPI_Status *st,
                      const char *fn);

static struct face_req **reqs; /* chunks would avoid the copy; a table is simpler */
static int nreqs, cap_reqs;
static struct face_req *free_list;

/* Slot 0 is MPI_REQUEST_NULL; slot REQ_SENT the shared request of every send
 * that left at once: a send of the fast path (make_req) with nothing to
 * wait for, as such a send's own request was (no native request; its wait's
 * status is what bolt_wait gives for none). */
enum { REQ_SENT = 1, REQ_FIRST };
/* What bolt_wait gives for no native request: a send's wait that had none. */
static const bolt_status_t no_native = {BOLT_ANY_SOURCE, BOLT_ANY_TAG, BOLT_OK, 0};
static struct face_req sent_req = {.live = 1, .kind = FACE_REQ_SEND, .active = 1, .comm = MPI_COMM_WORLD};

static int table_init(void)
{
    if (nreqs)
        return MPI_SUCCESS;
    if (!(reqs = malloc(64 * sizeof *reqs)))
        return MPI_ERR_NO_MEM;
    cap_reqs = 64;
    reqs[0] = NULL;
    reqs[REQ_SENT] = &sent_req;
    nreqs = REQ_FIRST;
    return MPI_SUCCESS;
}

int face_req_sent(MPI_Request *handle)
{
    if (table_init())
        return MPI_ERR_NO_MEM;
    *handle = REQ_SENT;
    return MPI_SUCCESS;
}

int face_req_new(struct face_req **out, MPI_Request *handle)
{
    struct face_req *q = free_list;
    if (q) {
        free_list = q->next_free;
        int h = (int)(intptr_t)q->user_buf; /* the slot index is kept there while free */
        bolt_mem_zero(q, sizeof *q);
        q->live = 1;
        *out = q;
        *handle = h;
        return MPI_SUCCESS;
    }
    if (table_init())
        return MPI_ERR_NO_MEM;
    if (nreqs >= cap_reqs) {
        int n = cap_reqs ? cap_reqs * 2 : 64;
        struct face_req **t = realloc(reqs, (size_t)n * sizeof *t);
        if (!t)
            return MPI_ERR_NO_MEM;
        reqs = t;
        cap_reqs = n;
    }
    if (!(q = calloc(1, sizeof *q)))
        return MPI_ERR_NO_MEM;
    q->live = 1;
    reqs[nreqs] = q;
    *handle = nreqs++;
    *out = q;
    return MPI_SUCCESS;
}

struct face_req *face_req_get(MPI_Request r)
{
    if (r <= 0 || r >= nreqs || !reqs[r]->live)
        return NULL;
    return reqs[r];
}

void face_req_release(MPI_Request r)
{
    if (r == REQ_SENT)
        return;
    struct face_req *q = reqs[r];
    if (q->tmp || q->coll_in || q->coll_op) {
        face_plan_free(q);
        free(q->tmp);
        free(q->coll_in);
        face_op_unbind(q->coll_op);
    }
    if (q->dt_held)
        face_type_unhold(q->dt);
    if (q->multi) { /* a neighbourhood collective that never ran to completion */
        face_multi_finish(q->multi, 0);
        q->multi = NULL;
    }
    free(q->greq);
    q->greq = NULL;
    if (q->finish_fn) /* never completed: its work is undone */
        q->finish_fn(q, 0);
    q->finish_fn = NULL;
    q->live = 0;
    q->user_buf = (void *)(intptr_t)r;
    q->next_free = free_list;
    free_list = q;
}

static int bad_request(MPI_Request r, const char *fn)
{
    return face_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                      "request handle %d is not a live request (already completed or freed?)", r);
}

/* An active request whose work is over without a native request to wait on. */
static int trivially_done(struct face_req *q)
{
    return q->proc_null || !q->active;
}

int face_req_done(struct face_req *q)
{
    int done = 1;
    if (q->greq)
        done = face_greq_done(q);
    else if (q->multi)
        done = face_multi_done(q->multi);
    else if (!trivially_done(q))
        bolt_request_get_status(q->native, &done, NULL);
    return done;
}

/* Completes request *r whose native part is finished (status in ns). */
static int finish(MPI_Request *r, struct face_req *q, const bolt_status_t *ns, int nrc,
                  MPI_Status *st, const char *fn)
{
    int rc;
    if (q->persistent && !q->active) {
        face_status_empty(st); /* an inactive persistent request completes at once */
        return MPI_SUCCESS;
    }
    rc = face_req_complete(q, ns, nrc, st, fn);
    if (q->persistent) {
        q->active = 0;
        q->native = BOLT_REQUEST_NULL;
        if (q->freed) {
            face_req_release(*r);
            *r = MPI_REQUEST_NULL;
        }
    } else {
        face_req_release(*r);
        *r = MPI_REQUEST_NULL;
    }
    return rc;
}

/* The common case of a wait, without the general path's steps: an active,
 * nonblocking, contiguous send or receive (nothing to unpack or give back).
 * Returns 1 when it completed *r successfully; 0 when q is not such a
 * request, or when its native wait failed (*nrc, *ns then hold the outcome
 * for finish, which reports it). */
static int wait_simple(MPI_Request *r, struct face_req *q, MPI_Status *st, bolt_status_t *ns,
                       int *nrc)
{
    if (q->kind > FACE_REQ_RECV || q->persistent || q->proc_null || !q->active || q->tmp ||
        q->bsend_block || q->coll_in || q->coll_op)
        return 0;
    if (q->native) {
        if ((*nrc = bolt_wait(&q->native, ns)))
            return 0;
    } else { /* a send that left at once (make_req): what bolt_wait gives for none */
        *nrc = BOLT_OK;
        *ns = no_native;
    }
    face_status_set(st, ns, q->peer_base);
    if (q->cancelled && ns->source == BOLT_ANY_SOURCE && !STATUS_IGNORED(st))
        st->bolt_cancelled = 1;
    face_req_release(*r);
    *r = MPI_REQUEST_NULL;
    return 1;
}

int PMPI_Wait(MPI_Request *r, MPI_Status *st)
{
    int rc = face_check_init("MPI_Wait");
    if (rc)
        return rc;
    if (!r)
        return face_error(MPI_COMM_NULL, "MPI_Wait", MPI_ERR_ARG, "request pointer is NULL");
    if (*r == MPI_REQUEST_NULL) {
        face_status_empty(st);
        return MPI_SUCCESS;
    }
    struct face_req *q = face_req_get(*r);
    if (!q)
        return bad_request(*r, "MPI_Wait");
    if (q->greq)
        return face_greq_wait(r, q, st, "MPI_Wait");
    bolt_status_t ns = {0};
    int nrc = -1;
    if (wait_simple(r, q, st, &ns, &nrc))
        return MPI_SUCCESS;
    if (nrc == -1) /* not waited on yet */
        nrc = q->multi          ? face_multi_wait(q->multi)
              : trivially_done(q) ? BOLT_OK
                                  : bolt_wait(&q->native, &ns);
    return finish(r, q, &ns, nrc, st, "MPI_Wait");
}

int PMPI_Test(MPI_Request *r, int *flag, MPI_Status *st)
{
    int rc = face_check_init("MPI_Test");
    if (rc)
        return rc;
    if (!r || !flag)
        return face_error(MPI_COMM_NULL, "MPI_Test", MPI_ERR_ARG, "request or flag pointer is NULL");
    if (*r == MPI_REQUEST_NULL) {
        *flag = 1;
        face_status_empty(st);
        return MPI_SUCCESS;
    }
    struct face_req *q = face_req_get(*r);
    if (!q)
        return bad_request(*r, "MPI_Test");
    if (q->greq)
        return face_greq_test(r, q, flag, st);
    bolt_status_t ns = {0};
    int nrc = BOLT_OK;
    *flag = 1;
    if (q->multi) {
        bolt_progress();
        if (!(*flag = face_multi_done(q->multi))) {
            face_bsend_progress();
            return MPI_SUCCESS;
        }
        nrc = face_multi_wait(q->multi); /* all done: collects their outcome */
    } else if (!trivially_done(q)) {
        nrc = bolt_test(&q->native, flag, &ns);
        if (!*flag) {
            face_bsend_progress();
            return MPI_SUCCESS;
        }
    }
    return finish(r, q, &ns, nrc, st, "MPI_Test");
}

/* Status slot i of an array argument (MPI_STATUSES_IGNORE: none). */
static MPI_Status *slot(MPI_Status *sts, int i)
{
    return STATUS_IGNORED(sts) ? MPI_STATUS_IGNORE : &sts[i];
}

static int check_array(int count, const MPI_Request *rs, const char *fn)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (count < 0 || (count > 0 && !rs))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "count %d or request array is invalid", count);
    for (int i = 0; i < count; i++)
        if (rs[i] != MPI_REQUEST_NULL && !face_req_get(rs[i]))
            return bad_request(rs[i], fn);
    return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request rs[], MPI_Status sts[])
{
    int rc = check_array(count, rs, "MPI_Waitall");
    if (rc)
        return rc;
    int failed = 0;
    MPI_Comm fcomm = MPI_COMM_WORLD; /* the first failed request's: its handler reports */
    for (int i = 0; i < count; i++) {
        if (rs[i] == REQ_SENT) { /* wait_simple's outcome for it, sooner */
            face_status_set(slot(sts, i), &no_native, 0);
            rs[i] = MPI_REQUEST_NULL;
            if (!STATUS_IGNORED(sts))
                sts[i].MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        /* Waiting on one request progresses all of them: order does not matter. */
        struct face_req *q = face_req_get(rs[i]);
        bolt_status_t ns = {0};
        int nrc = -1;
        if (q && wait_simple(&rs[i], q, slot(sts, i), &ns, &nrc)) {
            if (!STATUS_IGNORED(sts))
                sts[i].MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        MPI_Comm qcomm = q ? q->comm : MPI_COMM_NULL;
        struct face_comm *c = face_comm_get(qcomm);
        MPI_Errhandler keep = MPI_ERRORS_RETURN;
        if (c) {
            keep = c->errh;
            c->errh = MPI_ERRORS_RETURN; /* one report for the whole call, below */
        }
        /* nrc set: wait_simple waited, and the request failed. */
        int r = nrc != -1 ? finish(&rs[i], q, &ns, nrc, slot(sts, i), "MPI_Waitall")
                          : PMPI_Wait(&rs[i], slot(sts, i));
        if (c)
            c->errh = keep;
        if (!STATUS_IGNORED(sts))
            sts[i].MPI_ERROR = r;
        if (r && !failed++) {
            rc = r;
            if (c)
                fcomm = qcomm;
        }
    }
    if (!failed)
        return MPI_SUCCESS;
    return face_error(fcomm, "MPI_Waitall", MPI_ERR_IN_STATUS,
                      "%d of %d requests failed; the first: %s", failed, count,
                      bolt_error_message());
}

int PMPI_Testall(int count, MPI_Request rs[], int *flag, MPI_Status sts[])
{
    int rc = check_array(count, rs, "MPI_Testall");
    if (rc)
        return rc;
    if (!flag)
        return face_error(MPI_COMM_NULL, "MPI_Testall", MPI_ERR_ARG, "flag pointer is NULL");
    /* All or nothing: complete none unless every one is done. */
    bolt_progress();
    for (int i = 0; i < count; i++) {
        struct face_req *q = face_req_get(rs[i]);
        if (q && !face_req_done(q)) {
            *flag = 0;
            face_bsend_progress();
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return PMPI_Waitall(count, rs, sts);
}

/* Finds a completed request among rs without blocking: index or -1;
 * *live says whether any request is still active. */
static int find_done(int count, MPI_Request rs[], int *live)
{
    *live = 0;
    for (int i = 0; i < count; i++) {
        struct face_req *q = face_req_get(rs[i]);
        if (!q || (q->persistent && !q->active))
            continue;
        (*live)++;
        if (face_req_done(q))
            return i;
    }
    return -1;
}

int PMPI_Waitany(int count, MPI_Request rs[], int *index, MPI_Status *st)
{
    int rc = check_array(count, rs, "MPI_Waitany"), live;
    if (rc)
        return rc;
    if (!index)
        return face_error(MPI_COMM_NULL, "MPI_Waitany", MPI_ERR_ARG, "index pointer is NULL");
    int i = find_done(count, rs, &live), multi = 0;
    for (int k = 0; k < count && !multi; k++) {
        struct face_req *q = face_req_get(rs[k]);
        multi = q && (q->multi || q->greq);
    }
    /* A neighbourhood collective is many native requests, a generalized one
     * none: no single one to sleep on, so the set is polled. */
    while (i < 0 && live && multi) {
        bolt_lock_yield(); /* another thread's call runs between passes */
        bolt_progress();
        i = find_done(count, rs, &live);
    }
    if (i < 0 && live) {
        /* Sleep in the native wait on the native requests. */
        bolt_request_t *nat = malloc((size_t)count * sizeof *nat);
        if (!nat)
            return face_error(MPI_COMM_NULL, "MPI_Waitany", MPI_ERR_NO_MEM, "out of memory");
        for (int k = 0; k < count; k++) {
            struct face_req *q = face_req_get(rs[k]);
            nat[k] = q && q->active && !q->proc_null ? q->native : BOLT_REQUEST_NULL;
        }
        bolt_status_t ns;
        int nrc = bolt_waitany(count, nat, &i, &ns);
        free(nat);
        if (i >= 0) {
            struct face_req *q = face_req_get(rs[i]);
            q->native = BOLT_REQUEST_NULL; /* the native wait released it */
            *index = i;
            return finish(&rs[i], q, &ns, nrc, st, "MPI_Waitany");
        }
    }
    if (i < 0) {
        *index = MPI_UNDEFINED;
        face_status_empty(st);
        return MPI_SUCCESS;
    }
    *index = i;
    return PMPI_Wait(&rs[i], st);
}

int PMPI_Testany(int count, MPI_Request rs[], int *index, int *flag, MPI_Status *st)
{
    int rc = check_array(count, rs, "MPI_Testany"), live;
    if (rc)
        return rc;
    if (!index || !flag)
        return face_error(MPI_COMM_NULL, "MPI_Testany", MPI_ERR_ARG, "index or flag pointer is NULL");
    bolt_progress();
    int i = find_done(count, rs, &live);
    if (i < 0) {
        *flag = !live;
        *index = MPI_UNDEFINED;
        if (!live)
            face_status_empty(st);
        face_bsend_progress();
        return MPI_SUCCESS;
    }
    *flag = 1;
    *index = i;
    return PMPI_Wait(&rs[i], st);
}

static int some(int count, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[],
                int block, const char *fn)
{
    int rc = check_array(count, rs, fn), live, n = 0;
    if (rc)
        return rc;
    if (!outcount || (count > 0 && !idx))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "outcount or index array is NULL");
    bolt_progress();
    int first = find_done(count, rs, &live);
    if (!live) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (first < 0 && block) {
        MPI_Status st;
        if ((rc = PMPI_Waitany(count, rs, &first, &st)))
            return rc;
        idx[n] = first;
        if (!STATUS_IGNORED(sts))
            sts[n] = st;
        n++;
    }
    for (int i = 0; i < count; i++) {
        struct face_req *q = face_req_get(rs[i]);
        if (!q || (q->persistent && !q->active) || !face_req_done(q))
            continue;
        idx[n] = i;
        if ((rc = PMPI_Wait(&rs[i], slot(sts, n))))
            return rc;
        n++;
    }
    *outcount = n;
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int count, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[])
{
    return some(count, rs, outcount, idx, sts, 1, "MPI_Waitsome");
}

int PMPI_Testsome(int count, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[])
{
    return some(count, rs, outcount, idx, sts, 0, "MPI_Testsome");
}

int PMPI_Request_get_status(MPI_Request r, int *flag, MPI_Status *st)
{
    int rc = face_check_init("MPI_Request_get_status");
    if (rc)
        return rc;
    if (!flag)
        return face_error(MPI_COMM_NULL, "MPI_Request_get_status", MPI_ERR_ARG, "flag pointer is NULL");
    struct face_req *q = face_req_get(r);
    if (q && q->greq)
        return face_greq_get_status(q, flag, st);
    if (q && q->multi) {
        bolt_progress();
        *flag = face_multi_done(q->multi);
        if (*flag)
            face_status_empty(st);
        return MPI_SUCCESS;
    }
    if (r == MPI_REQUEST_NULL || !q || trivially_done(q)) {
        if (r != MPI_REQUEST_NULL && !q)
            return bad_request(r, "MPI_Request_get_status");
        *flag = 1;
        if (q && q->proc_null)
            face_status_proc_null(st);
        else
            face_status_empty(st);
        return MPI_SUCCESS;
    }
    bolt_status_t ns;
    bolt_request_get_status(q->native, flag, &ns);
    if (*flag)
        face_status_set(st, &ns, q->peer_base);
    return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *r)
{
    int rc = face_check_init("MPI_Request_free");
    if (rc)
        return rc;
    if (!r)
        return face_error(MPI_COMM_NULL, "MPI_Request_free", MPI_ERR_ARG, "request pointer is NULL");
    struct face_req *q = face_req_get(*r);
    if (!q)
        return bad_request(*r, "MPI_Request_free");
    if (q->greq)
        return face_greq_free(r, q);
    if (q->active && !q->proc_null && (q->native || q->multi)) {
        if (q->tmp || q->coll_in || q->coll_op || q->bsend_block || q->kind == FACE_REQ_RECV ||
            q->multi || q->finish_fn) {
            /* Its buffers must outlive it: hand it to the bsend list to finish. */
            q->freed = 1;
            q->persistent = 0;
            extern void face_req_orphan(MPI_Request r);
            face_req_orphan(*r);
            *r = MPI_REQUEST_NULL;
            return MPI_SUCCESS;
        }
        bolt_request_free(&q->native);
    }
    face_req_release(*r);
    *r = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *r)
{
    int rc = face_check_init("MPI_Cancel");
    if (rc)
        return rc;
    if (!r)
        return face_error(MPI_COMM_NULL, "MPI_Cancel", MPI_ERR_ARG, "request pointer is NULL");
    struct face_req *q = face_req_get(*r);
    if (!q)
        return bad_request(*r, "MPI_Cancel");
    if (q->greq)
        return face_greq_cancel(q);
    /* Receives can be cancelled until they match; a send, once started, is
     * delivered (MPI allows an implementation to say it could not cancel). */
    if (q->active && !q->proc_null && q->kind == FACE_REQ_RECV && q->native) {
        q->cancelled = 1;
        bolt_cancel(&q->native);
    }
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *r)
{
    int rc = face_check_init("MPI_Start");
    if (rc)
        return rc;
    if (!r)
        return face_error(MPI_COMM_NULL, "MPI_Start", MPI_ERR_ARG, "request pointer is NULL");
    struct face_req *q = face_req_get(*r);
    if (!q || !q->persistent)
        return face_error(MPI_COMM_NULL, "MPI_Start", MPI_ERR_REQUEST,
                          "request %d is not a persistent request (make it with MPI_Send_init, "
                          "MPI_Recv_init, ...)", *r);
    if (q->active)
        return face_error(q->comm, "MPI_Start", MPI_ERR_REQUEST,
                          "request %d is already active: complete it before starting it again", *r);
    q->active = 1;
    if ((rc = face_p2p_start(q, "MPI_Start")))
        q->active = 0;
    return rc;
}

int PMPI_Startall(int count, MPI_Request rs[])
{
    int rc = check_array(count, rs, "MPI_Startall");
    for (int i = 0; !rc && i < count; i++)
        rc = PMPI_Start(&rs[i]);
    return rc;
}
