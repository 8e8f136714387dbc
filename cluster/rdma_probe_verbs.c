/*
 * rdma_probe_verbs.c — one probe queue pair through ibverbs (see
 * rdma_probe.h). UC, SEND/RECV only, as the rdma transport uses it (Apple's
 * stack offers nothing else): a message sent toward the wrong device is lost
 * silently, so the receiving end decides, with a deadline, whether it came.
 */
#include "cluster/rdma_probe.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_ep {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint32_t gid_index, psn;
    uint8_t buf[RP_MSG_MAX];
};

static int fail(char *err, size_t cap, const char *what, const char *dev)
{
    snprintf(err, cap, "%s %s: %s", what, dev, strerror(errno ? errno : EIO));
    return -1;
}

static struct ibv_context *open_named(const char *dev, char *err, size_t cap)
{
    int n = 0;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *c = NULL;
    if (list == NULL) {
        snprintf(err, cap, "no RDMA devices (%s)", errno == ENOSYS ? "this kernel has no RDMA support"
                                                                    : strerror(errno));
        return NULL;
    }
    for (int i = 0; i < n && c == NULL; i++)
        if (strcmp(ibv_get_device_name(list[i]), dev) == 0 && (c = ibv_open_device(list[i])) == NULL)
            fail(err, cap, "cannot open", dev);
    if (c == NULL && !err[0])
        snprintf(err, cap, "no RDMA device named %s on this host", dev);
    ibv_free_device_list(list);
    return c;
}

struct rp_ep *rprobe_open(const char *dev, uint32_t gid_index, int recv, struct rp_qpinfo *me, char *err,
                          size_t cap)
{
    err[0] = '\0';
    struct rp_ep *e = calloc(1, sizeof *e);
    struct ibv_port_attr pa;
    union ibv_gid g;
    if (e == NULL || (e->ctx = open_named(dev, err, cap)) == NULL)
        goto bad;
    e->gid_index = gid_index;
    if (ibv_query_port(e->ctx, 1, &pa) != 0 || ibv_query_gid(e->ctx, 1, (int)gid_index, &g) != 0) {
        fail(err, cap, "cannot query port 1 of", dev);
        goto bad;
    }
    if (pa.state != IBV_PORT_ACTIVE) {
        snprintf(err, cap, "%s port 1 is %s", dev, ibv_port_state_str(pa.state));
        goto bad;
    }
    e->pd = ibv_alloc_pd(e->ctx);
    e->cq = e->pd ? ibv_create_cq(e->ctx, 4, NULL, NULL, 0) : NULL;
    e->mr = e->cq ? ibv_reg_mr(e->pd, e->buf, sizeof e->buf, IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (e->mr == NULL) {
        fail(err, cap, "cannot allocate a protection domain, completion queue or memory region on", dev);
        goto bad;
    }
    struct ibv_qp_init_attr ia = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_UC, .sq_sig_all = 1,
                                  .cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    e->qp = ibv_create_qp(e->pd, &ia);
    if (e->qp == NULL ||
        ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
        fail(err, cap, "cannot create a UC queue pair on", dev);
        goto bad;
    }
    if (recv) {
        struct ibv_sge s = {.addr = (uintptr_t)e->buf, .length = sizeof e->buf, .lkey = e->mr->lkey};
        struct ibv_recv_wr w = {.wr_id = 1, .sg_list = &s, .num_sge = 1}, *badw;
        if (ibv_post_recv(e->qp, &w, &badw) != 0) {
            fail(err, cap, "cannot post a receive on", dev);
            goto bad;
        }
    }
    uint32_t r = 0;
    for (size_t k = 0; k < sizeof g.raw; k++)
        r = r * 31 + g.raw[k];
    e->psn = (r ^ e->qp->qp_num) & 0xffffff;
    memset(me, 0, sizeof *me);
    me->qpn = e->qp->qp_num;
    me->psn = e->psn;
    me->mtu = (uint32_t)pa.active_mtu;
    me->lid = pa.lid;
    memcpy(me->gid, g.raw, sizeof me->gid);
    return e;
bad:
    if (e && !err[0])
        snprintf(err, cap, "out of memory");
    rprobe_close(e);
    return NULL;
}

int rprobe_connect(struct rp_ep *e, const struct rp_qpinfo *peer, char *err, size_t cap)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = (enum ibv_mtu)(peer->mtu < IBV_MTU_256 || peer->mtu > IBV_MTU_4096 ? IBV_MTU_1024 : peer->mtu),
        .dest_qp_num = peer->qpn,
        .rq_psn = peer->psn,
        .ah_attr = {.is_global = 1, .dlid = (uint16_t)peer->lid, .port_num = 1,
                    .grh = {.sgid_index = (uint8_t)e->gid_index, .hop_limit = 64}},
    };
    memcpy(a.ah_attr.grh.dgid.raw, peer->gid, sizeof peer->gid);
    struct ibv_qp_attr s = {.qp_state = IBV_QPS_RTS, .sq_psn = e->psn};
    if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) != 0 ||
        ibv_modify_qp(e->qp, &s, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0) {
        snprintf(err, cap, "cannot connect the queue pair: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int rprobe_send(struct rp_ep *e, const void *buf, size_t len, char *err, size_t cap)
{
    if (len > sizeof e->buf) {
        snprintf(err, cap, "probe message too long");
        return -1;
    }
    memcpy(e->buf, buf, len);
    struct ibv_sge s = {.addr = (uintptr_t)e->buf, .length = (uint32_t)len, .lkey = e->mr->lkey};
    struct ibv_send_wr w = {.wr_id = 2, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND}, *badw;
    if (ibv_post_send(e->qp, &w, &badw) != 0) {
        snprintf(err, cap, "cannot post the send: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int rprobe_poll(struct rp_ep *e, void *buf, size_t *len, char *err, size_t cap)
{
    struct ibv_wc wc;
    int n = ibv_poll_cq(e->cq, 1, &wc);
    if (n < 0) {
        snprintf(err, cap, "polling the completion queue failed");
        return -1;
    }
    if (n == 0)
        return 0;
    if (wc.status != IBV_WC_SUCCESS) {
        snprintf(err, cap, "%s", ibv_wc_status_str(wc.status));
        return -1;
    }
    if (wc.wr_id == 1) {
        *len = wc.byte_len < sizeof e->buf ? wc.byte_len : sizeof e->buf;
        memcpy(buf, e->buf, *len);
    }
    return 1;
}

void rprobe_close(struct rp_ep *e)
{
    if (e == NULL)
        return;
    if (e->qp)
        ibv_destroy_qp(e->qp); /* straight from RTS, as the transport does (Apple's stack) */
    if (e->mr)
        ibv_dereg_mr(e->mr);
    if (e->cq)
        ibv_destroy_cq(e->cq);
    if (e->pd)
        ibv_dealloc_pd(e->pd);
    if (e->ctx)
        ibv_close_device(e->ctx);
    free(e);
}
