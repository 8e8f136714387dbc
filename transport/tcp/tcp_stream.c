/*
 * tcp_stream.c — an armed connection's writes (path failover), and the
 * transport frames it exchanges with its peer.
 *
 * Writing is tcp_conn_flush's gathered writev with three additions. After a
 * resume, the bytes the peer had not consumed go out again first, from
 * retention. Between two frames, never inside one, a transport frame may go:
 * an ACK of what we consumed, or the GOODBYE before our half-close. And each
 * frame, once written whole, enters retention: copied (its send completes at
 * once, as on an unarmed connection) or, when its payload is larger than
 * TCP_RETAIN_COPY_MAX, held by reference (its send completes when the peer
 * confirms it). A frame to be copied only starts when the ring has room for
 * it; until an ACK frees room, it and those behind it wait in the queue.
 * ACKs never wait for ring room, so the two ends cannot block each other.
 *
 * Receiving: each header and payload byte consumed counts (a partial header
 * does not: after a resume its parse starts again). An ACK is owed once
 * TCP_RETAIN_ACK_EVERY bytes went unconfirmed, and after each frame the
 * sender held by reference.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "runtime/errors.h"
#include "transport/tl_util.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

int tcp_fo_arm(struct tcp_conn *c)
{
    struct tcp_fo *fo = calloc(1, sizeof *fo);
    if (!fo)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory arming a connection");
    tcp_retain_init(&fo->rt, TCP_RETAIN_RING);
    fo->dial.kind = TCP_SRC_DIAL;
    fo->dial.c = c;
    fo->dial.io.fd = -1;
    socklen_t l = sizeof fo->raddr;
    if (getpeername(c->fd, (struct sockaddr *)&fo->raddr, &l) != 0)
        memset(&fo->raddr, 0, sizeof fo->raddr);
    c->fo = fo;
    return BOLT_OK;
}

void tcp_fo_free(struct tcp_conn *c, struct bolt_tl_send ***tail)
{
    if (!c->fo)
        return;
    **tail = tcp_retain_take_refs(&c->fo->rt);
    while (**tail)
        *tail = &(**tail)->tl_next;
    tcp_retain_free(&c->fo->rt);
    free(c->fo);
    c->fo = NULL;
}

uint64_t tcp_stream_consumed(const struct tcp_conn *c)
{
    return c->fo->rx_done + (c->in_payload ? TCP_HDR_BYTES + c->rgot : 0);
}

void tcp_stream_frame_done(struct tcp_conn *c, uint64_t len)
{
    struct tcp_fo *fo = c->fo;
    fo->rx_done += TCP_HDR_BYTES + len;
    uint64_t told = fo->ack_want > fo->ack_sent ? fo->ack_want : fo->ack_sent;
    if (tcp_retain_by_ref(len) || fo->rx_done - told >= TCP_RETAIN_ACK_EVERY) {
        fo->ack_want = fo->rx_done;
        fo->kick = 1;
    }
}

int tcp_stream_ctl_in(struct tcp_conn *c, const struct bolt_frame_hdr *h)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_send *done = NULL;
    if (h->len != 0 ||
        (h->flags != TCP_CTL_ACK && h->flags != TCP_CTL_GOODBYE && h->flags != TCP_CTL_SYNC)) {
        tcp_peer_fail(c->ctx, c->peer,
                      "sent a malformed transport frame on connection %d (kind %u, %llu bytes)",
                      c->index, (unsigned)h->flags, (unsigned long long)h->len);
        return -1;
    }
    if (h->flags == TCP_CTL_SYNC) {
        /* Everything it wrote before the SYNC is consumed: say so now (an
         * ACK of this count already owed or sent needs no other; ack_want
         * never trails ack_sent). */
        if (fo->rx_done > fo->ack_want) {
            fo->ack_want = fo->rx_done;
            fo->kick = 1;
        }
    } else if (h->flags == TCP_CTL_GOODBYE) {
        /* It reads on to our EOF but confirms nothing more, and will not
         * resume: what it holds is as good as delivered. */
        fo->peer_bye = fo->tx_free = 1;
        done = tcp_retain_take_refs(&fo->rt);
        fo->rs_pos = fo->rt.end;
        fo->kick = 1;
    } else if (!fo->tx_free) {
        if (tcp_retain_confirm(&fo->rt, h->msg_size, &done) != 0) {
            tcp_peer_fail(c->ctx, c->peer,
                          "confirmed %llu bytes on connection %d, but only %llu were sent",
                          (unsigned long long)h->msg_size, c->index,
                          (unsigned long long)fo->rt.end);
            return -1;
        }
        if (fo->ring_wait)
            fo->kick = 1;
    }
    bolt_tl_complete_list(done, BOLT_OK);
    return 0;
}

int tcp_stream_valid(const struct tcp_conn *c, uint64_t from)
{
    const struct tcp_fo *fo = c->fo;
    uint64_t sent = fo->rt.end + (c->sq_head ? c->sq_head->tl_done : 0);
    return from >= fo->rt.confirmed && from <= sent;
}

uint64_t tcp_stream_rewind(struct tcp_conn *c, uint64_t from)
{
    struct tcp_fo *fo = c->fo;
    struct bolt_tl_send *s = c->sq_head, *done = NULL;
    uint64_t end = fo->rt.end, sent = end + (s ? s->tl_done : 0);
    (void)tcp_retain_confirm(&fo->rt, from < end ? from : end, &done);
    if (from >= end) {
        /* The peer has part of the queue's first frame: go on from there. */
        fo->rs_pos = end;
        if (s) {
            c->sq_bytes += s->tl_done - (from - end);
            s->tl_done = from - end;
        }
    } else {
        fo->rs_pos = from;
        if (s) {
            c->sq_bytes += s->tl_done;
            s->tl_done = 0;
        }
    }
    fo->ctl_len = fo->ctl_done = 0;
    fo->ring_wait = 0;
    fo->sync_at = 0; /* a SYNC on the old socket may be lost: ask again */
    bolt_tl_complete_list(done, BOLT_OK);
    return sent - from;
}

int tcp_stream_wants_out(const struct tcp_conn *c)
{
    const struct tcp_fo *fo = c->fo;
    if (fo->bye_sent)
        return 0;
    return (c->sq_head && !fo->ring_wait) || fo->ctl_len || fo->rs_pos < fo->rt.end ||
           fo->ack_want > fo->ack_sent || fo->bye_want || fo->sync_want;
}

int tcp_stream_unsettled(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    if (fo->state == TCP_FO_DEAD || fo->tx_free)
        return 0;
    if (fo->state != TCP_FO_UP)
        return 1; /* resuming: what it keeps must still get through */
    if (!c->sq_head && fo->rt.confirmed >= fo->rt.end)
        return 0;
    /* Copies complete their sends at once; the peer confirms them only
     * every TCP_RETAIN_ACK_EVERY bytes. Before the goodbye, while a break
     * can still be resumed, ask it to confirm the rest. */
    if (!c->sq_head && fo->rs_pos == fo->rt.end && fo->sync_at < fo->rt.end && !fo->sync_want) {
        fo->sync_want = 1;
        tcp_conn_flush(c);
    }
    return 1;
}

/* Loads the next transport frame; only at a frame boundary of our stream. */
static void ctl_load(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    if (fo->ctl_len || fo->bye_sent || fo->rs_pos < fo->rt.end ||
        (c->sq_head && c->sq_head->tl_done))
        return;
    uint8_t kind = 0;
    if (fo->ack_want > fo->ack_sent)
        kind = TCP_CTL_ACK;
    else if (fo->sync_want && !c->sq_head)
        kind = TCP_CTL_SYNC;
    else if (fo->bye_want && !c->sq_head)
        kind = TCP_CTL_GOODBYE;
    if (!kind)
        return;
    memset(&fo->ctl, 0, sizeof fo->ctl);
    fo->ctl.magic = BOLT_FRAME_MAGIC;
    fo->ctl.type = BOLT_FRAME_TYPE_TRANSPORT;
    fo->ctl.flags = kind;
    fo->ctl.msg_size = kind == TCP_CTL_ACK ? fo->ack_want : 0;
    fo->ctl_len = TCP_HDR_BYTES;
    fo->ctl_done = 0;
}

static void ctl_written(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    fo->ctl_len = fo->ctl_done = 0;
    if (fo->ctl.flags == TCP_CTL_ACK) {
        fo->ack_sent = fo->ctl.msg_size;
    } else if (fo->ctl.flags == TCP_CTL_SYNC) {
        fo->sync_want = 0;
        fo->sync_at = fo->rt.end;
    } else {
        fo->bye_sent = 1;
        shutdown(c->fd, SHUT_WR);
    }
}

/* A frame went out whole: into retention, or complete. */
static void frame_written(struct tcp_conn *c, struct bolt_tl_send *s)
{
    struct tcp_fo *fo = c->fo;
    int big = tcp_retain_by_ref(s->hdr.len);
    if (fo->tx_free) {
        s->complete(s, BOLT_OK);
    } else if (!big && tcp_retain_copy(&fo->rt, &s->hdr, s->payload) == 0) {
        s->complete(s, BOLT_OK);
    } else if (!big || tcp_retain_ref(&fo->rt, s) != 0) {
        /* No memory to keep it (a small frame is never held instead: the
         * peer confirms those only every TCP_RETAIN_ACK_EVERY bytes, its send
         * would wait that long). From now on a break fails the peer. */
        fo->lost = fo->tx_free = 1;
        struct bolt_tl_send *held = tcp_retain_take_refs(&fo->rt);
        s->complete(s, BOLT_OK);
        bolt_tl_complete_list(held, BOLT_OK);
    }
    /* else: held by reference, completed by the peer's confirmation */
    fo->rs_pos = fo->rt.end; /* written once: nothing to resend */
}

/* Queued frames into iov (as tcp_conn_flush), as long as the ring has room
 * for the ones to be copied. */
static int gather_queue(struct tcp_conn *c, struct iovec *iov, int n, uint64_t *total)
{
    struct tcp_fo *fo = c->fo;
    uint64_t room = tcp_retain_room(&fo->rt);
    for (struct bolt_tl_send *s = c->sq_head; s && n < TCP_IOV - 1 && *total < TCP_WRITE_CAP;
         s = s->tl_next) {
        if (!fo->tx_free && !tcp_retain_by_ref(s->hdr.len)) {
            uint64_t need = TCP_HDR_BYTES + s->hdr.len;
            if (need > room && s->tl_done == 0) {
                fo->ring_wait = 1;
                break;
            }
            room = need > room ? 0 : room - need;
        }
        int whole;
        int mid = s->tl_done > 0;
        n = tcp_iov_add(s, iov, n, total, &whole);
        if (!whole)
            break;
        /* An ACK owed waits for a frame boundary: end this write at the
         * first one, or a queue of large frames would hold it back (and the
         * peer's sends it confirms) until the queue drains. */
        if (mid && fo->ack_want > fo->ack_sent && !fo->ctl_len)
            break;
    }
    return n;
}

int tcp_stream_flush(struct tcp_conn *c)
{
    struct tcp_fo *fo = c->fo;
    if (c->flushing || c->dead || c->fd < 0 || fo->state != TCP_FO_UP || fo->bye_sent ||
        c->ctx->peers[c->peer].fail_deferred)
        return 0;
    c->flushing = 1;
    fo->ring_wait = 0;
    int frames = 0;
    while (!c->dead && c->fd >= 0 && fo->state == TCP_FO_UP && !fo->bye_sent) {
        struct iovec iov[TCP_IOV];
        int n = 0;
        uint64_t total = 0, resend = 0, ctl = 0;
        if (fo->rs_pos < fo->rt.end) {
            int k = tcp_retain_iov(&fo->rt, fo->rs_pos, iov, TCP_IOV - 2, TCP_WRITE_CAP, &resend);
            n = k > 0 ? k : 0;
            total = resend;
        }
        if (fo->rs_pos + resend == fo->rt.end) { /* the resend ends in this write */
            ctl_load(c);
            if (fo->ctl_len) {
                ctl = fo->ctl_len - fo->ctl_done;
                iov[n].iov_base = (char *)&fo->ctl + fo->ctl_done;
                iov[n].iov_len = (size_t)ctl;
                total += ctl;
                n++;
            }
            if (!(fo->ctl_len && fo->ctl.flags == TCP_CTL_GOODBYE))
                n = gather_queue(c, iov, n, &total);
        }
        if (n == 0)
            break;
        ssize_t w = tcp_conn_writev(c, iov, n);
        if (w == -2)
            continue;
        if (w < 0)
            break;
        uint64_t left = (uint64_t)w;
        uint64_t k = left < resend ? left : resend;
        fo->rs_pos += k;
        left -= k;
        if (ctl) {
            k = left < ctl ? left : ctl;
            fo->ctl_done += (unsigned)k;
            left -= k;
            if (fo->ctl_done == fo->ctl_len)
                ctl_written(c);
        }
        frames += tcp_conn_written(c, left, frame_written);
        if ((uint64_t)w < total)
            break; /* the socket is full */
    }
    c->flushing = 0;
    tcp_conn_update_interest(c);
    if (!c->dead && c->rd_eof && !c->sq_head)
        tcp_peer_check_closed(c->ctx, c->peer);
    return frames;
}
