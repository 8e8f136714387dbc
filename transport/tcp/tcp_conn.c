/*
 * tcp_conn.c — one TCP connection to a peer.
 *
 * Sending: a FIFO of struct bolt_tl_send. tcp_conn_flush gathers the headers
 * and payloads of as many queued frames as fit (TCP_IOV entries, TCP_WRITE_CAP
 * bytes) into one writev straight from the runtime's header and the user's
 * buffer, then walks the queue by the number of bytes written: whole frames
 * complete, the first unfinished one records its progress in s->tl_done. A
 * short write means the socket is full: we stop and ask the event loop for
 * POLLOUT.
 *
 * Receiving: a two-state machine (header / payload). Each readv fills the
 * current target first — the rest of the 48-byte header, or the rest of the
 * payload straight in the runtime's buffer — and then the shared 64 KiB
 * staging buffer, from which further frames are parsed (payload parts copied
 * to their destination). Since readv fills in order, the staging buffer only
 * receives bytes once the current target is complete, and nothing is left in
 * it after a read: a partial header goes to hbuf, a partial payload to dst.
 *
 * An armed connection (path failover, c->fo) writes through tcp_stream.c,
 * counts what it consumes, takes the transport's own frames out of the
 * stream, and on an error or an EOF without a goodbye hands itself to
 * tcp_resume.c instead of failing the peer.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

/* Reads per connection per progress call, for fairness. */
#define TCP_READ_ROUNDS 8

int tcp_conn_open(struct bolt_tl_ctx *ctx, struct tcp_conn *c, int fd, int peer, int index)
{
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->fd = fd;
    c->peer = peer;
    c->index = index;
    c->interest = TCP_EV_IN;
    int rc = ctx->evops->add(ctx->ev, fd, TCP_EV_IN, c);
    if (rc != BOLT_OK) {
        c->fd = -1;
        c->dead = 1;
    }
    return rc;
}

void tcp_conn_close(struct tcp_conn *c)
{
    if (c->fd >= 0) {
        c->ctx->evops->del(c->ctx->ev, c->fd);
        close(c->fd);
        c->fd = -1;
    }
    c->dead = 1;
}

struct bolt_tl_send *tcp_conn_take_queue(struct tcp_conn *c)
{
    struct bolt_tl_send *q = c->sq_head;
    c->sq_head = c->sq_tail = NULL;
    c->sq_bytes = 0;
    return q;
}

void tcp_conn_update_interest(struct tcp_conn *c)
{
    if (c->dead || c->fd < 0)
        return;
    int out = c->fo ? tcp_stream_wants_out(c) : c->sq_head != NULL;
    int want = (c->rd_eof ? 0 : TCP_EV_IN) | (out ? TCP_EV_OUT : 0);
    if (want == c->interest)
        return;
    if (c->ctx->evops->mod(c->ctx->ev, c->fd, want, c) == BOLT_OK)
        c->interest = want;
}

static const char *io_why(int err)
{
    switch (err) {
    case ECONNRESET:
        return "connection reset by peer";
    case EPIPE:
        return "connection broken (peer closed it while we were sending)";
    case ETIMEDOUT:
        return "connection timed out (peer host unreachable)";
    case EHOSTUNREACH:
    case ENETUNREACH:
        return "peer host unreachable";
    default:
        return NULL;
    }
}

/* The connection broke (an error on read or write): the peer is failed,
 * unless the connection is armed and resumes. */
void tcp_conn_broken(struct tcp_conn *c, int err, const char *what)
{
    struct bolt_tl_ctx *ctx = c->ctx;
    const char *why = io_why(err);
    if (c->fo) {
        char w[120];
        snprintf(w, sizeof w, "%s", why ? why : strerror(err));
        tcp_fo_broken(c, w);
    } else if (why)
        tcp_peer_fail(ctx, c->peer, "%s (connection %d)", why, c->index);
    else
        tcp_peer_fail(ctx, c->peer, "%s failed on connection %d: %s", what, c->index,
                      strerror(err));
}

/* EOF: the peer shut its sending side of this connection. Its other
 * connections may still hold striped DATA, and it may still read (a
 * finalizing peer half-closes, then drains), so only this direction ends;
 * tcp_peer_check_closed decides when the peer as a whole is gone. */
static void conn_eof(struct tcp_conn *c)
{
    if (c->fo && !c->fo->peer_bye) {
        tcp_fo_broken(c, "closed without a goodbye");
        return;
    }
    c->rd_eof = 1;
    if (c->in_payload || c->hgot) {
        tcp_peer_fail(c->ctx, c->peer, "closed the connection in the middle of a frame "
                                       "(connection %d)", c->index);
        return;
    }
    tcp_conn_update_interest(c);
    tcp_peer_check_closed(c->ctx, c->peer);
}

void tcp_conn_enqueue(struct tcp_conn *c, struct bolt_tl_send *s)
{
    int was_empty = c->sq_head == NULL;
    s->tl_next = NULL;
    if (c->sq_tail)
        c->sq_tail->tl_next = s;
    else
        c->sq_head = s;
    c->sq_tail = s;
    c->sq_bytes += TCP_HDR_BYTES + s->hdr.len - s->tl_done;
    if (was_empty && !c->flushing)
        tcp_conn_flush(c);
    else
        tcp_conn_update_interest(c);
}

int tcp_iov_add(const struct bolt_tl_send *s, struct iovec *iov, int n, uint64_t *total,
                int *whole)
{
    uint64_t done = s->tl_done;
    *whole = 1;
    if (done < TCP_HDR_BYTES) {
        iov[n].iov_base = (char *)&s->hdr + done;
        iov[n].iov_len = TCP_HDR_BYTES - (size_t)done;
        *total += iov[n].iov_len;
        n++;
        done = 0;
    } else {
        done -= TCP_HDR_BYTES;
    }
    uint64_t left = s->hdr.len - done;
    if (left > 0) {
        if (*total >= TCP_WRITE_CAP) {
            *whole = 0; /* the header alone filled the cap */
            return n;
        }
        uint64_t room = TCP_WRITE_CAP - *total;
        uint64_t take = left <= room + TCP_WRITE_TAIL ? left : room;
        iov[n].iov_base = (char *)s->payload + done;
        iov[n].iov_len = (size_t)take;
        *total += take;
        n++;
        *whole = take == left;
    }
    return n;
}

ssize_t tcp_conn_writev(struct tcp_conn *c, const struct iovec *iov, int n)
{
    ssize_t w = tcp_os_writev(c->fd, iov, n);
    if (w >= 0)
        return w;
    if (errno == EINTR)
        return -2;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
        tcp_conn_broken(c, errno, "write");
    return -1;
}

int tcp_conn_written(struct tcp_conn *c, uint64_t left,
                     void (*written)(struct tcp_conn *c, struct bolt_tl_send *s))
{
    int frames = 0;
    c->sq_bytes -= left;
    while (c->sq_head) {
        struct bolt_tl_send *s = c->sq_head;
        uint64_t rem = TCP_HDR_BYTES + s->hdr.len - s->tl_done;
        if (left < rem) {
            s->tl_done += left;
            break;
        }
        left -= rem;
        s->tl_done += rem;
        c->sq_head = s->tl_next;
        if (!c->sq_head)
            c->sq_tail = NULL;
        s->tl_next = NULL;
        frames++;
        written(c, s); /* may re-enter send(): it only appends */
        if (c->dead)
            break;
    }
    return frames;
}

static void frame_sent(struct tcp_conn *c, struct bolt_tl_send *s)
{
    (void)c;
    s->complete(s, BOLT_OK);
}

int tcp_conn_flush(struct tcp_conn *c)
{
    if (c->fo)
        return tcp_stream_flush(c);
    if (c->flushing || c->dead || c->ctx->peers[c->peer].fail_deferred)
        return 0;
    c->flushing = 1;
    int frames = 0;
    while (c->sq_head && !c->dead) {
        struct iovec iov[TCP_IOV];
        int n = 0;
        uint64_t total = 0;
        int whole = 1;
        for (struct bolt_tl_send *s = c->sq_head;
             s && whole && n < TCP_IOV - 1 && total < TCP_WRITE_CAP; s = s->tl_next)
            n = tcp_iov_add(s, iov, n, &total, &whole);
        ssize_t w = tcp_conn_writev(c, iov, n);
        if (w == -2)
            continue;
        if (w < 0)
            break;
        frames += tcp_conn_written(c, (uint64_t)w, frame_sent);
        if ((uint64_t)w < total)
            break; /* the socket is full */
    }
    c->flushing = 0;
    tcp_conn_update_interest(c);
    if (!c->dead && c->rd_eof && !c->sq_head)
        tcp_peer_check_closed(c->ctx, c->peer);
    return frames;
}

/* ---- receive ---- */

static int frame_begin(struct tcp_conn *c)
{
    struct bolt_tl_ctx *ctx = c->ctx;
    memcpy(&c->rhdr, c->hbuf, TCP_HDR_BYTES);
    c->hgot = 0;
    const struct bolt_frame_hdr *h = &c->rhdr;
    if (h->magic != BOLT_FRAME_MAGIC || h->type == 0 || h->type >= BOLT_FRAME_TYPE_MAX) {
        if (c->fo && h->magic == BOLT_FRAME_MAGIC && h->type == BOLT_FRAME_TYPE_TRANSPORT)
            return tcp_stream_ctl_in(c, h);
        tcp_peer_fail(ctx, c->peer,
                      "sent a malformed frame on connection %d (magic 0x%04x, type %u)",
                      c->index, (unsigned)h->magic, (unsigned)h->type);
        return -1;
    }
    if (h->type != BOLT_FRAME_DATA && c->index != 0) {
        tcp_peer_fail(ctx, c->peer, "sent an ordered frame (type %u) on connection %d",
                      (unsigned)h->type, c->index);
        return -1;
    }
    void *dst = NULL, *cookie = NULL;
    int rc = ctx->up->frame_begin(ctx->up->rt, c->peer, h, &dst, &cookie);
    if (c->dead)
        return -1;
    if (rc < 0) {
        tcp_peer_fail(ctx, c->peer,
                      "sent a frame the runtime refused (type %u, %llu bytes): %s",
                      (unsigned)h->type, (unsigned long long)h->len, bolt_strerror(rc));
        return -1;
    }
    if (h->len > 0 && !dst) {
        tcp_peer_fail(ctx, c->peer, "no buffer for a %llu-byte frame (runtime bug)",
                      (unsigned long long)h->len);
        return -1;
    }
    if (h->len == 0) {
        ctx->up->frame_end(ctx->up->rt, c->peer, h, cookie);
        if (c->fo)
            tcp_stream_frame_done(c, 0);
        return 1;
    }
    c->in_payload = 1;
    c->rdst = dst;
    c->rgot = 0;
    c->rcookie = cookie;
    return 0;
}

static int frame_end(struct tcp_conn *c)
{
    c->in_payload = 0;
    void *cookie = c->rcookie;
    c->rdst = NULL;
    c->rcookie = NULL;
    c->ctx->up->frame_end(c->ctx->up->rt, c->peer, &c->rhdr, cookie);
    if (c->fo)
        tcp_stream_frame_done(c, c->rhdr.len);
    return 1;
}

/* Parses n staged bytes. Returns frames completed. */
static int parse_stage(struct tcp_conn *c, const unsigned char *p, size_t n)
{
    int frames = 0;
    while (n > 0 && !c->dead) {
        if (c->in_payload) {
            uint64_t want = c->rhdr.len - c->rgot;
            size_t k = want < n ? (size_t)want : n;
            memcpy(c->rdst + c->rgot, p, k);
            c->rgot += k;
            p += k;
            n -= k;
            if (c->rgot == c->rhdr.len)
                frames += frame_end(c);
            continue;
        }
        size_t k = TCP_HDR_BYTES - c->hgot;
        if (k > n)
            k = n;
        memcpy(c->hbuf + c->hgot, p, k);
        c->hgot += (unsigned)k;
        p += k;
        n -= k;
        if (c->hgot == TCP_HDR_BYTES) {
            int r = frame_begin(c);
            if (r < 0)
                return frames;
            frames += r;
        }
    }
    return frames;
}

int tcp_conn_read(struct tcp_conn *c)
{
    if (c->ctx->peers[c->peer].fail_deferred || (c->fo && c->fo->state > TCP_FO_DRAIN))
        return 0;
    int frames = 0;
    unsigned char *stage = c->ctx->stage;
    for (int round = 0; (round < TCP_READ_ROUNDS || c->draining) && !c->dead; round++) {
        struct iovec iov[2];
        if (c->in_payload) {
            uint64_t left = c->rhdr.len - c->rgot;
            if (left > TCP_READ_CAP)
                left = TCP_READ_CAP;
            iov[0].iov_base = c->rdst + c->rgot;
            iov[0].iov_len = (size_t)left;
        } else {
            iov[0].iov_base = c->hbuf + c->hgot;
            iov[0].iov_len = TCP_HDR_BYTES - c->hgot;
        }
        iov[1].iov_base = stage;
        iov[1].iov_len = TCP_STAGE_BYTES;
        ssize_t r = readv(c->fd, iov, 2);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            tcp_conn_broken(c, errno, "read");
            break;
        }
        if (r == 0) {
            conn_eof(c);
            break;
        }
        size_t got = (size_t)r;
        size_t first = got < iov[0].iov_len ? got : iov[0].iov_len;
        if (c->in_payload) {
            c->rgot += first;
            if (c->rgot == c->rhdr.len)
                frames += frame_end(c);
        } else {
            c->hgot += (unsigned)first;
            if (c->hgot == TCP_HDR_BYTES) {
                int fr = frame_begin(c);
                if (fr < 0)
                    break;
                frames += fr;
            }
        }
        if (got > first && !c->dead)
            frames += parse_stage(c, stage, got - first);
        if (got < iov[0].iov_len + iov[1].iov_len)
            break; /* drained */
    }
    if (c->fo && c->fo->kick && !c->draining) {
        c->fo->kick = 0; /* an ack owed, or ring room freed */
        frames += tcp_conn_flush(c);
    }
    return frames;
}
