/* rma_target.c — the target side of the message path: a receive posted on
 * each window's communicator takes the origins' headers; the progress hook
 * applies them (whoever drives progress: the program in any call, or the
 * agent thread) and answers gets, fetches, locks and flushes.
 *
 * An operation whose data comes as a second message keeps its origin busy:
 * that origin's later headers wait in order behind it, so accumulates from
 * one origin apply in the order issued, and a flush or unlock is answered
 * only once everything before it is applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/rma.h"
#include "runtime/progress.h"
#include "runtime/request.h"

static int served;  /* windows with a posted header receive */
static void drain(struct face_win *w);
static void owed_flush(struct face_win *w, int src);
static int in_hook; /* no re-entry from a send's own progress */

struct deferred {
    struct face_win *w;
    int src;
    size_t len;
    struct deferred *next;
    char buf[];
};
static struct deferred *dq_head, *dq_tail; /* per process: few windows wait at once */

int rma_lock_try(struct rma_ctrl *c, int type)
{
    long v = atomic_load_explicit(&c->lock, memory_order_relaxed);
    if (type == MPI_LOCK_EXCLUSIVE)
        return v == 0 && atomic_compare_exchange_strong_explicit(&c->lock, &v, -1,
                                                                 memory_order_acquire,
                                                                 memory_order_relaxed);
    while (v >= 0)
        if (atomic_compare_exchange_weak_explicit(&c->lock, &v, v + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}

void rma_lock_release(struct rma_ctrl *c, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        atomic_store_explicit(&c->lock, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&c->lock, 1, memory_order_release);
}

static int inflight_add(struct face_win *w, bolt_request_t req, int origin, int counts, void *buf,
                        const struct rma_hdr *h)
{
    struct rma_inflight *x = calloc(1, sizeof *x);
    if (!x)
        return -1;
    x->req = req;
    x->origin = origin;
    x->counts = counts;
    x->buf = buf;
    if (h) {
        x->hdr = *h;
        x->apply = 1;
    }
    x->next = w->inflight;
    w->inflight = x;
    return 0;
}

static void reply(struct face_win *w, int to, uint32_t tag, void *buf, size_t len, int owned)
{
    bolt_request_t r = BOLT_REQUEST_NULL;
    int rc = bolt_isend(buf, len, to, (int)tag, w->native, &r);
    if (rc != BOLT_OK) {
        fprintf(stderr, "bolt: window %d: cannot answer rank %d: %s\n", w->handle, to,
                bolt_error_message());
        if (owned)
            free(buf);
        return;
    }
    if (r->done) {
        bolt_wait(&r, NULL);
        if (owned)
            free(buf);
    } else if (inflight_add(w, r, to, 0, owned ? buf : NULL, NULL)) {
        bolt_request_free(&r); /* completes on its own; the buffer stays */
    }
}

/* Where the operation lands: NULL (and a message) when outside the window. */
static char *target_at(struct face_win *w, const struct rma_hdr *h, const struct rma_layout *l,
                       int src)
{
    int64_t lo, hi = rma_layout_span(l, &lo);
    if (hi == 0 && lo == 0)
        return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (char *)(intptr_t)h->disp
                                                   : (char *)w->base + h->disp;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        char *at = (char *)(intptr_t)h->disp;
        if (rma_region_of(w, h->disp + (uint64_t)lo, h->disp + (uint64_t)hi))
            return at;
        face_win_error(w, "one-sided operation (at its target)", MPI_ERR_RMA_RANGE,
                       "rank %d accessed %p..%p, which is not memory attached to the dynamic "
                       "window on rank %d",
                       src, (void *)(at + lo), (void *)(at + hi), w->rank);
        return NULL;
    }
    if ((int64_t)h->disp + lo < 0 || (int64_t)h->disp + hi > (int64_t)w->size_bytes) {
        face_win_error(w, "one-sided operation (at its target)", MPI_ERR_RMA_RANGE,
                       "rank %d accessed bytes %lld..%lld of a window of %ld bytes on rank %d",
                       src, (long long)((int64_t)h->disp + lo), (long long)((int64_t)h->disp + hi),
                       (long)w->size_bytes, w->rank);
        return NULL;
    }
    return (char *)w->base + h->disp;
}

static void owed_flush(struct face_win *w, int src)
{
    struct win_peer *p = &w->peers[src];
    if (p->busy || !p->owed_tag)
        return;
    uint32_t tag = p->owed_tag;
    p->owed_tag = 0;
    if (p->owed_unlock) {
        rma_lock_release(w->ctrl, p->owed_unlock);
        p->owed_unlock = 0;
    }
    reply(w, src, tag, NULL, 0, 0);
    rma_target_grant(w);
}

/* Runs an operation whose layout is known: data is what it carries, packed. */
static void run_op(struct face_win *w, int src, const struct rma_hdr *h,
                   const struct rma_layout *l, const char *data)
{
    int rc = MPI_SUCCESS;
    char *old = NULL;
    size_t bytes = (size_t)h->bytes;
    char *at = target_at(w, h, l, src);
    if (!at) {
        if (h->reply_tag) /* the origin waits for something: zeros */
            reply(w, src, h->reply_tag, calloc(1, bytes ? bytes : 1), bytes, 1);
        return;
    }
    switch (h->kind) {
    case RMA_GET:
        if (l->count == 1 && l->nblocks == 1) {
            reply(w, src, h->reply_tag, at + l->blocks[0].off, (size_t)l->blocks[0].len, 0);
        } else {
            char *buf = malloc(bytes ? bytes : 1);
            if (buf)
                rma_layout_pack(l, at, buf);
            reply(w, src, h->reply_tag, buf, buf ? bytes : 0, 1);
        }
        return;
    case RMA_PUT:
        rma_layout_unpack(l, data, at);
        break;
    case RMA_ACC:
        rma_acc_lock(w->ctrl);
        rc = rma_layout_acc(l, at, data, h->basic, h->op, NULL);
        rma_acc_unlock(w->ctrl);
        break;
    case RMA_GACC:
        old = malloc(bytes ? bytes : 1);
        if (!old) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rma_acc_lock(w->ctrl);
        rc = rma_layout_acc(l, at, data, h->basic, h->op, old);
        rma_acc_unlock(w->ctrl);
        break;
    case RMA_CAS:
        old = malloc(bytes ? bytes : 1);
        if (!old) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rma_acc_lock(w->ctrl);
        rma_cas(at, data, data + bytes, old, bytes);
        rma_acc_unlock(w->ctrl);
        break;
    default:
        break;
    }
    if (rc != MPI_SUCCESS)
        face_win_error(w, "MPI_Accumulate (at its target)", rc,
                       "rank %d's accumulate with op %d on type %d cannot be applied", src, h->op,
                       h->basic);
    if (h->reply_tag)
        reply(w, src, h->reply_tag, old, old ? bytes : 0, old != NULL);
}

/* Handles one header message from src; returns 1 when src became busy. */
static int handle(struct face_win *w, int src, char *msg, size_t len)
{
    struct rma_hdr h;
    if (len < sizeof h || src < 0 || src >= w->size) {
        fprintf(stderr, "bolt: window %d: a malformed one-sided message (%zu bytes) from rank %d\n",
                w->handle, len, src);
        return 0;
    }
    memcpy(&h, msg, sizeof h);
    struct win_peer *p = &w->peers[src];
    switch (h.kind) {
    case RMA_LOCK:
        /* The origin does not wait for the grant: until it is granted, its
         * later messages wait here (the origin is busy). */
        if (rma_lock_try(w->ctrl, h.lock_type)) {
            if (h.reply_tag)
                reply(w, src, h.reply_tag, NULL, 0, 0);
        } else {
            struct rma_lockreq *q = malloc(sizeof *q), **e = &w->lockq;
            if (!q)
                return 0;
            *q = (struct rma_lockreq){src, h.lock_type, h.reply_tag, NULL};
            while (*e)
                e = &(*e)->next;
            *e = q;
            p->busy++;
            return 1;
        }
        return 0;
    case RMA_UNLOCK:
    case RMA_FLUSH:
        p->owed_tag = h.reply_tag;
        p->owed_unlock = h.kind == RMA_UNLOCK ? h.lock_type : 0;
        owed_flush(w, src);
        return 0;
    default:
        break;
    }
    size_t lb = h.nblocks > 0 ? (size_t)h.nblocks * sizeof(struct rma_block) : 0;
    if (h.kind < RMA_PUT || h.kind > RMA_CAS || h.nblocks < 1 || h.nblocks > (1 << 26) ||
        h.count < 0 || h.bytes > ((uint64_t)1 << 46) || h.rest_follows > 2 ||
        (h.rest_follows < 2 && len < sizeof h + lb)) {
        fprintf(stderr, "bolt: window %d: a malformed one-sided message (kind %d) from rank %d\n",
                w->handle, h.kind, src);
        return 0;
    }
    size_t need = h.kind == RMA_GET ? 0 : h.kind == RMA_CAS ? 2 * (size_t)h.bytes : (size_t)h.bytes;
    if (h.kind == RMA_GACC && h.op == MPI_NO_OP)
        need = 0;
    if (!h.rest_follows) {
        struct rma_layout l = {h.count, h.extent, h.nblocks, (struct rma_block *)(msg + sizeof h)};
        if (len - sizeof h - lb < need) {
            fprintf(stderr, "bolt: window %d: rank %d's operation carries %zu of %zu bytes\n",
                    w->handle, src, len - sizeof h - lb, need);
            return 0;
        }
        p->applied++;
        run_op(w, src, &h, &l, msg + sizeof h + lb);
        return 0;
    }
    /* The rest comes next, alone: straight into the window for a contiguous
     * put, else into a buffer [blocks][data] run once it is all here. */
    bolt_request_t r = BOLT_REQUEST_NULL;
    struct rma_layout l = {h.count, h.extent, h.nblocks, (struct rma_block *)(msg + sizeof h)};
    char *at = NULL;
    if (h.rest_follows == 1 && h.kind == RMA_PUT && h.count == 1 && h.nblocks == 1 &&
        (at = target_at(w, &h, &l, src)) != NULL) {
        if (bolt_irecv(at + l.blocks[0].off, need, src, RMA_TAG_DATA, w->native, &r) != BOLT_OK ||
            inflight_add(w, r, src, 1, NULL, NULL)) {
            fprintf(stderr, "bolt: window %d: cannot receive rank %d's put: %s\n", w->handle, src,
                    bolt_error_message());
            return 0;
        }
    } else {
        char *buf = malloc(lb + need ? lb + need : 1);
        if (!buf)
            return 0;
        char *into = buf;
        size_t want = lb + need;
        if (h.rest_follows == 1) {
            memcpy(buf, msg + sizeof h, lb);
            into += lb;
            want = need;
        }
        if (bolt_irecv(into, want, src, RMA_TAG_DATA, w->native, &r) != BOLT_OK ||
            inflight_add(w, r, src, 1, buf, &h)) {
            free(buf);
            return 0;
        }
    }
    p->busy++;
    return 1;
}

/* A receive of the target side failed: its origin, or for the header
 * receive any origin, is gone. The header receive is not posted again (it
 * would fail at once, for ever, while the peer stays gone). The error goes to
 * the window's handler (by default it ends the job with the cause), a dead
 * peer's only after a grace: the launcher ends the job when a rank dies, and
 * its report of which rank died and how is the one to read; a job that goes
 * on without the peer learns it here, not by a target gone silent. */
enum { SERVE_PEER_GRACE_S = 3 };
static void serve_raise(struct face_win *w)
{
    w->serve_lost = 2;
    face_win_error(w, "MPI one-sided progress (the window's target side)",
                   face_class_of_native(w->serve_err), "%s",
                   w->serve_msg ? w->serve_msg : bolt_strerror(w->serve_err));
}

static void serve_failed(struct face_win *w, int native)
{
    if (w->serve_lost)
        return;
    w->serve_lost = 1;
    w->serve_err = native;
    w->serve_lost_at = bolt_wtime();
    w->serve_msg = strdup(bolt_error_message());
    if (native != BOLT_ERR_PEER)
        serve_raise(w);
}

static void inflight_done(struct face_win *w, struct rma_inflight *x)
{
    int rc = bolt_wait(&x->req, NULL); /* done already: frees it */
    if (rc != BOLT_OK) {
        serve_failed(w, rc);
        x->apply = 0; /* what came is not the origin's data */
    }
    if (x->apply) {
        struct rma_hdr *h = &x->hdr;
        struct rma_layout l = {h->count, h->extent, h->nblocks, (struct rma_block *)x->buf};
        run_op(w, x->origin, h, &l, (char *)x->buf + (size_t)h->nblocks * sizeof(struct rma_block));
    }
    free(x->buf);
    if (x->counts) {
        struct win_peer *p = &w->peers[x->origin];
        p->applied++;
        p->busy--;
    }
}

static int defer(struct face_win *w, int src, const char *msg, size_t len)
{
    struct deferred *d = malloc(sizeof *d + len);
    if (!d)
        return -1;
    d->w = w;
    d->src = src;
    d->len = len;
    d->next = NULL;
    memcpy(d->buf, msg, len);
    if (dq_tail)
        dq_tail->next = d;
    else
        dq_head = d;
    dq_tail = d;
    return 0;
}

static int src_waiting(struct face_win *w, int src)
{
    for (struct deferred *d = dq_head; d; d = d->next)
        if (d->w == w && d->src == src)
            return 1;
    return 0;
}

/* Runs the deferred headers whose origin is free again, in order. */
static void drain(struct face_win *w)
{
    struct deferred **pp = &dq_head, *prev = NULL;
    while (*pp) {
        struct deferred *d = *pp;
        int blocked = d->w != w || w->peers[d->src].busy;
        for (struct deferred *e = dq_head; e != d && !blocked; e = e->next)
            blocked = e->w == w && e->src == d->src; /* an earlier one of its own waits */
        if (blocked) {
            prev = d;
            pp = &d->next;
            continue;
        }
        *pp = d->next;
        if (dq_tail == d)
            dq_tail = prev;
        handle(w, d->src, d->buf, d->len);
        free(d);
        /* handle may have grown the list; restart from the head */
        pp = &dq_head;
        prev = NULL;
    }
}

static int serve(struct face_win *w)
{
    int n = 0;
    for (struct rma_inflight **pp = &w->inflight; *pp;) {
        struct rma_inflight *x = *pp;
        if (!x->req->done) {
            pp = &x->next;
            continue;
        }
        *pp = x->next;
        int origin = x->origin, counts = x->counts;
        inflight_done(w, x);
        free(x);
        n++;
        if (counts) {
            drain(w);
            owed_flush(w, origin);
        }
        pp = &w->inflight; /* the list may have changed */
    }
    while (w->hdr_req && w->hdr_req->done) {
        bolt_status_t st;
        int rc = bolt_wait(&w->hdr_req, &st);
        if (rc != BOLT_OK) {
            serve_failed(w, rc);
            break;
        }
        int src = st.source;
        size_t len = st.bytes;
        if (src >= 0 && src < w->size && (w->peers[src].busy || src_waiting(w, src)))
            defer(w, src, w->hdr_buf, len);
        else
            handle(w, src, w->hdr_buf, len);
        if ((rc = bolt_irecv(w->hdr_buf, RMA_HDR_BUF, BOLT_ANY_SOURCE, RMA_TAG_HDR, w->native,
                             &w->hdr_req)) != BOLT_OK) {
            w->hdr_req = BOLT_REQUEST_NULL;
            serve_failed(w, rc);
        }
        n++;
    }
    if (w->lockq)
        rma_target_grant(w);
    if (w->serve_lost == 1 && bolt_wtime() - w->serve_lost_at >= SERVE_PEER_GRACE_S)
        serve_raise(w);
    return n;
}

void rma_target_grant(struct face_win *w)
{
    struct rma_lockreq **pp = &w->lockq;
    while (*pp) {
        struct rma_lockreq *q = *pp;
        if (!rma_lock_try(w->ctrl, q->type))
            break; /* in order: a waiting exclusive lock is not overtaken */
        *pp = q->next;
        int origin = q->origin;
        if (q->reply_tag)
            reply(w, origin, q->reply_tag, NULL, 0, 0);
        free(q);
        w->peers[origin].busy--;
        drain(w); /* what the origin sent behind its lock request */
        owed_flush(w, origin);
        pp = &w->lockq; /* the queue may have changed meanwhile */
    }
}

static int rma_hook(void)
{
    if (in_hook)
        return 0;
    in_hook = 1;
    int n = 0;
    for (int i = 1; i < face_nwins; i++) {
        struct face_win *w = face_wins[i];
        if (w && w->hdr_buf)
            n += serve(w);
    }
    in_hook = 0;
    return n;
}

int rma_target_start(struct face_win *w)
{
    w->hdr_buf = malloc(RMA_HDR_BUF);
    if (!w->hdr_buf)
        return MPI_ERR_NO_MEM;
    if (bolt_irecv(w->hdr_buf, RMA_HDR_BUF, BOLT_ANY_SOURCE, RMA_TAG_HDR, w->native,
                   &w->hdr_req) != BOLT_OK)
        return MPI_ERR_OTHER;
    if (served++ == 0 && bolt_progress_hook_add(rma_hook) != BOLT_OK) {
        served--;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

void rma_target_stop(struct face_win *w)
{
    if (w->hdr_req) {
        bolt_cancel(&w->hdr_req);
        bolt_wait(&w->hdr_req, NULL);
    }
    while (w->inflight) {
        struct rma_inflight *x = w->inflight;
        w->inflight = x->next;
        bolt_wait(&x->req, NULL);
        free(x->buf);
        free(x);
    }
    for (struct deferred **pp = &dq_head, *prev = NULL; *pp;) {
        struct deferred *d = *pp;
        if (d->w != w) {
            prev = d;
            pp = &d->next;
            continue;
        }
        *pp = d->next;
        if (dq_tail == d)
            dq_tail = prev;
        free(d);
    }
    while (w->lockq) {
        struct rma_lockreq *q = w->lockq;
        w->lockq = q->next;
        free(q);
    }
    free(w->serve_msg);
    w->serve_msg = NULL;
    if (w->hdr_buf) {
        free(w->hdr_buf);
        w->hdr_buf = NULL;
        if (--served == 0)
            bolt_progress_hook_remove(rma_hook);
    }
}
