/* peers.c — peers that leave: a BYE at finalize, a broken connection, and
 * receives that nobody left can satisfy. Whatever waits for a departed peer
 * ends with an error naming it, never a hang. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/errors.h"
#include "runtime/log.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/proto_internal.h"
#include "runtime/runtime.h"
#include "runtime/thread.h"

static void fail_waiting_send(struct bolt_request *req, void *arg)
{
    int peer = *(int *)arg;
    if (!req->done && req->kind == BOLT_REQ_SEND && req->world_peer == peer &&
        (req->awaiting_cts || req->sync_pending))
        proto_send_fail(req, BOLT_ERR_PEER);
}

/* The peer said BYE: it sends nothing more. */
void proto_peer_bye(int peer)
{
    bolt_rt.peers[peer].bye = 1;
    bolt_rt.gone++;
    /* A CTS or SYNC_ACK it sent would have come before its BYE. */
    bolt_req_foreach(fail_waiting_send, &peer);
    /* Receives waiting for this peer can never complete now. */
    for (struct bolt_request *r = bolt_rt.match.posted_head, *n; r; r = n) {
        n = r->next;
        if (r->world_peer == peer) {
            bolt_match_remove_posted(&bolt_rt.match, r);
            bolt_req_complete(r, BOLT_ERR_PEER);
        }
    }
}

static void fail_inflight(struct bolt_request *req, void *arg)
{
    int peer = *(int *)arg;
    if (req->done || req->world_peer != peer)
        return;
    if (req->kind == BOLT_REQ_SEND)
        proto_send_fail(req, BOLT_ERR_PEER);
    else
        bolt_req_complete(req, BOLT_ERR_PEER);
}

static int comm_has(const struct bolt_comm *c, int world)
{
    return c && bolt_comm_rank_of_world(c, world) >= 0;
}

void proto_peer_failed(void *rt, int peer, int error, const char *why)
{
    (void)rt;
    struct bolt_peer *p = &bolt_rt.peers[peer];
    if (p->failed)
        return;
    if (!p->bye)
        bolt_rt.gone++;
    p->failed = error ? error : BOLT_ERR_PEER;
    snprintf(p->why, sizeof p->why, "%s", why ? why : "connection broke");
    if (!p->bye)
        bolt_log(BOLT_LOG_INFO, "peer rank %d on %s failed: %s", peer, p->host, p->why);
    /* Posted receives that name it, or any-source ones that could have
     * matched it (unless it left cleanly), can no longer be trusted to finish. */
    for (struct bolt_request *r = bolt_rt.match.posted_head, *n; r; r = n) {
        n = r->next;
        int hit = r->world_peer == peer ||
                  (r->peer == BOLT_ANY_SOURCE && !p->bye && comm_has(r->comm, peer));
        if (hit) {
            bolt_match_remove_posted(&bolt_rt.match, r);
            r->world_peer = peer;
            r->status.source = bolt_comm_rank_of_world(r->comm, peer);
            bolt_req_complete(r, BOLT_ERR_PEER);
        }
    }
    /* Messages from it that stopped half-way. */
    for (struct bolt_unexp *u = bolt_rt.match.unexp_head, *n; u; u = n) {
        n = u->next;
        if (u->world_src == peer && u->kind == BOLT_UNEXP_EAGER && !u->arrived) {
            if (u->claimed)
                bolt_req_complete(u->claimed, BOLT_ERR_PEER);
            bolt_match_remove_unexp(&bolt_rt.match, u);
            bolt_unexp_free(u);
        }
    }
    bolt_req_foreach(fail_inflight, &peer);
}

/* Every other member of the communicator has finalized or failed. */
int proto_comm_others_gone(const struct bolt_comm *c, int *last)
{
    for (int i = 0; i < c->size; i++) {
        int w = c->world_ranks[i];
        if (w == bolt_rt.rank)
            continue;
        if (!bolt_rt.peers[w].bye && !bolt_rt.peers[w].failed)
            return 0;
        *last = w;
    }
    return 1;
}

/* Can a posted receive still be matched? Only if some member it accepts
 * messages from, other than this rank (blocked in a wait), is still there.
 * *last gets a departed member to blame, or -1 when there is none. */
static int recv_orphaned(const struct bolt_request *req, int *last)
{
    const struct bolt_comm *c = req->comm;
    *last = -1;
    /* With several threads (MPI_THREAD_MULTIPLE) another thread of this rank
     * may still send it: only a departed peer ends such a receive. */
    if (atomic_load_explicit(&bolt_lock_on, memory_order_relaxed))
        return 0;
    if (req->peer != BOLT_ANY_SOURCE) {
        int w = c->world_ranks[req->peer];
        return w == bolt_rt.rank; /* others fail at once when they go */
    }
    if (c->size > 1 && !bolt_rt.gone)
        return 0;
    return proto_comm_others_gone(c, last);
}

int bolt_proto_orphaned(struct bolt_request *req)
{
    int last;
    if (req->done || req->kind != BOLT_REQ_RECV || !recv_orphaned(req, &last))
        return 0;
    for (struct bolt_request *r = bolt_rt.match.posted_head; r; r = r->next)
        if (r == req)
            return 1;
    return 0; /* matched already: its data is on the way */
}

void bolt_proto_fail_orphan(struct bolt_request *req)
{
    int last;
    recv_orphaned(req, &last);
    bolt_match_remove_posted(&bolt_rt.match, req);
    req->world_peer = last;
    if (last >= 0)
        req->status.source = bolt_comm_rank_of_world(req->comm, last);
    bolt_req_complete(req, last >= 0 ? BOLT_ERR_PEER : BOLT_ERR_DEADLOCK);
}

static int all_byes(void *arg)
{
    (void)arg;
    for (int i = 0; i < bolt_rt.size; i++)
        if (i != bolt_rt.rank && !bolt_rt.peers[i].bye && !bolt_rt.peers[i].failed)
            return 0;
    return 1;
}

int bolt_proto_goodbye(void)
{
    for (int i = 0; i < bolt_rt.size; i++)
        if (i != bolt_rt.rank && !bolt_rt.peers[i].failed)
            proto_send_control(i, BOLT_FRAME_BYE, 0, 0, 0);
    /* No time limit: a live peer may still be computing (finalize is
     * collective), and a dead one breaks its connection, which ends the wait. */
    return bolt_progress_until(all_byes, NULL, 0);
}
