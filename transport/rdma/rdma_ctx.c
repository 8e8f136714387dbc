/*
 * rdma_ctx.c — the RDMA transport's ops (transport/transport.h): settings,
 * devices, reachability, wire-up through the bootstrap store, progress with
 * silence and port-down detection, sleeping on completion channels,
 * finalize.
 *
 * Wire-up per peer, all through the store: publish the queue pair numbers
 * and PSNs made for that peer; take the peer's; move both queue pairs to RTS;
 * only then post the receives (Apple's rule), and say so; start sending only
 * once the peer has said so too — a UC SEND that finds no receive is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/rdma/rdma.h"

#define PUB_MAX 4096

void rdma_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
{
    struct rdma_peer *p = &ctx->peers[peer];
    if (p->failed)
        return;
    char why[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    p->failed = 1;
    struct bolt_tl_send *left = rdma_xfer_take_sends(p);
    if (!ctx->finalizing) {
        bolt_log(BOLT_LOG_INFO, "rdma: rank %d: %s", peer, why);
        ctx->up->peer_failed(ctx->up->rt, peer, BOLT_ERR_PEER, why);
    }
    bolt_tl_complete_list(left, BOLT_ERR_PEER);
}

static void destroy(struct bolt_tl_ctx *ctx)
{
    if (ctx->peers)
        for (int r = 0; r < ctx->size; r++) {
            struct rdma_peer *p = &ctx->peers[r];
            for (int qk = 0; qk < 2; qk++) {
                if (p->dev >= 0)
                    rdma_qp_destroy(&ctx->devs[p->dev], &p->q[qk]);
            }
        }
    for (int i = 0; i < ctx->ndevs; i++)
        if (ctx->devs[i].cq && ctx->devs[i].armed)
            ibv_ack_cq_events(ctx->devs[i].cq, ctx->devs[i].armed);
    rdma_devs_close(ctx);
    if (ctx->pub)
        for (int r = 0; r < ctx->size; r++)
            free(ctx->pub[r]);
    free(ctx->pub);
    free(ctx->peers);
    free(ctx->wired);
    free(ctx);
}

static int setting_depth(enum bolt_param_id id, const char *name, uint32_t *out)
{
    long long v = bolt_param_int(id);
    if (v < 4 || v > 4096)
        return bolt_err_set(BOLT_ERR_CONFIG, "%s=%lld: use 4 to 4096", name, v);
    *out = (uint32_t)v;
    return BOLT_OK;
}

static int rdma_init(struct bolt_tl_ctx **out, const struct bolt_tl_init_args *args)
{
    *out = NULL;
    if (!args || !args->up || args->size < 1 || args->rank < 0 || args->rank >= args->size)
        return bolt_err_set(BOLT_ERR_ARG, "rdma: init with a bad rank/size");
    struct bolt_tl_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return bolt_err_set(BOLT_ERR_NOMEM, "rdma: out of memory");
    ctx->rank = args->rank;
    ctx->size = args->size;
    ctx->up = args->up;
    int rc = BOLT_OK;
    const char *qp = bolt_param_string(BOLT_P_RDMA_QP);
    if (!strcmp(qp, "uc") || !strcmp(qp, "UC"))
        ctx->uc = 1;
    else if (!strcmp(qp, "rc") || !strcmp(qp, "RC"))
        ctx->uc = 0;
    else {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "BOLT_RDMA_QP='%s': use uc or rc", qp);
        goto fail;
    }
    long long slot = bolt_param_int(BOLT_P_RDMA_SLOT);
    if (slot < 8192 || slot > (64 << 20) || slot % 4096) {
        rc = bolt_err_set(BOLT_ERR_CONFIG,
                          "BOLT_RDMA_SLOT=%lld: use a multiple of 4 KiB from 8K to 64M", slot);
        goto fail;
    }
    ctx->bulk_slot = (uint32_t)slot;
    if ((rc = setting_depth(BOLT_P_RDMA_CTL_DEPTH, "BOLT_RDMA_CTL_DEPTH", &ctx->ctl_depth)) ||
        (rc = setting_depth(BOLT_P_RDMA_BULK_DEPTH, "BOLT_RDMA_BULK_DEPTH", &ctx->bulk_depth)))
        goto fail;
    long long eager = bolt_param_int(BOLT_P_RDMA_EAGER_LIMIT);
    /* An eager frame must fit the control window with room to spare. */
    long long cap = (long long)(ctx->ctl_depth / 4) * (RDMA_CTL_SLOT - sizeof(struct rdma_msg)) -
                    (long long)sizeof(struct bolt_frame_hdr);
    ctx->eager_limit = (size_t)(eager < 0 ? 0 : eager > cap ? cap : eager);
    ctx->timeout = bolt_param_double(BOLT_P_TIMEOUT);
    if (!(ctx->timeout > 0))
        ctx->timeout = 60;
    ctx->ack_timeout = bolt_param_double(BOLT_P_RDMA_ACK_TIMEOUT);
    if (!(ctx->ack_timeout > 0))
        ctx->ack_timeout = ctx->timeout;
    ctx->peers = calloc((size_t)ctx->size, sizeof *ctx->peers);
    ctx->wired = calloc((size_t)ctx->size, sizeof *ctx->wired);
    ctx->pub = calloc((size_t)ctx->size, sizeof *ctx->pub);
    if (!ctx->peers || !ctx->wired || !ctx->pub) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "rdma: out of memory");
        goto fail;
    }
    for (int r = 0; r < ctx->size; r++)
        ctx->peers[r].dev = -1;
    if (ctx->size > 1 && (rc = rdma_devs_open(ctx)))
        goto fail;
    char pub[PUB_MAX], key[64];
    if ((rc = rdma_devs_describe(ctx, pub, sizeof pub)))
        goto fail;
    snprintf(key, sizeof key, "rdma.%d", ctx->rank);
    if (ctx->size > 1 && (rc = bolt_bootstrap_put(key, pub, strlen(pub) + 1)))
        goto fail;
    if (ctx->ndevs == 0)
        bolt_log(BOLT_LOG_INFO, "rdma: no usable device: %s", ctx->why);
    *out = ctx;
    return BOLT_OK;
fail:
    destroy(ctx);
    return rc;
}

static const char *peer_pub(struct bolt_tl_ctx *ctx, int peer)
{
    if (ctx->pub[peer])
        return ctx->pub[peer];
    char *buf = malloc(PUB_MAX);
    char key[64];
    size_t len = 0;
    snprintf(key, sizeof key, "rdma.%d", peer);
    if (!buf || bolt_bootstrap_get(key, buf, PUB_MAX - 1, &len) != BOLT_OK || len >= PUB_MAX) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    ctx->pub[peer] = buf;
    return buf;
}

static int rdma_reachable(struct bolt_tl_ctx *ctx, int peer)
{
    if (!ctx || peer < 0 || peer >= ctx->size || peer == ctx->rank)
        return 0;
    struct rdma_peer *p = &ctx->peers[peer];
    if (p->dev >= 0)
        return 1;
    if (ctx->ndevs == 0) {
        snprintf(p->why, sizeof p->why, "rdma: %s", ctx->why);
        return 0;
    }
    const char *pub = peer_pub(ctx, peer);
    if (!pub) {
        snprintf(p->why, sizeof p->why, "rdma: its device list is not in the bootstrap store");
        return 0;
    }
    char why[160];
    int line = 0;
    int d = rdma_devs_route(ctx, pub, &p->peer_dev, &line, why, sizeof why);
    if (d < 0) {
        snprintf(p->why, sizeof p->why, "rdma: %s", why);
        return 0;
    }
    if (line > 0)
        bolt_log(BOLT_LOG_DEBUG, "rdma: rank %d through %s: device map %s:%d", peer, ctx->devs[d].name,
                 bolt_param_string(BOLT_P_RDMA_DEVMAP), line);
    else if (ctx->map_given)
        bolt_log(BOLT_LOG_INFO, "rdma: rank %d: the device map %s pairs none of our devices with its: matched "
                 "by address (%s)", peer, bolt_param_string(BOLT_P_RDMA_DEVMAP), ctx->devs[d].name);
    p->dev = d;
    return 1;
}

static int rdma_unreachable_why(struct bolt_tl_ctx *ctx, int peer, char *buf, size_t cap)
{
    if (!ctx || peer < 0 || peer >= ctx->size || !ctx->peers[peer].why[0])
        return 0;
    snprintf(buf, cap, "%s", ctx->peers[peer].why);
    return 1;
}

/* Slab and completion queue of a device, sized for its peers. */
static int dev_setup(struct bolt_tl_ctx *ctx, struct rdma_dev *d)
{
    if (2 * d->npeers > d->max_qp - d->nqp)
        return bolt_err_set(BOLT_ERR_UNSUPPORTED,
                            "rdma: device %s would need %d queue pairs for %d peers, more than "
                            "its cap of %d (BOLT_RDMA_MAX_QP; Apple's devices refuse the 11th "
                            "for good): run fewer ranks per host, or leave rdma out of "
                            "BOLT_TRANSPORTS for these peers",
                            d->name, 2 * d->npeers, d->npeers, d->max_qp);
    if (d->nmr + 1 > d->max_mr)
        return bolt_err_set(BOLT_ERR_UNSUPPORTED,
                            "rdma: device %s: registering one more memory region would pass its "
                            "cap of %d (BOLT_RDMA_MAX_MR)", d->name, d->max_mr);
    size_t per_peer = 2 * ((size_t)ctx->ctl_depth * RDMA_CTL_SLOT +
                           (size_t)ctx->bulk_depth * ctx->bulk_slot);
    d->slab_bytes = per_peer * (size_t)d->npeers;
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, d->slab_bytes) != 0)
        return bolt_err_set(BOLT_ERR_NOMEM, "rdma: cannot allocate %zu bytes of slots for %s",
                            d->slab_bytes, d->name);
    d->slab = mem;
    memset(d->slab, 0, d->slab_bytes);
    /* Apple's stack rejects regions registered for local write only. */
    d->mr = ibv_reg_mr(d->pd, d->slab, d->slab_bytes,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!d->mr)
        return bolt_err_set(BOLT_ERR_SYS, "rdma: cannot register %zu bytes on %s: %s (locked "
                                          "memory limit? see ulimit -l)",
                            d->slab_bytes, d->name, strerror(errno));
    d->nmr++;
    int cq_size = (int)(2 * (ctx->ctl_depth + ctx->bulk_depth)) * d->npeers + 16;
    d->cq = ibv_create_cq(d->ctx, cq_size, NULL, d->chan, 0);
    if (!d->cq)
        return bolt_err_set(BOLT_ERR_SYS, "rdma: cannot create a completion queue of %d on %s: %s",
                            cq_size, d->name, strerror(errno));
    int fl = fcntl(d->chan->fd, F_GETFL);
    if (fl >= 0)
        fcntl(d->chan->fd, F_SETFL, fl | O_NONBLOCK);
    fl = fcntl(d->ctx->async_fd, F_GETFL);
    if (fl >= 0)
        fcntl(d->ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
    return BOLT_OK;
}

static int qpx_setup(struct bolt_tl_ctx *ctx, struct rdma_dev *d, struct rdma_qpx *q,
                     uint32_t slot, uint32_t depth, size_t *off)
{
    q->slot = slot;
    q->depth = depth;
    q->rx_slots = d->slab + *off;
    *off += (size_t)slot * depth;
    q->tx_slots = d->slab + *off;
    *off += (size_t)slot * depth;
    q->psn = (uint32_t)(rand() & 0xffffff);
    rdma_flow_init(&q->flow, depth);
    return rdma_qp_create(ctx, d, q);
}

static int parse_u32s(const char *s, uint32_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        unsigned long x = strtoul(s, &end, 10);
        if (end == s || errno || x > 0xffffffffu)
            return -1;
        v[i] = (uint32_t)x;
        s = end;
    }
    return 0;
}

/* Moves the peer's queue pairs to RTS against what it published. */
static int wire_peer(struct bolt_tl_ctx *ctx, int r)
{
    struct rdma_peer *p = &ctx->peers[r];
    struct rdma_dev *d = &ctx->devs[p->dev];
    char key[64], val[128], gid[40], mtu_s[8], lid_s[8];
    size_t len = 0;
    uint32_t v[4];
    union ibv_gid g;
    snprintf(key, sizeof key, "rdma.%d.%d", r, ctx->rank);
    int rc = bolt_bootstrap_get(key, val, sizeof val - 1, &len);
    if (rc)
        return rc;
    val[len < sizeof val ? len : sizeof val - 1] = '\0';
    const char *pub = ctx->pub[r];
    if (parse_u32s(val, v, 4) || rdma_pub_field(pub, p->peer_dev, 2, gid, sizeof gid) ||
        rdma_gid_parse(gid, &g) || rdma_pub_field(pub, p->peer_dev, 5, mtu_s, sizeof mtu_s) ||
        rdma_pub_field(pub, p->peer_dev, 6, lid_s, sizeof lid_s))
        return bolt_err_set(BOLT_ERR_PROTO, "rdma: rank %d published a malformed queue pair "
                                            "record '%s'", r, val);
    int their_mtu = atoi(mtu_s);
    enum ibv_mtu mtu = (int)d->mtu < their_mtu ? d->mtu : (enum ibv_mtu)their_mtu;
    for (int qk = 0; qk < 2; qk++)
        if ((rc = rdma_qp_connect(ctx, d, &p->q[qk], &g, v[2 * qk], v[2 * qk + 1], mtu,
                                  (uint16_t)atoi(lid_s), r)))
            return rc;
    if ((rc = rdma_xfer_post_recvs(ctx, r)))
        return rc;
    snprintf(key, sizeof key, "rdma.%d.%d.up", ctx->rank, r);
    return bolt_bootstrap_put(key, "1", 2);
}

static int rdma_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers)
{
    if (!ctx || npeers < 0 || (npeers > 0 && !peers))
        return bolt_err_set(BOLT_ERR_ARG, "rdma: connect with a bad peer list");
    int rc = BOLT_OK;
    for (int k = 0; k < npeers; k++) {
        if (!rdma_reachable(ctx, peers[k]))
            return bolt_err_set(BOLT_ERR_ARG, "rdma: rank %d is not reachable: %s", peers[k],
                                ctx->peers[peers[k]].why);
        if (!ctx->peers[peers[k]].wired)
            ctx->devs[ctx->peers[peers[k]].dev].npeers++;
    }
    for (int i = 0; i < ctx->ndevs; i++)
        if (ctx->devs[i].npeers > 0 && !ctx->devs[i].cq && (rc = dev_setup(ctx, &ctx->devs[i])))
            return rc;
    size_t *off = calloc((size_t)ctx->ndevs, sizeof *off);
    if (!off)
        return bolt_err_set(BOLT_ERR_NOMEM, "rdma: out of memory");
    srand((unsigned)(getpid() ^ (unsigned)(bolt_tl_now() * 1e6)));
    for (int k = 0; k < npeers && !rc; k++) {
        int r = peers[k];
        struct rdma_peer *p = &ctx->peers[r];
        struct rdma_dev *d = &ctx->devs[p->dev];
        if ((rc = qpx_setup(ctx, d, &p->q[RDMA_QP_CTL], RDMA_CTL_SLOT, ctx->ctl_depth,
                            &off[p->dev])) ||
            (rc = qpx_setup(ctx, d, &p->q[RDMA_QP_BULK], ctx->bulk_slot, ctx->bulk_depth,
                            &off[p->dev])))
            break;
        char key[64], val[128];
        snprintf(key, sizeof key, "rdma.%d.%d", ctx->rank, r);
        snprintf(val, sizeof val, "%u %u %u %u", p->q[0].qp->qp_num, p->q[0].psn,
                 p->q[1].qp->qp_num, p->q[1].psn);
        rc = bolt_bootstrap_put(key, val, strlen(val) + 1);
    }
    free(off);
    for (int k = 0; k < npeers && !rc; k++)
        rc = wire_peer(ctx, peers[k]);
    for (int k = 0; k < npeers && !rc; k++) {
        int r = peers[k];
        char key[64], val[8];
        size_t len;
        snprintf(key, sizeof key, "rdma.%d.%d.up", r, ctx->rank);
        if ((rc = bolt_bootstrap_get(key, val, sizeof val, &len)))
            break;
        struct rdma_peer *p = &ctx->peers[r];
        p->wired = 1;
        p->last_ack = bolt_tl_now();
        ctx->wired[ctx->nwired++] = r;
        bolt_log(BOLT_LOG_DEBUG, "rdma: rank %d over %s (%s)", r, ctx->devs[p->dev].name,
                 ctx->uc ? "UC" : "RC");
    }
    return rc;
}

static int rdma_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    if (!ctx || !s || peer < 0 || peer >= ctx->size)
        return bolt_err_set(BOLT_ERR_ARG, "rdma: send to rank %d: no such rank", peer);
    if (s->hdr.len > 0 && !s->payload)
        return bolt_err_set(BOLT_ERR_ARG, "rdma: send of %llu bytes without a payload",
                            (unsigned long long)s->hdr.len);
    struct rdma_peer *p = &ctx->peers[peer];
    if (p->failed) {
        s->tl_next = NULL;
        s->complete(s, BOLT_ERR_PEER);
        return BOLT_OK;
    }
    if (!p->wired)
        return bolt_err_set(BOLT_ERR_ARG, "rdma: send to rank %d, which is not wired", peer);
    rdma_xfer_send(ctx, peer, s);
    return BOLT_OK;
}

/* A port that went down takes every peer behind it; a queue pair that broke
 * takes its peer. */
static void check_async(struct bolt_tl_ctx *ctx, struct rdma_dev *d)
{
    struct ibv_async_event ev;
    while (ibv_get_async_event(d->ctx, &ev) == 0) {
        enum ibv_event_type t = ev.event_type;
        if (t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_DEVICE_FATAL) {
            for (int k = 0; k < ctx->nwired; k++) {
                int r = ctx->wired[k];
                if (ctx->peers[r].dev == (int)(d - ctx->devs))
                    rdma_xfer_link_lost(ctx, r, "port %d of %s went down (%s): cable unplugged?",
                                        d->port, d->name, ibv_event_type_str(t));
            }
        } else if (t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
                   t == IBV_EVENT_QP_ACCESS_ERR) {
            for (int k = 0; k < ctx->nwired; k++) {
                int r = ctx->wired[k];
                struct rdma_peer *p = &ctx->peers[r];
                if (p->q[0].qp == ev.element.qp || p->q[1].qp == ev.element.qp)
                    rdma_xfer_link_lost(ctx, r, "its queue pair on %s broke (%s)", d->name,
                                        ibv_event_type_str(t));
            }
        }
        ibv_ack_async_event(&ev);
    }
}

/* UC never says a message was lost: silence past the limit while messages
 * wait for acknowledgement is a dead link or a stopped peer. */
static void check_silence(struct bolt_tl_ctx *ctx)
{
    for (int k = 0; k < ctx->nwired; k++) {
        int r = ctx->wired[k];
        struct rdma_peer *p = &ctx->peers[r];
        if (p->failed || p->tunnel || (rdma_flow_unacked(&p->q[0].flow) == 0 &&
                          rdma_flow_unacked(&p->q[1].flow) == 0))
            continue;
        if (ctx->now - p->last_ack > ctx->ack_timeout)
            rdma_xfer_link_lost(ctx, r, "nothing acknowledged over %s for %.0f s "
                                        "(BOLT_RDMA_ACK_TIMEOUT / BOLT_TIMEOUT): the link is "
                                        "down or the peer stopped",
                                ctx->devs[p->dev].name, ctx->now - p->last_ack);
    }
}

static int rdma_progress(struct bolt_tl_ctx *ctx)
{
    if (!ctx || ctx->nwired == 0 || ctx->in_progress)
        return 0;
    ctx->in_progress = 1;
    ctx->now = bolt_tl_now();
    int frames = 0;
    for (int i = 0; i < ctx->ndevs; i++)
        frames += rdma_xfer_poll(ctx, &ctx->devs[i]);
    for (int k = 0; k < ctx->nwired; k++)
        frames += rdma_xfer_push(ctx, ctx->wired[k], ctx->now);
    if ((++ctx->polls & 63u) == 0) {
        for (int i = 0; i < ctx->ndevs; i++)
            if (ctx->devs[i].cq)
                check_async(ctx, &ctx->devs[i]);
        check_silence(ctx);
    }
    ctx->in_progress = 0;
    return frames;
}

static int rdma_pollfds(struct bolt_tl_ctx *ctx, struct pollfd *fds, int max)
{
    int n = 0;
    if (!ctx || ctx->nwired == 0)
        return 0;
    for (int i = 0; i < ctx->ndevs && n + 2 <= max; i++) {
        struct rdma_dev *d = &ctx->devs[i];
        if (!d->cq)
            continue;
        fds[n++] = (struct pollfd){.fd = d->chan->fd, .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = d->ctx->async_fd, .events = POLLIN};
    }
    return n;
}

static int rdma_sleep_prepare(struct bolt_tl_ctx *ctx)
{
    if (!ctx || ctx->nwired == 0)
        return 0;
    int work = 0;
    ctx->now = bolt_tl_now();
    /* About to idle: what we owe goes now, not after the sleep. */
    for (int k = 0; k < ctx->nwired; k++) {
        struct rdma_peer *p = &ctx->peers[ctx->wired[k]];
        if (p->unadv_since > 0)
            p->unadv_since = ctx->now - 1.0;
        rdma_xfer_push(ctx, ctx->wired[k], ctx->now);
    }
    for (int i = 0; i < ctx->ndevs; i++) {
        struct rdma_dev *d = &ctx->devs[i];
        if (!d->cq)
            continue;
        if (ibv_req_notify_cq(d->cq, 0) != 0)
            return 1; /* cannot arm: do not sleep */
        /* Completions that came before arming raise no event: look again. */
        work += rdma_xfer_poll(ctx, d);
    }
    return work > 0;
}

static void rdma_sleep_done(struct bolt_tl_ctx *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->ndevs; i++) {
        struct rdma_dev *d = &ctx->devs[i];
        struct ibv_cq *cq;
        void *cctx;
        if (!d->cq)
            continue;
        while (ibv_get_cq_event(d->chan, &cq, &cctx) == 0)
            d->armed++;
        if (d->armed >= 64) {
            ibv_ack_cq_events(d->cq, d->armed);
            d->armed = 0;
        }
    }
}

static void rdma_tunnel_recv(struct bolt_tl_ctx *ctx, int peer, const void *buf, size_t len)
{
    if (!ctx)
        return;
    ctx->now = bolt_tl_now();
    rdma_xfer_tunnel_recv(ctx, peer, buf, len);
}

static size_t rdma_eager_limit(struct bolt_tl_ctx *ctx, int peer)
{
    (void)peer;
    return ctx ? ctx->eager_limit : 0;
}

static int rdma_data_stripes(struct bolt_tl_ctx *ctx, int peer, size_t bytes)
{
    (void)ctx;
    (void)peer;
    (void)bytes;
    return 1; /* one bulk queue pair per peer; the slots pipeline the frame */
}

static int any_outgoing(struct bolt_tl_ctx *ctx)
{
    for (int k = 0; k < ctx->nwired; k++) {
        const struct rdma_peer *p = &ctx->peers[ctx->wired[k]];
        if (!p->failed && rdma_xfer_outgoing(p))
            return 1;
    }
    return 0;
}

static void rdma_finalize(struct bolt_tl_ctx *ctx)
{
    if (!ctx)
        return;
    ctx->finalizing = 1;
    if (ctx->nwired > 0) {
        /* Queued frames need the peer's credits; posted sends need their
         * completions before the queue pairs go. Bounded by BOLT_TIMEOUT;
         * silence ends it sooner. */
        double deadline = bolt_tl_now() + ctx->timeout;
        while (any_outgoing(ctx) && bolt_tl_now() < deadline) {
            ctx->polls |= 63u;
            if (rdma_progress(ctx) == 0)
                usleep(100);
        }
        if (any_outgoing(ctx))
            bolt_log(BOLT_LOG_WARN, "rdma: finalize: sends still pending after %g s "
                                    "(BOLT_TIMEOUT); they fail with BOLT_ERR_PEER",
                     ctx->timeout);
        for (int k = 0; k < ctx->nwired; k++)
            bolt_tl_complete_list(rdma_xfer_take_sends(&ctx->peers[ctx->wired[k]]), BOLT_ERR_PEER);
    }
    destroy(ctx);
}

const struct bolt_transport bolt_transport_rdma = {
    .name = "rdma",
    .init = rdma_init,
    .reachable = rdma_reachable,
    .connect = rdma_connect,
    .send = rdma_send,
    .progress = rdma_progress,
    .pollfds = rdma_pollfds,
    .eager_limit = rdma_eager_limit,
    .data_stripes = rdma_data_stripes,
    .finalize = rdma_finalize,
    .sleep_prepare = rdma_sleep_prepare,
    .sleep_done = rdma_sleep_done,
    .unreachable_why = rdma_unreachable_why,
    .tunnel_recv = rdma_tunnel_recv,
};
