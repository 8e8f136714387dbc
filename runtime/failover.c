/* failover.c — standby transports and the tunnel through them (failover.h). */
#include <stdlib.h>
#include <string.h>

#include "runtime/errors.h"
#include "runtime/failover.h"
#include "runtime/log.h"
#include "runtime/proto_internal.h"
#include "runtime/runtime.h"

#define TUNNEL_MAX ((uint64_t)1 << 27) /* one message of a transport, never more */

struct tunnel_send {
    struct bolt_tl_send s;
    unsigned char data[];
};

static void tunnel_sent(struct bolt_tl_send *s, int error)
{
    (void)error; /* a broken standby reports itself through peer_failed */
    free(s);
}

static int tunnel_send(void *rt, int peer, const void *buf, size_t len)
{
    (void)rt;
    if (peer < 0 || peer >= bolt_rt.size || len > TUNNEL_MAX)
        return BOLT_ERR_ARG;
    int t = bolt_rt.peers[peer].standby;
    if (t < 0 || !bolt_rt.tlctx[t] || bolt_rt.peers[peer].failed)
        return BOLT_ERR_PEER;
    if (!bolt_rt.peers[peer].tunneling) {
        bolt_rt.peers[peer].tunneling = 1;
        bolt_rt.tunnels++;
    }
    struct tunnel_send *ts = malloc(sizeof *ts + len);
    if (!ts)
        return BOLT_ERR_NOMEM;
    memset(&ts->s, 0, sizeof ts->s);
    ts->s.hdr.magic = BOLT_FRAME_MAGIC;
    ts->s.hdr.type = BOLT_FRAME_TUNNEL;
    ts->s.hdr.len = len;
    ts->s.hdr.src = bolt_rt.rank;
    memcpy(ts->data, buf, len);
    ts->s.payload = ts->data;
    ts->s.complete = tunnel_sent;
    int rc = bolt_rt.tls[t]->send(bolt_rt.tlctx[t], peer, &ts->s);
    if (rc != BOLT_OK)
        free(ts);
    return rc;
}

/* The standby's link breaking is no news for the peer while its primary
 * works: the standby is just gone. The primary's breaking is. */
static void failover_peer_failed(void *rt, int peer, int error, const char *why)
{
    int t = *(const int *)rt;
    struct bolt_peer *p = &bolt_rt.peers[peer];
    if (t != p->tl && t == p->standby && !p->tunneling) {
        p->standby = -1;
        if (!p->bye && !p->failed)
            bolt_log(BOLT_LOG_INFO, "rank %d on %s: standby transport %s lost: %s", peer, p->host,
                     bolt_rt.tls[t]->name, why ? why : "");
        return;
    }
    proto_peer_failed(&bolt_rt, peer, error, why);
}

void bolt_failover_upcalls(int t, struct bolt_tl_upcalls *up)
{
    *up = bolt_rt.up;
    bolt_rt.tl_index[t] = t;
    up->rt = &bolt_rt.tl_index[t];
    up->peer_failed = failover_peer_failed;
    up->tunnel_send = tunnel_send;
}

int bolt_failover_standby(int p)
{
    int tl = bolt_rt.peers[p].tl;
    if (tl < 0 || !bolt_rt.tls[tl]->tunnel_recv)
        return -1;
    for (int t = tl + 1; t < bolt_rt.ntls; t++)
        if (bolt_rt.tls[t]->reachable(bolt_rt.tlctx[t], p) == 1)
            return t;
    return -1;
}

int bolt_failover_tunnel_begin(int peer, const struct bolt_frame_hdr *h, void **dst,
                               void **cookie)
{
    int tl = bolt_rt.peers[peer].tl;
    if (tl < 0 || !bolt_rt.tls[tl]->tunnel_recv || h->len == 0 || h->len > TUNNEL_MAX) {
        bolt_err_set(BOLT_ERR_PROTO, "a tunnel frame from rank %d that nothing here expects",
                     peer);
        proto_peer_failed(&bolt_rt, peer, BOLT_ERR_PROTO,
                          "protocol error: unexpected tunnel frame");
        return BOLT_ERR_PROTO;
    }
    void *buf = malloc(h->len);
    if (!buf) {
        proto_peer_failed(&bolt_rt, peer, BOLT_ERR_NOMEM, "out of memory for a tunnel frame");
        return BOLT_ERR_NOMEM;
    }
    *dst = buf;
    *cookie = buf;
    return BOLT_OK;
}

void bolt_failover_tunnel_end(int peer, const struct bolt_frame_hdr *h, void *cookie)
{
    int tl = bolt_rt.peers[peer].tl;
    if (tl >= 0 && bolt_rt.tlctx[tl] && bolt_rt.tls[tl]->tunnel_recv && !bolt_rt.peers[peer].failed)
        bolt_rt.tls[tl]->tunnel_recv(bolt_rt.tlctx[tl], peer, cookie, h->len);
    free(cookie);
}
