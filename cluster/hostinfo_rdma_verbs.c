/*
 * hostinfo_rdma_verbs.c — the host's RDMA devices through ibverbs
 * (rdma-core on Linux, Apple's librdma on macOS): name, first port's state,
 * link layer, active MTU and its first GIDs, and whether the device can be
 * probed (cluster/probe.h) and from which GID.
 *
 * A device is this host's when one of its IPv4-mapped GIDs is an address of
 * the host (on a Mac every Thunderbolt cable end is such a device): the one
 * the rdma transport would pick (transport/rdma/rdma_dev.c). A device whose
 * IPv4 GIDs are all another host's is left out (the test VM's hosts, network
 * namespaces of one kernel, see every host's devices); an InfiniBand device
 * without IPv4 GIDs is probed from GID 0.
 */
#include "cluster/hostinfo.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#define GID_SCAN 16 /* IPv4-mapped GIDs sit at low indexes, as in the transport */

static uint32_t mtu_bytes(enum ibv_mtu m)
{
    return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

static const char *state_name(enum ibv_port_state s)
{
    static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "in an unknown state";
}

static int is_local(const struct ck_info *in, const char *addr)
{
    for (uint32_t i = 0; i < in->nifs; i++)
        if (strcmp(in->ifs[i].addr, addr) == 0)
            return 1;
    return 0;
}

/* The GIDs to show, and the one to probe from. Returns 0 when the device is
 * another host's (IPv4 GIDs, none of them ours). */
static int gids(struct ibv_context *ctx, const struct ibv_port_attr *pa, const struct ck_info *in, struct ck_rdma *d)
{
    static const uint8_t zero[16], v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    int mapped = 0, mine = -1;
    for (int k = 0; k < pa->gid_tbl_len && k < GID_SCAN; k++) {
        union ibv_gid g;
        if (ibv_query_gid(ctx, 1, k, &g) != 0 || memcmp(g.raw, zero, 16) == 0)
            continue;
        if (d->ngids < CK_MAX_GIDS) {
            char *s = d->gids[d->ngids++];
            for (int b = 0; b < 16; b += 2)
                sprintf(s + 5 * (b / 2), "%02x%02x%s", g.raw[b], g.raw[b + 1], b < 14 ? ":" : "");
        }
        char ip[INET_ADDRSTRLEN];
        if (memcmp(g.raw, v4, sizeof v4) != 0 || inet_ntop(AF_INET, g.raw + 12, ip, sizeof ip) == NULL)
            continue;
        mapped = 1;
        if (mine < 0 && is_local(in, ip)) {
            mine = k;
            inet_ntop(AF_INET6, g.raw, d->gid, sizeof d->gid);
        }
    }
    if (mine >= 0) {
        d->gid_index = (uint32_t)mine;
        return 1;
    }
    if (mapped)
        return 0;
    union ibv_gid g0;
    if (pa->link_layer == IBV_LINK_LAYER_INFINIBAND && ibv_query_gid(ctx, 1, 0, &g0) == 0) {
        d->gid_index = 0;
        inet_ntop(AF_INET6, g0.raw, d->gid, sizeof d->gid);
    }
    return 1;
}

void hostinfo_rdma(struct ck_info *in)
{
    int n = 0, foreign = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (list == NULL || n == 0) {
        snprintf(in->rdma_note, sizeof in->rdma_note, "no RDMA devices");
        if (list)
            ibv_free_device_list(list);
        return;
    }
    for (int i = 0; i < n && in->nrdma < CK_MAX_RDMA; i++) {
        struct ck_rdma *d = &in->rdma[in->nrdma];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", ibv_get_device_name(list[i]));
        struct ibv_context *ctx = ibv_open_device(list[i]);
        struct ibv_port_attr pa;
        if (ctx == NULL || ibv_query_port(ctx, 1, &pa) != 0) {
            snprintf(d->link_layer, sizeof d->link_layer, "unknown");
            snprintf(d->note, sizeof d->note, "cannot be opened or queried");
            in->nrdma++;
            if (ctx)
                ibv_close_device(ctx);
            continue;
        }
        d->port_state = (uint32_t)pa.state;
        snprintf(d->link_layer, sizeof d->link_layer, "%s",
                 pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
        d->mtu = mtu_bytes(pa.active_mtu);
        if (!gids(ctx, &pa, in, d)) {
            foreign++;
            ibv_close_device(ctx);
            continue;
        }
        in->nrdma++;
        if (pa.state != IBV_PORT_ACTIVE)
            snprintf(d->note, sizeof d->note, "port 1 is %s", state_name(pa.state));
        else if (!d->gid[0])
            snprintf(d->note, sizeof d->note, "no IPv4-mapped GID of an address of this host (give its port an "
                     "IPv4 address)");
        else
            d->usable = 1;
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    if (foreign)
        snprintf(in->rdma_note, sizeof in->rdma_note, "%d more device(s) whose IPv4 GIDs are no address of this "
                 "host: another host's, left out", foreign);
    else if (in->nrdma == 0)
        snprintf(in->rdma_note, sizeof in->rdma_note, "no RDMA devices");
}
