/*
 * rdma.h — the RDMA transport's private state (transport/transport.h).
 *
 * Built for Apple's RDMA over Thunderbolt 5 and run unchanged on rdma-core:
 * unreliable-connected (UC) queue pairs by default, two-sided SEND/RECV
 * only, fixed-size slots so that a SEND and its RECV span the same number of
 * 4 KiB frames, a few registered slabs per device (user memory is never
 * registered), and counted queue pairs and memory regions so that Apple's
 * caps are refused cleanly before they are hit.
 *
 * Per peer there are two queue pairs on the device that reaches it:
 *   ctl  — 4 KiB slots; every frame but DATA, in order (large ones span
 *          several slots), and credit returns;
 *   bulk — BOLT_RDMA_SLOT slots (padded to full size); DATA frames.
 * Every message starts with struct rdma_msg: a sequence number (UC drops
 * silently: a gap is an error) and cumulative acknowledgements of what this
 * side consumed on both queue pairs, which are the peer's credits.
 */
#ifndef BOLT_RDMA_H
#define BOLT_RDMA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transport/rdma/rdma_devmap.h"
#include "transport/rdma/rdma_flow.h"
#include "transport/transport.h"

#include <infiniband/verbs.h>

#define RDMA_CTL_SLOT 4096u       /* one Thunderbolt/Apple frame */
#define RDMA_MAX_DEVS 16
#define RDMA_NAME_MAX 64

enum rdma_qp_kind { RDMA_QP_CTL = 0, RDMA_QP_BULK = 1 };

enum rdma_msg_kind {
    RDMA_MSG_FRAME = 1,  /* struct bolt_frame_hdr, then the first payload bytes */
    RDMA_MSG_CONT = 2,   /* more payload bytes of the frame in progress */
    RDMA_MSG_CREDIT = 3, /* acknowledgements only */
    RDMA_MSG_FAILOVER = 4, /* through the standby: my link to you failed; ack[] is what I
                              consumed, resend the rest (not sequenced) */
};

struct rdma_msg {
    uint32_t seq;      /* per queue pair, from 0 */
    uint32_t ack[2];   /* messages I consumed from you, per queue pair (cumulative) */
    uint32_t len;      /* bytes after this header that belong to the stream */
    uint8_t kind;
    uint8_t qp;        /* enum rdma_qp_kind: the stream it belongs to (read when tunneled) */
    uint8_t pad[6];
};
_Static_assert(sizeof(struct rdma_msg) == 24, "rdma message header is 24 bytes");

/* One device (and port) this process uses. */
struct rdma_dev {
    char name[RDMA_NAME_MAX];
    int port;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *chan;
    struct ibv_cq *cq;
    union ibv_gid gid;
    int gid_index;
    uint32_t ipv4;            /* network order; from the IPv4-mapped GID */
    int prefix;               /* of the interface that has ipv4; 32 if unknown */
    enum ibv_mtu mtu;
    int link_layer;
    /* Counted against Apple's caps (BOLT_RDMA_MAX_QP / BOLT_RDMA_MAX_MR). */
    int nqp, nmr;
    int max_qp, max_mr;
    uint32_t max_inline;
    /* The slab: every slot of every peer on this device, one registration. */
    uint8_t *slab;
    size_t slab_bytes;
    struct ibv_mr *mr;
    int npeers;               /* peers reached through this device */
    unsigned armed;           /* completion notification requested */
};

/* A frame being sent or received in pieces on one queue pair. */
struct rdma_rx {
    int active;
    struct bolt_frame_hdr hdr;
    uint8_t *dst;
    void *cookie;
    uint64_t got;
};

struct rdma_qpx {
    struct ibv_qp *qp;
    uint32_t psn;
    uint32_t slot;            /* bytes per slot */
    uint32_t depth;           /* receives posted; send slots too */
    uint8_t *rx_slots, *tx_slots;
    /* Message `seq` is written in send slot seq % depth and stays there until
     * the peer acknowledges it (credits guarantee that): after a failover the
     * unacknowledged ones are sent again from there. */
    uint32_t posted;          /* sends posted, completion not yet seen */
    struct rdma_flow flow;
    struct rdma_rx rx;
    struct bolt_tl_send *q_head, *q_tail; /* frames waiting for slots/credits */
};

struct rdma_peer {
    int wired, failed;
    int dev;                  /* index in ctx->devs; -1: not reachable */
    int peer_dev;             /* index in the peer's published device list */
    char why[560];            /* why it is not reachable */
    int touched;              /* completions arrived in this poll */
    struct rdma_qpx q[2];
    double last_ack;          /* when the peer last acknowledged something */
    double unadv_since;       /* first consumption not yet acknowledged; 0: none */
    /* Failover (runtime/failover.h): 0 on our queue pairs; 1 asked the peer
     * to move to the tunnel, waiting for its answer; 2 in the tunnel. */
    int tunnel;
};

struct bolt_tl_ctx {
    int rank, size;
    const struct bolt_tl_upcalls *up;
    struct rdma_dev devs[RDMA_MAX_DEVS];
    int ndevs;
    char why[512];            /* why no device is usable (ndevs == 0) */
    struct rdma_devmap map;   /* BOLT_RDMA_DEVMAP's pairs (n 0: none) */
    int map_given;            /* BOLT_RDMA_DEVMAP is set */
    struct rdma_peer *peers;  /* by world rank */
    int *wired;
    int nwired;
    char **pub;               /* peers' published device lists, fetched lazily */
    int uc;                   /* 1: UC queue pairs (default), 0: RC */
    size_t eager_limit;
    uint32_t bulk_slot, ctl_depth, bulk_depth;
    double timeout, ack_timeout;
    unsigned polls;
    double now;               /* clock at the start of this progress pass */
    int finalizing;
    int in_progress;
};

/* rdma_dev.c */
int rdma_devs_open(struct bolt_tl_ctx *ctx);
void rdma_devs_close(struct bolt_tl_ctx *ctx);
/* What this process publishes about its devices. */
int rdma_devs_describe(const struct bolt_tl_ctx *ctx, char *out, size_t cap);
/* The local device that reaches a peer whose published text is `pub`, and
 * the peer's device index (-1 if none); *why says why not. *map_line is the
 * device map's line that paired them (0: matched by address). */
int rdma_devs_route(const struct bolt_tl_ctx *ctx, const char *pub, int *peer_dev,
                    int *map_line, char *why, size_t cap);
/* Field `field` (0 name, 1 port, 2 gid hex, 3 ipv4, 4 prefix, 5 mtu, 6 lid)
 * of the peer's device `dev` in its published text. */
int rdma_pub_field(const char *pub, int dev, int field, char *out, size_t cap);
/* A GID from its 32 hex digits (as published); 0 or -1. */
int rdma_gid_parse(const char *s, union ibv_gid *g);
/* bolt-info: every device, port, state, GID and limit on this host. */
void rdma_devs_list(FILE *out);

/* rdma_qp.c */
int rdma_qp_create(struct bolt_tl_ctx *ctx, struct rdma_dev *d, struct rdma_qpx *q);
int rdma_qp_connect(struct bolt_tl_ctx *ctx, struct rdma_dev *d, struct rdma_qpx *q,
                    const union ibv_gid *dgid, uint32_t dqpn, uint32_t dpsn, enum ibv_mtu mtu,
                    uint16_t dlid, int peer);
void rdma_qp_destroy(struct rdma_dev *d, struct rdma_qpx *q);

/* rdma_xfer.c */
void rdma_xfer_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s);
int rdma_xfer_post_recvs(struct bolt_tl_ctx *ctx, int peer);
/* Polls the device's completion queue; returns frames delivered or sent. */
int rdma_xfer_poll(struct bolt_tl_ctx *ctx, struct rdma_dev *d);
/* Pushes queued frames and due acknowledgements for a peer. */
int rdma_xfer_push(struct bolt_tl_ctx *ctx, int peer, double now);
int rdma_xfer_outgoing(const struct rdma_peer *p);
/* Our link to the peer failed: move to the tunnel through its standby
 * transport, or fail the peer when it has none. */
void rdma_xfer_link_lost(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Bytes from the peer's rdma transport, through the tunnel. */
void rdma_xfer_tunnel_recv(struct bolt_tl_ctx *ctx, int peer, const void *buf, size_t len);
struct bolt_tl_send *rdma_xfer_take_sends(struct rdma_peer *p);

/* wr_id: peer, queue pair, slot, direction. */
static inline uint64_t rdma_wrid(int peer, int qk, uint32_t slot, int is_send)
{
    return ((uint64_t)(uint32_t)peer << 32) | ((uint64_t)(qk & 1) << 31) |
           ((uint64_t)(is_send & 1) << 30) | (slot & 0x3fffffffu);
}

/* rdma_ctx.c */
void rdma_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
