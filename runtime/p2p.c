/* p2p.c — the public point-to-point API: argument checks, waits and tests. */
#include <stdlib.h>

#include "runtime/errors.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/runtime.h"

static int check_peer(struct bolt_comm *c, int rank, int any_ok, const char *fn, const char *what)
{
    if (any_ok && rank == BOLT_ANY_SOURCE)
        return BOLT_OK;
    if (rank < 0 || rank >= c->size)
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: %s rank %d is out of range: the communicator has %d rank%s "
                            "(0..%d)%s",
                            fn, what, rank, c->size, c->size == 1 ? "" : "s", c->size - 1,
                            any_ok ? " or BOLT_ANY_SOURCE" : "");
    return BOLT_OK;
}

static int check_tag(int tag, int any_ok, const char *fn)
{
    if ((any_ok && tag == BOLT_ANY_TAG) || (tag >= 0 && tag <= BOLT_TAG_UB))
        return BOLT_OK;
    return bolt_err_set(BOLT_ERR_ARG, "%s: tag %d is invalid: tags run from 0 to %d%s", fn, tag,
                        BOLT_TAG_UB, any_ok ? " (or BOLT_ANY_TAG)" : "");
}

static int check_buf(const void *buf, size_t bytes, const char *fn)
{
    if (!buf && bytes)
        return bolt_err_set(BOLT_ERR_ARG, "%s: buffer is NULL but the size is %zu bytes", fn,
                            bytes);
    return BOLT_OK;
}

static int check_send(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                      const char *fn)
{
    int rc;
    if ((rc = bolt_comm_check(comm, fn)) || (rc = check_peer(comm, dest, 0, fn, "destination")) ||
        (rc = check_tag(tag, 0, fn)) || (rc = check_buf(buf, bytes, fn)))
        return rc;
    return BOLT_OK;
}

static int start_send(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                      unsigned flags, bolt_request_t *req, const char *fn)
{
    int rc;
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "%s: request pointer is NULL", fn);
    *req = BOLT_REQUEST_NULL;
    if ((rc = check_send(buf, bytes, dest, tag, comm, fn)))
        return rc;
    return bolt_proto_isend(buf, bytes, dest, tag, comm, comm->ctx, flags, req);
}

int bolt_isend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
               bolt_request_t *req)
{
    return start_send(buf, bytes, dest, tag, comm, 0, req, "bolt_isend");
}

int bolt_send_now(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm, int *sent)
{
    if (!sent)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_send_now: sent pointer is NULL");
    *sent = 0;
    int rc = check_send(buf, bytes, dest, tag, comm, "bolt_send_now");
    if (rc)
        return rc;
    *sent = bolt_proto_send_now(buf, bytes, dest, tag, comm, comm->ctx);
    return BOLT_OK;
}

int bolt_issend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                bolt_request_t *req)
{
    return start_send(buf, bytes, dest, tag, comm, BOLT_PROTO_SYNC, req, "bolt_issend");
}

int bolt_isend_overlap(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                       bolt_request_t *req)
{
    /* the sender is busy (computing), as in an exchange: the receiver copies */
    return start_send(buf, bytes, dest, tag, comm, BOLT_PROTO_SENDER_BUSY, req, "bolt_isend_overlap");
}

int bolt_irecv(void *buf, size_t bytes, int source, int tag, bolt_comm_t comm, bolt_request_t *req)
{
    int rc;
    const char *fn = "bolt_irecv";
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "%s: request pointer is NULL", fn);
    *req = BOLT_REQUEST_NULL;
    if ((rc = bolt_comm_check(comm, fn)) || (rc = check_peer(comm, source, 1, fn, "source")) ||
        (rc = check_tag(tag, 1, fn)) || (rc = check_buf(buf, bytes, fn)))
        return rc;
    return bolt_proto_irecv(buf, bytes, source, tag, comm, comm->ctx, req);
}

int bolt_send(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm)
{
    int rc = check_send(buf, bytes, dest, tag, comm, "bolt_send");
    if (rc)
        return rc;
    /* Most small blocking sends: copied out at once, no request. */
    if (bolt_proto_send_now(buf, bytes, dest, tag, comm, comm->ctx))
        return BOLT_OK;
    bolt_request_t req;
    rc = bolt_proto_isend(buf, bytes, dest, tag, comm, comm->ctx, BOLT_PROTO_WAITS, &req);
    return rc ? rc : bolt_wait(&req, NULL);
}

int bolt_ssend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm)
{
    bolt_request_t req;
    int rc = start_send(buf, bytes, dest, tag, comm, BOLT_PROTO_SYNC | BOLT_PROTO_WAITS, &req,
                        "bolt_ssend");
    return rc ? rc : bolt_wait(&req, NULL);
}

int bolt_recv(void *buf, size_t bytes, int source, int tag, bolt_comm_t comm, bolt_status_t *status)
{
    bolt_request_t req;
    int rc = bolt_irecv(buf, bytes, source, tag, comm, &req);
    return rc ? rc : bolt_wait(&req, status);
}

int bolt_sendrecv(const void *sbuf, size_t sbytes, int dest, int stag, void *rbuf, size_t rbytes,
                  int source, int rtag, bolt_comm_t comm, bolt_status_t *status)
{
    bolt_request_t reqs[2];
    bolt_status_t st[2];
    int rc = bolt_irecv(rbuf, rbytes, source, rtag, comm, &reqs[0]);
    if (rc)
        return rc;
    /* An exchange: this rank receives meanwhile. */
    rc = start_send(sbuf, sbytes, dest, stag, comm, BOLT_PROTO_SENDER_BUSY, &reqs[1],
                    "bolt_sendrecv");
    if (rc) {
        bolt_cancel(&reqs[0]);
        bolt_wait(&reqs[0], NULL);
        return rc;
    }
    rc = bolt_waitall(2, reqs, st);
    if (status)
        *status = st[0];
    if (rc == BOLT_ERR_PENDING)
        rc = st[0].error ? st[0].error : st[1].error;
    return rc;
}

/* ---- completion -------------------------------------------------------- */

/* Could this pending request be a receive nobody can satisfy? A cheap
 * pre-check of bolt_proto_orphaned's conditions, so that a wait's spin does
 * not call into peers.c on every pass: only a receive from this very rank,
 * or from any source once a peer is gone (or on a communicator of one). */
static inline int may_be_orphan(const struct bolt_request *r)
{
    if (r->kind != BOLT_REQ_RECV)
        return 0;
    if (r->peer != BOLT_ANY_SOURCE)
        return r->comm->world_ranks[r->peer] == bolt_rt.rank;
    return bolt_rt.gone || r->comm->size <= 1;
}

static int req_done(void *arg)
{
    struct bolt_request *r = arg;
    if (r->done)
        return 1;
    if (!may_be_orphan(r) || !bolt_proto_orphaned(r))
        return 0;
    bolt_proto_fail_orphan(r);
    return 1;
}

static int not_finalized(const char *fn)
{
    if (bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_NOT_INIT, "%s called after bolt_finalize: the request can "
                                               "no longer complete", fn);
    return BOLT_OK;
}

/* Hands a completed request's status to the caller and frees it. */
static int finish(bolt_request_t *reqp, bolt_status_t *status)
{
    struct bolt_request *req = *reqp;
    int err = req->status.error;
    if (status)
        *status = req->status;
    if (err)
        bolt_proto_req_error(req);
    bolt_req_release(req);
    *reqp = BOLT_REQUEST_NULL;
    return err;
}

static void empty_status(bolt_status_t *status)
{
    if (status) {
        status->source = BOLT_ANY_SOURCE;
        status->tag = BOLT_ANY_TAG;
        status->error = BOLT_OK;
        status->bytes = 0;
    }
}

int bolt_wait(bolt_request_t *reqp, bolt_status_t *status)
{
    if (!reqp)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_wait: request pointer is NULL");
    if (!*reqp) {
        empty_status(status);
        return BOLT_OK;
    }
    if (!(*reqp)->done && not_finalized("bolt_wait"))
        return BOLT_ERR_NOT_INIT;
    bolt_progress_until(req_done, *reqp, 0);
    return finish(reqp, status);
}

int bolt_test(bolt_request_t *reqp, int *flag, bolt_status_t *status)
{
    if (!reqp || !flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_test: NULL argument");
    if (!*reqp) {
        *flag = 1;
        empty_status(status);
        return BOLT_OK;
    }
    if (!(*reqp)->done)
        bolt_progress_poll();
    *flag = (*reqp)->done;
    return *flag ? finish(reqp, status) : BOLT_OK;
}

struct all_arg {
    int count;
    bolt_request_t *reqs;
};

static int all_done(void *arg)
{
    struct all_arg *a = arg;
    for (int i = 0; i < a->count; i++)
        if (a->reqs[i] && !req_done(a->reqs[i]))
            return 0;
    return 1;
}

static int finish_all(int count, bolt_request_t *reqs, bolt_status_t *statuses)
{
    int failed = 0, first = BOLT_OK;
    for (int i = 0; i < count; i++) {
        int rc = reqs[i] ? finish(&reqs[i], statuses ? &statuses[i] : NULL)
                         : (empty_status(statuses ? &statuses[i] : NULL), BOLT_OK);
        if (rc && !failed++)
            first = rc;
    }
    if (!failed)
        return BOLT_OK;
    (void)first; /* bolt_error_message() holds the last failure's details */
    return BOLT_ERR_PENDING;
}

int bolt_waitall(int count, bolt_request_t *reqs, bolt_status_t *statuses)
{
    if (count < 0 || (count > 0 && !reqs))
        return bolt_err_set(BOLT_ERR_ARG, "bolt_waitall: bad request array");
    struct all_arg a = {count, reqs};
    if (!all_done(&a) && not_finalized("bolt_waitall"))
        return BOLT_ERR_NOT_INIT;
    bolt_progress_until(all_done, &a, 0);
    return finish_all(count, reqs, statuses);
}

int bolt_testall(int count, bolt_request_t *reqs, int *flag, bolt_status_t *statuses)
{
    if (count < 0 || (count > 0 && !reqs) || !flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_testall: bad arguments");
    struct all_arg a = {count, reqs};
    if (!all_done(&a))
        bolt_progress_poll();
    *flag = all_done(&a);
    return *flag ? finish_all(count, reqs, statuses) : BOLT_OK;
}

struct any_arg {
    int count;
    bolt_request_t *reqs;
    int index;
};

static int any_done(void *arg)
{
    struct any_arg *a = arg;
    int live = 0, orphans = 0, first_orphan = -1;
    for (int i = 0; i < a->count; i++) {
        if (!a->reqs[i])
            continue;
        live++;
        if (a->reqs[i]->done) {
            a->index = i;
            return 1;
        }
        if (bolt_proto_orphaned(a->reqs[i]) && orphans++ == 0)
            first_orphan = i;
    }
    /* Only when nothing else can complete is an unmatchable receive an error. */
    if (live && orphans == live) {
        bolt_proto_fail_orphan(a->reqs[first_orphan]);
        a->index = first_orphan;
        return 1;
    }
    return !live;
}

int bolt_waitany(int count, bolt_request_t *reqs, int *index, bolt_status_t *status)
{
    if (count < 0 || (count > 0 && !reqs) || !index)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_waitany: bad arguments");
    struct any_arg a = {count, reqs, -1};
    if (!any_done(&a) && not_finalized("bolt_waitany"))
        return BOLT_ERR_NOT_INIT;
    bolt_progress_until(any_done, &a, 0);
    *index = a.index;
    if (a.index < 0) {
        empty_status(status);
        return BOLT_OK;
    }
    return finish(&reqs[a.index], status);
}

int bolt_testany(int count, bolt_request_t *reqs, int *index, int *flag, bolt_status_t *status)
{
    if (count < 0 || (count > 0 && !reqs) || !index || !flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_testany: bad arguments");
    struct any_arg a = {count, reqs, -1};
    if (!any_done(&a)) {
        bolt_progress_poll();
    }
    *flag = any_done(&a);
    *index = a.index;
    if (!*flag || a.index < 0) {
        if (*flag)
            empty_status(status);
        return BOLT_OK;
    }
    return finish(&reqs[a.index], status);
}

int bolt_request_get_status(bolt_request_t req, int *flag, bolt_status_t *status)
{
    if (!flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_request_get_status: flag pointer is NULL");
    if (!req) {
        *flag = 1;
        empty_status(status);
        return BOLT_OK;
    }
    if (!req->done)
        bolt_progress_poll();
    *flag = req_done(req);
    if (*flag && status)
        *status = req->status;
    return BOLT_OK;
}

int bolt_cancel(bolt_request_t *reqp)
{
    if (!reqp || !*reqp)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_cancel: no request");
    bolt_proto_cancel(*reqp);
    return BOLT_OK;
}

int bolt_request_free(bolt_request_t *reqp)
{
    if (!reqp || !*reqp)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_request_free: no request");
    struct bolt_request *req = *reqp;
    if (req->done)
        bolt_req_release(req);
    else
        req->user_freed = 1; /* freed when it completes */
    *reqp = BOLT_REQUEST_NULL;
    return BOLT_OK;
}

/* ---- probes ------------------------------------------------------------ */

int bolt_iprobe(int source, int tag, bolt_comm_t comm, int *flag, bolt_status_t *status)
{
    int rc;
    const char *fn = "bolt_iprobe";
    if (!flag)
        return bolt_err_set(BOLT_ERR_ARG, "%s: flag is NULL", fn);
    if ((rc = bolt_comm_check(comm, fn)) || (rc = check_peer(comm, source, 1, fn, "source")) ||
        (rc = check_tag(tag, 1, fn)))
        return rc;
    rc = bolt_proto_iprobe(source, tag, comm, comm->ctx, flag, status);
    if (rc || *flag)
        return rc;
    bolt_progress_poll();
    return bolt_proto_iprobe(source, tag, comm, comm->ctx, flag, status);
}

int bolt_probe(int source, int tag, bolt_comm_t comm, bolt_status_t *status)
{
    int flag = 0, rc;
    long idle = 0;
    while (!(rc = bolt_iprobe(source, tag, comm, &flag, status)) && !flag)
        bolt_progress_backoff(&idle);
    return rc;
}

int bolt_progress(void)
{
    if (!bolt_rt.initialized || bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_NOT_INIT, "bolt_progress called outside bolt_init/finalize");
    bolt_progress_poll();
    return BOLT_OK;
}
