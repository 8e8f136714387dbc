/*
 * tcp_ctx.c — the TCP transport's ops (transport/transport.h): settings,
 * init/connect/finalize, send with striping of DATA frames, progress through
 * the event-loop seam, and peer failure. Armed connections (path failover)
 * add work to progress only while one is broken or a RESUME is being
 * answered (ctx->fo_watch), and to finalize a GOODBYE before the half-close.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/crypto.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/tcp/tcp.h"

#define TCP_EVENTS_BATCH 64

void tcp_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
{
    struct tcp_peer *p = &ctx->peers[peer];
    if (p->failed)
        return;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (ctx->in_send && !ctx->finalizing) {
        if (!p->fail_deferred) {
            p->fail_deferred = 1;
            snprintf(p->fail_why, sizeof p->fail_why, "%s", why);
            ctx->deferred_fails++;
        }
        return;
    }
    p->failed = 1;
    /* Close every link first and take their queues, so that completions
     * (which may call send again) see a failed peer and nothing half-open. */
    struct bolt_tl_send *head = NULL, **tail = &head;
    for (int i = 0; i < p->nconns; i++) {
        struct tcp_conn *c = &p->conns[i];
        *tail = tcp_fo_cancel(c); /* sends held for resending */
        while (*tail)
            tail = &(*tail)->tl_next;
        struct bolt_tl_send *q = tcp_conn_take_queue(c);
        *tail = q;
        while (*tail)
            tail = &(*tail)->tl_next;
        tcp_conn_close(c);
    }
    if (!ctx->finalizing) {
        bolt_log(BOLT_LOG_INFO, "tcp: rank %d: %s", peer, why);
        ctx->up->peer_failed(ctx->up->rt, peer, BOLT_ERR_PEER, why);
    }
    bolt_tl_complete_list(head, BOLT_ERR_PEER);
}

void tcp_peer_check_closed(struct bolt_tl_ctx *ctx, int peer)
{
    struct tcp_peer *p = &ctx->peers[peer];
    if (p->failed || ctx->finalizing)
        return; /* finalize closes everything itself */
    for (int i = 0; i < p->nconns; i++) {
        const struct tcp_conn *c = &p->conns[i];
        if (!c->dead && (!c->rd_eof || c->sq_head))
            return;
    }
    tcp_peer_fail(ctx, peer, "closed the connection");
}

/* ---- ops ---- */

static int tcp_init(struct bolt_tl_ctx **out, const struct bolt_tl_init_args *args)
{
    *out = NULL;
    if (!args || !args->up || args->size < 1 || args->rank < 0 || args->rank >= args->size)
        return bolt_err_set(BOLT_ERR_ARG, "tcp: init with a bad rank/size");
    struct bolt_tl_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory");
    ctx->rank = args->rank;
    ctx->size = args->size;
    ctx->up = args->up;
    ctx->lfd = -1;
    int rc;

    long long conns = bolt_param_int(BOLT_P_TCP_CONNS);
    if (conns < 1 || conns > 64) {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "BOLT_TCP_CONNS=%lld: must be between 1 and 64", conns);
        goto fail;
    }
    ctx->nconns = (int)conns;
    long long direct = bolt_param_int(BOLT_P_TCP_DIRECT_PEERS);
    if (direct < 0 || direct > TCP_DIRECT_MAX) {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "BOLT_TCP_DIRECT_PEERS=%lld: must be between 0 and %d", direct,
                          TCP_DIRECT_MAX);
        goto fail;
    }
    ctx->direct_max = (int)direct;
    long long v = bolt_param_int(BOLT_P_TCP_EAGER_LIMIT);
    ctx->eager_limit = v > 0 ? (size_t)v : 0;
    v = bolt_param_int(BOLT_P_TCP_STRIPE_MIN);
    ctx->stripe_min = v > 0 ? (size_t)v : 0;
    v = bolt_param_int(BOLT_P_TCP_BUF);
    ctx->bufsz = v > 0 ? (size_t)v : 0;
    ctx->timeout = bolt_param_double(BOLT_P_TIMEOUT);
    if (!(ctx->timeout > 0))
        ctx->timeout = 60;
    const char *fo = bolt_param_string(BOLT_P_TCP_FAILOVER);
    if (!fo || !*fo || strcmp(fo, "auto") == 0) {
        ctx->failover = -1;
    } else if (strcmp(fo, "0") == 0 || strcmp(fo, "1") == 0) {
        ctx->failover = fo[0] - '0';
    } else {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "BOLT_TCP_FAILOVER=%s: use auto, 0 or 1", fo);
        goto fail;
    }

    const char *secret = getenv("BOLT_JOB_SECRET");
    if (secret && *secret) {
        if (strlen(secret) != 2 * BOLT_SECRET_BYTES ||
            bolt_hex_decode(secret, ctx->secret, BOLT_SECRET_BYTES) != 0) {
            rc = bolt_err_set(BOLT_ERR_CONFIG,
                              "BOLT_JOB_SECRET must be %d hex characters (boltrun sets it)",
                              2 * BOLT_SECRET_BYTES);
            goto fail;
        }
        ctx->have_secret = 1;
    } else if (ctx->size > 1) {
        rc = bolt_err_set(BOLT_ERR_AUTH,
                          "tcp: BOLT_JOB_SECRET is not set, so connections between the %d ranks "
                          "cannot be authenticated; start the job with boltrun",
                          ctx->size);
        goto fail;
    }

    rc = tcp_evloop_choose(bolt_param_string(BOLT_P_TCP_EVLOOP), &ctx->evops);
    if (rc != BOLT_OK)
        goto fail;
    rc = tcp_congestion_choose(ctx);
    if (rc != BOLT_OK)
        goto fail;
    rc = ctx->evops->create(&ctx->ev);
    if (rc != BOLT_OK)
        goto fail;
    ctx->peers = calloc((size_t)ctx->size, sizeof *ctx->peers);
    ctx->stage = malloc(TCP_STAGE_BYTES);
    if (!ctx->peers || !ctx->stage) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory");
        goto fail;
    }
    if (ctx->size > 1) {
        rc = tcp_wireup_listen(ctx);
        if (rc != BOLT_OK)
            goto fail;
        rc = tcp_wireup_publish(ctx);
        if (rc != BOLT_OK)
            goto fail;
    }
    bolt_log(BOLT_LOG_DEBUG, "tcp: %s event loop, %d connection(s) per peer, port %u",
             ctx->evops->name, ctx->nconns, (unsigned)ctx->port);
    *out = ctx;
    return BOLT_OK;
fail:
    if (ctx->lfd >= 0)
        close(ctx->lfd);
    if (ctx->ev)
        ctx->evops->destroy(ctx->ev);
    free(ctx->peers);
    free(ctx->stage);
    free(ctx);
    return rc;
}

static int tcp_reachable(struct bolt_tl_ctx *ctx, int peer)
{
    return ctx && peer >= 0 && peer < ctx->size;
}

static int tcp_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers)
{
    if (!ctx || npeers < 0 || (npeers > 0 && !peers))
        return bolt_err_set(BOLT_ERR_ARG, "tcp: connect with a bad peer list");
    return tcp_wireup_connect(ctx, peers, npeers);
}

static struct tcp_conn *pick_conn(struct tcp_peer *p, const struct bolt_tl_send *s)
{
    if (p->nconns == 1 || s->hdr.type != BOLT_FRAME_DATA)
        return &p->conns[0];
    /* DATA: least queued bytes, ties broken round-robin. */
    unsigned start = p->rr++;
    struct tcp_conn *best = NULL;
    for (int k = 0; k < p->nconns; k++) {
        struct tcp_conn *c = &p->conns[(start + (unsigned)k) % (unsigned)p->nconns];
        if (c->dead || (c->fo && c->fo->state != TCP_FO_UP))
            continue; /* a broken one resuming keeps its queue, takes no more */
        if (!best || c->sq_bytes < best->sq_bytes)
            best = c;
    }
    return best ? best : &p->conns[0];
}

static int tcp_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    if (!ctx || !s || peer < 0 || peer >= ctx->size)
        return bolt_err_set(BOLT_ERR_ARG, "tcp: send to rank %d: no such rank", peer);
    if (s->hdr.len > 0 && !s->payload)
        return bolt_err_set(BOLT_ERR_ARG, "tcp: send of %llu bytes without a payload",
                            (unsigned long long)s->hdr.len);
    struct tcp_peer *p = &ctx->peers[peer];
    s->tl_done = 0;
    s->tl_next = NULL;
    if (p->failed) {
        /* The runtime learnt of the failure through peer_failed; the frame
         * is accepted and completes at once with the same error. */
        s->complete(s, BOLT_ERR_PEER);
        return BOLT_OK;
    }
    if (!p->wired)
        return bolt_err_set(BOLT_ERR_ARG, "tcp: send to rank %d, which is not connected", peer);
    ctx->in_send++;
    tcp_conn_enqueue(pick_conn(p, s), s);
    ctx->in_send--;
    return BOLT_OK;
}

/* send_now: a small eager frame, copied (the caller's buffer is free at
 * once) and handed to an idle connection, which writes it at once as send()
 * would (failover's retained copy included). Only when nothing is queued
 * there: if the socket is full, the copy waits alone, and the next send_now
 * finds the queue busy and leaves the caller its request (a sender running
 * ahead is held back by the socket, not by memory). Saves a small blocking
 * send its request, and a broadcast's root its schedule: 2-rank MPI_Bcast
 * of 4 B over TCP was 1.03-1.05x Open MPI's and MPICH's, all of it there. */
#define TCP_SEND_NOW_MAX 4096

struct tcp_copy {
    struct bolt_tl_send s;
    _Alignas(16) unsigned char data[];
};

static void copy_done(struct bolt_tl_send *s, int error)
{
    (void)error; /* a failed peer is reported by its peer_failed upcall */
    free(s);
}

static int tcp_send_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *h,
                        const void *payload)
{
    if (!ctx || peer < 0 || peer >= ctx->size || h->len > TCP_SEND_NOW_MAX ||
        h->len > ctx->eager_limit || (h->len > 0 && !payload) || ctx->in_send)
        return 0;
    struct tcp_peer *p = &ctx->peers[peer];
    if (p->failed || !p->wired)
        return 0;
    struct tcp_conn *c = &p->conns[0]; /* every frame but DATA goes there (pick_conn) */
    if (c->dead || c->sq_head || c->flushing || (c->fo && c->fo->state != TCP_FO_UP))
        return 0;
    struct tcp_copy *k = malloc(sizeof *k + (size_t)h->len);
    if (!k)
        return 0;
    memset(&k->s, 0, sizeof k->s);
    k->s.hdr = *h;
    if (h->len)
        memcpy(k->data, payload, (size_t)h->len);
    k->s.payload = k->data;
    k->s.complete = copy_done;
    ctx->in_send++;
    tcp_conn_enqueue(c, &k->s);
    ctx->in_send--;
    return 1;
}

/* Reports the failures noted inside send(). */
static void report_deferred(struct bolt_tl_ctx *ctx)
{
    ctx->deferred_fails = 0;
    for (int r = 0; r < ctx->size; r++) {
        struct tcp_peer *p = &ctx->peers[r];
        if (p->fail_deferred) {
            p->fail_deferred = 0;
            tcp_peer_fail(ctx, r, "%s", p->fail_why);
        }
    }
}

static int tcp_progress(struct bolt_tl_ctx *ctx)
{
    if (!ctx || !ctx->ev)
        return 0;
    if (ctx->deferred_fails)
        report_deferred(ctx);
    if (ctx->fo_watch)
        tcp_fo_service(ctx);
    int frames = 0;
    if (ctx->ndirect) {
        frames = tcp_direct_read(ctx);
        if (++ctx->polls % TCP_DIRECT_EVERY)
            return frames;
    }
    struct tcp_event evs[TCP_EVENTS_BATCH];
    int n = ctx->evops->wait(ctx->ev, evs, TCP_EVENTS_BATCH, 0);
    /* which peers to read directly: every pass while some are (a pass
     * every TCP_DIRECT_EVERY-th call), else every TCP_DIRECT_EVERY-th pass
     * (a walk over every peer) */
    if (ctx->direct_max > 0 && (ctx->ndirect || ctx->passes % TCP_DIRECT_EVERY == 0))
        tcp_direct_refresh(ctx);
    ctx->passes++;
    if (n <= 0)
        return frames;
    for (int i = 0; i < n; i++) {
        if (*(int *)evs[i].data != TCP_SRC_CONN) {
            tcp_fo_event(ctx, evs[i].data, evs[i].events); /* listener, resume handshakes */
            continue;
        }
        struct tcp_conn *c = evs[i].data;
        if (c->dead)
            continue;
        if (c->rd_eof) {
            /* Only writes are left; a hang-up with nothing to write means
             * the peer is gone (a write would fail on its own). */
            if ((evs[i].events & TCP_EV_ERR) && !c->sq_head)
                tcp_peer_fail(ctx, c->peer, "closed the connection");
        } else if (evs[i].events & (TCP_EV_IN | TCP_EV_ERR)) {
            frames += tcp_direct_conn_read(c);
        }
        if (!c->dead && (evs[i].events & (TCP_EV_OUT | TCP_EV_ERR)) && (c->sq_head || c->fo))
            frames += tcp_conn_flush(c);
    }
    if (ctx->fo_watch)
        tcp_fo_service(ctx); /* breaks noted above are handled at once */
    return frames;
}

static int tcp_pollfds(struct bolt_tl_ctx *ctx, struct pollfd *fds, int max)
{
    if (!ctx || !ctx->ev || max <= 0)
        return 0;
    return ctx->evops->pollfds(ctx->ev, fds, max);
}

static size_t tcp_eager_limit(struct bolt_tl_ctx *ctx, int peer)
{
    (void)peer;
    return ctx ? ctx->eager_limit : 0;
}

static int tcp_data_stripes(struct bolt_tl_ctx *ctx, int peer, size_t bytes)
{
    if (!ctx || peer < 0 || peer >= ctx->size)
        return 1;
    int n = ctx->peers[peer].nconns;
    if (n > 1 && bytes >= ctx->stripe_min)
        return n;
    return 1;
}

/* sends_only: sends not complete yet (queued, or held until the peer
 * confirms them); else also what an armed connection wrote and the peer has
 * not confirmed, or a connection still resuming. */
static int any_queued(struct bolt_tl_ctx *ctx, int sends_only)
{
    for (int r = 0; r < ctx->size; r++)
        for (int i = 0; i < ctx->peers[r].nconns; i++) {
            struct tcp_conn *c = &ctx->peers[r].conns[i];
            if (c->dead)
                continue;
            if (c->sq_head || (c->fo && c->fo->state != TCP_FO_DEAD && c->fo->rt.nrefs))
                return 1;
            if (!sends_only && c->fo && tcp_stream_unsettled(c))
                return 1;
        }
    return 0;
}

/* A connection whose peer has not yet said EOF. */
/* Connections of wired peers still waiting for the peer's EOF. (After a
 * failed wire-up nobody is wired: there is nothing to drain, and waiting
 * would only delay the error by BOLT_TIMEOUT.) */
static int any_open(struct bolt_tl_ctx *ctx)
{
    for (int r = 0; r < ctx->size; r++)
        for (int i = 0; ctx->peers[r].wired && i < ctx->peers[r].nconns; i++)
            if (!ctx->peers[r].conns[i].dead && !ctx->peers[r].conns[i].rd_eof)
                return 1;
    return 0;
}

/* Sleeps until a socket is ready or 10 ms pass. */
static void idle_wait(struct bolt_tl_ctx *ctx, double deadline)
{
    struct pollfd fds[256];
    int n = tcp_pollfds(ctx, fds, 256);
    double left = deadline - bolt_tl_now();
    int ms = left > 0.01 ? 10 : (left > 0 ? (int)(left * 1000) + 1 : 0);
    if (n > 0)
        poll(fds, (nfds_t)n, ms);
}

static void tcp_finalize(struct bolt_tl_ctx *ctx)
{
    if (!ctx)
        return;
    ctx->finalizing = 1;
    double deadline = bolt_tl_now() + ctx->timeout;
    /* 1. Flush what is queued (reading too, so two flushing peers cannot
     *    stall each other). */
    while (any_queued(ctx, 0) && bolt_tl_now() < deadline) {
        tcp_progress(ctx);
        if (any_queued(ctx, 0))
            idle_wait(ctx, deadline);
    }
    /* (A peer busy elsewhere may leave what it was sent unconfirmed: no
     * send fails for that.) */
    if (any_queued(ctx, 1))
        bolt_log(BOLT_LOG_WARN, "tcp: finalize: sends still queued after %g s (BOLT_TIMEOUT); "
                                "they fail with BOLT_ERR_PEER", ctx->timeout);
    /* 2. Half-close and wait for each peer's EOF, so that closing with unread
     *    bytes cannot turn into a reset that destroys our last frames. An
     *    armed connection says GOODBYE first (its EOF is then no break);
     *    from here on nothing resumes, and one still broken is closed. */
    struct bolt_tl_send *left = NULL, **tail = &left;
    ctx->halfclosed = 1;
    tcp_fo_unlisten(ctx);
    for (int r = 0; r < ctx->size; r++)
        for (int i = 0; i < ctx->peers[r].nconns; i++) {
            struct tcp_conn *c = &ctx->peers[r].conns[i];
            *tail = tcp_conn_take_queue(c);
            while (*tail)
                tail = &(*tail)->tl_next;
            if (c->fo && !c->dead && c->fo->state != TCP_FO_UP) {
                *tail = tcp_fo_cancel(c);
                while (*tail)
                    tail = &(*tail)->tl_next;
                tcp_conn_close(c);
            } else if (c->fo && !c->dead) {
                c->fo->bye_want = 1;
                tcp_conn_flush(c);
            } else if (!c->dead) {
                shutdown(c->fd, SHUT_WR);
            }
        }
    while (any_open(ctx) && bolt_tl_now() < deadline) {
        tcp_progress(ctx);
        if (any_open(ctx))
            idle_wait(ctx, deadline);
    }
    /* 3. Close everything. */
    for (int r = 0; r < ctx->size; r++) {
        for (int i = 0; i < ctx->peers[r].nconns; i++) {
            struct tcp_conn *c = &ctx->peers[r].conns[i];
            *tail = tcp_conn_take_queue(c);
            while (*tail)
                tail = &(*tail)->tl_next;
            tcp_conn_close(c);
            tcp_fo_free(c, &tail);
        }
    }
    bolt_tl_complete_list(left, BOLT_ERR_PEER);
    for (int r = 0; r < ctx->size; r++) {
        free(ctx->peers[r].conns);
        free(ctx->peers[r].cand);
    }
    free(ctx->answers);
    if (ctx->lfd >= 0)
        close(ctx->lfd);
    if (ctx->ev)
        ctx->evops->destroy(ctx->ev);
    free(ctx->peers);
    free(ctx->stage);
    memset(ctx->secret, 0, sizeof ctx->secret);
    free(ctx);
}

const struct bolt_transport bolt_transport_tcp = {
    .name = "tcp",
    .init = tcp_init,
    .reachable = tcp_reachable,
    .connect = tcp_connect,
    .send = tcp_send,
    .send_now = tcp_send_now,
    .progress = tcp_progress,
    .pollfds = tcp_pollfds,
    .eager_limit = tcp_eager_limit,
    .data_stripes = tcp_data_stripes,
    .finalize = tcp_finalize,
};
