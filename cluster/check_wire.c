/*
 * check_wire.c — encoding and decoding of the check messages (see
 * check_wire.h). Pure; every read is bounds-checked (the bytes come from
 * another machine) and strings are cut to their field's size.
 */
#include "cluster/check_wire.h"

#include <stdio.h>
#include <string.h>

/* A string field (chan_wire's), cut to its field's size. */
static void get_str(struct chan_rd *r, char *out, size_t cap)
{
    const char *t = chan_rd_str(r);
    snprintf(out, cap, "%s", t ? t : "");
}

static void put_u64(struct chan_buf *b, uint64_t v)
{
    chan_buf_u32(b, (uint32_t)(v >> 32));
    chan_buf_u32(b, (uint32_t)v);
}

static uint64_t get_u64(struct chan_rd *r)
{
    uint64_t hi = chan_rd_u32(r);
    return hi << 32 | chan_rd_u32(r);
}

static int done(const struct chan_rd *r)
{
    return r->bad || r->p != r->end ? -1 : 0;
}

void ck_check_encode(struct chan_buf *b, const struct ck_check *c)
{
    chan_buf_raw(b, CK_MAGIC, sizeof CK_MAGIC);
    chan_buf_str(b, c->host);
    chan_buf_u32(b, c->index);
    chan_buf_u32(b, c->nhosts);
    chan_buf_raw(b, c->secret, BOLT_SECRET_BYTES);
}

int ck_check_decode(const uint8_t *body, size_t len, struct ck_check *c)
{
    struct chan_rd r = {body, body + len, 0};
    memset(c, 0, sizeof *c);
    if (len < sizeof CK_MAGIC || memcmp(body, CK_MAGIC, sizeof CK_MAGIC) != 0)
        return -1;
    r.p += sizeof CK_MAGIC;
    get_str(&r, c->host, sizeof c->host);
    c->index = chan_rd_u32(&r);
    c->nhosts = chan_rd_u32(&r);
    if (r.bad || r.end - r.p != BOLT_SECRET_BYTES || c->index >= c->nhosts)
        return -1;
    memcpy(c->secret, r.p, BOLT_SECRET_BYTES);
    return 0;
}

void ck_info_encode(struct chan_buf *b, const struct ck_info *in)
{
    chan_buf_str(b, in->version);
    chan_buf_str(b, in->hostname);
    chan_buf_str(b, in->os);
    chan_buf_str(b, in->os_release);
    chan_buf_str(b, in->machine);
    chan_buf_u32(b, in->cores);
    chan_buf_u32(b, in->pus);
    put_u64(b, in->mem);
    for (int k = 0; k < 3; k++)
        put_u64(b, in->cache[k]);
    chan_buf_u32(b, in->port);
    chan_buf_u32(b, in->nifs);
    for (uint32_t i = 0; i < in->nifs; i++) {
        chan_buf_str(b, in->ifs[i].name);
        chan_buf_str(b, in->ifs[i].addr);
        chan_buf_u32(b, in->ifs[i].prefix);
        chan_buf_u32(b, in->ifs[i].flags);
    }
    chan_buf_u32(b, in->nrdma);
    for (uint32_t i = 0; i < in->nrdma; i++) {
        const struct ck_rdma *d = &in->rdma[i];
        chan_buf_str(b, d->name);
        chan_buf_u32(b, d->port_state);
        chan_buf_str(b, d->link_layer);
        chan_buf_u32(b, d->mtu);
        chan_buf_u32(b, d->ngids);
        for (uint32_t k = 0; k < d->ngids; k++)
            chan_buf_str(b, d->gids[k]);
        chan_buf_u32(b, d->usable);
        chan_buf_u32(b, d->gid_index);
        chan_buf_str(b, d->gid);
        chan_buf_str(b, d->note);
    }
    chan_buf_str(b, in->rdma_note);
}

int ck_info_decode(const uint8_t *body, size_t len, struct ck_info *in)
{
    struct chan_rd r = {body, body + len, 0};
    memset(in, 0, sizeof *in);
    get_str(&r, in->version, sizeof in->version);
    get_str(&r, in->hostname, sizeof in->hostname);
    get_str(&r, in->os, sizeof in->os);
    get_str(&r, in->os_release, sizeof in->os_release);
    get_str(&r, in->machine, sizeof in->machine);
    in->cores = chan_rd_u32(&r);
    in->pus = chan_rd_u32(&r);
    in->mem = get_u64(&r);
    for (int k = 0; k < 3; k++)
        in->cache[k] = get_u64(&r);
    in->port = chan_rd_u32(&r);
    in->nifs = chan_rd_u32(&r);
    if (in->nifs > CK_MAX_IFS)
        return -1;
    for (uint32_t i = 0; i < in->nifs; i++) {
        get_str(&r, in->ifs[i].name, sizeof in->ifs[i].name);
        get_str(&r, in->ifs[i].addr, sizeof in->ifs[i].addr);
        in->ifs[i].prefix = chan_rd_u32(&r);
        in->ifs[i].flags = chan_rd_u32(&r);
    }
    in->nrdma = chan_rd_u32(&r);
    if (in->nrdma > CK_MAX_RDMA)
        return -1;
    for (uint32_t i = 0; i < in->nrdma && !r.bad; i++) {
        struct ck_rdma *d = &in->rdma[i];
        get_str(&r, d->name, sizeof d->name);
        d->port_state = chan_rd_u32(&r);
        get_str(&r, d->link_layer, sizeof d->link_layer);
        d->mtu = chan_rd_u32(&r);
        d->ngids = chan_rd_u32(&r);
        if (d->ngids > CK_MAX_GIDS)
            return -1;
        for (uint32_t k = 0; k < d->ngids; k++)
            get_str(&r, d->gids[k], sizeof d->gids[k]);
        d->usable = chan_rd_u32(&r);
        d->gid_index = chan_rd_u32(&r);
        get_str(&r, d->gid, sizeof d->gid);
        get_str(&r, d->note, sizeof d->note);
    }
    get_str(&r, in->rdma_note, sizeof in->rdma_note);
    return done(&r);
}

void ck_probe_encode(struct chan_buf *b, const struct ck_probe *p)
{
    chan_buf_u32(b, p->id);
    chan_buf_str(b, p->src);
    chan_buf_str(b, p->dst);
    chan_buf_u32(b, p->port);
}

int ck_probe_decode(struct chan_rd *r, struct ck_probe *p)
{
    memset(p, 0, sizeof *p);
    p->id = chan_rd_u32(r);
    get_str(r, p->src, sizeof p->src);
    get_str(r, p->dst, sizeof p->dst);
    p->port = chan_rd_u32(r);
    return r->bad || p->port == 0 || p->port > 65535 ? -1 : 0;
}

void ck_probed_encode(struct chan_buf *b, const struct ck_probed *p)
{
    chan_buf_u32(b, p->id);
    chan_buf_u32(b, p->ok);
    chan_buf_u32(b, p->who);
    chan_buf_u32(b, p->us);
    chan_buf_str(b, p->local);
    chan_buf_str(b, p->remote);
    chan_buf_str(b, p->err);
}

int ck_probed_decode(const uint8_t *body, size_t len, struct ck_probed *p)
{
    struct chan_rd r = {body, body + len, 0};
    memset(p, 0, sizeof *p);
    p->id = chan_rd_u32(&r);
    p->ok = chan_rd_u32(&r);
    p->who = chan_rd_u32(&r);
    p->us = chan_rd_u32(&r);
    get_str(&r, p->local, sizeof p->local);
    get_str(&r, p->remote, sizeof p->remote);
    get_str(&r, p->err, sizeof p->err);
    return done(&r);
}

void ck_rprobe_encode(struct chan_buf *b, const struct ck_rprobe *p)
{
    chan_buf_u32(b, p->id);
    chan_buf_str(b, p->src);
    chan_buf_str(b, p->dst);
    chan_buf_u32(b, p->port);
    chan_buf_str(b, p->ldev);
    chan_buf_u32(b, p->lgid_index);
    chan_buf_str(b, p->rdev);
    chan_buf_u32(b, p->rgid_index);
}

int ck_rprobe_decode(struct chan_rd *r, struct ck_rprobe *p)
{
    memset(p, 0, sizeof *p);
    p->id = chan_rd_u32(r);
    get_str(r, p->src, sizeof p->src);
    get_str(r, p->dst, sizeof p->dst);
    p->port = chan_rd_u32(r);
    get_str(r, p->ldev, sizeof p->ldev);
    p->lgid_index = chan_rd_u32(r);
    get_str(r, p->rdev, sizeof p->rdev);
    p->rgid_index = chan_rd_u32(r);
    return r->bad || p->port == 0 || p->port > 65535 ? -1 : 0;
}

void ck_rprobed_encode(struct chan_buf *b, const struct ck_rprobed *p)
{
    chan_buf_u32(b, p->id);
    chan_buf_u32(b, p->ok);
    chan_buf_u32(b, p->who);
    chan_buf_str(b, p->err);
}

int ck_rprobed_decode(const uint8_t *body, size_t len, struct ck_rprobed *p)
{
    struct chan_rd r = {body, body + len, 0};
    memset(p, 0, sizeof *p);
    p->id = chan_rd_u32(&r);
    p->ok = chan_rd_u32(&r);
    p->who = chan_rd_u32(&r);
    get_str(&r, p->err, sizeof p->err);
    return done(&r);
}

void ck_measure_encode(struct chan_buf *b, const struct ck_measure *m)
{
    chan_buf_u32(b, m->id);
    chan_buf_str(b, m->src);
    chan_buf_str(b, m->dst);
    chan_buf_u32(b, m->port);
    chan_buf_u32(b, m->pings);
    chan_buf_u32(b, m->bytes);
}

int ck_measure_decode(const uint8_t *body, size_t len, struct ck_measure *m)
{
    struct chan_rd r = {body, body + len, 0};
    memset(m, 0, sizeof *m);
    m->id = chan_rd_u32(&r);
    get_str(&r, m->src, sizeof m->src);
    get_str(&r, m->dst, sizeof m->dst);
    m->port = chan_rd_u32(&r);
    m->pings = chan_rd_u32(&r);
    m->bytes = chan_rd_u32(&r);
    return done(&r) != 0 || m->port == 0 || m->port > 65535 ? -1 : 0;
}

void ck_measured_encode(struct chan_buf *b, const struct ck_measured *m)
{
    chan_buf_u32(b, m->id);
    chan_buf_u32(b, m->ok);
    chan_buf_u32(b, m->lat_ns);
    chan_buf_u32(b, m->tx_kbs);
    chan_buf_u32(b, m->rx_kbs);
    chan_buf_str(b, m->err);
}

int ck_measured_decode(const uint8_t *body, size_t len, struct ck_measured *m)
{
    struct chan_rd r = {body, body + len, 0};
    memset(m, 0, sizeof *m);
    m->id = chan_rd_u32(&r);
    m->ok = chan_rd_u32(&r);
    m->lat_ns = chan_rd_u32(&r);
    m->tx_kbs = chan_rd_u32(&r);
    m->rx_kbs = chan_rd_u32(&r);
    get_str(&r, m->err, sizeof m->err);
    return done(&r);
}
