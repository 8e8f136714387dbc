/*
 * rdma_probe.h — the verbs half of an RDMA device-pair probe (cluster/probe.c
 * carries the exchange over its authenticated TCP connection): one queue
 * pair on one of this host's devices, connected to the other end's, that
 * sends or receives one small message (the check secret's proof).
 *
 * One file per case: rdma_probe_verbs.c (ibverbs: rdma-core, Apple's
 * librdma) and rdma_probe_none.c (a build without verbs: every open fails
 * with "no RDMA devices").
 */
#ifndef BOLT_CLUSTER_RDMA_PROBE_H
#define BOLT_CLUSTER_RDMA_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define RP_MSG_MAX 64

struct rp_qpinfo {           /* what the other end needs to reach a queue pair */
    uint32_t qpn, psn, mtu;  /* mtu: enum ibv_mtu */
    uint32_t lid;
    uint8_t gid[16];
};

struct rp_ep;

/* A UC queue pair on this host's device `dev` (port 1), addressed from GID
 * index `gid_index`; a receive is posted when `recv`. NULL with err. */
struct rp_ep *rprobe_open(const char *dev, uint32_t gid_index, int recv, struct rp_qpinfo *me, char *err,
                          size_t cap);
/* Moves the queue pair to RTR and RTS toward `peer`. 0, or -1 with err. */
int rprobe_connect(struct rp_ep *e, const struct rp_qpinfo *peer, char *err, size_t cap);
/* Posts one send of len (<= RP_MSG_MAX) bytes. 0, or -1 with err. */
int rprobe_send(struct rp_ep *e, const void *buf, size_t len, char *err, size_t cap);
/* Polls the completion queue once: 1 when the posted receive (or send)
 * completed (*len bytes in buf for a receive), 0 not yet, -1 with err. */
int rprobe_poll(struct rp_ep *e, void *buf, size_t *len, char *err, size_t cap);
void rprobe_close(struct rp_ep *e);

#endif
