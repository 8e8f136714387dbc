/*
 * shm_mcast.c — one copy for many receivers (transport.h, send_many_now).
 *
 * A root broadcasting over shared memory to n receivers copied its buffer
 * once per receiver, into each one's channel, and each receiver copied it
 * out again: 2n copies, on cores the ranks may share. Here the root copies it
 * once, into one of its own shared slots (shm_seg.h), sets the slot's reader
 * count to the number of receivers and puts a header-only record
 * (SHM_REC_MCAST, aux = slot) in each one's ring; each receiver copies the
 * payload out of the slot when it reads the record and counts itself off.
 * n + 1 copies, and no rendezvous. A slot is free again at 0 readers; with
 * none free (receivers behind), the caller sends to each as before, so a
 * slow or dead receiver costs speed, never a wait.
 */
#include "transport/shm/shm.h"
#include "transport/shm/shm_prefault.h"

#include <string.h>

int shm_mcast_send_now(struct bolt_tl_ctx *ctx, const int *peers, int n,
                       const struct bolt_frame_hdr *h, const void *payload)
{
    if (!ctx || !ctx->enabled || n < 1 || h->len > ctx->seg->mcast_bytes)
        return 0;
    /* All or nothing: each peer must take its record now. Distinct peers,
     * so one free header cell each is enough. Behind queued frames the
     * record would overtake them: MPI's order forbids. */
    for (int i = 0; i < n; i++) {
        struct shm_peer *p = shm_live_peer(ctx, peers[i]);
        if (!p || p->sq_head || !shm_ring_has_room(&p->tx, 0))
            return 0;
        for (int j = 0; j < i; j++)
            if (peers[j] == peers[i])
                return 0;
    }
    int slot = -1;
    for (int k = 0; k < SHM_MCAST_SLOTS && slot < 0; k++) {
        int s = (ctx->mcast_next + k) % SHM_MCAST_SLOTS;
        /* Acquire: the last readers' copies out of it are done. */
        if (atomic_load_explicit(&shm_seg_mcast_hdr(ctx->seg, ctx->index, s)->readers,
                                 memory_order_acquire) == 0)
            slot = s;
    }
    if (slot < 0)
        return 0;
    /* Every slot page at once on first use, not one fault per page in the
     * calls that touch it first (shm_prefault.h): on 4 ranks, the second
     * pair of 256 KiB flat broadcasts took 1.8-2.8 ms, then 25-70 us. */
    if (!ctx->mcast_faulted) {
        shm_prefault(shm_seg_mcast_data(ctx->seg, ctx->index, 0), SHM_MCAST_SLOTS * (size_t)ctx->seg->mcast_bytes);
        ctx->mcast_faulted = 1;
    }
    if (h->len)
        memcpy(shm_seg_mcast_data(ctx->seg, ctx->index, slot), payload, h->len);
    /* Published by the records' release stores. */
    atomic_store_explicit(&shm_seg_mcast_hdr(ctx->seg, ctx->index, slot)->readers, (uint32_t)n,
                          memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        struct shm_peer *p = &ctx->peers[peers[i]];
        int put = shm_ring_put(&p->tx, SHM_REC_MCAST, (uint64_t)slot, h, NULL, 0);
        (void)put; /* room was checked above, and only we produce into this ring */
        shm_bell_wake(ctx, p, 0);
    }
    ctx->mcast_next = (slot + 1) % SHM_MCAST_SLOTS;
    return 1;
}

void shm_mcast_read(struct bolt_tl_ctx *ctx, struct shm_peer *p, uint64_t slot, void *dst,
                    uint64_t len)
{
    if (!p->mcast_faulted) { /* as the owner's, on the first read */
        shm_prefault(shm_seg_mcast_data(ctx->seg, p->local, 0), SHM_MCAST_SLOTS * (size_t)ctx->seg->mcast_bytes);
        p->mcast_faulted = 1;
    }
    if (len)
        memcpy(dst, shm_seg_mcast_data(ctx->seg, p->local, (int)slot), len);
    /* Release: our copy is done before the owner may refill the slot. */
    atomic_fetch_sub_explicit(&shm_seg_mcast_hdr(ctx->seg, p->local, (int)slot)->readers, 1,
                              memory_order_release);
}
