/*
 * nbc.c — nonblocking collectives: a request of kind BOLT_REQ_COLL owns a
 * started schedule; the progress engine's hook advances every active one, so
 * they move during any Bolt call (bolt_wait on another request included),
 * not only when their own request is tested.
 */
#include <stdlib.h>

#include "collectives/coll.h"
#include "runtime/errors.h"
#include "runtime/progress.h"
#include "runtime/request.h"

struct nbc {
    struct coll_sched *sched;
    struct bolt_request *req;
    struct nbc *next;
    int err;
    int finished;
};

static struct nbc *active;
static int in_hook; /* a schedule's posts must not re-enter the hook */

static void nbc_release(struct bolt_request *req)
{
    struct nbc *n = req->hook_state;
    if (!n)
        return;
    if (!n->finished) { /* freed by the runtime while pending: unlink */
        for (struct nbc **p = &active; *p; p = &(*p)->next)
            if (*p == n) {
                *p = n->next;
                break;
            }
    }
    coll_sched_free(n->sched);
    free(n);
    req->hook_state = NULL;
}

static int nbc_error(struct bolt_request *req)
{
    struct nbc *n = req->hook_state;
    return n ? coll_sched_raise(n->sched, n->err) : req->status.error;
}

static const struct bolt_req_hooks nbc_hooks = {nbc_release, nbc_error};

static void nbc_finish(struct nbc *n)
{
    n->finished = 1;
    bolt_req_complete(n->req, n->err); /* may release it (bolt_request_free'd) */
}

static int nbc_progress(void)
{
    int finished = 0;
    if (in_hook)
        return 0;
    in_hook = 1;
    for (struct nbc **p = &active; *p;) {
        struct nbc *n = *p;
        if (coll_sched_advance(n->sched, &n->err)) {
            *p = n->next;
            nbc_finish(n);
            finished++;
        } else {
            p = &n->next;
        }
    }
    in_hook = 0;
    return finished;
}

int coll_sched_request(struct coll_sched *s, bolt_request_t *reqp)
{
    struct nbc *n = calloc(1, sizeof *n);
    struct bolt_request *req = n ? bolt_req_new(BOLT_REQ_COLL) : NULL;
    int rc = BOLT_OK;
    if (!req) {
        free(n);
        coll_sched_free(s);
        return bolt_err_set(BOLT_ERR_NOMEM, "nonblocking collective: out of memory");
    }
    n->sched = s;
    n->req = req;
    req->comm = coll_sched_comm(s);
    bolt_comm_hold(req->comm);
    req->hooks = &nbc_hooks;
    req->hook_state = n;
    bolt_progress_hook = nbc_progress;
    in_hook++; /* the first round's posts may poll */
    rc = coll_sched_start(s);
    int ended = rc ? 1 : coll_sched_advance(s, &n->err);
    in_hook--;
    if (rc) {
        n->err = rc;
        coll_sched_raise(s, rc);
        n->finished = 1;
        bolt_req_release(req);
        return rc;
    }
    if (ended) {
        nbc_finish(n);
    } else {
        n->next = active;
        active = n;
    }
    *reqp = req;
    return BOLT_OK;
}
