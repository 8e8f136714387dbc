/*
 * rdma_dev.c — which RDMA devices this process uses, what it publishes about
 * them, and which device reaches which peer.
 *
 * On a Mac every Thunderbolt cable end is its own device (rdma_enN) with an
 * IPv4-mapped GID of that port's address, so a device is kept when its port
 * is active and its GID is one of this host's addresses (in the test VM,
 * where every network namespace sees every device, that also keeps only the
 * host's own cable ends). A peer is reached through the device whose address
 * shares the longest subnet with one of the peer's device addresses: the
 * cable between the two.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/hostid.h"
#include "runtime/log.h"
#include "transport/rdma/rdma.h"

#define GID_SCAN 16 /* IPv4-mapped GIDs sit at low indexes; sysfs reads are slow */

static int gid_ipv4(const union ibv_gid *g, uint32_t *ip)
{
    static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(g->raw, pre, sizeof pre) != 0)
        return 0;
    memcpy(ip, g->raw + 12, 4);
    return *ip != 0;
}

/* Prefix length of the local interface that has `ip`; -1 if none does. */
static int local_prefix(uint32_t ip)
{
    struct ifaddrs *ifs = NULL, *i;
    int prefix = -1;
    if (getifaddrs(&ifs) != 0)
        return -1;
    for (i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
        if (a->sin_addr.s_addr != ip)
            continue;
        prefix = 32;
        if (i->ifa_netmask) {
            uint32_t m = ntohl(((const struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
            prefix = 0;
            while (m & 0x80000000u) {
                prefix++;
                m <<= 1;
            }
        }
        break;
    }
    freeifaddrs(ifs);
    return prefix;
}

static void gid_hex(const union ibv_gid *g, char *out)
{
    for (int i = 0; i < 16; i++)
        sprintf(out + 2 * i, "%02x", g->raw[i]);
}

int rdma_gid_parse(const char *s, union ibv_gid *g)
{
    if (strlen(s) != 32)
        return -1;
    for (int i = 0; i < 16; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        g->raw[i] = (uint8_t)v;
    }
    return 0;
}

static void why_add(struct bolt_tl_ctx *ctx, const char *fmt, const char *name, const char *what)
{
    size_t n = strlen(ctx->why);
    if (n + 4 < sizeof ctx->why)
        snprintf(ctx->why + n, sizeof ctx->why - n, fmt, n ? "; " : "", name, what);
}

/* Is `name` (port `port`) in BOLT_RDMA_DEVICES? 1 yes, 0 no, and *any = 1
 * when the list is empty (every device). */
static int wanted(const char *list, const char *name, int port, int *named_port)
{
    *named_port = 0;
    if (!*list)
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *colon = strchr(t, ':');
        int p = 0;
        if (colon) {
            *colon = '\0';
            p = atoi(colon + 1);
        }
        if (!strcmp(t, name) && (p == 0 || p == port)) {
            *named_port = p;
            return 1;
        }
    }
    return 0;
}

/* Picks the GID of a port: the configured index, or the IPv4-mapped GID of
 * one of our addresses. 0 when found. */
static int pick_gid(struct ibv_context *c, int port, const struct ibv_port_attr *pa,
                    struct rdma_dev *d, char *why, size_t cap)
{
    long long fixed = bolt_param_int(BOLT_P_RDMA_GID_INDEX);
    int n = pa->gid_tbl_len < GID_SCAN ? pa->gid_tbl_len : GID_SCAN;
    if (pa->link_layer == IBV_LINK_LAYER_INFINIBAND && fixed < 0)
        fixed = 0; /* InfiniBand: the port GID and its LID */
    for (int i = fixed >= 0 ? (int)fixed : 0; i < (fixed >= 0 ? (int)fixed + 1 : n); i++) {
        union ibv_gid g;
        uint32_t ip = 0;
        if (ibv_query_gid(c, (uint8_t)port, i, &g) != 0)
            continue;
        int mapped = gid_ipv4(&g, &ip);
        int prefix = mapped ? local_prefix(ip) : -1;
        if (fixed < 0 && (!mapped || prefix < 0))
            continue;
        d->gid = g;
        d->gid_index = i;
        d->ipv4 = mapped ? ip : 0;
        d->prefix = prefix >= 0 ? prefix : 32;
        return 0;
    }
    if (fixed >= 0)
        snprintf(why, cap, "GID index %lld (BOLT_RDMA_GID_INDEX) cannot be read", fixed);
    else
        snprintf(why, cap, "no IPv4-mapped GID of an address of this host (give the port an "
                           "IPv4 address, or set BOLT_RDMA_GID_INDEX)");
    return -1;
}

static int open_one(struct bolt_tl_ctx *ctx, struct ibv_device *dev, const char *list)
{
    const char *name = ibv_get_device_name(dev);
    struct ibv_context *c = ibv_open_device(dev);
    if (!c) {
        why_add(ctx, "%s%s: cannot open (%s)", name, strerror(errno));
        return 0;
    }
    struct ibv_device_attr da;
    if (ibv_query_device(c, &da) != 0) {
        why_add(ctx, "%s%s: cannot query (%s)", name, strerror(errno));
        ibv_close_device(c);
        return 0;
    }
    for (int port = 1; port <= da.phys_port_cnt; port++) {
        int named_port;
        if (!wanted(list, name, port, &named_port))
            continue;
        struct ibv_port_attr pa;
        if (ibv_query_port(c, (uint8_t)port, &pa) != 0)
            continue;
        if (pa.state != IBV_PORT_ACTIVE) {
            char what[64];
            snprintf(what, sizeof what, "port %d is %s", port, ibv_port_state_str(pa.state));
            why_add(ctx, "%s%s: %s", name, what);
            continue;
        }
        if (ctx->ndevs == RDMA_MAX_DEVS)
            break;
        struct rdma_dev *d = &ctx->devs[ctx->ndevs];
        memset(d, 0, sizeof *d);
        char why[200];
        if (pick_gid(c, port, &pa, d, why, sizeof why) != 0) {
            char what[256];
            snprintf(what, sizeof what, "port %d: %s", port, why);
            why_add(ctx, "%s%s: %s", name, what);
            continue;
        }
        snprintf(d->name, sizeof d->name, "%s", name);
        d->port = port;
        d->ctx = c;
        d->mtu = pa.active_mtu;
        d->link_layer = pa.link_layer;
        long long mq = bolt_param_int(BOLT_P_RDMA_MAX_QP), mm = bolt_param_int(BOLT_P_RDMA_MAX_MR);
        d->max_qp = (int)(mq > 0 && mq < da.max_qp ? mq : da.max_qp);
        d->max_mr = (int)(mm > 0 && mm < da.max_mr ? mm : da.max_mr);
        d->pd = ibv_alloc_pd(c);
        d->chan = d->pd ? ibv_create_comp_channel(c) : NULL;
        if (!d->pd || !d->chan) {
            why_add(ctx, "%s%s: cannot allocate a protection domain or channel (%s)", name,
                    strerror(errno));
            if (d->pd)
                ibv_dealloc_pd(d->pd);
            continue;
        }
        bolt_log(BOLT_LOG_DEBUG, "rdma: using %s port %d, GID index %d, %s/%d, MTU %d", d->name,
                 port, d->gid_index, inet_ntoa((struct in_addr){d->ipv4}), d->prefix,
                 128 << d->mtu);
        ctx->ndevs++;
        return 1; /* one port per device: a Mac device is one cable end */
    }
    ibv_close_device(c);
    return 0;
}

int rdma_devs_open(struct bolt_tl_ctx *ctx)
{
    int n = 0;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list) {
        snprintf(ctx->why, sizeof ctx->why, "no RDMA devices (%s)",
                 errno == ENOSYS ? "this kernel has no RDMA support" : strerror(errno));
        return BOLT_OK;
    }
    const char *map = bolt_param_string(BOLT_P_RDMA_DEVMAP);
    if (map && *map) {
        char err[600];
        ctx->map_given = 1;
        if (rdma_devmap_load(&ctx->map, map, err, sizeof err) != 0) {
            ibv_free_device_list(list);
            return bolt_err_set(BOLT_ERR_CONFIG, "rdma: BOLT_RDMA_DEVMAP: %s (write it with bolt-cluster check "
                                "--write-devmap, or unset BOLT_RDMA_DEVMAP to match devices by address)", err);
        }
        bolt_log(BOLT_LOG_INFO, "rdma: device map %s: %d proven device pair(s); peers it does not cover are "
                 "matched by address", map, ctx->map.n);
    }
    const char *want = bolt_param_string(BOLT_P_RDMA_DEVICES);
    for (int i = 0; i < n; i++)
        open_one(ctx, list[i], want);
    ibv_free_device_list(list);
    if (ctx->ndevs == 0 && !ctx->why[0])
        snprintf(ctx->why, sizeof ctx->why, "%s",
                 n == 0 ? "no RDMA devices" : "no device matches BOLT_RDMA_DEVICES");
    if (*want && ctx->ndevs == 0)
        return bolt_err_set(BOLT_ERR_CONFIG, "rdma: BOLT_RDMA_DEVICES='%s': no usable device (%s)",
                            want, ctx->why);
    return BOLT_OK;
}

void rdma_devs_close(struct bolt_tl_ctx *ctx)
{
    for (int i = 0; i < ctx->ndevs; i++) {
        struct rdma_dev *d = &ctx->devs[i];
        if (d->mr)
            ibv_dereg_mr(d->mr);
        free(d->slab);
        if (d->cq)
            ibv_destroy_cq(d->cq);
        if (d->chan)
            ibv_destroy_comp_channel(d->chan);
        if (d->pd)
            ibv_dealloc_pd(d->pd);
        /* Several devices never share a context: one port each. */
        if (d->ctx)
            ibv_close_device(d->ctx);
        memset(d, 0, sizeof *d);
    }
    ctx->ndevs = 0;
    rdma_devmap_free(&ctx->map);
}

int rdma_devs_describe(const struct bolt_tl_ctx *ctx, char *out, size_t cap)
{
    char host[300];
    if (bolt_host_id(host, sizeof host) != BOLT_OK || !host[0] || strchr(host, ' '))
        snprintf(host, sizeof host, "unknown");
    size_t n = (size_t)snprintf(out, cap, "rdma1 %d %s\n", ctx->ndevs, host);
    for (int i = 0; i < ctx->ndevs && n < cap; i++) {
        const struct rdma_dev *d = &ctx->devs[i];
        char hex[33], ip[INET_ADDRSTRLEN];
        gid_hex(&d->gid, hex);
        inet_ntop(AF_INET, &d->ipv4, ip, sizeof ip);
        uint16_t lid = 0;
        struct ibv_port_attr pa;
        if (d->link_layer == IBV_LINK_LAYER_INFINIBAND &&
            ibv_query_port(d->ctx, (uint8_t)d->port, &pa) == 0)
            lid = pa.lid;
        n += (size_t)snprintf(out + n, cap - n, "%s %d %s %s %d %d %u\n", d->name, d->port, hex,
                              ip, d->prefix, (int)d->mtu, (unsigned)lid);
    }
    if (n >= cap)
        return bolt_err_set(BOLT_ERR_INTERNAL, "rdma: device list too long to publish");
    return BOLT_OK;
}

int rdma_pub_field(const char *pub, int dev, int field, char *out, size_t cap)
{
    const char *line = strchr(pub, '\n');
    for (int i = 0; line && i < dev; i++)
        line = strchr(line + 1, '\n');
    if (!line || !line[1])
        return -1;
    line++;
    for (int f = 0; f < field; f++) {
        while (*line && *line != ' ' && *line != '\n')
            line++;
        if (*line != ' ')
            return -1;
        line++;
    }
    size_t k = 0;
    while (line[k] && line[k] != ' ' && line[k] != '\n')
        k++;
    if (k == 0 || k >= cap)
        return -1;
    memcpy(out, line, k);
    out[k] = '\0';
    return 0;
}

static uint32_t mask_of(int prefix)
{
    return prefix <= 0 ? 0 : htonl(prefix >= 32 ? 0xffffffffu : ~(0xffffffffu >> prefix));
}

/* The device the map pairs with one of the peer's (published) devices, or
 * -1. */
static int map_route(const struct bolt_tl_ctx *ctx, const char *pub, int ndev, int *peer_dev, int *map_line)
{
    for (int e = 0; e < ndev; e++) {
        char gid[40];
        union ibv_gid g;
        if (rdma_pub_field(pub, e, 2, gid, sizeof gid) || rdma_gid_parse(gid, &g) != 0)
            continue;
        for (int i = 0; i < ctx->ndevs; i++) {
            int side;
            const struct rdma_devmap_pair *p = rdma_devmap_find(&ctx->map, ctx->devs[i].gid.raw, g.raw, &side);
            if (p) {
                *peer_dev = e;
                *map_line = p->line;
                return i;
            }
        }
    }
    return -1;
}

int rdma_devs_route(const struct bolt_tl_ctx *ctx, const char *pub, int *peer_dev, int *map_line,
                    char *why, size_t cap)
{
    int best = -1, best_score = -1, ndev = 0;
    *peer_dev = -1;
    *map_line = 0;
    if (sscanf(pub, "rdma1 %d", &ndev) != 1 || ndev < 0) {
        snprintf(why, cap, "it published no RDMA device list");
        return -1;
    }
    if (ndev == 0) {
        snprintf(why, cap, "it has no usable RDMA device");
        return -1;
    }
    if (ctx->ndevs == 0) {
        snprintf(why, cap, "this rank has no usable RDMA device: %s", ctx->why);
        return -1;
    }
    /* Ranks of one host: a device is a cable end (on a Mac, and in a mesh),
     * which does not loop back; shared memory is the way. A device that does
     * loop back (Soft-RoCE on a dummy port) may be used on request. */
    char mine[300], theirs[300];
    if (!bolt_param_int(BOLT_P_RDMA_LOOPBACK) && bolt_host_id(mine, sizeof mine) == BOLT_OK &&
        sscanf(pub, "rdma1 %*d %299s", theirs) == 1 && !strcmp(mine, theirs)) {
        snprintf(why, cap, "it is on this host (ranks of one host use shared memory; "
                           "BOLT_RDMA_LOOPBACK=1 sends through a device that loops back)");
        return -1;
    }
    if (ctx->map.n > 0 && (best = map_route(ctx, pub, ndev, peer_dev, map_line)) >= 0)
        return best;
    for (int e = 0; e < ndev; e++) {
        char ip[64], pre[16], gid[40];
        struct in_addr a;
        union ibv_gid g;
        if (rdma_pub_field(pub, e, 3, ip, sizeof ip) || rdma_pub_field(pub, e, 4, pre, sizeof pre) ||
            rdma_pub_field(pub, e, 2, gid, sizeof gid) || inet_pton(AF_INET, ip, &a) != 1 ||
            rdma_gid_parse(gid, &g) != 0) {
            snprintf(why, cap, "its published device %d is malformed", e);
            return -1;
        }
        for (int i = 0; i < ctx->ndevs; i++) {
            const struct rdma_dev *d = &ctx->devs[i];
            int score = -1;
            if (d->ipv4 && a.s_addr) {
                int p = d->prefix < atoi(pre) ? d->prefix : atoi(pre);
                if (d->ipv4 == a.s_addr)
                    score = 40; /* the same port: ranks on one host and device */
                else if (((d->ipv4 ^ a.s_addr) & mask_of(p)) == 0)
                    score = p;
            } else if (!d->ipv4 && !a.s_addr && !memcmp(d->gid.raw, g.raw, 8)) {
                score = 1; /* InfiniBand: the same subnet prefix */
            }
            if (score > best_score) {
                best_score = score;
                best = i;
                *peer_dev = e;
            }
        }
    }
    if (best < 0)
        snprintf(why, cap, "none of its %d RDMA device(s) shares a subnet with ours", ndev);
    return best;
}

/* BOLT_RDMA_DEVMAP, as the transport would read it. */
static void devmap_list(FILE *out)
{
    const char *map = bolt_param_string(BOLT_P_RDMA_DEVMAP);
    if (map && *map) {
        struct rdma_devmap m;
        char err[600];
        if (rdma_devmap_load(&m, map, err, sizeof err) == 0)
            fprintf(out, "rdma device map  : %s, %d proven device pair(s): peers are reached through the "
                         "device it pairs with theirs\n", map, m.n);
        else
            fprintf(out, "rdma device map  : unusable: %s\n", err);
        rdma_devmap_free(&m);
    }
}

void rdma_devs_list(FILE *out)
{
    devmap_list(out);
    int n = 0;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list) {
        fprintf(out, "rdma devices     : none (%s)\n",
                errno == ENOSYS ? "this kernel has no RDMA support" : strerror(errno));
        return;
    }
    fprintf(out, "rdma devices     : %d (caps per process and device: %lld queue pairs, %lld "
                 "memory regions; BOLT_RDMA_MAX_QP/MR)\n",
            n, bolt_param_int(BOLT_P_RDMA_MAX_QP), bolt_param_int(BOLT_P_RDMA_MAX_MR));
    for (int i = 0; i < n; i++) {
        const char *name = ibv_get_device_name(list[i]);
        struct ibv_context *c = ibv_open_device(list[i]);
        struct ibv_device_attr da;
        if (!c || ibv_query_device(c, &da) != 0) {
            fprintf(out, "  %s: cannot open or query (%s)\n", name, strerror(errno));
            if (c)
                ibv_close_device(c);
            continue;
        }
        fprintf(out, "  %s: %d port(s), device limits %d queue pairs, %d memory regions, %d CQ "
                     "entries\n",
                name, da.phys_port_cnt, da.max_qp, da.max_mr, da.max_cqe);
        for (int port = 1; port <= da.phys_port_cnt; port++) {
            struct ibv_port_attr pa;
            if (ibv_query_port(c, (uint8_t)port, &pa) != 0)
                continue;
            fprintf(out, "    port %d: %s, MTU %d, %s\n", port, ibv_port_state_str(pa.state),
                    128 << pa.active_mtu,
                    pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "Ethernet (RoCE)");
            int ng = pa.gid_tbl_len < GID_SCAN ? pa.gid_tbl_len : GID_SCAN;
            for (int gi = 0; gi < ng; gi++) {
                union ibv_gid g;
                static const union ibv_gid zero;
                if (ibv_query_gid(c, (uint8_t)port, gi, &g) != 0 || !memcmp(&g, &zero, sizeof g))
                    continue;
                char txt[INET6_ADDRSTRLEN];
                inet_ntop(AF_INET6, g.raw, txt, sizeof txt);
                uint32_t ip;
                const char *mark = "";
                if (gid_ipv4(&g, &ip))
                    mark = local_prefix(ip) >= 0 ? "  (IPv4-mapped, an address of this host: usable)"
                                                 : "  (IPv4-mapped, not an address of this host)";
                fprintf(out, "      GID %d: %s%s\n", gi, txt, mark);
            }
        }
        ibv_close_device(c);
    }
    ibv_free_device_list(list);
}
