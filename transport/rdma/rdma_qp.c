/*
 * rdma_qp.c — queue pairs: created against Apple's cap, moved through
 * INIT -> RTR -> RTS (UC by default, RC on request), destroyed without ever
 * being put into the ERR state first (Apple's stack keeps stale resources
 * that make later RTR transitions fail until reboot).
 */
#include <errno.h>
#include <string.h>

#include "runtime/errors.h"
#include "transport/rdma/rdma.h"

int rdma_qp_create(struct bolt_tl_ctx *ctx, struct rdma_dev *d, struct rdma_qpx *q)
{
    if (d->nqp >= d->max_qp)
        return bolt_err_set(BOLT_ERR_UNSUPPORTED,
                            "rdma: device %s would need more than %d queue pairs (2 per "
                            "peer it reaches; Apple's devices refuse the 11th for good): use "
                            "fewer ranks per host or devices per peer, raise BOLT_RDMA_MAX_QP "
                            "where the device allows more, or leave rdma out of BOLT_TRANSPORTS",
                            d->name, d->max_qp);
    struct ibv_qp_init_attr ia = {
        .send_cq = d->cq,
        .recv_cq = d->cq,
        .cap = {.max_send_wr = q->depth, .max_recv_wr = q->depth, .max_send_sge = 1,
                .max_recv_sge = 1, .max_inline_data = 64},
        .qp_type = ctx->uc ? IBV_QPT_UC : IBV_QPT_RC,
        .sq_sig_all = 1,
    };
    q->qp = ibv_create_qp(d->pd, &ia);
    if (!q->qp && ia.cap.max_inline_data) { /* some devices take no inline data */
        ia.cap.max_inline_data = 0;
        q->qp = ibv_create_qp(d->pd, &ia);
    }
    if (!q->qp)
        return bolt_err_set(BOLT_ERR_SYS, "rdma: cannot create a %s queue pair on %s: %s",
                            ctx->uc ? "UC" : "RC", d->name, strerror(errno));
    d->nqp++;
    d->max_inline = ia.cap.max_inline_data;
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = (uint8_t)d->port,
        .qp_access_flags = 0, /* SEND/RECV only */
    };
    if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return bolt_err_set(BOLT_ERR_SYS, "rdma: queue pair on %s: INIT failed: %s",
                            d->name, strerror(errno));
    return BOLT_OK;
}

int rdma_qp_connect(struct bolt_tl_ctx *ctx, struct rdma_dev *d, struct rdma_qpx *q,
                    const union ibv_gid *dgid, uint32_t dqpn, uint32_t dpsn, enum ibv_mtu mtu,
                    uint16_t dlid, int peer)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mtu,
        .dest_qp_num = dqpn,
        .rq_psn = dpsn,
        .ah_attr = {.dlid = dlid, .sl = 0, .src_path_bits = 0, .port_num = (uint8_t)d->port},
    };
    if (d->ipv4 || d->link_layer != IBV_LINK_LAYER_INFINIBAND || dlid == 0) {
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = *dgid;
        a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (!ctx->uc) {
        a.max_dest_rd_atomic = 1;
        a.min_rnr_timer = 12;
        mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    if (ibv_modify_qp(q->qp, &a, mask))
        return bolt_err_set(BOLT_ERR_SYS,
                            "rdma: queue pair on %s to rank %d: RTR failed: %s (a "
                            "stale queue pair of an earlier job can cause this on macOS)",
                            d->name, peer, strerror(errno));
    struct ibv_qp_attr s = {.qp_state = IBV_QPS_RTS, .sq_psn = q->psn};
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (!ctx->uc) {
        /* Retries end (IBV_WC_RETRY_EXC_ERR) instead of spinning forever. */
        s.timeout = 14;
        s.retry_cnt = 6;
        s.rnr_retry = 6;
        s.max_rd_atomic = 1;
        mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    if (ibv_modify_qp(q->qp, &s, mask))
        return bolt_err_set(BOLT_ERR_SYS, "rdma: queue pair on %s to rank %d: RTS failed: %s",
                            d->name, peer, strerror(errno));
    return BOLT_OK;
}

void rdma_qp_destroy(struct rdma_dev *d, struct rdma_qpx *q)
{
    if (q->qp) {
        ibv_destroy_qp(q->qp); /* straight from RTS: never through ERR */
        q->qp = NULL;
        d->nqp--;
    }
}
