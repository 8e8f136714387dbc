/*
 * hostinfo_rdma_verbs.c — the host's RDMA devices through ibverbs
 * (rdma-core on Linux, Apple's librdma on macOS): name, first port's state,
 * link layer, active MTU and its first GIDs.
 */
#include "cluster/hostinfo.h"

#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

static uint32_t mtu_bytes(enum ibv_mtu m)
{
    return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

void hostinfo_rdma(struct ck_info *in)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (list == NULL || n == 0) {
        snprintf(in->rdma_note, sizeof in->rdma_note, "no RDMA device");
        if (list)
            ibv_free_device_list(list);
        return;
    }
    for (int i = 0; i < n && in->nrdma < CK_MAX_RDMA; i++) {
        struct ck_rdma *d = &in->rdma[in->nrdma++];
        snprintf(d->name, sizeof d->name, "%s", ibv_get_device_name(list[i]));
        struct ibv_context *ctx = ibv_open_device(list[i]);
        struct ibv_port_attr pa;
        if (ctx == NULL || ibv_query_port(ctx, 1, &pa) != 0) {
            snprintf(d->link_layer, sizeof d->link_layer, "unknown");
            if (ctx)
                ibv_close_device(ctx);
            continue;
        }
        d->port_state = (uint32_t)pa.state;
        snprintf(d->link_layer, sizeof d->link_layer, "%s",
                 pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
        d->mtu = mtu_bytes(pa.active_mtu);
        for (int k = 0; k < pa.gid_tbl_len && d->ngids < CK_MAX_GIDS; k++) {
            union ibv_gid g;
            static const uint8_t zero[16];
            if (ibv_query_gid(ctx, 1, k, &g) != 0 || memcmp(g.raw, zero, 16) == 0)
                continue;
            char *s = d->gids[d->ngids++];
            for (int b = 0; b < 16; b += 2)
                sprintf(s + 5 * (b / 2), "%02x%02x%s", g.raw[b], g.raw[b + 1], b < 14 ? ":" : "");
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
}
