/*
 * rdma_xfer.c — moving frames through slots: a frame is copied into as many
 * slots as it needs (the first piece carries its header), each slot goes as
 * one SEND when a credit and a free send slot allow, and the receiver copies
 * pieces out to where the runtime wants them, posts the slot's receive again
 * and owes the sender one credit.
 *
 * Only after a frame's last piece is posted is it complete for the runtime
 * (its buffer is free again: everything is in our slots).
 */
#include <string.h>

#include "runtime/errors.h"
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
                return bolt_err_set(BOLT_ERR_SYS,
                                    "rdma: cannot post receives for rank %d on %s",
                                    peer, d->name);
    return BOLT_OK;
}

/* Posts one message already written into send slot `slot`. */
static int post_send(struct bolt_tl_ctx *ctx, int peer, int qk, uint32_t slot, uint32_t bytes)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_dev *d = &ctx->devs[p->dev];
    struct rdma_qpx *q = &p->q[qk];
    struct ibv_sge sge = {.addr = (uintptr_t)slot_ptr(q->tx_slots, q, slot), .length = bytes,
                          .lkey = d->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = rdma_wrid(peer, qk, slot, 1), .sg_list = &sge,
                             .num_sge = 1, .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad = NULL;
    if (bytes <= d->max_inline)
        wr.send_flags |= IBV_SEND_INLINE;
    if (rdma_flow_unacked(&p->q[0].flow) == 0 && rdma_flow_unacked(&p->q[1].flow) == 0)
        p->last_ack = ctx->now; /* silence only counts from here */
    int e = ibv_post_send(q->qp, &wr, &bad);
    if (e) {
        q->tx_free[q->ntx_free++] = slot;
        rdma_peer_fail(ctx, peer, "cannot post a send on %s: %s", d->name, strerror(e));
        return -1;
    }
    p->posted_tx++;
    return 0;
}

/* Takes a send slot and writes the header; NULL when none or no credit. */
static struct rdma_msg *msg_start(struct rdma_peer *p, int qk, int ack_only, uint32_t *slot)
{
    struct rdma_qpx *q = &p->q[qk];
    if (q->ntx_free == 0 || !rdma_flow_may_send(&q->flow, ack_only))
        return NULL;
    *slot = q->tx_free[--q->ntx_free];
    struct rdma_msg *m = (struct rdma_msg *)slot_ptr(q->tx_slots, q, *slot);
    memset(m, 0, sizeof *m);
    m->seq = rdma_flow_sent(&q->flow);
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
        uint32_t slot;
        struct rdma_msg *m = msg_start(p, qk, 0, &slot);
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
        /* Bulk sends fill their slot: Apple's RECV must span as many frames. */
        uint32_t bytes = qk == RDMA_QP_BULK ? q->slot : (uint32_t)(sizeof *m + n);
        if (post_send(ctx, peer, qk, slot, bytes) != 0)
            break; /* the peer failed: its queue was completed with an error */
        if (s->tl_done == hsz + s->hdr.len) {
            q->q_head = s->tl_next;
            if (!q->q_head)
                q->q_tail = NULL;
            s->tl_next = NULL;
            s->complete(s, BOLT_OK);
            done++;
        }
    }
    return done;
}

static void send_ack(struct bolt_tl_ctx *ctx, int peer)
{
    struct rdma_peer *p = &ctx->peers[peer];
    uint32_t slot;
    struct rdma_msg *m = msg_start(p, RDMA_QP_CTL, 1, &slot);
    if (!m)
        return; /* no credit: the peer owes us acknowledgements and will send them */
    m->kind = RDMA_MSG_CREDIT;
    post_send(ctx, peer, RDMA_QP_CTL, slot, sizeof *m);
}

int rdma_xfer_push(struct bolt_tl_ctx *ctx, int peer, double now)
{
    struct rdma_peer *p = &ctx->peers[peer];
    if (p->failed || !p->wired)
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
    return p->q[0].q_head || p->q[1].q_head || p->posted_tx > 0;
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

static int on_recv(struct bolt_tl_ctx *ctx, struct rdma_dev *d, int peer, int qk, uint32_t slot,
                   uint32_t bytes)
{
    struct rdma_peer *p = &ctx->peers[peer];
    struct rdma_qpx *q = &p->q[qk];
    const struct rdma_msg *m = (const struct rdma_msg *)slot_ptr(q->rx_slots, q, slot);
    const char *qn = qk ? "bulk" : "control";
    const size_t hsz = sizeof(struct bolt_frame_hdr);
    uint32_t lost;
    if (bytes < sizeof *m || m->len > bytes - sizeof *m) {
        rdma_peer_fail(ctx, peer, "malformed %s message (%u bytes) on %s", qn, bytes, d->name);
        return 0;
    }
    if (rdma_flow_received(&q->flow, m->seq, &lost) != 0) {
        rdma_peer_fail(ctx, peer, "%u message(s) lost on %s's %s queue pair (an unreliable link "
                                  "drops them when a cable fails)", lost, d->name, qn);
        return 0;
    }
    uint32_t before = p->q[0].flow.acked + p->q[1].flow.acked;
    if (rdma_flow_ack(&p->q[0].flow, m->ack[0]) || rdma_flow_ack(&p->q[1].flow, m->ack[1])) {
        rdma_peer_fail(ctx, peer, "acknowledged messages it never got, on %s", d->name);
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
            rdma_peer_fail(ctx, peer, "malformed acknowledgement on %s", d->name);
            return 0;
        }
        break;
    case RDMA_MSG_FRAME:
        if (rx->active || n < hsz) {
            rdma_peer_fail(ctx, peer, "a frame started inside another, or too short, on %s's %s "
                                      "queue pair", d->name, qn);
            return 0;
        }
        memcpy(&rx->hdr, data, hsz);
        if (rx->hdr.magic != BOLT_FRAME_MAGIC || (rx->hdr.type == BOLT_FRAME_DATA) != (qk == 1) ||
            ctx->up->frame_begin(ctx->up->rt, peer, &rx->hdr, (void **)&rx->dst, &rx->cookie) < 0) {
            rdma_peer_fail(ctx, peer, "malformed frame (type %u) on %s", rx->hdr.type, d->name);
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
            rdma_peer_fail(ctx, peer, "stray piece of a frame on %s's %s queue pair", d->name, qn);
            return 0;
        }
        if (n)
            memcpy(rx->dst + rx->got, data, n);
        rx->got += n;
        break;
    default:
        rdma_peer_fail(ctx, peer, "unknown message kind %u on %s", m->kind, d->name);
        return 0;
    }
    /* The slot is free again: post it, and owe the peer the credit. */
    if (post_recv(ctx, d, peer, qk, slot) != 0) {
        rdma_peer_fail(ctx, peer, "cannot post a receive on %s", d->name);
        return 0;
    }
    rdma_flow_consumed(&q->flow);
    if (p->unadv_since == 0)
        p->unadv_since = ctx->now > 0 ? ctx->now : rdma_now();
    if (rx->active && rx->got == rx->hdr.len) {
        rx->active = 0;
        ctx->up->frame_end(ctx->up->rt, peer, &rx->hdr, rx->cookie);
        frames++;
    }
    return frames;
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
            if (is_send) {
                p->q[qk].tx_free[p->q[qk].ntx_free++] = slot;
                p->posted_tx--;
            }
            p->touched = 1;
            if (p->failed)
                continue;
            if (wc[i].status != IBV_WC_SUCCESS) {
                rdma_peer_fail(ctx, peer, "%s %s on device %s: %s", qk ? "bulk" : "control",
                               is_send ? "send" : "receive", d->name,
                               ibv_wc_status_str(wc[i].status));
                continue;
            }
            if (!is_send)
                frames += on_recv(ctx, d, peer, qk, slot, wc[i].byte_len);
        }
        if (n < POLL_BATCH)
            break;
    }
    /* New credits and free slots: queued frames may go now. */
    for (int k = 0; k < ctx->nwired; k++) {
        struct rdma_peer *p = &ctx->peers[ctx->wired[k]];
        if (p->touched && p->dev == (int)(d - ctx->devs)) {
            p->touched = 0;
            frames += rdma_xfer_push(ctx, ctx->wired[k], 0);
        }
    }
    return frames;
}
