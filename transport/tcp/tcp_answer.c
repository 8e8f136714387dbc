/*
 * tcp_answer.c — the listening socket during the run (path failover).
 *
 * After a wire-up that armed a connection, the listener stays open: a peer
 * whose connection to us broke dials it to resume. Each incoming connection
 * gets the wire-up's challenge; a valid RESUME of one of our armed
 * connections is answered (tcp.h): OK with what we consumed — after we
 * abandoned our socket of that connection the way a break does (drained,
 * closed), since the peer saw it break even if we did not — or BUSY when
 * our own dial of it wins (we are the lower rank), STALE, REFUSED.
 * Anything else is refused and logged, as strangers are at wire-up; at most
 * TCP_ANSWERS handshakes at once (the oldest unauthenticated one makes way)
 * and a silent one is dropped after the wire-up's window.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

enum { ANS_FREE, ANS_CHAL, ANS_HELLO, ANS_REPLY };

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

int tcp_hs_resume_mac(const uint8_t *secret, const uint8_t nonce[TCP_NONCE_BYTES],
                      const struct tcp_hs_resume *m, uint8_t out[BOLT_HMAC_BYTES])
{
    uint8_t d[15 + TCP_NONCE_BYTES + 24];
    memcpy(d, "bolt-tcp-resume", 15);
    memcpy(d + 15, nonce, TCP_NONCE_BYTES);
    uint8_t *p = d + 15 + TCP_NONCE_BYTES;
    put_be32(p, (uint32_t)m->rank);
    put_be32(p + 4, (uint32_t)m->index);
    put_be32(p + 8, (uint32_t)m->target);
    put_be32(p + 12, m->gen);
    put_be64(p + 16, m->consumed);
    return bolt_hmac_sha256(secret, BOLT_SECRET_BYTES, d, sizeof d, out);
}

int tcp_hs_resume_ack_mac(const uint8_t *secret, const uint8_t cnonce[TCP_NONCE_BYTES],
                          const uint8_t nonce[TCP_NONCE_BYTES], int32_t acceptor, int32_t rank,
                          int32_t index, const struct tcp_hs_resume_ack *a,
                          uint8_t out[BOLT_HMAC_BYTES])
{
    uint8_t d[19 + 2 * TCP_NONCE_BYTES + 28];
    memcpy(d, "bolt-tcp-resume-ack", 19);
    memcpy(d + 19, cnonce, TCP_NONCE_BYTES);
    memcpy(d + 19 + TCP_NONCE_BYTES, nonce, TCP_NONCE_BYTES);
    uint8_t *p = d + 19 + 2 * TCP_NONCE_BYTES;
    put_be32(p, (uint32_t)acceptor);
    put_be32(p + 4, (uint32_t)rank);
    put_be32(p + 8, (uint32_t)index);
    put_be32(p + 12, a->status);
    put_be32(p + 16, a->gen);
    put_be64(p + 20, a->consumed);
    return bolt_hmac_sha256(secret, BOLT_SECRET_BYTES, d, sizeof d, out);
}

int tcp_fd_io(int fd, unsigned char *buf, size_t *off, size_t len, int reading)
{
    while (*off < len) {
        ssize_t n;
        if (reading) {
            n = read(fd, buf + *off, len - *off);
            if (n == 0)
                return -2;
        } else {
            struct iovec iov = {buf + *off, len - *off};
            n = tcp_os_writev(fd, &iov, 1);
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        *off += (size_t)n;
    }
    return 1;
}

int tcp_hsbuf_io(struct tcp_hsbuf *b, int reading)
{
    return tcp_fd_io(b->fd, b->buf, &b->off, b->len, reading);
}

/* As at wire-up: a real rank answers a challenge in milliseconds. */
static double accept_window(const struct bolt_tl_ctx *ctx)
{
    double t = ctx->timeout / 4;
    if (t < 5)
        t = 5;
    return t < ctx->timeout ? t : ctx->timeout;
}

int tcp_fo_listen(struct bolt_tl_ctx *ctx)
{
    ctx->answers = calloc(TCP_ANSWERS, sizeof *ctx->answers);
    if (!ctx->answers)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the listener");
    for (int i = 0; i < TCP_ANSWERS; i++) {
        ctx->answers[i].kind = TCP_SRC_ANSWER;
        ctx->answers[i].io.fd = -1;
    }
    ctx->lsrc.kind = TCP_SRC_LISTEN;
    int rc = ctx->evops->add(ctx->ev, ctx->lfd, TCP_EV_IN, &ctx->lsrc);
    if (rc != BOLT_OK)
        return rc;
    ctx->listening = 1;
    return BOLT_OK;
}

void tcp_answer_close(struct bolt_tl_ctx *ctx, struct tcp_answer *a)
{
    if (a->io.fd >= 0) {
        ctx->evops->del(ctx->ev, a->io.fd);
        close(a->io.fd);
        a->io.fd = -1;
    }
    if (a->c && a->c->fo && a->c->fo->answering == a)
        a->c->fo->answering = NULL;
    a->c = NULL;
    a->ev = 0;
    a->state = ANS_FREE;
}

void tcp_fo_unlisten(struct bolt_tl_ctx *ctx)
{
    if (ctx->answers)
        for (int i = 0; i < TCP_ANSWERS; i++)
            tcp_answer_close(ctx, &ctx->answers[i]);
    if (ctx->listening) {
        ctx->evops->del(ctx->ev, ctx->lfd);
        close(ctx->lfd);
        ctx->lfd = -1;
        ctx->listening = 0;
    }
}

static void refuse(struct bolt_tl_ctx *ctx, struct tcp_answer *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct bolt_tl_ctx *ctx, struct tcp_answer *a, const char *fmt, ...)
{
    char why[200], n[INET_ADDRSTRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    bolt_log(BOLT_LOG_WARN, "tcp: refused a connection from %s:%u: %s",
             tcp_addr_name(&a->sa, n, sizeof n), (unsigned)ntohs(a->sa.sin_port), why);
    tcp_answer_close(ctx, a);
}

static void answer_set(struct bolt_tl_ctx *ctx, struct tcp_answer *a, int state, size_t len)
{
    a->state = state;
    a->io.off = 0;
    a->io.len = len;
    int want = state == ANS_HELLO ? TCP_EV_IN : TCP_EV_OUT;
    if (want != a->ev && ctx->evops->mod(ctx->ev, a->io.fd, want, a) == BOLT_OK)
        a->ev = want;
}

static int unproven(const struct tcp_answer *a)
{
    return a->state == ANS_CHAL || a->state == ANS_HELLO;
}

/* A free slot, or the oldest unauthenticated one, or NULL. */
static struct tcp_answer *answer_slot(struct bolt_tl_ctx *ctx)
{
    struct tcp_answer *oldest = NULL;
    for (int i = 0; i < TCP_ANSWERS; i++) {
        struct tcp_answer *a = &ctx->answers[i];
        if (a->state == ANS_FREE)
            return a;
        if (unproven(a) && (!oldest || a->expires < oldest->expires))
            oldest = a;
    }
    if (oldest)
        refuse(ctx, oldest, "too many unauthenticated connections at once (%d)", TCP_ANSWERS);
    return oldest;
}

/* What to answer a RESUME; on OK the connection is abandoned and waits for
 * the answer to be written. */
static uint32_t decide(struct bolt_tl_ctx *ctx, struct tcp_answer *a, const struct tcp_hs_resume *m)
{
    struct tcp_peer *p = &ctx->peers[m->rank];
    struct tcp_conn *c = m->index < p->nconns ? &p->conns[m->index] : NULL;
    struct tcp_fo *fo = c ? c->fo : NULL;
    if (!fo || p->failed || c->dead || fo->state == TCP_FO_DEAD || ctx->halfclosed ||
        fo->peer_bye || fo->bye_sent)
        return TCP_RESUME_REFUSED;
    if (m->gen < fo->gen)
        return TCP_RESUME_STALE;
    if (fo->answering)
        return TCP_RESUME_BUSY;
    if (fo->state == TCP_FO_BROKEN && tcp_fo_dialling(c) && ctx->rank < m->rank)
        return TCP_RESUME_BUSY; /* both dial: the lower rank's wins */
    if (fo->state == TCP_FO_UP || fo->state == TCP_FO_BREAKING) {
        if (fo->state == TCP_FO_UP)
            snprintf(fo->why, sizeof fo->why, "rank %d found it broken", m->rank);
        tcp_fo_abandon(c, 0);
    } else {
        tcp_fo_dial_stop(c);
    }
    if (c->dead || fo->state != TCP_FO_BROKEN)
        return TCP_RESUME_REFUSED;
    if (!tcp_stream_valid(c, m->consumed)) {
        tcp_peer_fail(ctx, m->rank,
                      "asked to resume connection %d from byte %llu of our stream, outside what "
                      "was sent (%llu to %llu)",
                      m->index, (unsigned long long)m->consumed,
                      (unsigned long long)fo->rt.confirmed, (unsigned long long)fo->rt.end);
        return TCP_RESUME_REFUSED;
    }
    fo->gen = m->gen;
    fo->answering = a;
    a->c = c;
    a->their_consumed = m->consumed;
    return TCP_RESUME_OK;
}

/* The hello is in: a RESUME of ours gets an answer, anything else refused. */
static void check(struct bolt_tl_ctx *ctx, struct tcp_answer *a)
{
    uint32_t magic;
    memcpy(&magic, a->io.buf, sizeof magic);
    if (magic == TCP_HS_MAGIC) {
        struct tcp_hs_hello he;
        memcpy(&he, a->io.buf, sizeof he);
        refuse(ctx, a, "a wire-up hello (rank %d, connection %d) after the wire-up", (int)he.rank,
               (int)he.index);
        return;
    }
    if (magic == __builtin_bswap32(TCP_HS_MAGIC) || magic == __builtin_bswap32(TCP_HS_RESUME_MAGIC)) {
        refuse(ctx, a, "peer has a different byte order");
        return;
    }
    if (magic != TCP_HS_RESUME_MAGIC) {
        refuse(ctx, a, "not a Bolt hello (magic 0x%08x)", (unsigned)magic);
        return;
    }
    struct tcp_hs_resume m;
    memcpy(&m, a->io.buf, sizeof m);
    if (m.order != TCP_HS_ORDER || m.version != TCP_HS_VERSION) {
        refuse(ctx, a, "handshake version %u, we speak %u", (unsigned)m.version, TCP_HS_VERSION);
        return;
    }
    if (m.target != ctx->rank) {
        refuse(ctx, a, "it wanted rank %d, we are rank %d", (int)m.target, ctx->rank);
        return;
    }
    if (m.rank < 0 || m.rank >= ctx->size || m.rank == ctx->rank || m.index < 0 ||
        m.index >= ctx->nconns) {
        refuse(ctx, a, "a resume of rank %d connection %d, which does not exist", (int)m.rank,
               (int)m.index);
        return;
    }
    uint8_t mac[BOLT_HMAC_BYTES];
    if (tcp_hs_resume_mac(ctx->secret, a->nonce, &m, mac) != 0 ||
        !bolt_secure_equal(mac, m.mac, BOLT_HMAC_BYTES)) {
        refuse(ctx, a, "bad HMAC for rank %d (wrong job secret?)", (int)m.rank);
        return;
    }
    struct tcp_hs_resume_ack ack;
    memset(&ack, 0, sizeof ack);
    ack.status = decide(ctx, a, &m);
    if (ack.status == TCP_RESUME_OK) {
        ack.gen = a->c->fo->gen;
        ack.consumed = tcp_stream_consumed(a->c);
    } else if (ack.status == TCP_RESUME_STALE) {
        ack.gen = ctx->peers[m.rank].conns[m.index].fo->gen;
    }
    if (tcp_hs_resume_ack_mac(ctx->secret, m.cnonce, a->nonce, ctx->rank, m.rank, m.index, &ack,
                              ack.mac) != 0) {
        struct tcp_conn *c = a->c;
        tcp_answer_close(ctx, a);
        if (c)
            tcp_fo_dial_again(c);
        return;
    }
    memcpy(a->io.buf, &ack, sizeof ack);
    answer_set(ctx, a, ANS_REPLY, sizeof ack);
}

void tcp_answer_step(struct bolt_tl_ctx *ctx, struct tcp_answer *a)
{
    while (a->state != ANS_FREE && a->io.fd >= 0) {
        int r = tcp_hsbuf_io(&a->io, a->state == ANS_HELLO);
        if (r == 0)
            return;
        if (r < 0) {
            char n[INET_ADDRSTRLEN];
            bolt_log(BOLT_LOG_INFO, "tcp: a connection from %s ended during the handshake%s%s",
                     tcp_addr_name(&a->sa, n, sizeof n), r == -1 ? ": " : "",
                     r == -1 ? strerror(errno) : "");
            struct tcp_conn *c = a->c;
            tcp_answer_close(ctx, a);
            if (c)
                tcp_fo_dial_again(c); /* its dial did not take our answer */
            return;
        }
        if (a->state == ANS_CHAL) {
            answer_set(ctx, a, ANS_HELLO, sizeof(struct tcp_hs_hello));
        } else if (a->state == ANS_HELLO) {
            uint32_t magic;
            memcpy(&magic, a->io.buf, sizeof magic);
            if (magic == TCP_HS_RESUME_MAGIC && a->io.len < sizeof(struct tcp_hs_resume)) {
                a->io.len = sizeof(struct tcp_hs_resume); /* a RESUME is longer */
                continue;
            }
            check(ctx, a);
        } else {
            struct tcp_conn *c = a->c;
            int fd = a->io.fd;
            uint64_t their = a->their_consumed;
            if (c) {
                ctx->evops->del(ctx->ev, fd);
                a->io.fd = -1;
            }
            tcp_answer_close(ctx, a);
            if (c)
                tcp_fo_resumed(c, fd, their);
            return;
        }
    }
}

void tcp_answer_accept(struct bolt_tl_ctx *ctx)
{
    for (int burst = 0; burst < TCP_ANSWERS && ctx->listening; burst++) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept(ctx->lfd, (struct sockaddr *)&sa, &sl);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* The listener stays readable: pause it instead of spinning. */
                bolt_log(BOLT_LOG_WARN, "tcp: accept() failed: %s; pausing accepts",
                         strerror(errno));
                if (ctx->evops->mod(ctx->ev, ctx->lfd, 0, &ctx->lsrc) == BOLT_OK)
                    ctx->accept_pause = bolt_tl_now() + 0.1;
                ctx->fo_watch = 1;
            }
            return;
        }
        struct tcp_answer *a = answer_slot(ctx);
        if (!a || tcp_sock_prepare(ctx, fd) != 0 || bolt_random_bytes(a->nonce, TCP_NONCE_BYTES) != 0 ||
            ctx->evops->add(ctx->ev, fd, TCP_EV_OUT, a) != BOLT_OK) {
            close(fd);
            continue;
        }
        a->io.fd = fd;
        a->ev = TCP_EV_OUT;
        a->sa = sa;
        a->expires = bolt_tl_now() + accept_window(ctx);
        a->c = NULL;
        struct tcp_hs_challenge ch;
        memset(&ch, 0, sizeof ch);
        ch.magic = TCP_HS_MAGIC;
        ch.version = TCP_HS_VERSION;
        ch.order = TCP_HS_ORDER;
        ch.rank = ctx->rank;
        memcpy(ch.nonce, a->nonce, TCP_NONCE_BYTES);
        memcpy(a->io.buf, &ch, sizeof ch);
        answer_set(ctx, a, ANS_CHAL, sizeof ch);
        tcp_answer_step(ctx, a);
    }
}

int tcp_answer_expire(struct bolt_tl_ctx *ctx, double now)
{
    int open = 0;
    if (ctx->accept_pause && ctx->accept_pause <= now &&
        ctx->evops->mod(ctx->ev, ctx->lfd, TCP_EV_IN, &ctx->lsrc) == BOLT_OK)
        ctx->accept_pause = 0;
    for (int i = 0; i < TCP_ANSWERS; i++) {
        struct tcp_answer *a = &ctx->answers[i];
        if (unproven(a) && a->expires < now)
            refuse(ctx, a, "no valid hello within %.0f s", accept_window(ctx));
        open += a->state != ANS_FREE;
    }
    return open + (ctx->accept_pause != 0);
}
