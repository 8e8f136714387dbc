/*
 * tcp_direct.c — reading a few busy connections without the event loop.
 *
 * A small message received over TCP costs an epoll_wait (or poll) that says
 * the socket is readable, then the readv. With one or two peers sending, a
 * readv of each of their connections finds the message at once, and finds
 * nothing for what the event loop's wait costs: one system call of the three
 * a small message takes one way (write, wait, read) is saved (2 ranks over
 * loopback here: 8.4 -> 6.5 us one way). The event loop still runs every
 * TCP_DIRECT_EVERY-th progress call, for everything else: the listener,
 * writes waiting for room, hang-ups of connections with nothing to read,
 * the first bytes on a peer's other connections (striped data) and peers
 * not read directly.
 *
 * Which peers: those whose first connection (every ordered frame) delivered
 * a frame within the last TCP_DIRECT_QUIET event-loop passes, when they are
 * at most BOLT_TCP_DIRECT_PEERS; with more, each would cost a system call a
 * poll and the event loop's single wait is cheaper. A connection kept as a
 * standby for another transport carries nothing and so is never read here.
 */
#include "tcp.h"

int tcp_direct_conn_read(struct tcp_conn *c)
{
    int frames = tcp_conn_read(c);
    if (frames > 0)
        c->heard = c->ctx->passes + 1; /* 0: never */
    return frames;
}

void tcp_direct_refresh(struct bolt_tl_ctx *ctx)
{
    int n = 0;
    ctx->ndirect = 0;
    for (int r = 0; r < ctx->size && ctx->direct_max > 0; r++) {
        const struct tcp_peer *p = &ctx->peers[r];
        if (!p->wired || p->failed || p->nconns < 1)
            continue;
        const struct tcp_conn *c = &p->conns[0];
        if (c->dead || c->rd_eof || !c->heard || ctx->passes + 1 - c->heard > TCP_DIRECT_QUIET)
            continue;
        if (n == ctx->direct_max)
            return; /* too many: the event loop's one wait for all */
        ctx->direct[n++] = r;
    }
    ctx->ndirect = n;
}

int tcp_direct_read(struct bolt_tl_ctx *ctx)
{
    int frames = 0;
    for (int i = 0; i < ctx->ndirect; i++) {
        struct tcp_peer *p = &ctx->peers[ctx->direct[i]];
        /* the first connection always; another while a frame is under way
         * on it (the event loop saw its first bytes) */
        for (int k = 0; k < p->nconns && !p->failed; k++) {
            struct tcp_conn *c = &p->conns[k];
            if (c->dead || c->rd_eof || (k > 0 && !c->in_payload && !c->hgot))
                continue;
            frames += tcp_direct_conn_read(c);
        }
    }
    ctx->direct_frames += (unsigned long)frames;
    return frames;
}
