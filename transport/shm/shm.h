/*
 * shm.h — private state of the shared-memory transport (transport/shm/).
 *
 *   shm_seg.c        the host's segment: layout, creation (boltrun), mapping
 *   shm_ring.c       one channel's SPSC ring of 64-byte cells
 *   shm_xfer.c       moving frames: eager records, pipelined DATA through the
 *                    staging chunks, single-copy DATA (CMA); receiving
 *   shm_claim.c      claim counters: who copies which piece of a split copy
 *   shm_mcast.c      one copy of a message in a shared slot for many receivers
 *   shm_bell.c       doorbells and the "asleep" flags: sleeping without lost
 *                    wake-ups
 *   shm_ctx.c        the ops (transport.h), wire-up, liveness, finalize
 *   shm_cma_*.c      platform seam for cross-memory attach (shm_cma.h)
 *
 * Same host means: sharing the segment boltrun created for this host. A rank
 * registers its world rank in its slot before the init fence; reachable(peer)
 * is true iff the peer registered in the same segment.
 */
#ifndef BOLT_SHM_H
#define BOLT_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport/shm/shm_ring.h"
#include "transport/shm/shm_seg.h"
#include "transport/transport.h"

/* Seconds between liveness checks of peers while the transport is in use. */
#define SHM_LIVENESS_S 0.1
/* Frames delivered per peer per progress pass at most. Draining everything
 * let a sender that runs ahead (a root broadcasting in a loop) pile up an
 * unbounded unexpected queue, faulting in fresh pages at ~16 us each; left
 * in the ring, they hold the sender back when it fills. */
#define SHM_READ_BATCH 64

/* Hosts with at most this many ranks fault their rings in at wire-up. */
#define SHM_PREFAULT_RANKS 16

struct shm_peer {
    int local;            /* index in the segment, -1 when not on it */
    int wired;
    int mcast_faulted;    /* its shared slots are in our page tables (shm_mcast.c) */
    int failed;
    int bell_w;           /* write end of its doorbell */
    pid_t pid;
    int cma;              /* single-copy reads by it: 1 yes, -1 no, 0 not known yet */
    int can_write;        /* we may write its memory (our read probe of it worked) */
    struct shm_slot *slot;
    struct shm_tx_ring tx; /* me -> peer */
    struct shm_rx_ring rx; /* peer -> me */
    unsigned char *tx_stage, *rx_stage;
    /* frames not yet in the ring, in order */
    struct bolt_tl_send *sq_head, *sq_tail;
    /* DATA frames whose record is in the ring and whose payload is being
     * staged, in order (the head is the one moving) */
    struct bolt_tl_send *pipe_head, *pipe_tail;
    uint64_t pipe_off;    /* bytes of the head pipe already staged */
    uint64_t chunks_put;  /* ours: staging chunks filled */
    /* single-copy DATA frames waiting for the reader's "done", in order */
    struct bolt_tl_send *cma_head, *cma_tail;
    uint64_t cma_completed;
    /* receiving a pipelined DATA frame */
    int rx_pipe;
    struct bolt_frame_hdr rx_hdr;
    unsigned char *rx_dst;
    void *rx_cookie;
    uint64_t rx_off;
    uint64_t chunks_got;  /* ours: staging chunks emptied */
    uint64_t cma_done;    /* ours: single-copy reads finished */
    int prod_waiting;     /* our copy of tx chan's waiting flag */
    uint32_t claims_used; /* claim counters of the rx chan we opened (bit per slot) */
};

struct bolt_tl_ctx {
    int rank, size;
    const struct bolt_tl_upcalls *up;
    int enabled;          /* started by boltrun with a segment */
    struct shm_seg_hdr *seg;
    int nlocal, index;
    struct shm_slot *me;
    int bell_r;
    int *bell_w_all;      /* write ends of every local rank's doorbell */
    int *fds;             /* every inherited fd, closed at finalize */
    int nfds;
    struct shm_peer *peers; /* by world rank */
    int *wired;           /* world ranks we talk to */
    int nwired;
    size_t eager_limit;
    int cma_mode;         /* -1 auto, 0 off, 1 required */
    uint64_t cma_max;     /* auto: single-copy up to this size */
    uint64_t split_min;   /* auto: idle senders split copies from this size */
    size_t cma_min;       /* single-copy above this size, if below eager_limit (not crowded) */
    int crowded;          /* more ranks on this host than cores */
    int fence_light;      /* registered: a waker's fence is a compiler barrier (shm_fence.h) */
    double timeout;
    double next_live_check;
    unsigned polls;
    int finalizing;
    int in_progress;
    int mcast_next;       /* our shared slot to try first (shm_mcast.c) */
    int mcast_faulted;    /* our shared slots are in our page tables (shm_mcast.c) */
    uint8_t probe[SHM_ID_BYTES]; /* the id, read by peers to probe CMA */
};

/* shm_xfer.c */
/* Moves what it can for one peer: queued frames, staging chunks, finished
 * single-copy reads, incoming records. Returns frames moved. */
int shm_xfer_peer(struct bolt_tl_ctx *ctx, int peer);
/* Writes an eager frame at once if nothing is queued before it and the ring
 * has room (transport.h, send_now). */
/* Should `len` bytes to p go single-copy (read by p), given the send's
 * BOLT_TL_HINT_* hints? */
int shm_xfer_use_cma(struct bolt_tl_ctx *ctx, struct shm_peer *p, uint64_t len, unsigned hints);
int shm_xfer_take_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *want,
                      void *buf);
int shm_xfer_send_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *h,
                      const void *payload);
/* Queues s (or writes it at once). */
void shm_xfer_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s);
/* Would shm_xfer_peer move anything? (no side effects on the peer) */
int shm_xfer_pending(struct bolt_tl_ctx *ctx, int peer);
/* Anything of ours still waiting to leave for `peer`? */
int shm_xfer_outgoing(const struct shm_peer *p);
/* Detaches every unfinished send of the peer into one list. */
struct bolt_tl_send *shm_xfer_take_sends(struct shm_peer *p);

/* `peer` wired and not failed: its state; else NULL (ctx NULL or out of range too). */
static inline struct shm_peer *shm_live_peer(struct bolt_tl_ctx *ctx, int peer)
{
    if (!ctx || peer < 0 || peer >= ctx->size || !ctx->peers[peer].wired ||
        ctx->peers[peer].failed)
        return NULL;
    return &ctx->peers[peer];
}

/* Does p read our large DATA single-copy? Its answer (from its probe at
 * wire-up) is on our channel to it; 0 until it is there. */
static inline int shm_peer_cma(const struct bolt_tl_ctx *ctx, struct shm_peer *p)
{
    if (p->cma == 0 && ctx->cma_mode != 0) {
        uint32_t ok = atomic_load_explicit(&p->tx.c->cons.cma_ok, memory_order_acquire);
        if (ok)
            p->cma = ok == 1 ? 1 : -1;
    }
    return p->cma == 1;
}

/* Frames to p up to this size go whole through the ring: the eager limit,
 * or lower toward a peer reading single-copy (one copy beats two sooner) -
 * but not with more ranks than cores, where a message copied into the ring
 * lets the sender go on instead of waiting for its receiver to get a core
 * (4 ranks on 2 cores, MPI_Bcast of 16 KiB: 11.4-11.8 us single-copy,
 * 3.2-4.0 through the ring). */
static inline size_t shm_peer_eager_limit(const struct bolt_tl_ctx *ctx, struct shm_peer *p)
{
    if (!ctx->crowded && ctx->cma_min < ctx->eager_limit && shm_peer_cma(ctx, p))
        return ctx->cma_min;
    return ctx->eager_limit;
}

/* shm_claim.c (struct bolt_transport's claim_open, claim, claim_close) */
int shm_claim_open(struct bolt_tl_ctx *ctx, int peer, size_t len, size_t *piece);
int shm_claim(struct bolt_tl_ctx *ctx, int peer, int slot, int from_back);
void shm_claim_close(struct bolt_tl_ctx *ctx, int peer, int slot);

/* shm_mcast.c (struct bolt_transport's send_many_now; the receiver's copy) */
int shm_mcast_send_now(struct bolt_tl_ctx *ctx, const int *peers, int n,
                       const struct bolt_frame_hdr *h, const void *payload);
/* The receiver's side: copies the payload of an SHM_REC_MCAST record (one
 * shm_mcast_rec_ok accepts) from p's slot into dst and counts itself off. */
void shm_mcast_read(struct bolt_tl_ctx *ctx, struct shm_peer *p, uint64_t slot, void *dst,
                    uint64_t len);
static inline int shm_mcast_rec_ok(const struct bolt_tl_ctx *ctx, const struct shm_rec *rec)
{
    return rec->aux < SHM_MCAST_SLOTS && rec->hdr.len <= ctx->seg->mcast_bytes;
}

/* shm_ctx.c */
void shm_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* shm_bell.c */
/* After publishing something `peer` may be waiting for: ring its doorbell
 * if it is asleep. `only_if_waiting`: the peer waits only when its waiting
 * flag on our channel is set (it is blocked sending to us). */
void shm_bell_wake(struct bolt_tl_ctx *ctx, struct shm_peer *p, int only_if_waiting);
int shm_bell_sleep_prepare(struct bolt_tl_ctx *ctx);
void shm_bell_sleep_done(struct bolt_tl_ctx *ctx);
/* The producer side: blocked on the consumer (or not). */
static inline void shm_bell_set_waiting(struct shm_peer *p, int waiting)
{
    if (p->prod_waiting == waiting)
        return;
    p->prod_waiting = waiting;
    /* Ordered before our "asleep" store by sleep_prepare's fence. */
    atomic_store_explicit(&p->tx.c->prod.waiting, (uint32_t)waiting, memory_order_relaxed);
}

#endif
