/*
 * tcp_wireup.c — the collective, authenticated wire-up (the listening socket
 * and addresses are in tcp_addr.c).
 *
 * Who connects: rank r connects (BOLT_TCP_CONNS times) to every lower-ranked
 * peer and accepts from every higher-ranked one. The whole wire-up — connects
 * in flight, accepts, every handshake in both roles — runs on nonblocking
 * sockets in one poll() loop bounded by BOLT_TIMEOUT, so no handshake (nor a
 * stranger that connects and stays silent) can hold up another.
 *
 * Handshake on each connection (fixed-size messages, host byte order):
 *   acceptor  -> connector  challenge {magic, version, order, acceptor rank, nonce}
 *   connector -> acceptor   hello {magic, version, order, rank, index, target, flags,
 *                                  cnonce, HMAC(secret, "bolt-tcp"|nonce|rank|index|target|flags)}
 *   acceptor  -> connector  ack {HMAC(secret, "bolt-tcp-ack"|cnonce|nonce|acceptor|rank|index|flags),
 *                                flags}
 * flags: TCP_HS_F_RESUME when the connector would arm the connection for
 * path failover (the peer has another address on a subnet we share, and
 * BOLT_TCP_FAILOVER allows it); the ack's flags are what both ends want.
 * A connector tries the peer's addresses in the order tcp_addr.c gives them,
 * each attempt bounded by BOLT_TCP_CONNECT_TIMEOUT: when one fails (refused,
 * unreachable, silent), the next is tried, round and round until the
 * wire-up's deadline.
 * The acceptor refuses (logs a warning, closes, goes on) a hello with a wrong
 * magic, byte order, version, target, rank, index, a duplicate, or a bad MAC.
 * The ack proves the acceptor knows the secret too. Both sides read exactly
 * the handshake's bytes, so frames sent right after the ack stay in the socket
 * for the connection's receive machine. When a connection was armed, the
 * listening socket stays open after the wire-up for RESUME (tcp_answer.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

#define TCP_RETRY_SEC 0.05

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int tcp_hs_hello_mac(const uint8_t *secret, const uint8_t nonce[TCP_NONCE_BYTES], int32_t target,
                     int32_t rank, int32_t index, uint32_t flags, uint8_t out[BOLT_HMAC_BYTES])
{
    uint8_t d[8 + TCP_NONCE_BYTES + 16];
    memcpy(d, "bolt-tcp", 8);
    memcpy(d + 8, nonce, TCP_NONCE_BYTES);
    put_be32(d + 8 + TCP_NONCE_BYTES, (uint32_t)rank);
    put_be32(d + 12 + TCP_NONCE_BYTES, (uint32_t)index);
    put_be32(d + 16 + TCP_NONCE_BYTES, (uint32_t)target); /* a hello is for one acceptor */
    put_be32(d + 20 + TCP_NONCE_BYTES, flags);
    return bolt_hmac_sha256(secret, BOLT_SECRET_BYTES, d, sizeof d, out);
}

int tcp_hs_ack_mac(const uint8_t *secret, const uint8_t cnonce[TCP_NONCE_BYTES],
                   const uint8_t nonce[TCP_NONCE_BYTES], int32_t acceptor, int32_t rank,
                   int32_t index, uint32_t flags, uint8_t out[BOLT_HMAC_BYTES])
{
    uint8_t d[12 + 2 * TCP_NONCE_BYTES + 16];
    memcpy(d, "bolt-tcp-ack", 12);
    memcpy(d + 12, cnonce, TCP_NONCE_BYTES);
    memcpy(d + 12 + TCP_NONCE_BYTES, nonce, TCP_NONCE_BYTES);
    uint8_t *p = d + 12 + 2 * TCP_NONCE_BYTES;
    put_be32(p, (uint32_t)acceptor);
    put_be32(p + 4, (uint32_t)rank);
    put_be32(p + 8, (uint32_t)index);
    put_be32(p + 12, flags);
    return bolt_hmac_sha256(secret, BOLT_SECRET_BYTES, d, sizeof d, out);
}

/* ---- the wire-up loop ---- */

enum hs_state {
    HS_FREE,
    HS_RETRY,      /* connector: waiting to (re)try connect() */
    HS_CONNECTING, /* connector: connect() in flight */
    HS_READ_CHAL,
    HS_WRITE_HELLO,
    HS_READ_ACK,
    HS_WRITE_CHAL, /* acceptor */
    HS_READ_HELLO,
    HS_WRITE_ACK,
    HS_DONE
};

struct hs {
    int state;
    int acceptor;
    int fd;
    int peer, index; /* acceptor: known after the hello */
    uint32_t flags;  /* TCP_HS_F_*: asked (connector), then agreed */
    unsigned char buf[sizeof(struct tcp_hs_hello)];
    size_t off, len;
    uint8_t nonce[TCP_NONCE_BYTES], cnonce[TCP_NONCE_BYTES];
    struct sockaddr_in sa;          /* the address in use */
    struct sockaddr_in cand[TCP_MAX_ADDRS]; /* connector: the peer's addresses, best first */
    int ncand, cur;
    double attempt_end;             /* connector: this connect() is given up then */
    double retry_at;
    double expires;  /* acceptor: a stranger that stays silent is dropped then */
    int last_err;
    const char *last_what;
};

struct wireup {
    struct bolt_tl_ctx *ctx;
    struct hs *hs;
    int nhs, caphs;
    unsigned char *slot; /* size * nconns: acceptor slots reserved */
    int need_in, got_in;
    int fatal;           /* BOLT_ERR_* once the wire-up must stop */
    double accept_pause; /* out of descriptors: do not accept before this */
    int warned_flood;    /* strangers' handshakes were dropped (logged once) */
};

/* Handshakes a stranger may keep open at once, and for how long: a real rank
 * answers a challenge in milliseconds, even on a loaded machine in seconds. */
#define HS_ACCEPT_CAP(w) (4 * (w)->need_in + 16)
static double hs_accept_window(const struct bolt_tl_ctx *ctx)
{
    double t = ctx->timeout / 4;
    if (t < 5)
        t = 5;
    return t < ctx->timeout ? t : ctx->timeout;
}

static int hs_reading(int st)
{
    return st == HS_READ_CHAL || st == HS_READ_ACK || st == HS_READ_HELLO;
}

static void hs_close(struct hs *h)
{
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
}

static const char *addr_str(const struct sockaddr_in *sa, char *buf, size_t cap)
{
    char a[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa->sin_addr, a, sizeof a);
    snprintf(buf, cap, "%s:%u", a, (unsigned)ntohs(sa->sin_port));
    return buf;
}

/* Moves bytes of the current message. 1 done, 0 would block, -1 error
 * (errno), -2 EOF. */
static int hs_io(struct hs *h)
{
    return tcp_fd_io(h->fd, h->buf, &h->off, h->len, hs_reading(h->state));
}

static void hs_set(struct hs *h, int state, size_t len)
{
    h->state = state;
    h->off = 0;
    h->len = len;
}

static void refuse(struct wireup *w, struct hs *h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct wireup *w, struct hs *h, const char *fmt, ...)
{
    char why[200], a[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    bolt_log(BOLT_LOG_WARN, "tcp: refused a connection from %s: %s",
             addr_str(&h->sa, a, sizeof a), why);
    if (h->peer >= 0 && h->index >= 0 && h->state == HS_WRITE_ACK)
        w->slot[(size_t)h->peer * (size_t)w->ctx->nconns + (size_t)h->index] = 0;
    hs_close(h);
    h->state = HS_FREE;
}

static struct hs *hs_new(struct wireup *w)
{
    for (int i = 0; i < w->nhs; i++)
        if (w->hs[i].state == HS_FREE && w->hs[i].acceptor)
            return &w->hs[i];
    if (w->nhs == w->caphs) {
        int nc = w->caphs * 2 + 8;
        struct hs *n = realloc(w->hs, (size_t)nc * sizeof *n);
        if (!n)
            return NULL;
        w->hs = n;
        w->caphs = nc;
    }
    struct hs *h = &w->hs[w->nhs++];
    memset(h, 0, sizeof *h);
    h->fd = -1;
    return h;
}

static void connector_retry(struct hs *h, int err, const char *what);

static double connect_timeout(void)
{
    double t = bolt_param_double(BOLT_P_TCP_CONNECT_TIMEOUT);
    return t > 0 ? t : 2.0;
}

static void start_connect(struct wireup *w, struct hs *h)
{
    struct bolt_tl_ctx *ctx = w->ctx;
    if (h->ncand > 0)
        h->sa = h->cand[h->cur % h->ncand];
    h->attempt_end = bolt_tl_now() + connect_timeout();
    h->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (h->fd < 0 || tcp_sock_prepare(ctx, h->fd) != 0) {
        w->fatal = bolt_err_set(BOLT_ERR_SYS, "tcp: cannot create a socket to rank %d: %s",
                                h->peer, strerror(errno));
        hs_close(h);
        return;
    }
    if (connect(h->fd, (struct sockaddr *)&h->sa, sizeof h->sa) == 0) {
        hs_set(h, HS_READ_CHAL, sizeof(struct tcp_hs_challenge));
    } else if (errno == EINPROGRESS || errno == EINTR) {
        hs_set(h, HS_CONNECTING, 0);
    } else {
        connector_retry(h, errno, "connect");
    }
}

static void connector_retry(struct hs *h, int err, const char *what)
{
    if (h->ncand > 1) {
        char a[48];
        bolt_log(BOLT_LOG_INFO, "tcp: %s to rank %d at %s failed (%s); trying its next address", what, h->peer,
                 addr_str(&h->sa, a, sizeof a), strerror(err));
        h->cur = (h->cur + 1) % h->ncand;
    }
    h->last_err = err;
    h->last_what = what;
    hs_close(h);
    h->state = HS_RETRY;
    h->retry_at = bolt_tl_now() + TCP_RETRY_SEC;
}

static int wire(struct wireup *w, struct hs *h)
{
    struct tcp_peer *p = &w->ctx->peers[h->peer];
    struct tcp_conn *c = &p->conns[h->index];
    int rc = tcp_conn_open(w->ctx, c, h->fd, h->peer, h->index);
    if (rc == BOLT_OK && (h->flags & TCP_HS_F_RESUME))
        rc = tcp_fo_arm(c);
    if (rc != BOLT_OK) {
        hs_close(h);
        return rc;
    }
    h->fd = -1; /* owned by the connection now */
    h->state = HS_DONE;
    return BOLT_OK;
}

static void step_connector(struct wireup *w, struct hs *h, short revents)
{
    struct bolt_tl_ctx *ctx = w->ctx;
    char a[48];
    if (h->state == HS_CONNECTING) {
        int err = 0;
        socklen_t l = sizeof err;
        if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
            err = errno;
        if (err == EINPROGRESS || err == EALREADY)
            return;
        if (err == 0 && !(revents & (POLLOUT | POLLERR | POLLHUP)))
            return;
        if (err != 0) {
            connector_retry(h, err, "connect");
            return;
        }
        hs_set(h, HS_READ_CHAL, sizeof(struct tcp_hs_challenge));
    }
    for (;;) {
        int r = hs_io(h);
        if (r == 0)
            return;
        if (r < 0) {
            int err = r == -1 ? errno : 0;
            if (h->state == HS_READ_ACK) {
                w->fatal = bolt_err_set(
                    BOLT_ERR_AUTH,
                    "tcp: rank %d (%s) closed our connection %d after the hello%s%s: it "
                    "refused our HMAC (is BOLT_JOB_SECRET the same for the whole job?) or exited",
                    h->peer, addr_str(&h->sa, a, sizeof a), h->index, err ? ": " : "",
                    err ? strerror(err) : "");
                hs_close(h);
                return;
            }
            /* Before the hello: the listener may be overloaded; retry. */
            connector_retry(h, err ? err : ECONNRESET, "handshake");
            return;
        }
        if (h->state == HS_READ_CHAL) {
            struct tcp_hs_challenge ch;
            memcpy(&ch, h->buf, sizeof ch);
            if (ch.magic != TCP_HS_MAGIC || ch.order != TCP_HS_ORDER ||
                ch.version != TCP_HS_VERSION || ch.rank != h->peer) {
                const char *why = ch.magic == TCP_HS_MAGIC ? (ch.order != TCP_HS_ORDER
                                                                  ? "a different byte order"
                                                              : ch.version != TCP_HS_VERSION
                                                                  ? "a different Bolt version"
                                                                  : "another rank")
                                  : ch.magic == __builtin_bswap32(TCP_HS_MAGIC)
                                      ? "a different byte order"
                                      : "not a Bolt process";
                w->fatal = bolt_err_set(BOLT_ERR_PROTO,
                                        "tcp: the process at %s, published as rank %d, is %s "
                                        "(challenge: magic 0x%08x, version %u, rank %d)",
                                        addr_str(&h->sa, a, sizeof a), h->peer, why,
                                        (unsigned)ch.magic, (unsigned)ch.version, (int)ch.rank);
                hs_close(h);
                return;
            }
            memcpy(h->nonce, ch.nonce, TCP_NONCE_BYTES);
            struct tcp_hs_hello he;
            memset(&he, 0, sizeof he);
            he.magic = TCP_HS_MAGIC;
            he.version = TCP_HS_VERSION;
            he.order = TCP_HS_ORDER;
            he.rank = ctx->rank;
            he.index = h->index;
            he.target = h->peer;
            he.flags = h->flags = ctx->peers[h->peer].can_resume ? TCP_HS_F_RESUME : 0;
            if (bolt_random_bytes(h->cnonce, TCP_NONCE_BYTES) != 0 ||
                tcp_hs_hello_mac(ctx->secret, h->nonce, h->peer, ctx->rank, h->index, he.flags,
                                 he.mac) != 0) {
                w->fatal = bolt_err_set(BOLT_ERR_AUTH, "tcp: cannot compute the handshake HMAC");
                hs_close(h);
                return;
            }
            memcpy(he.cnonce, h->cnonce, TCP_NONCE_BYTES);
            memcpy(h->buf, &he, sizeof he);
            hs_set(h, HS_WRITE_HELLO, sizeof he);
        } else if (h->state == HS_WRITE_HELLO) {
            hs_set(h, HS_READ_ACK, sizeof(struct tcp_hs_ack));
        } else if (h->state == HS_READ_ACK) {
            uint8_t mac[BOLT_HMAC_BYTES];
            struct tcp_hs_ack ack;
            memcpy(&ack, h->buf, sizeof ack);
            if (tcp_hs_ack_mac(ctx->secret, h->cnonce, h->nonce, h->peer, ctx->rank, h->index,
                               ack.flags, mac) != 0 ||
                !bolt_secure_equal(mac, ack.mac, BOLT_HMAC_BYTES)) {
                w->fatal = bolt_err_set(BOLT_ERR_AUTH,
                                        "tcp: rank %d (%s) answered with a wrong HMAC: is "
                                        "BOLT_JOB_SECRET the same for the whole job?",
                                        h->peer, addr_str(&h->sa, a, sizeof a));
                hs_close(h);
                return;
            }
            h->flags &= ack.flags; /* what both ends want */
            int rc = wire(w, h);
            if (rc != BOLT_OK)
                w->fatal = rc;
            return;
        }
    }
}

static void check_hello(struct wireup *w, struct hs *h)
{
    struct bolt_tl_ctx *ctx = w->ctx;
    struct tcp_hs_hello he;
    memcpy(&he, h->buf, sizeof he);
    if (he.magic == __builtin_bswap32(TCP_HS_MAGIC) ||
        (he.magic == TCP_HS_MAGIC && he.order != TCP_HS_ORDER)) {
        refuse(w, h, "peer has a different byte order");
        return;
    }
    if (he.magic != TCP_HS_MAGIC) {
        refuse(w, h, "not a Bolt hello (magic 0x%08x)", (unsigned)he.magic);
        return;
    }
    if (he.version != TCP_HS_VERSION) {
        refuse(w, h, "handshake version %u, we speak %u", (unsigned)he.version, TCP_HS_VERSION);
        return;
    }
    if (he.target != ctx->rank) {
        refuse(w, h, "it wanted rank %d, we are rank %d", (int)he.target, ctx->rank);
        return;
    }
    if (he.rank <= ctx->rank || he.rank >= ctx->size) {
        refuse(w, h, "it claims rank %d, which should not connect to rank %d", (int)he.rank,
               ctx->rank);
        return;
    }
    if (he.index < 0 || he.index >= ctx->nconns) {
        refuse(w, h, "connection index %d out of range (BOLT_TCP_CONNS=%d)", (int)he.index,
               ctx->nconns);
        return;
    }
    uint8_t mac[BOLT_HMAC_BYTES];
    if (tcp_hs_hello_mac(ctx->secret, h->nonce, ctx->rank, he.rank, he.index, he.flags, mac) != 0 ||
        !bolt_secure_equal(mac, he.mac, BOLT_HMAC_BYTES)) {
        refuse(w, h, "bad HMAC for rank %d (wrong job secret?)", (int)he.rank);
        return;
    }
    size_t s = (size_t)he.rank * (size_t)ctx->nconns + (size_t)he.index;
    if (w->slot[s] != 1) {
        refuse(w, h, "rank %d connection %d: %s", (int)he.rank, (int)he.index,
               w->slot[s] == 0 ? "not expected in this wire-up" : "already connected");
        return;
    }
    w->slot[s] = 2;
    h->peer = he.rank;
    h->index = he.index;
    h->flags = he.flags & (ctx->peers[he.rank].can_resume ? TCP_HS_F_RESUME : 0);
    struct tcp_hs_ack ack;
    memset(&ack, 0, sizeof ack);
    ack.flags = h->flags;
    if (tcp_hs_ack_mac(ctx->secret, he.cnonce, h->nonce, ctx->rank, he.rank, he.index, ack.flags,
                       ack.mac) != 0) {
        w->fatal = bolt_err_set(BOLT_ERR_AUTH, "tcp: cannot compute the handshake HMAC");
        return;
    }
    memcpy(h->buf, &ack, sizeof ack);
    hs_set(h, HS_WRITE_ACK, sizeof ack);
}

static void step_acceptor(struct wireup *w, struct hs *h)
{
    for (;;) {
        int r = hs_io(h);
        if (r == 0)
            return;
        if (r < 0) {
            if (h->state == HS_WRITE_ACK)
                w->slot[(size_t)h->peer * (size_t)w->ctx->nconns + (size_t)h->index] = 1;
            char a[48];
            bolt_log(BOLT_LOG_INFO, "tcp: a connection from %s ended during the handshake%s%s",
                     addr_str(&h->sa, a, sizeof a), r == -1 ? ": " : "",
                     r == -1 ? strerror(errno) : "");
            hs_close(h);
            h->state = HS_FREE;
            return;
        }
        if (h->state == HS_WRITE_CHAL) {
            hs_set(h, HS_READ_HELLO, sizeof(struct tcp_hs_hello));
        } else if (h->state == HS_READ_HELLO) {
            check_hello(w, h);
            if (h->state != HS_WRITE_ACK)
                return;
        } else if (h->state == HS_WRITE_ACK) {
            int rc = wire(w, h);
            if (rc != BOLT_OK)
                w->fatal = rc;
            else
                w->got_in++;
            return;
        }
    }
}

/* Keeps at most HS_ACCEPT_CAP unauthenticated handshakes: the oldest goes. */
static void drop_excess_strangers(struct wireup *w)
{
    int open = 0, oldest = -1;
    for (int i = 0; i < w->nhs; i++) {
        struct hs *h = &w->hs[i];
        if (!h->acceptor || (h->state != HS_WRITE_CHAL && h->state != HS_READ_HELLO))
            continue; /* only handshakes whose hello is not yet proven */
        open++;
        if (oldest < 0 || h->expires < w->hs[oldest].expires)
            oldest = i;
    }
    if (open < HS_ACCEPT_CAP(w) || oldest < 0)
        return;
    if (!w->warned_flood++)
        refuse(w, &w->hs[oldest], "too many unauthenticated connections at once (%d)", open);
    else {
        hs_close(&w->hs[oldest]);
        w->hs[oldest].state = HS_FREE;
    }
}

/* Drops strangers that stayed silent past their window. */
static void expire_strangers(struct wireup *w, double now)
{
    for (int i = 0; i < w->nhs; i++) {
        struct hs *h = &w->hs[i];
        if (h->acceptor && (h->state == HS_WRITE_CHAL || h->state == HS_READ_HELLO) &&
            h->expires < now)
            refuse(w, h, "no valid hello within %.0f s", hs_accept_window(w->ctx));
    }
}

static void accept_new(struct wireup *w)
{
    struct bolt_tl_ctx *ctx = w->ctx;
    for (;;) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept(ctx->lfd, (struct sockaddr *)&sa, &sl);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* The listener stays readable: pause it instead of spinning. */
                if (w->accept_pause == 0)
                    bolt_log(BOLT_LOG_WARN, "tcp: accept() failed: %s; pausing accepts",
                             strerror(errno));
                w->accept_pause = bolt_tl_now() + 0.1;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED) {
                bolt_log(BOLT_LOG_WARN, "tcp: accept() failed: %s", strerror(errno));
            }
            return;
        }
        drop_excess_strangers(w);
        struct hs *h = hs_new(w);
        if (!h || tcp_sock_prepare(ctx, fd) != 0) {
            close(fd);
            if (!h)
                w->fatal = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
            return;
        }
        h->acceptor = 1;
        h->fd = fd;
        h->sa = sa;
        h->expires = bolt_tl_now() + hs_accept_window(ctx);
        h->peer = -1;
        h->index = -1;
        struct tcp_hs_challenge ch;
        memset(&ch, 0, sizeof ch);
        ch.magic = TCP_HS_MAGIC;
        ch.version = TCP_HS_VERSION;
        ch.order = TCP_HS_ORDER;
        ch.rank = ctx->rank;
        if (bolt_random_bytes(h->nonce, TCP_NONCE_BYTES) != 0) {
            w->fatal = bolt_err_set(BOLT_ERR_SYS, "tcp: no random bytes for a handshake nonce");
            hs_close(h);
            h->state = HS_FREE;
            return;
        }
        memcpy(ch.nonce, h->nonce, TCP_NONCE_BYTES);
        memcpy(h->buf, &ch, sizeof ch);
        hs_set(h, HS_WRITE_CHAL, sizeof ch);
        step_acceptor(w, h);
    }
}

static int timeout_error(struct wireup *w)
{
    struct bolt_tl_ctx *ctx = w->ctx;
    char msg[600];
    int n = 0, shown = 0;
    msg[0] = '\0';
    for (int i = 0; i < w->nhs && shown < 4; i++) {
        struct hs *h = &w->hs[i];
        if (h->acceptor || h->state == HS_DONE)
            continue;
        char a[48];
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%sconnecting to rank %d at %s%s%s%s",
                      shown ? "; " : "", h->peer, addr_str(&h->sa, a, sizeof a),
                      h->last_err ? " (last error: " : "",
                      h->last_err ? strerror(h->last_err) : "", h->last_err ? ")" : "");
        shown++;
        if ((size_t)n >= sizeof msg)
            break;
    }
    for (int q = 0; q < ctx->size && shown < 4 && (size_t)n < sizeof msg; q++)
        for (int k = 0; k < ctx->nconns; k++)
            if (w->slot[(size_t)q * (size_t)ctx->nconns + (size_t)k] == 1) {
                n += snprintf(msg + n, sizeof msg - (size_t)n,
                              "%swaiting for rank %d to connect", shown ? "; " : "", q);
                shown++;
                break;
            }
    return bolt_err_set(BOLT_ERR_TIMEOUT,
                        "tcp: wire-up did not finish within BOLT_TIMEOUT=%g s: %s", ctx->timeout,
                        msg);
}

/* Reads peer q's addresses (all of them into sa) and keeps what resuming
 * needs: the addresses, whether we would arm, its host name. */
static int note_remote(struct bolt_tl_ctx *ctx, int q, struct sockaddr_in *sa)
{
    struct tcp_remote_info in;
    int rc = tcp_fetch_remote(ctx, q, sa, &in);
    if (rc != BOLT_OK)
        return rc;
    struct tcp_peer *p = &ctx->peers[q];
    p->cand = malloc((size_t)in.n * sizeof *p->cand);
    if (!p->cand)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
    memcpy(p->cand, sa, (size_t)in.n * sizeof *sa);
    p->ncand = in.n;
    snprintf(p->host, sizeof p->host, "%s", in.host);
    /* auto: a peer on another host with a second path; 1: every peer. */
    if (ctx->failover == 1) {
        p->can_resume = 1;
        p->nresume = in.n;
    } else {
        p->can_resume = ctx->failover != 0 && !in.same_host && in.nshared >= 2;
        p->nresume = in.nshared;
    }
    return BOLT_OK;
}

static int any_armed(const struct bolt_tl_ctx *ctx)
{
    for (int q = 0; q < ctx->size; q++)
        for (int k = 0; k < ctx->peers[q].nconns; k++)
            if (ctx->peers[q].conns[k].fo)
                return 1;
    return 0;
}

int tcp_wireup_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers)
{
    double deadline = bolt_tl_now() + ctx->timeout; /* the address look-ups count too */
    struct wireup w;
    memset(&w, 0, sizeof w);
    w.ctx = ctx;
    int rc = BOLT_OK;
    int nc = ctx->nconns;
    w.slot = calloc((size_t)ctx->size * (size_t)nc, 1);
    unsigned char *listed = calloc((size_t)ctx->size, 1);
    if (!w.slot || !listed) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
        goto out;
    }
    int nlower = 0;
    for (int i = 0; i < npeers; i++) {
        int q = peers[i];
        if (q < 0 || q >= ctx->size) {
            rc = bolt_err_set(BOLT_ERR_ARG, "tcp: connect to rank %d of %d", q, ctx->size);
            goto out;
        }
        if (q == ctx->rank || listed[q] || ctx->peers[q].nconns)
            continue;
        listed[q] = 1;
        struct tcp_peer *p = &ctx->peers[q];
        p->conns = calloc((size_t)nc, sizeof *p->conns);
        if (!p->conns) {
            rc = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
            goto out;
        }
        p->nconns = nc;
        for (int k = 0; k < nc; k++) {
            p->conns[k].ctx = ctx;
            p->conns[k].fd = -1;
            p->conns[k].dead = 1;
            p->conns[k].peer = q;
            p->conns[k].index = k;
        }
        if (q < ctx->rank) {
            nlower++;
        } else {
            for (int k = 0; k < nc; k++)
                w.slot[(size_t)q * (size_t)nc + (size_t)k] = 1;
            w.need_in += nc;
        }
    }
    if (nlower == 0 && w.need_in == 0)
        goto out;
    if (!ctx->have_secret || ctx->lfd < 0) {
        rc = bolt_err_set(BOLT_ERR_AUTH, "tcp: connect without BOLT_JOB_SECRET or listener");
        goto out;
    }
    /* Addresses of the peers we connect to, then every connect in flight. */
    w.caphs = nlower * nc + 8;
    w.hs = calloc((size_t)w.caphs, sizeof *w.hs);
    if (!w.hs) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
        goto out;
    }
    for (int q = 0; q < ctx->size; q++) {
        if (!listed[q])
            continue;
        struct sockaddr_in sa[TCP_MAX_ADDRS];
        rc = note_remote(ctx, q, sa);
        if (rc != BOLT_OK)
            goto out;
        int nsa = ctx->peers[q].ncand;
        for (int k = 0; q < ctx->rank && k < nc; k++) {
            struct hs *h = &w.hs[w.nhs++];
            memset(h, 0, sizeof *h);
            h->fd = -1;
            h->peer = q;
            h->index = k;
            memcpy(h->cand, sa, (size_t)nsa * sizeof sa[0]);
            h->ncand = nsa;
            h->sa = sa[0];
            h->state = HS_RETRY;
        }
    }
    int nconnector = w.nhs;
    struct pollfd *pfd = NULL;
    int *who = NULL;
    int cap = 0;
    for (;;) {
        int pending_out = 0;
        for (int i = 0; i < nconnector; i++)
            pending_out += w.hs[i].state != HS_DONE;
        if (w.fatal) {
            rc = w.fatal;
            break;
        }
        if (pending_out == 0 && w.got_in == w.need_in)
            break;
        double now = bolt_tl_now();
        if (now >= deadline) {
            rc = timeout_error(&w);
            break;
        }
        double next = deadline;
        for (int i = 0; i < nconnector; i++) {
            struct hs *h = &w.hs[i];
            if (h->state == HS_CONNECTING) {
                /* A silent address (a cable down, a filtered port): next one.
                 * Only connect() is bounded so: a peer that accepted late
                 * (still busy before its wire-up) answers the challenge late. */
                if (h->attempt_end <= now)
                    connector_retry(h, ETIMEDOUT, "connect");
                else if (h->attempt_end < next)
                    next = h->attempt_end;
            }
            if (h->state == HS_RETRY) {
                if (h->retry_at <= now)
                    start_connect(&w, h);
                else if (h->retry_at < next)
                    next = h->retry_at;
            }
        }
        if (w.fatal)
            continue;
        if (cap < w.nhs + 1) {
            cap = w.nhs + 16;
            struct pollfd *np = realloc(pfd, (size_t)cap * sizeof *pfd);
            int *nw = np ? realloc(who, (size_t)cap * sizeof *who) : NULL;
            if (np)
                pfd = np;
            if (!np || !nw) {
                rc = bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory in the wire-up");
                break;
            }
            who = nw;
        }
        expire_strangers(&w, now);
        if (w.accept_pause && w.accept_pause <= now)
            w.accept_pause = 0;
        int n = 0;
        if (w.got_in < w.need_in && !w.accept_pause) {
            pfd[n].fd = ctx->lfd;
            pfd[n].events = POLLIN;
            who[n++] = -1;
        }
        for (int i = 0; i < w.nhs; i++) {
            struct hs *h = &w.hs[i];
            if (h->fd < 0 || h->state == HS_FREE || h->state == HS_DONE || h->state == HS_RETRY)
                continue;
            pfd[n].fd = h->fd;
            pfd[n].events = (h->state == HS_CONNECTING || !hs_reading(h->state)) ? POLLOUT : POLLIN;
            who[n++] = i;
        }
        double wait = next - now;
        int ms = wait <= 0 ? 0 : (wait > 0.1 ? 100 : (int)(wait * 1000) + 1);
        int r = poll(pfd, (nfds_t)n, ms);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = bolt_err_set(BOLT_ERR_SYS, "tcp: poll() in the wire-up failed: %s",
                              strerror(errno));
            break;
        }
        for (int j = 0; j < n && !w.fatal; j++) {
            if (!pfd[j].revents)
                continue;
            if (who[j] < 0) {
                accept_new(&w); /* may grow w.hs: index, never keep pointers */
                continue;
            }
            struct hs *h = &w.hs[who[j]];
            if (h->acceptor)
                step_acceptor(&w, h);
            else
                step_connector(&w, h, pfd[j].revents);
        }
    }
    free(pfd);
    free(who);
    if (rc == BOLT_OK) {
        for (int q = 0; q < ctx->size; q++)
            if (listed[q])
                ctx->peers[q].wired = 1;
        bolt_log(BOLT_LOG_DEBUG, "tcp: wired %d lower and %d higher connection(s)", nlower * nc,
                 w.need_in);
    }
out:
    /* Strangers still mid-handshake, or everything after an error. */
    for (int i = 0; i < w.nhs; i++)
        if (w.hs[i].state != HS_DONE)
            hs_close(&w.hs[i]);
    if (rc == BOLT_OK && ctx->lfd >= 0 && any_armed(ctx)) {
        rc = tcp_fo_listen(ctx); /* RESUME comes here during the run */
    } else if (rc == BOLT_OK && ctx->lfd >= 0) {
        close(ctx->lfd); /* every expected peer is in: refuse the rest */
        ctx->lfd = -1;
    }
    free(w.hs);
    free(w.slot);
    free(listed);
    return rc;
}
