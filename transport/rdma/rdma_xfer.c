/*
 * rdma_xfer.c — moving frames through slots: a frame is copied into as many
 * slots as it needs (the first piece carries its header), each slot goes as
 * one SEND when a credit allows, and the receiver copies pieces out to where
 * the runtime wants them, posts the slot's receive again and owes the sender
 * one credit.
 *
 * Only after a frame's last piece is written is it complete for the runtime
 * (its buffer is free again: everything is in our slots). A message stays in
 * its send slot until the peer acknowledges it, so when the link fails
 * (a cable pulled, a port down, a message lost) the messages the peer did
 * not consume are sent again through the tunnel of the peer's standby
 * transport, and the peer's receive side goes on where it stopped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/rdma/rdma.h"

#define RDMA_ACK_DELAY_S 0.002 /* an idle receiver owes acknowledgements at most this long */
#define POLL_BATCH 32

static uint8_t *slot_ptr(uint8_t *base, const struct rdma_qpx *q, uint32_t slot)
{
    return base + (size_t)slot * q->slot;
}

static int post_recv(struct bolt_tl_ctx *ctx, struct rdma_dev *d, int peer, int qk, uint32_t slot)
{
    struct rdma_qpx *q = &ctx->peers[peer].q[qk];
    struct ibv_sge sge = {.addr = (uintptr_t)slot_ptr(q->rx_slots, q, slot), .length = q->slot,
                          .lkey = d->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = rdma_wrid(peer, qk, slot, 0), .sg_list = &sge, .num_sge = 1},
                       *bad = NULL;
    return ibv_post_recv(q->qp, &wr, &bad);
}

int rdma_xfer_post_recvs(struct bolt_tl_ctx *ctx, int peer)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_dev *d = &ctx->devs[p->dev];
    for (int qk = 0; qk < 2; qk++)
        for (uint32_t i = 0; i < p->q[qk].depth; i++)
            if (post_recv(ctx, d, peer, qk, i) != 0)
                return bolt_err_set(BOLT_ERR_SYS, "rdma: cannot post receives for rank %d on %s",
                                    peer, d->name);
    return BOLT_OK;
}

/* ---- failover ---- */

static void tunnel_put(struct bolt_tl_ctx *ctx, int peer, const struct rdma_msg *m)
{
    if (ctx->up->tunnel_send(ctx->up->rt, peer, m, sizeof *m + m->len) != BOLT_OK)
        rdma_peer_fail(ctx, peer, "its rdma link failed and its standby transport cannot "
                                  "carry the traffic");
}

/* BOLT_OK, or an error when the peer has no standby transport. */
static int say_failover(struct bolt_tl_ctx *ctx, int peer)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_msg m = {.kind = RDMA_MSG_FAILOVER};
    /* What we consumed so far: the peer resends everything after it. */
    m.ack[0] = p->q[0].flow.consumed;
    m.ack[1] = p->q[1].flow.consumed;
    return ctx->up->tunnel_send(ctx->up->rt, peer, &m, sizeof m);
}

void rdma_xfer_link_lost(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
{
    struct rdma_peer *p = &ctx->peers[peer];
    char why[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (p->failed || p->tunnel)
        return;
    if (ctx->finalizing || !ctx->up->tunnel_send) {
        rdma_peer_fail(ctx, peer, "%s", why);
        return;
    }
    p->tunnel = 1;
    if (say_failover(ctx, peer) != BOLT_OK) {
        p->tunnel = 0;
        rdma_peer_fail(ctx, peer, "%s (and no other transport of BOLT_TRANSPORTS reaches it)", why);
        return;
    }
    bolt_log(BOLT_LOG_WARN, "rdma: rank %d: %s; its traffic moves to the next transport of "
                            "BOLT_TRANSPORTS", peer, why);
}

/* The peer consumed up to ack[]: everything we sent after that goes again,
 * in order, through the tunnel; then the tunnel carries all our traffic. */
static void failover_resend(struct bolt_tl_ctx *ctx, int peer, const struct rdma_msg *fo)
{
    struct rdma_peer *p = &ctx->peers[peer];
    for (int qk = 0; qk < 2 && !p->failed; qk++) {
        struct rdma_qpx *q = &p->q[qk];
        uint32_t from = fo->ack[qk];
        if ((int32_t)(from - q->flow.acked) < 0 || from - q->flow.acked > rdma_flow_unacked(&q->flow)) {
            rdma_peer_fail(ctx, peer, "failover: it consumed %u messages, we sent %u (%u "
                                      "acknowledged)", from, q->flow.sent, q->flow.acked);
            return;
        }
        rdma_flow_ack(&q->flow, from);
        for (uint32_t seq = from; seq != q->flow.sent && !p->failed; seq++) {
            const struct rdma_msg *m =
                (const struct rdma_msg *)slot_ptr(q->tx_slots, q, seq % q->depth);
            if (m->seq != seq) {
                rdma_peer_fail(ctx, peer, "failover: message %u is no longer in its slot", seq);
                return;
            }
            tunnel_put(ctx, peer, m);
        }
    }
    p->tunnel = 2;
    p->last_ack = ctx->now;
}

/* ---- sending ---- */

/* Posts, or tunnels, one message already written into its send slot. */
static int post_send(struct bolt_tl_ctx *ctx, int peer, int qk, struct rdma_msg *m,
                     uint32_t bytes)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_dev *d = &ctx->devs[p->dev];
    struct rdma_qpx *q = &p->q[qk];
    if (rdma_flow_unacked(&q->flow) == 1 && rdma_flow_unacked(&p->q[!qk].flow) == 0)
        p->last_ack = bolt_tl_now(); /* the first message after an idle spell: silence counts from here */
    if (p->tunnel) {
        tunnel_put(ctx, peer, m);
        return p->failed ? -1 : 0;
    }
    uint32_t slot = m->seq % q->depth;
    struct ibv_sge sge = {.addr = (uintptr_t)m, .length = bytes, .lkey = d->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = rdma_wrid(peer, qk, slot, 1), .sg_list = &sge,
                             .num_sge = 1, .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad = NULL;
    if (bytes <= d->max_inline)
        wr.send_flags |= IBV_SEND_INLINE;
    int e = ibv_post_send(q->qp, &wr, &bad);
    if (e) {
        rdma_xfer_link_lost(ctx, peer, "cannot post a send on %s: %s", d->name, strerror(e));
        return p->failed ? -1 : 0; /* it is in its slot: the failover resends it */
    }
    q->posted++;
    return 0;
}

/* Takes the next message's send slot and writes the header; NULL when the
 * credits or the send queue do not allow it now. */
static struct rdma_msg *msg_start(struct rdma_peer *p, int qk, int ack_only)
{
    struct rdma_qpx *q = &p->q[qk];
    if (p->tunnel == 1 || (!p->tunnel && q->posted >= q->depth) ||
        !rdma_flow_may_send(&q->flow, ack_only))
        return NULL;
    struct rdma_msg *m = (struct rdma_msg *)slot_ptr(q->tx_slots, q, q->flow.sent % q->depth);
    memset(m, 0, sizeof *m);
    m->seq = rdma_flow_sent(&q->flow);
    m->qp = (uint8_t)qk;
    m->ack[0] = rdma_flow_advertise(&p->q[0].flow);
    m->ack[1] = rdma_flow_advertise(&p->q[1].flow);
    p->unadv_since = 0;
    return m;
}

static int push_queue(struct bolt_tl_ctx *ctx, int peer, int qk)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_qpx *q = &p->q[qk];
    const size_t hsz = sizeof(struct bolt_frame_hdr);
    int done = 0;
    while (q->q_head && !p->failed) {
        struct bolt_tl_send *s = q->q_head;
        struct rdma_msg *m = msg_start(p, qk, 0);
        if (!m)
            break;
        uint8_t *w = (uint8_t *)(m + 1);
        size_t room = q->slot - sizeof *m, n = 0, off = 0;
        if (s->tl_done == 0) {
            m->kind = RDMA_MSG_FRAME;
            memcpy(w, &s->hdr, hsz);
            n = hsz;
        } else {
            m->kind = RDMA_MSG_CONT;
            off = s->tl_done - hsz;
        }
        size_t take = s->hdr.len - off;
        if (take > room - n)
            take = room - n;
        if (take)
            memcpy(w + n, (const uint8_t *)s->payload + off, take);
        n += take;
        s->tl_done += (m->kind == RDMA_MSG_FRAME ? hsz : 0) + take;
        m->len = (uint32_t)n;
        int last = s->tl_done == hsz + s->hdr.len;
        if (last) {
            q->q_head = s->tl_next;
            if (!q->q_head)
                q->q_tail = NULL;
            s->tl_next = NULL;
        }
        /* Bulk sends fill their slot: Apple's RECV must span as many frames. */
        uint32_t bytes = qk == RDMA_QP_BULK ? q->slot : (uint32_t)(sizeof *m + n);
        if (post_send(ctx, peer, qk, m, bytes) != 0) {
            if (last)
                s->complete(s, BOLT_ERR_PEER); /* the peer failed; the queue went with it */
            break;
        }
        if (last) {
            s->complete(s, BOLT_OK);
            done++;
        }
    }
    return done;
}

static void send_ack(struct bolt_tl_ctx *ctx, int peer)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_msg *m = msg_start(p, RDMA_QP_CTL, 1);
    if (!m)
        return; /* no credit: the peer owes us acknowledgements and will send them */
    m->kind = RDMA_MSG_CREDIT;
    post_send(ctx, peer, RDMA_QP_CTL, m, sizeof *m);
}

int rdma_xfer_push(struct bolt_tl_ctx *ctx, int peer, double now)
{
    struct rdma_peer *p = &ctx->peers[peer];
    if (p->failed || !p->wired || p->tunnel == 1)
        return 0;
    int done = push_queue(ctx, peer, RDMA_QP_CTL);
    if (!p->failed)
        done += push_queue(ctx, peer, RDMA_QP_BULK);
    if (p->failed)
        return done;
    /* What we consumed goes back with the next message; when none is coming
     * soon enough, in a message of its own. */
    if (rdma_flow_ack_due(&p->q[0].flow) || rdma_flow_ack_due(&p->q[1].flow) ||
        (p->unadv_since > 0 && now > 0 && now - p->unadv_since >= RDMA_ACK_DELAY_S))
        send_ack(ctx, peer);
    return done;
}

void rdma_xfer_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_qpx *q = &p->q[s->hdr.type == BOLT_FRAME_DATA ? RDMA_QP_BULK : RDMA_QP_CTL];
    s->tl_done = 0;
    s->tl_next = NULL;
    if (q->q_tail)
        q->q_tail->tl_next = s;
    else
        q->q_head = s;
    q->q_tail = s;
    rdma_xfer_push(ctx, peer, 0);
}

int rdma_xfer_outgoing(const struct rdma_peer *p)
{
    return p->q[0].q_head || p->q[1].q_head ||
           (!p->tunnel && (p->q[0].posted > 0 || p->q[1].posted > 0));
}

struct bolt_tl_send *rdma_xfer_take_sends(struct rdma_peer *p)
{
    struct bolt_tl_send *head = p->q[0].q_head;
    if (p->q[0].q_tail)
        p->q[0].q_tail->tl_next = p->q[1].q_head;
    else
        head = p->q[1].q_head;
    for (int qk = 0; qk < 2; qk++)
        p->q[qk].q_head = p->q[qk].q_tail = NULL;
    return head;
}

/* ---- receiving ---- */

/* One message from the peer, from receive slot `slot` or (slot < 0) the
 * tunnel. Returns frames delivered; the peer may have failed meanwhile. */
static int on_msg(struct bolt_tl_ctx *ctx, int peer, int qk, const struct rdma_msg *m,
                  size_t bytes, long slot)
{
    const int tunneled = slot < 0;
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_qpx *q = &p->q[qk];
    const char *dn = ctx->devs[p->dev].name;
    const char *qn = qk ? "bulk" : "control";
    const size_t hsz = sizeof(struct bolt_frame_hdr);
    uint32_t lost;
    if (bytes < sizeof *m || m->len > bytes - sizeof *m) {
        rdma_peer_fail(ctx, peer, "malformed %s message (%zu bytes) from %s", qn, bytes,
                       tunneled ? "the tunnel" : dn);
        return 0;
    }
    if (rdma_flow_received(&q->flow, m->seq, &lost) != 0) {
        if (tunneled && (int32_t)(m->seq - q->flow.expect) < 0)
            return 0; /* had it already */
        if (tunneled)
            rdma_peer_fail(ctx, peer, "tunnel: %s message %u where %u was due", qn, m->seq,
                           q->flow.expect);
        else
            rdma_xfer_link_lost(ctx, peer, "%u message(s) lost on %s's %s queue pair (an "
                                           "unreliable link drops them when a cable fails)",
                                lost, dn, qn);
        return 0;
    }
    uint32_t before = p->q[0].flow.acked + p->q[1].flow.acked;
    if (rdma_flow_ack(&p->q[0].flow, m->ack[0]) || rdma_flow_ack(&p->q[1].flow, m->ack[1])) {
        rdma_peer_fail(ctx, peer, "acknowledged messages it never got, on %s", dn);
        return 0;
    }
    if (p->q[0].flow.acked + p->q[1].flow.acked != before)
        p->last_ack = ctx->now;
    const uint8_t *data = (const uint8_t *)(m + 1);
    size_t n = m->len;
    struct rdma_rx *rx = &q->rx;
    int frames = 0;
    switch (m->kind) {
    case RDMA_MSG_CREDIT:
        if (n) {
            rdma_peer_fail(ctx, peer, "malformed acknowledgement on %s", dn);
            return 0;
        }
        break;
    case RDMA_MSG_FRAME:
        if (rx->active || n < hsz) {
            rdma_peer_fail(ctx, peer, "a frame started inside another, or too short, on %s's %s "
                                      "queue pair", dn, qn);
            return 0;
        }
        memcpy(&rx->hdr, data, hsz);
        if (rx->hdr.magic != BOLT_FRAME_MAGIC || (rx->hdr.type == BOLT_FRAME_DATA) != (qk == 1) ||
            ctx->up->frame_begin(ctx->up->rt, peer, &rx->hdr, (void **)&rx->dst, &rx->cookie) < 0) {
            rdma_peer_fail(ctx, peer, "malformed frame (type %u) on %s", rx->hdr.type, dn);
            return 0;
        }
        if (p->failed)
            return 0;
        rx->active = 1;
        rx->got = 0;
        data += hsz;
        n -= hsz;
        /* fall through */
    case RDMA_MSG_CONT:
        if (!rx->active || rx->got + n > rx->hdr.len) {
            rdma_peer_fail(ctx, peer, "stray piece of a frame on %s's %s queue pair", dn, qn);
            return 0;
        }
        if (n)
            memcpy(rx->dst + rx->got, data, n);
        rx->got += n;
        break;
    default:
        rdma_peer_fail(ctx, peer, "unknown message kind %u on %s", m->kind, dn);
        return 0;
    }
    /* The slot's bytes are copied out: post it again before the peer can hear
     * that it may use it. */
    if (!tunneled && post_recv(ctx, &ctx->devs[p->dev], peer, qk, (uint32_t)slot) != 0) {
        rdma_xfer_link_lost(ctx, peer, "cannot post a receive on %s", dn);
        return 0;
    }
    rdma_flow_consumed(&q->flow);
    if (p->unadv_since == 0)
        p->unadv_since = ctx->now > 0 ? ctx->now : bolt_tl_now();
    if (rx->active && rx->got == rx->hdr.len) {
        rx->active = 0;
        ctx->up->frame_end(ctx->up->rt, peer, &rx->hdr, rx->cookie);
        frames++;
    }
    return frames;
}

void rdma_xfer_tunnel_recv(struct bolt_tl_ctx *ctx, int peer, const void *buf, size_t len)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_msg m;
    if (peer < 0 || peer >= ctx->size || !p->wired || p->failed)
        return;
    if (len < sizeof m) {
        rdma_peer_fail(ctx, peer, "malformed tunnel message (%zu bytes)", len);
        return;
    }
    memcpy(&m, buf, sizeof m);
    if (m.kind == RDMA_MSG_FAILOVER) {
        if (p->tunnel == 2)
            return;
        if (p->tunnel == 0) {
            bolt_log(BOLT_LOG_WARN, "rdma: rank %d lost its rdma link to us (device %s here); "
                                    "its traffic moves to the next transport of BOLT_TRANSPORTS",
                     peer, ctx->devs[p->dev].name);
            p->tunnel = 1;
            if (say_failover(ctx, peer) != BOLT_OK) {
                rdma_peer_fail(ctx, peer, "it lost its rdma link to us and the tunnel broke");
                return;
            }
        }
        if (!p->failed) {
            failover_resend(ctx, peer, &m);
            rdma_xfer_push(ctx, peer, 0);
        }
        return;
    }
    if (p->tunnel != 2 || m.qp > 1) {
        rdma_peer_fail(ctx, peer, "tunnel message before the failover");
        return;
    }
    on_msg(ctx, peer, m.qp, (const struct rdma_msg *)buf, len, -1); /* buf is malloc'd */
}

int rdma_xfer_poll(struct bolt_tl_ctx *ctx, struct rdma_dev *d)
{
    struct ibv_wc wc[POLL_BATCH];
    int frames = 0, n;
    if (!d->cq)
        return 0;
    while ((n = ibv_poll_cq(d->cq, POLL_BATCH, wc)) > 0) {
        for (int i = 0; i < n; i++) {
            int peer = (int)(wc[i].wr_id >> 32), qk = (int)((wc[i].wr_id >> 31) & 1),
                is_send = (int)((wc[i].wr_id >> 30) & 1);
            uint32_t slot = (uint32_t)(wc[i].wr_id & 0x3fffffffu);
            if (peer < 0 || peer >= ctx->size)
                continue;
            struct rdma_peer *p = &ctx->peers[peer];
            struct rdma_qpx *q = &p->q[qk];
            if (is_send)
                q->posted--;
            p->touched = 1;
            if (p->failed || p->tunnel)
                continue; /* the tunnel carries this peer now */
            if (wc[i].status != IBV_WC_SUCCESS) {
                rdma_xfer_link_lost(ctx, peer, "%s %s on device %s: %s", qk ? "bulk" : "control",
                                    is_send ? "send" : "receive", d->name,
                                    ibv_wc_status_str(wc[i].status));
                continue;
            }
            if (is_send)
                continue;
            const struct rdma_msg *m = (const struct rdma_msg *)slot_ptr(q->rx_slots, q, slot);
            frames += on_msg(ctx, peer, qk, m, wc[i].byte_len, (long)slot);
        }
        if (n < POLL_BATCH)
            break;
    }
    /* New credits: queued frames may go now. */
    for (int k = 0; k < ctx->nwired; k++) {
        struct rdma_peer *p = &ctx->peers[ctx->wired[k]];
        if (p->touched && p->dev == (int)(d - ctx->devs)) {
            p->touched = 0;
            frames += rdma_xfer_push(ctx, ctx->wired[k], 0);
        }
    }
    return frames;
}
