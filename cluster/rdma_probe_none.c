/*
 * rdma_probe_none.c — a build without a verbs library has no RDMA device to
 * probe (see rdma_probe.h).
 */
#include "cluster/rdma_probe.h"

#include <stdio.h>

struct rp_ep *rprobe_open(const char *dev, uint32_t gid_index, int recv, struct rp_qpinfo *me, char *err,
                          size_t cap)
{
    (void)gid_index;
    (void)recv;
    (void)me;
    snprintf(err, cap, "no RDMA devices: this Bolt was built without a verbs library (cannot open %s)", dev);
    return NULL;
}

int rprobe_connect(struct rp_ep *e, const struct rp_qpinfo *peer, char *err, size_t cap)
{
    (void)e;
    (void)peer;
    snprintf(err, cap, "no RDMA devices");
    return -1;
}

int rprobe_send(struct rp_ep *e, const void *buf, size_t len, char *err, size_t cap)
{
    (void)e;
    (void)buf;
    (void)len;
    snprintf(err, cap, "no RDMA devices");
    return -1;
}

int rprobe_poll(struct rp_ep *e, void *buf, size_t *len, char *err, size_t cap)
{
    (void)e;
    (void)buf;
    (void)len;
    snprintf(err, cap, "no RDMA devices");
    return -1;
}

void rprobe_close(struct rp_ep *e)
{
    (void)e;
}
