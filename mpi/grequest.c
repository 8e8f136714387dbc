/* grequest.c — generalized requests (MPI 3.1, 12.2) and the status calls
 * their query callbacks use (12.3). The program starts the request, does
 * the work however it likes (often in a thread of its own) and calls
 * MPI_Grequest_complete; MPI's request calls call its callbacks:
 *   query_fn — by the wait or test that completes the request (and by each
 *              MPI_Request_get_status once it is complete), to fill the status;
 *   free_fn  — right after query_fn there, or, for a request freed with
 *              MPI_Request_free, by the later of that call and
 *              MPI_Grequest_complete;
 *   cancel_fn — by MPI_Cancel, told whether the request is complete.
 * A callback's error is the call's error (free_fn's, the last one, first).
 * MPI_Grequest_complete only sets a flag, so it may come from another thread
 * while a thread waits on the request. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/face.h"
#include "runtime/progress.h"

struct face_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    atomic_int complete;
};

int face_greq_done(const struct face_req *q)
{
    return atomic_load(&q->greq->complete);
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    const char *fn = "MPI_Grequest_start";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!request || !query_fn || !free_fn || !cancel_fn)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          !request ? "request pointer is NULL"
                                   : "a callback is NULL: query_fn, free_fn and cancel_fn are all "
                                     "required");
    struct face_greq *g = malloc(sizeof *g);
    struct face_req *q;
    if (!g || face_req_new(&q, request)) {
        free(g);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    atomic_init(&g->complete, 0);
    q->kind = FACE_REQ_GREQ;
    q->active = 1;
    q->comm = MPI_COMM_WORLD; /* errors not tied to a communicator go to the world's handler */
    q->greq = g;
    return MPI_SUCCESS;
}

/* Frees the request after free_fn; free_fn's code. */
static int release(MPI_Request h, struct face_req *q)
{
    int rc = q->greq->free_fn(q->greq->extra);
    face_req_release(h); /* frees q->greq */
    return rc;
}

static int callback_error(const char *fn, const char *which, int code)
{
    return face_error(MPI_COMM_NULL, fn, code,
                      "the generalized request's %s callback returned error code %d", which,
                      code);
}

int PMPI_Grequest_complete(MPI_Request request)
{
    const char *fn = "MPI_Grequest_complete";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    struct face_req *q = face_req_get(request);
    if (!q || !q->greq)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                          "request %d is not a live generalized request (made by "
                          "MPI_Grequest_start)",
                          request);
    if (atomic_exchange(&q->greq->complete, 1))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                          "generalized request %d is already complete", request);
    /* Freed by MPI_Request_free before: nobody will wait for it, so it goes now. */
    if (q->freed && (rc = release(request, q)))
        return callback_error(fn, "free_fn", rc);
    return MPI_SUCCESS;
}

/* Calls query_fn into st (a status of our own when the caller ignores it). */
static int query(struct face_req *q, MPI_Status *st)
{
    MPI_Status own;
    if (STATUS_IGNORED(st))
        st = &own;
    face_status_empty(st);
    return q->greq->query(q->greq->extra, st);
}

/* Completes a complete request: query_fn, then free_fn, then it goes. */
static int finish(MPI_Request *r, struct face_req *q, MPI_Status *st, const char *fn)
{
    int qrc = query(q, st);
    int frc = release(*r, q);
    *r = MPI_REQUEST_NULL;
    if (frc)
        return callback_error(fn, "free_fn", frc);
    return qrc ? callback_error(fn, "query_fn", qrc) : MPI_SUCCESS;
}

static int greq_complete(void *arg) { return face_greq_done(arg); }

int face_greq_wait(MPI_Request *r, struct face_req *q, MPI_Status *st, const char *fn)
{
    /* Progress goes on meanwhile: the program may complete the request from
     * another thread, or only once other communication is done. */
    if (!face_greq_done(q))
        bolt_progress_until(greq_complete, q, 0);
    return finish(r, q, st, fn);
}

int face_greq_test(MPI_Request *r, struct face_req *q, int *flag, MPI_Status *st)
{
    if (!(*flag = face_greq_done(q))) {
        bolt_progress();
        face_bsend_progress();
        return MPI_SUCCESS;
    }
    return finish(r, q, st, "MPI_Test");
}

int face_greq_get_status(struct face_req *q, int *flag, MPI_Status *st)
{
    if (!(*flag = face_greq_done(q))) {
        bolt_progress();
        return MPI_SUCCESS;
    }
    int rc = query(q, st);
    return rc ? callback_error("MPI_Request_get_status", "query_fn", rc) : MPI_SUCCESS;
}

int face_greq_free(MPI_Request *r, struct face_req *q)
{
    MPI_Request h = *r;
    *r = MPI_REQUEST_NULL;
    if (!face_greq_done(q)) {
        q->freed = 1; /* MPI_Grequest_complete frees it */
        return MPI_SUCCESS;
    }
    int rc = release(h, q);
    return rc ? callback_error("MPI_Request_free", "free_fn", rc) : MPI_SUCCESS;
}

int face_greq_cancel(struct face_req *q)
{
    int rc = q->greq->cancel(q->greq->extra, face_greq_done(q));
    return rc ? callback_error("MPI_Cancel", "cancel_fn", rc) : MPI_SUCCESS;
}

/* ---- statuses ------------------------------------------------------------------------ */

/* Bytes of count basic elements of t: whole elements of t, then the blocks of
 * one more until count is reached (what MPI_Get_elements counts back). */
static int elements_bytes(const struct face_type *t, MPI_Count count, size_t *bytes)
{
    size_t per = 0;
    for (int j = 0; j < t->nblocks; j++)
        per += t->blocks[j].esize ? t->blocks[j].len / t->blocks[j].esize : 0;
    if (per == 0) {
        *bytes = 0;
        return count == 0;
    }
    size_t left = (size_t)count % per;
    *bytes = (size_t)count / per * t->size;
    for (int j = 0; j < t->nblocks && left; j++) {
        size_t e = t->blocks[j].esize;
        size_t n = e ? t->blocks[j].len / e : 0;
        if (!e) { /* a pair's index: part of the element before it */
            *bytes += t->blocks[j].len;
            continue;
        }
        if (n > left)
            n = left;
        *bytes += n * e;
        left -= n;
    }
    return 1;
}

static int set_elements(MPI_Status *status, MPI_Datatype dt, MPI_Count count, const char *fn)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    struct face_type *t = face_type_get(dt);
    size_t bytes;
    if (STATUS_IGNORED(status))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    if (!t)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "datatype %d is not a live datatype",
                          dt);
    if (count < 0)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "count %lld is negative",
                          (long long)count);
    if (!elements_bytes(t, count, &bytes))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          "datatype %d has no elements, so it cannot count %lld of them", dt,
                          (long long)count);
    status->bolt_bytes = bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype dt, MPI_Count count)
{
    return set_elements(status, dt, count, "MPI_Status_set_elements_x");
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype dt, int count)
{
    return set_elements(status, dt, count, "MPI_Status_set_elements");
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    const char *fn = "MPI_Status_set_cancelled";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (STATUS_IGNORED(status))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    status->bolt_cancelled = flag != 0;
    return MPI_SUCCESS;
}
