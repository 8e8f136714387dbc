/* mprobe.c — matched probes: bolt_improbe / bolt_mprobe find a message and
 * take it out of matching at once (it stays in the unexpected queue, marked
 * reserved, so no other receive or probe can see it), and bolt_mrecv /
 * bolt_imrecv receive exactly that message later. With threads, or with two
 * any-source receives in a row, a plain probe cannot promise that the receive
 * after it gets the message it saw; a matched probe can.
 *
 * A rendezvous message only sends its CTS when it is received, so the data
 * still moves straight into the receive buffer; eager ones are probed only
 * once their payload is complete, so the entry is never touched by the
 * transport after it is reserved. */
#include <stdlib.h>

#include "runtime/errors.h"
#include "runtime/match.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/runtime.h"

struct bolt_message {
    struct bolt_comm *comm; /* held: MPI lets the program free it meanwhile */
    struct bolt_unexp *u;
};

static int check_args(int source, int tag, bolt_comm_t comm, const char *fn)
{
    int rc = bolt_comm_check(comm, fn);
    if (rc)
        return rc;
    if (source != BOLT_ANY_SOURCE && (source < 0 || source >= comm->size))
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: source rank %d is out of range: the communicator has %d rank%s "
                            "(0..%d) or BOLT_ANY_SOURCE",
                            fn, source, comm->size, comm->size == 1 ? "" : "s", comm->size - 1);
    if (tag != BOLT_ANY_TAG && (tag < 0 || tag > BOLT_TAG_UB))
        return bolt_err_set(BOLT_ERR_ARG, "%s: tag %d is invalid: tags run from 0 to %d (or "
                                          "BOLT_ANY_TAG)", fn, tag, BOLT_TAG_UB);
    return BOLT_OK;
}

/* One look at the unexpected queue: reserves the first matching message. */
static int try_take(int source, int tag, bolt_comm_t comm, int *flag, bolt_message_t *msg,
                    bolt_status_t *status)
{
    bolt_status_t st;
    int rc = bolt_proto_iprobe(source, tag, comm, comm->ctx, flag, &st);
    if (rc || !*flag)
        return rc;
    struct bolt_unexp *u = bolt_match_find_unexp(&bolt_rt.match, comm->ctx, source, tag);
    if (!u || (u->kind == BOLT_UNEXP_EAGER && !u->arrived)) {
        /* The first match is still streaming in: a later one must not jump it. */
        *flag = 0;
        return BOLT_OK;
    }
    struct bolt_message *m = malloc(sizeof *m);
    if (!m)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a matched probe");
    m->comm = comm;
    bolt_comm_hold(comm);
    m->u = u;
    u->reserved = 1;
    *msg = m;
    if (status)
        *status = st;
    return BOLT_OK;
}

int bolt_improbe(int source, int tag, bolt_comm_t comm, int *flag, bolt_message_t *msg,
                 bolt_status_t *status)
{
    const char *fn = "bolt_improbe";
    int rc;
    if (!flag || !msg)
        return bolt_err_set(BOLT_ERR_ARG, "%s: flag or message pointer is NULL", fn);
    *flag = 0;
    *msg = BOLT_MESSAGE_NULL;
    if ((rc = check_args(source, tag, comm, fn)))
        return rc;
    rc = try_take(source, tag, comm, flag, msg, status);
    if (rc || *flag)
        return rc;
    bolt_progress_poll();
    return try_take(source, tag, comm, flag, msg, status);
}

int bolt_mprobe(int source, int tag, bolt_comm_t comm, bolt_message_t *msg,
                bolt_status_t *status)
{
    int flag = 0, rc;
    long idle = 0;
    while (!(rc = bolt_improbe(source, tag, comm, &flag, msg, status)) && !flag)
        bolt_progress_backoff(&idle);
    return rc;
}

int bolt_imrecv(void *buf, size_t bytes, bolt_message_t *msg, bolt_request_t *req)
{
    if (!msg || !*msg || !req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_imrecv: %s",
                            !req ? "request pointer is NULL"
                                 : "no message: pass the handle bolt_mprobe or bolt_improbe "
                                   "returned (each can be received once)");
    *req = BOLT_REQUEST_NULL;
    if (!bolt_rt.initialized || bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_NOT_INIT, "bolt_imrecv called outside bolt_init/finalize");
    if (!buf && bytes)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_imrecv: buffer is NULL but the size is %zu bytes",
                            bytes);
    struct bolt_message *m = *msg;
    int rc = bolt_proto_imrecv(buf, bytes, m->comm, m->u, req);
    if (rc)
        return rc; /* the message stays reserved: the caller may try again */
    bolt_comm_release(m->comm);
    free(m);
    *msg = BOLT_MESSAGE_NULL;
    return BOLT_OK;
}

int bolt_mrecv(void *buf, size_t bytes, bolt_message_t *msg, bolt_status_t *status)
{
    bolt_request_t req;
    int rc = bolt_imrecv(buf, bytes, msg, &req);
    return rc ? rc : bolt_wait(&req, status);
}
