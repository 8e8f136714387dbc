/*
 * probe_rdma.c — proving RDMA device pairs between two hosts of a cluster
 * check (see probe.h): over one authenticated TCP connection (mode 2) from
 * the prober P to the listener L, for every pair (P's device, L's device)
 * at once:
 *   P -> L  u32 n, n x {str L's device, u32 its GID index, P's queue pair}
 *   L -> P  u32 n, n x {u32 ok, str why not, L's queue pair, nonce}
 *           (L's queue pair is connected to P's, a receive posted)
 *   P -> L  u32 n, n x {u32 sent, str why not}: P sent, over RDMA from its
 *           device, its index and HMAC(secret, nonce, index)
 *   L -> P  u32 n, n x {u32 ok, str why not}: the proof arrived within
 *           RECV_S on L's device and was right
 * A queue pair is {u32 qpn, u32 psn, u32 mtu, u32 lid, 16 GID bytes}; each
 * message is u32 length + body. UC loses a message sent to the wrong device
 * silently, so only L can tell, and only by the deadline.
 */
#include "cluster/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bolt.h"
#include "cluster/rdma_probe.h"
#include "runtime/kvs_wire.h"

#define EXCHANGE_S 10.0
#define RECV_S 2.0
#define MSG_MAX (1u << 20)

static int send_msg(int fd, struct chan_buf *b, double deadline)
{
    uint8_t h[4];
    bolt_kvs_put_u32(h, (uint32_t)b->len);
    int rc = b->failed ? BOLT_ERR_NOMEM : bolt_kvs_write_full(fd, h, 4, deadline);
    if (rc == BOLT_OK)
        rc = bolt_kvs_write_full(fd, b->p, b->len, deadline);
    chan_buf_free(b);
    memset(b, 0, sizeof *b);
    return rc;
}

/* One message into *body (the caller frees it). */
static int recv_msg(int fd, uint8_t **body, struct chan_rd *r, double deadline)
{
    uint8_t h[4];
    *body = NULL;
    int rc = bolt_kvs_read_full(fd, h, 4, deadline);
    uint32_t len = rc == BOLT_OK ? bolt_kvs_get_u32(h) : 0;
    if (rc == BOLT_OK && (len > MSG_MAX || (*body = malloc(len ? len : 1)) == NULL))
        rc = BOLT_ERR_PROTO;
    if (rc == BOLT_OK)
        rc = bolt_kvs_read_full(fd, *body, len, deadline);
    r->p = *body;
    r->end = *body ? *body + len : NULL;
    r->bad = rc != BOLT_OK;
    return rc;
}

static void put_qp(struct chan_buf *b, const struct rp_qpinfo *q)
{
    chan_buf_u32(b, q->qpn);
    chan_buf_u32(b, q->psn);
    chan_buf_u32(b, q->mtu);
    chan_buf_u32(b, q->lid);
    chan_buf_raw(b, q->gid, sizeof q->gid);
}

static void get_raw(struct chan_rd *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p, n);
    r->p += n;
}

static void get_qp(struct chan_rd *r, struct rp_qpinfo *q)
{
    q->qpn = chan_rd_u32(r);
    q->psn = chan_rd_u32(r);
    q->mtu = chan_rd_u32(r);
    q->lid = chan_rd_u32(r);
    get_raw(r, q->gid, sizeof q->gid);
}

static void get_str(struct chan_rd *r, char *out, size_t cap)
{
    const char *t = chan_rd_str(r);
    snprintf(out, cap, "%s", t ? t : "");
}

struct serve_one {
    struct rp_ep *ep;
    uint8_t nonce[BOLT_KVS_NONCE_BYTES];
    int state;                 /* 0 failed, 1 waiting, 2 proven */
    char err[CK_ERR];
};

/* L's side: `who` proved itself on the TCP connection. */
void probe_rdma_serve(const struct probe_self *me, int fd, uint32_t who)
{
    double deadline = bolt_kvs_now() + EXCHANGE_S;
    uint8_t *body = NULL;
    struct chan_rd r;
    struct chan_buf b = {0};
    struct serve_one *s = NULL;
    uint32_t n = 0;
    if (recv_msg(fd, &body, &r, deadline) != BOLT_OK)
        goto out;
    n = chan_rd_u32(&r);
    if (r.bad || n > 4096 || (s = calloc(n ? n : 1, sizeof *s)) == NULL)
        goto out;
    chan_buf_u32(&b, n);
    for (uint32_t i = 0; i < n; i++) {
        char dev[64];
        struct rp_qpinfo theirs, mine = {0};
        get_str(&r, dev, sizeof dev);
        uint32_t gi = chan_rd_u32(&r);
        get_qp(&r, &theirs);
        if (r.bad)
            goto out;
        s[i].ep = rprobe_open(dev, gi, 1, &mine, s[i].err, sizeof s[i].err);
        if (s[i].ep && rprobe_connect(s[i].ep, &theirs, s[i].err, sizeof s[i].err) == 0 &&
            bolt_random_bytes(s[i].nonce, sizeof s[i].nonce) == 0)
            s[i].state = 1;
        chan_buf_u32(&b, s[i].state == 1);
        chan_buf_str(&b, s[i].err);
        put_qp(&b, &mine);
        chan_buf_raw(&b, s[i].nonce, sizeof s[i].nonce);
    }
    free(body);
    body = NULL;
    if (send_msg(fd, &b, deadline) != BOLT_OK || recv_msg(fd, &body, &r, deadline) != BOLT_OK ||
        chan_rd_u32(&r) != n)
        goto out;
    int waiting = 0;
    for (uint32_t i = 0; i < n; i++) {
        char why[CK_ERR];
        uint32_t sent = chan_rd_u32(&r);
        get_str(&r, why, sizeof why);
        if (s[i].state == 1 && !sent) {
            snprintf(s[i].err, sizeof s[i].err, "the prober could not send: %.200s", why);
            s[i].state = 0;
        }
        waiting += s[i].state == 1;
    }
    if (r.bad)
        goto out;
    /* The proofs, as they come: one deadline for all. */
    double until = bolt_kvs_now() + RECV_S;
    while (waiting > 0 && bolt_kvs_now() < until) {
        for (uint32_t i = 0; i < n; i++) {
            uint8_t m[RP_MSG_MAX], mac[BOLT_HMAC_BYTES];
            size_t len = 0;
            uint32_t from;
            if (s[i].state != 1)
                continue;
            int pr = rprobe_poll(s[i].ep, m, &len, s[i].err, sizeof s[i].err);
            if (pr == 0)
                continue;
            waiting--;
            s[i].state = 0;
            if (pr < 0)
                continue;
            if (len != BOLT_KVS_AUTH_BYTES) {
                snprintf(s[i].err, sizeof s[i].err, "a message of %zu bytes arrived, not the proof", len);
                continue;
            }
            bolt_kvs_auth_decode(m, &from, mac);
            if (from != who || !bolt_kvs_auth_check(me->secret, s[i].nonce, from, mac))
                snprintf(s[i].err, sizeof s[i].err, "a wrong proof arrived: not this check's");
            else
                s[i].state = 2;
        }
        if (waiting > 0)
            usleep(200);
    }
    chan_buf_u32(&b, n);
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].state == 1)
            snprintf(s[i].err, sizeof s[i].err, "nothing arrived within %g s (the devices are not cabled to "
                     "each other)", RECV_S);
        chan_buf_u32(&b, s[i].state == 2);
        chan_buf_str(&b, s[i].state == 2 ? "" : s[i].err);
    }
    (void)send_msg(fd, &b, deadline);
out:
    for (uint32_t i = 0; s && i < n; i++)
        rprobe_close(s[i].ep);
    free(s);
    free(body);
    chan_buf_free(&b);
}

/* Waits for the local completion of a send (UC: it left the device). */
static int sent_ok(struct rp_ep *e, char *err, size_t cap)
{
    double until = bolt_kvs_now() + 1.0;
    uint8_t m[RP_MSG_MAX];
    size_t len;
    for (;;) {
        int pr = rprobe_poll(e, m, &len, err, cap);
        if (pr != 0)
            return pr > 0 ? 0 : -1;
        if (bolt_kvs_now() > until) {
            snprintf(err, cap, "the send did not complete within 1 s");
            return -1;
        }
        usleep(100);
    }
}

void probe_rdma(const struct probe_self *me, const struct ck_rprobe *p, uint32_t n, struct ck_rprobed *out)
{
    struct rp_ep **ep = calloc(n ? n : 1, sizeof *ep);
    uint32_t who = 0, asked = 0;
    uint8_t *body = NULL;
    struct chan_rd r;
    struct chan_buf b = {0};
    char err[CK_ERR] = "";
    for (uint32_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].id = p[i].id;
    }
    if (ep == NULL) {
        snprintf(err, sizeof err, "out of memory");
        goto out;
    }
    /* Our queue pairs first: a device of ours that cannot take one is not
     * asked about. */
    chan_buf_u32(&b, 0);
    for (uint32_t i = 0; i < n; i++) {
        struct rp_qpinfo mine;
        ep[i] = rprobe_open(p[i].ldev, p[i].lgid_index, 0, &mine, out[i].err, sizeof out[i].err);
        if (ep[i] == NULL)
            continue;
        chan_buf_str(&b, p[i].rdev);
        chan_buf_u32(&b, p[i].rgid_index);
        put_qp(&b, &mine);
        asked++;
    }
    if (asked == 0)
        goto out;
    if (b.len >= 4)
        bolt_kvs_put_u32(b.p, asked);
    int fd = probe_open_proven(me, p[0].src, p[0].dst, p[0].port, 2, &who, err, sizeof err);
    if (fd < 0) {
        chan_buf_free(&b);
        goto out;
    }
    double deadline = bolt_kvs_now() + EXCHANGE_S;
    if (send_msg(fd, &b, deadline) != BOLT_OK || recv_msg(fd, &body, &r, deadline) != BOLT_OK ||
        chan_rd_u32(&r) != asked) {
        snprintf(err, sizeof err, "the queue pair exchange with %s failed (no answer, or a different Bolt)", p[0].dst);
        close(fd);
        goto out;
    }
    chan_buf_u32(&b, asked);
    for (uint32_t i = 0; i < n; i++) {
        if (ep[i] == NULL)
            continue;
        struct rp_qpinfo theirs;
        uint8_t nonce[BOLT_KVS_NONCE_BYTES], proof[BOLT_KVS_AUTH_BYTES], mac[BOLT_HMAC_BYTES];
        uint32_t ok = chan_rd_u32(&r);
        get_str(&r, out[i].err, sizeof out[i].err);
        get_qp(&r, &theirs);
        get_raw(&r, nonce, sizeof nonce);
        uint32_t sent = 0;
        if (r.bad)
            break;
        if (!ok) {
            char why[CK_ERR];
            snprintf(why, sizeof why, "%s", out[i].err);
            snprintf(out[i].err, sizeof out[i].err, "%.60s: %.180s", p[i].rdev, why);
        } else if (bolt_kvs_auth_mac(me->secret, nonce, me->index, mac) != 0) {
            snprintf(out[i].err, sizeof out[i].err, "no HMAC from the crypto library");
        } else {
            bolt_kvs_auth_encode(me->index, mac, proof);
            sent = rprobe_connect(ep[i], &theirs, out[i].err, sizeof out[i].err) == 0 &&
                   rprobe_send(ep[i], proof, sizeof proof, out[i].err, sizeof out[i].err) == 0 &&
                   sent_ok(ep[i], out[i].err, sizeof out[i].err) == 0;
        }
        chan_buf_u32(&b, sent);
        chan_buf_str(&b, sent ? "" : out[i].err);
    }
    free(body);
    body = NULL;
    if (r.bad || send_msg(fd, &b, deadline) != BOLT_OK || recv_msg(fd, &body, &r, deadline) != BOLT_OK ||
        chan_rd_u32(&r) != asked) {
        snprintf(err, sizeof err, "the RDMA probe exchange with %s failed midway", p[0].dst);
        close(fd);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ep[i] == NULL)
            continue;
        uint32_t ok = chan_rd_u32(&r);
        char why[CK_ERR];
        get_str(&r, why, sizeof why);
        if (r.bad)
            break;
        out[i].ok = ok;
        out[i].who = who;
        if (!ok && why[0])
            snprintf(out[i].err, sizeof out[i].err, "%s", why);
    }
    close(fd);
out:
    for (uint32_t i = 0; i < n; i++) {
        if (!out[i].ok && !out[i].err[0])
            snprintf(out[i].err, sizeof out[i].err, "%s", err[0] ? err : "no answer");
        if (ep)
            rprobe_close(ep[i]);
    }
    free(ep);
    free(body);
    chan_buf_free(&b);
}
