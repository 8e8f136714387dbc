/*
 * tcp_resume.c — path failover: what happens when an armed connection breaks.
 *
 * A break (an error on the socket, TCP_USER_TIMEOUT or keepalive giving up,
 * an EOF without the peer's GOODBYE) does not fail the peer. It is noted
 * (tcp_fo_broken: safe inside send()) and handled from the next progress():
 * what the socket still holds is read into the receive machine, the socket
 * is closed, and the connection dials the peer again over its addresses on
 * the subnets we share — the one that broke last — each connect() bounded by
 * BOLT_TCP_CONNECT_TIMEOUT. The RESUME handshake (tcp.h) authenticates both
 * ends and swaps what each consumed of the other's stream; each then writes
 * again, from retention, what the other lacks, and carries on with its
 * queue. The peer may dial too (it noticed first, or at the same time): its
 * RESUME reaches our listener (tcp_answer.c), and when both dial, the lower
 * rank's dial wins and the other end waits for it (BUSY). If no resume
 * completes within BOLT_TIMEOUT of the break, or every address refused us
 * (the peer process is gone), the peer fails with a message naming it, its
 * host and the paths tried. Each connection of a peer resumes on its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

enum {
    DIAL_IDLE,
    DIAL_RETRY,      /* the next connect() at retry_at */
    DIAL_CONNECTING, /* connect() in flight */
    DIAL_CHAL,       /* reading the challenge */
    DIAL_HELLO,      /* writing our RESUME */
    DIAL_ACK,        /* reading the answer */
    DIAL_WAIT        /* the peer's own dial wins: wait for it (dial again at retry_at) */
};

/* Pause between two rounds over the peer's addresses. */
#define TCP_DIAL_ROUND_PAUSE 0.2
/* Failure reasons that are not errno values. */
#define TCP_ERR_NOT_PEER (-1)

static double connect_timeout(void)
{
    double t = bolt_param_double(BOLT_P_TCP_CONNECT_TIMEOUT);
    return t > 0 ? t : 2.0;
}

static const char *err_str(int err)
{
    if (err == TCP_ERR_NOT_PEER)
        return "another process answers there";
    if (err == ECONNRESET)
        return "closed during the handshake";
    return strerror(err);
}

void tcp_fo_broken(struct tcp_conn *c, const char *why)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_ctx *ctx = c->ctx;
    if (fo->state == TCP_FO_DRAIN) {
        fo->drained = 1;
        return;
    }
    if (fo->state != TCP_FO_UP)
        return;
    if (fo->lost || fo->peer_bye || fo->bye_sent || ctx->halfclosed) {
        tcp_peer_fail(ctx, c->peer, "%s (connection %d%s)", why, c->index,
                      fo->lost ? "; out of memory to keep its stream, so it cannot resume" : "");
        return;
    }
    fo->state = TCP_FO_BREAKING;
    snprintf(fo->why, sizeof fo->why, "%s", why);
    fo->broke_at = bolt_tl_now();
    ctx->fo_watch = 1;
}

/* ---- dialling ---- */

static void dial_close(struct tcp_conn *c)
{
    struct tcp_dial *d = &c->fo->dial;
    if (d->io.fd >= 0) {
        c->ctx->evops->del(c->ctx->ev, d->io.fd);
        close(d->io.fd);
        d->io.fd = -1;
    }
    d->ev = 0;
}

static void dial_set(struct tcp_conn *c, int state, size_t len)
{
    struct tcp_dial *d = &c->fo->dial;
    d->state = state;
    d->io.off = 0;
    d->io.len = len;
    /* Each step is bounded, not only the connect(): a path that dies in the
     * handshake costs one attempt, not BOLT_TIMEOUT. The answer may need
     * the peer to drain its old socket first: twice as long. */
    d->attempt_end = bolt_tl_now() + connect_timeout() * (state == DIAL_ACK ? 2 : 1);
    int want = state == DIAL_CONNECTING || state == DIAL_HELLO ? TCP_EV_OUT : TCP_EV_IN;
    if (d->io.fd >= 0 && want != d->ev && c->ctx->evops->mod(c->ctx->ev, d->io.fd, want, d) == BOLT_OK)
        d->ev = want;
}

/* Names the paths tried and how each failed, for the failure message. */
static void tried_list(const struct tcp_fo *fo, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < fo->norder && n < cap; i++) {
        char a[INET_ADDRSTRLEN];
        int w = snprintf(buf + n, cap - n, "%s%s (%s)", n ? ", " : "",
                         tcp_addr_name(&fo->order[i], a, sizeof a),
                         fo->tried_err[i] ? err_str(fo->tried_err[i]) : "not tried");
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (!fo->norder)
        snprintf(buf, cap, "none (it has no other address we share a subnet with)");
}

static void give_up(struct tcp_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void give_up(struct tcp_conn *c, const char *fmt, ...)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_ctx *ctx = c->ctx;
    char what[160], tried[400], a[INET_ADDRSTRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tried_list(fo, tried, sizeof tried);
    tcp_peer_fail(ctx, c->peer,
                  "link to rank %d on %s via %s broke (%s, connection %d) and could not be "
                  "resumed: %s; paths tried: %s",
                  c->peer, ctx->peers[c->peer].host, tcp_addr_name(&fo->broke_addr, a, sizeof a),
                  fo->why, c->index, what, tried);
}

static void dial_start(struct tcp_conn *c);

/* This address did not work: the next one, or give up. */
static void dial_failed(struct tcp_conn *c, int err)
{
    struct tcp_fo *fo = c->fo;
    struct tcp_dial *d = &fo->dial;
    char a[INET_ADDRSTRLEN];
    int i = fo->norder ? d->tries % fo->norder : 0;
    fo->tried_err[i] = err;
    bolt_log(BOLT_LOG_INFO, "tcp: resuming connection %d to rank %d over %s failed (%s)",
             c->index, c->peer, tcp_addr_name(&d->sa, a, sizeof a), err_str(err));
    dial_close(c);
    /* Nobody listens there (any more), or someone else does: the peer is
     * gone. (A RESUME closed unanswered is not that: the peer may still be
     * in its wire-up with others.) */
    if (err == ECONNREFUSED || err == TCP_ERR_NOT_PEER)
        d->refused++;
    d->tries++;
    d->state = DIAL_RETRY;
    d->retry_at = bolt_tl_now();
    if (d->tries % fo->norder == 0) {
        if (d->refused == fo->norder) {
            give_up(c, "every address refused the connection (is the process still running?)");
            return;
        }
        d->refused = 0;
        d->retry_at += TCP_DIAL_ROUND_PAUSE;
    }
}

static void dial_start(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    struct tcp_dial *d = &fo->dial;
    struct bolt_tl_ctx *ctx = c->ctx;
    if (fo->norder == 0) {
        d->state = DIAL_WAIT; /* nowhere to dial: the peer may still dial us */
        d->retry_at = fo->deadline;
        return;
    }
    d->sa = fo->order[d->tries % fo->norder];
    d->io.fd = socket(AF_INET, SOCK_STREAM, 0);
    if (d->io.fd < 0 || tcp_sock_prepare(ctx, d->io.fd) != 0) {
        int e = errno;
        if (d->io.fd >= 0)
            close(d->io.fd);
        d->io.fd = -1;
        dial_failed(c, e);
        return;
    }
    int state;
    if (connect(d->io.fd, (struct sockaddr *)&d->sa, sizeof d->sa) == 0) {
        state = DIAL_CHAL;
    } else if (errno == EINPROGRESS || errno == EINTR) {
        state = DIAL_CONNECTING;
    } else {
        int e = errno;
        close(d->io.fd);
        d->io.fd = -1;
        dial_failed(c, e);
        return;
    }
    d->ev = state == DIAL_CONNECTING ? TCP_EV_OUT : TCP_EV_IN;
    if (ctx->evops->add(ctx->ev, d->io.fd, d->ev, d) != BOLT_OK) {
        close(d->io.fd);
        d->io.fd = -1;
        dial_failed(c, ENOMEM);
        return;
    }
    dial_set(c, state, state == DIAL_CHAL ? sizeof(struct tcp_hs_challenge) : 0);
}

void tcp_fo_dial_stop(struct tcp_conn *c)
{
    dial_close(c);
    c->fo->dial.state = DIAL_IDLE;
}

void tcp_fo_dial_again(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    if (fo->state != TCP_FO_BROKEN || fo->dial.state != DIAL_IDLE)
        return;
    fo->dial.state = DIAL_RETRY;
    fo->dial.retry_at = bolt_tl_now();
    c->ctx->fo_watch = 1;
}

int tcp_fo_dialling(const struct tcp_conn *c)
{
    int st = c->fo->dial.state;
    return st != DIAL_IDLE && st != DIAL_WAIT;
}

/* The challenge is in: is it the peer? Then our RESUME goes out. */
static int dial_hello(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    struct tcp_dial *d = &fo->dial;
    struct bolt_tl_ctx *ctx = c->ctx;
    struct tcp_hs_challenge ch;
    memcpy(&ch, d->io.buf, sizeof ch);
    if (ch.magic != TCP_HS_MAGIC || ch.order != TCP_HS_ORDER || ch.version != TCP_HS_VERSION ||
        ch.rank != c->peer) {
        dial_failed(c, TCP_ERR_NOT_PEER);
        return -1;
    }
    memcpy(d->nonce, ch.nonce, TCP_NONCE_BYTES);
    struct tcp_hs_resume m;
    memset(&m, 0, sizeof m);
    m.magic = TCP_HS_RESUME_MAGIC;
    m.version = TCP_HS_VERSION;
    m.order = TCP_HS_ORDER;
    m.rank = ctx->rank;
    m.index = c->index;
    m.target = c->peer;
    m.gen = fo->gen;
    m.consumed = tcp_stream_consumed(c);
    if (bolt_random_bytes(d->cnonce, TCP_NONCE_BYTES) != 0) {
        give_up(c, "no random bytes for the handshake");
        return -1;
    }
    memcpy(m.cnonce, d->cnonce, TCP_NONCE_BYTES);
    if (tcp_hs_resume_mac(ctx->secret, d->nonce, &m, m.mac) != 0) {
        give_up(c, "cannot compute the handshake HMAC");
        return -1;
    }
    memcpy(d->io.buf, &m, sizeof m);
    dial_set(c, DIAL_HELLO, sizeof m);
    return 0;
}

/* The peer's answer is in. */
static void dial_answer(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    struct tcp_dial *d = &fo->dial;
    struct bolt_tl_ctx *ctx = c->ctx;
    struct tcp_hs_resume_ack a;
    uint8_t mac[BOLT_HMAC_BYTES];
    memcpy(&a, d->io.buf, sizeof a);
    if (tcp_hs_resume_ack_mac(ctx->secret, d->cnonce, d->nonce, c->peer, ctx->rank, c->index, &a,
                              mac) != 0 ||
        !bolt_secure_equal(mac, a.mac, BOLT_HMAC_BYTES)) {
        give_up(c, "its answer had a wrong HMAC (is BOLT_JOB_SECRET the same for the whole job?)");
        return;
    }
    if (a.status == TCP_RESUME_OK) {
        if (!tcp_stream_valid(c, a.consumed)) {
            give_up(c, "it claims to have consumed %llu bytes, outside what was sent",
                    (unsigned long long)a.consumed);
            return;
        }
        int fd = d->io.fd;
        c->ctx->evops->del(c->ctx->ev, fd);
        d->io.fd = -1;
        d->ev = 0;
        d->state = DIAL_IDLE;
        tcp_fo_resumed(c, fd, a.consumed);
    } else if (a.status == TCP_RESUME_BUSY) {
        dial_close(c);
        d->state = DIAL_WAIT; /* its dial comes; ours again later if it does not */
        d->retry_at = bolt_tl_now() + connect_timeout();
    } else if (a.status == TCP_RESUME_STALE && a.gen > fo->gen) {
        /* It resumed this connection once more than we know of (over a
         * socket that then died before we saw it work): catch up, again. */
        dial_close(c);
        fo->gen = a.gen;
        d->state = DIAL_RETRY;
        d->retry_at = bolt_tl_now();
    } else if (a.status == TCP_RESUME_REFUSED) {
        give_up(c, "it refused (it has failed this rank, or is finalizing)");
    } else {
        give_up(c, "it answered with an unknown status %u", (unsigned)a.status);
    }
}

static void dial_step(struct tcp_conn *c, int events)
{
    struct tcp_dial *d = &c->fo->dial;
    if (d->io.fd < 0 || d->state < DIAL_CONNECTING || d->state > DIAL_ACK)
        return;
    if (d->state == DIAL_CONNECTING) {
        int err = 0;
        socklen_t l = sizeof err;
        if (getsockopt(d->io.fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
            err = errno;
        if (err == EINPROGRESS || err == EALREADY)
            return;
        if (err == 0 && !(events & (TCP_EV_OUT | TCP_EV_ERR)))
            return;
        if (err != 0) {
            dial_failed(c, err);
            return;
        }
        dial_set(c, DIAL_CHAL, sizeof(struct tcp_hs_challenge));
    }
    while (d->state >= DIAL_CHAL && d->state <= DIAL_ACK) {
        int r = tcp_hsbuf_io(&d->io, d->state != DIAL_HELLO);
        if (r == 0)
            return;
        if (r < 0) {
            dial_failed(c, r == -1 && errno ? errno : ECONNRESET);
            return;
        }
        if (d->state == DIAL_CHAL) {
            if (dial_hello(c) != 0)
                return;
        } else if (d->state == DIAL_HELLO) {
            dial_set(c, DIAL_ACK, sizeof(struct tcp_hs_resume_ack));
        } else {
            dial_answer(c);
            return;
        }
    }
}

/* ---- breaking and resuming ---- */

/* The addresses to dial: the peer's usable ones, the one that broke last. */
static void plan(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    const struct tcp_peer *p = &c->ctx->peers[c->peer];
    int n = 0, last = -1;
    for (int i = 0; i < p->nresume && n < TCP_MAX_ADDRS; i++) {
        if (p->cand[i].sin_addr.s_addr == fo->broke_addr.sin_addr.s_addr && last < 0) {
            last = i;
            continue;
        }
        fo->order[n++] = p->cand[i];
    }
    if (last >= 0 && n < TCP_MAX_ADDRS)
        fo->order[n++] = p->cand[last];
    fo->norder = n;
    memset(fo->tried_err, 0, sizeof fo->tried_err);
}

void tcp_fo_abandon(struct tcp_conn *c, int dial)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_ctx *ctx = c->ctx;
    if (fo->state == TCP_FO_UP || fo->state == TCP_FO_BREAKING) {
        if (fo->state == TCP_FO_UP)
            fo->broke_at = bolt_tl_now();
        /* Whatever the socket still holds counts as consumed before we
         * tell the peer where to resume. */
        fo->state = TCP_FO_DRAIN;
        fo->drained = 0;
        c->draining = 1;
        if (c->fd >= 0)
            tcp_conn_read(c);
        c->draining = 0;
        if (c->dead || fo->state != TCP_FO_DRAIN)
            return; /* the peer failed meanwhile (a bad frame) */
        if (c->fd >= 0) {
            ctx->evops->del(ctx->ev, c->fd);
            close(c->fd);
            c->fd = -1;
        }
        c->interest = 0;
        c->hgot = 0; /* a partial header is read again from its start */
        c->rd_eof = 0;
        fo->ctl_len = fo->ctl_done = 0;
        fo->ring_wait = 0;
        fo->broke_addr = fo->raddr;
        fo->deadline = fo->broke_at + ctx->timeout;
        fo->state = TCP_FO_BROKEN;
        fo->dial.tries = fo->dial.refused = 0;
        plan(c);
        char a[INET_ADDRSTRLEN];
        bolt_log(BOLT_LOG_INFO, "tcp: connection %d to rank %d via %s broke (%s); resuming", c->index,
                 c->peer, tcp_addr_name(&fo->broke_addr, a, sizeof a), fo->why);
    }
    ctx->fo_watch = 1;
    if (dial && fo->state == TCP_FO_BROKEN && fo->dial.state == DIAL_IDLE)
        dial_start(c);
}

/* One line on stderr per resume, whatever BOLT_LOG_LEVEL: a path was lost. */
static void report(struct tcp_conn *c, double secs, uint64_t resent)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_ctx *ctx = c->ctx;
    char line[600], a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
    int n = snprintf(line, sizeof line,
                     "bolt: rank %d (%s): link to rank %d on %s via %s broke (%s); resumed over %s "
                     "in %.2f s, %llu bytes resent (connection %d)\n",
                     ctx->rank, ctx->host, c->peer, ctx->peers[c->peer].host,
                     tcp_addr_name(&fo->broke_addr, a, sizeof a), fo->why,
                     tcp_addr_name(&fo->raddr, b, sizeof b), secs, (unsigned long long)resent,
                     c->index);
    if (n > 0) {
        ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

void tcp_fo_resumed(struct tcp_conn *c, int fd, uint64_t their_consumed)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_ctx *ctx = c->ctx;
    uint64_t resent = tcp_stream_rewind(c, their_consumed);
    /* The handshake told the peer what we consumed. */
    fo->ack_sent = fo->ack_want = tcp_stream_consumed(c);
    socklen_t l = sizeof fo->raddr;
    if (getpeername(fd, (struct sockaddr *)&fo->raddr, &l) != 0)
        memset(&fo->raddr, 0, sizeof fo->raddr);
    c->fd = fd;
    c->interest = TCP_EV_IN | TCP_EV_OUT;
    if (ctx->evops->add(ctx->ev, fd, c->interest, c) != BOLT_OK) {
        close(fd);
        c->fd = -1;
        give_up(c, "cannot watch the new socket");
        return;
    }
    fo->gen++;
    fo->state = TCP_FO_UP;
    fo->dial.state = DIAL_IDLE;
    report(c, bolt_tl_now() - fo->broke_at, resent);
    tcp_conn_flush(c);
    tcp_conn_update_interest(c);
}

struct bolt_tl_send *tcp_fo_cancel(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    if (!fo)
        return NULL;
    tcp_fo_dial_stop(c);
    if (fo->answering) {
        struct tcp_answer *a = fo->answering;
        fo->answering = NULL;
        a->c = NULL;
        tcp_answer_close(c->ctx, a);
    }
    fo->state = TCP_FO_DEAD;
    return tcp_retain_take_refs(&fo->rt);
}

/* ---- the service: breaks, timers ---- */

void tcp_fo_service(struct bolt_tl_ctx *ctx)
{
    if (ctx->in_send)
        return; /* draining delivers frames: not while the runtime sends */
    /* A break noted during this pass (a drain's upcall may send) sets it
     * again: it must survive the pass. */
    ctx->fo_watch = 0;
    int busy = 0;
    for (int r = 0; r < ctx->size; r++) {
        struct tcp_peer *p = &ctx->peers[r];
        for (int k = 0; k < p->nconns && !p->failed; k++) {
            struct tcp_conn *c = &p->conns[k];
            struct tcp_fo *fo = c->fo;
            if (!fo || c->dead)
                continue;
            if (fo->state == TCP_FO_BREAKING)
                tcp_fo_abandon(c, 1);
            if (fo->state != TCP_FO_BROKEN || c->dead)
                continue;
            busy = 1;
            double now = bolt_tl_now();
            struct tcp_dial *d = &fo->dial;
            if (now >= fo->deadline) {
                give_up(c, "no resume within BOLT_TIMEOUT=%g s", ctx->timeout);
            } else if (d->state >= DIAL_CONNECTING && d->state <= DIAL_ACK &&
                       now >= d->attempt_end) {
                dial_failed(c, ETIMEDOUT);
            } else if ((d->state == DIAL_RETRY || d->state == DIAL_WAIT) && now >= d->retry_at) {
                if (d->state == DIAL_WAIT)
                    d->refused = 0;
                dial_start(c);
            }
        }
    }
    if (ctx->listening && tcp_answer_expire(ctx, bolt_tl_now()) > 0)
        busy = 1;
    if (busy)
        ctx->fo_watch = 1;
}

void tcp_fo_event(struct bolt_tl_ctx *ctx, void *src, int events)
{
    switch (*(int *)src) {
    case TCP_SRC_LISTEN:
        tcp_answer_accept(ctx);
        break;
    case TCP_SRC_DIAL: {
        struct tcp_dial *d = src;
        if (!d->c->dead && d->c->fo->state == TCP_FO_BROKEN)
            dial_step(d->c, events);
        break;
    }
    case TCP_SRC_ANSWER:
        tcp_answer_step(ctx, src);
        break;
    default:
        break;
    }
    ctx->fo_watch = 1;
}
